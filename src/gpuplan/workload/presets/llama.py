"""Llama 2 / 3.x: pre-RMSNorm decoder, RoPE, SwiGLU MLP, grouped-query attention, no biases."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch
import torch.nn.functional as F
from torch import nn

from gpuplan.workload.bundle import ModelBundle
from gpuplan.workload.presets.fused import fused_dropout_add_norm, fused_silu_mul
from gpuplan.workload.presets.info import Arch, PresetInfo
from gpuplan.workload.presets.layers import (
    Attention,
    Kernels,
    RMSNorm,
    decoder_bundle,
    kernel_notes,
    kernels_for,
    rope_cos_sin,
)

if TYPE_CHECKING:
    from gpuplan.workload.spec import Workload  # annotations only: the spec imports the registry

__all__ = ["Llama", "build"]


class Block(nn.Module):
    """A pre-RMSNorm block; with fused dropout-add-norm in FlashAttention's ``(h, residual)`` order
    (see ``gpt2.Block``)."""

    def __init__(self, a: Arch, k: Kernels | None = None) -> None:
        super().__init__()
        self.k = k = k or Kernels()
        self.input_layernorm = RMSNorm(a.hidden, a.norm_eps)
        self.attn = Attention(
            a.hidden, a.heads, a.kv_heads, a.head_dim, bias=False, dropout=k.attention_dropout
        )
        self.post_attention_layernorm = RMSNorm(a.hidden, a.norm_eps)
        self.gate_proj = nn.Linear(a.hidden, a.intermediate, bias=False)
        self.up_proj = nn.Linear(a.hidden, a.intermediate, bias=False)
        self.down_proj = nn.Linear(a.intermediate, a.hidden, bias=False)

    def mlp(self, h: torch.Tensor) -> torch.Tensor:
        if self.k.dense_activation:
            return self.down_proj(fused_silu_mul(self.gate_proj(h), self.up_proj(h)))
        return self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))

    def forward(
        self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, residual: torch.Tensor | None = None
    ) -> Any:
        p = self.k.dropout if self.training else 0.0
        if self.k.dropout_add_norm:
            h, residual = fused_dropout_add_norm(x, residual, self.input_layernorm, p, residual_fp32=True)
            a = self.attn(h, causal=True, rope=(cos, sin))
            h, residual = fused_dropout_add_norm(
                a, residual, self.post_attention_layernorm, p, residual_fp32=True
            )
            return self.mlp(h), residual
        x = x + F.dropout(self.attn(self.input_layernorm(x), causal=True, rope=(cos, sin)), p, self.training)
        return x + F.dropout(self.mlp(self.post_attention_layernorm(x)), p, self.training)


class Llama(nn.Module):
    """Token ids (batch, seq) → logits (batch, seq, vocab)."""

    def __init__(self, a: Arch, k: Kernels) -> None:
        super().__init__()
        self.k = k
        self.embed_tokens = nn.Embedding(a.vocab, a.hidden)
        self.layers = nn.ModuleList(Block(a, k) for _ in range(a.layers))
        self.norm = RMSNorm(a.hidden, a.norm_eps)
        self.lm_head = nn.Linear(a.hidden, a.vocab, bias=False)
        if a.tied_head:
            self.lm_head.weight = self.embed_tokens.weight
        inv_freq = 1.0 / (a.rope_theta ** (torch.arange(0, a.head_dim, 2, dtype=torch.float32) / a.head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.embed_tokens(ids)
        cos, sin = rope_cos_sin(self.get_buffer("inv_freq"), ids.shape[1], x.dtype)
        p = self.k.dropout if self.training else 0.0
        if self.k.dropout_add_norm:
            h, residual = x, None
            for layer in self.layers:
                h, residual = layer(h, cos, sin, residual)
            out, _ = fused_dropout_add_norm(h, residual, self.norm, p, residual_fp32=True)
            return self.lm_head(out)
        x = F.dropout(x, p, self.training)
        for layer in self.layers:
            x = layer(x, cos, sin)
        return self.lm_head(self.norm(x))


def build(info: PresetInfo, workload: Workload) -> ModelBundle:
    a = info.arch
    k = kernels_for(a, workload)
    model = Llama(a, k)
    s = workload.inputs.seq_len or 2048
    notes = kernel_notes(info.name, k) if (k.dense_activation or k.dropout_add_norm or k.dropout) else ()
    return decoder_bundle(model, a, workload.inputs.batch_size, s, notes=notes)
