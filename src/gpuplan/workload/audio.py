"""Speech models from a Hugging Face config.json: Whisper, whose input is a log-mel spectrogram.

Whisper (``WhisperForConditionalGeneration``, an encoder-decoder) takes ``input_features``: each
sample is one 30 s window of audio as ``num_mel_bins`` log-mel bins × ``2 × max_source_positions``
frames. Its feature extractor pads or cuts every clip to 30 s at 16 kHz, a frame each 160 samples
(10 ms): 3,000 frames, which the encoder's two convolutions (the second of stride 2) make its
1,500 positions; transformers refuses any other length. The decoder's tokens are the transcript's:
``inputs.seq_len`` of them (the labels), at most ``max_target_positions`` (448).

Other speech models are refused in one line: Speech2Text's filterbank features have another layout
(``input_feat_per_channel`` × frames of any length), and generation by an encoder-decoder (the
encoder once, then a decoder step a token) is not modelled, so a transcription's decode loop is
the user's own code (``model.python``).
"""

from __future__ import annotations

from typing import Any

from gpuplan.errors import Phrase
from gpuplan.i18n.messages import N_

__all__ = ["FRAME_S", "check_audio_inputs", "encoder_decoder_generation", "mel_window", "takes_audio"]

#: Seconds of audio one Whisper frame stands for: its feature extractor's hop of 160 samples at
#: 16,000 Hz (``WhisperFeatureExtractor``'s ``hop_length`` and ``sampling_rate``).
FRAME_S = 160 / 16_000

#: Keys a speech model's config.json gives at its top level: Whisper's mel bins, Speech2Text's
#: filterbank features per channel.
_AUDIO_KEYS = ("num_mel_bins", "input_feat_per_channel")


def takes_audio(raw: dict[str, Any]) -> bool:
    """Whether a config.json (as read) is a speech model's, whose input is audio features."""
    return any(key in raw for key in _AUDIO_KEYS)


def mel_window(config: Any) -> tuple[int, int] | None:
    """A Whisper config's (mel bins, frames) of one 30 s window: ``num_mel_bins`` and ``2 ×
    max_source_positions`` (128 × 3,000 for large-v3); None for every other model."""
    if getattr(config, "model_type", None) != "whisper":
        return None
    bins, positions = getattr(config, "num_mel_bins", None), getattr(config, "max_source_positions", None)
    if not isinstance(bins, int) or not isinstance(positions, int):
        return None
    return bins, 2 * positions


def check_audio_inputs(raw: dict[str, Any], inputs: Any, *, serving: bool) -> None:
    """Refuse, in one line, what gpuplan cannot build or model for a speech model's config.json:
    a speech model other than Whisper, inputs that are not a transcript's tokens (``seq_len``, at
    most ``max_target_positions``), and generation (``output_tokens``, a service)."""
    model = str(raw.get("model_type") or "")[:80]
    if model != "whisper":
        raise ValueError(
            Phrase(
                N_(
                    "model.hf_config: {model} takes audio features, and gpuplan builds them only for "
                    "Whisper (30 s windows of log-mel bins); describe it as your own code (model.python, "
                    "its make_inputs giving the features)"
                ),
                model=model or "?",
            )
        )
    if inputs.image_size is not None or inputs.target_len is not None:
        raise ValueError(
            Phrase(
                N_(
                    "inputs: whisper takes 30 s audio windows, always the same; give seq_len, the "
                    "transcript's tokens, not {field}"
                ),
                field="image_size" if inputs.image_size is not None else "target_len",
            )
        )
    limit = raw.get("max_target_positions")
    limit = limit if isinstance(limit, int) and not isinstance(limit, bool) else None
    if inputs.seq_len is None:
        raise ValueError(
            Phrase(
                N_(
                    "inputs.seq_len: required for whisper: the transcript's tokens of one 30 s window "
                    "(at most {limit}, max_target_positions in its config.json)"
                ),
                limit=limit if limit is not None else "?",
            )
        )
    if limit is not None and inputs.seq_len > limit:
        raise ValueError(
            Phrase(
                N_(
                    "inputs.seq_len: {n} transcript tokens are more than whisper's decoder takes "
                    "(max_target_positions: {limit} in its config.json); use seq_len: {limit} or less"
                ),
                n=inputs.seq_len,
                limit=limit,
            )
        )
    if inputs.output_tokens is not None:
        raise ValueError(encoder_decoder_generation(model))
    if serving:
        raise ValueError(
            Phrase(
                N_(
                    "serving: a whisper service generates each transcript token by token, and generation "
                    "by an encoder-decoder is not modelled yet; describe the encoder pass and the decode "
                    "loop as your own code (model.python), served one forward pass a request"
                )
            )
        )


def encoder_decoder_generation(model: object) -> Phrase:
    """The refusal of ``inputs.output_tokens`` for an encoder-decoder (T5, Whisper): its generation
    (the encoder once, then a decoder step a token with a cache of its own keys and values and of
    the encoder's output) is not modelled yet."""
    return Phrase(
        N_(
            "inputs.output_tokens: generation by an encoder-decoder ({model}) is not modelled yet; "
            "leave output_tokens out for one forward pass over seq_len tokens, or describe the encoder "
            "pass and the decode loop as your own code (model.python)"
        ),
        model=model,
    )
