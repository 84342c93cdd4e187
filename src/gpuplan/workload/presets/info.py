"""What a preset is: its family, architecture numbers and the published model it reproduces.

Torch-free, and imported by both the registry (which lists the presets) and the builders (which
build them), so that neither imports the other at module level.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Literal

__all__ = ["Arch", "Family", "PresetInfo"]

Family = Literal["cnn", "vit", "encoder", "encoder-decoder", "decoder"]


@dataclass(frozen=True, kw_only=True)
class Arch:
    """Architecture numbers of one preset; fields a family does not use stay at their defaults."""

    layers: int
    """Transformer blocks (per stack for T5), or bottleneck blocks per stage count for ResNets (unused)."""
    hidden: int = 0
    """Model width d_model (transformers) or 0 for CNNs."""
    heads: int = 0
    kv_heads: int = 0
    """Key/value heads; fewer than ``heads`` means grouped-query attention."""
    head_dim: int = 0
    intermediate: int = 0
    """MLP inner width."""
    vocab: int = 0
    max_positions: int | None = None
    """Longest sequence the model accepts (learned or trained positions); None = no hard limit."""
    tied_head: bool = False
    """Output projection shares the token-embedding matrix (counted once)."""
    stage_blocks: tuple[int, ...] = ()
    """ResNet bottleneck blocks per stage, e.g. (3, 4, 6, 3) for ResNet-50."""
    num_classes: int = 1000
    """Classifier outputs of vision presets (ImageNet-1k)."""
    rope_theta: float = 10000.0
    norm_eps: float = 1e-5
    dropout: float = 0.0
    """Dropout on embeddings and on each sublayer's output before its residual add, as the
    published config sets it (BERT ``hidden_dropout_prob``, GPT-2 ``resid_pdrop``/``embd_pdrop``)."""
    attention_dropout: float = 0.0
    """Dropout on the attention probabilities (BERT ``attention_probs_dropout_prob``, GPT-2
    ``attn_pdrop``); inside the kernel with fused attention."""


@dataclass(frozen=True, kw_only=True)
class PresetInfo:
    """One preset model: its name, family, real-world source and architecture."""

    name: str
    family: Family
    modality: Literal["image", "text"]
    source: str
    """The published model whose shape this reproduces."""
    arch: Arch
    loader: Callable[[], ModuleType]
    """Imports the torch builder module for this family (lazily; see module docstring)."""
    expected_params: int
    """Parameter count of the published model (tied weights once); tests pin the builder to it."""

    @property
    def max_seq_len(self) -> int | None:
        return self.arch.max_positions
