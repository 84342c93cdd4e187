"""GPU datasheets and name resolution. Knows nothing of workloads, offers or prices."""

from gpuplan.hardware.gpus import (
    DTYPE_PATHS,
    GPU,
    MAX_GPU_COUNT,
    achievable_matmul_fraction,
    all_gpus,
    architecture_measured,
    get_gpu,
    gpu_by_driver_name,
    gpus_named,
    launch_month,
    nearest_gpus,
    parse_gpu_spec,
    resolve_gpu,
    same_chip_measured,
)

__all__ = [
    "DTYPE_PATHS",
    "GPU",
    "MAX_GPU_COUNT",
    "achievable_matmul_fraction",
    "all_gpus",
    "architecture_measured",
    "get_gpu",
    "gpu_by_driver_name",
    "gpus_named",
    "launch_month",
    "nearest_gpus",
    "parse_gpu_spec",
    "resolve_gpu",
    "same_chip_measured",
]
