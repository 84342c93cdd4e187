"""BERT (base, large): post-LN encoder with learned and token-type positions, GELU (erf).

``task: train`` builds BertForMaskedLM (pre-training; MLM head tied to the word embeddings);
``task: finetune`` and ``infer`` build BertForQuestionAnswering (SQuAD span head). Neither has the
pooler, as in Hugging Face.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import nn

from gpuplan.vocab import Task
from gpuplan.workload.bundle import Batch, ModelBundle
from gpuplan.workload.presets.fused import fused_dropout_add_norm, fused_linear_act
from gpuplan.workload.presets.info import Arch, PresetInfo
from gpuplan.workload.presets.layers import Attention, Kernels, kernel_notes, kernels_for, lm_loss
from gpuplan.workload.shape import ModelShape

if TYPE_CHECKING:
    from gpuplan.workload.spec import Workload  # annotations only: the spec imports the registry

__all__ = ["Bert", "build"]


class Layer(nn.Module):
    """A post-LN layer: ``norm(x + dropout(sublayer(x)))`` twice; with fused dropout-add-norm each
    norm is one kernel with its dropout and residual add (``presets/fused.py``)."""

    def __init__(self, a: Arch, k: Kernels | None = None) -> None:
        super().__init__()
        self.k = k = k or Kernels()
        self.attn = Attention(a.hidden, a.heads, a.heads, a.head_dim, bias=True, dropout=k.attention_dropout)
        self.attn_norm = nn.LayerNorm(a.hidden, eps=a.norm_eps)
        self.fc_in = nn.Linear(a.hidden, a.intermediate)
        self.fc_out = nn.Linear(a.intermediate, a.hidden)
        self.out_norm = nn.LayerNorm(a.hidden, eps=a.norm_eps)

    def _add_norm(self, y: torch.Tensor, x: torch.Tensor, norm: nn.LayerNorm) -> torch.Tensor:
        p = self.k.dropout if self.training else 0.0
        if self.k.dropout_add_norm:
            return fused_dropout_add_norm(y, x, norm, p)[0]
        return norm(x + F.dropout(y, p, self.training))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self._add_norm(self.attn(x), x, self.attn_norm)
        fused = self.k.dense_activation
        h = fused_linear_act(self.fc_in, x, "gelu") if fused else F.gelu(self.fc_in(x))
        return self._add_norm(self.fc_out(h), x, self.out_norm)


class Bert(nn.Module):
    """Token ids (batch, seq) → MLM logits (batch, seq, vocab) or QA (start, end) logits."""

    def __init__(self, a: Arch, head: str, k: Kernels) -> None:
        super().__init__()
        self.k = k
        self.word_embeddings = nn.Embedding(a.vocab, a.hidden)
        self.position_embeddings = nn.Embedding(a.max_positions or 512, a.hidden)
        self.token_type_embeddings = nn.Embedding(2, a.hidden)
        self.embed_norm = nn.LayerNorm(a.hidden, eps=a.norm_eps)
        self.layers = nn.ModuleList(Layer(a, k) for _ in range(a.layers))
        self.head = head
        if head == "mlm":
            self.transform = nn.Linear(a.hidden, a.hidden)
            self.transform_norm = nn.LayerNorm(a.hidden, eps=a.norm_eps)
            self.decoder = nn.Linear(a.hidden, a.vocab)
            self.decoder.weight = self.word_embeddings.weight  # tied; its bias is its own
        else:
            self.qa_outputs = nn.Linear(a.hidden, 2)

    def forward(
        self, ids: torch.Tensor, masked: int | None = None
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        pos = torch.arange(ids.shape[1], device=ids.device)
        x = (
            self.word_embeddings(ids)
            + self.position_embeddings(pos)
            + self.token_type_embeddings(torch.zeros_like(ids))
        )
        x = F.dropout(self.embed_norm(x), self.k.dropout, self.training)
        for layer in self.layers:
            x = layer(x)
        if self.head == "mlm":
            if masked is not None:
                # NVIDIA's dense_seq_output: gather the masked positions, score only those.
                x = x.reshape(-1, x.shape[-1]).index_select(0, _positions(ids.shape[0], ids.shape[1], masked))
            return self.decoder(self.transform_norm(F.gelu(self.transform(x))))
        start, end = self.qa_outputs(x).split(1, dim=-1)
        return start.squeeze(-1), end.squeeze(-1)


def _positions(batch: int, seq: int, masked: int) -> torch.Tensor:
    """Flat indices of ``masked`` positions per sequence (which ones does not change the cost)."""
    return (torch.arange(batch).unsqueeze(1) * seq + torch.arange(masked)).reshape(-1)


def build(info: PresetInfo, workload: Workload) -> ModelBundle:
    a = info.arch
    head = "mlm" if workload.task is Task.TRAIN else "qa"
    k = kernels_for(a, workload)
    model = Bert(a, head, k)
    b, s = workload.inputs.batch_size, workload.inputs.seq_len or 512

    masked = workload.inputs.masked_tokens if head == "mlm" else None

    def make_batch() -> Batch:
        ids = torch.randint(0, a.vocab, (b, s))
        if head == "mlm":
            if masked is not None:
                return Batch(args=(ids, masked), targets=(torch.randint(0, a.vocab, (b * masked,)),))
            return Batch(args=(ids,), targets=(torch.randint(0, a.vocab, (b, s)),))
        return Batch(args=(ids,), targets=(torch.randint(0, s, (b,)), torch.randint(0, s, (b,))))

    def loss(out: torch.Tensor | tuple[torch.Tensor, torch.Tensor], batch: Batch) -> torch.Tensor:
        if head == "mlm":
            assert isinstance(out, torch.Tensor)
            return lm_loss(out, batch.targets[0])
        start, end = out
        return (F.cross_entropy(start, batch.targets[0]) + F.cross_entropy(end, batch.targets[1])) / 2

    per_block = sum(p.numel() for p in model.layers[0].parameters())
    return ModelBundle(
        model=model,
        make_batch=make_batch,
        loss=loss,
        lm_head="decoder" if head == "mlm" else "",
        shape=ModelShape(
            family="encoder",
            num_layers=a.layers,
            hidden_size=a.hidden,
            num_attention_heads=a.heads,
            num_kv_heads=a.heads,
            head_dim=a.head_dim,
            vocab_size=a.vocab,
            max_seq_len=a.max_positions,
            largest_layer_params=max(per_block, a.vocab * a.hidden),
        ),
        seq_len=s,
        checkpoint_blocks=tuple(f"layers.{i}" for i in range(a.layers)),
        notes=(
            f"{info.name}: {'masked-LM' if head == 'mlm' else 'question-answering'} head"
            + (
                f"; MLM head on {masked} masked positions per sequence (dense_seq_output)"
                if masked is not None
                else "; MLM loss over every position (HF computes logits for all tokens)"
                if head == "mlm"
                else ""
            ),
            *kernel_notes(info.name, k),
        ),
    )
