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
- **A 4-bit base (QLoRA)**: each quantized weight is dequantized to a 16-bit copy for every matmul
  that reads it, forward and backward (and again in a checkpointed block's recompute): the trace
  records each as one memory-bound kernel (:data:`~gpuplan.profile.model.DEQUANTIZE_OP`, its codes
  and block constants read, its copy written), costed on the roofline like any other — the same
  bytes whatever the batch, so a larger share of a small step. A profile traced before those
  records takes one published factor instead (:data:`QLORA_SLOWDOWN`). An 8-bit base has no
  published cost: its range is widened instead (``perf/stages/spread.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from gpuplan.i18n import _
from gpuplan.perf.anchor import (
    OP_CLASSES,
    SAME_GPU_LOG_HALFWIDTH,
    TRANSFER_LOG_HALFWIDTH,
    Anchor,
    AnchoredStep,
    anchor_note,
    class_times,
    trace_class,
)
from gpuplan.perf.calibration import Calibration, load_calibration
from gpuplan.perf.plausibility import (
    Plausibility,
    check,
    datasheet_floor_s,
    power_floor,
    roofline_phases,
    unseen_architecture_note,
)
from gpuplan.perf.roofline import FP32_FROM_FP16_RATIO, PhaseTimes, is_causal, op_time_s, phase_times
from gpuplan.perf.stages.layout import Layout, ModelParallel
from gpuplan.profile.model import DEQUANTIZE_OP, Profile

__all__ = [
    "QLORA_DEQUANT_FAST",
    "QLORA_DEQUANT_SLOW",
    "QLORA_SLOWDOWN",
    "QLORA_SLOWDOWN_HIGH",
    "QLORA_SLOWDOWN_LOW",
    "ComputeTime",
    "compute_time",
    "pipeline_bubble_fraction",
]

#: QLoRA's step time over LoRA's on the same model and GPU, measured by one publisher on one stack
#: (the factor a profile traced before the dequantization records takes; the others cost them):
#: torchtune's README table "Memory and training speed" (pytorch/torchtune@30b8519e README.md,
#: 2024-09-24, read 2026-12-04; batch 2 packed to 2048 tokens, torch.compile on, one RTX 4090):
#: Llama 3.1 8B LoRA 3,083 tokens/s, QLoRA 2,413 — 3083 / 2413 = 1.278 (the rows of
#: calibration/data/calibration_v2.csv). Its QLoRA config adapts q, k, v, o and the MLP where the
#: LoRA one adapts q and v, so the figure holds more adapters as well as the 4-bit weights: an upper
#: bound on the dequantization's share of that step. The range runs between the published figures
#: (:data:`QLORA_SLOWDOWN_LOW`, :data:`QLORA_SLOWDOWN_HIGH`): the dequantization costs the same per
#: weight whatever the batch, so it is a larger share of a small step than of a large one.
QLORA_SLOWDOWN = 3083.0 / 2413.0
#: The fastest published: torchtune's "Optimization flags" table (pytorch/torchtune@1814feb1
#: README.md, 2024-11-18, read 2026-12-04; Llama 3.2 3B on one A100, batch 2 packed to 4,096
#: tokens, compile, checkpointing and activation offloading on both, the same rank-64 adapters on q,
#: v, o and the MLP in both configs ``llama3_2/3B_{lora,qlora}_single_device.yaml``): LoRA 8,210
#: tokens/s, QLoRA 8,035 — 8210 / 8035 = 1.022.
QLORA_SLOWDOWN_LOW = 8210.0 / 8035.0
#: The slowest published without a stated setup: "LoRA is about 66% faster than QLoRA in terms of
#: tuning speed" (Google Cloud, Vertex AI documentation, "LoRA and QLoRA recommendations for LLMs",
#: https://cloud.google.com/vertex-ai/generative-ai/docs/model-garden/lora-qlora, read 2026-12-04):
#: QLoRA's time 1.66 × LoRA's. litgpt's config hub (Lightning-AI/litgpt@03ffc551
#: config_hub/finetune/README.md, read 2026-12-04; one A10G, eager, configs that differ only in
#: ``quantize: bnb.nf4``; whole-run training time, periodic validation included) falls inside:
#: Phi-2 at micro-batch 4 1.19, Llama 2 7B at micro-batch 2 1.39, Mistral 7B (v0.1 and v0.2) at
#: micro-batch 2 1.44 — save Falcon 7B at micro-batch 1, 2.05: of the eight figures, seven lie in
#: [1.022, 1.66].
QLORA_SLOWDOWN_HIGH = 1.66
#: What the per-weight dequantization cost leaves unexplained of the published QLoRA/LoRA pairs, each
#: end of the range (``perf/stages/spread.py``). The fast end: torchtune's Llama 3.1 8B pair
#: (:data:`QLORA_SLOWDOWN`'s; its configs' own adapters traced, 2,048-token packed batches) was
#: modelled 1.412 against the published 1.278 — 1.412 / 1.278 = 1.105 — with fp32 adapters on both
#: sides. With both cases' adapters in bf16, as torchtune builds them, it is modelled 1.225:
#: published × 1.043 slower, inside the slow end. No pair is now
#: modelled slower than published; the fast end keeps that earlier residual, the one spread of this
#: model seen on the fast side, rather than none.
QLORA_DEQUANT_FAST = 1.105
#: The slow end: litgpt's A10G pairs (``QLORA_SLOWDOWN_HIGH``'s source), modelled at the configs'
#: max_seq_length 512 — Llama 2 7B at micro-batch 2 1.206 against 1.39 (× 1.153), Mistral 7B
#: (the mistral-7b preset's shape, litgpt's v0.1/v0.2 differing only in vocabulary) 1.216 against
#: 1.44 (× 1.184). Alpaca2k is unpacked and padded to each batch's longest, so its batches are
#: shorter than 512 and the dequantization a larger share of them than modelled there: the
#: residual is an upper bound on what the model misses. (Measured with fp32 adapters and no adapter
#: dropout; those configs' bf16 adapters and dropout 0.05 are now traced in the cases, and the ratios
#: were not measured again.)
QLORA_DEQUANT_SLOW = 1.19


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
    anchored: AnchoredStep | None = None
    """The measured step the times above are anchored on (they are then that step's, moved to
    this GPU class by class), or None: the model's own times."""
    notes: tuple[str, ...] = ()
    plausibility: Plausibility | None = None
    """The roofline step checked against the datasheets (``perf/plausibility.py``)."""
    floor_s: float = 0.0
    """The least the step's matmuls and convolutions take at the datasheet's peaks
    (``plausibility.datasheet_floor_s`` × ``stage_times``): no range reaches below it."""


def pipeline_bubble_fraction(mp: ModelParallel, microbatches: int) -> float:
    """Share of the pipeline's time its stages idle: ``((p−1)/v) / (m + (p−1)/v)`` (SC21 §2.2)."""
    idle = (mp.pipeline - 1) / mp.virtual_stages
    return idle / (microbatches + idle)


def compute_time(layout: Layout) -> ComputeTime:
    """The compute of one optimizer step on one GPU of ``layout``: the model's, or — when the
    workload's step was measured (``gpuplan measure``) — that step moved to this GPU."""
    model = _modelled(layout)
    if layout.anchor is None:
        return model
    # The datasheet check stays the model's: the anchored step is the user's measurement, moved.
    return replace(_anchored(layout, layout.anchor, model), plausibility=model.plausibility)


def _host_bound_note() -> str:
    return _("host-bound: the CPU issues ops slower than the GPU runs them (small batch)")


def _graphs_forward_note(kernels: int) -> str:
    """What ``cuda_graphs: true`` assumes of an inference step: the whole traced step captured."""
    return _(
        "CUDA graphs (cuda_graphs: true): the whole step, {n:,} kernels, is replayed without the CPU "
        "issuing each one; a step whose kernels depend on the data (a decode loop that stops at an "
        "end token, a Python loop reading GPU values) cannot be captured whole: set cuda_graphs: false "
        "for it"
    ).format(n=kernels)


def _compile_note(cal: Calibration) -> str:
    return _("compile: true — compute time ÷ {speedup:g} (torch.compile speed-up)").format(
        speedup=cal.compile_speedup
    )


def _stages_per_step(layout: Layout) -> float:
    """Stage-micro-batch times per optimizer step: ``m + (p − 1)/v`` (SC21 §2.2)."""
    mp = layout.model_parallel
    return layout.microbatches + (mp.pipeline - 1) / mp.virtual_stages


def _dequantize_s(profile: Profile, layout: Layout) -> float:
    """Roofline seconds of one micro-batch's 4-bit dequantization kernels on this GPU (its share)."""
    return sum(
        op_time_s(op, layout.gpu, profile.precision, layout.calibration)
        for op in profile.ops
        if op.op == DEQUANTIZE_OP
    )


def _dequantize_note(layout: Layout, stages: float) -> str:
    """What the 4-bit base's dequantization costs per optimizer step on this GPU."""
    local, whole = layout.local, layout.whole
    moved = sum(op.bytes_moved for op in whole.ops if op.op == DEQUANTIZE_OP)
    share = sum(op.bytes_moved for op in local.ops if op.op == DEQUANTIZE_OP) / moved if moved else 0.0
    step_s = stages * _dequantize_s(local, layout)
    if layout.request.compiled:
        step_s /= layout.calibration.compile_speedup
    base = _("nf4, double quantization") if local.base_double_quantization else "nf4"
    return _(
        "quantized base ({base}): dequantizing {n:,} 4-bit weights: {ms:.0f} ms per step (each "
        "weight to a 16-bit copy for every matmul that reads it, forward and backward, at this GPU's "
        "memory bandwidth)"
    ).format(base=base, n=round(whole.quantized_weights * share), ms=1e3 * step_s)


def _modelled(layout: Layout) -> ComputeTime:
    """The compute of one optimizer step on one GPU of ``layout``, from the roofline alone."""
    gpu, cal, profile = layout.gpu, layout.calibration, layout.local
    dp = layout.data_parallel
    notes: list[str] = []
    if gpu.fp32_tflops is None and gpu.fp16_tflops is not None:
        notes.append(
            _("{gpu}: no published FP32 peak; taken as {ratio:.2f} × its FP16 tensor peak").format(
                gpu=gpu.id, ratio=FP32_FROM_FP16_RATIO
            )
        )
    # Kept per (traced step, GPU, efficiencies): the planner asks the same step on the same GPU at
    # many counts, networks and hosts, and the roofline sum depends on none of them.
    phases = roofline_phases(profile, gpu, cal)
    # The physical bounds (perf/plausibility.py): a lower-power part of a chip no faster than the
    # full-power one; the step checked against the datasheets and the generation's reference GPU.
    phases, power_note = power_floor(profile, gpu, cal, phases)
    base_cal = layout.request.calibration or load_calibration()
    plausible = check(profile, gpu, base_cal, phases.total_s)
    notes += [n for n in (unseen_architecture_note(gpu, base_cal), power_note) if n]
    if gpu.peak_basis and gpu.matmul_fraction is not None and gpu.bf16_tflops is not None:
        # a peak no source publishes: said, with what the time runs at (the measured rate)
        notes.append(
            _(
                "{gpu}: its BF16 peak {peak:g} TFLOPS is derived, not published (`gpuplan gpus --json` "
                "says how); the matmul rate is the one measured on one, {rate:.1f} TFLOPS ({pct:.0f} % of "
                "that peak: `gpuplan bench` on yours replaces it)"
            ).format(
                gpu=gpu.id,
                peak=gpu.bf16_tflops,
                rate=gpu.bf16_tflops * gpu.matmul_fraction,
                pct=100 * gpu.matmul_fraction,
            )
        )
    if base_cal.matmul_fractions and gpu.matmul_fraction is None and base_cal.measurement(gpu.id) is None:
        from gpuplan.hardware import achievable_matmul_fraction, architecture_measured, same_chip_measured

        twin = same_chip_measured(gpu)
        arch = gpu.architecture
        if twin is not None:
            notes.append(
                _(
                    "no published matmul measurement: the matmul rate is the {twin}'s, {pct:.0f} % of the "
                    "datasheet, the same chip at the same clocks ({sms} SMs, {memory}, {peak:g} TFLOPS "
                    "BF16; `gpuplan bench` on one replaces it)"
                ).format(
                    twin=twin.id,
                    pct=100 * achievable_matmul_fraction(gpu),
                    sms=gpu.sm_count,
                    memory=gpu.memory_type,
                    peak=gpu.bf16_tflops,
                )
            )
        else:
            # unknown is never the best case: it can rank a GPU below one whose datasheet it exceeds
            among = (
                _("{architecture} GPUs").format(architecture=arch)
                if architecture_measured(gpu)
                else _("its vendor's GPUs (none of {architecture} is measured)").format(architecture=arch)
            )
            notes.append(
                _(
                    "no published matmul measurement: the matmul rate is taken at the lowest measured among "
                    "{among}, {pct:.0f} % of the datasheet (`gpuplan bench` on one replaces it)"
                ).format(pct=100 * achievable_matmul_fraction(gpu), among=among)
            )
    notes += plausible.flags
    # A step captured in CUDA graphs replays its kernels without the CPU issuing each one (the
    # GPU's own per-kernel gap, ``min_kernel_time_us``, stays in the roofline).
    graphs = layout.request.step_replays_graphs
    host_us = 0.0 if graphs else cal.host_overhead_us * 1e-6
    if graphs and profile.task != "infer":
        notes.append(_("CUDA graphs: the training step is replayed without the CPU issuing each kernel"))
    elif graphs:
        notes.append(_graphs_forward_note(phases.forward_calls))
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
        notes.append(_host_bound_note())
    if profile.base_quantization == "nf4" and layout.whole.quantized_weights:
        notes.append(_dequantize_note(layout, _stages_per_step(layout)))
    elif profile.base_quantization == "nf4":
        # Traced before the dequantization kernels were recorded: one published factor instead.
        micro_s *= QLORA_SLOWDOWN
        base = _("nf4, double quantization") if profile.base_double_quantization else "nf4"
        notes.append(
            _(
                "quantized base ({base}): forward and backward × {factor:.2f} for dequantizing the 4-bit "
                "weights at every matmul (QLoRA against LoRA, torchtune's published pair on one RTX 4090)"
            ).format(base=base, factor=QLORA_SLOWDOWN)
        )
    # 1F1B: m micro-batches take (m + (p−1)/v) stage times (SC21 §2.2); each stage time's exposed
    # tensor-parallel all-reduces and sends are the communication stage's.
    stages = _stages_per_step(layout)
    compute_s = stages * micro_s + optimizer_s
    if layout.request.compiled:
        # torch.compile fuses the elementwise ops and cuts launches: one factor on the compute.
        compute_s /= cal.compile_speedup
        notes.append(_compile_note(cal))
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
        plausibility=plausible,
        floor_s=stages * datasheet_floor_s(profile, gpu),
    )


def _anchored(layout: Layout, anchor: Anchor, model: ComputeTime) -> ComputeTime:
    """The measured step's classes, each scaled by the roofline's time for it here over its time
    on the measured GPU (``perf/anchor.py``), through the same data and pipeline schedule."""
    gpu, cal, local, whole = layout.gpu, layout.calibration, layout.local, layout.whole
    source_cal = layout.source_calibration or cal
    from gpuplan.hardware import get_gpu

    source = get_gpu(anchor.source_gpu)
    kw: dict[str, object] = {"causal": is_causal(whole), "seq_len": whole.seq_len}
    phases = phase_times(
        local.ops,
        gpu,
        local.precision,
        cal,
        causal=is_causal(local),
        seq_len=local.seq_len,
        op_factor=lambda op: anchor.factor(trace_class(op)),
    )
    # One GPU's share of the measured step's kernel calls (tensor × pipeline split) carries the
    # same share of its CPU time and of the kernels the trace has no op for.
    whole_calls = sum(op.count for op in whole.ops) or 1
    share = sum(op.count for op in local.ops) / whole_calls
    bandwidth = gpu.memory_bandwidth_gbps * 1e9 * cal.bandwidth_efficiency
    extra_s = share * (anchor.gaps_s + anchor.unmodelled_s * anchor.source_bandwidth / bandwidth)
    host_s = share * anchor.host_s
    fs = anchor.forward_share
    optimizer_s = phases.optimizer_s
    if layout.parallelism != "ddp" and layout.data_parallel > 1:
        optimizer_s /= layout.data_parallel  # each rank updates only its shard
    # As the model's own compute stage: a phase takes the longer of the GPU's kernels and the CPU
    # issuing them — the CPU's time measured on the user's machine.
    micro_s = max(phases.forward_s + phases.backward_s + extra_s * fs, host_s * fs)
    optimizer_s = max(optimizer_s + extra_s * (1.0 - fs), host_s * (1.0 - fs))
    mp = layout.model_parallel
    stages = layout.microbatches + (mp.pipeline - 1) / mp.virtual_stages
    # NB: no torch.compile factor — `gpuplan measure` ran the step as the workload says (compiled
    # when it sets compile: true), so the measurement holds it.
    compute_s = stages * micro_s + optimizer_s
    here = class_times(whole.ops, gpu, whole.precision, cal, **kw)
    there = class_times(whole.ops, source, whole.precision, source_cal, **kw)
    ratio = {c: here[c] / there[c] for c in OP_CLASSES if there[c] > 0 and here[c] > 0}
    local_model = class_times(
        local.ops, gpu, local.precision, cal, causal=is_causal(local), seq_len=local.seq_len
    )
    m = anchor.measurement
    same = anchor.source_gpu == gpu.id
    run = m.run_log_halfwidth
    half = max(SAME_GPU_LOG_HALFWIDTH, run) if same else math.hypot(TRANSFER_LOG_HALFWIDTH, run)
    anchored = AnchoredStep(
        measured_on=anchor.source_gpu,
        measured_at=m.measured_at,
        measured_step_s=m.step_time_s,
        transferred=not same,
        hardware_ratio=tuple(ratio.items()),
        class_s=tuple((c, local_model[c] * anchor.factor(c)) for c in OP_CLASSES if local_model[c] > 0),
        host_s=host_s * fs,
        model_compute_s=model.compute_s,
        log_halfwidth=half,
        model_log_halfwidth=cal.time_log_halfwidth_for(gpu.architecture, local.shape.family),
    )
    # The model's host-bound and compile-factor lines describe times the measurement replaced.
    dropped = {_host_bound_note(), _compile_note(cal)}
    notes = [anchor_note(anchor, gpu, ratio), *(n for n in model.notes if n not in dropped)]
    return ComputeTime(
        phases=phases,
        micro_batch_s=micro_s,
        optimizer_s=optimizer_s,
        stage_times=stages,
        compute_s=compute_s,
        anchored=anchored,
        notes=tuple(notes),
        floor_s=model.floor_s,
    )
