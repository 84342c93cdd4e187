"""The planner: candidates → estimates → all-in costs → constraints → ranked plan.

Everything runs on the planner's own input types (``plan/input_types.py``); ``plan/build_inputs.py`` builds
them from the catalog store, the workload and the estimator.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gpuplan.catalog.providers import PROVIDERS, kubernetes_service
from gpuplan.errors import InfeasibleError, InputError, NotFoundError, Phrase
from gpuplan.i18n import N_, _
from gpuplan.plan.candidates import (
    Candidates,
    EstimateFn,
    ModelSplitMisfits,
    enumerate_candidates,
    estimate_candidates,
    exclude_model_split,
    model_split_misfits,
)
from gpuplan.plan.constraints import Constraints, Objective, Reason, labels_satisfy
from gpuplan.plan.context import PlanContext
from gpuplan.plan.costing import CostArrays, cost_candidates
from gpuplan.plan.explain import infeasible_message
from gpuplan.plan.input_types import JobFacts, OfferTable
from gpuplan.plan.rank import explain_winner, objective_order, pareto_mask, persona_picks, primary_key
from gpuplan.plan.region_costs import CostFacts
from gpuplan.plan.region_countries import managed_kubernetes
from gpuplan.plan.result import CostBreakdown, Option, Plan, SpotRisk
from gpuplan.plan.risk import SpotMissModel, TimeDistribution, deadline_miss, work_distribution
from gpuplan.plan.spot import SpotRate
from gpuplan.units import format_hours

__all__ = ["BaselineSpec", "PlanInfeasibleError", "plan_offers"]


class PlanInfeasibleError(InfeasibleError):
    """No option meets the constraints; ``excluded`` counts candidates by reason."""

    def __init__(self, message: str, excluded: dict[str, int] | None = None) -> None:
        super().__init__(message)
        self.excluded = dict(excluded or {})

    @classmethod
    def because(cls, why: Phrase, excluded: dict[str, int]) -> PlanInfeasibleError:
        """The error whose line is ``why`` (worded, so that the CLI can translate it)."""
        error = cls.worded(why.template, **why.fields)
        error.excluded = dict(excluded)
        return error


@dataclass(frozen=True, kw_only=True)
class BaselineSpec:
    """The naive choice savings are measured against: by default on-demand A100 on AWS us-east-1
    (p4d.24xlarge), the baseline of the source articles."""

    provider: str = "aws"
    region: str = "us-east-1"
    instance_type: str | None = "p4d.24xlarge"
    gpu_prefix: str | None = "A100"
    """Used when ``instance_type`` is None or not in the catalog: any GPU whose id starts so."""
    pricing: str = "on_demand"

    @classmethod
    def parse(cls, text: str) -> BaselineSpec:
        """``provider/region/instance_type[/pricing]``, e.g. ``aws/us-east-1/p4d.24xlarge/on_demand``."""
        parts = [p.strip() for p in text.split("/")]
        if len(parts) not in (3, 4) or not all(parts):
            raise InputError.worded(
                N_(
                    "cannot read baseline {text!r}; write provider/region/instance_type[/pricing], "
                    "e.g. aws/us-east-1/p4d.24xlarge/on_demand"
                ),
                text=text,
            )
        pricing = parts[3] if len(parts) == 4 else "on_demand"
        return cls(
            provider=parts[0], region=parts[1], instance_type=parts[2], gpu_prefix=None, pricing=pricing
        )


def _restart_h(job: JobFacts) -> tuple[float, float]:
    write_h = job.checkpoint_gb / job.checkpoint_write_gbps / 3600.0
    return write_h, job.restart_h + write_h


def _work_distribution(ctx: PlanContext, i: int) -> TimeDistribution:
    """The failure-free job time of candidate ``i`` as a distribution (see ``plan/risk.py``)."""
    cands = ctx.cands
    return work_distribution(float(cands.work_h[i]), float(cands.work_h_low[i]), float(cands.work_h_high[i]))


def _option(ctx: PlanContext, j: int) -> Option:
    """Materialise position ``j`` of the cost arrays as an :class:`Option`."""
    c, cands, offers, job = ctx.costs, ctx.cands, ctx.offers, ctx.job
    i = int(c.idx[j])
    row = offers.row(int(cands.offer[i]))
    nodes = int(cands.nodes[i])
    charges = c.charges[int(c.region_id[j])]
    flags: list[str] = []
    if row.confidence == "low":
        flags.append(N_("low-confidence price"))
    if row.stale:
        flags.append(N_("stale price"))
    if row.billing_granularity_s is None and row.pricing in ("on_demand", "spot"):
        flags.append(N_("billing granularity unknown: hourly assumed"))
    if bool(cands.input_unknown[i]):
        flags.append(N_("input pipeline unknown: the catalog has no vCPU count for this instance"))
    spot: SpotRisk | None = None
    miss: float | None = None
    deadline = ctx.constraints.deadline_h
    write_h, restart_h = _restart_h(job)
    if bool(c.is_spot[j]):
        rate = c.rates[int(c.spot_rate_id[j])]
        if rate.assumed:
            flags.append(N_("spot interruption rate assumed"))
        lam = float(c.spot_rate_per_instance_hour[j]) * nodes
        tau = float(c.checkpoint_interval_h[j])
        delta = (tau / 2.0 if math.isfinite(tau) else 0.0) + restart_h
        spot = SpotRisk(
            interruptions_per_instance_hour=float(c.spot_rate_per_instance_hour[j]),
            mtbi_h=1.0 / lam,
            rate_source=rate.source,
            rate_assumed=rate.assumed,
            checkpoint_write_min=write_h * 60.0,
            checkpoint_interval_min=tau * 60.0 if math.isfinite(tau) else None,
            checkpoint_overhead_h=float(c.checkpoint_overhead_h[j]),
            expected_lost_h=float(c.lost_h[j]),
            expected_interruptions=float(c.interruptions[j]),
        )
    elif deadline is not None:
        miss = deadline_miss(_work_distribution(ctx, i), deadline, setup_h=job.setup_h)
    if spot is not None and deadline is not None:
        started = float(cands.work_h[i]) + job.setup_h
        model = SpotMissModel(
            rate_per_hour=lam,
            stretch=(started + float(c.checkpoint_overhead_h[j])) / started,
            lost_per_interruption_h=delta,
        )
        miss = deadline_miss(_work_distribution(ctx, i), deadline, setup_h=job.setup_h, spot=model)
    breakdown = CostBreakdown(
        compute_usd=float(c.compute_usd[j]),
        storage_usd=float(c.storage_usd[j]),
        egress_usd=float(c.egress_usd[j]),
        licence_usd=float(c.licence_usd[j]),
        spot_overhead_usd=float(c.spot_overhead_usd[j]),
    )
    price = float(row.price_usd or math.nan)
    return Option(
        provider=row.provider,
        region=row.region,
        zone=row.zone,
        country=row.country,
        instance_type=row.instance_type,
        gpu=row.gpu,
        gpus_per_node=int(cands.gpus_per_node[i]),
        nodes=nodes,
        pricing=row.pricing,
        interconnect=row.interconnect,
        network_gbps=row.network_gbps,
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
        price_source=row.source,
        confidence=row.confidence,
        as_of=row.as_of,
        stale=row.stale,
        peak_memory_gib=float(cands.peak_memory_gib[i]),
        step_time_s=step if math.isfinite(step := float(cands.step_time_s[i])) else None,
        input_bound=bool(cands.input_bound[i]),
        deadline_miss_probability=miss,
        spot=spot,
        compliance=row.compliance,
        kubernetes=kubernetes_service(row.provider),
        flags=tuple(flags),
        assumptions=charges.assumptions,
    )


def _dedup_key(ctx: PlanContext, j: int, *, per_node_count: bool) -> tuple[str, str, str, int, str]:
    o = int(ctx.cands.offer[int(ctx.costs.idx[j])])
    t = ctx.offers
    return (
        str(t.provider[o]),
        str(t.region[o]),
        str(t.instance_type[o]),
        int(ctx.cands.nodes[ctx.costs.idx[j]]) if per_node_count else 0,
        str(t.pricing[o]),
    )


def _take(ctx: PlanContext, order: np.ndarray, n: int, *, per_node_count: bool = True) -> list[Option]:
    """The first ``n`` distinct options in ``order``: one per (provider, region, instance, pricing),
    and per node count too when ``per_node_count`` (the Pareto front shows every count's trade-off)."""
    seen: set[tuple[str, str, str, int, str]] = set()
    out: list[Option] = []
    for j in order:
        key = _dedup_key(ctx, int(j), per_node_count=per_node_count)
        if key in seen:
            continue  # the same instance in another zone: the first (best) one stands for it
        seen.add(key)
        out.append(_option(ctx, int(j)))
        if len(out) >= n:
            break
    return out


def _best_of(
    ctx: PlanContext, feasible: np.ndarray, mask: np.ndarray | None, objective: Objective | None = None
) -> Option | None:
    """Best feasible candidate within ``mask`` (None = all) by ``objective`` (default: the plan's)."""
    sub = feasible if mask is None else feasible[mask]
    if sub.size == 0:
        return None
    c = ctx.costs
    obj = objective or ctx.constraints.objective
    best = sub[_top_positions(c.total_usd[sub], c.time_h[sub], obj, 1)[0]]
    return _option(ctx, int(best))


def _top_positions(cost: np.ndarray, time: np.ndarray, objective: Objective, k: int) -> np.ndarray:
    """Positions of (at least) the best ``k`` by ``objective``, in order; only they are sorted.

    Every candidate whose primary key ties the k-th best is kept, so the tie-break stays exact.
    """
    n = cost.shape[0]
    if k >= n:
        return objective_order(cost, time, objective)
    primary = primary_key(cost, time, objective)
    threshold = np.partition(primary, k - 1)[k - 1]
    sub = np.flatnonzero(primary <= threshold)
    return sub[objective_order(cost[sub], time[sub], objective)]


def _ranked(ctx: PlanContext, feasible: np.ndarray, top: int) -> list[Option]:
    """The top options, one per (provider, region, instance, pricing) at its best node count, so that
    the list compares offers rather than repeating one offer at 8, 7, 6 … nodes."""
    c = ctx.costs
    cost, time = c.total_usd[feasible], c.time_h[feasible]
    # Zones repeat an instance a few times: 64 candidates per wanted option is plenty; fall back
    # to the full order in the rare case it is not.
    for k in (64 * top, feasible.size):
        order = feasible[_top_positions(cost, time, ctx.constraints.objective, min(k, feasible.size))]
        ranked = _take(ctx, order, top, per_node_count=False)
        if len(ranked) >= top or k >= feasible.size:
            return ranked
    return ranked


def _run(
    offers: OfferTable,
    facts: CostFacts,
    job: JobFacts,
    estimate: EstimateFn,
    constraints: Constraints,
    unknown_costs: str,
) -> PlanContext:
    cands = enumerate_candidates(offers, constraints)
    exclude_model_split(cands, job)
    estimate_candidates(cands, offers, estimate)
    costs = cost_candidates(cands, offers, facts, job)
    cands.exclude(_scatter(cands, costs, ~costs.stable), Reason.SPOT_UNSTABLE)
    if unknown_costs == "exclude":
        assumed = np.array([ch.unknown for ch in costs.charges], dtype=bool)
        if assumed.size:
            cands.exclude(_scatter(cands, costs, assumed[costs.region_id]), Reason.UNKNOWN_COST)
    return PlanContext(offers=offers, cands=cands, costs=costs, job=job, constraints=constraints)


def _scatter(cands: Candidates, costs: CostArrays, values: np.ndarray) -> np.ndarray:
    full = np.zeros(len(cands), dtype=bool)
    full[costs.idx] = values
    return full


def _baseline(
    offers: OfferTable,
    facts: CostFacts,
    job: JobFacts,
    estimate: EstimateFn,
    spec: BaselineSpec,
    deadline_h: float | None,
) -> tuple[Option | None, str]:
    """Cost the baseline with the same arithmetic, ignoring the user's constraints except the
    deadline (for its miss probability): the smallest node count on which the job fits."""
    match = (
        (offers.provider == spec.provider) & (offers.region == spec.region) & (offers.pricing == spec.pricing)
    )
    by_type = match & (offers.instance_type == spec.instance_type) if spec.instance_type else match & False
    if not by_type.any() and spec.gpu_prefix:
        by_type = match & np.char.startswith(offers.gpu.astype(str), spec.gpu_prefix)
    rows = np.flatnonzero(by_type)
    what = f"{spec.provider}/{spec.region} {spec.instance_type or spec.gpu_prefix} {_(spec.pricing)}"
    if rows.size == 0:
        return None, _("baseline {what}: not in the catalog").format(what=what)
    sub = OfferTable(**{name: getattr(offers, name)[rows] for name in offers.__dataclass_fields__})
    base_constraints = Constraints(pricing=(spec.pricing,), deadline_h=deadline_h)
    ctx = _run(sub, facts, job, estimate, base_constraints, "assume")
    alive = ctx.cands.alive[ctx.costs.idx]
    if not alive.any():
        return None, _("baseline {what}: no priced offer, or the job does not fit on it").format(what=what)
    pos = np.flatnonzero(alive)
    nodes = ctx.cands.nodes[ctx.costs.idx[pos]]
    best = pos[np.lexsort((ctx.costs.total_usd[pos], nodes))[0]]
    option = _option(ctx, int(best))
    return option, _("baseline: {option} (the smallest configuration the job fits on)").format(
        option=option.label
    )


def _baseline_problem(base: Option, constraints: Constraints) -> str:
    """Why the baseline is not a choice the user has (empty when it meets deadline and budget)."""
    if constraints.deadline_h is not None and base.job_time_h > constraints.deadline_h:
        return _("it misses the deadline ({time} > {deadline})").format(
            time=format_hours(base.job_time_h), deadline=format_hours(constraints.deadline_h)
        )
    if constraints.budget_usd is not None and base.total_cost_usd > constraints.budget_usd:
        return _("it is over the budget")
    return ""


def _check_names(offers: OfferTable, constraints: Constraints) -> None:
    """Providers and regions the user names must exist: a typo is an error with a suggestion,
    not an empty plan."""
    known_providers = set(PROVIDERS) | {str(p) for p in np.unique(offers.provider)}
    for name in constraints.providers or ():
        if name.lower() not in known_providers:
            raise NotFoundError("provider", name, sorted(known_providers))
    known_regions = {str(r).lower(): str(r) for r in np.unique(offers.region)}
    for name in constraints.regions or ():
        if name.lower() not in known_regions:
            raise NotFoundError("region", name, sorted(known_regions.values()), hint=N_("no offer in it"))


def _split_note(job: JobFacts, misfits: ModelSplitMisfits) -> str:
    """Say how many candidates the tensor × pipeline split left out, and why (empty when none)."""
    if misfits.total == 0:
        return ""
    return _(
        "tensor_parallel {tp} × pipeline_parallel {pp}: {total} candidates left out "
        "({not_multiple} whose GPU count is not a multiple of {degree}, {narrow} on instances with "
        "fewer than {tp} GPUs, where the tensor-parallel group would span nodes)"
    ).format(
        tp=job.tensor_parallel,
        pp=job.pipeline_parallel,
        degree=job.replica_gpus,
        total=f"{misfits.total:,}",
        not_multiple=f"{misfits.not_multiple:,}",
        narrow=f"{misfits.node_too_narrow:,}",
    )


def _plan_notes(
    job: JobFacts,
    ranked: list[Option],
    notes: tuple[str, ...],
    constraints: Constraints,
    rates: tuple[SpotRate, ...],
    misfits: ModelSplitMisfits,
) -> tuple[str, ...]:
    """Assumptions that apply to the whole plan, in words."""
    plan_notes = [
        _("scale-out: at most {nodes} instances and {gpus} GPUs per job (--max-nodes, --max-gpus)").format(
            nodes=constraints.node_limit, gpus=constraints.total_gpu_limit
        )
    ]
    if split := _split_note(job, misfits):
        plan_notes.append(split)
    if constraints.deadline_h is not None:
        plan_notes.append(
            _(
                "deadline risk: from the estimate's time distribution (its range is the 10th–90th "
                "percentiles), with spot interruptions on top"
            )
        )
    plan_notes += notes
    if job.data_location is None and job.dataset_gb > 0:
        plan_notes.append(
            _(
                "data.location not given: the dataset is uploaded from your site (inbound traffic is "
                "free on the seven clouds; the other providers' price for it is not in the catalog and "
                "is counted as free) and results go back over internet egress"
            )
        )
    if job.egress_free_tier:
        plan_notes.append(
            _(
                "egress: the account's monthly free allowance is taken as unused (--egress-free-tier): "
                "the job's transfer starts in the first tier"
            )
        )
    elif job.dataset_gb > 0 or job.result_size_gb > 0:
        plan_notes.append(
            _(
                "egress: every GB is priced, without the monthly free allowance (it is shared with the "
                "account's other traffic; --egress-free-tier if it is unused)"
            )
        )
    storage = (
        _("storage: dataset + {n} checkpoints on a block-storage disk per instance for the job's duration")
        if job.storage_kind == "block"
        else _("storage: dataset + {n} checkpoints in one object-storage bucket for the job's duration")
    )
    plan_notes.append(storage.format(n=job.checkpoints_kept))
    if any(o.spot for o in ranked):
        shown = {r.source: r.shown() for r in rates}
        plan_notes.append(
            _(
                "spot: checkpoint write {gbps} GB/s and restart {minutes} min are assumptions; rates: {rates}"
            ).format(
                gbps=f"{job.checkpoint_write_gbps:g}",
                minutes=f"{job.restart_h * 60:.0f}",
                rates="; ".join(sorted({shown.get(o.spot.rate_source, "") for o in ranked if o.spot})),
            )
        )
    return tuple(plan_notes)


def plan_offers(
    offers: OfferTable,
    facts: CostFacts,
    job: JobFacts,
    estimate: EstimateFn,
    constraints: Constraints,
    *,
    top: int = 10,
    baseline: BaselineSpec | None = None,
    unknown_costs: str = "assume",
    notes: tuple[str, ...] = (),
) -> Plan:
    """Rank every way to run the job on ``offers`` under ``constraints``.

    ``unknown_costs``: ``assume`` prices an unknown storage/egress price with a labelled,
    conservative assumption; ``exclude`` leaves such regions out (counted as
    ``unknown_cost_component``). Raises :class:`PlanInfeasibleError` (an ``InfeasibleError``) when
    nothing is feasible, naming the binding constraint.
    """
    if unknown_costs not in ("assume", "exclude"):
        raise InputError.worded(
            N_("unknown_costs must be 'assume' or 'exclude', got {value!r}"), value=unknown_costs
        )
    if top < 1:
        raise InputError.worded(N_("top must be at least 1, got {top}"), top=top)
    _check_names(offers, constraints)
    ctx = _run(offers, facts, job, estimate, constraints, unknown_costs)
    cands, costs = ctx.cands, ctx.costs
    # Deadline and budget last: what remains before them is what the explanation talks about.
    pre = cands.alive[costs.idx]
    if constraints.deadline_h is not None:
        cands.exclude(_scatter(cands, costs, costs.time_h > constraints.deadline_h), Reason.DEADLINE)
    if constraints.budget_usd is not None:
        cands.exclude(_scatter(cands, costs, costs.total_usd > constraints.budget_usd), Reason.BUDGET)
    feasible = np.flatnonzero(cands.alive[costs.idx])
    excluded = cands.excluded_counts()
    if feasible.size == 0:
        raise PlanInfeasibleError.because(infeasible_message(ctx, np.flatnonzero(pre), _option), excluded)

    cost = costs.total_usd[feasible]
    time = costs.time_h[feasible]
    ranked = _ranked(ctx, feasible, top)
    front = feasible[pareto_mask(cost, time)]
    front = front[np.lexsort((costs.time_h[front], costs.total_usd[front]))]
    pareto = _take(ctx, front, len(front))
    cheapest = _best_of(ctx, feasible, None, Objective.COST)
    fastest = _best_of(ctx, feasible, None, Objective.TIME)
    assert cheapest is not None and fastest is not None  # feasible is not empty
    o_feas = cands.offer[costs.idx[feasible]]
    k8s_offer = np.isin(offers.pricing, ("on_demand", "spot")) & np.isin(
        offers.provider, list(managed_kubernetes())
    )
    k8s_mask = k8s_offer[o_feas]
    labelled = np.array(
        [labels_satisfy(constraints.compliance, lab) for lab in offers.compliance], dtype=bool
    )
    comp_mask = labelled[o_feas] if len(offers) else np.zeros(0, dtype=bool)
    base, base_note = _baseline(
        offers, facts, job, estimate, baseline or BaselineSpec(), constraints.deadline_h
    )
    rec = ranked[0]
    savings = None
    if base is not None:
        problem = _baseline_problem(base, constraints)
        if problem:
            # Savings against an option the user could not take would flatter the plan.
            base_note = _("{note}; {problem}: no savings shown").format(note=base_note, problem=problem)
        elif base.total_cost_usd > 0:
            savings = 100.0 * (base.total_cost_usd - rec.total_cost_usd) / base.total_cost_usd
    return Plan(
        objective=constraints.objective,
        constraints=constraints,
        recommended=rec,
        options=tuple(ranked),
        pareto=tuple(pareto),
        baseline=base,
        baseline_note=base_note,
        savings_vs_baseline_pct=savings,
        excluded=excluded,
        personas=persona_picks(
            cheapest,
            fastest,
            _best_of(ctx, feasible, k8s_mask),
            _best_of(ctx, feasible, comp_mask),
            constraints,
            service=job.calendar_months is not None,
        ),
        why=explain_winner(ranked, constraints.objective, service=job.calendar_months is not None),
        candidates=len(cands),
        feasible=int(feasible.size),
        notes=_plan_notes(job, ranked, notes, constraints, ctx.costs.rates, model_split_misfits(cands, job)),
    )
