"""GPU memory per device, as nvidia-smi would show it, from a Profile's traced peak.

    shown = traced peak × allocator slack + CUDA context + library workspaces (+ NCCL buffers)

The traced peak (MemTracker on fake tensors) is what PyTorch's allocator hands out
(``torch.cuda.max_memory_allocated``). nvidia-smi shows more:

- the caching allocator reserves whole segments and fragments them: reserved/allocated is
  1.05–1.25 on training loops; we take 1.10 as the point (ESTIMATION_NOTES §4.3: "peak_alloc ×
  1.1–1.2"), 1.0 and 1.25 for the range;
- the CUDA context (driver state, PyTorch's kernel images, loaded lazily since CUDA 11.7's
  ``CUDA_MODULE_LOADING=LAZY`` which PyTorch enables by default) — see :data:`CONTEXT_GIB`;
- cuBLAS workspace: PyTorch's default ``CUBLAS_WORKSPACE_CONFIG`` is ``:4096:2:16:8`` (≈8 MiB)
  before Hopper and ``:4096:8`` (32 MiB) on Hopper and newer (c10/cuda/CUDABlasHandlePool.cpp);
- cuDNN convolution workspace when the model has convolutions: ``cudnn.benchmark`` picks
  algorithms with workspaces of tens to hundreds of MiB; we take 0.25 GiB (range 0.1–0.6);
- NCCL buffers with more than one GPU: ``NCCL_BUFFSIZE`` 4 MiB × channels × peers, ≈0.2–0.5 GiB.

Memory scales with the micro-batch as ``static + per_sample × batch``: parameters, buffers,
gradients and optimizer state are static; activations and temporaries are per sample.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuplan.hardware import GPU
from gpuplan.profile.model import MemoryBreakdown, Profile

__all__ = [
    "ALLOCATOR_SLACK",
    "CONTEXT_GIB",
    "GIB",
    "MemoryEstimate",
    "ScaledPeak",
    "is_optimizer_step_peak",
    "memory_estimate",
    "overhead_gib",
    "peak_at_batch",
    "profile_has_conv",
    "split_static",
    "usable_memory_gib",
]

GIB = 1024.0**3

#: Reserved / allocated ratio of PyTorch's caching allocator: (low, point, high).
ALLOCATOR_SLACK = (1.0, 1.10, 1.25)

#: CUDA context per architecture, GiB: (low, point, high). Measured contexts reported by PyTorch
#: users are ≈300 MiB (Volta/Turing, CUDA 11) to ≈500–600 MiB (Hopper, CUDA 12, more SMs and
#: larger sm_90 kernel images); ESTIMATION_NOTES §4.3 bounds context + workspace at 0.3–1.3 GiB.
CONTEXT_GIB: dict[str, tuple[float, float, float]] = {
    "Volta": (0.25, 0.30, 0.50),
    "Turing": (0.25, 0.30, 0.50),
    "Ampere": (0.30, 0.40, 0.70),
    "Ada Lovelace": (0.30, 0.40, 0.70),
    "Hopper": (0.40, 0.50, 0.90),
    "Blackwell": (0.40, 0.55, 1.00),
    "CDNA 3": (0.40, 0.50, 1.00),  # ROCm/HIP context; no measured figure found, Hopper-like assumed
}
_DEFAULT_CONTEXT_GIB = (0.30, 0.45, 1.00)

_CUBLAS_PRE_HOPPER_GIB = (4096 * 1024 * 2 + 16 * 1024 * 8) / GIB  # ":4096:2:16:8" ≈ 8.1 MiB
_CUBLAS_HOPPER_GIB = 4096 * 1024 * 8 / GIB  # ":4096:8" = 32 MiB
_CUDNN_CONV_GIB = (0.10, 0.25, 0.60)
_NCCL_GIB = (0.15, 0.25, 0.50)

#: Share of the datasheet memory that a process can use. HBM parts: nvidia-smi reports e.g.
#: 16160 MiB on a V100 16 GB (98.6 %), 81559 MiB on an H100 80 GB; GDDR data-centre parts run
#: with ECC on by default, which reserves 1/16 (T4: 15360 MiB of 16 GiB = 93.75 %); GeForce
#: cards have no ECC (RTX 4090: 24564 MiB of 24 GiB).
_USABLE_HBM = 0.985
_USABLE_GDDR_ECC = 15.0 / 16.0


def usable_memory_gib(gpu: GPU) -> float:
    """Memory a process can allocate on this GPU, GiB (what nvidia-smi reports as total)."""
    if gpu.consumer:
        return gpu.memory_gib
    if gpu.memory_type.upper().startswith("GDDR"):
        return gpu.memory_gib * _USABLE_GDDR_ECC
    return gpu.memory_gib * _USABLE_HBM


def overhead_gib(gpu: GPU, *, has_conv: bool, gpu_count: int) -> tuple[float, float, float]:
    """CUDA context + workspaces + NCCL buffers, GiB: (low, point, high)."""
    ctx = CONTEXT_GIB.get(gpu.architecture, _DEFAULT_CONTEXT_GIB)
    cublas = _CUBLAS_HOPPER_GIB if gpu.architecture in ("Hopper", "Blackwell") else _CUBLAS_PRE_HOPPER_GIB
    out = []
    for i in range(3):
        v = ctx[i] + cublas
        if has_conv:
            v += _CUDNN_CONV_GIB[i]
        if gpu_count > 1:
            v += _NCCL_GIB[i]
        out.append(v)
    return out[0], out[1], out[2]


@dataclass(frozen=True, kw_only=True)
class ScaledPeak:
    """The traced peak evaluated at another micro-batch, bytes."""

    static_bytes: float
    """Parameters, buffers, gradients, optimizer state (and an optimizer-step temporary)."""
    per_sample_bytes: float
    """Activations and temporaries per sample of micro-batch."""
    total_bytes: float
    exact: bool
    """False when the batch is above the traced one and the traced peak holds no activations (the
    peak was at the optimizer step), so the activation peak at this batch is not known."""


def is_optimizer_step_peak(peak: MemoryBreakdown) -> bool:
    """Whether the traced peak is at the optimizer step: (almost) no activations are live, and the
    temporaries are the optimizer's (foreach AdamW's parameter-sized ``_foreach_sqrt``)."""
    return peak.activations_bytes < 0.01 * peak.total_bytes


def split_static(peak: MemoryBreakdown, batch_size: int) -> tuple[float, float]:
    """(static bytes, per-sample bytes) of a traced peak.

    At a peak with no activations (the optimizer step: foreach AdamW's parameter-sized temporary)
    the temporaries are the optimizer's and are static.
    """
    static = peak.parameters_bytes + peak.buffers_bytes + peak.gradients_bytes
    static += peak.optimizer_state_bytes + peak.other_bytes
    if is_optimizer_step_peak(peak):
        return static + peak.temporaries_bytes + peak.activations_bytes, 0.0
    return static, (peak.activations_bytes + peak.temporaries_bytes) / max(batch_size, 1)


def peak_at_batch(profile: Profile, batch_size: int) -> ScaledPeak:
    """The traced peak at another per-GPU micro-batch (linear in the batch; derived, not traced)."""
    static, per_sample = split_static(profile.peak, profile.batch_size)
    if per_sample == 0.0:
        # Peak at the optimizer step: smaller batches cannot raise it; larger ones may move it.
        return ScaledPeak(
            static_bytes=static,
            per_sample_bytes=0.0,
            total_bytes=static,
            exact=batch_size <= profile.batch_size,
        )
    return ScaledPeak(
        static_bytes=static,
        per_sample_bytes=per_sample,
        total_bytes=static + per_sample * batch_size,
        exact=True,
    )


@dataclass(frozen=True, kw_only=True)
class MemoryEstimate:
    """Memory of one GPU, GiB."""

    traced_peak_gib: float
    """Allocated bytes at the peak (the trace, after sharding for ZeRO/FSDP)."""
    allocator_slack_gib: float
    overhead_gib: float
    """CUDA context + cuBLAS/cuDNN workspaces + NCCL buffers."""
    peak_memory_gib: float
    """What nvidia-smi would show: the three above together."""
    peak_memory_gib_low: float
    peak_memory_gib_high: float
    capacity_gib: float
    """Usable memory of the GPU (see :func:`usable_memory_gib`)."""

    @property
    def fits(self) -> bool:
        return self.peak_memory_gib <= self.capacity_gib


def memory_estimate(
    traced_peak_bytes: float,
    gpu: GPU,
    *,
    has_conv: bool,
    gpu_count: int = 1,
    memory_band: float = 1.0,
) -> MemoryEstimate:
    """Compose the nvidia-smi figure from an allocated peak. ``memory_band`` widens the traced part
    by the calibration's memory residuals."""
    traced = traced_peak_bytes / GIB
    lo_o, o, hi_o = overhead_gib(gpu, has_conv=has_conv, gpu_count=gpu_count)
    lo_s, s, hi_s = ALLOCATOR_SLACK
    point = traced * s + o
    return MemoryEstimate(
        traced_peak_gib=traced,
        allocator_slack_gib=traced * (s - 1.0),
        overhead_gib=o,
        peak_memory_gib=point,
        peak_memory_gib_low=traced * lo_s / memory_band + lo_o,
        peak_memory_gib_high=traced * hi_s * memory_band + hi_o,
        capacity_gib=usable_memory_gib(gpu),
    )


def profile_has_conv(profile: Profile) -> bool:
    """Whether cuDNN convolution workspaces apply."""
    return any(op.op_class == "conv" for op in profile.ops)
