"""One training checkpoint's size and the words that say what it holds, at each precision."""

from __future__ import annotations

from dataclasses import replace

import pytest
from perf_helpers import make_profile

from gpuplan.plan.build_inputs import job_facts_from
from gpuplan.profile.model import MemoryBreakdown, Profile
from gpuplan.workload import Workload

N = 1_000_000_000


def _profile(precision: str, weight: float, state: float) -> Profile:
    peak = MemoryBreakdown(
        parameters_bytes=weight * N,
        buffers_bytes=0.0,
        gradients_bytes=weight * N,
        optimizer_state_bytes=state * N,
        activations_bytes=0.0,
        temporaries_bytes=0.0,
    )
    return replace(make_profile(ops=(), params=N, peak=peak), precision=precision)


def test_a_bf16_checkpoint_holds_bf16_weights_and_moments_and_says_so() -> None:
    # was: 8 bytes a parameter (the weights counted as an fp32 copy bf16 does not keep), said as
    # "fp32 trainable weights + optimizer state + buffers"; PyTorch's AdamW keeps exp_avg and
    # exp_avg_sq in the parameter's dtype, so all-bf16 is 2 + 2 + 2 bytes
    bf16 = _profile("bf16", 2.0, 4.0)
    assert bf16.checkpoint_gb == pytest.approx(6.0)
    w = Workload.from_dict(
        {
            "name": "w",
            "model": {"preset": "gpt2"},
            "inputs": {"batch_size": 2, "seq_len": 128},
            "precision": "bf16",
            "data": {"samples": 1000, "size_gb": 1},
        }
    )
    facts, notes = job_facts_from(w, bf16)
    assert facts.checkpoint_gb == pytest.approx(6.0)
    line = next(n for n in notes if n.startswith("checkpoint 6.00 GB"))
    assert "bf16 trainable weights + optimizer state in bf16" in line and "fp32" not in line


def test_fp32_weights_are_four_bytes_and_a_master_copy_is_counted_once() -> None:
    assert _profile("amp-bf16", 4.0, 8.0).checkpoint_gb == pytest.approx(12.0)
    # fp16-master: the fp32 master copy is part of the traced optimizer state (4 + 8 bytes)
    assert _profile("fp16-master", 2.0, 12.0).checkpoint_gb == pytest.approx(14.0)
