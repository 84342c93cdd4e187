"""The tracer's fake mode: it takes in tensors that have no values here, made outside it.

torch's ``FakeTensorMode`` refuses an op on a tensor it did not make ("Mixing fake modes NYI", or
"Please convert all Tensors to FakeTensors first"). A trace meets such tensors where a model keeps
tensors outside its parameters and buffers:

* a library's memo of tensors it made on an earlier call: transformers' BEiT (and Data2Vec-vision,
  DINOv3, DETR, SAM …) caches its relative-position index with ``functools.lru_cache``, for the
  life of the process; the first trace filled it with a fake of its own mode, which every later
  trace (the next workload, the advice's re-traces, the service's next request) met;
* a ``copy.deepcopy`` of a fake parameter (``nn.TransformerEncoder`` clones its layer that way)
  returns a tensor of a fresh fake mode;
* a tensor a user's ``build()`` made on the meta device (``workload/meta.py``) and kept outside its
  modules (in a closure, a list).

Only shape, dtype and strides matter for a trace, so each such tensor stands in as an empty fake of
this mode, made once per tensor and trace. The parameters and buffers of the model are replaced at
the start (:func:`adopt_module_tensors`), so that the optimizer, the gradients and the memory tracker
see this mode's tensors.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import torch
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

__all__ = ["TraceFakeMode", "adopt_module_tensors"]


class TraceFakeMode(FakeTensorMode):
    """``FakeTensorMode`` that stands in its own empty fake for a tensor without values made outside
    it: another mode's fake, or a meta tensor (the module docstring says where they come from).

    Tensors with values (on the CPU or a GPU) are refused as torch refuses them: one in a trace is
    a mistake to show, not a cost to count.
    """

    def __init__(self) -> None:
        super().__init__()
        # id → (the tensor met, ours); the tensor is kept so that its id is not reused meanwhile.
        self._stand_ins: dict[int, tuple[torch.Tensor, FakeTensor]] = {}

    def __torch_dispatch__(
        self,
        func: Any,
        types: Sequence[type],
        args: Sequence[object] = (),
        kwargs: Mapping[str, object] | None = None,
    ) -> object:
        kwargs = kwargs or {}
        # An aten op takes tensors as arguments or in a list of them (Tensor[], Tensor?[]), never
        # deeper: one level is every tensor. Looked at on every op, so without building anything.
        if self._any_foreign(args) or (kwargs and self._any_foreign(kwargs.values())):
            args = tuple(self._ours_in(a) for a in args)
            kwargs = {k: self._ours_in(v) for k, v in kwargs.items()}
        return super().__torch_dispatch__(func, types, args, kwargs)

    def _any_foreign(self, values: Iterable[object]) -> bool:
        for x in values:
            if isinstance(x, FakeTensor):
                if x.fake_mode is not self:
                    return True
            elif self._foreign(x):
                return True
        return False

    def _foreign(self, x: object) -> bool:
        if isinstance(x, torch.Tensor):
            return not (isinstance(x, FakeTensor) and x.fake_mode is self)
        return isinstance(x, list | tuple) and any(self._foreign(t) for t in x)

    def _ours_in(self, x: object) -> object:
        if isinstance(x, torch.Tensor):
            return self._ours(x)
        if isinstance(x, list | tuple):
            return type(x)(self._ours(t) if isinstance(t, torch.Tensor) else t for t in x)
        return x

    def _ours(self, t: torch.Tensor) -> torch.Tensor:
        if isinstance(t, FakeTensor):
            if t.fake_mode is self:
                return t
        elif not t.is_meta or type(t) not in (torch.Tensor, torch.nn.Parameter):
            return t  # values, or a tensor subclass: torch's own rules
        held = self._stand_ins.get(id(t))
        if held is None:
            # Inside this mode's dispatch the mode is off: a meta tensor is made as asked.
            meta = torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="meta")
            held = self._stand_ins[id(t)] = (t, FakeTensor(self, meta, torch.device("cpu")))
        return held[1]


def adopt_module_tensors(model: torch.nn.Module, mode: FakeTensorMode) -> None:
    """Give ``mode`` the parameters and buffers of ``model`` that another fake mode made (a layer
    cloned by ``copy.deepcopy``): an empty tensor of ``mode`` with the same shape, dtype and
    ``requires_grad`` replaces each, once (a tensor shared by several modules stays shared)."""
    adopted: dict[int, torch.Tensor] = {}
    for module in model.modules():
        for name, p in list(module._parameters.items()):
            if isinstance(p, FakeTensor) and p.fake_mode is not mode:
                if id(p) not in adopted:
                    fresh = torch.empty(p.shape, dtype=p.dtype)
                    adopted[id(p)] = torch.nn.Parameter(fresh, requires_grad=p.requires_grad)
                module._parameters[name] = adopted[id(p)]
        for name, b in list(module._buffers.items()):
            if isinstance(b, FakeTensor) and b.fake_mode is not mode:
                module._buffers[name] = adopted.setdefault(id(b), torch.empty(b.shape, dtype=b.dtype))
