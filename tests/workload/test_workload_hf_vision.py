"""A vision model's config.json takes images (inputs.image_size), and its own size keys."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpuplan.errors import WorkloadError
from gpuplan.workload import Workload

VIT = {"model_type": "vit", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2,
       "intermediate_size": 128, "image_size": 384, "patch_size": 16}  # fmt: skip
SWIN = {"model_type": "swin", "embed_dim": 32, "depths": [2, 2], "num_heads": [2, 4], "window_size": 4,
        "image_size": 64, "patch_size": 4}  # fmt: skip
GPT2 = {"model_type": "gpt2", "n_layer": 1, "n_head": 1, "n_embd": 8, "vocab_size": 16}


def _workload(tmp_path: Path, config: dict[str, Any], inputs: dict[str, Any]) -> Workload:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    return Workload.from_dict(
        {"name": "v", "model": {"hf_config": str(path)}, "inputs": {"batch_size": 1, **inputs}}
    )


@pytest.mark.parametrize(
    ("config", "inputs", "said"),
    [
        (VIT, {"seq_len": 128}, "inputs: vit takes images; give image_size, not seq_len"),
        # the config's own size named, not a text model's seq_len
        (VIT, {}, "inputs.image_size: required for vit (its config.json has image_size: 384)"),
        (GPT2, {"image_size": 224}, "inputs: gpt2 takes tokens; give seq_len, not image_size"),
    ],
)
def test_the_inputs_are_those_the_configs_model_takes(
    tmp_path: Path, config: dict[str, Any], inputs: dict[str, Any], said: str
) -> None:
    with pytest.raises(WorkloadError) as e:
        _workload(tmp_path, config, inputs)
    assert said in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_per_stage_sizes_are_sizes_and_count_their_blocks(tmp_path: Path) -> None:
    # Swin gives heads per stage ([2, 4]): whole numbers, not a malformed size.
    _workload(tmp_path, SWIN, {"image_size": 64})
    # Its blocks are the sum of depths: 4 stages of 200 are 800 blocks, over the trace's budget.
    with pytest.raises(WorkloadError, match="describes 800 layers"):
        _workload(tmp_path, {**SWIN, "depths": [200] * 4, "num_heads": [2] * 4}, {"image_size": 64})
    with pytest.raises(WorkloadError, match=r"num_heads is \[2, 0\]"):
        _workload(tmp_path, {**SWIN, "num_heads": [2, 0]}, {"image_size": 64})


def test_a_vision_config_is_not_asked_for_keys_its_model_does_not_read(tmp_path: Path) -> None:
    # ConvNeXt's stage count is the length of its depths; Swin's hidden_size and num_layers are
    # derived from embed_dim and depths. The check had asked ConvNeXt for num_hidden_layers.
    pytest.importorskip("transformers")
    from gpuplan.workload.hf import hf_config

    convnext = {"model_type": "convnext", "depths": [1, 1, 1, 1], "hidden_sizes": [8, 16, 32, 64],
                "image_size": 32, "patch_size": 4}  # fmt: skip
    for config in (convnext, SWIN):
        hf_config(_workload(tmp_path, config, {"image_size": 64}))  # no error
    # Depths of 2 stages leave transformers' default of 4: the stage count is still asked for.
    with pytest.raises(WorkloadError, match="has no 'num_hidden_layers', which convnext needs"):
        hf_config(
            _workload(tmp_path, {**convnext, "depths": [1, 1], "hidden_sizes": [8, 16]}, {"image_size": 64})
        )
