"""How big a Hugging Face ``config.json`` says its model is, read before transformers builds it: a
config of 20,000 layers is a few bytes of JSON and an hour of tracing."""

from __future__ import annotations

from typing import Any

from gpuplan.errors import Phrase
from gpuplan.i18n.messages import N_

__all__ = ["MAX_LAYERS", "SIZE_KEYS", "layers", "layers_problem", "width"]

#: Layers a config may describe. Building and tracing a layer costs 0.1-0.2 s (GPT-2 blocks), so a
#: config of 20,000 layers would trace for about an hour; this budget keeps a trace to a minute or
#: two. The deepest published models have 96-126 layers (GPT-3 175B: 96, Brown et al. 2020,
#: table 2.1; Llama 3.1 405B: 126, Meta's model card).
MAX_LAYERS = 512
#: Keys that count layers: the whole stack (the largest of ``_STACK`` per config), and the encoder
#: and decoder of an encoder-decoder, which some configs give besides (T5, BART).
_STACK = ("num_hidden_layers", "n_layer", "num_layers", "n_layers")
_ENCODER_DECODER = (("encoder_layers", "num_encoder_layers"), ("decoder_layers", "num_decoder_layers"))
#: Nested configs (``text_config``, ``vision_config``) are counted this deep.
_NESTING = 4


def layers(raw: dict[str, Any], depth: int = 0) -> float:
    """Layers a raw config describes, nested configs included; a count that is not a finite number
    is taken at its word (``1e999`` is infinite), so it cannot slip under the budget."""

    def count(key: str) -> float:
        v = raw.get(key)
        return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else 0.0

    total = max(count(k) for k in _STACK)
    # Vision backbones in stages (Swin, ConvNeXt) give their blocks per stage: ``depths: [3, 3, 9, 3]``
    # is 18 blocks, where num_hidden_layers (if any) counts the 4 stages.
    stages = raw.get("depths")
    if isinstance(stages, list) and all(_whole(d) for d in stages):
        total = max(total, float(sum(stages)))
    total += sum(max(count(k) for k in keys) for keys in _ENCODER_DECODER)
    if depth < _NESTING:
        total += sum(layers(v, depth + 1) for v in raw.values() if isinstance(v, dict))
    return total


#: Keys that give a layer's width (the hidden size); a list of them per stage counts its largest.
_WIDTH = ("hidden_size", "n_embd", "d_model", "dim", "embed_dim", "hidden_sizes")


def width(raw: dict[str, Any], depth: int = 0) -> float:
    """The widest layer a raw config describes (its largest hidden size, nested configs included),
    0 when it gives none; a width that is not a finite number is taken at its word."""

    def size(v: object) -> float:
        if isinstance(v, list):
            return max((size(x) for x in v), default=0.0)
        return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else 0.0

    widest = max(size(raw.get(k)) for k in _WIDTH)
    if depth < _NESTING:
        widest = max([widest, *(width(v, depth + 1) for v in raw.values() if isinstance(v, dict))])
    return widest


#: Keys whose value is a size of the model: a whole number of at least 1 where given, or a list of
#: them per stage (0 heads, a negative layer count or a vocabulary of 0 fail deep inside
#: transformers or the trace).
SIZE_KEYS = (
    *_STACK,
    "hidden_size", "n_embd", "d_model", "dim",
    "num_attention_heads", "n_head", "num_heads", "n_heads",
    "num_key_value_heads", "vocab_size", "intermediate_size", "n_inner",
    "max_position_embeddings", "n_positions", "n_ctx",
    "depths", "hidden_sizes", "embed_dim",
)  # fmt: skip


def _whole(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 1


def _size_ok(v: object) -> bool:
    """A whole number of at least 1, or a list of them: the per-stage sizes of a vision backbone
    (Swin ``num_heads: [3, 6, 12, 24]``, ConvNeXt ``depths`` and ``hidden_sizes``)."""
    return _whole(v) or (isinstance(v, list) and bool(v) and all(_whole(x) for x in v))


def _bad_size(raw: dict[str, Any], depth: int = 0) -> tuple[str, object] | None:
    """The first size key (``SIZE_KEYS``, nested configs too) whose value is not a whole number ≥ 1."""
    for key in SIZE_KEYS:
        v = raw.get(key)
        if v is not None and not _size_ok(v):
            return key, v
    if depth < _NESTING:
        for v in raw.values():
            found = _bad_size(v, depth + 1) if isinstance(v, dict) else None
            if found is not None:
                return found
    return None


def layers_problem(raw: object, file: object) -> Phrase | None:
    """Why the config ``raw`` (parsed ``file``) cannot be traced within bounds, or None: a size
    that is not a whole number of at least 1, or more than MAX_LAYERS layers."""
    bad = _bad_size(raw) if isinstance(raw, dict) else None
    if bad is not None:
        return Phrase(
            N_("{file}: {key} is {value}; a model's sizes are whole numbers of at least 1"),
            file=file,
            key=bad[0],
            value=repr(bad[1])[:40],
        )
    n = layers(raw) if isinstance(raw, dict) else 0.0
    if n <= MAX_LAYERS:
        return None
    return Phrase(
        N_(
            "{file} describes {layers:,.0f} layers, more than the {limit} gpuplan traces (0.1-0.2 s "
            "each; the deepest published models have 126)"
        ),
        file=file,
        layers=n,
        limit=MAX_LAYERS,
    )
