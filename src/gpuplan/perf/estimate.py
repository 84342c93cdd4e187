"""Profile × GPU × count × parallelism → step time, throughput, job time and memory fit.

:func:`run_estimate` is five stages over one request (``perf/stages/``): the layout (which share of
the step one GPU runs, over which links), compute time, communication and its overlap, memory,
and the spread (the step's range). Here their results become one :class:`Estimate`.

The point estimate is the traced step on the workload's own software stack (``workload/stack.py``:
its kernels, layout, CUDA graphs and ``torch.compile``; :data:`SOFTWARE_LEVEL` in words where no
stack is given); the ranges add the calibration residuals, or for an unfitted prior the spread of
software stacks measured on the same model and GPU (:data:`SOFTWARE_SLOWER`, :data:`SOFTWARE_FASTER`,
in ``perf/stages/spread.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from gpuplan.errors import EstimateError
from gpuplan.hardware import GPU
from gpuplan.i18n import N_, _
from gpuplan.i18n.numbers import format_percent
from gpuplan.perf.anchor import AnchoredStep, StepMeasurement
from gpuplan.perf.calibration import Calibration
from gpuplan.perf.distribution import TimeDistribution
from gpuplan.perf.engine_cpu import EngineCpu
from gpuplan.perf.engines import EngineSettings
from gpuplan.perf.input_pipeline import HostInput, InputPipeline
from gpuplan.perf.links import Link
from gpuplan.perf.memory import MemoryEstimate
from gpuplan.perf.plausibility import Plausibility
from gpuplan.perf.roofline import PhaseTimes
from gpuplan.perf.stages.communication import Communication, communication
from gpuplan.perf.stages.compute import ComputeTime, compute_time, pipeline_bubble_fraction
from gpuplan.perf.stages.layout import Layout, ModelParallel, lay_out
from gpuplan.perf.stages.memory import GpuMemory, gpu_memory
from gpuplan.perf.stages.spread import (
    SOFTWARE_FASTER,
    SOFTWARE_SLOWER,
    StepSpread,
    bounded_step,
    gpu_spread,
    host_bound,
    time_spread,
)
from gpuplan.profile.model import Profile
from gpuplan.vocab import MemoryVerdict

if TYPE_CHECKING:
    from gpuplan.perf.inference import DecodeEstimate

__all__ = [
    "SOFTWARE_FASTER",
    "SOFTWARE_LEVEL",
    "SOFTWARE_SLOWER",
    "Estimate",
    "EstimateRequest",
    "GpuStages",
    "HostFinish",
    "JobSize",
    "estimate",
    "finish_estimate",
    "gpu_stages",
    "host_figures",
    "host_finish",
    "run_estimate",
    "time_spread",
]

#: What the point estimate assumes about the software stack when a caller does not say which: the
#: traced kernels as they are; a catalog message, so that a report can show it in the user's language.
SOFTWARE_LEVEL = N_(
    "the traced kernels as the workload's stack runs them (plain PyTorch unless its stack says "
    "otherwise), eager mode unless it sets compile: true, input pipeline not limiting unless bounded"
)


@dataclass(frozen=True, kw_only=True)
class JobSize:
    """How much data the job processes."""

    samples: float
    """Samples (sequences, images) per epoch."""
    epochs: float = 1.0


@dataclass(frozen=True, kw_only=True)
class EstimateRequest:
    """One estimate to make: a traced workload on a GPU configuration.

    The group travels together from the caller (API, planner, calibration fit) through
    :func:`run_estimate`, the sweep and the advisor.
    """

    profile: Profile
    """The traced workload; ``profile.batch_size`` is the per-GPU micro-batch (samples)."""
    gpu: GPU
    """The GPU model (datasheet entry)."""
    count: int = 1
    """Number of GPUs of that model (all ranks, over every node)."""
    parallelism: str = "ddp"
    """How the data-parallel replicas share the model: ``ddp``, ``zero1``/``zero2``/``zero3`` or ``fsdp``."""
    model_parallel: ModelParallel = field(default_factory=ModelParallel)
    """Tensor × pipeline split of each replica (Megatron-style); the data-parallel degree is
    ``count / (tensor · pipeline)``, and ``grad_accum_steps`` are the pipeline's micro-batches."""
    link: Link | None = None
    """The links joining the GPUs (NVLink/PCIe in a node, the network between nodes); None:
    :meth:`Link.for_gpus` (one node up to 8 GPUs, NVLink where the GPU has it)."""
    calibration: Calibration | None = None
    """The fitted efficiencies and bands; None: the calibration shipped in the package."""
    job: JobSize | None = None
    """How much data the job processes (samples × epochs); None: no job time, step figures only."""
    grad_accum_steps: int = 1
    """Micro-batches per optimizer step (the optimizer and DDP's all-reduce run once per that many)."""
    compiled: bool = False
    """The job runs under ``torch.compile`` (compute time ÷ :attr:`Calibration.compile_speedup`)."""
    cuda_graphs: bool | None = None
    """Whether steps replay captured CUDA graphs, so the CPU does not issue each kernel. None: yes
    for inference (decode, as serving engines run it), no for training (eager PyTorch)."""
    serving_engine: EngineCpu | None = None
    """The serving engine that runs an LLM's decode steps, whose CPU work between two steps the GPU
    waits for unless the engine overlaps it (``perf/engine_cpu.py``); None: a plain generation loop."""
    serving_scheduler: EngineSettings | None = None
    """That engine's scheduling defaults on this GPU (``perf/engines.py``): its cap on running
    sequences and whether prompts join the decode iterations; None: a plain generation loop. Given
    for a decoder traced for inference, the memory stage reads the engine's memory (its share of the
    GPU, ``perf/engine_memory.py``), not the traced forward pass's."""
    serving_context_tokens: int | None = None
    """Tokens of one of the service's requests (prompt + output), which the engine's KV cache must
    hold at least once; None: the traced sequence length."""
    generated_tokens: int | None = None
    """Batch generation (a decoder LLM's batch job, ``inputs.output_tokens``): tokens each sample
    generates after its prompt of ``profile.seq_len`` tokens. The step is then one batch of the
    traced batch size at the rate the serving model gives a replica that is always full
    (:func:`generation_step`), not the traced forward pass; None: the forward pass (an encoder's
    job, or one whose samples generate nothing)."""
    input_pipeline: InputPipeline | None = None
    """The host CPUs that decode an image workload's samples; the step is never faster than they
    feed it (a typical instance's, where the instance is unknown, bound the slow end only). None:
    nothing to bound (text, GPU-side decoding), or assumed to keep up."""
    measured_steps: tuple[StepMeasurement, ...] = ()
    """``gpuplan measure`` recordings of this workload: the estimate is anchored on the one
    :func:`perf.anchor.choose_measurement` picks for the GPU (``perf/anchor.py``)."""
    denoiser_calls: float = 1.0
    """Image generation with a denoiser (``inputs.denoising_steps``): the calls of the traced batch
    one image takes (``perf.image_serving.image_calls``: the steps, a guided one a call of twice the
    batch, in calls of the traced batch), as a service's image counts them. The job's samples are
    then images, its throughput images per second (a step is one call), the job size already
    counting the calls (``perf.workload_request.job_size``); 1: each sample one step."""
    call_batches: int = 1
    """Copies of the traced batch one denoiser call runs: 2 with classifier-free guidance
    (``inputs.guidance``: diffusers' pipelines concatenate the conditional and unconditional latents,
    ``torch.cat([latents] * 2)``, and run the denoiser once on them), whose activations the memory
    counts at that batch (``perf.stages.memory.gpu_memory``); 1 for every other workload."""
    gpu_share: int = 1
    """Replicas time-sharing each GPU (a service's ``share_gpu``): one replica, the step estimated,
    has 1/n of the GPU's usable memory for all of its own (its CUDA context included), as the
    serving model gives it (:func:`perf.inference.decode_estimate`)."""

    @property
    def replays_graphs(self) -> bool:
        """``cuda_graphs`` resolved: given, else inference yes and training no."""
        return self.cuda_graphs if self.cuda_graphs is not None else self.profile.task == "infer"

    @property
    def step_replays_graphs(self) -> bool:
        """Whether the traced step itself (not an engine's decode steps) replays CUDA graphs:
        :attr:`replays_graphs` for training; for inference only where ``cuda_graphs`` says so (the
        default's graphs are a serving engine's decode steps, ``perf/inference.py``: a forward pass
        of plain PyTorch issues every kernel from the CPU)."""
        if self.profile.task == "infer":
            return self.cuda_graphs is True
        return self.replays_graphs

    def changed(self, **changes: Any) -> EstimateRequest:
        """The same request with some fields replaced (``dataclasses.replace``)."""
        return replace(self, **changes)


@dataclass(frozen=True, kw_only=True)
class Estimate:
    """How one workload runs on ``gpu_count`` GPUs of one model. Times in seconds, memory in GiB."""

    gpu: str
    """Canonical GPU id."""
    gpu_count: int
    parallelism: str
    task: str
    fits: bool
    """Fits for certain: the high end of the memory band is within the GPU's usable memory
    (:attr:`memory_verdict` tells *may not fit* from *does not fit*)."""
    memory: MemoryEstimate
    step_time_s: float
    """One optimizer step of the global batch (all micro-batches of gradient accumulation)."""
    step_time_s_low: float
    step_time_s_high: float
    compute_time_s: float
    """Roofline time of the traced ops on one GPU per optimizer step."""
    comm_total_s: float
    """Every collective of one optimizer step, end to end, as if none overlapped compute."""
    comm_exposed_s: float
    """The communication compute does not hide, per optimizer step (part of ``step_time_s``)."""
    phases: PhaseTimes
    """Roofline time of one traced micro-batch step, by phase."""
    samples_per_step: int
    """Global batch: micro-batch × accumulation × GPUs."""
    throughput: float
    throughput_low: float
    throughput_high: float
    throughput_unit: str
    """``samples_per_s`` or ``tokens_per_s`` (sequence models)."""
    flops_per_step: float
    """Model FLOPs of the step ``step_time_s`` times, on all ``gpu_count`` GPUs: the traced FLOPs of
    one micro-batch (one GPU's share of it under tensor or pipeline parallelism) × the micro-batches
    of an optimizer step × the GPUs. Over ``step_time_s`` and ``gpu_count`` it is
    ``achieved_tflops``; over the GPUs' peak, the MFU."""
    achieved_tflops: float
    """Model FLOPs per second per GPU at the point estimate (traced FLOPs / step time)."""
    job_time_h: float | None
    job_time_h_low: float | None
    job_time_h_high: float | None
    step_time: TimeDistribution
    """The step time's distribution (seconds); ``step_time_s_low/high`` are its 10th/90th percentiles."""
    network_gbps: float
    """Inter-node network per node the estimate used, Gbit/s (what it would use on one node)."""
    network_source: str
    """``user``, ``catalog`` (the instance's entry) or ``assumed``."""
    network_gbps_slow_end: float | None = None
    """An unknown network between nodes: the slowest fabric the range's slow end is costed on,
    Gbit/s (:meth:`Link.slow_end`); None when the network is known or the job is on one node."""
    network_gbps_fast_end: float | None = None
    """The same for the range's fast end (:meth:`Link.fast_end`)."""
    tensor_parallel: int = 1
    pipeline_parallel: int = 1
    data_parallel: int = 1
    """Model replicas: ``gpu_count / (tensor_parallel · pipeline_parallel)``."""
    pipeline_bubble_fraction: float = 0.0
    """Share of the pipeline's time its stages idle (1F1B: ``(p−1)/(m+p−1)``)."""
    pipeline_bubble_s: float = 0.0
    """Idle time of a stage per optimizer step (part of ``step_time_s``)."""
    tensor_parallel_comm_s: float = 0.0
    """Tensor-parallel all-reduces per optimizer step, all exposed (part of ``comm_exposed_s``)."""
    pipeline_comm_s: float = 0.0
    """Stage-to-stage sends per optimizer step, exposed (part of ``comm_exposed_s``)."""
    optimizer_paging_s: float = 0.0
    """A paged optimizer's spilled state crossing PCIe in and out per optimizer step (part of
    ``step_time_s``; 0 when its state fits on the GPU)."""
    optimizer_s: float = 0.0
    """This GPU's optimizer step, seconds (part of ``compute_time_s``): its shard of the weights
    where the optimizer state is sharded (FSDP, ZeRO), all of them under DDP or on one GPU."""
    software_level: str = SOFTWARE_LEVEL
    link: str = ""
    """The link the communication was costed on; empty on one GPU."""
    input_bound: bool = False
    """The CPUs' decode and augmentation, not the GPUs, set the step time (image workloads)."""
    input_samples_per_s: float | None = None
    """Images/s the host CPUs feed all GPUs at the point rate; None when not checked (no images
    or vCPUs unknown)."""
    host_input: HostInput | None = None
    """The image job's decoding host the step was bounded by (the instance's, the workload's
    workers, or a typical instance of the GPU where none was named); None: nothing decodes on it."""
    anchored: AnchoredStep | None = None
    """The measured step the compute time is anchored on, and how it moved to this GPU; None
    when the estimate is the model's alone."""
    notes: tuple[str, ...] = field(default_factory=tuple)
    plausibility: Plausibility | None = None
    """The step checked against the datasheets and the generation's reference GPU
    (``perf/plausibility.py``); its ``flags`` are in ``notes`` too."""

    @property
    def comm_time_s(self) -> float:
        """Exposed communication (the name before ``comm_exposed_s``)."""
        return self.comm_exposed_s

    @property
    def samples_per_s(self) -> float:
        """Samples (sequences, images) per second over all GPUs at the point estimate."""
        return self.samples_per_step / self.step_time_s

    @property
    def tokens_per_s(self) -> float | None:
        """Tokens per second over all GPUs; None when the workload has no sequence."""
        return self.throughput if self.throughput_unit == "tokens_per_s" else None

    @property
    def job_time(self) -> TimeDistribution | None:
        """The job time's distribution (hours), None without a job size."""
        if self.job_time_h is None:
            return None
        return self.step_time.scaled(self.job_time_h / self.step_time_s)

    def time_quantile(self, p: float) -> float:
        """The ``p``-quantile of the job time in hours (of the step time in seconds without a job)."""
        dist = self.job_time or self.step_time
        return dist.quantile(p)

    def prob_time_exceeds(self, t: float) -> float:
        """P(job time > ``t`` hours) (step time > ``t`` seconds without a job size)."""
        dist = self.job_time or self.step_time
        return dist.prob_exceeds(t)

    @property
    def memory_verdict(self) -> MemoryVerdict:
        """*fits*, *may not fit* or *does not fit*, on the whole memory band (:class:`MemoryEstimate`)."""
        return self.memory.verdict

    @property
    def peak_memory_gib(self) -> float:
        return self.memory.peak_memory_gib

    @property
    def peak_memory_gib_low(self) -> float:
        return self.memory.peak_memory_gib_low

    @property
    def peak_memory_gib_high(self) -> float:
        return self.memory.peak_memory_gib_high


def estimate(
    profile: Profile,
    gpu: GPU,
    *,
    count: int = 1,
    parallelism: str = "ddp",
    link: Link | None = None,
    calibration: Calibration | None = None,
    job: JobSize | None = None,
    grad_accum_steps: int = 1,
    compiled: bool = False,
) -> Estimate:
    """Estimate one workload (its traced ``profile``) on ``count`` GPUs of model ``gpu``.

    The keyword form of :func:`run_estimate`; each argument is the :class:`EstimateRequest`
    field of the same name.
    """
    return run_estimate(
        EstimateRequest(
            profile=profile,
            gpu=gpu,
            count=count,
            parallelism=parallelism,
            link=link,
            calibration=calibration,
            job=job,
            grad_accum_steps=grad_accum_steps,
            compiled=compiled,
        )
    )


def run_estimate(request: EstimateRequest) -> Estimate:
    """Estimate ``request.profile`` on ``request.count`` GPUs of model ``request.gpu``.

    ``profile.batch_size`` is the per-GPU micro-batch. With ``grad_accum_steps`` > 1 the optimizer
    (and DDP's all-reduce) runs once per that many micro-batches.
    """
    return finish_estimate(gpu_stages(request), request)


@dataclass(frozen=True)
class GpuStages:
    """The stages of an estimate that the host does not enter (:func:`gpu_stages`)."""

    layout: Layout
    compute: ComputeTime
    comm: Communication
    memory: GpuMemory
    spread: StepSpread
    """The step and its range on the GPUs alone, before any host bounds it (:func:`gpu_spread`)."""


def gpu_stages(request: EstimateRequest, like: GpuStages | None = None) -> GpuStages:
    """The stages of :func:`run_estimate` that do not read the host's input pipeline
    (``request.input_pipeline``): offers of one GPU shape on different hosts share them (the
    planner asks about thousands of offers and a few thousand shapes).

    ``like``: the stages of a request that differs from ``request`` at most in its link (the
    network between the nodes, the GPUs per node) and its input pipeline; its compute and memory
    stages, which read neither, are reused (the same GPUs over many networks share them).
    """
    # Which share of the step one GPU runs, over which links (the share itself, ``like``'s).
    layout = lay_out(request, None if like is None else like.layout)
    # That share on the roofline, through the pipeline schedule.
    compute = compute_time(layout) if like is None else like.compute
    comm = communication(layout, compute)  # the collectives and what of them compute hides
    memory = gpu_memory(layout) if like is None else like.memory  # what one GPU holds as the run shards it
    spread = gpu_spread(layout, compute, comm, memory)  # the step's point and 80 % range on the GPUs
    if request.generated_tokens is not None:
        spread = generation_step(layout, spread)  # prefill and decode, as an engine runs a batch job
    return GpuStages(layout, compute, comm, memory, spread)


def generation_step(layout: Layout, forward: StepSpread) -> StepSpread:
    """The step of a batch generation job (:attr:`EstimateRequest.generated_tokens`): one batch of
    the traced batch size per copy of the model, at the requests per second a copy completes when
    always full (:attr:`perf.inference.ServingEstimate.capacity_requests_per_s`: each request's
    prompt at the prefill rate, then its tokens decoded with continuous batching at the KV cache's
    concurrency under the engine's cap), as the batch job ``gpuplan deploy`` writes keeps its engine
    fed (more requests in flight than the engine runs). ``forward``: the traced forward pass's step,
    whose range (the calibration's band) the generation step keeps in proportion: the decode model
    has no band of its own."""
    request = layout.request
    out = request.generated_tokens
    prompt = request.profile.seq_len
    if out is None or not prompt or request.profile.shape.family != "decoder":
        raise EstimateError.worded(
            N_(
                "inputs.output_tokens: only a decoder LLM generates tokens after its prompt ({workload!r} "
                "is not one, or has no inputs.seq_len); leave output_tokens out"
            ),
            workload=request.profile.workload_name,
        )
    from gpuplan.perf.inference import serving_estimate  # lazy: only a generation job decodes

    # each running request holds its prompt and answer
    dec = request_decode(request, context_tokens=prompt + out)
    full = serving_estimate(dec, requests_per_s=0.0, prompt_tokens=prompt, output_tokens=out)
    rate = full.capacity_requests_per_s
    batch = request.profile.batch_size
    step = batch / rate if rate > 0 else math.inf
    k = step / forward.step_s if forward.step_s > 0 else 1.0
    note = _(
        "batch generation: {prompt:,} prompt and {out:,} generated tokens a sample, run as an engine "
        "runs them (prefill, then decode with continuous batching at up to {slots:,} sequences, the KV "
        "cache's limit under the engine's cap): {rate:.3g} samples/s per copy of the model, so a step "
        "of {batch} samples takes {step:.3g} s; its range is the forward pass's, in proportion"
    ).format(
        prompt=prompt,
        out=out,
        slots=max(1, dec.max_concurrent_sequences),
        rate=rate,
        batch=batch,
        step=step,
    )
    return replace(
        forward, step_s=step, low_s=forward.low_s * k, high_s=forward.high_s * k, notes=(*forward.notes, note)
    )


def request_decode(
    request: EstimateRequest, *, context_tokens: int | None, replicas_per_gpu: int = 1
) -> DecodeEstimate:
    """:func:`perf.inference.decode_estimate` of ``request``'s profile on its GPUs as it runs them:
    its tensor parallelism and link, calibration, CUDA graphs, ``torch.compile``, engine and
    scheduler, each running sequence holding ``context_tokens`` (None: the traced length)."""
    from gpuplan.perf.inference import decode_estimate

    return decode_estimate(
        request.profile,
        request.gpu,
        calibration=request.calibration,
        tensor_parallel=request.model_parallel.tensor,
        link=request.link,
        cuda_graphs=request.replays_graphs,
        compiled=request.compiled,
        engine=request.serving_engine,
        scheduler=request.serving_scheduler,
        context_tokens=context_tokens,
        replicas_per_gpu=replicas_per_gpu,
    )


def finish_estimate(stages: GpuStages, request: EstimateRequest) -> Estimate:
    """The estimate of ``request`` from ``stages`` computed for a request that differs from it at
    most in ``input_pipeline``: the step's spread, bounded by what the host decodes."""
    layout = stages.layout if stages.layout.request is request else replace(stages.layout, request=request)
    spread = _host_spread(stages, request.input_pipeline)
    return _estimate(layout, stages.compute, stages.comm, stages.memory, spread)


@dataclass(frozen=True, kw_only=True)
class HostFinish:
    """What one host makes of an estimate's GPU stages (:func:`host_finish`): the fields of the
    :class:`Estimate` :func:`finish_estimate` would give that a host can change."""

    spread: StepSpread
    """The step and its range, bounded by the host's input pipeline (without the host's notes)."""
    job_time_h: float | None
    job_time_h_low: float | None
    job_time_h_high: float | None
    stages: GpuStages
    pipeline: InputPipeline | None

    @property
    def notes(self) -> tuple[str, ...]:
        """:attr:`Estimate.notes`, worded when read (the planner shows few of the hosts it asks about)."""
        stages = self.stages
        spread = _host_spread(stages, self.pipeline)
        return _notes(stages.layout, stages.compute, stages.comm, stages.memory, spread)


def host_finish(stages: GpuStages, pipeline: InputPipeline | None) -> HostFinish:
    """The host-dependent part of ``finish_estimate(stages, request)`` for a request whose
    ``input_pipeline`` is ``pipeline``, without building the whole :class:`Estimate`: the
    planner asks this about every host a GPU shape is offered on."""
    spread = _host_spread(stages, pipeline, worded=False)
    job_h, job_low, job_high = _job_hours(stages.layout, spread)
    return HostFinish(
        spread=spread,
        job_time_h=job_h,
        job_time_h_low=job_low,
        job_time_h_high=job_high,
        stages=stages,
        pipeline=pipeline,
    )


def host_figures(
    stages: GpuStages, pipeline: InputPipeline | None
) -> tuple[float, bool, float | None, float | None, float | None]:
    """The figures of ``host_finish(stages, pipeline)`` alone: the step (s), whether the host
    bounds it, and the job's hours at the step's point, low and high ends (None each without a job
    size). No :class:`HostFinish` is built: the planner asks this about every host a GPU shape is
    offered on and calls :func:`host_finish` for the few it words."""
    layout, spread = stages.layout, stages.spread
    if pipeline is None:
        step_s, low_s, high_s, input_bound = spread.step_s, spread.low_s, spread.high_s, spread.input_bound
    else:
        step_s, low_s, high_s, input_bound, _rate = bounded_step(
            spread, layout.samples_per_step, layout.count, pipeline
        )
    return (step_s, input_bound, *_hours(layout, step_s, low_s, high_s))


def _host_spread(stages: GpuStages, pipeline: InputPipeline | None, *, worded: bool = True) -> StepSpread:
    layout = stages.layout
    return host_bound(stages.spread, layout.samples_per_step, layout.count, pipeline, worded=worded)


def _job_hours(layout: Layout, spread: StepSpread) -> tuple[float | None, float | None, float | None]:
    """The job's hours at the step's point, low and high ends; None each without a job size."""
    return _hours(layout, spread.step_s, spread.low_s, spread.high_s)


def _hours(
    layout: Layout, step_s: float, low_s: float, high_s: float
) -> tuple[float | None, float | None, float | None]:
    job = layout.request.job
    if job is None:
        return None, None, None
    samples = layout.samples_per_step
    per_sample = layout.local.seq_len if layout.local.seq_len else 1
    # Each data-parallel rank reads its share of an epoch (a DistributedSampler pads the last one):
    # 1 sample takes as long on 64 GPUs as on one, not 1/64 of it.
    dp = max(1, layout.data_parallel)
    total = math.ceil(job.samples / dp) * dp * job.epochs * per_sample
    throughput = samples * per_sample / step_s
    return (
        total / throughput / 3600.0,
        total / (samples * per_sample / low_s) / 3600.0,
        total / (samples * per_sample / high_s) / 3600.0,
    )


def _notes(
    layout: Layout, compute: ComputeTime, comm: Communication, memory: GpuMemory, spread: StepSpread
) -> tuple[str, ...]:
    # In the order a reader meets them: the layout, the time and its range, the memory; the
    # network assumption last, as it ends with what to give instead.
    waiting: tuple[str, ...] = ()
    if spread.step_s > 0 and comm.exposed_s > 0.5 * spread.step_s:
        # The table shows a step time; a step mostly spent waiting on collectives is said in words.
        waiting = (
            _(
                "communication not hidden behind compute takes {share} of the step ({comm:.3g} s of "
                "{step:.3g} s): more GPUs add little here unless the network is faster"
            ).format(
                share=format_percent(comm.exposed_s / spread.step_s), comm=comm.exposed_s, step=spread.step_s
            ),
        )
    return (
        *_denoiser_note(layout.request),
        *layout.notes,
        *compute.notes,
        *spread.notes,
        *memory.notes,
        *waiting,
        *layout.network_notes,
    )


def _denoiser_note(request: EstimateRequest) -> tuple[str, ...]:
    """What an image generated by a denoiser counts (``denoiser_calls`` > 1): the step is one
    denoiser call, an image that many."""
    if request.denoiser_calls <= 1:
        return ()
    return (
        _(
            "image generation: the step time is one denoiser call of the traced batch, an image "
            "{calls} of them (inputs.denoising_steps; with guidance a step is one call of twice the "
            "batch, timed by the roofline's ratio to the traced call, as a service's image); "
            "throughput and job time are in images. The text encoders and the VAE decoder are not "
            "counted unless your model includes them"
        ).format(calls=f"{request.denoiser_calls:.3g}"),
    )


def _estimate(
    layout: Layout, compute: ComputeTime, comm: Communication, memory: GpuMemory, spread: StepSpread
) -> Estimate:
    """The stages' results as one :class:`Estimate`: throughput and job time from the step."""
    profile, mp, link = layout.local, layout.model_parallel, layout.link
    unknown_network = not link.network_known and link.nodes > 1
    spans = (
        (link.slow_end().network_gbit_s, link.fast_end().network_gbit_s) if unknown_network else (None, None)
    )
    step_s, step_low, step_high = spread.step_s, spread.low_s, spread.high_s
    samples = layout.samples_per_step
    # tokens a sample goes through: its prompt, and what it generates in a batch generation job
    per_sample = (profile.seq_len or 1) + (layout.request.generated_tokens or 0)
    # a generated image takes its denoiser calls: images/s, not calls/s
    calls = layout.request.denoiser_calls
    throughput = samples * per_sample / step_s / calls
    job_h, job_low, job_high = _job_hours(layout, spread)
    mem = memory.memory
    return Estimate(
        gpu=layout.gpu.id,
        gpu_count=layout.count,
        parallelism=layout.parallelism,
        task=profile.task,
        fits=mem.fits,
        memory=mem,
        step_time_s=step_s,
        step_time_s_low=step_low,
        step_time_s_high=step_high,
        compute_time_s=compute.compute_s,
        optimizer_s=compute.optimizer_s,
        comm_total_s=comm.total_s,
        comm_exposed_s=comm.exposed_s,
        phases=compute.phases,
        samples_per_step=samples,
        throughput=throughput,
        throughput_low=samples * per_sample / step_high / calls,
        throughput_high=samples * per_sample / step_low / calls,
        throughput_unit="tokens_per_s" if profile.seq_len else "samples_per_s",
        flops_per_step=profile.flops_per_step * layout.microbatches * layout.count,
        achieved_tflops=profile.flops_per_step * layout.microbatches / step_s / 1e12,
        job_time_h=job_h,
        job_time_h_low=job_low,
        job_time_h_high=job_high,
        step_time=TimeDistribution.from_interval(step_s, step_low, step_high),
        network_gbps=link.network_gbit_s,
        network_source=link.network_source,
        network_gbps_slow_end=spans[0],
        network_gbps_fast_end=spans[1],
        tensor_parallel=mp.tensor,
        pipeline_parallel=mp.pipeline,
        data_parallel=layout.data_parallel,
        pipeline_bubble_fraction=pipeline_bubble_fraction(mp, layout.microbatches),
        pipeline_bubble_s=comm.pipeline_bubble_s,
        tensor_parallel_comm_s=comm.tensor_parallel_step_s,
        pipeline_comm_s=comm.pipeline_send_step_s,
        optimizer_paging_s=memory.paging_s,
        link=link.describe() if layout.count > 1 else "",
        input_bound=spread.input_bound,
        input_samples_per_s=spread.input_samples_per_s,
        host_input=spread.host_input,
        anchored=compute.anchored,
        notes=_notes(layout, compute, comm, memory, spread),
        plausibility=compute.plausibility,
    )
