"""How near each option is to what it serves, the last thing that tells two options of the same cost
and time apart: a service's round trip to its users (``serving.users_in``, already on each candidate
as ``users_rtt_ms``), a job's distance from its data (``data.location``) to the option's region.

Two regions of one provider at one price are otherwise ordered by nothing the user cares about: a
plan for users in the US and Europe would name Tokyo first, a job whose data is in Virginia a region
in Australia. Nearer first; a distance not known (a region whose place is not known) is ranked after
every known one: unknown is never the best case, nor 0 km.

The distance is the great circle between the places :mod:`gpuplan.catalog.user_rtt` takes the two
regions to be at (the city their provider names, else their country's most populous city).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gpuplan.catalog.user_rtt import great_circle_km, region_place

if TYPE_CHECKING:
    from gpuplan.plan.context import PlanContext
    from gpuplan.plan.input_types import FloatArray, JobFacts

__all__ = ["data_km", "near_key"]


def data_km(job: JobFacts, provider: str, region: str, country: str = "") -> float | None:
    """Great-circle distance from the job's data (``data.location``) to ``provider``'s ``region``, km;
    None where the data's place is not given or either place is not known."""
    if job.data_location is None:
        return None
    here = region_place(*job.data_location)
    there = region_place(provider, region, country)
    if here is None or there is None:
        return None
    return great_circle_km(here, there)


def near_key(ctx: PlanContext, positions: np.ndarray) -> FloatArray | None:
    """The tie-break of the options at ``positions`` (costed positions), smaller first: a service's
    round trip to its users, ms, where users are named; else the job's distance from its data, km,
    where ``data.location`` is given; None where neither applies. Unknown is ``inf`` (ranked last)."""
    cand = ctx.costs.idx[positions]
    rtt = ctx.cands.users_rtt_ms
    if rtt is not None:
        out: FloatArray = np.nan_to_num(rtt[cand], nan=np.inf)
        return out
    if ctx.job.data_location is None:
        return None
    offers = ctx.cands.offer[cand]
    found: dict[int, float] = {}
    km = np.empty(offers.size)
    for n, i in enumerate(offers.tolist()):
        if i not in found:
            o = ctx.offers
            d = data_km(ctx.job, str(o.provider[i]), str(o.region[i]), str(o.country[i]))
            found[i] = np.inf if d is None else d
        km[n] = found[i]
    return km
