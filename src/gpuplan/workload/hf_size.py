"""How big a Hugging Face ``config.json`` says its model is, read before transformers builds it: a
config of 20,000 layers is a few bytes of JSON and an hour of tracing."""

from __future__ import annotations

from typing import Any

from gpuplan.errors import Phrase
from gpuplan.i18n.messages import N_

__all__ = ["MAX_LAYERS", "layers", "layers_problem"]

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
    total += sum(max(count(k) for k in keys) for keys in _ENCODER_DECODER)
    if depth < _NESTING:
        total += sum(layers(v, depth + 1) for v in raw.values() if isinstance(v, dict))
    return total


def layers_problem(raw: object, file: object) -> Phrase | None:
    """Why the config ``raw`` (parsed ``file``) is too deep to trace, or None."""
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
