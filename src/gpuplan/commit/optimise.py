"""``optimise``: the cheapest commitment schedule for a :class:`TcoProblem`, with its baseline,
break-even utilisations and sensitivity to demand.

The schedule is never dearer than buying every GPU-hour on demand (that is a feasible point of the
MILP), and when commitments cannot pay off it *is* that point: a schedule whose commitments save
less than half a cent is replaced by the same demand on hourly capacity alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from gpuplan.commit.milp import commitment_offers, solve_milp, status_text
from gpuplan.commit.model import (
    COMMITMENT_PRICING,
    BreakEvenBasis,
    Commitment,
    Peak,
    Pool,
    PricedOffer,
    Schedule,
    SpotFallback,
    TcoProblem,
)
from gpuplan.commit.overlap import month_slices
from gpuplan.commit.recourse import HourlyOptions, committed_gpus, hourly_options, price_schedule
from gpuplan.i18n import _

__all__ = [
    "all_on_demand_usd",
    "break_even_by_gpu",
    "break_even_offers",
    "break_even_on_demand",
    "break_even_utilisation",
    "on_demand_by_demand",
    "optimise",
    "peaks",
    "spot_fallbacks",
]

#: Savings below this are rounding, not a reason to sign a contract, USD.
_HALF_CENT = 0.005


def all_on_demand_usd(problem: TcoProblem, options: dict[Pool, HourlyOptions]) -> float | None:
    """Every GPU-hour demanded at its demand's cheapest on-demand price on the instances its hours
    hold on (:attr:`Demand.pool`), what its runs pay besides GPU time where that price is included;
    None if one has none."""
    priced, unpriced = on_demand_by_demand(problem, options)
    return None if unpriced else sum(priced.values())


def on_demand_by_demand(
    problem: TcoProblem, options: dict[Pool, HourlyOptions]
) -> tuple[dict[str, float], tuple[str, ...]]:
    """Each demand's GPU-hours at its cheapest on-demand price (as :func:`all_on_demand_usd`), by
    name, and the demands with GPU-hours that have no such price (never priced at 0)."""
    priced: dict[str, float] = {}
    unpriced: list[str] = []
    for i, d in enumerate(problem.demands):
        price = options[d.pool].on_demand_usd_per_gpu_hour(i)
        if price is not None:
            priced[d.name] = sum(d.gpu_hours) * price
        elif sum(d.gpu_hours) > 0:
            unpriced.append(d.name)
    return priced, tuple(unpriced)


def spot_fallbacks(
    problem: TcoProblem,
    commitments: Sequence[Commitment],
    options: dict[Pool, HourlyOptions],
    bought: frozenset[tuple[int, str]],
) -> tuple[tuple[SpotFallback, ...], float | None, float | None]:
    """What the schedule's spot hours cost if spot capacity cannot be had: per demand bought on
    spot, its own GPU's on-demand price where it may run, else its planner's cheapest on-demand
    option (:attr:`Demand.on_demand_elsewhere`, the plan's ranking and deadline), else unknown;
    and the schedule's total so (commitments kept, every spot hour on demand), with, where a
    fallback is unknown, the known part of it as a lower bound instead (``(fallbacks, total,
    at_least)``). Nothing bought on spot: no fallbacks and both None."""
    on_spot = sorted(i for i, pricing in bought if pricing == "spot")
    if not on_spot:
        return (), None, None
    out, moved, unknown = [], [], False
    for i in on_spot:
        d = problem.demands[i]
        price = options[d.pool].on_demand_usd_per_gpu_hour(i)
        if price is not None:
            out.append(SpotFallback(demand=d.name, gpu=d.gpu, same_gpu=True, usd=sum(d.gpu_hours) * price))
        elif d.on_demand_elsewhere is not None and (alt := d.on_demand_elsewhere()) is not None:
            out.append(SpotFallback(demand=d.name, gpu=alt.gpu, same_gpu=False, usd=sum(alt.usd)))
            moved.append(i)
        else:
            out.append(SpotFallback(demand=d.name, gpu=None, same_gpu=False, usd=None))
            moved.append(i)
            unknown = True
    # the demands that leave their GPU type priced apart; the rest on their pools' on-demand prices
    kept = tuple(
        replace(d, gpu_hours=(0.0,) * len(d.gpu_hours)) if i in moved else d
        for i, d in enumerate(problem.demands)
    )
    no_spot = {pool: replace(opts, spot={}) for pool, opts in options.items()}
    rest = price_schedule(replace(problem, demands=kept), commitments, no_spot)
    known = rest.total_usd + sum(f.usd for f in out if f.usd is not None and not f.same_gpu)
    if not rest.feasible:
        return tuple(out), None, None
    return (tuple(out), None, known) if unknown else (tuple(out), known, None)


def break_even_by_gpu(problem: TcoProblem, options: dict[Pool, HourlyOptions]) -> dict[str, dict[str, float]]:
    """Per GPU type and commitment pricing model: the share of a unit's hours inside the horizon it
    must be busy to cost less than the same GPU-hours on demand.

    A unit started in the first month is paid for ``billed_months`` (its whole term under
    ``past_horizon: full``) and serves ``min(term, horizon)`` months of the horizon, so
    ``break-even = price per GPU-month × billed months / (on-demand price per GPU-hour × 730 ×
    months served)``; the on-demand price is the cheapest the GPU's demands pay (whole instances a
    run takes included), each offer against the demands it may serve (those of a pool it belongs to,
    :attr:`Demand.pool`). The lowest over the offers of that model; above 1 it never pays off.
    e.g. $1,000 per GPU-month against $2.80 per GPU-hour: 1000 / 2044 = 0.489; a 36-month term
    paid in full over a 12-month horizon: 3 × 0.489 = 1.47, never.
    """
    evens = _break_evens(problem, options)
    return {g: {p: be for p, (be, _o, _b) in per.items()} for g, per in evens.items()}


def break_even_offers(
    problem: TcoProblem, options: dict[Pool, HourlyOptions]
) -> dict[str, dict[str, PricedOffer]]:
    """Per GPU type and commitment pricing model: the offer its break-even (:func:`break_even_by_gpu`)
    is figured at, so that the price behind a "pays off above 72 %" or a "never pays off" can be
    named with its date and source."""
    evens = _break_evens(problem, options)
    return {g: {p: o for p, (_be, o, _b) in per.items()} for g, per in evens.items()}


def break_even_on_demand(
    problem: TcoProblem, options: dict[Pool, HourlyOptions]
) -> dict[str, dict[str, BreakEvenBasis]]:
    """Per GPU type and commitment pricing model: the on-demand price its break-even
    (:func:`break_even_by_gpu`) is figured against, and what makes it up (whole instances, each
    run's hours rounded up as billed), so that the figure can be reproduced from the prices shown:
    a ¥34.83 GPU-hour whose 10.07-h runs are billed 11 h is ¥38.05 a GPU-hour used."""
    evens = _break_evens(problem, options)
    return {g: {p: b for p, (_be, _o, b) in per.items()} for g, per in evens.items()}


def _basis(problem: TcoProblem, options: HourlyOptions) -> BreakEvenBasis | None:
    """The cheapest on-demand GPU-hour used of ``options``' demands, as :class:`BreakEvenBasis`
    (ties: the first demand); None where none has an on-demand price."""
    # GPU time against GPU time: a committed GPU's runs pay their data costs too
    covers = sorted(options.on_demand.items(), key=lambda ic: ic[1].compute_usd_per_useful_gpu_hour)
    if not covers:
        return None
    i, cover = covers[0]
    d = problem.demands[i]
    return BreakEvenBasis(
        demand=d.name,
        offer=cover.offer,
        usd_per_gpu_hour_used=cover.compute_usd_per_useful_gpu_hour,
        packing=cover.packing * cover.overhead,
        billing=cover.billing,
        run_hours=(d.run_hours + d.checkpoint_hours_off_spot) if cover.billing > 1.0 else None,
    )


def _break_evens(
    problem: TcoProblem, options: dict[Pool, HourlyOptions]
) -> dict[str, dict[str, tuple[float, PricedOffer, BreakEvenBasis]]]:
    """:func:`break_even_by_gpu` with the offer of each (a tie: ``PricedOffer.tie_key``) and the
    on-demand price it is figured against."""
    out: dict[str, dict[str, tuple[float, PricedOffer, BreakEvenBasis]]] = {}
    for pool in problem.pools():
        basis = _basis(problem, options[pool])
        if basis is None:
            continue
        for o in commitment_offers(replace(problem, offers=problem.pool_offers(pool))):
            served = min(o.term_months, problem.horizon_months)
            term = problem.billed_months(o, 0) / served
            be = o.usd_per_gpu_hour * term / basis.usd_per_gpu_hour_used
            per = out.setdefault(o.gpu, {})
            if o.pricing not in per or (be, o.tie_key) < (per[o.pricing][0], per[o.pricing][1].tie_key):
                per[o.pricing] = (be, o, replace(basis, term_factor=term))
    return {g: {p: per[p] for p in COMMITMENT_PRICING if p in per} for g, per in out.items()}


def break_even_utilisation(by_gpu: dict[str, dict[str, float]]) -> dict[str, float]:
    """Per commitment pricing model, the lowest break-even over the GPU types demanded."""
    out: dict[str, float] = {}
    for per in by_gpu.values():
        for p, be in per.items():
            out[p] = min(out.get(p, be), be)
    return {p: out[p] for p in COMMITMENT_PRICING if p in out}


def peaks(problem: TcoProblem, commitments: Sequence[Commitment]) -> tuple[Peak, ...]:
    """Per GPU type demanded: the first month of its largest load at once, with the GPUs committed
    then and the hours the load is above them (its pools' together: :attr:`Demand.pool`)."""
    by_pool = committed_gpus(problem, commitments)
    out = []
    for gpu in problem.gpus():
        demands = [d for d in problem.demands if d.gpu == gpu]
        cap = [
            sum(row[m] for pool, row in by_pool.items() if pool[0] == gpu)
            for m in range(problem.horizon_months)
        ]
        best: Peak | None = None
        for m in range(problem.horizon_months):
            cut = month_slices(demands, m)
            load = max((s.load for s in cut), default=0.0)
            if best is None or load > best.gpus_at_once + 1e-9:
                above = sum(s.hours for s in cut if s.load > cap[m] + 1e-9)
                best = Peak(gpu=gpu, month=m, gpus_at_once=load, committed_gpus=cap[m], hours_above=above)
        if best is not None:
            out.append(best)
    return tuple(out)


def optimise(problem: TcoProblem) -> Schedule:
    """The cheapest mix of commitments and hourly capacity for ``problem``.

    Raises :class:`InfeasibleError` when some demand has no allowed price at all.
    """
    options = hourly_options(problem)
    outcome = solve_milp(problem, options)
    chosen = price_schedule(problem, outcome.commitments, options)
    commitments = outcome.commitments
    hourly_only = price_schedule(problem, (), options)
    if hourly_only.feasible and hourly_only.total_usd <= chosen.total_usd + _HALF_CENT:
        chosen, commitments = hourly_only, ()
    priced, unpriced = on_demand_by_demand(problem, options)
    baseline = None if unpriced else sum(priced.values())
    fallbacks, without_spot, without_spot_at_least = spot_fallbacks(
        problem, commitments, options, chosen.bought
    )
    savings = None
    if baseline is not None and baseline > 0:
        # A total within half a cent of the baseline is the baseline (the two sums add the same
        # hours in another order): no saving, not "<0.1 %".
        gap = baseline - chosen.total_usd
        savings = 0.0 if abs(gap) <= _HALF_CENT else gap / baseline * 100.0
    sensitivity = []
    for pct in problem.demand_changes_pct:
        p = price_schedule(problem, commitments, options, demand_scale=1.0 + pct / 100.0)
        sensitivity.append((pct, p.total_usd if p.feasible else None))
    hourly_used = {}
    overheads = {}
    packings = {}
    bought = []
    for opts in options.values():
        gpu = opts.gpu
        for i, cover in opts.on_demand.items():
            name = problem.demands[i].name
            hourly_used[f"{gpu}/on_demand/{name}"] = cover.offer
            packings[f"{gpu}/on_demand/{name}"] = cover.packing
            if (i, "on_demand") in chosen.bought:
                bought.append(f"{gpu}/on_demand/{name}")
        for i, cover in opts.spot.items():
            name = problem.demands[i].name
            hourly_used[f"{gpu}/spot/{name}"] = cover.offer
            packings[f"{gpu}/spot/{name}"] = cover.packing
            overheads[name] = cover.overhead
            if (i, "spot") in chosen.bought:
                bought.append(f"{gpu}/spot/{name}")
    by_gpu = break_even_by_gpu(problem, options)
    return Schedule(
        commitments=commitments,
        monthly=chosen.monthly,
        past_horizon_usd=chosen.past_horizon_usd,
        total_usd=chosen.total_usd,
        data_usd=chosen.data_usd,
        data_copies=chosen.data_copies,
        all_on_demand_usd=baseline,
        on_demand_priced_usd=sum(priced.values()) if priced else None,
        on_demand_unpriced=unpriced,
        spot_fallbacks=fallbacks,
        total_without_spot_usd=without_spot,
        without_spot_at_least_usd=without_spot_at_least,
        savings_pct=savings,
        break_even_utilisation=break_even_utilisation(by_gpu),
        break_even_by_gpu=by_gpu,
        break_even_offers=break_even_offers(problem, options),
        break_even_on_demand=break_even_on_demand(problem, options),
        hourly_packing=packings,
        sensitivity=tuple(sensitivity),
        peaks=peaks(problem, commitments),
        hourly_used=hourly_used,
        hourly_bought=tuple(bought),
        spot_overhead=overheads,
        # In the user's language, as the report's other notes, HiGHS's outcome too (optimal,
        # infeasible, time limit …; an outcome without a word is HiGHS's own message, quoted).
        solver=_(
            "HiGHS via scipy.optimize.milp: {integer} integer of {variables} variables, {rows} rows; {status}"
        ).format(
            integer=outcome.integer_variables,
            variables=outcome.variables,
            rows=outcome.constraints,
            status=status_text(outcome.status),
        ),
    )
