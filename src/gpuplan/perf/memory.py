"""GPU memory per device from a Profile's traced peak, as separate named terms.

Each term is what one tool shows, so a user can tell which number to compare with which reading:

    peak_allocated_gib   the trace (MemTracker on fake tensors) = ``torch.cuda.max_memory_allocated``
    + allocator_reserve  the caching allocator's cached-but-free blocks
    = reserved_gib       ``torch.cuda.max_memory_reserved`` (when memory is plentiful)
    + cuda_context_gib   driver state and the kernel images loaded so far
    + cublas / cudnn workspaces, NCCL buffers (more than one GPU)
    = nvidia_smi_gib     what nvidia-smi shows for the process (``peak_memory_gib``)

What must fit is less than what nvidia-smi shows on a roomy GPU, because two terms give way under
pressure: the allocator frees its cached blocks and retries before it reports out-of-memory (only
free space *inside* partly used segments stays reserved), and PyTorch's cuDNN wrapper catches an
out-of-memory on a workspace and falls back to an algorithm that needs less
(``AlgoIterator::try_all`` in aten/src/ATen/native/cudnn/Conv_v7.cpp, read 2026-12-01). So

    required_gib = peak_allocated × (1 + hard fragmentation) + context + cuBLAS + NCCL

with a low and a high end (``required_gib_low``/``required_gib_high``: every term at its bound, the
allocated part divided or multiplied by the calibration's memory band). The verdict
(:attr:`MemoryEstimate.verdict`) reads the whole band: *fits* when its high end is within the usable
memory, *does not fit* only when its low end is above it, *may not fit* in between — a run that
happened must never be called "does not fit" because the point alone was over. Optimizer state in CUDA
managed memory (bitsandbytes' paged optimizers) is outside PyTorch's allocator and pages out to host
memory when the GPU is full: it is ``paged_optimizer_gib``, never part of ``required_gib``; the part
that does not fit next to the rest is ``host_spill_gib``.

Memory scales with the micro-batch as ``static + per_sample × batch``: parameters, buffers,
gradients and optimizer state are static; activations and temporaries are per sample.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuplan.hardware import GPU
from gpuplan.profile.model import MemoryBreakdown, Profile
from gpuplan.vocab import MemoryVerdict

__all__ = [
    "ALLOCATOR_SLACK",
    "CONTEXT_GIB",
    "GIB",
    "HARD_FRAGMENTATION",
    "MemoryEstimate",
    "MemoryTerms",
    "ScaledPeak",
    "is_optimizer_step_peak",
    "memory_estimate",
    "overhead_gib",
    "overhead_terms",
    "peak_at_batch",
    "profile_has_conv",
    "split_static",
    "usable_memory_gib",
]

GIB = 1024.0**3

#: Reserved / allocated of PyTorch's caching allocator on a roomy GPU: (low, point, high).
#: Published pairs: 16726 / 15006 MB = 1.115 and 19354 / 17402 MB = 1.112 (pytorch/pytorch#40989,
#: 2020-07-05, a repeated benchmark loop); 13.27 / 13.19 GiB = 1.006 (torchtune PR #1348,
#: 2024-08-14, start of a Llama-2-7B run). ESTIMATION_NOTES §4 gives 1.1–1.2. No fitted constant.
ALLOCATOR_SLACK = (1.0, 1.10, 1.25)

#: Free space inside partly used segments that the allocator cannot hand back before it reports
#: out-of-memory, as a share of allocated bytes: (low, point, high). Out-of-memory messages (printed
#: after the allocator has released its cached blocks and retried) show 1.83 GiB "reserved but
#: unallocated" next to 75.31 GiB allocated = 2.4 % (vllm-project/compressed-tensors PR #587,
#: 2026-02-17; that project then reserves 5 %) and 3.00 − 2.98 GiB of 2.98 GiB = 0.7 %
#: (Strawberry-Eat-Mango/PCT_Pytorch#27, 2022-03-23). No fitted constant.
HARD_FRAGMENTATION = (0.0, 0.02, 0.05)

#: CUDA context per architecture, GiB: (low, point, high). With lazy module loading (CUDA ≥ 11.7;
#: PyTorch ≥ 1.13 sets ``CUDA_MODULE_LOADING=LAZY`` itself, pytorch/pytorch PR #86509) a bare
#: context is 287,047,680 B lazy vs 666,632,192 B eager (that PR's test, 2022-10); "~300 MB" and
#: "around 400MB" (pytorch/pytorch#107667, 2023-08-28; #109888, 2023-09-23); 426 MiB on an RTX 6000
#: Ada with PyTorch 2.10 + CUDA 13 (unslothai/unsloth-zoo PR #1053, 2026-08-12); kernels loaded
#: during training add to it. Stacks before CUDA 11.7 load every kernel at start-up: ">1000MB"
#: (#107667) and 1008 MB on a Titan V with PyTorch 1.3 (pytorch/pytorch#28394, 2019-10-22) — the
#: high ends cover such a stack. The point assumes a current, lazily loading stack.
CONTEXT_GIB: dict[str, tuple[float, float, float]] = {
    "Volta": (0.25, 0.30, 1.00),
    "Turing": (0.25, 0.30, 1.00),
    "Ampere": (0.30, 0.40, 1.10),
    "Ada Lovelace": (0.30, 0.40, 1.10),
    "Hopper": (0.40, 0.50, 1.20),
    "Blackwell": (0.40, 0.55, 1.20),
    "CDNA 3": (0.40, 0.50, 1.00),  # ROCm/HIP context; no measured figure found, Hopper-like assumed
}
_DEFAULT_CONTEXT_GIB = (0.30, 0.45, 1.20)

_CUBLAS_PRE_HOPPER_GIB = (4096 * 1024 * 2 + 16 * 1024 * 8) / GIB  # ":4096:2:16:8" ≈ 8.1 MiB
_CUBLAS_HOPPER_GIB = 4096 * 1024 * 8 / GIB  # ":4096:8" = 32 MiB
#: cuDNN convolution workspace with ``cudnn.benchmark`` on a roomy GPU: tens to hundreds of MiB
#: (an assumption; no published figure found). Elastic: never part of ``required_gib``.
_CUDNN_CONV_GIB = (0.10, 0.25, 0.60)
#: NCCL buffers with more than one GPU: ``NCCL_BUFFSIZE`` 4 MiB × channels × peers ≈ 0.2–0.5 GiB.
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


@dataclass(frozen=True, kw_only=True)
class MemoryTerms:
    """The memory outside PyTorch's tensors on one GPU, GiB, each term (low, point, high)."""

    cuda_context_gib: tuple[float, float, float]
    cublas_workspace_gib: tuple[float, float, float]
    cudnn_workspace_gib: tuple[float, float, float]
    """Zero without convolutions; elastic (falls back to smaller algorithms under pressure)."""
    nccl_buffers_gib: tuple[float, float, float]
    """Zero on one GPU."""

    def fixed(self, i: int) -> float:
        """Context + cuBLAS + NCCL at bound ``i`` (0 low, 1 point, 2 high): what cannot give way."""
        return self.cuda_context_gib[i] + self.cublas_workspace_gib[i] + self.nccl_buffers_gib[i]

    def total(self, i: int) -> float:
        """Every term at bound ``i``, the cuDNN workspace included."""
        return self.fixed(i) + self.cudnn_workspace_gib[i]


def overhead_terms(gpu: GPU, *, has_conv: bool, gpu_count: int) -> MemoryTerms:
    """CUDA context, library workspaces and NCCL buffers of one GPU, as separate terms."""
    cublas = _CUBLAS_HOPPER_GIB if gpu.architecture in ("Hopper", "Blackwell") else _CUBLAS_PRE_HOPPER_GIB
    none = (0.0, 0.0, 0.0)
    return MemoryTerms(
        cuda_context_gib=CONTEXT_GIB.get(gpu.architecture, _DEFAULT_CONTEXT_GIB),
        cublas_workspace_gib=(cublas, cublas, cublas),
        cudnn_workspace_gib=_CUDNN_CONV_GIB if has_conv else none,
        nccl_buffers_gib=_NCCL_GIB if gpu_count > 1 else none,
    )


def overhead_gib(gpu: GPU, *, has_conv: bool, gpu_count: int) -> tuple[float, float, float]:
    """CUDA context + workspaces + NCCL buffers, GiB: (low, point, high)."""
    t = overhead_terms(gpu, has_conv=has_conv, gpu_count=gpu_count)
    return t.total(0), t.total(1), t.total(2)


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
    """Whether the traced peak is at the optimizer step: (almost) no activations but the logits a
    loss holds into the next forward (:attr:`MemoryBreakdown.held_bytes`) are live, and the
    temporaries are the optimizer's (foreach AdamW's parameter-sized ``_foreach_sqrt``)."""
    return peak.at_optimizer_step


def split_static(peak: MemoryBreakdown, batch_size: int) -> tuple[float, float]:
    """(static bytes, per-sample bytes) of a traced peak.

    At a peak with no activations (the optimizer step: foreach AdamW's parameter-sized temporary)
    the temporaries are the optimizer's and are static; only the logits a loss holds there into
    the next forward (:attr:`MemoryBreakdown.held_bytes`) are per sample.
    """
    static = peak.parameters_bytes + peak.buffers_bytes + peak.gradients_bytes
    static += peak.optimizer_state_bytes + peak.other_bytes
    if is_optimizer_step_peak(peak):
        held = peak.held_bytes
        return static + peak.temporaries_bytes + peak.activations_bytes - held, held / max(batch_size, 1)
    return static, (peak.activations_bytes + peak.temporaries_bytes) / max(batch_size, 1)


def peak_at_batch(profile: Profile, batch_size: int) -> ScaledPeak:
    """The traced peak at another per-GPU micro-batch (linear in the batch; derived, not traced)."""
    static, per_sample = split_static(profile.peak, profile.batch_size)
    return ScaledPeak(
        static_bytes=static,
        per_sample_bytes=per_sample,
        total_bytes=static + per_sample * batch_size,
        # Peak at the optimizer step: smaller batches cannot move it; larger ones may.
        exact=batch_size <= profile.batch_size or not is_optimizer_step_peak(profile.peak),
    )


@dataclass(frozen=True, kw_only=True)
class MemoryEstimate:
    """Memory of one GPU, GiB, term by term (see the module docstring for which tool shows which)."""

    peak_allocated_gib: float
    """Allocated bytes at the peak: the trace, after sharding for ZeRO/FSDP
    (``torch.cuda.max_memory_allocated``)."""
    allocator_reserve_gib: float
    """Cached-but-free blocks on a roomy GPU: ``reserved_gib − peak_allocated_gib``."""
    cuda_context_gib: float
    cublas_workspace_gib: float
    cudnn_workspace_gib: float
    nccl_buffers_gib: float
    paged_optimizer_gib: float = 0.0
    """Optimizer state in CUDA managed memory (paged optimizers): resident on the GPU when there is
    room, paged out to host memory when not; outside ``reserved_gib`` and ``required_gib``."""
    required_gib: float
    """What must fit: allocated × (1 + hard fragmentation) + context + cuBLAS + NCCL buffers."""
    required_gib_low: float
    """The same at the low end of every term (and the calibration's memory band)."""
    required_gib_high: float
    """The same at the high end of every term (and the calibration's memory band)."""
    peak_memory_gib: float
    """What nvidia-smi would show for the process on a GPU with room to spare."""
    peak_memory_gib_low: float
    peak_memory_gib_high: float
    capacity_gib: float
    """Usable memory of the GPU (see :func:`usable_memory_gib`); a serving engine's share of it
    where :attr:`engine_share` says so."""
    measured_on: str | None = None
    """gpuplan's id of the GPU whose ``gpuplan measure`` recording these figures are
    (``perf/anchor_memory.py``: allocated, reserved and nvidia-smi as measured, the CUDA context
    moved to another architecture; ``cuda_context_gib`` is then the measured part outside PyTorch's
    allocator); None: the model's figures."""
    engine_share: bool = False
    """:attr:`capacity_gib` is a serving engine's share of the GPU (vLLM's
    ``--gpu-memory-utilization``, SGLang's ``--mem-fraction-static``: ``perf/engine_memory.py``), not
    the GPU's usable memory; reports name it so."""

    @property
    def traced_peak_gib(self) -> float:
        """The older name of :attr:`peak_allocated_gib`."""
        return self.peak_allocated_gib

    @property
    def reserved_gib(self) -> float:
        """PyTorch's reserved memory at the peak (``torch.cuda.max_memory_reserved``)."""
        return self.peak_allocated_gib + self.allocator_reserve_gib

    @property
    def nvidia_smi_gib(self) -> float:
        """The same as :attr:`peak_memory_gib`."""
        return self.peak_memory_gib

    @property
    def allocator_slack_gib(self) -> float:
        """The older name of :attr:`allocator_reserve_gib`."""
        return self.allocator_reserve_gib

    @property
    def overhead_gib(self) -> float:
        """CUDA context + cuBLAS/cuDNN workspaces + NCCL buffers."""
        return (
            self.cuda_context_gib
            + self.cublas_workspace_gib
            + self.cudnn_workspace_gib
            + self.nccl_buffers_gib
        )

    @property
    def host_spill_gib(self) -> float:
        """Paged optimizer state that does not fit next to the required memory (lives in host RAM)."""
        return max(0.0, self.paged_optimizer_gib - max(0.0, self.capacity_gib - self.required_gib))

    @property
    def verdict(self) -> MemoryVerdict:
        """*fits*, *may not fit* or *does not fit*, read on the whole band of :attr:`required_gib`."""
        if self.required_gib_low > self.capacity_gib:
            return MemoryVerdict.DOES_NOT_FIT
        if self.required_gib_high > self.capacity_gib:
            return MemoryVerdict.MAY_NOT_FIT
        return MemoryVerdict.FITS

    @property
    def over_at_estimate(self) -> bool:
        """*May not fit*, and the estimate's point (:attr:`required_gib`) is above the usable memory
        too: only the low end of the band fits, so the run most likely runs out of memory. ``plan``
        ranks such an option after every one whose point fits; ``estimate`` and ``deploy`` say
        *does not fit at the estimate* (:func:`gpuplan.perf.memory_margin.over_at_estimate_words`)."""
        return self.verdict is MemoryVerdict.MAY_NOT_FIT and self.required_gib > self.capacity_gib

    @property
    def fits(self) -> bool:
        """Fits for certain: the high end of the band is within the usable memory."""
        return self.verdict is MemoryVerdict.FITS

    @property
    def ruled_out(self) -> bool:
        """Cannot fit: even the low end of the band is above the usable memory."""
        return self.verdict is MemoryVerdict.DOES_NOT_FIT


def memory_estimate(
    traced_peak_bytes: float,
    gpu: GPU,
    *,
    has_conv: bool,
    gpu_count: int = 1,
    memory_band: float = 1.0,
    paged_optimizer_bytes: float = 0.0,
    assumed_saving_bytes: float = 0.0,
) -> MemoryEstimate:
    """Compose every term from an allocated peak. ``memory_band`` widens the allocated part by the
    calibration's memory residuals; ``paged_optimizer_bytes`` is optimizer state in managed memory,
    not included in ``traced_peak_bytes``; ``assumed_saving_bytes``, taken off the peak for a choice
    the workload does not state (a compiled loss), is back in the high ends."""
    alloc = traced_peak_bytes / GIB
    alloc_high = alloc + assumed_saving_bytes / GIB
    paged = paged_optimizer_bytes / GIB
    terms = overhead_terms(gpu, has_conv=has_conv, gpu_count=gpu_count)
    capacity = usable_memory_gib(gpu)
    lo_s, s, hi_s = ALLOCATOR_SLACK
    required = alloc * (1.0 + HARD_FRAGMENTATION[1]) + terms.fixed(1)
    # nvidia-smi counts the paged state that is resident: all of it when there is room.
    resident = min(paged, max(0.0, capacity - required))
    return MemoryEstimate(
        peak_allocated_gib=alloc,
        allocator_reserve_gib=alloc * (s - 1.0),
        cuda_context_gib=terms.cuda_context_gib[1],
        cublas_workspace_gib=terms.cublas_workspace_gib[1],
        cudnn_workspace_gib=terms.cudnn_workspace_gib[1],
        nccl_buffers_gib=terms.nccl_buffers_gib[1],
        paged_optimizer_gib=paged,
        required_gib=required,
        required_gib_low=alloc / memory_band * (1.0 + HARD_FRAGMENTATION[0]) + terms.fixed(0),
        required_gib_high=alloc_high * memory_band * (1.0 + HARD_FRAGMENTATION[2]) + terms.fixed(2),
        peak_memory_gib=alloc * s + terms.total(1) + resident,
        peak_memory_gib_low=alloc * lo_s / memory_band + terms.total(0),
        peak_memory_gib_high=alloc_high * hi_s * memory_band + terms.total(2) + paged,
        capacity_gib=capacity,
    )


def profile_has_conv(profile: Profile) -> bool:
    """Whether cuDNN convolution workspaces apply."""
    return any(op.op_class == "conv" for op in profile.ops)
