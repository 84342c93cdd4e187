"""The bench on this machine's CPU (tiny sizes, no timed assertions) and its arithmetic with a fake timer."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from pathlib import Path

import pytest
from machine_fakes import FakeCudaTorch

from gpuplan.errors import InputError
from gpuplan.hardware import get_gpu
from gpuplan.machine import (
    METRICS,
    BenchProgress,
    BenchReport,
    BenchResult,
    BenchSizes,
    allreduce,
    efficiency,
    run_bench,
)
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
        assert quick.matmul_n < full.matmul_n and quick.copy_bytes <= full.copy_bytes
    # a GPU's quick copy is smaller; a CPU's is the one size that misses its cache, quick or not
    assert default_sizes("cuda", quick=True).copy_bytes < default_sizes("cuda", quick=False).copy_bytes


_MIB = 2**20


def test_the_cpu_copy_is_sized_to_miss_the_last_level_cache() -> None:
    from gpuplan.machine.bench import CPU_COPY_MIN_BYTES, cpu_copy_bytes

    assert CPU_COPY_MIN_BYTES == 256 * _MIB  # was 8 MiB (quick) and 64 MiB: inside many CPUs' L3
    assert cpu_copy_bytes(None, None) == 256 * _MIB  # the OS does not say: the floor
    assert cpu_copy_bytes(32 * _MIB, None) == 256 * _MIB  # 4 × 32 = 128 MiB is under the floor
    assert cpu_copy_bytes(1152 * _MIB, None) == 4 * 1152 * _MIB  # an EPYC 9684X's 1,152 MiB of L3
    # two buffers within a quarter of 8 GiB of memory: 1 GiB each, and never under the floor
    assert cpu_copy_bytes(1152 * _MIB, 8 * 1024 * _MIB) == 1024 * _MIB
    assert cpu_copy_bytes(None, 512 * _MIB) == 256 * _MIB
    assert cpu_copy_bytes(100 * _MIB + 1, None) == 401 * _MIB  # whole MiB, rounded up
    for quick in (True, False):
        assert default_sizes("cpu", quick=quick).copy_bytes >= CPU_COPY_MIN_BYTES


def _cache(root: Path, cpu: int, index: int, level: int, kind: str, size: str, shared: str) -> None:
    d = root / f"cpu{cpu}" / "cache" / f"index{index}"
    d.mkdir(parents=True)
    for name, text in (("level", str(level)), ("type", kind), ("size", size), ("shared_cpu_list", shared)):
        (d / name).write_text(text + "\n", encoding="ascii")


def test_the_last_level_cache_is_every_instance_of_it_together(tmp_path: Path) -> None:
    from gpuplan.machine.bench import last_level_cache_bytes

    # two chiplets of two cores, each chiplet with its own 32 MiB L3; per-core L1 and L2
    for cpu in range(4):
        _cache(tmp_path, cpu, 0, 1, "Data", "32K", str(cpu))
        _cache(tmp_path, cpu, 1, 1, "Instruction", "32K", str(cpu))
        _cache(tmp_path, cpu, 2, 2, "Unified", "1024K", str(cpu))
        _cache(tmp_path, cpu, 3, 3, "Unified", "32768K", "0-1" if cpu < 2 else "2-3")
    assert last_level_cache_bytes(tmp_path) == 64 * _MIB
    assert last_level_cache_bytes(tmp_path / "absent") is None


def _fake_h100_run(gpu_count: int, monkeypatch: pytest.MonkeyPatch) -> BenchReport:
    fake = FakeCudaTorch(
        gpu_name="NVIDIA H100 80GB HBM3",
        memory_bytes=85_520_809_984,
        gpu_count=gpu_count,
        capability=(9, 0),
        l2_bytes=50 * _MIB,
    )
    monkeypatch.setattr(allreduce, "measure_allreduce", lambda **kw: 0.002)
    sizes = dataclasses.replace(TINY, transfer_bytes=2 * 1024 * 1024, allreduce_bytes=4 * 1024 * 1024)
    return run_bench(sizes=sizes, timer=FixedTimer(0.001), import_torch=lambda: fake)


def test_gpu_path_compares_with_the_detected_gpus_datasheet(monkeypatch: pytest.MonkeyPatch) -> None:
    report = _fake_h100_run(1, monkeypatch)
    h100 = get_gpu("H100-SXM")
    assert report.device == "cuda" and report.gpu_id == "H100-SXM"
    for dtype in ("fp32", "tf32", "fp16", "bf16"):
        assert _result(report.results, "matmul_tflops", dtype).datasheet_value == h100.peak_tflops(dtype)
    mem = _result(report.results, "memory_bandwidth_gbps")
    assert mem.datasheet_value == h100.memory_bandwidth_gbps
    # 2 MiB one way in 1 ms = 2.097152 GB/s, against one direction of PCIe Gen5 x16 (128 / 2 = 64 GB/s)
    h2d = _result(report.results, "h2d_gbps")
    assert h2d.value == pytest.approx(2.097152)
    assert h2d.datasheet_value == h100.pcie_gbps / 2 == 64.0
    assert _result(report.results, "d2h_gbps").details["pinned"] is True
    assert _result(report.results, "train_step_s").dtype == "amp-bf16"
    (skip,) = [s for s in report.skipped if s.metric == "allreduce_busbw_gbps"]
    assert "at least 2 GPUs" in skip.reason
    assert not [s for s in report.skipped if s.metric == "matmul_tflops"]


def test_allreduce_bus_bandwidth_uses_the_nccl_tests_factor(monkeypatch: pytest.MonkeyPatch) -> None:
    report = _fake_h100_run(4, monkeypatch)
    r = _result(report.results, "allreduce_busbw_gbps")
    # algbw = 4 MiB / 2 ms = 2.097152 GB/s; busbw = algbw * 2(n-1)/n = 2.097152 * 1.5 = 3.145728
    assert r.value == pytest.approx(3.145728)
    assert r.details["world_size"] == 4 and r.details["bytes"] == 4 * 1024 * 1024
    assert r.datasheet_value == 450.0  # H100 SXM NVLink 900 GB/s both directions -> 450 one way


def test_gpu_path_restores_the_tf32_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    before = torch.backends.cuda.matmul.fp32_precision
    _fake_h100_run(1, monkeypatch)
    assert torch.backends.cuda.matmul.fp32_precision == before
    # torch refuses the legacy query while the new per-backend setting is left changed; it must work.
    assert torch.get_float32_matmul_precision() in ("highest", "high", "medium")


def test_pre_ampere_gpu_skips_tf32_and_bf16(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeCudaTorch(
        gpu_name="Tesla V100-SXM2-16GB", memory_bytes=16 * 1024**3, gpu_count=1, capability=(7, 0)
    )
    report = run_bench(sizes=TINY, timer=FixedTimer(0.001), import_torch=lambda: fake)
    assert report.gpu_id == "V100-SXM2-16GB"
    assert {r.dtype for r in report.results if r.metric == "matmul_tflops"} == {"fp32", "fp16"}
    assert {s.dtype for s in report.skipped if s.metric == "matmul_tflops"} == {"tf32", "bf16"}
    assert _result(report.results, "train_step_s").dtype == "amp-fp16"


def test_mig_instance_keeps_its_model_but_is_not_compared_with_the_whole_gpu() -> None:
    fake = FakeCudaTorch(
        gpu_name="NVIDIA A100-SXM4-40GB MIG 1g.5gb", memory_bytes=5 * 1024**3, gpu_count=1, capability=(8, 0)
    )
    report = run_bench(sizes=TINY, timer=FixedTimer(0.001), import_torch=lambda: fake)
    assert report.gpu_id == "A100-SXM4-40GB"
    matmul = _result(report.results, "matmul_tflops", "bf16")
    assert matmul.gpu_id == "A100-SXM4-40GB" and matmul.datasheet_value is None
    assert "MIG" in matmul.details["datasheet_note"]


def test_bench_in_chinese_keeps_the_stored_note_english_and_shows_it_translated() -> None:
    from rich.console import Console

    from gpuplan.i18n import use_language
    from gpuplan.report.machine import bench_table

    with use_language("zh"):
        seen: list[BenchProgress] = []
        report = run_bench(device="cpu", sizes=TINY, timer=FixedTimer(0.001), progress=seen.append)
        console = Console(width=200, record=True)
        console.print(bench_table(report))
    text = console.export_text()
    # The database keeps the note in English; the table and the skip reasons are in Chinese.
    assert _result(report.results, "matmul_tflops", "fp32").details["datasheet_note"] == (
        "gpuplan has no datasheet for CPUs"
    )
    assert "gpuplan 没有 CPU 的规格表" in text and "no datasheet for CPUs" not in text
    assert all(s.reason != "TF32 is a GPU tensor-core mode" for s in report.skipped)
    assert "TF32 是 GPU Tensor Core 的模式" in text
    assert [p.label for p in seen][-1] == "完成" and "显存/内存带宽" in [p.label for p in seen]
    # The metrics by name, not their ids (the JSON keeps the ids): it had shown matmul_tflops.
    assert "矩阵乘法" in text and "matmul_tflops" not in text and "memory_bandwidth_gbps" not in text


def test_cpu_matmul_is_sized_so_its_overhead_does_not_hide_the_rate() -> None:
    from gpuplan.machine.bench import MAX_CPU_MATMUL_N, matmul_size

    # A CPU of 30 GFLOP/s whose every call pays 20 ms of thread wake-up and dispatch (a busy
    # 2-core VM): n = 256 measures 2·256³ / (0.02 + 0.0011) s = 1.6 GFLOP/s, 19× too low.
    rate, overhead = 30e9, 0.02

    def call_s(n: int) -> float:
        return overhead + 2 * n**3 / rate

    def measured(n: int) -> float:
        return 2 * n**3 / call_s(n)

    assert measured(256) < rate / 15
    quick = default_sizes("cpu", quick=True)
    n = matmul_size(call_s, quick.matmul_n, quick.matmul_min_call_s, MAX_CPU_MATMUL_N)
    # 1024: 0.0916 s < 0.1; 2048: 0.593 s, 29.0 GFLOP/s measured (97 % of the rate).
    assert n == 2048 and measured(n) > 0.9 * rate
    # A slow path (bf16 without AMX, ~0.3 GFLOP/s) stays small: 256 already takes 0.13 s.
    assert matmul_size(lambda m: 2 * m**3 / 0.3e9, 256, quick.matmul_min_call_s, MAX_CPU_MATMUL_N) == 256
    assert default_sizes("cuda", quick=True).matmul_min_call_s == 0  # GPUs: fixed, large sizes


def test_the_bench_table_says_the_size_of_the_copy_it_timed(monkeypatch: pytest.MonkeyPatch) -> None:
    from rich.console import Console

    from gpuplan.machine import bench
    from gpuplan.report.machine import bench_table

    monkeypatch.setattr(bench, "last_level_cache_bytes", lambda: 32 * _MIB)
    report = run_bench(device="cpu", sizes=TINY, timer=FixedTimer(0.001))
    result = _result(report.results, "memory_bandwidth_gbps", None)
    assert (
        result.details["bytes"] == TINY.copy_bytes and result.details["last_level_cache_bytes"] == 32 * _MIB
    )
    console = Console(width=200, record=True)
    console.print(bench_table(report))
    assert "copy of 1 MiB (last-level cache 32 MiB)" in console.export_text()


def test_the_gpu_copy_is_sized_to_miss_its_l2_and_says_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpuplan.machine.bench import gpu_copy_bytes

    assert gpu_copy_bytes(256 * _MIB, None) == 256 * _MIB  # L2 not reported: the default
    assert gpu_copy_bytes(256 * _MIB, 50 * _MIB) == 256 * _MIB  # an H100's 50 MiB: 5× is enough
    assert gpu_copy_bytes(256 * _MIB, 126 * _MIB) == 504 * _MIB  # a B200's 126 MiB: 4× it
    # The GPU's L2 is reported beside the figure, as a CPU's L3 is.
    mem = _result(_fake_h100_run(1, monkeypatch).results, "memory_bandwidth_gbps")
    assert mem.details["last_level_cache_bytes"] == 50 * _MIB
