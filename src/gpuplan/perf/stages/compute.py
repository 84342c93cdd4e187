"""Stage 2 of an estimate, compute time: one GPU's share of the step on the roofline, per optimizer step.

- **The roofline** (``perf/roofline.py``): each op of one GPU's share (:attr:`Layout.local`) on the
  GPU's peaks with the fitted efficiencies; a causal fused kernel computes only its share of the
  counted attention FLOPs (``perf/attention.py``).
- **The host**: eager PyTorch issues ops from the CPU while the GPU runs earlier ones, so a phase
  takes the longer of the GPU's work and the CPU's issuing (host-bound at small batches).
- **Data parallelism**: under ZeRO/FSDP each rank updates only its shard of the parameters
  (the optimizer ÷ ``d``); DDP updates them whole on every rank.
- **Pipeline parallelism** (SC21 §2.2): the 1F1B schedule with ``m`` micro-batches per step takes
  ``m + (p − 1)/v`` stage-micro-batch times (``v``: model chunks per GPU of the interleaved
  schedule); the bubble is ``((p − 1)/v) / (m + (p − 1)/v)`` of the pipeline's time.
  Tensor parallelism's compute share is the layout's (each rank's ops are already ``1/t``).
- **torch.compile**: one fitted factor on the compute (it fuses the elementwise ops and cuts launches).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuplan.i18n import _
from gpuplan.perf.roofline import FP32_FROM_FP16_RATIO, PhaseTimes, is_causal, phase_times
from gpuplan.perf.stages.layout import Layout, ModelParallel

__all__ = ["ComputeTime", "compute_time", "pipeline_bubble_fraction"]


@dataclass(frozen=True, kw_only=True)
class ComputeTime:
    """One GPU's compute per optimizer step, seconds."""

    phases: PhaseTimes
    """Roofline time of one traced micro-batch of the GPU's share, by phase."""
    micro_batch_s: float
    """Forward and backward of one micro-batch on one stage (at least the CPU's issue time)."""
    optimizer_s: float
    """The optimizer step of this GPU's shard (at least the CPU's issue time)."""
    stage_times: float
    """Stage-micro-batch times per optimizer step: ``m + (p − 1)/v`` (``m`` without a pipeline)."""
    compute_s: float
    """``stage_times × micro_batch_s + optimizer_s``, ÷ the torch.compile factor when compiled."""
    notes: tuple[str, ...] = ()


def pipeline_bubble_fraction(mp: ModelParallel, microbatches: int) -> float:
    """Share of the pipeline's time its stages idle: ``((p−1)/v) / (m + (p−1)/v)`` (SC21 §2.2)."""
    idle = (mp.pipeline - 1) / mp.virtual_stages
    return idle / (microbatches + idle)


def compute_time(layout: Layout) -> ComputeTime:
    """The compute of one optimizer step on one GPU of ``layout``."""
    gpu, cal, profile = layout.gpu, layout.calibration, layout.local
    mp, dp, microbatches = layout.model_parallel, layout.data_parallel, layout.microbatches
    notes: list[str] = []
    if gpu.fp32_tflops is None and gpu.fp16_tflops is not None:
        notes.append(
            _("{gpu}: no published FP32 peak; taken as {ratio:.2f} × its FP16 tensor peak").format(
                gpu=gpu.id, ratio=FP32_FROM_FP16_RATIO
            )
        )
    phases = phase_times(
        profile.ops, gpu, profile.precision, cal, causal=is_causal(profile), seq_len=profile.seq_len
    )
    host_us = cal.host_overhead_us * 1e-6
    optimizer_s = phases.optimizer_s
    if layout.parallelism != "ddp" and dp > 1:
        optimizer_s /= dp  # each rank updates only its shard
    # Eager PyTorch issues ops from the CPU while the GPU runs earlier ones: a phase takes the
    # longer of the GPU's work and the CPU's issuing (host-bound at small batches).
    optimizer_s = max(optimizer_s, phases.optimizer_calls * host_us)
    micro_s = max(
        phases.forward_s + phases.backward_s, (phases.forward_calls + phases.backward_calls) * host_us
    )
    if micro_s > phases.forward_s + phases.backward_s:
        notes.append(_("host-bound: the CPU issues ops slower than the GPU runs them (small batch)"))
    # 1F1B: m micro-batches take (m + (p−1)/v) stage times (SC21 §2.2); each stage time's exposed
    # tensor-parallel all-reduces and sends are the communication stage's.
    stages = microbatches + (mp.pipeline - 1) / mp.virtual_stages
    compute_s = stages * micro_s + optimizer_s
    if layout.request.compiled:
        # torch.compile fuses the elementwise ops and cuts launches: one factor on the compute.
        compute_s /= cal.compile_speedup
        notes.append(
            _("compile: true — compute time ÷ {speedup:g} (torch.compile speed-up)").format(
                speedup=cal.compile_speedup
            )
        )
        # Said beside the compile factor, where a reader looks for what compile: true changed.
        if profile.compile_saving_bytes > 0:
            notes.append(
                _(
                    "compile: true — {gib:.1f} GiB less memory at the traced peak (what AOTAutograd's "
                    "partitioner keeps for backward, measured on the model's blocks and loss)"
                ).format(gib=profile.compile_saving_bytes / 2**30)
            )
    return ComputeTime(
        phases=phases,
        micro_batch_s=micro_s,
        optimizer_s=optimizer_s,
        stage_times=stages,
        compute_s=compute_s,
        notes=tuple(notes),
    )
