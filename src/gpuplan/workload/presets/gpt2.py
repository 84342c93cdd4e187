"""GPT-2 (small … XL): pre-LN decoder, learned positions, GELU (tanh), biases, head tied to wte."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch
import torch.nn.functional as F
from torch import nn

from gpuplan.workload.bundle import ModelBundle
from gpuplan.workload.presets.fused import fused_dropout_add_norm, fused_linear_act
from gpuplan.workload.presets.info import Arch, PresetInfo
from gpuplan.workload.presets.layers import Attention, Kernels, decoder_bundle, kernel_notes, kernels_for

if TYPE_CHECKING:
    from gpuplan.workload.spec import Workload  # annotations only: the spec imports the registry

__all__ = ["GPT2", "build"]


class Block(nn.Module):
    """A pre-LN block. With fused dropout-add-norm it runs FlashAttention's GPT ``Block`` order:
    ``(h, residual) → (h, residual)``, each norm one kernel with the dropout and residual add
    before it (the next block's first norm takes this block's MLP output)."""

    def __init__(self, a: Arch, k: Kernels | None = None) -> None:
        super().__init__()
        self.k = k = k or Kernels()
        self.ln_1 = nn.LayerNorm(a.hidden, eps=a.norm_eps)
        self.attn = Attention(a.hidden, a.heads, a.heads, a.head_dim, bias=True, dropout=k.attention_dropout)
        self.ln_2 = nn.LayerNorm(a.hidden, eps=a.norm_eps)
        self.fc_in = nn.Linear(a.hidden, a.intermediate)
        self.fc_out = nn.Linear(a.intermediate, a.hidden)

    def mlp(self, x: torch.Tensor) -> torch.Tensor:
        if self.k.dense_activation:
            return self.fc_out(fused_linear_act(self.fc_in, x, "gelu_tanh"))
        return self.fc_out(F.gelu(self.fc_in(x), approximate="tanh"))

    def forward(self, x: torch.Tensor, residual: torch.Tensor | None = None) -> Any:
        p = self.k.dropout if self.training else 0.0
        if self.k.dropout_add_norm:
            # x: the previous block's MLP output (the embeddings for the first block).
            h, residual = fused_dropout_add_norm(x, residual, self.ln_1, p, residual_fp32=True)
            h, residual = fused_dropout_add_norm(
                self.attn(h, causal=True), residual, self.ln_2, p, residual_fp32=True
            )
            return self.mlp(h), residual
        x = x + F.dropout(self.attn(self.ln_1(x), causal=True), p, self.training)
        return x + F.dropout(self.mlp(self.ln_2(x)), p, self.training)


class GPT2(nn.Module):
    """Token ids (batch, seq) → logits (batch, seq, vocab)."""

    def __init__(self, a: Arch, k: Kernels) -> None:
        super().__init__()
        self.k = k
        self.wte = nn.Embedding(a.vocab, a.hidden)
        self.wpe = nn.Embedding(a.max_positions or 1024, a.hidden)
        self.layers = nn.ModuleList(Block(a, k) for _ in range(a.layers))
        self.ln_f = nn.LayerNorm(a.hidden, eps=a.norm_eps)
        self.lm_head = nn.Linear(a.hidden, a.vocab, bias=False)
        self.lm_head.weight = self.wte.weight  # tied, counted once

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        pos = torch.arange(ids.shape[1], device=ids.device)
        x = self.wte(ids) + self.wpe(pos)
        p = self.k.dropout if self.training else 0.0
        if self.k.dropout_add_norm:
            # The embedding dropout is the first block's fused dropout (GPT-2's embd_pdrop = resid_pdrop).
            h, residual = x, None
            for layer in self.layers:
                h, residual = layer(h, residual)
            out, _ = fused_dropout_add_norm(h, residual, self.ln_f, p, residual_fp32=True)
            return self.lm_head(out)
        x = F.dropout(x, p, self.training)
        for layer in self.layers:
            x = layer(x)
        return self.lm_head(self.ln_f(x))


def build(info: PresetInfo, workload: Workload) -> ModelBundle:
    a = info.arch
    k = kernels_for(a, workload)
    model = GPT2(a, k)
    s = workload.inputs.seq_len or 1024
    return decoder_bundle(model, a, workload.inputs.batch_size, s, notes=kernel_notes(info.name, k))
