"""What hourly capacity costs once the commitments are fixed: each demand's cheapest on-demand and
spot price per useful GPU-hour (a run is bought as whole instances; spot pays its overhead), and
the cost of a whole schedule.

Given the committed GPUs of a month, the rest of each slice of its hours (``overlap.month_slices``:
the demands running at once) is a tiny linear program with a closed-form answer: the GPUs the load
needs above the committed ones are bought by the hour for the slice's hours, from the cheapest
covers of the demands running then first, each demand at most up to its own GPUs at once
(commitments then serve the dearest). The MILP (``milp.py``) chooses the commitments; this module
prices any choice exactly, for the schedule and for the sensitivity runs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from gpuplan.commit.model import (
    Commitment,
    DataCopyChoice,
    DataRate,
    Demand,
    HostNeed,
    MonthCost,
    Pool,
    PricedOffer,
    TcoProblem,
    copy_choice,
)
from gpuplan.commit.overlap import month_slices
from gpuplan.plan.billing import billed_hours
from gpuplan.plan.spot import spot_times
from gpuplan.units import HOURS_PER_MONTH, instances_for

__all__ = [
    "HourlyCover",
    "HourlyOptions",
    "Priced",
    "hourly_options",
    "packing",
    "price_schedule",
    "spot_overhead",
    "spot_run",
]


def spot_overhead(demand: Demand, offer: PricedOffer) -> float | None:
    """Paid spot hours per useful hour for ``demand`` on ``offer``; None where the work is expected
    never to finish (interruptions outpace progress). See :func:`spot_run`."""
    run = spot_run(demand, offer)
    return None if run is None else run[0]


def spot_run(demand: Demand, offer: PricedOffer) -> tuple[float, float] | None:
    """Paid spot hours per useful hour for ``demand`` on ``offer``, and a run's expected reclaims
    (each may copy its dataset in again: ``RunData.recopy_usd``); None where the work is expected
    never to finish (interruptions outpace progress).

    A run spans ``ceil(gpus_per_run / gpus_per_unit)`` instances and any of them stops it, so it is
    interrupted at that many times the instance rate (``plan/spot.py``: Young's checkpoint interval,
    half an interval lost plus the restart per interruption; a run that ``restarts_from_scratch``
    loses all its work: (e^(rW) − 1)(1/r + R)). e.g. one 730-h run on one instance at
    1/24 per h, no checkpoint, 10-min restart: T = 730 / (1 − (1/6)/24) = 735.1 h → 1.00699.

    A useful hour is an hour of the run as it is billed on demand, its checkpoint writes there
    (``Demand.checkpoint_hours_off_spot``) included; on spot the run writes at its own interval
    (Young/Daly's, or the workload's where shorter: ``Demand.checkpoint_every_h``), as the planner
    costs it, so the overhead is T(W) / (W + the writes off spot), W the run's ``run_hours``.

    A service (``Demand.spare_replica_gpus``) is priced as the plan prices one on spot instead: its
    fleet with a spare unit beside it (:func:`service_spare_overhead`), no run lost.
    """
    if demand.spare_replica_gpus > 0:
        return service_spare_overhead(demand, offer), 0.0
    rate = offer.interruptions_per_hour
    if rate is None or rate <= 0:
        return 1.0, 0.0
    nodes = instances_for(demand.gpus_per_run, offer.gpus_per_unit)
    work = np.array([demand.run_hours])
    t = spot_times(
        work,
        np.array([rate * nodes]),
        demand.checkpoint_write_h,
        demand.restart_h,
        from_scratch=demand.restarts_from_scratch,
        max_interval_h=demand.checkpoint_every_h,
    )
    if not bool(t.stable[0]):
        return None
    return float(t.expected_h[0] / (work[0] + demand.checkpoint_hours_off_spot)), float(t.interruptions[0])


def service_spare_overhead(demand: Demand, offer: PricedOffer) -> float:
    """Paid spot hours per useful hour of a service (``Demand.spare_replica_gpus``) on ``offer``:
    its fleet's hours and a spare unit's beside them, the fewest of ``offer``'s instances holding
    one replica, for every busy hour of a run, as the plan prices a service on spot
    (``plan/spot.py``'s ``service_spot``). A service runs its calendar time whatever is reclaimed
    (the spare holds the load target meanwhile), so no lost work or restart is paid besides. e.g. 2
    one-GPU replicas all month on 1-GPU instances: (2 + 1) / 2 = 1.5."""
    spare_gpus = instances_for(demand.spare_replica_gpus, offer.gpus_per_unit) * offer.gpus_per_unit
    busy_h = min(demand.run_hours, HOURS_PER_MONTH)
    paid = packing(demand, offer) * demand.gpu_hours_per_run
    return 1.0 + spare_gpus * busy_h / paid if paid > 0 else 1.0


def packing(demand: Demand, offer: PricedOffer) -> float:
    """Paid GPU-hours per GPU-hour a run of ``demand`` uses on ``offer`` bought by the hour.

    A run is bought as whole instances, ``ceil(gpus_per_run / gpus_per_unit)`` of them: a 1-GPU run
    on AWS's 8-GPU p4d.24xlarge pays for 8 GPUs (8.0), a 4-GPU run on it for 8 (2.0), a 16-GPU run
    on two of them for 16 (1.0). Several small runs could share one instance; whether they run at
    the same time is not known, so each is bought alone (the conservative bound)."""
    return instances_for(demand.gpus_per_run, offer.gpus_per_unit) * offer.gpus_per_unit / demand.gpus_per_run


@dataclass(frozen=True, kw_only=True)
class HourlyCover:
    """How one demand's hours are bought by the hour on one offer."""

    offer: PricedOffer
    overhead: float = 1.0
    """Paid hours per useful hour (spot: checkpoints, lost work, restarts; 1 on demand)."""
    packing: float = 1.0
    """Paid GPU-hours per GPU-hour the run uses (whole instances: :func:`packing`)."""
    data: DataRate | None = None
    """What a useful GPU-hour pays besides GPU time in the offer's region (:meth:`Demand.data_rate`);
    None: nothing (no data facts)."""
    billing: float = 1.0
    """Billed hours per paid hour: a run's paid hours rounded up to the offer's billing step and
    minimum, as the plan bills them (:func:`run_billing`); 1 for a service or a direct demand."""

    @property
    def data_usd_per_gpu_hour(self) -> float:
        return self.data.usd_per_gpu_hour if self.data is not None else 0.0

    @property
    def compute_usd_per_useful_gpu_hour(self) -> float:
        """GPU time only."""
        return self.offer.usd_per_gpu_hour * self.overhead * self.packing * self.billing

    @property
    def usd_per_useful_gpu_hour(self) -> float:
        """GPU time and what the run pays besides it where the offer is."""
        return self.compute_usd_per_useful_gpu_hour + self.data_usd_per_gpu_hour


@dataclass(frozen=True, kw_only=True)
class HourlyOptions:
    """The hourly prices of one pool's demands (its GPU type, on the instances their hours hold on:
    :attr:`Demand.pool`): on-demand for any, spot for an interruptible one."""

    gpu: str
    host: HostNeed | None = None
    """The pool's instances (:class:`HostNeed`); None: any of ``gpu``."""
    on_demand: dict[int, HourlyCover]
    """Demand index -> its cheapest on-demand cover per useful GPU-hour (none: no price allowed)."""
    spot: dict[int, HourlyCover]
    """Demand index -> its cheapest spot cover per useful GPU-hour."""
    committed_data: dict[int, DataRate] = field(default_factory=dict)
    """Demand index -> what a GPU-hour of it served by a committed GPU pays besides GPU time: the
    dearest over the regions of the pool's commitment offers (which committed GPU serves which
    run is not modelled, so the conservative bound), its hours taken to run in that region. Absent:
    0 (no data facts)."""

    def committed_data_usd_per_gpu_hour(self, demand: int) -> float:
        rate = self.committed_data.get(demand)
        return rate.usd_per_gpu_hour if rate is not None else 0.0

    def on_demand_usd_per_gpu_hour(self, demand: int) -> float | None:
        cover = self.on_demand.get(demand)
        return cover.usd_per_useful_gpu_hour if cover else None

    def spot_usd_per_useful_gpu_hour(self, demand: int) -> float:
        return self.spot[demand].usd_per_useful_gpu_hour


def run_billing(demand: Demand, offer: PricedOffer, overhead: float = 1.0) -> float:
    """Billed hours per paid hour of one run of ``demand`` on ``offer`` (hourly pricing): the run's
    hours (its work, the checkpoint writes off spot, × ``overhead``: its paid hours per useful
    hour) rounded up to the offer's billing step and at least its minimum, as the plan bills an
    option's run (:func:`gpuplan.plan.billing.billed_hours`: an unknown step is a whole hour), over
    those hours. e.g. a 38.16-h run on spot billed by the hour: 39 h, 1.022. 1 for a service (a
    month of it is whole hours) and a direct demand (GPUs at once, no runs)."""
    job = demand.job
    paid = (demand.run_hours + demand.checkpoint_hours_off_spot) * overhead
    if job is None or job.requests_per_s is not None or not paid > 0:
        return 1.0

    def seconds(v: int | None) -> float:
        return math.nan if v is None else float(v)

    step, least = seconds(offer.billing_granularity_s), seconds(offer.min_billing_s)
    billed = billed_hours(np.array([paid]), np.array([step]), np.array([least]))
    return float(billed[0]) / paid


def _cheapest(covers: Sequence[HourlyCover]) -> HourlyCover | None:
    # Ties broken by the price's date, then by label (PricedOffer.tie_key).
    return min(covers, key=lambda c: (c.usd_per_useful_gpu_hour, c.offer.tie_key), default=None)


def _committed_data(demand: Demand, offers: Sequence[PricedOffer]) -> DataRate | None:
    """What a GPU-hour of ``demand`` served by one of ``offers`` (commitments) pays besides GPU
    time: the dearest of their regions (a region whose figure is not known is not offered for an
    hour bought by the hour; a committed GPU there is bounded by the dearest run of any region,
    its dataset moved in for every run)."""
    known = [r for o in offers if (r := demand.data_rate(o.provider, o.region)) is not None]
    if demand.run_data and len(known) < len(offers):
        bound = max(r.usd for r in demand.run_data) / demand.gpu_hours_per_run
        known.append(DataRate(provider="", region="", usd_per_gpu_hour=bound, run_usd_per_gpu_hour=bound))
    return max(known, key=lambda r: (r.usd_per_gpu_hour, r.provider, r.region), default=None)


def _data(
    demand: Demand, offer: PricedOffer, overhead: float = 1.0, reclaims: float = 0.0
) -> DataRate | None:
    return demand.data_rate(offer.provider, offer.region, overhead, reclaims)


def hourly_options(problem: TcoProblem) -> dict[Pool, HourlyOptions]:
    """Per pool demanded (:attr:`Demand.pool`), the hourly prices the recourse may buy for each of
    its demands: each offer its hours hold on, at its price per useful GPU-hour plus what the
    demand's runs pay besides GPU time in its region (so a region far from the data pays the
    transfer); an offer in a region whose figure is not known is not used for that demand."""
    out: dict[Pool, HourlyOptions] = {}
    for pool in problem.pools():
        offers = problem.pool_offers(pool)
        od_offers = [o for o in offers if o.pricing == "on_demand"]
        spot_offers = [o for o in offers if o.pricing == "spot"]
        committed = [o for o in offers if o.is_commitment]
        on_demand: dict[int, HourlyCover] = {}
        spot: dict[int, HourlyCover] = {}
        committed_data: dict[int, DataRate] = {}
        for i, d in enumerate(problem.demands):
            if d.pool != pool:
                continue
            if committed and d.run_data and (rate := _committed_data(d, committed)) is not None:
                committed_data[i] = rate
            od = _cheapest(
                [
                    HourlyCover(offer=o, packing=packing(d, o), data=data, billing=run_billing(d, o))
                    for o in od_offers
                    if (data := _data(d, o)) is not None or not d.run_data
                ]
            )
            if od is not None:
                on_demand[i] = od
            if not d.interruptible:
                continue
            covers = [
                HourlyCover(
                    offer=o,
                    overhead=run[0],
                    packing=packing(d, o),
                    data=data,
                    billing=run_billing(d, o, run[0]),
                )
                for o in spot_offers
                if (run := spot_run(d, o)) is not None
                and ((data := _data(d, o, *run)) is not None or not d.run_data)
            ]
            if (best := _cheapest(covers)) is not None:
                spot[i] = best
        out[pool] = HourlyOptions(
            gpu=pool[0], host=pool[1], on_demand=on_demand, spot=spot, committed_data=committed_data
        )
    return out


@dataclass(frozen=True, kw_only=True)
class Priced:
    """A schedule priced month by month."""

    monthly: tuple[MonthCost, ...]
    past_horizon_usd: float
    total_usd: float
    feasible: bool
    """False when some month's demand cannot be covered (no on-demand price and too little committed)."""
    data_usd: float = 0.0
    """The part of ``total_usd`` that is not GPU time (``MonthCost.data_usd``)."""
    data_copies: tuple[DataCopyChoice, ...] = ()
    """How each demand's dataset gets to each region its runs are placed in away from its data."""
    bought: frozenset[tuple[int, str]] = frozenset()
    """(demand index, ``on_demand`` or ``spot``): the hourly covers the schedule buys hours of. A
    demand has a cover of each kind it may use; only the cheaper is bought, and none where
    commitments serve all its hours."""


class _DataBook:
    """What a schedule's runs pay besides GPU time, month by month: the part paid per GPU-hour at
    once, and the dataset's way into each region settled at the end on the hours placed there
    (a copy kept is a fixed cost of the region, paid whole: ``Demand.data_rate``)."""

    def __init__(self, problem: TcoProblem) -> None:
        self._problem = problem
        self.usd = [0.0] * problem.horizon_months
        self._placed: dict[tuple[int, str, str], tuple[DataRate, list[float], list[float]]] = {}

    def add(self, demand: int, rate: DataRate | None, gpu_hours: float, month: int) -> None:
        """``gpu_hours`` useful GPU-hours of demand ``demand`` in ``month`` at ``rate``."""
        if rate is None or gpu_hours <= 0:
            return
        self.usd[month] += gpu_hours * rate.run_usd_per_gpu_hour
        if rate.copy is not None:
            key = (demand, rate.provider, rate.region)
            n = self._problem.horizon_months
            _rate, hours, moves = self._placed.setdefault(key, (rate, [0.0] * n, [0.0] * n))
            hours[month] += gpu_hours
            moves[month] += gpu_hours * rate.moves_per_run

    def settle(self) -> tuple[DataCopyChoice, ...]:
        """Each region's way in at the cheaper of a copy kept and every run's transfer, added to
        the months it is paid in."""
        out = []
        for (i, _p, _r), (rate, hours, moves) in sorted(self._placed.items()):
            demand, data = self._problem.demands[i], rate.copy
            if data is None or (choice := copy_choice(demand, data, hours, moves)) is None:
                continue
            if choice.kept:
                self.usd[choice.first_month] += choice.copy_in_usd
                for m in range(choice.first_month, len(hours)):
                    self.usd[m] += choice.copy_storage_usd_per_month
            else:
                for m, h in enumerate(moves):
                    self.usd[m] += h / demand.gpu_hours_per_run * data.dataset_in_usd
            out.append(choice)
        return tuple(out)


def committed_gpus(problem: TcoProblem, commitments: Sequence[Commitment]) -> dict[Pool, list[float]]:
    """Per pool (:attr:`Demand.pool`), the GPUs the commitments keep in service in each month of
    the horizon (each serves one GPU-hour per hour, 730 a month)."""
    cap = {g: [0.0] * problem.horizon_months for g in problem.pools()}
    for c in commitments:
        row = cap.setdefault(c.pool, [0.0] * problem.horizon_months)
        for m in range(c.start_month, min(c.start_month + c.offer.term_months, problem.horizon_months)):
            row[m] += c.units * c.offer.gpus_per_unit
    return cap


def price_schedule(
    problem: TcoProblem,
    commitments: Sequence[Commitment],
    options: Mapping[Pool, HourlyOptions],
    demand_scale: float = 1.0,
) -> Priced:
    """Cost of ``commitments`` plus the cheapest hourly cover of the rest, month by month.

    ``demand_scale`` changes each demand's GPUs at once (more or fewer runs at the same time, of
    the same length; a service's fleet at that load: :meth:`Demand.levels`). What the runs pay
    besides GPU time is added per GPU-hour where they are placed, and the dataset's way into each
    region once, on the hours placed there (a copy kept is paid whole, whatever the scale:
    :class:`_DataBook`)."""
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
    cap = committed_gpus(problem, commitments)
    book = _DataBook(problem)
    feasible = True
    bought: set[tuple[int, str]] = set()
    for pool, opts in options.items():
        members = [i for i, d in enumerate(problem.demands) if d.pool == pool]
        # Each demand's hours at the cheaper of its hourly covers.
        cheapest: dict[int, tuple[HourlyCover, str]] = {}
        for i in members:
            covers = [(c, "on_demand") for c in (opts.on_demand.get(i),) if c is not None]
            covers += [(c, "spot") for c in (opts.spot.get(i),) if c is not None]
            if covers:
                cheapest[i] = min(covers, key=lambda c: c[0].usd_per_useful_gpu_hour)
        demands = [problem.demands[i] for i in members]
        for m in range(h):
            for piece in month_slices(demands, m, demand_scale):
                # GPUs above the committed ones during these hours: first for the demands whose
                # hourly cover costs least over what a committed GPU's hour costs them (its data).
                uncovered = max(0.0, piece.load - cap[pool][m])
                fills = sorted(
                    (
                        cheapest[i][0].usd_per_useful_gpu_hour - opts.committed_data_usd_per_gpu_hour(i),
                        k,
                        gpus,
                    )
                    for k, gpus in piece.gpus.items()
                    if (i := members[k]) in cheapest
                )
                hourly = dict.fromkeys(piece.gpus, 0.0)
                for _gap, k, gpus in fills:
                    if uncovered <= 0.0:
                        break
                    take = min(uncovered, gpus)
                    cover, pricing = cheapest[members[k]]
                    cell = by_month[m]
                    cell[pricing] = (
                        cell.get(pricing, 0.0) + take * piece.hours * cover.compute_usd_per_useful_gpu_hour
                    )
                    book.add(members[k], cover.data, take * piece.hours, m)
                    if take * piece.hours > 0:
                        bought.add((members[k], pricing))
                    hourly[k] = take
                    uncovered -= take
                if uncovered > 1e-9:
                    feasible = False
                # the rest of each demand's GPUs are committed ones
                for k, gpus in piece.gpus.items():
                    rest = max(0.0, gpus - hourly[k])
                    book.add(members[k], opts.committed_data.get(members[k]), rest * piece.hours, m)
    copies = book.settle()
    data = book.usd
    monthly = tuple(
        MonthCost(
            month=m,
            cost_usd=sum(cell.values()) + data[m],
            by_pricing_usd=dict(sorted(cell.items())),
            data_usd=data[m],
        )
        for m, cell in enumerate(by_month)
    )
    total = sum(mc.cost_usd for mc in monthly) + past
    return Priced(
        monthly=monthly,
        past_horizon_usd=past,
        total_usd=total,
        feasible=feasible,
        data_usd=sum(data),
        data_copies=copies,
        bought=frozenset(bought),
    )
