"""The planner: candidates → estimates → all-in costs → constraints → ranked plan.

Everything runs on the planner's own input types (``plan/input_types.py``); ``plan/build_inputs.py`` builds
them from the catalog store, the workload and the estimator.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from gpuplan.catalog.dates import DEFAULT_STALE_AFTER_DAYS
from gpuplan.catalog.providers import PROVIDERS
from gpuplan.errors import InfeasibleError, InputError, NotFoundError, Phrase
from gpuplan.i18n import N_, _, format_number, money, ngettext
from gpuplan.i18n.countries import grouped_codes
from gpuplan.i18n.error_text import phrase_text
from gpuplan.i18n.phrases import item_list
from gpuplan.i18n.places import place
from gpuplan.plan.border import border_cell, border_note, country_note, residency_note
from gpuplan.plan.candidates import (
    REASONS,
    Candidates,
    EstimateFn,
    enumerate_candidates,
    estimate_candidates,
    exclude_missing_precision,
    exclude_model_split,
    hours_at,
    left_without_precision,
    model_split_misfits,
    named_in,
    refusal_words,
)
from gpuplan.plan.constraints import (
    NO_OFFER_IN_REGION,
    Constraints,
    Objective,
    Reason,
    counted_labels,
    labels_satisfy,
)
from gpuplan.plan.context import PlanContext
from gpuplan.plan.costing import CostArrays, cost_candidates, not_known_current
from gpuplan.plan.explain import infeasible_message, unfit_gpu
from gpuplan.plan.host_memory import (
    HOST_RAM_UNKNOWN_FLAG,
    exclude_short_host_ram,
    host_ram_note,
    host_ram_unsure,
)
from gpuplan.plan.hosts import (
    community_data_caution,
    host_words,
    hosts_left_out_note,
    is_provider_run,
    provider_run_rows,
)
from gpuplan.plan.input_types import HOURS_PER_MONTH, JobFacts, OfferTable
from gpuplan.plan.load_limit import Limit, deadline_limits, load_limits
from gpuplan.plan.named_absent import clouds_absent_note, no_offer_in_countries, no_usable_price
from gpuplan.plan.nearness import near_key
from gpuplan.plan.network import network_words
from gpuplan.plan.notes import batch_note, commitment_note, implausible_notes, plan_notes
from gpuplan.plan.options import (
    MAY_MISS_DEADLINE_FLAG,
    RESULTS_UNPRICED_FLAG,
    make_option,
    past_deadline,
    price_date_words,
    results_unpriced,
)
from gpuplan.plan.rank import (
    FASTEST_TIME_SHARE,
    explain_winner,
    objective_order,
    pareto_mask,
    persona_picks,
    primary_key,
    unknown_count,
)
from gpuplan.plan.region_costs import CostFacts
from gpuplan.plan.region_countries import managed_kubernetes
from gpuplan.plan.result import Option, Plan, WithoutStalePrices
from gpuplan.plan.sanctions import sanctions_note
from gpuplan.plan.service_day import LoadFn, service_days
from gpuplan.plan.unknowns import Fact, fact_names, host_bounds
from gpuplan.plan.users_far import (
    RTT_UNKNOWN_FLAG,
    apply_users_rtt,
    rtt_unknown,
    users_far_note,
    users_not_counted_note,
    users_unknown_note,
)
from gpuplan.units import format_hours

__all__ = ["BaselineSpec", "PlanInfeasibleError", "plan_offers"]


class PlanInfeasibleError(InfeasibleError):
    """No option meets the constraints; ``excluded`` counts candidates by reason."""

    def __init__(self, message: str, excluded: dict[str, int] | None = None) -> None:
        super().__init__(message)
        self.excluded = dict(excluded or {})
        #: The GPU the line sends to ``gpuplan estimate`` for the changes that make the job fit
        #: (``plan.explain.unfit_gpu``); None where memory is not what left no option.
        self.fit_gpu: str | None = None

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
        out.append(make_option(ctx, int(j)))
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
    ties = unknown_count(c.unknown[sub])
    best_cost = ctx.best.total_usd[sub] if ctx.best is not None else None
    near = near_key(ctx, sub)
    best = sub[_top_positions(c.total_usd[sub], c.time_h[sub], obj, 1, ties, best_cost, near)[0]]
    return make_option(ctx, int(best))


def _top_positions(
    cost: np.ndarray,
    time: np.ndarray,
    objective: Objective,
    k: int,
    ties: np.ndarray | None = None,
    best_cost: np.ndarray | None = None,
    near: np.ndarray | None = None,
) -> np.ndarray:
    """Positions of (at least) the best ``k`` by ``objective``, in order; only they are sorted.

    Every candidate whose primary key ties the k-th best is kept, so the tie-break stays exact;
    ``ties``: the unknown-fact counts that break ties after the objective's own keys, then
    ``best_cost``: the costs at every unknown's best case, then ``near``: the round trip to the users
    or the distance from the data (:func:`~gpuplan.plan.rank.objective_order`).
    """
    n = cost.shape[0]
    if k >= n:
        return objective_order(cost, time, objective, ties, best_cost, near)
    primary = primary_key(cost, time, objective)
    if objective is Objective.COST:
        primary = np.round(primary, 2)  # compared to the cent, as objective_order does
    threshold = np.partition(primary, k - 1)[k - 1]
    sub = np.flatnonzero(primary <= threshold)
    return sub[
        objective_order(
            cost[sub],
            time[sub],
            objective,
            None if ties is None else ties[sub],
            None if best_cost is None else best_cost[sub],
            None if near is None else near[sub],
        )
    ]


def _ranked(ctx: PlanContext, feasible: np.ndarray, top: int, *, best_case: bool = False) -> list[Option]:
    """The top options, one per (provider, region, instance, pricing) at its best node count, so that
    the list compares offers rather than repeating one offer at 8, 7, 6 … nodes. ``best_case``: ranked
    by the figures with every unknown fact at its best case (what the ranking would be if each were).

    Options that may not fit in memory rank after every option that fits for certain, and those
    whose memory estimate's point is above the GPU's usable memory (only the low end of its range
    fits) after every option whose point fits: unknown is never the best case. Under a deadline, an
    option whose time range ends past it (more than a one-in-ten chance to miss it) ranks after
    those whose range ends within it, among the ones that fit alike. Among those alike again, an
    option that would send results of a size not stated over a priced link (out of a region other
    than the data's) ranks after those that would not. Each is shown (flagged) where the list has
    room, and named in the notes.
    """
    c = ctx.best if best_case and ctx.best is not None else ctx.costs
    memory = _memory_class(ctx, feasible)
    late = past_deadline(ctx, feasible)
    unpriced = results_unpriced(ctx, feasible)
    # a round trip to the users not known is never taken as within the targets: after every known one
    far = rtt_unknown(ctx, feasible)
    # nor is a host's RAM not known taken as holding the weights it loads
    ram = host_ram_unsure(ctx, feasible)
    groups = [
        feasible[(ram == h) & (far == u) & (memory == m) & (late == t) & (unpriced == r)]
        for h in (False, True)
        for u in (False, True)
        for m in (0, 1, 2)
        for t in (False, True)
        for r in (False, True)
    ]

    def ordered(subset: np.ndarray, k: int) -> np.ndarray:
        if subset.size == 0:
            return subset
        ties = unknown_count(ctx.costs.unknown[subset])
        cost, time = c.total_usd[subset], c.time_h[subset]
        best_cost = ctx.best.total_usd[subset] if ctx.best is not None else None
        objective, k = ctx.constraints.objective, min(k, subset.size)
        return subset[_top_positions(cost, time, objective, k, ties, best_cost, near_key(ctx, subset))]

    # Zones repeat an instance a few times: 64 candidates per wanted option is plenty; fall back
    # to the full order in the rare case it is not.
    for k in (64 * top, feasible.size):
        order = np.concatenate([ordered(g, k) for g in groups])
        ranked = _take(ctx, order, top, per_node_count=False)
        first = sum(
            not o.memory_uncertain
            and MAY_MISS_DEADLINE_FLAG not in o.flags
            and RESULTS_UNPRICED_FLAG not in o.flags
            and RTT_UNKNOWN_FLAG not in o.flags
            and HOST_RAM_UNKNOWN_FLAG not in o.flags
            for o in ranked
        )
        complete = all(k >= g.size for g in groups[:-1]) or first >= top
        if (len(ranked) >= top and complete) or k >= feasible.size:
            return ranked
    return ranked


def _preferred(ctx: PlanContext, sure: np.ndarray) -> np.ndarray:
    """Of the options that fit for certain, those whose time range ends within the deadline (all of
    them when none does); of these, those whose results are priced, when any are (the personas'
    picks come from these)."""
    held = sure[~host_ram_unsure(ctx, sure)]
    sure = held if held.size else sure
    near = sure[~rtt_unknown(ctx, sure)]
    sure = near if near.size else sure
    on_time = sure[~past_deadline(ctx, sure)]
    picks = on_time if on_time.size else sure
    priced = picks[~results_unpriced(ctx, picks)]
    return priced if priced.size else picks


def _pareto_front(ctx: PlanContext, sure: np.ndarray) -> np.ndarray:
    """The positions of ``sure`` on the cost/time front, cheapest first. An option whose results back
    are not priced (:func:`results_unpriced`) shows a cost less than its own, which is no point to
    trade against: where some option's results are priced, the front is drawn from those alone (the
    others are ranked after them and named in the notes)."""
    c = ctx.costs
    away = results_unpriced(ctx, sure)
    if away.any() and not away.all():
        sure = sure[~away]
    front: np.ndarray = sure[pareto_mask(c.total_usd[sure], c.time_h[sure])]
    ordered: np.ndarray = front[np.lexsort((c.time_h[front], c.total_usd[front]))]
    return ordered


def _front_to(pareto: list[Option], fastest: Option) -> list[Option]:
    """A job's front, cheapest first, ended at the performance pick ``fastest`` where it is on it:
    the points past it are faster than it by less than :data:`FASTEST_TIME_SHARE` of the shortest
    time, which the estimate does not tell apart, for more money (8 p5.48xlarge spot at 6.06 h
    for $1,572.93 beside 8 p5en.48xlarge spot at 6.07 h for $737.72, both "6.1 h"): no trade."""
    at = [i for i, o in enumerate(pareto) if o.label == fastest.label and o.gpu == fastest.gpu]
    return pareto[: at[0] + 1] if at else pareto


def _unpriced_note(ctx: PlanContext, feasible: np.ndarray, ranked: list[Option]) -> str | None:
    """What the plan says about options whose results back are not priced (their size not stated)
    where some other option's are, or None when none is."""
    away = feasible[results_unpriced(ctx, feasible)]
    if away.size == 0 or away.size == feasible.size or ctx.job.data_location is None:
        return None  # all alike: the job's own note says the results are not priced
    best = _best_of(ctx, away, None)
    assert best is not None  # away is not empty
    shown = any(RESULTS_UNPRICED_FLAG in o.flags for o in ranked)
    return ngettext(
        "results back: {n} option outside {where} would send the job's results over a priced link, "
        "whose cost is not counted (data.results_gb not given); ranked after the options in {where}"
        "{shown}: {label}, {time}, {cost} before its results back",
        "results back: {n} options outside {where} would send the job's results over a priced link, "
        "whose cost is not counted (data.results_gb not given); ranked after the options in {where}"
        "{shown}; the best of them: {label}, {time}, {cost} before its results back",
        int(away.size),
    ).format(
        n=format_number(int(away.size)),
        where=place(*ctx.job.data_location),
        shown="" if shown else _(", none in the top list"),
        label=best.label,
        time=format_hours(best.job_time_h),
        cost=money(best.total_cost_usd),
    )


def _late_note(ctx: PlanContext, feasible: np.ndarray, ranked: list[Option]) -> str | None:
    """What the plan says about options that may miss the deadline, or None when none may."""
    deadline = ctx.constraints.deadline_h
    late = feasible[past_deadline(ctx, feasible)]
    if deadline is None or late.size == 0:
        return None
    if late.size == feasible.size:
        return _(
            "deadline: no option meets {deadline} for certain — on every one the high end of the time "
            "range is past it; the miss column gives each one's chance"
        ).format(deadline=format_hours(deadline))
    best = _best_of(ctx, late, None)
    assert best is not None  # late is not empty
    shown = any(MAY_MISS_DEADLINE_FLAG in o.flags for o in ranked)
    return ngettext(
        "deadline: {n} option may miss {deadline} (the high end of its time range is past it); "
        "ranked after every option that meets it{shown}: {label}, {time}, {cost}",
        "deadline: {n} options may miss {deadline} (the high end of their time range is past it); "
        "ranked after every option that meets it{shown}; the best of them: {label}, {time}, {cost}",
        int(late.size),
    ).format(
        n=format_number(int(late.size)),
        deadline=format_hours(deadline),
        shown="" if shown else _(", none in the top list"),
        label=best.label,
        time=format_hours(best.job_time_h),
        cost=money(best.total_cost_usd),
    )


def _memory_class(ctx: PlanContext, positions: np.ndarray) -> np.ndarray:
    """Per position, how it fits in memory: 0 for certain, 1 may not fit (the band's top is above
    the usable memory, its point within), 2 only the band's low end fits (its point is above)."""
    i = ctx.costs.idx[positions]
    out: np.ndarray = ctx.cands.memory_uncertain[i].astype(np.int64) + ctx.cands.memory_over[i]
    return out


def _memory_sure(ctx: PlanContext, feasible: np.ndarray) -> np.ndarray:
    """The feasible positions that fit in memory for certain; where none does, those whose memory
    estimate's point fits; all of them when none does either (then every option is flagged and the
    plan says so)."""
    memory = _memory_class(ctx, feasible)
    for worst in (0, 1):
        sure = feasible[memory <= worst]
        if sure.size:
            return sure
    return feasible


def _unrated_note(ctx: PlanContext) -> str | None:
    """Which GPUs were left out for a rate no source publishes (the H20's FP8 tensor cores): the
    count alone had not said that a user's cheapest 48 GB option was skipped on purpose."""
    hit = ctx.cands.reason == REASONS.index(Reason.UNKNOWN_RATE)
    if not hit.any():
        return None
    gpus = sorted({str(g) for g in ctx.offers.gpu[ctx.cands.offer[hit]]})
    return ngettext(
        "{gpus}: {n} candidates left out (no_published_rate): no source gives its tensor-core rate at "
        "this job's precision, so its speed is unknown (`gpuplan estimate --gpu {first}` names the rate)",
        "{gpus}: {n} candidates left out (no_published_rate): no source gives their tensor-core rates at "
        "this job's precision, so their speed is unknown (`gpuplan estimate --gpu {first}` names the rate)",
        len(gpus),
    ).format(gpus=item_list(gpus), n=format_number(int(hit.sum())), first=gpus[0])


def _pathless_note(ctx: PlanContext) -> str | None:
    """Which GPUs were left out because they cannot run the job's precision at all (a bf16 job on
    T4s), with the estimate's words for why and what to use instead."""
    why = left_without_precision(ctx.cands, ctx.offers, ctx.job)
    if not why:
        return None
    n = int(np.count_nonzero(ctx.cands.reason == REASONS.index(Reason.NO_PRECISION_PATH)))
    return _("{gpus}: {n} candidates left out (no_precision_path): {why}").format(
        gpus=item_list(list(why)), n=format_number(n), why=phrase_text(refusal_words(why))
    )


def _shared_out_note(ctx: PlanContext) -> str | None:
    """Which GPUs ``share_gpu`` left out: those a replica fits whole but not in its 1/n share, no
    candidate of which is left. The count under does_not_fit had not said that sharing, not the
    GPU, did it (a 24 GB A10 holds a 1.5B service alone, not four replicas of it)."""
    share = ctx.job.replicas_per_gpu
    if share <= 1:
        return None
    cands = ctx.cands
    gpu = ctx.offers.gpu[cands.offer].astype(str)
    whole = (
        (cands.reason == REASONS.index(Reason.DOES_NOT_FIT))
        & np.isfinite(cands.peak_memory_gib)
        & (cands.peak_memory_gib <= cands.usable_memory_gib * share)
    )
    left = set(gpu[cands.alive])
    gpus = sorted({str(g) for g in gpu[whole]} - left)
    if not gpus:
        return None
    hit = whole & np.isin(gpu, gpus)
    # the largest share among them: the nearest to holding a replica
    at = np.flatnonzero(hit)[int(np.argmax(cands.usable_memory_gib[hit]))]
    return _(
        "serving.share_gpu: {n} replicas of this one service time-share each GPU, each in 1/{n} of its "
        "memory: {gpus} left out (does_not_fit), whose whole GPU holds a replica but 1/{n} does not "
        "({gpu}: {share_gib:.1f} GiB a share, a replica {need_gib:.1f} GiB); fewer to a GPU, or "
        "share_gpu left out, plans them"
    ).format(
        n=share,
        gpus=item_list(gpus),
        gpu=str(gpu[at]),
        share_gib=float(cands.usable_memory_gib[at]),
        need_gib=float(cands.peak_memory_gib[at]),
    )


def _named_without_options(
    ctx: PlanContext, constraints: Constraints, feasible: np.ndarray, ranked: list[Option]
) -> list[str]:
    """A note for each provider the user named that has no option in the list shown: why its
    candidates were left out, or, where some are options ranked below those shown, why they rank
    there. One named among others had simply been absent from the ranking (Tencent beside Alibaba,
    its only options ones that may not fit in memory, had not been named at all)."""
    named = constraints.providers or ()
    if len(named) < 2:
        return []  # one provider named: the plan is its options, or it fails saying why
    provider = np.char.lower(ctx.offers.provider[ctx.cands.offer].astype(str))
    options = np.char.lower(ctx.offers.provider[ctx.cands.offer[ctx.costs.idx[feasible]]].astype(str))
    shown = {o.provider.lower() for o in ranked}
    alive = ctx.cands.alive
    asked_countries = named_in(ctx.offers.country, constraints.countries or ())[ctx.cands.offer]
    out = []
    for name in named:
        mine = provider == name.lower()
        if name.lower() in shown:
            continue
        if not mine.any():
            out.append(
                _("{provider} (named in providers): no option; the catalog holds no offer of it").format(
                    provider=name
                )
            )
        elif alive[mine].any():
            out.append(_ranked_below(ctx, name, feasible[options == name.lower()], ranked))
        elif (why := no_usable_price(ctx.offers, (name,), constraints.allow_low_confidence)) is not None:
            # no price of it is usable anywhere: the catalog, not the countries, left it out
            out.append(
                _("{provider} (named in providers): no option; {why}").format(
                    provider=name, why=phrase_text(why)
                )
            )
        elif constraints.countries and not (mine & asked_countries).any():
            out.append(
                no_offer_in_countries(
                    name,
                    constraints.countries,
                    [str(c) for c in ctx.offers.country[ctx.cands.offer[mine]] if c],
                    int(mine.sum()),
                    _reasons_counted(ctx.cands, mine, ctx.offers),
                )
            )
        else:
            out.append(
                ngettext(
                    "{provider} (named in providers): no option; its {n} candidate was left out ({reasons})",
                    "{provider} (named in providers): no option; its {n} candidates were left out "
                    "({reasons})",
                    int(mine.sum()),
                ).format(
                    provider=name,
                    n=format_number(int(mine.sum())),
                    reasons=_reasons_counted(ctx.cands, mine, ctx.offers),
                )
            )
    return out


def _clouds_absent(ctx: PlanContext, constraints: Constraints) -> str:
    """Where countries were asked for and no provider named: the large clouds with no offer of the
    GPUs considered there (:func:`~gpuplan.plan.named_absent.clouds_absent_note`); a provider named
    is said of by :func:`_named_without_options`."""
    if constraints.providers or not constraints.countries:
        return ""
    return clouds_absent_note(ctx.cands, ctx.offers, constraints.countries)


def _ranked_below(ctx: PlanContext, name: str, theirs: np.ndarray, ranked: list[Option]) -> str:
    """The note on a named provider whose options all rank below the ones listed (``ranked``): how
    many, why where the ranking's order decides it (none fits in memory for certain, or none meets
    the deadline for certain, where a listed one does: ``_ranked``), and the best of them."""
    best = _best_of(ctx, theirs, None)
    assert best is not None  # a provider with a candidate alive has an option
    memory = _memory_class(ctx, theirs)
    listed_memory = min(2 if o.memory_over else 1 if o.memory_uncertain else 0 for o in ranked)
    why = ""
    if memory.min() > listed_memory:
        maybe, over = int((memory == 1).sum()), int((memory == 2).sum())
        counts = []
        if maybe:
            counts.append(
                ngettext("{n} may not fit", "{n} may not fit", maybe).format(n=format_number(maybe))
            )
        if over:
            counts.append(
                ngettext(
                    "{n} does not fit at the memory estimate", "{n} do not fit at the memory estimate", over
                ).format(n=format_number(over))
            )
        why = _(": none fits in memory for certain ({counts})").format(counts=item_list(counts))
    elif past_deadline(ctx, theirs).all() and any(MAY_MISS_DEADLINE_FLAG not in o.flags for o in ranked):
        assert ctx.constraints.deadline_h is not None  # past_deadline holds none late without one
        why = _(": none meets {deadline} for certain (the high end of its time range is past it)").format(
            deadline=format_hours(ctx.constraints.deadline_h)
        )
    return ngettext(
        "{provider} (named in providers): its {n} option ranks below the {shown} shown{why}: {label}, "
        "{time}, {cost}",
        "{provider} (named in providers): its {n} options rank below the {shown} shown{why}; the best "
        "of them: {label}, {time}, {cost}",
        int(theirs.size),
    ).format(
        provider=name,
        n=format_number(int(theirs.size)),
        shown=format_number(len(ranked)),
        why=why,
        label=best.label,
        time=format_hours(best.job_time_h),
        cost=money(best.total_cost_usd),
    )


def _reasons_counted(cands: Candidates, mask: np.ndarray, offers: OfferTable | None = None) -> str:
    """Why the candidates in ``mask`` were left out, the commonest four reasons with their counts.

    A reason is a code (unpriced); its catalog entry is the word shown under another language.
    ``offers`` given, candidates the countries filter left out because their region's country is
    not known (a price whose source names no region: region "unspecified") are counted apart, with
    their regions: "by country" had read as if the provider sold only outside the countries asked."""
    unknown = np.zeros(len(cands), dtype=bool)
    regions = ""
    if offers is not None:
        unknown = mask & (cands.reason == REASONS.index(Reason.COUNTRY)) & (offers.country[cands.offer] == "")
        regions = item_list(sorted({str(r) for r in offers.region[cands.offer[unknown]]}))
    counts = np.bincount(cands.reason[mask & ~unknown & (cands.reason >= 0)], minlength=len(REASONS))
    top = sorted(((int(c), REASONS[i].value) for i, c in enumerate(counts) if c), reverse=True)
    # TRANSLATORS: one reason in "its 72 candidates were left out (56 unpriced, 16 low_confidence_price)";
    # {reason} is a reason code (its catalog entry), {count} a number of candidates
    words = [(c, _("{count} {reason}").format(count=format_number(c), reason=_(r))) for c, r in top]
    if unknown.any():
        n = int(unknown.sum())
        # TRANSLATORS: one reason in "its 264 candidates were left out (264 whose region's country
        # is unknown: unspecified, which …)"; {regions} are the offers' region names
        words.append(
            (
                n,
                _(
                    "{count} whose region's country is unknown: {regions}, which the countries filter "
                    "leaves out"
                ).format(count=format_number(n), regions=regions),
            )
        )
        words.sort(key=lambda w: -w[0])
    return item_list(w for _c, w in words[:4])


def _uncertain_note(ctx: PlanContext, feasible: np.ndarray, ranked: list[Option]) -> str | None:
    """What the plan says about options that may not fit in memory (their estimate's point within
    the usable memory), or None when there are none."""
    memory = _memory_class(ctx, feasible)
    unsure = feasible[memory == 1]
    if unsure.size == 0:
        return None
    if not (memory == 0).any():
        return _(
            "memory: no option fits for certain — on every one the high end of the memory estimate is "
            "above the GPU's usable memory (may not fit); `gpuplan estimate` lists the changes that "
            "make it fit"
        )
    best = _best_of(ctx, unsure, None)
    assert best is not None  # unsure is not empty
    shown = any(o.memory_uncertain and not o.memory_over for o in ranked)
    return _(
        "memory: {n} options may not fit (their memory band straddles the GPU's usable memory); ranked "
        "after every option that fits{shown}; the best of them: {label}, {cost}; `gpuplan estimate` "
        "lists the changes that make it fit"
    ).format(
        n=format_number(int(unsure.size)),
        shown="" if shown else _(", none in the top list"),
        label=best.label,
        cost=money(best.total_cost_usd),
    )


def _over_note(ctx: PlanContext, feasible: np.ndarray, ranked: list[Option]) -> str | None:
    """What the plan says about options whose memory estimate's point is above the GPU's usable
    memory (only the low end of its range fits), or None when there are none: the best of them,
    ranked after every option whose point fits, with what it needs against what is usable; where
    every option is one, that the recommended one will most likely run out of memory."""
    over = feasible[_memory_class(ctx, feasible) == 2]
    if over.size == 0:
        return None
    if over.size == feasible.size:
        rec = ranked[0]
        return _(
            "memory: no option fits at the memory estimate — the recommended {label} needs {need} GiB "
            "per GPU, {usable} GiB usable (only the low end of the estimate's range fits): it will most "
            "likely run out of memory; `gpuplan estimate` lists the changes that make it fit"
        ).format(label=rec.label, need=_gib(rec.memory_needed_gib), usable=_gib(rec.usable_memory_gib))
    best = _best_of(ctx, over, None)
    assert best is not None  # over is not empty
    return ngettext(
        "memory: {n} option does not fit at the memory estimate (only the low end of its range fits); "
        "ranked after every option whose estimate fits{shown}: {label}, {cost}, needs {need} GiB per "
        "GPU, {usable} GiB usable",
        "memory: {n} options do not fit at the memory estimate (only the low end of their range fits); "
        "ranked after every option whose estimate fits{shown}; the best of them: {label}, {cost}, needs "
        "{need} GiB per GPU, {usable} GiB usable",
        int(over.size),
    ).format(
        n=format_number(int(over.size)),
        shown="" if any(o.memory_over for o in ranked) else _(", none in the top list"),
        label=best.label,
        cost=money(best.total_cost_usd),
        need=_gib(best.memory_needed_gib),
        usable=_gib(best.usable_memory_gib),
    )


def _gib(value: float | None) -> str:
    """A memory figure of a note, GiB to one decimal ("?" where not known)."""
    return "?" if value is None else f"{value:.1f}"


def _run(
    offers: OfferTable,
    facts: CostFacts,
    job: JobFacts,
    estimate: EstimateFn,
    constraints: Constraints,
    unknown_costs: str,
    stale_after_days: int = DEFAULT_STALE_AFTER_DAYS,
    replica_load: LoadFn | None = None,
) -> PlanContext:
    cands = enumerate_candidates(offers, constraints, service=job.is_service)
    exclude_model_split(cands, job)
    exclude_missing_precision(cands, offers, job)
    # an instance whose RAM is below the weights it loads never serves
    exclude_short_host_ram(cands, offers, job)
    bounds = host_bounds(offers)
    relevant = (int(Fact.VCPUS) if job.image_job else 0) | (int(Fact.RAM) if job.rereads_dataset else 0)
    # The network joins the nodes of a training job; inference replicas do not talk to each other.
    relevant |= int(Fact.NETWORK) | int(Fact.GPU_LINK) if job.task != "infer" else 0
    estimate_candidates(cands, offers, estimate, bounds, relevant)
    # the network round trip to a service's users, added to its latency targets
    apply_users_rtt(cands, offers, job)
    # Both costings over the same live candidates (the same positions): the conservative one ranks,
    # the best case is shown beside it.
    # A service whose fleet follows its day is priced at the instance-hours its day needs (tco's
    # model: plan/service_day.py), its peak fleet all month the high end of its range.
    days = (
        service_days(cands, offers, job, replica_load, run_h=(job.calendar_months or 1.0) * HOURS_PER_MONTH)
        if job.is_service
        else None
    )
    share = None if days is None else days.share
    costs = cost_candidates(cands, offers, facts, job, fleet_share=share)
    best = cost_candidates(cands, offers, facts, job, best_case=True, fleet_share=share)
    cands.exclude(_scatter(cands, costs, ~costs.stable), Reason.SPOT_UNSTABLE)
    if unknown_costs == "exclude":
        assumed = np.array([ch.unknown for ch in costs.charges], dtype=bool)
        if assumed.size:
            cands.exclude(_scatter(cands, costs, assumed[costs.region_id]), Reason.UNKNOWN_COST)
    return PlanContext(
        offers=offers,
        cands=cands,
        costs=costs,
        job=job,
        constraints=constraints,
        best=best,
        bounds=bounds,
        stale_after_days=stale_after_days,
        days=days,
        hours_at=hours_at(offers, estimate, bounds, relevant),
    )


def _decided_by_unknowns(ctx: PlanContext, feasible: np.ndarray, rec: Option) -> str:
    """In words, when the option that would rank first with every unknown fact at its best case is
    not the recommended one: which it is and which of its facts are unknown; else empty."""
    alt = _ranked(ctx, feasible, 1, best_case=True)
    if not alt:
        return ""
    a = alt[0]
    if (a.provider, a.region, a.instance_type, a.pricing) == (
        rec.provider,
        rec.region,
        rec.instance_type,
        rec.pricing,
    ):
        return ""
    from gpuplan.plan.unknowns import FACT_CODES

    # The facts whose bound moves its figures (a listed price's date has no best case; an undated
    # price held to a dated one above it has: its own figure).
    codes = {u.fact for u in a.unknown_facts if u.costed}

    mask = sum(int(f) for f, c in FACT_CODES.items() if c in codes)
    return _(
        "unknown facts decide the ranking: with its {facts} at their best case, {option} would rank "
        "first ({best}); at their conservative bound it costs {cost} and ranks below {winner}"
    ).format(
        facts=item_list(fact_names(mask)) or _("figures"),
        option=a.label,
        best=_time_cost_words(a.best_case_job_time_h, a.best_case_total_cost_usd),
        cost=_time_cost_words(a.job_time_h, a.total_cost_usd),
        winner=rec.label,
    )


def _host_note(ctx: PlanContext, feasible: np.ndarray, rec: Option) -> str:
    """What the recommended option rents and in which country; where that is a community host or a
    host of unknown kind, the best feasible option on a provider-run machine beside it (the ranking
    prices no host's uptime, and unknown is not the best case)."""
    words = _("host: {what}").format(what=host_words(rec))
    if is_provider_run(rec.host_kind):
        return words
    offers = ctx.cands.offer[ctx.costs.idx[feasible]]
    option = _best_of(ctx, feasible, provider_run_rows(ctx.offers, offers))
    if option is None:
        return _(
            "{host}; the ranking does not price a host's uptime, and no feasible option is on a "
            "provider-run machine (a cloud VM, bare metal, a vetted data centre)"
        ).format(host=words)
    extra = option.total_cost_usd - rec.total_cost_usd
    words = _(
        "{host}; the ranking does not price a host's uptime: the best option on a provider-run machine "
        "(a cloud VM, bare metal, a vetted data centre) is {option} — {time_cost} ({difference})"
    ).format(
        host=words,
        option=option.label,
        time_cost=_time_cost_words(option.job_time_h, option.total_cost_usd),
        difference=(_("{amount} more") if extra >= 0 else _("{amount} less")).format(
            amount=money(abs(extra))
        ),
    )
    words = _with_crossing(words, option)
    if not ctx.constraints.countries:
        return words
    # data kept in some countries (personal data, as a rule): a machine an independent host lists
    # may be a compliance question of its own, and the plan can leave such hosts out
    return _(
        "{words}; to plan on such machines only, give --hosts provider (constraints.hosts: provider)"
    ).format(words=words)


def _without_stale_prices(ctx: PlanContext, sure: np.ndarray, rec: Option) -> WithoutStalePrices | None:
    """Where the recommended price is not known to be within the staleness limit: the best option
    among the feasible ones whose price is (the same objective, the same constraints), with the
    recommended price's date, in words. None when the recommended price is known fresh."""
    if not rec.stale and rec.staleness in ("fresh", ""):
        return None
    o = ctx.cands.offer[ctx.costs.idx[sure]]
    fresh = ~not_known_current(ctx.offers)[o]
    option = _best_of(ctx, sure, fresh)
    t = ctx.offers
    left_out = len(
        {(t.provider[r], t.region[r], t.instance_type[r], t.pricing[r]) for r in np.unique(o[~fresh])}
    )
    days = ctx.stale_after_days
    why = price_date_words(rec.as_of, rec.staleness, days, rec.gpu)
    if option is None:
        words = _(
            "recommended price {why}; no feasible option has a price known to be within the {days}-day limit"
        ).format(why=why, days=days)
    else:
        extra = option.total_cost_usd - rec.total_cost_usd
        words = _(
            "recommended price {why}; best among prices known to be within the {days}-day limit: "
            "{option} — {time_cost} ({difference}; its price as of {date})"
        ).format(
            why=why,
            days=days,
            option=option.label,
            time_cost=_time_cost_words(option.job_time_h, option.total_cost_usd),
            difference=(_("{amount} more") if extra >= 0 else _("{amount} less")).format(
                amount=money(abs(extra))
            ),
            date=option.as_of,
        )
        words = _with_crossing(words, option)
    return WithoutStalePrices(option=option, left_out=left_out, words=words)


def _with_crossing(words: str, option: Option) -> str:
    """``words`` naming ``option`` beside the recommendation, with the words under it in the table
    where it takes the data out of its country (``data leaves DE for US``): a place named on a line
    of its own says so as the table does."""
    crossing = border_cell(option)
    return _("{clauses}; {clause}").format(clauses=words, clause=crossing) if crossing else words


def _time_cost_words(time_h: float | None, cost_usd: float | None) -> str:
    from gpuplan.i18n import money

    if time_h is None or cost_usd is None:
        return "?"
    return _("{time}, {cost}").format(time=format_hours(time_h), cost=money(cost_usd))


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
    stale_after_days: int = DEFAULT_STALE_AFTER_DAYS,
) -> tuple[Option | None, str]:
    """Cost the baseline with the same arithmetic, ignoring the user's constraints except the
    deadline (for its miss probability): the smallest node count on which the job fits, at its
    memory estimate's point where any count does."""
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
    ctx = _run(sub, facts, job, estimate, base_constraints, "assume", stale_after_days)
    alive = ctx.cands.alive[ctx.costs.idx]
    if not alive.any():
        # which of the two (it had said "no priced offer, or the job does not fit on it")
        return None, _("baseline {what}: every candidate left out ({reasons})").format(
            what=what, reasons=_reasons_counted(ctx.cands, np.ones(len(ctx.cands), dtype=bool))
        )
    pos = np.flatnonzero(alive)
    nodes = ctx.cands.nodes[ctx.costs.idx[pos]]
    # a count whose memory estimate's point fits before one that would most likely run out of memory
    over = _memory_class(ctx, pos) == 2
    best = pos[np.lexsort((ctx.costs.total_usd[pos], nodes, over))[0]]
    option = make_option(ctx, int(best))
    return option, _(
        "baseline: {option} (the fewest of that instance the job fits on; by default the naive choice "
        "two published Chinese GPU guide articles price, whatever the job's size: --baseline sets "
        "your own)"
    ).format(option=option.label)


def _serving_baseline(ctx: PlanContext, sure: np.ndarray) -> tuple[Option | None, str]:
    """A service's default baseline, like for like: the cheapest on-demand option among those that
    carry its load within its targets (None where no on-demand option is left)."""
    on_demand = sure[ctx.offers.pricing[ctx.cands.offer[ctx.costs.idx[sure]]] == "on_demand"]
    if on_demand.size == 0:
        return None, ""
    option = make_option(ctx, int(on_demand[np.argmin(ctx.costs.total_usd[on_demand])]))
    return option, _(
        "baseline: {option} (a service: the cheapest on-demand option that carries the same load "
        "within the same targets; --baseline sets your own)"
    ).format(option=option.label)


def _outside_places(base: Option, constraints: Constraints) -> str:
    """The place filters (providers, regions, countries) the baseline lies outside, as the user
    gave them ("" where it is inside all of them)."""
    providers, regions, countries = (
        constraints.providers or (),
        constraints.regions or (),
        constraints.countries or (),
    )
    outside = [
        _(words).format(names=item_list(shown))
        for words, names, shown, value in (
            (N_("providers ({names})"), providers, providers, base.provider),
            (N_("regions ({names})"), regions, regions, base.region),
            # as the user named them: the EU's 27 members as EU, not 27 codes
            (N_("countries ({names})"), countries, grouped_codes(countries), base.country),
        )
        if names and value.lower() not in {n.lower() for n in names}
    ]
    return item_list(outside) if outside else ""


def _baseline_problem(
    base: Option, constraints: Constraints, *, default: bool = False, service: bool = False
) -> str:
    """Why the baseline is not a choice the user has (empty when it meets deadline and budget).

    ``default``: the planner chose it (no --baseline): one outside the user's providers, regions or
    countries is not a choice they have either. ``service``: a service's default baseline is the
    source articles' only where no on-demand option within the user's places carries the load."""
    outside = _outside_places(base, constraints) if default else ""
    if outside and service:
        return _(
            "it is outside your {places}, where no on-demand option carries the load within the targets"
        ).format(places=outside)
    if outside:
        return _("it is outside your {places}").format(places=outside)
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
    known_providers = set(PROVIDERS) | set(offers.provider.tolist())
    for name in constraints.providers or ():
        if name.lower() not in known_providers:
            raise NotFoundError("provider", name, sorted(known_providers))
    known_regions = {r.lower(): r for r in sorted(set(offers.region.tolist()))}
    for name in constraints.regions or ():
        if name.lower() not in known_regions:
            raise NotFoundError("region", name, sorted(known_regions.values()), hint=NO_OFFER_IN_REGION)


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
    stale_after_days: int = DEFAULT_STALE_AFTER_DAYS,
    replica_load: LoadFn | None = None,
) -> Plan:
    """Rank every way to run the job on ``offers`` under ``constraints``.

    Every unknown fact an option's time or cost rests on is taken at its conservative bound
    (``plan/unknowns.py``); the plan says when those bounds decided the winner.
    ``stale_after_days``: the limit the offers' ``stale`` flags were set against (said in the output).

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
    if job.is_service and constraints.deadline_h is not None:
        # A service has no end: every option's "time" is the month it is priced for, so a deadline
        # shorter than that refused them all, saying "the fastest option takes 30.4 d".
        raise InputError.worded(
            N_(
                "deadline {deadline}: a service has no end to meet it by: it runs until it is stopped and "
                "is priced by the month ({hours:g} h); remove the deadline (on demand, fewer hours cost the "
                "month's price × the hours ÷ {hours:g}; a monthly subscription is paid whole)"
            ),
            deadline=format_hours(constraints.deadline_h),
            hours=HOURS_PER_MONTH,
        )
    _check_names(offers, constraints)
    ctx = _run(offers, facts, job, estimate, constraints, unknown_costs, stale_after_days, replica_load)
    cands, costs = ctx.cands, ctx.costs
    # Deadline and budget last: what remains before them is what the explanation talks about.
    pre = cands.alive[costs.idx]
    count_limits = (
        *load_limits(cands, offers, job, constraints),
        # Beside a plan that meets the deadline, only a limit a flag lifts is worth a note (the
        # planner's own search is said in the refusal, where no option is left).
        *(
            limit
            for limit in deadline_limits(
                cands, costs, np.flatnonzero(pre), offers, job, constraints, hours_at=ctx.hours_at
            )
            if limit.limit is not Limit.SEARCH
        ),
    )
    if constraints.deadline_h is not None:
        cands.exclude(_scatter(cands, costs, costs.time_h > constraints.deadline_h), Reason.DEADLINE)
    if constraints.budget_usd is not None:
        cands.exclude(_scatter(cands, costs, costs.total_usd > constraints.budget_usd), Reason.BUDGET)
    feasible = np.flatnonzero(cands.alive[costs.idx])
    excluded = cands.excluded_counts()
    if feasible.size == 0:
        error = PlanInfeasibleError.because(
            infeasible_message(ctx, np.flatnonzero(pre), make_option), excluded
        )
        error.fit_gpu = unfit_gpu(ctx) if pre.size == 0 else None
        raise error

    ranked = _ranked(ctx, feasible, top)
    # The front and the personas' picks come from the options that fit for certain, when any do.
    sure = _memory_sure(ctx, feasible)
    front = _pareto_front(ctx, sure)
    pareto = _take(ctx, front, len(front))
    picks = _preferred(ctx, sure)
    cheapest = _best_of(ctx, picks, None, Objective.COST)
    fastest = _best_of(ctx, picks, None, Objective.TIME)
    assert cheapest is not None and fastest is not None  # feasible is not empty
    if job.calendar_months is None:
        # A job: the cheapest of those within FASTEST_TIME_SHARE of the shortest time, not a
        # minute saved at several times the cost (a service's time is its period on every option).
        near = ctx.costs.time_h[picks] <= fastest.job_time_h * (1.0 + FASTEST_TIME_SHARE)
        fastest = _best_of(ctx, picks, near, Objective.COST) or fastest
        pareto = _front_to(pareto, fastest)
    o_feas = cands.offer[costs.idx[picks]]
    k8s_offer = np.isin(offers.pricing, ("on_demand", "spot")) & np.isin(
        offers.provider, list(managed_kubernetes())
    )
    k8s_mask = k8s_offer[o_feas]
    # The compliance persona: the labels asked for, as the filter counts them; asked for none, any
    # label of a reliable source (a claim is not counted unasked).
    labelled = np.array(
        [
            labels_satisfy(
                constraints.compliance,
                counted_labels(constraints, certain, claimed) if constraints.compliance else certain,
            )
            for certain, claimed in zip(offers.compliance, offers.compliance_claimed, strict=True)
        ],
        dtype=bool,
    )
    comp_mask = labelled[o_feas] if len(offers) else np.zeros(0, dtype=bool)
    base, base_note = None, ""
    if baseline is None and job.calendar_months is not None:
        # Among the options the user's places and pricing allow, before the budget and deadline
        # left some out: one over the budget had made a Chinese team's baseline AWS in the US.
        base, base_note = _serving_baseline(ctx, _memory_sure(ctx, np.flatnonzero(pre)))
        if base is None and constraints.pricing is not None and "on_demand" not in constraints.pricing:
            # --pricing left on-demand out: compare with the on-demand options it would have had.
            on_demand = replace(constraints, pricing=("on_demand",))
            od = _run(offers, facts, job, estimate, on_demand, unknown_costs, stale_after_days)
            base, base_note = _serving_baseline(
                od, _memory_sure(od, np.flatnonzero(od.cands.alive[od.costs.idx]))
            )
    if base is None:
        base, base_note = _baseline(
            offers, facts, job, estimate, baseline or BaselineSpec(), constraints.deadline_h, stale_after_days
        )
    rec = ranked[0]
    savings = None
    if base is not None:
        problem = _baseline_problem(
            base, constraints, default=baseline is None, service=job.calendar_months is not None
        )
        if problem:
            # Savings against an option the user could not take would flatter the plan.
            base_note = _("{note}; {problem}: no savings shown").format(note=base_note, problem=problem)
        elif base.total_cost_usd > 0:
            savings = 100.0 * (base.total_cost_usd - rec.total_cost_usd) / base.total_cost_usd
    return Plan(
        checkpoint_gb=job.checkpoint_gb,
        checkpoint_write_min=job.checkpoint_gb / job.checkpoint_write_gbps / 60.0,
        disk_gb=job.stored_gb_per_copy if job.storage_kind == "block" else None,
        launch_disk_gb=job.launch_disk_gb,
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
            _best_of(ctx, picks, k8s_mask),
            _best_of(ctx, picks, comp_mask),
            constraints,
            service=job.calendar_months is not None,
        ),
        why=explain_winner(ranked, constraints.objective, service=job.calendar_months is not None),
        candidates=len(cands),
        feasible=int(feasible.size),
        notes=plan_notes(
            job,
            ranked,
            (
                *notes,
                *implausible_notes((rec, *ranked, *pareto)),
                *filter(
                    None,
                    [
                        _pathless_note(ctx),
                        host_ram_note(ctx, feasible, ranked),
                        _unrated_note(ctx),
                        users_far_note(ctx),
                        users_unknown_note(ctx, feasible),
                        users_not_counted_note(job),
                        _shared_out_note(ctx),
                        _over_note(ctx, feasible, ranked),
                        _uncertain_note(ctx, feasible, ranked),
                        _late_note(ctx, feasible, ranked),
                        _unpriced_note(ctx, feasible, ranked),
                        batch_note(job, rec, (*ranked, *pareto)),
                        border_note(job, (rec, *ranked, *pareto)),
                        country_note(job, (rec, *ranked, *pareto)),
                        sanctions_note((rec, *ranked, *pareto)),
                        residency_note(job, constraints.countries, excluded.get(Reason.COUNTRY.value, 0)),
                        commitment_note(constraints, excluded.get(Reason.NEEDS_COMMITMENT.value, 0)),
                        hosts_left_out_note(cands, offers),
                    ],
                ),
                *_named_without_options(ctx, constraints, feasible, ranked),
                *filter(None, [_clouds_absent(ctx, constraints)]),
            ),
            constraints,
            ctx.costs.rates,
            model_split_misfits(cands, job),
            count_limits,
        ),
        network=network_words(rec, offers, estimate, ctx.bounds, service=job.calendar_months is not None),
        decided_by_unknowns=_decided_by_unknowns(ctx, feasible, rec),
        host=_host_note(ctx, feasible, rec),
        host_caution=community_data_caution(job, rec),
        stale_after_days=stale_after_days,
        without_stale_prices=_without_stale_prices(ctx, sure, rec),
    )
