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
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from gpuplan.errors import EstimateError, GpuplanError, InputError
from gpuplan.i18n import N_, _, format_number, money
from gpuplan.i18n.countries import country_code
from gpuplan.i18n.places import place
from gpuplan.plan.candidates import EstimateFn
from gpuplan.plan.constraints import Constraints, Objective
from gpuplan.plan.input_types import (
    HOURS_PER_MONTH,
    EstimateKey,
    EstimateRow,
    JobFacts,
    OfferTable,
    PlanOffer,
    RegionCosts,
    UsdTransferTier,
)
from gpuplan.plan.overrides import PlanOverrides
from gpuplan.plan.region_costs import CostFacts
from gpuplan.plan.region_countries import region_country
from gpuplan.vocab import PRICING_RULES, MemoryVerdict

if TYPE_CHECKING:
    from gpuplan.catalog import OfferPrice, Store
    from gpuplan.catalog import TransferTier as StoreTier
    from gpuplan.perf import Calibration
    from gpuplan.perf.anchor import StepMeasurement
    from gpuplan.profile.model import Profile
    from gpuplan.workload import ConstraintsSpec, Workload

__all__ = [
    "SERVING_HOURS",
    "constraints_from_spec",
    "cost_facts_from_store",
    "job_facts_from",
    "make_estimator",
    "offer_table_from_prices",
]

#: Hours a serving deployment is planned for: one billing month (730 h). ASSUMPTION, labelled in the
#: plan: a service has no end, so options are compared on a month of capacity.
SERVING_HOURS = HOURS_PER_MONTH

_TERM_HOURS = {p: r.term_hours for p, r in PRICING_RULES.items() if r.term_hours is not None}
_GB_PER_GIB = 1.073741824


def _gpu_memory_gib(gpu_id: str) -> float:
    from gpuplan.hardware import get_gpu

    try:
        return float(get_gpu(gpu_id).memory_gib)
    except GpuplanError:
        return math.nan


def _discount_note(p: OfferPrice) -> str:
    """Said beside the price wherever it is shown: the user's negotiated discount is in it."""
    if p.discount_percent is None or p.list_price_usd_per_hour is None:
        return ""
    percent, listed = format_number(p.discount_percent), money(p.list_price_usd_per_hour, per="h")
    return f" [your {percent} % discount applied; list {listed}]"


def offer_table_from_prices(prices: Sequence[OfferPrice]) -> OfferTable:
    """The store's offers (one per offer × pricing model) as planner columns.

    A row whose price is unknown, or not convertible to USD, keeps ``price_usd=None`` (counted as
    unpriced, never free). Monthly prices stay monthly (``unit_hours`` 730) so that the planner
    rounds them to whole months; reserved prices carry their term. Each row's age and staleness
    are the store's (:func:`gpuplan.catalog.dates.price_age`: an undated price counts as stale).
    """
    memory: dict[str, float] = {}
    rows = []
    for p in prices:
        unit_hours = HOURS_PER_MONTH if p.unit == "month" else 1.0
        price_usd = p.price_usd_per_hour * unit_hours if p.price_usd_per_hour is not None else None
        term_h = None
        if p.pricing in _TERM_HOURS:
            years = (p.term or {}).get("years")
            term_h = float(years) * 8760.0 if isinstance(years, int | float) else _TERM_HOURS[p.pricing]
        if p.gpu not in memory:
            memory[p.gpu] = _gpu_memory_gib(p.gpu)
        rows.append(
            PlanOffer(
                provider=p.provider,
                region=p.region,
                zone=p.zone or "",
                country=region_country(p.provider, p.region),
                instance_type=p.instance_type,
                gpu=p.gpu,
                gpu_count=float(p.gpu_count),
                gpu_memory_gib=memory[p.gpu],
                pricing=p.pricing or "",
                price_usd=price_usd,
                unit_hours=unit_hours,
                term_hours=term_h,
                vcpus=p.vcpus,
                memory_gib=p.memory_gib,
                network_gbps=p.network_gbps,
                interconnect=p.interconnect or "",
                network_kind=p.network_kind or "",
                billing_granularity_s=p.billing_granularity_s,
                min_billing_s=p.min_billing_s,
                interruption_band=p.interruption_band or "",
                compliance=tuple(p.compliance),
                confidence=p.confidence or "low",
                as_of=p.as_of or "",
                source=(p.source or "") + _discount_note(p),
                stale=p.stale,
                staleness=p.staleness or "",
                price_age_days=None if p.age_days is None else float(p.age_days),
            )
        )
    return OfferTable.from_rows(rows)


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


def _region_costs(store: Store, provider: str, region: str) -> RegionCosts:
    notes: list[str] = []
    egress_rows = store.egress_tiers(provider, region)
    egress = _tiers(store, egress_rows)
    if egress is not None and any(r.fallback for r in egress_rows):
        used = egress_rows[0].reason or _("{where} price used").format(
            where=place(provider, egress_rows[0].region)
        )
        notes.append(_("egress: {note}").format(note=used))
    inter = store.inter_region_price(provider, region)
    inter_usd = None
    if inter is not None and inter.price_per_gb is not None:
        rate = _usd(store, inter.currency)
        inter_usd = inter.price_per_gb * rate if rate is not None else None
    per_kind: dict[str, float] = {}
    for sp in store.storage_prices(provider, region):
        rate = _usd(store, sp.currency)
        if sp.kind in per_kind or sp.price_per_gb_month is None or rate is None:
            continue
        per_kind[sp.kind] = sp.price_per_gb_month * rate
        if sp.fallback:
            used = sp.reason or _("{where} price used").format(where=place(provider, sp.region))
            notes.append(_("storage ({kind}): {note}").format(kind=sp.kind, note=used))
    licence = 0.0
    for fee in store.licence_fees(provider, region):
        if fee.applies and fee.price is not None and fee.currency and (fee.unit or "").startswith("hour"):
            rate = _usd(store, fee.currency)
            if rate is not None:
                licence += fee.price * rate
                continue
        if fee.applies is None or (fee.applies and fee.price is None):
            # The shipped items are catalog messages (catalog.model.LICENCE_ITEMS); others stay as written.
            notes.append(_("licence fee unknown ({item}): not included").format(item=_(fee.item)))
    return RegionCosts(
        provider=provider,
        region=region,
        internet_egress=egress,
        inter_region_usd_per_gb=inter_usd,
        object_storage_usd_per_gb_month=per_kind.get("object"),
        block_storage_usd_per_gb_month=per_kind.get("block"),
        licence_usd_per_instance_hour=licence,
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
    return CostFacts(out)


def constraints_from_spec(spec: ConstraintsSpec, **overrides: Any) -> Constraints:
    """The workload's constraints, each replaced by an override that is not None."""

    def names(v: Sequence[str]) -> tuple[str, ...] | None:
        return tuple(v) or None

    base = Constraints(
        deadline_h=spec.deadline_hours,
        budget_usd=spec.budget_usd,
        providers=names(spec.providers),
        regions=names(spec.regions),
        countries=names(spec.countries),
        pricing=names(spec.pricing),
        max_gpus=spec.max_gpus,
        max_nodes=spec.max_nodes,
        min_gpu_memory_gib=spec.min_gpu_memory_gib,
        interconnect=spec.interconnect,
        compliance=names(spec.compliance),
        commitment=spec.commitment,
        objective=Objective.cast(str(spec.objective)),
    )
    merged = PlanOverrides.from_mapping(overrides).apply(base)
    if merged.countries:
        # "China", "中国", "CN" and "chn" all mean CN (ISO 3166 alpha-2, as the offers carry it).
        merged = replace(merged, countries=tuple(dict.fromkeys(country_code(c) for c in merged.countries)))
    return merged


def job_facts_from(workload: Workload, profile: Profile | None) -> tuple[JobFacts, tuple[str, ...]]:
    """Sizes of what is stored and moved, from the workload and its traced profile."""
    from gpuplan.perf.workload_request import job_size as job_size_of

    notes: list[str] = []
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
    if workload.is_training and profile is not None:
        pk = profile.peak
        # A checkpoint holds trainable weights (fp32 master copy: 4 bytes each), the optimizer
        # state and buffers; frozen base weights (LoRA) are not rewritten.
        checkpoint_gb = (profile.trainable_params * 4 + pk.optimizer_state_bytes + pk.buffers_bytes) / 1e9
        # Results sent back: the trained weights at 2 bytes each (bf16/fp16 export).
        results_gb = profile.trainable_params * 2 / 1e9
        notes.append(
            _(
                "checkpoint {checkpoint} GB (fp32 trainable weights + optimizer state + buffers), "
                "results sent back {results} GB (weights at 2 bytes each)"
            ).format(checkpoint=f"{checkpoint_gb:.2f}", results=f"{results_gb:.2f}")
        )
    base = JobFacts()
    # Set-up before the first step: the same 10-minute boot + image pull + start that a spot
    # restart costs (JobFacts.restart_h, an assumption), plus copying the dataset next to the GPUs
    # at the assumed storage bandwidth (JobFacts.checkpoint_write_gbps).
    setup_h = base.restart_h + (dataset_gb or 0.0) / base.checkpoint_write_gbps / 3600.0
    notes.append(
        _(
            "set-up {minutes} min, billed once per instance (assumed: 10 min to boot and pull the image, "
            "plus the dataset copied at {gbps} GB/s)"
        ).format(minutes=f"{setup_h * 60:.0f}", gbps=f"{base.checkpoint_write_gbps:g}")
    )
    serving = workload.serving is not None
    if serving:
        notes.append(
            _(
                "serving: a month of capacity; monthly prices are billed as one month (set-up inside it), "
                "hourly prices for {hours} h plus set-up"
            ).format(hours=f"{SERVING_HOURS:g}")
        )
    size = job_size_of(workload)
    job = JobFacts(
        task=str(workload.task),
        data_transfer=str(data.transfer.value) if data is not None else "per_node",
        image_job=not serving and workload.inputs.image_size is not None,
        rereads_dataset=not serving and bool(dataset_gb) and size is not None and size.epochs > 1,
        dataset_gb=dataset_gb or 0.0,
        checkpoint_gb=checkpoint_gb,
        results_gb=results_gb,
        data_location=location,
        setup_h=setup_h,
        # A service is planned for a month of calendar time (SERVING_HOURS), not a piece of work.
        calendar_months=SERVING_HOURS / HOURS_PER_MONTH if serving else None,
        tensor_parallel=workload.tensor_parallel,
        pipeline_parallel=workload.pipeline_parallel,
    )
    return job, tuple(notes)


def make_estimator(
    workload: Workload,
    profile: Profile,
    calibration: Calibration | None = None,
    *,
    measured_steps: tuple[StepMeasurement, ...] = (),
) -> tuple[EstimateFn, tuple[str, ...]]:
    """The planner's estimate function over ``perf.estimate`` (cached per key) and plan notes.

    Training and batch inference: the job time for ``data`` (samples or tokens × epochs).
    A serving workload (``serving:``): one replica per GPU; it fits when the GPUs carry the request
    rate (within the p95 target if one is given), and runs for :data:`SERVING_HOURS`.
    ``measured_steps``: the workload's ``gpuplan measure`` recordings; every estimate is anchored on
    one (``perf/anchor.py``), and the plan says so.
    """
    from gpuplan.hardware import get_gpu
    from gpuplan.perf import (
        NetworkSpec,
        decode_estimate,
        job_size,
        load_calibration,
        request_for,
        serving_estimate,
    )
    from gpuplan.perf.anchor import choose_measurement, not_anchored_note
    from gpuplan.perf.estimate import GpuStages, finish_estimate, gpu_stages
    from gpuplan.perf.input_pipeline import Host
    from gpuplan.perf.parallel import catalog_network_kind, network_kind_of

    cal = calibration or load_calibration()
    job = job_size(workload)
    serving = workload.serving
    notes: list[str] = []
    if serving is None and job is None:
        raise InputError.worded(
            N_("the planner needs the job's length: give data.samples (or data.tokens) and data.epochs")
        )
    if serving is None and workload.inputs.image_size is not None:
        from gpuplan.perf.input_pipeline import (
            IMAGES_PER_S_PER_VCPU,
            IMAGES_PER_S_PER_VCPU_HIGH,
            IMAGES_PER_S_PER_VCPU_LOW,
        )

        notes.append(
            _(
                "image job: each offer's images/s is bounded by its vCPUs × {rate} images/s "
                "per vCPU (JPEG decode + random-resized crop, assumed; {low}–{high}); options marked "
                "input_bound are CPU-bound; an offer whose vCPUs the catalog lacks is bounded at the "
                "fewest vCPUs per GPU of any offer of its GPU (its best case, not bounded, shown beside)"
            ).format(
                rate=f"{IMAGES_PER_S_PER_VCPU:g}",
                low=f"{IMAGES_PER_S_PER_VCPU_LOW:g}",
                high=f"{IMAGES_PER_S_PER_VCPU_HIGH:g}",
            )
        )
    mine = [m for m in measured_steps if m.workload_key == profile.key]
    if (chosen := choose_measurement(mine, "")) is not None:
        notes.append(
            _(
                "step times anchored on your measured step on {gpu} ({when}, gpuplan measure), moved to each "
                "offer's GPU op class by op class (Habitat, Yu et al., USENIX ATC'21)"
            ).format(gpu=chosen.gpu_id, when=chosen.measured_at)
        )
    elif mine:  # recordings exist but none anchors (a CPU one, a GPU without a datasheet): say so
        notes.append(not_anchored_note(max(mine, key=lambda m: m.measured_at)))
    cache: dict[EstimateKey, EstimateRow] = {}
    stages: dict[EstimateKey, GpuStages] = {}
    unfit = EstimateRow(fits=False, job_time_h=math.nan, job_time_h_low=math.nan, job_time_h_high=math.nan)

    def run(key: EstimateKey) -> EstimateRow:
        try:
            gpu = get_gpu(key.gpu)
        except GpuplanError:
            return unfit
        text = key.interconnect.lower()
        nvlink = bool(gpu.nvlink_gbps) and ("nvlink" in text or "nvswitch" in text or not text)
        # The offer's own fabric (the catalog's network_kind: EFA/InfiniBand/RoCE are RDMA, TCP is
        # not). Where the catalog does not say, the interconnect's words and then the bandwidth
        # (≥ 200 Gbit/s taken as RDMA, NetworkSpec.link) decide — an assumption, said on the option.
        kind = catalog_network_kind(key.network_kind)
        inferred = kind is None and key.nodes > 1
        link = NetworkSpec(
            gbit_s=key.network_gbps,
            kind=kind or network_kind_of(key.interconnect),
            source="catalog",
            gpus_per_node=key.gpus_per_node,
            nvlink=nvlink,
        ).link(gpu, key.gpu_count)
        request = request_for(
            workload,
            profile,
            gpu,
            count=key.gpu_count,
            link=link,
            calibration=cal,
            host=Host(gpus=key.gpus_per_node, vcpus=key.vcpus, ram_gib=key.memory_gib),
            measured_steps=measured_steps,
        )
        # The host (vCPUs, RAM) enters only the last stage: one GPU shape's first four stages
        # serve every host it is offered on.
        shape = replace(key, vcpus=None, memory_gib=None)
        if shape not in stages:
            stages[shape] = gpu_stages(request)
        est = finish_estimate(stages[shape], request)
        peak = est.memory.peak_memory_gib
        if serving is not None:
            dec = decode_estimate(
                profile,
                gpu,
                calibration=cal,
                cuda_graphs=workload.uses_cuda_graphs,
                compiled=workload.compile,
            )
            srv = serving_estimate(
                dec,
                requests_per_s=serving.requests_per_s / key.gpu_count,
                prompt_tokens=serving.prompt_tokens,
                output_tokens=serving.output_tokens,
            )
            ok = srv.p95_latency_s is not None and (
                serving.p95_latency_ms is None or srv.p95_latency_s * 1000 <= serving.p95_latency_ms
            )
            h = SERVING_HOURS
            return EstimateRow(
                fits=not est.memory.ruled_out and ok,
                memory_uncertain=est.memory_verdict is MemoryVerdict.MAY_NOT_FIT,
                job_time_h=h,
                job_time_h_low=h,
                job_time_h_high=h,
                peak_memory_gib=peak,
            )
        if est.job_time_h is None:
            return unfit
        return EstimateRow(
            # Ruled out only when the whole memory band is above the GPU's usable memory; a
            # configuration that may not fit stays, flagged and ranked after those that fit.
            fits=not est.memory.ruled_out,
            memory_uncertain=est.memory_verdict is MemoryVerdict.MAY_NOT_FIT,
            job_time_h=est.job_time_h,
            job_time_h_low=est.job_time_h_low or est.job_time_h,
            job_time_h_high=est.job_time_h_high or est.job_time_h,
            peak_memory_gib=peak,
            step_time_s=est.step_time_s,
            input_bound=est.input_bound,
            # Only a CPU-decoding pipeline with neither vCPUs nor workers known is unknown
            # (DALI decodes on the GPU, synthetic data decodes nothing).
            input_unknown=workload.inputs.image_size is not None
            and not key.vcpus
            and workload.software_stack.input_pipeline.value == "dataloader"
            and workload.stack.loader_workers is None,
            notes=(
                *est.notes,
                _("network kind not in the catalog: taken as {kind}").format(kind=link.network_kind),
            )
            if inferred
            else est.notes,
        )

    image_job = workload.inputs.image_size is not None

    def estimate_fn(key: EstimateKey) -> EstimateRow:
        # Facts the estimate cannot depend on leave the cache key, so that offers differing only
        # in them share one estimate (the market has thousands of offers, a few hundred shapes):
        # the inter-node network of a one-node job, the vCPUs of a job with no images to decode.
        if key.nodes == 1 and (key.network_gbps is not None or key.network_kind):
            key = replace(key, network_gbps=None, network_kind="")
        if not image_job and key.vcpus is not None:
            key = replace(key, vcpus=None)
        if key not in cache:
            try:
                cache[key] = run(key)
            except EstimateError:
                cache[key] = unfit  # this GPU cannot run the workload (e.g. FP8 before Hopper)
        return cache[key]

    return estimate_fn, tuple(notes)
