"""``gpuplan bench`` rows as per-GPU ceilings on the fitted efficiencies."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from perf_helpers import make_profile, op

from gpuplan.hardware import get_gpu
from gpuplan.perf.calibration import Calibration
from gpuplan.perf.estimate import estimate
from gpuplan.perf.measured import measured_gpus

H200 = get_gpu("H200-SXM")
H100 = get_gpu("H100-SXM")
CAL = Calibration(
    tensor_matmul_efficiency=0.6,
    tensor_conv_efficiency=0.5,
    vector_efficiency=0.8,
    bandwidth_efficiency=0.85,
    min_kernel_time_us=0.0,
)


@dataclass(frozen=True)
class Row:
    """The BenchResult fields the estimator reads (perf does not import the catalog)."""

    metric: str
    value: float
    datasheet_value: float | None
    dtype: str | None = None
    gpu_id: str | None = "H200-SXM"
    measured_at: str = "2026-11-30T20:00:00+00:00"


def test_fraction_is_measured_over_datasheet_per_dtype_and_for_memory() -> None:
    (m,) = measured_gpus(
        [
            Row("matmul_tflops", 790.0, 989.5, "bf16"),
            Row("matmul_tflops", 380.0, 494.7, "tf32"),
            Row("memory_bandwidth_gbps", 4100.0, 4800.0),
            Row("h2d_gbps", 50.0, 64.0),  # not a roofline input: ignored
        ]
    )
    assert m.gpu_id == "H200-SXM"
    assert m.matmul("bf16") == pytest.approx(790.0 / 989.5)  # 0.798
    assert m.matmul("tf32") == pytest.approx(380.0 / 494.7)
    assert m.matmul("fp16") is None
    assert m.bandwidth_fraction == pytest.approx(4100.0 / 4800.0)


def test_newest_row_wins_and_unusable_rows_are_ignored() -> None:
    (m,) = measured_gpus(
        [
            Row("matmul_tflops", 500.0, 989.5, "bf16", measured_at="2026-11-01T00:00:00+00:00"),
            Row("matmul_tflops", 790.0, 989.5, "bf16", measured_at="2026-11-30T00:00:00+00:00"),
            Row("matmul_tflops", 1200.0, 989.5, "fp16"),  # above the datasheet: capped at 1
            Row("matmul_tflops", 10.0, None, "fp32"),  # no datasheet (MIG): nothing to compare
            Row("matmul_tflops", 10.0, 67.0, "fp32", gpu_id=None),  # unmatched device
        ]
    )
    assert m.matmul("bf16") == pytest.approx(0.798, abs=1e-3)
    assert m.matmul("fp16") == 1.0
    assert m.matmul("fp32") is None
    assert m.measured_at == "2026-11-30T20:00:00+00:00"


def test_a_slow_unit_caps_the_fitted_efficiency_for_that_gpu_only() -> None:
    # a power-capped H200: 300 of 989.5 TFLOP/s bf16 = 0.303 < the fitted 0.6; copies at 0.5 < 0.85
    cal = CAL.with_measurements(
        [Row("matmul_tflops", 300.0, 989.5, "bf16"), Row("memory_bandwidth_gbps", 2400.0, 4800.0)]
    )
    h200 = cal.for_gpu("H200-SXM")
    assert h200.compute_efficiency("bf16", "matmul") == pytest.approx(300.0 / 989.5)
    assert h200.compute_efficiency("bf16", "conv") == pytest.approx(300.0 / 989.5)  # below conv's 0.5
    assert h200.compute_efficiency("fp16", "matmul") == 0.6  # fp16 not measured
    assert h200.bandwidth_efficiency == 0.5
    h100 = cal.for_gpu("H100-SXM")
    assert h100.compute_efficiency("bf16", "matmul") == 0.6
    assert h100.bandwidth_efficiency == 0.85


def test_a_healthy_unit_keeps_the_fitted_whole_model_efficiency() -> None:
    # 790 / 989.5 = 0.80 on a bare 8192³ GEMM is above the fitted whole-model 0.6: no change
    cal = CAL.with_measurements([Row("matmul_tflops", 790.0, 989.5, "bf16")])
    assert cal.measurement("H200-SXM") is not None
    assert cal.for_gpu("H200-SXM").compute_efficiency("bf16", "matmul") == 0.6


def test_remeasuring_a_gpu_replaces_its_entry_and_keeps_others() -> None:
    cal = CAL.with_measurements(
        [
            Row("matmul_tflops", 300.0, 989.5, "bf16"),
            Row("matmul_tflops", 400.0, 989.5, "bf16", gpu_id="H100-SXM"),
        ]
    )
    cal = cal.with_measurements([Row("matmul_tflops", 500.0, 989.5, "bf16")])
    assert [m.gpu_id for m in cal.measured] == ["H100-SXM", "H200-SXM"]
    assert cal.for_gpu("H200-SXM").compute_efficiency("bf16", "matmul") == pytest.approx(500.0 / 989.5)


def test_estimate_uses_the_measurement_and_says_so() -> None:
    prof = make_profile(ops=(op("forward", flops=1e12), op("backward", flops=2e12)))
    measured = CAL.with_measurements([Row("matmul_tflops", 300.0, 989.5, "bf16")])
    slow = estimate(prof, H200, calibration=measured)
    plain = estimate(prof, H200, calibration=CAL)
    # all-matmul step: time scales with 1 / efficiency, 0.6 → 300/989.5
    assert slow.step_time_s == pytest.approx(plain.step_time_s * 0.6 / (300.0 / 989.5))
    assert any("measured on this GPU by gpuplan bench at 2026-11-30" in n for n in slow.notes)
    other = estimate(prof, H100, calibration=measured)
    assert other.step_time_s == pytest.approx(estimate(prof, H100, calibration=CAL).step_time_s)
    assert not any("gpuplan bench" in n for n in other.notes)


def test_measurements_survive_a_json_round_trip() -> None:
    cal = CAL.with_measurements([Row("matmul_tflops", 300.0, 989.5, "bf16")])
    back = Calibration.from_json(cal.to_json())
    assert back.measured == cal.measured
    assert back.for_gpu("H200-SXM") == cal.for_gpu("H200-SXM")
