"""gpuplan: where to run your PyTorch job, priced all-in, from your real model.

The public API is what ``__all__`` lists; everything else may change. Importing gpuplan does not
import torch: tracing imports it when it runs.
"""

from gpuplan.api import EstimateReport, estimate, plan
from gpuplan.catalog import Store, open_store
from gpuplan.errors import GpuplanError
from gpuplan.hardware import GPU, all_gpus, resolve_gpu
from gpuplan.workload import Workload, load_workload

__version__ = "0.1.0"

__all__ = [
    "GPU",
    "EstimateReport",
    "GpuplanError",
    "Store",
    "Workload",
    "__version__",
    "all_gpus",
    "estimate",
    "load_workload",
    "open_store",
    "plan",
    "resolve_gpu",
]
