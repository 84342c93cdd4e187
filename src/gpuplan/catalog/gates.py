"""Validation gates every imported row passes before it is stored.

A gate returns the reasons a row fails (empty = passes); the store imports the rows that pass and
reports the others with their line and reason. Gates never fix data.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from datetime import date, timedelta

from gpuplan.catalog import dates
from gpuplan.catalog.model import HOURS_PER_MONTH, Confidence, Currency, OfferRow, PriceRow, PricingModel
from gpuplan.catalog.wording import Worded
from gpuplan.errors import InputError, NotFoundError, Phrase
from gpuplan.hardware import all_gpus
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import either
from gpuplan.vocab import PRICING_RULES, price_words

__all__ = [
    "MAX_GPUS_PER_INSTANCE",
    "MAX_USD_PER_GPU_HOUR",
    "MIN_USD_PER_GPU_HOUR",
    "check_offer",
    "import_day",
    "offer_problems",
    "parse_as_of",
]

#: Most GPUs one instance has (GCP a2-megagpu-16g); a larger count is a data error.
MAX_GPUS_PER_INSTANCE = 16
#: Sanity ceilings per GPU-hour. No public list price of any GPU in the catalog comes near
#: 1000 USD per GPU-hour (H200 lists at ~8-12 USD); a bigger figure is a unit or parsing error.
MAX_USD_PER_GPU_HOUR = 1000.0
#: The same ceiling for CNY, stated without an exchange rate: 10000 CNY is more than 1000 USD at any
#: CNY rate of the last decades, so the gate can run before a rate is known.
MAX_CNY_PER_GPU_HOUR = 10000.0

#: Sanity floors per GPU-hour. The cheapest price in the shipped catalog is 0.149 USD per GPU-hour
#: (a T4 on Azure spot); 0.01 USD is 15x below it. A smaller figure (``5e-324``, a price in the wrong
#: unit) would make the planner recommend it at a near-zero cost.
MIN_USD_PER_GPU_HOUR = 0.01
#: The same floor in CNY, stated without an exchange rate: 0.05 CNY is below 0.01 USD at any CNY rate
#: of the last decades (5.5-8.5 CNY per USD).
MIN_CNY_PER_GPU_HOUR = 0.05
#: Smallest fraction of a GPU an instance may carry: Azure's NV6ads_A10_v5 sells 1/6 of an A10
#: (0.167 in the catalog). Above one GPU, counts are whole numbers.
MIN_GPU_FRACTION = 0.1
#: Region, zone and instance-type names: the providers' own (``us-east-1``, ``Standard_ND96asr_v4``,
#: ``ecs.gn7i-c8g1.2xlarge``) and the catalog's descriptive ones (``A100 40GB (GPU platform guide table)``).
#: No control characters, no quotes: these names reach reports and generated launch files.
_NAME = re.compile(r"[A-Za-z0-9*][A-Za-z0-9 ._()/+:*-]{0,127}")

#: Which units each pricing model may be published in (its billing rule in the vocabulary).
_UNITS: dict[PricingModel, frozenset[str]] = {PricingModel(p): r.units for p, r in PRICING_RULES.items()}


def parse_as_of(as_of: str) -> str | None:
    """``as_of`` if it is an ISO date (``YYYY-MM-DD``, ``YYYY-MM`` or ``YYYY``) or the bounds of an
    undated price (``2025-06/2026-12-02``, :mod:`gpuplan.catalog.dates`), else None."""
    return as_of if dates.parse_as_of(as_of) is not None else None


def import_day(as_of: str | None, today: date, what: str = "--as-of") -> str:
    """The ``--as-of`` of an import: ``today`` when none is given; a date or the bounds of one
    (earliest first) no later than ``today`` — a price observed in the future would count as the
    freshest one. Raises InputError (one line) otherwise, naming the value ``what`` (the CLI's
    flag; the service's query parameter ``as_of``)."""
    day = as_of or today.isoformat()
    parsed = dates.parse_as_of(day)
    if parsed is None:
        raise InputError.worded(
            N_("{what} {day!r} is not a date; write 2026-11-30, 2026-11 or 2026-10/2026-11-30"),
            what=what,
            day=day,
        )
    if parsed.earliest > today:
        raise InputError.worded(
            N_("{what} {day!r} is after today ({today}): a price cannot be observed in the future"),
            what=what,
            day=day,
            today=today.isoformat(),
        )
    return day


#: Days a price's date may lie after the importer's today (time zones: a provider east of the user
#: may already publish tomorrow's date).
FUTURE_SLACK_DAYS = 1


def _check_price(price: PriceRow, gpu_count: float, today: date | None = None) -> list[Worded]:
    reasons: list[Worded] = []
    try:
        model = PricingModel.cast(price.pricing)
    except NotFoundError as e:
        return [e]
    pricing = Phrase(model.value)  # the pricing model's name, in the user's language
    try:
        currency = Currency.cast(price.currency)
    except NotFoundError:
        return [Phrase(N_("unknown currency {currency} (known: USD, CNY)"), currency=repr(price.currency))]
    if not math.isfinite(price.amount) or price.amount <= 0:
        reasons.append(
            Phrase(
                N_("{pricing} price {amount:g} is not a positive amount"),
                pricing=pricing,
                amount=price.amount,
            )
        )
    if price.unit not in _UNITS[model]:
        reasons.append(
            Phrase(
                N_("{pricing} price in unit {unit}; expected {expected}"),
                pricing=pricing,
                unit=repr(price.unit),
                expected=either(sorted(_UNITS[model])),
            )
        )
    parsed = dates.parse_as_of(price.as_of)
    if parsed is None:
        reasons.append(
            Phrase(
                N_("{pricing} price has no ISO as_of date ({as_of})"),
                pricing=pricing,
                as_of=repr(price.as_of),
            )
        )
    elif today is not None and parsed.earliest > today + timedelta(days=FUTURE_SLACK_DAYS):
        # Stored, it would be the offer's newest price until that day: every later refresh hidden.
        reasons.append(
            Phrase(
                N_("{pricing} price dated {as_of}, after today ({today})"),
                pricing=pricing,
                as_of=price.as_of,
                today=today.isoformat(),
            )
        )
    if not price.source.strip():
        reasons.append(Phrase(N_("{pricing} price has no source"), pricing=pricing))
    try:
        Confidence.cast(price.confidence)
    except NotFoundError as e:
        reasons.append(e)
    if not reasons and gpu_count > 0:
        hourly = price.amount / HOURS_PER_MONTH if price.unit == "month" else price.amount
        ceiling = MAX_CNY_PER_GPU_HOUR if currency is Currency.CNY else MAX_USD_PER_GPU_HOUR
        floor = MIN_CNY_PER_GPU_HOUR if currency is Currency.CNY else MIN_USD_PER_GPU_HOUR
        fields = {
            "pricing": pricing,
            "amount": price.amount,
            **price_words(currency.code, price.unit),
            "per_gpu_hour": hourly / gpu_count,
        }
        if hourly / gpu_count > ceiling:
            reasons.append(
                Phrase(
                    N_(
                        "{pricing} price {amount:g} {currency}/{unit} is {per_gpu_hour:,.6g} {currency} per "
                        "GPU-hour, above the sanity ceiling {ceiling:g}: a unit or parsing error"
                    ),
                    ceiling=ceiling,
                    **fields,
                )
            )
        elif hourly / gpu_count < floor:
            reasons.append(
                Phrase(
                    N_(
                        "{pricing} price {amount:g} {currency}/{unit} is {per_gpu_hour:.3g} {currency} per "
                        "GPU-hour, below the sanity floor {floor:g}: a unit or parsing error"
                    ),
                    floor=floor,
                    **fields,
                )
            )
    return reasons


def check_offer(
    row: OfferRow,
    *,
    provider: str,
    known_instances: Mapping[tuple[str, str], tuple[str, float]],
    on_demand_hourly: Callable[[OfferRow], float | None],
    today: date | None = None,
) -> list[str]:
    """Every reason ``row`` fails the gates; empty when it passes.

    ``known_instances`` maps (provider, instance type) to the (GPU id, count) the catalog already
    holds for it; ``on_demand_hourly`` gives the on-demand price per hour (same currency) of the
    same instance type in the same region, for the spot gate; ``today``, when given, refuses a
    price dated after it (one day of slack).
    """
    problems = offer_problems(
        row,
        provider=provider,
        known_instances=known_instances,
        on_demand_hourly=on_demand_hourly,
        today=today,
    )
    return [str(p) for p in problems]


def offer_problems(
    row: OfferRow,
    *,
    provider: str,
    known_instances: Mapping[tuple[str, str], tuple[str, float]],
    on_demand_hourly: Callable[[OfferRow], float | None],
    today: date | None = None,
) -> list[Worded]:
    """:func:`check_offer`'s reasons as Phrases (and errors), to be written in the user's language."""
    reasons: list[Worded] = []
    if row.provider != provider:
        reasons.append(
            Phrase(
                N_("provider {provider} in an import for {expected}"),
                provider=repr(row.provider),
                expected=repr(provider),
            )
        )
    if not row.region.strip() or not row.instance_type.strip():
        reasons.append(Phrase(N_("empty region or instance type")))
    names = (
        (row.region, N_("region")),
        (row.zone or "", N_("zone")),
        (row.instance_type, N_("instance type")),
    )
    for name_value, what in names:
        if name_value and not (name_value.isascii() and _NAME.fullmatch(name_value)):
            reasons.append(
                Phrase(
                    N_("{what} {name} is not a name (letters, digits, . _ - only)"),
                    what=Phrase(what),
                    name=repr(name_value[:40]),
                )
            )
    known_gpus = {g.id for g in all_gpus()}
    if row.gpu not in known_gpus:
        reasons.append(Phrase(N_("unknown GPU {gpu} (not in the hardware catalog)"), gpu=repr(row.gpu)))
    if not (math.isfinite(row.gpu_count) and MIN_GPU_FRACTION <= row.gpu_count <= MAX_GPUS_PER_INSTANCE):
        reasons.append(
            Phrase(
                N_("GPU count {count:g} is outside {low:g} <= count <= {high}"),
                count=row.gpu_count,
                low=MIN_GPU_FRACTION,
                high=MAX_GPUS_PER_INSTANCE,
            )
        )
    elif row.gpu_count > 1 and not float(row.gpu_count).is_integer():
        reasons.append(Phrase(N_("GPU count {count:g} is not a whole number"), count=row.gpu_count))
    if row.accelerator_count_reported is not None and row.accelerator_count_reported != row.gpu_count:
        reasons.append(
            Phrase(
                N_(
                    "GPU count {count:g} disagrees with the {reported:g} GPUs "
                    "the same source's GPU info reports"
                ),
                count=row.gpu_count,
                reported=row.accelerator_count_reported,
            )
        )
    known = known_instances.get((row.provider, row.instance_type))
    if known is not None:
        known_gpu, known_count = known
        if known_count != row.gpu_count:
            reasons.append(
                Phrase(
                    N_(
                        "GPU count {count:g} contradicts instance type {instance_type} "
                        "({known_count:g} x {known_gpu} in the catalog)"
                    ),
                    count=row.gpu_count,
                    instance_type=row.instance_type,
                    known_count=known_count,
                    known_gpu=known_gpu,
                )
            )
        elif known_gpu != row.gpu:
            reasons.append(
                Phrase(
                    N_("GPU {gpu} contradicts instance type {instance_type} ({known_gpu} in the catalog)"),
                    gpu=row.gpu,
                    instance_type=row.instance_type,
                    known_gpu=known_gpu,
                )
            )
    sizes = ((row.vcpus, N_("vCPU count")), (row.memory_gib, N_("memory")), (row.network_gbps, N_("network")))
    for value, name in sizes:
        if value is not None and not (math.isfinite(value) and value > 0):
            reasons.append(Phrase(N_("{what} {value:g} is not positive"), what=Phrase(name), value=value))
    if not row.source.strip():
        reasons.append(Phrase(N_("no specification source")))
    for price in row.prices:
        reasons.extend(_check_price(price, row.gpu_count, today))
    spot = [p for p in row.prices if p.pricing == PricingModel.SPOT.value]
    if spot and not reasons:
        od = on_demand_hourly(row)
        for p in spot:
            if od is not None and p.amount >= od:
                reasons.append(
                    Phrase(
                        N_("spot price {amount:g} is not below the on-demand price {on_demand:g}"),
                        amount=p.amount,
                        on_demand=od,
                    )
                )
    if not row.prices and not row.price_reason:
        reasons.append(Phrase(N_("no price and no reason why")))
    return reasons
