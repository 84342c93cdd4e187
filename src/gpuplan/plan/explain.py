"""Why nothing is feasible: the binding constraint, in one line the user can act on."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from gpuplan.i18n import money
from gpuplan.plan.constraints import Reason
from gpuplan.plan.input_types import IntArray
from gpuplan.plan.result import Option
from gpuplan.units import format_hours

if TYPE_CHECKING:
    from gpuplan.plan.context import PlanContext

__all__ = ["infeasible_message"]

_HINTS = {
    Reason.DOES_NOT_FIT.value: "enable gradient_checkpointing, lower the batch size, use fsdp, "
    "or allow more GPUs / bigger GPUs",
    Reason.UNPRICED.value: "add a price with `gpuplan catalog` or widen providers/regions",
    Reason.NEEDS_COMMITMENT.value: "reserved prices need --commitment 1y|3y (monthly: --commitment monthly)",
    Reason.MODEL_SPLIT.value: "tensor_parallel × pipeline_parallel must divide each option's GPUs and "
    "tensor_parallel fit in one instance: lower them, or allow more GPUs (--max-gpus)",
}


def infeasible_message(ctx: PlanContext, pre: IntArray, option: Callable[[PlanContext, int], Option]) -> str:
    """Say which constraint excludes what.

    ``pre`` are the positions (in the cost arrays) still feasible before deadline and budget.
    """
    c = ctx.constraints
    if pre.size == 0:
        counts = ctx.cands.excluded_counts()
        parts = ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1]))
        top = max(counts, key=lambda k: counts[k]) if counts else ""
        if not counts:
            return "the catalog holds no GPU offers to plan over; check it with `gpuplan catalog info`"
        msg = f"no option is left: candidates excluded by {parts}"
        if top == Reason.DOES_NOT_FIT.value:
            peaks = ctx.cands.peak_memory_gib[np.isfinite(ctx.cands.peak_memory_gib)]
            if peaks.size:
                msg += f" (peak memory per GPU at least {float(peaks.min()):.1f} GiB)"
        if top == Reason.DOES_NOT_FIT.value and ctx.job.task == "infer":
            msg += "; for a service: a bigger GPU, more GPUs, a lower request rate or a looser p95 target"
        elif top in _HINTS:
            msg += f"; {_HINTS[top]}"
        return msg
    costs = ctx.costs
    time = costs.time_h[pre]
    cost = costs.total_usd[pre]
    d, b = c.deadline_h, c.budget_usd
    meets_d = time <= d if d is not None else np.ones(pre.size, dtype=bool)
    meets_b = cost <= b if b is not None else np.ones(pre.size, dtype=bool)

    def fastest(mask: np.ndarray) -> Option:
        sub = pre[mask]
        j = sub[np.lexsort((costs.total_usd[sub], costs.time_h[sub]))[0]]
        return option(ctx, int(j))

    def cheapest(mask: np.ndarray) -> Option:
        sub = pre[mask]
        j = sub[np.lexsort((costs.time_h[sub], costs.total_usd[sub]))[0]]
        return option(ctx, int(j))

    everything = np.ones(pre.size, dtype=bool)
    clauses: list[str] = []
    if d is not None and b is not None:
        head = f"no option meets {format_hours(d)} under {money(b)}"
    elif d is not None:
        head = f"no option finishes within {format_hours(d)}"
    else:
        head = f"no option costs under {money(b)}"
    if d is not None:
        if b is not None and meets_b.any():
            f = fastest(meets_b)
            clauses.append(f"the fastest within budget takes {format_hours(f.job_time_h)} ({f.label})")
        elif not meets_d.any():
            f = fastest(everything)
            took, paid = format_hours(f.job_time_h), money(f.total_cost_usd)
            clauses.append(f"the fastest option takes {took} ({paid}, {f.label})")
    if b is not None:
        if d is not None and meets_d.any():
            ch = cheapest(meets_d)
            clauses.append(
                f"the cheapest within {format_hours(d)} costs {money(ch.total_cost_usd)} ({ch.label})"
            )
        if not meets_b.any() and not (
            d is not None and meets_d.any() and cheapest(meets_d) == cheapest(everything)
        ):
            ch = cheapest(everything)
            clauses.append(
                f"the cheapest option costs {money(ch.total_cost_usd)} "
                f"({format_hours(ch.job_time_h)}, {ch.label})"
            )
    return f"{head}: " + "; ".join(clauses) if clauses else head
