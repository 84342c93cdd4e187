"""Token cross-entropy the ways a workload's ``loss:`` names it, for the tracer.

- ``standard``: the model source's own loss — the whole logits upcast to fp32 and fp32
  log-probabilities kept for backward (8 bytes per batch × sequence × vocabulary element).
- ``chunked``: the output projection runs per token chunk (:data:`CHUNKS` of them) and each
  chunk's 16-bit logits are upcast and scored on their own, the softmax recomputed in backward
  (each chunk's loss is checkpointed, as a compiled chunked loss saves only its input): the 16-bit
  logits of every chunk stay for backward (2 bytes per element), fp32 lives one chunk at a time,
  and backward never assembles a whole-logits gradient. torchtune's ``CEWithChunkedOutputLoss``
  with the model's ``num_output_chunks`` = 8.
- ``chunked-logits``: litgpt's fine-tuning loss (Lightning-AI/litgpt@03ffc551
  ``litgpt/finetune/lora.py``: ``model(input_ids, lm_head_chunk_size=128)`` then
  ``chunked_cross_entropy(logits, targets)``, ``litgpt/utils.py``; read 2026-12-04): the output
  layer runs per :data:`HEAD_CHUNK_TOKENS`-token chunk (``x.split(lm_head_chunk_size, dim=1)`` in
  ``GPT.forward``) and each chunk's 16-bit logits go to ``cross_entropy`` as they are, which keeps
  16-bit log-probabilities for backward; nothing is recomputed, and the training loop's ``logits``
  list holds every chunk's logits until the next step's forward returns: 2 + 2 bytes per element
  kept, no fp32 copy.
- ``fused-linear``: the output projection and the loss run together chunk by chunk and the gradients
  of the hidden states and the projection weight are computed in forward (Liger's fused linear
  cross-entropy): the logits never exist whole; the hidden-state gradient and, for a head whose
  weight takes a gradient, a weight-sized gradient are held from forward to backward (a frozen
  head, LoRA's, gets none, as Liger allocates it only ``if weight_needs_grad``). torchtune's
  ``LinearCrossEntropyLoss`` chunks the same way (8 chunks); Liger sizes its chunks from
  vocabulary ÷ hidden size — 8 is taken for both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

from gpuplan.profile.model import HEAD_CHUNK_TOKENS, LOSS_CHUNKS

__all__ = [
    "CHUNKS",
    "HEAD_CHUNK_TOKENS",
    "chunked_cross_entropy",
    "chunked_logits_cross_entropy",
    "fused_linear_cross_entropy",
]

#: Token chunks (torchtune's ``num_output_chunks`` default): :data:`gpuplan.profile.model.LOSS_CHUNKS`,
#: which the advisor reads without importing torch.
CHUNKS = LOSS_CHUNKS


def _ce_sum(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits.float().flatten(0, -2), labels.flatten(), reduction="sum")


def _project(head: torch.nn.Module, hidden: torch.Tensor) -> torch.Tensor:
    """``head``'s matmul on ``hidden``: a quantized output layer's own (``QuantizedLinear.project``,
    its weight dequantized per call), else ``F.linear`` (the head's ``forward`` passes through)."""
    project = getattr(head, "project", None)
    if callable(project):
        out: torch.Tensor = project(hidden)
        return out
    assert isinstance(head, torch.nn.Linear)
    return F.linear(hidden, head.weight, head.bias)


def chunked_cross_entropy(
    hidden: torch.Tensor, head: torch.nn.Module, labels: torch.Tensor, chunks: int = CHUNKS
) -> torch.Tensor:
    """Mean token cross-entropy of ``head(hidden)`` (hidden: batch, seq, dim), projected and scored
    ``chunks`` sequence chunks at a time; see the module docstring. A quantized head (bitsandbytes'
    ``Linear4bit`` when Lightning Fabric quantizes litgpt's ``lm_head``) dequantizes its weight for
    every chunk, forward and backward."""
    total = torch.zeros((), dtype=torch.float32)
    for hc, tc in zip(hidden.tensor_split(chunks, dim=1), labels.tensor_split(chunks, dim=1), strict=True):
        logits = _project(head, hc)
        part = checkpoint(_ce_sum, logits, tc, use_reentrant=False)
        assert isinstance(part, torch.Tensor)
        total = total + part
    return total / labels.numel()


def chunked_logits_cross_entropy(
    hidden: torch.Tensor,
    head: torch.nn.Module,
    labels: torch.Tensor,
    chunk_tokens: int = HEAD_CHUNK_TOKENS,
    *,
    before_scoring: Callable[[], object] | None = None,
) -> torch.Tensor:
    """Mean token cross-entropy of ``head(hidden)``, the head applied ``chunk_tokens`` sequence
    positions at a time and each chunk scored in the logits' own dtype (see the module docstring).

    The chunks' logits ride on the returned loss (``kept_logits``), as litgpt's loop keeps its
    ``logits`` list: alive through backward and the optimizer step, until the loss is dropped.
    ``before_scoring`` runs once the logits exist and before they are scored: where litgpt's
    ``logits = model(...)`` lets go of the previous step's list."""
    logits = [_project(head, hc) for hc in hidden.split(chunk_tokens, dim=1)]
    if before_scoring is not None:
        before_scoring()
    parts = [
        F.cross_entropy(lc.flatten(0, -2), tc.flatten(), reduction="none")
        for lc, tc in zip(logits, labels.split(chunk_tokens, dim=1), strict=True)
    ]
    loss = torch.cat(parts).sum() / labels.numel()
    loss.kept_logits = logits  # type: ignore[attr-defined]
    return loss


class _FusedLinearCrossEntropy(torch.autograd.Function):
    """Liger-style: loss and both gradients per chunk in forward; backward only scales them."""

    @staticmethod
    def forward(
        ctx: Any,
        hidden: torch.Tensor,
        weight: torch.Tensor,
        bias: torch.Tensor | None,
        labels: torch.Tensor,
        chunks: int,
    ) -> torch.Tensor:
        flat, flat_labels = hidden.flatten(0, -2), labels.flatten()
        n = flat_labels.numel()
        grad_hidden = torch.empty_like(flat)
        # Only for a weight that takes a gradient, as Liger allocates it (``weight_needs_grad`` in
        # src/liger_kernel/ops/fused_linear_cross_entropy.py, linkedin/Liger-Kernel@ead96b61,
        # read 2026-12-04): a LoRA model's frozen head gets none.
        grad_weight = torch.zeros_like(weight) if weight.requires_grad else None
        grad_bias = torch.zeros_like(bias) if bias is not None else None
        loss = torch.zeros((), dtype=torch.float32)
        start = 0
        for rows, lab in zip(flat.tensor_split(chunks), flat_labels.tensor_split(chunks), strict=True):
            logits = rows @ weight.t()
            if bias is not None:
                logits = logits + bias
            logits = logits.float()
            idx = lab.unsqueeze(1)
            loss = loss + (torch.logsumexp(logits, dim=-1) - logits.gather(1, idx).squeeze(1)).sum()
            # d loss / d logits = (softmax − one-hot) / n, cast back to the matmul dtype.
            g = torch.softmax(logits, dim=-1)
            g.scatter_add_(1, idx, torch.full(idx.shape, -1.0, dtype=g.dtype))
            g = (g / n).to(rows.dtype)
            grad_hidden.narrow(0, start, rows.shape[0]).copy_(g @ weight.to(g.dtype))
            if grad_weight is not None:
                grad_weight += (g.t() @ rows).to(grad_weight.dtype)
            if grad_bias is not None:
                grad_bias += g.sum(0).to(grad_bias.dtype)
            start += rows.shape[0]
        extra = () if grad_bias is None else (grad_bias,)
        ctx.save_for_backward(grad_hidden, grad_weight, *extra)
        ctx.hidden_shape = hidden.shape
        return loss / n

    @staticmethod
    def backward(ctx: Any, grad_out: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        grad_hidden, grad_weight, *rest = ctx.saved_tensors
        return (
            (grad_hidden * grad_out).view(ctx.hidden_shape),
            grad_weight * grad_out if grad_weight is not None else None,
            rest[0] * grad_out if rest else None,
            None,
            None,
        )


def fused_linear_cross_entropy(
    hidden: torch.Tensor, head: torch.nn.Linear, labels: torch.Tensor, chunks: int = CHUNKS
) -> torch.Tensor:
    """Mean token cross-entropy of ``head(hidden)`` without ever holding the whole logits."""
    out = _FusedLinearCrossEntropy.apply(hidden, head.weight, head.bias, labels, chunks)
    assert isinstance(out, torch.Tensor)
    return out
