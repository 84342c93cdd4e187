"""Whisper from its Hugging Face config.json: 30 s log-mel windows in, the transcript's tokens out.

Whisper's forward takes ``input_features`` (num_mel_bins × 2·max_source_positions frames, one 30 s
window a sample) and its decoder at most ``max_target_positions`` tokens; generation by an
encoder-decoder is not modelled, and other speech models are refused in one line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from one_line import answered, refused

# openai/whisper-large-v3's layout (128 mel bins, 1,500 encoder positions, 448 decoder ones),
# shrunk to 2 + 2 layers of width 32 so the trace takes seconds.
TINY_WHISPER = {
    "architectures": ["WhisperForConditionalGeneration"], "model_type": "whisper", "d_model": 32,
    "encoder_layers": 2, "decoder_layers": 2, "num_hidden_layers": 2, "encoder_attention_heads": 4,
    "decoder_attention_heads": 4, "encoder_ffn_dim": 64, "decoder_ffn_dim": 64, "num_mel_bins": 128,
    "max_source_positions": 1500, "max_target_positions": 448, "vocab_size": 512,
    "is_encoder_decoder": True, "decoder_start_token_id": 1, "pad_token_id": 0, "eos_token_id": 2,
    "bos_token_id": 2,
}  # fmt: skip
TINY_T5 = {"architectures": ["T5ForConditionalGeneration"], "model_type": "t5", "d_model": 32,
           "num_layers": 1, "num_heads": 2, "d_ff": 64, "d_kv": 16, "vocab_size": 64,
           "decoder_start_token_id": 0}  # fmt: skip
SPEECH2TEXT = {"architectures": ["Speech2TextForConditionalGeneration"], "model_type": "speech_to_text",
               "d_model": 32, "encoder_layers": 1, "decoder_layers": 1, "num_hidden_layers": 1,
               "encoder_attention_heads": 2, "decoder_attention_heads": 2, "vocab_size": 64,
               "input_feat_per_channel": 80}  # fmt: skip


def _workload(tmp_path: Path, config: dict[str, Any], **fields: Any) -> str:
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    spec = {"name": "asr", "model": {"hf_config": "config.json"}, "precision": "bf16", **fields}
    path = tmp_path / "asr.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    return str(path)


def test_whisper_fine_tune_is_traced_on_its_log_mel_windows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It was "tracing failed: AttributeError: 'NoneType' object has no attribute 'shape'": no
    # input_features were built, only token ids.
    pytest.importorskip("transformers")
    path = _workload(
        tmp_path, TINY_WHISPER, task="finetune", optimizer="adamw", inputs={"batch_size": 2, "seq_len": 448}
    )
    out = " ".join(answered(["estimate", path, "--gpu", "L4"], capsys).split())
    assert "batch 2 × 30 s audio windows (128 mel bins × 3000 frames), 448 transcript tokens each" in out, out
    assert "tokens, " not in out.split("TFLOP")[0]


def test_the_traced_batch_is_the_windows_in_the_precisions_dtype(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    import torch

    from gpuplan.profile.tracer import batch_as_run
    from gpuplan.workload import Workload
    from gpuplan.workload.hf import hf_bundle

    path = _workload(tmp_path, TINY_WHISPER, task="infer", inputs={"batch_size": 3, "seq_len": 100})
    workload = Workload.from_yaml(path)
    bundle = hf_bundle(workload)
    batch = batch_as_run(workload, bundle.make_batch())
    features = batch.kwargs["input_features"]
    assert tuple(features.shape) == (3, 128, 3000) and features.dtype == torch.bfloat16
    assert tuple(batch.kwargs["decoder_input_ids"].shape) == (3, 100)
    assert bundle.mel_window == (128, 3000) and bundle.shape.max_seq_len == 448


@pytest.mark.parametrize(
    ("config", "fields", "said"),
    [
        # the decoder's limit named, not a tracing error from inside transformers
        (
            TINY_WHISPER,
            {"task": "infer", "inputs": {"batch_size": 1, "seq_len": 1500}},
            "inputs.seq_len: 1500 transcript tokens are more than whisper's decoder takes "
            "(max_target_positions: 448 in its config.json); use seq_len: 448 or less",
        ),
        (
            TINY_WHISPER,
            {"task": "infer", "inputs": {"batch_size": 1}},
            "inputs.seq_len: required for whisper: the transcript's tokens of one 30 s window (at most 448",
        ),
        # it was "only a decoder LLM generates tokens after its prompt"
        (
            TINY_WHISPER,
            {"task": "infer", "inputs": {"batch_size": 1, "seq_len": 448, "output_tokens": 150}},
            "inputs.output_tokens: generation by an encoder-decoder (whisper) is not modelled yet",
        ),
        (
            TINY_T5,
            {"task": "infer", "inputs": {"batch_size": 1, "seq_len": 64, "output_tokens": 16}},
            "inputs.output_tokens: generation by an encoder-decoder (its config.json) is not modelled yet",
        ),
        (
            TINY_WHISPER,
            {
                "task": "infer",
                "inputs": {"batch_size": 1, "seq_len": 100},
                "serving": {"requests_per_s": 2, "p95_latency_ms": 10000},
            },
            "serving: a whisper service generates each transcript token by token",
        ),
        (
            SPEECH2TEXT,
            {"task": "infer", "inputs": {"batch_size": 1, "seq_len": 100}},
            "model.hf_config: speech_to_text takes audio features, and gpuplan builds them only for Whisper",
        ),
    ],
)
def test_what_is_not_built_or_modelled_is_refused_in_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    config: dict[str, Any],
    fields: dict[str, Any],
    said: str,
) -> None:
    line = refused(["estimate", _workload(tmp_path, config, **fields), "--gpu", "L4"], capsys)
    assert said in line, line
    assert "only a decoder LLM" not in line


def test_the_refusals_read_in_chinese(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPUPLAN_LANG", "zh")
    fields = {"task": "infer", "inputs": {"batch_size": 1, "seq_len": 448, "output_tokens": 150}}
    line = refused(["estimate", _workload(tmp_path, TINY_WHISPER, **fields), "--gpu", "L4"], capsys)
    assert "编码器-解码器（whisper）的生成尚未建模" in line, line
