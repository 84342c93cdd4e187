"""Units shared by every layer: the billing month, whole instances, and durations written for people."""

from __future__ import annotations

import math
from typing import Any, TypeVar

from gpuplan.i18n.numbers import format_hours

__all__ = [
    "BATCH_CHUNK_BATCHES",
    "HOURS_PER_MONTH",
    "MAX_BUDGET_CNY",
    "MAX_BUDGET_USD",
    "MAX_RUNS_PER_MONTH",
    "MAX_SPOT_NOTICE_S",
    "MAX_SPOT_RATE_PER_HOUR",
    "MAX_STORAGE_GBPS",
    "MIN_BUDGET",
    "MIN_STORAGE_GBPS",
    "batch_chunk_hours",
    "format_hours",
    "instances_for",
]

_Number = TypeVar("_Number", float, Any)

#: Batches of a batch inference job in one output chunk: what the batch job ``gpuplan deploy``
#: writes keeps whole (its runner's ``CHUNK_BATCHES``, and vLLM's chunk of requests), and so what a
#: spot reclaim makes it run again at most — the planner's and tco's spot model of it.
BATCH_CHUNK_BATCHES = 64


def batch_chunk_hours(step_time_s: _Number) -> _Number:
    """Hours one output chunk of a batch inference job takes at ``step_time_s`` a batch: a number, or
    numpy's array of them (a step time not known, NaN, stays NaN: the caller then takes the work as
    starting over)."""
    return BATCH_CHUNK_BATCHES * step_time_s / 3600.0


#: Hours in a billing month, to turn monthly prices into hourly ones and back.
#: 730 = 8760 h / 12, the convention AWS, Azure and GCP price calculators use.
HOURS_PER_MONTH = 730.0
#: The largest budget a workload, the command line or the service takes: a trillion dollars (ten
#: trillion yuan) is beyond any GPU bill and below where a float's cents stop being exact.
MAX_BUDGET_USD = 1e12
MAX_BUDGET_CNY = 1e13
#: The smallest positive budget, in either currency: one cent (one fen). A smaller one is stored as
#: nothing and shown as "¥0.00 = $0.00" (a budget of 1e-300 yuan was taken).
MIN_BUDGET = 0.01
#: The most times a saved plan may run in its month (the service's ``runs_per_month``): hourly
#: through a 31-day month, 24 × 31.
MAX_RUNS_PER_MONTH = 744

#: The most spot reclaims per instance-hour a simulation takes: one a minute. Published rates are
#: far below (AWS's Spot Instance Advisor bands top out at "> 20 %" of instances a month).
MAX_SPOT_RATE_PER_HOUR = 60.0
#: The fastest weights read a replica's start is taken at: 1,000 GB/s, over any cloud volume or
#: local NVMe array (a gp3 volume's baseline is 0.131 GB/s; local NVMe arrays reach tens of GB/s).
MAX_STORAGE_GBPS = 1000.0
#: The slowest: 1 MB/s, far below any cloud volume (a smaller figure is a slip of the unit; 1e-300
#: GB/s printed a cold start of a 300-digit number of seconds).
MIN_STORAGE_GBPS = 0.001
#: The longest warning before a spot reclaim a simulation takes: an hour, thirty times the longest
#: any cloud gives (AWS: a two-minute interruption notice; Azure and Google Cloud: 30 seconds).
MAX_SPOT_NOTICE_S = 3600.0


def instances_for(gpus: float, per_instance: float) -> int:
    """Whole instances of ``per_instance`` GPUs that ``gpus`` GPUs take: at least one, a part
    instance bought whole (a 1-GPU run on an 8-GPU machine: 1; 16 GPUs of 8: 2)."""
    return max(1, math.ceil(gpus / per_instance - 1e-9))
