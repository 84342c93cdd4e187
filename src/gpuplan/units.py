"""Units shared by every layer: the billing month, whole instances, and durations written for people."""

from __future__ import annotations

import math

from gpuplan.i18n.numbers import format_hours

__all__ = ["HOURS_PER_MONTH", "MAX_BUDGET_CNY", "MAX_BUDGET_USD", "format_hours", "instances_for"]

#: Hours in a billing month, to turn monthly prices into hourly ones and back.
#: 730 = 8760 h / 12, the convention AWS, Azure and GCP price calculators use.
HOURS_PER_MONTH = 730.0
#: The largest budget a workload, the command line or the service takes: a trillion dollars (ten
#: trillion yuan) is beyond any GPU bill and below where a float's cents stop being exact.
MAX_BUDGET_USD = 1e12
MAX_BUDGET_CNY = 1e13


def instances_for(gpus: float, per_instance: float) -> int:
    """Whole instances of ``per_instance`` GPUs that ``gpus`` GPUs take: at least one, a part
    instance bought whole (a 1-GPU run on an 8-GPU machine: 1; 16 GPUs of 8: 2)."""
    return max(1, math.ceil(gpus / per_instance - 1e-9))
