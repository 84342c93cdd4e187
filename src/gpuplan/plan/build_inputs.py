"""Build the planner's inputs (:mod:`gpuplan.plan.input_types`) from the catalog store, the
workload and the estimator.

The catalog's offers become an :class:`OfferTable` (currencies and GiB-priced tiers converted,
unknowns kept unknown); each region's storage, egress and licence prices become
:class:`RegionCosts`; the workload becomes :class:`JobFacts` (dataset and checkpoint sizes); and
:func:`make_estimator` wraps ``perf.run_estimate`` for the planner, reading from an offer's
interconnect text whether its GPUs share NVLink. The ranking and cost arithmetic live in the
planner core, not here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from gpuplan.catalog.model import ANY_REGION
from gpuplan.catalog.region_countries import country_codes_of, country_continent
from gpuplan.catalog.upfront import upfront_said
from gpuplan.errors import GpuplanError, InputError
from gpuplan.i18n import N_, _, format_hours, format_number
from gpuplan.i18n.phrases import sentences
from gpuplan.i18n.places import place
from gpuplan.plan.answer_bytes import (
    ANSWER_FIXED_BYTES,
    JPEG_BYTES_PER_PIXEL,
    PNG_BYTES_PER_PIXEL,
    STREAMED_TOKEN_BYTES,
    image_answer_bytes,
    streamed_answer_bytes,
)
from gpuplan.plan.constraints import Constraints, Objective
from gpuplan.plan.estimator import SERVING_HOURS, make_estimator, tensor_parallel_choices
from gpuplan.plan.input_types import (
    HOURS_PER_MONTH,
    JobFacts,
    OfferTable,
    RegionCosts,
    UsdTransferTier,
)
from gpuplan.plan.overrides import PlanOverrides
from gpuplan.plan.region_costs import CatalogRanges, CostFacts
from gpuplan.plan.region_countries import region_country
from gpuplan.plan.spot import offer_band
from gpuplan.units import CHECKPOINT_WRITE_SHARE, CHECKPOINTS_KEPT, DEFAULT_CHECKPOINT_INTERVAL_MIN
from gpuplan.vocab import PRICING_RULES, Precision, Task

if TYPE_CHECKING:
    from gpuplan.catalog import OfferPrice, Store
    from gpuplan.catalog import TransferTier as StoreTier
    from gpuplan.catalog.model import ExchangeRate, StoragePrice
    from gpuplan.perf.estimate import JobSize
    from gpuplan.profile.model import Profile
    from gpuplan.workload import ConstraintsSpec, ServingSpec, Workload

__all__ = [
    "SERVING_HOURS",
    "budget_in_usd",
    "cny_in_usd",
    "constraints_from_spec",
    "cost_facts_from_store",
    "job_facts_from",
    "make_estimator",
    "offer_table_from_prices",
]

_TERM_HOURS = {p: r.term_hours for p, r in PRICING_RULES.items() if r.term_hours is not None}
_GB_PER_GIB = 1.073741824


def _gpu_memory_gib(gpu_id: str) -> float:
    from gpuplan.hardware import get_gpu

    try:
        return float(get_gpu(gpu_id).memory_gib)
    except GpuplanError:
        return math.nan


#: The :class:`PlanOffer` field of each value of a row :func:`offer_table_from_prices` builds.
_COLUMNS = (
    "provider",
    "region",
    "zone",
    "country",
    "instance_type",
    "gpu",
    "gpu_count",
    "gpu_memory_gib",
    "pricing",
    "price_usd",
    "unit_hours",
    "term_hours",
    "vcpus",
    "memory_gib",
    "network_gbps",
    "interconnect",
    "network_kind",
    "billing_granularity_s",
    "min_billing_s",
    "interruption_band",
    "interruption_band_source",
    "compliance",
    "compliance_claimed",
    "confidence",
    "as_of",
    "source",
    "stale",
    "staleness",
    "price_age_days",
    "price_usd_best",
    "floor_as_of",
    "floor_basis",
    "floor_region",
    "floor_source",
    "own_stale_as_of",
    "upfront",
    "network_given",
)


def offer_table_from_prices(prices: Sequence[OfferPrice]) -> OfferTable:
    """The store's offers (one per offer × pricing model) as planner columns.

    A row whose price is unknown, or not convertible to USD, keeps ``price_usd=None`` (counted as
    unpriced, never free). Monthly prices stay monthly (``unit_hours`` 730) so that the planner
    rounds them to whole months; reserved prices carry their term. Each row's age and staleness
    are the store's (:func:`gpuplan.catalog.dates.price_age`: an undated price counts as stale).
    """
    memory: dict[str, float] = {}
    countries: dict[tuple[str, str], str] = {}
    # Rows as plain tuples in _COLUMNS order, turned into columns at once: the market has
    # thousands of offers, and an object per row costs more than the planning they feed.
    rows = []
    for p in prices:
        unit_hours = HOURS_PER_MONTH if p.unit == "month" else 1.0
        price_usd = p.price_usd_per_hour * unit_hours if p.price_usd_per_hour is not None else None
        price_best, floor_day, floor_basis, floor_region, floor_source, own_stale = None, "", "", "", "", ""
        as_of, age_days, staleness, stale = p.as_of or "", p.age_days, p.staleness or "", p.stale
        if (floor := p.dated_floor_usd_per_hour()) is not None:
            # unknown is never the best case: ranked at the dated floor, its own figure the best case;
            # the price costed is the floor, of the floor's date and age
            price_best, price_usd = price_usd, floor.usd_per_hour * unit_hours
            floor_day, floor_basis, floor_region = floor.as_of, floor.basis.value, floor.region
            floor_source = floor.source
            own_stale = as_of if floor.held == "stale" else ""
            as_of, age_days, staleness = floor.as_of, floor.age_days, floor.staleness
            stale = staleness != "fresh"
        term_h = None
        if p.pricing in _TERM_HOURS:
            years = (p.term or {}).get("years")
            term_h = float(years) * 8760.0 if isinstance(years, int | float) else _TERM_HOURS[p.pricing]
        if p.gpu not in memory:
            memory[p.gpu] = _gpu_memory_gib(p.gpu)
        where = (p.provider, p.region)
        if where not in countries:
            countries[where] = region_country(p.provider, p.region)
        rows.append(
            (
                p.provider,
                p.region,
                p.zone or "",
                countries[where],
                p.instance_type,
                p.gpu,
                float(p.gpu_count),
                memory[p.gpu],
                p.pricing or "",
                price_usd,
                unit_hours,
                term_h,
                p.vcpus,
                p.memory_gib,
                p.network_gbps,
                p.interconnect or "",
                p.network_kind or "",
                p.billing_granularity_s,
                p.min_billing_s,
                *offer_band(p.interruption_band, p.term, p.source, p.as_of),
                tuple(p.compliance),
                tuple(p.compliance_claimed),
                p.confidence or "low",
                as_of,
                (p.source or "") + p.discount_said() + upfront_said(p),
                stale,
                staleness,
                None if age_days is None else float(age_days),
                price_best,
                floor_day,
                floor_basis,
                floor_region,
                floor_source,
                own_stale,
                _upfront(p),
                False,  # the catalog's network, or none (plan.network.with_given_network)
            )
        )
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in _COLUMNS]
    return OfferTable.from_columns(dict(zip(_COLUMNS, columns, strict=True)))


def _upfront(p: OfferPrice) -> str:
    """The payment option a reserved row's price is the effective rate of; "" where none is."""
    term = p.term or {}
    return str(term.get("upfront", "")) if term.get("upfront_known") else ""


def _usd(store: Store, currency: str) -> float | None:
    if currency.upper() == "USD":
        return 1.0
    try:
        rate = store.find_exchange_rate(currency)
    except GpuplanError:
        return None  # a currency the store does not know
    return float(rate.usd_per_unit) if rate is not None else None


def _tiers(store: Store, rows: Sequence[StoreTier]) -> tuple[UsdTransferTier, ...] | None:
    """Store tiers as planner tiers in USD per GB; None if any tier's price is unknown."""
    out = []
    for r in rows:
        rate = _usd(store, r.currency)
        if r.price_per_gb is None or rate is None:
            return None
        per_gb_factor = 1.0 / _GB_PER_GIB if r.quantity_unit.lower() == "gib" else 1.0
        end = math.inf if r.end_gb is None else r.end_gb / per_gb_factor
        out.append(UsdTransferTier(upto_gb=end, usd_per_gb=r.price_per_gb * rate * per_gb_factor))
    return tuple(out) if out else None


def _borrowed(row: StoreTier | StoragePrice) -> bool:
    """A fact row of another concrete region standing in for this one (a provider-wide row, region
    ``*``, is every region's own price)."""
    return row.fallback and row.region != ANY_REGION


def _region_costs(store: Store, provider: str, region: str) -> RegionCosts:
    notes: list[str] = []
    # The store stands the provider's default region in for a region without rows of its own: for
    # the planner that is this region's price unknown (plan.region_costs bounds it, and shows the
    # borrowed price as the best case), not a fact about it.
    egress_rows = store.egress_tiers(provider, region)
    egress = None if any(_borrowed(r) for r in egress_rows) else _tiers(store, egress_rows)
    # A figure of low confidence (an API's documentation example, naming no region) is no known
    # price of the region: the planner takes it as an assumption, said with the row's own words.
    doubt = next((r.description for r in egress_rows if r.confidence == "low"), "") if egress else ""
    inter = store.inter_region_price(provider, region)
    inter_usd = None
    if inter is not None and not _borrowed(inter) and inter.price_per_gb is not None:
        rate = _usd(store, inter.currency)
        inter_usd = inter.price_per_gb * rate if rate is not None else None
    per_kind: dict[str, float] = {}
    for sp in store.storage_prices(provider, region):
        rate = _usd(store, sp.currency)
        if sp.kind in per_kind or sp.price_per_gb_month is None or rate is None or _borrowed(sp):
            continue
        per_kind[sp.kind] = sp.price_per_gb_month * rate
    licence = 0.0
    unknown_items: list[str] = []
    for fee in store.licence_fees(provider, region):
        if fee.applies and fee.price is not None and fee.currency and (fee.unit or "").startswith("hour"):
            rate = _usd(store, fee.currency)
            if rate is not None:
                licence += fee.price * rate
                continue
        if fee.applies is None or (fee.applies and fee.price is None):
            # The shipped items are catalog messages (catalog.model.LICENCE_ITEMS); others stay as written.
            notes.append(_("licence fee unknown ({item}): not included").format(item=_(fee.item)))
            unknown_items.append(fee.item)
    return RegionCosts(
        provider=provider,
        region=region,
        internet_egress=egress,
        internet_egress_doubt=doubt,
        inter_region_usd_per_gb=inter_usd,
        object_storage_usd_per_gb_month=per_kind.get("object"),
        block_storage_usd_per_gb_month=per_kind.get("block"),
        licence_usd_per_instance_hour=licence,
        licence_unknown=tuple(unknown_items),
        notes=tuple(notes),
    )


def cost_facts_from_store(store: Store, regions: Iterable[tuple[str, str]]) -> CostFacts:
    """Regional prices for every (provider, region) given (the offers' regions and the data's)."""
    out = []
    for provider, region in sorted(set(regions)):
        try:
            out.append(_region_costs(store, provider, region))
        except GpuplanError:
            continue  # a provider the store does not know: its prices stay unknown (assumed, labelled)
    egress = _egress_prices(store)
    block, objects = _storage_prices(store, "block"), _storage_prices(store, "object")
    ranges = CatalogRanges(
        egress=_lowest_highest(egress),
        block=_lowest_highest(block),
        object=_lowest_highest(objects),
        dearest=_dearest_providers({"egress": egress, "block": block, "object": objects}),
        continents=_continents_by_provider({"egress": egress, "block": block, "object": objects}),
        region_continent={(p, r): country_continent(region_country(p, r)) for p, r in set(regions)},
    )
    return CostFacts(out, catalog_ranges=ranges)


#: A carried price: (provider, region, USD per unit) — per GB of egress, per GB-month of storage.
_Carried = tuple[str, str, float]


def _egress_prices(store: Store) -> list[_Carried]:
    """Every positive internet egress price the catalog holds, USD per GB, of any tier, provider
    and region (a free tier is no price an unknown one is bounded by)."""
    usd = []
    for t in store.priced_transfer("internet_egress"):
        rate = _usd(store, t.currency)
        if rate is not None and t.price_per_gb is not None and t.price_per_gb > 0:
            per_gb = t.price_per_gb / (_GB_PER_GIB if t.quantity_unit.lower() == "gib" else 1.0)
            usd.append((t.provider, t.region, per_gb * rate))
    return usd


def _storage_prices(store: Store, kind: str) -> list[_Carried]:
    """Every price of ``kind`` storage the catalog holds, USD per GB-month, of every provider and region."""
    usd = []
    for sp in store.priced_storage(kind):
        rate = _usd(store, sp.currency)
        if rate is not None and sp.price_per_gb_month is not None:
            usd.append((sp.provider, sp.region, sp.price_per_gb_month * rate))
    return usd


def _lowest_highest(carried: list[_Carried]) -> tuple[float, float] | None:
    """(lowest, highest) of the carried prices; None when there are none."""
    return (min(c[2] for c in carried), max(c[2] for c in carried)) if carried else None


def _dearest_providers(kinds: dict[str, list[_Carried]]) -> dict[str, frozenset[str]]:
    """kind -> the providers whose rows carry the highest price of the kind."""
    out = {}
    for kind, carried in kinds.items():
        top = max((usd for _provider, _region, usd in carried), default=None)
        out[kind] = frozenset(provider for provider, _region, usd in carried if usd == top)
    return out


def _continents_by_provider(kinds: dict[str, list[_Carried]]) -> dict[tuple[str, str], frozenset[str]]:
    """(kind, provider) -> the continents its priced rows are published for, and (kind, "*") -> those
    of every provider's (a provider-wide row, region ``*``, is on none)."""
    out: dict[tuple[str, str], set[str]] = {}
    for kind, carried in kinds.items():
        for provider, region, _price in carried:
            continent = country_continent(region_country(provider, region))
            for key in ((kind, provider), (kind, ANY_REGION)):
                out.setdefault(key, set()).update({continent} if continent else set())
    return {k: frozenset(v) for k, v in out.items()}


def budget_in_usd(
    spec: ConstraintsSpec, overrides: Mapping[str, Any], cny_rate: ExchangeRate | None
) -> tuple[dict[str, Any], str | None]:
    """``overrides`` with a budget in yuan (``budget_cny``, given or the workload's) as ``budget_usd``
    at ``cny_rate``, and the line that states the conversion (None without a yuan budget). A
    budget given replaces the workload's, whichever currency either is in."""

    given = dict(overrides)
    cny = given.pop("budget_cny", None)
    if cny is not None and given.get("budget_usd") is not None:
        raise InputError.worded(N_("give the budget once: budget_usd or budget_cny, not both"))
    if cny is None and given.get("budget_usd") is None:
        cny = spec.budget_cny
    if cny is None:
        return given, None
    if not (isinstance(cny, int | float) and math.isfinite(cny) and cny > 0):
        raise InputError.worded(N_("{name} must be positive, got {value}"), name="budget_cny", value=cny)
    given["budget_usd"], note = cny_in_usd(float(cny), cny_rate)
    return given, note


def cny_in_usd(cny: float, cny_rate: ExchangeRate | None) -> tuple[float, str]:
    """A budget of ``cny`` yuan in US dollars at ``cny_rate``, and the line that states the conversion
    (in the current language); InputError without a rate."""
    from gpuplan.errors import InputError
    from gpuplan.i18n import N_
    from gpuplan.i18n.numbers import rate_source

    if cny_rate is None:
        raise InputError.worded(
            N_("a budget in CNY needs the catalog's CNY exchange rate, which it lacks; give it in USD")
        )
    from gpuplan.catalog.rates import rate_warning, read_as_yuan

    usd = cny * cny_rate.usd_per_unit
    # said as read as yuan, at which rate, of which date and age: ¥ is the yen's sign too
    note = _("Budget {read} ({source}).").format(
        read=read_as_yuan(f"¥{cny:,.2f}", cny_rate, f"${usd:,.2f}"), source=rate_source(cny_rate.source)
    )
    # A budget converted at an old rate says so, as every output that converts does (the plan's
    # terminal view, its HTML report and a team's month budget had not).
    if (warning := rate_warning(cny_rate)) is not None:
        note = sentences(note, warning)
    return usd, note


def constraints_from_spec(spec: ConstraintsSpec, **overrides: Any) -> Constraints:
    """The workload's constraints, each replaced by an override that is not None."""

    def names(v: Sequence[str]) -> tuple[str, ...] | None:
        return tuple(v) or None

    base = Constraints(
        deadline_h=spec.deadline_hours,
        budget_usd=spec.budget_usd,
        providers=names(spec.providers),
        gpus=names(spec.gpus),
        regions=names(spec.regions),
        countries=names(spec.countries),
        hosts=spec.hosts,
        pricing=names(spec.pricing),
        max_gpus=spec.max_gpus,
        min_gpus=spec.min_gpus,
        max_nodes=spec.max_nodes,
        min_gpu_memory_gib=spec.min_gpu_memory_gib,
        interconnect=spec.interconnect,
        compliance=names(spec.compliance),
        commitment=spec.commitment,
        upfront=spec.upfront,
        objective=Objective.cast(str(spec.objective)),
    )
    merged = PlanOverrides.from_mapping(overrides).apply(base)
    if merged.countries:
        # "China", "中国", "CN" and "chn" all mean CN (ISO 3166 alpha-2, as the offers carry it);
        # "EU" its member states
        codes = (code for c in merged.countries for code in country_codes_of(c))
        merged = replace(merged, countries=tuple(dict.fromkeys(codes)))
    return merged


#: Precisions whose step holds the model's weights in 16 bits (the tracer casts the model so,
#: ``profile/tracer.py`` ``_WEIGHTS``); every other one holds them in fp32.
_SIXTEEN_BIT_WEIGHTS = frozenset({Precision.BF16, Precision.FP16_MASTER, Precision.BF16_MASTER})


def _frozen_base(workload: Workload, profile: Profile | None) -> tuple[float, list[str]]:
    """A training job's frozen weights as they sit on disk, GB, and the note that says so.

    A LoRA/QLoRA base (or frozen layers) is read from the checkpoint the job downloaded and never
    written, so no checkpoint of the trainable state holds it. A quantized base is quantized while
    loading (bitsandbytes ``load_in_4bit``/``load_in_8bit`` and torchtune's QLoRA load the 16-bit
    checkpoint), so it is stored at 2 bytes a weight; an unquantized one at the width the job holds
    its weights in (an fp32 one when the precision keeps fp32 weights: the larger size, since the
    checkpoint's own width is not given). 0 when every weight is trained.
    """
    if not workload.is_training or profile is None:
        return 0.0, []
    frozen = profile.params - profile.trainable_params
    if frozen <= 0:
        return 0.0, []
    lora = workload.model.lora
    if lora is not None and lora.quantized:
        gb = frozen * 2 / 1e9
        note = _(
            "base model's weights {gb} GB on disk: its 16-bit checkpoint as downloaded (quantized to "
            "{quantization} while loading)"
        ).format(gb=f"{gb:.2f}", quantization=lora.quantization.value)
        return gb, [note]
    per_weight = 2 if workload.precision in _SIXTEEN_BIT_WEIGHTS else 4
    gb = frozen * per_weight / 1e9
    note = _("base model's weights {gb} GB on disk: its frozen weights at {bytes} bytes each").format(
        gb=f"{gb:.2f}", bytes=per_weight
    )
    return gb, [note]


def _day_note(workload: Workload) -> str:
    """How a service's options are priced against its day (``plan/service_day.py``), in words."""
    sv = workload.serving
    assert sv is not None
    if sv.schedule is not None:
        w = sv.schedule.window
        return _(
            "serving: runs {when} only, {week:g} h a week, about {month:.0f} h a month: an option "
            "billed by the hour is priced as its fleet in those hours, each day's start-up and "
            "scale-down delay added (as tco prices it); its fleet all month the high end of its range "
            "(and on a monthly subscription or a reservation, paid whether it runs or not)"
        ).format(
            when=w.said,
            week=round(w.hours_per_week, 2),
            month=sv.served_hours_per_month,
        )
    if sv.mean_requests_per_s is None or sv.mean_requests_per_s >= sv.requests_per_s:
        return _(
            "serving: priced at its peak: every option runs its peak fleet all month (no "
            "serving.mean_requests_per_s below serving.requests_per_s; give the month's mean to price "
            "the fleet its day needs)"
        )
    if "min_replicas" not in sv.model_fields_set:
        return _(
            "serving: priced at its peak: every option runs its peak fleet all month, as deploy keeps "
            "it (no serving.min_replicas: the autoscaler's floor is the plan's fleet); set "
            "serving.min_replicas (e.g. 1) to price the fleet its day needs"
        )
    if sv.load_day is not None:
        return _(
            "serving: an option billed by the hour on several instances is priced as the fleet the "
            "workload's day needs (serving.day: {day} requests/s; mean {mean:g}, peak {peak:g}, as "
            "tco prices it), its peak fleet all month the high end of its range — where a new "
            "instance serves before the day's load outgrows the fleet (else, and on a monthly "
            "subscription or a reservation, its peak fleet all month)"
        ).format(day=sv.load_day.said, mean=round(sv.mean_requests_per_s, 2), peak=sv.requests_per_s)
    from gpuplan.day_load import diurnal_day_rate

    # a mean the day's shape cannot hold under the peak is priced at the one it can (service_day)
    held = diurnal_day_rate(sv.mean_requests_per_s, sv.requests_per_s).mean_held
    return _(
        "serving: an option billed by the hour on several instances is priced as the fleet its day "
        "needs (mean {mean:g}, peak {peak:g} requests/s, as tco prices it), its peak fleet all month "
        "the high end of its range — where a new instance serves before the day's load outgrows the "
        "fleet (else, and on a monthly subscription or a reservation, its peak fleet all month)"
    ).format(mean=round(max(held, sv.mean_requests_per_s), 2), peak=sv.requests_per_s)


def _replicas(workload: Workload) -> tuple[int, int]:
    """(the fewest replicas a service's option must hold, replicas to a GPU): its
    ``serving.min_replicas``, which ``deploy`` starts (1 when left out), and its ``share_gpu``.
    Under a ``mig_profile`` (slices the plan does not price) a replica is counted as a GPU's."""
    sv = workload.serving
    return (sv.min_replicas or 1) if sv is not None else 1, workload.replicas_per_gpu


def _run_tokens(workload: Workload, size: JobSize | None) -> tuple[float, float] | None:
    """A batch generation job's (prompt, output) tokens over the whole run, as its estimate prices
    each sample (``perf.estimate.generation_step``: a prompt of ``inputs.seq_len`` tokens, an answer
    of ``inputs.output_tokens``); None for any other job, or one of no known length."""
    out = workload.generated_tokens
    if out is None or workload.serving is not None or size is None or not workload.inputs.seq_len:
        return None
    samples = size.samples * size.epochs
    return samples * workload.inputs.seq_len, samples * out


def _run_samples(workload: Workload, size: JobSize | None) -> float | None:
    """A batch inference job's samples over the whole run (``data.samples`` × epochs); None for a
    training job, a service, or a job of no known size."""
    if workload.is_training or workload.serving is not None or size is None:
        return None
    return size.samples * size.epochs


def _served_requests_per_hour(sv: ServingSpec) -> float:
    """A service's requests per hour of the month, at its billed load (a service on a schedule
    serves its hours only)."""
    return sv.billed_requests_per_s * 3600.0 * sv.served_hours_per_month / HOURS_PER_MONTH


def _served_tokens_per_hour(workload: Workload) -> tuple[float, float] | None:
    """A language model's service's (prompt, output) tokens per hour of the month; None else."""
    sv = workload.serving
    if sv is None or workload.serves_traced_calls:
        return None
    prompt, output = sv.tokens
    return _served_requests_per_hour(sv) * prompt, _served_requests_per_hour(sv) * output


def _served_images_per_hour(workload: Workload) -> float | None:
    """An image service's images (one a request) per hour of the month; None for anything else."""
    sv = workload.serving
    return _served_requests_per_hour(sv) if sv is not None and workload.serves_images else None


def _served_passes_per_hour(workload: Workload) -> float | None:
    """A forward-pass service's requests (one forward pass each) per hour of the month; None for
    anything else."""
    sv = workload.serving
    return _served_requests_per_hour(sv) if sv is not None and workload.serves_forward_passes else None


def _answers(workload: Workload) -> tuple[float, float, str]:
    """A service's answers in the month planned, the bytes each sends its client, and how they were
    worked out, in words; (0, 0, "") for a job. The answers leave the cloud to the internet, wherever
    the data is, so they pay the region's internet egress (``CostFacts.charges``)."""
    sv = workload.serving
    if sv is None:
        return 0.0, 0.0, ""
    answers = sv.billed_requests_per_s * 3600.0 * sv.served_hours_per_month
    rate = (
        _("{rate} requests/s (serving.mean_requests_per_s)")
        if sv.mean_requests_per_s is not None
        else _("{rate} requests/s (serving.requests_per_s, the peak, all its scheduled hours)")
        if sv.schedule is not None
        else _("{rate} requests/s (serving.requests_per_s, the peak, all month)")
    ).format(rate=f"{sv.billed_requests_per_s:g}")
    if sv.response_bytes is not None:
        each = float(sv.response_bytes)
        how = _("{bytes} bytes each (serving.response_bytes)").format(bytes=format_number(each))
    elif workload.serves_forward_passes:
        # a forward pass's answer (a label, an embedding, a mask) is the model's output, in a
        # format the workload does not say, and the trace records no output's size: no bound known
        raise InputError.worded(
            N_(
                "serving.response_bytes: required for a service whose request is one forward pass: the "
                "bytes one answer sends its client, which the month's answers pay internet egress on "
                "(a class label or an embedding: a few kB; a segmentation mask: its voxels × bytes each, "
                "plus about 1 kB); gpuplan does not know your model's output's size or format"
            )
        )
    elif workload.serves_images:
        # an image's bytes depend on its format and content, which the workload does not say: its bound
        side = workload.inputs.image_size or 0  # an image service states it (InputsSpec)
        each = float(image_answer_bytes(side))
        how = _(
            "{bytes} bytes each, the bound for an image of {side}×{side} px (inputs.image_size): its "
            "pixels uncompressed (8-bit RGB, 3 bytes each) as base64 inside JSON, as an images API "
            "returns b64_json, with its HTTP, TLS and TCP/IP framing; the workload does not say the "
            "image's format: a PNG of it is typically about {png} bytes, a JPEG {jpeg} (give "
            "serving.response_bytes, an image's bytes on the wire, to set it)"
        ).format(
            bytes=format_number(each),
            side=side,
            png=format_number(float(round(side * side * PNG_BYTES_PER_PIXEL, -3))),
            jpeg=format_number(float(round(side * side * JPEG_BYTES_PER_PIXEL, -3))),
        )
    else:
        each = float(streamed_answer_bytes(sv.tokens[1]))
        how = _(
            "{tokens} tokens each, streamed: {per_token} bytes a token (an OpenAI-style server-sent event "
            "per token, as vLLM sends it, with its HTTP, TLS and TCP/IP framing) plus {fixed} bytes an "
            "answer; the workload does not say whether its clients stream, and streaming is the larger "
            "case (give serving.response_bytes to set it)"
        ).format(tokens=sv.tokens[1], per_token=STREAMED_TOKEN_BYTES, fixed=ANSWER_FIXED_BYTES)
    words = _(
        "serving: answers to clients {gb} GB a month, priced at each region's internet egress: {rate} "
        "over {hours} h ({answers} answers), {how}"
    ).format(
        gb=format_number(answers * each / 1e9),
        rate=rate,
        hours=f"{sv.served_hours_per_month:.0f}",
        answers=format_number(answers),
        how=how,
    )
    return answers, each, words


#: The uplink the set-up note measures an unstated one against, Gbit/s: an illustration of what the
#: assumed rate leaves out, which changes no figure.
REFERENCE_UPLINK_GBPS = 1.0


def _base_download_gb(workload: Workload, profile: Profile | None, frozen_gb: float) -> float:
    """The pretrained weights a fine-tune downloads onto each instance's disk before its first
    step, GB: a LoRA/QLoRA (or frozen-layer) job's frozen base as it sits on disk (``frozen_gb``,
    :func:`_frozen_base`, the size a restart reads back), else a full fine-tune's checkpoint as
    stored (:func:`~gpuplan.workload.stored_weights.stored_weights`). 0 where nothing is
    downloaded: training from scratch, or a model with no checkpoint to fetch (your own code, an HF
    config without ``hub_id``)."""
    model = workload.model
    if not workload.is_training or profile is None or (model.preset is None and model.hub_id is None):
        return 0.0
    if frozen_gb > 0:
        return frozen_gb
    if workload.task is not Task.FINETUNE:
        return 0.0
    from gpuplan.workload.stored_weights import stored_weights

    return stored_weights(workload, profile.params, _traced_weights_gb(profile)).gb


def _traced_weights_gb(profile: Profile) -> float:
    """The weights and buffers as the trace holds them, GB."""
    return (profile.peak.parameters_bytes + profile.peak.buffers_bytes) / 1e9


def _base_download_words(base: JobFacts, base_gb: float) -> str:
    """The set-up note's clause on the base weights' first download ("" where there is none)."""
    if base_gb <= 0:
        return ""
    return _(
        "; plus the base model's weights ({gb} GB) downloaded once onto each instance's disk at {gbps} "
        "GB/s (assumed: the rate a restart reads weights and checkpoints back at)"
    ).format(gb=f"{base_gb:.2f}", gbps=f"{base.checkpoint_write_gbps:g}")


def _setup(
    base: JobFacts, dataset_gb: float, *, on_site: bool, upload_gbps: float | None, base_gb: float = 0.0
) -> tuple[float, str]:
    """One instance's set-up before its first step, h, and the note that says how it adds up: the same
    10-minute boot + image pull + start that a spot restart costs (``JobFacts.restart_h``, an
    assumption), plus the dataset copied next to the GPUs. From a cloud region, or from the user's
    site whose uplink is not given, it is copied at ``JobFacts.dataset_copy_gbps`` (the user's
    measured ``data.copy_gbps``, else the disk's assumed bandwidth); up a given uplink, at that
    (written to the disk as it comes, so at the slower of the two). The nodes of an option may share
    the uplink, and an instance whose network is slower copies at that: ``JobFacts.setup_hours``.
    A fine-tune's base weights (``base_gb``, :func:`_base_download_gb`) are downloaded too, once, at
    the rate a restart reads them back at (``JobFacts.checkpoint_write_gbps``, assumed)."""
    disk_h = dataset_gb / base.dataset_copy_gbps / 3600.0
    weights_h = base_gb / base.checkpoint_write_gbps / 3600.0
    weights = _base_download_words(base, base_gb)
    if on_site and upload_gbps is not None and dataset_gb > 0:
        one_h = dataset_gb * 8.0 / upload_gbps / 3600.0
        setup_h = base.restart_h + max(one_h, disk_h) + weights_h
        return setup_h, _(
            "set-up {minutes} min for one instance, billed on every instance (assumed: 10 min to boot and "
            "pull the image), with the dataset uploaded from your site at {uplink} Gbit/s "
            "(data.upload_gbps): {one} a copy"
        ).format(minutes=f"{setup_h * 60:.0f}", uplink=f"{upload_gbps:g}", one=format_hours(one_h)) + weights
    setup_h = base.restart_h + disk_h + weights_h
    if base.copy_gbps_stated:
        words = _(
            "set-up {minutes} min, billed once per instance (assumed: 10 min to boot and pull the image), "
            "plus the dataset copied at {gbps} GB/s, the rate you measured (data.copy_gbps or "
            "--copy-gbps), or at the instance's network where the catalog states a slower one"
        ).format(minutes=f"{setup_h * 60:.0f}", gbps=f"{base.dataset_copy_gbps:g}")
    else:
        words = _(
            "set-up {minutes} min, billed once per instance (assumed: 10 min to boot and pull the image, "
            "plus the dataset copied at {gbps} GB/s, the baseline of AWS's gp3 volume, as every disk's "
            "throughput is taken where it is not known: checkpoints are written and read back at it too)"
        ).format(minutes=f"{setup_h * 60:.0f}", gbps=f"{base.dataset_copy_gbps:g}")
        if dataset_gb > 0 and not on_site:
            words += _(
                "; a faster copy shortens every option's set-up: give the rate you measure copying the "
                "dataset onto an instance's disk as data.copy_gbps (or plan --copy-gbps)"
            )
    if on_site and dataset_gb > 0:
        # Unknown is never the best case: the assumed rate is said, with what a common uplink would take.
        words += _(
            "; the dataset is on your site, whose uplink is not given: each instance is assumed to "
            "receive its copy at {gbps} GB/s ({gbit} Gbit/s), whereas at {reference} Gbit/s one copy "
            "takes {one} and per-node copies share the line — give data.upload_gbps"
        ).format(
            gbps=f"{base.dataset_copy_gbps:g}",
            gbit=f"{base.dataset_copy_gbps * 8:g}",
            reference=f"{REFERENCE_UPLINK_GBPS:g}",
            one=format_hours(dataset_gb * 8.0 / REFERENCE_UPLINK_GBPS / 3600.0),
        )
    return setup_h, words + weights


#: Off spot, the interval a checkpoint slow to write is written at instead of the default
#: (:attr:`JobFacts.checkpoint_interval_h`): said once, in the plan's notes.
_LENGTHENED_INTERVAL = N_(
    "off spot, a checkpoint every {interval} min, not the default {default}: one write of the {gb} GB "
    "checkpoint takes {write} min at {gbps} GB/s (assumed), and gpuplan keeps the writes to at most "
    "{share} of the job's time off spot, as only a hardware failure, rare on demand, loses an interval; "
    "`checkpoint: {{every_min: N}}` in the workload sets another (`gpuplan deploy` writes the plan's "
    "interval into train.py)"
)


def job_facts_from(workload: Workload, profile: Profile | None) -> tuple[JobFacts, tuple[str, ...]]:
    """Sizes of what is stored and moved, from the workload and its traced profile."""
    from gpuplan.perf.workload_request import job_size as job_size_of

    notes: list[str] = []
    if "task" not in workload.model_fields_set:
        # the default, said: a fine-tune written without its task is planned with no base weights
        notes.append(
            _(
                "task not given: planned as train, from scratch (no base weights are downloaded before "
                "it runs); write task: finetune for a fine-tune, task: infer for inference"
            )
        )
    data = workload.data
    dataset_gb = data.size_gb if data is not None and data.size_gb is not None else None
    if dataset_gb is None:
        notes.append(_("data.size_gb not given: no dataset storage or transfer is priced"))
    location = None
    if data is not None and data.location:
        provider, region = data.location.split("/", 1)
        location = (provider.lower(), region)
    checkpoint_gb = 0.0
    results_gb = 0.0
    stated = data.results_gb if data is not None else None
    if workload.is_training and profile is not None:
        checkpoint_gb = profile.checkpoint_gb
        if stated is None:
            # Results sent back: the trained weights at 2 bytes each (bf16/fp16 export).
            results_gb = profile.trainable_params * 2 / 1e9
            notes.append(
                _(
                    "checkpoint {checkpoint} GB ({contents}), results sent back {results} GB "
                    "(weights at 2 bytes each)"
                ).format(
                    checkpoint=f"{checkpoint_gb:.2f}",
                    contents=workload.precision.checkpoint_contents,
                    results=f"{results_gb:.2f}",
                )
            )
        else:
            notes.append(
                _("checkpoint {checkpoint} GB ({contents})").format(
                    checkpoint=f"{checkpoint_gb:.2f}", contents=workload.precision.checkpoint_contents
                )
            )
    if stated is not None:
        results_gb = stated
        notes.append(_("results sent back {results} GB (data.results_gb)").format(results=f"{stated:g}"))
    # A batch inference job's output (embeddings, labels, generated text) is not known from the model
    # alone: a preset's traced forward ends in its training head, not in what the job keeps. Unstated,
    # it is left unpriced and said so, and the planner ranks the options that would send it over a
    # priced link after those that would not (plan/options.py ``results_unpriced``).
    results_unpriced = stated is None and not workload.is_training and workload.serving is None
    if results_unpriced:
        notes.append(
            _(
                "data.results_gb not given: the results sent back to {where} are not priced; give the size "
                "of what the job writes (e.g. 50 M embeddings × 1,024 × 2 bytes: results_gb: 102.4)"
            ).format(where=place(*location) if location is not None else _("your own site"))
        )
    copy_gbps = data.copy_gbps if data is not None else None
    base = JobFacts() if copy_gbps is None else JobFacts(dataset_copy_gbps=copy_gbps, copy_gbps_stated=True)
    upload_gbps = data.upload_gbps if data is not None and location is None else None
    frozen_gb, frozen_words = _frozen_base(workload, profile)
    setup_h, setup_words = _setup(
        base,
        dataset_gb or 0.0,
        on_site=location is None,
        upload_gbps=upload_gbps,
        base_gb=_base_download_gb(workload, profile, frozen_gb),
    )
    notes.append(setup_words)
    serving = workload.serving is not None
    if serving:
        notes.append(
            _(
                "serving: a month of capacity; monthly prices are billed as one month (set-up inside it), "
                "hourly prices for {hours} h plus set-up, a reservation (--commitment 1y|3y: its capacity "
                "used for the whole term) its month's share of the term"
            ).format(hours=f"{SERVING_HOURS:g}")
        )
        notes.append(_day_note(workload))
    size = job_size_of(workload)
    # What a replacement of a reclaimed spot replica reads back before it serves: the weights of one
    # replica, all its GPUs' together, as its checkpoint stores them (the engine downloads them so,
    # whatever precision it runs in); a batch inference shard started again loads them so too before
    # it resumes. A fine-tune's frozen base is on the disk too: the checkpoints hold only what is
    # trained.
    if not workload.is_training:
        traced_gb = _traced_weights_gb(profile) if profile else 0.0
        weights_gb = 0.0
        if profile is not None and traced_gb > 0:
            from gpuplan.workload.stored_weights import stored_weights

            stored = stored_weights(workload, profile.params, traced_gb)
            weights_gb = stored.gb
            notes.append(stored.note)
    else:
        weights_gb = frozen_gb
        notes.extend(frozen_words)
    least, per_gpu = _replicas(workload)
    answers, answer_bytes, answers_words = _answers(workload)
    if answers_words:
        notes.append(answers_words)
    if per_gpu > 1:
        from gpuplan.perf.inference import TIME_SLICE_PENALTY

        notes.append(
            _(
                "serving: {n} replicas time-share each GPU (share_gpu): each holds 1/{n} of its "
                "memory (its own CUDA context and weights, then its KV cache) and runs {share} of its "
                "time ({loss} lost to context switches, assumed: NVIDIA publishes no figure); the peak "
                "memory shown is one replica's"
            ).format(
                n=per_gpu,
                share=f"{(1 - TIME_SLICE_PENALTY) / per_gpu:.1%}",
                loss=f"{TIME_SLICE_PENALTY:.0%}",
            )
        )
    # the workload's own checkpointing, as its launch will do it (deploy writes the same)
    cadence = workload.checkpoint
    every_min = cadence.every_min if cadence is not None else None
    if every_min is not None and checkpoint_gb > 0:
        notes.append(
            _(
                "checkpoint every {minutes} min (checkpoint.every_min): off spot at that interval, on spot "
                "at the shorter of it and the Young/Daly interval"
            ).format(minutes=f"{every_min:g}")
        )
    job = JobFacts(
        task=str(workload.task),
        checkpoint_every_h=(every_min if every_min is not None else DEFAULT_CHECKPOINT_INTERVAL_MIN) / 60.0,
        checkpoint_every_stated=every_min is not None,
        checkpoints_kept=cadence.keep
        if cadence is not None and cadence.keep is not None
        else CHECKPOINTS_KEPT,
        data_transfer=str(data.transfer.value) if data is not None else "per_node",
        dataset_copy_gbps=base.dataset_copy_gbps,
        copy_gbps_stated=base.copy_gbps_stated,
        image_job=not serving and workload.inputs.image_size is not None,
        precision=workload.precision.value,
        rereads_dataset=not serving and bool(dataset_gb) and size is not None and size.epochs > 1,
        dataset_gb=dataset_gb or 0.0,
        checkpoint_gb=checkpoint_gb,
        results_gb=results_gb,
        results_unpriced=results_unpriced,
        data_location=location,
        setup_h=setup_h,
        upload_gbps=upload_gbps,
        # A service is planned for a month of calendar time (SERVING_HOURS), not a piece of work.
        calendar_months=SERVING_HOURS / HOURS_PER_MONTH if serving else None,
        tensor_parallel=workload.tensor_parallel,
        tensor_parallel_choices=tensor_parallel_choices(workload, profile),
        attention_heads=(profile.shape.num_attention_heads or 0) if profile is not None else 0,
        kv_heads=(profile.shape.num_kv_heads or 0) if profile is not None else 0,
        pipeline_parallel=workload.pipeline_parallel,
        min_replicas=least,
        scales_down=workload.serving is not None and workload.serving.scales_down,
        schedule=workload.serving.schedule.window
        if workload.serving is not None and workload.serving.schedule is not None
        else None,
        load_day=workload.serving.load_day if workload.serving is not None else None,
        max_replicas=workload.serving.max_replicas if workload.serving is not None else None,
        replicas_per_gpu=per_gpu,
        p95_latency_ms=workload.serving.p95_latency_ms if workload.serving is not None else None,
        ttft_p95_ms=workload.serving.ttft_p95_ms if workload.serving is not None else None,
        users_in=workload.serving.users_in if workload.serving is not None else (),
        tpot_p95_ms=workload.serving.tpot_p95_ms if workload.serving is not None else None,
        weights_gb=weights_gb,
        batch_size=workload.inputs.batch_size if workload.is_training else 0,
        gradient_accumulation=workload.gradient_accumulation,
        seq_len=workload.inputs.seq_len,
        # per hour of the month: a service on a schedule serves its hours only
        served_tokens_per_hour=_served_tokens_per_hour(workload),
        served_images_per_hour=_served_images_per_hour(workload),
        served_passes_per_hour=_served_passes_per_hour(workload),
        run_tokens=_run_tokens(workload, size),
        run_samples=_run_samples(workload, size),
        requests_per_s=workload.serving.requests_per_s if workload.serving is not None else None,
        mean_requests_per_s=workload.serving.mean_requests_per_s if workload.serving is not None else None,
        answers_per_month=answers,
        answer_bytes=answer_bytes,
    )
    if job.writes_checkpoints_off_spot and job.checkpoint_interval_lengthened:
        said = _(_LENGTHENED_INTERVAL).format(
            interval=f"{job.checkpoint_interval_h * 60:.0f}",
            default=f"{DEFAULT_CHECKPOINT_INTERVAL_MIN:.0f}",
            gb=f"{job.checkpoint_gb:.1f}",
            write=f"{job.checkpoint_write_h * 60:.1f}",
            gbps=f"{job.checkpoint_write_gbps:g}",
            share=f"{CHECKPOINT_WRITE_SHARE:.0%}",
        )
        notes.append(said)
    return job, tuple(notes)
