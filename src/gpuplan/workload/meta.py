"""Models built for a trace without values: on the meta device, their tensors then the trace's fakes.

A model's constructor initialises its weights, and some initialisations need values that a fake
tensor does not have: transformers' ``trunc_normal_`` (ViT, DeiT, BEiT …) asks a fake tensor for a
number (``aten._local_scalar_dense``) and fails. On the meta device the same constructor runs with no
values to compute (transformers skips its initialisation there, torch's are no-ops), and what it does
read as numbers, a drop-path schedule from ``torch.linspace(0, rate, depth)`` with no device (timm
and older Hub code call ``.item()`` on it), is computed on the CPU for real.

Both ways a workload's model is built from code, a Hugging Face config and a user's ``build()``,
go through :func:`build_on_meta`. Outside a trace (a real run on a GPU, ``gpuplan bench``) the model
is built as its code says, with values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

__all__ = ["build_on_meta"]

_T = TypeVar("_T")


def build_on_meta(build: Callable[[], _T]) -> _T:
    """What ``build`` returns; under a fake mode (the tracer's), built on the meta device outside it.

    Each module in the result (the result itself, or an item of the tuple it returns) then has its
    parameters, buffers and tensor attributes made anew in the fake mode: empty, with the same shapes,
    dtypes and ``requires_grad``; a tensor shared by several modules (a tied head) stays shared. A
    meta tensor kept elsewhere (a closure, a list) is taken in by the tracer's fake mode when an op
    meets it (``profile/fake.py``).
    """
    import torch
    from torch._subclasses.fake_tensor import unset_fake_temporarily
    from torch.overrides import TorchFunctionMode

    if torch._C._get_dispatch_mode(torch._C._TorchDispatchModeKey.FAKE) is None:
        return build()

    class _LinspaceOnCpu(TorchFunctionMode):
        """``torch.linspace`` without a device made on the CPU, with values: constructors read it as
        numbers (a drop-path rate per block). transformers' own models pass ``device="cpu"``; timm's
        and older Hub models do not. A mode, not a patch of ``torch.linspace``: only this thread."""

        def __torch_function__(
            self, func: Any, types: Any, args: Any = (), kwargs: dict[str, Any] | None = None
        ) -> Any:
            kwargs = dict(kwargs or {})
            if func is torch.linspace and kwargs.get("device") is None and kwargs.get("out") is None:
                kwargs["device"] = "cpu"
            return func(*args, **kwargs)

    # The meta device first, so that the CPU asked for above is what it sees.
    with unset_fake_temporarily(), torch.device("meta"), _LinspaceOnCpu():
        built = build()
    made: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}  # the meta tensor kept: its id stays its own

    def anew(t: torch.Tensor) -> torch.Tensor:
        if id(t) not in made:
            fresh = torch.empty(t.shape, dtype=t.dtype)
            param = isinstance(t, torch.nn.Parameter)
            made[id(t)] = (t, torch.nn.Parameter(fresh, t.requires_grad) if param else fresh)
        return made[id(t)][1]

    parts = built if isinstance(built, tuple) else (built,)
    for model in (p for p in parts if isinstance(p, torch.nn.Module)):
        for module in model.modules():
            for name, p in list(module._parameters.items()):
                if p is not None:
                    module._parameters[name] = cast(torch.nn.Parameter, anew(p))  # a Parameter for one
            for name, b in list(module._buffers.items()):
                if b is not None:
                    module._buffers[name] = anew(b)
            for name, value in list(vars(module).items()):  # a tensor kept as a plain attribute
                if isinstance(value, torch.Tensor):
                    setattr(module, name, anew(value))
    return built
