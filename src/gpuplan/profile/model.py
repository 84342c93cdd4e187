"""The Profile: what tracing one step of a workload on fake tensors tells us.

This is the contract between ``profile/`` (which produces it by tracing) and ``perf/`` (which turns it
into time and memory on a given GPU). It knows nothing of GPUs. It serialises to plain JSON so that
the store can cache it by the workload's content (``Profile.to_json`` / ``Profile.from_json``).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

# The model source reports the shape; the profile carries it (re-exported for the profile's users).
from gpuplan.vocab import Precision
from gpuplan.workload.shape import ModelShape

__all__ = [
    "DEQUANTIZE_OP",
    "HEAD_CHUNK_TOKENS",
    "LAYOUT_TRANSPOSE_OP",
    "LOSS_CHUNKS",
    "NCHW_NORM_SUFFIX",
    "PROFILE_SCHEMA_VERSION",
    "MemoryBreakdown",
    "ModelShape",
    "OpRecord",
    "Profile",
    "is_nchw_norm",
]

#: Bump when the fields below change, or what they count (2: ``_unsafe_view`` moves no bytes;
#: 3: ``activation_checkpointing`` recorded; 4: the software stack — the presets' dropout as their
#: configs set it, dropout traced as CUDA's ``native_dropout`` (a one-byte mask), the layout
#: transposes of NCHW convolutions, fused kernels; 5: the GEMM and attention shapes of each tensor-core
#: record, ``OpRecord.shapes``; 6: batch norm in training on NCHW activations named apart,
#: :data:`NCHW_NORM_SUFFIX`; 7: ``Profile.compiled_loss_saving_bytes``); cached profiles of another
#: version are re-traced.
PROFILE_SCHEMA_VERSION = 7

#: The op name of the NCHW ↔ NHWC transposes cuDNN runs around a tensor-core convolution whose
#: tensors are NCHW (``profile/recorder.py``): bytes only, costed where the convolution runs on
#: tensor cores (``perf/roofline.py``).
LAYOUT_TRANSPOSE_OP = "cudnn.nchw_nhwc_transpose"

#: Appended to the op name of a batch norm in training (forward or backward) whose activations are
#: 4-D NCHW (PyTorch's default layout, not ``channels_last``): its kernels reduce each channel over
#: strided memory, and on one H200 they ran at a fraction of the rate the same network's batch
#: norms reached in ``channels_last`` (``perf/roofline.py``, ``Calibration.nchw_norm_fractions``).
NCHW_NORM_SUFFIX = ":nchw"

#: The op name of the kernels that dequantize a 4-bit (nf4) base weight to a 16-bit copy before
#: each matmul that reads it (``workload/adapt.py``,
#: :func:`~gpuplan.workload.adapt.counting_dequantizations`): one call per dequantization, its
#: bytes the stored codes and block constants read plus the 16-bit copy written; a memory-bound op
#: like any other ``other`` record (``perf/roofline.py``), at the calibrated bandwidth efficiency.
#: bitsandbytes' kernel ran below that before its 2025 rewrite, by an unpublished absolute margin:
#: "on the P100, A100, and H100 ... dequantization is between 1.36x - 2.07x faster", on sm86 and
#: sm89 (A10, RTX 4090, L4) "1.3x - 1.6x for only smaller problem sizes" (bitsandbytes pull request
#: #1747, "Improve kDequantizeBlockwise kernel performance for NF4/FP4", 2025-09-05,
#: github.com/bitsandbytes-foundation/bitsandbytes/pull/1747, read 2026-12-04) — not applied here.
DEQUANTIZE_OP = "gpuplan.dequantize_nf4"

#: Token chunks of the ``chunked`` and ``fused-linear`` losses (torchtune's ``num_output_chunks``
#: default; ``profile/losses.py`` runs them so, and the advisor counts what each chunk keeps).
LOSS_CHUNKS = 8
#: Tokens per output-layer chunk of ``chunked-logits`` (litgpt's ``lm_head_chunk_size=128`` in
#: ``litgpt/finetune/lora.py`` and ``chunk_size: int = 128`` of ``litgpt/utils.py``
#: ``chunked_cross_entropy``, Lightning-AI/litgpt@03ffc551, read 2026-12-04).
HEAD_CHUNK_TOKENS = 128

#: The precisions whose gradients accumulate in a persistent fp32 buffer (read per estimate stage).
_FP32_MAIN_GRADS = frozenset(p.value for p in Precision if p.fp32_main_grads)
#: The precisions whose model weights are 16-bit (a checkpoint writes them at 2 bytes each).
_SIXTEEN_BIT_WEIGHTS = frozenset(p.value for p in Precision if p.sixteen_bit_weights)

Phase = Literal["forward", "backward", "optimizer"]
OpClass = Literal["matmul", "attention", "conv", "other"]
"""``matmul``/``attention``/``conv`` run on tensor cores when their dtype allows; ``other`` are
elementwise, norms, softmax, reductions, copies: bandwidth-bound on any GPU."""


@dataclass(frozen=True, kw_only=True)
class OpRecord:
    """All calls of one aten op in one phase with one input dtype, aggregated."""

    op: str
    """aten overload packet name, e.g. ``aten.mm``, ``aten.convolution_backward``."""
    op_class: OpClass
    phase: Phase
    dtype: str
    """Input dtype of the op as traced: ``float32``, ``float16``, ``bfloat16``, ``float8_e4m3fn`` …"""
    count: int
    """Number of calls in one step."""
    flops: float
    """Floating-point operations of all calls (FlopCounterMode plus our attention formulas)."""
    bytes_moved: float
    """Bytes read plus bytes written by all calls (sum of input and output tensor sizes)."""
    shapes: tuple[tuple[int, int, int, int, int], ...] = ()
    """The problem shapes of the calls, ``(calls, b, m, n, k)`` each, heaviest first: for a matmul
    ``b`` batched ``(m × k) · (k × n)`` GEMMs (a fused GEMM's backward gives two shapes per call, data
    and weight gradient); for an attention call ``(calls, batch × heads, query length, key length,
    head dim)``. Empty for other ops, and in profiles traced before shapes were recorded
    (``perf/gemm.py`` then has nothing to quantize)."""


def is_nchw_norm(op: OpRecord) -> bool:
    """Whether ``op`` is a batch norm in training over NCHW activations (:data:`NCHW_NORM_SUFFIX`)."""
    return op.op.endswith(NCHW_NORM_SUFFIX)


@dataclass(frozen=True, kw_only=True)
class MemoryBreakdown:
    """Bytes live at the step's peak, by category (MemTracker's categories), on one device."""

    parameters_bytes: float
    buffers_bytes: float
    gradients_bytes: float
    optimizer_state_bytes: float
    activations_bytes: float
    temporaries_bytes: float
    other_bytes: float = 0.0
    held_bytes: float = 0.0
    """Of ``activations_bytes``, what the step's loss still holds at an optimizer-step peak: a
    chunked-logits loop's logits (and what their graph keeps) held through the optimizer step into
    the next step's forward. They scale with the micro-batch; they are not the step's activations.
    0 at any other peak, and in profiles traced before it was recorded."""

    @property
    def at_optimizer_step(self) -> bool:
        """Whether this peak is at the optimizer step: (almost) no activations but held ones are
        live, and the temporaries are the optimizer's (foreach AdamW's parameter-sized
        ``_foreach_sqrt``)."""
        return self.activations_bytes - self.held_bytes < 0.01 * self.total_bytes

    @property
    def total_bytes(self) -> float:
        return (
            self.parameters_bytes
            + self.buffers_bytes
            + self.gradients_bytes
            + self.optimizer_state_bytes
            + self.activations_bytes
            + self.temporaries_bytes
            + self.other_bytes
        )


@dataclass(frozen=True, kw_only=True)
class Profile:
    """One traced step of a workload at its per-GPU micro-batch, on one device, no parallelism."""

    key: str
    """Content hash of the workload fields that shape the trace (the cache key)."""
    workload_name: str
    task: str
    """``train``, ``finetune`` or ``infer``."""
    precision: str
    """The workload's precision setting (``fp32``, ``tf32``, ``amp-bf16`` …)."""
    batch_size: int
    """Per-GPU micro-batch the trace ran with."""
    seq_len: int | None
    """Tokens per sample for sequence models, else None."""
    params: int
    """All parameters (tied weights counted once)."""
    trainable_params: int
    flops_per_step: float
    """Total FLOPs of one traced step (forward + backward + optimizer)."""
    forward_flops: float
    ops: tuple[OpRecord, ...]
    peak: MemoryBreakdown
    """Memory at the step's peak (allocator-rounded tensors; no context, workspace or slack)."""
    shape: ModelShape
    activation_checkpointing: str = "none"
    """``none``, ``full`` or ``selective``: what the traced backward recomputes (the trace's peak
    already reflects it; the per-GPU memory of sharded runs needs it where the peak hides it)."""
    checkpoint_keep: float | None = None
    """Traced without checkpointing: the fraction of the peak's activations that full activation
    checkpointing of the model's repeated blocks would keep, measured per block (what runs outside
    them, their outputs, the largest block's own activations recomputed at once). None where the
    model has no blocks, the peak is the optimizer step's, or in profiles traced before it was
    recorded."""
    attention: str = "fused"
    """``fused`` or ``eager``: how the traced attention ran (eager: the s×s scores are in the trace's
    FLOPs, bytes and peak). Profiles traced before it was recorded were all fused."""
    paged_optimizer_bytes: float = 0.0
    """The part of ``peak.optimizer_state_bytes`` in CUDA managed memory (paged optimizers): outside
    PyTorch's allocator, paged out to host memory when the GPU is full. (0 in profiles traced before
    it was recorded, which is right for them: no paged optimizer existed then.)"""
    base_quantization: str = "none"
    """How the frozen base's linear weights were stored (``none``, ``nf4``, ``int8``:
    ``model.lora.quantization``); the trace holds them at that size. A 4-bit weight's dequantization
    before each matmul is the :data:`DEQUANTIZE_OP` record; an 8-bit one's is not modelled
    (``perf/stages/spread.py``). ("none" in profiles traced before
    it was recorded, which is right for them.)"""
    base_double_quantization: bool = False
    """``nf4`` only: the block constants were quantized again to 8 bits
    (``model.lora.double_quantization``). (False in profiles traced before it was recorded: their
    estimate words the base as plain ``nf4``, as it did then.)"""
    quantized_linears: int = 0
    """Linear layers whose frozen weight is stored 4-bit (``nf4``). (0 in profiles traced before it
    was recorded: their step holds no :data:`DEQUANTIZE_OP` record either.)"""
    quantized_weights: int = 0
    """Weights those layers stand for; each is dequantized once per matmul that reads it
    (:data:`DEQUANTIZE_OP` records how often)."""
    compile_saving_bytes: float = 0.0
    """Activation bytes the compiled step keeps fewer than the eager one at the traced peak
    (already taken off ``peak``; profile/compiled.py). 0 when not compiled or not measurable."""
    compiled_loss_saving_bytes: float = 0.0
    """Of :attr:`compile_saving_bytes`, what compiling the loss with the model saves (its fp32
    intermediates at the start of backward: torchtune and torchtitan compile it, code that wraps
    only its model in ``torch.compile`` does not); the memory estimate's high end keeps it."""
    image_size: int | None = None
    """The workload's ``inputs.image_size`` (a square image's side, px) where it gives one: its
    samples are images, and the report counts them so (images/s). None elsewhere, and in profiles
    traced before it was kept."""
    mel_window: tuple[int, int] | None = None
    """A speech model's (mel bins, frames) of one sample's audio window (Whisper large-v3: 128 ×
    3,000, 30 s): its samples are audio windows, and the report says so. None elsewhere, and in
    profiles traced before it was kept (no speech model was traced then)."""
    linear_names: tuple[str, ...] = ()
    """LoRA workloads: the qualified names of the model's ``nn.Linear`` layers, sorted (their last
    name components in profiles traced before), which ``model.lora.targets`` must name; a cached
    profile's targets are checked against them (``profile.key.profile``). Empty for other
    workloads and in LoRA profiles traced before they were kept (those build the model once to
    find them)."""
    loss: str | None = None
    """Training: the loss the step was traced with (``standard``, ``chunked``, ``chunked-logits``,
    ``fused-linear``: :class:`gpuplan.vocab.LossKind`), which the end of forward's logits are
    derived from where the trace did not see that moment. None for inference, and in profiles
    traced before it was recorded (the standard loss is assumed for them: the most any keeps)."""
    head_trains: bool | None = None
    """Training a language model: whether the output layer's weight takes a gradient — False under
    LoRA (the base is frozen, a head tied to the embeddings with it) or where ``model.frozen``
    covers it. Under autocast a frozen head is cast to 16 bits by every matmul that reads it, and
    each copy is kept for backward (a weight that takes a gradient is cast once and the copy
    shared). None for inference, a model without a vocabulary head, and profiles traced before it
    was recorded."""
    vocab_head: bool | None = None
    """Training: whether the model's output layer gives its vocabulary logits, a head a chunked or
    fused-linear loss can take over (``loss: chunked`` is refused without one: a BERT QA head's two
    outputs, a Hugging Face config's model). None for inference and in profiles traced before it
    was recorded."""
    trace_seconds: float = 0.0
    """Wall time the trace took on this machine."""
    notes: tuple[str, ...] = field(default_factory=tuple)
    """Approximations made while tracing, shown to the user."""
    schema_version: int = PROFILE_SCHEMA_VERSION

    @property
    def bytes_per_param(self) -> float:
        """Bytes of one parameter as traced (4 for fp32 master weights, 2 for bf16 weights)."""
        return self.peak.parameters_bytes / self.params if self.params else 4.0

    @property
    def checkpoint_gb(self) -> float:
        """GB one training checkpoint holds: the trainable weights as the model keeps them (4 bytes
        each in fp32, 2 where they are 16-bit: ``bf16`` keeps no fp32 copy, and the master copy of
        ``fp16-master`` / ``bf16-master`` is part of the optimizer state), the optimizer state as
        traced (PyTorch's AdamW keeps its moments in the parameter's dtype) and buffers; frozen
        base weights (LoRA) are not rewritten. Plan prices its writes and deploy sizes its disk and
        interval with this one figure; :attr:`Precision.checkpoint_contents` says it in words."""
        pk = self.peak
        weight = 2 if self.precision in _SIXTEEN_BIT_WEIGHTS else 4
        return (self.trainable_params * weight + pk.optimizer_state_bytes + pk.buffers_bytes) / 1e9

    @property
    def gradient_bytes_per_param(self) -> float:
        """Bytes of one trainable parameter's gradient: a weight's as traced (4 with fp32 weights
        under autocast, 2 with 16-bit ones: ``fp16-master``'s fp32 master copy is the optimizer's),
        4 under ``bf16-master``, whose gradients are its persistent fp32 main-gradient buffer."""
        return 4.0 if self.fp32_main_grads else self.bytes_per_param

    @property
    def fp32_main_grads(self) -> bool:
        """Whether gradients accumulate into a persistent fp32 buffer and are reduced in fp32
        (``bf16-master``: Megatron-LM ``--bf16``; :attr:`gpuplan.vocab.Precision.fp32_main_grads`)."""
        return self.precision in _FP32_MAIN_GRADS

    @property
    def autocast(self) -> bool:
        """Whether the step ran under autocast: fp32 weights with 16-bit copies made per op
        (``amp-fp16``, ``amp-bf16``, and ``fp8``, which is traced as ``amp-bf16``)."""
        return self.precision.startswith("amp") or self.precision == "fp8"

    @property
    def tokens_per_step(self) -> int | None:
        return self.batch_size * self.seq_len if self.seq_len else None

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Profile:
        return cls.from_dict(json.loads(text))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Profile:
        """The profile of :meth:`to_json`'s document, parsed (a file from others is read by
        :func:`gpuplan.profile.saved.read_saved_profile`, which checks it)."""
        d = dict(data)
        d["ops"] = tuple(
            OpRecord(**(o | {"shapes": tuple(tuple(int(x) for x in s) for s in o.get("shapes", ()))}))
            for o in d["ops"]
        )
        d["peak"] = MemoryBreakdown(**d["peak"])
        d["shape"] = ModelShape(**d["shape"])
        d["notes"] = tuple(d.get("notes", ()))
        d["linear_names"] = tuple(d.get("linear_names", ()))
        if isinstance(d.get("mel_window"), list):
            d["mel_window"] = tuple(d["mel_window"])  # its numbers checked where read from others
        return cls(**d)
