"""Communication per optimizer step under each parallelism: how much moves, and how much of it
compute hides.

Every scheme's collectives are costed on :class:`~gpuplan.perf.parallel.Link` (hierarchical
rings); what differs is when they can run:

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
(torchtitan's ``reduce_dtype=float32``); DDP all-reduces gradients in their own dtype.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuplan.perf.parallel import Link, all_gather_s, all_reduce_s
from gpuplan.perf.roofline import PhaseTimes
from gpuplan.profile.model import Profile

__all__ = ["DDP_BUCKET_BYTES", "CommTime", "comm_time"]

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
    """Bytes of one gradient as traced (4 with fp32 master weights, 2 with bf16 weights)."""
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
    # gradients in backward (fp32 reduce under mixed precision: 4 B; bf16 weights: 2 B).
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
