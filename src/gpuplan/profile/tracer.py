"""Trace one step of a workload on fake tensors: FLOPs, bytes and peak memory → Profile.

The model is built inside ``FakeTensorMode`` on the (fake) CPU device, so no real weights exist
(a fake *cuda* device aborts in backward with torch 2.13; ESTIMATION_NOTES.md §1.1). Training
first creates the optimizer state (one step on zero gradients), then measures one full step —
forward, backward, optimizer step — for ops and the memory peak. Inference runs one forward under
``no_grad``.
"""

from __future__ import annotations

import functools
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager, nullcontext
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

from gpuplan.errors import EstimateError, GpuplanError, Phrase
from gpuplan.i18n import N_
from gpuplan.profile.compiled import BlockCalls, SavedPair, TensorSpec, loss_saved
from gpuplan.profile.fake import TraceFakeMode, adopt_module_tensors
from gpuplan.profile.losses import (
    chunked_cross_entropy,
    chunked_logits_cross_entropy,
    fused_linear_cross_entropy,
)
from gpuplan.profile.memtrack import GpuMemTracker
from gpuplan.profile.model import MemoryBreakdown, Profile
from gpuplan.profile.optimizers import MasterWeights, make_optimizer, paged_state_bytes
from gpuplan.profile.recorder import OpRecorder
from gpuplan.vocab import (
    AttentionImpl,
    BaseQuantization,
    FusedKernel,
    LossKind,
    Precision,
    QuantizationLibrary,
)
from gpuplan.workload.adapt import (
    LoRALinear,
    QuantizedLinear,
    apply_checkpointing,
    apply_lora,
    cast_floating,
    checkpoint_contexts,
    counting_dequantizations,
    freeze_prefixes,
    linear_names,
    quantize_base,
    stored_params,
)
from gpuplan.workload.bundle import Batch, ModelBundle
from gpuplan.workload.sources import open_bundle
from gpuplan.workload.spec import Workload

__all__ = ["StepParts", "batch_as_run", "model_linear_names", "step_parts", "trace_workload"]

_T = TypeVar("_T")

_AUTOCAST = {
    Precision.AMP_FP16: torch.float16,
    Precision.AMP_BF16: torch.bfloat16,
    Precision.FP8: torch.bfloat16,
}
_NOTES = {
    Precision.TF32: "tf32: traced in fp32; matmuls and convs run as TF32 on the GPU (same bytes)",
    Precision.AMP_FP16: "amp-fp16: CPU autocast op lists (close to CUDA's); GradScaler passes not traced",
    Precision.AMP_BF16: "amp-bf16: CPU autocast op lists (close to CUDA's)",
    Precision.BF16: "bf16: weights, gradients and optimizer state all bf16 (no fp32 master copy)",
    Precision.FP8: "fp8: traced as amp-bf16 (memory as bf16 autocast); matmuls labelled fp8 "
    "(E4M3 forward, E5M2 backward) as Transformer Engine / torchao float8 run them",
    Precision.FP16_MASTER: "fp16-master: fp16 weights and gradients, no autocast; the optimizer "
    "steps fp32 master copies (fp32 gradient copies at the step) and writes the weights back",
    Precision.BF16_MASTER: "bf16-master: bf16 weights, no autocast; each bf16 gradient is added into a "
    "persistent fp32 main gradient and freed; the optimizer steps fp32 master copies on them",
}
_FP8_INFERENCE_NOTE = (
    "fp8 inference: linear-layer weights stored in FP8 (1 byte; per-tensor scales, as vLLM's and "
    "TensorRT-LLM's fp8 quantization keep them), embeddings, norms and the output layer in bf16; "
    "activations quantized per matmul, KV cache 16-bit"
)


def _fp8_inference_weights(model: torch.nn.Module) -> float:
    """Bytes an fp8 inference model saves against its bf16 trace: one per element of each matmul
    weight (a 2-D ``weight`` — nn.Linear's, GPT-2's Conv1D's), except the output layer's and the
    embeddings' (vLLM's fp8 quantization leaves the LM head, and any layer tied to the input
    embedding, in 16 bits)."""
    get_head = getattr(model, "get_output_embeddings", None)
    head = get_head() if callable(get_head) else None
    embeddings = {id(m.weight) for m in model.modules() if isinstance(m, torch.nn.Embedding)}
    saved, counted = 0, set(embeddings)
    for module in model.modules():
        if module is head or isinstance(module, torch.nn.Embedding):
            continue
        w = module._parameters.get("weight")
        if w is None or id(w) in counted:
            continue  # a weight shared by two layers is stored once
        counted.add(id(w))
        if w.dim() == 2 and w.dtype in (torch.bfloat16, torch.float16):
            saved += w.numel()
    return float(saved)


#: The dtype a precision casts the model's floating-point weights to before the step.
_WEIGHTS = {
    Precision.BF16: torch.bfloat16,
    Precision.FP16_MASTER: torch.float16,
    Precision.BF16_MASTER: torch.bfloat16,
}


def trace_workload(workload: Workload, key: str) -> Profile:
    """Trace ``workload``; raise UserCodeError for failures in user code, EstimateError otherwise."""
    started = time.perf_counter()
    return _on_fake_model(workload, lambda bundle: _trace(workload, bundle, key, started))


def model_linear_names(workload: Workload) -> tuple[str, ...]:
    """The names LoRA targets match in ``workload``'s model (:func:`linear_names`), from the model
    built on fake tensors without a trace: for a cached LoRA profile traced before it kept them."""
    return _on_fake_model(workload, lambda bundle: linear_names(bundle.model))


def _on_fake_model(workload: Workload, run: Callable[[ModelBundle], _T]) -> _T:
    """``run`` on ``workload``'s model built under a fake mode; a failure in user code raises
    UserCodeError, any other failure one EstimateError line."""
    try:
        with warnings.catch_warnings():
            # torch's own deepcopy of a fake parameter touches its data pointer and warns; harmless here.
            warnings.filterwarnings("ignore", message="Accessing the data pointer of FakeTensor")
            # torch's ModTracker (under its MemTracker) warns when it sees a module name entered twice
            # without an exit between (now and then in the HF Llama LoRA trace); it goes on as before, and
            # the warning asks the user to file a bug. Turned into an error (as the tests turn every
            # warning), the tracker's post-hook then failed the whole trace on a missing weakref.
            warnings.filterwarnings("ignore", message="The module hierarchy tracking maybe be messed up")
            with TraceFakeMode() as mode, open_bundle(workload) as bundle:
                adopt_module_tensors(bundle.model, mode)
                return run(bundle)
    except GpuplanError:
        raise
    except Exception as e:
        if workload.model.python is not None:
            from gpuplan.workload.user_code import user_error

            err = user_error(e, workload.model.base_dir, Phrase(N_("tracing the model")))
            if err is not None:
                raise err from e
        first = (str(e).strip().splitlines() or [""])[0]
        # The exception's own first line is data (torch's words), kept as it was raised.
        raise EstimateError.worded(
            N_("tracing {workload!r} failed: {kind}: {first}"),
            workload=workload.name,
            kind=type(e).__name__,
            first=first,
        ) from e


def _prepare(
    workload: Workload, bundle: ModelBundle, notes: list[str], *, tracing: bool = True
) -> torch.nn.Module:
    """The bundle's model as the step runs it. ``tracing``: a checkpointed block's recompute enters
    the tracer's function modes (:func:`_recompute_modes`); a real step (``gpuplan measure``) runs
    torch's own checkpoint contexts, which ``torch.compile`` can take."""
    model = bundle.model
    recompute = _recompute_modes(workload) if tracing else None
    training = workload.is_training
    weights = _WEIGHTS.get(workload.precision)
    if workload.precision is Precision.FP8 and not training:
        weights = torch.bfloat16  # then its linear weights counted in FP8 (_fp8_inference_weights)
    if weights is not None:
        cast_floating(model, weights)
    if workload.attention in (AttentionImpl.EAGER, AttentionImpl.FUSED_SOFTMAX):
        _use_eager_attention(model, workload, notes)
    if workload.model.lora is not None:
        _apply_lora(model, workload, notes)
    if workload.model.frozen:
        freeze_prefixes(model, workload.model.frozen)
    if workload.model.lora is not None and workload.model.lora.quantized:
        _quantize_base(model, workload, bundle, notes)
    if workload.software_stack.channels_last:
        if _to_channels_last(model):
            notes.append("memory format: channels_last (NHWC): convolutions need no layout transposes")
        else:
            notes.append(
                "memory format: channels-last has no effect (the model has no 4-D convolution weights)"
            )
    if not training:
        for p in model.parameters():
            p.requires_grad_(False)
        model.eval()
    else:
        model.train()
    mode = workload.checkpointing.value
    if mode == "selective":
        if not bundle.checkpoint_blocks:
            raise EstimateError.worded(
                N_("activation_checkpointing: selective needs repeated blocks (an nn.ModuleList) to wrap")
            )
        n = apply_checkpointing(model, bundle.checkpoint_blocks, selective=True, recompute=recompute)
        notes.append(f"selective checkpointing: {n} blocks keep matmul/attention outputs, recompute the rest")
    elif mode == "full":
        if hasattr(model, "gradient_checkpointing_enable") and getattr(
            model, "supports_gradient_checkpointing", False
        ):
            config = getattr(model, "config", None)
            if config is not None and getattr(config, "use_cache", None):
                config.use_cache = False  # no KV cache in training; transformers would say so on stderr
            # transformers >= 5 renamed the method (and its argument); the old name still works but warns.
            context = checkpoint_contexts(False, recompute)
            kwargs: dict[str, Any] = {"use_reentrant": False}
            if context is not None:
                kwargs["context_fn"] = context
            if hasattr(model, "activation_checkpointing_enable"):
                enable = getattr(model, "activation_checkpointing_enable")  # noqa: B009 (nn.Module typing)
                enable(activation_checkpointing_kwargs=kwargs)
            else:
                enable = getattr(model, "gradient_checkpointing_enable")  # noqa: B009
                enable(gradient_checkpointing_kwargs=kwargs)
            notes.append("gradient checkpointing: transformers' own, per layer")
        elif bundle.checkpoint_blocks:
            n = apply_checkpointing(model, bundle.checkpoint_blocks, recompute=recompute)
            notes.append(f"gradient checkpointing: {n} blocks recomputed in backward")
        else:
            raise EstimateError.worded(
                N_(
                    "activation_checkpointing: no repeated blocks (an nn.ModuleList) to checkpoint in "
                    "this model"
                )
            )
    return model


def _apply_lora(model: torch.nn.Module, workload: Workload, notes: list[str]) -> None:
    """Put the workload's adapters on the model (frozen base) and say how they are kept."""
    lora = workload.model.lora
    assert lora is not None
    dropout = workload.software_stack.dropout and workload.is_training
    n = apply_lora(model, lora, dropout=dropout)
    short = {torch.float32: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16"}
    adapters = [m.lora_A.weight.dtype for m in model.modules() if isinstance(m, LoRALinear)]
    dtypes = sorted({short.get(d, str(d).removeprefix("torch.")) for d in adapters})
    dropped = f"; dropout {lora.dropout:g} on each adapter's input" if dropout and lora.dropout else ""
    notes.append(
        f"lora: rank {lora.rank} adapters ({', '.join(dtypes)}) on {n} linear layers{dropped}; base frozen"
    )


def _chunked_logits_loss(
    head: torch.nn.Module, out: torch.Tensor, batch: Any, before_scoring: Callable[[], object] | None = None
) -> torch.Tensor:
    """litgpt's loss on the model's hidden states (``before_scoring``: see :func:`_next_forward_holding`)."""
    return chunked_logits_cross_entropy(out, head, batch.targets[0], before_scoring=before_scoring)


#: What :func:`_next_forward_holding` adds to a profile's notes, and where it is not traced.
_HELD_LOGITS_NOTE = (
    "loss: the step's logits are held into the next step's forward and output layer, as litgpt's "
    "loop holds its logits list (and through its graph what an autograd function keeps on its "
    "context, bitsandbytes 0.42's 4-bit layer inputs): the peak is the larger of the two steps'"
)
_HELD_LOGITS_COMPILED_NOTE = (
    "loss: the step's logits held into the next step's forward are not traced under compile; the "
    "peak may be higher than traced"
)


def _next_forward_holding(
    held: list[torch.Tensor],
    model: torch.nn.Module,
    batch: Any,
    loss_fn: Callable[..., torch.Tensor],
    amp: torch.dtype | None,
    tracker: GpuMemTracker,
    recorder: OpRecorder,
) -> None:
    """The next training step's forward and output layer while ``held``, this step's logits, is
    still referenced, as litgpt's ``fit`` loop runs (Lightning-AI/litgpt@03ffc551
    ``litgpt/finetune/lora.py``: ``logits = model(input_ids, lm_head_chunk_size=128)``, so the
    previous step's list is let go only when the model returns; ``loss`` is rebound to a float by
    the per-iteration log, read 2026-12-04). The list's graph goes with it: backward frees what
    went through ``save_for_backward`` but not what an autograd function set on its context —
    bitsandbytes 0.42.0's ``MatMul4Bit`` keeps its input as ``ctx.tensors = (A, B)``
    (``bitsandbytes/autograd/_functions.py`` at tag 0.42.0, the ``bitsandbytes==0.42.0`` of
    litgpt's ``all`` extra in ``pyproject.toml`` at the same commit; 0.43.2 on keep ``(None, B)``,
    bitsandbytes-foundation/bitsandbytes pull request 1270), so under ``library: bitsandbytes-0.42``
    every 4-bit layer's input of the previous step is alive during this forward. The step is
    neither recorded (no FLOPs counted twice) nor run backward: its backward is the first step's;
    the list is dropped once the new logits exist, before they are scored."""
    recorder.recording = False
    tracker.reset_mod_stats()  # the tracker refuses a module's second forward otherwise
    with torch.autocast("cpu", dtype=amp) if amp is not None else nullcontext():
        out = model(*batch.args, **batch.kwargs)
        loss = loss_fn(out, batch, before_scoring=held.clear)
    del out, loss


def _held_at_step(peak: MemoryBreakdown, step_peak: MemoryBreakdown | None, holding: bool) -> MemoryBreakdown:
    """``peak`` with what the loss holds there set apart (:attr:`MemoryBreakdown.held_bytes`) when
    it is the optimizer step's and the loss holds the step's logits: every activation live then
    is held through the logits' graph, the step's own having been freed by backward."""
    if not holding or step_peak is None or peak != step_peak:
        return peak
    return replace(peak, held_bytes=peak.activations_bytes)


def _quantize_base(model: torch.nn.Module, workload: Workload, bundle: ModelBundle, notes: list[str]) -> None:
    """Store the frozen base's linear weights quantized (QLoRA), computing in the autocast dtype
    (bitsandbytes' ``bnb_4bit_compute_dtype``) or, without autocast, in the weights' own."""
    lora = workload.model.lora
    assert lora is not None
    weights = next((p.dtype for p in model.parameters() if p.is_floating_point()), torch.float32)
    compute = _AUTOCAST.get(workload.precision, weights)
    n = quantize_base(model, lora, head=bundle.lm_head or None, compute_dtype=compute)
    if not n:
        raise EstimateError.worded(
            N_("model.lora.quantization: this model has no frozen nn.Linear layers to quantize")
        )
    kind = lora.quantization.value
    if lora.quantization.value == "nf4":
        constants = (
            "8-bit block constants (double quantization)"
            if lora.double_quantization
            else "fp32 block constants"
        )
        stored = f"4 bits per weight + {constants}"
    else:
        stored = "1 byte per weight + an fp32 scale per output row"
    whole = "embeddings and norms" if lora.quantized_head else "embeddings, norms and the output layer"
    kept = (
        "; bitsandbytes 0.42's 4-bit matmul keeps each layer's input for backward"
        if lora.quantization is BaseQuantization.NF4 and lora.library is QuantizationLibrary.BITSANDBYTES_0_42
        else ""
    )
    notes.append(
        f"quantized base: {n} linear layers stored {kind} ({stored}), dequantized to "
        f"{str(compute).removeprefix('torch.')} for each matmul{kept}; {whole} keep their precision"
    )


def _compiled_blocks(
    workload: Workload, bundle: ModelBundle, model: torch.nn.Module, notes: list[str]
) -> BlockCalls | None:
    """Hooks that capture each block class's first call, when the step's memory is that of
    ``torch.compile`` (training, compile: true, blocks not checkpointed); else None."""
    if not (workload.compile and workload.is_training):
        return None
    if workload.checkpointing.value != "none":
        notes.append(
            "torch.compile: checkpointed blocks keep only their inputs compiled or not; eager memory kept"
        )
        return None
    if not bundle.checkpoint_blocks:
        notes.append("torch.compile: no repeated blocks to partition; eager memory kept (an upper bound)")
        return None
    return BlockCalls(model, bundle.checkpoint_blocks)


def _loss_pair(
    workload: Workload,
    bundle: ModelBundle,
    batch: Batch,
    output: TensorSpec | None,
    amp: torch.dtype | None,
) -> SavedPair | None:
    """The standard loss, traced compiled from the model's output tensor; None when the output is
    not one tensor or the loss is another (chunked / fused-linear losses keep no whole logits)."""
    if output is None or workload.loss is not LossKind.STANDARD:
        return None
    targets = [t for t in batch.targets if isinstance(t, torch.Tensor)]
    if len(targets) != len(batch.targets):
        return None

    def loss(out: torch.Tensor, *labels: torch.Tensor) -> torch.Tensor:
        return bundle.loss(out, Batch(args=batch.args, kwargs=batch.kwargs, targets=labels))

    try:
        return loss_saved(loss, replace(output, requires_grad=True), [TensorSpec.of(t) for t in targets], amp)
    except Exception:  # a loss that reads more of the batch than its labels: kept eager
        return None


def _compiled_peak(
    peak: MemoryBreakdown,
    calls: BlockCalls,
    loss_pair: Callable[[], SavedPair | None],
    amp: torch.dtype | None,
    notes: list[str],
) -> tuple[MemoryBreakdown, float]:
    """The eager peak with what ``torch.compile`` keeps instead (profile/compiled.py), and the bytes
    of that saving the compiled loss makes.

    Only a peak at the end of forward (every activation live, no gradient yet) holds what the
    partitioner changes; there the compiled step keeps ``saving`` fewer activation bytes, and its
    loss (compiled too) leaves no fp32 intermediates, only the gradient of its input at the start of
    backward. Any other peak is kept as traced: an upper bound. Code that compiles its model but
    not its loss keeps the eager loss's bytes: the second figure, which the estimate's high end
    keeps (``Profile.compiled_loss_saving_bytes``).
    """
    if peak.gradients_bytes > 0 or peak.at_optimizer_step:
        notes.append("torch.compile: the traced peak is not at the end of forward; eager memory kept")
        return peak, 0.0
    try:
        saving = calls.saving_bytes(amp)
    except Exception as e:  # a block AOTAutograd cannot trace on its own (data-dependent code …)
        notes.append(
            f"torch.compile: a block could not be partitioned ({type(e).__name__}); eager memory kept"
        )
        return peak, 0.0
    activations = max(0.0, peak.activations_bytes - saving)
    loss = loss_pair()  # traced only here: a peak elsewhere keeps its eager figure without it
    temporaries = float(loss.input_grad_bytes) if loss is not None else peak.temporaries_bytes
    if loss is None:
        notes.append("torch.compile: the loss was not partitioned on its own; its eager memory kept")
    notes.append(
        f"torch.compile: activations {peak.activations_bytes / 2**30:.2f} → {activations / 2**30:.2f} GiB "
        f"(AOTAutograd's min-cut partitioner on {calls.blocks} blocks"
        + (f"; compiled loss: {temporaries / 2**30:.2f} GiB at the start of backward)" if loss else ")")
    )
    compiled = replace(peak, activations_bytes=activations, temporaries_bytes=temporaries)
    # The eager peak is the step's highest moment, its start of backward included: the compiled
    # start of backward keeps less, so a higher figure here would be a measuring error.
    if compiled.total_bytes > peak.total_bytes:
        return peak, 0.0
    blocks_only = min(peak.total_bytes, replace(peak, activations_bytes=activations).total_bytes)
    return compiled, max(0.0, blocks_only - compiled.total_bytes)


def _use_eager_attention(model: torch.nn.Module, workload: Workload, notes: list[str]) -> None:
    """Switch the presets' attention to the math path (HF configs are built eager by hf.py)."""
    from gpuplan.workload.presets.layers import Attention

    fused_softmax = workload.attention is AttentionImpl.FUSED_SOFTMAX
    n = 0
    for module in model.modules():
        if isinstance(module, Attention):
            if fused_softmax:
                module.fused_softmax = True
            else:
                module.eager = True
            n += 1
    if n and fused_softmax:
        notes.append(
            f"fused-softmax attention: {n} layers materialise the s×s scores (16-bit GEMMs around one "
            "fused scale + mask + softmax kernel, as Megatron-LM 2021)"
        )
    elif n:
        notes.append(f"eager attention: {n} layers materialise the s×s scores (math path, fp32 softmax)")
    elif workload.model.hf_config is None:  # an HF config is built eager by hf.py, which says so
        notes.append(
            f"attention: {workload.attention.value} has no effect on this model's own code "
            "(it picks its own kernels)"
        )


#: The dropout calls :class:`_CudaDropout` traces as CUDA runs them.
_DROPOUTS = (F.dropout, torch.dropout)


class _CudaDropout(TorchFunctionMode):
    """Trace dropout as CUDA runs it: ``native_dropout``, keeping a one-byte mask for backward.

    On the CPU, ``F.dropout`` in training draws a noise tensor of the input's dtype and multiplies
    by it (``aten/src/ATen/native/Dropout.cpp`` ``_dropout``: the fused kernel is taken only on CUDA
    and other accelerators), so backward would keep a 2- or 4-byte noise tensor per element; a GPU
    runs ``native_dropout``, which keeps a bool mask. The trace takes the GPU's path.
    """

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def __torch_function__(
        self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        if func not in _DROPOUTS:  # every other torch call, as it came
            return func(*args, **(kwargs or {}))
        kwargs = dict(kwargs or {})
        x = args[0] if args else kwargs.pop("input")
        p = args[1] if len(args) > 1 else kwargs.get("p", 0.5)
        train = args[2] if len(args) > 2 else kwargs.get("training", kwargs.get("train", True))
        if train and 0.0 < float(p) < 1.0 and isinstance(x, torch.Tensor) and x.numel() > 0:
            self.calls += 1
            return torch.native_dropout(x, float(p), True)[0]
        return func(*args, **kwargs)


class _FusedAttentionDropout(TorchFunctionMode):
    """Trace SDPA calls that carry dropout as the fused kernel a GPU runs, without the dropout.

    On the CPU, ``scaled_dot_product_attention`` with ``dropout_p > 0`` (HF models in training mode)
    falls back to the math path: s×s scores, an fp32 upcast of fp16/bf16 inputs, a stored dropout
    mask. On a GPU flash / memory-efficient attention apply dropout inside the kernel (only the RNG
    state is kept), so the fused trace drops ``dropout_p`` rather than trace a path no GPU takes.
    ``nn.MultiheadAttention`` (``nn.TransformerEncoderLayer``'s) calls SDPA from inside
    ``F.multi_head_attention_forward``: its dropout is dropped on that call.
    """

    def __init__(self) -> None:
        super().__init__()
        self.with_dropout = 0
        """Calls whose dropout was dropped."""

    def __torch_function__(
        self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        if func is not F.multi_head_attention_forward and func is not F.scaled_dot_product_attention:
            return func(*args, **(kwargs or {}))  # every other torch call, as it came
        kwargs = dict(kwargs or {})
        if func is F.multi_head_attention_forward and not kwargs.get("need_weights", True):
            # nn.MultiheadAttention without weights: its SDPA call runs inside this one, where the
            # mode is off, so its dropout (argument 10) is dropped here. With weights it runs the
            # scores explicitly on a GPU too.
            if len(args) > 10 and args[10]:
                args = (*args[:10], 0.0, *args[11:])
                self.with_dropout += 1
        elif func is F.scaled_dot_product_attention:
            if len(args) > 3 and args[3]:
                args = (*args[:3], 0.0, *args[4:])
                self.with_dropout += 1
            if kwargs.get("dropout_p"):
                kwargs["dropout_p"] = 0.0
                self.with_dropout += 1
        return func(*args, **kwargs)


def _to_channels_last(model: torch.nn.Module) -> int:
    """Put the model's 4-D parameters (convolution weights) in ``channels_last`` order, as
    ``model.to(memory_format=torch.channels_last)`` does (which cannot swap fake parameters in
    place); how many there were."""
    n = 0
    for module in model.modules():
        for name, p in list(module._parameters.items()):
            if p is not None and p.dim() == 4:
                fresh = p.detach().contiguous(memory_format=torch.channels_last)
                module._parameters[name] = torch.nn.Parameter(fresh, requires_grad=p.requires_grad)
                n += 1
    return n


def _recompute_modes(workload: Workload) -> Callable[[], AbstractContextManager[Any]]:
    """The function modes a checkpointed block's recompute must run in, as its forward did: the
    autograd engine does not carry the tracer's modes into backward."""

    @contextmanager
    def modes() -> Iterator[None]:
        with ExitStack() as stack:
            if workload.attention is AttentionImpl.FUSED:
                stack.enter_context(_FusedAttentionDropout())
            stack.enter_context(_CudaDropout())
            yield

    return modes


def batch_as_run(workload: Workload, batch: Batch) -> Batch:
    """``batch`` as the step feeds it to the model: its floating tensors (images, features) in the
    weights' own dtype where the precision casts the weights (``bf16``: a bf16 convolution takes bf16
    images; the fp32 ones were refused, "Input type (float) and bias type (BFloat16)"), and its
    images in ``channels_last`` order where the stack says so. Token ids and labels stay as made."""
    dtype = _WEIGHTS.get(workload.precision)
    channels_last = workload.software_stack.channels_last

    def conv(t: Any) -> Any:
        if not isinstance(t, torch.Tensor) or not t.dtype.is_floating_point:
            return t
        if dtype is not None:
            t = t.to(dtype)
        if channels_last and t.dim() == 4:
            t = t.contiguous(memory_format=torch.channels_last)
        return t

    return Batch(
        args=tuple(conv(a) for a in batch.args),
        kwargs={k: conv(v) for k, v in batch.kwargs.items()},
        targets=batch.targets,
    )


def _stack_notes(workload: Workload, bundle: ModelBundle, notes: list[str]) -> None:
    """Say where a stack setting has no effect on this model."""
    stack = workload.software_stack
    layer_kernels = [k.value for k in stack.fused_kernels if k is not FusedKernel.CROSS_ENTROPY]
    if layer_kernels and workload.model.preset is None:
        notes.append(
            f"fused kernels {', '.join(layer_kernels)}: modelled for the preset models; this model's own "
            "code picks its kernels"
        )
    fused_ce = stack.fused(FusedKernel.CROSS_ENTROPY) and workload.is_training
    if (
        fused_ce
        and workload.inputs.seq_len is not None
        and (not bundle.lm_head or workload.loss is not LossKind.STANDARD)
    ):
        notes.append(
            "fused cross-entropy: applies to a language model's standard loss on a preset; not used here"
        )


def _create_optimizer_state(
    optimizer: torch.optim.Optimizer, params: list[torch.nn.Parameter], recorder: OpRecorder
) -> None:
    """Run one optimizer step on zero gradients so that the measured step starts with its state.

    Equivalent, for memory, to a first training step, at a fraction of its cost (no forward or
    backward): the state's size depends only on the parameters.
    """
    recorder.phase = "optimizer"
    for p in params:
        p.grad = torch.zeros_like(p)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)


def _loss_fn(workload: Workload, bundle: ModelBundle, model: torch.nn.Module) -> Callable[[Any, Batch], Any]:
    """The loss the workload names (see :mod:`gpuplan.profile.losses`)."""
    kind = workload.loss
    if kind is LossKind.STANDARD:
        if workload.software_stack.fused(FusedKernel.CROSS_ENTROPY) and bundle.lm_head:
            # One kernel over the 16-bit logits, its gradient written over them (presets/fused.py).
            from gpuplan.workload.presets.fused import fused_cross_entropy

            return lambda out, batch: fused_cross_entropy(out, batch.targets[0])
        return bundle.loss
    if not bundle.lm_head:
        raise EstimateError.worded(
            N_(
                "loss: {loss} needs a language model whose output is its vocabulary logits (the "
                "decoder presets, t5-base, bert-large with task: train); use loss: standard for this model"
            ),
            loss=kind.value,
        )
    head = model.get_submodule(bundle.lm_head)
    quantized = isinstance(head, QuantizedLinear) and kind in (LossKind.CHUNKED, LossKind.CHUNKED_LOGITS)
    if not (isinstance(head, torch.nn.Linear) or quantized):
        raise EstimateError.worded(
            N_("loss: {loss} needs {head!r} to be an nn.Linear"), loss=kind.value, head=bundle.lm_head
        )
    # The model then returns the hidden states and the loss applies the head chunk by chunk: its
    # forward passes them through, its parameters stay registered (the optimizer and the memory
    # tracker still see them).
    head.forward = lambda input: input
    if kind is LossKind.CHUNKED:
        return lambda out, batch: chunked_cross_entropy(out, head, batch.targets[0])
    if kind is LossKind.CHUNKED_LOGITS:
        return functools.partial(_chunked_logits_loss, head)
    assert isinstance(head, torch.nn.Linear)
    return lambda out, batch: fused_linear_cross_entropy(out, head, batch.targets[0])


def _head_trains(model: torch.nn.Module, bundle: ModelBundle) -> bool | None:
    """Whether the output layer's weight takes a gradient (:attr:`Profile.head_trains`); None
    without a vocabulary head or a weight on it."""
    if not bundle.lm_head:
        return None
    weight = getattr(model.get_submodule(bundle.lm_head), "weight", None)
    return weight.requires_grad if isinstance(weight, torch.Tensor) else None


def _optimizer(workload: Workload, params: list[torch.nn.Parameter]) -> torch.optim.Optimizer:
    """The workload's optimizer over ``params``, as its precision keeps them: over fp32 master
    copies (``fp16-master``, ``bf16-master``), with persistent fp32 main gradients (``bf16-master``)."""
    precision = workload.precision
    return make_optimizer(
        workload.optimizer,
        params,
        master_weights=precision.master_weights,
        main_grads=precision.fp32_main_grads,
    )


def _step_in_backward(
    workload: Workload, trainable: list[torch.nn.Parameter], recorder: OpRecorder
) -> tuple[list[torch.optim.Optimizer], Callable[[], None]]:
    """One optimizer per parameter, and a function that installs the hooks that step each as soon
    as its parameter's gradient is complete and free that gradient (torchtune's
    ``optimizer_in_bwd``). Install them after the forward pass: the memory tracker adds its own
    gradient hooks in forward, and they must run first (a freed gradient cannot be labelled)."""
    per_param = {p: _optimizer(workload, [p]) for p in trainable}

    def step(p: torch.Tensor) -> None:
        phase, recorder.phase = recorder.phase, "optimizer"
        per_param[p].step()  # type: ignore[index]
        per_param[p].zero_grad(set_to_none=True)  # type: ignore[index]
        recorder.phase = phase

    def install() -> None:
        for p in trainable:
            p.register_post_accumulate_grad_hook(step)

    return list(per_param.values()), install


def _checkpoint_keep(
    tracker: GpuMemTracker, model: torch.nn.Module, blocks: tuple[str, ...], peak: MemoryBreakdown
) -> float | None:
    """Of the activations at ``peak``, the fraction that full activation checkpointing of
    ``blocks`` keeps: what runs outside them (a CNN's stem, a head, the loss), each block's output
    (the next one's input) and the largest block's own activations, which its recompute brings back
    at once in backward beside its output's gradient. None without blocks, at an optimizer-step
    peak, or when a block did not run a forward the tracker saw."""
    if not blocks or peak.at_optimizer_step or peak.activations_bytes <= 0:
        return None
    found: list[tuple[float, float]] = []
    for name in blocks:
        try:
            kept_by = tracker.kept_by(model.get_submodule(name))
        except AttributeError:
            return None
        if kept_by is None:
            return None
        found.append(kept_by)
    inside = sum(k for k, _ in found)
    outputs = sum(o for _, o in found)
    # the largest block while it is recomputed: its activations and its output's gradient
    largest, largest_output = max(found)
    kept = peak.activations_bytes - inside + outputs + largest + largest_output
    return min(1.0, max(0.0, kept / peak.activations_bytes))


def _trace(workload: Workload, bundle: ModelBundle, key: str, started: float) -> Profile:
    notes: list[str] = list(bundle.notes)
    # Before the adapters wrap them: the names LoRA targets match, kept for the cached profile.
    names = linear_names(bundle.model) if workload.model.lora is not None else ()
    model = _prepare(workload, bundle, notes)
    training = workload.is_training
    trainable = [p for p in model.parameters() if p.requires_grad]
    if training and not trainable:
        raise EstimateError.worded(N_("nothing to train: every parameter is frozen (check model.frozen)"))
    in_backward = training and workload.optimizer_in_backward
    optimizer = _optimizer(workload, trainable) if training and not in_backward else None
    loss_fn = _loss_fn(workload, bundle, model) if training else bundle.loss
    batch = batch_as_run(workload, bundle.make_batch())
    _stack_notes(workload, bundle, notes)

    calls = _compiled_blocks(workload, bundle, model, notes)
    output_spec: TensorSpec | None = None
    recorder = OpRecorder(fp8_matmuls=workload.precision is Precision.FP8)
    tracker = GpuMemTracker()
    tracker.track_external(model, *batch.tensors(), *([optimizer] if optimizer else []))
    # fp8 inference runs on bf16 weights (cast once above), not under autocast.
    amp = None if workload.precision is Precision.FP8 and not training else _AUTOCAST.get(workload.precision)
    optimizers: list[torch.optim.Optimizer] = [optimizer] if optimizer else []
    step_peak: MemoryBreakdown | None = None  # the peak, when the optimizer step raised it
    holding = False  # the loss holds the step's logits past the optimizer step
    with ExitStack() as stack:
        stack.enter_context(tracker)
        stack.enter_context(recorder)
        stack.enter_context(counting_dequantizations(recorder.dequantize))
        fused_dropout = _FusedAttentionDropout()
        if workload.attention is AttentionImpl.FUSED:
            stack.enter_context(fused_dropout)
        cuda_dropout = _CudaDropout()
        if training:
            stack.enter_context(cuda_dropout)
        install_steps: Callable[[], None] | None = None
        if isinstance(optimizer, MasterWeights) and optimizer.main_grads:
            # Persistent fp32 main gradients (bf16-master): gradients from the start, and added
            # into after the tracker's own hooks have seen each bf16 gradient.
            tracker.track_gradients(*optimizer.main_grads.values())
            install_steps = optimizer.install_accumulation
        if in_backward:
            optimizers, install_steps = _step_in_backward(workload, trainable, recorder)
            tracker.track_external(*optimizers)
        for opt in optimizers:
            _create_optimizer_state(opt, [p for g in opt.param_groups for p in g["params"]], recorder)
        if optimizers:
            tracker.reset_peak()
        recorder.recording = True
        recorder.phase = "forward"
        with (
            torch.autocast("cpu", dtype=amp) if amp is not None else nullcontext(),
            nullcontext() if training else torch.no_grad(),
        ):
            out: Any = model(*batch.args, **batch.kwargs)
            loss = loss_fn(out, batch) if training else None
        if calls is not None and isinstance(out, torch.Tensor):
            output_spec = TensorSpec.of(out)
        # The model output is dropped before backward, as HF Trainer's compute_loss returns only
        # the loss: the logits are not kept alive next to their gradient.
        del out
        if training and loss is not None:
            if install_steps is not None:
                install_steps()
            recorder.phase = "backward"
            loss.backward()
            if optimizer is not None:
                recorder.phase = "optimizer"
                before = tracker.peak_breakdown()
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
                if tracker.peak_breakdown() != before:
                    step_peak = tracker.peak_breakdown()
        held = getattr(loss, "kept_logits", None)
        holding = held is not None
        del loss
        if held is not None and calls is None:
            counts = cuda_dropout.calls, fused_dropout.with_dropout
            _next_forward_holding(held, model, batch, loss_fn, amp, tracker, recorder)
            cuda_dropout.calls, fused_dropout.with_dropout = counts
            notes.append(_HELD_LOGITS_NOTE)
        elif held is not None:
            notes.append(_HELD_LOGITS_COMPILED_NOTE)
        del held

    ops = recorder.records()
    eager_peak = peak = _held_at_step(tracker.peak_breakdown(), step_peak, holding)
    keep = None
    if training and calls is None and workload.checkpointing.value == "none":
        keep = _checkpoint_keep(tracker, model, bundle.checkpoint_blocks, eager_peak)
    loss_saving = 0.0
    if calls is not None:
        calls.remove()
        loss_pair = functools.partial(_loss_pair, workload, bundle, batch, output_spec, amp)
        peak, loss_saving = _compiled_peak(peak, calls, loss_pair, amp, notes)
    if cuda_dropout.calls:
        notes.append(
            f"dropout: {cuda_dropout.calls} calls traced as CUDA's native_dropout "
            "(one-byte mask kept for backward)"
        )
    if fused_dropout.with_dropout:
        notes.append(
            f"attention dropout: {fused_dropout.with_dropout} SDPA calls traced as the fused kernel "
            "(a GPU applies it inside flash attention; the CPU would fall back to the math path)"
        )
    if any(r.op_class == "attention" for r in ops):
        notes.append("attention FLOPs: causal attention counted as full, as torch's FlopCounterMode does")
    if workload.precision is Precision.FP8 and not training:
        saved = _fp8_inference_weights(model)
        peak = replace(peak, parameters_bytes=peak.parameters_bytes - saved)
        eager_peak = replace(eager_peak, parameters_bytes=eager_peak.parameters_bytes - saved)
        notes.append(_FP8_INFERENCE_NOTE)
    elif workload.precision in _NOTES:
        notes.append(_NOTES[workload.precision])
    if training and workload.loss is not LossKind.STANDARD:
        notes.append(f"loss: {workload.loss.value} cross-entropy (profile/losses.py)")
    if in_backward:
        notes.append("optimizer_in_backward: each parameter stepped and its gradient freed during backward")
    paged = paged_state_bytes(optimizers)
    if paged:
        notes.append(f"paged optimizer: {paged / 2**30:.2f} GiB of state in CUDA managed memory")
    notes.append("memory: tensors only, 512-byte CUDA blocks; no CUDA context, workspaces or allocator slack")
    four_bit = [m for m in model.modules() if isinstance(m, QuantizedLinear) and m.four_bit]
    return Profile(
        key=key,
        workload_name=workload.name,
        task=workload.task.value,
        precision=workload.precision.value,
        batch_size=workload.inputs.batch_size,
        seq_len=bundle.seq_len,
        image_size=workload.inputs.image_size,
        mel_window=bundle.mel_window,
        params=stored_params(model),
        trainable_params=sum(p.numel() for p in trainable) if training else 0,
        flops_per_step=float(sum(r.flops for r in ops)),
        forward_flops=float(sum(r.flops for r in ops if r.phase == "forward")),
        ops=ops,
        peak=peak,
        shape=bundle.shape,
        activation_checkpointing=workload.checkpointing.value,
        checkpoint_keep=keep,
        attention=workload.attention.value,
        paged_optimizer_bytes=paged,
        compile_saving_bytes=eager_peak.total_bytes - peak.total_bytes,
        compiled_loss_saving_bytes=loss_saving,
        base_quantization=workload.model.lora.quantization.value if workload.model.lora else "none",
        base_double_quantization=bool(workload.model.lora and workload.model.lora.double_quantization),
        quantized_linears=len(four_bit),
        quantized_weights=sum(m.weight_numel for m in four_bit),
        linear_names=names,
        loss=workload.loss.value if training else None,
        head_trains=_head_trains(model, bundle) if training else None,
        vocab_head=bool(bundle.lm_head) if training else None,
        trace_seconds=time.perf_counter() - started,
        notes=tuple(notes),
    )


@dataclass(frozen=True, kw_only=True)
class StepParts:
    """What one step of a workload runs, prepared as the trace prepares it: for ``gpuplan measure``
    to run the same step on a real device (``machine/measure.py``)."""

    model: torch.nn.Module
    """Prepared as the workload says: precision cast, attention path, LoRA, frozen parameters,
    checkpointing, train or eval mode."""
    loss: Callable[[Any, Batch], Any]
    optimizers: tuple[torch.optim.Optimizer, ...]
    """One for the step; one per parameter when ``optimizer_in_backward`` (stepped by hooks)."""
    install_backward_steps: Callable[[], None] | None
    """Installs the hooks that step each parameter in backward (``optimizer_in_backward``)."""
    autocast: torch.dtype | None
    """The autocast dtype of the workload's precision, or None."""
    notes: tuple[str, ...]


def step_parts(workload: Workload, bundle: ModelBundle) -> StepParts:
    """The model, loss, optimizer(s) and autocast of ``workload``'s step, as :func:`trace_workload`
    prepares them (the same helpers), on whatever device the bundle was built."""
    notes: list[str] = list(bundle.notes)
    if workload.model.lora is not None and workload.model.lora.quantized:
        # The trace's quantized layers stand in for bitsandbytes' kernels: they hold no weights
        # and do not dequantize, so a run of them would time a step that no one runs.
        raise EstimateError.worded(
            N_(
                "model.lora.quantization: a quantized base cannot be measured here; "
                "measure it without quantization"
            )
        )
    model = _prepare(workload, bundle, notes, tracing=False)
    training = workload.is_training
    trainable = [p for p in model.parameters() if p.requires_grad]
    if training and not trainable:
        raise EstimateError.worded(N_("nothing to train: every parameter is frozen (check model.frozen)"))
    optimizers: list[torch.optim.Optimizer] = []
    install: Callable[[], None] | None = None
    if training and workload.optimizer_in_backward:
        optimizers, install = _step_in_backward(workload, trainable, OpRecorder())
    elif training:
        optimizer = _optimizer(workload, trainable)
        if isinstance(optimizer, MasterWeights):
            optimizer.install_accumulation()  # a real step: no tracker's hooks to come first
        optimizers = [optimizer]
    return StepParts(
        model=model,
        loss=_loss_fn(workload, bundle, model) if training else bundle.loss,
        optimizers=tuple(optimizers),
        install_backward_steps=install,
        autocast=_AUTOCAST.get(workload.precision),
        notes=tuple(notes),
    )
