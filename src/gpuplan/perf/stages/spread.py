"""Stage 5 of an estimate, the spread: the step time's point, its 80 % range, and the input bound.

The point is compute plus the communication compute does not hide, plus the time a paged
optimizer's state spends crossing PCIe when it does not fit (``GpuMemory.paging_s``). The range: the 80 %
split-conformal interval of the calibration's held-out residuals (wider for a GPU architecture or
a model family with no calibration rows). Where the network between nodes is unknown, the point
is costed on a typical instance network, the range's slow end on the slowest GPU instance network of
the embedded catalog and its fast end on the fastest fabric (``perf/links.py``): the spread between
fabrics, not a point on one assumed rate (the residuals never saw that network). An unfitted prior
has no held-out residuals: its range is its residual band combined with the spread of software
stacks (:data:`SOFTWARE_SLOWER`, :data:`SOFTWARE_FASTER`), since the point assumes one level of
software (``perf.estimate.SOFTWARE_LEVEL``). An image job is never faster than its host CPUs decode.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpuplan.errors import EstimateError
from gpuplan.i18n import N_, _
from gpuplan.perf.calibration import Calibration
from gpuplan.perf.input_pipeline import HostInput, InputPipeline, host_input
from gpuplan.perf.stages.communication import Communication
from gpuplan.perf.stages.compute import (
    QLORA_DEQUANT_FAST,
    QLORA_DEQUANT_SLOW,
    QLORA_SLOWDOWN,
    QLORA_SLOWDOWN_HIGH,
    QLORA_SLOWDOWN_LOW,
    ComputeTime,
)
from gpuplan.perf.stages.layout import Layout
from gpuplan.perf.stages.memory import GpuMemory

__all__ = [
    "FAMILY_WORDS",
    "SOFTWARE_FASTER",
    "SOFTWARE_SLOWER",
    "StepSpread",
    "bounded_step",
    "gpu_spread",
    "host_bound",
    "step_spread",
    "time_spread",
]

#: The model families (``ModelShape.family``) in words a reader knows: the codes ("custom",
#: "cnn") stay codes in the calibration files, and a code left in a Chinese sentence reads as English.
FAMILY_WORDS = {
    "cnn": N_("convolutional networks (CNN)"),
    "vit": N_("vision transformers (ViT)"),
    "encoder": N_("encoder models (BERT and the like)"),
    "encoder-decoder": N_("encoder-decoder models (T5 and the like)"),
    "decoder": N_("decoder models (GPT, Llama and the like)"),
    "custom": N_("models of your own code (model.python)"),
}

#: How much slower a less tuned stack runs the same model on the same GPU: NVIDIA's own ResNet-50
#: AMP on V100 went from 893 (pytorch-19.10) to 1200 img/s (later NGC): 1200 / 893 = 1.34.
SOFTWARE_SLOWER = 1200.0 / 893.0
#: How much faster a more tuned stack runs it: torchtune Llama-3.2-3B full fine-tune on A100 went
#: from 7075 to 8998 tokens/s with torch.compile: 8998 / 7075 = 1.27.
SOFTWARE_FASTER = 8998.0 / 7075.0


def time_spread(cal: Calibration) -> tuple[float, float]:
    """(faster, slower): factors that bound compute time below and above the point estimate.

    The model's own error (the calibration band) and the software spread are independent, so
    they add in quadrature on a log scale: exp(√(ln² band + ln² software)).
    """
    band = math.log(cal.time_band)
    faster = math.exp(math.hypot(band, math.log(SOFTWARE_FASTER)))
    slower = math.exp(math.hypot(band, math.log(SOFTWARE_SLOWER)))
    return faster, slower


@dataclass(frozen=True, kw_only=True)
class StepSpread:
    """One optimizer step's time, seconds: the point and its 80 % range."""

    step_s: float
    low_s: float
    high_s: float
    input_bound: bool = False
    """The CPUs' decode and augmentation, not the GPUs, set the step time (image workloads)."""
    input_samples_per_s: float | None = None
    """Images/s the host CPUs feed all GPUs at the point rate; None when not checked (or the host
    is not known and a typical one bounds the slow end alone)."""
    host_input: HostInput | None = None
    """The host's input pipeline the step was bounded by, and what it did (worded spreads only)."""
    notes: tuple[str, ...] = ()


def step_spread(
    layout: Layout, compute: ComputeTime, comm: Communication, memory: GpuMemory | None = None
) -> StepSpread:
    """The step time of ``layout`` from its compute, communication and paging, with its range."""
    spread = gpu_spread(layout, compute, comm, memory)
    return host_bound(spread, layout.samples_per_step, layout.count, layout.request.input_pipeline)


def gpu_spread(
    layout: Layout, compute: ComputeTime, comm: Communication, memory: GpuMemory | None = None
) -> StepSpread:
    """The step and its range on the GPUs alone: :func:`step_spread` before the host's input
    pipeline (it reads nothing of ``layout.request.input_pipeline``), so that offers of one GPU
    shape on different hosts share it and apply their own host with :func:`host_bound`.
    ``memory``'s paging time (a paged optimizer that spills) runs between the updates: it adds to
    the compute, and to both ends of its range."""
    cal, gpu, profile = layout.calibration, layout.gpu, layout.local
    paging_s = memory.paging_s if memory is not None else 0.0
    compute_s, comm_s = compute.compute_s + paging_s, comm.exposed_s
    comm_fast_s, comm_slow_s = comm.exposed_fast_s, comm.exposed_slow_s
    step_s = compute_s + comm_s
    if step_s <= 0:
        raise EstimateError.worded(
            N_("profile {workload!r} has no timed ops; re-trace the workload"), workload=profile.workload_name
        )
    notes: list[str] = []
    half = cal.time_log_halfwidth_for(gpu.architecture, profile.shape.family)
    if compute.anchored is not None:
        # The compute is a measured step (moved to this GPU): its own, narrower range; the
        # communication keeps the model's (or the prior's) range, and an unknown network's two ends.
        a = math.exp(compute.anchored.log_halfwidth)
        faster, slower = (math.exp(half), math.exp(half)) if half is not None else time_spread(cal)
        step_low = compute_s / a + comm_fast_s / faster
        step_high = compute_s * a + comm_slow_s * slower
        why = (
            _("the spread of the measured steps")
            if not compute.anchored.transferred
            else _("the transfer's error on published pairs of one workload on two GPUs")
        )
        if half is not None:
            # Said beside the model's own range: a step whose timed runs varied widely, moved to
            # another GPU, can be no surer than the model.
            why = _("{why}; the model's own: ×/÷ {factor}").format(why=why, factor=f"{math.exp(half):.2f}")
        line = _("range: ×/÷ {factor} on the anchored compute ({why})")
        notes.append(line.format(factor=f"{a:.2f}", why=why))
    elif half is None:  # an unfitted prior: its residual band ⊕ the software spread
        faster, slower = time_spread(cal)
        step_low = compute_s / faster + comm_fast_s
        step_high = compute_s * slower + comm_slow_s
    else:
        # The 80 % split-conformal interval of the held-out residuals, stretched to an unknown
        # network's two ends (the residuals never saw that network).
        step_low = (compute_s + comm_fast_s) / math.exp(half)
        step_high = (compute_s + comm_slow_s) * math.exp(half)
        if half > (cal.time_log_halfwidth or half):
            # Name what the calibration never saw: the architecture, the model family, or both.
            unseen = [gpu.architecture] if gpu.architecture not in cal.seen_architectures else []
            if cal.seen_families and profile.shape.family not in cal.seen_families:
                family = profile.shape.family
                words = FAMILY_WORDS.get(family)
                unseen.append(_(words) if words else _("{family} models").format(family=family))
            notes.append(
                _(
                    "no calibration rows of {unseen}: the range is the leave-one-architecture-out one (wider)"
                ).format(unseen=_(" or ").join(unseen))
            )
    if profile.base_quantization == "nf4" and profile.quantized_weights:
        # The point costs each 4-bit weight's dequantization (compute.py); the range allows what
        # that leaves of the published QLoRA/LoRA pairs (compute.QLORA_DEQUANT_FAST … _SLOW).
        step_low /= QLORA_DEQUANT_FAST
        step_high *= QLORA_DEQUANT_SLOW
        notes.append(
            _(
                "quantized base (nf4): the range allows ÷ {fast:.2f} to × {slow:.2f} for what the "
                "dequantization cost leaves of the published QLoRA-against-LoRA pairs"
            ).format(fast=QLORA_DEQUANT_FAST, slow=QLORA_DEQUANT_SLOW)
        )
    elif profile.base_quantization == "nf4":
        # Traced before the dequantization was recorded: the point took one published
        # QLoRA-against-LoRA factor; the others published span more
        # (compute.QLORA_SLOWDOWN_LOW … QLORA_SLOWDOWN_HIGH): the range allows each end.
        step_low /= QLORA_SLOWDOWN / QLORA_SLOWDOWN_LOW
        step_high *= QLORA_SLOWDOWN_HIGH / QLORA_SLOWDOWN
        notes.append(
            _(
                "quantized base (nf4): the range allows QLoRA against LoRA from × {low:.2f} to × {high:.2f} "
                "(the published figures' spread; the dequantization is a larger share of a small step)"
            ).format(low=QLORA_SLOWDOWN_LOW, high=QLORA_SLOWDOWN_HIGH)
        )
    if profile.base_quantization == "int8":
        # LLM.int8()'s dequantization (and its outlier decomposition) is not modelled and no
        # published slowdown was found: the slow end allows QLoRA's slowest published figure.
        step_high *= QLORA_SLOWDOWN_HIGH
        notes.append(
            _(
                "quantized base (int8): the cost of dequantizing the 8-bit weights at every matmul is not "
                "modelled; the slow end allows × {factor:g}, 4-bit QLoRA's published slowdown"
            ).format(factor=QLORA_SLOWDOWN_HIGH)
        )
    # No faster than the datasheet: the step's matmuls and convolutions at their dense peaks (a
    # residual band is a ratio and knows no ceiling; it put an RTX 3090's fast end above its peak).
    step_low = max(step_low, min(compute.floor_s, step_s))
    return StepSpread(step_s=step_s, low_s=step_low, high_s=step_high, notes=tuple(notes))


def host_bound(
    spread: StepSpread, samples: int, gpus: int, pipe: InputPipeline | None, *, worded: bool = True
) -> StepSpread:
    """``spread`` (the GPUs' step, :func:`gpu_spread`) bounded by what ``pipe`` feeds ``gpus`` GPUs
    a step of ``samples``; ``spread`` itself when nothing feeds them (None).

    ``worded=False`` leaves the host's notes out (the same figures): the planner asks about
    thousands of hosts and words the notes only of those it shows."""
    if pipe is None:
        return spread
    step_s, step_low, step_high, input_bound, point = bounded_step(spread, samples, gpus, pipe)
    notes = list(spread.notes)
    slower = step_high / spread.high_s
    bound_note = ""  # the note on a known host that bounds the step, said again under the table
    if worded and pipe.slow_end_only:
        # A typical host stands in: its vCPUs (an image job decoding on them), else its RAM alone.
        ram_only = pipe.vcpus_per_gpu is None
        if step_high > spread.high_s:
            rule = (
                _(
                    "the instance's RAM not known: {said}: the slow end up to {pct:.0f} % slower; the "
                    "point and the fast end assume its page cache holds the dataset (give --instance)"
                )
                if ram_only
                else _(
                    "the instance's vCPUs not known: input pipeline at {said}: the slow end up to "
                    "{pct:.0f} % slower; the point and the fast end assume it keeps up (give --instance)"
                )
            )
        else:
            rule = (
                _("the instance's RAM not known: {said}: the disk keeps up even at the slow end")
                if ram_only
                else _(
                    "the instance's vCPUs not known: input pipeline at {said}: keeps up even at the slow end"
                )
            )
        notes.append(rule.format(said=pipe.describe(gpus), pct=100.0 * (slower - 1.0)))
    elif worded and pipe.serial:
        said = pipe.describe(gpus)
        bound_note = _("input decoded in the training process, not overlapped ({said})").format(said=said)
        notes.append(bound_note)
    # The pipeline's description is written only where a note says it (the planner asks about
    # thousands of hosts, most of them never bound).
    elif worded and input_bound:
        rule = _("input-bound: the host feeds {rate:,.0f} samples/s, slower than the GPUs ({said})")
        bound_note = rule.format(rate=point, said=pipe.describe(gpus))
        notes.append(bound_note)
    elif worded and step_high == samples / pipe.samples_per_s(gpus)[1]:
        notes.append(
            _("may be input-bound at the slow end of the CPU rate ({said})").format(said=pipe.describe(gpus))
        )
    bounded = input_bound or step_high > spread.high_s
    return StepSpread(
        step_s=step_s,
        low_s=step_low,
        high_s=step_high,
        input_bound=input_bound,
        # A typical host stands in for an unknown one: no host's rate was checked.
        input_samples_per_s=None if pipe.slow_end_only else point,
        host_input=host_input(pipe, bounded, slower, bound_note, tuple(notes[len(spread.notes) :]))
        if worded
        else None,
        notes=tuple(notes),
    )


def bounded_step(
    spread: StepSpread, samples: int, gpus: int, pipe: InputPipeline
) -> tuple[float, float, float, bool, float]:
    """The figures of :func:`host_bound` alone: the step, its low and high ends, whether the host
    bounds it, and the samples/s the host feeds (no notes, no :class:`StepSpread`: the planner asks
    about thousands of hosts)."""
    step_s, step_low, step_high = spread.step_s, spread.low_s, spread.high_s
    # The DataLoader workers prefetch while the GPUs compute, so the step takes the longer of
    # the two: samples ÷ images/s of all the hosts' vCPUs. E.g. ResNet-50 at 256 images per
    # GPU on 8 GPUs with 12 vCPUs each: 2048 ÷ (96 × 100) = 0.213 s per step at least.
    point, low, high = pipe.samples_per_s(gpus)
    if pipe.slow_end_only:
        # No instance known: a typical one's vCPUs at the slow decode rate bound the slow end;
        # the point and the fast end keep the GPUs' own time (the best case, shown beside it).
        return step_s, step_low, max(step_high, samples / low), False, point
    if pipe.serial:
        # DataLoader(num_workers=0): each batch is decoded in the training process before the
        # GPUs run it, so the two add up instead of overlapping.
        return step_s + samples / point, step_low + samples / high, step_high + samples / low, True, point
    return (
        max(step_s, samples / point),
        max(step_low, samples / high),
        max(step_high, samples / low),
        samples / point > step_s,
        point,
    )
