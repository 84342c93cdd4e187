"""``optimise``: the cheapest commitment schedule for a :class:`TcoProblem`, with its baseline,
break-even utilisations and sensitivity to demand.

The schedule is never dearer than buying every GPU-hour on demand (that is a feasible point of the
MILP), and when commitments cannot pay off it *is* that point: a schedule whose commitments save
less than half a cent is replaced by the same demand on hourly capacity alone.
"""

from __future__ import annotations

from gpuplan.commit.milp import commitment_offers, solve_milp
from gpuplan.commit.model import COMMITMENT_PRICING, Schedule, TcoProblem
from gpuplan.commit.recourse import HourlyOptions, hourly_options, price_schedule
from gpuplan.i18n import _

__all__ = ["all_on_demand_usd", "break_even_utilisation", "optimise"]

#: Savings below this are rounding, not a reason to sign a contract, USD.
_HALF_CENT = 0.005


def all_on_demand_usd(problem: TcoProblem, options: dict[str, HourlyOptions]) -> float | None:
    """Every GPU-hour demanded at its GPU's cheapest on-demand price; None if a GPU has none."""
    total = 0.0
    for d in problem.demands:
        price = options[d.gpu].on_demand_usd_per_gpu_hour
        if price is None:
            if sum(d.gpu_hours) > 0:
                return None
            continue
        total += sum(d.gpu_hours) * price
    return total


def break_even_utilisation(problem: TcoProblem, options: dict[str, HourlyOptions]) -> dict[str, float]:
    """Per commitment pricing model: the share of its hours a unit must be busy to cost less than
    the same GPU-hours on demand, ``price per GPU-month / (730 × on-demand price per GPU-hour)``.

    The lowest over the offers of that model for the GPUs demanded; above 1 it never pays off.
    e.g. $1,000 per GPU-month against $2.80 per GPU-hour on demand: 1000 / 2044 = 0.489.
    """
    out: dict[str, float] = {}
    for o in commitment_offers(problem):
        od = options[o.gpu].on_demand_usd_per_gpu_hour
        if od is None:
            continue
        # (price per GPU-hour × 730) / (730 × on-demand per GPU-hour): the 730s cancel.
        be = o.usd_per_gpu_hour / od
        out[o.pricing] = min(out.get(o.pricing, be), be)
    return {p: out[p] for p in COMMITMENT_PRICING if p in out}


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
    baseline = all_on_demand_usd(problem, options)
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
    for gpu, opts in options.items():
        if opts.on_demand is not None:
            hourly_used[f"{gpu}/on_demand"] = opts.on_demand
        for i, (offer, f) in opts.spot.items():
            name = problem.demands[i].name
            hourly_used[f"{gpu}/spot/{name}"] = offer
            overheads[name] = f
    return Schedule(
        commitments=commitments,
        monthly=chosen.monthly,
        past_horizon_usd=chosen.past_horizon_usd,
        total_usd=chosen.total_usd,
        all_on_demand_usd=baseline,
        savings_pct=savings,
        break_even_utilisation=break_even_utilisation(problem, options),
        sensitivity=tuple(sensitivity),
        hourly_used=hourly_used,
        spot_overhead=overheads,
        # In the user's language, as the report's other notes; the status is HiGHS's own words.
        solver=_(
            "HiGHS via scipy.optimize.milp: {integer} integer of {variables} variables, {rows} rows; {status}"
        ).format(
            integer=outcome.integer_variables,
            variables=outcome.variables,
            rows=outcome.constraints,
            status=outcome.status,
        ),
    )
