"""Under gradient accumulation a later micro-batch's forward pass runs with the gradients summed so
far live: a trace of one micro-batch, whose peak is the end of its forward (gradients not yet
allocated, ``zero_grad(set_to_none=True)``), holds them only from its backward."""

from __future__ import annotations

from dataclasses import replace

import pytest
from perf_helpers import GIB, make_profile, op

from gpuplan.hardware import get_gpu
from gpuplan.perf.estimate import EstimateRequest, run_estimate
from gpuplan.profile.model import MemoryBreakdown

PARAMS = 1_000_000_000
FORWARD_END = MemoryBreakdown(
    parameters_bytes=4.0 * PARAMS,  # fp32 weights under autocast
    buffers_bytes=0.0,
    gradients_bytes=0.0,
    optimizer_state_bytes=8.0 * PARAMS,
    activations_bytes=20 * GIB,
    temporaries_bytes=0.0,
)


def _allocated(accumulation: int, peak: MemoryBreakdown = FORWARD_END, parallelism: str = "ddp") -> float:
    profile = make_profile(ops=(op(flops=1e12),), peak=peak, params=PARAMS)
    request = EstimateRequest(
        profile=profile,
        gpu=get_gpu("H200-SXM"),
        grad_accum_steps=accumulation,
        count=4 if parallelism != "ddp" else 1,
        parallelism=parallelism,
    )
    return run_estimate(request).memory.peak_allocated_gib


def test_a_later_micro_batch_holds_the_summed_gradients_beside_its_activations() -> None:
    # was: the same 31.2 GiB with 1 or 16 micro-batches; micro-batch advice that kept the global
    # batch promised a fit that the workload, once written with its accumulation, did not have
    one, many = _allocated(1), _allocated(16)
    assert many - one == pytest.approx(4.0 * PARAMS / GIB, rel=1e-6)  # fp32 gradients of 1e9 weights


def test_sharded_gradients_are_held_per_shard_and_a_peak_that_had_them_is_unchanged() -> None:
    # ZeRO-2 holds a quarter of the gradients per rank of four
    assert _allocated(8, parallelism="zero2") - _allocated(1, parallelism="zero2") == pytest.approx(
        PARAMS / GIB, rel=1e-6
    )
    traced_with_gradients = MemoryBreakdown(**{**FORWARD_END.__dict__, "gradients_bytes": 4.0 * PARAMS})
    assert _allocated(8, traced_with_gradients) == pytest.approx(_allocated(1, traced_with_gradients))


def test_a_traced_peak_over_the_memory_says_whether_the_range_still_fits() -> None:
    # was: "the traced peak alone exceeds the GPU's memory" beside a "may not fit" verdict
    peak = MemoryBreakdown(
        parameters_bytes=0.0,
        buffers_bytes=0.0,
        gradients_bytes=0.0,
        optimizer_state_bytes=0.0,
        activations_bytes=16.0 * GIB,
        temporaries_bytes=0.0,
    )
    ops = (op(dtype="float32", flops=1e12),)
    profile = make_profile(ops=ops, peak=peak, params=PARAMS, task="infer", precision="fp32")
    near = run_estimate(EstimateRequest(profile=profile, gpu=get_gpu("V100-SXM2-16GB")))
    assert near.memory_verdict.value == "may-not-fit"
    assert any("only the low end of the range fits" in n for n in near.notes), near.notes
    bigger = replace(profile, peak=replace(peak, activations_bytes=20.0 * GIB))
    far = run_estimate(EstimateRequest(profile=bigger, gpu=get_gpu("V100-SXM2-16GB")))
    assert far.memory_verdict.value == "does-not-fit"
    assert "the traced peak alone exceeds the GPU's memory" in far.notes
