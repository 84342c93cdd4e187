"""Activation memory of one transformer micro-batch, derived from its shape, for the moments a
trace's single peak snapshot does not show.

The trace records one peak. When that peak is the optimizer step (foreach AdamW's parameter-sized
temporary, no activations live), a sharded run — whose optimizer step shrinks by the world size —
may peak at the end of forward instead, and the trace did not see it there. This module gives
that forward-end activation figure, honouring what the workload said:

- **checkpointing** ``none``: Korthikanti et al. (arXiv 2205.05198, §4, tensor parallel size 1)
  keep ``34·s·b·h`` bytes per layer in 16-bit, plus ``5·a·s²·b`` when attention is *eager* (the
  score and softmax matrices are materialised); fused SDPA/flash attention keeps no ``s²`` term;
- ``selective``: the same paper's selective recomputation drops the ``s²`` term (with fused
  attention there is none to drop, so it equals ``none``'s ``34·s·b·h``);
- ``full``: each layer keeps only its input, ``2·s·b·h``, and one layer's ``34·s·b·h`` is live
  again while it is recomputed in backward;
- fp32 activations (``fp32``/``tf32`` precision) take twice the 16-bit bytes;
- the language-model head's logits, outside any checkpointed block, as the workload's loss keeps
  them (:data:`LOSS_BYTES_PER_ELEMENT` bytes per ``b·s·V`` element): the standard loss's fp32
  logits (HF models upcast them before the loss) and fp32 log-probabilities, ``8·b·s·V`` bytes.
"""

from __future__ import annotations

from gpuplan.profile.model import LOSS_CHUNKS, Profile
from gpuplan.vocab import LossKind

__all__ = [
    "LOGITS_BYTES_PER_ELEMENT",
    "LOSS_BYTES_PER_ELEMENT",
    "forward_activation_bytes",
    "loss_bytes_per_element",
    "uses_fused_attention",
]

#: Bytes per batch × sequence × vocabulary element that each loss keeps at its peak (see
#: profile/losses.py): fp32 logits + fp32 log-probs; 16-bit logits + one of 8 chunks at 8 B;
#: 16-bit logits + 16-bit log-probs, all kept (litgpt's 128-token chunks);
#: one of 8 chunks of 16-bit and fp32 logits and the fp32 softmax gradient (2 + 4 + 4 + 2 B), and
#: the head's weight gradient where the head trains (counted where it matters: the advisor's
#: lighter loss).
LOSS_BYTES_PER_ELEMENT = {
    LossKind.STANDARD: 8.0,
    LossKind.CHUNKED: 2.0 + 8.0 / LOSS_CHUNKS,
    LossKind.CHUNKED_LOGITS: 2.0 + 2.0,
    LossKind.FUSED_LINEAR: 12.0 / LOSS_CHUNKS,
}
#: fp32 logits (4 B) + fp32 log-softmax kept by cross-entropy for backward (4 B), per b·s·V element:
#: the standard loss's.
LOGITS_BYTES_PER_ELEMENT = LOSS_BYTES_PER_ELEMENT[LossKind.STANDARD]
#: Korthikanti et al.'s per-layer activation bytes per s·b·h element in 16-bit, without recompute.
_LAYER_BYTES_PER_SBH = 34.0
#: … and the eager-attention term's bytes per a·s²·b element (scores 2 + softmax 2 + dropout mask 1).
_EAGER_BYTES_PER_ASSB = 5.0
#: A fully checkpointed layer keeps its 16-bit input: 2 bytes per s·b·h element.
_CHECKPOINT_BYTES_PER_SBH = 2.0


def uses_fused_attention(profile: Profile) -> bool:
    """Whether the traced attention ran as one fused kernel (SDPA → flash / memory-efficient on a
    GPU): the trace then has ``attention`` op records; eager attention is plain bmm + softmax."""
    return profile.attention != "eager" and any(op.op_class == "attention" for op in profile.ops)


def loss_bytes_per_element(profile: Profile) -> tuple[LossKind, float]:
    """The traced workload's loss and the bytes per ``b·s·V`` element it keeps at the end of
    forward. A profile traced before its loss was recorded counts the standard loss's, the most
    any loss keeps."""
    kind = LossKind.cast(profile.loss) if profile.loss else LossKind.STANDARD
    return kind, LOSS_BYTES_PER_ELEMENT[kind]


def forward_activation_bytes(profile: Profile) -> float | None:
    """Bytes of activations live at the end of forward (start of backward) for the traced
    micro-batch, or None when the layer structure is unknown (not a transformer)."""
    shape = profile.shape
    s, b = profile.seq_len, profile.batch_size
    h, layers = shape.hidden_size, shape.num_layers
    if not (s and h and layers):
        return None
    width = 2.0 if profile.precision in ("fp32", "tf32") else 1.0
    sbh = float(s) * b * h
    one_layer = _LAYER_BYTES_PER_SBH * sbh
    eager = not uses_fused_attention(profile)
    heads = shape.num_attention_heads or 0
    attention_scores = _EAGER_BYTES_PER_ASSB * heads * float(s) * s * b if eager else 0.0
    mode = profile.activation_checkpointing
    if mode == "full":
        layers_bytes = layers * _CHECKPOINT_BYTES_PER_SBH * sbh + one_layer + attention_scores
    elif mode == "selective":
        layers_bytes = layers * one_layer
    else:
        layers_bytes = layers * (one_layer + attention_scores)
    per_element = loss_bytes_per_element(profile)[1]
    logits = per_element * b * s * (shape.vocab_size or 0) if profile.task != "infer" else 0.0
    return layers_bytes * width + logits
