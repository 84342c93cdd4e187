"""A measured speed-up (or throughput) of several GPUs against the estimate, and what most likely
makes up the difference, ranked by the estimator's own figures.

The measurement becomes a step time: a throughput over all GPUs is the step's samples over it; a
speed-up over one GPU of the same kind is the one-GPU step the estimate gives (the same per-GPU
batch on the same host), times the GPU count over the speed-up, since a data-parallel step of ``n``
GPUs processes ``n`` times the one GPU's samples. What the measured step takes beyond the
estimated one (the gap, seconds a step) is set against each cause the estimator can size, each
costed by re-running the estimate with that cause at its bound, never a constant of its own:

- **communication not overlapped** with backward: every collective of the step exposed
  (``comm_total_s`` instead of ``comm_exposed_s``);
- **PCIe without P2P**: the node's GPUs joined through host memory (:attr:`Link.peer_access`
  false, NCCL's share of PCIe as :mod:`gpuplan.perf.links` takes it for cards without peer access);
- **a slower network** between nodes where the network is unknown: its conservative bound
  (:meth:`Link.slow_end`).

Those are ranked by the seconds they add. What the estimator does not model is listed after them,
each with the figure that tells it: the input pipeline (the samples/s the DataLoader would have to
fall below), a small per-GPU batch (the estimate's speed-up with twice the micro-batches a step)
and the host's CPU threads.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gpuplan.errors import EstimateError
from gpuplan.i18n.messages import _
from gpuplan.i18n.numbers import format_number, format_percent
from gpuplan.perf.advice_base import Setup
from gpuplan.perf.estimate import Estimate, EstimateRequest, run_estimate
from gpuplan.perf.links import Link
from gpuplan.perf.scaling import ScalingFigures, request_link

__all__ = ["MIN_SHARE", "GapCause", "MeasuredScaling", "ScalingGap", "measured_step_s", "scaling_gap"]

#: A sized cause that would explain less than this share of the gap is left out.
MIN_SHARE = 0.01


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
    """``extra_s`` over the gap, at most 1; None where not modelled."""
    words: str
    """What it is, with the figures."""
    check: str
    """How to tell on the machine whether it is the cause."""


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
    """Those the estimator sizes first, most seconds first; then those it does not model. Empty
    where there is no gap."""


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
    )


def _ms(s: float) -> str:
    """``133 ms``, ``15.9 s``."""
    return _("{n} ms").format(n=f"{s * 1e3:.3g}") if s < 1.0 else _("{n} s").format(n=f"{s:,.3g}")


def _sized(cause: str, extra: float, gap: float, words: str, check: str) -> GapCause:
    return GapCause(cause=cause, extra_s=extra, share_of_gap=min(1.0, extra / gap), words=words, check=check)


def _causes(
    request: EstimateRequest, est: Estimate, figures: ScalingFigures, step_m: float, gap: float
) -> tuple[GapCause, ...]:
    sized: list[GapCause] = []
    hidden = figures.comm_total_s - figures.comm_exposed_s
    if hidden > 0:
        sized.append(
            _sized(
                "exposed_communication",
                hidden,
                gap,
                _(
                    "communication not overlapped with compute (the estimate hides {hidden} of the step's "
                    "{total} of collectives behind backward)"
                ).format(hidden=_ms(hidden), total=_ms(figures.comm_total_s)),
                _(
                    "a torch.profiler trace of one step: NCCL kernels running after backward instead of "
                    "beside it (DDP's find_unused_parameters=True or a no_sync misuse delays them)"
                ),
            )
        )
    link = request_link(request)
    if link.intra_path == "pcie" and min(link.gpus_per_node, request.count) > 1:
        extra = _rerun(request, est, replace(link, peer_access=False))
        if extra is not None and extra > 0:
            sized.append(
                _sized(
                    "pcie_without_p2p",
                    extra,
                    gap,
                    _(
                        "PCIe without P2P between the GPUs (NCCL through host memory, as on a VM or board "
                        "that does not pass peer access through)"
                    ),
                    _(
                        "`gpuplan doctor` on the machine says whether its GPUs have P2P (or "
                        "`nvidia-smi topo -p2p r`); NCCL_P2P_DISABLE=1 in the environment does the same"
                    ),
                )
            )
    if figures.conservative is not None:
        extra = figures.conservative.step_time_s - est.step_time_s
        if extra > 0:
            sized.append(
                _sized(
                    "slower_network",
                    extra,
                    gap,
                    _(
                        "a network between the nodes slower than the {gbps:g} Gbit/s assumed (at its "
                        "conservative bound, {slow:g} Gbit/s TCP)"
                    ).format(gbps=figures.network_gbps or 0.0, slow=figures.conservative.network_gbps),
                    _("measure it between two nodes (iperf3) and give it as --network-gbps"),
                )
            )
    # a cause that moves the step by under 1 % of the gap explains none of it
    sized = [c for c in sized if (c.share_of_gap or 0.0) >= MIN_SHARE]
    sized.sort(key=lambda c: -(c.extra_s or 0.0))
    return (*sized, *_unmodelled(request, est, figures, step_m, gap))


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
