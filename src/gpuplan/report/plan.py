"""Render a plan: the stable ``--json`` document and the terminal view.

JSON schema (``schema_version`` 1; field names carry their units)::

    {"schema_version": 1,
     "workload": {...},                 # the workload as a dict (Workload.to_dict), for `gpuplan deploy`
     "objective": "cost" | "time" | "balanced",
     "constraints": {"deadline_h", "budget_usd", "providers", "regions", "countries", "pricing",
                     "max_gpus", "min_gpu_memory_gib", "interconnect", "compliance", "commitment"},
     "recommended": OPTION,
     "options": [OPTION, ...],          # ranked, best first
     "pareto": [OPTION, ...],           # cost/time front, cheapest first
     "baseline": OPTION | null, "baseline_note": str,
     "savings_vs_baseline_pct": float | null,
     "excluded": {reason: count},       # candidates left out, by first reason
     "personas": [{"persona", "rule", "option": OPTION | null, "note"}],
     "why": [str], "candidates": int, "feasible": int, "notes": [str]}

    OPTION = {"provider", "region", "zone", "country", "instance_type", "gpu", "gpu_count",
              "gpus_per_node", "nodes", "pricing", "interconnect", "network_gbps",
              "job_time_h", "job_time_h_low", "job_time_h_high", "compute_time_h", "billed_hours",
              "total_cost_usd", "total_cost_usd_low", "total_cost_usd_high",
              "cost_breakdown": {"compute_usd", "storage_usd", "egress_usd", "licence_usd",
                                 "spot_overhead_usd"},          # sums to total_cost_usd
              "price_usd_per_hour", "price_usd", "price_unit_hours", "price_source", "confidence",
              "as_of", "stale", "peak_memory_gib", "deadline_miss_probability",
              "checkpoint_interval_min", "expected_interruptions",
              "spot": {"interruptions_per_instance_hour", "mtbi_h", "rate_source", "rate_assumed",
                       "checkpoint_write_min", "checkpoint_interval_min", "checkpoint_overhead_h",
                       "expected_lost_h", "expected_interruptions"} | null,
              "compliance", "kubernetes", "flags", "assumptions"}

Unknown numbers are ``null`` (never NaN, never 0).
"""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any

from gpuplan.i18n import _, ngettext
from gpuplan.plan.result import Option, Plan
from gpuplan.units import format_hours

__all__ = ["PLAN_SCHEMA_VERSION", "option_json", "plan_json", "plan_view"]

PLAN_SCHEMA_VERSION = 1


def _clean(x: Any) -> Any:
    """NaN/inf become None so that the document is strict JSON."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    return x


def option_json(o: Option | None) -> dict[str, Any] | None:
    """One option as plain data (see the module docstring)."""
    if o is None:
        return None
    return _clean(
        {
            "provider": o.provider,
            "region": o.region,
            "zone": o.zone or None,
            "country": o.country or None,
            "instance_type": o.instance_type,
            "gpu": o.gpu,
            "gpu_count": o.gpu_count,
            "gpus_per_node": o.gpus_per_node,
            "nodes": o.nodes,
            "pricing": o.pricing,
            "interconnect": o.interconnect or None,
            "network_gbps": o.network_gbps,
            "job_time_h": o.job_time_h,
            "job_time_h_low": o.job_time_h_low,
            "job_time_h_high": o.job_time_h_high,
            "compute_time_h": o.compute_time_h,
            "billed_hours": o.billed_hours,
            "total_cost_usd": o.total_cost_usd,
            "total_cost_usd_low": o.total_cost_usd_low,
            "total_cost_usd_high": o.total_cost_usd_high,
            "cost_breakdown": asdict(o.cost_breakdown),
            "price_usd_per_hour": o.price_usd_per_hour,
            "price_usd": o.price_usd,
            "price_unit_hours": o.unit_hours,
            "price_source": o.price_source,
            "confidence": o.confidence,
            "as_of": o.as_of or None,
            "stale": o.stale,
            "peak_memory_gib": o.peak_memory_gib,
            "deadline_miss_probability": o.deadline_miss_probability,
            "checkpoint_interval_min": o.checkpoint_interval_min,
            "expected_interruptions": o.expected_interruptions,
            "spot": asdict(o.spot) if o.spot else None,
            "compliance": list(o.compliance),
            "kubernetes": o.kubernetes,
            "flags": list(o.flags),
            "assumptions": list(o.assumptions),
        }
    )


def plan_json(plan: Plan, workload: dict[str, Any]) -> dict[str, Any]:
    """The stable document ``gpuplan plan --json`` prints and ``gpuplan deploy`` reads."""
    c = plan.constraints
    return {
        "schema_version": PLAN_SCHEMA_VERSION,
        "workload": workload,
        "objective": plan.objective.value,
        "constraints": _clean(
            {
                "deadline_h": c.deadline_h,
                "budget_usd": c.budget_usd,
                "providers": list(c.providers) if c.providers else None,
                "regions": list(c.regions) if c.regions else None,
                "countries": list(c.countries) if c.countries else None,
                "pricing": list(c.allowed_pricing),
                "max_gpus": c.max_gpus,
                "min_gpu_memory_gib": c.min_gpu_memory_gib,
                "interconnect": c.interconnect,
                "compliance": list(c.compliance) if c.compliance else None,
                "commitment": c.commitment,
            }
        ),
        "recommended": option_json(plan.recommended),
        "options": [option_json(o) for o in plan.options],
        "pareto": [option_json(o) for o in plan.pareto],
        "baseline": option_json(plan.baseline),
        "baseline_note": plan.baseline_note,
        "savings_vs_baseline_pct": _clean(plan.savings_vs_baseline_pct),
        "excluded": dict(plan.excluded),
        "personas": [
            {"persona": p.persona, "rule": p.rule, "option": option_json(p.option), "note": p.note or None}
            for p in plan.personas
        ],
        "why": list(plan.why),
        "candidates": plan.candidates,
        "feasible": plan.feasible,
        "notes": list(plan.notes),
    }


def _usd(x: float) -> str:
    return f"${x:,.0f}" if x >= 1000 else f"${x:,.2f}"


def plan_view(plan: Plan) -> Any:
    """A Rich renderable: ranked options, why the winner wins, personas, baseline, exclusions, notes."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"Options (objective: {plan.objective.value})", title_justify="left")
    for col, justify in (
        ("#", "right"),
        ("provider/region", "left"),
        ("instance", "left"),
        ("GPUs", "right"),
        ("pricing", "left"),
        ("time", "right"),
        ("all-in cost", "right"),
        ("range", "right"),
        ("miss P", "right"),
        ("notes", "left"),
    ):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for rank, o in enumerate(plan.options, 1):
        miss = o.deadline_miss_probability
        table.add_row(
            str(rank),
            f"{o.provider}/{o.region}",
            f"{o.nodes}× {o.instance_type}" if o.nodes > 1 else o.instance_type,
            f"{o.gpu_count}× {o.gpu}",
            o.pricing,
            format_hours(o.job_time_h),
            _usd(o.total_cost_usd),
            f"{_usd(o.total_cost_usd_low)}–{_usd(o.total_cost_usd_high)}",
            "" if miss is None else f"{miss:.0%}" if miss >= 0.01 or miss == 0 else "<1%",
            ", ".join(o.flags),
        )
    rec = plan.recommended
    b = rec.cost_breakdown
    lines = [
        Text.assemble(
            ("Recommended: ", "bold"),
            rec.label,
            f" — {format_hours(rec.job_time_h)}, {_usd(rec.total_cost_usd)}",
        ),
        Text(
            f"  compute {_usd(b.compute_usd)} · storage {_usd(b.storage_usd)} · egress {_usd(b.egress_usd)}"
            f" · licences {_usd(b.licence_usd)} · spot overhead {_usd(b.spot_overhead_usd)}"
            f"  (price as of {rec.as_of or '?'}, {rec.confidence}; {rec.price_source})"
        ),
    ]
    if rec.spot:
        s = rec.spot
        ckpt = (
            f"checkpoint every {s.checkpoint_interval_min:.0f} min (Young/Daly)"
            if s.checkpoint_interval_min
            else "no checkpoints (restart only)"
        )
        lines.append(
            Text(
                f"  spot: {s.expected_interruptions:.2f} expected interruptions "
                f"(MTBI {format_hours(s.mtbi_h)}), "
                f"{ckpt}, {format_hours(s.expected_lost_h)} lost to interruptions; rate: {s.rate_source}"
            )
        )
    lines += [Text(f"  why: {w}") for w in plan.why]
    for a in rec.assumptions:
        lines.append(Text(f"  assumed: {a}", style="yellow"))
    if plan.baseline is not None and plan.savings_vs_baseline_pct is not None:
        lines.append(
            Text(
                f"Savings vs {plan.baseline.label} ({_usd(plan.baseline.total_cost_usd)}, "
                f"{format_hours(plan.baseline.job_time_h)}): {plan.savings_vs_baseline_pct:.0f} %"
            )
        )
    else:
        lines.append(Text(plan.baseline_note))
    lines.append(Text("Personas:", style="bold"))
    for p in plan.personas:
        pick = (
            f"{p.option.label} — {format_hours(p.option.job_time_h)}, {_usd(p.option.total_cost_usd)}"
            if p.option
            else p.note
        )
        lines.append(Text(f"  {p.persona}: {pick}  [{p.rule}]"))
    excluded = ", ".join(f"{k} {v}" for k, v in plan.excluded.items()) or "none"
    lines.append(
        Text(
            _("Pareto front: {options};").format(
                options=ngettext("{n} option", "{n} options", len(plan.pareto)).format(n=len(plan.pareto))
            )
            + f" {plan.feasible} feasible of "
            f"{plan.candidates} candidates; excluded: {excluded}"
        )
    )
    # The front from cheapest to fastest; long fronts are thinned to a readable 8 points.
    front = list(plan.pareto)
    if len(front) > 8:
        step = (len(front) - 1) / 7
        front = [front[round(i * step)] for i in range(8)]
    lines += [
        Text(f"  {format_hours(o.job_time_h):>8}  {_usd(o.total_cost_usd):>10}  {o.label}", style="cyan")
        for o in front
    ]
    lines += [Text(f"note: {n}", style="dim") for n in plan.notes]
    return Group(table, *lines)
