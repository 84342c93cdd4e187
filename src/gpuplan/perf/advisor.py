"""OOM advisor: changes that make a workload fit a GPU, each with its memory and step-time cost.

Every figure here is *derived* analytically from the Profile's memory breakdown and op list, not
re-traced; each :class:`Advice` says how (``derivation``). Re-tracing with the change applied is the
way to confirm one.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuplan.errors import EstimateError
from gpuplan.hardware import GPU, all_gpus
from gpuplan.perf.calibration import Calibration, load_calibration
from gpuplan.perf.estimate import estimate
from gpuplan.perf.memory import (
    activation_estimate_bytes,
    is_optimizer_step_peak,
    memory_estimate,
    peak_at_batch,
    profile_has_conv,
)
from gpuplan.perf.roofline import is_causal, phase_times
from gpuplan.profile.model import OpRecord, Profile

__all__ = ["Advice", "advise"]

#: Families where LoRA (low-rank adapters on linear layers) is the usual fine-tuning method.
_TRANSFORMER_FAMILIES = frozenset({"decoder", "encoder", "encoder-decoder", "vit"})
#: Without a layer structure, checkpointing every residual stage keeps ≈1/4 of activations
#: (rough: ResNet-style nets have 4 stages; torch.utils.checkpoint_sequential with √n segments).
_GENERIC_CHECKPOINT_KEEP = 0.25
_WORLD_SIZES = (2, 4, 8)


@dataclass(frozen=True, kw_only=True)
class Advice:
    """One change that reduces memory, evaluated on one GPU configuration."""

    action: str
    """``micro_batch``, ``gradient_checkpointing``, ``fused_optimizer``, ``zero2``, ``fsdp``,
    ``lora``, ``bf16_weights`` or ``bigger_gpu``."""
    summary: str
    """One line saying what to change."""
    gpu: str
    gpu_count: int
    peak_memory_gib: float
    fits: bool
    step_time_s: float | None
    """Time of one optimizer step of the same global batch after the change (None if not derived)."""
    step_time_factor: float | None
    """``step_time_s`` over the unchanged workload's step time on the same GPU."""
    derivation: str
    """How the figures were obtained (all are derived, not traced)."""


def _mem(profile: Profile, gpu: GPU, traced_bytes: float, cal: Calibration, count: int = 1) -> float:
    est = memory_estimate(
        traced_bytes, gpu, has_conv=profile_has_conv(profile), gpu_count=count, memory_band=cal.memory_band
    )
    return est.peak_memory_gib


def _capacity(gpu: GPU) -> float:
    return memory_estimate(0.0, gpu, has_conv=False).capacity_gib


def _micro_batch(profile: Profile, gpu: GPU, cal: Calibration, base_s: float) -> Advice | None:
    cap = _capacity(gpu)
    scaled = peak_at_batch(profile, profile.batch_size)
    if scaled.per_sample_bytes <= 0 or profile.batch_size <= 1:
        return None  # peak does not depend on the batch (optimizer step) or cannot shrink
    # Prefer micro-batches that divide the global batch, so accumulation keeps it exactly.
    sizes = [b for b in range(profile.batch_size - 1, 0, -1) if profile.batch_size % b == 0]
    for b in sizes:
        mem = _mem(profile, gpu, peak_at_batch(profile, b).total_bytes, cal)
        if mem <= cap:
            break
    else:
        return None
    accum = profile.batch_size // b
    ph = phase_times(
        profile.ops,
        gpu,
        profile.precision,
        cal,
        batch_scale=b / profile.batch_size,
        causal=is_causal(profile),
    )
    train = profile.task != "infer"
    step = accum * (ph.forward_s + ph.backward_s) + ph.optimizer_s if train else accum * ph.forward_s
    how = "micro-batch × gradient accumulation" if train else "smaller batches in sequence"
    return Advice(
        action="micro_batch",
        summary=f"micro-batch {b} × {accum} accumulation steps (global batch {profile.batch_size} kept)"
        if train
        else f"batch {b} instead of {profile.batch_size}",
        gpu=gpu.id,
        gpu_count=1,
        peak_memory_gib=mem,
        fits=True,
        step_time_s=step,
        step_time_factor=step / base_s,
        derivation=f"{how}: memory = static + per-sample × {b} (linear in batch); "
        "time = roofline with FLOPs and bytes scaled to the micro-batch",
    )


def _checkpoint_keep(profile: Profile) -> tuple[float, str]:
    """Fraction of activation memory kept with full activation checkpointing, and why."""
    s = profile.shape
    act = profile.peak.activations_bytes
    if s.num_layers and s.hidden_size and profile.seq_len and act > 0:
        act_bytes = 4 if profile.precision in ("fp32", "tf32") else 2
        # Korthikanti et al. (2205.05198): full recomputation keeps each layer's input, 2·s·b·h·L bytes
        # in 16-bit, plus one layer's activations while it is recomputed.
        boundary = act_bytes * profile.seq_len * profile.batch_size * s.hidden_size * s.num_layers
        keep = min(1.0, (boundary + act / s.num_layers) / act)
        return keep, f"layer inputs kept (s·b·h·L·{act_bytes} B) + one layer's activations"
    return (
        _GENERIC_CHECKPOINT_KEEP,
        "≈1/4 of activations kept (checkpoint per stage; no layer structure known)",
    )


def _checkpointing(
    profile: Profile, gpu: GPU, cal: Calibration, base_s: float, fwd_s: float
) -> Advice | None:
    peak = profile.peak
    if profile.task == "infer" or is_optimizer_step_peak(peak):
        return None  # the peak is the optimizer step's, not the activations'
    keep, why = _checkpoint_keep(profile)
    traced = peak.total_bytes - peak.activations_bytes * (1.0 - keep)
    mem = _mem(profile, gpu, traced, cal)
    step = base_s + fwd_s  # one extra forward of every checkpointed layer (≈ +1/3 of fwd+bwd compute)
    return Advice(
        action="gradient_checkpointing",
        summary="enable activation (gradient) checkpointing",
        gpu=gpu.id,
        gpu_count=1,
        peak_memory_gib=mem,
        fits=mem <= _capacity(gpu),
        step_time_s=step,
        step_time_factor=step / base_s,
        derivation=f"activations × {keep:.2f} ({why}); time + one forward recompute",
    )


def _fused_optimizer(profile: Profile, gpu: GPU, cal: Calibration, base_s: float) -> Advice | None:
    peak = profile.peak
    if profile.task == "infer" or not is_optimizer_step_peak(peak) or peak.temporaries_bytes <= 0:
        return None  # the peak is not foreach AdamW's optimizer-step temporary
    mem = _mem(profile, gpu, peak.total_bytes - peak.temporaries_bytes, cal)
    return Advice(
        action="fused_optimizer",
        summary="use a fused optimizer (torch.optim.AdamW(..., fused=True))",
        gpu=gpu.id,
        gpu_count=1,
        peak_memory_gib=mem,
        fits=mem <= _capacity(gpu),
        step_time_s=base_s,
        step_time_factor=1.0,
        derivation="foreach AdamW's parameter-sized temporary removed; a lower bound: the peak may move "
        "to the end of the forward pass — re-trace with fused=True to confirm",
    )


def _sharding(profile: Profile, gpu: GPU, cal: Calibration, base_s: float) -> list[Advice]:
    if profile.task == "infer":
        return []
    out = []
    for parallelism, label in (("zero2", "ZeRO-2"), ("fsdp", "FSDP (ZeRO-3)")):
        for n in _WORLD_SIZES:
            e = estimate(profile, gpu, count=n, parallelism=parallelism, calibration=cal)
            if e.fits:
                # Same samples per GPU: compare one step per GPU with the single-GPU step.
                out.append(
                    Advice(
                        action=parallelism,
                        summary=f"{label} on {n} GPUs (same micro-batch per GPU)",
                        gpu=gpu.id,
                        gpu_count=n,
                        peak_memory_gib=e.peak_memory_gib,
                        fits=True,
                        step_time_s=e.step_time_s,
                        step_time_factor=e.step_time_s / base_s,
                        derivation="state sharded per rank (DeepSpeed/FSDP layout) from the traced "
                        "breakdown; time adds the exposed collectives on " + (e.link or "one GPU"),
                    )
                )
                break
    return out


def _lora(profile: Profile, gpu: GPU, cal: Calibration, base_s: float) -> Advice | None:
    peak = profile.peak
    if profile.task == "infer" or profile.shape.family not in _TRANSFORMER_FAMILIES:
        return None
    how = ""
    if is_optimizer_step_peak(peak):
        # The trace's peak shows no activations; LoRA's peak is at the end of the forward pass.
        act = activation_estimate_bytes(profile)
        if act is None:
            return None
        how = "activations from 34·s·b·h·L (Korthikanti et al.); "
        traced = peak.parameters_bytes + peak.buffers_bytes + act
    else:
        traced = peak.parameters_bytes + peak.buffers_bytes + peak.activations_bytes + peak.temporaries_bytes
    mem = _mem(profile, gpu, traced, cal)
    # Frozen base weights need no weight-gradient GEMMs: half of the backward matmul FLOPs go
    # (ESTIMATION_NOTES 1.2: Llama-7B LoRA 61.7 vs full 88.9 TFLOP), and the optimizer is negligible.
    ops = tuple(
        OpRecord(
            op=o.op,
            op_class=o.op_class,
            phase=o.phase,
            dtype=o.dtype,
            count=o.count,
            flops=o.flops * 0.5,
            bytes_moved=o.bytes_moved * 0.5,
        )
        if o.phase == "backward" and o.op_class == "matmul"
        else o
        for o in profile.ops
        if o.phase != "optimizer"
    )
    ph = phase_times(ops, gpu, profile.precision, cal, causal=is_causal(profile))
    return Advice(
        action="lora",
        summary="fine-tune with LoRA adapters instead of all weights (changes the method)",
        gpu=gpu.id,
        gpu_count=1,
        peak_memory_gib=mem,
        fits=mem <= _capacity(gpu),
        step_time_s=ph.total_s,
        step_time_factor=ph.total_s / base_s,
        derivation=how + "frozen base: no gradients or optimizer state for it (adapters ≈0.1–1 % of "
        "params); backward matmuls halved (no weight gradients)",
    )


def _bf16_weights(profile: Profile, gpu: GPU, cal: Calibration, base_s: float) -> Advice | None:
    peak = profile.peak
    if profile.task == "infer" or not profile.params or gpu.bf16_tflops is None:
        return None
    if peak.parameters_bytes / profile.params < 3.5:
        return None  # weights are not fp32
    state = peak.parameters_bytes + peak.gradients_bytes + peak.optimizer_state_bytes
    if is_optimizer_step_peak(peak):
        state += peak.temporaries_bytes
    traced = peak.total_bytes - state / 2.0
    mem = _mem(profile, gpu, traced, cal)
    return Advice(
        action="bf16_weights",
        summary="keep weights, gradients and AdamW state in bf16 (pure-bf16 training)",
        gpu=gpu.id,
        gpu_count=1,
        peak_memory_gib=mem,
        fits=mem <= _capacity(gpu),
        step_time_s=None,
        step_time_factor=None,
        derivation="parameters, gradients and optimizer state halved (fp32 → bf16); activations unchanged; "
        "numerics risk: use stochastic rounding or Kahan summation for long runs",
    )


def _bigger_gpu(profile: Profile, gpu: GPU, cal: Calibration, base_s: float) -> Advice | None:
    fitting = []
    for g in all_gpus():
        if g.memory_gib <= gpu.memory_gib or g.id == gpu.id:
            continue
        try:
            e = estimate(profile, g, calibration=cal)
        except EstimateError:
            continue  # that GPU lacks a dtype path the workload needs
        if e.fits:
            fitting.append((g.memory_gib, e.step_time_s, g, e))
    if not fitting:
        return None
    # the smallest memory that fits; among equals, the fastest
    _, _, g, e = min(fitting, key=lambda t: (t[0], t[1]))
    return Advice(
        action="bigger_gpu",
        summary=f"use {g.id} ({g.memory_gib:g} GB)",
        gpu=g.id,
        gpu_count=1,
        peak_memory_gib=e.peak_memory_gib,
        fits=True,
        step_time_s=e.step_time_s,
        step_time_factor=e.step_time_s / base_s,
        derivation="same workload estimated on the smallest larger GPU that fits (fastest of those)",
    )


def advise(profile: Profile, gpu: GPU, *, calibration: Calibration | None = None) -> tuple[Advice, ...]:
    """Changes that make ``profile`` fit one ``gpu``, those that fit first, cheapest first."""
    cal = calibration or load_calibration()
    base = estimate(profile, gpu, calibration=cal)
    base_s = base.step_time_s
    candidates: list[Advice | None] = [
        _micro_batch(profile, gpu, cal, base_s),
        _checkpointing(profile, gpu, cal, base_s, base.phases.forward_s),
        _fused_optimizer(profile, gpu, cal, base_s),
        _lora(profile, gpu, cal, base_s),
        _bf16_weights(profile, gpu, cal, base_s),
        *_sharding(profile, gpu, cal, base_s),
        _bigger_gpu(profile, gpu, cal, base_s),
    ]
    found = [a for a in candidates if a is not None]

    # Those that fit first; then changes on this one GPU, then more GPUs, then another GPU model.
    def order(a: Advice) -> tuple[bool, int, float]:
        where = 2 if a.gpu != gpu.id else (1 if a.gpu_count > 1 else 0)
        return (not a.fits, where, a.step_time_factor or 1.0)

    return tuple(sorted(found, key=order))
