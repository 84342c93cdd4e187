"""A service short of its load, or a job over its deadline, because a count limit ended the
search: which limit, on which instance types, and the flag that lifts it, in words.

The planner enumerates each offer up to the instance limit (``--max-nodes``) and the GPU limit
(``--max-gpus``, at most :data:`~gpuplan.plan.constraints.MAX_TOTAL_GPUS`). An instance type whose
every count up to there is short of the load (``Reason.LOAD``) may carry it on more instances: that
is not the same as a GPU that can never carry it, and the plan says which limit stopped it.

A job (not a service) whose every option on an instance type is over the deadline, fastest at the
largest count the limits allowed and still getting faster with the count, may meet the deadline on
more instances: the plan says which limit stopped it too. It says "may" only where the estimator's
time on the most GPUs the planner allows (:data:`~gpuplan.plan.constraints.MAX_TOTAL_GPUS`) is
within the deadline; where even that count is over it (a job held back by a slow network, above
all the slowest one an unknown network is timed at), raising the limit would plan nothing new, and
the plan says the time there instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

import numpy as np

from gpuplan.errors import Phrase
from gpuplan.i18n import N_
from gpuplan.i18n.phrases import listed
from gpuplan.plan.candidates import REASONS, Candidates
from gpuplan.plan.constraints import MAX_TOTAL_GPUS, Constraints, Reason
from gpuplan.plan.costing import CostArrays
from gpuplan.plan.input_types import IntArray, JobFacts, OfferTable
from gpuplan.units import format_hours

__all__ = ["Limit", "LoadLimit", "deadline_limits", "load_limits"]

#: Instance types named in one line; the rest are counted.
_NAMED = 3


class Limit(str, Enum):
    """The count limit that ended a service's search on an instance type."""

    NODES = "max_nodes"
    """The instance limit (``--max-nodes``)."""
    GPUS = "max_gpus"
    """The GPU limit the user set (``--max-gpus``)."""
    NODES_AND_GPUS = "max_nodes_and_gpus"
    """Both: the next count is past the one and the other."""
    SEARCH = "planner_search"
    """The planner's own search, :data:`~gpuplan.plan.constraints.MAX_TOTAL_GPUS` GPUs: no flag lifts it."""


_WORDS = {
    Limit.NODES: N_(
        "short of the load on up to {nodes} instances, the instance limit: {types}; raise --max-nodes "
        "(up to {most}) to plan more replicas"
    ),
    Limit.GPUS: N_(
        "short of the load on up to {gpus} GPUs, the GPU limit: {types}; raise --max-gpus (up to {most}) "
        "to plan more replicas"
    ),
    Limit.NODES_AND_GPUS: N_(
        "short of the load on up to {nodes} instances and {gpus} GPUs, the instance and GPU limits: "
        "{types}; raise --max-nodes and --max-gpus (up to {most} each) to plan more replicas"
    ),
    Limit.SEARCH: N_(
        "short of the load on up to {gpus} GPUs, the most the planner looks at for one service: {types}; "
        "a bigger GPU, or the load split over several services"
    ),
}
#: The same limits for a job over its deadline: more instances may meet it (not would: the time
#: past the limit was not estimated).
_DEADLINE_WORDS = {
    Limit.NODES: N_(
        "over the deadline on up to {nodes} instances, the instance limit, time still falling with the "
        "count: {types}; raise --max-nodes (up to {most}) to plan more, which may meet it"
    ),
    Limit.GPUS: N_(
        "over the deadline on up to {gpus} GPUs, the GPU limit, time still falling with the count: "
        "{types}; raise --max-gpus (up to {most}) to plan more, which may meet it"
    ),
    Limit.NODES_AND_GPUS: N_(
        "over the deadline on up to {nodes} instances and {gpus} GPUs, the instance and GPU limits, "
        "time still falling with the count: {types}; raise --max-nodes and --max-gpus (up to {most} "
        "each) to plan more, which may meet it"
    ),
    Limit.SEARCH: N_(
        "over the deadline on up to {gpus} GPUs, the most the planner looks at for one job: {types}; "
        "a faster GPU, or the work split over several jobs"
    ),
}
#: A job over its deadline on instance types whose time, estimated on the most GPUs the planner
#: allows, is over it still: no limit to raise.
_BEYOND_WORDS = N_(
    "over the deadline on every count the planner allows, time falling with the count but not enough: "
    "{types} would still take {time} at best on {most} GPUs by gpuplan's estimate"
)
_AND_MORE = N_("{names} and {n} more")


@dataclass(frozen=True, kw_only=True)
class LoadLimit:
    """The instance types a service was short of its load on at every count up to ``limit``."""

    limit: Limit
    instance_types: tuple[str, ...]
    """Distinct, the cheapest per request/s carried first (``_cheapest_first``)."""
    nodes: int
    """The instance limit searched to."""
    gpus: int
    """The GPU limit searched to."""
    over_deadline: bool = False
    """A job over its deadline on them (``deadline_limits``), not a service short of its load."""
    at_most_h: float | None = None
    """A job over its deadline even on the most GPUs the planner allows: the estimator's fastest
    failure-free time of these types there, h (then no limit is worth raising); None otherwise."""

    @property
    def words(self) -> Phrase:
        """One line: the limit, the instance types it stopped, and what lifts it."""
        shown = listed(self.instance_types[:_NAMED])
        more = len(self.instance_types) - _NAMED
        types = Phrase(_AND_MORE, names=shown, n=more) if more > 0 else shown
        if self.at_most_h is not None:
            return Phrase(_BEYOND_WORDS, types=types, time=format_hours(self.at_most_h), most=MAX_TOTAL_GPUS)
        words = _DEADLINE_WORDS if self.over_deadline else _WORDS
        return Phrase(words[self.limit], nodes=self.nodes, gpus=self.gpus, most=MAX_TOTAL_GPUS, types=types)


def load_limits(
    cands: Candidates, offers: OfferTable, job: JobFacts, constraints: Constraints
) -> tuple[LoadLimit, ...]:
    """The count limits that left a service short of its load on some instance type, one per limit
    (empty for a job that is not a service, or when no limit did).

    An offer counts when its largest count looked at is short of the load (``Reason.LOAD``), none
    of its counts carried the load, and the next count is past a limit: the instance limit, the GPU
    limit, or both. A count past the service's own ``max_replicas`` is that setting's (its own
    reason), not a limit's.
    """
    if not job.is_service:
        return ()
    short = cands.reason == REASONS.index(Reason.LOAD)
    if not short.any():
        return ()
    n = len(offers)
    top = np.zeros(n, dtype=np.int64)
    np.maximum.at(top, cands.offer[short], cands.nodes[short])
    # requests/s one instance's replicas carry (nan: not estimated), for the order the types are named in;
    # each candidate at its own split (the planner's degree where the workload gives none)
    per_node = cands.gpus_per_node[short] // cands.replica_gpus(job)[short] * job.replicas_per_gpu
    per_instance_all = np.full(n, np.nan)
    carries = cands.replica_requests_per_s[short].astype(float) * per_node
    np.fmax.at(per_instance_all, cands.offer[short], carries)
    carried = np.zeros(n, dtype=bool)
    carried[cands.offer[cands.fits | cands.misses_latency]] = True
    rows = np.flatnonzero((top > 0) & ~carried)
    node_limit = constraints.node_limit(service=True)
    gpu_limit = constraints.total_gpu_limit
    per_instance = per_instance_all[rows]
    # without --max-nodes a service's instance limit is its GPU limit (one GPU an instance at the
    # least): the GPUs are the limit to raise, and raising them raises it too
    binds = node_limit if constraints.max_nodes is not None else np.iinfo(np.int64).max
    out = []
    for limit, mask in _limits_past(offers, rows, top[rows] + 1, binds, gpu_limit):
        types = _cheapest_first(offers, rows[mask], per_instance[mask])
        out.append(LoadLimit(limit=limit, instance_types=types, nodes=node_limit, gpus=gpu_limit))
    return tuple(out)


def deadline_limits(
    cands: Candidates,
    costs: CostArrays,
    pre: IntArray,
    offers: OfferTable,
    job: JobFacts,
    constraints: Constraints,
    *,
    hours_at: Callable[[int, int], float | None] | None = None,
) -> tuple[LoadLimit, ...]:
    """The count limits that ended a job's search on instance types whose every option is over the
    deadline, one per limit (empty for a service, without a deadline, or when no limit did).

    ``hours_at`` (offer row, nodes -> the estimator's failure-free time, h; ``PlanContext.hours_at``):
    the offers whose time on the most GPUs the planner allows is over the deadline too are said
    apart, with that time (:attr:`LoadLimit.at_most_h`), not as a limit to raise.

    ``pre``: the cost positions still in the running before the deadline and the budget. An offer
    counts when its instance type has no option within the deadline, its fastest option is at its
    largest count left, that count is faster than the one below it (both estimated:
    an unknown time is no sign of a fall), and the next count is past a limit.
    """
    deadline = constraints.deadline_h
    if job.is_service or deadline is None or pre.size == 0:
        return ()
    n = len(offers)
    cand = costs.idx[pre]
    offer, nodes, time = cands.offer[cand], cands.nodes[cand], costs.time_h[pre]
    met = offer[time <= deadline]
    # the largest count of each offer left before the deadline (the next one past a limit below)
    top = np.zeros(n, dtype=np.int64)
    np.maximum.at(top, offer, nodes)
    # each offer's fastest time at its largest count and at the count below (inf: none estimated)
    at_top = np.full(n, np.inf)
    below = np.full(n, np.inf)
    known = np.isfinite(time)
    here = known & (nodes == top[offer])
    np.minimum.at(at_top, offer[here], time[here])
    here = known & (nodes == top[offer] - 1)
    np.minimum.at(below, offer[here], time[here])
    fastest = np.full(n, np.inf)
    np.minimum.at(fastest, offer[known], time[known])
    on_time = np.isin(offers.instance_type.astype(str), offers.instance_type[met].astype(str))
    rows = np.flatnonzero(
        np.isfinite(at_top) & (at_top <= fastest) & (at_top < below) & np.isfinite(below) & ~on_time
    )
    node_limit = constraints.node_limit(service=False)
    gpu_limit = constraints.total_gpu_limit
    beyond = _hours_at_most(offers, rows, top[rows], hours_at)
    hopeless = beyond > deadline  # nan (not estimated): not known to be hopeless
    out = []
    for limit, mask in _limits_past(offers, rows, top[rows] + 1, node_limit, gpu_limit):
        mask = mask & ~hopeless
        if not mask.any():
            continue
        types = _fastest_first(offers, rows[mask], at_top[rows[mask]])
        out.append(
            LoadLimit(limit=limit, instance_types=types, nodes=node_limit, gpus=gpu_limit, over_deadline=True)
        )
    if hopeless.any():
        types = _fastest_first(offers, rows[hopeless], beyond[hopeless])
        out.append(
            LoadLimit(
                limit=Limit.SEARCH,
                instance_types=types,
                nodes=node_limit,
                gpus=gpu_limit,
                over_deadline=True,
                at_most_h=float(beyond[hopeless].min()),
            )
        )
    return tuple(out)


def _hours_at_most(
    offers: OfferTable,
    rows: np.ndarray,
    top: np.ndarray,
    hours_at: Callable[[int, int], float | None] | None,
) -> np.ndarray:
    """Per offer of ``rows``: the estimator's time on the most whole instances that hold at most
    :data:`MAX_TOTAL_GPUS` GPUs, h, where that is more than its ``top`` count searched; nan where
    it is not (no larger count, no time, or no ``hours_at``). Each provider's instance type is
    asked once."""
    out = np.full(rows.size, np.nan)
    if hours_at is None:
        return out
    asked: dict[tuple[str, str, int], float | None] = {}
    for k, row in enumerate(rows.tolist()):
        most = MAX_TOTAL_GPUS // max(1, int(offers.gpu_count[row]))
        if most <= top[k]:
            continue
        key = (str(offers.provider[row]), str(offers.instance_type[row]), most)
        if key not in asked:
            asked[key] = hours_at(row, most)
        hours = asked[key]
        out[k] = hours if hours is not None else np.nan
    return out


def _limits_past(
    offers: OfferTable, rows: np.ndarray, following: np.ndarray, node_limit: int, gpu_limit: int
) -> list[tuple[Limit, np.ndarray]]:
    """Each limit the ``following`` count of offer ``rows`` is past, with the rows it stops (a mask
    over ``rows``), in ``Limit`` order; a row past none is in no mask."""
    past_nodes = following > node_limit
    past_gpus = following * np.floor(offers.gpu_count[rows]) > gpu_limit
    # past the GPUs too, raising the instance limit alone would not help; past the planner's own
    # search (the user set no lower GPU limit), no flag does
    kinds = (
        {Limit.GPUS: past_gpus & ~past_nodes, Limit.NODES_AND_GPUS: past_gpus & past_nodes}
        if gpu_limit < MAX_TOTAL_GPUS
        else {Limit.SEARCH: past_gpus}
    )
    kinds[Limit.NODES] = past_nodes & ~past_gpus
    return [(limit, mask) for limit in Limit if (mask := kinds.get(limit)) is not None and mask.any()]


def _fastest_first(offers: OfferTable, rows: np.ndarray, time_h: np.ndarray) -> tuple[str, ...]:
    """The instance types of offer ``rows``, each once, by their fastest time at the limit, then by
    name: those nearest the deadline are named first."""
    best: dict[str, float] = {}
    for name, t in zip(offers.instance_type[rows].astype(str).tolist(), time_h.tolist(), strict=True):
        best[name] = min(best.get(name, float("inf")), t)
    return tuple(sorted(best, key=lambda name: (best[name], name)))


def _cheapest_first(offers: OfferTable, rows: np.ndarray, rps: np.ndarray) -> tuple[str, ...]:
    """The instance types of offer ``rows``, each once, by their lowest price per request/s carried
    (``rps``: what one instance's replicas carry), then by name: those a higher limit is likeliest to
    make the best option are named first; one whose figures are unknown, last."""
    hourly = offers.price_usd[rows] / offers.unit_hours[rows]
    with np.errstate(divide="ignore", invalid="ignore"):
        per_rps = np.where(rps > 0, hourly / rps, np.inf)
    best: dict[str, float] = {}
    for name, price in zip(offers.instance_type[rows].astype(str).tolist(), per_rps.tolist(), strict=True):
        key = price if price == price else float("inf")  # nan (no price): last
        best[name] = min(best.get(name, float("inf")), key)
    return tuple(sorted(best, key=lambda name: (best[name], name)))
