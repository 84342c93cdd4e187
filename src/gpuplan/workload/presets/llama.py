"""Llama 2 / 3.x: pre-RMSNorm decoder, RoPE, SwiGLU MLP, grouped-query attention, no biases."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import nn

from gpuplan.workload.bundle import ModelBundle
from gpuplan.workload.presets.info import Arch, PresetInfo
from gpuplan.workload.presets.layers import Attention, RMSNorm, decoder_bundle, rope_cos_sin

if TYPE_CHECKING:
    from gpuplan.workload.spec import Workload  # annotations only: the spec imports the registry

__all__ = ["Llama", "build"]


class Block(nn.Module):
    def __init__(self, a: Arch) -> None:
        super().__init__()
        self.input_layernorm = RMSNorm(a.hidden, a.norm_eps)
        self.attn = Attention(a.hidden, a.heads, a.kv_heads, a.head_dim, bias=False)
        self.post_attention_layernorm = RMSNorm(a.hidden, a.norm_eps)
        self.gate_proj = nn.Linear(a.hidden, a.intermediate, bias=False)
        self.up_proj = nn.Linear(a.hidden, a.intermediate, bias=False)
        self.down_proj = nn.Linear(a.intermediate, a.hidden, bias=False)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.input_layernorm(x), causal=True, rope=(cos, sin))
        h = self.post_attention_layernorm(x)
        return x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))


class Llama(nn.Module):
    """Token ids (batch, seq) → logits (batch, seq, vocab)."""

    def __init__(self, a: Arch) -> None:
        super().__init__()
        self.embed_tokens = nn.Embedding(a.vocab, a.hidden)
        self.layers = nn.ModuleList(Block(a) for _ in range(a.layers))
        self.norm = RMSNorm(a.hidden, a.norm_eps)
        self.lm_head = nn.Linear(a.hidden, a.vocab, bias=False)
        if a.tied_head:
            self.lm_head.weight = self.embed_tokens.weight
        inv_freq = 1.0 / (a.rope_theta ** (torch.arange(0, a.head_dim, 2, dtype=torch.float32) / a.head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.embed_tokens(ids)
        cos, sin = rope_cos_sin(self.get_buffer("inv_freq"), ids.shape[1], x.dtype)
        for layer in self.layers:
            x = layer(x, cos, sin)
        return self.lm_head(self.norm(x))


def build(info: PresetInfo, workload: Workload) -> ModelBundle:
    a = info.arch
    model = Llama(a)
    s = workload.inputs.seq_len or 2048
    return decoder_bundle(model, a, workload.inputs.batch_size, s)
