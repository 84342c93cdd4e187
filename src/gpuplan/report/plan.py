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

from gpuplan.plan.result import Option, Plan

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


def plan_view(plan: Plan) -> Any:
    """A Rich renderable of ``plan`` (see ``report/plan_view.py``)."""
    from gpuplan.report.plan_view import plan_view as view

    return view(plan)
