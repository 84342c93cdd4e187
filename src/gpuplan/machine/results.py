"""Bench measurements as the catalog store keeps them, and how they compare with the datasheet."""

from __future__ import annotations

from gpuplan.catalog import BenchResult

__all__ = [
    "ALLREDUCE_BUSBW_GBPS",
    "D2H_GBPS",
    "H2D_GBPS",
    "MATMUL_TFLOPS",
    "MEMORY_BANDWIDTH_GBPS",
    "METRICS",
    "TRAIN_STEP_S",
    "BenchResult",
    "efficiency",
]

# Metric names are a contract: the estimator reads them back as calibration points. Do not rename.
MATMUL_TFLOPS = "matmul_tflops"
"""Dense matmul throughput, TFLOP/s; ``dtype`` says which precision."""
MEMORY_BANDWIDTH_GBPS = "memory_bandwidth_gbps"
"""Device memory bandwidth from a large copy (read + write), GB/s."""
H2D_GBPS = "h2d_gbps"
"""Host-to-device copy from pinned memory, GB/s."""
D2H_GBPS = "d2h_gbps"
"""Device-to-host copy into pinned memory, GB/s."""
TRAIN_STEP_S = "train_step_s"
"""Training step time of the reference model, s; ``details`` has ``model`` and ``batch``."""
ALLREDUCE_BUSBW_GBPS = "allreduce_busbw_gbps"
"""NCCL all-reduce bus bandwidth across local GPUs, GB/s; ``details`` has ``world_size``, ``bytes``."""

#: Every metric with its unit, in the order the bench runs them.
METRICS: dict[str, str] = {
    MATMUL_TFLOPS: "TFLOP/s",
    MEMORY_BANDWIDTH_GBPS: "GB/s",
    H2D_GBPS: "GB/s",
    D2H_GBPS: "GB/s",
    TRAIN_STEP_S: "s",
    ALLREDUCE_BUSBW_GBPS: "GB/s",
}


def efficiency(result: BenchResult) -> float | None:
    """Measured over datasheet (``value / datasheet_value``); None where there is no datasheet figure."""
    if result.datasheet_value is None or result.datasheet_value <= 0:
        return None
    return result.value / result.datasheet_value
