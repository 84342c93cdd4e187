"""What the performance model needs from a workload spec: the job's size and the serving load.

One place for it, so that ``gpuplan estimate`` and the planner size a job the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpuplan.perf.estimate import JobSize
from gpuplan.perf.sweep import ServingLoad

if TYPE_CHECKING:
    from gpuplan.workload import Workload

__all__ = ["job_size", "serving_load"]


def job_size(workload: Workload) -> JobSize | None:
    """Samples per epoch and epochs from ``data``; tokens count as ``tokens / seq_len`` sequences.

    None when the workload says neither (an estimate then has no job time).
    """
    data = workload.data
    if data is None:
        return None
    if data.samples is not None:
        return JobSize(samples=data.samples, epochs=data.epochs)
    if data.tokens is not None and workload.inputs.seq_len:
        return JobSize(samples=data.tokens / workload.inputs.seq_len, epochs=data.epochs)
    return None


def serving_load(workload: Workload) -> ServingLoad | None:
    """The request load of an inference service (``serving:``), or None."""
    s = workload.serving
    if s is None:
        return None
    return ServingLoad(
        requests_per_s=s.requests_per_s, prompt_tokens=s.prompt_tokens, output_tokens=s.output_tokens
    )
