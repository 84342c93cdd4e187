"""The architecture facts of a model that the trace cannot see (KV cache, sharding unit).

Every model source (presets, HF configs, the user's code) reports one :class:`ModelShape`; the
profile carries it to the performance model. It lives with the workload, which produces it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ModelShape", "padded_vocab"]


def padded_vocab(vocab: int, multiple: int) -> int:
    """``vocab`` rounded up to a multiple of ``multiple`` (a workload's ``model.pad_vocab_multiple``)."""
    return -(-vocab // multiple) * multiple


@dataclass(frozen=True, kw_only=True)
class ModelShape:
    """Architecture facts the performance model needs beyond the trace (KV cache, sharding)."""

    family: str
    """``cnn``, ``vit``, ``encoder`` (BERT), ``encoder-decoder`` (T5), ``decoder`` (GPT, Llama),
    ``custom``."""
    num_layers: int | None = None
    hidden_size: int | None = None
    num_attention_heads: int | None = None
    num_kv_heads: int | None = None
    head_dim: int | None = None
    vocab_size: int | None = None
    max_seq_len: int | None = None
    largest_layer_params: int | None = None
    """Parameters of the largest module that FSDP/ZeRO-3 must gather at once."""
