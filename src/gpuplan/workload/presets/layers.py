"""Building blocks shared by the preset models (plain torch; imported only to trace)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import nn

from gpuplan.vocab import FusedKernel
from gpuplan.workload.bundle import Batch, ModelBundle
from gpuplan.workload.presets.info import Arch
from gpuplan.workload.shape import ModelShape

if TYPE_CHECKING:
    from gpuplan.workload.spec import Workload  # annotations only: the spec imports the registry


@dataclass(frozen=True, kw_only=True)
class Kernels:
    """How a preset's blocks run, from the workload's stack: its dropouts and fused kernels."""

    dropout: float = 0.0
    """Hidden (embedding, residual-branch) dropout probability."""
    attention_dropout: float = 0.0
    dense_activation: bool = False
    """The MLP's activation in its first GEMM's epilogue (``presets/fused.py linear_act``)."""
    dropout_add_norm: bool = False
    """Dropout, residual add and the next norm in one kernel (``presets/fused.py dropout_add_norm``)."""


def kernel_notes(name: str, k: Kernels) -> tuple[str, ...]:
    """The trace notes that say how a preset ran: its dropouts and the fused kernels it ran."""
    fused = [
        n
        for n, on in (("dense-activation", k.dense_activation), ("dropout-add-norm", k.dropout_add_norm))
        if on
    ]
    drop = (
        f"dropout {k.dropout:g} on embeddings and residual branches, {k.attention_dropout:g} on attention "
        "probabilities (as its published config)"
        if k.dropout or k.attention_dropout
        else "no dropout"
    )
    return (f"{name}: {drop}" + (f"; fused kernels: {', '.join(fused)}" if fused else ""),)


def kernels_for(arch: Arch, workload: Workload) -> Kernels:
    """The kernels ``workload``'s stack runs a preset of ``arch`` with (dropout off when the stack
    says ``dropout: false``; inference runs none: the model is in eval mode)."""
    stack = workload.software_stack
    on = stack.dropout and workload.is_training
    return Kernels(
        dropout=arch.dropout if on else 0.0,
        attention_dropout=arch.attention_dropout if on else 0.0,
        dense_activation=stack.fused(FusedKernel.DENSE_ACTIVATION),
        dropout_add_norm=stack.fused(FusedKernel.DROPOUT_ADD_NORM),
    )


__all__ = [
    "Attention",
    "Kernels",
    "RMSNorm",
    "apply_rope",
    "eager_attention",
    "kernel_notes",
    "kernels_for",
    "lm_loss",
    "rope_cos_sin",
]


class RMSNorm(nn.Module):
    """Root-mean-square norm with a learned scale (Llama, and T5's "LayerNorm"), computed in fp32."""

    def __init__(self, dim: int, eps: float) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Upcast as HF LlamaRMSNorm does: the fp32 copy is part of the real activation memory.
        h = x.float()
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * h.to(x.dtype)


def rope_cos_sin(inv_freq: torch.Tensor, seq_len: int, dtype: torch.dtype) -> tuple[torch.Tensor, ...]:
    """cos/sin tables (seq, head_dim) for rotary embeddings, recomputed per forward like HF."""
    pos = torch.arange(seq_len, device=inv_freq.device, dtype=torch.float32)
    freqs = torch.outer(pos, inv_freq.float())
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate (batch, heads, seq, head_dim) by the half-split convention of HF Llama."""
    x1, x2 = x.chunk(2, dim=-1)
    return x * cos + torch.cat((-x2, x1), dim=-1) * sin


class Attention(nn.Module):
    """Multi-head (or grouped-query) attention on ``F.scaled_dot_product_attention``.

    ``eager`` (set by the tracer for ``attention: eager``) replaces the fused kernel by the math path
    HF's eager attention runs: the s×s scores and probabilities exist as tensors and are saved for
    backward, softmax in fp32 as separate kernels (:func:`eager_attention`). ``fused_softmax`` (for
    ``attention: fused-softmax``) keeps the s×s matrices but runs Megatron's one-kernel 16-bit
    scale + mask + softmax (:func:`fused_softmax_attention`).

    Projections are separate ``q_proj``/``k_proj``/``v_proj``/``o_proj`` linears in every preset (GPT-2's
    fused ``c_attn`` has the same parameters and FLOPs), so LoRA targets mean the same everywhere.
    """

    def __init__(
        self,
        dim: int,
        heads: int,
        kv_heads: int,
        head_dim: int,
        *,
        bias: bool,
        kv_dim: int | None = None,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, head_dim
        self.dropout = dropout
        """Dropout on the attention probabilities (in training)."""
        self.eager = False
        self.fused_softmax = False
        kv_in = kv_dim or dim
        self.q_proj = nn.Linear(dim, heads * head_dim, bias=bias)
        self.k_proj = nn.Linear(kv_in, kv_heads * head_dim, bias=bias)
        self.v_proj = nn.Linear(kv_in, kv_heads * head_dim, bias=bias)
        self.o_proj = nn.Linear(heads * head_dim, dim, bias=bias)

    def forward(
        self,
        x: torch.Tensor,
        *,
        context: torch.Tensor | None = None,
        causal: bool = False,
        rope: tuple[torch.Tensor, torch.Tensor] | None = None,
        bias: torch.Tensor | None = None,
        scale: float | None = None,
    ) -> torch.Tensor:
        b, s, _ = x.shape
        kv = x if context is None else context
        q = self.q_proj(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(kv).view(b, kv.shape[1], self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(kv).view(b, kv.shape[1], self.kv_heads, self.head_dim).transpose(1, 2)
        if rope is not None:
            q, k = apply_rope(q, *rope), apply_rope(k, *rope)
        p = self.dropout if self.training else 0.0
        if self.eager:
            out = eager_attention(q, k, v, bias=bias, causal=causal, scale=scale, dropout=p)
        elif self.fused_softmax:
            out = fused_softmax_attention(q, k, v, bias=bias, scale=scale, dropout=p)
        else:
            # NB: GQA shares each K/V head across heads/kv_heads query heads without copying, as flash
            # attention does on a GPU (HF's eager repeat_kv stores the repeated K/V: eager_attention).
            # Dropout is applied inside the flash kernel on a GPU (the tracer traces it so).
            out = F.scaled_dot_product_attention(
                q,
                k,
                v,
                attn_mask=bias,
                dropout_p=p,
                is_causal=causal,
                scale=scale,
                enable_gqa=self.kv_heads != self.heads,
            )
        return self.o_proj(out.transpose(1, 2).reshape(b, s, self.heads * self.head_dim))


def eager_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    *,
    bias: torch.Tensor | None,
    causal: bool,
    scale: float | None,
    dropout: float = 0.0,
) -> torch.Tensor:
    """Attention as separate kernels, as HF's ``eager_attention_forward`` runs it.

    (batch, heads, q, d) × (batch, kv_heads, k, d): K/V repeated to every query head (a copy, as
    ``repeat_kv``), scores ``q·kᵀ·scale`` plus the mask, softmax in fp32 cast back to the input's
    dtype, dropout on the probabilities (its mask and the dropped probabilities kept for backward,
    as BERT's and GPT-2's eager attention do in training), then ``probs·v``. Autograd keeps the
    probabilities (b·heads·s² elements) for backward.
    """
    if k.shape[1] != q.shape[1]:
        rep = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
    scores = torch.matmul(q, k.transpose(-2, -1)) * (scale if scale is not None else q.shape[-1] ** -0.5)
    if bias is not None:
        scores = scores + bias
    if causal:
        s_q, s_k = q.shape[-2], k.shape[-2]
        future = torch.ones(s_q, s_k, dtype=torch.bool, device=q.device).triu(s_k - s_q + 1)
        scores = scores.masked_fill(future, torch.finfo(scores.dtype).min)
    probs = F.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)
    if dropout > 0:
        probs = F.dropout(probs, dropout)
    return torch.matmul(probs, v)


def fused_softmax_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    *,
    bias: torch.Tensor | None,
    scale: float | None,
    dropout: float = 0.0,
) -> torch.Tensor:
    """Attention as Megatron-LM (2021) runs it: batched GEMMs around one fused softmax kernel.

    Megatron's ``CoreAttention`` computes ``q·kᵀ`` with ``baddbmm`` (the 1/√d scale folded into the
    GEMM's alpha), then ``FusedScaleMaskSoftmax`` reads the 16-bit scores once and writes the 16-bit
    probabilities once: scale, causal/padding mask and softmax in one kernel, no fp32 copy. Traced
    here as the scale on q (b·h·s·d elements, small next to s²), the GEMM, a 16-bit softmax with the
    mask left to the kernel (it reads no s×s mask tensor), and ``probs·v``; autograd keeps the
    probabilities for backward, as Megatron does. An additive ``bias`` (not a mask) is a tensor the
    kernel must read, so it stays. K/V heads are repeated (GQA) as Megatron 2021 had none to share.
    """
    if k.shape[1] != q.shape[1]:
        rep = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
    scores = torch.matmul(q * (scale if scale is not None else q.shape[-1] ** -0.5), k.transpose(-2, -1))
    if bias is not None:
        scores = scores + bias
    # NB: the causal mask is applied inside the fused kernel (upper triangle set to -inf), which moves
    # no extra bytes; the FLOPs and bytes of the masked half are still spent, as Megatron 2021 did.
    probs = torch.softmax(scores, dim=-1)
    if dropout > 0:
        # Megatron's CoreAttention drops the s×s probabilities (``attention_dropout``) before ``·v``.
        probs = F.dropout(probs, dropout)
    return torch.matmul(probs, v)


def lm_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Token cross-entropy on fp32 logits, as HF's causal/masked LM losses compute it.

    Labels are taken as already shifted (HF shifts labels, not logits, so no logits copy is made).
    """
    return F.cross_entropy(logits.float().view(-1, logits.shape[-1]), labels.view(-1))


def decoder_bundle(
    model: nn.Module, arch: Arch, batch_size: int, seq_len: int, notes: tuple[str, ...] = ()
) -> ModelBundle:
    """The bundle of a decoder-only LM (GPT-2, Llama): random token batches, next-token loss, shape.

    ``model.layers`` is the ``nn.ModuleList`` of transformer blocks (what checkpointing recomputes).
    """

    def make_batch() -> Batch:
        tokens = (batch_size, seq_len)
        return Batch(
            args=(torch.randint(0, arch.vocab, tokens),), targets=(torch.randint(0, arch.vocab, tokens),)
        )

    first_block = model.get_submodule("layers.0")
    per_block = sum(p.numel() for p in first_block.parameters())
    return ModelBundle(
        model=model,
        make_batch=make_batch,
        loss=lambda out, batch: lm_loss(out, batch.targets[0]),
        lm_head="lm_head",
        shape=ModelShape(
            family="decoder",
            num_layers=arch.layers,
            hidden_size=arch.hidden,
            num_attention_heads=arch.heads,
            num_kv_heads=arch.kv_heads,
            head_dim=arch.head_dim,
            vocab_size=arch.vocab,
            max_seq_len=arch.max_positions,
            largest_layer_params=max(per_block, arch.vocab * arch.hidden),
        ),
        seq_len=seq_len,
        checkpoint_blocks=tuple(f"layers.{i}" for i in range(arch.layers)),
        notes=notes,
    )
