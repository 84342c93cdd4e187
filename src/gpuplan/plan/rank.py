"""Ranking: objective order, the cost/time Pareto front, persona picks, and why the winner wins."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gpuplan.plan.constraints import Constraints, Objective
from gpuplan.plan.inputs import BoolArray, FloatArray, IntArray
from gpuplan.plan.regions import MANAGED_KUBERNETES
from gpuplan.plan.result import Option, PersonaPick

__all__ = ["explain_winner", "objective_order", "pareto_mask", "persona_picks", "primary_key"]


def primary_key(cost: FloatArray, time: FloatArray, objective: Objective) -> FloatArray:
    """The quantity an objective minimises first (cost, time, or log cost + log time)."""
    if objective is Objective.COST:
        return cost
    if objective is Objective.TIME:
        return time
    out: FloatArray = np.log(np.maximum(cost, 1e-12)) + np.log(np.maximum(time, 1e-12))
    return out


def objective_order(cost: FloatArray, time: FloatArray, objective: Objective) -> IntArray:
    """Indices best first. Ties break on the other quantity, then on position (stable)."""
    if objective is Objective.COST:
        order = np.lexsort((time, cost))
    elif objective is Objective.TIME:
        order = np.lexsort((cost, time))
    else:
        # cost × time compared in log space: log c + log t (both positive for any real option).
        order = np.lexsort((time, cost, primary_key(cost, time, objective)))
    out: IntArray = order.astype(np.int64)
    return out


def pareto_mask(cost: FloatArray, time: FloatArray) -> BoolArray:
    """True where no other candidate is at least as cheap and strictly faster, or strictly cheaper
    and at least as fast. Sort by cost (then time) and keep each that is faster than all before it."""
    order = np.lexsort((time, cost))
    t_sorted = time[order]
    best_before = np.concatenate(([np.inf], np.minimum.accumulate(t_sorted)[:-1]))
    keep_sorted = t_sorted < best_before
    mask = np.zeros(cost.shape[0], dtype=bool)
    mask[order[keep_sorted]] = True
    return mask


def persona_picks(
    cheapest: Option,
    fastest: Option,
    kubernetes: Option | None,
    compliant: Option | None,
    constraints: Constraints,
) -> tuple[PersonaPick, ...]:
    """The pick for each persona of the source articles (each the best over every feasible
    candidate of its kind, not only the top N shown)."""
    objective = constraints.objective
    wanted = sorted({x.lower() for x in constraints.compliance or ()})
    services = ", ".join(sorted({s for s in MANAGED_KUBERNETES.values() if s}))
    return (
        PersonaPick(persona="budget", rule="lowest expected all-in cost, spot included", option=cheapest),
        PersonaPick(persona="performance", rule="shortest expected job time", option=fastest),
        PersonaPick(
            persona="kubernetes",
            rule=f"on-demand or spot nodes (autoscalable node pools) on a provider with managed "
            f"Kubernetes GPU support ({services}); best by the {objective.value} objective",
            option=kubernetes,
            note="" if kubernetes else "no feasible on-demand or spot option",
        ),
        PersonaPick(
            persona="compliance",
            rule="region carries a compliance label"
            + (f" ({', '.join(wanted)})" if wanted else " (e.g. MLPS level 3)")
            + f"; best by the {objective.value} objective",
            option=compliant,
            note="" if compliant else "no compliance labels known in the catalog for the feasible regions",
        ),
    )


def _main_driver(win: Option, other: Option) -> str:
    """The cost component that contributes most to ``other`` costing more than ``win``.

    Compute is split into a rate part (price per instance-hour × the winner's billed hours) and a
    time part (the other's price × the difference in billed hours), so "GPU speed" and "price"
    are told apart.
    """
    w, o = win.cost_breakdown, other.cost_breakdown
    rate_w = win.price_usd_per_hour * win.nodes
    rate_o = other.price_usd_per_hour * other.nodes
    parts = {
        "price per hour": (rate_o - rate_w) * win.billed_hours,
        "job time (GPU speed and count)": rate_o * (other.billed_hours - win.billed_hours),
        "egress": o.egress_usd - w.egress_usd,
        "storage": o.storage_usd - w.storage_usd,
        "licences": o.licence_usd - w.licence_usd,
        "spot interruptions": o.spot_overhead_usd - w.spot_overhead_usd,
    }
    # Compute totals differ from rate × billed hours for monthly/reserved: put the rest on price.
    residual = (o.compute_usd - w.compute_usd) - (
        parts["price per hour"] + parts["job time (GPU speed and count)"]
    )
    parts["price per hour"] += residual
    name, value = max(parts.items(), key=lambda kv: kv[1])
    same_offer = (win.provider, win.region, win.instance_type) == (
        other.provider,
        other.region,
        other.instance_type,
    )
    if name == "price per hour" and same_offer and win.pricing == other.pricing and win.nodes != other.nodes:
        name = f"fewer instances ({win.nodes} vs {other.nodes} × {win.instance_type})"
    elif name == "price per hour" and win.pricing != other.pricing:
        name = f"pricing model ({win.pricing} vs {other.pricing})"
    elif name == "price per hour" and win.gpu != other.gpu:
        name = f"price per hour ({win.gpu} vs {other.gpu})"
    elif name.startswith("job time") and win.gpu != other.gpu:
        name = f"GPU speed ({win.gpu} vs {other.gpu})"
    return f"{name} (${value:,.2f})"


def _time_driver(win: Option, other: Option) -> str:
    """Why ``win`` is faster than ``other``, in words."""
    if win.gpu != other.gpu:
        return f"GPU ({win.gpu} vs {other.gpu})"
    if win.gpu_count != other.gpu_count:
        return f"more GPUs ({win.gpu_count} vs {other.gpu_count})"
    if win.pricing != other.pricing:
        return f"pricing model ({win.pricing} vs {other.pricing}: spot interruptions)"
    return "interconnect and network"


def explain_winner(ranked: Sequence[Option], objective: Objective, n: int = 2) -> tuple[str, ...]:
    """One line per runner-up: cost and time deltas against the winner and the main driver."""
    if not ranked:
        return ()
    win = ranked[0]
    lines = []
    for other in ranked[1 : 1 + n]:
        dc = other.total_cost_usd - win.total_cost_usd
        dt = other.job_time_h - win.job_time_h
        pct = 100.0 * dc / other.total_cost_usd if other.total_cost_usd else 0.0
        cost_word = f"${abs(dc):,.2f} ({abs(pct):.0f} %) {'cheaper' if dc >= 0 else 'dearer'}"
        time_word = f"{abs(dt):.2f} h {'faster' if dt >= 0 else 'slower'}"
        if dc > 0:
            driver = f"main cost driver: {_main_driver(win, other)}"
        elif dt > 0:
            driver = f"faster through: {_time_driver(win, other)}"
        else:
            driver = f"ranked ahead by the {objective.value} objective (tie-break)"
        lines.append(f"vs {other.label}: {cost_word}, {time_word}; {driver}")
    return tuple(lines)
