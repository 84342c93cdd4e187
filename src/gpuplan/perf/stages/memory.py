"""Stage 4 of an estimate, memory: what one GPU holds, as the run shards it, in named terms.

The layout gives one GPU's share of the traced peak under tensor × pipeline parallelism
(:attr:`Layout.local`). Data parallelism then works on it here, case by case:

- **ZeRO-1/2/3, FSDP** shard the model state over the ``d`` replicas (:func:`sharded_peak_bytes`;
  DeepSpeed's closed forms in :func:`zero_model_state_bytes`), and ZeRO-3/FSDP gather the largest
  layer's parameters and gradients; a forward-end peak under autocast drops the whole-model bf16
  weight cache (sharded mixed precision gathers 16-bit weights per layer);
- **DDP** adds its gradient buckets (one more gradient-sized buffer per rank);
- a sharded run's end-of-forward peak is re-derived where sharding moves the peak there
  (:mod:`gpuplan.perf.activations`);
- paged optimizer state is set apart (outside PyTorch's allocator), and
  :func:`gpuplan.perf.memory.memory_estimate` composes the terms nvidia-smi shows; the part of it
  that does not fit next to the rest crosses PCIe twice a step (:attr:`GpuMemory.paging_s`).

The notes say what was assumed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gpuplan.errors import EstimateError
from gpuplan.i18n import N_, _
from gpuplan.perf.activations import forward_activation_bytes, loss_bytes_per_element
from gpuplan.perf.anchor import Anchor
from gpuplan.perf.anchor_memory import MemoryAnchoring, anchored_memory
from gpuplan.perf.engine_memory import EngineMemory, engine_memory
from gpuplan.perf.links import host_copy_s
from gpuplan.perf.memory import (
    GIB,
    MemoryEstimate,
    is_optimizer_step_peak,
    memory_estimate,
    profile_has_conv,
    split_static,
    usable_memory_gib,
)
from gpuplan.perf.memory_margin import over_at_estimate_words
from gpuplan.perf.stages.layout import Layout, check_parallelism
from gpuplan.profile.model import MemoryBreakdown, Profile
from gpuplan.vocab import MemoryVerdict

__all__ = [
    "DEEPSPEED_MIXED_ADAM",
    "GpuMemory",
    "StateLayout",
    "engine_memory_of",
    "gpu_memory",
    "sharded_peak_bytes",
    "zero_model_state_bytes",
]


@dataclass(frozen=True, kw_only=True)
class GpuMemory:
    """The memory of one GPU of the run, and what was assumed to get it."""

    memory: MemoryEstimate
    notes: tuple[str, ...] = ()
    paging_s: float = 0.0
    """Seconds a step spends moving paged optimizer state between host memory and the GPU: the
    part that does not fit (:attr:`MemoryEstimate.host_spill_gib`) in and out again. bitsandbytes
    prefetches each parameter's state to the GPU on the compute stream just before its update
    (``Optimizer8bit.prefetch_state``, ``cudaMemPrefetchAsync``), and the driver evicts other
    state to host memory to make room, so the copies run between the updates, not beside them;
    when everything fits it moves nothing ("if more memory is available, they behave just like any
    other optimizer", T. Dettmers, huggingface/transformers pull request 23217, 2023-05-08)."""


def _stage(parallelism: str) -> int:
    return {"ddp": 0, "zero1": 1, "zero2": 2, "zero3": 3, "fsdp": 3}[check_parallelism(parallelism)]


@dataclass(frozen=True, kw_only=True)
class StateLayout:
    """Bytes per parameter of each piece of model state, as a ZeRO implementation keeps them."""

    param_bytes: float
    """Working (forward/backward) copy of a parameter."""
    grad_bytes: float
    """Working gradient."""
    optimizer_bytes: float
    """Optimizer state, including an fp32 master copy where one is kept."""
    grad_partition_bytes: float = 0.0
    """An extra, sharded, gradient copy (DeepSpeed's fp32 gradient partition)."""


#: DeepSpeed mixed-precision Adam: fp16 params and grads, fp32 master + exp_avg + exp_avg_sq
#: (4 + 4 + 4 = 12) and an fp32 gradient partition (deepspeed/runtime/zero/stage_1_and_2.py, stage3.py).
DEEPSPEED_MIXED_ADAM = StateLayout(param_bytes=2, grad_bytes=2, optimizer_bytes=12, grad_partition_bytes=4)


def zero_model_state_bytes(
    params: float, *, stage: int, world: int, layout: StateLayout, largest_layer_params: float = 0.0
) -> float:
    """Model-state bytes per GPU under ZeRO ``stage`` on ``world`` GPUs (no offload).

    Stages 1 and 2 keep working params and grads whole and shard optimizer state and the gradient
    partition (DeepSpeed's estimator treats both alike: ``4P + 16P/G``); stage 3 also shards the
    working params and gathers the largest layer's params and grads (``4·Lmax + 18P/G``).
    """
    if world < 1:
        raise EstimateError.worded(N_("world size must be at least 1"))
    working = layout.param_bytes + layout.grad_bytes
    sharded = layout.optimizer_bytes + layout.grad_partition_bytes
    if stage == 0:
        return params * (working + sharded)
    if stage in (1, 2):
        return params * working + params * sharded / world
    if stage == 3:
        return largest_layer_params * working + params * (layout.param_bytes + sharded) / world
    raise EstimateError.worded(N_("ZeRO stage must be 0–3, got {stage}"), stage=stage)


def sharded_peak_bytes(
    peak: MemoryBreakdown,
    *,
    parallelism: str,
    world: int,
    params: int,
    largest_layer_params: int | None,
) -> float:
    """Per-rank bytes at the traced peak when ``parallelism`` shards it over ``world`` GPUs.

    ZeRO-1 shards optimizer state (and, at an optimizer-step peak, the optimizer's temporaries);
    ZeRO-2 also gradients; ZeRO-3/FSDP also parameters, and gathers the largest layer's parameters
    and gradients (``ModelShape.largest_layer_params``; without it, 1/world of the params is
    assumed as the gathered unit — a note says so). Activations are per rank and unchanged.
    """
    stage = _stage(parallelism)
    total = peak.total_bytes
    if world <= 1 or stage == 0:
        return total
    keep = 1.0 - 1.0 / world
    saved = peak.optimizer_state_bytes * keep
    if peak.at_optimizer_step:  # foreach temporaries are per shard
        saved += peak.temporaries_bytes * keep
    if stage >= 2:
        saved += peak.gradients_bytes * keep
    if stage == 3:
        saved += peak.parameters_bytes * keep
        bytes_per_param = peak.parameters_bytes / params if params else 0.0
        unit = largest_layer_params if largest_layer_params else params / world
        grad_per_param = bytes_per_param if peak.gradients_bytes > 0 else 0.0
        saved -= unit * (bytes_per_param + grad_per_param)
    return total - saved


def _accumulated_forward_end(profile: Profile) -> MemoryBreakdown | None:
    """The traced peak as it stands at the end of a later micro-batch's forward under gradient
    accumulation: the gradients summed so far are live beside that micro-batch's activations (the
    trace, one micro-batch from ``zero_grad(set_to_none=True)``, has them only from its backward).
    None when the trace already holds them (fp32 main gradients, a peak in backward), or when the
    activations at the end of the forward pass are unknown at an optimizer-step peak."""
    if profile.task == "infer" or not profile.trainable_params:
        return None
    per_param = profile.gradient_bytes_per_param
    grads = profile.trainable_params * per_param
    peak = profile.peak
    if peak.gradients_bytes >= grads:
        return None
    if not is_optimizer_step_peak(peak):
        return replace(peak, gradients_bytes=grads)
    act = forward_activation_bytes(profile)
    if act is None:
        return None
    return replace(peak, activations_bytes=act, held_bytes=0.0, gradients_bytes=grads, temporaries_bytes=0.0)


def _traced_per_gpu_bytes(
    profile: Profile, parallelism: str, count: int, notes: list[str], *, accumulating: bool = False
) -> float:
    """Allocated bytes at the peak on one GPU: the trace, sharded by ZeRO/FSDP, plus DDP's buckets;
    ``accumulating`` (more than one micro-batch per optimizer step): the forward pass of a later
    micro-batch with the summed gradients live (:func:`_accumulated_forward_end`) where higher."""
    traced = sharded_peak_bytes(
        profile.peak,
        parallelism=parallelism,
        world=count,
        params=profile.params,
        largest_layer_params=profile.shape.largest_layer_params,
    )
    later = _accumulated_forward_end(profile) if accumulating else None
    if later is not None:
        with_grads = sharded_peak_bytes(
            later,
            parallelism=parallelism,
            world=count,
            params=profile.params,
            largest_layer_params=profile.shape.largest_layer_params,
        )
        if with_grads > traced:
            traced = with_grads
            notes.append(
                _(
                    "gradient accumulation: a later micro-batch's forward pass runs with the summed "
                    "gradients live ({gib:.2f} GiB per GPU)"
                ).format(gib=(later.gradients_bytes - profile.peak.gradients_bytes) / 2**30)
            )
    if count > 1 and parallelism == "ddp" and profile.task != "infer" and not profile.fp32_main_grads:
        # (bf16-master: Megatron's fp32 main-gradient buffer is the buckets' storage, traced.)
        # DDP copies gradients into its all-reduce buckets (``gradient_as_bucket_view=False`` is
        # PyTorch's default): one more gradient-sized buffer per rank.
        traced += profile.trainable_params * profile.bytes_per_param
        notes.append(_("DDP gradient buckets: +1 gradient copy per GPU (gradient_as_bucket_view=False)"))
    sharded = count > 1 and parallelism != "ddp"
    if sharded and parallelism in ("fsdp", "zero3") and not is_optimizer_step_peak(profile.peak):
        # A forward-end peak under autocast holds autocast's bf16 copy of every weight (2 B/param,
        # counted as activations). Sharded mixed precision gathers 16-bit weights per layer
        # instead (FSDP MixedPrecision, DeepSpeed fp16/bf16 params): no whole-model copy per rank.
        cache = 2.0 * profile.params if profile.autocast else 0.0
        drop = min(cache, profile.peak.activations_bytes)
        if drop > 0:
            traced -= drop
            notes.append(
                _("autocast's whole-model bf16 weight cache dropped: sharded runs gather 16-bit weights")
            )
    if sharded and is_optimizer_step_peak(profile.peak):
        # Sharding shrinks the optimizer-step peak; the end of the forward pass (activations
        # live, gradients not yet) may then be the higher one. The trace did not see it there.
        act = forward_activation_bytes(profile)
        if act is not None:
            # No gradients at the end of the forward pass, but a persistent fp32 main-gradient
            # buffer (bf16-master), which is there from the start.
            grads = 4.0 * profile.trainable_params if profile.fp32_main_grads else 0.0
            forward_end = replace(
                profile.peak,
                activations_bytes=act,
                held_bytes=0.0,  # the previous step's logits go once this forward's exist
                gradients_bytes=grads,
                temporaries_bytes=0.0,
            )
            traced = max(
                traced,
                sharded_peak_bytes(
                    forward_end,
                    parallelism=parallelism,
                    world=count,
                    params=profile.params,
                    largest_layer_params=profile.shape.largest_layer_params,
                ),
            )
            loss, per_element = loss_bytes_per_element(profile)
            notes.append(
                _(
                    "per-rank peak checked at the end of the forward pass (activations derived: "
                    "checkpointing {checkpointing}; the {loss} loss's logits, {bytes:g} B per "
                    "batch·seq·vocab element)"
                ).format(checkpointing=profile.activation_checkpointing, loss=loss.value, bytes=per_element)
            )
    return traced


_SHARE_NOTE = N_(
    "share_gpu: {share} replicas to a GPU — each has 1/{share} of its {whole_gib:.1f} GiB usable "
    "({capacity_gib:.1f} GiB), its CUDA context included"
)


def engine_memory_of(layout: Layout) -> EngineMemory | None:
    """One GPU of a replica a serving engine runs (``request.serving_scheduler``): the engine's
    share of the GPU and what fills it (``perf/engine_memory.py``), not the traced forward pass,
    which the engine never runs; its :meth:`EngineMemory.estimate` is the estimate's memory. None
    where that does not apply (no engine, not a decoder traced for inference, pipeline stages, a
    shape that cannot size it)."""
    request, profile = layout.request, layout.whole
    settings = request.serving_scheduler
    if (
        settings is None
        or profile.task != "infer"
        or profile.shape.family != "decoder"
        or not profile.seq_len
        or layout.model_parallel.pipeline > 1
    ):
        return None
    tp = layout.model_parallel.tensor
    return engine_memory(
        profile,
        layout.gpu,
        settings,
        tensor_parallel=tp,
        context_tokens=request.serving_context_tokens,
        replicas_per_gpu=request.gpu_share if tp == 1 else 1,
        memory_band=layout.calibration.memory_band,
    )


def _engine_memory(layout: Layout) -> GpuMemory | None:
    """:func:`engine_memory_of` as the estimate reports it, with its notes."""
    held = engine_memory_of(layout)
    if held is None:
        return None
    request, profile = layout.request, layout.whole
    settings = request.serving_scheduler
    assert settings is not None  # engine_memory_of has one
    tp = layout.model_parallel.tensor
    share = request.gpu_share if tp == 1 else 1
    mem = held.estimate(layout.gpu, tensor_parallel=tp)
    whole_gib = usable_memory_gib(layout.gpu)
    notes: list[str] = []
    if share > 1:
        # each engine is started at its fraction ÷ n of the GPU (deploy), as the serving model takes it
        notes.append(_(_SHARE_NOTE).format(share=share, whole_gib=whole_gib, capacity_gib=whole_gib / share))
    words = (
        _(
            "serving engine: its share of the GPU ({share_gib:.1f} GiB, {fraction} of {usable_gib:.1f} "
            "usable) holds the weights ({weights_gib:.1f} GiB), an iteration's activations at "
            "{tokens} tokens ({act_gib:.1f} GiB), {outside_gib:.1f} GiB outside PyTorch and a KV cache of "
            "{kv_gib:.1f} GiB, {n} requests of {context} tokens; the traced forward pass of "
            "{batch} × {seq} tokens is not what it runs"
        )
        if held.activations_in_share
        else _(
            "serving engine: its share of the GPU ({share_gib:.1f} GiB, {fraction} of {usable_gib:.1f} "
            "usable) holds the weights ({weights_gib:.1f} GiB), {outside_gib:.1f} GiB outside PyTorch "
            "and a KV cache of {kv_gib:.1f} GiB, {n} requests of {context} tokens; its activations and "
            "CUDA graphs use the rest of the GPU ({rest_gib:.1f} GiB); the traced forward pass of "
            "{batch} × {seq} tokens is not what it runs"
        )
    )
    notes.append(
        words.format(
            share_gib=held.engine_gib,
            fraction=f"{settings.memory_fraction:g}",
            usable_gib=whole_gib / share,
            weights_gib=held.weights_gib,
            tokens=held.tokens,
            act_gib=held.activations_gib[1],
            outside_gib=held.non_torch_gib[1],
            kv_gib=held.kv_gib,
            n=held.max_sequences,
            context=held.context_tokens,
            batch=profile.batch_size,
            seq=profile.seq_len,
            rest_gib=held.outside_gib,
        )
    )
    if mem.over_at_estimate:
        notes.append(over_at_estimate_words(mem.required_gib, mem.capacity_gib, mem.required_gib_high))
    elif mem.verdict is not MemoryVerdict.FITS:
        notes.append(
            _(
                "{verdict}: the weights, activations and one request's KV cache need "
                "{low_gib:.1f}–{high_gib:.1f} GiB ({required_gib:.1f} at the point) of the engine's "
                "{capacity_gib:.1f}"
            ).format(
                verdict=_("may not fit") if mem.verdict is MemoryVerdict.MAY_NOT_FIT else _("does not fit"),
                low_gib=mem.required_gib_low,
                high_gib=mem.required_gib_high,
                required_gib=mem.required_gib,
                capacity_gib=mem.capacity_gib,
            )
        )
    return GpuMemory(memory=mem, notes=tuple(notes))


def gpu_memory(layout: Layout) -> GpuMemory:
    """Memory of one GPU of ``layout``'s run, term by term, and what it assumed: a serving
    engine's own (:func:`_engine_memory`) where one runs it, else the traced step's."""
    served = _engine_memory(layout)
    if served is not None:
        return served
    profile, gpu, dp, parallelism = layout.local, layout.gpu, layout.data_parallel, layout.parallelism
    notes: list[str] = []
    traced = _traced_per_gpu_bytes(profile, parallelism, dp, notes, accumulating=layout.microbatches > 1)
    # Paged optimizer state sits in the trace's optimizer state (sharded with it) but outside
    # PyTorch's allocator: it is its own term, never part of what must fit.
    paged = profile.paged_optimizer_bytes / (dp if dp > 1 and parallelism != "ddp" else 1)
    traced -= paged
    traced += _guided_bytes(layout, notes)
    if parallelism in ("zero3", "fsdp") and dp > 1 and not profile.shape.largest_layer_params:
        notes.append(_("largest layer unknown: assumed 1/N of the parameters is gathered at once"))
    mem = memory_estimate(
        traced,
        gpu,
        has_conv=profile_has_conv(profile),
        gpu_count=layout.count,
        memory_band=layout.calibration.memory_band,
        paged_optimizer_bytes=paged,
        assumed_saving_bytes=profile.compiled_loss_saving_bytes,
    )
    if layout.anchor is not None:
        # (the notes so far say what the layout adds to the step: kept, it is added to the recording)
        anchored = _anchored(layout, layout.anchor, mem, traced, paged)
        mem = anchored.memory
        notes.insert(0, anchored.note)
    share = layout.request.gpu_share
    if share > 1:
        # n replicas time-sharing the GPU: each holds all of its own in 1/n of the memory (the
        # device plugin's time-slicing isolates none of it), as the serving model's KV room does
        whole_gib = mem.capacity_gib
        mem = replace(mem, capacity_gib=whole_gib / share)
        notes.append(_(_SHARE_NOTE).format(share=share, whole_gib=whole_gib, capacity_gib=mem.capacity_gib))
    if profile.compiled_loss_saving_bytes > 0 and mem.measured_on is None:
        notes.append(
            _(
                "compile: true — the point takes the loss compiled with the model, as torchtune and "
                "torchtitan run it ({gib:.1f} GiB less at the start of backward); the high end keeps "
                "the eager loss's bytes, for code that wraps only its model in torch.compile"
            ).format(gib=profile.compiled_loss_saving_bytes / GIB)
        )
    paging_s = 2.0 * host_copy_s(mem.host_spill_gib * GIB, gpu)
    if mem.host_spill_gib > 0:
        notes.append(
            _(
                "paged optimizer: {spill_gib:.1f} of {paged_gib:.1f} GiB of its state lives in host "
                "memory and crosses PCIe in and out at each step: {paging_s:.2f} s of the step"
            ).format(spill_gib=mem.host_spill_gib, paged_gib=mem.paged_optimizer_gib, paging_s=paging_s)
        )
    if mem.over_at_estimate:
        notes.append(over_at_estimate_words(mem.required_gib, mem.capacity_gib, mem.required_gib_high))
    elif mem.verdict is MemoryVerdict.MAY_NOT_FIT:
        notes.append(
            _(
                "may not fit: {low_gib:.1f}–{high_gib:.1f} GiB required ({required_gib:.1f} at the point) "
                "of {capacity_gib:.1f} GiB usable"
            ).format(
                low_gib=mem.required_gib_low,
                high_gib=mem.required_gib_high,
                required_gib=mem.required_gib,
                capacity_gib=mem.capacity_gib,
            )
        )
    elif mem.fits and mem.peak_memory_gib > mem.capacity_gib:
        notes.append(
            _(
                "fits only because PyTorch's allocator releases its cache and cuDNN picks algorithms with "
                "smaller workspaces under pressure ({required_gib:.1f} GiB required, "
                "{roomy_gib:.1f} GiB on a roomy GPU)"
            ).format(required_gib=mem.required_gib, roomy_gib=mem.peak_memory_gib)
        )
    if traced / GIB > mem.capacity_gib and mem.measured_on is None:
        notes.append(
            _("the traced peak alone exceeds the GPU's memory")
            if mem.ruled_out
            # "may not fit": the point is above, the band's low end (allocated ÷ its error) is not
            else _(
                "the traced peak alone ({traced:.1f} GiB) exceeds the GPU's memory: only the low end "
                "of the range fits"
            ).format(traced=traced / GIB)
        )
    return GpuMemory(memory=mem, notes=tuple(notes), paging_s=paging_s)


def _guided_bytes(layout: Layout, notes: list[str]) -> float:
    """What a denoiser call of ``request.call_batches`` × the traced batch (classifier-free
    guidance's doubled batch) holds beyond the traced call: its activations and temporaries at that
    batch (linear in the batch, :func:`~gpuplan.perf.memory.split_static`), said in ``notes``; 0 for
    every other workload."""
    batches, profile = layout.request.call_batches, layout.local
    if batches <= 1:
        return 0.0
    _static, per_sample = split_static(profile.peak, profile.batch_size)
    extra = per_sample * profile.batch_size * (batches - 1)
    notes.append(
        _(
            "guidance: each denoiser call runs {double} latents, the conditional and unconditional "
            "inputs of the traced batch of {batch} concatenated (inputs.guidance, as diffusers runs it): "
            "its activations are counted at {double}, {gib:.2f} GiB more than the traced call's"
        ).format(double=batches * profile.batch_size, batch=profile.batch_size, gib=extra / GIB)
    )
    return extra


def _anchored(
    layout: Layout, anchor: Anchor, model: MemoryEstimate, traced: float, paged: float
) -> MemoryAnchoring:
    """``model`` replaced by ``anchor``'s recorded memory where one GPU of ``layout`` holds what the
    recording's GPU held (``perf/anchor_memory.py``)."""
    profile = layout.whole
    dp, parallelism = layout.data_parallel, layout.parallelism
    # the recorded step: the whole model, one micro-batch, one GPU
    recorded = _traced_per_gpu_bytes(profile, parallelism, 1, []) - profile.paged_optimizer_bytes
    whole = not layout.model_parallel.active and (dp <= 1 or parallelism == "ddp")
    return anchored_memory(
        model,
        anchor.measurement,
        layout.gpu,
        added_bytes=max(0.0, traced - recorded),
        whole_on_one_gpu=whole,
        paged_optimizer_bytes=paged,
        has_conv=profile_has_conv(profile),
        gpu_count=layout.count,
    )
