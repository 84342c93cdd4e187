"""T5 v1.0 (t5-base): encoder-decoder, relative position bias, RMS norm, ReLU MLP, tied scaled head."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import nn

from gpuplan.workload.bundle import Batch, ModelBundle
from gpuplan.workload.presets.info import Arch, PresetInfo
from gpuplan.workload.presets.layers import Attention, Kernels, RMSNorm, kernel_notes, kernels_for, lm_loss
from gpuplan.workload.shape import ModelShape

if TYPE_CHECKING:
    from gpuplan.workload.spec import Workload  # annotations only: the spec imports the registry

__all__ = ["T5", "build"]

NUM_BUCKETS = 32
MAX_DISTANCE = 128


def _buckets(rel: torch.Tensor, bidirectional: bool) -> torch.Tensor:
    """T5's log-spaced relative-position buckets (as in HF T5Attention._relative_position_bucket)."""
    n = NUM_BUCKETS
    out = torch.zeros_like(rel)
    if bidirectional:
        n //= 2
        out = out + (rel > 0).long() * n
        rel = rel.abs()
    else:
        rel = -torch.clamp(rel, max=0)
    exact = n // 2
    large = exact + (
        torch.log(rel.float().clamp(min=1) / exact) / math.log(MAX_DISTANCE / exact) * (n - exact)
    )
    large = torch.clamp(large.long(), max=n - 1)
    return out + torch.where(rel < exact, rel, large)


class RelativeBias(nn.Module):
    """(1, heads, q, k) additive attention bias shared by all layers of one stack."""

    def __init__(self, heads: int, bidirectional: bool) -> None:
        super().__init__()
        self.relative_attention_bias = nn.Embedding(NUM_BUCKETS, heads)
        self.bidirectional = bidirectional

    def forward(self, q_len: int, k_len: int, dtype: torch.dtype) -> torch.Tensor:
        dev = self.relative_attention_bias.weight.device
        rel = torch.arange(k_len, device=dev)[None, :] - torch.arange(q_len, device=dev)[:, None]
        bias = self.relative_attention_bias(_buckets(rel, self.bidirectional)).permute(2, 0, 1)[None]
        if not self.bidirectional:
            causal = torch.ones(q_len, k_len, dtype=torch.bool, device=dev).triu(1)
            bias = bias.masked_fill(causal, float("-inf"))
        return bias.to(dtype)


class Block(nn.Module):
    def __init__(self, a: Arch, cross: bool, k: Kernels) -> None:
        super().__init__()
        self.k = k
        drop = k.attention_dropout
        self.self_norm = RMSNorm(a.hidden, a.norm_eps)
        self.self_attn = Attention(a.hidden, a.heads, a.heads, a.head_dim, bias=False, dropout=drop)
        self.cross_norm = RMSNorm(a.hidden, a.norm_eps) if cross else None
        self.cross_attn = (
            Attention(a.hidden, a.heads, a.heads, a.head_dim, bias=False, dropout=drop) if cross else None
        )
        self.ff_norm = RMSNorm(a.hidden, a.norm_eps)
        self.wi = nn.Linear(a.hidden, a.intermediate, bias=False)
        self.wo = nn.Linear(a.intermediate, a.hidden, bias=False)

    def forward(
        self, x: torch.Tensor, bias: torch.Tensor, memory: torch.Tensor | None = None
    ) -> torch.Tensor:
        # NB: T5 does not scale q·k by 1/sqrt(d) (scale=1.0); the mask lives in the bias.
        p, on = self.k.dropout, self.training
        x = x + F.dropout(self.self_attn(self.self_norm(x), bias=bias, scale=1.0), p, on)
        if self.cross_attn is not None and self.cross_norm is not None:
            x = x + F.dropout(self.cross_attn(self.cross_norm(x), context=memory, scale=1.0), p, on)
        # HF T5DenseActDense also drops the ReLU's output before ``wo``.
        h = F.dropout(F.relu(self.wi(self.ff_norm(x))), p, on)
        return x + F.dropout(self.wo(h), p, on)


class T5(nn.Module):
    """(encoder ids, decoder ids) → logits (batch, target_len, vocab)."""

    def __init__(self, a: Arch, k: Kernels) -> None:
        super().__init__()
        self.k = k
        self.shared = nn.Embedding(a.vocab, a.hidden)
        self.encoder_bias = RelativeBias(a.heads, bidirectional=True)
        self.encoder = nn.ModuleList(Block(a, cross=False, k=k) for _ in range(a.layers))
        self.encoder_norm = RMSNorm(a.hidden, a.norm_eps)
        self.decoder_bias = RelativeBias(a.heads, bidirectional=False)
        self.decoder = nn.ModuleList(Block(a, cross=True, k=k) for _ in range(a.layers))
        self.decoder_norm = RMSNorm(a.hidden, a.norm_eps)
        self.lm_head = nn.Linear(a.hidden, a.vocab, bias=False)
        self.lm_head.weight = self.shared.weight  # tied (T5 v1.0), output scaled by d^-0.5
        self.scale = a.hidden**-0.5

    def forward(self, ids: torch.Tensor, dec_ids: torch.Tensor) -> torch.Tensor:
        p, on = self.k.dropout, self.training
        x = F.dropout(self.shared(ids), p, on)
        enc_bias = self.encoder_bias(ids.shape[1], ids.shape[1], x.dtype)
        for blk in self.encoder:
            x = blk(x, enc_bias)
        memory = F.dropout(self.encoder_norm(x), p, on)
        y = F.dropout(self.shared(dec_ids), p, on)
        dec_bias = self.decoder_bias(dec_ids.shape[1], dec_ids.shape[1], y.dtype)
        for blk in self.decoder:
            y = blk(y, dec_bias, memory)
        return self.lm_head(F.dropout(self.decoder_norm(y), p, on) * self.scale)


def build(info: PresetInfo, workload: Workload) -> ModelBundle:
    a = info.arch
    # Fused kernels are not modelled for T5 (no calibration row runs them): its PyTorch kernels.
    k = replace(kernels_for(a, workload), dense_activation=False, dropout_add_norm=False)
    model = T5(a, k)
    b, s = workload.inputs.batch_size, workload.inputs.seq_len or 512
    t = workload.inputs.target_len or s

    def make_batch() -> Batch:
        return Batch(
            args=(torch.randint(0, a.vocab, (b, s)), torch.randint(0, a.vocab, (b, t))),
            targets=(torch.randint(0, a.vocab, (b, t)),),
        )

    per_block = sum(p.numel() for p in model.decoder[0].parameters())
    return ModelBundle(
        model=model,
        make_batch=make_batch,
        loss=lambda out, batch: lm_loss(out, batch.targets[0]),
        lm_head="lm_head",
        shape=ModelShape(
            family="encoder-decoder",
            num_layers=2 * a.layers,
            hidden_size=a.hidden,
            num_attention_heads=a.heads,
            num_kv_heads=a.heads,
            head_dim=a.head_dim,
            vocab_size=a.vocab,
            max_seq_len=None,
            largest_layer_params=max(per_block, a.vocab * a.hidden),
        ),
        seq_len=s,
        checkpoint_blocks=tuple(f"encoder.{i}" for i in range(a.layers))
        + tuple(f"decoder.{i}" for i in range(a.layers)),
        notes=(
            f"t5-base: decoder length {t} tokens"
            + ("" if workload.inputs.target_len else " (inputs.target_len not given; using seq_len)"),
            *kernel_notes(info.name, k),
        ),
    )
