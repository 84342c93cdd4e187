"""The bench on this machine's CPU (tiny sizes, no timed assertions) and its arithmetic with a fake timer."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from gpuplan.errors import InputError
from gpuplan.hardware import get_gpu
from gpuplan.machine import METRICS, BenchProgress, BenchResult, BenchSizes, efficiency, run_bench
from gpuplan.machine.bench import default_sizes

TINY = BenchSizes(
    matmul_n=64,
    copy_bytes=1024 * 1024,
    transfer_bytes=0,
    model_d=32,
    model_heads=2,
    model_seq_len=8,
    model_batch=4,
    allreduce_bytes=0,
    warmup=1,
    repeats=2,
)


class FixedTimer:
    """Every call of the timed function 'takes' ``seconds``: pins the arithmetic, not the machine."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.calls = 0

    def measure(self, fn: Callable[[], object], *, warmup: int, repeats: int, inner: int = 1) -> list[float]:
        fn()  # still run it once, so the code path is exercised for real
        self.calls += 1
        return [self.seconds] * repeats


def _result(results: tuple[BenchResult, ...], metric: str, dtype: str | None = None) -> BenchResult:
    (r,) = [r for r in results if r.metric == metric and (dtype is None or r.dtype == dtype)]
    return r


def test_cpu_bench_measures_positive_numbers_with_units_and_no_gpu_figures() -> None:
    seen: list[BenchProgress] = []
    report = run_bench(device="cpu", sizes=TINY, progress=seen.append)
    assert report.device == "cpu" and report.gpu_id is None
    metrics = {(r.metric, r.dtype) for r in report.results}
    assert metrics == {
        ("matmul_tflops", "fp32"),
        ("matmul_tflops", "bf16"),
        ("memory_bandwidth_gbps", None),
        ("train_step_s", "fp32"),
    }
    for r in report.results:
        assert r.value > 0 and math.isfinite(r.value)
        assert r.unit == METRICS[r.metric]
        assert r.datasheet_value is None and efficiency(r) is None  # no CPU datasheet
        assert r.details["datasheet_note"]
        assert r.gpu_id is None and r.host == report.host
    step = _result(report.results, "train_step_s")
    assert step.details["batch"] == 4 and step.details["model"].startswith("transformer_encoder_layer")
    skipped = {(s.metric, s.dtype) for s in report.skipped}
    assert {("h2d_gbps", None), ("d2h_gbps", None), ("allreduce_busbw_gbps", "fp32")} <= skipped
    assert all(s.reason for s in report.skipped)
    assert [p.done for p in seen] == [0, 1, 2, 3, 4] and seen[-1].total == 4


def test_matmul_and_copy_arithmetic_with_a_fixed_timer() -> None:
    report = run_bench(device="cpu", sizes=TINY, timer=FixedTimer(0.001))
    # 2 * 64**3 = 524288 FLOP in 1 ms = 5.24288e8 FLOP/s = 0.000524288 TFLOP/s
    assert _result(report.results, "matmul_tflops", "fp32").value == pytest.approx(0.000524288)
    # a copy of 1 MiB reads and writes it: 2 * 1048576 B / 1 ms = 2.097152 GB/s
    assert _result(report.results, "memory_bandwidth_gbps").value == pytest.approx(2.097152)
    step = _result(report.results, "train_step_s")
    assert step.value == pytest.approx(0.001)
    assert step.details["samples_per_s"] == pytest.approx(4000.0)  # batch 4 / 1 ms


def test_efficiency_is_measured_over_datasheet() -> None:
    h100 = get_gpu("H100-SXM")
    datasheet = h100.peak_tflops("bf16")
    assert datasheet is not None
    r = BenchResult(
        gpu_id=h100.id,
        device_name="NVIDIA H100 80GB HBM3",
        host="h",
        measured_at="2026-11-30T19:00:00+00:00",
        metric="matmul_tflops",
        dtype="bf16",
        value=datasheet / 2,
        unit="TFLOP/s",
        datasheet_value=datasheet,
    )
    assert efficiency(r) == pytest.approx(0.5)


def test_cuda_without_a_gpu_is_a_user_error() -> None:
    with pytest.raises(InputError, match="is_available"):
        run_bench(device="cuda", sizes=TINY)


def test_bench_without_torch_says_how_to_install_it() -> None:
    def no_torch() -> object:
        raise ModuleNotFoundError("No module named 'torch'")

    with pytest.raises(InputError, match="pip install torch"):
        run_bench(device="cpu", import_torch=no_torch)


def test_quick_sizes_are_smaller_than_full_ones() -> None:
    for device in ("cpu", "cuda"):
        quick, full = default_sizes(device, quick=True), default_sizes(device, quick=False)
        assert quick.matmul_n < full.matmul_n and quick.copy_bytes < full.copy_bytes
