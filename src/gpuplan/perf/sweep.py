"""One profile over many GPUs: the estimate, the advice where it does not fit, inference figures.

This is what ``gpuplan estimate`` shows and what the planner costs. A GPU that cannot run the
workload at all (no FP8 on an A100) gives an outcome with ``error`` set, not an exception, so that
one such GPU does not hide the others.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from gpuplan.errors import EstimateError
from gpuplan.hardware import GPU
from gpuplan.perf.advisor import Advice, advise
from gpuplan.perf.calibration import Calibration, load_calibration
from gpuplan.perf.estimate import Estimate, JobSize, estimate
from gpuplan.perf.inference import DecodeEstimate, ServingEstimate, decode_estimate, serving_estimate
from gpuplan.perf.input_pipeline import InputPipeline
from gpuplan.perf.parallel import NetworkSpec
from gpuplan.profile.model import Profile

__all__ = ["EstimateOutcome", "ServingLoad", "estimate_all"]


@dataclass(frozen=True, kw_only=True)
class ServingLoad:
    """The request load an inference deployment must carry."""

    requests_per_s: float
    prompt_tokens: int
    output_tokens: int


@dataclass(frozen=True, kw_only=True)
class EstimateOutcome:
    """The result for one GPU configuration."""

    gpu: str
    gpu_count: int
    estimate: Estimate | None
    """None when ``error`` says why the workload cannot run there."""
    advice: tuple[Advice, ...] = ()
    """Changes that make it fit; empty when it fits."""
    decode: DecodeEstimate | None = None
    """LLM generation figures (decoder models, ``task: infer``)."""
    serving: ServingEstimate | None = None
    error: str | None = None


@dataclass(frozen=True, kw_only=True)
class _Run:
    network: NetworkSpec | None = None
    compiled: bool = False
    input_pipeline: InputPipeline | None = None


def _one(
    profile: Profile,
    gpu: GPU,
    *,
    count: int,
    parallelism: str,
    cal: Calibration,
    job: JobSize | None,
    grad_accum_steps: int,
    serving: ServingLoad | None,
    with_advice: bool,
    run: _Run,
) -> EstimateOutcome:
    try:
        est = estimate(
            profile,
            gpu,
            count=count,
            parallelism=parallelism,
            link=run.network.link(gpu, count) if run.network is not None else None,
            calibration=cal,
            job=job,
            grad_accum_steps=grad_accum_steps,
            compiled=run.compiled,
            input_pipeline=run.input_pipeline,
        )
    except EstimateError as e:
        return EstimateOutcome(gpu=gpu.id, gpu_count=count, estimate=None, error=str(e))
    advice: tuple[Advice, ...] = ()
    if with_advice and not est.fits:
        advice = advise(
            profile,
            gpu,
            count=count,
            parallelism=parallelism,
            calibration=cal,
            grad_accum_steps=grad_accum_steps,
        )
    dec = srv = None
    if profile.task == "infer" and profile.shape.family == "decoder" and profile.seq_len:
        try:
            dec = decode_estimate(profile, gpu, calibration=cal)
        except EstimateError:
            dec = None  # no layer facts for a KV cache: the plain forward estimate still stands
        if dec is not None and serving is not None:
            srv = serving_estimate(
                dec,
                requests_per_s=serving.requests_per_s,
                prompt_tokens=serving.prompt_tokens,
                output_tokens=serving.output_tokens,
            )
    return EstimateOutcome(gpu=gpu.id, gpu_count=count, estimate=est, advice=advice, decode=dec, serving=srv)


def estimate_all(
    profile: Profile,
    gpus: Iterable[GPU],
    *,
    count: int = 1,
    parallelism: str = "ddp",
    calibration: Calibration | None = None,
    job: JobSize | None = None,
    grad_accum_steps: int = 1,
    serving: ServingLoad | None = None,
    with_advice: bool = True,
    network: NetworkSpec | None = None,
    compiled: bool = False,
    input_pipeline: InputPipeline | None = None,
) -> tuple[EstimateOutcome, ...]:
    """Estimate ``profile`` on each GPU (``count`` of them each), with advice where it does not fit.

    ``network``: what the user or the instance says about the links (default: datasheet facts
    and an assumed network, labelled); ``compiled``: the job runs under ``torch.compile``;
    ``input_pipeline``: the host CPUs of an image workload (None: assumed to keep up)."""
    cal = calibration or load_calibration()
    run = _Run(network=network, compiled=compiled, input_pipeline=input_pipeline)
    return tuple(
        _one(
            profile,
            gpu,
            count=count,
            parallelism=parallelism,
            cal=cal,
            job=job,
            grad_accum_steps=grad_accum_steps,
            serving=serving,
            with_advice=with_advice,
            run=run,
        )
        for gpu in gpus
    )
