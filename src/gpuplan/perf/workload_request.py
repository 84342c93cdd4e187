"""What the performance model needs from a workload spec: the estimate request, the job's size
and the serving load.

One place for it, so that ``gpuplan estimate`` and the planner size a job the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpuplan.perf.engine_cpu import UNKNOWN_ENGINE, EngineCpu, served_by
from gpuplan.perf.estimate import EstimateRequest, JobSize
from gpuplan.perf.input_pipeline import (
    Host,
    InputPipeline,
    dataset_reads,
    input_pipeline,
    typical_input_pipeline,
    typical_reads,
)
from gpuplan.perf.stages.layout import ModelParallel

if TYPE_CHECKING:
    from gpuplan.hardware import GPU
    from gpuplan.perf.anchor import StepMeasurement
    from gpuplan.perf.calibration import Calibration
    from gpuplan.perf.engines import EngineSettings
    from gpuplan.perf.links import Link
    from gpuplan.perf.request_tail import RequestTail
    from gpuplan.perf.sweep import ServingLoad
    from gpuplan.perf.typical_host import TypicalHost
    from gpuplan.profile.model import Profile
    from gpuplan.workload import Workload

__all__ = [
    "decodes_on_host",
    "engine_scheduler",
    "host_pipeline",
    "job_size",
    "model_parallel",
    "request_for",
    "request_on",
    "rereads_dataset",
    "serving_engine",
    "serving_load",
]


def request_for(
    workload: Workload,
    profile: Profile,
    gpu: GPU,
    *,
    count: int = 1,
    link: Link | None = None,
    calibration: Calibration | None = None,
    host: Host | None = None,
    typical_host: TypicalHost | None = None,
    measured_steps: tuple[StepMeasurement, ...] = (),
) -> EstimateRequest:
    """The estimate of ``profile`` (traced from ``workload``) on ``count`` × ``gpu``.

    The workload gives the parallelism (data, tensor, pipeline), the job size, the gradient accumulation and
    ``torch.compile``; the caller gives the GPU configuration and the calibration, the instance
    (``host``: its vCPUs and RAM per instance of ``host.gpus`` GPUs, :func:`host_pipeline`) and
    the workload's measured steps (``gpuplan measure``) that anchor it. The instance's vCPUs bound
    an image job's samples/s by what they decode (a service's requests arrive decoded); its RAM
    decides whether the dataset is re-read from disk each epoch (unknown RAM: a typical host's, at
    the slow end, where ``typical_host`` is given; else not re-read).
    ``typical_host``: where the instance's vCPUs are not known (no ``host``, or one without a vCPU
    count), the catalog's typical instance of ``gpu`` (``perf/typical_host.py``), whose vCPUs bound
    the slow end of an image job's range (the point and the fast end assume the pipeline keeps up).
    A host whose RAM is known but not its vCPUs is bounded by its disk alone (no catalog shipped
    with gpuplan lists one without the other).
    """
    calls = _denoiser_calls(workload, profile, gpu, calibration)
    pipeline = host_pipeline(workload, host if host is not None else Host(gpus=1.0))
    if pipeline is None and (host is None or host.vcpus is None) and workload.serving is None:
        stack = workload.software_stack
        job, data = job_size(workload), workload.data
        pipeline = typical_input_pipeline(
            workload.inputs.image_size,
            typical_host,
            kind=stack.input_pipeline.value,
            workers=stack.loader_workers,
            reads=typical_reads(
                data.size_gb if data is not None else None,
                job.samples if job is not None else None,
                job.epochs if job is not None else 1.0,
                typical_host,
            )
            if host is None or host.ram_gib is None
            else None,
        )
    return EstimateRequest(
        profile=profile,
        gpu=gpu,
        count=count,
        parallelism=str(workload.parallelism.value),
        model_parallel=model_parallel(workload),
        link=link,
        calibration=calibration,
        job=job_size(workload, calls),
        grad_accum_steps=workload.gradient_accumulation,
        compiled=workload.compile,
        cuda_graphs=workload.uses_cuda_graphs,
        input_pipeline=pipeline,
        serving_engine=serving_engine(workload),
        serving_scheduler=engine_scheduler(workload, gpu),
        serving_context_tokens=_request_tokens(workload),
        generated_tokens=workload.generated_tokens,
        measured_steps=measured_steps,
        # a service's replicas time-sharing a GPU (one GPU each: tensor parallelism is refused with it)
        gpu_share=workload.replicas_per_gpu,
        denoiser_calls=calls,
        call_batches=2 if workload.denoiser_calls is not None and workload.inputs.guidance else 1,
    )


def request_on(
    template: EstimateRequest, workload: Workload, gpu: GPU, *, count: int, link: Link | None
) -> EstimateRequest:
    """``template`` (:func:`request_for`'s request of ``workload`` on another GPU, with the same host)
    on ``count`` × ``gpu`` over ``link``: what depends on the GPU worked out again — the engine's
    scheduling (:func:`engine_scheduler`), the denoiser calls an image takes and the job's size in
    them — and the rest (parallelism, input pipeline, the workload's figures) kept."""
    calls = _denoiser_calls(workload, template.profile, gpu, template.calibration)
    return template.changed(
        gpu=gpu,
        count=count,
        link=link,
        serving_scheduler=engine_scheduler(workload, gpu),
        denoiser_calls=calls,
        job=job_size(workload, calls),
    )


def _denoiser_calls(workload: Workload, profile: Profile, gpu: GPU, calibration: Calibration | None) -> float:
    """The denoiser calls of the traced batch one generated image takes on ``gpu`` as a service's
    image counts them (:func:`gpuplan.perf.image_serving.image_calls`: a guided step one call of
    twice the batch), for a job's images as for a service's; 1 where nothing is generated."""
    from gpuplan.perf.image_serving import image_calls

    if workload.denoiser_calls is None:
        return 1.0
    calls = image_calls(workload, profile, gpu, calibration)
    return 1.0 if calls is None else calls


def _request_tokens(workload: Workload) -> int | None:
    """Tokens one request holds in the engine's KV cache: a service's prompt and answer, a batch
    generation job's prompt (``inputs.seq_len``) and answer; None for every other workload."""
    if workload.serves_traced_calls:
        return None  # one image: no KV cache
    if workload.serving is not None:
        return sum(workload.serving.tokens)
    generated = workload.generated_tokens
    return None if generated is None else (workload.inputs.seq_len or 0) + generated


def rereads_dataset(workload: Workload) -> bool:
    """Whether ``workload`` reads a dataset of known size more than once (a training job of more
    than one epoch), so that the instance's RAM decides whether it is read from disk each epoch."""
    job, data = job_size(workload), workload.data
    return (
        workload.serving is None
        and data is not None
        and bool(data.size_gb)
        and job is not None
        and job.epochs > 1
    )


def decodes_on_host(workload: Workload) -> bool:
    """Whether the instance's vCPUs bound ``workload`` where the workload does not say its
    workers: an image job (not a service) decoding in DataLoader workers on the CPUs."""
    stack = workload.software_stack
    return (
        workload.serving is None
        and workload.inputs.image_size is not None
        and stack.input_pipeline.value == "dataloader"
        and stack.loader_workers is None
    )


def serving_engine(workload: Workload) -> EngineCpu | None:
    """The engine whose CPU work each decode iteration of ``workload`` waits for: a service
    (``serving:``) runs in the engine its ``serving.engine`` names (``vllm==0.8.5``), at that
    version's figure and overlap (``perf/engine_cpu.served_by``); named without a version, or not
    named, it is taken not to overlap it (``perf/engine_cpu.UNKNOWN_ENGINE``); None for a plain
    generation loop. The estimate, the planner, the GPU-sharing plans and the serving simulation
    cost a service alike. A batch generation job (``inputs.output_tokens``) runs in an engine too,
    named nowhere: taken not to overlap it, as a service that names none."""
    serving = workload.serving
    if serving is None or workload.serves_traced_calls:
        return UNKNOWN_ENGINE if workload.generated_tokens is not None else None
    if serving.engine_name is None:
        return UNKNOWN_ENGINE
    return served_by(serving.engine_name, serving.engine_version)


def engine_scheduler(workload: Workload, gpu: GPU) -> EngineSettings | None:
    """How the engine of ``workload``'s service schedules a replica on ``gpu``: its defaults at the
    named version (``perf/engines.engine_defaults``; none named: the version ``deploy`` pins, as
    ``simulate`` takes it) — ``deploy`` leaves ``max_num_seqs`` and prefill chunking at them. None for a plain
    generation loop (no ``serving:``). A batch generation job (``inputs.output_tokens``) is
    scheduled as a service that names no engine: vLLM at the version its batch job runs."""
    from gpuplan.perf.engines import engine_defaults

    serving = workload.serving
    if serving is None or workload.serves_traced_calls:
        if workload.generated_tokens is None:
            return None
        return engine_defaults(gpu, None, None, tensor_parallel=workload.tensor_parallel)
    return engine_defaults(
        gpu, serving.engine_name, serving.engine_version, tensor_parallel=workload.tensor_parallel
    )


def host_pipeline(workload: Workload, host: Host) -> InputPipeline | None:
    """What feeds the GPUs of ``workload`` on ``host`` (the ``input_pipeline`` of its
    :func:`request_for`): its vCPUs for an image job, its disk where its RAM cannot cache a dataset
    read more than once; None when nothing bounds it (a service's requests arrive decoded)."""
    if workload.serving is not None:
        return None
    stack = workload.software_stack
    pipeline_kind, workers = stack.input_pipeline.value, stack.loader_workers
    job = job_size(workload)
    data = workload.data
    reads = dataset_reads(
        data.size_gb if data is not None else None,
        job.samples if job is not None else None,
        job.epochs if job is not None else 1.0,
        host,
    )
    return input_pipeline(workload.inputs.image_size, host, reads, kind=pipeline_kind, workers=workers)


def model_parallel(workload: Workload) -> ModelParallel:
    """The workload's tensor × pipeline split (``tensor_parallel``, ``pipeline_parallel`` …)."""
    return ModelParallel(
        tensor=workload.tensor_parallel,
        pipeline=workload.pipeline_parallel,
        virtual_stages=workload.pipeline_virtual_stages,
        sequence_parallel=workload.sequence_parallel,
        plan=workload.software_stack.tensor_parallel_plan,
    )


def job_size(workload: Workload, calls: float | None = None) -> JobSize | None:
    """Samples per epoch and epochs from ``data``; tokens count as ``tokens / seq_len`` sequences.
    ``calls``: the denoiser calls of the traced batch a generated image takes on the GPU estimated
    (:func:`_denoiser_calls`); None: the workload's own count (steps × 2 with guidance), for what
    needs only whether there is a job and its epochs.

    None when the workload says neither (an estimate then has no job time).
    """
    data = workload.data
    if data is None:
        return None
    if data.samples is not None:
        # an image generated by a denoiser is its calls of the traced batch, each a sample's step
        per_image = calls if calls is not None else workload.denoiser_calls or 1
        return JobSize(samples=data.samples * per_image, epochs=data.epochs)
    if data.tokens is not None and workload.inputs.seq_len:
        return JobSize(samples=data.tokens / workload.inputs.seq_len, epochs=data.epochs)
    return None


def serving_tail(workload: Workload) -> RequestTail | None:
    """The 95th-percentile request lengths a service's p95 targets are checked at (the serving
    block's ``prompt_tokens_p95`` and ``output_tokens_p95``, else its means × a published trace's
    ratios, :mod:`gpuplan.perf.request_tail`), or None without ``serving:``."""
    from gpuplan.perf.request_tail import request_tail

    s = workload.serving
    if s is None or workload.serves_traced_calls:
        return None
    return request_tail(
        prompt_tokens=s.tokens[0],
        output_tokens=s.tokens[1],
        prompt_tokens_p95=s.prompt_tokens_p95,
        output_tokens_p95=s.output_tokens_p95,
    )


def serving_load(workload: Workload) -> ServingLoad | None:
    """The request load of a language model's service (``serving:``), or None (an image service's
    request is no tokens: ``plan`` sizes it on its images)."""
    from gpuplan.perf.sweep import ServingLoad  # the sweeps (and the advisor) only where a service is sized

    s = workload.serving
    if s is None or workload.serves_traced_calls:
        return None
    tail = serving_tail(workload)
    assert tail is not None  # a service: serving_tail gives its lengths
    return ServingLoad(
        requests_per_s=s.requests_per_s,
        prompt_tokens=s.tokens[0],
        output_tokens=s.tokens[1],
        tail_prompt_tokens=tail.prompt_tokens,
        tail_output_tokens=tail.output_tokens,
        p95_latency_s=s.p95_latency_ms / 1000.0 if s.p95_latency_ms is not None else None,
        ttft_p95_s=s.ttft_p95_ms / 1000.0 if s.ttft_p95_ms is not None else None,
        tpot_p95_s=s.tpot_p95_ms / 1000.0 if s.tpot_p95_ms is not None else None,
    )
