"""One costed candidate as an :class:`Option`: its flags, spot risk, deadline risk, the charges it
pays with their multipliers, and the unknown facts it was costed at the conservative bound of."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from gpuplan.catalog.dates import launch_bound
from gpuplan.catalog.model import FloorBasis, floor_what
from gpuplan.catalog.providers import declared_provider, documented_billing_increment_s, kubernetes_service
from gpuplan.hardware import launch_month
from gpuplan.i18n import N_, _, format_hours, format_number, format_percent, money
from gpuplan.perf.links import SLOW_NETWORK_GBIT_S, catalog_network_kind, network_kind_of
from gpuplan.plan.border import crosses_border, leaves_country
from gpuplan.plan.constraints import claimed_only
from gpuplan.plan.context import PlanContext
from gpuplan.plan.host_memory import HOST_RAM_UNKNOWN_FLAG, host_ram_unsure
from gpuplan.plan.hosts import host_kind
from gpuplan.plan.input_types import JobFacts, PlanOffer
from gpuplan.plan.nearness import data_km
from gpuplan.plan.result import (
    CheckpointWrites,
    CostBreakdown,
    CostItem,
    Option,
    ServiceFigures,
    ServiceSpotRisk,
    SpotBand,
    SpotRisk,
)
from gpuplan.plan.risk import SpotMissModel, TimeDistribution, deadline_miss, work_distribution
from gpuplan.plan.sanctions import sanctions_of
from gpuplan.plan.service_day import option_day_words
from gpuplan.plan.spot import SpotRate, below_target_over_day
from gpuplan.plan.unknowns import FACT_CODES, RANKED_ONLY_CODES, Fact, UnknownFact, gpu_link_words
from gpuplan.plan.users_far import RTT_UNKNOWN_FLAG, offer_rtt, rtt_unknown, rtt_words
from gpuplan.units import HOURS_PER_MONTH

__all__ = [
    "COMPLIANCE_CLAIMED_FLAG",
    "DECLARED_PROVIDER_FLAG",
    "IMPLAUSIBLE_FLAG",
    "MAY_MISS_DEADLINE_FLAG",
    "MAY_NOT_FIT_FLAG",
    "OVER_MEMORY_FLAG",
    "RESULTS_UNPRICED_FLAG",
    "make_option",
    "price_date_words",
    "results_unpriced",
]

#: The flag of an option whose memory band straddles the GPU's usable memory.
MAY_NOT_FIT_FLAG = N_(
    "may not fit in memory: the high end of the memory estimate is above the GPU's usable memory "
    "(ranked after the options that fit)"
)
#: The flag of an option whose memory estimate's point is above the GPU's usable memory (only the
#: low end of its band fits): the job most likely runs out of memory there.
OVER_MEMORY_FLAG = N_(
    "does not fit in memory at the estimate: the memory it needs is above the GPU's usable memory, "
    "only the low end of the estimate's range fits (ranked after every option whose estimate fits)"
)
#: The flag of an option whose time band (its 90th percentile, spot interruptions included) ends
#: past the deadline: more than a one-in-ten chance to miss it.
MAY_MISS_DEADLINE_FLAG = N_(
    "may miss the deadline: the high end of its time range is past it (ranked after the options that meet it)"
)

#: The flag of an option whose GPU's estimated step breaks a datasheet bound
#: (``perf/plausibility.py``): the flag ``estimate`` shows, carried to the options ranked on it.
IMPLAUSIBLE_FLAG = N_(
    "time estimate outside what the GPU's datasheets allow (see the notes): the time and cost of this "
    "option are in doubt"
)

#: The flag of an option that meets a required compliance label only by a claim of a low-confidence
#: source (counted because the plan allows low-confidence facts).
COMPLIANCE_CLAIMED_FLAG = N_(
    "compliance label only claimed by a low-confidence source, not a certificate: check the provider's "
    "certificate"
)
#: The flag of an option on a provider the user declared (``catalog import --new-provider``): its
#: billing, host, network, egress and storage are costed at their conservative bounds.
DECLARED_PROVIDER_FLAG = N_(
    "a provider you declared: its facts are unknown (billing, vCPUs, network, egress and storage costed "
    "at their conservative bounds)"
)
#: The flag of an option that would send results of a size not stated over a priced link.
RESULTS_UNPRICED_FLAG = N_(
    "results back not priced: their size is not stated (data.results_gb); ranked after the options in "
    "the data's region"
)


def _restart_h(job: JobFacts, nodes: int) -> tuple[float, float]:
    """One checkpoint's write and one reclaim's restart of an option of ``nodes`` instances, h: the
    restart with the dataset copied again where a reclaim may lose its disks (its conservative bound,
    ``JobFacts.recopy_hours``)."""
    return job.checkpoint_write_h, job.spot_restart_h + float(job.recopy_hours(np.array([nodes]))[0])


def _restart_words(job: JobFacts, nodes: int) -> str:
    """How a job's restart after a reclaim adds up (``JobFacts.spot_restart_h``), in words: the
    assumed replacement, then what it reads back, and the dataset copied again where a reclaim may
    lose its disks."""
    words = _reread_words(job)
    if not job.recopies_on_reclaim:
        return words
    return words + _(
        ", and the dataset ({gb} GB) copied again: +{time} (a reclaim is taken to lose its disks)"
    ).format(
        gb=format_number(job.dataset_gb), time=format_hours(float(job.recopy_hours(np.array([nodes]))[0]))
    )


def _reread_words(job: JobFacts) -> str:
    """The replacement and what it reads back (:func:`_restart_words`)."""
    if job.task == "infer":  # a batch inference shard has no checkpoint: it reads its weights
        return _(
            "assumed: {restart} min to get a replacement instance, boot it and pull the image, plus the "
            "model's weights ({gb} GB) read at {gbps} GB/s"
        ).format(
            restart=f"{job.restart_h * 60:.0f}",
            gb=f"{job.weights_gb:.2f}",
            gbps=f"{job.checkpoint_write_gbps:g}",
        )
    if job.weights_gb > 0:
        return _(
            "assumed: {restart} min to get a replacement instance, boot it and pull the image, plus the "
            "checkpoint ({checkpoint} GB) and the base model's weights ({gb} GB) read at {gbps} GB/s"
        ).format(
            restart=f"{job.restart_h * 60:.0f}",
            checkpoint=f"{job.checkpoint_gb:.2f}",
            gb=f"{job.weights_gb:.2f}",
            gbps=f"{job.checkpoint_write_gbps:g}",
        )
    return _(
        "assumed: {restart} min to get a replacement instance, boot it and pull the image, plus the "
        "checkpoint ({checkpoint} GB) read at {gbps} GB/s"
    ).format(
        restart=f"{job.restart_h * 60:.0f}",
        checkpoint=f"{job.checkpoint_gb:.2f}",
        gbps=f"{job.checkpoint_write_gbps:g}",
    )


def _work_distribution(ctx: PlanContext, i: int) -> TimeDistribution:
    """The failure-free job time of candidate ``i`` as a distribution (see ``plan/risk.py``)."""
    cands = ctx.cands
    return work_distribution(float(cands.work_h[i]), float(cands.work_h_low[i]), float(cands.work_h_high[i]))


def _spare(ctx: PlanContext, j: int) -> int:
    """Spare instances position ``j`` pays for: a service on spot keeps its load target with them."""
    c = ctx.costs
    if c.service is None or not bool(c.is_spot[j]):
        return 0
    return int(c.service.spare_instances[j])


def _items(ctx: PlanContext, j: int, nodes: int) -> tuple[CostItem, ...]:
    """Every charge of position ``j`` with what multiplies it: instances, disks, dataset copies."""
    c, job = ctx.costs, ctx.job
    spare = _spare(ctx, j)
    # every instance boots with its launch disk, a bucket's plan too (costing.cost_candidates)
    bucket = float(c.bucket_usd[j])
    items = [
        CostItem(component="compute", cost_usd=float(c.compute_usd[j]), multiplier=nodes, per="instance"),
        CostItem(
            component="setup",
            cost_usd=float(c.setup_usd[j]),
            multiplier=nodes,
            per="instance",
            included_in="compute",
        ),
        CostItem(
            component="storage",
            cost_usd=float(c.storage_usd[j]) - bucket,
            multiplier=nodes + spare,
            per="disk",
        ),
        *(
            [CostItem(component="storage", cost_usd=bucket, multiplier=1, per="bucket")]
            if job.storage_kind == "object"
            else []
        ),
        CostItem(
            component="egress_in",
            cost_usd=float(c.egress_in_usd[j]),
            multiplier=int(c.egress_copies[j]),
            per="copy",
        ),
        CostItem(component="egress_out", cost_usd=float(c.egress_out_usd[j]), multiplier=1, per="copy"),
        CostItem(
            component="licences", cost_usd=float(c.licence_usd[j]), multiplier=nodes + spare, per="instance"
        ),
    ]
    if float(c.checkpoint_usd[j]) > 0:
        # off spot, the checkpoint writes are billed as compute (spot's are in its overhead)
        items.append(
            CostItem(
                component="checkpoints",
                cost_usd=float(c.checkpoint_usd[j]),
                multiplier=nodes,
                per="instance",
                included_in="compute",
            )
        )
    if bool(c.is_spot[j]):
        items.append(
            CostItem(
                component="spot_overhead",
                cost_usd=float(c.spot_overhead_usd[j]),
                multiplier=spare if c.service is not None else nodes,
                per="instance",
            )
        )
    return tuple(items)


def _unknowns(ctx: PlanContext, j: int, row: PlanOffer, nodes: int) -> tuple[UnknownFact, ...]:
    """The unknown facts position ``j`` was costed at the bound of, each with the bound in words."""
    mask = int(ctx.costs.unknown[j])
    bounds = ctx.bounds
    out = []
    for fact in Fact:
        if not mask & fact:
            continue
        if fact in (Fact.VCPUS, Fact.RAM, Fact.NETWORK) and bounds is not None:
            assumed = bounds.words(fact, row.gpu, row.gpu_count)
        elif fact is Fact.EGRESS:
            assumed = _("the highest transfer price the catalog knows")
        elif fact is Fact.STORAGE:
            assumed = _("the highest storage price of its kind the catalog knows")
        elif fact is Fact.GPU_LINK:
            assumed = gpu_link_words(row.gpu, row.gpu_count, row.interconnect)
        elif fact is Fact.REGION:
            assumed = _(
                "the price's source names no region: its country is not known (--countries leaves it out)"
            )
        elif fact is Fact.SPOT_RATE and row.interruption_band:
            assumed = _("1 interruption per 24 instance-hours (the band {band} has no upper bound)").format(
                band=row.interruption_band
            )
        elif fact is Fact.SPOT_RATE:
            assumed = _("1 interruption per 24 instance-hours")
        elif fact is Fact.RECLAIM_DISK:
            assumed = _(
                "a reclaim loses the dataset's disks: each restart copies the {gb} GB again (+{time}, "
                "its transfer in paid again); best case, the disks survive"
            ).format(
                # a node's part where each reads only its shard (batch inference), else all of it
                gb=format_number(ctx.job.dataset_gb * float(ctx.job.node_share(np.array([float(nodes)]))[0])),
                time=format_hours(float(ctx.job.recopy_hours(np.array([nodes]))[0])),
            )
        elif row.floor_as_of and row.price_usd is not None and row.price_usd_best is not None:
            said = (
                _(
                    "{own}/h of {own_day}, older than {days} days, below {what}: costed at it, "
                    "{floor}/h of {day}"
                )
                if row.own_stale_as_of
                else _("undated {own}/h, below {what}: costed at it, {floor}/h of {day}")
            )
            assumed = said.format(
                own=money(row.price_usd_best / row.unit_hours),
                own_day=row.own_stale_as_of,
                days=ctx.stale_after_days,
                what=floor_what(FloorBasis(row.floor_basis), row.floor_region),
                floor=money(row.price_usd / row.unit_hours),
                day=row.floor_as_of,
            )
        else:
            assumed = price_date_words(row.as_of, row.staleness, ctx.stale_after_days, row.gpu)
        code = FACT_CODES[fact]
        costed = code not in RANKED_ONLY_CODES or (fact is Fact.PRICE_DATE and bool(row.floor_as_of))
        out.append(UnknownFact(fact=code, assumed=assumed, costed=costed))
    return tuple(out)


def _price_source(row: PlanOffer) -> str:
    """Where the price an option is costed at was read: the offer's own source, or — where its own
    figure is undated or stale and below a dated one it is held to — the dated price's, with its own."""
    if not row.floor_as_of or row.price_usd_best is None:
        return row.source
    said = (
        _(
            "{what}, {day} ({source}); the offer's own {own}/h is of {own_day}, older than the limit "
            "({own_source})"
        )
        if row.own_stale_as_of
        else _("{what}, {day} ({source}); the offer's own {own}/h is undated ({own_source})")
    )
    return said.format(
        what=floor_what(FloorBasis(row.floor_basis), row.floor_region),
        day=row.floor_as_of,
        source=row.floor_source or _("its source not kept in this catalog"),
        own=money(row.price_usd_best / row.unit_hours),
        own_day=row.own_stale_as_of,
        own_source=row.source,
    )


def price_date_words(as_of: str, staleness: str, limit_days: int, gpu: str = "") -> str:
    """Why a price is not known to hold today, naming its date: older than the limit, possibly
    older (an interval or a month that straddles it), or undated. ``gpu``: the price's GPU, whose
    launch bounds an interval that reaches further back (:func:`gpuplan.catalog.dates.bound_by_launch`)."""
    if not as_of:
        return _("undated, treated as stale")
    if "/" in as_of:
        start, end = as_of.split("/", 1)
        launched = launch_bound(as_of, launch_month(gpu)) if gpu else None
        if launched is not None:
            when = _(
                "observed at some time between {start} and {end}, and not before the {gpu} launched "
                "({launched})"
            ).format(start=start, end=end, gpu=gpu, launched=launched)
        else:
            when = _("observed at some time between {start} and {end}").format(start=start, end=end)
    else:
        when = _("dated {date}").format(date=as_of)
    if staleness == "stale":
        return _("{when}, older than the {days}-day limit: the provider may have repriced it since").format(
            when=when, days=limit_days
        )
    return _("{when}, possibly older than the {days}-day limit: treated as stale").format(
        when=when, days=limit_days
    )


def _flags(ctx: PlanContext, j: int, row: PlanOffer) -> list[str]:
    flags: list[str] = []
    if declared_provider(row.provider):
        flags.append(DECLARED_PROVIDER_FLAG)
    if row.gpu in ctx.cands.implausible:
        flags.append(IMPLAUSIBLE_FLAG)
    if row.confidence == "low":
        flags.append(N_("low-confidence price"))
    if row.staleness == "stale":
        flags.append(N_("stale price"))
    elif row.stale:  # a source without a date of its own, or none at all: never taken as fresh
        flags.append(N_("price of unknown age"))
    if row.billing_granularity_s is None and row.pricing in ("on_demand", "spot"):
        if documented_billing_increment_s(row.provider) == 1:
            # Alibaba: per-second increments, with a minimum per hourly cycle by vCPUs not held.
            flags.append(N_("per-second billing with a minimum per hour not held: hourly assumed"))
        else:
            flags.append(N_("billing granularity unknown: hourly assumed"))
    if bool(ctx.costs.is_spot[j]) and ctx.costs.rates[int(ctx.costs.spot_rate_id[j])].assumed:
        flags.append(N_("spot interruption rate assumed"))
    if bool(ctx.cands.memory_over[int(ctx.costs.idx[j])]):
        flags.append(OVER_MEMORY_FLAG)
    elif bool(ctx.cands.memory_uncertain[int(ctx.costs.idx[j])]):
        flags.append(MAY_NOT_FIT_FLAG)
    if bool(past_deadline(ctx, np.array([j]))[0]):
        flags.append(MAY_MISS_DEADLINE_FLAG)
    if bool(results_unpriced(ctx, np.array([j]))[0]):
        flags.append(RESULTS_UNPRICED_FLAG)
    if bool(rtt_unknown(ctx, np.array([j]))[0]):
        flags.append(RTT_UNKNOWN_FLAG)
    if bool(host_ram_unsure(ctx, np.array([j]))[0]):
        flags.append(HOST_RAM_UNKNOWN_FLAG)
    if ctx.constraints.compliance and claimed_only(
        ctx.constraints.compliance, row.compliance, row.compliance_claimed
    ):
        # allow_low_confidence let a claim meet the required label: the option must say so
        flags.append(COMPLIANCE_CLAIMED_FLAG)
    return flags


def past_deadline(ctx: PlanContext, positions: np.ndarray) -> np.ndarray:
    """Where the time range of each option at ``positions`` (its 90th percentile, spot
    interruptions included) ends past the deadline; all False without one. The flag *may miss the
    deadline* and the planner's ranking read this one rule."""
    deadline = ctx.constraints.deadline_h
    if deadline is None:
        return np.zeros(positions.size, dtype=bool)
    late: np.ndarray = ctx.costs.time_h_high[positions] > deadline
    return late


def results_unpriced(ctx: PlanContext, positions: np.ndarray) -> np.ndarray:
    """Where an option at ``positions`` would send results whose size is not stated
    (``JobFacts.results_unpriced``) over a priced link: out of a region other than the data's. Their
    cost is unknown, never 0, so these options rank after those in the data's region (which send
    nothing over one). All False when the size is known, or when the data has no location (every
    option then sends them over the internet alike, and the plan's notes say so), and when no
    option is in the data's region (every one would send them over a priced link alike)."""
    job = ctx.job
    c = ctx.costs
    if not job.results_unpriced or job.data_location is None or job.data_location not in c.regions:
        return np.zeros(positions.size, dtype=bool)
    away = np.array([region != job.data_location for region in c.regions], dtype=bool)
    out: np.ndarray = away[c.region_id[positions]]
    return out


#: Why a batch generation job's cost per million tokens is not known: the results it sends back over
#: a priced link are not priced, so its all-in cost is not known either (only a floor of it).
_TOKENS_RESULTS_UNPRICED = N_(
    "the results sent back are not priced (data.results_gb not given), so the all-in cost is not known; "
    "give data.results_gb"
)


def _run_cost_unknown(ctx: PlanContext, j: int) -> str | None:
    """Why a batch job's all-in cost on option ``j`` is not known (its results sent back over a
    priced link, their size not stated), or None where it is."""
    job = ctx.job
    region = ctx.costs.regions[int(ctx.costs.region_id[j])]
    if job.results_unpriced and (job.data_location is None or region != job.data_location):
        return _(_TOKENS_RESULTS_UNPRICED)
    return None


def _per_thousand_samples(ctx: PlanContext, j: int, total_usd: float) -> tuple[float | None, str | None]:
    """A batch inference job's all-in cost on option ``j`` over the samples the run processes, per
    1,000 (:attr:`JobFacts.run_samples`), and why it is not known; (None, None) for any other job."""
    samples = ctx.job.run_samples
    if samples is None or samples <= 0:
        return None, None
    if (why := _run_cost_unknown(ctx, j)) is not None:
        return None, why
    return total_usd / samples * 1000.0, None


def _per_million_tokens(
    ctx: PlanContext, j: int, total_usd: float
) -> tuple[float | None, float | None, str | None]:
    """The all-in cost of option ``j`` per million output tokens and per million prompt and output
    tokens, and why they are not known: one definition for a service and a batch generation job, the
    option's all-in cost over the tokens of the work it prices. A service's: the tokens its request
    rate asks for over the calendar time billed; a batch generation job's (``inputs.output_tokens``):
    the tokens the run reads and generates (:attr:`JobFacts.run_tokens`). (None, None, None): neither,
    or no token; (None, None, why) where the all-in cost is not known (results sent back whose size
    is not stated, over a link that is priced, or from the user's own site): never the floor."""
    job = ctx.job
    if job.served_tokens_per_hour is not None and job.calendar_months is not None:
        hours = job.calendar_months * HOURS_PER_MONTH
        prompt, output = (t * hours / 1e6 for t in job.served_tokens_per_hour)
    elif job.run_tokens is not None:
        if (why := _run_cost_unknown(ctx, j)) is not None:
            return None, None, why
        prompt, output = (t / 1e6 for t in job.run_tokens)
    else:
        return None, None, None
    return (
        total_usd / output if output > 0 else None,
        total_usd / (prompt + output) if prompt + output > 0 else None,
        None,
    )


def _per_thousand(per_hour: float | None, ctx: PlanContext, total_usd: float) -> float | None:
    """A service of traced calls' all-in cost over what its request rate asks for in the calendar
    time billed, per 1,000: images (``served_images_per_hour``, one image a request) or requests
    (``served_passes_per_hour``, one forward pass each); None where ``per_hour`` is (another job)."""
    if per_hour is None or ctx.job.calendar_months is None:
        return None
    served = per_hour * ctx.job.calendar_months * HOURS_PER_MONTH
    return total_usd / served * 1000.0 if served > 0 else None


#: How long a service's reclaimed replicas are down, in words: the assumed restart, then the weights.
_DOWN_WORDS = N_(
    "assumed: {restart} min to get a replacement instance, boot it and pull the image, plus "
    "{replicas} × {gb} GB of weights read at {gbps} GB/s"
)


def _bands(rate: SpotRate) -> tuple[SpotBand, ...]:
    """The catalog's disagreeing bands behind ``rate``, the costed first (none where they agree)."""
    if rate.band is None or not rate.other_bands:
        return ()
    return (
        SpotBand(band=rate.band, source=rate.band_source or "", costed=True),
        *(SpotBand(band=b, source=src, costed=False) for b, src in rate.other_bands),
    )


def _on_demand_usd_per_hour(ctx: PlanContext, row: PlanOffer) -> float | None:
    """The catalog's on-demand price of ``row``'s instance type in its region (any of its zones:
    the highest), USD per hour: what an on-demand fallback instance costs; None where it holds none."""
    o = ctx.offers
    mask = (
        (o.pricing == "on_demand")
        & (o.provider == row.provider)
        & (o.region == row.region)
        & (o.instance_type == row.instance_type)
    )
    per_hour = o.price_usd[mask] / o.unit_hours[mask]
    per_hour = per_hour[np.isfinite(per_hour) & (per_hour > 0)]
    return float(per_hour.max()) if per_hour.size else None


def _service_spot_risk(ctx: PlanContext, j: int, nodes: int) -> SpotRisk:
    """A service's spot option: reclaims a month (the spare's too), the replicas they take down and
    for how long, and whether the load target holds with the spare the price includes."""
    c, job = ctx.costs, ctx.job
    s = c.service
    assert s is not None
    rate = c.rates[int(c.spot_rate_id[j])]
    per_hour = float(c.spot_rate_per_instance_hour[j])
    months = job.calendar_months or 1.0
    per_reclaim = int(s.replicas_per_unit[j])
    gpus = int(ctx.cands.gpus_per_node[int(c.idx[j])]) * nodes
    down = _(_DOWN_WORDS).format(
        restart=f"{job.restart_h * 60:.0f}",
        replicas=per_reclaim,
        gb=f"{job.weights_gb:.1f}",
        gbps=f"{job.checkpoint_write_gbps:g}",
    )
    row = ctx.offers.row(int(ctx.cands.offer[int(c.idx[j])]))
    # The spare is a spot instance too: the option's reclaims, and the time between them, count it;
    # the fleet's over the instance-hours it is billed for (an autoscaled day's, not its peak's).
    reclaims = float(s.interruptions[j] + s.spare_interruptions[j])
    below, below_with_spare = _below_target(ctx, j)
    return SpotRisk(
        interruptions_per_instance_hour=per_hour,
        mtbi_h=months * HOURS_PER_MONTH / reclaims if reclaims > 0 else math.inf,
        rate_source=rate.source,
        rate_assumed=rate.assumed,
        checkpoint_write_min=None,
        checkpoint_interval_min=None,
        checkpoint_overhead_h=None,
        expected_lost_h=None,
        expected_interruptions=reclaims,
        service=ServiceSpotRisk(
            interruptions_per_month=float(s.interruptions[j]) / months,
            down_min_per_reclaim=float(s.down_h[j]) * 60.0,
            down_assumed=down,
            replicas=gpus // max(1, int(ctx.cands.replica_gpus(job)[int(c.idx[j])])) * job.replicas_per_gpu,
            replicas_per_reclaim=per_reclaim,
            replica_hours_down_per_month=float(s.replica_hours_down[j]) / months,
            below_target_share=below,
            spare_instances=int(s.spare_instances[j]),
            spare_usd=float(c.spot_overhead_usd[j]),
            below_target_share_with_spare=below_with_spare,
            spare_interruptions_per_month=float(s.spare_interruptions[j]) / months,
            on_demand_usd_per_instance_hour=_on_demand_usd_per_hour(ctx, row),
        ),
        interruption_bands=_bands(rate),
    )


def _below_target(ctx: PlanContext, j: int) -> tuple[float, float]:
    """A service's shares of the time below its load target on spot, without and with its spare:
    over the hours its fleet runs at each size where it is priced as its autoscaled day (as its
    reclaims are counted over that day's instance-hours), else at its peak fleet."""
    s = ctx.costs.service
    assert s is not None
    i = int(ctx.costs.idx[j])
    days = ctx.days
    if days is None or (d := int(days.day[i])) < 0 or not days.share[i] < 1.0:
        return float(s.below_target_share[j]), float(s.below_target_share_with_spare[j])
    return below_target_over_day(float(s.unit_down_share[j]), int(s.spare_instances[j]), days.days[d].hours)


#: Why a service option's p95 latency is unknown: its replicas cannot carry the load.
_OVERLOADED = N_("overloaded: the load is {share} of what its replicas carry")
#: Why it is unknown: no serving estimate for this GPU and count.
_NOT_ESTIMATED = N_("not estimated for this GPU and count")


def _service_figures(ctx: PlanContext, i: int) -> ServiceFigures | None:
    """Candidate ``i``'s serving figures, as the estimator found them (None: not a service)."""
    job, cands = ctx.job, ctx.cands
    if job.requests_per_s is None:
        return None
    gpus = int(cands.gpus_per_node[i]) * int(cands.nodes[i])
    # the planner's degree for this candidate where the workload gives none, else the workload's
    chosen = int(cands.tensor_parallel[i])
    tp = chosen or job.tensor_parallel
    replica_gpus = tp * job.pipeline_parallel
    each = float(cands.replica_requests_per_s[i])
    p95 = float(cands.p95_latency_s[i])
    ttft = float(cands.ttft_p95_s[i])
    tpot = float(cands.tpot_s[i])
    figures = ServiceFigures(
        requests_per_s=job.requests_per_s,
        mean_requests_per_s=job.mean_requests_per_s,
        # as the estimator split the load (and exclude_model_split counted them)
        replicas=gpus // replica_gpus * job.replicas_per_gpu,
        replica_gpus=replica_gpus,
        tensor_parallel=tp,
        tensor_parallel_chosen=chosen > 0,
        replicas_per_gpu=job.replicas_per_gpu,
        replica_requests_per_s=each if math.isfinite(each) else None,
        p95_latency_s=p95 if math.isfinite(p95) else None,
        p95_target_s=None if job.p95_latency_ms is None else job.p95_latency_ms / 1000.0,
        ttft_p95_s=ttft if math.isfinite(ttft) else None,
        ttft_target_s=None if job.ttft_p95_ms is None else job.ttft_p95_ms / 1000.0,
        tpot_s=tpot if math.isfinite(tpot) else None,
        tpot_target_s=None if job.tpot_p95_ms is None else job.tpot_p95_ms / 1000.0,
        users_in=job.users_in,
    )
    if job.users_in:
        trip = offer_rtt(ctx.offers, int(cands.offer[i]), job.users_in)
        figures = replace(
            figures,
            users_rtt_s=None if trip.rtt_ms is None else trip.rtt_ms / 1000.0,
            users_rtt_basis=rtt_words(trip),
        )
    if figures.p95_latency_s is not None:
        return figures
    rho = figures.utilisation
    why = (
        _(_OVERLOADED).format(share=format_percent(rho))
        if rho is not None and rho >= 1.0
        else _(_NOT_ESTIMATED)
    )
    return replace(figures, p95_unknown=why)


def _known(value: float) -> float | None:
    """``value``, or None where it is NaN (not known)."""
    return value if math.isfinite(value) else None


def _timed_network(ctx: PlanContext, row: PlanOffer, nodes: int) -> tuple[float | None, str, str]:
    """The inter-node network ``row``'s time was estimated at (rate, kind) and where it comes from
    (``catalog``, ``given``, ``slowest-assumed``), as ``plan.candidates`` puts it to the estimator
    and ``plan.network`` words it; (None, "", "") for one node or a service (its replicas do not
    talk to each other)."""
    if nodes < 2 or ctx.job.is_service:
        return None, "", ""
    if row.network_given and row.network_gbps is not None:
        return row.network_gbps, row.network_kind, "given"
    if row.network_gbps is None or math.isnan(row.network_gbps):
        # plan.candidates: the slowest any offer states, else the slowest GPU instance network
        bounds = ctx.bounds
        slowest = bounds.network_gbps if bounds is not None and bounds.network_gbps is not None else None
        return SLOW_NETWORK_GBIT_S if slowest is None else slowest, "TCP", "slowest-assumed"
    if catalog_network_kind(row.network_kind) is not None:
        return row.network_gbps, row.network_kind, "catalog"
    # the rate stated, its kind not: the estimator reads it from the GPU link's words, else TCP
    kind = "RDMA" if network_kind_of(row.interconnect) == "rdma" else "TCP"
    return row.network_gbps, kind, "catalog"


def _checkpoint_writes(ctx: PlanContext, j: int) -> CheckpointWrites | None:
    """The checkpoints position ``j`` writes off spot and what they take (None: it writes none)."""
    c, job = ctx.costs, ctx.job
    tau = float(c.checkpoint_interval_h[j])
    overhead = float(c.checkpoint_overhead_h[j])
    if bool(c.is_spot[j]) or not math.isfinite(tau) or overhead <= 0:
        return None
    return CheckpointWrites(
        interval_min=tau * 60.0,
        interval_stated=job.checkpoint_every_stated,
        write_min=job.checkpoint_write_h * 60.0,
        writes=overhead / job.checkpoint_write_h,
        overhead_h=overhead,
        usd=float(c.checkpoint_usd[j]),
    )


def make_option(ctx: PlanContext, j: int) -> Option:
    """Materialise position ``j`` of the cost arrays as an :class:`Option`."""
    c, cands, offers, job = ctx.costs, ctx.cands, ctx.offers, ctx.job
    i = int(c.idx[j])
    row = offers.row(int(cands.offer[i]))
    nodes = int(cands.nodes[i])
    charges = c.charges[int(c.region_id[j])]
    flags = _flags(ctx, j, row)
    spot: SpotRisk | None = None
    miss: float | None = None
    deadline = ctx.constraints.deadline_h
    write_h, restart_h = _restart_h(job, nodes)
    setup_h = float(c.setup_h[j])
    if bool(c.is_spot[j]) and c.service is not None:
        spot = _service_spot_risk(ctx, j, nodes)
    elif bool(c.is_spot[j]):
        rate = c.rates[int(c.spot_rate_id[j])]
        lam = float(c.spot_rate_per_instance_hour[j]) * nodes
        tau = float(c.checkpoint_interval_h[j])
        delta = (tau / 2.0 if math.isfinite(tau) else 0.0) + restart_h
        # batch inference resumes by its output chunks (an interval of no checkpoint of its own)
        chunks = job.resumes_by_chunks and math.isfinite(tau)
        # the workload's interval where it is shorter than Young/Daly's (spot_times takes the shorter)
        optimum = math.sqrt(2.0 * write_h / lam) if write_h > 0 and lam > 0 else math.inf
        stated = job.checkpoint_every_stated and math.isfinite(tau) and tau < optimum * (1 - 1e-9)
        stated = stated and math.isclose(tau, job.checkpoint_every_h, rel_tol=1e-9)
        spot = SpotRisk(
            interruptions_per_instance_hour=float(c.spot_rate_per_instance_hour[j]),
            mtbi_h=1.0 / lam,
            rate_source=rate.source,
            rate_assumed=rate.assumed,
            checkpoint_write_min=write_h * 60.0,
            checkpoint_interval_min=tau * 60.0 if math.isfinite(tau) and not chunks else None,
            resume_chunk_min=tau * 60.0 if chunks else None,
            checkpoint_interval_stated=stated,
            checkpoint_optimum_min=optimum * 60.0 if stated else None,
            checkpoint_overhead_h=float(c.checkpoint_overhead_h[j]),
            expected_lost_h=float(c.lost_h[j]),
            expected_interruptions=float(c.interruptions[j]),
            restart_min=restart_h * 60.0,
            restart_assumed=_restart_words(job, nodes),
            interruption_bands=_bands(rate),
        )
        if deadline is not None:
            started = float(cands.work_h[i]) + setup_h
            model = SpotMissModel(
                rate_per_hour=lam,
                stretch=(started + float(c.checkpoint_overhead_h[j])) / started,
                lost_per_interruption_h=delta,
                from_scratch=write_h <= 0 and not chunks,
            )
            miss = deadline_miss(_work_distribution(ctx, i), deadline, setup_h=setup_h, spot=model)
    checkpoints = _checkpoint_writes(ctx, j) if spot is None else None
    if miss is None and deadline is not None:
        # off spot, the checkpoint writes stretch the work as spot's do (1 + C/τ)
        stretch = 1.0 + checkpoints.overhead_h / float(cands.work_h[i]) if checkpoints else 1.0
        miss = deadline_miss(_work_distribution(ctx, i), deadline, setup_h=setup_h, stretch=stretch)
    breakdown = CostBreakdown(
        compute_usd=float(c.compute_usd[j]),
        storage_usd=float(c.storage_usd[j]),
        egress_usd=float(c.egress_usd[j]),
        licence_usd=float(c.licence_usd[j]),
        spot_overhead_usd=float(c.spot_overhead_usd[j]),
        items=_items(ctx, j, nodes),
        licence_unknown=charges.licence_unknown,
    )
    unknowns = _unknowns(ctx, j, row, nodes)
    best_total = best_time = None
    # A best case where a fact's bound is in the figures (a listed price's date or an unnamed region
    # changes no number; an undated price held to a dated floor above it does).
    if ctx.best is not None and any(u.costed for u in unknowns):
        b = ctx.best
        best_total = float(
            b.compute_usd[j] + b.storage_usd[j] + b.egress_usd[j] + b.licence_usd[j] + b.spot_overhead_usd[j]
        )
        best_time = float(b.time_h[j])
    price = float(row.price_usd or math.nan)
    # A service's reservation is costed at its month's share (plan.billing): say what the term binds.
    commitment_usd = (
        price / row.unit_hours * float(row.term_hours) * nodes
        if job.is_service and row.term_hours is not None and math.isfinite(price)
        else None
    )
    per_m_out, per_m_all, per_m_unknown = _per_million_tokens(ctx, j, breakdown.total_usd)
    per_k_samples, per_k_samples_unknown = _per_thousand_samples(ctx, j, breakdown.total_usd)
    day = ctx.days.days[d] if ctx.days is not None and (d := int(ctx.days.day[i])) >= 0 else None
    peak = c.peak_fleet_usd[j] if c.peak_fleet_usd is not None else math.nan
    timed_gbps, timed_kind, network_source = _timed_network(ctx, row, nodes)
    return Option(
        provider=row.provider,
        region=row.region,
        zone=row.zone,
        country=row.country,
        crosses_border=crosses_border(job, row.country),
        data_leaves_country=leaves_country(job, row.country),
        data_km=data_km(job, row.provider, row.region, row.country),
        host_kind=host_kind(row.provider, row.instance_type, row.region),
        sanctions=sanctions_of(row.country),
        instance_type=row.instance_type,
        gpu=row.gpu,
        gpus_per_node=int(cands.gpus_per_node[i]),
        nodes=nodes,
        pricing=row.pricing,
        interconnect=row.interconnect,
        # the catalog's statement (None where it gives none): a network the user gave is said in
        # the option's words and the plan's notes, not passed off as the catalog's
        network_gbps=None if row.network_given else row.network_gbps,
        job_time_h=float(c.time_h[j]),
        job_time_h_low=float(c.time_h_low[j]),
        job_time_h_high=float(c.time_h_high[j]),
        compute_time_h=float(cands.work_h[i]),
        billed_hours=float(c.billed_h[j]),
        total_cost_usd=breakdown.total_usd,
        total_cost_usd_low=float(c.total_usd_low[j]),
        total_cost_usd_high=float(c.total_usd_high[j]),
        cost_breakdown=breakdown,
        price_usd_per_hour=price / row.unit_hours,
        price_usd=price,
        unit_hours=row.unit_hours,
        price_source=_price_source(row),
        confidence=row.confidence,
        as_of=row.as_of,
        stale=row.stale,
        peak_memory_gib=float(cands.peak_memory_gib[i]),
        step_time_s=step if math.isfinite(step := float(cands.step_time_s[i])) else None,
        input_bound=bool(cands.input_bound[i]),
        memory_uncertain=bool(cands.memory_uncertain[i]),
        memory_over=bool(cands.memory_over[i]),
        memory_needed_gib=_known(float(cands.memory_needed_gib[i])),
        memory_needed_gib_high=_known(float(cands.memory_needed_gib_high[i])),
        usable_memory_gib=_known(float(cands.usable_memory_gib[i])),
        deadline_miss_probability=miss,
        spot=spot,
        checkpoints=checkpoints,
        compliance=row.compliance,
        compliance_claimed=row.compliance_claimed,
        kubernetes=kubernetes_service(row.provider),
        flags=tuple(flags),
        implausible=ctx.cands.implausible.get(row.gpu, ()),
        assumptions=charges.assumptions,
        unknown_facts=unknowns,
        best_case_total_cost_usd=best_total,
        best_case_job_time_h=best_time,
        usd_per_million_output_tokens=per_m_out,
        usd_per_million_tokens=per_m_all,
        usd_per_million_tokens_unknown=per_m_unknown,
        usd_per_thousand_images=_per_thousand(ctx.job.served_images_per_hour, ctx, breakdown.total_usd),
        usd_per_thousand_requests=_per_thousand(ctx.job.served_passes_per_hour, ctx, breakdown.total_usd),
        usd_per_thousand_samples=per_k_samples,
        usd_per_thousand_samples_unknown=per_k_samples_unknown,
        price_age_days=None if row.price_age_days is None else int(row.price_age_days),
        staleness=row.staleness,
        service=_service_figures(ctx, i),
        network_kind="" if row.network_given else row.network_kind,
        network_timed_gbps=timed_gbps,
        network_timed_kind=timed_kind,
        network_source=network_source,
        commitment_usd=commitment_usd,
        commitment_months=None
        if row.term_hours is None or commitment_usd is None
        else round(row.term_hours / HOURS_PER_MONTH),
        upfront=row.upfront,
        service_day=day,
        service_day_words=""
        if day is None
        else option_day_words(
            day,
            row.gpu,
            scales_down=job.scales_down,
            pricing=row.pricing,
            peak_usd=float(peak) if math.isfinite(peak) else None,
        ),
        peak_fleet_cost_usd=float(peak) if math.isfinite(peak) else None,
        # all upfront: the whole term is paid on day one, for a job as for a service
        upfront_usd=price / row.unit_hours * float(row.term_hours) * nodes
        if row.upfront == "all" and row.term_hours is not None and math.isfinite(price)
        else None,
    )
