"""The optimizer a workload names, configured as it would run on a GPU."""

from __future__ import annotations

from collections.abc import Iterable

import torch

from gpuplan.vocab import OptimizerName

__all__ = ["make_optimizer"]


def make_optimizer(name: OptimizerName, params: Iterable[torch.nn.Parameter]) -> torch.optim.Optimizer:
    """``name`` over ``params``. ``foreach=True`` is set explicitly because torch picks foreach by
    default only for CUDA tensors, and the trace runs on a fake CPU device; foreach kernels allocate
    a parameter-sized temporary at the step (``_foreach_sqrt(exp_avg_sq)`` in AdamW)."""
    p = list(params)
    if name is OptimizerName.SGD:
        return torch.optim.SGD(p, lr=0.1, momentum=0.9, foreach=True)
    if name is OptimizerName.ADAM:
        return torch.optim.Adam(p, lr=1e-4, foreach=True)
    if name is OptimizerName.ADAMW:
        return torch.optim.AdamW(p, lr=1e-4, foreach=True)
    if name is OptimizerName.ADAMW_FUSED:
        # The fused CPU kernel runs under the fake mode: one kernel, no parameter-sized temporary.
        return torch.optim.AdamW(p, lr=1e-4, fused=True)
    if name is OptimizerName.ADAFACTOR:
        return torch.optim.Adafactor(p, lr=1e-2, foreach=True)
    raise ValueError(f"no optimizer for {name!r}")  # unreachable: OptimizerName is closed
