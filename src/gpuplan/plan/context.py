"""The planner's working set for one plan, as one public, typed object.

:class:`PlanContext` holds the offers, the enumerated candidates, their costs, the job's facts
and the user's constraints. The planner builds it once; the ranking, the option builder and the
infeasibility explanation (plan/explain.py) all read it, so none of them needs the planner itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gpuplan.catalog.dates import DEFAULT_STALE_AFTER_DAYS
from gpuplan.plan.candidates import Candidates
from gpuplan.plan.constraints import Constraints
from gpuplan.plan.costing import CostArrays
from gpuplan.plan.input_types import JobFacts, OfferTable
from gpuplan.plan.service_day import ServiceDays
from gpuplan.plan.unknowns import HostBounds

__all__ = ["PlanContext"]


@dataclass(frozen=True)
class PlanContext:
    """Everything one planning run has computed, indexable by candidate and cost position."""

    offers: OfferTable
    """The offers considered (one row per offer x pricing model)."""
    cands: Candidates
    """Every offer x node count, with the estimate for each."""
    costs: CostArrays
    """The all-in cost of the candidates that passed the pre-filters (``costs.idx`` into ``cands``)."""
    job: JobFacts
    constraints: Constraints
    best: CostArrays | None = None
    """The same candidates costed with every unknown fact at its best case (positions as ``costs``)."""
    bounds: HostBounds | None = None
    """The conservative bounds the unknown instance facts were taken at."""
    stale_after_days: int = DEFAULT_STALE_AFTER_DAYS
    """The staleness limit the offers' ``stale`` flags were set against, days."""
    days: ServiceDays | None = None
    """A service with a mean below its peak: each candidate's day and the share of its fleet's
    hours it is priced at (``plan/service_day.py``); None otherwise."""
    hours_at: Callable[[int, int], float | None] | None = None
    """The estimator's failure-free time of an offer row on a count of nodes, h, as the candidates
    were asked (``plan.candidates.hours_at``): for a count past the search's limits; None: not
    available."""
