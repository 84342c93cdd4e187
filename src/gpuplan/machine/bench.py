"""``gpuplan bench``: measure the local device and compare each figure with its datasheet.

Measures, in order: dense matmul throughput per precision, device memory bandwidth, host↔device
bandwidth (GPU only), a training step of a small reference model, and NCCL all-reduce bus bandwidth
across local GPUs (two or more only). What cannot be measured here is *skipped with a reason*,
never filled in. torch is imported when a bench runs, not when this module is imported.

The library never prints: progress goes to the ``progress`` callback the caller passes.
"""

from __future__ import annotations

import importlib
import platform
import socket
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any

from gpuplan.errors import InputError
from gpuplan.hardware import GPU
from gpuplan.i18n import N_, _
from gpuplan.machine.identify import identify_gpu
from gpuplan.machine.results import (
    ALLREDUCE_BUSBW_GBPS,
    D2H_GBPS,
    H2D_GBPS,
    MATMUL_TFLOPS,
    MEMORY_BANDWIDTH_GBPS,
    METRICS,
    TRAIN_STEP_S,
    BenchResult,
)
from gpuplan.machine.timing import CudaEventTimer, PerfCounterTimer, Timer, median_s

__all__ = [
    "BenchProgress",
    "BenchReport",
    "BenchSizes",
    "BenchSkip",
    "cpu_copy_bytes",
    "datasheet_note_text",
    "default_sizes",
    "gpu_copy_bytes",
    "last_level_cache_bytes",
    "matmul_size",
    "run_bench",
]

_MIB = 1024**2
_NO_CPU_DATASHEET = N_("gpuplan has no datasheet for CPUs")
_MIG_DATASHEET = N_("a MIG instance has a fraction of the GPU; the datasheet describes the whole GPU")
_UNKNOWN_GPU_DATASHEET = N_("{name} is not in gpuplan's datasheet table")
_TRAIN_STEP_DATASHEET = N_("a training step has no datasheet figure")


@dataclass(frozen=True, kw_only=True)
class BenchSizes:
    """Problem sizes and repetitions; :func:`default_sizes` picks them per device."""

    matmul_n: int
    """Square matmul size: an ``n×n @ n×n`` product is ``2·n³`` FLOPs."""
    copy_bytes: int
    """Size of the tensor copied on the device for memory bandwidth."""
    transfer_bytes: int
    """Size of the pinned host↔device copies."""
    model_d: int
    """Reference model width (``d_model``)."""
    model_heads: int
    model_seq_len: int
    model_batch: int
    allreduce_bytes: int
    """Size of the all-reduced buffer per GPU."""
    warmup: int
    """Untimed calls before timing (cuBLAS heuristics, caches, clocks ramping up)."""
    repeats: int
    """Timed samples; the median is reported."""
    inner: int = 1
    """Calls per timed sample, so that short GPU kernels are not dominated by event overhead."""
    matmul_min_call_s: float = 0.0
    """Grow the matmul (doubling ``matmul_n`` up to :data:`MAX_CPU_MATMUL_N`) until one call takes at
    least this long, so that the per-call overhead (thread wake-up, dispatch) is a small share of
    what is timed; 0 keeps ``matmul_n`` as given."""


#: The largest matmul the CPU sizing grows to (2·4096³ = 137 GFLOP: seconds on any CPU).
MAX_CPU_MATMUL_N = 4096
#: One timed CPU matmul call lasts at least this long, s. A 256×256 product (34 MFLOP) takes well
#: under a millisecond of arithmetic on a modern core but tens of milliseconds of thread wake-up and
#: dispatch on a busy or shared machine (measured: 1 GFLOP/s at n = 256 against 31 GFLOP/s at
#: n = 2048 on the same 2-core VM, a 30× under-report); a call of 0.1 s or more makes that overhead
#: a few per cent of the time. ASSUMPTION: the overhead is below 10 ms.
CPU_MATMUL_MIN_CALL_S = 0.1


def matmul_size(call_s: Callable[[int], float], start: int, min_call_s: float, max_n: int) -> int:
    """The smallest ``n`` (``start`` doubled) whose one call takes at least ``min_call_s``, or
    ``max_n``. ``call_s(n)``: seconds of one ``n×n @ n×n`` product."""
    n = start
    while n < max_n and call_s(n) < min_call_s:
        n *= 2
    return min(n, max_n)


#: The CPU copy's buffer is at least this large, bytes: above the last-level cache of any CPU that
#: does not say its own (the largest server parts hold 256 to 1,152 MiB of L3 over all their
#: chiplets; EPYC 9684X: 1,152 MiB), so that the copy streams from DRAM. An 8 MiB buffer fits in
#: the L3 of a desktop part and measured the cache, not memory.
CPU_COPY_MIN_BYTES = 256 * _MIB
#: ... and at least this many times the CPU's last-level cache where the OS says how large it is
#: (every instance together: a multithreaded copy spreads over each chiplet's own L3).
CPU_COPY_LLC_MULTIPLE = 4
#: The two buffers of the copy take at most this share of the machine's memory where it is known.
CPU_COPY_MEMORY_SHARE = 0.25


def last_level_cache_bytes(root: Path = Path("/sys/devices/system/cpu")) -> int | None:
    """The CPU's last-level cache, every instance of it together, bytes, as Linux describes it
    (``cpu*/cache/index*/{level,size,shared_cpu_list}``); None where the OS does not say."""
    top: dict[int, dict[str, int]] = {}  # level -> {shared cpu list: size}
    try:
        for index in root.glob("cpu[0-9]*/cache/index[0-9]*"):
            kind = (index / "type").read_text(encoding="ascii").strip()
            if kind == "Instruction":
                continue
            level = int((index / "level").read_text(encoding="ascii"))
            size = _sysfs_size((index / "size").read_text(encoding="ascii"))
            shared = (index / "shared_cpu_list").read_text(encoding="ascii").strip()
            if size is not None:
                top.setdefault(level, {})[shared] = size
    except (OSError, ValueError):
        return None
    if not top:
        return None
    return sum(top[max(top)].values())


def _sysfs_size(text: str) -> int | None:
    """``32768K`` → bytes (sysfs writes cache sizes in K, sometimes M)."""
    text = text.strip()
    units = {"K": 1024, "M": _MIB, "G": 1024 * _MIB}
    if text and text[-1] in units and text[:-1].isdigit():
        return int(text[:-1]) * units[text[-1]]
    return int(text) if text.isdigit() else None


def cpu_copy_bytes(llc_bytes: int | None, memory_bytes: int | None) -> int:
    """The CPU memory-bandwidth copy's buffer, bytes: :data:`CPU_COPY_LLC_MULTIPLE` × the
    last-level cache, at least :data:`CPU_COPY_MIN_BYTES`, and the two buffers within
    :data:`CPU_COPY_MEMORY_SHARE` of ``memory_bytes`` (never below the floor), whole MiB."""
    size = max(CPU_COPY_MIN_BYTES, CPU_COPY_LLC_MULTIPLE * (llc_bytes or 0))
    if memory_bytes:
        size = min(size, max(CPU_COPY_MIN_BYTES, int(memory_bytes * CPU_COPY_MEMORY_SHARE / 2)))
    return -(-size // _MIB) * _MIB


def _memory_bytes() -> int | None:
    """This machine's physical memory, bytes; None where the OS does not say."""
    import os

    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):
        return None


def gpu_copy_bytes(default_bytes: int, l2_bytes: int | None) -> int:
    """The GPU copy's buffer: ``default_bytes``, or :data:`CPU_COPY_LLC_MULTIPLE` times the GPU's L2
    cache where that is larger (an H100 holds 50 MiB of L2, a B200 126 MiB: a 256 MiB copy is only
    2× the latter's), whole MiB."""
    size = max(default_bytes, CPU_COPY_LLC_MULTIPLE * (l2_bytes or 0))
    return -(-size // _MIB) * _MIB


def default_sizes(device: str, *, quick: bool) -> BenchSizes:
    """Sizes for ``device`` (``cpu`` or ``cuda``): a few seconds on a CPU; a fuller load on a GPU."""
    if device == "cpu":
        # A copy of a few hundred MiB at the tens of GB/s of DRAM takes tens of ms: quick or not,
        # the buffer is sized to miss the cache (cpu_copy_bytes).
        copy = cpu_copy_bytes(last_level_cache_bytes(), _memory_bytes())
        if quick:
            return BenchSizes(
                matmul_n=256,
                matmul_min_call_s=CPU_MATMUL_MIN_CALL_S,
                copy_bytes=copy,
                transfer_bytes=0,
                model_d=64,
                model_heads=4,
                model_seq_len=32,
                model_batch=8,
                allreduce_bytes=0,
                warmup=1,
                repeats=3,
            )
        # NB: bf16 matmul on a CPU without AVX512-BF16/AMX runs ~100x slower than fp32 (measured
        # 0.0003 vs 0.035 TFLOP/s on a shared EPYC VM): n starts at 512 and grows per dtype only
        # until one call takes CPU_MATMUL_MIN_CALL_S, so the slow path stays at seconds.
        return BenchSizes(
            matmul_n=512,
            matmul_min_call_s=CPU_MATMUL_MIN_CALL_S,
            copy_bytes=copy,
            transfer_bytes=0,
            model_d=128,
            model_heads=8,
            model_seq_len=64,
            model_batch=16,
            allreduce_bytes=0,
            warmup=1,
            repeats=5,
        )
    if quick:
        return BenchSizes(
            matmul_n=4096,
            copy_bytes=256 * _MIB,
            transfer_bytes=256 * _MIB,
            model_d=1024,
            model_heads=16,
            model_seq_len=512,
            model_batch=8,
            allreduce_bytes=64 * _MIB,
            warmup=3,
            repeats=5,
            inner=5,
        )
    # 8192³ matmuls and GiB-sized copies keep tensor cores and HBM busy long enough to reach steady clocks.
    return BenchSizes(
        matmul_n=8192,
        copy_bytes=1024 * _MIB,
        transfer_bytes=1024 * _MIB,
        model_d=1024,
        model_heads=16,
        model_seq_len=1024,
        model_batch=16,
        allreduce_bytes=512 * _MIB,
        warmup=5,
        repeats=10,
        inner=10,
    )


@dataclass(frozen=True, kw_only=True)
class BenchProgress:
    """Sent to the progress callback before each measurement and once at the end."""

    done: int
    total: int
    label: str


@dataclass(frozen=True, kw_only=True)
class BenchSkip:
    """A measurement that was not made here, and why."""

    metric: str
    dtype: str | None
    reason: str


@dataclass(frozen=True, kw_only=True)
class BenchReport:
    """Everything one bench run produced."""

    device: str
    """``cpu`` or ``cuda``."""
    device_name: str
    gpu_id: str | None
    """The datasheet GPU compared with; None on CPU or for a GPU gpuplan does not know."""
    host: str
    measured_at: str
    results: tuple[BenchResult, ...]
    skipped: tuple[BenchSkip, ...]
    sizes: BenchSizes
    torch_version: str


@dataclass(kw_only=True)
class _Ctx:
    torch: Any
    device: str
    device_name: str
    gpu: GPU | None
    """The datasheet to compare with; None on CPU, for an unknown GPU, and on a MIG instance."""
    gpu_id: str | None
    """The GPU model measured (a MIG instance's parent), for the estimator's calibration."""
    gpu_count: int
    timer: Timer
    sizes: BenchSizes
    host: str
    measured_at: str
    cache_bytes: int | None = None
    """The device's last-level cache (a CPU's L3 over its chiplets, a GPU's L2); None: not known."""
    results: list[BenchResult] = field(default_factory=list)
    skipped: list[BenchSkip] = field(default_factory=list)

    def sync(self) -> None:
        if self.device == "cuda":
            self.torch.cuda.synchronize()

    def time_s(self, fn: Callable[[], object], inner: int | None = None) -> float:
        s = self.sizes
        return median_s(self.timer.measure(fn, warmup=s.warmup, repeats=s.repeats, inner=inner or s.inner))

    def add(
        self, metric: str, dtype: str | None, value: float, datasheet: float | None, **details: Any
    ) -> None:
        if datasheet is None and self.gpu is None:
            if self.device == "cpu":
                note = _NO_CPU_DATASHEET
            elif self.gpu_id is not None:
                note = _MIG_DATASHEET
            else:
                note = _UNKNOWN_GPU_DATASHEET.format(name=repr(self.device_name))
            details.setdefault("datasheet_note", note)
        self.results.append(
            BenchResult(
                gpu_id=self.gpu_id,
                device_name=self.device_name,
                host=self.host,
                measured_at=self.measured_at,
                metric=metric,
                dtype=dtype,
                value=value,
                unit=METRICS[metric],
                datasheet_value=datasheet,
                details=details,
            )
        )

    def skip(self, metric: str, dtype: str | None, reason: str) -> None:
        self.skipped.append(BenchSkip(metric=metric, dtype=dtype, reason=reason))


def datasheet_note_text(note: str, device_name: str) -> str:
    """A result's stored ``datasheet_note`` (English, as the database keeps it) in the current language."""
    if note == _UNKNOWN_GPU_DATASHEET.format(name=repr(device_name)):
        return _(_UNKNOWN_GPU_DATASHEET).format(name=repr(device_name))
    return _(note)


def _cpu_name() -> str:
    # platform.processor() is often empty on Linux; /proc/cpuinfo has the model name.
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    return platform.processor() or platform.machine() or "CPU"


_TORCH_DTYPES = {"fp32": "float32", "tf32": "float32", "fp16": "float16", "bf16": "bfloat16"}


def _matmul_dtypes(ctx: _Ctx) -> tuple[list[str], list[BenchSkip]]:
    """The precisions to measure here, and the others with the reason they are skipped."""
    if ctx.device == "cpu":
        skips = [
            BenchSkip(metric=MATMUL_TFLOPS, dtype="tf32", reason=_("TF32 is a GPU tensor-core mode")),
            BenchSkip(metric=MATMUL_TFLOPS, dtype="fp16", reason=_("fp16 matmul is not a CPU training path")),
        ]
        return ["fp32", "bf16"], skips
    major, _minor = ctx.torch.cuda.get_device_capability()
    dtypes, skips = ["fp32"], []
    if major >= 8:
        dtypes.append("tf32")
    else:
        skips.append(
            BenchSkip(metric=MATMUL_TFLOPS, dtype="tf32", reason=_("TF32 needs compute capability 8.0+"))
        )
    dtypes.append("fp16")
    if ctx.torch.cuda.is_bf16_supported():
        dtypes.append("bf16")
    else:
        skips.append(BenchSkip(metric=MATMUL_TFLOPS, dtype="bf16", reason=_("this GPU has no BF16")))
    return dtypes, skips


def set_fp32_matmul_tf32(torch: Any, enabled: bool) -> Callable[[], None]:
    """Switch TF32 for CUDA fp32 matmuls; returns the function that restores the previous setting."""
    matmul = torch.backends.cuda.matmul
    if hasattr(matmul, "fp32_precision"):  # torch >= 2.9; mixing with the legacy allow_tf32 is refused
        old = matmul.fp32_precision
        matmul.fp32_precision = "tf32" if enabled else "ieee"
        return lambda: setattr(matmul, "fp32_precision", old)
    old_flag = matmul.allow_tf32
    matmul.allow_tf32 = enabled
    return lambda: setattr(matmul, "allow_tf32", old_flag)


def _bench_matmul(ctx: _Ctx, dtype: str) -> None:
    torch, n = ctx.torch, ctx.sizes.matmul_n
    tdtype = getattr(torch, _TORCH_DTYPES[dtype])
    if ctx.sizes.matmul_min_call_s > 0:

        def one_call(m: int) -> float:
            x = torch.randn(m, m, device=ctx.device, dtype=tdtype)
            return min(ctx.timer.measure(lambda: torch.mm(x, x), warmup=1, repeats=1))

        n = matmul_size(one_call, n, ctx.sizes.matmul_min_call_s, MAX_CPU_MATMUL_N)
    a = torch.randn(n, n, device=ctx.device, dtype=tdtype)
    b = torch.randn(n, n, device=ctx.device, dtype=tdtype)
    out = torch.empty(n, n, device=ctx.device, dtype=tdtype)
    restore = set_fp32_matmul_tf32(torch, dtype == "tf32") if ctx.device == "cuda" else (lambda: None)
    try:
        seconds = ctx.time_s(lambda: torch.mm(a, b, out=out))
    finally:
        restore()
    # 2·n³ FLOPs: n² outputs, each n multiply-adds.
    tflops = 2 * n**3 / seconds / 1e12
    ctx.add(
        MATMUL_TFLOPS, dtype, tflops, ctx.gpu.peak_tflops(dtype) if ctx.gpu else None, n=n, seconds=seconds
    )


def _bench_memory(ctx: _Ctx) -> None:
    torch = ctx.torch
    nbytes = ctx.sizes.copy_bytes
    src = torch.empty(nbytes // 4, device=ctx.device, dtype=torch.float32).fill_(1.0)
    dst = torch.empty_like(src)
    seconds = ctx.time_s(lambda: dst.copy_(src))
    # A copy reads every byte once and writes it once: 2 × bytes cross the memory bus.
    gbps = 2 * src.numel() * 4 / seconds / 1e9
    # the buffer's size is said with the figure: one that fits in a cache measures the cache
    llc = ctx.cache_bytes
    ctx.add(
        MEMORY_BANDWIDTH_GBPS,
        None,
        gbps,
        ctx.gpu.memory_bandwidth_gbps if ctx.gpu else None,
        bytes=src.numel() * 4,
        seconds=seconds,
        **({"last_level_cache_bytes": llc} if llc is not None else {}),
    )


def _bench_transfer(ctx: _Ctx, direction: str) -> None:
    torch = ctx.torch
    nbytes = ctx.sizes.transfer_bytes
    host = torch.empty(nbytes, dtype=torch.uint8, pin_memory=True)
    dev = torch.empty(nbytes, dtype=torch.uint8, device=ctx.device)
    if direction == "h2d":
        seconds = ctx.time_s(lambda: dev.copy_(host, non_blocking=True))
    else:
        seconds = ctx.time_s(lambda: host.copy_(dev, non_blocking=True))
    # GPU.pcie_gbps counts both directions of a x16 link together; one copy uses one direction.
    datasheet = ctx.gpu.pcie_gbps / 2 if ctx.gpu else None
    basis = f"PCIe Gen{ctx.gpu.pcie_gen} x16, one direction" if ctx.gpu else None
    ctx.add(
        H2D_GBPS if direction == "h2d" else D2H_GBPS,
        None,
        nbytes / seconds / 1e9,
        datasheet,
        bytes=nbytes,
        pinned=True,
        seconds=seconds,
        datasheet_basis=basis,
    )


def _bench_train_step(ctx: _Ctx) -> None:
    torch, s = ctx.torch, ctx.sizes
    torch.manual_seed(0)
    model = torch.nn.TransformerEncoderLayer(
        s.model_d,
        s.model_heads,
        dim_feedforward=4 * s.model_d,
        dropout=0.0,
        batch_first=True,
        device=ctx.device,
    )
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(s.model_batch, s.model_seq_len, s.model_d, device=ctx.device)
    precision = "fp32"
    autocast_dtype = None
    if ctx.device == "cuda":
        # Mixed precision is how one trains on a GPU; bf16 needs no loss scaling, fp16 timing is the same
        # with or without a scaler, so none is used.
        autocast_dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        precision = "amp-bf16" if autocast_dtype == torch.bfloat16 else "amp-fp16"

    def step() -> None:
        optimizer.zero_grad(set_to_none=True)
        if autocast_dtype is not None:
            with torch.autocast("cuda", dtype=autocast_dtype):
                loss = model(x).float().pow(2).mean()
        else:
            loss = model(x).pow(2).mean()
        loss.backward()
        optimizer.step()

    seconds = ctx.time_s(step, inner=1)
    params = sum(p.numel() for p in model.parameters())
    ctx.add(
        TRAIN_STEP_S,
        precision,
        seconds,
        None,
        model=f"transformer_encoder_layer(d_model={s.model_d}, nhead={s.model_heads}, ffn={4 * s.model_d})",
        batch=s.model_batch,
        seq_len=s.model_seq_len,
        parameters=params,
        optimizer="adamw",
        samples_per_s=s.model_batch / seconds,
        datasheet_note=_TRAIN_STEP_DATASHEET,
    )


def _bench_allreduce(ctx: _Ctx) -> None:
    from gpuplan.machine.allreduce import measure_allreduce

    nbytes = ctx.sizes.allreduce_bytes
    seconds = measure_allreduce(
        world_size=ctx.gpu_count, nbytes=nbytes, warmup=ctx.sizes.warmup, repeats=ctx.sizes.repeats
    )
    n = ctx.gpu_count
    # nccl-tests' definition (doc/PERFORMANCE.md): algbw = bytes / time; busbw = algbw · 2(n−1)/n,
    # the rate each link carries, comparable across GPU counts and with the link's speed.
    busbw = nbytes / seconds / 1e9 * 2 * (n - 1) / n
    datasheet: float | None = None
    basis = None
    if ctx.gpu is not None:
        # Link speeds in the table count both directions; a ring all-reduce drives each one way.
        if ctx.gpu.nvlink_gbps:
            datasheet, basis = ctx.gpu.nvlink_gbps / 2, "NVLink per GPU, one direction"
        else:
            datasheet, basis = ctx.gpu.pcie_gbps / 2, f"PCIe Gen{ctx.gpu.pcie_gen} x16, one direction"
    ctx.add(
        ALLREDUCE_BUSBW_GBPS,
        "fp32",
        busbw,
        datasheet,
        world_size=n,
        bytes=nbytes,
        seconds=seconds,
        datasheet_basis=basis,
    )


def _resolve_device(torch: Any, device: str | None) -> str:
    if device not in (None, "cpu", "cuda"):
        raise InputError.worded(
            N_("unknown device {device}; use --device cpu or --device cuda"), device=repr(device)
        )
    available = bool(torch.cuda.is_available())
    if device == "cuda" and not available:
        raise InputError.worded(
            N_("--device cuda, but torch.cuda.is_available() is False; `gpuplan doctor` says why")
        )
    return device or ("cuda" if available else "cpu")


def run_bench(
    *,
    device: str | None = None,
    quick: bool = False,
    sizes: BenchSizes | None = None,
    progress: Callable[[BenchProgress], None] | None = None,
    timer: Timer | None = None,
    import_torch: Callable[[], Any] = lambda: importlib.import_module("torch"),
) -> BenchReport:
    """Measure this machine's ``device`` (None: CUDA when available, else CPU).

    ``sizes`` overrides :func:`default_sizes`; ``timer`` overrides the device's timer (tests);
    ``progress`` receives a :class:`BenchProgress` before each measurement.
    """
    try:
        torch = import_torch()
    except ImportError as e:
        raise InputError.worded(
            N_("`gpuplan bench` needs PyTorch, which is not installed ({error}); pip install torch"), error=e
        ) from e
    dev = _resolve_device(torch, device)
    cache: int | None = None
    if dev == "cuda":
        props = torch.cuda.get_device_properties(0)
        cache = int(getattr(props, "L2_cache_size", 0) or 0) or None
        name = str(props.name)
        gpu = identify_gpu(name, memory_bytes=int(props.total_memory))
        gpu_id = gpu.id if gpu else None
        if gpu is not None and " MIG " in name:  # "NVIDIA A100-SXM4-40GB MIG 1g.5gb"
            gpu = None  # keep the model for calibration, but never compare a slice with the whole GPU
        gpu_count = int(torch.cuda.device_count())
        default_timer: Timer = CudaEventTimer(torch)
    else:
        name, gpu, gpu_id, gpu_count, default_timer = _cpu_name(), None, None, 0, PerfCounterTimer()
        cache = last_level_cache_bytes()
    chosen = sizes or default_sizes(dev, quick=quick)
    if sizes is None and dev == "cuda":
        chosen = replace(chosen, copy_bytes=gpu_copy_bytes(chosen.copy_bytes, cache))
    ctx = _Ctx(
        torch=torch,
        device=dev,
        device_name=name,
        gpu=gpu,
        gpu_id=gpu_id,
        gpu_count=gpu_count,
        timer=timer or default_timer,
        sizes=chosen,
        host=socket.gethostname(),
        cache_bytes=cache,
        measured_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )

    dtypes, skips = _matmul_dtypes(ctx)
    ctx.skipped.extend(skips)
    tasks: list[tuple[str, Callable[[], None]]] = [
        (_("matmul {dtype}").format(dtype=d), partial(_bench_matmul, ctx, d)) for d in dtypes
    ]
    tasks.append((_("memory bandwidth"), lambda: _bench_memory(ctx)))
    if dev == "cuda":
        tasks.append((_("host→device copy"), lambda: _bench_transfer(ctx, "h2d")))
        tasks.append((_("device→host copy"), lambda: _bench_transfer(ctx, "d2h")))
    else:
        for metric in (H2D_GBPS, D2H_GBPS):
            ctx.skip(metric, None, _("no device memory on a CPU: host and device are the same"))
    tasks.append((_("training step"), lambda: _bench_train_step(ctx)))
    if dev == "cuda" and gpu_count >= 2:
        tasks.append((_("all-reduce on {count} GPUs").format(count=gpu_count), lambda: _bench_allreduce(ctx)))
    elif dev == "cuda":
        ctx.skip(
            ALLREDUCE_BUSBW_GBPS,
            "fp32",
            _("needs at least 2 GPUs; this machine has {count}").format(count=gpu_count),
        )
    else:
        ctx.skip(
            ALLREDUCE_BUSBW_GBPS, "fp32", _("all-reduce is measured across local GPUs with NCCL; none here")
        )

    for i, (label, task) in enumerate(tasks):
        if progress:
            progress(BenchProgress(done=i, total=len(tasks), label=label))
        task()
        ctx.sync()
    if progress:
        progress(BenchProgress(done=len(tasks), total=len(tasks), label=_("done")))
    return BenchReport(
        device=dev,
        device_name=name,
        gpu_id=gpu_id,
        host=ctx.host,
        measured_at=ctx.measured_at,
        results=tuple(ctx.results),
        skipped=tuple(ctx.skipped),
        sizes=ctx.sizes,
        torch_version=str(torch.__version__),
    )
