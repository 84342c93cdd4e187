"""OOM advisor: changes that make a workload fit a GPU, each with its memory and step-time cost.

Every figure here is *derived* analytically from the Profile's memory breakdown and op list, not
re-traced; each :class:`Advice` says how (``derivation``). Re-tracing with the change applied is the
way to confirm one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from gpuplan.errors import EstimateError, GpuplanError
from gpuplan.hardware import all_gpus
from gpuplan.i18n.messages import N_, _
from gpuplan.i18n.phrases import bracketed, item_list
from gpuplan.perf.activations import LOSS_BYTES_PER_ELEMENT, forward_activation_bytes
from gpuplan.perf.advice_base import Advice, Current, Retrace, Setup
from gpuplan.perf.calibration import load_calibration
from gpuplan.perf.estimate import Estimate, EstimateRequest, run_estimate
from gpuplan.perf.memory import is_optimizer_step_peak
from gpuplan.perf.stages.layout import TENSOR_PARALLEL_DEGREES, tensor_parallel_degrees
from gpuplan.profile.model import HEAD_CHUNK_TOKENS, LOSS_CHUNKS, MemoryBreakdown, OpRecord, Profile
from gpuplan.vocab import LossKind

if TYPE_CHECKING:
    from gpuplan.catalog.gpu_hour import GpuHourPrice

__all__ = ["NEGLIGIBLE_SAVING", "Advice", "Current", "advice_alters", "advise", "without_negligible"]

#: Families where LoRA (low-rank adapters on linear layers) is the usual fine-tuning method.
_TRANSFORMER_FAMILIES = frozenset({"decoder", "encoder", "encoder-decoder", "vit"})
#: Without a layer structure, checkpointing every residual stage keeps ≈1/4 of activations
#: (rough: ResNet-style nets have 4 stages; torch.utils.checkpoint_sequential with √n segments).
_GENERIC_CHECKPOINT_KEEP = 0.25
#: How far a change departs from the workload as written, by its action: 1 changes the numerics (8-bit
#: optimizer moments, bf16 weights and optimizer state: every weight still trains, with other rounding, which
#: may change the result; a 4-bit base, QLoRA, rounds the frozen weights the adapters train against), 2
#: changes the method (LoRA trains adapters, not the weights; shorter samples train on other data). Every
#: other change keeps the update the workload makes: micro-batches with accumulation keep the global batch
#: (BatchNorm's statistics are the one thing taken over the smaller micro-batch), checkpointing recomputes
#: the same activations, a fused optimizer, a lighter loss and sharding compute the same sums (sharding over
#: more GPUs keeps each GPU's micro-batch, ``batch_size`` being per GPU, so the global batch grows with the
#: count, as in any GPU count the estimate compares; it ranks after the changes on the workload's own GPUs),
#: a bigger GPU or fewer replicas to a GPU run the same job, and an optimizer stepped inside backward makes
#: the same step (a clip of the global gradient norm, which needs every gradient at once, is what it cannot
#: do). The advice lists changes that keep the method before those that change it; on one configuration
#: those that keep the numerics first, but a change of numerics on the user's own GPUs before more GPUs
#: or another GPU (saying what it changes), never hiding either.
_ALTERS = {
    "adamw_8bit": 1,
    "paged_adamw_8bit": 1,
    "bf16_weights": 1,
    "qlora": 1,
    "lora": 2,
    "shorter_seq_len": 2,
}
#: GPU counts tried for ZeRO/FSDP, as multiples of the configuration's own count.
_WORLD_MULTIPLES = (1, 2, 4, 8)
_MAX_WORLD = 64


def _scaled(
    ops: tuple[OpRecord, ...], phases: tuple[str, ...], flops: float, nbytes: float
) -> tuple[OpRecord, ...]:
    return tuple(
        replace(o, flops=o.flops * flops, bytes_moved=o.bytes_moved * nbytes) if o.phase in phases else o
        for o in ops
    )


#: Optimizers whose step (PyTorch's foreach kernels, CUDA's default) holds a parameter-sized fp32
#: temporary: AdamW's and Adam's ``_foreach_sqrt`` of the second moment (see ``_fused_optimizer``).
_FOREACH_TEMPORARY = frozenset({"adam", "adamw"})


def _at_the_step(st: Setup, peak: MemoryBreakdown) -> MemoryBreakdown:
    """``peak`` (a changed profile's, at the end of its forward pass), or the optimizer step's where
    that is higher: once a change shrinks the activations, the step — every gradient live beside
    the weights, the optimizer state and its temporary — may be the peak the trace did not record
    (checkpointing a 7B FSDP fine-tune had been promised 22.8 GiB where the workload written with it
    needs 34.3, its optimizer step's)."""
    p = st.profile
    if p.task == "infer" or not p.trainable_params or st.current.optimizer_in_backward:
        return peak
    if is_optimizer_step_peak(peak):
        return peak
    per_param = p.gradient_bytes_per_param
    step = replace(
        peak,
        activations_bytes=peak.held_bytes,
        gradients_bytes=max(peak.gradients_bytes, p.trainable_params * per_param),
        temporaries_bytes=4.0 * p.trainable_params if st.current.optimizer in _FOREACH_TEMPORARY else 0.0,
    )
    return step if step.total_bytes > peak.total_bytes else peak


def _micro_batch_fit(st: Setup) -> tuple[Estimate, int, int] | None:
    """The largest micro-batch ``b`` that divides the batch and fits, its estimate and the ``k``
    micro-batches it takes to keep the batch; None where none fits."""
    p = st.profile
    at_step = is_optimizer_step_peak(p.peak)
    if (at_step and not p.peak.held_bytes) or p.batch_size <= 1:
        return None  # the peak does not shrink with the batch (optimizer step), or cannot
    train = p.task != "infer"
    # Prefer micro-batches that divide the batch, so accumulation keeps the global batch exactly.
    for b in (b for b in range(p.batch_size - 1, 0, -1) if p.batch_size % b == 0):
        f = b / p.batch_size
        # At the optimizer step only the logits held into the next forward shrink with the batch;
        # the temporaries are the optimizer's.
        peak = replace(
            p.peak,
            activations_bytes=p.peak.activations_bytes * f,
            held_bytes=p.peak.held_bytes * f,
            temporaries_bytes=p.peak.temporaries_bytes * (1.0 if at_step else f),
        )
        small = replace(
            p, batch_size=b, peak=_at_the_step(st, peak), ops=_scaled(p.ops, ("forward", "backward"), f, f)
        )
        k = p.batch_size // b
        e = st.run(small, accum=st.accum * k if train else None)
        if e.fits:
            if not train:  # serve the same batch as k smaller ones in sequence
                e = replace(e, step_time_s=e.step_time_s * k)
            return e, b, k
    return None


def _micro_batch(st: Setup) -> Advice | None:
    p = st.profile
    found = _micro_batch_fit(st)
    if found is None:
        return None
    e, b, k = found
    train = p.task != "infer"
    at_step = is_optimizer_step_peak(p.peak)
    how = _("micro-batch × gradient accumulation") if train else _("smaller batches in sequence")
    return st.advice(
        e,
        action="micro_batch",
        summary=_("micro-batch {b} × {k} accumulation steps (global batch kept)").format(b=b, k=k)
        if train
        else _("batch {b} instead of {was}").format(b=b, was=p.batch_size),
        derivation=_micro_batch_derivation(how, b, at_step),
    )


def _micro_batch_derivation(how: str, b: int, at_step: bool) -> str:
    return (
        _(
            "{how}: the peak is the optimizer step's, where only the logits held into the "
            "next step's forward scale to {b} samples; time = roofline with FLOPs and bytes "
            "scaled to the micro-batch"
        )
        if at_step
        else _(
            "{how}: activations and temporaries scaled to {b} samples (linear in batch); "
            "time = roofline with FLOPs and bytes scaled to the micro-batch"
        )
    ).format(how=how, b=b)


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
        return keep, _("layer inputs kept (s·b·h·L·{bytes} B) + one layer's activations").format(
            bytes=act_bytes
        )
    if profile.checkpoint_keep is not None:
        return profile.checkpoint_keep, _(
            "measured per block in the trace: what runs outside the blocks, their outputs, and the "
            "largest block recomputed at once beside its output's gradient"
        )
    return (
        _GENERIC_CHECKPOINT_KEEP,
        _("≈1/4 of activations kept (checkpoint per stage; no layer structure known)"),
    )


def _checkpointed(st: Setup, p: Profile) -> tuple[Profile, str] | None:
    """``p`` with every block checkpointed, and how; None where that frees nothing."""
    if p.task == "infer" or is_optimizer_step_peak(p.peak) or p.activation_checkpointing == "full":
        return None  # the peak is the optimizer step's, or every block is already recomputed
    keep, why = _checkpoint_keep(p)
    # Backward re-runs every checkpointed forward op: ≈ +1/3 of the forward+backward compute.
    recompute = tuple(replace(o, phase="backward") for o in p.ops if o.phase == "forward")
    # Marked checkpointed: where sharding moves the peak to the end of the forward pass, the memory
    # stage derives what is live there as it does for the workload written with the change.
    changed = replace(
        p,
        peak=_at_the_step(st, replace(p.peak, activations_bytes=p.peak.activations_bytes * keep)),
        ops=p.ops + recompute,
        activation_checkpointing="full",
    )
    return changed, _("activations × {keep:.2f} ({why}); time + one forward recompute").format(
        keep=keep, why=why
    )


def _traced(st: Setup, changes: Mapping[str, str | int]) -> Profile | None:
    """The profile of the workload traced with ``changes`` applied, where the advisor was given a
    tracer and the trace runs; None otherwise (the advice is then derived from the breakdown)."""
    if st.retrace is None:
        return None
    try:
        return st.retrace(changes)
    except GpuplanError:
        return None  # the changed workload does not trace: the derived figure stands, said so


def _traced_words(changes: Mapping[str, str | int]) -> str:
    return _("traced with {settings} applied: the estimate of the workload written with them").format(
        settings=_("; ").join(f"{k}: {v}" for k, v in changes.items())
    )


#: The workload setting each action of the advice changes, as the workload file writes it.
_CHECKPOINT_FULL: dict[str, str | int] = {"activation_checkpointing": "full"}


def _checkpointing(st: Setup) -> Advice | None:
    p = st.profile
    found = _checkpointed(st, p)
    if found is None:
        return None
    changed, derivation = found
    # The figure is the applied estimate's: the block-level keep and a whole forward's recompute
    # had given an 8B LoRA 39.3 GiB and 19.2 s where the workload written with checkpointing is
    # estimated at 44.1 GiB and 17.7 s (its logits are not recomputed, and are kept).
    traced = _traced(st, _CHECKPOINT_FULL)
    if traced is not None:
        changed, derivation = traced, _traced_words(_CHECKPOINT_FULL)
    return st.advice(
        st.run(changed),
        action="gradient_checkpointing",
        summary=_checkpoint_summary(p),
        derivation=derivation,
    )


def _checkpoint_summary(p: Profile) -> str:
    return (
        _("enable activation (gradient) checkpointing")
        if p.activation_checkpointing == "none"
        else _("checkpoint every block (activation_checkpointing: full) instead of selective")
    )


def _fused_optimizer(st: Setup) -> Advice | None:
    p = st.profile
    if p.task == "infer" or not is_optimizer_step_peak(p.peak) or p.peak.temporaries_bytes <= 0:
        return None  # the peak is not foreach AdamW's optimizer-step temporary
    if st.current.optimizer != "adamw":
        return None  # fused, 8-bit, SGD …: not foreach AdamW, whose temporary this removes
    return st.advice(
        st.run(replace(p, peak=replace(p.peak, temporaries_bytes=0.0))),
        action="fused_optimizer",
        summary=_("use a fused optimizer (torch.optim.AdamW(..., fused=True))"),
        derivation=_(
            "foreach AdamW's parameter-sized temporary removed; a lower bound: the peak may move "
            "to the end of the forward pass — re-trace with fused=True to confirm"
        ),
    )


#: bitsandbytes 8-bit Adam state: two uint8 moments + one fp32 absmax per 256 elements each
#: (profile/optimizers.py has the source); parameters under 4096 elements keep fp32 moments.
_ADAM_8BIT_BYTES_PER_PARAM = 2.0 + 2 * 4.0 / 256


def _eight_bit_peak(st: Setup, p: Profile) -> tuple[MemoryBreakdown, str] | None:
    """``p``'s peak with 8-bit AdamW state, and how; None where the workload's optimizer is not
    one whose state this replaces."""
    trainable = p.trainable_params
    if p.task == "infer" or not trainable or p.paged_optimizer_bytes > 0:
        return None
    if "8bit" in st.current.optimizer or st.current.optimizer not in ("adam", "adamw", "adamw-fused"):
        return None  # already 8-bit, or not Adam(W), whose state this replaces
    if p.peak.optimizer_state_bytes < 3.0 * trainable:
        return None  # not a two-moment fp32/bf16 optimizer (SGD, Adafactor, already 8-bit)
    state = _ADAM_8BIT_BYTES_PER_PARAM * trainable
    # bitsandbytes updates each parameter in one fused kernel: no optimizer-step temporary.
    temps = 0.0 if is_optimizer_step_peak(p.peak) else p.peak.temporaries_bytes
    peak = replace(p.peak, optimizer_state_bytes=state, temporaries_bytes=temps)
    how = _("AdamW state {was:.1f} → {now:.2f} B/param (block-wise 8-bit moments)").format(
        was=p.peak.optimizer_state_bytes / trainable, now=_ADAM_8BIT_BYTES_PER_PARAM
    )
    return peak, how


def _eight_bit_adam(st: Setup) -> list[Advice]:
    p = st.profile
    found = _eight_bit_peak(st, p)
    if found is None:
        return []
    peak, how = found
    state = peak.optimizer_state_bytes
    out = []
    for action, summary, paged in (
        ("adamw_8bit", _("use 8-bit AdamW (bitsandbytes), optimizer adamw-8bit"), 0.0),
        (
            "paged_adamw_8bit",
            _(
                "use paged 8-bit AdamW (bitsandbytes): its state pages out to host memory "
                "when the GPU is full"
            ),
            state,
        ),
    ):
        e = st.run(replace(p, peak=peak, paged_optimizer_bytes=paged))
        extra = _("; the paged state is not required on the GPU") if paged else ""
        out.append(st.advice(e, action=action, summary=summary, derivation=how + extra, timed=False))
    return out


def _optimizer_in_backward(st: Setup) -> Advice | None:
    p = st.profile
    if p.task == "infer" or st.accum > 1 or p.peak.gradients_bytes <= 0 or st.current.optimizer_in_backward:
        return None  # nothing to free, accumulation needs the whole gradient, or already so
    largest = p.shape.largest_layer_params or 0
    per_grad = p.peak.gradients_bytes / max(p.trainable_params, 1)
    # Each gradient is freed right after its own step: about one layer's gradients live at a time.
    grads = min(p.peak.gradients_bytes, largest * per_grad)
    temps = min(p.peak.temporaries_bytes, largest * per_grad) if is_optimizer_step_peak(p.peak) else None
    peak = replace(
        p.peak,
        gradients_bytes=grads,
        temporaries_bytes=p.peak.temporaries_bytes if temps is None else temps,
    )
    return st.advice(
        st.run(replace(p, peak=peak)),
        action="optimizer_in_backward",
        summary=_("step the optimizer inside backward, freeing each gradient at once"),
        derivation=_(
            "gradients live one layer at a time (the largest layer's), not the whole model's; "
            "needs no gradient accumulation"
        ),
    )


#: The lighter losses, lightest last: (kind, action, summary).
_LIGHTER_LOSSES = (
    (LossKind.CHUNKED, "chunked_loss", N_("chunked cross-entropy (torchtune), loss: chunked")),
    (
        LossKind.FUSED_LINEAR,
        "fused_linear_loss",
        # Liger's LigerFusedLinearCrossEntropyLoss (linkedin/Liger-Kernel, github.com/linkedin/
        # Liger-Kernel): not in PyTorch or transformers, a package to install and patch in.
        N_(
            "fused linear cross-entropy, loss: fused-linear (needs the Liger kernels: "
            "pip install liger-kernel, and its loss patched into your model)"
        ),
    ),
)


def _lighter_peak(st: Setup, p: Profile, kind: LossKind) -> tuple[MemoryBreakdown, str] | None:
    """``p``'s peak with the loss ``kind`` in place of the workload's, and how; None where that
    frees nothing (or no vocabulary logits are there to lighten)."""
    vocab, seq = p.shape.vocab_size, p.seq_len
    if p.task == "infer" or not vocab or not seq or p.vocab_head is False:
        return None  # no vocabulary logits a lighter loss could take over (loss: chunked is refused)
    now = LossKind.cast(st.current.loss)
    if LOSS_BYTES_PER_ELEMENT[kind] >= LOSS_BYTES_PER_ELEMENT[now]:
        return None  # the workload's loss already keeps no more than this one
    held = p.peak.held_bytes
    if not is_optimizer_step_peak(p.peak):
        return _loss_peak(p, now, kind, float(p.batch_size) * seq * vocab)
    if not held:
        return None  # no logits at the peak
    # The trace's peak with what the loss holds taken off: at the optimizer step (no other
    # activation live), the held logits and what their graph keeps (a QLoRA base's 4-bit layer
    # inputs) are the only loss memory there, and all that another loss frees. The optimizer's
    # temporaries stay; the new loss's logits are gone by then.
    without = replace(p.peak, activations_bytes=max(0.0, p.peak.activations_bytes - held), held_bytes=0.0)
    return without, _(
        "the step's logits held into the next step's forward ({saved:.2f} GiB) are let go "
        "before the optimizer step, where the peak is"
    ).format(saved=held / 2**30)


def _lighter_loss(st: Setup) -> list[Advice]:
    p = st.profile
    out = []
    for kind, action, summary in _LIGHTER_LOSSES:
        found = _lighter_peak(st, p, kind)
        if found is None:
            continue  # by this count the change frees nothing
        peak, derivation = found
        out.append(
            st.advice(
                st.run(replace(p, peak=peak)),
                action=action,
                summary=_(summary),
                derivation=derivation,
                timed=False,
            )
        )
    return out


#: Precisions whose step runs under autocast (fp32 weights cast to 16 bits by each matmul);
#: fp8 training is traced as amp-bf16 (profile/tracer.py).
_AUTOCAST = frozenset({"amp-fp16", "amp-bf16", "fp8"})
#: Bytes of one element of the autocast copy of a weight (bf16 or fp16).
_AUTOCAST_COPY_BYTES = 2


def _head_trains(p: Profile) -> bool | None:
    """Whether the output layer's weight takes a gradient: as the trace recorded it, else (a
    profile traced before it was) True where every parameter trains, False where fewer train than
    the head holds, None where the counts do not tell."""
    if p.head_trains is not None:
        return p.head_trains
    if p.trainable_params >= p.params:
        return True
    head = (p.shape.vocab_size or 0) * (p.shape.hidden_size or 0)
    return False if p.trainable_params < head else None


def _head_copies(p: Profile, kind: LossKind) -> int:
    """16-bit copies of the output layer's weight that ``kind`` keeps for backward: under autocast
    each matmul that reads a weight taking no gradient casts it anew (PyTorch's autocast caches the
    cast only of a leaf that requires grad: ``cached_cast`` in aten/src/ATen/autocast_mode.cpp),
    and the matmul keeps its copy — once for the standard loss, once per chunk for the chunked
    ones. The fused-linear loss keeps none for backward, but casts one per chunk while it computes
    that chunk's hidden-state gradient, where its peak is: counted as one. 0 where the weight is
    cast once (it trains) or not at all (no autocast); a frozen head is assumed where neither the
    profile nor its parameter counts say (:func:`_head_trains`)."""
    if p.precision not in _AUTOCAST or _head_trains(p):
        return 0
    if kind is LossKind.CHUNKED:
        return LOSS_CHUNKS
    if kind is LossKind.CHUNKED_LOGITS:
        return -(-(p.seq_len or 0) // HEAD_CHUNK_TOKENS)
    return 1


def _loss_peak(
    p: Profile, now: LossKind, kind: LossKind, elements: float
) -> tuple[MemoryBreakdown, str] | None:
    """The peak in the loss with ``kind`` instead of the workload's ``now``, and how: the bytes per
    logits element each keeps there, counted from the loss the workload runs, and the 16-bit copies
    of a frozen head each keeps under autocast (:func:`_head_copies`). None when that frees
    nothing."""
    head = (p.shape.vocab_size or 0) * (p.shape.hidden_size or 0)
    saved = (LOSS_BYTES_PER_ELEMENT[now] - LOSS_BYTES_PER_ELEMENT[kind]) * elements
    copies = _head_copies(p, kind) - _head_copies(p, now)
    saved -= copies * head * _AUTOCAST_COPY_BYTES
    if kind is LossKind.FUSED_LINEAR and _head_trains(p) is not False:
        # …but holds the head's weight gradient from forward on (vocabulary × hidden, in the
        # weights' dtype), where the head takes one (a frozen head's is never allocated).
        saved -= head * p.bytes_per_param
    if saved <= 0:
        return None
    act = max(0.0, p.peak.activations_bytes + p.peak.temporaries_bytes - saved)
    derivation = _(
        "logits memory {was:g} → {now:g} B per batch·seq·vocab element ({saved:.2f} GiB); "
        "a bound: the peak may move, re-trace to confirm"
    ).format(was=LOSS_BYTES_PER_ELEMENT[now], now=LOSS_BYTES_PER_ELEMENT[kind], saved=saved / 2**30)
    if copies:
        derivation += _(
            "; 16-bit copies of the frozen output layer kept under autocast: {delta:+d} ({gib:+.2f} GiB)"
        ).format(delta=copies, gib=copies * head * _AUTOCAST_COPY_BYTES / 2**30)
    return replace(p.peak, activations_bytes=act, temporaries_bytes=0.0), derivation


def _worlds(st: Setup) -> list[int]:
    """GPU counts to shard over, fewest first: 2×, 4×, 8× the request's, and every whole number of
    its nodes where the instance or the user gave their size (4-GPU instances: 8, 12, 16 … — the
    fewest that fit, where doubling jumped from 8 to 16)."""
    worlds = {st.count * m for m in _WORLD_MULTIPLES}
    link = st.request.link
    if link is not None and link.node_size_given and link.gpus_per_node > 1:
        worlds |= {link.gpus_per_node * k for k in range(1, _MAX_WORLD // link.gpus_per_node + 1)}
    return sorted(n for n in worlds if max(1, st.count) <= n <= _MAX_WORLD and n > 1)


def _sharded_words(e: Estimate) -> str:
    return _(
        "state sharded per rank (DeepSpeed/FSDP layout) from the traced breakdown; time adds the "
        "exposed collectives on {link}"
    ).format(link=e.link or _("one GPU"))


def _sharding(st: Setup) -> list[Advice]:
    if st.profile.task == "infer":
        return []
    out = []
    worlds = _worlds(st)
    done = {"ddp": 0, "zero1": 1, "zero2": 2, "zero3": 3, "fsdp": 3}.get(st.request.parallelism, 0)
    for parallelism, label in (("zero2", "ZeRO-2"), ("fsdp", "FSDP (ZeRO-3)")):
        if {"zero2": 2, "fsdp": 3}[parallelism] < done:
            continue  # the workload already shards more than this
        for n in worlds:
            if n == st.count and parallelism == st.request.parallelism:
                continue
            e = st.run(st.profile, count=n, parallelism=parallelism)
            if e.fits:
                out.append(
                    st.advice(
                        e,
                        action=parallelism,
                        summary=_("{scheme} on {n} GPUs (same micro-batch per GPU)").format(
                            scheme=label, n=n
                        ),
                        derivation=_sharded_words(e),
                    )
                )
                break
    return out


#: QLoRA as the workload file states it (Dettmers et al., "QLoRA: Efficient Finetuning of Quantized
#: LLMs", arXiv 2305.14314, 2023: NF4 base weights with double quantization).
_QLORA: dict[str, str | int] = {"quantization": "nf4", "double_quantization": 1}


def _qlora(st: Setup) -> Advice | None:
    """A LoRA fine-tune's frozen base in 4 bits (QLoRA): traced with the workload's ``lora`` block
    given ``quantization: nf4`` and double quantization, so its figures are the applied estimate's;
    offered only with a tracer (how bitsandbytes' 4-bit matmul keeps its input is the trace's, not a
    formula's)."""
    p = st.profile
    if not st.current.lora or p.base_quantization != "none" or p.task == "infer":
        return None
    traced = _traced(st, _QLORA)
    if traced is None:
        return None
    return st.advice(
        st.run(traced),
        action="qlora",
        summary=_(
            "QLoRA: the frozen base in 4 bits (model.lora.quantization: nf4, double_quantization: true; "
            "bitsandbytes)"
        ),
        derivation=_traced_words({"model.lora.quantization": "nf4", "double_quantization": "true"}),
    )


def _shorter_seq_len(st: Setup) -> Advice | None:
    """Half the sequence length, for a sequence model that trains: traced with ``inputs.seq_len``
    halved. Only the user knows whether their data allows it (samples cut or packed shorter train on
    other data), so the row says so and ranks with the changes that alter the workload."""
    p = st.profile
    if p.task == "infer" or not p.seq_len or p.seq_len < 256 or p.shape.family not in _TRANSFORMER_FAMILIES:
        return None
    half = p.seq_len // 2
    traced = _traced(st, {"seq_len": half})
    if traced is None:
        return None
    return st.advice(
        st.run(traced),
        action="shorter_seq_len",
        summary=_(
            "inputs.seq_len: {half} instead of {was}, if your data allows (samples cut or packed shorter)"
        ).format(half=half, was=p.seq_len),
        derivation=_traced_words({"inputs.seq_len": half})
        + _("; a step then trains on half the tokens: compare job times, not step times"),
    )


def _lora(st: Setup) -> Advice | None:
    """LoRA adapters in place of a full fine-tune: only for ``task: finetune`` — a pre-train
    (``train``) starts from random weights, with no trained base whose weights adapters could
    leave frozen, and inference trains nothing."""
    p = st.profile
    peak = p.peak
    if p.task != "finetune" or p.shape.family not in _TRANSFORMER_FAMILIES or st.current.lora:
        return None
    how = ""
    new_peak = replace(peak, gradients_bytes=0.0, optimizer_state_bytes=0.0)
    if is_optimizer_step_peak(peak):
        # The trace's peak shows no activations; LoRA's peak is at the end of the forward pass.
        act = forward_activation_bytes(p)
        if act is None:
            return None
        how = _("activations from 34·s·b·h·L (Korthikanti et al.) + fp32 logits; ")
        new_peak = replace(new_peak, activations_bytes=act, temporaries_bytes=0.0)
    # Frozen base weights need no weight-gradient GEMMs: half of the backward matmul FLOPs go
    # (ESTIMATION_NOTES 1.2: Llama-7B LoRA 61.7 vs full 88.9 TFLOP), and the optimizer is negligible.
    ops = tuple(
        replace(o, flops=o.flops * 0.5, bytes_moved=o.bytes_moved * 0.5)
        if o.phase == "backward" and o.op_class == "matmul"
        else o
        for o in p.ops
        if o.phase != "optimizer"
    )
    changed = replace(p, peak=new_peak, ops=ops, trainable_params=0)
    return st.advice(
        st.run(changed),
        action="lora",
        summary=_("fine-tune with LoRA adapters instead of all weights (changes the method)"),
        derivation=how
        + _(
            "frozen base: no gradients or optimizer state for it (adapters ≈0.1–1 % of "
            "params); backward matmuls halved (no weight gradients)"
        ),
    )


#: The pure-bf16 change's words, by the workload's optimizer: the state it keeps in fp32 beside
#: fp32 weights (SGD: its momentum buffer, gpuplan traces momentum 0.9; Adam and AdamW: two
#: moments; Adafactor: its factored second moment). An optimizer not listed (bitsandbytes' 8-bit
#: ones, whose state is 8-bit already) keeps its state as it is.
_BF16_STATE = {
    "sgd": N_("keep weights, gradients and SGD momentum in bf16 (pure-bf16 training)"),
    "adam": N_("keep weights, gradients and Adam state in bf16 (pure-bf16 training)"),
    "adamw": N_("keep weights, gradients and AdamW state in bf16 (pure-bf16 training)"),
    "adamw-fused": N_("keep weights, gradients and AdamW state in bf16 (pure-bf16 training)"),
    "adafactor": N_("keep weights, gradients and Adafactor state in bf16 (pure-bf16 training)"),
}


def _bf16_peak(st: Setup, p: Profile) -> tuple[MemoryBreakdown, str, str] | None:
    """``p``'s peak with weights and gradients (and the optimizer's state, where it is one of
    :data:`_BF16_STATE`) in bf16, what to change and how it is derived; None where the weights are
    not fp32 or the GPU has no bf16 path."""
    peak = p.peak
    if p.task == "infer" or not p.params or st.gpu.bf16_tflops is None:
        return None
    if peak.parameters_bytes / p.params < 3.5:
        return None  # weights are not fp32
    temps = peak.temporaries_bytes / 2.0 if is_optimizer_step_peak(peak) else peak.temporaries_bytes
    # The state is named as the workload's optimizer keeps it; an 8-bit one (or one of no state)
    # keeps what it has: only weights and gradients are halved.
    state = _BF16_STATE.get(st.current.optimizer) if peak.optimizer_state_bytes > 0 else None
    halved = replace(
        peak,
        parameters_bytes=peak.parameters_bytes / 2.0,
        gradients_bytes=peak.gradients_bytes / 2.0,
        optimizer_state_bytes=peak.optimizer_state_bytes / (1.0 if state is None else 2.0),
        temporaries_bytes=temps,
    )
    summary = _("keep weights and gradients in bf16 (pure-bf16 training)") if state is None else _(state)
    derivation = (
        _(
            "parameters and gradients halved (fp32 → bf16), the optimizer state kept as it is; "
            "activations unchanged; numerics risk: use stochastic rounding or Kahan summation "
            "for long runs"
        )
        if state is None
        else _(
            "parameters, gradients and optimizer state halved (fp32 → bf16); activations "
            "unchanged; numerics risk: use stochastic rounding or Kahan summation for long runs"
        )
    )
    return halved, summary, derivation


def _bf16_weights(st: Setup) -> Advice | None:
    p = st.profile
    found = _bf16_peak(st, p)
    if found is None:
        return None
    halved, summary, derivation = found
    return st.advice(
        st.run(replace(p, peak=halved)),
        action="bf16_weights",
        summary=summary,
        derivation=derivation,
        timed=False,
    )


def _fewer_to_a_gpu(st: Setup) -> Advice | None:
    """A service's replicas time-sharing the GPU (``share_gpu``): the most that still fit, each
    holding its own weights and context in 1/n of the memory."""
    share = st.request.gpu_share
    for n in range(share - 1, 0, -1):
        e = run_estimate(st.request.changed(gpu_share=n))
        if e.fits:
            return st.advice(
                e,
                action="share_gpu",
                summary=_("share_gpu {n} instead of {was}").format(n=n, was=share)
                if n > 1
                else _("a whole GPU to each replica instead of {was} to a GPU").format(was=share),
                derivation=(
                    _(
                        "the same replica in 1/{n} of the GPU's memory; a GPU then carries {n} "
                        "replicas instead of {was}, so each replica's share of the GPU-hour is {was}/{n} "
                        "of what it was"
                    )
                    if n > 1
                    else _(
                        "the same replica alone on the GPU, with all of its memory; each replica then "
                        "costs a whole GPU-hour, {was} times its share before"
                    )
                ).format(n=n, was=share),
                timed=False,
            )
    return None


def _tensor_parallel(st: Setup) -> Advice | None:
    """A served model's replica split over more GPUs of the same kind (``tensor_parallel``), as
    ``plan`` splits a service: the fewest of the degrees that split its heads evenly
    (:func:`tensor_parallel_degrees`) that fit, within one instance's GPUs (the node size the
    instance or the user gave, else the 8 of the largest instances), as many replicas as before.
    For an engine-served decoder only (a service, a batch generation job): the engine splits it
    (``--tensor-parallel-size``); replicas time-sharing a GPU cannot be split."""
    r = st.request
    mp = r.model_parallel
    if st.profile.task != "infer" or r.serving_scheduler is None or mp.pipeline > 1 or r.gpu_share > 1:
        return None
    link = r.link
    widest = link.gpus_per_node if link is not None and link.node_size_given else TENSOR_PARALLEL_DEGREES[-1]
    replicas = max(1, r.count // mp.tensor)
    degrees = [t for t in tensor_parallel_degrees(st.profile, widest) if t > mp.tensor]
    for t in degrees:
        n = replicas * t
        try:
            e = st.run(st.profile, count=n, tensor_parallel=t)
        except EstimateError:
            continue  # a split the layout refuses (spanning nodes, heads not dividing)
        if not e.fits:
            continue
        summary = _(
            "tensor_parallel: {t}, each replica split over {t} × {gpu}: {gib} GiB needed per GPU"
        ).format(t=t, gpu=st.gpu.id, gib=f"{e.memory.required_gib:.1f}")
        if replicas > 1:
            summary += _(" ({n} GPUs in all)").format(n=n)
        return st.advice(
            e,
            action="tensor_parallel",
            summary=summary,
            derivation=_(
                "the same replica split {t} ways (Megatron-style: the engine's --tensor-parallel-size "
                "{t}), estimated with the engine's memory at that split; the fewest of {degrees} GPUs "
                "that split its heads evenly and fit, within one instance ({widest} GPUs); time adds "
                "the all-reduces on {link}"
            ).format(
                t=t,
                degrees=item_list(degrees),
                widest=widest,
                link=e.link or _("one GPU"),
            ),
        )
    return None


def _bigger_gpu(st: Setup) -> Advice | None:
    fitting = []
    for g in all_gpus():
        if g.memory_gib <= st.gpu.memory_gib or g.id == st.gpu.id:
            continue
        try:
            e = st.run(st.profile, gpu=g)
        except EstimateError:
            continue  # that GPU lacks a dtype path the workload needs
        if e.fits:
            # Offered GPUs first (a GPU nobody rents out is no way to run the job); among them the
            # cheapest step at what the job pays an hour (the cheapest on-demand instance holding
            # its GPUs, whole), those of a dated price before those whose price is of unknown age
            # (a marketplace host's undated figure is no one's price today: never first for it),
            # then those of no known price (never first for a price not known); then the smallest
            # memory, then the fastest.
            unoffered = st.offered is not None and g.id not in st.offered
            price = None if st.offered is None else st.offered.get(g.id)
            hourly = None if price is None else price.job_usd_per_hour(st.count)
            cost = None if hourly is None else hourly * e.step_time_s / 3600.0
            undated = cost is not None and price is not None and price.staleness == "unknown"
            fitting.append(
                (unoffered, cost is None, undated, cost or 0.0, g.memory_gib, e.step_time_s, g, price, e)
            )
    if not fitting:
        return None
    unoffered, _unpriced, _undated, _cost, _memory, _time, g, price, e = min(fitting, key=lambda t: t[:6])
    summary = _("use {gpu} ({memory:g} GB)").format(gpu=g.id, memory=g.memory_gib) + (
        f" × {st.count}" if st.count > 1 else ""
    )
    if unoffered:
        summary += " — " + _("not offered in the catalog")
    elif price is not None:
        # The figure with its offer's place and age (a marketplace host's undated price is not
        # today's price of any host), or why the catalog has none.
        summary += " — " + price.said()
    return st.advice(
        e,
        action="bigger_gpu",
        summary=summary,
        gpu_price=None if unoffered else price,
        derivation=_(
            "same workload estimated on every larger GPU that fits: the one whose step costs least at "
            "what the job pays an hour (the cheapest on-demand instance that holds its GPUs, rented "
            "whole), those offered first, those of a dated price before those whose price is of unknown "
            "age, and those of no known price after; then the smallest memory, then the fastest"
        ),
    )


@dataclass(frozen=True)
class _Step:
    """One change of a combination: its action, its setting as the workload file writes it, and how
    its memory is derived."""

    action: str
    setting: str
    derivation: str


@dataclass(frozen=True)
class _Combo:
    """Changes applied together on one configuration, with the derived estimate after each."""

    steps: tuple[_Step, ...]
    needs: tuple[float, ...]
    """What must fit one GPU (``required_gib``) after each step, GiB."""
    estimate: Estimate
    """The estimate with every step applied (derived, not traced)."""
    current: Current
    count: int
    parallelism: str
    batch: int | None = None
    """The micro-batch of a ``micro_batch`` step (None without one)."""
    accum: int | None = None

    @property
    def actions(self) -> tuple[str, ...]:
        return tuple(s.action for s in self.steps)

    @property
    def alters(self) -> int:
        return max(_ALTERS.get(a, 0) for a in self.actions)

    @property
    def cost(self) -> float:
        """GPU-seconds per sample: what the job's GPUs cost at one price per GPU-hour (the step's
        own time where a change's effect on it is not derived)."""
        e = self.estimate
        return e.gpu_count * e.step_time_s / max(e.samples_per_step, 1)


def _sub(
    st: Setup, profile: Profile, current: Current, count: int | None = None, par: str | None = None
) -> Setup:
    """``st`` with ``profile`` (and what the workload then does, ``current``) on ``count`` GPUs
    sharded as ``par`` (the request's own where None)."""
    return st.changed(profile=profile, current=current, count=count, parallelism=par)


def _checkpoint_step(st: Setup, p: Profile) -> tuple[_Step, Profile, Current] | None:
    ck = _checkpointed(st, p)
    if ck is None:
        return None
    setting = (
        "gradient_checkpointing: true"
        if p.activation_checkpointing == "none"
        else "activation_checkpointing: full"
    )
    return _Step("gradient_checkpointing", setting, ck[1]), ck[0], st.current


def _loss_step(st: Setup, p: Profile) -> tuple[_Step, Profile, Current] | None:
    """The lightest loss that frees memory here (fused-linear before chunked)."""
    for kind, action, _summary in reversed(_LIGHTER_LOSSES):
        found = _lighter_peak(st, p, kind)
        if found is not None:
            setting = f"loss: {kind.value}"
            if kind is LossKind.FUSED_LINEAR:
                setting = bracketed(setting, _("needs the Liger kernels"))
            changed = replace(p, peak=found[0])
            return _Step(action, setting, found[1]), changed, replace(st.current, loss=kind.value)
    return None


def _eight_bit_step(st: Setup, p: Profile) -> tuple[_Step, Profile, Current] | None:
    eight = _eight_bit_peak(st, p)
    if eight is None:
        return None
    step = _Step("adamw_8bit", "optimizer: adamw-8bit", eight[1])
    return step, replace(p, peak=eight[0]), replace(st.current, optimizer="adamw-8bit")


def _bf16_step(st: Setup, p: Profile) -> tuple[_Step, Profile, Current] | None:
    found = _bf16_peak(st, p)
    if found is None:
        return None
    return _Step("bf16_weights", found[1], found[2]), replace(p, peak=found[0]), st.current


#: The changes to the profile that combinations are made of, in the order they are applied.
_PROFILE_STEPS = (_checkpoint_step, _loss_step, _eight_bit_step, _bf16_step)
#: Changes a combination's figures are derived for, not traced with (the workload file has no
#: setting that states them alone): a combination with one keeps its derived figures.
_NOT_RETRACED = frozenset({"bf16_weights"})
#: Changes whose effect on the step time is not derived (the traced combination has one).
_UNTIMED = frozenset({"adamw_8bit", "chunked_loss", "fused_linear_loss", "bf16_weights"})


def _with_micro_batch(st: Setup, sub: Setup, combo: _Combo) -> _Combo | None:
    """``combo`` (applied in ``sub``) with the largest micro-batch that then fits, gradient
    accumulation keeping the global batch; None where none does."""
    found = _micro_batch_fit(sub)
    if found is None:
        return None
    e, b, k = found
    how = _micro_batch_derivation(
        _("micro-batch × gradient accumulation"), b, is_optimizer_step_peak(sub.profile.peak)
    )
    accum = st.accum * k
    step = _Step("micro_batch", f"inputs.batch_size: {b}, gradient_accumulation: {accum}", how)
    return replace(
        combo,
        steps=(*combo.steps, step),
        needs=(*combo.needs, e.memory.required_gib),
        estimate=e,
        batch=b,
        accum=accum,
    )


def _combined(st: Setup) -> _Combo | None:
    """Where no single change fits the workload's own GPUs: the changes that keep the update it
    makes (checkpointing, a lighter loss) and then 8-bit AdamW's state, applied together, with the
    largest micro-batch that then fits. Tried in that order — checkpointing alone, + the lightest
    loss, + 8-bit AdamW, + both — each at the whole batch first and then micro-batches with
    gradient accumulation keeping the global batch; the first set that fits is the one, so it
    takes a handful of estimates (a LoRA fine-tune of an 8B model at batch 8 × 1024 on a 24 GB GPU
    had been told only to rent a 141 GB one, where checkpointing with micro-batch 4 × 2 fits)."""
    p = st.profile
    if p.task == "infer":
        return None
    ck = _checkpoint_step(st, p)
    for extras in ((), (_loss_step,), (_eight_bit_step,), (_loss_step, _eight_bit_step)):
        steps: list[_Step] = []
        needs: list[float] = []
        changed, now = p, st.current
        e: Estimate | None = None
        complete = True
        for fn in ((_checkpoint_step,) if ck is not None else ()) + extras:
            found = fn(_sub(st, changed, now), changed)
            if found is None:
                complete = False
                break
            step, changed, now = found
            e = st.run(changed)
            steps.append(step)
            needs.append(e.memory.required_gib)
        if not complete or e is None:
            continue  # a change this set needs does not apply; the set without it was tried
        combo = _Combo(
            steps=tuple(steps),
            needs=tuple(needs),
            estimate=e,
            current=now,
            count=st.count,
            parallelism=st.request.parallelism,
        )
        if len(steps) > 1 and e.fits:  # one change alone was tried as it is
            return combo
        with_mb = _with_micro_batch(st, _sub(st, changed, now), combo)
        if with_mb is not None:
            return with_mb
    return None


def _shardings(st: Setup) -> list[tuple[str, int]]:
    """The sharded layouts a pair is tried on: ZeRO-2 and FSDP (those that shard more than the
    workload does) on the workload's own GPU count and on each larger one of :func:`_worlds` below
    the fewest where that sharding alone fits (a pair on those GPUs would add a change to no gain)."""
    done = {"ddp": 0, "zero1": 1, "zero2": 2, "zero3": 3, "fsdp": 3}.get(st.request.parallelism, 0)
    out = []
    for parallelism in ("zero2", "fsdp"):
        if {"zero2": 2, "fsdp": 3}[parallelism] < done:
            continue
        for n in sorted({st.count, *_worlds(st)}):
            if n < 2 or (n == st.count and parallelism == st.request.parallelism):
                continue
            if st.run(st.profile, count=n, parallelism=parallelism).fits:
                break
            out.append((parallelism, n))
    return out


def _pairs(st: Setup) -> list[_Combo]:
    """Every pair of changes that fits, on the workload's own GPUs or a sharded layout: two changes
    to the profile (checkpointing, the lightest loss, 8-bit AdamW, bf16 weights) applied in that
    order; ZeRO-2 or FSDP on a count of :func:`_shardings` with one of them (the fewest GPUs that
    fit, per sharding and change); and each change, or each sharding, with the largest micro-batch
    that then fits. Bounded: at most C(4, 2) + 4 + (4 + 1) × the shardings estimates, each
    micro-batch search at most one per divisor of the batch (a 14B DDP fine-tune on 8 GPUs: a few
    dozen estimates, well under a second beside its trace)."""
    p = st.profile
    if p.task == "infer":
        return []
    par = st.request.parallelism
    out: list[_Combo] = []
    firsts = [f for f in (fn(st, p) for fn in _PROFILE_STEPS) if f is not None]
    for step, changed, now in firsts:
        e1 = st.run(changed)
        one = _Combo(
            steps=(step,),
            needs=(e1.memory.required_gib,),
            estimate=e1,
            current=now,
            count=st.count,
            parallelism=par,
        )
        with_mb = _with_micro_batch(st, _sub(st, changed, now), one)
        if with_mb is not None:
            out.append(with_mb)
        for fn in _PROFILE_STEPS[_PROFILE_STEPS.index(_STEP_OF[step.action]) + 1 :]:
            found = fn(_sub(st, changed, now), changed)
            if found is None:
                continue
            step2, changed2, now2 = found
            e2 = st.run(changed2)
            if e2.fits:
                out.append(
                    replace(
                        one,
                        steps=(step, step2),
                        needs=(*one.needs, e2.memory.required_gib),
                        estimate=e2,
                        current=now2,
                    )
                )
    for parallelism, n in _shardings(st):
        e1 = st.run(p, count=n, parallelism=parallelism)
        label = _("parallelism: {scheme} on {n} GPUs, same micro-batch per GPU").format(
            scheme=parallelism, n=n
        )
        how = _sharded_words(e1)
        shard = _Combo(
            steps=(_Step(parallelism, label, how),),
            needs=(e1.memory.required_gib,),
            estimate=e1,
            current=st.current,
            count=n,
            parallelism=parallelism,
        )
        with_mb = _with_micro_batch(st, _sub(st, p, st.current, n, parallelism), shard)
        if with_mb is not None:
            out.append(with_mb)
        for step, changed, now in firsts:
            e2 = st.run(changed, count=n, parallelism=parallelism)
            if e2.fits:
                out.append(
                    replace(
                        shard,
                        steps=(*shard.steps, step),
                        needs=(*shard.needs, e2.memory.required_gib),
                        estimate=e2,
                        current=now,
                    )
                )
    return out


_STEP_OF = {
    "gradient_checkpointing": _checkpoint_step,
    "chunked_loss": _loss_step,
    "fused_linear_loss": _loss_step,
    "adamw_8bit": _eight_bit_step,
    "bf16_weights": _bf16_step,
}


def _cheapest(combos: list[_Combo]) -> list[_Combo]:
    """Of the combinations that fit, the cheapest (GPU-seconds per sample, :attr:`_Combo.cost`;
    then the one that alters the workload least; then one whose figures the workload traced with it
    confirms before one only derived — 8-bit AdamW's state before pure bf16's, whose rounding needs
    care on long runs; then the least memory), and where it changes the workload's numerics or
    method, the cheapest that keeps them too (never hidden behind it). Each is then traced with its
    settings where a tracer is given (:func:`_combo_advice`): two traces at most."""
    fitting = [c for c in combos if c.estimate.fits]
    if not fitting:
        return []

    def key(c: _Combo) -> tuple[float, int, bool, float]:
        return (c.cost, c.alters, bool(_NOT_RETRACED & set(c.actions)), c.estimate.memory.required_gib)

    best = min(fitting, key=key)
    keeping = [c for c in fitting if c.alters == 0]
    if best.alters == 0 or not keeping:
        return [best]
    return [best, min(keeping, key=key)]


def _combo_advice(st: Setup, combo: _Combo) -> Advice:
    """A combination as advice: its figures the workload traced with its settings applied where a
    tracer is given and every change is one the workload file states (else derived), and what each
    step saves of the memory that must fit."""
    actions = combo.actions
    e = combo.estimate
    derivations = [s.derivation for s in combo.steps]
    timed = not _UNTIMED & set(actions)
    if not _NOT_RETRACED & set(actions):
        applied = _set_changes(actions, combo.current, combo.batch or st.profile.batch_size, combo.accum)
        traced = _traced(st, applied) if applied else None
        if traced is not None:
            e = st.run(traced, accum=combo.accum, count=combo.count, parallelism=combo.parallelism)
            # the sharding's own words stay: the workload file does not state the GPU count
            derivations = [s.derivation for s in combo.steps if s.action in ("zero2", "fsdp")]
            derivations.append(_traced_words(applied))
            timed = True
    needs = (*combo.needs[:-1], e.memory.required_gib)
    before = (st.base.memory.required_gib, *needs[:-1])
    saved = tuple(b - a for b, a in zip(before, needs, strict=True))
    settings = _("; ").join(
        _("{setting} — saves {gib} GiB").format(setting=s.setting, gib=f"{x:.1f}")
        for s, x in zip(combo.steps, saved, strict=True)
    )
    return st.advice(
        e,
        action="combined",
        summary=(
            _("together: {settings} (global batch kept)")
            if "micro_batch" in actions
            else _("together: {settings}")
        ).format(settings=settings),
        derivation=" + ".join(derivations),
        timed=timed,
        changes=actions,
        saved_gib=saved,
    )


def _distinct(combos: list[_Combo]) -> list[_Combo]:
    """``combos`` less the repeats: the same changes on the same layout, found twice."""
    seen: dict[tuple[tuple[str, ...], int, str, int | None], _Combo] = {}
    for c in combos:
        seen.setdefault((c.actions, c.count, c.parallelism, c.batch), c)
    return list(seen.values())


def _set_changes(
    actions: tuple[str, ...], now: Current, batch_size: int, accum: int | None
) -> dict[str, str | int]:
    """The workload settings a combined row's ``actions`` change, as the workload file writes them."""
    out: dict[str, str | int] = {}
    if "gradient_checkpointing" in actions:
        out.update(_CHECKPOINT_FULL)
    if {"chunked_loss", "fused_linear_loss"} & set(actions):
        out["loss"] = now.loss
    if "adamw_8bit" in actions:
        out["optimizer"] = now.optimizer
    if accum is not None:
        out["batch_size"], out["gradient_accumulation"] = batch_size, accum
    return out


#: A change that leaves the workload out of memory and saves less than this share of what it
#: needs is left out of the advice: 8-bit AdamW's 0.1 GiB of an 8B LoRA's 153 (its optimizer
#: state is the adapters') had been listed beside checkpointing's 100.
NEGLIGIBLE_SAVING = 0.01


def without_negligible(advice: tuple[Advice, ...], base: Estimate) -> tuple[tuple[Advice, ...], int]:
    """``advice`` without the changes on the workload's own GPUs that still do not fit and save
    under :data:`NEGLIGIBLE_SAVING` of the memory it needs (``base``), and how many were left out.
    A change that fits, or another GPU or count, is always kept."""
    need = base.memory.required_gib
    kept = tuple(
        a
        for a in advice
        if a.fits
        or a.gpu != base.gpu
        or a.gpu_count != base.gpu_count
        or a.required_gib is None
        or need - a.required_gib >= NEGLIGIBLE_SAVING * need
    )
    return kept, len(advice) - len(kept)


def advise(
    request: EstimateRequest,
    *,
    current: Current | None = None,
    offered: Mapping[str, GpuHourPrice | None] | None = None,
    retrace: Retrace | None = None,
) -> tuple[Advice, ...]:
    """Changes that make ``request.profile`` fit ``request.count`` × ``request.gpu``: those that
    fit first; among them those that keep what the workload trains before those that change its
    method (:data:`_ALTERS` 2); then changes on this configuration before more GPUs (a served
    model split over more of them, ``tensor_parallel``, among those) and another GPU; then those
    that keep the numerics before those that change them (their summary says which); then the
    fastest.

    Each change is applied to the Profile (memory breakdown, ops) and estimated on the same
    configuration, so sharding, DDP buckets and communication are accounted as in :func:`estimate`.
    The advice is costed on the request as given — its link (network, node size), job size and
    ``torch.compile`` setting — so the unchanged step time it compares against is the one
    :func:`run_estimate` gives for the same request; a change to more GPUs or another GPU gets a
    link built like the request's (:func:`_link_for`). ``current``: what the workload already
    does (none of it is suggested again); ``offered``: the GPUs the catalog has offers of, with
    their lowest on-demand price per GPU-hour and the offer it is from (another GPU is suggested
    among them first, the one whose step costs least, its price quoted with its place and age, and
    labelled "not offered in the catalog" otherwise); ``retrace``: traces the workload with a change
    applied, so that checkpointing and the combined changes are costed on the profile the workload
    written with them is (its figures are then the applied estimate's; without it, derived).
    A change "fits" by the estimate's own verdict (``required_gib`` ≤ ``capacity_gib``), which each
    advice carries beside the nvidia-smi figure.
    """
    request = request.changed(calibration=request.calibration or load_calibration())
    gpu, count = request.gpu, request.count
    st = Setup(
        request=request,
        base=run_estimate(request),
        current=current or Current(),
        offered=offered,
        retrace=retrace,
    )
    candidates: list[Advice | None] = [
        _micro_batch(st),
        _checkpointing(st),
        _fused_optimizer(st),
        *_eight_bit_adam(st),
        _optimizer_in_backward(st),
        *_lighter_loss(st),
        _lora(st),
        _qlora(st),
        _shorter_seq_len(st),
        _bf16_weights(st),
        *_sharding(st),
        _fewer_to_a_gpu(st),
        _tensor_parallel(st),
        _bigger_gpu(st),
    ]
    found = [a for a in candidates if a is not None]
    # Where no one change fits the workload's own GPUs, several together may (before more GPUs).
    # (Shorter samples are the user's call on their data, not a way to run the workload as written.)
    fits_here = any(
        a.fits and a.gpu == gpu.id and a.gpu_count == count and a.action != "shorter_seq_len" for a in found
    )
    if not fits_here:
        # the first set of the changes that keep the update (with 8-bit state after them) that
        # fits, and every pair of changes that fits: the cheapest offered, and the cheapest that
        # keeps the workload's numerics and method where that one does not
        combos = [c for c in (_combined(st), *_pairs(st)) if c is not None]
        cheapest = [_combo_advice(st, c) for c in _cheapest(_distinct(combos))]
        # (the one that keeps the workload is dropped where its trace does not fit after all)
        found.extend(a for i, a in enumerate(cheapest) if i == 0 or a.fits)

    found = [_numerics_said(a) for a in found]

    # Those that fit first; then those that keep what the workload trains (a change of method, _ALTERS
    # 2, last: a faster step is no gain to a user whose job then trains something else); then those
    # on the GPUs the user has before more GPUs and another GPU (how to fit on what one has is the
    # question: 8-bit AdamW with FSDP on the own 8 GPUs had been listed after FSDP on 16, and deploy
    # had named only that); then those that keep the numerics; then the fastest.
    def order(a: Advice) -> tuple[bool, bool, int, int, float]:
        where = 2 if a.gpu != gpu.id else (1 if a.gpu_count > count else 0)
        alters = advice_alters(a)
        return (not a.fits, alters >= 2, where, alters, a.step_time_factor or 1.0)

    return tuple(sorted(found, key=order))


#: What a change that alters the numerics (_ALTERS 1) changes, where its own words do not say it
#: (pure-bf16 training and QLoRA's 4-bit base say it in their summary).
_NUMERICS = {
    "adamw_8bit": N_("8-bit optimizer state"),
    "paged_adamw_8bit": N_("8-bit optimizer state"),
}


def advice_alters(a: Advice) -> int:
    """How far ``a`` departs from the workload as written: 0 keeps it, 1 changes its numerics (8-bit
    optimizer state, bf16 weights, a 4-bit base), 2 its method (LoRA, shorter samples)."""
    return max(_ALTERS.get(c, 0) for c in a.changes or (a.action,))


def _numerics_said(a: Advice) -> Advice:
    """``a`` with its summary saying which numerics it changes, where it changes them and its words
    do not say so (8-bit AdamW, alone or with other changes): a user told "it fits with" it learns
    the cost."""
    what = sorted({_(_NUMERICS[c]) for c in a.changes or (a.action,) if c in _NUMERICS})
    if not what:
        return a
    words = _("changes the numerics: {what}").format(what=item_list(what))
    return replace(a, summary=_("{summary} ({words})").format(summary=a.summary, words=words))
