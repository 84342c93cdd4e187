"""A paged optimizer's state that does not fit crosses PCIe at every step, and the step pays for it."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from perf_helpers import GIB, SIMPLE_CAL, breakdown, make_profile, op

from gpuplan.hardware import get_gpu
from gpuplan.perf.estimate import estimate
from gpuplan.perf.links import HOST_COPY_EFFICIENCY, host_copy_s
from gpuplan.profile.model import Profile

CAL = SIMPLE_CAL


def _full_finetune_8b(paged_gib: float) -> Profile:
    # An 8B decoder in pure bf16 with paged 8-bit AdamW: 15 GiB of bf16 weights, 15 GiB of 8-bit
    # moments in managed memory (outside the allocated peak but inside the optimizer state), 3 GiB
    # of activations.
    params = 8_000_000_000
    peak = breakdown(parameters=15.0 * GIB, optimizer_state=15.0 * GIB, activations=3.0 * GIB)
    p = make_profile(ops=(op(flops=2e14),), peak=peak, params=params, batch_size=2, seq_len=2048)
    return replace(p, paged_optimizer_bytes=paged_gib * GIB)


def test_the_state_that_spills_crosses_pcie_in_and_out_at_each_step() -> None:
    rtx = get_gpu("RTX-4090")  # 24 GiB, PCIe Gen4 x16
    paged = estimate(_full_finetune_8b(15.0), rtx, calibration=CAL)
    spill = paged.memory.host_spill_gib
    # 18 GiB allocated needs ≈ 19–20 GiB with the context: about 4–5 GiB of the 15 stay resident.
    assert 9.0 < spill < 12.0
    # In and out again, at 25 GB/s of Gen4's 32 one way.
    expected = 2.0 * spill * GIB / (32e9 * HOST_COPY_EFFICIENCY)
    assert expected == pytest.approx(2.0 * host_copy_s(spill * GIB, rtx))
    # The same step with no state in managed memory moves nothing (it does not fit, but it is
    # timed all the same): the difference is the paging, in the point and at both ends.
    unpaged = estimate(_full_finetune_8b(0.0), rtx, calibration=CAL)
    assert paged.step_time_s - unpaged.step_time_s == pytest.approx(expected, rel=1e-6)
    assert paged.optimizer_paging_s == pytest.approx(expected) and unpaged.optimizer_paging_s == 0.0
    assert paged.step_time_s_low > unpaged.step_time_s_low + 0.5 * expected
    assert paged.step_time_s_high > unpaged.step_time_s_high + expected
    assert any("crosses PCIe in and out at each step" in n and f"{expected:.2f} s" in n for n in paged.notes)


def test_a_paged_optimizer_that_fits_moves_nothing() -> None:
    h100 = get_gpu("H100-SXM")  # 80 GB: all 15 GiB of state stay on the GPU
    paged = estimate(_full_finetune_8b(15.0), h100, calibration=CAL)
    unpaged = estimate(_full_finetune_8b(0.0), h100, calibration=CAL)
    assert paged.memory.host_spill_gib == 0.0 and paged.optimizer_paging_s == 0.0
    assert paged.step_time_s == pytest.approx(unpaged.step_time_s)
    assert not any("crosses PCIe" in n for n in paged.notes)


def test_a_slower_host_link_pays_more() -> None:
    # The same spill over PCIe Gen3 (a V100 PCIe's host link) takes twice Gen4's time.
    v100 = get_gpu("V100-PCIE-16GB")
    rtx = get_gpu("RTX-4090")
    assert host_copy_s(GIB, v100) == pytest.approx(2.0 * host_copy_s(GIB, rtx))


def _table_text(profile: Profile, *gpus: str) -> str:
    from rich.console import Console

    from gpuplan.perf.sweep import EstimateOutcome
    from gpuplan.report.estimate import estimate_view

    outcomes = [
        EstimateOutcome(gpu=g, gpu_count=1, estimate=estimate(profile, get_gpu(g), calibration=CAL))
        for g in gpus
    ]
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(estimate_view(profile, outcomes, CAL))
    return console.export_text()


def test_the_table_shows_the_paging_only_where_a_gpu_pays_it() -> None:
    profile = _full_finetune_8b(15.0)
    paged = estimate(profile, get_gpu("RTX-4090"), calibration=CAL).optimizer_paging_s
    text = _table_text(profile, "RTX-4090", "H100-SXM")
    assert any(line.rstrip().endswith("paging") for line in text.splitlines())  # the last column
    rtx_line = next(line for line in text.splitlines() if "RTX-4090" in line)
    h100_line = next(line for line in text.splitlines() if "H100-SXM" in line)
    assert 0.1 < paged < 1.0 and f"{paged * 1e3:.3g} ms" in rtx_line and h100_line.rstrip().endswith("—")
    # A workload that never pages has no such column.
    assert "paging" not in _table_text(_full_finetune_8b(0.0), "H100-SXM")
