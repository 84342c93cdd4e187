"""``attention: eager`` versus ``fused``: the traced s×s scores, their cost, and where the option shows."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from gpuplan.errors import WorkloadError
from gpuplan.perf import Estimate
from gpuplan.profile.key import profile_key, trace
from gpuplan.profile.model import Profile
from gpuplan.workload import Workload

Make = Callable[..., Workload]

#: GPT-2 small at bs2 × 512, amp-bf16: long enough that the activations, not AdamW's step, set the peak.
_LONG = {
    "name": "gpt2-512",
    "model": {"preset": "gpt2"},
    "inputs": {"batch_size": 2, "seq_len": 512},
    "precision": "amp-bf16",
}


@pytest.fixture(scope="module")
def traced() -> dict[str, Profile]:
    """Both traces once for the module (about 3 s each)."""
    return {a: trace({**_LONG, "attention": a}) for a in ("fused", "eager")}


def test_eager_attention_keeps_the_score_matrices_for_backward(traced: dict[str, Profile]) -> None:
    fused, eager = traced["fused"], traced["eager"]
    assert (fused.attention, eager.attention) == ("fused", "eager")
    # GPT-2 small, 12 layers × 12 heads, bs2 × 512: 12 · 2 · 12 · 512² = 75.5 M score elements.
    # Saved for backward per element: softmax's fp32 output (4 B, its own backward needs it) and its
    # bf16 cast (2 B, the input of probs·v): 6 B → 453 MB more activations.
    s2_bytes = 12 * 2 * 12 * 512**2 * 6
    extra = eager.peak.activations_bytes - fused.peak.activations_bytes
    assert extra == pytest.approx(s2_bytes, rel=0.15)
    # The fused kernel is one "attention" op; eager is plain matmuls plus softmax.
    assert any(op.op_class == "attention" for op in fused.ops)
    assert not any(op.op_class == "attention" for op in eager.ops)
    assert eager.flops_per_step == pytest.approx(fused.flops_per_step, rel=0.02)
    moved = sum(op.bytes_moved for op in eager.ops) - sum(op.bytes_moved for op in fused.ops)
    assert moved > 3 * s2_bytes  # each score element is written and read again by several kernels


def test_eager_attention_is_slower_and_needs_more_memory_on_a_gpu(traced: dict[str, Profile]) -> None:
    from gpuplan.api import estimate

    def on_a100(attention: str) -> Estimate:
        w = {**_LONG, "attention": attention}
        return estimate(w, ["a100-80gb"], profile=traced[attention]).outcomes[0].estimate

    fused, eager = on_a100("fused"), on_a100("eager")
    assert fused is not None and eager is not None
    assert eager.step_time_s > fused.step_time_s
    assert eager.peak_memory_gib > fused.peak_memory_gib


def test_attention_reaches_the_key_and_the_estimate_document(
    small_gpt2: Make, traced: dict[str, Profile]
) -> None:
    from gpuplan.api import estimate
    from gpuplan.report.estimate import estimate_json

    # Fused is the default and keeps the keys of profiles traced before the option existed.
    assert profile_key(small_gpt2()) == profile_key(small_gpt2(attention="fused"))
    assert profile_key(small_gpt2()) != profile_key(small_gpt2(attention="eager"))
    report = estimate({**_LONG, "attention": "eager"}, ["a100-80gb"], profile=traced["eager"])
    doc = estimate_json(report.profile, list(report.outcomes), report.calibration)
    assert doc.model_dump(mode="json")["workload"]["attention"] == "eager"


def test_attention_spellings_and_typos(small_gpt2: Make) -> None:
    assert small_gpt2(attention="sdpa").attention.value == "fused"
    assert small_gpt2(attention="unfused").attention.value == "eager"
    with pytest.raises(WorkloadError) as info:
        small_gpt2(attention="eagre")
    msg = str(info.value).strip()
    assert "did you mean 'eager'" in msg and "\n" not in msg


def test_hf_config_traces_transformers_eager_attention() -> None:
    pytest.importorskip("transformers")
    from gpuplan.vocab import AttentionImpl

    fused_w = Workload.from_yaml(Path(__file__).parents[1] / "workload" / "fixtures" / "hf_tiny_gpt2.yaml")
    eager_w = fused_w.model_copy(update={"attention": AttentionImpl.EAGER})
    fused, eager = trace(fused_w), trace(eager_w)
    assert any(op.op_class == "attention" for op in fused.ops)
    assert not any(op.op_class == "attention" for op in eager.ops)
    # Tiny (2 layers, 64 tokens): the peak falls in backward, with part of the scores already freed.
    assert eager.peak.activations_bytes > fused.peak.activations_bytes


def test_hf_attention_dropout_traces_as_the_fused_kernel_in_half_precision(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    # attn_pdrop 0.1 (GPT-2's default): on the CPU, SDPA with dropout falls back to the math path and
    # upcasts fp16 to fp32 bmm; a GPU runs it inside flash attention, in fp16.
    config = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_embd": 64, "n_layer": 2}
    config |= {"n_head": 4, "n_positions": 128, "vocab_size": 1000, "attn_pdrop": 0.1}
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    p = trace(
        {
            "name": "gpt2-dropout",
            "model": {"hf_config": str(tmp_path / "config.json")},
            "inputs": {"batch_size": 2, "seq_len": 64},
            "precision": "amp-fp16",
        }
    )
    attention = [op for op in p.ops if op.op_class == "attention"]
    assert attention and {op.dtype for op in attention} == {"float16"}
    assert not any(op.op == "aten.bmm" for op in p.ops)
    assert any(n.startswith("attention dropout: 2 SDPA calls") for n in p.notes)
