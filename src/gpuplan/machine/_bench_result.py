"""Stand-in for ``gpuplan.catalog.BenchResult`` until the catalog store is committed.

Same fields, same order, same meaning as the store's record; replaced by an import of the real one
as soon as it lands, so nothing here may grow beyond that shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["BenchResult"]


@dataclass(frozen=True, kw_only=True)
class BenchResult:
    """One measurement of a real machine (written by ``gpuplan bench``)."""

    gpu_id: str | None
    """Canonical GPU id, None if the device could not be matched (or is a CPU)."""
    device_name: str
    """The name the driver reports (the CPU model on CPU)."""
    host: str
    measured_at: str
    """ISO timestamp, UTC."""
    metric: str
    """One of :data:`gpuplan.machine.results.METRICS`."""
    dtype: str | None
    value: float
    unit: str
    datasheet_value: float | None
    details: dict[str, Any] = field(default_factory=dict)
