"""A service's users' network (``serving.users_in``, ``plan --users-in``): the round trip from each
option's region to the farthest of the users' countries (:mod:`gpuplan.catalog.user_rtt`) is added to
its p95 time to first token and p95 latency before they are held to their targets; an option that
then misses one is left out (``Reason.USERS_FAR``); an option whose region's place is not known ranks
after those whose round trip is known to meet them (unknown is never the best case, nor 0 ms).
The time per output token is not touched: the gaps between streamed tokens are not round trips.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gpuplan.catalog.user_rtt import UserRtt, method_words, user_rtt
from gpuplan.i18n import N_, _
from gpuplan.i18n.numbers import format_number
from gpuplan.i18n.phrases import item_list
from gpuplan.i18n.places import city_name
from gpuplan.plan.candidates import REASONS
from gpuplan.plan.constraints import Reason

if TYPE_CHECKING:
    from gpuplan.plan.candidates import Candidates
    from gpuplan.plan.context import PlanContext
    from gpuplan.plan.input_types import JobFacts, OfferTable

__all__ = [
    "RTT_UNKNOWN_FLAG",
    "apply_users_rtt",
    "offer_rtt",
    "over_targets",
    "rtt_unknown",
    "rtt_words",
    "users_far_note",
    "users_not_counted_note",
    "users_unknown_note",
]

#: The flag of an option whose region's round trip to the users is not known.
RTT_UNKNOWN_FLAG = N_(
    "network round trip to your users unknown (where the region is, is not known): ranked after the "
    "options whose round trip is known"
)


def offer_rtt(offers: OfferTable, i: int, users: tuple[str, ...]) -> UserRtt:
    """Offer ``i``'s round trip to the farthest of ``users`` (ISO codes)."""
    return user_rtt(str(offers.provider[i]), str(offers.region[i]), users, str(offers.country[i]))


def apply_users_rtt(cands: Candidates, offers: OfferTable, job: JobFacts) -> None:
    """Set ``cands.users_rtt_ms`` for a service whose users are named, and leave out the candidates
    whose p95 time to first token or p95 latency, with the round trip added, is over its target."""
    if not job.users_in or not job.is_service or len(offers) == 0:
        return
    keys = [
        (str(p), str(r), str(k))
        for p, r, k in zip(offers.provider, offers.region, offers.country, strict=True)
    ]
    found: dict[tuple[str, str, str], float] = {}
    per_offer = np.full(len(offers), np.nan)
    for i, key in enumerate(keys):
        if key not in found:
            ms = user_rtt(key[0], key[1], job.users_in, key[2]).rtt_ms
            found[key] = np.nan if ms is None else ms
        per_offer[i] = found[key]
    rtt = per_offer[cands.offer]
    cands.users_rtt_ms = rtt
    # nan (unknown place) is never over: it is ranked after
    over = over_targets(cands.ttft_p95_s, cands.p95_latency_s, rtt, job.ttft_p95_ms, job.p95_latency_ms)
    cands.exclude(over, Reason.USERS_FAR)


def over_targets(
    ttft_p95_s: np.ndarray | float,
    p95_latency_s: np.ndarray | float,
    rtt_ms: np.ndarray | float,
    ttft_target_ms: float | None,
    latency_target_ms: float | None,
) -> np.ndarray:
    """Whether a p95 time to first token and p95 latency (s), each with the users' round trip
    (ms) added, are over their targets (None: no target); a time or round trip not known (nan) is
    not over. The rule ``plan`` leaves options out by and ``tco`` places a service's hours by."""
    shape = np.broadcast(np.asarray(ttft_p95_s), np.asarray(p95_latency_s), np.asarray(rtt_ms)).shape
    over = np.zeros(shape, dtype=bool)
    with np.errstate(invalid="ignore"):
        for time_s, target in ((ttft_p95_s, ttft_target_ms), (p95_latency_s, latency_target_ms)):
            if target is not None:
                over |= np.asarray(time_s, dtype=float) * 1000.0 + rtt_ms > target
    return over


def rtt_unknown(ctx: PlanContext, positions: np.ndarray) -> np.ndarray:
    """Which options at ``positions`` (costed positions) have no round trip to the users although
    users are named: they rank after those whose round trip is known."""
    rtt = ctx.cands.users_rtt_ms
    if rtt is None:
        return np.zeros(positions.size, dtype=bool)
    out: np.ndarray = ~np.isfinite(rtt[ctx.costs.idx[positions]])
    return out


def _where(r: UserRtt) -> str:
    assert r.region_at is not None and r.users_at is not None and r.distance_km is not None
    return _("{region} ({region_basis}) to {users} in {country} ({users_basis}), {km} km").format(
        region=city_name(r.region_at.name),
        region_basis=r.region_at.basis_words,
        users=city_name(r.users_at.name),
        country=r.country,
        users_basis=r.users_at.basis_words,
        km=format_number(round(r.distance_km)),
    )


def rtt_words(r: UserRtt) -> str:
    """How one option's round trip was found, in words (its reason where it is unknown)."""
    if r.rtt_ms is None:
        return r.unknown
    return _where(r)


def users_far_note(ctx: PlanContext) -> str | None:
    """The options left out because the round trip to the users took them past a target: how many,
    the nearest of them with its round trip, and how the round trip is estimated."""
    hit = ctx.cands.reason == REASONS.index(Reason.USERS_FAR)
    if not hit.any():
        return None
    offers_hit = np.unique(ctx.cands.offer[hit])
    trips = {
        (str(ctx.offers.provider[i]), str(ctx.offers.region[i])): offer_rtt(
            ctx.offers, int(i), ctx.job.users_in
        )
        for i in offers_hit
    }
    known = sorted((r.rtt_ms, name) for name, r in trips.items() if r.rtt_ms is not None)
    near, far = known[0][1], known[-1][1]
    return _(
        "{n} candidates in {regions} regions left out (too_far_from_users): with the network round trip "
        "to your users in {users} added they miss the {target}; round trips from {near} to {far}; "
        "estimated as {method}"
    ).format(
        n=format_number(int(hit.sum())),
        regions=format_number(len(trips)),
        users=item_list(ctx.job.users_in),
        target=_targets(ctx.job),
        near=_one(near, trips[near]),
        far=_one(far, trips[far]),
        method=method_words(),
    )


def _one(name: tuple[str, str], r: UserRtt) -> str:
    assert r.rtt_ms is not None
    return _("{rtt} ms ({provider}/{region}: {where})").format(
        rtt=format_number(round(r.rtt_ms)), provider=name[0], region=name[1], where=_where(r)
    )


def _targets(job: JobFacts) -> str:
    said = []
    if job.ttft_p95_ms is not None:
        said.append(_("p95 time-to-first-token target ({ms:g} ms)").format(ms=job.ttft_p95_ms))
    if job.p95_latency_ms is not None:
        said.append(_("p95 latency target ({ms:g} ms)").format(ms=job.p95_latency_ms))
    return _(" or ").join(said) if said else _("latency targets")


def users_unknown_note(ctx: PlanContext, feasible: np.ndarray) -> str | None:
    """The options whose region's place is not known, so whose round trip to the users is not: ranked
    after those whose round trip is known, and why."""
    unknown = rtt_unknown(ctx, feasible)
    if not unknown.any():
        return None
    rows = sorted(
        {
            (str(ctx.offers.provider[i]), str(ctx.offers.region[i]))
            for i in ctx.cands.offer[ctx.costs.idx[feasible[unknown]]]
        }
    )
    names = [f"{p}/{r}" for p, r in rows]
    return _(
        "{regions}: where the region is, is not known (no city in its provider's facts and no country), "
        "so the network round trip to your users is not; their options rank after those whose round "
        "trip is known to meet the targets"
    ).format(regions=item_list(names[:8]) + (f" (+{len(names) - 8})" if len(names) > 8 else ""))


def users_not_counted_note(job: JobFacts) -> str | None:
    """A service with a p95 time-to-first-token or latency target and no users named: the targets
    are held at the server, the network to the users not counted; how to count it."""
    if job.users_in or not job.is_service or (job.ttft_p95_ms is None and job.p95_latency_ms is None):
        return None
    return _(
        "the latency targets are held at the server: the network round trip to your users is not "
        "counted; name where they are with serving.users_in: [SG, CN] (or --users-in SG,CN) to add it"
    )
