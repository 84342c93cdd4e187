"""What a simulation is given: replica prices from the catalog, replicas and services from files.

- :func:`fleet_prices`: the price per replica-hour of a GPU's cheapest known on-demand and spot
  instance that holds a whole replica, both of the one region the fleet runs in (and, where a
  policy commits replicas, of its monthly or reserved offer there), and the spot interruption rate
  from its catalog band (else the planner's stated default);
- :func:`parse_replica`: a replica's speed given by hand (``slots=48,tpot_ms=30,prefill_tps=8000``);
- :func:`autoscale_slos`, :func:`storage_bytes_per_s` and :func:`request_tokens`: the latency
  targets, the weights' read rate and a request's tokens of ``simulate autoscale``, read alike by
  the command and the service;
- :func:`load_services`: a ``services.yaml`` for ``simulate share``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from gpuplan.bounded import printable
from gpuplan.catalog.gates import MAX_GPUS_PER_INSTANCE
from gpuplan.documents.base import refuse_boolean
from gpuplan.errors import InputError, NotFoundError, Option, Phrase
from gpuplan.hardware.gpus import MAX_GPU_MEMORY_GIB
from gpuplan.i18n.messages import N_, _
from gpuplan.i18n.numbers import format_number
from gpuplan.i18n.phrases import listed
from gpuplan.i18n.sources import source_words
from gpuplan.plan.spot import DEFAULT_SPOT_RATE, offer_rate, service_unit
from gpuplan.simulate.autoscale import FleetPrices, ReplicaModel
from gpuplan.simulate.notebooks import DEFAULT_MAX_OOM_RISK, DEFAULT_MAX_SLOWDOWN, NotebookGroup
from gpuplan.simulate.pricing import PriceBasis
from gpuplan.simulate.share import MAX_SHARE_GPUS, ServiceDemand, ServingModel
from gpuplan.units import (
    MAX_SPOT_RATE_PER_HOUR,
    MAX_STORAGE_GBPS,
    MIN_STORAGE_GBPS,
    instances_for,
    split_list,
)
from gpuplan.vocab import confidence_name, pricing_name
from gpuplan.workload._validation import PrintableLine
from gpuplan.workload.spec import ScheduleSpec

if TYPE_CHECKING:
    from gpuplan.catalog import OfferPrice
    from gpuplan.i18n import Money
    from gpuplan.perf.inference import DecodeEstimate
    from gpuplan.perf.request_tail import RequestTail
    from gpuplan.simulate.latency import Slo
    from gpuplan.simulate.policy import Policy
    from gpuplan.workload.spec import ConstraintsSpec, ServingSpec

__all__ = [
    "ServicesFile",
    "autoscale_slos",
    "basis_words",
    "check_commit_price",
    "check_given_prices",
    "demand_from_decode",
    "fleet_prices",
    "load_services",
    "money_words",
    "narrowed_words",
    "parse_replica",
    "price_basis",
    "replica_instances",
    "request_tokens",
    "request_tokens_p95",
    "storage_bytes_per_s",
    "whole_instances",
]


def money_words(usd: float, unit: str, money: Money | None, per: str) -> str:
    """ "1.24 USD/replica-h" (``unit``: the USD unit in words), or in another display currency
    "¥8.66/replica-h" (``per``: the unit after its slash; "" for none), at ``money``'s rate, which
    the output states with its date (``Money.rate_note``): a price line read in yuan had led with
    dollars."""
    if money is None or money.currency == "USD":
        return f"{usd:.4g} {unit}"
    return money.format(usd, per=per or None)


def narrowed_words(narrowed: str) -> str:
    """ ", the cheapest where the workload's constraints allow (constraints.providers: …)": after
    an offer, the constraints that narrowed the offers it was picked from ("" where none did)."""
    if not narrowed:
        return ""
    return _(", the cheapest where the workload's constraints allow ({constraints})").format(
        constraints=narrowed
    )


def _price_caveat(o: OfferPrice, money: Money | None) -> str:
    """What a price's date leaves open, after its source line: the dated floor where the fleet is
    costed at one (its age, where it may be stale, is said with the price's source), its figure in
    the display currency (:func:`money_words`)."""
    floor = o.dated_floor_usd_per_hour()
    if floor is not None:
        said = (
            _(", stale {own} of {own_day} below {what}: costed at it ({day})")
            if floor.held == "stale"
            else _(", undated {own} below {what}: costed at it ({day})")
        )
        own = money_words(o.price_usd_per_gpu_hour or 0.0, _("USD/GPU-h"), money, _("GPU-h"))
        return said.format(own=own, own_day=o.as_of, what=floor.what(), day=floor.as_of)
    return ""


#: The pricing models a fleet is priced on unless a policy commits replicas (``commit``).
_HOURLY = ("on_demand", "spot")


def _usable(
    offers: Iterable[OfferPrice],
    gpu_id: str,
    pricings: Sequence[str] = _HOURLY,
    *,
    allow_low_confidence: bool = False,
) -> list[tuple[OfferPrice, bool]]:
    """The offers of ``gpu_id`` a fleet may be priced on (those of ``pricings``: on-demand and spot,
    and a committed model where a policy commits replicas; low-confidence prices are left out, as
    plan leaves them out unless ``allow_low_confidence``), each with whether its price is known to
    hold today,
    judged as plan judges it (:func:`gpuplan.plan.costing.not_known_current` over plan's offer
    table): dated within the staleness limit and not costed at a dated floor. A fleet is priced as
    plan ranks: the lowest figure first, and of equal figures the one known current (an unknown
    never wins a tie)."""
    from gpuplan.plan.build_inputs import offer_table_from_prices
    from gpuplan.plan.costing import not_known_current

    usable = [
        o
        for o in offers
        if o.gpu == gpu_id and o.pricing in pricings and (allow_low_confidence or o.confidence != "low")
    ]
    if not usable:
        return []
    stale = not_known_current(offer_table_from_prices(usable))
    return [(o, not bool(old)) for o, old in zip(usable, stale, strict=True)]


def whole_instances(
    offers: Iterable[OfferPrice], gpu_id: str, gpus: int = 1, *, current_only: bool = False
) -> dict[str, tuple[float, OfferPrice, int]]:
    """Pricing model -> (USD per hour of ``gpus`` GPUs bought as whole instances, the offer, how
    many of its instances): ``ceil(gpus / gpus per instance)`` instances at each offer's
    conservative price, the cheapest per model, of equal ones the one known current
    (:func:`_usable`). Offers of low confidence or of less than one GPU (a slice cannot hold a
    GPU's work) are left out; ``current_only``: so are prices not known to hold today. e.g. 1 GPU
    of an 8-GPU p4d at $21.96/h: $21.96."""
    best: dict[str, tuple[float, OfferPrice, int]] = {}
    rank: dict[str, tuple[float, bool]] = {}
    for o, current in _usable(offers, gpu_id):
        per_gpu = o.conservative_usd_per_gpu_hour()
        if per_gpu is None or o.gpu_count < 1 or (current_only and not current):
            continue
        n = instances_for(gpus, o.gpu_count)
        total = float(per_gpu) * o.gpu_count * n
        key = (total, not current)
        if o.pricing not in best or key < rank[str(o.pricing)]:
            best[str(o.pricing)], rank[str(o.pricing)] = (total, o, n), key
    return best


def replica_instances(
    offers: Iterable[OfferPrice],
    gpu_id: str,
    gpus_per_replica: int = 1,
    fleet_replicas: int = 1,
    *,
    current_only: bool = False,
    replicas_per_gpu: int = 1,
    pricings: Sequence[str] = _HOURLY,
    allow_low_confidence: bool = False,
) -> dict[str, tuple[float, OfferPrice, int]]:
    """Pricing model -> (USD per instance-hour, the offer, replicas of ``gpus_per_replica`` GPUs one
    instance holds) for a replica fleet: a replica's tensor-parallel ranks share one machine (their
    links are a board's NVLink or PCIe, not a network between VMs), so only instances of at least
    ``gpus_per_replica`` whole GPUs hold one, ``floor(GPUs / gpus_per_replica)`` each. Per model the
    offer that costs least for ``fleet_replicas`` replicas in whole instances
    (``ceil(fleet / per instance)`` of them), each at its conservative price. Offers of low
    confidence are left out; ``current_only``: so are prices not known to hold today. Of equal
    costs (to the cent, as ``plan`` compares them), the price known current (:func:`_usable`; an
    unknown never wins a tie, as in ``plan``),
    then the smallest instance that
    holds a replica (fewest replicas to an instance: whole instances billed while fewer run, and
    fewer replicas to one reclaim), then the cheaper per replica. e.g. 4-GPU replicas, fleet
    of 3: two 8-GPU p5 at $55.04/h ($110.08) against three 4-GPU boxes at $40/h ($120): the p5.
    ``replicas_per_gpu`` replicas of one GPU time-sharing each (``serving.share_gpu``): an instance
    holds that many times more (4 to a 1-GPU instance at 4). ``pricings``: the models priced (a
    committed one's price per hour is its monthly or reserved price over its hours, 730 h a month,
    as the catalog converts it for plan: ``OfferPrice.price_usd_per_gpu_hour``).
    ``allow_low_confidence``: the low-confidence prices count too (``plan --allow-low-confidence``).

    On spot the fleet is ranked as ``plan`` prices a spot service (:func:`fleet_cost_ranked`): with
    one spare unit of the offer's instances, so that an 8-GPU instance whose one reclaim takes its
    eight replicas counts a whole 8-GPU spare, and a 1-GPU instance near its price per GPU wins
    (two spot replicas had been put on one 8-GPU instance, both down at one reclaim, beside a
    1-GPU instance of the same GPU)."""
    need = max(1, gpus_per_replica)
    share = max(1, replicas_per_gpu)
    fleet = max(1, fleet_replicas)
    best: dict[str, tuple[float, OfferPrice, int]] = {}
    rank: dict[str, tuple[float, bool, int, float]] = {}
    for o, current in _usable(offers, gpu_id, pricings, allow_low_confidence=allow_low_confidence):
        per_gpu = o.conservative_usd_per_gpu_hour()
        whole = math.floor(o.gpu_count + 1e-9)
        if per_gpu is None or whole < need or (current_only and not current):
            continue
        per_instance = float(per_gpu) * o.gpu_count
        k = _unit(whole, need, share)[1]
        ranked = fleet_cost_ranked(str(o.pricing), fleet, (per_instance, o, k), need, share)
        # compared to the cent, as plan ranks (objective_order): a rounding apart is a tie
        key = (round(ranked, 2), not current, k, per_instance / k)
        if o.pricing not in best or key < rank[str(o.pricing)]:
            best[str(o.pricing)], rank[str(o.pricing)] = (per_instance, o, k), key
    return best


def _unit(gpus_per_instance: float, gpus_per_replica: int, replicas_per_gpu: int) -> tuple[int, int]:
    """A replica fleet's unit on instances of ``gpus_per_instance`` GPUs, as ``plan`` packs a
    service (:func:`gpuplan.plan.spot.service_unit`): the instances that hold one whole replica and
    the replicas one instance holds (``floor(GPUs / gpus_per_replica)``, times those time-sharing a
    GPU)."""
    whole = math.floor(gpus_per_instance + 1e-9)
    span, k = service_unit(np.array([whole]), gpus_per_replica, replicas_per_gpu)
    return int(span[0]), int(k[0])


def fleet_cost_ranked(
    pricing: str,
    fleet: int,
    pick: tuple[float, OfferPrice, int],
    gpus_per_replica: int,
    replicas_per_gpu: int,
) -> float:
    """USD per hour a fleet of ``fleet`` replicas is ranked at on ``pick`` (its price per instance,
    the offer, the replicas one instance holds): its whole instances, ``ceil(fleet / per
    instance)``, and on spot one spare unit more, the fewest instances that hold one whole replica
    (:func:`gpuplan.plan.spot.service_unit`), as ``plan`` prices a spot service (its spare keeps the
    load target through a reclaim, which takes every replica on the instance). Only the ranking
    counts the spare: the simulation bills the instances its replicas run on."""
    per_instance, o, k = pick
    instances = math.ceil(max(1, fleet) / max(1, k))
    if pricing == "spot":
        instances += _unit(o.gpu_count, gpus_per_replica, replicas_per_gpu)[0]
    return instances * per_instance


def price_basis(
    usd_per_hour: float,
    o: OfferPrice,
    current: tuple[float, OfferPrice, int | None] | None,
    *,
    known_current: bool,
    replicas_per_instance: int | None = None,
) -> PriceBasis:
    """What a catalog price rests on (its publisher's text, date and confidence, as plan's option
    names them) and, where ``known_current`` is False, the best price that is known current
    (``current``: its figure, in the same unit, its offer and the replicas one of its instances
    holds; None where the catalog has none)."""
    from gpuplan.catalog import DEFAULT_STALE_AFTER_DAYS
    from gpuplan.plan.build_inputs import offer_table_from_prices
    from gpuplan.plan.options import price_date_words

    days = o.stale_after_days if o.stale_after_days is not None else DEFAULT_STALE_AFTER_DAYS
    alt = None
    if not known_current and current is not None:
        alt = price_basis(current[0], current[1], None, known_current=True, replicas_per_instance=current[2])
    per_gpu = o.conservative_usd_per_gpu_hour()
    return PriceBasis(
        usd_per_hour=usd_per_hour,
        given=False,
        usd_per_instance_hour=None if per_gpu is None else per_gpu * o.gpu_count,
        published_price=o.price,
        published_currency=o.currency or "",
        published_unit=o.unit or "",
        replicas_per_instance=replicas_per_instance,
        gpus_per_instance=o.gpu_count,
        provider=o.provider,
        region=o.region,
        instance_type=o.instance_type,
        as_of=o.as_of or "",
        confidence=o.confidence or "",
        # as plan's option names it: the catalog's text, with the user's discount where one applies
        source=str(offer_table_from_prices([o]).source[0]),
        known_current=known_current,
        date_words="" if known_current else price_date_words(o.as_of or "", o.staleness or "", days, o.gpu),
        stale_after_days=days,
        current=alt,
    )


def basis_words(
    b: PriceBasis,
    pricing: str,
    gpu_id: str,
    unit: str,
    money: Money | None = None,
    per: str = "",
    *,
    instances: int | None = None,
    current_for: str = "",
) -> str:
    """ "; price source: … (confidence secondary); observed at some time between …: treated as
    stale; best on_demand price known to be within the 180-day limit: …": what a catalog price's
    note says after the offer, in the user's language. ``unit``: the figures' unit in USD, in
    words; ``money`` and ``per``: the display currency and its unit (:func:`money_words`). In
    another currency than USD the source is cited with the price of one instance as the catalog
    holds it, in its own currency, and the figure costed in USD beside it, each named for what it
    is (``instances``: the whole instances that figure pays for, ``simulate share``);
    ``current_for``: what the best current price's figure pays for, said after it (``simulate
    share``: the GPUs it needs, as whole instances of that offer)."""
    usd = money is None or money.currency == "USD"
    out = _("; price source: {source} (confidence {confidence})").format(
        source=source_words(printable(b.source)) if b.source else _("not stated"),
        confidence=confidence_name(b.confidence) if b.confidence else "?",
    )
    if not usd:
        # the figure costed, in the display currency first, then in the catalog's USD it came from
        used = _("{price} ({usd} USD)").format(
            price=money_words(b.usd_per_hour, unit, money, per), usd=f"{b.usd_per_hour:.4g}"
        )
        costed = (
            _("costed at {price} for the {n} instances").format(price=used, n=instances)
            if instances is not None and instances > 1
            else _("costed at {price}").format(price=used)
        )
        held = ""
        if b.published_price is not None and b.published_currency:
            held = (
                _("which holds {price} {currency} per instance-month")
                if b.published_unit == "month"
                else _("which holds {price} {currency} per instance-hour")
            ).format(price=f"{b.published_price:.4g}", currency=b.published_currency) + _(", ")
        out = _("; price source: {source}, {held}{costed} (confidence {confidence})").format(
            source=source_words(printable(b.source)) if b.source else _("not stated"),
            held=held,
            costed=costed,
            confidence=confidence_name(b.confidence) if b.confidence else "?",
        )
    if b.known_current:
        return out
    out += _("; {why}").format(why=b.date_words)
    c = b.current
    if c is None:
        return out + _(
            "; no {pricing} price of {gpu} in the catalog is known to be within the {days}-day limit"
        ).format(pricing=pricing_name(pricing), gpu=gpu_id, days=b.stale_after_days)
    return out + _(
        "; best {pricing} price known to be within the {days}-day limit: {provider} {region} "
        "{instance_type}, {price}{shared} ({as_of}; {source}, confidence {confidence})"
    ).format(
        pricing=pricing_name(pricing),
        days=b.stale_after_days,
        provider=c.provider,
        region=c.region,
        instance_type=c.instance_type,
        price=money_words(c.usd_per_hour, unit, money, per),
        shared=_shared(c, money) + current_for,
        as_of=c.as_of,
        source=source_words(printable(c.source)) if c.source else _("not stated"),
        confidence=confidence_name(c.confidence) if c.confidence else "?",
    )


def _one_reclaim(pricing: str, per_instance: int) -> str:
    """ "; one reclaim takes every replica on the instance, up to 8 at once": said of a spot price
    whose instance holds several replicas (the simulation reclaims them so; "" otherwise)."""
    if pricing != "spot" or per_instance <= 1:
        return ""
    return _("; one reclaim takes every replica on the instance, up to {n} at once").format(n=per_instance)


def _bought(
    o: OfferPrice, per_instance: int, gpus: int, replicas_per_gpu: int = 1, money: Money | None = None
) -> str:
    """ ": 55.04 USD per instance-h, 2 replicas of 4 GPUs on each 8-GPU instance, whole instances
    billed as the fleet needs them": what a price per replica-hour stands for, where an instance
    holds more GPUs than one replica ("" where they match), or replicas time-share its GPUs."""
    if replicas_per_gpu > 1:
        return _(
            ": {price} per instance-h, {n} replicas on each {k}-GPU instance ({share} "
            "time-sharing each GPU), whole instances billed as the fleet needs them"
        ).format(
            price=money_words((o.conservative_usd_per_gpu_hour() or 0.0) * o.gpu_count, "USD", money, ""),
            n=per_instance,
            k=format_number(o.gpu_count),
            share=replicas_per_gpu,
        )
    if per_instance == 1 and o.gpu_count <= gpus:
        return ""
    return _(
        ": {price} per instance-h, {n} replica(s) of {g} GPU(s) on each {k}-GPU instance, "
        "whole instances billed as the fleet needs them"
    ).format(
        price=money_words((o.conservative_usd_per_gpu_hour() or 0.0) * o.gpu_count, "USD", money, ""),
        n=per_instance,
        g=gpus,
        k=format_number(o.gpu_count),
    )


def policy_fleets(policies: Sequence[Policy]) -> dict[str, Any]:
    """The ``fleet_replicas``, ``spot_fleet_replicas`` and ``committed_fleets`` of
    :func:`fleet_prices` for ``policies``: the most replicas any runs on demand (those of its
    largest fleet beyond its commitment and not on spot), the most replicas any runs on spot (its
    spot share of its largest fleet above its commitment, as the engine rounds it:
    :func:`gpuplan.simulate.engine.spot_share`), and per committed pricing model the most replicas
    any commits (only where one does). A fleet of 8 half on spot runs 4 on demand: its on-demand
    offer is picked for 4 (it had been picked for all 8, an 8-GPU box billed whole for the 4)."""
    from gpuplan.simulate.engine import spot_share

    out: dict[str, Any] = {
        "fleet_replicas": max(on_demand_share(p, p.max_replicas) for p in policies),
        "spot_fleet_replicas": max(spot_share(p, p.max_replicas) for p in policies),
    }
    committed: dict[str, int] = {}
    for p in policies:
        if p.commit_replicas > 0:
            committed[p.commit_pricing] = max(committed.get(p.commit_pricing, 0), p.commit_replicas)
    if committed:
        out["committed_fleets"] = committed
    return out


def on_demand_share(policy: Policy, replicas: int) -> int:
    """Replicas of a fleet of ``replicas`` that run on demand, at least one: those above the
    policy's commitment that are not on spot (:func:`gpuplan.simulate.engine.spot_share`). It
    grows with the fleet (the spot share is rounded down), and the engine launches an on-demand
    replica only while the spot ones fill their share, so the policy's largest fleet runs the most."""
    from gpuplan.simulate.engine import spot_share

    return max(1, replicas - policy.commit_replicas - spot_share(policy, replicas))


def prices_by_policy(
    offers: Iterable[OfferPrice], gpu_id: str, policies: Sequence[Policy], **given: Any
) -> dict[str, FleetPrices]:
    """By policy name, :func:`fleet_prices` for that policy's own fleet (``given``: the other
    arguments): a policy of one replica is priced on the instance a fleet of one takes, whatever
    fleet another policy beside it runs (it had been billed an 8-GPU instance picked for another's
    eight, at 83 % more than alone)."""
    listed = list(offers)
    out = {}
    for p in policies:
        out[p.name] = fleet_prices(listed, gpu_id, **policy_fleets([p]), **given)
    return out


def check_given_prices(
    *,
    on_demand_usd: float | None = None,
    spot_usd: float | None = None,
    spot_rate_per_hour: float | None = None,
    gpus_per_replica: int = 1,
    commit_usd: float | None = None,
) -> None:
    """Refuse a given price per replica-hour (``--on-demand-price``, ``--spot-price``,
    ``--commit-price``) or spot interruption rate (``--spot-rate``) out of its bounds, as
    :func:`fleet_prices` reads them: one at a time where a reader names each of its own (the
    service's request fields)."""
    from gpuplan.catalog.gates import MAX_USD_PER_GPU_HOUR

    # The catalog's ceiling per GPU-hour (no list price comes near it) times the most GPUs a replica
    # pays for, bought as whole instances: a larger figure is a unit error, and its cost over a
    # window would not print.
    paid = MAX_GPUS_PER_INSTANCE * max(1, instances_for(gpus_per_replica, MAX_GPUS_PER_INSTANCE))
    ceiling = MAX_USD_PER_GPU_HOUR * paid
    for flag, value in (
        (Option("--on-demand-price"), on_demand_usd),
        (Option("--spot-price"), spot_usd),
        (Option("--commit-price"), commit_usd),
    ):
        if value is not None and not (math.isfinite(value) and value > 0):
            raise InputError.worded(
                N_("{flag} must be a positive number of USD per replica-hour, got {value:g}"),
                flag=flag,
                value=value,
            )
        if value is not None and value > ceiling:
            raise InputError.worded(
                N_(
                    "{flag} must be at most {limit:,.0f} USD per replica-hour ({per_gpu:,.0f} USD per "
                    "GPU-hour, above any price in the catalog, for the {gpus} GPUs a replica pays for at "
                    "most), got {value:g}"
                ),
                flag=flag,
                limit=ceiling,
                per_gpu=MAX_USD_PER_GPU_HOUR,
                gpus=paid,
                value=value,
            )
    if spot_rate_per_hour is not None and not (math.isfinite(spot_rate_per_hour) and spot_rate_per_hour >= 0):
        raise InputError.worded(
            N_("--spot-rate must be 0 or more interruptions per hour, got {rate:g}"), rate=spot_rate_per_hour
        )
    if spot_rate_per_hour is not None and spot_rate_per_hour > MAX_SPOT_RATE_PER_HOUR:
        raise InputError.worded(
            N_("--spot-rate must be at most {limit:g} interruptions per hour (one a minute), got {rate:g}"),
            limit=MAX_SPOT_RATE_PER_HOUR,
            rate=spot_rate_per_hour,
        )


def check_commit_price(commit_usd: float | None, policies: Sequence[Policy]) -> None:
    """Refuse a given committed price (``--commit-price``) where no policy commits replicas: it
    would price nothing, and the user meant a commitment the policies do not say."""
    if commit_usd is not None and not any(p.commit_replicas for p in policies):
        raise InputError.worded(
            N_(
                "--commit-price prices committed replicas: give a policy commit=N "
                "(e.g. fixed:replicas=4,commit=4)"
            )
        )


def fleet_prices(
    offers: Iterable[OfferPrice],
    gpu_id: str,
    *,
    on_demand_usd: float | None = None,
    spot_usd: float | None = None,
    spot_rate_per_hour: float | None = None,
    gpus_per_replica: int = 1,
    fleet_replicas: int = 1,
    spot_fleet_replicas: int | None = None,
    replicas_per_gpu: int = 1,
    constraints: ConstraintsSpec | None = None,
    money: Money | None = None,
    committed_fleets: Mapping[str, int] | None = None,
    commit_usd: float | None = None,
) -> FleetPrices:
    """Prices per replica-hour of a replica of ``gpus_per_replica`` GPUs (its tensor-parallel
    ranks, in one machine): per pricing model the catalog offer :func:`replica_instances` picks for
    a fleet of up to ``fleet_replicas`` (on demand: the most replicas the policies run on demand,
    :func:`policy_fleets`), its instance price shared by the replicas one instance holds. The
    simulation bills whole instances: at each moment as many as its running replicas fill
    (``ceil(replicas / per instance)``). Each price is the conservative one
    (``OfferPrice.conservative_usd_per_gpu_hour``).

    ``spot_fleet_replicas``: the most replicas the policies run on spot (their spot share of their
    largest fleet; None: ``fleet_replicas``) — the spot offer is picked for that fleet, not the
    whole one (one spot replica had been billed a whole 8-GPU instance picked for eight).

    ``replicas_per_gpu``: replicas of one GPU time-sharing each (``serving.share_gpu``), so that
    n of them pay for one GPU, as ``plan`` prices them.

    Both prices from the catalog are of one provider's region, the fleet's (:func:`_fleet_picks`):
    a fleet runs in one region, not on-demand in one and spot in another.

    ``constraints``: the workload's; only offers where its providers, regions and countries allow
    are priced, as the planner filters them (:mod:`gpuplan.plan.allowed_offers`), and each price's
    note names the constraints that narrowed its offers. Where none is left, the fleet is refused
    rather than priced elsewhere.

    ``money``: the display currency the notes word their figures in (None: USD), each catalog
    price's source cited with its figure in USD as the catalog holds it.

    ``committed_fleets``: per committed pricing model (``monthly``, ``reserved_1y``,
    ``reserved_3y``), the most replicas a policy commits on it (``commit``): priced on that model's
    offer of the same GPU and replica shape, picked as the on-demand one is for a fleet of that
    many, of the on-demand offer's provider and region where one is offered there (a fleet runs in
    one region), else the cheapest anywhere and its note says so. Its figure per replica-hour is
    the month's (or the reservation's) price over its hours, as the catalog converts it for plan.
    ``commit_usd``: the user's own figure per committed replica-hour (``--commit-price``), for the
    one committed model the policies use. No price for a committed model: refused, as on demand.

    Given prices win over the catalog's (a replica-hour each, one replica per instance).
    Low-confidence (article) prices are never used.
    """
    from gpuplan.plan.allowed_offers import allowed_offers

    check_given_prices(
        on_demand_usd=on_demand_usd,
        spot_usd=spot_usd,
        spot_rate_per_hour=spot_rate_per_hour,
        gpus_per_replica=gpus_per_replica,
        commit_usd=commit_usd,
    )
    committed = {k: max(1, n) for k, n in (committed_fleets or {}).items()}
    if commit_usd is not None and len(committed) > 1:
        raise InputError.worded(
            N_(
                "--commit-price prices one commitment, and the policies commit on {pricings}: give each "
                "its own run, or leave the price to the catalog"
            ),
            pricings=listed(pricing_name(k) for k in committed),
        )
    allowed = allowed_offers(offers, constraints)
    offers = list(allowed.offers)
    narrowed = allowed.words()
    share = max(1, replicas_per_gpu)
    fleets = {"on_demand": fleet_replicas, "spot": fleet_replicas}
    if spot_fleet_replicas is not None and spot_fleet_replicas != fleet_replicas:
        fleets["spot"] = max(1, spot_fleet_replicas)
    spot_used = spot_fleet_replicas is None or spot_fleet_replicas > 0
    # Both prices from the catalog: both of one region, where the fleet runs.
    one_place = on_demand_usd is None and spot_usd is None
    fleets.update(committed)
    best, apart = _fleet_picks(
        offers, gpu_id, (gpus_per_replica, share), fleets, one_place, spot_used, tuple(committed)
    )
    prices: dict[str, float] = {}
    bases: dict[str, PriceBasis] = {}
    packed: dict[str, int] = {}
    # Where each price comes from, in the user's language (the report shows them as they are).
    notes: list[str] = []
    sources: dict[str, str] = {}
    priced = [("on_demand", on_demand_usd), ("spot", spot_usd), *((k, commit_usd) for k in committed)]
    for key, given in priced:
        if given is not None:
            prices[key] = given
            bases[key] = PriceBasis(usd_per_hour=given, given=True)
            notes.append(
                _("{pricing} {price} given").format(
                    pricing=pricing_name(key),
                    price=f"{given:g} " + _("USD/replica-h")
                    if money is None or money.currency == "USD"
                    # the user's own figure, in their words beside the display currency's
                    else _("{price} ({usd:g} USD/replica-h)").format(
                        price=money.format(given, per=_("replica-h")), usd=given
                    ),
                )
            )
        elif key in best:
            per_instance, o, k = best[key]
            prices[key] = per_instance / k
            packed[key] = k
            bases[key] = _fleet_basis(offers, best[key], key, gpu_id, (gpus_per_replica, share), fleets[key])
            committed_words = ""
            if key in committed:
                committed_words = _(
                    " for the {n} replica(s) committed, paid for every hour whether busy or not"
                ).format(n=committed[key])
            notes.append(
                _("{pricing} {price}: {provider} {region} {instance_type} ({as_of})").format(
                    pricing=pricing_name(key),
                    price=money_words(prices[key], _("USD/replica-h"), money, _("replica-h")),
                    provider=o.provider,
                    region=o.region,
                    instance_type=o.instance_type,
                    as_of=o.as_of,
                )
                + narrowed_words(narrowed)
                + _price_caveat(o, money)
                + _bought(o, k, gpus_per_replica, share, money)
                + _one_reclaim(key, k)
                + committed_words
                + basis_words(bases[key], key, gpu_id, _("USD/replica-h"), money, _("replica-h"))
                + apart.get(key, "")
            )
        if key in prices:
            sources[key] = notes[-1]
    if "on_demand" not in prices:
        if narrowed:
            # Never priced at a provider or place the team ruled out: the price would not be theirs.
            raise InputError.worded(
                N_(
                    "no on-demand offer of {gpu} is left where the workload's constraints allow "
                    "({constraints}); give another --gpu or an --instance offered there, or a price with "
                    "--on-demand-price (a replica-hour's price with its currency: ¥34.74 or $4.8)"
                ),
                gpu=gpu_id,
                constraints=narrowed,
            )
        if gpus_per_replica > 1:
            raise InputError.worded(
                N_(
                    "the catalog has no on-demand price for {gpu} on one instance of {n} or more GPUs "
                    "(a tensor-parallel replica runs in one machine); give one with --on-demand-price "
                    "(a replica-hour's price with its currency: ¥34.74 or $4.8)"
                ),
                gpu=gpu_id,
                n=gpus_per_replica,
            )
        raise InputError.worded(
            N_(
                "the catalog has no on-demand price for {gpu}; give one with --on-demand-price (a "
                "replica-hour's price with its currency: ¥34.74 or $4.8)"
            ),
            gpu=gpu_id,
        )
    for key in committed:
        if key not in prices:
            # Unknown is never the cheapest: a committed fleet without its price is not costed at
            # the on-demand one (nor at nothing).
            raise InputError.worded(
                N_(
                    "the catalog has no {pricing} price for {gpu}{where}; give one with --commit-price "
                    "PRICE (per replica-hour: a month's price ÷ 730 h)"
                ),
                pricing=pricing_name(key),
                gpu=gpu_id,
                where=Phrase(
                    N_(" where the workload's constraints allow ({constraints})"), constraints=narrowed
                )
                if narrowed
                else "",
            )
    if spot_rate_per_hour is not None:
        rate = spot_rate_per_hour
        rate_src = _("{rate:g} reclaims per spot instance-hour (given)").format(rate=spot_rate_per_hour)
    else:
        spot = best["spot"][1] if "spot" in best else None
        found = (
            offer_rate(spot.interruption_band, spot.term, spot.source, spot.as_of, spot.provider)
            if spot
            else DEFAULT_SPOT_RATE
        )
        rate, rate_src = found.per_hour, found.shown()
        if spot is not None:
            # the offer the rate is of: a band is a fact of one instance type in one region
            where = " ".join(x for x in (spot.provider, spot.region, spot.zone, spot.instance_type) if x)
            rate_src = (
                _(
                    "of {offer}, the catalog's cheapest spot offer of {gpu} (the given spot price names no "
                    "place; --spot-rate sets the rate): {source}"
                )
                if spot_usd is not None
                else _("of {offer}, the spot offer priced: {source}")
            ).format(source=rate_src, offer=where, gpu=gpu_id)
    source = notes[0]
    for note in notes[1:]:
        # TRANSLATORS: joins one more price source to those before ("on_demand …; spot …")
        source = _("{sources}; {source}").format(sources=source, source=note)
    return FleetPrices(
        usd_per_hour=prices,
        source=source,
        sources=sources,
        basis=bases,
        words_currency=money.currency if money is not None else "USD",
        spot_rate_per_hour=rate,
        spot_rate_source=rate_src,
        replicas_per_instance=packed,
        gpus_per_replica=max(1, gpus_per_replica),
        replicas_per_gpu=share,
    )


def _fleet_picks(
    offers: list[OfferPrice],
    gpu_id: str,
    replica: tuple[int, int],
    fleets: dict[str, int],
    one_place: bool,
    spot_used: bool,
    committed: tuple[str, ...] = (),
) -> tuple[dict[str, tuple[float, OfferPrice, int]], dict[str, str]]:
    """:func:`fleet_prices`'s offer per pricing model (:func:`replica_instances` for that model's
    fleet, ``fleets``; ``replica``: its GPUs and the replicas time-sharing one GPU), and per model
    what its note adds where its offer is of another region than the on-demand one.

    ``one_place``: both prices come from the catalog, so both from one provider's region: a
    fleet runs in one region (its replicas behind one load balancer, its weights in one region's
    storage; a spot replica replaces an on-demand one beside it), and its two prices had been
    picked apart, on-demand in cn-heyuan and spot in cn-guangzhou, a fleet that runs nowhere. The
    region is the one whose instances cost least for the largest fleet on demand plus, where a
    policy runs spot (``spot_used``), its spot share on spot, plus the committed replicas of each
    model in ``committed`` on it; of regions that offer every model asked where one does. Where
    none offers them all, each missing price is the cheapest of its own and its note says so."""
    gpus, share = replica
    wanted = (*(("spot",) if spot_used else ()), *committed)

    def picks(among: list[OfferPrice]) -> dict[str, tuple[float, OfferPrice, int]]:
        best = replica_instances(among, gpu_id, gpus, fleets["on_demand"], replicas_per_gpu=share)
        if fleets["spot"] != fleets["on_demand"]:
            spot = replica_instances(among, gpu_id, gpus, fleets["spot"], replicas_per_gpu=share).get("spot")
            if spot is not None:
                best["spot"] = spot
        for key in committed:
            pick = replica_instances(
                among, gpu_id, gpus, fleets[key], replicas_per_gpu=share, pricings=(key,)
            ).get(key)
            if pick is not None:
                best[key] = pick
        return best

    anywhere = picks(offers)
    if not one_place or "on_demand" not in anywhere:
        return anywhere, {}
    places: dict[tuple[str, str], list[OfferPrice]] = {}
    for o in offers:
        places.setdefault((o.provider.lower(), o.region.lower()), []).append(o)
    ranked = []
    for _place, among in sorted(places.items()):
        found = picks(among)
        if "on_demand" not in found:
            continue
        per_instance, o, k = found["on_demand"]
        cost = math.ceil(fleets["on_demand"] / k) * per_instance
        for key in wanted:
            if key in found:
                # ranked as replica_instances ranks each model's offer (spot with its spare)
                cost += fleet_cost_ranked(key, fleets[key], found[key], gpus, share)
        # a region without a model a policy runs on ranks after those with it; of equal costs, a
        # price known current first (as replica_instances ranks them)
        current = any(c for _x, c in _usable([o], gpu_id))
        missing = sum(1 for key in wanted if key not in found)
        ranked.append(((missing, cost, per_instance / k, not current), found))
    _key, found = min(ranked, key=lambda r: r[0])
    notes: dict[str, str] = {}
    for key in wanted:
        if key not in found and key in anywhere:
            # No region offers both: this price where it is cheapest, and the output says so.
            found = {**found, key: anywhere[key]}
            notes[key] = (
                _(
                    "; of another region than the on-demand price: no region in the catalog offers {gpu} "
                    "both on demand and on spot"
                ).format(gpu=gpu_id)
                if key == "spot"
                else _(
                    "; of another region than the on-demand price: no region in the catalog offers {gpu} "
                    "both on demand and {pricing}"
                ).format(gpu=gpu_id, pricing=pricing_name(key))
            )
    return found, notes


def _shared(b: PriceBasis, money: Money | None = None) -> str:
    """ " of 27.45 USD per instance-h shared by its 8 replicas": what a price per replica-hour
    stands for where one instance holds several ("" where it holds one)."""
    k = b.replicas_per_instance
    if k is None or k <= 1 or b.usd_per_instance_hour is None:
        return ""
    return _(" of {price} per instance-h shared by its {n} replicas, whole instances billed").format(
        price=money_words(b.usd_per_instance_hour, "USD", money, ""), n=k
    )


def _fleet_basis(
    offers: list[OfferPrice],
    pick: tuple[float, OfferPrice, int],
    pricing: str,
    gpu_id: str,
    replica: tuple[int, int],
    fleet_replicas: int,
) -> PriceBasis:
    """The basis of the price per replica-hour :func:`replica_instances` picked for ``pricing``,
    with, where it is not known current, the one it picks among the prices that are. ``replica``:
    its GPUs and the replicas time-sharing one GPU."""
    per_instance, o, k = pick
    known = any(c for x, c in _usable([o], gpu_id, (pricing,)))
    current = None
    if not known:
        gpus, share = replica
        alt = replica_instances(
            offers,
            gpu_id,
            gpus,
            fleet_replicas,
            current_only=True,
            replicas_per_gpu=share,
            pricings=(pricing,),
        ).get(pricing)
        current = (alt[0] / alt[2], alt[1], alt[2]) if alt is not None else None
    return price_basis(per_instance / k, o, current, known_current=known, replicas_per_instance=k)


def parse_replica(text: str, gpu_id: str) -> ReplicaModel:
    """``slots=48,tpot_ms=30,prefill_tps=8000``: a replica measured or known, instead of estimated."""
    keys = {"slots": int, "tpot_ms": float, "prefill_tps": float}
    values: dict[str, Any] = {}
    for item in split_list(text):
        k, eq, v = item.partition("=")
        k = k.strip().lower()
        if not eq or k not in keys:
            raise NotFoundError(
                "replica key", k or item, list(keys), hint=N_("write slots=N,tpot_ms=T,prefill_tps=R")
            )
        try:
            values[k] = keys[k](v)
        except ValueError as e:
            raise InputError.worded(N_("--replica: {key}={value!r} is not a number"), key=k, value=v) from e
        if not math.isfinite(values[k]):
            raise InputError.worded(
                N_("--replica: {key}={value} is not a finite number"), key=k, value=v.strip()
            )
    if "slots" not in values or "tpot_ms" not in values:
        raise InputError.worded(N_("--replica needs slots=N and tpot_ms=T (prefill_tps=R optional)"))
    if values["slots"] < 1 or values["tpot_ms"] <= 0 or values.get("prefill_tps", 1.0) <= 0:
        raise InputError.worded(N_("--replica: slots ≥ 1, tpot_ms > 0 and prefill_tps > 0"))
    return ReplicaModel(
        gpu=gpu_id,
        slots=values["slots"],
        prefill_tokens_per_s=values.get("prefill_tps", 0.0),
        time_per_output_token_s=values["tpot_ms"] / 1000.0,
        source=_("given: {replica}").format(replica=text),
    )


#: A services file's bounds: a million requests a second (a service past it is many services), one
#: request in 1,000 s (an idle one), an hour for one request.
_MAX_REQUESTS_PER_S = 1e6
_MIN_REQUESTS_PER_S = 1e-3
_MAX_LATENCY_MS = 3_600_000.0


class _Entry(BaseModel):
    """An entry of a services file: no field it does not know, no .inf or .nan, no boolean for a number."""

    # allow_inf_nan=False: a .inf or .nan from the YAML is refused, naming its field.
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _no_booleans(cls, value: Any, info: ValidationInfo) -> Any:
        return refuse_boolean(cls, value, info)  # requests_per_s: true is not 1


class _Service(_Entry):
    # The bounds are beyond any service (a larger or smaller figure is a typo: a latency of 1e308 ms
    # printed a 300-digit p95, a capacity of 1e-300 requests/s a 300-digit count of instances).
    name: PrintableLine = Field(min_length=1, max_length=300)
    memory_gib: float | None = Field(default=None, gt=0, le=MAX_GPU_MEMORY_GIB)
    """Memory one instance needs (weights + KV cache + CUDA context)."""
    requests_per_s: float | None = Field(default=None, ge=0, le=_MAX_REQUESTS_PER_S)
    """The service's load; with ``workload:``, its ``serving.requests_per_s`` unless given here
    (the workload's values are the defaults, the entry's win)."""
    capacity_requests_per_s: float | None = Field(
        default=None, ge=_MIN_REQUESTS_PER_S, le=_MAX_REQUESTS_PER_S
    )
    """Requests per second one whole GPU serves at full load."""
    latency_ms: float | None = Field(default=None, gt=0, le=_MAX_LATENCY_MS)
    """One request's latency on a whole GPU, no queueing."""
    p95_latency_ms: float | None = Field(default=None, gt=0, le=_MAX_LATENCY_MS)
    workload: str | None = None
    """A workload YAML (task: infer) to estimate memory, capacity and latency from, instead."""


#: ASSUMPTION (``hours_per_day`` changes it): a notebook is open a working day of 8 hours; an
#: experiment, once started, runs round the clock.
_NOTEBOOK_HOURS_PER_DAY = 8.0
_EXPERIMENT_HOURS_PER_DAY = 24.0
#: ASSUMPTION (``active_share`` changes it): an experiment's training loop keeps its GPU busy.
_EXPERIMENT_ACTIVE_SHARE = 1.0


class _Notebooks(_Entry):
    """A group of people with a notebook (or a one-GPU experiment) each."""

    name: PrintableLine = Field(min_length=1, max_length=300)
    kind: Literal["notebook", "experiment"] = "notebook"
    users: int = Field(ge=1, le=MAX_SHARE_GPUS)
    memory_gib: float = Field(gt=0, le=MAX_GPU_MEMORY_GIB)
    """GPU memory one user's process holds (model, activations, CUDA context)."""
    active_share: float | None = Field(default=None, gt=0, le=1)
    """Share of the working hours it computes on the GPU (an experiment: 1 unless given)."""
    active_hours_per_day: float | None = Field(default=None, gt=0, le=24)
    """Hours a day it computes, instead of ``active_share`` (its share of ``hours_per_day``)."""
    hours_per_day: float | None = Field(default=None, gt=0, le=24)
    """Working hours a day it is open (a notebook: 8, an experiment: 24 unless given)."""
    max_slowdown: float = Field(default=DEFAULT_MAX_SLOWDOWN, ge=1, le=1000)
    holds_memory: Literal["open", "active"] = "open"
    max_oom_risk: float = Field(default=DEFAULT_MAX_OOM_RISK, ge=0, lt=1)

    def group(self, day_h: float | None = None) -> NotebookGroup:
        """The group; ``day_h``: the hours a day the file's ``schedule:`` runs the GPUs, the hours
        it is open unless ``hours_per_day`` says fewer (more is refused: no GPU runs then)."""
        experiment = self.kind == "experiment"
        hours = (
            self.hours_per_day
            or day_h
            or (_EXPERIMENT_HOURS_PER_DAY if experiment else _NOTEBOOK_HOURS_PER_DAY)
        )
        if day_h is not None and hours > day_h + 1e-9:
            raise InputError.worded(
                N_(
                    "notebooks {name!r}: hours_per_day {hours:g} is more than the {day:g} h a day of the "
                    "file's schedule (no GPU runs outside it)"
                ),
                name=self.name,
                hours=hours,
                day=day_h,
            )
        if self.active_share is not None and self.active_hours_per_day is not None:
            raise InputError.worded(
                N_("notebooks {name!r}: give active_share or active_hours_per_day, not both"), name=self.name
            )
        if self.active_hours_per_day is not None:
            if self.active_hours_per_day > hours:
                raise InputError.worded(
                    N_(
                        "notebooks {name!r}: active_hours_per_day {active:g} is more than its "
                        "hours_per_day {hours:g}"
                    ),
                    name=self.name,
                    active=self.active_hours_per_day,
                    hours=hours,
                )
            share = self.active_hours_per_day / hours
        elif self.active_share is not None:
            share = self.active_share
        elif experiment:
            share = _EXPERIMENT_ACTIVE_SHARE
        else:
            raise InputError.worded(
                N_(
                    "notebooks {name!r}: give active_share (the share of its working hours a notebook "
                    "computes on the GPU, e.g. 0.1) or active_hours_per_day"
                ),
                name=self.name,
            )
        return NotebookGroup(
            name=self.name,
            kind=self.kind,
            users=self.users,
            memory_gib=self.memory_gib,
            active_share=share,
            hours_per_day=hours,
            max_slowdown=self.max_slowdown,
            holds_memory=self.holds_memory,
            max_oom_risk=self.max_oom_risk,
        )


class ServicesFile(BaseModel):
    """``simulate share``'s input."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    gpu: str | None = None
    gpus_per_node: int | None = Field(default=None, ge=1, le=MAX_GPUS_PER_INSTANCE)
    """GPUs per node of the cluster the services run on (``--k8s-out`` places each GPU's share on
    its node); None: the priced instance's."""
    services: list[_Service] = Field(default_factory=list)
    notebooks: list[_Notebooks] = Field(default_factory=list)
    """Groups of people with a notebook or a one-GPU experiment each."""
    schedule: ScheduleSpec | None = None
    """The hours the GPUs run, as a service's ``serving.schedule`` (``hours``, ``days``,
    ``time_zone``): they are priced for those hours and each day's start-up; None: all month."""

    def notebook_groups(self) -> list[NotebookGroup]:
        day_h = None
        if self.schedule is not None:
            w = self.schedule.window
            day_h = (w.end_min - w.start_min) / 60.0
        return [n.group(day_h) for n in self.notebooks]

    def demands(self, estimated: dict[str, ServiceDemand] | None = None) -> list[ServiceDemand]:
        out = []
        for s in self.services:
            if s.workload is not None:
                if not estimated or s.name not in estimated:
                    raise InputError.worded(
                        N_("service {name!r}: its workload has not been estimated"), name=s.name
                    )
                out.append(estimated[s.name])
                continue
            missing = [
                k
                for k in ("requests_per_s", "memory_gib", "capacity_requests_per_s", "latency_ms")
                if getattr(s, k) is None
            ]
            if missing:
                raise InputError.worded(
                    N_("service {name!r}: give {fields} (or workload: a YAML to estimate)"),
                    name=s.name,
                    fields=listed(missing),
                )
            out.append(
                ServiceDemand(
                    name=s.name,
                    memory_gib=float(s.memory_gib or 0),
                    requests_per_s=float(s.requests_per_s or 0),
                    capacity_requests_per_s=float(s.capacity_requests_per_s or 0),
                    latency_s=float(s.latency_ms or 0) / 1000.0,
                    slo_s=s.p95_latency_ms / 1000.0 if s.p95_latency_ms else None,
                )
            )
        return out


def load_services(path: str | Path) -> ServicesFile:
    """A ``services.yaml``, read within bounds (a regular file, size, YAML depth and aliases)."""
    from gpuplan.bounded import MAX_DOCUMENT_BYTES, load_yaml, read_text

    p = Path(path)
    text = read_text(p, what="services file", max_bytes=MAX_DOCUMENT_BYTES)
    data = load_yaml(text, source=f"services file {p.name}")
    try:
        return ServicesFile.model_validate(data)
    except ValidationError as e:
        # every problem named (at most five), as a workload's and a plan file's refusals name them: a
        # schedule with three mistakes had been told the first
        from gpuplan.deploy.spec import short_errors

        raise InputError.worded(
            N_("services file {name}: {problem}"), name=p.name, problem=short_errors(e)
        ) from e


#: ASSUMPTION: CUDA context, cuBLAS workspace and the serving engine's own buffers, per instance.
_INSTANCE_OVERHEAD_GIB = 1.0


def engine_fixed_gib(decode: DecodeEstimate) -> float | None:
    """What a serving engine's replica holds beside its KV cache, GiB (weights, activations at its
    token budget, memory outside PyTorch): its share of a whole GPU less the KV cache the estimate
    gives it there (``perf.engine_memory``); None without an engine's settings or a KV cache."""
    from gpuplan.hardware import get_gpu
    from gpuplan.perf.memory import GIB, usable_memory_gib

    step, sched = decode.step, decode.scheduler
    if step is None or sched is None or step.kv_bytes_per_token <= 0 or step.kv_capacity_tokens <= 0:
        return None
    share = sched.memory_fraction * usable_memory_gib(get_gpu(decode.gpu)) / max(1, decode.replicas_per_gpu)
    return share - step.kv_capacity_tokens * step.kv_bytes_per_token / GIB


def demand_from_decode(
    name: str,
    decode: DecodeEstimate,
    *,
    requests_per_s: float,
    prompt_tokens: int,
    output_tokens: int,
    slo_s: float | None,
    ttft_slo_s: float | None = None,
    tpot_slo_s: float | None = None,
    tail: RequestTail | None = None,
) -> ServiceDemand:
    """A service's demand from the estimator: memory for the weights plus the KV cache of the
    sequences it keeps running (Little's law: rate × latency, at 80 % busy), capacity and latency
    of a whole GPU from :func:`gpuplan.perf.inference.serving_estimate`, and that model itself, which
    the packing serves each instance with (the p95 and time to first token plan gives, at the p95
    request's lengths ``tail`` where given, :mod:`gpuplan.perf.request_tail`)."""
    from gpuplan.perf.inference import TARGET_UTILISATION, serving_estimate

    srv = serving_estimate(
        decode, requests_per_s=requests_per_s, prompt_tokens=prompt_tokens, output_tokens=output_tokens
    )
    running = max(1, math.ceil(requests_per_s * srv.request_latency_s / TARGET_UTILISATION))
    running = min(running, max(1, decode.max_concurrent_sequences))
    ctx_share = (prompt_tokens + output_tokens) / max(1, decode.context_tokens)
    # What the engine holds beside its KV cache (weights, activations, memory outside PyTorch), as
    # the estimate counts it in the engine's share of a whole GPU; never below the weights and the
    # assumed overhead.
    fixed = max(decode.weights_gib + _INSTANCE_OVERHEAD_GIB, engine_fixed_gib(decode) or 0.0)
    per_sequence = decode.kv_cache_gib_per_sequence * ctx_share
    # One of the running requests may be the p95 one the latency is checked at: the KV cache holds
    # it whole, so that the engine started in this memory takes it (deploy's cap on its longest
    # request is what its KV cache holds).
    longest = (tail.prompt_tokens + tail.output_tokens) if tail is not None else prompt_tokens + output_tokens
    per_token = decode.kv_cache_gib_per_sequence / max(1, decode.context_tokens)
    kv = (running - 1) * per_sequence + max(per_sequence, longest * per_token)
    return ServiceDemand(
        name=name,
        memory_gib=fixed + kv,
        requests_per_s=requests_per_s,
        capacity_requests_per_s=srv.capacity_requests_per_s,
        latency_s=srv.request_latency_s,
        slo_s=slo_s,
        ttft_slo_s=ttft_slo_s,
        tpot_slo_s=tpot_slo_s,
        serving=ServingModel(
            decode=decode,
            prompt_tokens=prompt_tokens,
            output_tokens=output_tokens,
            tail_prompt_tokens=tail.prompt_tokens if tail is not None else None,
            tail_output_tokens=tail.output_tokens if tail is not None else None,
            fixed_gib=fixed,
            kv_gib_per_sequence=per_sequence,
        ),
    )


def autoscale_slos(
    slo: str | None,
    slo_ms: float | None,
    workload_slo_ms: float | None,
    workload_ttft_ms: float | None = None,
    workload_tpot_ms: float | None = None,
    *,
    images: bool = False,
    forward_pass: bool = False,
) -> tuple[Slo, ...]:
    """``--slo`` (``ttft_p95=2s,tpot_p95=80ms``): those targets alone. Else an end-to-end p95 from
    ``--slo-ms``, else the workload's ``p95_latency_ms``, a time-to-first-token p95 from the
    workload's ``ttft_p95_ms`` and a time-per-output-token p95 from its ``tpot_p95_ms`` (the plan
    sized the replicas for the typical step at the load; the trace measures the p95); none of
    them: no target. ``images``: an image service's, whose request is one image delivered whole:
    a TTFT or TPOT target is refused, not scored against the image's end-to-end latency;
    ``forward_pass`` with it: a forward-pass service's, worded so."""
    from gpuplan.simulate.latency import Slo, parse_slos

    if slo is not None:
        if slo_ms is not None:
            raise InputError.worded(N_("give --slo or --slo-ms, not both (--slo e2e_p95=30s says the same)"))
        parsed = parse_slos(slo)
        tokens = [s.name for s in parsed if s.metric in ("ttft", "tpot")]
        if images and tokens and forward_pass:
            raise InputError.worded(
                N_(
                    "--slo {names}: a forward-pass service's request is one forward pass, its answer "
                    "sent whole, with no first token and no tokens after it; give e2e_p95=TIME (the "
                    "whole request) or queue_p95=TIME (the wait for a place in the batch)"
                ),
                names=listed(tokens),
            )
        if images and tokens:
            raise InputError.worded(
                N_(
                    "--slo {names}: an image service's request is one image, delivered whole, with no "
                    "first token and no tokens after it; give e2e_p95=TIME (the whole image) or "
                    "queue_p95=TIME (the wait for a place in the batch)"
                ),
                names=listed(tokens),
            )
        return parsed
    ms = slo_ms if slo_ms is not None else workload_slo_ms
    slos: list[Slo] = []
    if ms is not None:
        if not (math.isfinite(ms) and ms > 0):
            raise InputError.worded(
                N_("--slo-ms must be a positive number of milliseconds, got {value:g}"), value=ms
            )
        slos.append(Slo(metric="e2e", percentile=95.0, threshold_s=ms / 1000.0))
    if workload_ttft_ms is not None:
        # the workload validated it (> 0, finite)
        slos.append(Slo(metric="ttft", percentile=95.0, threshold_s=workload_ttft_ms / 1000.0))
    if workload_tpot_ms is not None:
        slos.append(Slo(metric="tpot", percentile=95.0, threshold_s=workload_tpot_ms / 1000.0))
    return tuple(slos)


#: A request's prompt and output tokens where neither the trace nor the workload gives them: the
#: defaults of ``gpuplan simulate trace`` (``--prompt-tokens``, ``--output-tokens``), gpuplan's own
#: choice, not a measured load; the simulation's document states them (``trace.default_*_tokens``).
DEFAULT_PROMPT_TOKENS = 512
DEFAULT_OUTPUT_TOKENS = 256


def request_tokens(serving: ServingSpec | None) -> tuple[int, int]:
    """Prompt and output tokens of a request the trace gives none for: the workload's ``serving:``
    block's, else the defaults (a replica's own figures, ``--replica``, need no ``serving:``)."""
    if serving is None:
        return DEFAULT_PROMPT_TOKENS, DEFAULT_OUTPUT_TOKENS
    return serving.tokens


def request_tokens_p95(serving: ServingSpec | None) -> tuple[int | None, int | None]:
    """The 95th-percentile prompt and answer a generated trace's lengths are drawn to: the serving
    block's ``prompt_tokens_p95`` and ``output_tokens_p95`` (None: the published ratio's, as ``plan``
    takes them, :mod:`gpuplan.perf.request_tail`)."""
    if serving is None:
        return None, None
    return serving.prompt_tokens_p95, serving.output_tokens_p95


def storage_bytes_per_s(storage_gbps: float | None) -> float | None:
    """``--storage-gbps`` in bytes per second (None: not given, the default applies)."""
    if storage_gbps is None:
        return None
    if not (math.isfinite(storage_gbps) and storage_gbps >= MIN_STORAGE_GBPS):
        raise InputError.worded(
            N_("--storage-gbps must be at least {limit:g} GB/s, got {value:g}"),
            limit=MIN_STORAGE_GBPS,
            value=storage_gbps,
        )
    if storage_gbps > MAX_STORAGE_GBPS:
        raise InputError.worded(
            N_(
                "--storage-gbps must be at most {limit:,.0f} GB/s (above any volume or local NVMe), "
                "got {value:g}"
            ),
            limit=MAX_STORAGE_GBPS,
            value=storage_gbps,
        )
    return storage_gbps * 1e9
