"""The op recorder keeps each tensor-core call's problem shape, which ``perf/gemm.py`` costs."""

from __future__ import annotations

import math
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from torch._subclasses.fake_tensor import FakeTensorMode  # noqa: E402

from gpuplan.profile.recorder import OpRecorder  # noqa: E402

F = torch.nn.functional


def test_linear_and_attention_shapes_are_recorded_per_pass() -> None:
    recorder = OpRecorder()
    recorder.recording = True
    with FakeTensorMode():
        x = torch.randn(4, 96, 256, requires_grad=True)
        w = torch.randn(512, 256, requires_grad=True)
        q = torch.randn(4, 8, 128, 64, requires_grad=True)
        with recorder:
            y = F.linear(x, w)  # 384 tokens × 256 → 512
            a = F.scaled_dot_product_attention(q, q, q, is_causal=True)
            recorder.phase = "backward"
            (y.sum() + a.sum()).backward()
    recs = recorder.records()
    fwd = [r for r in recs if r.op_class == "matmul" and r.phase == "forward"]
    assert [s for r in fwd for s in r.shapes] == [(1, 1, 384, 512, 256)]
    bwd = sorted(s for r in recs if r.op_class == "matmul" and r.phase == "backward" for s in r.shapes)
    # data gradient (384 tokens × 512 → 256) and weight gradient (512 × 256, k = the 384 tokens)
    assert bwd == [(1, 1, 384, 256, 512), (1, 1, 512, 256, 384)]
    att = {r.phase: r.shapes for r in recs if r.op_class == "attention"}
    assert att["forward"] == ((1, 32, 128, 128, 64),)  # batch × heads, query, key, head dim
    assert att["backward"] == ((1, 32, 128, 128, 64),)
    # every matmul shape accounts for its record's FLOPs exactly
    for r in recs:
        if r.op_class == "matmul":
            assert sum(2 * c * math.prod(s) for c, *s in r.shapes) == pytest.approx(r.flops)


def test_a_padded_vocabulary_is_traced_and_keyed(small_gpt2: Any) -> None:
    from gpuplan.profile.key import profile_key, trace

    plain, padded = small_gpt2(), small_gpt2(model={"pad_vocab_multiple": 8})
    assert profile_key(plain) != profile_key(padded)
    prof = trace(padded)
    assert prof.shape.vocab_size == 50264  # GPT-2's 50,257 rounded up to a multiple of 8
    heads = [s for r in prof.ops if r.op_class == "matmul" and r.phase == "forward" for s in r.shapes]
    assert (1, 1, 256, 50264, 768) in heads  # 2 × 128 tokens into the padded output layer


def test_an_hf_configs_vocabulary_is_padded_too() -> None:
    from pathlib import Path

    from gpuplan.profile.key import trace
    from gpuplan.workload import Workload

    hf = Path(__file__).parent.parent / "workload" / "fixtures" / "hf" / "tiny_gpt2.json"
    w = Workload.from_dict(
        {
            "name": "tiny",
            "model": {"hf_config": str(hf), "pad_vocab_multiple": 64},
            "inputs": {"batch_size": 1, "seq_len": 16},
        }
    )
    assert trace(w).shape.vocab_size == 1024  # 1,000 rounded up to a multiple of 64
