"""The measurement document: what ``gpuplan measure --json`` writes, and the recording file format.

A recording is one workload's own step timed on one real device: the workload's model built for
real (random weights), a synthetic batch of the workload's per-GPU shape, its precision, a few
warm-up steps left out, then timed steps, then a few steps under ``torch.profiler`` for the kernel
time by op class. ``gpuplan measure --out FILE`` writes it; ``gpuplan measure W.yaml --from FILE``
stores a recording made on another machine (a rented GPU) in the local catalog, where ``estimate``
and ``plan`` anchor the workload on it. A file from elsewhere is read with :meth:`Document.read`
(finite numbers, no unknown keys) and checked against the workload it claims to be.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gpuplan.documents.base import Document

__all__ = [
    "MEASURE_SCHEMA_VERSION",
    "OP_CLASSES",
    "KernelTimeDoc",
    "MeasureDevice",
    "MeasureMemory",
    "MeasureRun",
    "MeasureStepTime",
    "MeasureWorkload",
    "MeasurementDocument",
    "RecordingItem",
    "RecordingsDocument",
]

MEASURE_SCHEMA_VERSION = 1

#: The op classes kernel time is split into, in this order (``perf/anchor.py`` says what each holds).
OP_CLASSES = ("gemm", "attention", "memory", "communication", "other")


class MeasureWorkload(Document):
    """The workload measured, as its traced profile names it (the anchor is used only for it)."""

    name: str
    profile_key: str = Field(min_length=16, max_length=128, pattern=r"^[0-9a-f]+$")
    """The workload's trace key (``gpuplan.profile.profile_key``): what shapes one step — model,
    per-GPU batch, precision, optimizer, checkpointing — and the torch version."""
    recording_key: str | None = Field(default=None, min_length=16, max_length=128, pattern=r"^[0-9a-f]+$")
    """What the step is of, wherever it ran (``gpuplan.profile.recording_key``: the trace key less
    the versions of the trace and of torch, and less the folder of a Python model, whose module is
    named by its content). None in recordings made before it existed."""
    task: Literal["train", "finetune", "infer"]
    precision: str = Field(max_length=32)
    batch_size: int = Field(ge=1)
    """Per-GPU micro-batch of the measured step."""
    seq_len: int | None = Field(default=None, ge=1)


class MeasureDevice(Document):
    """Where the step ran."""

    kind: Literal["cuda", "cpu"]
    """``cuda``: an NVIDIA GPU; ``cpu``: a CPU recording (never used to anchor a GPU estimate)."""
    name: str = Field(max_length=256)
    """What the driver reports (``NVIDIA H100 80GB HBM3``) or the CPU's model name."""
    gpu_id: str | None = Field(default=None, max_length=64)
    """gpuplan's id of the GPU (``H100-SXM``); None on a CPU or for a GPU gpuplan has no datasheet of."""
    torch_version: str = Field(max_length=64)
    cuda_version: str | None = Field(default=None, max_length=32)
    driver_version: str | None = Field(default=None, max_length=64)
    host: str = Field(max_length=255)


class MeasureRun(Document):
    """How the step was run."""

    measured_at: str = Field(max_length=40)
    """ISO timestamp (UTC) of the start of the measurement."""
    warmup_steps: int = Field(ge=0)
    """Steps run first and left out (cuDNN/cuBLAS autotuning, the allocator growing, clocks rising)."""
    timed_steps: int = Field(ge=1)
    profiled_steps: int = Field(ge=1)
    """Steps run under ``torch.profiler`` for the kernel split (after the timed ones: the profiler's
    own overhead never enters ``step_time_s``)."""
    synthetic_batch: bool = True
    """The same random batch every step: no data loading is timed."""


class MeasureStepTime(Document):
    """One step (forward, backward and optimizer of one micro-batch; a forward for ``infer``), s."""

    median_s: float = Field(gt=0)
    low_s: float = Field(gt=0)
    """Fastest timed step."""
    high_s: float = Field(gt=0)
    """Slowest timed step."""
    samples_s: list[float] = Field(max_length=10_000)
    """Every timed step, in order."""
    issue_s: float | None = Field(default=None, gt=0)
    """Median CPU time to issue one step: from the step's call to its return, before waiting for
    the GPU (CUDA runs kernels asynchronously, so on a GPU-bound step this is the CPU's own time,
    hidden under the kernels). None where the step waits for the GPU itself (an amp-fp16 training
    step: GradScaler reads back its check for infinite gradients), on a CPU (the step is
    synchronous) and in recordings from before it was kept."""


class KernelTimeDoc(Document):
    """Kernel time per step by op class, s (on a CPU: operator self time), from the profiled steps."""

    gemm: float = Field(ge=0)
    """Matmuls and convolutions (cuBLAS/cuDNN/CUTLASS): compute-bound."""
    attention: float = Field(ge=0)
    """Fused attention kernels (flash, memory-efficient, cuDNN SDPA)."""
    memory: float = Field(ge=0)
    """Elementwise, normalisation, softmax, reductions, copies, optimizer updates: bandwidth-bound."""
    communication: float = Field(ge=0)
    """NCCL collectives (none on one GPU)."""
    other: float = Field(ge=0)
    """Kernels no operator claims, and on a CPU the time of the framework around the operators."""
    busy_s: float = Field(ge=0)
    """The sum: time the device was running kernels per step."""


class MeasureMemory(Document):
    """Peak memory of the timed steps, GiB; null where the device cannot say (with the reason)."""

    peak_allocated_gib: float | None = Field(default=None, ge=0)
    """``torch.cuda.max_memory_allocated``."""
    peak_reserved_gib: float | None = Field(default=None, ge=0)
    """``torch.cuda.max_memory_reserved``: what the caching allocator held."""
    nvidia_smi_gib: float | None = Field(default=None, ge=0)
    """What nvidia-smi shows for this process (NVML): context + reserved + library workspaces."""
    how: list[str] = Field(default_factory=list, max_length=16)
    """How each figure was read, and why one is null."""


class MeasurementDocument(Document):
    """``gpuplan measure --json``; the recording file ``--out`` writes and ``--from`` reads."""

    schema_version: Literal[1] = 1
    kind: Literal["gpuplan-measurement"] = "gpuplan-measurement"
    workload: MeasureWorkload
    device: MeasureDevice
    run: MeasureRun
    step_time: MeasureStepTime
    kernel_time_s: KernelTimeDoc
    memory: MeasureMemory
    notes: list[str] = Field(default_factory=list, max_length=64)
    stored: bool = False
    """Whether this run saved the recording in the catalog database."""


class RecordingItem(Document):
    """One stored recording as ``gpuplan catalog recordings list`` shows it."""

    id: int
    """What ``gpuplan catalog recordings delete`` takes."""
    workload: str
    """The workload's name as the recording gives it."""
    device: str
    """``cuda`` or ``cpu``."""
    gpu_id: str | None
    """gpuplan's id of the GPU; None on a CPU or a GPU without a datasheet."""
    device_name: str
    measured_at: str
    step_time_s: float | None
    """Median of the timed steps; None where the stored recording no longer reads (``problem``)."""
    nvidia_smi_gib: float | None
    """What nvidia-smi showed for the process; None where not read."""
    peak_reserved_gib: float | None
    """``torch.cuda.max_memory_reserved``; None where not read."""
    problem: str | None = None
    """Why the stored recording no longer reads (estimates leave it out); None when it does."""


class RecordingsDocument(Document):
    """``gpuplan catalog recordings list --json``: the stored ``gpuplan measure`` recordings, oldest
    first."""

    schema_version: int = MEASURE_SCHEMA_VERSION
    recordings: list[RecordingItem]
