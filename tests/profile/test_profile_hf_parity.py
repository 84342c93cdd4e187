"""Presets against Hugging Face's own implementation of the same architecture, traced alike.

The Llama-3.2-1B and GPT-2 configs (dropout 0, as the presets) are built by transformers with SDPA.
Same parameters and FLOPs exactly; peak memory within 0.1 % (measured: equal to 10 KB).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplan.profile import trace
from gpuplan.workload import Workload

pytest.importorskip("torch")
pytest.importorskip("transformers")

HF = Path(__file__).parents[1] / "workload" / "fixtures" / "hf"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("preset", "config", "extra"),
    [
        ("llama-1b", "llama32_1b.json", {"precision": "bf16", "task": "finetune", "lora": {"rank": 8}}),
        ("gpt2", "gpt2.json", {"precision": "amp-bf16"}),
    ],
)
def test_preset_traces_like_the_transformers_model(
    preset: str, config: str, extra: dict[str, object]
) -> None:
    lora = extra.pop("lora", None)
    common = {"inputs": {"batch_size": 2, "seq_len": 256}, "optimizer": "adamw", **extra}
    ours = trace(Workload.from_dict({"name": "p", "model": {"preset": preset, "lora": lora}, **common}))
    theirs = trace(
        Workload.from_dict({"name": "h", "model": {"hf_config": str(HF / config), "lora": lora}, **common})
    )
    assert ours.params == theirs.params
    assert ours.trainable_params == theirs.trainable_params
    assert ours.flops_per_step == pytest.approx(theirs.flops_per_step, rel=1e-6)
    assert ours.peak.total_bytes == pytest.approx(theirs.peak.total_bytes, rel=1e-3)
    assert ours.shape.num_kv_heads == theirs.shape.num_kv_heads
