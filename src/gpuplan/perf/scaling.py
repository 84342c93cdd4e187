"""Advice for a step that mostly waits on its collectives: fewer GPUs, or more gradient accumulation.

A data-parallel step on GPUs joined by a slow network can spend most of its time in the gradient
all-reduce; more GPUs then make the job slower, not faster (16 A100s over 32 Gbit/s TCP had taken
longer than 8 on one node), and the estimate had only said "more GPUs add little here". Each change
here is the estimator's own figure for the changed configuration (``run_estimate`` on it), never a
scaled guess:

- **fewer GPUs** — halving the count down to one node (whole nodes only beyond one), keeping the
  node size and network the request names: the collectives cross a faster link, or less of the slow
  one;
- **more gradient accumulation** — the same GPUs all-reduce once per ``k`` micro-batches. It makes
  the global batch ``k`` times larger, which changes training (the learning rate and its schedule
  are the user's to adjust), so it is offered as such.

Offered only where the change shortens the job by at least :data:`MIN_GAIN` and the changed
configuration is not out of memory; one that may not fit (accumulation keeps the summed gradients
live through the later micro-batches' forward passes) says so beside it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gpuplan.errors import EstimateError
from gpuplan.i18n.error_text import error_text
from gpuplan.i18n.messages import _
from gpuplan.perf.advice_base import Setup
from gpuplan.perf.estimate import Estimate, EstimateRequest, run_estimate
from gpuplan.perf.links import Link
from gpuplan.perf.memory import MemoryVerdict

__all__ = [
    "COMM_BOUND_SHARE",
    "MIN_GAIN",
    "ScalingAdvice",
    "ScalingBound",
    "ScalingFigures",
    "request_link",
    "scaling_advice",
    "scaling_figures",
]

#: Where exposed communication takes more than this share of the step, the step waits on the
#: network (the estimate's note says so) and the changes below are tried.
COMM_BOUND_SHARE = 0.5
#: A change is offered where it shortens the job by at least this share.
MIN_GAIN = 0.10
#: Gradient-accumulation multiples tried (×2 … ×8 the workload's own).
_ACCUMULATION = (2, 4, 8)


@dataclass(frozen=True, kw_only=True)
class ScalingAdvice:
    """One change that makes a communication-bound configuration faster."""

    action: str
    """``fewer_gpus`` or ``gradient_accumulation``."""
    summary: str
    """One line saying what to change."""
    gpu: str
    gpu_count: int
    grad_accum_steps: int
    throughput_factor: float
    """Samples (or tokens) a second after the change over before."""
    gpu_hours_factor: float
    """GPU-hours of the job after the change over before: what it does to the bill at one price."""
    job_time_h: float | None
    """The job's hours after the change (None without a job size)."""
    comm_share: float
    """Exposed communication's share of the step after the change."""
    memory_verdict: str
    """The changed configuration's: ``fits`` or ``may-not-fit`` (one that does not is not offered)."""
    derivation: str


def _comm_share(e: Estimate) -> float:
    return e.comm_exposed_s / e.step_time_s if e.step_time_s > 0 else 0.0


def _rate(e: Estimate) -> float:
    return e.throughput


def scaling_advice(request: EstimateRequest, base: Estimate) -> tuple[ScalingAdvice, ...]:
    """The changes that shorten a communication-bound job (exposed communication over
    :data:`COMM_BOUND_SHARE` of the step on more than one GPU), fastest first; () otherwise."""
    if request.count <= 1 or _comm_share(base) <= COMM_BOUND_SHARE or _rate(base) <= 0:
        return ()
    out = [a for a in (_fewer_gpus(request, base), _accumulation(request, base)) if a is not None]
    return tuple(sorted(out, key=lambda a: -a.throughput_factor))


def _try(
    request: EstimateRequest, base: Estimate, *, count: int | None = None, accum: int | None = None
) -> Estimate | None:
    """The estimate of ``request`` on ``count`` GPUs or with ``accum`` micro-batches, as the OOM
    advisor changes a configuration (:meth:`Setup.run`: the link rebuilt for another count)."""
    try:
        e = Setup(request, base).run(request.profile, count=count, accum=accum)
    except EstimateError:
        return None  # a split the changed count cannot hold (tensor × pipeline), …
    return None if e.memory_verdict is MemoryVerdict.DOES_NOT_FIT else e


def _memory_words(e: Estimate) -> str:
    """`` (may not fit: N of M GiB at the high end)`` where the change may not fit, else ``""``."""
    if e.memory_verdict is MemoryVerdict.FITS:
        return ""
    return _(" (may not fit: it needs {need:.1f} GiB [{low:.1f}–{high:.1f}] of {usable:.1f} usable)").format(
        need=e.memory.required_gib,
        low=e.memory.required_gib_low,
        high=e.memory.required_gib_high,
        usable=e.memory.capacity_gib,
    )


def _fewer_gpus(request: EstimateRequest, base: Estimate) -> ScalingAdvice | None:
    per_node = request.link.gpus_per_node if request.link is not None else request.count
    best: tuple[Estimate, int] | None = None
    count = request.count // 2
    while count >= 1:
        whole = count % per_node == 0 if count > per_node else per_node % count == 0
        if whole:
            e = _try(request, base, count=count)
            if e is not None and (best is None or _rate(e) > _rate(best[0])):
                best = (e, count)
        count //= 2
    if best is None:
        return None
    e, count = best
    factor = _rate(e) / _rate(base)
    if factor < 1 + MIN_GAIN:
        return None
    hours = count / request.count / factor
    return ScalingAdvice(
        action="fewer_gpus",
        summary=_(
            "{count} × {gpu} instead of {was}: {factor:.1f}× the throughput, {hours:.0%} of the GPU-hours"
        ).format(count=count, gpu=request.gpu.id, was=request.count, factor=factor, hours=hours)
        + _memory_words(e),
        gpu=request.gpu.id,
        gpu_count=count,
        grad_accum_steps=request.grad_accum_steps,
        throughput_factor=factor,
        gpu_hours_factor=hours,
        job_time_h=e.job_time_h,
        comm_share=_comm_share(e),
        memory_verdict=e.memory_verdict.value,
        derivation=_(
            "estimated on {count} GPUs: communication {share:.0%} of the step (was {was:.0%} on {n})"
        ).format(count=count, share=_comm_share(e), was=_comm_share(base), n=request.count),
    )


def _accumulation(request: EstimateRequest, base: Estimate) -> ScalingAdvice | None:
    if request.profile.task == "infer":
        return None
    for k in _ACCUMULATION:
        accum = request.grad_accum_steps * k
        e = _try(request, base, accum=accum)
        if e is None:
            return None
        factor = _rate(e) / _rate(base)
        # the smallest multiple that gains enough and leaves the step mostly computing
        if factor >= 1 + MIN_GAIN and (_comm_share(e) <= COMM_BOUND_SHARE / 2 or k == _ACCUMULATION[-1]):
            return ScalingAdvice(
                action="gradient_accumulation",
                summary=_(
                    "gradient accumulation {accum} (×{k}): {factor:.1f}× the throughput on the same "
                    "{n} GPUs; the global batch is {k}× larger, so adjust the learning rate"
                ).format(accum=accum, k=k, factor=factor, n=request.count)
                + _memory_words(e),
                gpu=request.gpu.id,
                gpu_count=request.count,
                grad_accum_steps=accum,
                throughput_factor=factor,
                gpu_hours_factor=1 / factor,
                job_time_h=e.job_time_h,
                comm_share=_comm_share(e),
                memory_verdict=e.memory_verdict.value,
                derivation=_(
                    "estimated with {accum} micro-batches a step: one all-reduce per {accum}, "
                    "communication {share:.0%} of the step (was {was:.0%})"
                ).format(accum=accum, share=_comm_share(e), was=_comm_share(base)),
            )
    return None


@dataclass(frozen=True, kw_only=True)
class ScalingBound:
    """A multi-node configuration's figures with its unknown network at the conservative bound
    (:meth:`Link.slow_end`: the slowest GPU instance network of the embedded catalog, over TCP),
    the same bound the estimate's range takes at its slow end: an unknown network is never the
    best case."""

    network_gbps: float
    network_kind: str
    throughput: float
    throughput_low: float
    throughput_high: float
    """The 80 % range on that network (the calibration's band around its point)."""
    step_time_s: float
    comm_total_s: float
    comm_exposed_s: float
    speedup: float | None
    efficiency: float | None


@dataclass(frozen=True, kw_only=True)
class ScalingFigures:
    """How a configuration of several GPUs scales over one GPU of the same kind, by the estimator's
    own figures: the one-GPU estimate of the same workload and per-GPU batch, the link the
    collectives were costed on, and what of them compute hides."""

    gpu: str
    gpu_count: int
    one_gpu_throughput: float | None
    """The same workload on one GPU of the same kind (same per-GPU batch, same host); None where one
    GPU cannot run it (:attr:`one_gpu_error`)."""
    one_gpu_step_s: float | None
    one_gpu_fits: bool | None
    """Whether the one-GPU configuration holds the job in memory (a speed-up over one that does not
    is over its time alone)."""
    one_gpu_error: str | None
    one_gpu_optimizer_s: float | None
    """The optimizer step of that one GPU (all the weights), seconds; None where it cannot run it."""
    optimizer_s: float
    """This configuration's optimizer step on each GPU (its shard under FSDP or ZeRO), seconds: a
    sharded step is shorter than one GPU's, which can make the speed-up more than the GPU count."""
    speedup: float | None
    """Throughput over the one-GPU throughput."""
    efficiency: float | None
    """``speedup`` over the GPU count."""
    link: str
    """The link in words (:meth:`Link.describe`): NVLink or PCIe in a node, the network between
    nodes, and where each figure is from (the datasheet, the instance's catalog entry, assumed)."""
    intra_node: str
    """``nvlink``, ``pcie`` or ``pcie_host`` (PCIe without peer access: through host memory)."""
    intra_node_gbps: float
    """One direction per GPU, GB/s."""
    gpu_join_assumed: bool
    nodes: int
    network_gbps: float | None
    """Between the nodes, Gbit/s; None on one node."""
    network_kind: str | None
    network_source: str | None
    """``user``, ``catalog`` or ``assumed``; None on one node."""
    step_time_s: float
    comm_total_s: float
    comm_exposed_s: float
    """The communication compute does not hide, per optimizer step (part of ``step_time_s``)."""
    input_bound: bool
    conservative: ScalingBound | None = None
    """Where the network between the nodes is unknown: the figures at its conservative bound."""

    @property
    def exposed_share(self) -> float:
        """Exposed communication's share of the step."""
        return self.comm_exposed_s / self.step_time_s if self.step_time_s > 0 else 0.0


def request_link(request: EstimateRequest) -> Link:
    """The link ``request`` is costed on (its own, or the default :meth:`Link.for_gpus`)."""
    return request.link or Link.for_gpus(request.gpu, request.count)


def _over_one(throughput: float, one: float | None, count: int) -> tuple[float | None, float | None]:
    if one is None or one <= 0:
        return None, None
    speedup = throughput / one
    return speedup, speedup / count


def scaling_figures(request: EstimateRequest, base: Estimate) -> ScalingFigures | None:
    """How ``base`` (the estimate of ``request``) scales over one GPU of its kind; None on one GPU
    and for inference (no collectives between replicas)."""
    if request.count <= 1 or request.profile.task == "infer":
        return None
    one: Estimate | None = None
    error: str | None = None
    try:
        one = Setup(request, base).run(request.profile, count=1)
    except EstimateError as e:  # a tensor × pipeline split one GPU cannot hold
        error = error_text(e)
    link = request_link(request)
    speedup, efficiency = _over_one(base.throughput, one.throughput if one else None, request.count)
    multi = link.nodes > 1
    return ScalingFigures(
        gpu=base.gpu,
        gpu_count=base.gpu_count,
        one_gpu_throughput=one.throughput if one else None,
        one_gpu_step_s=one.step_time_s if one else None,
        one_gpu_fits=None if one is None else one.memory_verdict is not MemoryVerdict.DOES_NOT_FIT,
        one_gpu_error=error,
        one_gpu_optimizer_s=one.optimizer_s if one else None,
        optimizer_s=base.optimizer_s,
        speedup=speedup,
        efficiency=efficiency,
        link=base.link,
        intra_node=link.intra_path,
        intra_node_gbps=link.intra_node_gbps,
        gpu_join_assumed=link.gpu_join_assumed,
        nodes=link.nodes,
        network_gbps=link.network_gbit_s if multi else None,
        network_kind=link.network_kind if multi else None,
        network_source=link.network_source if multi else None,
        step_time_s=base.step_time_s,
        comm_total_s=base.comm_total_s,
        comm_exposed_s=base.comm_exposed_s,
        input_bound=base.input_bound,
        conservative=_conservative(request, link, one) if multi and not link.network_known else None,
    )


def _conservative(request: EstimateRequest, link: Link, one: Estimate | None) -> ScalingBound | None:
    """The estimate again with the unknown network at its slow end, taken as stated (so that its
    range is the band around that network, not the span to the fastest fabric)."""
    slow = replace(link.slow_end(), network_source="user")
    try:
        e = run_estimate(request.changed(link=slow))
    except EstimateError:
        return None
    speedup, efficiency = _over_one(e.throughput, one.throughput if one else None, request.count)
    return ScalingBound(
        network_gbps=slow.network_gbit_s,
        network_kind=slow.network_kind,
        throughput=e.throughput,
        throughput_low=e.throughput_low,
        throughput_high=e.throughput_high,
        step_time_s=e.step_time_s,
        comm_total_s=e.comm_total_s,
        comm_exposed_s=e.comm_exposed_s,
        speedup=speedup,
        efficiency=efficiency,
    )
