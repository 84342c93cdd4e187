"""The exact commitment optimiser: a mixed-integer program solved by HiGHS (``scipy.optimize.milp``).

Variables, for a horizon of H months:

- ``c[j, s]`` integer ≥ 0: units of commitment offer j (a monthly subscription or a reserved term)
  bought at the start of month s, for s = 0 … H−1; cost ``price_j per month × billed months``
  (the whole term, or only its months inside the horizon under ``past_horizon: remaining_value``);
- ``D[g, m]`` ≥ 0: on-demand GPU-hours of GPU type g in month m, at g's cheapest on-demand price
  per GPU-hour (absent when g has no on-demand price);
- ``S[d, m]`` in [0, demand_d,m]: useful spot GPU-hours of interruptible demand d in month m, at its
  cheapest spot price per useful GPU-hour (price × overhead).

Per GPU type g and month m: ``Σ c[j, s] · gpus_j · 730 (j active in m) + D[g, m] + Σ S[d, m] ≥
Σ demand[d, m]``. Spot counts towards the total only up to the interruptible demand's own hours,
so the non-interruptible demand is always met by committed and on-demand hours.

Two reductions keep it small and stay exact: among commitment offers of the same GPU type, term
and size only the cheapest is kept (a dearer identical unit is never better), and ``c[j, s]`` is
bounded by the units that would cover the largest demand in its term (one more costs money and
covers nothing). The recourse cost is recomputed from the integer solution in closed form
(``recourse.price_schedule``), so the reported totals do not carry the solver's tolerances.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from gpuplan.commit.model import Commitment, PricedOffer, TcoProblem
from gpuplan.commit.recourse import HourlyOptions
from gpuplan.errors import InfeasibleError
from gpuplan.units import HOURS_PER_MONTH

__all__ = ["MilpOutcome", "commitment_offers", "solve_milp"]


@dataclass(frozen=True, kw_only=True)
class MilpOutcome:
    """The commitments the MILP chose and how the solver did."""

    commitments: tuple[Commitment, ...]
    variables: int
    integer_variables: int
    constraints: int
    status: str


def commitment_offers(problem: TcoProblem) -> list[PricedOffer]:
    """The commitment offers worth considering: for each GPU type demanded, term and unit size,
    the cheapest per month (ties by label)."""
    demanded = set(problem.gpus())
    best: dict[tuple[str, int, float], PricedOffer] = {}
    for o in problem.offers:
        if not o.is_commitment or o.gpu not in demanded:
            continue
        key = (o.gpu, o.term_months, o.gpus_per_unit)
        cur = best.get(key)
        if cur is None or (o.usd_per_unit_month, o.label) < (cur.usd_per_unit_month, cur.label):
            best[key] = o
    return sorted(best.values(), key=lambda o: (o.gpu, o.term_months, o.gpus_per_unit, o.label))


def solve_milp(
    problem: TcoProblem, options: Mapping[str, HourlyOptions], *, time_limit_s: float = 60.0
) -> MilpOutcome:
    """Choose the commitments that minimise the total cost over the horizon."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_matrix

    h = problem.horizon_months
    gpus = list(problem.gpus())
    row_of = {(g, m): gi * h + m for gi, g in enumerate(gpus) for m in range(h)}
    need = np.zeros(len(gpus) * h)
    for d in problem.demands:
        gi = gpus.index(d.gpu)
        need[gi * h : gi * h + h] += np.asarray(d.gpu_hours, dtype=float)

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
        integer.append(1 if is_int else 0)
        for r, v in cells:
            rows.append(r)
            cols.append(col)
            vals.append(v)

    for o in commitment_offers(problem):
        gi = gpus.index(o.gpu)
        cap = o.gpus_per_unit * HOURS_PER_MONTH
        for s in range(h):
            active = range(s, min(s + o.term_months, h))
            peak = float(need[gi * h + s : gi * h + active.stop].max())
            units = math.ceil(peak / cap - 1e-9)
            if units <= 0:
                continue
            add(
                o.usd_per_unit_month * problem.billed_months(o, s),
                units,
                True,
                [(row_of[o.gpu, m], cap) for m in active],
            )
            chosen.append((o, s))
    for g in gpus:
        opts = options[g]
        if opts.on_demand is not None:
            for m in range(h):
                add(opts.on_demand.usd_per_gpu_hour, math.inf, False, [(row_of[g, m], 1.0)])
        for i in opts.spot:
            price = opts.spot_usd_per_useful_gpu_hour(i)
            for m in range(h):
                add(price, problem.demands[i].gpu_hours[m], False, [(row_of[g, m], 1.0)])

    n = len(cost)
    a = coo_matrix((vals, (rows, cols)), shape=(len(need), n)).tocsr()
    reachable = (
        np.asarray(a.multiply(np.asarray(upper)[None, :]).sum(axis=1)).ravel() if n else np.zeros(len(need))
    )
    short = np.flatnonzero(need > reachable + 1e-9)
    if short.size:
        g, m = gpus[int(short[0]) // h], int(short[0]) % h
        what = "no on-demand price" if options[g].on_demand is None else "too little capacity"
        raise InfeasibleError(
            f"the demand for {g} in month {m + 1} cannot be met: {what} for it within the constraints "
            "(spot serves interruptible demand only); allow on_demand, or more providers or regions"
        )
    if n == 0:
        return MilpOutcome(commitments=(), variables=0, integer_variables=0, constraints=0, status="empty")
    res = milp(
        c=np.asarray(cost),
        integrality=np.asarray(integer),
        bounds=Bounds(np.zeros(n), np.asarray(upper)),
        constraints=LinearConstraint(a, lb=need, ub=np.full(len(need), np.inf)),
        # mip_rel_gap 0: prove optimality, not HiGHS's default 0.01 % gap.
        options={"mip_rel_gap": 0.0, "time_limit": time_limit_s, "disp": False},
    )
    if res.x is None:
        raise InfeasibleError(f"the commitment optimiser found no solution ({res.message})")
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
                )
            )
    return MilpOutcome(
        commitments=tuple(commitments),
        variables=n,
        integer_variables=int(sum(integer)),
        constraints=len(need),
        status=str(res.message),
    )
