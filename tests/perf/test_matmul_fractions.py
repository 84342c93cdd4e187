"""Tensor efficiencies as fractions of each GPU's measured achievable matmul rate (``gpus.csv``
``matmul_fraction``), applied once by ``Calibration.for_gpu``."""

from __future__ import annotations

from dataclasses import replace

import pytest
from perf_helpers import make_profile, op

from gpuplan.hardware import achievable_matmul_fraction, get_gpu
from gpuplan.perf.calibration import Calibration
from gpuplan.perf.estimate import estimate

CAL = Calibration(
    tensor_matmul_efficiency=0.7,
    tensor_conv_efficiency=0.5,
    vector_efficiency=0.8,
    bandwidth_efficiency=0.85,
    min_kernel_time_us=0.0,
    fp8_factor=0.8,
    matmul_fractions=True,
)


def test_each_gpu_reaches_the_fitted_share_of_its_own_measured_matmul_rate() -> None:
    a100, h100 = CAL.for_gpu("A100-SXM4-80GB"), CAL.for_gpu("H100-SXM")
    assert a100.compute_efficiency("bf16", "matmul") == pytest.approx(0.7 * 271.2 / 312, abs=1e-3)
    assert h100.compute_efficiency("bf16", "matmul") == pytest.approx(0.7 * 794.5 / 989, abs=1e-3)
    assert h100.compute_efficiency("bf16", "conv") == pytest.approx(0.5 * 0.803)
    # FP8 GEMMs: their own measured share of the FP8 peak (1402.6 / 1979), times the FP8 factor
    assert h100.compute_efficiency("fp8", "matmul") == pytest.approx(0.7 * 0.8 * 0.709, abs=1e-3)
    assert h100.compute_efficiency("fp32", "matmul") == 0.8  # the FP32 vector path is not a matmul peak


def test_the_fraction_is_applied_once() -> None:
    once = CAL.for_gpu("H100-SXM")
    assert once.for_gpu("H100-SXM") == once
    assert once.for_gpu("A100-SXM4-80GB").tensor_matmul_efficiency == once.tensor_matmul_efficiency


def test_an_unmeasured_gpu_is_costed_at_the_lowest_measured_fraction_of_its_kind() -> None:
    a10 = CAL.for_gpu("A10", "Ampere")
    a6000 = achievable_matmul_fraction(get_gpu("RTX-A6000"))
    assert a10.tensor_matmul_efficiency == pytest.approx(0.7 * a6000)
    assert a10.tensor_matmul_efficiency < CAL.for_gpu("H100-SXM").tensor_matmul_efficiency


def test_a_gpu_with_a_measured_fraction_is_costed_at_its_own() -> None:
    # the L40S's median run, 269.15 of 362.05 TFLOP/s bf16, not the vendor's lowest (the L4's)
    l40s = CAL.for_gpu("L40S", "Ada Lovelace")
    assert l40s.compute_efficiency("bf16", "matmul") == pytest.approx(0.7 * 269.15 / 362.05, abs=1e-3)
    assert get_gpu("L40S").matmul_fraction != achievable_matmul_fraction(get_gpu("A10"))
    # the same die as a GeForce RTX 4090, which reaches its whole FP32-accumulate peak: the
    # power-limited L40S's GEMMs come out slower per datasheet TFLOP
    rtx = CAL.for_gpu("RTX-4090", "Ada Lovelace")
    assert rtx.compute_efficiency("bf16", "matmul") / l40s.compute_efficiency("bf16", "matmul") > 1.3
    # a fraction above 1 (a GeForce card clocked over its rated boost) never lifts an efficiency past 1
    assert CAL.for_gpu("RTX-5090").tensor_matmul_efficiency == pytest.approx(0.7 * 1.136, abs=1e-3)
    assert replace(CAL, tensor_matmul_efficiency=0.95).for_gpu("RTX-5090").tensor_matmul_efficiency == 1.0


def test_a_matmul_bound_step_scales_with_the_measured_fraction() -> None:
    prof = make_profile(ops=(op("forward", flops=1e12), op("backward", flops=2e12)))
    h100 = get_gpu("H100-SXM")
    per_gpu = estimate(prof, h100, calibration=CAL).step_time_s
    datasheet = estimate(prof, h100, calibration=replace(CAL, matmul_fractions=False)).step_time_s
    assert per_gpu == pytest.approx(datasheet / 0.803, rel=1e-6)


def test_this_unit_s_own_bench_matmul_takes_the_place_of_the_published_fraction() -> None:
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Bench:
        metric: str
        value: float
        datasheet_value: float | None
        dtype: str | None
        gpu_id: str | None = "H100-SXM"
        measured_at: str = "2026-12-02T00:00:00+00:00"

    # a power-capped H100: 600 of 989 TFLOP/s bf16 (0.607) against the published 0.803
    slow = CAL.with_measurements([Bench("matmul_tflops", 600.0, 989.0, "bf16")])
    h100 = slow.for_gpu("H100-SXM")
    assert h100.compute_efficiency("bf16", "matmul") == pytest.approx(0.7 * 600 / 989, abs=1e-4)
    # its FP8 GEMMs are taken no faster than its measured BF16 share (0.607 < the published 0.709)
    assert h100.compute_efficiency("fp8", "matmul") == pytest.approx(0.7 * 0.8 * 600 / 989, abs=1e-4)
    assert h100.for_gpu("H100-SXM") == h100  # applied once
    # another GPU keeps the published fraction
    a100 = slow.for_gpu("A100-SXM4-80GB")
    assert a100.tensor_matmul_efficiency == CAL.for_gpu("A100-SXM4-80GB").tensor_matmul_efficiency
    # an FP8 bench replaces the FP8 fraction too: 1,200 of 1,979 TFLOP/s
    both = CAL.with_measurements(
        [Bench("matmul_tflops", 800.0, 989.0, "bf16"), Bench("matmul_tflops", 1200.0, 1979.0, "fp8")]
    )
    assert both.for_gpu("H100-SXM").compute_efficiency("fp8", "matmul") == pytest.approx(
        0.7 * 0.8 * 1200 / 1979, abs=1e-4
    )
