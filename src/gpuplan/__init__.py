"""gpuplan: where to run your PyTorch job, priced all-in, from your real model.

The public API is what ``__all__`` lists; everything else may change. Names load on first use
(PEP 562), so ``import gpuplan`` — and ``gpuplan --help`` — stay fast: neither torch, pydantic nor
SQLAlchemy is imported until something needs it.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpuplan.api import EstimateReport, estimate, plan, tco
    from gpuplan.catalog import Store, open_store
    from gpuplan.commit import TcoReport, Usage, load_usage
    from gpuplan.errors import GpuplanError
    from gpuplan.hardware import GPU, all_gpus, resolve_gpu
    from gpuplan.workload import Workload, load_workload

__version__ = "0.1.0"

#: Public name -> the module that defines it.
_EXPORTS = {
    "EstimateReport": "gpuplan.api",
    "estimate": "gpuplan.api",
    "plan": "gpuplan.api",
    "Store": "gpuplan.catalog",
    "open_store": "gpuplan.catalog",
    "TcoReport": "gpuplan.commit",
    "Usage": "gpuplan.commit",
    "load_usage": "gpuplan.commit",
    "tco": "gpuplan.api",
    "GpuplanError": "gpuplan.errors",
    "GPU": "gpuplan.hardware",
    "all_gpus": "gpuplan.hardware",
    "resolve_gpu": "gpuplan.hardware",
    "Workload": "gpuplan.workload",
    "load_workload": "gpuplan.workload",
}

__all__ = [
    "GPU",
    "EstimateReport",
    "GpuplanError",
    "Store",
    "TcoReport",
    "Usage",
    "Workload",
    "__version__",
    "all_gpus",
    "estimate",
    "load_usage",
    "load_workload",
    "open_store",
    "plan",
    "resolve_gpu",
    "tco",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'gpuplan' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


class _Package(types.ModuleType):
    """Keeps ``gpuplan.plan`` the planning function.

    Importing the subpackage ``gpuplan.plan`` makes Python set the attribute ``plan`` of this package
    to the subpackage, which would replace the public function. Write ``from gpuplan.plan import …``
    to reach the subpackage; ``import gpuplan.plan as m`` is not supported.
    """

    def __setattr__(self, name: str, value: object) -> None:
        if name == "plan" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
