"""gpuplan: where to run your PyTorch job, priced all-in, from your real model.

The public API is what ``__all__`` lists; everything else may change.
"""

from gpuplan.errors import GpuplanError
from gpuplan.hardware import GPU, all_gpus, resolve_gpu

__version__ = "0.1.0"

__all__ = ["GPU", "GpuplanError", "__version__", "all_gpus", "resolve_gpu"]
