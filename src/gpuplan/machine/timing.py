"""Timers for the bench: wall clock on the CPU, CUDA events on the GPU; warm-up, repeats, median.

A timer returns one duration per repeat, in seconds per call of ``fn``; the bench takes the median,
which a one-off hiccup (a page fault, another tenant's kernel) does not move.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

__all__ = ["CudaEventTimer", "PerfCounterTimer", "Timer", "median_s"]


class Timer(Protocol):
    """Times ``fn``: ``warmup`` untimed calls, then ``repeats`` samples of ``inner`` calls each."""

    def measure(self, fn: Callable[[], object], *, warmup: int, repeats: int, inner: int = 1) -> list[float]:
        """Seconds per call of ``fn``, one value per repeat."""
        ...


class PerfCounterTimer:
    """Wall-clock timing for CPU work, where a call returns when the work is done."""

    def measure(self, fn: Callable[[], object], *, warmup: int, repeats: int, inner: int = 1) -> list[float]:
        for _ in range(warmup):
            fn()
        samples = []
        for _ in range(repeats):
            start = time.perf_counter()
            for _ in range(inner):
                fn()
            samples.append((time.perf_counter() - start) / inner)
        return samples


class CudaEventTimer:
    """GPU timing with CUDA events: kernel launches are asynchronous, so a wall clock around the call
    would time the launch, not the work. Events recorded on the current stream bracket the work, and
    ``synchronize`` waits for it (PyTorch "CUDA semantics", asynchronous execution)."""

    def __init__(self, torch: Any) -> None:
        self._torch = torch

    def measure(self, fn: Callable[[], object], *, warmup: int, repeats: int, inner: int = 1) -> list[float]:
        cuda = self._torch.cuda
        for _ in range(warmup):
            fn()
        cuda.synchronize()
        samples = []
        for _ in range(repeats):
            start = cuda.Event(enable_timing=True)
            end = cuda.Event(enable_timing=True)
            start.record()
            for _ in range(inner):
                fn()
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end) / 1000.0 / inner)  # elapsed_time is in ms
        return samples


def median_s(samples: Sequence[float]) -> float:
    """The median of ``samples`` (seconds); raises ValueError on an empty or non-positive result."""
    if not samples:
        raise ValueError("no timing samples")
    value = statistics.median(samples)
    if value <= 0:
        raise ValueError(f"non-positive median duration {value!r}: the timer's resolution is too coarse")
    return value
