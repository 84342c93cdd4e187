"""FLOPs of one aten call: torch's FlopCounterMode formulas plus the CPU flash-attention kernels, and
a convolution backward that counts grouped (depthwise) convolutions right.

On the fake CPU device, ``F.scaled_dot_product_attention`` dispatches to
``aten._scaled_dot_product_flash_attention_for_cpu`` (and its backward), which torch's registry does
not count. We count them with torch's own SDPA formulas, so our totals equal ``FlopCounterMode``'s
with those two formulas added (and its convolution backward corrected for groups) — without
registering anything in torch's global registry.

NB: causal attention is counted as full, as FlopCounterMode counts every SDPA kernel; a causal
flash kernel on a GPU skips about half of the score blocks. ``Profile.notes`` says so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch.utils.flop_counter import conv_flop_count, flop_registry, sdpa_backward_flop_count, sdpa_flop_count

__all__ = ["count_flops", "has_flop_formula"]

aten = torch.ops.aten


def _cpu_flash_forward(
    query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, *args: Any, **kw: Any
) -> int:
    # (query, key, value, dropout_p, is_causal, *, attn_mask, scale)
    return int(sdpa_flop_count(query.shape, key.shape, value.shape))


def _cpu_flash_backward(
    grad_out: torch.Tensor, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, *args: Any, **kw: Any
) -> int:
    # ..._for_cpu_backward(grad_out, query, key, value, out, logsumexp, dropout_p, is_causal, *, mask, scale)
    # torch's backward formula: 5 bmm (scores recomputed) = 2.5 × forward.
    return int(sdpa_backward_flop_count(grad_out.shape, query.shape, key.shape, value.shape))


def _conv_backward(
    grad_out: torch.Tensor, x: torch.Tensor, weight: torch.Tensor, *args: Any, **kw: Any
) -> int:
    # (grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed, output_padding,
    #  groups, output_mask). Each gradient asked for (input, weight) takes the forward's multiplies
    # once more: every product x·w of the forward appears once in grad_input (grad_out·w) and once
    # in grad_weight (grad_out·x). torch's formula counts the weight gradient as a convolution over
    # all input channels, ignoring groups: a depthwise 7×7 convolution (ConvNeXt, groups = channels)
    # came out channels-fold too large (ConvNeXt-T: 26 GMACs of backward per image against a
    # forward of 4.5).
    transposed, mask = bool(args[4]), args[7]
    forward = conv_flop_count(list(x.shape), list(weight.shape), list(grad_out.shape), transposed)
    return int(forward) * (int(bool(mask[0])) + int(bool(mask[1])))


_EXTRA: dict[Any, Callable[..., int]] = {
    aten._scaled_dot_product_flash_attention_for_cpu: _cpu_flash_forward,
    aten._scaled_dot_product_flash_attention_for_cpu_backward: _cpu_flash_backward,
    aten.convolution_backward: _conv_backward,
}


def _linear_act(x: torch.Tensor, weight: torch.Tensor, *args: Any, **kw: Any) -> int:
    # One GEMM (M × K) · (K × N): 2·M·N·K; the bias and activation ride in its epilogue.
    return 2 * x.numel() * weight.shape[0]


def _linear_act_backward(
    dout: torch.Tensor, x: torch.Tensor, weight: torch.Tensor, *args: Any, **kw: Any
) -> int:
    # The data- and weight-gradient GEMMs: 2 × 2·M·N·K.
    return 4 * x.numel() * weight.shape[0]


#: FLOPs of the presets' fused operators (``workload/presets/fused.py``), by name in the ``gpuplan``
#: namespace: the GEMMs only (the elementwise epilogues count 0, as FlopCounterMode counts them).
_FUSED: dict[str, Callable[..., int]] = {
    "linear_act": _linear_act,
    "linear_act_backward": _linear_act_backward,
}


def has_flop_formula(packet: Any) -> bool:
    """Whether calls of this op overload packet have a FLOP count (else they count 0)."""
    return packet in _EXTRA or packet in flop_registry


def count_flops(func: torch._ops.OpOverload, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> int:
    """FLOPs of one call of ``func`` (0 for ops without a formula: elementwise, norms, softmax …)."""
    packet = func.overloadpacket
    if func.namespace == "gpuplan":
        fused = _FUSED.get(packet.__name__)
        return fused(*args, **kwargs) if fused is not None else 0
    extra = _EXTRA.get(packet)
    if extra is not None:
        return extra(*args, **kwargs)
    formula = flop_registry.get(packet)
    if formula is None:
        return 0
    return int(formula(*args, **kwargs, out_val=out))
