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

Tensor and pipeline parallelism (Narayanan et al., SC21, arXiv:2104.04473), charged **exposed**:

- **Tensor-parallel all-reduces** (SC21 §2.3, Fig. 5): two all-reduces of ``b·s·h`` 16-bit
  values per layer in forward and two in backward, and two more in the recomputed forward under
  full activation checkpointing; with sequence parallelism each all-reduce becomes an
  all-gather plus a reduce-scatter, the same bytes. Megatron runs them on the compute stream
  (``f``/``g`` operators), so compute does not hide them.
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

__all__ = [
    "DDP_BUCKET_BYTES",
    "CommTime",
    "Communication",
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


def _grad_bytes_per_param(profile: Profile) -> float:
    """Bytes of one gradient as traced: 4 with fp32 weights (autocast), 2 with 16-bit weights
    (``bf16``; ``fp16-master``, whose fp32 master copy is the optimizer's, not the model's)."""
    return profile.peak.parameters_bytes / profile.params if profile.params else 4.0


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
    grad_bytes = profile.trainable_params * _grad_bytes_per_param(profile)
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
    reduce_bytes = profile.trainable_params * (4.0 if profile.autocast else wire)
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


def tensor_parallel_comm_s(profile: Profile, mp: ModelParallel, link: Link) -> float:
    """Exposed tensor-parallel all-reduce time of one micro-batch on one stage, seconds.

    E.g. GPT 18.4B (h = 6144, 40 layers), b = 8, s = 2048, t = 8, full checkpointing: each
    all-reduce moves 8·2048·6144·2 B = 201 MB; 6 per layer × 40 layers = 240 of them.
    """
    if mp.tensor == 1 or not profile.seq_len:
        return 0.0
    per_layer = 2 if profile.task == "infer" else 4
    if profile.activation_checkpointing == "full" and profile.task != "infer":
        per_layer += 2  # the recomputed forward runs its two all-reduces again
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
    tp_s, p2p_s = tensor_parallel_comm_s(whole, mp, link), stage_p2p_s(whole, mp, link)
    fast_link = link.fast_end()
    fast_mp_s = tensor_parallel_comm_s(whole, mp, fast_link) + stage_p2p_s(whole, mp, fast_link)

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
    stages = compute.stage_times
    mp_comm_s = stages * (tp_s + p2p_s)
    return Communication(
        data_parallel=comm,
        data_parallel_fast=fast,
        tensor_parallel_s=tp_s,
        pipeline_send_s=p2p_s,
        model_parallel_s=mp_comm_s,
        exposed_s=comm.exposed_s + mp_comm_s,
        exposed_fast_s=fast.exposed_s + stages * fast_mp_s,
        total_s=comm.total_s + mp_comm_s,
        tensor_parallel_step_s=stages * tp_s,
        pipeline_send_step_s=stages * p2p_s,
        pipeline_bubble_s=(stages - layout.microbatches) * (compute.micro_batch_s + tp_s + p2p_s),
    )
