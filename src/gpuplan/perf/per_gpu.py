"""Per-GPU memory of one estimate: the traced peak sharded as the run shards it, then named terms.

``perf/estimate.py`` asks for it once per estimate. The traced peak (one GPU, no parallelism) is
sharded by ZeRO/FSDP (:func:`gpuplan.perf.parallel.sharded_peak_bytes`), DDP adds its gradient
buckets, a sharded run's end-of-forward peak is re-derived where sharding moves the peak there
(:mod:`gpuplan.perf.activations`), paged optimizer state is set apart, and
:func:`gpuplan.perf.memory.memory_estimate` composes the terms; the notes say what was assumed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gpuplan.hardware import GPU
from gpuplan.i18n import _
from gpuplan.perf.activations import forward_activation_bytes
from gpuplan.perf.memory import GIB, MemoryEstimate, is_optimizer_step_peak, memory_estimate, profile_has_conv
from gpuplan.perf.parallel import sharded_peak_bytes
from gpuplan.profile.model import Profile

__all__ = ["MemoryRequest", "per_gpu_memory"]


@dataclass(frozen=True)
class MemoryRequest:
    """How the run spreads the traced step: what per-GPU memory depends on besides the profile."""

    parallelism: str
    """``ddp``, ``zero1``/``zero2``/``zero3`` or ``fsdp``."""
    world: int
    """Data-parallel ranks the state is sharded over (GPUs ÷ tensor × pipeline)."""
    gpu_count: int
    """GPUs of the run (NCCL buffers exist with more than one)."""
    memory_band: float = 1.0
    """The calibration's memory residual factor (widens the high end)."""


def _traced_per_gpu_bytes(profile: Profile, parallelism: str, count: int, notes: list[str]) -> float:
    """Allocated bytes at the peak on one GPU: the trace, sharded by ZeRO/FSDP, plus DDP's buckets."""
    traced = sharded_peak_bytes(
        profile.peak,
        parallelism=parallelism,
        world=count,
        params=profile.params,
        largest_layer_params=profile.shape.largest_layer_params,
    )
    if count > 1 and parallelism == "ddp" and profile.task != "infer":
        # DDP copies gradients into its all-reduce buckets (``gradient_as_bucket_view=False`` is
        # PyTorch's default): one more gradient-sized buffer per rank.
        traced += profile.trainable_params * profile.bytes_per_param
        notes.append(_("DDP gradient buckets: +1 gradient copy per GPU (gradient_as_bucket_view=False)"))
    sharded = count > 1 and parallelism != "ddp"
    if sharded and parallelism in ("fsdp", "zero3") and not is_optimizer_step_peak(profile.peak):
        # A forward-end peak under autocast holds autocast's bf16 copy of every weight (2 B/param,
        # counted as activations). Sharded mixed precision gathers 16-bit weights per layer
        # instead (FSDP MixedPrecision, DeepSpeed fp16/bf16 params): no whole-model copy per rank.
        cache = 2.0 * profile.params if profile.autocast else 0.0
        drop = min(cache, profile.peak.activations_bytes)
        if drop > 0:
            traced -= drop
            notes.append(
                _("autocast's whole-model bf16 weight cache dropped: sharded runs gather 16-bit weights")
            )
    if sharded and is_optimizer_step_peak(profile.peak):
        # Sharding shrinks the optimizer-step peak; the end of the forward pass (activations
        # live, gradients not yet) may then be the higher one. The trace did not see it there.
        act = forward_activation_bytes(profile)
        if act is not None:
            forward_end = replace(
                profile.peak, activations_bytes=act, gradients_bytes=0.0, temporaries_bytes=0.0
            )
            traced = max(
                traced,
                sharded_peak_bytes(
                    forward_end,
                    parallelism=parallelism,
                    world=count,
                    params=profile.params,
                    largest_layer_params=profile.shape.largest_layer_params,
                ),
            )
            notes.append(
                _(
                    "per-rank peak checked at the end of the forward pass (activations derived: "
                    "checkpointing {checkpointing}, fp32 logits)"
                ).format(checkpointing=profile.activation_checkpointing)
            )
    return traced


def per_gpu_memory(profile: Profile, gpu: GPU, request: MemoryRequest, notes: list[str]) -> MemoryEstimate:
    """Memory of one GPU of the run, term by term; appends what it assumed to ``notes``."""
    dp, parallelism = request.world, request.parallelism
    traced = _traced_per_gpu_bytes(profile, parallelism, dp, notes)
    # Paged optimizer state sits in the trace's optimizer state (sharded with it) but outside
    # PyTorch's allocator: it is its own term, never part of what must fit.
    paged = profile.paged_optimizer_bytes / (dp if dp > 1 and parallelism != "ddp" else 1)
    traced -= paged
    if parallelism in ("zero3", "fsdp") and dp > 1 and not profile.shape.largest_layer_params:
        notes.append(_("largest layer unknown: assumed 1/N of the parameters is gathered at once"))
    mem = memory_estimate(
        traced,
        gpu,
        has_conv=profile_has_conv(profile),
        gpu_count=request.gpu_count,
        memory_band=request.memory_band,
        paged_optimizer_bytes=paged,
    )
    if mem.host_spill_gib > 0:
        notes.append(
            _(
                "paged optimizer: {spill_gib:.1f} of {paged_gib:.1f} GiB of its state lives in host "
                "memory and pages over PCIe at each step (not in the step time)"
            ).format(spill_gib=mem.host_spill_gib, paged_gib=mem.paged_optimizer_gib)
        )
    if mem.fits and mem.required_gib_high > mem.capacity_gib:
        notes.append(
            _(
                "tight: fits at the point estimate ({required_gib:.1f} GiB required) but not at the high "
                "end ({high_gib:.1f} GiB); leave headroom (smaller micro-batch, fused or 8-bit "
                "optimizer, chunked loss)"
            ).format(required_gib=mem.required_gib, high_gib=mem.required_gib_high)
        )
    elif mem.fits and mem.peak_memory_gib > mem.capacity_gib:
        notes.append(
            _(
                "fits only because PyTorch's allocator releases its cache and cuDNN picks algorithms with "
                "smaller workspaces under pressure ({required_gib:.1f} GiB required, "
                "{roomy_gib:.1f} GiB on a roomy GPU)"
            ).format(required_gib=mem.required_gib, roomy_gib=mem.peak_memory_gib)
        )
    if traced / GIB > mem.capacity_gib:
        notes.append(_("the traced peak alone exceeds the GPU's memory"))
    return mem
