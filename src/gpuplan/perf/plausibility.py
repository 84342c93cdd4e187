"""Plausibility guards: every estimate checked against what datasheets allow.

An estimate of one step on one GPU is the roofline of the traced ops at fitted efficiencies. Three
physical bounds hold for any such time, and each is checked (:func:`check`):

1. **Datasheet peaks.** The step cannot run its tensor FLOPs faster than the datasheet's dense peak
   of their precision, nor move its bytes faster than the datasheet's memory bandwidth.
2. **The ratio to a reference GPU.** The same step on the reference GPU of the generation
   (:data:`REFERENCES`: the calibrated flagship; H100-SXM for an architecture with none) gives a
   ratio ``step(reference) / step(gpu)``. The datasheets bound it op by op (:func:`_ratio_bounds`):
   each op's time on the reference, its compute at most its own path's peak ratio faster (BF16
   tensor cores, FP32 CUDA cores, TF32 …, with the tile and wave losses of each SM count) and its
   traffic at most the bandwidth ratio faster (an elementwise op's at most the step-wide band's
   larger ratio) — a tensor op at the larger of the two, since which binds its kernel the roofline
   only models —, and no faster than the launch floor or its work at the full datasheet figures,
   is the least time it takes here; summed, they give ``datasheet_high`` (and at the smaller
   ratios ``datasheet_low``). A step of one path keeps the band of that path's peak ratio and the
   bandwidth ratio; one with FP32 matmuls (LoRA adapters kept in FP32) has them at the FP32 ratio,
   where an A10 has 1.6× an A100's FP32 rate (31.2 against 19.5 TFLOPS, the catalog's datasheet
   figures) against 0.40× its BF16 peak. And a GPU is not credited with kernels more efficient
   than the reference's: the ratio with the reference architecture's fitted factor on both, each
   GPU at its own measured matmul fraction (``parity_high``), bounds it too — a roofline of every
   op on this GPU, so of the step's own mix already.
3. **Power.** A part of the same architecture and memory as a higher-power one, with no higher
   datasheet peak (H100 NVL at 400 W vs H100 SXM at 700 W), does not run a step faster: its peaks
   are quoted at boost clocks it cannot hold under a training load on a third of the power, and
   how far its clocks drop is not published. So its step time is bounded below by the higher-power
   part's (:func:`power_floor`), the conservative bound of an unknown.

A ratio outside these bounds is flagged in words (``Plausibility.flags``), in the estimate's notes
and in ``estimate --json`` (``plausibility``). The three cases this module was written for — MI300X
at 1.58× an H100-SXM on ResNet-50, an H100-NVL faster than an H100-SXM, a B200 at 2.4× an H100 on a
convnet — are pinned in ``tests/perf/test_plausibility.py`` with their causes (an architecture
without calibration rows estimated at full efficiency; no power limit) fixed where they arise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from gpuplan.hardware import GPU
from gpuplan.i18n import N_, _, current_language
from gpuplan.i18n.phrases import item_list
from gpuplan.perf.attention import causal_work_fraction
from gpuplan.perf.calibration import Calibration
from gpuplan.perf.roofline import (
    PhaseTimes,
    dtype_path,
    fp8_cast_bytes_per_element,
    fp32_peak_tflops,
    is_causal,
    op_seconds,
    op_terms,
    phase_times,
    runs_on,
)
from gpuplan.profile.model import OpRecord, Profile

__all__ = [
    "REFERENCES",
    "Plausibility",
    "check",
    "datasheet_floor_s",
    "power_floor",
    "reference_for",
    "roofline_phases",
    "unseen_architecture_note",
]

#: The reference GPU of each architecture: its calibrated flagship (the GPU with the most
#: calibration rows of the architecture). An architecture not listed is compared with H100-SXM,
#: the newest calibrated flagship.
REFERENCES = {
    "Volta": "V100-SXM2-16GB",
    "Turing": "T4",
    "Ampere": "A100-SXM4-80GB",
    "Ada Lovelace": "L40S",
    "Hopper": "H100-SXM",
}
DEFAULT_REFERENCE = "H100-SXM"
_TENSOR_CLASSES = ("matmul", "attention", "conv")
#: Rounding slack on a ratio bound: 0.5 %, so that float noise in equal rooflines never flags.
_SLACK = 1.005


@dataclass(frozen=True, kw_only=True)
class Plausibility:
    """How one GPU's step compares with what its datasheet allows."""

    reference_gpu: str | None
    """The GPU compared with; None when the GPU is its own reference."""
    ratio: float | None
    """Step time on the reference ÷ on this GPU (above 1: this GPU is faster)."""
    datasheet_low: float | None
    """The ratio (this GPU ÷ the reference) with each op of the step at the smaller of its own
    path's compute-peak ratio and the bandwidth ratio (:func:`_ratio_bounds`); for a step of one
    path, the smaller of that path's peak ratio and the bandwidth ratio."""
    datasheet_high: float | None
    """The same with each op at the larger of the two, none faster than the launch floor: the
    step, with its own mix of paths and memory traffic, runs no faster than this at the datasheets'
    ratios."""
    parity_high: float | None
    """The ratio with the reference architecture's fitted factor on both GPUs, each at its own
    measured matmul fraction."""
    peak_fraction: float
    """The step's tensor FLOPs per second over the datasheet's dense peak (≤ 1)."""
    bandwidth_fraction: float
    """The step's bytes per second over the datasheet's bandwidth (≤ 1)."""
    flags: tuple[str, ...] = ()
    """Each bound the estimate breaks, in words; empty when it is plausible."""


def reference_for(gpu: GPU) -> GPU | None:
    """The reference GPU ``gpu`` is compared with (None when it is its own reference)."""
    from gpuplan.errors import GpuplanError
    from gpuplan.hardware import get_gpu

    ref_id = REFERENCES.get(gpu.architecture, DEFAULT_REFERENCE)
    if ref_id == gpu.id:
        return None
    try:
        return get_gpu(ref_id)
    except GpuplanError:
        return None


def _tensor_paths(profile: Profile, gpu: GPU) -> list[str]:
    """The precision paths of the step's tensor FLOPs (``bf16``, ``fp32``, ``tf32`` …), the one that
    carries most of them first."""
    by_path: dict[str, float] = {}
    for op in profile.ops:
        if op.op_class in _TENSOR_CLASSES and op.flops > 0:
            path = dtype_path(op, profile.precision, gpu)
            by_path[path] = by_path.get(path, 0.0) + op.flops
    return sorted(by_path, key=lambda p: -by_path[p])


def _dominant_path(profile: Profile, gpu: GPU) -> str:
    """The precision path that carries most of the step's tensor FLOPs (``bf16``, ``tf32`` …)."""
    return next(iter(_tensor_paths(profile, gpu)), "fp32")


def _peak(gpu: GPU, path: str) -> float | None:
    return fp32_peak_tflops(gpu) if path == "fp32" else gpu.peak_tflops(path)


def _op_peak(op: OpRecord, precision: str, gpu: GPU) -> float | None:
    """The highest datasheet peak, TFLOPS, ``op`` may run at on ``gpu``: its path's, or for a TF32
    op the better of TF32 and FP32 (cuBLAS and cuDNN pick among both); None if unpublished."""
    path = dtype_path(op, precision, gpu)
    peaks = [_peak(gpu, path)] + ([fp32_peak_tflops(gpu)] if path == "tf32" else [])
    return max((p for p in peaks if p), default=None)


#: Roofline times already worked out, per (profile object, GPU, efficiencies): the planner asks
#: about the same profile on the same GPU at many counts and links, and the references' times do not
#: depend on them. The profile itself is kept with its entry, so that a reused id() never matches.
_CACHE: dict[tuple[object, ...], tuple[Profile, PhaseTimes]] = {}
_CACHE_SIZE = 512


def roofline_phases(profile: Profile, gpu: GPU, cal: Calibration) -> PhaseTimes:
    """``phase_times`` of ``profile`` on ``gpu`` at ``cal``'s efficiencies, kept for the next question
    about the same traced step on the same GPU (the compute stage and the checks share it)."""
    key = (
        id(profile),
        gpu.id,
        cal.tensor_matmul_efficiency,
        cal.tensor_conv_efficiency,
        cal.vector_efficiency,
        cal.bandwidth_efficiency,
        cal.elementwise_efficiency(gpu.id),
        cal.nchw_norm_efficiency(gpu.id),
        cal.misaligned_rate(gpu.architecture),
        cal.min_kernel_time_us,
        cal.tf32_factor,
        cal.fp8_factor,
        cal.tensor_tail_gflop_per_call,
        cal.gemm_shapes,
        cal.gemm_k_overhead,
        cal.gemm_tile_overhead,
        cal.gemm_call_us,
        cal.attention_head_overhead,
        cal.attention_factor,
        cal.matmul_caps,
        cal.fp8_casts,
    )
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is profile:
        return hit[1]
    out = phase_times(
        profile.ops, gpu, profile.precision, cal, causal=is_causal(profile), seq_len=profile.seq_len
    )
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.clear()
    _CACHE[key] = (profile, out)
    return out


_FLOOR_CACHE: dict[tuple[int, str], tuple[Profile, float]] = {}


def datasheet_floor_s(profile: Profile, gpu: GPU) -> float:
    """The least time one traced micro-batch's forward and backward can take on ``gpu``: its
    matmul and convolution FLOPs at the datasheet's dense peak of their path, nothing else (no
    attention — its causal share is a kernel's choice —, no memory traffic, no launches). A time
    below it claims more than the datasheet; the range's fast end is held to it (``stages/spread.py``).
    e.g. 7.6 PFLOP of bf16 matmuls on an RTX 3090 (71 TFLOPS dense with FP32 accumulate): ≥ 107 s."""
    key = (id(profile), gpu.id)
    hit = _FLOOR_CACHE.get(key)
    if hit is not None and hit[0] is profile:
        return hit[1]
    floor = 0.0
    for op in profile.ops:
        if op.op_class not in ("matmul", "conv") or op.phase == "optimizer" or op.flops <= 0:
            continue
        best = _op_peak(op, profile.precision, gpu)
        if best:
            floor += op.flops / (best * 1e12)
    if len(_FLOOR_CACHE) >= _CACHE_SIZE:
        _FLOOR_CACHE.clear()
    _FLOOR_CACHE[key] = (profile, floor)
    return floor


def _fractions(profile: Profile, gpu: GPU, step_s: float) -> tuple[float, float]:
    """The step's tensor FLOPs and bytes a second over the datasheet's peak and bandwidth, counting
    the ops ``gpu`` runs: not the layout transposes cuDNN skips around an FP32 or TF32 convolution,
    which the roofline does not time (an FP32 ResNet-50 step had moved "138 % of the datasheet's
    bandwidth" on an L40S with their 11 GB counted). A causal model's attention FLOPs count at the
    causal kernel's share (:func:`gpuplan.perf.attention.causal_work_fraction`), as the roofline
    times them."""
    path = _dominant_path(profile, gpu)
    peak = _peak(gpu, path)
    ran = [op for op in profile.ops if runs_on(op, profile.precision, gpu)]
    # a causal model's fused attention computes only its causal share of the traced FLOPs, as the
    # roofline times it: counted in full, the peak fraction read high
    causal = causal_work_fraction(profile.seq_len) if is_causal(profile) else 1.0
    tensor = sum(
        op.flops * (causal if op.op_class == "attention" else 1.0)
        for op in ran
        if op.op_class in _TENSOR_CLASSES
    )
    moved = sum(op.bytes_moved for op in ran)
    peak_fraction = tensor / step_s / (peak * 1e12) if peak and step_s > 0 else 0.0
    bw_fraction = moved / step_s / (gpu.memory_bandwidth_gbps * 1e9) if step_s > 0 else 0.0
    return peak_fraction, bw_fraction


_BOUNDS: dict[tuple[object, ...], tuple[Profile, Calibration, tuple[float, float]]] = {}


def _ratio_bounds(profile: Profile, gpu: GPU, ref: GPU, calibration: Calibration) -> tuple[float, float]:
    """(low, high): the ratio ``step(ref) / step(gpu)`` with each op of ``profile`` at the smaller and
    at the larger of the datasheet ratios it may run at, the reference's fitted efficiencies on both.

    An op's time on the reference is the largest of its compute, memory and launch-floor terms
    (``perf/roofline.py``). Its compute runs at most its compute ratio faster here: that term on the
    reference over the same term on this GPU at the reference's efficiencies — the peak ratio of
    the op's own path (an FP32 matmul on the CUDA cores at the FP32 ratio, a TF32 one at the better
    of TF32 and FP32, as the roofline picks), with the tile and wave losses of each GPU's SM count.

    - A matmul, attention or convolution: which of compute and traffic its kernel is really bound
      by the roofline only models, so it may run at the larger of its compute ratio and the
      bandwidth ratio (``high``; the smaller for ``low``).
    - Any other op (elementwise, norms, copies): its compute at its compute ratio, its traffic at
      the larger of the bandwidth ratio and the peak ratio of the step's dominant tensor path, as
      the step-wide band allowed it — the per-GPU shares of the bandwidth these kernels reach
      differ (measured on one part, held to its rate on its siblings) — and at the smaller for
      ``low``.

    No op runs faster than the launch floor, which no datasheet moves, nor than its FLOPs at the
    full datasheet peak and its bytes at the full bandwidth here. A step of one path and no
    floor-bound kernels so keeps the band of that path's peak ratio and the bandwidth ratio. The
    FP8 casts' traffic goes at the bandwidth ratio. An op only the reference runs (a layout
    transpose around a convolution that is TF32 there, FP32 here) is left out, so the bound is
    never tighter for it; one only this GPU runs only slows it."""
    key = (id(profile), gpu.id, ref.id, id(calibration))
    hit = _BOUNDS.get(key)
    if hit is not None and hit[0] is profile and hit[1] is calibration:
        return hit[2]
    ref_cal = replace(calibration, measured=()).for_gpu(ref.id, ref.architecture)
    bandwidth = gpu.memory_bandwidth_gbps / ref.memory_bandwidth_gbps
    # Elementwise traffic at the bandwidth ratio or the step's dominant tensor path's peak ratio,
    # whichever is larger, as the step-wide band allowed it.
    dominant = _dominant_path(profile, gpu)
    mine, theirs = _peak(gpu, dominant), _peak(ref, dominant)
    traffic = (bandwidth, mine / theirs if mine and theirs else bandwidth)
    cast_bytes = fp8_cast_bytes_per_element(gpu) / fp8_cast_bytes_per_element(ref)
    ref_s = fastest_s = slowest_s = 0.0
    for op, seconds in op_seconds(
        profile.ops, ref, profile.precision, ref_cal, causal=is_causal(profile), seq_len=profile.seq_len
    ):
        ref_s += seconds
        if seconds <= 0 or not runs_on(op, profile.precision, gpu):
            continue
        compute_s, memory_s, _, cast_s = op_terms(op, ref, profile.precision, ref_cal)
        here_s = op_terms(op, gpu, profile.precision, ref_cal)[0] if compute_s > 0 else 0.0
        # (no FP32 figure here: the roofline costs the op by its bytes, and its compute bounds nothing)
        compute = compute_s / here_s if here_s > 0 else math.inf
        # The launch floor, and the op's FLOPs and bytes at the full datasheet peak and bandwidth.
        peak = _op_peak(op, profile.precision, gpu)
        floor_s = max(
            max(op.count, 1) * calibration.min_kernel_time_us * 1e-6,
            op.bytes_moved / (gpu.memory_bandwidth_gbps * 1e9),
            op.flops / (peak * 1e12) if peak else 0.0,
        )
        casts_s = cast_s * cast_bytes / bandwidth
        if op.op_class in _TENSOR_CLASSES:
            work_s = max(compute_s, memory_s)
            fastest_s += max(work_s / max(compute, bandwidth), floor_s) + casts_s
            slowest_s += max(work_s / min(compute, bandwidth), floor_s) + casts_s
        else:
            fastest_s += max(compute_s / compute, memory_s / max(traffic), floor_s) + casts_s
            slowest_s += max(compute_s / compute, memory_s / min(traffic), floor_s) + casts_s
    out = (ref_s / slowest_s, ref_s / fastest_s) if fastest_s > 0 else (1.0, 1.0)
    if len(_BOUNDS) >= _CACHE_SIZE:
        _BOUNDS.clear()
    _BOUNDS[key] = (profile, calibration, out)
    return out


_CHECKS: dict[tuple[object, ...], tuple[Profile, Calibration, Plausibility]] = {}


def check(profile: Profile, gpu: GPU, calibration: Calibration, step_s: float) -> Plausibility:
    """Check ``step_s``, the roofline time of one micro-batch step of ``profile`` on ``gpu`` (one
    GPU, no communication), against the bounds of the module docstring.

    The answer depends on these four only (not on the GPU count or the links), so it is kept for
    the planner's next question about the same GPU — and on the language its flags are written
    in, which a server answering in English and Chinese changes between questions."""
    key = (id(profile), gpu.id, id(calibration), step_s, current_language())
    hit = _CHECKS.get(key)
    if hit is not None and hit[0] is profile and hit[1] is calibration:
        return hit[2]
    out = _check(profile, gpu, calibration, step_s)
    if len(_CHECKS) >= _CACHE_SIZE:
        _CHECKS.clear()
    _CHECKS[key] = (profile, calibration, out)
    return out


def _check(profile: Profile, gpu: GPU, calibration: Calibration, step_s: float) -> Plausibility:
    peak_fraction, bw_fraction = _fractions(profile, gpu, step_s)
    flags: list[str] = []
    if peak_fraction > _SLACK:
        flags.append(
            _("{gpu}: the step runs its tensor work at {share:.0%} of the datasheet's peak").format(
                gpu=gpu.id, share=peak_fraction
            )
        )
    if bw_fraction > _SLACK:
        flags.append(
            _("{gpu}: the step moves its bytes at {share:.0%} of the datasheet's bandwidth").format(
                gpu=gpu.id, share=bw_fraction
            )
        )
    power = _power_reference(gpu)
    if power is not None:
        full = roofline_phases(profile, power, calibration.for_gpu(power.id, power.architecture)).total_s
        if step_s < full / _SLACK:
            flags.append(
                _(
                    "{gpu} ({watts:g} W) estimated faster than {ref} ({ref_watts:g} W), the same chip "
                    "with more power"
                ).format(gpu=gpu.id, watts=gpu.tdp_w, ref=power.id, ref_watts=power.tdp_w)
            )
    ref = reference_for(gpu)
    if ref is None:
        return Plausibility(
            reference_gpu=None,
            ratio=None,
            datasheet_low=None,
            datasheet_high=None,
            parity_high=None,
            peak_fraction=peak_fraction,
            bandwidth_fraction=bw_fraction,
            flags=tuple(flags),
        )
    # The reference at its fitted efficiencies (a bench measurement of either GPU aside).
    ref_cal = replace(calibration, measured=()).for_gpu(ref.id, ref.architecture)
    ref_s = roofline_phases(profile, ref, ref_cal).total_s
    ratio = ref_s / step_s
    low, high = _ratio_bounds(profile, gpu, ref, calibration)
    # The same step on this GPU at the reference architecture's fitted factor, with this GPU's own
    # measured matmul fraction (a published measurement of the part, or this unit's `gpuplan
    # bench`): that fraction is calibration evidence, so a GeForce card measured above its rated
    # boost is not "credited with better kernels" for it; an architecture factor above the
    # reference's is.
    parity = ref_s / roofline_phases(profile, gpu, calibration.for_gpu(gpu.id, ref.architecture)).total_s
    if ratio > high * _SLACK:
        flags.append(_beyond_datasheets(profile, gpu, ref, ratio, low, high))
    if ratio > parity * _SLACK:
        d = _places(ratio, parity)
        flags.append(
            _(
                "{gpu} estimated at {ratio}× {ref}, {parity}× at {ref}'s fitted efficiencies: "
                "credited with better kernels than {ref} without calibration evidence"
            ).format(gpu=gpu.id, ratio=f"{ratio:.{d}f}", ref=ref.id, parity=f"{parity:.{d}f}")
        )
    return Plausibility(
        reference_gpu=ref.id,
        ratio=ratio,
        datasheet_low=low,
        datasheet_high=high,
        parity_high=parity,
        peak_fraction=peak_fraction,
        bandwidth_fraction=bw_fraction,
        flags=tuple(flags),
    )


def _beyond_datasheets(profile: Profile, gpu: GPU, ref: GPU, ratio: float, low: float, high: float) -> str:
    """The flag of a ratio above ``high``. Its range is named by the dominant path's peak ratio and
    the bandwidth ratio where it reads as they do; where the step's other paths (FP32 matmuls
    beside BF16 ones), wave losses or launch floors move it, by the step's own mix."""
    d = _places(ratio, high)
    paths = _tensor_paths(profile, gpu) or ["fp32"]
    mine, theirs = _peak(gpu, paths[0]), _peak(ref, paths[0])
    bands = [gpu.memory_bandwidth_gbps / ref.memory_bandwidth_gbps]
    if mine and theirs:
        bands.append(mine / theirs)
    fields = {
        "gpu": gpu.id,
        "ratio": f"{ratio:.{d}f}",
        "ref": ref.id,
        "low": f"{low:.{d}f}",
        "high": f"{high:.{d}f}",
    }
    if (fields["low"], fields["high"]) == (f"{min(bands):.{d}f}", f"{max(bands):.{d}f}"):
        return _(
            "{gpu} estimated at {ratio}× {ref}: more than its datasheets allow "
            "({low}–{high}×: the {path} peak and memory bandwidth ratios)"
        ).format(path=paths[0].upper(), **fields)
    return _(
        "{gpu} estimated at {ratio}× {ref}: more than its datasheets allow "
        "({low}–{high}×: the step's own mix of {paths} and memory-bound work at the datasheet ratios)"
    ).format(paths=item_list(p.upper() for p in paths), **fields)


def _places(value: float, limit: float) -> int:
    """Decimals to write ``value`` and the ``limit`` it is over with: two, or as many more as it
    takes for the two to read apart ("0.40× … more than its datasheets allow (0.29–0.40×)" had
    called a ratio out of a range it seemed to end)."""
    places = 2
    while places < 6 and f"{value:.{places}f}" == f"{limit:.{places}f}":
        places += 1
    return places


def unseen_architecture_note(gpu: GPU, calibration: Calibration) -> str:
    """Said on an estimate of a GPU whose architecture has no calibration rows: at which fitted
    factor its matmuls are taken ("" for a calibrated architecture; Pascal and older have no tensor
    cores, so the note names the matmul efficiency, not the tensor cores)."""
    fitted = dict(calibration.arch_factors)
    if not fitted or gpu.architecture in fitted:
        return ""
    low = min(fitted, key=lambda a: fitted[a])
    return _(
        "{architecture} has no calibration rows: its matmul efficiency is taken at the lowest fitted "
        "architecture factor ({low}'s {factor:.2f}), not at full efficiency"
    ).format(architecture=gpu.architecture, low=low, factor=fitted[low])


#: Each GPU's higher-power twin, once worked out (the datasheets do not change while running).
_POWER_REFERENCES: dict[str, tuple[GPU, GPU | None]] = {}


def _power_reference(gpu: GPU) -> GPU | None:
    """The higher-power part of the same architecture and memory with peaks at least ``gpu``'s."""
    hit = _POWER_REFERENCES.get(gpu.id)
    if hit is not None and hit[0] is gpu:
        return hit[1]
    out = _find_power_reference(gpu)
    _POWER_REFERENCES[gpu.id] = (gpu, out)
    return out


def _find_power_reference(gpu: GPU) -> GPU | None:
    from gpuplan.hardware import all_gpus

    if gpu.tdp_w is None:
        return None
    best: GPU | None = None
    for other in all_gpus():
        if (
            other.id == gpu.id
            or other.architecture != gpu.architecture
            or other.memory_type != gpu.memory_type
        ):
            continue
        if other.tdp_w is None or other.tdp_w <= gpu.tdp_w or other.consumer != gpu.consumer:
            continue
        if any((gpu.peak_tflops(p) or 0.0) > (other.peak_tflops(p) or 0.0) for p in ("fp16", "bf16", "tf32")):
            continue
        if best is None or (other.tdp_w or 0.0) > (best.tdp_w or 0.0):
            best = other
    return best


_POWER_NOTE = N_(
    "{gpu} ({watts:g} W) is bounded by {ref} ({ref_watts:g} W), the same chip with more power: its datasheet "
    "peaks assume boost clocks it cannot hold under a full load, and how far they drop is not published"
)


def power_floor(
    profile: Profile, gpu: GPU, calibration: Calibration, phases: PhaseTimes
) -> tuple[PhaseTimes, str]:
    """``phases`` of ``gpu``, each no shorter than the higher-power part's of the same chip (with the
    note saying so), or ``phases`` unchanged and "" when there is no such part or it is slower."""
    ref = _power_reference(gpu)
    if ref is None:
        return phases, ""
    theirs = roofline_phases(profile, ref, calibration.for_gpu(ref.id, ref.architecture))
    if theirs.total_s <= phases.total_s:
        return phases, ""
    floored = replace(
        phases,
        forward_s=max(phases.forward_s, theirs.forward_s),
        backward_s=max(phases.backward_s, theirs.backward_s),
        optimizer_s=max(phases.optimizer_s, theirs.optimizer_s),
        compute_bound_s=max(phases.compute_bound_s, theirs.compute_bound_s),
    )
    note = _(_POWER_NOTE).format(gpu=gpu.id, watts=gpu.tdp_w, ref=ref.id, ref_watts=ref.tdp_w)
    return floored, note
