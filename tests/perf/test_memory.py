"""Memory composition: traced peak × allocator slack + CUDA context + workspaces."""

from __future__ import annotations

import pytest
from perf_helpers import GIB, make_profile, op

from gpuplan.hardware import get_gpu
from gpuplan.perf.memory import (
    ALLOCATOR_SLACK,
    CONTEXT_GIB,
    memory_estimate,
    overhead_gib,
    peak_at_batch,
    usable_memory_gib,
)
from gpuplan.profile.model import MemoryBreakdown

A100 = get_gpu("A100-SXM4-80GB")


def test_point_memory_is_peak_times_slack_plus_context_and_cublas() -> None:
    # 10 GiB × 1.10 + 0.40 (Ampere context) + 8.1 MiB cuBLAS = 11.408 GiB
    m = memory_estimate(10 * GIB, A100, has_conv=False)
    cublas = (4096 * 1024 * 2 + 16 * 1024 * 8) / GIB
    assert m.peak_memory_gib == pytest.approx(10 * ALLOCATOR_SLACK[1] + CONTEXT_GIB["Ampere"][1] + cublas)
    assert m.peak_memory_gib_low < m.peak_memory_gib < m.peak_memory_gib_high


def test_convolutions_and_multi_gpu_add_workspace_and_nccl_buffers() -> None:
    base = overhead_gib(A100, has_conv=False, gpu_count=1)[1]
    assert overhead_gib(A100, has_conv=True, gpu_count=1)[1] == pytest.approx(base + 0.25)
    assert overhead_gib(A100, has_conv=False, gpu_count=8)[1] == pytest.approx(base + 0.25)


def test_hopper_has_a_larger_cublas_workspace() -> None:
    h100 = overhead_gib(get_gpu("H100-SXM"), has_conv=False, gpu_count=1)[1]
    # 0.50 context + 32 MiB = 0.53125 GiB
    assert h100 == pytest.approx(0.5 + 32 / 1024)


def test_usable_memory_matches_nvidia_smi_totals() -> None:
    assert usable_memory_gib(get_gpu("T4")) == pytest.approx(15.0)  # 15360 MiB with ECC on
    assert usable_memory_gib(get_gpu("V100-SXM2-16GB")) == pytest.approx(16160 / 1024, rel=0.01)
    assert usable_memory_gib(get_gpu("RTX-4090")) == pytest.approx(24.0)


def test_memory_scales_with_batch_as_static_plus_per_sample() -> None:
    peak = MemoryBreakdown(
        parameters_bytes=1 * GIB,
        buffers_bytes=0.0,
        gradients_bytes=1 * GIB,
        optimizer_state_bytes=2 * GIB,
        activations_bytes=6 * GIB,
        temporaries_bytes=2 * GIB,
    )
    p = make_profile(ops=(op(flops=1.0),), peak=peak, batch_size=8)
    # static 4 GiB + (6 + 2) GiB / 8 = 1 GiB per sample; at batch 2: 4 + 2 = 6 GiB
    s = peak_at_batch(p, 2)
    assert s.static_bytes == pytest.approx(4 * GIB)
    assert s.per_sample_bytes == pytest.approx(1 * GIB)
    assert s.total_bytes == pytest.approx(6 * GIB)
    assert s.exact


def test_optimizer_step_peak_does_not_shrink_with_batch() -> None:
    # foreach AdamW peak: no activations, a parameter-sized temporary
    peak = MemoryBreakdown(
        parameters_bytes=4 * GIB,
        buffers_bytes=0.0,
        gradients_bytes=4 * GIB,
        optimizer_state_bytes=8 * GIB,
        activations_bytes=0.0,
        temporaries_bytes=4 * GIB,
    )
    p = make_profile(ops=(op(flops=1.0),), peak=peak, batch_size=8)
    assert peak_at_batch(p, 1).total_bytes == pytest.approx(20 * GIB)
    assert not peak_at_batch(p, 16).exact
