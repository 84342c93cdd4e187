"""What hourly capacity costs once the commitments are fixed: the cheapest on-demand and spot prices
per GPU type, the spot overhead of each interruptible demand, and the cost of a whole schedule.

Given the committed GPU-hours of a month, the rest of the month's demand is a tiny linear program
with a closed-form answer: cover the uncovered hours with the cheapest hourly options first, spot
at most up to each interruptible demand's own hours. The MILP (``milp.py``) chooses the
commitments; this module prices any choice exactly, for the schedule and for the sensitivity runs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from gpuplan.commit.model import Commitment, Demand, MonthCost, PricedOffer, TcoProblem
from gpuplan.plan.spot import spot_times
from gpuplan.units import HOURS_PER_MONTH

__all__ = ["HourlyOptions", "Priced", "hourly_options", "price_schedule", "spot_overhead"]


def spot_overhead(demand: Demand, offer: PricedOffer) -> float | None:
    """Paid spot hours per useful hour for ``demand`` on ``offer``; None where the work is expected
    never to finish (interruptions outpace progress).

    A run spans ``ceil(gpus_per_run / gpus_per_unit)`` instances and any of them stops it, so it is
    interrupted at that many times the instance rate (``plan/spot.py``: Young's checkpoint interval,
    half an interval lost plus the restart per interruption). e.g. one 730-h run on one instance at
    1/24 per h, no checkpoint, 10-min restart: T = 730 / (1 − (1/6)/24) = 735.1 h → 1.00699.
    """
    rate = offer.interruptions_per_hour
    if rate is None or rate <= 0:
        return 1.0
    nodes = max(1.0, math.ceil(demand.gpus_per_run / offer.gpus_per_unit - 1e-9))
    work = np.array([demand.run_hours])
    t = spot_times(work, np.array([rate * nodes]), demand.checkpoint_write_h, demand.restart_h)
    if not bool(t.stable[0]):
        return None
    return float(t.expected_h[0] / work[0])


@dataclass(frozen=True, kw_only=True)
class HourlyOptions:
    """The hourly prices of one GPU type: on-demand for anything, spot per interruptible demand."""

    gpu: str
    on_demand: PricedOffer | None
    """The cheapest on-demand offer per GPU-hour; None when the catalog has none allowed."""
    spot: dict[int, tuple[PricedOffer, float]]
    """Demand index -> (its cheapest spot offer per useful GPU-hour, that offer's overhead)."""

    @property
    def on_demand_usd_per_gpu_hour(self) -> float | None:
        return self.on_demand.usd_per_gpu_hour if self.on_demand else None

    def spot_usd_per_useful_gpu_hour(self, demand: int) -> float:
        offer, overhead = self.spot[demand]
        return offer.usd_per_gpu_hour * overhead


def _cheapest(offers: Sequence[PricedOffer]) -> PricedOffer | None:
    # Ties broken by label so that the answer does not depend on catalog order.
    return min(offers, key=lambda o: (o.usd_per_gpu_hour, o.label), default=None)


def hourly_options(problem: TcoProblem) -> dict[str, HourlyOptions]:
    """Per GPU type demanded, the hourly prices the recourse may buy."""
    out: dict[str, HourlyOptions] = {}
    for gpu in problem.gpus():
        od = _cheapest([o for o in problem.offers if o.gpu == gpu and o.pricing == "on_demand"])
        spot_offers = [o for o in problem.offers if o.gpu == gpu and o.pricing == "spot"]
        spot: dict[int, tuple[PricedOffer, float]] = {}
        for i, d in enumerate(problem.demands):
            if d.gpu != gpu or not d.interruptible:
                continue
            best: tuple[float, str, PricedOffer, float] | None = None
            for o in spot_offers:
                f = spot_overhead(d, o)
                if f is None:
                    continue
                key = (o.usd_per_gpu_hour * f, o.label, o, f)
                if best is None or key[:2] < best[:2]:
                    best = key
            if best is not None:
                spot[i] = (best[2], best[3])
        out[gpu] = HourlyOptions(gpu=gpu, on_demand=od, spot=spot)
    return out


@dataclass(frozen=True, kw_only=True)
class Priced:
    """A schedule priced month by month."""

    monthly: tuple[MonthCost, ...]
    past_horizon_usd: float
    total_usd: float
    feasible: bool
    """False when some month's demand cannot be covered (no on-demand price and too little committed)."""


def committed_gpu_hours(problem: TcoProblem, commitments: Sequence[Commitment]) -> dict[str, list[float]]:
    """Per GPU type, the GPU-hours the commitments supply in each month of the horizon."""
    cap = {g: [0.0] * problem.horizon_months for g in problem.gpus()}
    for c in commitments:
        row = cap.setdefault(c.offer.gpu, [0.0] * problem.horizon_months)
        for m in range(c.start_month, min(c.start_month + c.offer.term_months, problem.horizon_months)):
            row[m] += c.units * c.offer.gpus_per_unit * HOURS_PER_MONTH
    return cap


def price_schedule(
    problem: TcoProblem,
    commitments: Sequence[Commitment],
    options: Mapping[str, HourlyOptions],
    demand_scale: float = 1.0,
) -> Priced:
    """Cost of ``commitments`` plus the cheapest hourly cover of the rest, month by month."""
    h = problem.horizon_months
    by_month: list[dict[str, float]] = [{} for _ in range(h)]
    past = 0.0
    for c in commitments:
        per_month = c.units * c.offer.usd_per_unit_month
        for m in range(c.start_month, c.start_month + problem.billed_months(c.offer, c.start_month)):
            if m < h:
                cell = by_month[m]
                cell[c.offer.pricing] = cell.get(c.offer.pricing, 0.0) + per_month
            else:
                past += per_month
    cap = committed_gpu_hours(problem, commitments)
    feasible = True
    for gpu, opts in options.items():
        members = [i for i, d in enumerate(problem.demands) if d.gpu == gpu]
        for m in range(h):
            need = sum(problem.demands[i].gpu_hours[m] for i in members) * demand_scale
            uncovered = max(0.0, need - cap[gpu][m])
            if uncovered <= 0.0:
                continue
            # Fill the cheapest first: each spot option up to its demand's hours, on-demand unbounded.
            fills: list[tuple[float, str, float]] = [
                (opts.spot_usd_per_useful_gpu_hour(i), "spot", problem.demands[i].gpu_hours[m] * demand_scale)
                for i in opts.spot
            ]
            if opts.on_demand is not None:
                fills.append((opts.on_demand.usd_per_gpu_hour, "on_demand", math.inf))
            for price, pricing, limit in sorted(fills, key=lambda f: f[0]):
                take = min(uncovered, limit)
                if take > 0:
                    by_month[m][pricing] = by_month[m].get(pricing, 0.0) + take * price
                    uncovered -= take
                if uncovered <= 0.0:
                    break
            if uncovered > 1e-9:
                feasible = False
    monthly = tuple(
        MonthCost(month=m, cost_usd=sum(cell.values()), by_pricing_usd=dict(sorted(cell.items())))
        for m, cell in enumerate(by_month)
    )
    total = sum(mc.cost_usd for mc in monthly) + past
    return Priced(monthly=monthly, past_horizon_usd=past, total_usd=total, feasible=feasible)
