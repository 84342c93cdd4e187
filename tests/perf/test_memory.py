"""Memory composition: traced peak × allocator slack + CUDA context + workspaces."""

from __future__ import annotations

import pytest
from perf_helpers import GIB, breakdown, make_profile, op

from gpuplan.hardware import get_gpu
from gpuplan.perf.memory import (
    ALLOCATOR_SLACK,
    CONTEXT_GIB,
    HARD_FRAGMENTATION,
    memory_estimate,
    overhead_gib,
    peak_at_batch,
    usable_memory_gib,
)
from gpuplan.vocab import MemoryVerdict

A100 = get_gpu("A100-SXM4-80GB")


def test_point_memory_is_peak_times_slack_plus_context_and_cublas() -> None:
    # 10 GiB × 1.10 + 0.40 (Ampere context) + 8.1 MiB cuBLAS = 11.408 GiB
    m = memory_estimate(10 * GIB, A100, has_conv=False)
    cublas = (4096 * 1024 * 2 + 16 * 1024 * 8) / GIB
    assert m.peak_memory_gib == pytest.approx(10 * ALLOCATOR_SLACK[1] + CONTEXT_GIB["Ampere"][1] + cublas)
    assert m.peak_memory_gib_low < m.peak_memory_gib < m.peak_memory_gib_high


CUBLAS_GIB = (4096 * 1024 * 2 + 16 * 1024 * 8) / GIB


def test_each_term_is_named_for_the_tool_that_shows_it() -> None:
    # 10 GiB allocated on one A100: reserved 10 × 1.10 = 11.0 (max_memory_reserved); + 0.40 context
    # + 8.1 MiB cuBLAS = 11.408 GiB on nvidia-smi.
    m = memory_estimate(10 * GIB, A100, has_conv=False)
    assert m.peak_allocated_gib == pytest.approx(10.0)
    assert m.reserved_gib == pytest.approx(11.0)
    assert m.cuda_context_gib == pytest.approx(0.40)
    assert m.nvidia_smi_gib == pytest.approx(11.0 + 0.40 + CUBLAS_GIB)
    assert m.nvidia_smi_gib == m.peak_memory_gib
    assert m.overhead_gib == pytest.approx(0.40 + CUBLAS_GIB)


def test_what_must_fit_is_allocated_plus_unreleasable_fragmentation_and_context() -> None:
    # Under pressure the allocator frees its cache and retries: only 2 % stays reserved.
    # 10 × 1.02 + 0.40 + 8.1 MiB = 10.608 GiB, 0.8 GiB below nvidia-smi's figure on a roomy GPU.
    m = memory_estimate(10 * GIB, A100, has_conv=False)
    assert HARD_FRAGMENTATION[1] == 0.02
    assert m.required_gib == pytest.approx(10.2 + 0.40 + CUBLAS_GIB)
    assert m.required_gib < m.nvidia_smi_gib
    assert m.required_gib < m.required_gib_high


def test_a_run_that_fills_the_gpu_is_judged_on_what_must_fit_not_on_the_elastic_terms() -> None:
    # RTX 3090, 24.0 GiB: 22 GiB allocated by a CNN shows 22 × 1.10 + 0.40 + 0.25 cuDNN + 8 MiB
    # = 24.86 GiB on a roomy GPU, but needs only 22 × 1.02 + 0.40 + 8 MiB = 22.85 GiB; at the high
    # end of its band (5 % fragmentation, a 1.1 GiB context of an eagerly loading stack) 24.2 GiB.
    m = memory_estimate(22 * GIB, get_gpu("RTX-3090"), has_conv=True)
    assert m.peak_memory_gib > m.capacity_gib
    assert m.required_gib == pytest.approx(22.44 + 0.40 + CUBLAS_GIB)
    assert m.required_gib_high == pytest.approx(22 * 1.05 + 1.10 + CUBLAS_GIB)
    assert m.required_gib_low == pytest.approx(22.0 + 0.30 + CUBLAS_GIB)
    assert m.verdict is MemoryVerdict.MAY_NOT_FIT and not m.fits and not m.ruled_out
    # 20 GiB allocated fits at every end of the band: the elastic terms alone overflow.
    roomy = memory_estimate(20 * GIB, get_gpu("RTX-3090"), has_conv=True)
    assert roomy.verdict is MemoryVerdict.FITS and roomy.fits
    assert roomy.peak_memory_gib_high > roomy.capacity_gib


def test_does_not_fit_only_when_the_whole_band_is_above_the_usable_memory() -> None:
    a100 = usable_memory_gib(A100)
    # The low end: allocated ÷ the memory band, no fragmentation, the smallest context.
    edge = (a100 - 0.30 - CUBLAS_GIB) * 1.25 * GIB
    assert memory_estimate(edge * 0.999, A100, has_conv=False, memory_band=1.25).verdict is (
        MemoryVerdict.MAY_NOT_FIT
    )
    assert memory_estimate(edge * 1.001, A100, has_conv=False, memory_band=1.25).verdict is (
        MemoryVerdict.DOES_NOT_FIT
    )


def test_a_saving_the_workload_does_not_state_is_back_in_the_high_ends_only() -> None:
    # 10 GiB at the point, 4 GiB of it saved by a compiled loss the workload may not run.
    base = memory_estimate(10 * GIB, A100, has_conv=False, memory_band=1.1)
    assumed = memory_estimate(10 * GIB, A100, has_conv=False, memory_band=1.1, assumed_saving_bytes=4 * GIB)
    eager = memory_estimate(14 * GIB, A100, has_conv=False, memory_band=1.1)
    assert (assumed.required_gib, assumed.required_gib_low) == (base.required_gib, base.required_gib_low)
    assert assumed.peak_memory_gib == base.peak_memory_gib
    assert assumed.required_gib_high == pytest.approx(eager.required_gib_high)
    assert assumed.peak_memory_gib_high == pytest.approx(eager.peak_memory_gib_high)
    # A point that fits whose high end does not: "may not fit", never "fits".
    edge = (usable_memory_gib(A100) - 1.0) * GIB
    assert memory_estimate(edge * 0.8, A100, has_conv=False).verdict is MemoryVerdict.FITS
    assert (
        memory_estimate(edge * 0.8, A100, has_conv=False, assumed_saving_bytes=0.3 * edge).verdict
        is MemoryVerdict.MAY_NOT_FIT
    )


def test_cudnn_workspace_gives_way_but_nccl_buffers_do_not() -> None:
    base = memory_estimate(10 * GIB, A100, has_conv=False)
    conv = memory_estimate(10 * GIB, A100, has_conv=True)
    ddp = memory_estimate(10 * GIB, A100, has_conv=False, gpu_count=8)
    assert conv.cudnn_workspace_gib == pytest.approx(0.25)
    assert conv.nvidia_smi_gib == pytest.approx(base.nvidia_smi_gib + 0.25)
    assert conv.required_gib == pytest.approx(base.required_gib)
    assert ddp.nccl_buffers_gib == pytest.approx(0.25)
    assert ddp.required_gib == pytest.approx(base.required_gib + 0.25)


def test_paged_optimizer_state_is_not_required_and_spills_to_host() -> None:
    # RTX 4090 (24.0 GiB): 17 GiB allocated + 15 GiB of paged 8-bit Adam state. Required:
    # 17 × 1.02 + 0.40 + 8.1 MiB = 17.75 GiB; room for 6.25 GiB of the state, 8.75 GiB in host RAM.
    m = memory_estimate(17 * GIB, get_gpu("RTX-4090"), has_conv=False, paged_optimizer_bytes=15 * GIB)
    assert m.fits
    assert m.paged_optimizer_gib == pytest.approx(15.0)
    assert m.required_gib == pytest.approx(17.34 + 0.40 + CUBLAS_GIB)
    assert m.host_spill_gib == pytest.approx(15.0 - (24.0 - m.required_gib))
    # nvidia-smi shows the resident part of the state: the GPU looks full.
    assert m.nvidia_smi_gib > 24.0 - 0.01
    roomy = memory_estimate(17 * GIB, A100, has_conv=False, paged_optimizer_bytes=15 * GIB)
    assert roomy.host_spill_gib == 0.0


def test_the_context_range_covers_stacks_that_load_every_kernel_at_start() -> None:
    # Before CUDA 11.7 every kernel loaded at start-up: > 1000 MB (pytorch/pytorch#107667).
    for arch in ("Volta", "Turing", "Ampere", "Ada Lovelace", "Hopper"):
        low, point, high = CONTEXT_GIB[arch]
        assert low < point < 0.6 and high >= 1000 / 1024


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
    peak = breakdown(
        parameters=1 * GIB,
        gradients=1 * GIB,
        optimizer_state=2 * GIB,
        activations=6 * GIB,
        temporaries=2 * GIB,
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
    peak = breakdown(parameters=4 * GIB, gradients=4 * GIB, optimizer_state=8 * GIB, temporaries=4 * GIB)
    p = make_profile(ops=(op(flops=1.0),), peak=peak, batch_size=8)
    assert peak_at_batch(p, 1).total_bytes == pytest.approx(20 * GIB)
    assert not peak_at_batch(p, 16).exact


def test_an_estimate_of_a_compiled_step_keeps_the_eager_loss_in_its_high_end_and_says_so() -> None:
    from dataclasses import replace

    from gpuplan.perf.estimate import estimate

    peak = breakdown(parameters=4 * GIB, activations=6 * GIB)
    p = make_profile(ops=(op(flops=1e12),), peak=peak)
    # The trace took 3 GiB off the eager peak for what torch.compile's partitioner saves, 2 of
    # them the compiled loss's: the high end keeps those 2.
    compiled = replace(p, compile_saving_bytes=3 * GIB, compiled_loss_saving_bytes=2 * GIB)
    plain, assumed = estimate(p, A100, compiled=True), estimate(compiled, A100, compiled=True)
    eager = estimate(replace(p, peak=breakdown(parameters=4 * GIB, activations=8 * GIB)), A100)
    assert assumed.memory.required_gib == pytest.approx(plain.memory.required_gib)
    assert assumed.memory.required_gib_high == pytest.approx(eager.memory.required_gib_high)
    assert any("the high end keeps the eager loss's bytes" in n for n in assumed.notes)
    assert not any("eager loss" in n for n in plain.notes)
