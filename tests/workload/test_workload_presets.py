"""Preset models reproduce the published architectures: parameter counts pinned exactly."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")

from gpuplan.workload import PRESETS, Workload  # noqa: E402
from gpuplan.workload.bundle import ModelBundle  # noqa: E402


def _bundle(name: str, **inputs: Any) -> ModelBundle:
    info = PRESETS[name]
    size = {"image_size": 224} if info.modality == "image" else {"seq_len": 128}
    w = Workload.from_dict(
        {"name": name, "model": {"preset": name}, "inputs": {"batch_size": 1, **size, **inputs}}
    )
    # Built on the meta device: shapes only, no memory (the tracer uses fake tensors instead).
    with torch.device("meta"):
        return info.loader().build(info, w)


@pytest.mark.parametrize("name", list(PRESETS))
def test_preset_parameter_count_matches_the_published_model(name: str) -> None:
    model = _bundle(name).model
    # .parameters() yields a tied tensor once, as the published counts do.
    assert sum(p.numel() for p in model.parameters()) == PRESETS[name].expected_params


@pytest.mark.parametrize(
    ("name", "millions"),
    [
        ("gpt2", 124.4),
        ("bert-large", 335.2),
        ("resnet50", 25.56),
        ("llama-7b", 6738.4),
        ("llama-8b", 8030.3),
        # the Qwen2.5 model cards' 7.61B and 72.7B (their q/k/v biases, 0.001 % of either, not traced)
        ("qwen2.5-7b", 7615.6),
        ("qwen2.5-72b", 72706.2),
    ],
)
def test_headline_parameter_counts(name: str, millions: float) -> None:
    assert PRESETS[name].expected_params / 1e6 == pytest.approx(millions, rel=1e-3)


def test_llama_shapes_carry_grouped_query_attention() -> None:
    s8 = _bundle("llama-8b").shape
    assert (s8.num_attention_heads, s8.num_kv_heads, s8.head_dim, s8.vocab_size) == (32, 8, 128, 128256)
    s7 = _bundle("llama-7b").shape
    assert s7.num_kv_heads == 32 and s7.max_seq_len == 4096
    # largest unit FSDP gathers at once: the 128K×4096 embedding (525M) beats one block (218M)
    assert s8.largest_layer_params == 128256 * 4096


def test_bert_head_follows_the_task() -> None:
    info = PRESETS["bert-large"]
    w = Workload.from_dict(
        {
            "name": "q",
            "task": "finetune",
            "model": {"preset": "bert-large"},
            "inputs": {"batch_size": 1, "seq_len": 384},
        }
    )
    with torch.device("meta"):
        qa = info.loader().build(info, w).model
    # QA head (1024·2 + 2) instead of the MLM head (transform 1024² + 1024 + LN 2·1024 + bias 30522)
    assert sum(p.numel() for p in qa.parameters()) == 335_174_458 - (1024 * 1024 + 1024 + 2048 + 30522) + 2050


def test_every_preset_names_its_checkpoint_blocks() -> None:
    for name in PRESETS:
        b = _bundle(name)
        assert b.checkpoint_blocks, name
        for block in b.checkpoint_blocks:
            b.model.get_submodule(block)


def test_an_unknown_preset_points_to_the_ways_of_describing_any_other_model() -> None:
    # A diffusion model has no preset: the refusal listed the presets only, not how to describe it
    from gpuplan.errors import NotFoundError
    from gpuplan.workload.presets.registry import get_preset

    with pytest.raises(NotFoundError) as caught:
        get_preset("sdxl")
    said = str(caught.value)
    assert said.endswith("any other model: model: {hf_config: config.json} or model: {python: …})")


def test_a_presets_unknown_checkpoint_dtype_names_the_fields_that_give_it() -> None:
    # was: "its config.json's torch_dtype names it" for a preset, which has no config.json of the
    # user's; model.checkpoint_dtype (with the model.hub_id served) is what gives it
    from gpuplan.workload.stored_weights import stored_weights

    serving = {"requests_per_s": 1, "prompt_tokens": 512, "output_tokens": 128}
    base = {"name": "chat", "task": "infer", "inputs": {"batch_size": 8, "seq_len": 2048}, "serving": serving}
    unknown = stored_weights(
        Workload.from_dict({**base, "model": {"preset": "gpt3-1.3b"}}), 1_000_000_000, 0.0
    )
    assert unknown.dtype is None and unknown.gb == 4.0  # unknown: fp32's width, the widest
    assert "model.checkpoint_dtype" in unknown.note and "model.hub_id" in unknown.note
    assert "config.json" not in unknown.note and "gpt3-1.3b" in unknown.note
    given = {"preset": "gpt3-1.3b", "hub_id": "me/gpt3-1.3b-chat", "checkpoint_dtype": "bf16"}
    known = stored_weights(Workload.from_dict({**base, "model": given}), 1_000_000_000, 0.0)
    assert known.dtype == "bfloat16" and known.gb == 2.0
