"""A measured speed-up (or throughput) of several GPUs against the estimate, and what most likely
makes up the difference, ranked by the estimator's own figures.

The measurement becomes a step time: a throughput over all GPUs is the step's samples over it; a
speed-up over one GPU of the same kind is the one-GPU step the estimate gives (the same per-GPU
batch on the same host), times the GPU count over the speed-up, since a data-parallel step of ``n``
GPUs processes ``n`` times the one GPU's samples. What the measured step takes beyond the
estimated one (the gap, seconds a step) is set against each cause the estimator can size, each
costed by re-running the estimate with that cause at its bound, never a constant of its own:

- **communication not overlapped** with compute (backward; forward too under FSDP and ZeRO-3):
  every collective of the step exposed (``comm_total_s`` instead of ``comm_exposed_s``), with what
  makes collectives wait under the workload's parallelism (DDP, FSDP or ZeRO settings);
- **PCIe without P2P**: the node's GPUs joined through host memory (:attr:`Link.peer_access`
  false, NCCL's share of PCIe as :mod:`gpuplan.perf.links` takes it for cards without peer access);
- **a slower network** between nodes where the network is unknown: the rate at which the
  estimate's step is the measured one, solved on the estimator itself between the rate assumed and
  the conservative bound (:meth:`Link.slow_end`); where even that bound leaves the step shorter
  than measured, the share of the gap it accounts for there.

A cause is ranked by how near it comes to the gap, not by the seconds its bound adds: a bound a
hundred times the gap says only that the cause can reach it, and its seconds are not the gap's.
Two kinds differ. Communication not overlapped and a slower network each span every effect from none up to
their bound (part of the overlap lost, a network anywhere between the rate assumed and the slowest
plausible), so one whose bound reaches the gap explains all of it, and one short of it its share.
PCIe without P2P is all or nothing: its step is the estimate's on that link, so a step that much
longer than measured fits the measurement as badly as one that much shorter
(:attr:`GapCause.fit`). What the estimator does not model is listed after them, each with the
figure that tells it: the input pipeline (the samples/s the DataLoader would have to fall below), a
small per-GPU batch (the estimate's speed-up with twice the micro-batches a step) and the host's
CPU threads. Each of those could account for the whole gap by itself, so where the sized causes
together come to less than half of it (:data:`MOST_OF_GAP`: 8 L20s measured at 3× against 7.8×
estimated, losing P2P 1 % of the gap) they come first, and the sized ones after, as the small part
they are: ranked first, a 1 % cause was read as the likeliest.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from gpuplan.errors import EstimateError
from gpuplan.i18n.messages import _
from gpuplan.i18n.numbers import format_number, format_percent
from gpuplan.perf.advice_base import Setup
from gpuplan.perf.estimate import Estimate, EstimateRequest, run_estimate
from gpuplan.perf.links import FAST_NETWORK_GBIT_S, SLOW_NETWORK_GBIT_S, Link, NetworkKind, link_name
from gpuplan.perf.scaling import ScalingFigures, request_link

__all__ = [
    "MIN_SHARE",
    "MOST_OF_GAP",
    "GapCause",
    "MeasuredScaling",
    "NetworkForStep",
    "ScalingGap",
    "measured_step_s",
    "scaling_gap",
]

#: A sized cause that would explain less than this share of the gap is left out.
MIN_SHARE = 0.01

#: Sized causes that together come to less than this share of the gap leave most of it to what the
#: estimator does not model (any of which could account for all of it): those are listed first.
MOST_OF_GAP = 0.5


@dataclass(frozen=True, kw_only=True)
class MeasuredScaling:
    """What the user measured on the configuration estimated (one of the two)."""

    speedup: float | None = None
    """Throughput of all the GPUs over that of one GPU of the same kind, as measured."""
    throughput: float | None = None
    """Throughput of all the GPUs, in the estimate's unit (tokens/s for a sequence model, else
    samples/s)."""


@dataclass(frozen=True, kw_only=True)
class GapCause:
    """One thing that may make the measured step longer than the estimated one."""

    cause: str
    """``exposed_communication``, ``pcie_without_p2p``, ``slower_network`` (sized by the estimator),
    ``small_batch``, ``input_pipeline``, ``cpu_threads`` (not modelled)."""
    extra_s: float | None
    """Seconds a step the estimator gives this cause at its bound; None: not modelled."""
    share_of_gap: float | None
    """``extra_s`` over the gap (over 1 where the bound overshoots it); None where not modelled."""
    fit: float | None = None
    """How near the cause comes to the gap, 0–1, what the causes are ranked by: for one that spans
    every effect up to its bound, ``share_of_gap`` up to 1 (1: it explains all of the gap); for an
    all-or-nothing one, the smaller of ``share_of_gap`` and its inverse. None where not modelled."""
    network_gbps: float | None = None
    """``slower_network``: the rate between the nodes (Gbit/s, of the kind assumed) at which the
    estimate's step is the measured one; None where even the conservative bound leaves it shorter,
    and for the other causes."""
    words: str
    """What it is, with the figures."""
    check: str
    """How to tell on the machine whether it is the cause."""


@dataclass(frozen=True, kw_only=True)
class NetworkForStep:
    """A network between the nodes, of one kind, at which the estimate's step is the measured one."""

    kind: NetworkKind
    gbps: float | None
    """Gbit/s, solved on the estimator between the slowest plausible network and the fastest fabric
    sold (:data:`SLOW_NETWORK_GBIT_S`–:data:`FAST_NETWORK_GBIT_S`); None where no rate in that span
    gives a step that short (the estimate is slower than measured for some other reason)."""


@dataclass(frozen=True, kw_only=True)
class ScalingGap:
    """The measurement against the estimate, and the causes ranked."""

    given: str
    """``speedup`` or ``throughput``: which the user measured (the other is derived with the
    estimate's one-GPU figure, or the step's samples)."""
    measured_speedup: float | None
    measured_throughput: float | None
    estimated_speedup: float | None
    estimated_throughput: float
    measured_step_s: float
    """The measurement as a step of the configuration (see the module's text)."""
    estimated_step_s: float
    gap_s: float
    """Measured step less the estimated one, seconds (≤ 0: the measurement is at or above the estimate)."""
    measured_compute_time_h: float | None
    """The job's steps at the measured rate, hours: the estimate's (``Estimate.job_time_h``) times
    the measured step over the estimated one; None without a job size."""
    within_range: bool | None
    """The measured step lies in the estimate's 80 % range (None for a speed-up: a ratio of two
    estimates has no range of its own)."""
    causes: tuple[GapCause, ...]
    """Those the estimator sizes, nearest the gap first (:attr:`GapCause.fit`), and those it does not
    model: the sized first, unless together they come to less than :data:`MOST_OF_GAP` of the gap
    (``sized_share_of_gap``), where those not modelled come first. Empty where there is no gap."""
    sized_share_of_gap: float | None = None
    """The share of the gap the sized causes come to together, at most: each one's ``share_of_gap``
    up to 1, summed, up to 1 (they may overlap, so an upper bound); None where none is sized."""
    faster_network: tuple[NetworkForStep, ...] = ()
    """Where the measured step is shorter than the estimate's and the job spans nodes: the rates
    between them that give the measured step, what the measurement says of the network (unknown, a
    typical one assumed: RDMA's and TCP's; stated: its own kind's, above the rate stated). Empty
    otherwise (a slower one is a cause, ``slower_network``)."""


def measured_step_s(est: Estimate, figures: ScalingFigures | None, measured: MeasuredScaling) -> float | None:
    """The measurement as a step of ``est``'s configuration (see the module's text); None where a
    speed-up was given and there is no one-GPU step to read it against. ``figures``: the scaling of
    ``est`` (needed for a speed-up only)."""
    if measured.throughput is not None:
        return est.step_time_s * est.throughput / measured.throughput
    if measured.speedup is not None and figures is not None and figures.one_gpu_step_s is not None:
        return figures.one_gpu_step_s * est.gpu_count / measured.speedup
    return None


def scaling_gap(
    request: EstimateRequest, est: Estimate, figures: ScalingFigures, measured: MeasuredScaling
) -> ScalingGap | None:
    """``measured`` against ``est`` (the estimate of ``request``); None where a speed-up was given
    and one GPU cannot run the workload (no one-GPU step to read it against)."""
    step_m = measured_step_s(est, figures, measured)
    if step_m is None:
        return None
    gap = step_m - est.step_time_s
    speedup = measured.speedup
    if speedup is None and figures.one_gpu_throughput and measured.throughput is not None:
        speedup = measured.throughput / figures.one_gpu_throughput
    throughput = (
        measured.throughput if measured.throughput is not None else est.throughput * est.step_time_s / step_m
    )
    within = None if measured.throughput is None else est.step_time_s_low <= step_m <= est.step_time_s_high
    causes = _causes(request, est, figures, step_m, gap) if gap > 0 else ()
    return ScalingGap(
        given="throughput" if measured.throughput is not None else "speedup",
        measured_speedup=speedup,
        measured_throughput=throughput,
        estimated_speedup=figures.speedup,
        estimated_throughput=est.throughput,
        measured_step_s=step_m,
        estimated_step_s=est.step_time_s,
        gap_s=gap,
        measured_compute_time_h=None if est.job_time_h is None else est.job_time_h * step_m / est.step_time_s,
        within_range=within,
        causes=causes,
        sized_share_of_gap=_sized_share(causes),
        faster_network=_faster_network(request, est, step_m) if gap < 0 else (),
    )


def _faster_network(request: EstimateRequest, est: Estimate, step_m: float) -> tuple[NetworkForStep, ...]:
    """The rates between the nodes that give ``step_m`` (shorter than ``est``'s step), where the
    job spans nodes: over a network nobody stated, RDMA's and TCP's from the slowest plausible rate
    up; over a stated one (or the instance's), its own kind's from the rate stated up, the rate the
    run went at by the estimate (its communication took less than the estimate says of that
    network, or the one-GPU step is shorter). Empty on one node, or a stated rate of unstated kind."""
    link = request_link(request)
    if link.nodes <= 1:
        return ()
    kinds: tuple[NetworkKind, ...] = ("rdma", "tcp")
    low = SLOW_NETWORK_GBIT_S
    if link.network_known:
        if link.network_kind_assumed or link.network_gbit_s is None or link.network_kind not in kinds:
            return ()
        kinds, low = (link.network_kind,), link.network_gbit_s
    return tuple(
        NetworkForStep(kind=kind, gbps=_solved_rate(request, step_m, kind, low, FAST_NETWORK_GBIT_S))
        for kind in kinds
    )


def _solved_rate(
    request: EstimateRequest, step_m: float, kind: NetworkKind, low: float, high: float
) -> float | None:
    """:func:`_rate_for_step` over ``kind``, None where ``step_m`` is not between the steps at
    ``high`` and ``low`` Gbit/s."""
    fast, slow = _step_on(request, high, kind), _step_on(request, low, kind)
    if fast is None or slow is None or not fast <= step_m <= slow:
        return None
    return _rate_for_step(request, step_m, low=low, high=high, kind=kind)


def _ms(s: float) -> str:
    """``133 ms``, ``15.9 s``."""
    return _("{n} ms").format(n=f"{s * 1e3:.3g}") if s < 1.0 else _("{n} s").format(n=f"{s:,.3g}")


#: Bisection steps of the network rate that explains a gap: each halves the log of the span between
#: the conservative bound and the rate assumed (2.5–100 Gbit/s: 40×; up to the fastest fabric,
#: 3,200 Gbit/s: 1,280×), so 30 leave the rate within a part in 10⁸, far below the two digits said.
_SOLVE_STEPS = 30

#: The parallelisms that gather each layer's parameters beside the layers' compute, forward and
#: backward (perf/stages/communication.py); the others reduce gradients beside backward.
_PER_LAYER = frozenset({"fsdp", "zero3"})


def _fit(share: float, *, spans: bool) -> float:
    """How near a cause whose bound adds ``share`` of the gap comes to it (:attr:`GapCause.fit`):
    ``spans``, every effect up to its bound is possible."""
    if spans:
        return min(1.0, share)
    return min(share, 1.0 / share) if share > 0 else 0.0


def _sized(
    cause: str,
    extra: float,
    gap: float,
    words: str,
    check: str,
    *,
    spans: bool,
    network_gbps: float | None = None,
) -> GapCause:
    share = extra / gap
    return GapCause(
        cause=cause,
        extra_s=extra,
        share_of_gap=share,
        fit=_fit(share, spans=spans),
        network_gbps=network_gbps,
        words=words,
        check=check,
    )


def _causes(
    request: EstimateRequest, est: Estimate, figures: ScalingFigures, step_m: float, gap: float
) -> tuple[GapCause, ...]:
    candidates = (
        _exposed(request, figures, gap),
        _no_p2p(request, est, gap),
        _network(request, est, figures, step_m, gap),
    )
    # a cause that moves the step by under 1 % of the gap explains none of it
    sized = [c for c in candidates if c is not None and (c.share_of_gap or 0.0) >= MIN_SHARE]
    # nearest the gap first (ties keep the order above): not most seconds first, which ranked a
    # bound 120 times the gap above one that came within 14 % of it
    sized.sort(key=lambda c: -(c.fit or 0.0))
    unmodelled = _unmodelled(request, est, figures, step_m, gap)
    together = _sized_share(sized)
    if together is not None and together < MOST_OF_GAP:
        # a few per cent of the gap is not the likeliest cause where a slow DataLoader (or a fixed
        # cost a step) would give all of it: those lead, the sized ones follow as the small part
        return (*unmodelled, *sized)
    return (*sized, *unmodelled)


def _sized_share(causes: Sequence[GapCause]) -> float | None:
    """:attr:`ScalingGap.sized_share_of_gap` of ``causes``: the sized ones' shares, each up to 1,
    summed up to 1; None where none is sized."""
    shares = [min(1.0, c.share_of_gap) for c in causes if c.share_of_gap is not None]
    return min(1.0, sum(shares)) if shares else None


def _overlap_check(parallelism: str) -> str:
    """How to see on the machine that the step's collectives wait instead of overlapping compute,
    and what makes them wait under ``parallelism``, in each stack's own settings:

    - DDP: ``find_unused_parameters=True`` traverses the autograd graph after forward to mark the
      parameters that get no gradient, and gradients accumulated under ``no_sync`` are all-reduced
      in the first step outside it (PyTorch, "DistributedDataParallel",
      https://docs.pytorch.org/docs/stable/generated/torch.nn.parallel.DistributedDataParallel.html,
      read 2026-12).
    - FSDP: ``backward_prefetch`` (``BACKWARD_PRE`` by default) issues the next all-gather before
      the current gradient computation, ``forward_prefetch`` does so in forward and "is only useful
      for CPU-bound workloads", and ``limit_all_gathers`` (the "rate limiter", on by default)
      synchronises the CPU thread so that only two units' gathers are live, to be switched off "for
      specific CPU-bound workloads with low memory pressure" (PyTorch, "FullyShardedDataParallel",
      https://docs.pytorch.org/docs/stable/fsdp.html; and "FSDP Notes", "FSDP Prefetch Nuances",
      https://docs.pytorch.org/docs/stable/notes/fsdp.html, read 2026-12). The wrapping decides
      what there is to overlap: each ``fully_shard`` unit is one all-gather and one
      reduce-scatter, and "constructing multiple groups across the model ('layer by layer') allows
      for peak memory savings and communication/computation overlap"; ``reshard_after_forward=False``
      keeps the unsharded parameters after forward "and avoids the all-gather in backward", an
      ``int`` re-gathers over that many GPUs only (e.g. a node's), both at the cost of memory
      (PyTorch, "torch.distributed.fsdp.fully_shard",
      https://docs.pytorch.org/docs/stable/distributed.fsdp.fully_shard.html, read 2026-12).
    - DeepSpeed ZeRO: ``overlap_comm`` "attempts to overlap the reduction of the gradients with
      backward computation", off by default below stage 3 and on at stage 3 (its
      ``overlap_comm_valid`` validator, deepspeed/runtime/zero/config.py);
      ``stage3_prefetch_bucket_size`` is "the size of the fixed buffer for prefetching parameters.
      Smaller values use less memory, but can increase stalls due to communication", and smaller
      ``stage3_max_live_parameters`` / ``stage3_max_reuse_distance`` "perform more communication"
      (DeepSpeed, "DeepSpeed Configuration JSON", https://www.deepspeed.ai/docs/config-json/,
      read 2026-12). PyTorch's own ZeRO-1, ``ZeroRedundancyOptimizer``, runs under DDP, and
      ``gpuplan deploy`` runs ZeRO-2 and ZeRO-3 as FSDP (``reshard_after_forward`` False and True).
    """
    if parallelism == "fsdp":
        return _(
            "a torch.profiler trace of one step: all-gathers and reduce-scatters running between the "
            "layers' compute instead of beside it. Under FSDP, a wrapping too coarse (the whole model one "
            "unit: no next unit to gather while one computes) or too fine (many small collectives, each "
            "paying its latency), FSDP1's backward_prefetch=None, or, where the CPU falls behind the GPU, "
            "limit_all_gathers=True (the default) or forward_prefetch=False make the gathers late; "
            "reshard_after_forward=False (FSDP2: or the GPUs of a node) spares backward its all-gather "
            "across all the GPUs, at the cost of memory"
        )
    if parallelism == "zero3":
        return _(
            "a torch.profiler trace of one step: parameter gathers and gradient reductions running between "
            "the layers' compute instead of beside it. Under DeepSpeed, overlap_comm=false, a "
            "stage3_prefetch_bucket_size too small to gather ahead, or stage3_max_live_parameters and "
            "stage3_max_reuse_distance so low that parameters are released and gathered again; under FSDP, "
            "a wrapping too coarse or too fine, or FSDP1's backward_prefetch=None"
        )
    if parallelism == "zero2":
        return _(
            "a torch.profiler trace of one step: NCCL kernels running after backward instead of beside it. "
            "Under DeepSpeed, overlap_comm off (its default below ZeRO-3) or a reduce_bucket_size so large "
            "that the reduction waits for the end of backward; under FSDP (SHARD_GRAD_OP, FSDP2's "
            "reshard_after_forward=False), a wrapping too coarse or too fine, or FSDP1's "
            "backward_prefetch=None"
        )
    if parallelism == "zero1":
        return _(
            "a torch.profiler trace of one step: NCCL kernels running after backward instead of beside it. "
            "Under DeepSpeed, overlap_comm off (its default below ZeRO-3) or a reduce_bucket_size so large "
            "that the reduction waits for the end of backward; PyTorch's ZeroRedundancyOptimizer runs under "
            "DDP, whose find_unused_parameters=True or a no_sync misuse delays them"
        )
    return _(
        "a torch.profiler trace of one step: NCCL kernels running after backward instead of beside it "
        "(DDP's find_unused_parameters=True or a no_sync misuse delays them)"
    )


def _exposed(request: EstimateRequest, figures: ScalingFigures, gap: float) -> GapCause | None:
    """Communication not overlapped: from none of the hidden collectives exposed to all of them."""
    hidden = figures.comm_total_s - figures.comm_exposed_s
    if hidden <= 0:
        return None
    what = (
        _(
            "communication not overlapped with compute (the estimate hides {hidden} of the step's {total} "
            "of collectives behind the layers' forward and backward)"
        )
        if request.parallelism in _PER_LAYER
        else _(
            "communication not overlapped with compute (the estimate hides {hidden} of the step's "
            "{total} of collectives behind backward)"
        )
    ).format(hidden=_ms(hidden), total=_ms(figures.comm_total_s))
    share = hidden / gap
    size = (
        _(": all of it exposed adds {extra} a step, {share} of the gap").format(
            extra=_ms(hidden), share=format_percent(share)
        )
        if share <= 1.0
        else _(": the gap is what {part} of it exposed would give").format(part=format_percent(1.0 / share))
    )
    return _sized(
        "exposed_communication", hidden, gap, what + size, _overlap_check(request.parallelism), spans=True
    )


def _no_p2p(request: EstimateRequest, est: Estimate, gap: float) -> GapCause | None:
    """PCIe without P2P: the node re-estimated through host memory, all or nothing."""
    link = request_link(request)
    if link.intra_path != "pcie" or min(link.gpus_per_node, request.count) <= 1:
        return None
    extra = _rerun(request, est, replace(link, peer_access=False))
    if extra is None or extra <= 0:
        return None
    share = extra / gap
    what = _(
        "PCIe without P2P between the GPUs (NCCL through host memory, as on a VM or board that does not "
        "pass peer access through)"
    )
    size = (
        _(": +{extra} a step, {share} of the gap").format(extra=_ms(extra), share=format_percent(share))
        if share <= 1.0
        else _(": +{extra} a step, {times:.1f}× the gap (a step longer than measured)").format(
            extra=_ms(extra), times=share
        )
    )
    check = _(
        "`gpuplan doctor` on the machine says whether its GPUs have P2P (or `nvidia-smi topo -p2p r`); "
        "NCCL_P2P_DISABLE=1 in the environment does the same"
    )
    return _sized("pcie_without_p2p", extra, gap, what + size, check, spans=False)


def _network(
    request: EstimateRequest, est: Estimate, figures: ScalingFigures, step_m: float, gap: float
) -> GapCause | None:
    """An unknown network between the nodes slower than assumed: the rate that gives the measured
    step, where the conservative bound reaches it; else that bound's share of the gap."""
    bound = figures.conservative
    if bound is None or bound.step_time_s <= est.step_time_s:
        return None
    link = request_link(request)
    extra = bound.step_time_s - est.step_time_s
    check = _("measure it between two nodes (iperf3) and give it as --network-gbps")
    # the rate assumed and the slowest plausible network's kind, as both sentences say them
    rates = {
        "gbps": link.network_gbit_s,
        "kind": link_name(link.network_kind),
        "slow_kind": link_name(bound.network_kind),
    }
    if bound.step_time_s < step_m:
        words = _(
            "a network between the nodes slower than the {gbps:g} Gbit/s {kind} assumed: even at the "
            "slowest plausible, {slow:g} Gbit/s {slow_kind}, it adds {extra} a step, {share} of the gap"
        ).format(**rates, slow=bound.network_gbps, extra=_ms(extra), share=format_percent(extra / gap))
        return _sized("slower_network", extra, gap, words, check, spans=True)
    rate = _rate_for_step(request, step_m, low=bound.network_gbps, high=link.network_gbit_s)
    if rate is None:
        return None
    words = _(
        "the gap is what a network of about {rate} Gbit/s {slow_kind} between the nodes would give "
        "({gbps:g} Gbit/s {kind} assumed)"
    ).format(**rates, rate=_rate_words(rate, link.network_gbit_s))
    return _sized("slower_network", extra, gap, words, check, spans=True, network_gbps=rate)


def _rate_words(rate: float, assumed: float) -> str:
    """``71``, ``3.4``: the rate to two significant digits (``f"{99.8:.2g}"`` would be ``1e+02``),
    three where two round it to the rate assumed."""
    for digits in (2, 3):
        rounded = float(f"{rate:.{digits}g}")
        if rounded != assumed:
            break
    return format_number(rounded, digits)


def _rate_for_step(
    request: EstimateRequest, step_m: float, *, low: float, high: float, kind: NetworkKind | None = None
) -> float | None:
    """The network rate between the nodes, between ``low`` and ``high`` Gbit/s (of ``kind``, else of
    the kind the conservative bound takes), at which the estimate's step is ``step_m``: bisected on
    the estimator itself, a step being no shorter on a slower network. None where it does not run."""
    for _step in range(_SOLVE_STEPS):
        mid = math.sqrt(low * high)
        step = _step_on(request, mid, kind)
        if step is None:
            return None
        if step > step_m:
            low = mid
        else:
            high = mid
    return math.sqrt(low * high)


def _step_on(request: EstimateRequest, gbps: float, kind: NetworkKind | None) -> float | None:
    """The estimate's step with the network between the nodes stated as ``gbps`` of ``kind`` (None:
    the conservative bound's kind); None where it does not run."""
    link = replace(request_link(request).slow_end(), network_source="user", network_gbit_s=gbps)
    try:
        return run_estimate(
            request.changed(link=link if kind is None else replace(link, network_kind=kind))
        ).step_time_s
    except EstimateError:
        return None


def _rerun(request: EstimateRequest, est: Estimate, link: Link) -> float | None:
    """The estimate's step on ``link`` less its own, seconds (None where it does not run)."""
    try:
        return run_estimate(request.changed(link=link)).step_time_s - est.step_time_s
    except EstimateError:
        return None


def _unmodelled(
    request: EstimateRequest, est: Estimate, figures: ScalingFigures, step_m: float, gap: float
) -> tuple[GapCause, ...]:
    samples_s = est.samples_per_step / step_m
    per_gpu = samples_s / est.gpu_count
    host = est.input_samples_per_s
    input_words = _(
        "the input pipeline: a DataLoader that delivers no more than {rate} samples/s in all "
        "({per_gpu} a GPU) would explain the whole gap by itself"
    ).format(rate=format_number(samples_s, 3), per_gpu=format_number(per_gpu, 3))
    if host is not None:
        input_words += _("; the estimate has this host's CPUs decode {host} samples/s").format(
            host=format_number(host, 3)
        )
    else:
        input_words += _("; the estimate does not model reading and preparing the samples")
    out = [
        GapCause(
            cause="input_pipeline",
            extra_s=None,
            share_of_gap=None,
            words=input_words,
            check=_(
                "time one epoch's batches from the DataLoader alone (no model), or watch GPU utilisation "
                "drop between steps; more num_workers and pin_memory=True if it is slow"
            ),
        )
    ]
    accum = request.grad_accum_steps * 2
    doubled = _accumulated(request, est, accum)
    batch_words = _(
        "the per-GPU batch ({batch} samples, {compute} of compute a step): a fixed cost a step that the "
        "estimate does not see (kernel launches, Python, synchronisation) of {gap} would be {share} of that "
        "compute"
    ).format(
        batch=request.profile.batch_size,
        compute=_ms(est.compute_time_s),
        gap=_ms(gap),
        share=format_percent(gap / est.compute_time_s if est.compute_time_s > 0 else None),
    )
    if doubled is not None and figures.speedup is not None:
        batch_words += _(
            "; with gradient accumulation {accum} the estimate's speed-up is {new:.2f}× (now {now:.2f}×)"
        ).format(accum=accum, new=doubled, now=figures.speedup)
    out.append(
        GapCause(
            cause="small_batch",
            extra_s=None,
            share_of_gap=None,
            words=batch_words,
            check=_(
                "measure again with twice the micro-batches a step (gradient_accumulation) or a larger "
                "batch per GPU: a fixed cost a step shrinks with it, the other causes do not"
            ),
        )
    )
    out.append(
        GapCause(
            cause="cpu_threads",
            extra_s=None,
            share_of_gap=None,
            words=_(
                "the host's CPU threads: {n} processes each issue their kernels and run their DataLoader "
                "workers on the same CPUs (not modelled); torchrun sets OMP_NUM_THREADS=1 for each"
            ).format(n=est.gpu_count),
            check=_(
                "top during a step: a training process at 100 % of one core, or all cores busy; set "
                "OMP_NUM_THREADS and num_workers so that they share the vCPUs"
            ),
        )
    )
    return tuple(out)


def _accumulated(request: EstimateRequest, est: Estimate, accum: int) -> float | None:
    """The estimate's speed-up over one GPU with ``accum`` micro-batches a step (None where it does
    not run)."""
    setup = Setup(request, est)
    try:
        many = setup.run(request.profile, accum=accum)
        one = setup.run(request.profile, accum=accum, count=1)
    except EstimateError:
        return None
    return many.throughput / one.throughput if one.throughput > 0 else None
