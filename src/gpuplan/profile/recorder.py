"""A dispatch mode that records every aten call of one step as (op, class, phase, dtype) aggregates."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from gpuplan.profile.flops import count_flops
from gpuplan.profile.model import (
    DEQUANTIZE_OP,
    LAYOUT_TRANSPOSE_OP,
    NCHW_NORM_SUFFIX,
    OpClass,
    OpRecord,
    Phase,
)
from gpuplan.workload.presets.fused import FUSED_MATMUL_OPS

__all__ = ["OpRecorder", "op_class", "tensors_in"]

aten = torch.ops.aten

_MATMUL = {
    aten.mm, aten.addmm, aten.bmm, aten.baddbmm, aten.addbmm, aten.mv, aten.addmv, aten.dot,
    aten._scaled_mm, aten.matmul, aten.linear,
}  # fmt: skip
#: Ops that move no memory although their schema does not mark them as views: allocations that
#: write nothing, and ``_unsafe_view`` — a reshape whose output shares its input's storage (the
#: schema omits the alias only so autograd treats the result as a fresh tensor). Every other
#: alias-without-traffic op (``alias``, ``lift_fresh``, ``_reshape_alias``, ``detach``, ``expand``,
#: ``t``, ``view``, ``reshape``, ``contiguous``) is flagged ``is_view`` by its schema.
_NO_TRAFFIC = {
    aten.empty, aten.empty_like, aten.empty_strided, aten.new_empty, aten.new_empty_strided,
    aten._unsafe_view,
}  # fmt: skip
#: Batch norm's kernels, forward and backward, in the forms the dispatcher may reach.
_BATCH_NORMS = {
    aten.native_batch_norm, aten._native_batch_norm_legit, aten.native_batch_norm_backward,
    aten.cudnn_batch_norm, aten.cudnn_batch_norm_backward,
}  # fmt: skip
#: Namespaces of dispatcher calls that launch no kernel: metadata queries and profiler markers.
_NOT_KERNELS = {"prim", "profiler"}
_MATMUL_DTYPES = {torch.float16, torch.bfloat16}
_FP8_FORWARD, _FP8_BACKWARD = "float8_e4m3fn", "float8_e5m2"


#: Leaves of an op's arguments that hold no tensor, told apart without a pytree walk.
_PLAIN = (int, float, bool, str, type(None), torch.dtype, torch.device, torch.layout, torch.memory_format)


def tensors_in(tree: Any) -> list[torch.Tensor]:
    """The tensors in an op's arguments or output, in ``tree_flatten`` order.

    What an aten op takes and returns — tensors, numbers, tuples and lists of them (named tuples
    and torch's return types among them), a dict of keyword arguments — is walked directly: every
    op of a trace passes here twice, and ``tree_flatten`` builds a spec tree each time. Anything
    else goes through ``tree_flatten``.
    """
    found: list[torch.Tensor] = []
    _collect(tree, found)
    return found


def _collect(x: Any, found: list[torch.Tensor]) -> None:
    if isinstance(x, torch.Tensor):
        found.append(x)
    elif isinstance(x, _PLAIN):
        return
    elif isinstance(x, tuple | list):
        for item in x:
            _collect(item, found)
    elif type(x) is dict:
        for item in x.values():
            _collect(item, found)
    else:
        found.extend(t for t in tree_flatten(x)[0] if isinstance(t, torch.Tensor))


def _nbytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()


def _written_bytes(func: torch._ops.OpOverload, args: tuple[Any, ...]) -> int:
    """Bytes of the arguments ``func`` mutates (``Tensor(a!)`` in its schema)."""
    total = 0
    for arg, value in zip(func._schema.arguments, args, strict=False):
        if arg.alias_info is not None and arg.alias_info.is_write:
            total += sum(_nbytes(t) for t in tensors_in(value))
    return total


def _nchw(t: Any) -> bool:
    """A 4-D tensor in NCHW order (not ``channels_last``)."""
    return (
        isinstance(t, torch.Tensor)
        and t.dim() == 4
        and not t.is_contiguous(memory_format=torch.channels_last)
    )


def _size(t: Any) -> int:
    return _nbytes(t) if isinstance(t, torch.Tensor) else 0


def _nchw_transpose_bytes(packet: Any, args: tuple[Any, ...], out: Any) -> int:
    """Bytes cuDNN's NCHW ↔ NHWC transposes move around one convolution call (0 when NHWC)."""
    if packet is aten.convolution and len(args) >= 2 and _nchw(args[0]):
        return 2 * (_size(args[0]) + _size(args[1]) + _size(out))
    if packet is aten.convolution_backward and len(args) >= 3 and _nchw(args[1]):
        grad_out, x, w = args[0], args[1], args[2]
        grad_in, grad_w = (out[0], out[1]) if isinstance(out, tuple) else (None, None)
        data = grad_in is not None
        weight = grad_w is not None
        moved = _size(grad_out) * (data + weight) + _size(x) * weight + _size(w) * data
        return 2 * (moved + _size(grad_in) + _size(grad_w))
    return 0


def _nchw_training_norm(func: torch._ops.OpOverload, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether ``func`` is a batch norm in training (its ``training``/``train`` argument, or a
    backward without one) over a 4-D NCHW tensor."""
    if func.overloadpacket not in _BATCH_NORMS:
        return False
    values = dict(zip((a.name for a in func._schema.arguments), args, strict=False)) | kwargs
    training = values.get("training", values.get("train", True))
    return bool(training) and any(_nchw(t) for t in tensors_in(args))


#: Distinct shapes kept per op record (the heaviest); a model has a handful per record.
_MAX_SHAPES = 32


def _gemm_shapes(packet: Any, args: tuple[Any, ...], out: Any, flops: int) -> list[tuple[int, int, int, int]]:
    """The ``(b, m, n, k)`` GEMMs of one matmul call: the fused operators' from their operands, any
    other's from its output (``b`` batches of ``m × n``) and its FLOP count (``k = flops / 2bmn``)."""
    name = getattr(packet, "__name__", "")
    if name in FUSED_MATMUL_OPS and getattr(packet, "_qualified_op_name", "").startswith("gpuplan::"):
        x, weight = (args[0], args[1]) if name == "linear_act" else (args[1], args[2])
        k_in, n_out = int(weight.shape[1]), int(weight.shape[0])
        m = x.numel() // max(k_in, 1)
        if name == "linear_act":
            return [(1, m, n_out, k_in)]
        return [(1, m, k_in, n_out), (1, n_out, k_in, m)]  # data gradient, weight gradient
    outs = tensors_in(out)
    if not outs or flops <= 0:
        return []
    shape = tuple(int(d) for d in outs[0].shape)
    m, n = (shape[-2], shape[-1]) if len(shape) >= 2 else ((shape[0], 1) if shape else (1, 1))
    b = math.prod(shape[:-2]) if len(shape) > 2 else 1
    k = round(flops / (2 * b * m * n)) if b * m * n else 0
    return [(b, m, n, k)] if k >= 1 else []


def _attention_shape(packet: Any, args: tuple[Any, ...]) -> tuple[int, int, int, int] | None:
    """``(batch × heads, query length, key length, head dim)`` of one fused attention call."""
    first = 1 if packet.__name__.endswith("_backward") else 0
    if len(args) < first + 2:
        return None
    q, k = args[first], args[first + 1]
    if not (isinstance(q, torch.Tensor) and isinstance(k, torch.Tensor) and q.dim() == 4 and k.dim() == 4):
        return None
    b, h, s_q, d = (int(x) for x in q.shape)
    return (b * h, s_q, int(k.shape[2]), d)


def op_class(packet: Any) -> OpClass:
    """Which roofline a call belongs to: tensor-core matmul / attention / conv, or ``other``.

    The fused GEMM-with-epilogue operators of the presets (``gpuplan.linear_act``) are matmuls."""
    if packet in _MATMUL:
        return "matmul"
    name = packet.__name__
    if getattr(packet, "_qualified_op_name", "").startswith("gpuplan::") and name in FUSED_MATMUL_OPS:
        return "matmul"
    if "attention" in name:
        return "attention"
    if "convolution" in name:
        return "conv"
    return "other"


def _dtype_name(dt: torch.dtype) -> str:
    return str(dt).removeprefix("torch.")


class OpRecorder(TorchDispatchMode):
    """Counts calls, FLOPs and bytes moved per (op, class, phase, dtype) while ``recording`` is on.

    Bytes moved = sizes of all tensor inputs plus all tensor outputs (views and ``empty`` count 0;
    in-place ops that return nothing count the tensors they write).
    The tracer sets ``phase`` around forward, backward and the optimizer step.

    ``fp8_matmuls``: label 16-bit matmuls as fp8 (E4M3 forward, E5M2 backward), as an fp8 recipe
    (Transformer Engine, torchao float8) would run them; the trace itself is 16-bit.

    A convolution whose input is NCHW (PyTorch's default layout, not ``channels_last``) adds one
    :data:`~gpuplan.profile.model.LAYOUT_TRANSPOSE_OP` record: tensor-core convolutions compute in
    NHWC, so cuDNN transposes the NCHW operands in and the result back out ("The cuDNN library may
    use padding, folding, and NCHW-to-NHWC transformations to call the Tensor Core operations",
    NVIDIA cuDNN documentation, Legacy API, "Data and Filter Formats"; "Choose tensor layouts in
    memory to avoid transposing input and output data … We recommend using the NHWC format", NVIDIA
    Convolutional Layers User's Guide, docs.nvidia.com/deeplearning/performance/
    dl-performance-convolutional, both read 2026-12-01). Each transpose reads and writes its tensor
    once: forward the input, weight and output; backward the output gradient twice (data and weight
    gradients are separate cuDNN calls), the input, the weight and both gradients. Whether a GPU
    runs the convolution on tensor cores (and so pays them) is the estimate's call.

    A batch norm in training over NCHW activations is recorded under its op name plus
    :data:`~gpuplan.profile.model.NCHW_NORM_SUFFIX`: its kernels are not the ``channels_last`` ones
    and run at a rate of their own (``perf/roofline.py``).
    """

    def __init__(self, *, fp8_matmuls: bool = False) -> None:
        super().__init__()
        self.phase: Phase = "forward"
        self.recording = False
        self.fp8_matmuls = fp8_matmuls
        self._acc: dict[tuple[str, OpClass, Phase, str], list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
        self._shapes: dict[tuple[str, OpClass, Phase, str], Counter[tuple[int, int, int, int]]] = defaultdict(
            Counter
        )

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is aten._local_scalar_dense.default and self.phase == "optimizer":
            # NB: fake tensors have no values, so ``.item()`` raises; Adafactor calls it on the
            # parameter RMS inside step(). Any value gives the same cost, so answer 1.
            return 1.0 if args[0].dtype.is_floating_point else 1
        out = func(*args, **kwargs)
        if self.recording:
            self._record(func, args, kwargs, out)
        return out

    def _record(
        self, func: torch._ops.OpOverload, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any
    ) -> None:
        namespace = func.namespace
        if namespace in _NOT_KERNELS:
            return
        packet = func.overloadpacket
        ins = tensors_in((args, kwargs))
        outs = tensors_in(out)
        if func.is_view or packet in _NO_TRAFFIC:
            # NB: views share their input's storage: no memory traffic.
            moved = 0
        else:
            moved = sum(_nbytes(t) for t in (*ins, *outs))
            if not outs:
                # In-place foreach ops (the optimizer's) return nothing: count their writes from the schema.
                moved += _written_bytes(func, args)
        cls = op_class(packet)
        floats = [t.dtype for t in ins if t.dtype.is_floating_point]
        dtype = floats[0] if floats else (ins[0].dtype if ins else (outs[0].dtype if outs else None))
        name = _dtype_name(dtype) if dtype is not None else "none"
        if self.fp8_matmuls and cls == "matmul" and dtype in _MATMUL_DTYPES:
            name = _FP8_FORWARD if self.phase == "forward" else _FP8_BACKWARD
        op = f"{namespace}.{packet.__name__}"
        if _nchw_training_norm(func, args, kwargs):
            op += NCHW_NORM_SUFFIX
        key = (op, cls, self.phase, name)
        acc = self._acc[key]
        flops = count_flops(func, args, kwargs, out)
        acc[0] += 1
        acc[1] += flops
        acc[2] += moved
        if cls == "matmul":
            self._shapes[key].update(_gemm_shapes(packet, args, out, flops))
        elif cls == "attention" and (shape := _attention_shape(packet, args)) is not None:
            self._shapes[key][shape] += 1
        if cls == "conv":
            transposed = _nchw_transpose_bytes(packet, args, out)
            if transposed:
                layout = self._acc[(LAYOUT_TRANSPOSE_OP, "other", self.phase, name)]
                layout[0] += 1
                layout[2] += transposed

    def dequantize(self, stored_bytes: int, weights: int) -> None:
        """One 4-bit weight dequantized for a matmul (:data:`DEQUANTIZE_OP`): its stored codes and
        block constants read and its 16-bit copy written, one kernel (``workload/adapt.py``)."""
        if not self.recording:
            return
        acc = self._acc[(DEQUANTIZE_OP, "other", self.phase, "uint8")]
        acc[0] += 1
        acc[2] += stored_bytes + 2 * weights

    def records(self) -> tuple[OpRecord, ...]:
        """The aggregates, heaviest first (FLOPs, then bytes)."""
        recs = [
            OpRecord(
                op=key[0],
                op_class=key[1],
                phase=key[2],
                dtype=key[3],
                count=int(c),
                flops=float(f),
                bytes_moved=float(b),
                shapes=self._shape_list(key),
            )
            for key, (c, f, b) in self._acc.items()
        ]
        return tuple(sorted(recs, key=lambda r: (-r.flops, -r.bytes_moved, r.op, r.phase, r.dtype)))

    def _shape_list(self, key: tuple[str, OpClass, Phase, str]) -> tuple[tuple[int, int, int, int, int], ...]:
        """``(calls, *shape)`` of one record, heaviest first (at most :data:`_MAX_SHAPES`)."""
        counted = self._shapes.get(key)
        if not counted:
            return ()
        rows = sorted(((c, *s) for s, c in counted.items()), key=lambda r: (-r[0] * math.prod(r[1:]), r))
        return tuple(rows[:_MAX_SHAPES])
