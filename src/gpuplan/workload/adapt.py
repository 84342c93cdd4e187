"""Changes the workload asks for on top of the model: LoRA adapters, frozen modules, checkpointing."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

from gpuplan.errors import Phrase, WorkloadError, closest
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import either
from gpuplan.vocab import AdapterDtype, BaseQuantization, QuantizationLibrary
from gpuplan.workload.bundle import check_lora_targets, lora_matches
from gpuplan.workload.spec import LoraSpec

__all__ = [
    "Checkpointed",
    "LoRALinear",
    "QuantizedLinear",
    "apply_checkpointing",
    "apply_lora",
    "cast_floating",
    "counting_dequantizations",
    "freeze_prefixes",
    "quantize_base",
    "stored_params",
]


def cast_floating(model: nn.Module, dtype: torch.dtype) -> None:
    """Cast floating-point parameters and buffers to ``dtype``, keeping tied weights tied.

    ``Module.to`` cannot be used on fake tensors: it swaps tensors in place, which fails for tensors
    the fake mode holds weak references to ("Couldn't swap Embedding.weight").
    """
    done: dict[int, nn.Parameter] = {}
    for module in model.modules():
        for name, p in list(module._parameters.items()):
            if p is None or not p.is_floating_point():
                continue
            if id(p) not in done:
                done[id(p)] = nn.Parameter(p.detach().to(dtype), requires_grad=p.requires_grad)
            module._parameters[name] = done[id(p)]
        for name, b in list(module._buffers.items()):
            if b is not None and b.is_floating_point():
                module._buffers[name] = b.to(dtype)


class LoRALinear(nn.Module):
    """A frozen ``nn.Linear`` plus a trainable low-rank update: ``base(x) + B(A(drop(x))) · alpha/r``.

    The adapters are ``dtype`` (fp32 by default, as PEFT keeps them even when the base is 16-bit);
    the input is cast to it first, as PEFT's ``Linear.forward`` does (``_cast_input_dtype``), and
    then dropped out with probability ``dropout`` in training (PEFT's ``lora_dropout``, torchtune's
    ``self.dropout``, litgpt's ``self.lora_dropout(x)``: each applied to the adapter's input before
    ``A``), so that ``A``'s backward keeps the dropped copy and the dropout its mask.

    It stands where the linear stood, so it has the linear's ``in_features`` and ``out_features``, as
    PEFT's ``lora.Linear`` has: model code that reads them on its layer reads them on this.
    """

    def __init__(
        self,
        base: nn.Linear,
        rank: int,
        alpha: float,
        *,
        dtype: torch.dtype = torch.float32,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        self.base = base
        self.in_features, self.out_features = base.in_features, base.out_features
        for p in base.parameters():
            p.requires_grad_(False)
        dev = base.weight.device
        self.lora_A = nn.Linear(base.in_features, rank, bias=False, device=dev, dtype=dtype)
        self.lora_B = nn.Linear(rank, base.out_features, bias=False, device=dev, dtype=dtype)
        nn.init.zeros_(self.lora_B.weight)
        self.scaling = alpha / rank
        self.dropout = dropout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.base(x)
        h = x.to(self.lora_A.weight.dtype)
        if self.dropout and self.training:
            h = F.dropout(h, self.dropout, training=True)
        delta = self.lora_B(self.lora_A(h)) * self.scaling
        return out + delta.to(out.dtype)


def _set_submodule(root: nn.Module, name: str, new: nn.Module) -> None:
    parent_name, _, child = name.rpartition(".")
    setattr(root.get_submodule(parent_name) if parent_name else root, child, new)


def apply_lora(model: nn.Module, spec: LoraSpec, *, dropout: bool = True) -> int:
    """Freeze every parameter and put adapters on the targeted linears. Returns how many were adapted.

    A target is a short name (``q``, ``v`` … see ``LORA_ALIASES``) or a literal name, matched as
    PEFT matches ``target_modules``: the module's qualified name, or a dotted suffix of it
    (:func:`lora_matches`: ``to_q``, ``to_out.0``); targets that name none of the model's linears
    are refused (:func:`check_lora_targets`).
    The adapters are fp32 or, with ``spec.dtype: model``, each its base layer's weight dtype (the
    precision's, cast before); ``dropout`` False drops no adapter input (the stack's ``dropout: false``).
    """
    linears = [(n, m) for n, m in model.named_modules() if isinstance(m, nn.Linear)]
    check_lora_targets(spec.targets, linear_names(model))
    hits = [(n, m) for n, m in linears if any(lora_matches(t, n) for t in spec.targets)]
    for p in model.parameters():
        p.requires_grad_(False)
    alpha = spec.alpha if spec.alpha is not None else float(spec.rank)
    rate = spec.dropout if dropout else 0.0
    for name, lin in hits:
        dtype = lin.weight.dtype if spec.dtype is AdapterDtype.MODEL else torch.float32
        _set_submodule(model, name, LoRALinear(lin, spec.rank, alpha, dtype=dtype, dropout=rate))
    return len(hits)


def linear_names(model: nn.Module) -> tuple[str, ...]:
    """The qualified names of ``model``'s ``nn.Linear`` modules, sorted: what LoRA targets match
    (:func:`check_lora_targets`)."""
    return tuple(sorted(n for n, m in model.named_modules() if isinstance(m, nn.Linear)))


#: NF4's block: 64 weights share one absolute-maximum constant (QLoRA, Dettmers et al., NeurIPS
#: 2023, arXiv:2305.14314, §3 "4-bit NormalFloat Quantization": "a blocksize of 64 for W").
NF4_BLOCK = 64
#: Double quantization: the 8-bit block constants share one fp32 constant per 256 blocks
#: (arXiv:2305.14314 §3 "Double Quantization": "a blocksize of 256 for c2"; 8/64 + 32/(64·256) =
#: 0.127 bits per parameter, down from 32/64 = 0.5).
NF4_SECOND_BLOCK = 256

#: Who hears of each 4-bit dequantization while a step is traced (:func:`counting_dequantizations`).
_DEQUANTIZE_LISTENERS: list[Callable[[int, int], None]] = []


@contextmanager
def counting_dequantizations(listener: Callable[[int, int], None]) -> Iterator[None]:
    """Call ``listener(stored_bytes, weights)`` for each 4-bit weight dequantized inside the block.

    The dequantization kernel (bitsandbytes' ``dequantize_4bit``, torchao's NF4 ``get_original_weight``)
    is not a torch op a dispatch mode sees on fake tensors: the tracer costs it from these calls —
    the stored codes and block constants read, the 16-bit copy written."""
    _DEQUANTIZE_LISTENERS.append(listener)
    try:
        yield
    finally:
        _DEQUANTIZE_LISTENERS.remove(listener)


class _DequantizedMatmul(torch.autograd.Function):
    """``x · Wᵀ + b`` with ``W`` dequantized for the forward matmul and again for the backward one.

    bitsandbytes' ``MatMul4Bit`` (``bitsandbytes/autograd/_functions.py``):
    ``F.dequantize_4bit(B, quant_state).to(A.dtype)`` — the weight dequantized into the dtype it was
    quantized from (``quant_state.dtype``) and then cast to the input's, both copies alive at once
    where the two differ. ``library: bitsandbytes`` is the release ``pip install bitsandbytes``
    gives since 0.43.2 (2024-07-23): ``ctx.tensors = (None, B)``, the quantized weight only
    (https://github.com/bitsandbytes-foundation/bitsandbytes/pull/1270, read 2026-12-06), and
    ``Params4bit._quantize`` quantizes the weight in its own dtype (since 0.43.0), so a bf16 model's
    weight is dequantized straight to bf16. ``library: bitsandbytes-0.42`` is 0.42.0 (lines 514-546,
    commit 4870580f): ``ctx.tensors = (A, B)``, the input kept for backward whenever it needs a
    gradient, although only the weight is read there, and a weight quantized from a ``torch.half``
    copy (Lightning Fabric's ``_Linear4bit.quantize`` and bitsandbytes 0.42's ``Params4bit.cuda``),
    so dequantized through fp16. torchao's ``LinearNF4`` (torchtune's QLoRA) keeps the quantized
    weight only and dequantizes straight to the input's dtype. ``MatMul8bitLt`` (``int8``) is kept
    as before: the quantized weight only. A 4-bit dequantization's kernel is reported to
    :func:`counting_dequantizations` (an allocation moves no bytes here); the 8-bit one is not.

    Nothing goes through ``save_for_backward``, as in both libraries (the context's attributes),
    so a checkpointed block's recompute does not free or rebuild what is kept."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, module: QuantizedLinear) -> torch.Tensor:
        ctx.module, ctx.x_dtype = module, x.dtype
        if module.keeps_input and ctx.needs_input_grad[0]:
            ctx.tensors = (x,)
        w = module.dequantized(x.device)
        bias = module.bias.to(w.dtype) if module.bias is not None else None
        return torch.nn.functional.linear(x.to(w.dtype), w, bias)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor | None, None]:
        module: QuantizedLinear = ctx.module
        w = module.dequantized(grad.device)
        return grad.to(w.dtype).matmul(w).to(ctx.x_dtype), None


class QuantizedLinear(nn.Module):
    """A frozen ``nn.Linear`` whose weight is stored quantized, as bitsandbytes stores it.

    ``nf4``: two 4-bit codes per byte, and per block of :data:`NF4_BLOCK` weights one fp32
    absolute maximum — or, with double quantization, one 8-bit one plus one fp32 constant per
    :data:`NF4_SECOND_BLOCK` blocks (the quantization maps, 16 to 256 values per layer, are left
    out). ``int8`` (LLM.int8(), Dettmers et al. 2022, arXiv:2208.07339 §3.2 "vector-wise
    quantization": one scaling constant per row of the weight): one byte per weight and one fp32
    scale per output row (bitsandbytes ``Int8Params.SCB``). The bias keeps its dtype. The weight
    is dequantized to ``compute_dtype`` for every matmul, forward and backward.
    """

    def __init__(
        self,
        base: nn.Linear,
        quantization: BaseQuantization,
        *,
        double: bool,
        compute_dtype: torch.dtype,
        library: QuantizationLibrary = QuantizationLibrary.BITSANDBYTES,
    ) -> None:
        super().__init__()
        self.in_features, self.out_features = base.in_features, base.out_features
        self.compute_dtype = compute_dtype
        nf4 = quantization is BaseQuantization.NF4
        bnb_0_42 = nf4 and library is QuantizationLibrary.BITSANDBYTES_0_42
        self.keeps_input = bnb_0_42
        """Whether the matmul keeps its input for backward (bitsandbytes 0.42's ``MatMul4Bit``)."""
        self.dequantized_dtype = (
            torch.float16
            if bnb_0_42
            else base.weight.dtype
            if nf4 and library is QuantizationLibrary.BITSANDBYTES
            else compute_dtype
        )
        """The dtype the weight is dequantized into before the cast to ``compute_dtype``: the one it
        was quantized from (fp16 for bitsandbytes 0.42, the weight's own since), or torchao's cast."""
        self.weight_numel = base.weight.numel()
        """Parameters the weight stands for (its stored tensor holds fewer elements)."""
        dev, n = base.weight.device, base.weight.numel()
        if quantization is BaseQuantization.NF4:
            stored = torch.empty((n + 1) // 2, dtype=torch.uint8, device=dev)
            blocks = -(-n // NF4_BLOCK)
            constants = [torch.empty(blocks, dtype=torch.uint8 if double else torch.float32, device=dev)]
            if double:
                constants.append(torch.empty(-(-blocks // NF4_SECOND_BLOCK), dtype=torch.float32, device=dev))
        else:
            stored = torch.empty(base.weight.shape, dtype=torch.int8, device=dev)
            constants = [torch.empty(base.out_features, dtype=torch.float32, device=dev)]
        self.weight = nn.Parameter(stored, requires_grad=False)
        self.four_bit = quantization is BaseQuantization.NF4
        self.stored_bytes = sum(t.numel() * t.element_size() for t in (stored, *constants))
        """Bytes a dequantization reads: the codes and every level of block constants."""
        for i, c in enumerate(constants):
            self.register_buffer(f"quant_constants_{i}", c)
        self.bias = base.bias

    def dequantized(self, device: torch.device) -> torch.Tensor:
        """The weight as the matmul reads it: a fresh ``compute_dtype`` tensor of its shape, cast
        from a ``dequantized_dtype`` one when they differ (both alive during the cast)."""
        shape = (self.out_features, self.in_features)
        if self.four_bit:
            for listener in _DEQUANTIZE_LISTENERS:
                listener(self.stored_bytes, self.weight_numel)
        w = torch.empty(shape, dtype=self.dequantized_dtype, device=device)
        return w.to(self.compute_dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.project(x)

    def project(self, x: torch.Tensor) -> torch.Tensor:
        """``x · Wᵀ + b``: the forward, also called by a chunked loss on a quantized output layer."""
        out: torch.Tensor = _DequantizedMatmul.apply(x, self)
        return out


def _kept_whole(model: nn.Module, head: str | None, *, quantized_head: bool = False) -> set[int]:
    """The linear layers a bitsandbytes load leaves unquantized: the output layer (the model's
    output embeddings, ``head``; unless ``quantized_head``, as Lightning Fabric's
    ``BitsandbytesPrecision`` replaces every ``nn.Linear``) and any layer whose weight is tied to an
    embedding (Hugging Face transformers ``get_keys_to_not_convert``: "keep the lm_head in full
    precision for numerical stability reasons ... keep the tied weights"), and the adapters."""
    kept: set[int] = set()
    if quantized_head:
        head, get_head = None, None
    else:
        get_head = getattr(model, "get_output_embeddings", None)
    out = get_head() if callable(get_head) else None
    if out is not None:
        kept.add(id(out))
    if head:
        kept.add(id(model.get_submodule(head)))
    embedded = {id(m.weight) for m in model.modules() if isinstance(m, nn.Embedding)}
    for m in model.modules():
        if isinstance(m, LoRALinear):
            kept.update((id(m.lora_A), id(m.lora_B)))
        elif isinstance(m, nn.Linear) and id(m.weight) in embedded:
            kept.add(id(m))
    return kept


def quantize_base(model: nn.Module, spec: LoraSpec, *, head: str | None, compute_dtype: torch.dtype) -> int:
    """Store every frozen ``nn.Linear`` of the base quantized as ``spec.quantization`` says, as
    bitsandbytes replaces them when the model loads (``Linear4bit``/``Linear8bitLt``); the output
    layer, tied weights and the adapters stay whole. Returns how many were quantized."""
    kept = _kept_whole(model, head, quantized_head=spec.quantized_head)
    hits = [
        (n, m)
        for n, m in model.named_modules()
        if type(m) is nn.Linear and id(m) not in kept and not any(p.requires_grad for p in m.parameters())
    ]
    for name, lin in hits:
        quantized = QuantizedLinear(
            lin,
            spec.quantization,
            double=spec.double_quantization,
            compute_dtype=compute_dtype,
            library=spec.library,
        )
        _set_submodule(model, name, quantized)
    return len(hits)


def stored_params(model: nn.Module) -> int:
    """Parameters of ``model`` (tied ones once), a quantized weight counted as the weights it stands
    for rather than the bytes it is stored in."""
    stored = sum(p.numel() for p in model.parameters())
    quantized = [m for m in model.modules() if isinstance(m, QuantizedLinear)]
    return stored + sum(m.weight_numel - m.weight.numel() for m in quantized)


def freeze_prefixes(model: nn.Module, prefixes: Iterable[str]) -> None:
    """Freeze the parameters under each module-name prefix; an unmatched prefix is an error."""
    names = [n for n, _ in model.named_parameters()]
    for prefix in prefixes:
        hit = [
            p for n, p in model.named_parameters() if n == prefix or n.startswith(prefix.rstrip(".") + ".")
        ]
        if not hit:
            modules = [n for n, _ in model.named_modules() if n]
            hint = closest(prefix, modules)
            did = Phrase(N_("; did you mean {names}?"), names=either(repr(h) for h in hint)) if hint else ""
            raise WorkloadError.worded(
                N_("model.frozen: no parameters under {prefix!r}{did} (e.g. {example!r})"),
                prefix=prefix,
                did=did,
                example=names[0],
            )
        for p in hit:
            p.requires_grad_(False)


def _keep_matmul_outputs(ctx: Any, func: Any, *args: Any, **kwargs: Any) -> Any:
    """Selective checkpointing policy: keep what matmuls and attention produce (costly to redo),
    recompute the elementwise ops, norms and activations between them (cheap, but their outputs
    are most of a block's activation memory)."""
    from torch.utils.checkpoint import CheckpointPolicy

    name = str(getattr(func, "__name__", func))
    kept = ("mm", "addmm", "bmm", "convolution", "scaled_dot_product", "flash_attention")
    if any(k in name for k in kept):
        return CheckpointPolicy.MUST_SAVE
    return CheckpointPolicy.PREFER_RECOMPUTE


#: Makes the context a checkpointed block's recompute runs in (a fresh one per recompute).
RecomputeContext = Callable[[], AbstractContextManager[Any]]


class Checkpointed(nn.Module):
    """Runs ``block`` under non-reentrant activation checkpointing (recomputed in backward);
    ``selective`` keeps matmul and attention outputs (:func:`_keep_matmul_outputs`).

    ``recompute``: a context the recomputation runs in, so that it takes the forward's path (the
    tracer's function modes are not active inside the autograd engine, and a recompute that traced
    another kernel would not match what the forward saved)."""

    def __init__(
        self, block: nn.Module, *, selective: bool = False, recompute: RecomputeContext | None = None
    ) -> None:
        super().__init__()
        self.block = block
        self.selective = selective
        self.recompute = recompute

    def __getattr__(self, name: str) -> Any:
        """The wrapped block's attribute where the wrapper has none of that name, as PyTorch's own
        ``checkpoint_wrapper`` forwards them: code that reads ``block.resnets`` or
        ``block.has_cross_attention`` of a block it loops over (diffusers' UNet) sees the block."""
        try:
            return super().__getattr__(name)
        except AttributeError:
            block = self._modules.get("block")
            if block is None:  # while __init__ runs, before the block is set
                raise
            return getattr(block, name)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        contexts = checkpoint_contexts(self.selective, self.recompute)
        if contexts is None:
            return checkpoint(self.block, *args, use_reentrant=False, **kwargs)
        return checkpoint(self.block, *args, use_reentrant=False, context_fn=contexts, **kwargs)


def checkpoint_contexts(
    selective: bool, recompute: RecomputeContext | None
) -> Callable[[], tuple[AbstractContextManager[Any], AbstractContextManager[Any]]] | None:
    """``torch.utils.checkpoint``'s ``context_fn``: (forward context, recompute context).

    Without ``recompute`` it is a ``partial`` of torch's ``create_selective_checkpoint_contexts``
    (``selective``) or None (pass no ``context_fn``): the only kinds ``torch.compile`` takes."""
    from functools import partial

    from torch.utils.checkpoint import create_selective_checkpoint_contexts, noop_context_fn

    base = (
        partial(create_selective_checkpoint_contexts, _keep_matmul_outputs) if selective else noop_context_fn
    )

    if recompute is None:
        return base if selective else None
    added = recompute

    def make() -> tuple[AbstractContextManager[Any], AbstractContextManager[Any]]:
        forward, again = base()
        return forward, _both(again, added())

    return make


@contextmanager
def _both(first: AbstractContextManager[Any], second: AbstractContextManager[Any]) -> Iterator[None]:
    with first, second:
        yield


def repeated_blocks(model: nn.Module) -> tuple[str, ...]:
    """Names of the elements of the model's largest ``nn.ModuleList`` (its transformer blocks)."""
    lists = [(n, m) for n, m in model.named_modules() if isinstance(m, nn.ModuleList) and len(m) > 1]
    if not lists:
        return ()
    name, best = max(lists, key=lambda nm: sum(p.numel() for p in nm[1].parameters()))
    return tuple(f"{name}.{i}" if name else str(i) for i in range(len(best)))


def apply_checkpointing(
    model: nn.Module,
    blocks: Iterable[str],
    *,
    selective: bool = False,
    recompute: RecomputeContext | None = None,
) -> int:
    """Wrap each named block in ``Checkpointed``. Returns how many were wrapped."""
    n = 0
    for name in blocks:
        block = Checkpointed(model.get_submodule(name), selective=selective, recompute=recompute)
        _set_submodule(model, name, block)
        n += 1
    return n
