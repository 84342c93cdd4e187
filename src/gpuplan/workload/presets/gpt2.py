"""GPT-2 (small … XL): pre-LN decoder, learned positions, GELU (tanh), biases, head tied to wte."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import nn

from gpuplan.workload.bundle import ModelBundle
from gpuplan.workload.presets.info import Arch, PresetInfo
from gpuplan.workload.presets.layers import Attention, decoder_bundle

if TYPE_CHECKING:
    from gpuplan.workload.spec import Workload  # annotations only: the spec imports the registry

__all__ = ["GPT2", "build"]


class Block(nn.Module):
    def __init__(self, a: Arch) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(a.hidden, eps=a.norm_eps)
        self.attn = Attention(a.hidden, a.heads, a.heads, a.head_dim, bias=True)
        self.ln_2 = nn.LayerNorm(a.hidden, eps=a.norm_eps)
        self.fc_in = nn.Linear(a.hidden, a.intermediate)
        self.fc_out = nn.Linear(a.intermediate, a.hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x), causal=True)
        return x + self.fc_out(F.gelu(self.fc_in(self.ln_2(x)), approximate="tanh"))


class GPT2(nn.Module):
    """Token ids (batch, seq) → logits (batch, seq, vocab). Dropout is left out (see build notes)."""

    def __init__(self, a: Arch) -> None:
        super().__init__()
        self.wte = nn.Embedding(a.vocab, a.hidden)
        self.wpe = nn.Embedding(a.max_positions or 1024, a.hidden)
        self.layers = nn.ModuleList(Block(a) for _ in range(a.layers))
        self.ln_f = nn.LayerNorm(a.hidden, eps=a.norm_eps)
        self.lm_head = nn.Linear(a.hidden, a.vocab, bias=False)
        self.lm_head.weight = self.wte.weight  # tied, counted once

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        pos = torch.arange(ids.shape[1], device=ids.device)
        x = self.wte(ids) + self.wpe(pos)
        for layer in self.layers:
            x = layer(x)
        return self.lm_head(self.ln_f(x))


def build(info: PresetInfo, workload: Workload) -> ModelBundle:
    a = info.arch
    model = GPT2(a)
    s = workload.inputs.seq_len or 1024
    return decoder_bundle(
        model,
        a,
        workload.inputs.batch_size,
        s,
        notes=("gpt2: dropout left out (adds a 1-byte mask per dropped element when enabled)",),
    )
