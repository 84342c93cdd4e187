"""Hand-fused training kernels, as the preset models run them when a workload's stack names them.

Each fused kernel is one PyTorch custom operator (``torch.library.custom_op``, namespace
``gpuplan``) with a backward operator of its own, so that a trace sees what a GPU runs: one kernel
call that reads its inputs and writes its outputs once, and keeps for backward what the kernel keeps.
The fake-tensor implementations give shapes and dtypes only; the CPU implementations compute the
same result as the unfused PyTorch ops (``tests/workload/test_fused_kernels.py`` checks it).

- ``dropout_add_norm`` — dropout, residual add and LayerNorm / RMSNorm in one pass, the residual
  kept in fp32 and the dropout mask as one byte per element: FlashAttention's
  ``dropout_add_layer_norm`` (Dao-AILab/flash-attention ``flash_attn/ops/layer_norm.py``; its
  ``residual_in_fp32`` option, on in its GPT training configs).
- ``linear_act`` — a GEMM whose epilogue adds the bias and applies GELU / ReLU, keeping the
  pre-activation for backward; backward applies the activation's derivative in the epilogue of the
  gradient GEMMs (``flash_attn/ops/fused_dense.py`` ``FusedMLP``, ``checkpoint_lvl=0``; Megatron-LM's
  fused bias-GeLU).
- ``silu_mul`` — SwiGLU's ``silu(gate) × up`` in one kernel, keeping only ``gate`` and ``up``
  (xFormers' ``swiglu`` and Liger's ``LigerSiLUMulFunction`` recompute ``silu(gate)`` in backward).
- ``cross_entropy`` — cross-entropy over 16-bit logits with the log-sum-exp kept per row, and the
  gradient written over the logits in backward: FlashAttention's ``CrossEntropyLoss(inplace_backward=True)``
  (``flash_attn/losses/cross_entropy.py``), which its training configs use "to save memory".

The operators are registered on first use (:func:`ops`), only when a model is traced.
"""

from __future__ import annotations

import math
from functools import cache
from types import SimpleNamespace
from typing import Any

import torch
import torch.nn.functional as F

__all__ = [
    "FUSED_MATMUL_OPS",
    "fused_cross_entropy",
    "fused_dropout_add_norm",
    "fused_linear_act",
    "fused_silu_mul",
    "ops",
]

#: The custom operators that run on tensor cores (a GEMM with a fused epilogue): their calls are
#: costed like matmuls (``profile.recorder.op_class``).
FUSED_MATMUL_OPS = frozenset({"linear_act", "linear_act_backward"})

_ACTS = ("gelu", "gelu_tanh", "relu")


def _act(pre: torch.Tensor, act: str) -> torch.Tensor:
    if act == "relu":
        return F.relu(pre)
    return F.gelu(pre, approximate="tanh" if act == "gelu_tanh" else "none")


def _act_grad(pre: torch.Tensor, act: str) -> torch.Tensor:
    """d act / d pre, elementwise (the closed forms of GELU's two variants and ReLU)."""
    x = pre.float()
    if act == "relu":
        g = (x > 0).float()
    elif act == "gelu":  # Φ(x) + x·φ(x)
        g = 0.5 * (1 + torch.erf(x / math.sqrt(2))) + x * torch.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
    else:  # tanh approximation: 0.5(1 + t) + 0.5·x·(1 − t²)·c·(1 + 3·0.044715·x²)
        c = math.sqrt(2 / math.pi)
        t = torch.tanh(c * (x + 0.044715 * x**3))
        g = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * 0.044715 * x * x)
    return g.to(pre.dtype)


def _flat(x: torch.Tensor) -> torch.Tensor:
    return x.reshape(-1, x.shape[-1])


@cache
def ops() -> SimpleNamespace:
    """The fused operators (registered in ``torch.library`` on the first call)."""
    lib = torch.library

    # ---- dropout + residual add + LayerNorm / RMSNorm ---------------------------------------------

    @lib.custom_op("gpuplan::dropout_add_norm", mutates_args=())
    def dropout_add_norm(
        x: torch.Tensor,
        residual: torch.Tensor | None,
        weight: torch.Tensor,
        bias: torch.Tensor | None,
        p: float,
        eps: float,
        rms: bool,
        residual_fp32: bool,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        # out = norm(dropout(x) + residual); returns (out, the sum, mask, mean, rstd).
        keep = torch.rand_like(x, dtype=torch.float32) >= p if p > 0 else None
        dropped = x * keep / (1.0 - p) if keep is not None else x
        s = dropped.float() + (residual.float() if residual is not None else 0.0)
        mean = s.mean(-1) if not rms else torch.empty(0)
        centred = s - mean.unsqueeze(-1) if not rms else s
        rstd = torch.rsqrt(centred.pow(2).mean(-1) + eps)
        y = centred * rstd.unsqueeze(-1) * weight.float()
        if bias is not None:
            y = y + bias.float()
        mask = keep.to(torch.uint8) if keep is not None else torch.empty(0, dtype=torch.uint8)
        s_out = s if residual_fp32 else s.to(x.dtype)
        return y.to(x.dtype), s_out, mask, mean, rstd

    @dropout_add_norm.register_fake
    def _(x, residual, weight, bias, p, eps, rms, residual_fp32):
        rows = x.shape[:-1]
        mask = x.new_empty(x.shape, dtype=torch.uint8) if p > 0 else x.new_empty(0, dtype=torch.uint8)
        s = x.new_empty(x.shape, dtype=torch.float32 if residual_fp32 else x.dtype)
        mean = x.new_empty(0 if rms else rows, dtype=torch.float32)
        return x.new_empty(x.shape), s, mask, mean, x.new_empty(rows, dtype=torch.float32)

    @lib.custom_op("gpuplan::dropout_add_norm_backward", mutates_args=())
    def dropout_add_norm_backward(
        dout: torch.Tensor,
        dsum: torch.Tensor | None,
        s: torch.Tensor,
        mask: torch.Tensor,
        weight: torch.Tensor,
        mean: torch.Tensor,
        rstd: torch.Tensor,
        p: float,
        rms: bool,
        has_bias: bool,
        x_like: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        # One kernel: the norm's backward, the residual's gradient added, the dropout mask applied.
        sf = s.float()
        centred = sf - mean.unsqueeze(-1) if not rms else sf
        xhat = centred * rstd.unsqueeze(-1)
        g = dout.float() * weight.float()
        n = sf.shape[-1]
        if rms:
            ds = rstd.unsqueeze(-1) * (g - xhat * (g * xhat).sum(-1, keepdim=True) / n)
        else:
            ds = rstd.unsqueeze(-1) * (
                g - g.mean(-1, keepdim=True) - xhat * (g * xhat).mean(-1, keepdim=True)
            )
        if dsum is not None:
            ds = ds + dsum.float()
        dw = _flat(dout.float() * xhat).sum(0).to(weight.dtype)
        db = _flat(dout.float()).sum(0).to(weight.dtype) if has_bias else weight.new_empty(0)
        dx = ds * mask / (1.0 - p) if p > 0 else ds
        return dx.to(x_like.dtype), ds.to(s.dtype).clone(), dw, db

    @dropout_add_norm_backward.register_fake
    def _(dout, dsum, s, mask, weight, mean, rstd, p, rms, has_bias, x_like):
        db = weight.new_empty(weight.shape if has_bias else 0)
        return x_like.new_empty(s.shape), s.new_empty(s.shape), weight.new_empty(weight.shape), db

    def _dan_setup(ctx: Any, inputs: tuple[Any, ...], output: tuple[Any, ...]) -> None:
        x, residual, weight, bias, p, _eps, rms, _fp32 = inputs
        _out, s, mask, mean, rstd = output
        ctx.mark_non_differentiable(mask, mean, rstd)
        # x itself is not kept: its gradient is the sum's through the mask (only its dtype is needed).
        ctx.save_for_backward(s, mask, weight, mean, rstd, x.new_empty(0))
        ctx.p, ctx.rms, ctx.has_bias, ctx.has_residual = p, rms, bias is not None, residual is not None
        ctx.residual_dtype = residual.dtype if residual is not None else None

    def _dan_backward(ctx: Any, dout: Any, dsum: Any, *_unused: Any) -> tuple[Any, ...]:
        s, mask, weight, mean, rstd, x_like = ctx.saved_tensors
        dx, ds, dw, db = dropout_add_norm_backward(
            dout, dsum, s, mask, weight, mean, rstd, ctx.p, ctx.rms, ctx.has_bias, x_like
        )
        dres = ds.to(ctx.residual_dtype) if ctx.has_residual else None
        return dx, dres, dw, db if ctx.has_bias else None, None, None, None, None

    dropout_add_norm.register_autograd(_dan_backward, setup_context=_dan_setup)

    # ---- GEMM + bias + activation epilogue ----------------------------------------------------------

    @lib.custom_op("gpuplan::linear_act", mutates_args=())
    def linear_act(
        x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, act: str
    ) -> tuple[torch.Tensor, torch.Tensor]:
        pre = F.linear(x, weight.to(x.dtype), bias.to(x.dtype) if bias is not None else None)
        return _act(pre, act), pre

    @linear_act.register_fake
    def _(x, weight, bias, act):
        shape = (*x.shape[:-1], weight.shape[0])
        return x.new_empty(shape), x.new_empty(shape)

    @lib.custom_op("gpuplan::linear_act_backward", mutates_args=())
    def linear_act_backward(
        dout: torch.Tensor, x: torch.Tensor, weight: torch.Tensor, pre: torch.Tensor, act: str, has_bias: bool
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        dpre = dout * _act_grad(pre, act)  # in the gradient GEMMs' epilogue on a GPU
        dx = _flat(dpre) @ weight.to(dpre.dtype)
        dw = _flat(dpre).t() @ _flat(x).to(dpre.dtype)
        db = _flat(dpre).sum(0) if has_bias else weight.new_empty(0)
        return dx.reshape(x.shape), dw.to(weight.dtype), db.to(weight.dtype)

    @linear_act_backward.register_fake
    def _(dout, x, weight, pre, act, has_bias):
        db = weight.new_empty(weight.shape[0] if has_bias else 0)
        return x.new_empty(x.shape), weight.new_empty(weight.shape), db

    def _la_setup(ctx: Any, inputs: tuple[Any, ...], output: tuple[Any, ...]) -> None:
        x, weight, bias, act = inputs
        _out, pre = output
        ctx.mark_non_differentiable(pre)
        ctx.save_for_backward(x, weight, pre)
        ctx.act, ctx.has_bias = act, bias is not None

    def _la_backward(ctx: Any, dout: Any, _dpre: Any) -> tuple[Any, ...]:
        x, weight, pre = ctx.saved_tensors
        dx, dw, db = linear_act_backward(dout, x, weight, pre, ctx.act, ctx.has_bias)
        return dx, dw, db if ctx.has_bias else None, None

    linear_act.register_autograd(_la_backward, setup_context=_la_setup)

    # ---- SwiGLU: silu(gate) × up -------------------------------------------------------------------

    @lib.custom_op("gpuplan::silu_mul", mutates_args=())
    def silu_mul(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
        return F.silu(gate) * up

    @silu_mul.register_fake
    def _(gate, up):
        return gate.new_empty(gate.shape)

    @lib.custom_op("gpuplan::silu_mul_backward", mutates_args=())
    def silu_mul_backward(
        dout: torch.Tensor, gate: torch.Tensor, up: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        sig = torch.sigmoid(gate.float())
        silu = gate.float() * sig
        dgate = dout.float() * up.float() * sig * (1 + gate.float() * (1 - sig))
        return dgate.to(gate.dtype), (dout.float() * silu).to(up.dtype)

    @silu_mul_backward.register_fake
    def _(dout, gate, up):
        return gate.new_empty(gate.shape), up.new_empty(up.shape)

    def _sm_setup(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        ctx.save_for_backward(*inputs)

    def _sm_backward(ctx: Any, dout: Any) -> tuple[Any, ...]:
        gate, up = ctx.saved_tensors
        return silu_mul_backward(dout, gate, up)

    silu_mul.register_autograd(_sm_backward, setup_context=_sm_setup)

    # ---- cross-entropy over 16-bit logits, gradient in place ---------------------------------------

    @lib.custom_op("gpuplan::cross_entropy", mutates_args=())
    def cross_entropy(logits: torch.Tensor, labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        flat = _flat(logits).float()
        lse = torch.logsumexp(flat, -1)
        picked = flat.gather(1, labels.reshape(-1, 1)).squeeze(1)
        return (lse - picked).mean(), lse

    @cross_entropy.register_fake
    def _(logits, labels):
        return logits.new_empty((), dtype=torch.float32), logits.new_empty(
            labels.numel(), dtype=torch.float32
        )

    @lib.custom_op("gpuplan::cross_entropy_backward", mutates_args=("logits",))
    def cross_entropy_backward(
        dloss: torch.Tensor, logits: torch.Tensor, lse: torch.Tensor, labels: torch.Tensor
    ) -> None:
        # The gradient softmax − one-hot, scaled, written over the logits (inplace_backward).
        flat = _flat(logits)
        grad = torch.exp(flat.float() - lse.unsqueeze(1))
        grad.scatter_add_(1, labels.reshape(-1, 1), -torch.ones_like(lse).unsqueeze(1))
        flat.copy_((grad * dloss / lse.numel()).to(logits.dtype))

    @cross_entropy_backward.register_fake
    def _(dloss, logits, lse, labels):
        return None

    def _ce_setup(ctx: Any, inputs: tuple[Any, ...], output: tuple[Any, ...]) -> None:
        logits, labels = inputs
        _loss, lse = output
        ctx.mark_non_differentiable(lse)
        ctx.save_for_backward(logits, lse, labels)

    def _ce_backward(ctx: Any, dloss: Any, _dlse: Any) -> tuple[Any, ...]:
        logits, lse, labels = ctx.saved_tensors
        cross_entropy_backward(dloss, logits, lse, labels)
        return logits, None

    cross_entropy.register_autograd(_ce_backward, setup_context=_ce_setup)

    return SimpleNamespace(
        dropout_add_norm=dropout_add_norm,
        linear_act=linear_act,
        silu_mul=silu_mul,
        cross_entropy=cross_entropy,
    )


def fused_linear_act(linear: torch.nn.Linear, x: torch.Tensor, act: str) -> torch.Tensor:
    """``act(linear(x))`` as one GEMM with the bias and activation in its epilogue."""
    if act not in _ACTS:
        raise ValueError(act)
    if type(linear) is not torch.nn.Linear:
        # An adapted or quantized layer (LoRA, a bitsandbytes weight) runs its own matmuls: the
        # activation is a kernel of its own after them.
        return _act(linear(x), act)
    dtype = torch.get_autocast_dtype("cpu") if torch.is_autocast_enabled("cpu") else x.dtype
    out, _pre = ops().linear_act(x.to(dtype), linear.weight, linear.bias, act)
    return out


def fused_dropout_add_norm(
    x: torch.Tensor,
    residual: torch.Tensor | None,
    norm: torch.nn.Module,
    p: float,
    *,
    residual_fp32: bool = False,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(norm(dropout(x) + residual), dropout(x) + residual)`` in one kernel; ``norm`` is an
    ``nn.LayerNorm`` or the presets' ``RMSNorm`` (its ``weight`` and ``eps``)."""
    rms = not isinstance(norm, torch.nn.LayerNorm)
    eps = float(getattr(norm, "eps", 1e-5) or 1e-5)
    bias = getattr(norm, "bias", None)
    out, s, _mask, _mean, _rstd = ops().dropout_add_norm(
        x, residual, norm.weight, bias, float(p) if norm.training else 0.0, eps, rms, residual_fp32
    )
    return out, s


def fused_silu_mul(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    return ops().silu_mul(gate, up)


def fused_cross_entropy(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Mean token cross-entropy over 16-bit logits (no fp32 copy), gradient in place."""
    loss, _lse = ops().cross_entropy(logits, labels)
    return loss
