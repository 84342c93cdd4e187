"""A service short of its load because a count limit ended the search: which limit, on which
instance types, and the flag that lifts it, in words.

The planner enumerates each offer up to the instance limit (``--max-nodes``) and the GPU limit
(``--max-gpus``, at most :data:`~gpuplan.plan.constraints.MAX_TOTAL_GPUS`). An instance type whose
every count up to there is short of the load (``Reason.LOAD``) may carry it on more instances: that
is not the same as a GPU that can never carry it, and the plan says which limit stopped it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np

from gpuplan.errors import Phrase
from gpuplan.i18n import N_
from gpuplan.i18n.phrases import listed
from gpuplan.plan.candidates import REASONS, Candidates
from gpuplan.plan.constraints import MAX_TOTAL_GPUS, Constraints, Reason
from gpuplan.plan.input_types import JobFacts, OfferTable

__all__ = ["Limit", "LoadLimit", "load_limits"]

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

    @property
    def words(self) -> Phrase:
        """One line: the limit, the instance types it stopped, and what lifts it."""
        shown = listed(self.instance_types[:_NAMED])
        more = len(self.instance_types) - _NAMED
        types = Phrase(_AND_MORE, names=shown, n=more) if more > 0 else shown
        return Phrase(_WORDS[self.limit], nodes=self.nodes, gpus=self.gpus, most=MAX_TOTAL_GPUS, types=types)


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
    # requests/s one instance's replicas carry (nan: not estimated), for the order the types are named in
    replica_rps = np.full(n, np.nan)
    np.fmax.at(replica_rps, cands.offer[short], cands.replica_requests_per_s[short].astype(float))
    carried = np.zeros(n, dtype=bool)
    carried[cands.offer[cands.fits | cands.misses_latency]] = True
    rows = np.flatnonzero((top > 0) & ~carried)
    node_limit = constraints.node_limit(service=True)
    gpu_limit = constraints.total_gpu_limit
    replicas = np.floor(offers.gpu_count[rows]) // job.replica_gpus * job.replicas_per_gpu
    per_instance = replica_rps[rows] * replicas
    following = top[rows] + 1
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
    out = []
    for limit in Limit:
        mask = kinds.get(limit)
        if mask is not None and mask.any():
            types = _cheapest_first(offers, rows[mask], per_instance[mask])
            out.append(LoadLimit(limit=limit, instance_types=types, nodes=node_limit, gpus=gpu_limit))
    return tuple(out)


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
