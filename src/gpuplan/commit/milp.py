"""The exact commitment optimiser: a mixed-integer program solved by HiGHS (``scipy.optimize.milp``).

Variables, for a horizon of H months:

- ``c[j, s]`` integer ≥ 0: units of commitment offer j (a monthly subscription or a reserved term)
  bought at the start of month s, for s = 0 … H−1; cost ``price_j per month × billed months``
  (the whole term, or only its months inside the horizon under ``past_horizon: remaining_value``);
- ``y[d, m, k]`` in [0, GPUs at once of demand d in month m]: GPUs of demand d bought by the hour
  during slice k of month m (``overlap.month_slices``: hours of the month with the same demands
  running, taken at their worst), at the cheaper of its covers per useful GPU-hour
  (``recourse.hourly_options``: on-demand, or spot for an interruptible demand at price × overhead;
  each × the whole instances a run takes, plus what its runs pay besides GPU time in the offer's
  region less what they pay on committed GPUs: ``HourlyOptions.committed_data``; a copy of the
  dataset kept in a region enters spread over the demand's GPU-hours, ``Demand.data_rate``, and is
  paid whole when the schedule is priced) × the slice's hours; absent when the demand has neither.
  The demands of one price in a slice share one variable, bounded by their GPUs together.

Per pool (``Demand.pool``: a GPU type, on the instances its demands' hours hold on, e.g. only the
instance type a multi-node run was sized on), month m and slice k: ``Σ c[j, s] · gpus_j (j active
in m) + Σ y[d, m, k] ≥ load of the slice`` (GPUs at once: a committed GPU serves one GPU-hour per
hour, so committed GPUs idle in another slice do not count here); only the pool's offers enter it.
The slices' hours × loads add up to the month's GPU-hours, so the month's GPU-hours are covered
too. Hourly capacity counts only up to each demand's own GPUs, at its own price: a 1-GPU run's
hours cannot be bought at an 8-GPU run's price per GPU-hour.

Reductions keep it small and stay exact, each by a dominance argument:

- among commitment offers of one GPU type and term, a unit of k GPUs is dropped when r = k / k'
  smaller units of k' GPUs cost no more (r of them give the same capacity; e.g. Alibaba's 8-GPU
  subscription at 8 × its 1-GPU price). Where they cost exactly the same, the schedule is shown
  with the larger units afterwards (same cost, fewer machines to buy);
- paid in full, a term that would start after month H − term covers less of the horizon than the
  same term started then, at the same price, so only starts s ≤ max(0, H − term) are offered;
- ``c[j, s]`` is bounded by the units that cover the largest load at once in its term (one more
  costs money and covers nothing).

The recourse cost is recomputed from the integer solution in closed form
(``recourse.price_schedule``), so the reported totals do not carry the solver's tolerances.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from gpuplan.commit.model import Commitment, Demand, Pool, PricedOffer, TcoProblem
from gpuplan.commit.overlap import month_slices
from gpuplan.commit.recourse import HourlyOptions
from gpuplan.errors import InfeasibleError, Phrase
from gpuplan.i18n.messages import N_

__all__ = ["MilpOutcome", "commitment_offers", "solve_milp"]


@dataclass(frozen=True, kw_only=True)
class MilpOutcome:
    """The commitments the MILP chose and how the solver did."""

    commitments: tuple[Commitment, ...]
    variables: int
    integer_variables: int
    constraints: int
    status: str
    """How each GPU type's solve ended, joined by "; ": :data:`SOLVER_STATUS` words (English,
    translated where shown: :func:`status_text`), or HiGHS's own message for an outcome not listed."""


#: scipy.optimize.milp's ``status`` codes (HiGHS's outcome) in words; 4 (another outcome) keeps
#: HiGHS's own message, quoted.
SOLVER_STATUS = {
    0: N_("optimal"),
    1: N_("time or iteration limit reached"),
    2: N_("infeasible"),
    3: N_("unbounded"),
}
#: The status when there was nothing to solve (no demand).
NOTHING_TO_SOLVE = N_("nothing to solve")


def status_text(status: str) -> str:
    """:attr:`MilpOutcome.status` in the current language."""
    from gpuplan.i18n.messages import _ as tr  # `_` is a loop's throwaway name in this module

    known = {*SOLVER_STATUS.values(), NOTHING_TO_SOLVE}
    return tr("; ").join(tr(part) if part in known else part for part in status.split("; "))


def _cheapest_per_size(problem: TcoProblem) -> dict[tuple[str, int], list[PricedOffer]]:
    """Per (GPU type demanded, term): the cheapest commitment offer of each unit size, by size."""
    demanded = set(problem.gpus())
    best: dict[tuple[str, int, float], PricedOffer] = {}
    for o in problem.offers:
        if not o.is_commitment or o.gpu not in demanded:
            continue
        key = (o.gpu, o.term_months, o.gpus_per_unit)
        cur = best.get(key)
        if cur is None or (o.usd_per_unit_month, o.tie_key) < (cur.usd_per_unit_month, cur.tie_key):
            best[key] = o
    groups: dict[tuple[str, int], list[PricedOffer]] = {}
    for (gpu, term, _), o in sorted(best.items()):
        groups.setdefault((gpu, term), []).append(o)
    return groups


def _ratio(big: PricedOffer, small: PricedOffer) -> int | None:
    """How many ``small`` units make one ``big`` unit, when a whole number does."""
    r = big.gpus_per_unit / small.gpus_per_unit
    return round(r) if r > 1 and abs(r - round(r)) < 1e-9 else None


def commitment_offers(problem: TcoProblem) -> list[PricedOffer]:
    """The commitment offers worth considering (see the module docstring's reductions)."""
    kept = []
    for offers in _cheapest_per_size(problem).values():
        for big in offers:
            dominated = any(
                (r := _ratio(big, small)) is not None
                and r * small.usd_per_unit_month <= big.usd_per_unit_month * (1 + 1e-12)
                for small in offers
            )
            if not dominated:
                kept.append(big)
    return sorted(kept, key=lambda o: (o.gpu, o.term_months, o.gpus_per_unit, o.label))


def _consolidate(problem: TcoProblem, commitments: list[Commitment]) -> tuple[Commitment, ...]:
    """Show r small units as one larger unit where the larger costs exactly r times as much."""
    groups = _cheapest_per_size(problem)
    out = []
    for c in commitments:
        units, small = c.units, c.offer
        for big in reversed(groups.get((small.gpu, small.term_months), [])):
            r = _ratio(big, small)
            if (
                r is None
                or units < r
                or not math.isclose(r * small.usd_per_unit_month, big.usd_per_unit_month, rel_tol=1e-9)
            ):
                continue
            n = units // r
            paid = problem.billed_months(big, c.start_month)
            out.append(
                Commitment(
                    offer=big,
                    units=n,
                    start_month=c.start_month,
                    cost_usd=n * big.usd_per_unit_month * paid,
                    host=c.host,
                )
            )
            units -= n * r
        if units:
            paid = problem.billed_months(small, c.start_month)
            out.append(
                Commitment(
                    offer=small,
                    units=units,
                    start_month=c.start_month,
                    cost_usd=units * small.usd_per_unit_month * paid,
                    host=c.host,
                )
            )
    return tuple(sorted(out, key=lambda c: (c.start_month, c.offer.label)))


def solve_milp(
    problem: TcoProblem,
    options: Mapping[Pool, HourlyOptions],
    *,
    time_limit_s: float = 60.0,
    integral: bool = True,
) -> MilpOutcome:
    """Choose the commitments that minimise the total cost over the horizon.

    Pools (:attr:`Demand.pool`: a GPU type, on the instances its demands' hours hold on) share no
    variable and no row, so each is its own, smaller MILP (branch and bound grows faster than
    linearly with the size); a unit is bought for one pool and serves its demands only (one of
    another pool's instance type too could serve both: the conservative bound). ``integral=False``
    solves the LP relaxation (fractional units; a lower bound, for benchmarks).
    """
    parts = []
    for pool in problem.pools():
        sub = replace(
            problem,
            demands=tuple(d for d in problem.demands if d.pool == pool),
            offers=problem.pool_offers(pool),
        )
        # ``options`` number the spot demands by their place in the whole problem; the sub-problem
        # keeps only this pool's demands, so its spot hours are read from the whole problem's.
        parts.append(
            _solve_one(sub, pool, options, problem.demands, time_limit_s=time_limit_s, integral=integral)
        )
    return MilpOutcome(
        commitments=tuple(
            sorted((c for p in parts for c in p.commitments), key=lambda c: (c.start_month, c.offer.label))
        ),
        variables=sum(p.variables for p in parts),
        integer_variables=sum(p.integer_variables for p in parts),
        constraints=sum(p.constraints for p in parts),
        status="; ".join(dict.fromkeys(p.status for p in parts)) or NOTHING_TO_SOLVE,
    )


def _solve_one(
    problem: TcoProblem,
    pool: Pool,
    options: Mapping[Pool, HourlyOptions],
    all_demands: Sequence[Demand],
    *,
    time_limit_s: float,
    integral: bool,
) -> MilpOutcome:
    """:func:`solve_milp` for the demands and offers given (those of ``pool``); ``all_demands`` are
    the whole problem's, which the spot options of ``options`` index."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_matrix

    h = problem.horizon_months
    g = pool[0]
    # One row per month and slice of the month's hours (the pool's demands' load at once).
    row_where: list[int] = []
    slices = {}
    need_list: list[float] = []
    members = [i for i, d in enumerate(all_demands) if d.pool == pool]
    for m in range(h):
        cut = month_slices([all_demands[i] for i in members], m)
        slices[m] = [(len(need_list) + k, piece, members) for k, piece in enumerate(cut)]
        need_list += [piece.load for piece in cut]
        row_where += [m] * len(cut)
    need = np.asarray(need_list, dtype=float)

    cost: list[float] = []
    upper: list[float] = []
    integer: list[int] = []
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    chosen: list[tuple[PricedOffer, int]] = []

    def add(c: float, ub: float, is_int: bool, cells: Sequence[tuple[int, float]]) -> None:
        col = len(cost)
        cost.append(c)
        upper.append(ub)
        integer.append(1 if is_int and integral else 0)
        for r, v in cells:
            rows.append(r)
            cols.append(col)
            vals.append(v)

    for o in commitment_offers(problem):
        # Paid in full, a later start covers less for the same price (module docstring).
        last_start = max(0, h - o.term_months) if problem.past_horizon == "full" else h - 1
        for s in range(last_start + 1):
            active = range(s, min(s + o.term_months, h))
            cells = [(r, o.gpus_per_unit) for m in active for r, _, _ in slices[m]]
            peak = max((float(need[r]) for r, _ in cells), default=0.0)
            units = math.ceil(peak / o.gpus_per_unit - 1e-9)
            if units <= 0:
                continue
            add(o.usd_per_unit_month * problem.billed_months(o, s), units, True, cells)
            chosen.append((o, s))
    opts = options[pool]
    # A demand's hours bought by the hour go to the cheaper of its covers (both draw on the same
    # hours, so the dearer is never bought). What its runs pay besides GPU time is paid either
    # way: by the hour where the hourly offer is, committed at ``committed_data``; its GPU-hours
    # on committed GPUs are its GPUs less ``y``, so ``y``'s cost is the difference (the rest is
    # a constant).
    price = {
        i: min(c.usd_per_useful_gpu_hour for c in (opts.on_demand.get(i), opts.spot.get(i)) if c)
        - opts.committed_data_usd_per_gpu_hour(i)
        for i in set(opts.on_demand) | set(opts.spot)
    }
    for m in range(h):
        for r, piece, members in slices[m]:
            # Demands running in the slice at one price share one variable, bounded by their GPUs
            # together (exact: the cost is linear and only the sum enters the row).
            by_price: dict[float, float] = {}
            for k, at_once in piece.gpus.items():
                if (p := price.get(members[k])) is not None:
                    by_price[p] = by_price.get(p, 0.0) + at_once
            for p, at_once in sorted(by_price.items()):
                add(p * piece.hours, at_once, False, [(r, 1.0)])

    n = len(cost)
    a = coo_matrix((vals, (rows, cols)), shape=(len(need), n)).tocsr()
    reachable = (
        np.asarray(a.multiply(np.asarray(upper)[None, :]).sum(axis=1)).ravel() if n else np.zeros(len(need))
    )
    short = np.flatnonzero(need > reachable + 1e-9)
    if short.size:
        m = row_where[int(short[0])]
        if not problem.offers:
            # nothing to allow: no pricing model has a price of it (H100 on the Chinese clouds)
            raise InfeasibleError.worded(
                N_(
                    "the demand for {gpu} cannot be met: no price of {gpu} under any pricing model "
                    "within the constraints; name more providers or regions (`gpuplan offers --gpu "
                    "{gpu}` lists who sells it)"
                ),
                gpu=g,
            )
        what = Phrase(N_("no on-demand price") if not options[pool].on_demand else N_("too little capacity"))
        raise InfeasibleError.worded(
            N_(
                "the demand for {gpu} in month {month} cannot be met: {what} for it within the constraints "
                "(spot serves interruptible demand only); allow on_demand, or more providers or regions"
            ),
            # a pool of one instance type is named by it: other instances of its GPU may have prices
            gpu=g if pool[1] is None else f"{g} ({pool[1].instance_type})",
            month=m + 1,
            what=what,
        )
    if n == 0:
        return MilpOutcome(
            commitments=(), variables=0, integer_variables=0, constraints=0, status=NOTHING_TO_SOLVE
        )
    c_vec, ints, bounds = np.asarray(cost), np.asarray(integer), Bounds(np.zeros(n), np.asarray(upper))
    demand_rows = LinearConstraint(a, lb=need, ub=np.full(len(need), np.inf))
    # mip_rel_gap 0: prove optimality, not HiGHS's default 0.01 % gap.
    highs = {"mip_rel_gap": 0.0, "time_limit": time_limit_s, "disp": False}
    res = milp(c=c_vec, integrality=ints, bounds=bounds, constraints=demand_rows, options=highs)
    word = SOLVER_STATUS.get(int(res.status))
    status = word if word is not None else f"HiGHS: {str(res.message)[:200]!r}"
    if res.x is None:
        raise InfeasibleError.worded(
            N_("the commitment optimiser found no solution ({why})"),
            why=Phrase(word) if word is not None else status,
        )
    x = np.asarray(res.x)
    commitments = []
    for col, (o, s) in enumerate(chosen):
        units = round(float(x[col]))
        if units > 0:
            commitments.append(
                Commitment(
                    offer=o,
                    units=units,
                    start_month=s,
                    cost_usd=units * o.usd_per_unit_month * problem.billed_months(o, s),
                    host=pool[1],
                )
            )
    return MilpOutcome(
        commitments=_consolidate(problem, commitments),
        variables=n,
        integer_variables=int(sum(integer)),
        constraints=len(need),
        status=status,
    )
