"""``gpuplan measure``: a few real steps of the workload on the GPU this machine has.

The workload's model is built for real on the device (random weights: speed does not depend on
their values), prepared exactly as the tracer prepares it (``profile.tracer.step_parts``: precision,
attention path, LoRA, frozen parameters, checkpointing, loss, optimizer), and fed one synthetic
batch of the workload's per-GPU shape, the same every step (no data loading is timed). It runs
``warmup`` steps that are left out (cuDNN and cuBLAS pick their kernels, the caching allocator
grows, clocks rise, ``torch.compile`` compiles), then ``steps`` timed steps (CUDA events around
each, or the wall clock on a CPU), then ``profiled`` steps under ``torch.profiler`` for the kernel
time by op class — after the timed ones, so the profiler's overhead never enters the step time.

A step is what the trace calls one: forward, loss, backward and optimizer of one micro-batch
(``task: train``/``finetune``), a forward under ``inference_mode`` (``task: infer``). With
``precision: amp-fp16`` a ``GradScaler`` scales the loss, as stock AMP code does.

Memory: ``torch.cuda.max_memory_allocated`` and ``max_memory_reserved`` over the timed steps (reset
after the warm-up, once the optimizer state exists), and what nvidia-smi shows for this process
(NVML's per-process figure; the reason when it cannot be read).

torch (and pynvml) are imported when a measurement runs, never when this module is imported.
"""

from __future__ import annotations

import importlib
import os
import platform
import socket
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext, suppress
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any

from gpuplan.documents.measure import (
    OP_CLASSES,
    KernelTimeDoc,
    MeasureDevice,
    MeasureMemory,
    MeasurementDocument,
    MeasureRun,
    MeasureStepTime,
    MeasureWorkload,
)
from gpuplan.errors import InputError
from gpuplan.i18n import N_, _
from gpuplan.i18n.phrases import item_list
from gpuplan.machine.bench import _cpu_name, set_fp32_matmul_tf32
from gpuplan.machine.identify import identify_gpu
from gpuplan.perf.anchor import profiler_class
from gpuplan.workload import Workload

__all__ = ["MeasureProgress", "MeasureSizes", "run_measure"]

_GIB = 1024.0**3


@dataclass(frozen=True, kw_only=True)
class MeasureSizes:
    """How many steps of each kind."""

    warmup: int = 3
    steps: int = 10
    profiled: int = 3


@dataclass(frozen=True, kw_only=True)
class MeasureProgress:
    """Sent to the progress callback as the measurement moves on."""

    done: int
    total: int
    label: str


def _resolve_device(torch: Any, device: str | None) -> str:
    if device not in (None, "cpu", "cuda"):
        raise InputError.worded(
            N_("unknown device {device}; use --device cuda or --device cpu"), device=device
        )
    if device != "cpu" and not torch.cuda.is_available():
        raise InputError.worded(
            N_(
                "no CUDA GPU here (torch.cuda.is_available() is False): gpuplan measure times the workload "
                "on the GPU this machine has; `gpuplan doctor` says why, --device cpu records a CPU step"
            )
        )
    return device or "cuda"


@contextmanager
def _matmul_precision(torch: Any, workload: Workload) -> Iterator[None]:
    """``precision: tf32``: fp32 matmuls on TF32 tensor cores while the steps run — PyTorch leaves
    them in full FP32 by default (its convolutions take TF32 by default already). Other precisions
    keep the process's setting."""
    restore = set_fp32_matmul_tf32(torch, True) if workload.precision.value == "tf32" else None
    try:
        yield
    finally:
        if restore is not None:
            restore()


def _to_device(value: Any, device: str) -> Any:
    """Tensors (in tuples, lists, dicts) moved to ``device``; anything else as it is."""
    if hasattr(value, "to") and hasattr(value, "device"):
        return value.to(device)
    if isinstance(value, tuple | list):
        return type(value)(_to_device(v, device) for v in value)
    if isinstance(value, dict):
        return {k: _to_device(v, device) for k, v in value.items()}
    return value


def _step_fn(torch: Any, workload: Workload, parts: Any, batch: Any, device: str) -> Callable[[], None]:
    """One step of ``workload`` as a function of nothing (the batch is fixed)."""
    from gpuplan.workload.bundle import Batch

    model, amp = parts.model, parts.autocast
    args, kwargs = batch.args, batch.kwargs
    fixed = Batch(args=args, kwargs=kwargs, targets=batch.targets)

    def autocast() -> Any:
        return torch.autocast(device, dtype=amp) if amp is not None else nullcontext()

    if not workload.is_training:

        def infer() -> None:
            with torch.inference_mode(), autocast():
                model(*args, **kwargs)

        return infer
    scaler = torch.amp.GradScaler(device) if str(workload.precision.value) == "amp-fp16" else None
    optimizers = parts.optimizers
    in_backward = parts.install_backward_steps is not None
    if in_backward:
        parts.install_backward_steps()

    def train() -> None:
        with autocast():
            out = model(*args, **kwargs)
            loss = parts.loss(out, fixed)
        del out  # as the trace: the logits are not kept next to their gradient
        if scaler is not None and not in_backward:
            scaler.scale(loss).backward()
            for opt in optimizers:
                scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            if not in_backward:
                for opt in optimizers:
                    opt.step()
        if not in_backward:
            for opt in optimizers:
                opt.zero_grad(set_to_none=True)

    return train


def _scaler_waits(workload: Workload, parts: Any) -> bool:
    """Whether ``_step_fn``'s training step runs GradScaler (amp-fp16, optimizers outside backward),
    whose ``step`` reads the inf check back to the CPU: the step waits for the GPU midway."""
    return str(workload.precision.value) == "amp-fp16" and parts.install_backward_steps is None


def _kernel_split(prof: Any, device: str, steps: int) -> dict[str, float]:
    """Seconds per step by op class from a finished ``torch.profiler.profile``.

    On a GPU each operator's *self* device time is the kernels it launched itself; they take the
    operator's class (``perf.anchor.profiler_class``). Kernel time no operator claims is classed
    by the kernel's own name. On a CPU the operators' self CPU time is split the same way, and the
    framework's own time around them (autograd, the optimizer's Python) is ``other``.
    """
    out: dict[str, float] = defaultdict(float)
    averages = prof.key_averages()
    if device == "cuda":
        claimed = 0.0
        kernels: dict[str, float] = defaultdict(float)
        for avg in averages:
            self_us = float(getattr(avg, "self_device_time_total", getattr(avg, "self_cuda_time_total", 0.0)))
            # An annotated region (record_function: the optimizer's "Optimizer.step#AdamW.step") has
            # a device-side span over the kernels inside it, not a kernel: torch's own table skips it.
            if self_us <= 0 or getattr(avg, "is_user_annotation", False):
                continue
            if "cuda" in str(getattr(avg, "device_type", "")).lower():
                kernels[str(avg.key)] += self_us
            else:
                out[profiler_class(str(avg.key))] += self_us
                claimed += self_us
        unclaimed = sum(kernels.values()) - claimed
        if unclaimed > 0:
            # Spread over the kernels' own names in proportion (which of them no operator claimed is
            # not kept by the averages).
            total = sum(kernels.values())
            for name, us in kernels.items():
                out[profiler_class(name)] += unclaimed * us / total
    else:
        for avg in averages:
            out[profiler_class(str(avg.key))] += float(avg.self_cpu_time_total)
    return {c: out.get(c, 0.0) * 1e-6 / steps for c in OP_CLASSES}


def _nvml(torch: Any) -> tuple[float | None, str | None, str]:
    """(GiB nvidia-smi shows for this process, driver version, how it was read or why not)."""
    try:
        pynvml = importlib.import_module("pynvml")
    except ImportError:
        return None, None, _("nvidia-smi figure not read: NVML bindings missing (pip install nvidia-ml-py)")
    try:
        pynvml.nvmlInit()
    except Exception as e:  # no driver library, insufficient permissions
        return None, None, _("nvidia-smi figure not read: NVML did not start ({error})").format(error=e)
    try:
        driver = pynvml.nvmlSystemGetDriverVersion()
        driver = driver.decode() if isinstance(driver, bytes) else str(driver)
        pid = os.getpid()
        for i in range(pynvml.nvmlDeviceGetCount()):
            handle = pynvml.nvmlDeviceGetHandleByIndex(i)
            for proc in pynvml.nvmlDeviceGetComputeRunningProcesses(handle):
                if proc.pid == pid and proc.usedGpuMemory is not None:
                    return (
                        proc.usedGpuMemory / _GIB,
                        driver,
                        _("nvidia-smi: NVML's memory of this process (context, reserved, workspaces)"),
                    )
        return (
            None,
            driver,
            _("nvidia-smi figure not read: NVML does not list this process (a container's PID namespace)"),
        )
    except Exception as e:
        return None, None, _("nvidia-smi figure not read: {error}").format(error=e)
    finally:
        with suppress(Exception):
            pynvml.nvmlShutdown()


def _time_steps(torch: Any, step: Callable[[], None], device: str, n: int) -> tuple[list[float], list[float]]:
    """(step times, CPU issue times) of ``n`` steps; no issue times on a CPU (synchronous)."""
    samples, issue = [], []
    for _i in range(n):
        if device == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            t0 = time.perf_counter()
            step()
            # The CPU's own time: kernels are queued, not waited for, until the synchronize below.
            issue.append(time.perf_counter() - t0)
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end) / 1000.0)  # elapsed_time is in ms
        else:
            t0 = time.perf_counter()
            step()
            samples.append(time.perf_counter() - t0)
    return samples, issue


def run_measure(
    workload: Workload,
    *,
    device: str | None = None,
    sizes: MeasureSizes | None = None,
    progress: Callable[[MeasureProgress], None] | None = None,
    import_torch: Callable[[], Any] = lambda: importlib.import_module("torch"),
) -> MeasurementDocument:
    """Measure ``workload``'s step on ``device`` (None: the CUDA GPU; one line when there is none)."""
    from gpuplan.profile import profile_key, recording_key

    try:
        torch = import_torch()
    except ImportError as e:
        raise InputError.worded(
            N_("`gpuplan measure` needs PyTorch, which is not installed ({error}); pip install torch"),
            error=e,
        ) from e
    dev = _resolve_device(torch, device)
    n = sizes or MeasureSizes()
    total = n.warmup + n.steps + n.profiled + 1

    def say(done: int, label: str) -> None:
        if progress is not None:
            progress(MeasureProgress(done=done, total=total, label=label))

    measured_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    notes: list[str] = []
    if dev == "cuda":
        props = torch.cuda.get_device_properties(0)
        name = str(props.name)
        gpu = identify_gpu(name, memory_bytes=int(props.total_memory))
        gpu_id = gpu.id if gpu is not None else None
        if gpu is None:
            notes.append(
                _("{name} is not in gpuplan's datasheet table: estimates are not anchored on it").format(
                    name=name
                )
            )
        if " MIG " in name:
            notes.append(_("a MIG instance: the step is that of a slice, not of the whole GPU"))
    else:
        name, gpu_id = _cpu_name(), None
        notes.append(_("CPU recording: kept and shown, never used to anchor a GPU estimate"))
    say(0, _("building the model"))
    from gpuplan.profile.tracer import batch_as_run, step_parts
    from gpuplan.workload.sources import open_bundle

    torch.manual_seed(0)
    with torch.device(dev), open_bundle(workload) as bundle, _matmul_precision(torch, workload):
        parts = step_parts(workload, bundle)
        parts.model.to(dev)  # a user's build() may have made its weights on the CPU
        batch = _to_device(batch_as_run(workload, bundle.make_batch()), dev)
        model = parts.model
        if workload.compile:
            # The loss too, as the trace keeps it (profile/compiled.py: torchtune's and torchtitan's
            # compiled loss); a training step's loss only (inference has none).
            model = torch.compile(model)
            loss = parts.loss
            if workload.is_training and loss is not None:
                loss = torch.compile(loss)
            notes.append(
                _(
                    "compile: true — the step's model and its loss ran under torch.compile (compiled during "
                    "the warm-up)"
                )
            )
            parts = replace(parts, model=model, loss=loss)
        step = _step_fn(torch, workload, parts, batch, dev)
        for i in range(n.warmup):
            say(1 + i, _("warm-up step {i}").format(i=i + 1))
            step()
        if dev == "cuda":
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        say(1 + n.warmup, _("timing {n} steps").format(n=n.steps))
        samples, issue = _time_steps(torch, step, dev, n.steps)
        # GradScaler reads its inf check back to the CPU inside an amp-fp16 training step, so the
        # CPU's time there includes waiting for the GPU: not kept (the model's time per op stands in).
        waits = workload.is_training and _scaler_waits(workload, parts)
        if dev == "cuda" and waits:
            notes.append(_("the CPU's issue time is not kept: GradScaler waits for the GPU within the step"))
        memory = _memory(torch, dev)
        say(1 + n.warmup + n.steps, _("profiling {n} steps").format(n=n.profiled))
        split = _profiled(torch, step, dev, n.profiled)
    say(total, _("done"))
    notes.extend(parts.notes)
    fused = [k.value for k in workload.software_stack.fused_kernels]
    if fused and workload.model.preset is not None:
        # The preset models run a stated fused kernel as gpuplan's own operator, whose code is the
        # unfused ops (profile's trace counts the kernel; a real step cannot run it).
        notes.append(
            _(
                "fused kernels {kernels}: run here by gpuplan's reference code (the same result, "
                "unfused), not by the GPU kernels the stack names: this step is slower than that "
                "stack's, and so are estimates anchored on it"
            ).format(kernels=item_list(fused))
        )
    driver = memory.pop("driver", None)
    kernels = KernelTimeDoc(**split, busy_s=sum(split.values()))
    return MeasurementDocument(
        workload=MeasureWorkload(
            name=workload.name,
            profile_key=profile_key(workload),
            recording_key=recording_key(workload),
            task=workload.task.value,
            precision=workload.precision.value,
            batch_size=workload.inputs.batch_size,
            seq_len=workload.inputs.seq_len,
        ),
        device=MeasureDevice(
            kind=dev,  # type: ignore[arg-type]
            name=name,
            gpu_id=gpu_id,
            torch_version=str(torch.__version__),
            cuda_version=str(torch.version.cuda) if dev == "cuda" and torch.version.cuda else None,
            driver_version=driver,
            host=socket.gethostname() or platform.node(),
        ),
        run=MeasureRun(
            measured_at=measured_at,
            warmup_steps=n.warmup,
            timed_steps=n.steps,
            profiled_steps=n.profiled,
        ),
        step_time=MeasureStepTime(
            median_s=statistics.median(samples),
            low_s=min(samples),
            high_s=max(samples),
            samples_s=samples,
            issue_s=(statistics.median(issue) or None) if issue and not waits else None,
        ),
        kernel_time_s=kernels,
        memory=MeasureMemory(**memory),
        notes=notes,
    )


def _memory(torch: Any, dev: str) -> dict[str, Any]:
    if dev != "cuda":
        return {
            "how": [
                _("a CPU has no CUDA caching allocator: allocated, reserved and nvidia-smi are not measured")
            ]
        }
    smi, driver, how = _nvml(torch)
    return {
        "peak_allocated_gib": torch.cuda.max_memory_allocated() / _GIB,
        "peak_reserved_gib": torch.cuda.max_memory_reserved() / _GIB,
        "nvidia_smi_gib": smi,
        "how": [_("torch.cuda.max_memory_allocated / max_memory_reserved over the timed steps"), how],
        "driver": driver,
    }


def _profiled(torch: Any, step: Callable[[], None], dev: str, n: int) -> dict[str, float]:
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if dev == "cuda" else [])
    # One profiling cycle: acc_events keeps its events as they are and spares torch's warning that
    # a schedule's later cycles would clear them (raised as an error under warnings-as-errors).
    with profile(activities=activities, acc_events=True) as prof:
        for _i in range(n):
            step()
        if dev == "cuda":
            torch.cuda.synchronize()
    return _kernel_split(prof, dev, n)
