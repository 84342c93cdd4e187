"""Stage 3 of an estimate, communication and overlap: every collective of a step, and how much of
it compute hides.

Every collective is costed on :class:`~gpuplan.perf.links.Link` (hierarchical rings); what differs
is when it can run. Data parallelism (over the replicas, on :attr:`Layout.data_link`):

- **DDP** all-reduces gradients in 25 MiB buckets as backward produces them (``bucket_cap_mb``);
  only what outlasts backward is exposed, and at least the last bucket, which is ready only when
  backward ends.
- **ZeRO-1/2** reduce-scatter gradients during backward (DeepSpeed ``overlap_comm``) and
  all-gather the updated 16-bit parameters after the optimizer step, before the next forward:
  that all-gather is exposed.
- **ZeRO-3/FSDP** gather each layer's parameters just before it runs and prefetch the next
  layer's while the current one computes (FSDP ``forward_prefetch``/``backward_prefetch``,
  DeepSpeed's prefetch bucket), twice per step (forward, and again in backward); gradients are
  reduce-scattered per layer while backward goes on. Per layer the exposed part is
  ``max(0, comm_layer − compute_layer)``; with equal layers the sum is
  ``max(0, comm_phase − compute_phase)``. The first layer's gather (nothing to hide behind) and
  the last layer's reduce-scatter (nothing after it) are always exposed.

Overlap is not free: the collectives' kernels share the SMs and memory bandwidth with the compute
they overlap, so ``overlap_cost`` (:attr:`Calibration.overlap_cost`, fitted) of every hidden
second still lengthens the step: exposed = bare exposed + overlap_cost × (total − bare exposed).

Bytes on the wire: FSDP/ZeRO-3 gather 16-bit parameters under mixed precision (FSDP
``MixedPrecision(param_dtype=bf16)``, DeepSpeed fp16/bf16 params) and reduce gradients in fp32
under autocast (torchtitan's ``reduce_dtype=float32``); DDP all-reduces gradients in their own
dtype, which the trace gives. Under ``fp16-master`` the gradients are the fp16 parameters' own and
are reduced in fp16, 2 bytes per parameter: Megatron-LM reduces in fp32 only with
``--accumulate-allreduce-grads-in-fp32``, off by default for ``--fp16`` and forced on for ``--bf16``
(NVIDIA/Megatron-LM megatron/arguments.py @79a3bb6b, 2022-07-24, read 2026-12-03), and DeepSpeed's
engine reduces in fp16 when ``fp16`` is enabled and no ``communication_data_type`` is set
(microsoft/DeepSpeed deepspeed/runtime/engine.py ``communication_data_type``, read 2026-12-03).
Under ``bf16-master`` (Megatron-LM ``--bf16``) they are reduced from the fp32 main-gradient buffer:
"bfloat16 requires gradient accumulation and all-reduce to be done in fp32" (NVIDIA/Megatron-LM
megatron/training/arguments.py, core_v0.6.0 @cac60ce), 4 bytes per parameter.

Tensor and pipeline parallelism (Narayanan et al., SC21, arXiv:2104.04473), charged **exposed**:

- **Tensor-parallel all-reduces** (SC21 §2.3, Fig. 5): two all-reduces of ``b·s·h`` 16-bit
  values per layer in forward and two in backward, and two more in the recomputed forward under
  full activation checkpointing; with sequence parallelism each all-reduce becomes an
  all-gather plus a reduce-scatter, the same bytes. Megatron runs them on the compute stream
  (``f``/``g`` operators), so compute does not hide them. That is the ``shared-input`` plan
  (the stack's ``tensor_parallel_plan``): one input per block, gathered once and shared by its
  column-parallel projections — Megatron-core's fused QKV and ``linear_fc1``; PyTorch's Llama
  plan, whose ``PrepareModuleInput`` redistributes the block input once and whose
  ``ColwiseParallel`` projections then take it replicated (PyTorch tutorial "Large Scale
  Transformer model training with Tensor Parallel", pytorch/tutorials
  intermediate_source/TP_tutorial.rst, read 2026-12-03).
- **Per-projection plans**: a plan that puts ``ColwiseParallel(input_layouts=Shard(1))`` on
  each of ``c`` column-parallel projections (q, k, v, gate, up: ``c = 5`` in a Llama block)
  has each one redistribute the sequence-sharded norm output to replicated itself: ``c``
  all-gathers of the same ``b·s·h`` input per layer in forward instead of 2, and in backward
  each projection's input gradient (a partial sum) is reduce-scattered on its own (DTensor's
  ``Redistribute.backward``, torch/distributed/tensor/_redistribute.py): ``c`` reduce-scatters
  instead of 2. Every one moves the full ``b·s·h`` input, however narrow the projection (GQA's
  k and v included). Without sequence parallelism the forward is as Megatron's and backward
  runs ``c`` all-reduces instead of 2. Under ``torch.compile`` the ``c`` forward gathers of one
  tensor are one: AOTAutograd's common-subexpression pass merges identical functional
  collectives (``torch._functorch.config.cse``, partitioners.py → compile_utils.fx_graph_cse),
  the backward reductions (of different gradients) stay ``c``. Counted on KempnerForge's plan
  (KempnerInstitute/KempnerForge@01b461a kempnerforge/distributed/tensor_parallel.py) traced
  with a fake two-rank process group in torch 2.13, 2026-12-03: per Llama block, eager 5
  all-gathers + 2 reduce-scatters forward and 5 reduce-scatters + 2 all-gathers backward;
  PyTorch's ``PrepareModuleInput`` plan on the same model 2 + 2 and 2 + 2; compiled, the
  per-projection plan 2 + 2 forward and 5 + 2 backward. ``c`` is read from the traced forward
  GEMMs (:func:`column_parallel_inputs`). The recomputed forward under full checkpointing is
  charged as the forward (compiled, the partitioner skips the block's last reduce-scatter,
  which backward does not need: one collective a layer over). DTensor runs the collectives
  where the redistribution is (async TP is opt-in: torch ``_micro_pipeline_tp``), charged
  exposed like Megatron's.
- **Stage-to-stage sends** (SC21 §4.1): the activations (forward) and their gradients
  (backward), ``b·s·h`` 16-bit values each per micro-batch; with the scatter/gather
  optimisation each tensor rank sends ``1/t`` of them. Across nodes they share the node's NICs
  with the node's other GPUs. The 2021 schedule blocks on them. The interleaved schedule with
  ``v`` model chunks per GPU multiplies them by ``v`` (§2.2.2).

Each stage time of the 1F1B schedule (the compute stage's ``stage_times``) carries its exposed
all-reduces and sends, idle stage times included (the pipeline bubble).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpuplan.perf.links import Link, all_gather_s, all_reduce_s
from gpuplan.perf.roofline import PhaseTimes
from gpuplan.perf.stages.compute import ComputeTime
from gpuplan.perf.stages.layout import Layout, ModelParallel
from gpuplan.profile.model import Profile
from gpuplan.vocab import TensorParallelPlan

__all__ = [
    "DDP_BUCKET_BYTES",
    "CommTime",
    "Communication",
    "column_parallel_inputs",
    "comm_time",
    "communication",
    "stage_p2p_s",
    "tensor_parallel_comm_s",
]

#: DDP's default gradient bucket (``bucket_cap_mb=25``).
DDP_BUCKET_BYTES = 25 * 1024**2


@dataclass(frozen=True, kw_only=True)
class CommTime:
    """Collective time per optimizer step, seconds."""

    total_s: float
    """Every collective, end to end, as if nothing overlapped."""
    exposed_s: float
    """The part compute does not hide: what the step time adds."""


def _param_wire_bytes(profile: Profile) -> float:
    """Bytes per parameter a gather moves: 16-bit under mixed precision, else as traced."""
    if profile.precision in ("fp32", "tf32"):
        return 4.0
    return 2.0


def comm_time(
    profile: Profile,
    phases: PhaseTimes,
    parallelism: str,
    link: Link,
    *,
    world: int,
    grad_accum_steps: int = 1,
    overlap_cost: float = 0.0,
) -> CommTime:
    """Collective time per optimizer step of ``grad_accum_steps`` micro-batches on ``world`` GPUs;
    ``overlap_cost`` of the hidden time counts as exposed too."""
    bare = _bare_comm_time(profile, phases, parallelism, link, world=world, grad_accum_steps=grad_accum_steps)
    hidden_s = max(0.0, bare.total_s - bare.exposed_s)
    return CommTime(total_s=bare.total_s, exposed_s=bare.exposed_s + overlap_cost * hidden_s)


def _bare_comm_time(
    profile: Profile, phases: PhaseTimes, parallelism: str, link: Link, *, world: int, grad_accum_steps: int
) -> CommTime:
    """The collectives' time and the part compute cannot hide at all (perfect overlap)."""
    if world <= 1 or profile.task == "infer":
        return CommTime(total_s=0.0, exposed_s=0.0)
    grad_bytes = profile.trainable_params * profile.gradient_bytes_per_param
    accum = grad_accum_steps
    if parallelism == "ddp":
        # no_sync() skips the all-reduce on all but the last micro-batch of an accumulated step.
        total = all_reduce_s(grad_bytes, link, world=world)
        last = all_reduce_s(min(grad_bytes, DDP_BUCKET_BYTES), link, world=world)
        return CommTime(total_s=total, exposed_s=max(total - phases.backward_s, last))
    wire = _param_wire_bytes(profile)
    if parallelism in ("zero1", "zero2"):
        rs = all_gather_s(grad_bytes, link, world=world)
        last = all_gather_s(min(grad_bytes, DDP_BUCKET_BYTES), link, world=world)
        ag = all_gather_s(profile.params * wire, link, world=world)
        return CommTime(total_s=rs + ag, exposed_s=max(rs - phases.backward_s, last) + ag)
    # ZeRO-3 / FSDP, per micro-batch: gather params in forward and again in backward, reduce-scatter
    # gradients in backward (fp32 reduce under autocast: 4 B; 16-bit weights: 2 B).
    gather = all_gather_s(profile.params * wire, link, world=world)
    reduce_bytes = profile.trainable_params * (4.0 if profile.autocast or profile.fp32_main_grads else wire)
    reduce = all_gather_s(reduce_bytes, link, world=world)
    layers = max(profile.shape.num_layers or 1, 1)
    unit = profile.shape.largest_layer_params or profile.params / layers
    first = all_gather_s(unit * wire, link, world=world)
    last = reduce / layers
    fwd_exposed = max(gather - phases.forward_s, first)
    bwd_exposed = max(gather + reduce - phases.backward_s, last)
    total = accum * (2 * gather + reduce)
    return CommTime(total_s=total, exposed_s=accum * (fwd_exposed + bwd_exposed))


def _activation_bytes(profile: Profile) -> float:
    """Bytes of one ``b·s·h`` activation tensor of the traced micro-batch (16-bit unless fp32)."""
    width = 4.0 if profile.precision in ("fp32", "tf32") else 2.0
    return width * profile.batch_size * (profile.seq_len or 1) * (profile.shape.hidden_size or 0)


#: Column-parallel projections of a layer when the trace has no GEMM shapes: a Llama block's
#: q, k, v, gate and up.
_DEFAULT_COLUMN_INPUTS = 5


def column_parallel_inputs(profile: Profile) -> int:
    """Column-parallel projections of one layer (each reads the block's ``h``-wide input): the
    traced forward GEMMs whose inner dimension is ``h``, per layer, less the attention output
    projection (whose input, the heads side by side, is ``h`` wide too). At least 2 (attention
    and MLP); a fused QKV counts once. E.g. Llama-3 8B (h = 4096, 32 layers): 64 gate/up + 64 q/o
    + 64 k/v + 1 LM head = 193 calls, 193 // 32 − 1 = 5."""
    h, layers = profile.shape.hidden_size, profile.shape.num_layers
    calls = sum(
        shape[0]
        for op in profile.ops
        if op.op_class == "matmul" and op.phase == "forward"
        for shape in op.shapes
        if shape[1] == 1 and shape[4] == h
    )
    if not h or not layers or not calls:
        return _DEFAULT_COLUMN_INPUTS
    return max(2, calls // layers - 1)


def tensor_parallel_comm_s(
    profile: Profile, mp: ModelParallel, link: Link, *, compiled: bool = False
) -> float:
    """Exposed tensor-parallel collective time of one micro-batch on one stage, seconds.

    E.g. GPT 18.4B (h = 6144, 40 layers), b = 8, s = 2048, t = 8, full checkpointing: each
    all-reduce moves 8·2048·6144·2 B = 201 MB; 6 per layer × 40 layers = 240 of them. A
    per-projection plan adds, per layer, ``c − 2`` all-gathers / reduce-scatters (half an
    all-reduce each) in every forward run eagerly and in backward (sequence parallel), or ``c − 2``
    all-reduces in backward (without it); ``compiled``: the job runs under ``torch.compile``.
    """
    if mp.tensor == 1 or not profile.seq_len:
        return 0.0
    training = profile.task != "infer"
    forwards = 1 + (profile.activation_checkpointing == "full" and training)  # recompute again
    per_layer = 2.0 * forwards + 2.0 * training  # all-reduces (or all-gather + reduce-scatter pairs)
    if mp.plan is TensorParallelPlan.PER_PROJECTION:
        extra = column_parallel_inputs(profile) - 2
        if mp.sequence_parallel:
            halves = extra * ((0 if compiled else forwards) + training)
            per_layer += halves / 2.0  # an all-gather or reduce-scatter: half an all-reduce's bytes
        else:
            per_layer += extra * training
    layers = math.ceil((profile.shape.num_layers or 0) / mp.pipeline)
    one = all_reduce_s(_activation_bytes(profile), link, world=mp.tensor)
    return layers * per_layer * one


def stage_p2p_s(profile: Profile, mp: ModelParallel, link: Link) -> float:
    """Stage-to-stage send time of one micro-batch (activations forward, gradients backward),
    seconds, on the critical path; ×``v`` for the interleaved schedule."""
    if mp.pipeline == 1:
        return 0.0
    nbytes = _activation_bytes(profile) / mp.tensor  # scatter/gather: each tensor rank sends 1/t
    sends = (1 if profile.task == "infer" else 2) * mp.virtual_stages
    if link.nodes > 1:
        # Stages sit on different nodes (Megatron orders ranks tensor, data, then pipeline): all of
        # a node's GPUs send at once and share its NICs.
        per_gpu = link.network_bus_bytes_s() / link.gpus_per_node
        latency = 15e-6
    else:
        per_gpu = link.intra_bus_bytes_s(2)  # one neighbour's links
        latency = 5e-6
    return sends * (nbytes / per_gpu + latency)


@dataclass(frozen=True, kw_only=True)
class Communication:
    """Every collective of one optimizer step on one GPU, seconds."""

    data_parallel: CommTime
    """The data-parallel collectives (DDP, ZeRO, FSDP) on the group's link, with their overlap."""
    data_parallel_fast: CommTime
    """The same at the fast end of an unknown network (what the range's fast end takes away)."""
    data_parallel_slow: CommTime
    """The same at the slow end of an unknown network (what the range's slow end adds)."""
    tensor_parallel_s: float
    """Exposed tensor-parallel all-reduces of one stage time (one micro-batch on one stage)."""
    pipeline_send_s: float
    """Exposed stage-to-stage sends of one stage time."""
    model_parallel_s: float
    """Tensor-parallel all-reduces and sends over the step's stage times."""
    exposed_s: float
    """What compute does not hide: the data-parallel exposed time plus :attr:`model_parallel_s`."""
    exposed_fast_s: float
    """:attr:`exposed_s` at the fast end of an unknown network (:meth:`Link.fast_end`); equal to
    it when the network is known."""
    exposed_slow_s: float
    """:attr:`exposed_s` at the slow end of an unknown network (:meth:`Link.slow_end`); equal to
    it when the network is known."""
    total_s: float
    """Every collective end to end, as if none overlapped compute."""
    tensor_parallel_step_s: float
    """Tensor-parallel all-reduces over the step's stage times."""
    pipeline_send_step_s: float
    """Stage-to-stage sends over the step's stage times."""
    pipeline_bubble_s: float
    """Idle time of a stage per optimizer step: the idle stage times, each a micro-batch's compute
    plus its all-reduces and sends."""


def communication(layout: Layout, compute: ComputeTime) -> Communication:
    """The collectives of one optimizer step of ``layout`` and what of them ``compute`` hides."""
    whole, mp, link = layout.whole, layout.model_parallel, layout.link
    compiled = layout.request.compiled
    tp_s = tensor_parallel_comm_s(whole, mp, link, compiled=compiled)
    p2p_s = stage_p2p_s(whole, mp, link)
    fast_link, slow_link = link.fast_end(), link.slow_end()
    fast_mp_s = tensor_parallel_comm_s(whole, mp, fast_link, compiled=compiled) + stage_p2p_s(
        whole, mp, fast_link
    )
    slow_mp_s = tensor_parallel_comm_s(whole, mp, slow_link, compiled=compiled) + stage_p2p_s(
        whole, mp, slow_link
    )

    def data_parallel(data_link: Link) -> CommTime:
        return comm_time(
            layout.local,
            compute.phases,
            layout.parallelism,
            data_link,
            world=layout.data_parallel,
            grad_accum_steps=layout.microbatches,
            overlap_cost=layout.calibration.overlap_cost,
        )

    comm, fast = data_parallel(layout.data_link), data_parallel(layout.fast_data_link)
    slow = data_parallel(layout.slow_data_link)
    stages = compute.stage_times
    mp_comm_s = stages * (tp_s + p2p_s)
    return Communication(
        data_parallel=comm,
        data_parallel_fast=fast,
        data_parallel_slow=slow,
        tensor_parallel_s=tp_s,
        pipeline_send_s=p2p_s,
        model_parallel_s=mp_comm_s,
        exposed_s=comm.exposed_s + mp_comm_s,
        exposed_fast_s=fast.exposed_s + stages * fast_mp_s,
        exposed_slow_s=slow.exposed_s + stages * slow_mp_s,
        total_s=comm.total_s + mp_comm_s,
        tensor_parallel_step_s=stages * tp_s,
        pipeline_send_step_s=stages * p2p_s,
        pipeline_bubble_s=(stages - layout.microbatches) * (compute.micro_batch_s + tp_s + p2p_s),
    )
