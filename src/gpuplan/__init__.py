"""gpuplan: where to run your PyTorch job, priced all-in, from your real model.

The public API is what ``__all__`` lists; everything else may change. Importing gpuplan does not
import torch: tracing imports it when it runs.
"""

import sys as _sys
import types as _types

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


class _Package(_types.ModuleType):
    """Keeps ``gpuplan.plan`` the planning function.

    Importing the subpackage ``gpuplan.plan`` (which ``plan()`` itself does) makes Python set the
    attribute ``plan`` of this package to the subpackage, replacing the public function. Write
    ``from gpuplan.plan import …`` to reach the subpackage; ``import gpuplan.plan as m`` is not
    supported.
    """

    def __setattr__(self, name: str, value: object) -> None:
        if name == "plan" and isinstance(value, _types.ModuleType):
            return
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package
