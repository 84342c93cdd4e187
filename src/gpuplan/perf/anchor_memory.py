"""The memory of an estimate anchored on a measured step (``gpuplan measure``): the recording's own
figures in place of the model's, where the run on the estimated GPU holds what the recording held.

A recording keeps three figures of its timed steps: ``torch.cuda.max_memory_allocated``,
``max_memory_reserved`` and what nvidia-smi showed for the process. The tensors, and the caching
allocator's blocks around them, are the workload's own (its model, its per-GPU batch, its
precision and stack): they are the same on any GPU that runs the same step, so they are kept as
measured. What nvidia-smi shows beyond PyTorch's reserved memory is the CUDA context (driver state,
the kernel images loaded) and the libraries' own memory: the context depends on the GPU and its
driver, so on another architecture that part is moved by the difference of the two architectures'
contexts (``perf.memory.CONTEXT_GIB``), with the destination's range, since its driver was not
measured (on another GPU of the same architecture the point does not move, the range does). On
the GPU measured nothing is moved: the figures are the recording's, with no range of their own.

The anchor holds only where one GPU of the run holds what the recording's GPU held: the whole
model (no tensor or pipeline parallelism) and its whole state (no ZeRO/FSDP sharding over several
GPUs). What the layout adds to that step — DDP's gradient buckets, the gradients summed under
gradient accumulation, NCCL's buffers — is the model's and is added to the measured figures. Paged
optimizer state (CUDA managed memory) lives outside PyTorch's allocator and is resident only where
there is room, so a recording cannot say how much of it the other GPU holds: the model's figure
stays, and the note says why.

What must fit (``required_gib``, the fit verdict) is then the measured allocation with the
model's allowance for fragmentation the allocator cannot release (``HARD_FRAGMENTATION``), plus the
part outside the allocator: the measured figures in place of the calibration's memory band, so the
band is narrower.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuplan.hardware import GPU, get_gpu
from gpuplan.i18n import _
from gpuplan.perf.anchor import StepMeasurement
from gpuplan.perf.memory import (
    ALLOCATOR_SLACK,
    GIB,
    HARD_FRAGMENTATION,
    MemoryEstimate,
    overhead_terms,
    usable_memory_gib,
)

__all__ = ["MemoryAnchoring", "anchored_memory"]


@dataclass(frozen=True, kw_only=True)
class MemoryAnchoring:
    """The layout's memory anchored on a recording, or the model's kept, with the line that says so."""

    memory: MemoryEstimate
    note: str


def anchored_memory(
    model: MemoryEstimate,
    m: StepMeasurement,
    gpu: GPU,
    *,
    added_bytes: float,
    whole_on_one_gpu: bool,
    paged_optimizer_bytes: float,
    has_conv: bool,
    gpu_count: int,
) -> MemoryAnchoring:
    """``model``'s memory on ``gpu`` replaced by the recording ``m``'s (made on ``m.gpu_id``) where
    the run holds what the recording's GPU held; else ``model`` with the reason.

    ``added_bytes``: what the layout allocates beyond the recorded step, by the model (DDP buckets,
    the gradients summed under accumulation); ``whole_on_one_gpu``: each GPU holds the whole model
    and its state, as the recording's did; ``paged_optimizer_bytes``: optimizer state in CUDA
    managed memory."""
    where = _("{gpu} ({when})").format(gpu=m.describe_device(), when=m.measured_at)
    if m.peak_allocated_gib is None or m.peak_reserved_gib is None:
        return MemoryAnchoring(
            memory=model,
            note=_(
                "memory is the model's: your measured step on {where} has no PyTorch memory figures"
            ).format(where=where),
        )
    if not whole_on_one_gpu:
        return MemoryAnchoring(
            memory=model,
            note=_(
                "memory is the model's: your step was measured on {where} with the whole model and its "
                "state on one GPU, and this layout splits them over the GPUs"
            ).format(where=where),
        )
    if paged_optimizer_bytes > 0:
        return MemoryAnchoring(
            memory=model,
            note=_(
                "memory is the model's: a paged optimizer's state lives outside PyTorch's allocator and "
                "stays on the GPU only where there is room, so your step measured on {where} does not "
                "say what another GPU holds"
            ).format(where=where),
        )
    source = get_gpu(m.gpu_id or "")
    same = source.id == gpu.id
    added = added_bytes / GIB
    alloc = m.peak_allocated_gib + added
    # the layout's additions are tensors: cached by the allocator as the model caches them
    reserved = m.peak_reserved_gib + added * ALLOCATOR_SLACK[1]
    here = overhead_terms(gpu, has_conv=has_conv, gpu_count=gpu_count)
    there = overhead_terms(source, has_conv=has_conv, gpu_count=1)
    moved_by: str | None = None
    if m.nvidia_smi_gib is not None:
        outside = max(0.0, m.nvidia_smi_gib - m.peak_reserved_gib)
        moved = [outside, outside, outside]
        if not same:
            # the context moves with the architecture, and another GPU's driver was not measured:
            # the model's context there, less the model's on the GPU measured, with its range
            src = there.cuda_context_gib[1]
            moved = [max(0.0, outside + c - src) for c in here.cuda_context_gib]
            moved_by = f"{moved[1] - outside:+.2f}"
        basis = _("nvidia-smi used {smi:.2f} GiB, PyTorch's peak reserved {reserved:.2f} GiB").format(
            smi=m.nvidia_smi_gib, reserved=m.peak_reserved_gib
        )
    else:
        # no nvidia-smi figure: the part outside the allocator is the model's (context + cuBLAS)
        moved = [here.cuda_context_gib[i] + here.cublas_workspace_gib[i] for i in range(3)]
        basis = _(
            "PyTorch's peak reserved {reserved:.2f} GiB; nvidia-smi was not read, so the CUDA context is "
            "the model's"
        ).format(reserved=m.peak_reserved_gib)
    nccl = here.nccl_buffers_gib
    capacity = usable_memory_gib(gpu)
    required = [alloc * (1.0 + HARD_FRAGMENTATION[i]) + moved[i] + nccl[i] for i in range(3)]
    smi = [reserved + moved[i] + nccl[i] for i in range(3)]
    memory = MemoryEstimate(
        peak_allocated_gib=alloc,
        allocator_reserve_gib=reserved - alloc,
        # the measured part outside PyTorch's allocator (context, the libraries' own memory); the
        # cuBLAS and cuDNN workspaces PyTorch allocates are inside the measured reserved memory
        cuda_context_gib=moved[1],
        cublas_workspace_gib=0.0,
        cudnn_workspace_gib=0.0,
        nccl_buffers_gib=nccl[1],
        required_gib=required[1],
        required_gib_low=required[0],
        required_gib_high=required[2],
        peak_memory_gib=smi[1],
        peak_memory_gib_low=smi[0],
        peak_memory_gib_high=smi[2],
        capacity_gib=capacity,
        measured_on=source.id,
    )
    extras = []
    if added > 0:
        extras.append(_("{gib:.2f} GiB the layout adds (modelled)").format(gib=added))
    if nccl[1] > 0:
        extras.append(_("NCCL buffers (modelled)"))
    extra = _("; plus ") + _(", ").join(extras) if extras else ""
    if same:
        how = ""
    elif moved_by is not None:
        how = _(
            "; on {gpu} the tensors and the allocator's cache are the same, the CUDA context moved by "
            "the model's difference between the two GPUs ({delta} GiB) with the model's range on {gpu}, "
            "its driver not measured"
        ).format(gpu=gpu.id, delta=moved_by)
    else:
        how = _("; on {gpu} the tensors and the allocator's cache are the same").format(gpu=gpu.id)
    note = _("memory as measured on {where}: {basis}{how}{extra}").format(
        where=where, basis=basis, how=how, extra=extra
    )
    return MemoryAnchoring(memory=memory, note=note)
