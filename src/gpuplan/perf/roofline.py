"""Per-operator roofline: time of each traced op on a GPU, from its FLOPs, bytes and dtype path.

An op call takes ``max(flops / (peak[path] × eff), bytes / (bandwidth × eff_bw), min_kernel_time)``;
a matmul or attention call's FLOPs are first multiplied by what its traced shapes lose on the GPU
(tile and wave quantization, small ``k``, narrow tiles, short heads: ``perf/gemm.py``), and each
shaped matmul call adds its fixed time (``Calibration.gemm_call_us``) to the compute term.
The dtype path is where the op runs on the GPU:

- float16 / bfloat16 / float8 inputs → the FP16 / BF16 / FP8 tensor-core peak;
- float32 matmul/attention → TF32 tensor cores only when the workload's precision is ``tf32``
  (PyTorch's ``torch.backends.cuda.matmul.allow_tf32`` defaults to False since 1.12), else the
  non-tensor FP32 peak;
- float32 convolutions → TF32 on Ampere and newer, because ``torch.backends.cudnn.allow_tf32``
  defaults to True; FP32 before Ampere;
- with ``Calibration.fp8_casts``, an FP8 GEMM (a 16-bit matmul an FP8 recipe runs in FP8) also pays
  for its operands' casts, kernels of their own: :func:`fp8_cast_bytes_per_element` bytes for each
  element of its input, weight and (in backward) output gradient, at the memory bandwidth;
- ``other`` ops (elementwise, norms, softmax, reductions, optimizer updates) → bandwidth-bound,
  capped by the FP32 vector peak; PyTorch's own such kernels at the bandwidth share measured for
  the GPU where ``gpuplan measure`` timed them (``Calibration.elementwise_efficiency``), and a
  batch norm in training over NCHW activations no faster than the share measured for those
  (``Calibration.nchw_norm_efficiency``, its elements at 4 bytes);
- the layout transposes cuDNN runs around an NCHW convolution (``profile/recorder.py``) → by
  their bytes, where the convolution is 16-bit (or FP8) on the tensor cores; an fp32 convolution,
  on the FP32 units or as TF32, reads NCHW as it is (measured: :func:`_transposed_conv`).

A GPU without the path an op needs (FP8 before Ada/Hopper, BF16 before Ampere) raises
:class:`EstimateError` with one line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from gpuplan.errors import EstimateError, Phrase, UnpublishedRateError
from gpuplan.hardware import GPU
from gpuplan.i18n import N_
from gpuplan.perf.attention import causal_work_fraction
from gpuplan.perf.calibration import Calibration
from gpuplan.perf.gemm import (
    alignment_elements,
    attention_multiplier,
    element_bytes,
    gemm_multiplier,
    misaligned_dimension,
    scaled_shapes,
)
from gpuplan.profile.model import LAYOUT_TRANSPOSE_OP, OpRecord, Profile, is_nchw_norm

__all__ = [
    "FP32_FROM_FP16_RATIO",
    "PhaseTimes",
    "dtype_path",
    "fp8_cast_bytes_per_element",
    "fp32_peak_tflops",
    "has_fp8_tensor_cores",
    "is_causal",
    "is_pytorch_elementwise",
    "misaligned_gemm",
    "op_seconds",
    "op_terms",
    "op_time_s",
    "phase_times",
    "precision_refusal",
    "runs_on",
]

_TENSOR_CLASSES = frozenset({"matmul", "attention", "conv"})

# What each path needs, for the one-line error when a GPU lacks it.
_NEEDS = {
    "fp8": N_("fp8 needs Ada, Hopper or Blackwell; {gpu} has no FP8 tensor cores (use {instead})"),
    "bf16": N_("bf16 needs Ampere or newer; {gpu} has no BF16 tensor cores (use {instead})"),
    "fp16": N_("{gpu} has no published FP16 tensor-core peak; choose another GPU"),
    "int8": N_("{gpu} has no published INT8 tensor-core peak; choose another GPU"),
    "fp32": N_("{gpu} has no published FP32 peak (no public datasheet); choose another GPU"),
}
_LACKS = N_("{gpu} lacks the {path} path")
#: A GPU with FP8 tensor cores whose FP8 rate no datasheet or measurement gives (the RTX 5090's
#: FP8 with FP32 accumulate is not published): unknown, not absent.
_FP8_UNPUBLISHED = N_(
    "{gpu} has FP8 tensor cores but no published FP8 rate to estimate with; use amp-bf16 or another GPU"
)
#: The same for FP16 and BF16 (a part whose tensor-core rates no source gives): unknown, not absent.
_HALF_UNPUBLISHED = N_(
    "{gpu} has {path} tensor cores but no published {path} rate to estimate with; choose another GPU"
)

#: The compute capability from which NVIDIA parts have FP16 (Volta) and BF16 (Ampere) tensor cores.
_HALF_FROM_CAPABILITY = {"fp16": (7, 0), "bf16": (8, 0)}


def has_fp8_tensor_cores(gpu: GPU) -> bool:
    """NVIDIA from compute capability 8.9 (Ada; Hopper 9.0, Blackwell 10.x and 12.x), AMD CDNA 3."""
    if gpu.vendor == "nvidia" and gpu.compute_capability:
        major, _, minor = gpu.compute_capability.partition(".")
        return (int(major), int(minor or 0)) >= (8, 9)
    return gpu.architecture == "CDNA 3"


def _has_half_tensor_cores(gpu: GPU, path: str) -> bool:
    """Whether an NVIDIA part has ``path`` (fp16, bf16) tensor cores by its compute capability,
    whatever its datasheet row gives; False for other vendors, whose rows give both where they have
    them."""
    if gpu.vendor != "nvidia" or not gpu.compute_capability or path not in _HALF_FROM_CAPABILITY:
        return False
    major, _, minor = gpu.compute_capability.partition(".")
    return (int(major), int(minor or 0)) >= _HALF_FROM_CAPABILITY[path]


def rate_unpublished(gpu: GPU, path: str) -> bool:
    """Whether ``gpu`` has ``path`` (``bf16``, ``fp16``, ``fp8``) tensor cores whose rate no source
    publishes (the H20's FP8): unknown, where a part without them (a T4's BF16) lacks the path."""
    if gpu.peak_tflops(path) is not None:
        return False
    if path == "fp8":
        return has_fp8_tensor_cores(gpu)
    return _has_half_tensor_cores(gpu, path)


def _instead(gpu: GPU, path: str, precision: str | None, task: str | None = None) -> Phrase:
    """The precision to use on ``gpu``, which lacks ``path``: the one that keeps the workload's
    weights as wide as it wrote them — an all-16-bit ``bf16`` is ``fp16-master`` on a T4 (fp16
    weights), not ``amp-fp16``, whose fp32 weights double a served model's memory. ``task``: the
    workload's (``infer``: named in a served model's words, ``fp16``; None: not known, named as
    training's)."""
    from gpuplan.i18n.phrases import either

    half = "bf16" if gpu.peak_tflops("bf16") is not None else "fp16"
    if precision in ("bf16", "bf16-master"):
        # fp16 weights: training's fp16-master (with the optimizer's fp32 master copy), inference's
        # fp16 (the same weights: serving has no optimizer, and fp16-master reads as a training word)
        return Phrase(N_("{precision}: fp16 weights"), precision="fp16" if task == "infer" else "fp16-master")
    if precision == "amp-bf16":
        names = ["amp-fp16"]
    elif precision == "fp8" and task == "infer":  # 16-bit weights to serve
        names = [half]
    elif precision == "fp8":  # 16-bit weights to serve, autocast to train
        names = ["bf16", "amp-bf16"] if half == "bf16" else ["fp16-master", "amp-fp16"]
    else:
        names = ["amp-bf16", "amp-fp16"] if path == "fp8" else ["amp-fp16"]
    return either(names)


def _missing_path(
    gpu: GPU, path: str, precision: str | None = None, task: str | None = None
) -> EstimateError:
    """The one-line error of a GPU without a peak for ``path``: unknown where the part has the
    tensor cores and no source gives their rate, absent otherwise. ``precision``: the workload's,
    whose nearest runnable one the error names (None: not known where the op is costed), in the
    words of its ``task`` (:func:`_instead`)."""
    if path == "fp8" and has_fp8_tensor_cores(gpu):
        return UnpublishedRateError.worded(_FP8_UNPUBLISHED, gpu=gpu.id)
    if _has_half_tensor_cores(gpu, path):
        return UnpublishedRateError.worded(_HALF_UNPUBLISHED, gpu=gpu.id, path=path.upper())
    return EstimateError.worded(
        _NEEDS.get(path, _LACKS), gpu=gpu.id, path=path, instead=_instead(gpu, path, precision, task)
    )


#: The tensor-core path a workload's precision puts its matmuls on (its traced dtypes); fp32 and
#: tf32 name none a GPU could lack.
_PRECISION_PATHS = {
    "fp8": "fp8",
    "amp-bf16": "bf16",
    "bf16": "bf16",
    "bf16-master": "bf16",
    "amp-fp16": "fp16",
    "fp16-master": "fp16",
}


def precision_refusal(precision: str, gpu: GPU, task: str | None = None) -> EstimateError | None:
    """Why ``gpu`` cannot run a workload of ``precision`` at all — the error its estimate would end
    in, known before the trace (an fp8 workload on an A100), the precision to use instead named for
    its ``task`` (``infer``: a served model's ``fp16``, not training's ``fp16-master``); None if it
    has the path."""
    path = _PRECISION_PATHS.get(precision)
    if path is None or gpu.peak_tflops(path) is not None:
        return None
    return _missing_path(gpu, path, precision, task)


def dtype_path(op: OpRecord, precision: str, gpu: GPU) -> str:
    """The hardware path (``fp32``, ``tf32``, ``fp16``, ``bf16``, ``fp8``, ``int8``) an op runs on."""
    dt = op.dtype
    if op.op_class not in _TENSOR_CLASSES:
        return "fp32"  # only its FP32 vector peak caps an elementwise op; it is bandwidth-bound
    if dt == "float16":
        return "fp16"
    if dt == "bfloat16":
        return "bf16"
    if dt.startswith("float8"):
        return "fp8"
    if dt in ("int8", "uint8"):
        return "int8"
    # float32 (and float64, rare, costed as fp32): TF32 where PyTorch's defaults or the workload allow it.
    if gpu.tf32_tflops is not None and (precision == "tf32" or op.op_class == "conv"):
        return "tf32"
    return "fp32"


#: misaligned_gemm's answers for the op tuples asked about last (an estimate asks once a GPU).
_MISALIGNED: dict[tuple[int, str, bool], tuple[Sequence[OpRecord], tuple[int, int] | None]] = {}


def misaligned_gemm(ops: Sequence[OpRecord], precision: str, gpu: GPU) -> tuple[int, int] | None:
    """(the misaligned dimension, the elements it should be a multiple of) of the tensor-core GEMM
    of ``ops`` with the most FLOPs among those ``perf/gemm.py`` costs as misaligned on ``gpu``;
    None when there is none. (The GPU matters only by whether it has TF32, which puts fp32
    matmuls on tensor cores: the answer is kept per op tuple, precision and that.)"""
    key = (id(ops), precision, gpu.tf32_tflops is not None)
    hit = _MISALIGNED.get(key)
    if hit is not None and hit[0] is ops:
        return hit[1]
    if len(_MISALIGNED) >= 256:
        _MISALIGNED.clear()
    out = _misaligned_gemm(ops, precision, gpu)
    _MISALIGNED[key] = (ops, out)
    return out


def _misaligned_gemm(ops: Iterable[OpRecord], precision: str, gpu: GPU) -> tuple[int, int] | None:
    found: tuple[float, int, int] | None = None
    for op in ops:
        if op.op_class != "matmul" or not op.shapes or dtype_path(op, precision, gpu) == "fp32":
            continue
        elements = alignment_elements(op.dtype)
        for calls, b, m, n, k in op.shapes:
            bad = misaligned_dimension(m, n, k, elements, op.phase == "backward")
            flops = calls * b * m * n * k
            if bad is not None and (found is None or flops > found[0]):
                found = (flops, bad, elements)
    return None if found is None else (found[1], found[2])


def _transposed_conv(dtype: str, precision: str, gpu: GPU) -> bool:
    """Whether cuDNN runs a convolution of ``dtype`` behind NCHW<->NHWC layout transposes: a 16-bit
    (or FP8) one on the tensor cores. Not an fp32 one, on the FP32 units or as TF32: on one H200
    (PyTorch 2.11, cuDNN 9) the profiler timed DeepLearningExamples' ResNet-50 in FP32, NCHW, at no
    more convolution-class kernel time than the convolutions alone cost (inference at batch 256:
    15.2 ms against 15.3; the transposes would add 10.2), and its training at 3.5–3.9 ms above them
    against 13–30 ms of transposes, where the same network in AMP paid them whole (29.3 ms against
    16.3 + 15.1) — ``benchmarks/results/h200-2026-12-04``."""
    conv = OpRecord(op="aten.convolution", op_class="conv", phase="forward", dtype=dtype, count=1, flops=1.0,
                    bytes_moved=0.0)  # fmt: skip
    return dtype_path(conv, precision, gpu) not in ("fp32", "tf32")


def is_pytorch_elementwise(op: OpRecord) -> bool:
    """Whether ``op`` is one of PyTorch's own bandwidth-bound kernels (an ``aten`` op outside the
    matmul, convolution and attention classes: elementwise, normalisation, reductions, the
    optimizer's foreach updates), which run at the share of the bandwidth measured for the GPU
    where one was (``Calibration.elementwise_efficiency``). cuDNN's layout transposes
    (``cudnn.*``), the hand-fused kernels and bitsandbytes' dequantize (``gpuplan.*``) are not."""
    return op.op_class not in _TENSOR_CLASSES and op.op.startswith("aten.")


def _memory_s(op: OpRecord, gpu: GPU, cal: Calibration) -> float:
    """Seconds ``op``'s bytes take at the bandwidth its kernels reach on ``gpu``; a batch norm in
    training over NCHW activations no less than its elements at 4 bytes each take at the share
    measured for them (``Calibration.nchw_norm_efficiency``)."""
    bandwidth = gpu.memory_bandwidth_gbps * 1e9
    if not is_pytorch_elementwise(op):
        return op.bytes_moved / (bandwidth * cal.bandwidth_efficiency)
    seconds = op.bytes_moved / (bandwidth * cal.elementwise_efficiency(gpu.id))
    if is_nchw_norm(op) and (share := cal.nchw_norm_efficiency(gpu.id)) is not None:
        as_fp32 = op.bytes_moved * 4 / element_bytes(op.dtype)
        seconds = max(seconds, as_fp32 / (bandwidth * share))
    return seconds


def is_causal(profile: Profile) -> bool:
    """Whether the model's attention is causal: decoder-only language models."""
    return profile.shape.family == "decoder"


#: Non-tensor FP32 rate over the dense FP16 tensor rate on Ampere GA10x data-centre parts
#: (A10 datasheet: 31.2 / 125 TFLOPS), used only where a datasheet gives no FP32 figure (A10G).
FP32_FROM_FP16_RATIO = 31.2 / 125.0


def fp32_peak_tflops(gpu: GPU) -> float | None:
    """The FP32 peak, or — when the datasheet gives none (A10G) — :data:`FP32_FROM_FP16_RATIO` × the
    FP16 tensor peak; None if neither is known."""
    if gpu.fp32_tflops is not None:
        return gpu.fp32_tflops
    return gpu.fp16_tflops * FP32_FROM_FP16_RATIO if gpu.fp16_tflops is not None else None


def _peak_flops(gpu: GPU, path: str, precision: str | None = None) -> float:
    peak = fp32_peak_tflops(gpu) if path == "fp32" else gpu.peak_tflops(path)
    if peak is None:
        raise _missing_path(gpu, path, precision)
    return peak * 1e12


def _tensor_flops(op: OpRecord, gpu: GPU, cal: Calibration, calls: int, path: str) -> float:
    """A tensor-core record's FLOPs with what its shapes waste on ``gpu`` (``perf/gemm.py``: tiles,
    waves, small ``k``, narrow tiles, short heads) when the calibration costs shapes
    (``Calibration.gemm_shapes``); otherwise, or for a record traced without shapes, plus the
    fitted per-call tail. NB: convolutions (cuDNN implicit GEMM) have the same losses in principle;
    their shapes are not recorded, and the fit finds no tail beyond their own efficiency."""
    if op.op_class == "conv":
        return op.flops
    if not op.shapes or not cal.gemm_shapes:
        return op.flops + calls * cal.tensor_tail_gflop_per_call * 1e9
    if op.op_class == "attention":
        return op.flops * attention_multiplier(
            op.shapes,
            gpu.sm_count,
            head_overhead=cal.attention_head_overhead,
            backward=op.op.endswith("_backward"),
        )
    # Misaligned operands slow a tensor-core GEMM down (``perf/gemm.py``); the FP32 path has no
    # tensor cores to fall back from.
    return op.flops * gemm_multiplier(
        op.shapes,
        gpu.sm_count,
        k_overhead=cal.gemm_k_overhead,
        tile_overhead=cal.gemm_tile_overhead,
        alignment=alignment_elements(op.dtype) if path != "fp32" else 0,
        backward=op.phase == "backward",
        misaligned_rate=cal.misaligned_rate(gpu.architecture),
    )


def _tensor_compute_s(
    op: OpRecord, gpu: GPU, cal: Calibration, calls: int, path: str, precision: str | None = None
) -> float:
    peak = _peak_flops(gpu, path, precision) * cal.compute_efficiency(path, op.op_class)
    compute_s = _tensor_flops(op, gpu, cal, calls, path) / peak
    if cal.gemm_shapes and op.shapes and op.op_class == "matmul":
        compute_s += calls * cal.gemm_call_us * 1e-6  # each call's fixed time
    return compute_s


def op_time_s(op: OpRecord, gpu: GPU, precision: str, cal: Calibration) -> float:
    """Seconds for all ``op.count`` calls of one op record on one GPU.

    An op that moves no bytes and does no FLOPs (views, ``prim.device``, ``empty``) launches no
    kernel and costs nothing.
    """
    compute_s, memory_s, floor_s, cast_s = op_terms(op, gpu, precision, cal)
    return max(compute_s, memory_s, floor_s) + cast_s


def op_terms(op: OpRecord, gpu: GPU, precision: str, cal: Calibration) -> tuple[float, float, float, float]:
    """The terms :func:`op_time_s` is made of, seconds: (compute, memory, launch floor, FP8 casts);
    the op takes the largest of the first three plus the fourth. The plausibility check scales
    each by its own datasheet ratio (``perf/plausibility.py``)."""
    if op.flops <= 0 and op.bytes_moved <= 0:
        return 0.0, 0.0, 0.0, 0.0
    path = dtype_path(op, precision, gpu)
    calls = max(op.count, 1)
    bandwidth = gpu.memory_bandwidth_gbps * 1e9 * cal.bandwidth_efficiency
    memory_s = _memory_s(op, gpu, cal)
    if op.flops > 0:
        if op.op_class in _TENSOR_CLASSES:
            compute_s = _tensor_compute_s(op, gpu, cal, calls, path, precision)
            if path == "tf32" and fp32_peak_tflops(gpu) is not None:
                # TF32 permits tensor-core kernels, it does not force them: cuBLAS and cuDNN pick
                # among the FP32 and TF32 kernels alike, so an op is never slower than in plain
                # FP32 (Ada and GeForce parts have as many FP32 FLOPs as dense TF32 ones).
                compute_s = min(compute_s, _tensor_compute_s(op, gpu, cal, calls, "fp32"))
        elif (fp32 := fp32_peak_tflops(gpu)) is not None:
            compute_s = op.flops / (fp32 * 1e12 * cal.vector_efficiency)
        else:
            compute_s = 0.0  # no FP32 figure: an elementwise op is costed by its bytes alone
    else:
        compute_s = 0.0
    floor_s = calls * cal.min_kernel_time_us * 1e-6
    return compute_s, memory_s, floor_s, _fp8_cast_s(op, gpu, path, cal, bandwidth)


def fp8_cast_bytes_per_element(gpu: GPU) -> int:
    """Memory traffic of casting one 16-bit GEMM operand element to FP8: read 2 bytes, write the
    1-byte copy, and on a GPU whose FP8 GEMMs take only the TN layout (compute capability below 10:
    Ada, Hopper) the 1-byte transposed copy that the other GEMM using it needs (NVIDIA Transformer
    Engine docs, "Performance Considerations", Handling transposes: "for FP8 on Hopper
    architecture, some tensors need to be physically transposed in memory"; read 2026-12-02)."""
    cc = float(gpu.compute_capability) if gpu.compute_capability else 0.0
    return 4 if cc < 10.0 else 3


def _fp8_cast_s(op: OpRecord, gpu: GPU, path: str, cal: Calibration, bandwidth: float) -> float:
    """Seconds of the casts an FP8 recipe (Transformer Engine) runs around a forward FP8 GEMM, where
    the calibration costs them (``Calibration.fp8_casts``): its
    input and weight, and in backward the output gradient (the size of its output) — each tensor
    cast once and reused by the backward GEMMs. The trace is 16-bit, so the GEMM's traced bytes are
    these three tensors' at 2 bytes an element; the casts are kernels of their own, bandwidth-bound."""
    if not cal.fp8_casts or path != "fp8" or op.phase != "forward" or op.op_class != "matmul":
        return 0.0
    return op.bytes_moved / 2.0 * fp8_cast_bytes_per_element(gpu) / bandwidth


@dataclass(frozen=True, kw_only=True)
class PhaseTimes:
    """Roofline time of one step by phase, seconds, and the share of it that is bandwidth-bound."""

    forward_s: float
    backward_s: float
    optimizer_s: float
    compute_bound_s: float
    """Part of the total spent in ops whose compute term is the larger."""
    forward_calls: int = 0
    backward_calls: int = 0
    optimizer_calls: int = 0
    """Kernel launches (ops that move bytes or do FLOPs) per phase."""

    @property
    def total_s(self) -> float:
        return self.forward_s + self.backward_s + self.optimizer_s

    @property
    def kernel_calls(self) -> int:
        return self.forward_calls + self.backward_calls + self.optimizer_calls


def _scaled_ops(
    ops: Iterable[OpRecord], *, batch_scale: float, causal: bool, seq_len: int | None
) -> Iterator[OpRecord]:
    """``ops`` at another micro-batch and with a causal kernel's share of the attention FLOPs."""
    causal_share = causal_work_fraction(seq_len) if causal else 1.0
    for op in ops:
        scale = batch_scale if op.phase != "optimizer" else 1.0
        flops_scale = scale * (causal_share if op.op_class == "attention" else 1.0)
        if scale != 1.0 or flops_scale != 1.0:
            op = OpRecord(
                op=op.op,
                op_class=op.op_class,
                phase=op.phase,
                dtype=op.dtype,
                count=op.count,
                flops=op.flops * flops_scale,
                bytes_moved=op.bytes_moved * scale,
                shapes=scaled_shapes(op.shapes, scale) if scale != 1.0 else op.shapes,
            )
        yield op


def op_seconds(
    ops: Iterable[OpRecord],
    gpu: GPU,
    precision: str,
    cal: Calibration,
    *,
    batch_scale: float = 1.0,
    causal: bool = False,
    seq_len: int | None = None,
) -> Iterator[tuple[OpRecord, float]]:
    """Each op record (as :func:`phase_times` evaluates it) with its roofline seconds."""
    for op in _scaled_ops(ops, batch_scale=batch_scale, causal=causal, seq_len=seq_len):
        if runs_on(op, precision, gpu):
            yield op, op_time_s(op, gpu, precision, cal)


def runs_on(op: OpRecord, precision: str, gpu: GPU) -> bool:
    """Whether ``gpu`` runs ``op`` at all: cuDNN runs fp32 and TF32 convolutions on NCHW tensors
    without the layout transposes it runs around a 16-bit one (:func:`_transposed_conv`)."""
    return op.op != LAYOUT_TRANSPOSE_OP or _transposed_conv(op.dtype, precision, gpu)


def phase_times(
    ops: Iterable[OpRecord],
    gpu: GPU,
    precision: str,
    cal: Calibration,
    *,
    batch_scale: float = 1.0,
    causal: bool = False,
    seq_len: int | None = None,
    op_factor: Callable[[OpRecord], float] | None = None,
) -> PhaseTimes:
    """Sum the roofline over ops, by phase.

    ``batch_scale`` evaluates another micro-batch: forward/backward FLOPs and bytes scale with it
    (NB: weight reads do not really scale; at small scales this slightly underestimates), the
    optimizer does not. ``causal``: the model's attention is causal (decoders); FlopCounterMode
    counts it as full, but fused kernels (FlashAttention, SDPA ``is_causal``) skip the key blocks
    above the diagonal: at ``seq_len`` tokens they compute ``perf.attention.causal_work_fraction``
    of the count (the diagonal blocks whole; one half when the length is unknown).
    ``op_factor``: a multiplier on each op's time (a measured step's ratio to the roofline for
    the op's class, ``perf/anchor.py``).
    """
    by_phase = {"forward": 0.0, "backward": 0.0, "optimizer": 0.0}
    compute_bound = 0.0
    calls = {"forward": 0, "backward": 0, "optimizer": 0}
    for op, t in op_seconds(
        ops, gpu, precision, cal, batch_scale=batch_scale, causal=causal, seq_len=seq_len
    ):
        if t > 0 and op.op != LAYOUT_TRANSPOSE_OP:
            # (the layout transposes are launched by cuDNN inside the convolution's own call)
            calls[op.phase] += op.count
        bound = op.flops > 0 and t > _memory_s(op, gpu, cal) and t > op.count * cal.min_kernel_time_us * 1e-6
        if op_factor is not None:
            t *= op_factor(op)
        by_phase[op.phase] += t
        if bound:
            compute_bound += t
    return PhaseTimes(
        forward_s=by_phase["forward"],
        backward_s=by_phase["backward"],
        optimizer_s=by_phase["optimizer"],
        compute_bound_s=compute_bound,
        forward_calls=calls["forward"],
        backward_calls=calls["backward"],
        optimizer_calls=calls["optimizer"],
    )
