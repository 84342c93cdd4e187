"""Profile × GPU × count × parallelism → step time, throughput, job time and memory fit.

The point estimate assumes :data:`SOFTWARE_LEVEL`; the ranges add the calibration residuals and
the spread of software stacks measured on the same model and GPU (:data:`SOFTWARE_SLOWER`,
:data:`SOFTWARE_FASTER`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from gpuplan.errors import EstimateError
from gpuplan.hardware import GPU
from gpuplan.i18n import N_, _
from gpuplan.perf.calibration import Calibration, load_calibration
from gpuplan.perf.comm import comm_time
from gpuplan.perf.distribution import TimeDistribution
from gpuplan.perf.input_pipeline import InputPipeline
from gpuplan.perf.memory import MemoryEstimate
from gpuplan.perf.model_parallel import (
    ModelParallel,
    check_model_parallel,
    data_parallel_link,
    local_profile,
    pipeline_bubble_fraction,
    stage_p2p_s,
    tensor_parallel_comm_s,
)
from gpuplan.perf.parallel import Link, check_parallelism
from gpuplan.perf.per_gpu import MemoryRequest, per_gpu_memory
from gpuplan.perf.plausibility import Plausibility, check, power_floor, unseen_architecture_note
from gpuplan.perf.roofline import FP32_FROM_FP16_RATIO, PhaseTimes, is_causal, phase_times
from gpuplan.profile.model import Profile

__all__ = [
    "SOFTWARE_FASTER",
    "SOFTWARE_LEVEL",
    "SOFTWARE_SLOWER",
    "Estimate",
    "EstimateRequest",
    "JobSize",
    "estimate",
    "run_estimate",
    "time_spread",
]

#: What the point estimate assumes about the user's software stack (the calibration data's level);
#: a catalog message, so that a report can show it in the user's language.
SOFTWARE_LEVEL = N_(
    "NGC-container-level kernels: cuDNN (channels_last for CNNs under AMP), fused (flash) attention, "
    "fused layer norms and optimizers, eager mode unless the workload sets compile: true, input pipeline "
    "not limiting"
)
#: How much slower a less tuned stack runs the same model on the same GPU: NVIDIA's own ResNet-50
#: AMP on V100 went from 893 (pytorch-19.10) to 1200 img/s (later NGC): 1200 / 893 = 1.34.
SOFTWARE_SLOWER = 1200.0 / 893.0
#: How much faster a more tuned stack runs it: torchtune Llama-3.2-3B full fine-tune on A100 went
#: from 7075 to 8998 tokens/s with torch.compile: 8998 / 7075 = 1.27.
SOFTWARE_FASTER = 8998.0 / 7075.0


def time_spread(cal: Calibration) -> tuple[float, float]:
    """(faster, slower): factors that bound compute time below and above the point estimate.

    The model's own error (the calibration band) and the software spread are independent, so
    they add in quadrature on a log scale: exp(√(ln² band + ln² software)).
    """
    band = math.log(cal.time_band)
    faster = math.exp(math.hypot(band, math.log(SOFTWARE_FASTER)))
    slower = math.exp(math.hypot(band, math.log(SOFTWARE_SLOWER)))
    return faster, slower


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
    cuda_graphs: bool = True
    """Inference: decode steps replay CUDA graphs (serving engines); False: the CPU issues each kernel."""
    input_pipeline: InputPipeline | None = None
    """The host CPUs that decode an image workload's samples; the step is never faster than they
    feed it. None: assumed to keep up (text, or the instance's vCPUs unknown)."""

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
    """Whether the per-GPU peak (nvidia-smi view) fits the GPU's usable memory."""
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
    software_level: str = SOFTWARE_LEVEL
    link: str = ""
    """The link the communication was costed on; empty on one GPU."""
    input_bound: bool = False
    """The CPUs' decode and augmentation, not the GPUs, set the step time (image workloads)."""
    input_samples_per_s: float | None = None
    """Images/s the host CPUs feed all GPUs at the point rate; None when not checked (no images
    or vCPUs unknown)."""
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
    profile, gpu, count, parallelism = request.profile, request.gpu, request.count, request.parallelism
    job, grad_accum_steps, compiled = request.job, request.grad_accum_steps, request.compiled
    calibration, link = request.calibration, request.link
    check_parallelism(parallelism)
    if count < 1:
        raise EstimateError.worded(N_("GPU count must be at least 1, got {count}"), count=count)
    if grad_accum_steps < 1:
        raise EstimateError.worded(
            N_("gradient accumulation steps must be at least 1, got {steps}"), steps=grad_accum_steps
        )
    cal = (calibration or load_calibration()).for_gpu(gpu.id, gpu.architecture)
    link = link or Link.for_gpus(gpu, count)
    if link.gpu_count < count:
        raise EstimateError.worded(
            N_("the link joins {joined} GPUs but the estimate asks for {count}"),
            joined=link.gpu_count,
            count=count,
        )
    mp = request.model_parallel
    dp = check_model_parallel(
        mp, profile, count=count, gpus_per_node=link.gpus_per_node, microbatches=grad_accum_steps
    )
    whole, profile = profile, local_profile(profile, mp, microbatches=grad_accum_steps)
    dp_link = data_parallel_link(link, mp, dp)
    notes: list[str] = []
    if mp.active:
        notes.append(
            _("{layout} DP={dp}: each GPU runs 1/{degree} of the model (Megatron-style)").format(
                layout=mp.describe(), dp=dp, degree=mp.degree
            )
        )
    if (measured := cal.measurement(gpu.id)) is not None:
        notes.append(measured.describe())
    if gpu.fp32_tflops is None and gpu.fp16_tflops is not None:
        notes.append(
            _("{gpu}: no published FP32 peak; taken as {ratio:.2f} × its FP16 tensor peak").format(
                gpu=gpu.id, ratio=FP32_FROM_FP16_RATIO
            )
        )

    phases = phase_times(
        profile.ops, gpu, profile.precision, cal, causal=is_causal(profile), seq_len=profile.seq_len
    )
    # The physical bounds (perf/plausibility.py): a lower-power part of a chip no faster than the
    # full-power one; the step checked against the datasheets and the generation's reference GPU.
    phases, power_note = power_floor(profile, gpu, cal, phases)
    base_cal = calibration or load_calibration()
    plausible = check(profile, gpu, base_cal, phases.total_s)
    notes += [n for n in (unseen_architecture_note(gpu, base_cal), power_note) if n]
    notes += plausible.flags
    host_us = cal.host_overhead_us * 1e-6
    optimizer_s = phases.optimizer_s
    if parallelism != "ddp" and dp > 1:
        optimizer_s /= dp  # each rank updates only its shard
    # Eager PyTorch issues ops from the CPU while the GPU runs earlier ones: a phase takes the
    # longer of the GPU's work and the CPU's issuing (host-bound at small batches).
    optimizer_s = max(optimizer_s, phases.optimizer_calls * host_us)
    micro_s = max(
        phases.forward_s + phases.backward_s, (phases.forward_calls + phases.backward_calls) * host_us
    )
    if micro_s > phases.forward_s + phases.backward_s:
        notes.append(_("host-bound: the CPU issues ops slower than the GPU runs them (small batch)"))
    # 1F1B: m micro-batches take (m + (p−1)/v) stage times; each stage time carries its exposed
    # tensor-parallel all-reduces and stage-to-stage sends (SC21 §2.2–2.3; perf/model_parallel.py).
    stages = grad_accum_steps + (mp.pipeline - 1) / mp.virtual_stages
    tp_s, p2p_s = tensor_parallel_comm_s(whole, mp, link), stage_p2p_s(whole, mp, link)
    compute_s = stages * micro_s + optimizer_s
    if compiled:
        # torch.compile fuses the elementwise ops and cuts launches: one factor on the compute.
        compute_s /= cal.compile_speedup
        notes.append(
            _("compile: true — compute time ÷ {speedup:g} (torch.compile speed-up)").format(
                speedup=cal.compile_speedup
            )
        )
        if profile.compile_saving_bytes > 0:
            notes.append(
                _(
                    "compile: true — {gib:.1f} GiB less memory at the traced peak (what AOTAutograd's "
                    "partitioner keeps for backward, measured on the model's blocks and loss)"
                ).format(gib=profile.compile_saving_bytes / 2**30)
            )
    overlap = cal.overlap_cost
    comm = comm_time(
        profile,
        phases,
        parallelism,
        dp_link,
        world=dp,
        grad_accum_steps=grad_accum_steps,
        overlap_cost=overlap,
    )
    slow_link = data_parallel_link(link.slow_end(), mp, dp)
    slow = comm_time(
        profile,
        phases,
        parallelism,
        slow_link,
        world=dp,
        grad_accum_steps=grad_accum_steps,
        overlap_cost=overlap,
    )
    mp_comm_s = stages * (tp_s + p2p_s)
    comm_s, comm_slow_s = comm.exposed_s + mp_comm_s, slow.exposed_s + mp_comm_s
    step_s = compute_s + comm_s
    if step_s <= 0:
        raise EstimateError.worded(
            N_("profile {workload!r} has no timed ops; re-trace the workload"), workload=profile.workload_name
        )

    half = cal.time_log_halfwidth_for(gpu.architecture, profile.shape.family)
    if half is None:  # an unfitted prior: its residual band ⊕ the software spread
        faster, slower = time_spread(cal)
        step_low = compute_s / faster + comm_s
        step_high = compute_s * slower + comm_slow_s
    else:
        # The 80 % split-conformal interval of the held-out residuals (the slow end of an assumed
        # network on top: the residuals never saw that network).
        step_low = step_s / math.exp(half)
        step_high = step_s * math.exp(half) + (comm_slow_s - comm_s)
        if half > (cal.time_log_halfwidth or half):
            notes.append(
                _(
                    "{architecture} or a {family} model has no calibration rows: the range is the "
                    "leave-one-architecture-out one (wider)"
                ).format(architecture=gpu.architecture, family=profile.shape.family)
            )

    samples = profile.batch_size * grad_accum_steps * dp
    feed_s: float | None = None
    input_bound = False
    if (pipe := request.input_pipeline) is not None:
        # The DataLoader workers prefetch while the GPUs compute, so the step takes the longer of
        # the two: samples ÷ images/s of all the hosts' vCPUs. E.g. ResNet-50 at 256 images per
        # GPU on 8 GPUs with 12 vCPUs each: 2048 ÷ (96 × 100) = 0.213 s per step at least.
        point, low, high = pipe.samples_per_s(count)
        feed_s = point
        input_bound = samples / point > step_s
        step_s = max(step_s, samples / point)
        step_low = max(step_low, samples / high)
        step_high = max(step_high, samples / low)
        said = pipe.describe(count)
        if input_bound:
            notes.append(
                _("input-bound: the host feeds {rate:,.0f} samples/s, slower than the GPUs ({said})").format(
                    rate=point, said=said
                )
            )
        elif step_high == samples / low:
            notes.append(_("may be input-bound at the slow end of the CPU rate ({said})").format(said=said))
    per_sample = profile.seq_len if profile.seq_len else 1
    unit = "tokens_per_s" if profile.seq_len else "samples_per_s"
    throughput = samples * per_sample / step_s

    job_h = job_low = job_high = None
    if job is not None:
        total = job.samples * job.epochs * per_sample
        job_h = total / throughput / 3600.0
        job_low = total / (samples * per_sample / step_low) / 3600.0
        job_high = total / (samples * per_sample / step_high) / 3600.0

    mem = per_gpu_memory(profile, gpu, MemoryRequest(parallelism, dp, count, cal.memory_band), notes)
    if not link.network_known and link.nodes > 1:
        notes.append(
            _(
                "inter-node network assumed {gbit_s:g} Gbit/s {kind} (range down to 100 Gbit/s TCP); "
                "give --network-gbps or --instance"
            ).format(gbit_s=link.network_gbit_s, kind=link.network_kind)
        )

    return Estimate(
        gpu=gpu.id,
        gpu_count=count,
        parallelism=parallelism,
        task=profile.task,
        fits=mem.fits,
        memory=mem,
        step_time_s=step_s,
        step_time_s_low=step_low,
        step_time_s_high=step_high,
        compute_time_s=compute_s,
        comm_total_s=comm.total_s + mp_comm_s,
        comm_exposed_s=comm_s,
        phases=phases,
        samples_per_step=samples,
        throughput=throughput,
        throughput_low=samples * per_sample / step_high,
        throughput_high=samples * per_sample / step_low,
        throughput_unit=unit,
        achieved_tflops=profile.flops_per_step * grad_accum_steps / step_s / 1e12,
        job_time_h=job_h,
        job_time_h_low=job_low,
        job_time_h_high=job_high,
        step_time=TimeDistribution.from_interval(step_s, step_low, step_high),
        network_gbps=link.network_gbit_s,
        network_source=link.network_source,
        tensor_parallel=mp.tensor,
        pipeline_parallel=mp.pipeline,
        data_parallel=dp,
        pipeline_bubble_fraction=pipeline_bubble_fraction(mp, grad_accum_steps),
        pipeline_bubble_s=(stages - grad_accum_steps) * (micro_s + tp_s + p2p_s),
        tensor_parallel_comm_s=stages * tp_s,
        pipeline_comm_s=stages * p2p_s,
        link=link.describe() if count > 1 else "",
        input_bound=input_bound,
        input_samples_per_s=feed_s,
        notes=tuple(notes),
        plausibility=plausible,
    )
