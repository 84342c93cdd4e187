"""One profile over many GPUs: the estimate, the advice where it does not fit, inference figures.

This is what ``gpuplan estimate`` shows and what the planner costs. A GPU that cannot run the
workload at all (no FP8 on an A100) gives an outcome with ``error`` set, not an exception, so that
one such GPU does not hide the others.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpuplan.errors import EstimateError
from gpuplan.i18n.error_text import error_text
from gpuplan.perf.advice_base import Retrace
from gpuplan.perf.advisor import Advice, Current, advise, without_negligible
from gpuplan.perf.calibration import Calibration, load_calibration
from gpuplan.perf.estimate import Estimate, EstimateRequest, request_decode, run_estimate
from gpuplan.perf.inference import DecodeEstimate, ServingEstimate, serving_estimate
from gpuplan.perf.roofline import precision_refusal
from gpuplan.perf.scaling import ScalingAdvice, ScalingFigures, scaling_advice, scaling_figures
from gpuplan.perf.scaling_gap import MeasuredScaling, ScalingGap, scaling_gap

if TYPE_CHECKING:
    from gpuplan.catalog.gpu_hour import GpuHourPrice

__all__ = ["EstimateOutcome", "ServingLoad", "estimate_all"]


@dataclass(frozen=True, kw_only=True)
class ServingLoad:
    """The request load an inference deployment must carry."""

    requests_per_s: float
    prompt_tokens: int
    output_tokens: int
    p95_latency_s: float | None = None
    """The service's latency target, which the GPUs it needs must meet too (None: none)."""
    ttft_p95_s: float | None = None
    """The service's p95 time-to-first-token target, which they must meet too (None: none)."""
    tpot_p95_s: float | None = None
    """The service's time-per-output-token target, which the decode step at the load's operating
    point must meet too (None: none)."""
    tail_prompt_tokens: int | None = None
    """The 95th-percentile prompt the time-to-first-token target is checked at (None: the mean)."""
    tail_output_tokens: int | None = None
    """The 95th-percentile answer the p95 latency target is checked at (None: the mean)."""


@dataclass(frozen=True, kw_only=True)
class EstimateOutcome:
    """The result for one GPU configuration."""

    gpu: str
    gpu_count: int
    estimate: Estimate | None
    """None when ``error`` says why the workload cannot run there."""
    advice: tuple[Advice, ...] = ()
    """Changes that make it fit; empty when it fits."""
    advice_left_out: int = 0
    """Changes left out of ``advice`` for saving under 1 % of the memory needed while still not
    fitting (:func:`gpuplan.perf.advisor.without_negligible`)."""
    scaling: tuple[ScalingAdvice, ...] = ()
    """Where it fits and its step mostly waits on collectives: changes that make it faster
    (:mod:`gpuplan.perf.scaling`); empty otherwise."""
    scaling_figures: ScalingFigures | None = None
    """On several GPUs (training): the speed-up over one GPU of the kind, the link, the
    communication and what of it is exposed; None on one GPU, for inference, or without advice."""
    scaling_gap: ScalingGap | None = None
    """A measured speed-up or throughput against the estimate, the gap's likely causes ranked
    (:mod:`gpuplan.perf.scaling_gap`); None where none was given."""
    decode: DecodeEstimate | None = None
    """LLM generation figures (decoder models, ``task: infer``)."""
    serving: ServingEstimate | None = None
    error: str | None = None
    """Why the workload cannot run there: the error's line in the language current when estimated."""


def _one(
    request: EstimateRequest,
    *,
    serving: ServingLoad | None,
    with_advice: bool,
    current: Current | None = None,
    offered: Mapping[str, GpuHourPrice | None] | None = None,
    retrace: Retrace | None = None,
    measured: MeasuredScaling | None = None,
) -> EstimateOutcome:
    profile, gpu, count = request.profile, request.gpu, request.count
    if (refused := precision_refusal(profile.precision, gpu, profile.task)) is not None:
        # the line the estimate would end in, with the precision to use named for the task (a
        # served model's fp16, not training's fp16-master), before any of it is run
        return EstimateOutcome(gpu=gpu.id, gpu_count=count, estimate=None, error=error_text(refused))
    try:
        est = run_estimate(request)
    except EstimateError as e:
        # The line as the user reads it, in the current language like the rest of the estimate.
        return EstimateOutcome(gpu=gpu.id, gpu_count=count, estimate=None, error=error_text(e))
    advice: tuple[Advice, ...] = ()
    left_out = 0
    scaling: tuple[ScalingAdvice, ...] = ()
    if with_advice and not est.fits:
        advice, left_out = without_negligible(
            advise(request, current=current, offered=offered, retrace=retrace), est
        )
    elif with_advice:
        scaling = scaling_advice(request, est)
    figures = scaling_figures(request, est) if with_advice else None
    gap = None if measured is None or figures is None else scaling_gap(request, est, figures, measured)
    dec = srv = None
    if profile.task == "infer" and profile.shape.family == "decoder" and profile.seq_len:
        try:
            dec = request_decode(
                request,
                # each sequence holds its whole request in the KV cache, as deploy's --max-model-len
                # and simulate size it (the traced seq_len is the forward's shape, not the request's;
                # a batch generation job's request is its prompt and answer)
                context_tokens=serving.prompt_tokens + serving.output_tokens
                if serving
                else request.serving_context_tokens,
                # n replicas time-sharing a GPU (one GPU each: tensor parallelism leaves it at 1)
                replicas_per_gpu=request.gpu_share if request.model_parallel.tensor == 1 else 1,
            )
        except EstimateError:
            dec = None  # no layer facts for a KV cache: the plain forward estimate still stands
        if dec is not None and serving is not None and dec.max_concurrent_sequences >= 1:
            # A replica that cannot hold its weights and one sequence serves nothing: no capacity,
            # no latency (the report says so). The configuration's GPUs are whole replicas sharing
            # the load, as the plan splits it.
            srv = serving_estimate(
                dec,
                requests_per_s=serving.requests_per_s,
                prompt_tokens=serving.prompt_tokens,
                output_tokens=serving.output_tokens,
                replicas=max(1, count // max(1, request.model_parallel.tensor)) * dec.replicas_per_gpu,
                p95_target_s=serving.p95_latency_s,
                ttft_target_s=serving.ttft_p95_s,
                tpot_target_s=serving.tpot_p95_s,
                tail_prompt_tokens=serving.tail_prompt_tokens,
                tail_output_tokens=serving.tail_output_tokens,
            )
    return EstimateOutcome(
        gpu=gpu.id,
        gpu_count=count,
        estimate=est,
        advice=advice,
        advice_left_out=left_out,
        scaling=scaling,
        scaling_figures=figures,
        scaling_gap=gap,
        decode=dec,
        serving=srv,
    )


def estimate_all(
    requests: Iterable[EstimateRequest],
    *,
    serving: ServingLoad | None = None,
    with_advice: bool = True,
    current: Current | None = None,
    offered: Mapping[str, GpuHourPrice | None] | None = None,
    retrace: Retrace | None = None,
    measured: MeasuredScaling | None = None,
) -> tuple[EstimateOutcome, ...]:
    """Estimate each request (one GPU configuration each), with advice where it does not fit.

    ``current``: what the workload already does (never advised again); ``offered``: the GPUs the
    catalog has offers of, each with its lowest on-demand price per GPU-hour and where and when it
    is from (the advisor suggests another GPU among them first, and quotes that price);
    ``retrace``: traces the workload with a change applied (the advice's checkpointing and combined
    changes are then costed on that profile, as the workload written with them is).

    A request without a calibration gets the one shipped in the package (loaded once);
    ``serving``: the request load an inference deployment must carry; ``measured``: a speed-up or
    throughput the user measured, read against each multi-GPU estimate (:mod:`gpuplan.perf.scaling_gap`)."""
    cal: Calibration | None = None
    outcomes = []
    for request in requests:
        if request.calibration is None:
            cal = cal or load_calibration()
            request = request.changed(calibration=cal)
        outcomes.append(
            _one(
                request,
                serving=serving,
                with_advice=with_advice,
                current=current,
                offered=offered,
                retrace=retrace,
                measured=measured,
            )
        )
    return tuple(outcomes)
