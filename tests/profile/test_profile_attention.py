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
def traced(trace_once: Callable[..., Profile]) -> dict[str, Profile]:
    """The three traces once for the run (about 3 s each)."""
    return {a: trace_once({**_LONG, "attention": a}) for a in ("fused", "eager", "fused-softmax")}


def test_eager_attention_keeps_the_score_matrices_for_backward(traced: dict[str, Profile]) -> None:
    fused, eager = traced["fused"], traced["eager"]
    assert (fused.attention, eager.attention) == ("fused", "eager")
    # GPT-2 small, 12 layers × 12 heads, bs2 × 512: 12 · 2 · 12 · 512² = 75.5 M score elements.
    # Saved for backward per element: softmax's fp32 output (4 B, its own backward needs it), GPT-2's
    # attention dropout (attn_pdrop 0.1) mask (1 B) and the dropped bf16 probabilities (2 B, the input
    # of probs·v): 7 B → 528 MB more activations (the fused kernel drops inside, keeping nothing).
    s2_bytes = 12 * 2 * 12 * 512**2 * 7
    extra = eager.peak.activations_bytes - fused.peak.activations_bytes
    assert extra == pytest.approx(s2_bytes, rel=0.15)
    # The fused kernel is one "attention" op; eager is plain matmuls plus softmax.
    assert any(op.op_class == "attention" for op in fused.ops)
    assert not any(op.op_class == "attention" for op in eager.ops)
    assert eager.flops_per_step == pytest.approx(fused.flops_per_step, rel=0.02)
    moved = sum(op.bytes_moved for op in eager.ops) - sum(op.bytes_moved for op in fused.ops)
    assert moved > 3 * s2_bytes  # each score element is written and read again by several kernels


def test_fused_softmax_keeps_16_bit_probabilities_and_moves_each_score_once(
    traced: dict[str, Profile],
) -> None:
    fused, eager, megatron = traced["fused"], traced["eager"], traced["fused-softmax"]
    assert megatron.attention == "fused-softmax"
    # Megatron 2021: saved for backward is the 16-bit softmax output (2 B), the attention dropout's
    # mask (1 B) and the dropped 16-bit probabilities (2 B): 75.5 M elements × 5 B = 377 MB
    # (12 · 2 · 12 · 512² · 5), where eager keeps 7 B per element.
    extra = megatron.peak.activations_bytes - fused.peak.activations_bytes
    assert extra == pytest.approx(12 * 2 * 12 * 512**2 * 5, rel=0.15)
    # One 16-bit softmax per layer, each reading and writing its 2 · 12 · 512² scores once in bf16:
    # 2 × 6.29 M × 2 B = 25.2 MB per call (the loss's fp32 log-softmax is another op).
    softmax = [op for op in megatron.ops if op.op == "aten._softmax" and op.phase == "forward"]
    assert [(op.dtype, op.count) for op in softmax] == [("bfloat16", 12)]
    assert softmax[0].bytes_moved / 12 == pytest.approx(2 * 2 * 12 * 512**2 * 2, rel=0.01)
    assert not any(op.op_class == "attention" for op in megatron.ops)  # full s² GEMMs, as Megatron
    assert megatron.flops_per_step == pytest.approx(fused.flops_per_step, rel=0.02)

    def moved(p: Profile) -> float:
        return sum(op.bytes_moved for op in p.ops)

    assert moved(fused) < moved(megatron) < moved(eager)


def test_eager_attention_is_slower_and_needs_more_memory_on_a_gpu(traced: dict[str, Profile]) -> None:
    from gpuplan.api import estimate

    def on_a100(attention: str) -> Estimate:
        w = {**_LONG, "attention": attention}
        return estimate(w, ["A100-SXM4-80GB"], profile=traced[attention]).outcomes[0].estimate

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
    report = estimate({**_LONG, "attention": "eager"}, ["A100-SXM4-80GB"], profile=traced["eager"])
    doc = estimate_json(report.profile, list(report.outcomes), report.calibration)
    assert doc.model_dump(mode="json")["workload"]["attention"] == "eager"


def test_attention_spellings_and_typos(small_gpt2: Make) -> None:
    assert small_gpt2(attention="sdpa").attention.value == "fused"
    assert small_gpt2(attention="unfused").attention.value == "eager"
    assert small_gpt2(attention="megatron").attention.value == "fused-softmax"
    assert profile_key(small_gpt2(attention="fused-softmax")) != profile_key(small_gpt2(attention="eager"))
    with pytest.raises(WorkloadError) as info:
        small_gpt2(attention="eagre")
    msg = str(info.value).strip()
    assert "did you mean 'eager'" in msg and "\n" not in msg


def test_fused_softmax_is_refused_for_an_hf_config_in_one_line() -> None:
    path = Path(__file__).parents[1] / "workload" / "fixtures" / "hf_tiny_gpt2.yaml"
    with pytest.raises(WorkloadError) as info:
        Workload.from_dict({**Workload.from_yaml(path).model_dump(mode="json"), "attention": "fused-softmax"})
    msg = str(info.value).strip()
    assert "fused-softmax is Megatron-LM's kernel" in msg and "\n" not in msg


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
