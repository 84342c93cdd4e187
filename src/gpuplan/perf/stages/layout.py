"""Stage 1 of an estimate, the layout: which share of the traced step one GPU runs, over which links.

The request is checked (counts, parallelism names, a split the model allows) and laid out on its
GPUs; every later stage reads the :class:`Layout`. The trace is always the whole model at the
per-GPU micro-batch on one device. With tensor parallelism ``t`` and pipeline parallelism ``p``
one GPU runs ``1/p`` of the layers, each split ``t`` ways, and the data-parallel dimension is
``d = GPUs / (t·p)``. The split follows Narayanan et al., "Efficient Large-Scale Language Model
Training on GPU Clusters Using Megatron-LM", SC21 (arXiv:2104.04473), and Korthikanti et al.,
"Reducing Activation Recomputation in Large Transformer Models" (arXiv:2205.05198):

- **Compute share** (SC21 §2.3): the attention and MLP matmuls split by columns then rows, so every
  matmul and attention call does ``1/t`` of its FLOPs (the call count stays: smaller GEMMs, the
  same per-call tail). Without sequence parallelism the layer norms, dropouts and residual adds
  run whole on every tensor rank: Korthikanti's per-layer activation bytes are
  ``s·b·h·(10 + 24/t + 5·a·s/(h·t))`` of ``s·b·h·(34 + 5·a·s/h)`` (§4.2.1), and the
  elementwise ops, which move those bytes, take the same share. The ``5·a·s/h`` term is the
  attention scores, softmax and dropout on ``a·s²·b`` elements, split with the heads; only an
  attention that materialises them (eager, or Megatron's fused softmax) has it — a fused
  flash/SDPA kernel keeps none. With sequence parallelism everything is ``1/t`` (§4.2.2). A stage
  runs ``1/p`` of the calls (the embedding and the head are spread evenly: an approximation, as
  they are ≤ ``V/(16·l·h)`` of the FLOPs, under 2 % for the rows calibrated here).
- **Memory share** (Korthikanti §4): parameters, gradients and optimizer state ``÷ t·p``;
  activations of one micro-batch × the same share (``(10 + 24/t)/34`` with a fused attention
  kernel, ``1/t`` with sequence parallelism); the first stage of 1F1B keeps ``min(p, m)``
  micro-batches in flight, each of ``L/p`` layers, so the activation memory does not shrink with
  ``p`` (§4: "the first stage must store the activations of ``p`` micro-batches"). Autocast's
  bf16 weight cache (traced as activations) is a weight: ``÷ t·p``.
- **Links**: ``t`` must fit inside one node (NVLink); a data-parallel group holds one GPU of each
  replica and shares the node's network with the node's other groups (:func:`data_parallel_link`).

How the data-parallel replicas shard what one GPU holds (ZeRO/FSDP) is the memory stage's; the
tensor-parallel all-reduces and stage-to-stage sends are the communication stage's; the 1F1B
schedule is the compute stage's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, NamedTuple

from gpuplan.errors import EstimateError, Phrase
from gpuplan.i18n import N_, _
from gpuplan.i18n.phrases import listed
from gpuplan.perf.anchor import Anchor, choose_measurement, make_anchor, not_anchored_note
from gpuplan.perf.calibration import Calibration, load_calibration
from gpuplan.perf.gemm import split_shapes
from gpuplan.perf.links import Link, gpu_join_words, link_name, network_kind_words, no_peer_access_words
from gpuplan.perf.memory import usable_memory_gib
from gpuplan.perf.roofline import misaligned_gemm
from gpuplan.profile.model import MemoryBreakdown, OpRecord, Profile, is_nchw_norm
from gpuplan.vocab import Parallelism, TensorParallelPlan

if TYPE_CHECKING:
    from gpuplan.hardware import GPU
    from gpuplan.perf.estimate import EstimateRequest

__all__ = [
    "PARALLELISMS",
    "TENSOR_PARALLEL_DEGREES",
    "Layout",
    "ModelParallel",
    "check_model_parallel",
    "check_parallelism",
    "data_parallel_link",
    "even_tensor_parallel",
    "lay_out",
    "local_profile",
    "scores_bytes_per_sbh",
    "tensor_parallel_degrees",
]

PARALLELISMS: tuple[str, ...] = Parallelism.values()

#: Korthikanti et al. (arXiv:2205.05198) §4.2: per-layer activation bytes per s·b·h element that
#: tensor parallelism splits (24: the matmul inputs and outputs, attention, the GELU input) and
#: that it does not (10: two layer-norm inputs and two dropout masks … replicated on every rank).
_SPLIT_BYTES_PER_SBH = 24.0
_REPLICATED_BYTES_PER_SBH = 10.0
#: §4.1: bytes per a·s²·b element of a materialised attention (scores 2, softmax 2, dropout mask 1),
#: split with the heads (``5·a·s/(h·t)`` per s·b·h element, §4.2.1).
_SCORE_BYTES_PER_ASSB = 5.0


@dataclass(frozen=True, kw_only=True)
class ModelParallel:
    """How one model is split over GPUs: tensor (inside a layer) × pipeline (layers in stages)."""

    tensor: int = 1
    """Tensor-parallel degree ``t`` (Megatron ``--tensor-model-parallel-size``)."""
    pipeline: int = 1
    """Pipeline-parallel degree ``p`` (``--pipeline-model-parallel-size``)."""
    virtual_stages: int = 1
    """Model chunks per GPU of the interleaved 1F1B schedule (``v``; 1 = plain 1F1B)."""
    sequence_parallel: bool = False
    """Korthikanti's sequence parallelism: norms and dropouts split along the sequence too."""
    plan: TensorParallelPlan = TensorParallelPlan.SHARED_INPUT
    """Where a layer's column-parallel projections get their input (the stack's
    ``tensor_parallel_plan``): one shared gather per block, or one per projection."""

    @property
    def degree(self) -> int:
        """GPUs one model replica spans: ``t·p``."""
        return self.tensor * self.pipeline

    @property
    def active(self) -> bool:
        return self.degree > 1

    def elementwise_share(self, scores_per_sbh: float = 0.0) -> float:
        """Share of the elementwise work (and activation bytes) one tensor rank keeps.

        ``scores_per_sbh``: the bytes of materialised attention scores per ``s·b·h`` element of a
        layer (Korthikanti's ``5·a·s/h``, :func:`scores_bytes_per_sbh`); they split with the heads.
        """
        t = self.tensor
        if t == 1 or self.sequence_parallel:
            return 1.0 / t
        split = _SPLIT_BYTES_PER_SBH + scores_per_sbh
        return (_REPLICATED_BYTES_PER_SBH + split / t) / (_REPLICATED_BYTES_PER_SBH + split)

    def describe(self) -> str:
        parts = [f"TP={self.tensor}", f"PP={self.pipeline}"]
        if self.virtual_stages > 1:
            parts.append(f"interleaved ×{self.virtual_stages}")
        if self.sequence_parallel:
            parts.append("sequence parallel")
        if self.tensor > 1 and self.plan is TensorParallelPlan.PER_PROJECTION:
            parts.append("per-projection gathers")
        return " ".join(parts)


#: The tensor-parallel degrees a service that states no ``tensor_parallel`` is planned with: the
#: powers of two up to the 8 GPUs of the largest instances that join their GPUs with NVSwitch (AWS
#: p5.48xlarge, GCP a4-highgpu-8g, Azure ND H100 v5), the sizes vLLM's and SGLang's own examples
#: run a 70B model at. A tensor-parallel group must sit in one instance (its all-reduces run every
#: layer over NVLink).
TENSOR_PARALLEL_DEGREES: tuple[int, ...] = (1, 2, 4, 8)


def tensor_parallel_degrees(profile: Profile, limit: int = TENSOR_PARALLEL_DEGREES[-1]) -> tuple[int, ...]:
    """The degrees of :data:`TENSOR_PARALLEL_DEGREES` up to ``limit`` that split the model evenly:
    dividing its attention heads, and its key/value heads or divided by them (the two rules
    :func:`check_model_parallel` holds a split to); ``(1,)`` for a model whose heads are unknown."""
    heads = profile.shape.num_attention_heads or 0
    kv = profile.shape.num_kv_heads or heads
    if not (heads and profile.shape.num_layers):
        return (1,)
    return tuple(
        t for t in TENSOR_PARALLEL_DEGREES if t <= limit and not heads % t and not (kv % t and t % kv)
    )


def even_tensor_parallel(heads: int, kv_heads: int, widest: int = TENSOR_PARALLEL_DEGREES[-1]) -> list[int]:
    """The degrees up to ``widest`` that split ``heads`` attention heads and ``kv_heads`` key/value
    heads (0: as many as ``heads``) evenly: dividing the heads, and dividing the key/value heads or
    divided by them (the rules of :func:`check_model_parallel`)."""
    kv = kv_heads or heads
    return [d for d in range(1, min(heads, widest) + 1) if not heads % d and not (kv % d and d % kv)]


def _divisors(n: int, limit: int) -> Phrase:
    return listed(d for d in range(1, min(n, limit) + 1) if n % d == 0)


def _fewest_holding_weights(profile: Profile, gpu: GPU | None, choices: list[int]) -> int | None:
    """The fewest of ``choices`` GPUs of ``gpu`` whose memory holds the model's weights split over
    them (0: none of them does); None where the first already does, or the GPU is not known."""
    if gpu is None or not choices:
        return None
    weights = profile.peak.parameters_bytes + profile.peak.buffers_bytes
    usable = usable_memory_gib(gpu) * 2**30
    holding = [t for t in choices if weights / t < usable]
    if holding and holding[0] == choices[0]:
        return None
    return holding[0] if holding else 0


def check_model_parallel(
    mp: ModelParallel,
    profile: Profile,
    *,
    count: int,
    gpus_per_node: int,
    microbatches: int,
    gpu: GPU | None = None,
) -> int:
    """The data-parallel degree ``count / (t·p)``; one-line :class:`EstimateError` when the split
    cannot run: degrees below 1, ``t·p`` not dividing the GPUs, ``t`` not dividing the attention
    heads or spanning nodes, ``p`` above the layers, or no layer structure known.

    The degrees a refusal suggests go up to the GPUs of the largest instance
    (:data:`TENSOR_PARALLEL_DEGREES`' last), not only to the GPUs asked about: a count is the
    user's to change. Where the fewest suggested do not hold the weights of ``gpu``, it says how
    many do."""
    t, p, v = mp.tensor, mp.pipeline, mp.virtual_stages
    for name, value in (("tensor_parallel", t), ("pipeline_parallel", p), ("pipeline_virtual_stages", v)):
        if value < 1:
            raise EstimateError.worded(N_("{name} must be at least 1, got {value}"), name=name, value=value)
    if not mp.active:
        return count
    shape = profile.shape
    layers, heads = shape.num_layers or 0, shape.num_attention_heads or 0
    if not (layers and heads):
        raise EstimateError.worded(
            N_(
                "tensor/pipeline parallelism needs a transformer whose layers and attention heads are "
                "known; use data parallelism (parallelism: ddp or fsdp) for this model"
            )
        )
    if count % mp.degree:
        gpus = (
            Phrase(N_("{count} GPU"), count=count) if count == 1 else Phrase(N_("{count} GPUs"), count=count)
        )
        raise EstimateError.worded(
            N_(
                "tensor_parallel {tp} × pipeline_parallel {pp} = {degree} does not divide {gpus}; "
                "use a GPU count that is a multiple of {degree}"
            ),
            tp=t,
            pp=p,
            degree=mp.degree,
            gpus=gpus,
        )
    widest = max(gpus_per_node, TENSOR_PARALLEL_DEGREES[-1])
    kv = shape.num_kv_heads or heads
    if heads % t:
        # the degrees that split both the heads and the key/value heads evenly
        choices = even_tensor_parallel(heads, kv, widest)
        least = _fewest_holding_weights(profile, gpu, choices)
        if least is None:
            raise EstimateError.worded(
                N_(
                    "tensor_parallel {tp} does not divide the model's {heads} attention heads; "
                    "use one of {choices}"
                ),
                tp=t,
                heads=heads,
                choices=listed(choices),
            )
        assert gpu is not None  # a count that holds the weights is only known of a GPU
        weights_gb = f"{(profile.peak.parameters_bytes + profile.peak.buffers_bytes) / 1e9:.1f}"
        if least:
            raise EstimateError.worded(
                N_(
                    "tensor_parallel {tp} does not divide the model's {heads} attention heads; "
                    "use one of {choices}: the weights alone ({gb} GB) need {least} or more {gpu}"
                ),
                tp=t,
                heads=heads,
                choices=listed(choices),
                gb=weights_gb,
                least=least,
                gpu=gpu.id,
            )
        raise EstimateError.worded(
            N_(
                "tensor_parallel {tp} does not divide the model's {heads} attention heads; "
                "use one of {choices}, on a GPU of more memory: the weights alone ({gb} GB) do not "
                "fit {most} {gpu}"
            ),
            tp=t,
            heads=heads,
            choices=listed(choices),
            gb=weights_gb,
            most=choices[-1],
            gpu=gpu.id,
        )
    if kv % t and t % kv:
        raise EstimateError.worded(
            N_(
                "tensor_parallel {tp} splits the model's {heads} key/value heads unevenly; "
                "use one of {choices}"
            ),
            tp=t,
            heads=kv,
            choices=_divisors(kv, widest),
        )
    if t > gpus_per_node:
        raise EstimateError.worded(
            N_(
                "tensor_parallel {tp} spans nodes of {per_node} GPUs (its all-reduces run every layer and "
                "need NVLink); use at most {per_node} and raise pipeline_parallel instead"
            ),
            tp=t,
            per_node=gpus_per_node,
        )
    if p > layers:
        raise EstimateError.worded(
            N_(
                "pipeline_parallel {pp} is more stages than the model's {layers} layers; use at most {layers}"
            ),
            pp=p,
            layers=layers,
        )
    if v > 1 and (p == 1 or layers % (p * v)):
        raise EstimateError.worded(
            N_(
                "pipeline_virtual_stages {virtual} needs pipeline_parallel > 1 and {layers} layers "
                "divisible by pipeline_parallel × pipeline_virtual_stages ({product})"
            ),
            virtual=v,
            layers=layers,
            product=p * v,
        )
    if v > 1 and microbatches % p:
        raise EstimateError.worded(
            N_(
                "the interleaved schedule needs the micro-batches per step ({microbatches}, "
                "gradient_accumulation) to be a multiple of pipeline_parallel {pp}"
            ),
            microbatches=microbatches,
            pp=p,
        )
    return count // mp.degree


def scores_bytes_per_sbh(profile: Profile) -> float:
    """Bytes of a layer's materialised attention scores per ``s·b·h`` element: ``5·a·s/h``
    (Korthikanti et al. §4.1: the ``Q·Kᵀ`` scores 2, the softmax output 2 and the dropout mask 1
    byte per ``a·s²·b`` element) when the traced attention keeps them (``eager``, Megatron's
    ``fused-softmax``); 0 for a fused flash/SDPA kernel or a model whose shape is unknown."""
    shape = profile.shape
    s, h, a = profile.seq_len, shape.hidden_size, shape.num_attention_heads
    if profile.attention == "fused" or not (s and h and a):
        return 0.0
    return _SCORE_BYTES_PER_ASSB * a * s / h


def _local_op(op: OpRecord, mp: ModelParallel, scores_per_sbh: float) -> OpRecord:
    t, p = mp.tensor, mp.pipeline
    if op.phase == "optimizer":
        share = 1.0 / (t * p)  # each rank updates only its own parameters
    elif op.op_class in ("matmul", "attention", "conv"):
        share = 1.0 / (t * p)
    else:
        share = mp.elementwise_share(scores_per_sbh) / p
    return replace(
        op,
        count=max(1, math.ceil(op.count / p)),
        flops=op.flops * share,
        bytes_moved=op.bytes_moved * share,
        shapes=split_shapes(op.shapes, op.op_class == "attention", t),
    )


def _local_peak(profile: Profile, mp: ModelParallel, microbatches: int) -> MemoryBreakdown:
    peak = profile.peak
    state = 1.0 / mp.degree
    act_share = (
        mp.elementwise_share(scores_bytes_per_sbh(profile)) * min(mp.pipeline, microbatches) / mp.pipeline
    )
    activations = peak.activations_bytes
    weight_cache = 0.0
    optimizer_step = peak.at_optimizer_step
    if profile.autocast and not optimizer_step:
        # Autocast's bf16 copy of every weight is live at a forward-end peak (traced as
        # activations); it is a copy of this rank's weights, so it shrinks as they do.
        weight_cache = min(2.0 * profile.params, activations)
        activations -= weight_cache
    temporaries = peak.temporaries_bytes * (state if optimizer_step else act_share)
    return replace(
        peak,
        parameters_bytes=peak.parameters_bytes * state,
        gradients_bytes=peak.gradients_bytes * state,
        optimizer_state_bytes=peak.optimizer_state_bytes * state,
        activations_bytes=activations * act_share + weight_cache * state,
        held_bytes=peak.held_bytes * act_share,
        temporaries_bytes=temporaries,
    )


def local_profile(profile: Profile, mp: ModelParallel, *, microbatches: int) -> Profile:
    """One GPU's share of the traced step: its stage's layers, each split ``t`` ways.

    The ops are those of one micro-batch on one stage; the peak is the first stage's (the most
    micro-batches in flight). Parameter counts and the shape are per rank, so data parallelism
    over the ``d`` replicas works on them as on a whole model.
    """
    if not mp.active:
        return profile
    t, p = mp.tensor, mp.pipeline
    shape = profile.shape
    local_shape = replace(
        shape,
        num_layers=max(1, math.ceil((shape.num_layers or 1) / p)),
        largest_layer_params=(shape.largest_layer_params // t) if shape.largest_layer_params else None,
    )
    scores = scores_bytes_per_sbh(profile)
    ops = tuple(_local_op(op, mp, scores) for op in profile.ops)
    return replace(
        profile,
        ops=ops,
        peak=_local_peak(profile, mp, microbatches),
        params=math.ceil(profile.params / mp.degree),
        trainable_params=math.ceil(profile.trainable_params / mp.degree),
        paged_optimizer_bytes=profile.paged_optimizer_bytes / mp.degree,
        flops_per_step=sum(op.flops for op in ops),
        forward_flops=sum(op.flops for op in ops if op.phase == "forward"),
        shape=local_shape,
    )


def data_parallel_link(link: Link, mp: ModelParallel, data_parallel: int) -> Link:
    """The link one data-parallel group's collectives see.

    A group holds one GPU of each replica: ``g/(t·p)`` of a node's ``g`` GPUs when a replica fits
    in a node, else one per node. All of a node's groups run their collectives at once, so each
    gets ``1/(groups per node)`` of the node's NICs (each GPU keeps its own NVLink ports).
    """
    if not mp.active:
        return link
    in_node = max(1, link.gpus_per_node // mp.degree)
    groups = link.gpus_per_node // in_node
    nodes = -(-data_parallel // in_node)
    return replace(
        link,
        nodes=nodes,
        gpus_per_node=in_node,
        network_gbit_s=link.network_gbit_s / groups,
        gpus_used=data_parallel if data_parallel < nodes * in_node else None,
    )


def check_parallelism(parallelism: str) -> str:
    if parallelism not in PARALLELISMS:
        raise EstimateError.worded(
            N_("unknown parallelism {name!r}; use one of {names}"),
            name=parallelism,
            names=listed(PARALLELISMS),
        )
    return parallelism


@dataclass(frozen=True, kw_only=True)
class Layout:
    """A request laid out on its GPUs: the one value every later stage of the estimate reads."""

    request: EstimateRequest
    calibration: Calibration
    """The calibration for the request's GPU (its architecture's factors, a bench measurement)."""
    link: Link
    """The links joining all the request's GPUs."""
    data_parallel: int
    """Model replicas: ``d = GPUs / (t·p)``."""
    data_link: Link
    """The link one data-parallel group's collectives see (:func:`data_parallel_link`)."""
    fast_data_link: Link
    """The same at the fast end of an unknown network (:meth:`Link.fast_end`); ``data_link``
    itself when the network is known."""
    slow_data_link: Link
    """The same at the slow end of an unknown network (:meth:`Link.slow_end`); ``data_link``
    itself when the network is known."""
    whole: Profile
    """The traced step: the whole model at the per-GPU micro-batch."""
    local: Profile
    """One GPU's share of it under tensor × pipeline parallelism (:func:`local_profile`)."""
    notes: tuple[str, ...] = ()
    network_notes: tuple[str, ...] = ()
    """What was assumed about the network between nodes (said last: it names what to give)."""
    anchor: Anchor | None = None
    """The workload's measured step (``gpuplan measure``) the compute stage anchors on, if any."""
    source_calibration: Calibration | None = None
    """The calibration of the GPU the anchor was measured on (its architecture's factors)."""

    @property
    def gpu(self) -> GPU:
        return self.request.gpu

    @property
    def count(self) -> int:
        return self.request.count

    @property
    def parallelism(self) -> str:
        return self.request.parallelism

    @property
    def model_parallel(self) -> ModelParallel:
        return self.request.model_parallel

    @property
    def microbatches(self) -> int:
        """Micro-batches per optimizer step (gradient accumulation; the pipeline's ``m``)."""
        return self.request.grad_accum_steps

    @property
    def samples_per_step(self) -> int:
        """Global batch: micro-batch × accumulation × data-parallel replicas."""
        return self.local.batch_size * self.microbatches * self.data_parallel


def lay_out(request: EstimateRequest, like: Layout | None = None) -> Layout:
    """Check ``request`` and lay it out: the calibration for its GPU, the links, the data-parallel
    degree and group link, and one GPU's share of the traced step. One-line
    :class:`EstimateError` for a request that cannot run.

    ``like``: the layout of a request that differs from ``request`` at most in its link and input
    pipeline; what one GPU runs (its calibration, anchor, share of the step and their notes) is
    taken from it where the data-parallel degree is the same (the planner lays out the same GPUs
    over many networks)."""
    profile, gpu, count = request.profile, request.gpu, request.count
    check_parallelism(request.parallelism)
    if count < 1:
        raise EstimateError.worded(N_("GPU count must be at least 1, got {count}"), count=count)
    if request.grad_accum_steps < 1:
        raise EstimateError.worded(
            N_("gradient accumulation steps must be at least 1, got {steps}"), steps=request.grad_accum_steps
        )
    link = request.link or Link.for_gpus(gpu, count)
    if link.gpu_count < count:
        raise EstimateError.worded(
            N_("the link joins {joined} GPUs but the estimate asks for {count}"),
            joined=link.gpu_count,
            count=count,
        )
    mp = request.model_parallel
    dp = check_model_parallel(
        mp,
        profile,
        count=count,
        gpus_per_node=link.gpus_per_node,
        microbatches=request.grad_accum_steps,
        gpu=request.gpu,
    )
    if like is not None and like.data_parallel == dp:
        per_gpu = _PerGpu(like.calibration, like.anchor, like.source_calibration, like.local, like.notes)
    else:
        per_gpu = _per_gpu(request, dp)
    network_notes: tuple[str, ...] = ()
    if not link.network_known and link.nodes > 1:
        slow, fast = link.slow_end(), link.fast_end()
        network_notes = (
            _(
                "inter-node network unknown: the point assumes a typical instance network "
                "({gbit_s:g} Gbit/s {kind}); the range runs from the slowest GPU instance network in "
                "the embedded catalog ({slow_gbit_s:g} Gbit/s {slow_kind}) to {fast_gbit_s:,g} Gbit/s "
                "{fast_kind}; {give}"
            ).format(
                # A node size of its own is an instance's (estimate --instance): naming one again
                # would change nothing when its catalog entry is what lacks the network.
                give=_("give --network-gbps: the instance's catalog entry gives no network")
                if link.node_size_given
                else _("give --network-gbps or --instance"),
                gbit_s=link.network_gbit_s,
                kind=link_name(link.network_kind),
                slow_gbit_s=slow.network_gbit_s,
                slow_kind=link_name(slow.network_kind),
                fast_gbit_s=fast.network_gbit_s,
                fast_kind=link_name(fast.network_kind),
            ),
        )
    if link.network_kind_assumed and link.nodes > 1:
        network_notes += (network_kind_words(link),)
    if link.intra_path == "pcie_host" and min(link.gpus_per_node, count) > 1:
        network_notes += (no_peer_access_words(link, gpu),)
    if link.gpu_join_assumed and count > 1:
        network_notes += (
            _(
                "how the GPUs are joined is not known (no instance named, or its entry does not say): "
                "taken as {bound}; NVSwitch, the best case, is not assumed"
            ).format(bound=gpu_join_words(link.intra_node == "nvlink", link.nvlink_board)),
        )
    return Layout(
        request=request,
        calibration=per_gpu.calibration,
        anchor=per_gpu.anchor,
        source_calibration=per_gpu.source_calibration,
        link=link,
        data_parallel=dp,
        data_link=data_parallel_link(link, mp, dp),
        fast_data_link=data_parallel_link(link.fast_end(), mp, dp),
        slow_data_link=data_parallel_link(link.slow_end(), mp, dp),
        whole=profile,
        local=per_gpu.local,
        notes=per_gpu.notes,
        network_notes=network_notes,
    )


class _PerGpu(NamedTuple):
    """The part of a :class:`Layout` no link enters (:func:`_per_gpu`)."""

    calibration: Calibration
    anchor: Anchor | None
    source_calibration: Calibration | None
    local: Profile
    notes: tuple[str, ...]


def _per_gpu(request: EstimateRequest, dp: int) -> _PerGpu:
    """What one GPU of ``request`` runs, with ``dp`` data-parallel replicas: its calibration, the
    measured step it is anchored on, its share of the traced step, and their notes."""
    profile, gpu, mp = request.profile, request.gpu, request.model_parallel
    cal = (request.calibration or load_calibration()).for_gpu(gpu.id, gpu.architecture)
    cal = cal.for_compiled(request.compiled)
    notes: list[str] = []
    if mp.active:
        notes.append(
            _("{layout} DP={dp}: each GPU runs 1/{degree} of the model (Megatron-style)").format(
                layout=mp.describe(), dp=dp, degree=mp.degree
            )
        )
    if (measured := cal.measurement(gpu.id)) is not None:
        notes.append(measured.describe())
    share = cal.elementwise_efficiency(gpu.id)
    if (on := cal.elementwise_measured_on(gpu.id)) is not None and share != cal.bandwidth_efficiency:
        notes.append(
            _(
                "{gpu}: PyTorch's own elementwise, normalisation and optimizer kernels costed at "
                "{share:.0%} of its memory bandwidth ({rate:.2f} of its {peak:.2f} TB/s), from what "
                "gpuplan measure timed them at on {measured} (eager steps; a copy reaches more)"
            ).format(
                gpu=gpu.id,
                share=share,
                rate=share * gpu.memory_bandwidth_gbps / 1e3,
                peak=gpu.memory_bandwidth_gbps / 1e3,
                measured=on,
            )
        )
    if (
        any(is_nchw_norm(op) for op in profile.ops)
        and (norms := cal.nchw_norm_efficiency(gpu.id)) is not None
    ):
        notes.append(
            _(
                "{gpu}: batch norm in training over NCHW activations costed at {share:.0%} of its "
                "memory bandwidth, each element counted at 4 bytes, from what gpuplan measure timed "
                "it at on {measured}; with channels_last (stack: memory_format: channels-last) it "
                "runs other kernels, at the elementwise rate"
            ).format(gpu=gpu.id, share=norms, measured=cal.elementwise_measured_on(gpu.id, nchw_norms=True))
        )
    if (misaligned := _misaligned_note(profile, gpu, cal)) is not None:
        notes.append(misaligned)
    anchor, source_cal = _anchor(request, notes)
    local = local_profile(profile, mp, microbatches=request.grad_accum_steps)
    return _PerGpu(cal, anchor, source_cal, local, tuple(notes))


def _misaligned_note(profile: Profile, gpu: GPU, cal: Calibration) -> str | None:
    """What the step's misaligned GEMMs are costed at on ``gpu`` and how to avoid them; None when it
    has none."""
    found = misaligned_gemm(profile.ops, profile.precision, gpu)
    if found is None:
        return None
    dim, elements = found
    words = {"gpu": gpu.id, "dim": f"{dim:,}", "n": elements, "rate": cal.misaligned_rate(gpu.architecture)}
    source = cal.misaligned_measured_on(gpu.architecture)
    if source is not None and source[1]:
        text = _(
            "{gpu}: matmuls over a dimension of {dim} (not a multiple of {n}) costed at {rate:.0%} of "
            "the aligned rate, from what gpuplan measure timed them at on {measured}; padding it "
            "(model.pad_vocab_multiple for an output layer) avoids it (torch.compile pads them only "
            "where its own benchmark finds that faster)"
        )
        return text.format(measured=source[0], **words)
    if source is not None:
        text = _(
            "{gpu}: matmuls over a dimension of {dim} (not a multiple of {n}) costed at {rate:.0%} of "
            "the aligned rate, the lowest measured (on {measured}; none on {architecture}); padding it "
            "(model.pad_vocab_multiple for an output layer) avoids it (torch.compile pads them only "
            "where its own benchmark finds that faster)"
        )
        return text.format(measured=source[0], architecture=gpu.architecture, **words)
    return _(
        "{gpu}: matmuls over a dimension of {dim} (not a multiple of {n}) costed at {rate:.0%} of the "
        "aligned rate, cuBLAS's fallback kernels' (measured on an RTX 4090; none on {architecture}); "
        "padding it (model.pad_vocab_multiple for an output layer) avoids it (torch.compile pads them "
        "only where its own benchmark finds that faster)"
    ).format(architecture=gpu.architecture, **words)


def _anchor(request: EstimateRequest, notes: list[str]) -> tuple[Anchor | None, Calibration | None]:
    """The measured step this request's compute is anchored on (``perf/anchor.py``), with the
    calibration of the GPU it was measured on; a note when recordings exist but none applies."""
    mine = [m for m in request.measured_steps if m.workload_key == request.profile.key]
    if not mine:
        return None, None
    chosen = choose_measurement(mine, request.gpu.id)
    if chosen is None:
        newest = max(mine, key=lambda m: m.measured_at)
        notes.append(not_anchored_note(newest))
        return None, None
    from gpuplan.errors import GpuplanError
    from gpuplan.hardware import get_gpu

    try:
        source = get_gpu(chosen.gpu_id or "")
    except GpuplanError:  # a recording from a newer gpuplan, naming a GPU this one lacks
        notes.append(not_anchored_note(replace(chosen, gpu_id=None)))
        return None, None
    cal = (request.calibration or load_calibration()).for_gpu(source.id, source.architecture)
    cal = cal.for_compiled(request.compiled)
    return make_anchor(chosen, request.profile, source, cal), cal
