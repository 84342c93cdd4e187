"""The estimate document: what ``gpuplan estimate --json`` writes, one row per GPU configuration.

A GPU that cannot run the workload (e.g. FP8 on an A100) has ``error`` set and null figures.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gpuplan.documents.base import Document
from gpuplan.vocab import MemoryVerdict

__all__ = [
    "ESTIMATE_SCHEMA_VERSION",
    "AdviceItem",
    "AnchoredDoc",
    "CalibrationSummary",
    "DecodeDoc",
    "EstimateDocument",
    "EstimateRow",
    "EstimateWorkload",
    "GapCauseDoc",
    "GpuPriceDoc",
    "InputHostDoc",
    "LaunchCheckpointsDoc",
    "MemoryDoc",
    "NetworkForStepDoc",
    "ScalingBoundDoc",
    "ScalingDoc",
    "ScalingGapDoc",
    "ServingDoc",
    "StackDoc",
    "StackLevelFigures",
]

#: 2: the workload's ``flops_per_step`` (one micro-batch's, which a reader divided by an optimizer
#: step's time) is ``flops_per_micro_batch``; each row's ``flops_per_step`` is the optimizer step's.
#: 3: each row's ``job_time_h`` (and its band) includes the checkpoints the launch's train.py writes,
#: as ``plan``'s does off spot; the steps alone are ``compute_time_h``, the writes
#: ``checkpoint_writes_h``, and the document's ``checkpoints`` says their size, interval and bandwidth.
#: 4: ``scaling_gap`` gives the job's time at a measured rate (``measured_compute_time_h``,
#: ``measured_job_time_h``), and ``scaling`` each GPU's optimizer step beside one GPU's
#: (``optimizer_s``, ``one_gpu_optimizer_s``: why a sharded optimizer scales past the GPU count).
#: 5: ``scaling_gap.causes`` are ranked by ``fit`` (how near each comes to the gap), not by the seconds
#: their bound adds; ``share_of_gap`` is no longer capped at 1; ``network_gbps`` is the rate between
#: the nodes that gives the measured step.
ESTIMATE_SCHEMA_VERSION = 5


class EstimateWorkload(Document):
    """What was traced: the workload's identity and size."""

    name: str
    task: str
    precision: str
    attention: str = "fused"
    """``fused`` (one SDPA kernel, no s×s scores kept), ``eager`` (scores materialised, fp32 softmax) or
    ``fused-softmax`` (scores materialised, one fused 16-bit softmax kernel: Megatron-LM 2021)."""
    params: int = Field(ge=0)
    trainable_params: int = Field(ge=0)
    flops_per_micro_batch: float | None
    """FLOPs of one micro-batch (``batch_size`` samples) through the whole model: a training step's
    forward, backward and optimizer, or an inference batch's forward. Not an optimizer step's: each
    estimate's ``flops_per_step`` counts its micro-batches and GPUs."""
    batch_size: int = Field(ge=1)
    seq_len: int | None
    parallelism: str
    gradient_accumulation: int = Field(ge=1)
    tensor_parallel: int = Field(default=1, ge=1)
    pipeline_parallel: int = Field(default=1, ge=1)


class CalibrationSummary(Document):
    """Which calibration the figures use and how far off it is: in-sample (on its own data) and
    held out — by publisher (each row predicted by a fit on the other publishers' rows: the accuracy
    figure) and k-fold (each row predicted by a fit that never saw it, but saw its publisher)."""

    source: str
    fitted_on: str | None
    median_abs_error_pct: float | None
    """In-sample."""
    worst_abs_error_pct: float | None
    """In-sample."""
    lopo_median_abs_error_pct: float | None = None
    """Leave-one-publisher-out; None for a calibration fitted before the grouped figures."""
    lopo_worst_abs_error_pct: float | None = None
    lopo_band_coverage: float | None = None
    """Share of rows inside the 80 % band built from the other publishers' residuals."""
    publishers: int | None = None
    kfold_median_abs_error_pct: float | None = None
    kfold_worst_abs_error_pct: float | None = None
    band_coverage: float | None = None
    """Share of held-out rows inside the 80 % band the ``_low``/``_high`` figures give."""
    heldout_rows: int | None = None


class GpuPriceDoc(Document):
    """The price another GPU is ranked by and quoted at in the advice: the catalog's lowest
    on-demand USD per GPU-hour, with the offer's provider, region, date and age. Its price null,
    with ``price_reason``, where the catalog has no usable on-demand price of the GPU."""

    gpu: str
    price_usd_per_gpu_hour: float | None
    """USD per GPU-hour (the user's negotiated discount applied)."""
    price_reason: str | None = None
    """Why ``price_usd_per_gpu_hour`` is null (English); null with a price."""
    pricing: Literal["on_demand"] = "on_demand"
    provider: str | None = None
    region: str | None = None
    zone: str | None = None
    instance_type: str | None = None
    as_of: str | None = None
    """The price's date at its source's precision, or the bounds of an undated one
    (``2025-03/2026-12-02``: observed at some time between the two); null when undated."""
    age_days: int | None = None
    """The oldest the price can be on the day of the estimate (from the earliest day ``as_of``
    allows, or from ``age_bound_launch`` where that is later), days; null when undated."""
    age_bound_launch: str | None = None
    """``YYYY-MM``: the launch month of the GPU where it, not ``as_of``, bounds the price's age."""
    staleness: Literal["fresh", "stale", "unknown"] | None = None
    """Against ``stale_after_days``: fresh even at its oldest, stale even at its youngest, or
    unknown (the date's bounds straddle the limit, or there is none); null without a price."""
    stale: bool | None = None
    """The price is not known to be within the staleness limit: older, or of unknown age."""
    stale_after_days: int | None = None
    """The staleness limit the catalog was opened with, days."""
    source: str | None = None
    """Where the catalog read the price."""
    gpus_per_instance: float | None = None
    """GPUs the offer's instance rents as one; null where the price was not read as an instance's."""
    price_usd_per_instance_hour: float | None = None
    """What that instance costs an hour, rented whole: what the job pays where it uses fewer of
    its GPUs (null as ``gpus_per_instance``)."""
    job_gpus: int | None = None
    """The job's GPU count the instance was picked to hold (null as ``gpus_per_instance``)."""


class AdviceItem(Document):
    """One change that makes the workload fit (or run better), with what it costs in time."""

    action: str
    summary: str
    gpu: str
    gpu_count: int = Field(ge=1)
    peak_memory_gib: float | None
    """What nvidia-smi would show after the change."""
    fits: bool
    """By the estimate's verdict: ``required_gib`` ≤ ``capacity_gib``."""
    step_time_s: float | None
    step_time_factor: float | None
    derivation: str
    required_gib: float | None = None
    """What must fit after the change (allocated + CUDA context + cuBLAS + NCCL)."""
    capacity_gib: float | None = None
    """What ``required_gib`` is compared with, GiB: the usable memory of the GPU the change runs on
    or, for a served row (a serving engine runs the model), the engine's share of it (vLLM's
    ``--gpu-memory-utilization``, SGLang's ``--mem-fraction-static``); either divided among the
    replicas that time-share the GPU. As the row's ``memory_capacity_gib``."""
    offered: bool | None = None
    """Another GPU: whether the catalog has an offer of it (None when not checked or the same GPU)."""
    gpu_price: GpuPriceDoc | None = None
    """Another GPU the catalog offers: the price the advice ranks it by and quotes, with where and
    when it is from (null for other changes, or where no price was looked up)."""
    changes: list[str] = Field(default_factory=list)
    """``combined`` advice: the actions applied together, in order (``gradient_checkpointing``,
    ``micro_batch`` …); empty for a single change."""
    saved_gib: list[float] = Field(default_factory=list)
    """``combined`` advice: what each of ``changes``, applied in that order, takes off the memory
    that must fit one GPU (``required_gib``), GiB; they add up to the unchanged row's need less
    this one's. Empty for a single change."""


class ScalingAdviceItem(Document):
    """One change that makes a configuration whose step mostly waits on collectives faster."""

    action: str
    """``fewer_gpus`` or ``gradient_accumulation``."""
    summary: str
    gpu: str
    gpu_count: int = Field(ge=1)
    grad_accum_steps: int = Field(ge=1)
    throughput_factor: float
    """Samples (or tokens) a second after the change over before."""
    gpu_hours_factor: float
    """The job's GPU-hours after the change over before."""
    job_time_h: float | None
    """The job's time after the change, with the checkpoint writes (as the row's ``job_time_h``)."""
    comm_share: float
    """Exposed communication's share of the step after the change."""
    memory_verdict: str
    """``fits`` or ``may-not-fit`` after the change (one that does not fit is not offered)."""
    derivation: str


class ScalingBoundDoc(Document):
    """A multi-node row's figures with its unknown network at the conservative bound (the slowest
    GPU instance network of the embedded catalog, TCP)."""

    network_gbps: float
    network_kind: str
    throughput: float
    throughput_low: float
    throughput_high: float
    step_time_s: float
    comm_total_s: float
    comm_exposed_s: float
    speedup: float | None
    efficiency: float | None


class ScalingDoc(Document):
    """How a row of several GPUs scales over one GPU of the same kind (training)."""

    one_gpu_throughput: float | None
    """The same workload and per-GPU batch on one GPU of the kind; None where one cannot run it
    (``one_gpu_error``)."""
    one_gpu_step_s: float | None
    one_gpu_fits: bool | None
    one_gpu_error: str | None
    one_gpu_optimizer_s: float | None
    """The optimizer step on that one GPU (all the weights), seconds."""
    optimizer_s: float
    """The row's optimizer step on each GPU, seconds: its shard of the weights under FSDP or ZeRO,
    shorter than one GPU's, which is why such a row can scale past its GPU count (``efficiency``
    above 1)."""
    speedup: float | None
    """The row's throughput over ``one_gpu_throughput``."""
    efficiency: float | None
    """``speedup`` over the GPU count."""
    link: str
    intra_node: str
    """``nvlink``, ``pcie`` or ``pcie_host`` (PCIe without P2P: through host memory)."""
    intra_node_gbps: float
    """GB/s a direction per GPU."""
    gpu_join_assumed: bool
    nodes: int = Field(ge=1)
    network_gbps: float | None
    network_kind: str | None
    network_source: str | None
    """``user``, ``catalog`` or ``assumed``; None on one node."""
    step_time_s: float
    comm_total_s: float
    comm_exposed_s: float
    """The communication not overlapped with compute, per optimizer step."""
    exposed_share: float
    input_bound: bool
    conservative: ScalingBoundDoc | None
    """Where the network between the nodes is unknown: the row at its conservative bound."""


class GapCauseDoc(Document):
    """One likely cause of a measured step longer than the estimated one."""

    cause: str
    """``exposed_communication``, ``pcie_without_p2p``, ``slower_network`` (sized by the estimator);
    ``input_pipeline``, ``small_batch``, ``cpu_threads`` (not modelled)."""
    extra_s: float | None
    """Seconds a step the estimator gives it at its bound; None: not modelled."""
    share_of_gap: float | None
    """``extra_s`` over the gap: over 1 where the bound overshoots it (the network's conservative
    bound may add a hundred times the gap)."""
    fit: float | None
    """How near the cause comes to the gap, 0–1, what the sized causes are ranked by: 1 where it
    explains all of it (a cause spanning every effect up to a bound that reaches the gap); an
    all-or-nothing cause (PCIe without P2P) that overshoots by ``k``× fits ``1/k``."""
    network_gbps: float | None
    """``slower_network``: the rate between the nodes (Gbit/s) at which the estimate's step is the
    measured one; null where even the conservative bound leaves it shorter, and for other causes."""
    words: str
    check: str


class NetworkForStepDoc(Document):
    """A network between the nodes, of one kind, at which the estimate's step is the measured one."""

    kind: Literal["rdma", "tcp"]
    gbps: float | None
    """Gbit/s, solved on the estimator between 2.5 and 3,200 Gbit/s; null where no rate in that span
    gives a step as short as measured."""


class ScalingGapDoc(Document):
    """``--measured-speedup`` or ``--measured-throughput`` against the row's estimate."""

    given: Literal["speedup", "throughput"]
    """Which was measured; the other is derived (with the estimate's one-GPU throughput)."""
    measured_speedup: float | None
    measured_throughput: float | None
    estimated_speedup: float | None
    estimated_throughput: float
    measured_step_s: float
    estimated_step_s: float
    gap_s: float
    """Measured step less the estimated one (≤ 0: nothing to explain)."""
    measured_compute_time_h: float | None
    """The job's steps at the measured rate, hours (the row's ``compute_time_h`` × the measured step
    over the estimated one); null without a job size."""
    measured_job_time_h: float | None
    """The job at the measured rate with its checkpoint writes, as the row's ``job_time_h`` counts
    them; null without a job size."""
    within_range: bool | None
    causes: list[GapCauseDoc]
    """The likeliest first: the sized causes, nearest the gap first (``fit``), then those the
    estimator does not model; but where the sized ones together come to less than half of the gap
    (``sized_share_of_gap`` < 0.5), those not modelled first (any of them could account for all of
    it), then the sized ones, nearest the gap first."""
    sized_share_of_gap: float | None = None
    """The share of the gap the sized causes come to together, at most: each one's ``share_of_gap``
    up to 1, summed, up to 1 (they may overlap); null where none is sized or there is no gap."""
    faster_network: list[NetworkForStepDoc] = Field(default_factory=list)
    """A measured step shorter than the estimate's on a network nobody stated (a typical one assumed):
    the RDMA and the TCP rate between the nodes that give it; empty otherwise."""


class DecodeDoc(Document):
    """LLM generation figures on one GPU (decoder models, ``task: infer``)."""

    gpu: str
    weights_gib: float | None
    kv_cache_gib_per_sequence: float | None
    context_tokens: int
    max_concurrent_sequences: int
    prefill_s: float | None
    prefill_tokens_per_s: float | None
    batch: int
    time_per_token_s: float | None
    tokens_per_s: float | None
    time_per_token_at_max_s: float | None
    tensor_parallel: int = Field(default=1, ge=1)
    """GPUs one replica spans; the figures above are the replica's."""
    replicas_per_gpu: int = Field(default=1, ge=1)
    """Replicas time-sharing the GPU (``serving.share_gpu``): the figures are one replica's, with its
    share of the memory, while it runs; the serving figures count its share of the time."""
    host_bound: bool = False
    """Without CUDA graphs (``cuda_graphs: false``), the CPU issuing each step's kernels, not memory
    bandwidth, sets the time per token."""
    engine: str | None = None
    """The serving engine the figures take, with its version range (``vLLM V1, 0.8 to 0.13
    (synchronous scheduling)``): the workload's ``serving.engine``; one not named, or named without
    a version, is taken not to overlap the GPU. None: a plain generation loop."""
    engine_cpu_s: float = Field(default=0.0, ge=0)
    """The serving engine's CPU work per iteration the figures include (0: a plain generation loop)."""
    engine_overlapped: bool = False
    """Whether that CPU work runs beside the GPU's (an iteration takes the longer) or in turn."""
    engine_cpu_source: str | None = None
    """Where the per-iteration figure comes from (a published measurement)."""


class ServingDoc(Document):
    """The serving load against one GPU's capacity."""

    capacity_requests_per_s: float | None
    requests_per_s: float | None
    utilisation: float | None
    request_latency_s: float | None
    """Prefill and generation of one request at the sequences this load keeps running."""
    concurrent_sequences: float | None
    """Sequences running at once at this load (Little's law), at most the KV cache's limit."""
    p95_latency_s: float | None
    ttft_p95_s: float | None = None
    """Time to first token at the 95th percentile: the queueing wait at its p95 (M/M/1, as
    ``p95_latency_s``) plus the prefill; null when overloaded."""
    tpot_s: float | None = None
    """Time per output token at this load: the decode step at the sequences it keeps running,
    stretched by the prompts beside it (the typical gap between streamed tokens, not a p95)."""
    tpot_floor_s: float | None = None
    """The shortest time per output token a replica reaches at any load: a target below it is met
    by no number of replicas."""
    gpus_needed: int
    derivation: str


class MemoryDoc(Document):
    """One GPU's memory term by term, GiB, each named for the tool that shows it."""

    peak_allocated_gib: float
    """Tensors at the peak: ``torch.cuda.max_memory_allocated`` (torchtune's "peak memory alloc")."""
    reserved_gib: float
    """PyTorch's caching allocator at the peak on a roomy GPU: ``torch.cuda.max_memory_reserved``."""
    cuda_context_gib: float
    """Driver state and loaded kernel images (lazy module loading assumed)."""
    cublas_workspace_gib: float
    cudnn_workspace_gib: float
    """Convolution workspace; gives way (smaller algorithms) when memory is short."""
    nccl_buffers_gib: float
    paged_optimizer_gib: float
    """Optimizer state in CUDA managed memory (paged optimizers); pages out to host memory."""
    host_spill_gib: float
    """The part of ``paged_optimizer_gib`` that does not fit on the GPU next to the rest."""
    nvidia_smi_gib: float
    """What nvidia-smi shows for the process on a roomy GPU (= ``peak_memory_gib``)."""
    required_gib: float
    """What must fit (allocated + unreleasable fragmentation + context + cuBLAS + NCCL), at the point."""
    required_gib_low: float | None = None
    """The low end of what must fit: above ``memory_capacity_gib`` means *does not fit*."""
    required_gib_high: float | None = None
    """The high end of what must fit: within ``memory_capacity_gib`` means *fits*."""
    measured_on: str | None = None
    """The GPU whose ``gpuplan measure`` recording these figures are: allocated, reserved and
    nvidia-smi as measured there, the CUDA context moved to another GPU (``cuda_context_gib`` is
    then the measured part outside PyTorch's allocator, the workspaces inside the reserved figure);
    null: the model's figures."""


class PlausibilityDoc(Document):
    """One step checked against what the datasheets allow (``perf/plausibility.py``)."""

    reference_gpu: str | None
    """The generation's reference GPU compared with; None when this GPU is its own reference."""
    ratio_to_reference: float | None
    """Step time on the reference ÷ on this GPU (above 1: faster than the reference)."""
    datasheet_low: float | None
    datasheet_high: float | None
    """The ratio to the reference with each op of the step at the smaller and at the larger of its
    own path's compute-peak ratio (BF16, FP32 CUDA cores …) and the bandwidth ratio, kernels at the
    launch floor no faster: the step, with its own mix, runs no faster than ``datasheet_high``."""
    parity_high: float | None
    """The ratio with the reference's fitted efficiencies on both GPUs."""
    peak_fraction: float
    """Tensor FLOPs per second over the datasheet's dense peak (at most 1)."""
    bandwidth_fraction: float
    """Bytes per second over the datasheet's memory bandwidth (at most 1)."""
    flags: list[str]
    """Each bound the estimate breaks, in words; empty when it is plausible."""


class StackDoc(Document):
    """The software stack the figures assume: the workload's ``stack`` with its level's defaults."""

    level: str | None
    """``stock`` or ``tuned`` when the settings are exactly that level's; None when mixed."""
    memory_format: str
    """``channels-first`` (NCHW) or ``channels-last`` (NHWC)."""
    input_pipeline: str
    """``dataloader``, ``dali`` or ``synthetic``."""
    loader_workers: int | None
    """DataLoader workers per GPU; None: one per vCPU of the instance."""
    fused_kernels: list[str]
    """Hand-fused kernels used: ``dense-activation``, ``dropout-add-norm``, ``cross-entropy``."""
    dropout: bool
    """Dropout as the model's config sets it (false: none)."""
    tensor_parallel_plan: str
    """``shared-input`` (one gather of each block's input, shared by its projections) or
    ``per-projection`` (each column-parallel projection gathers its own): the collectives a
    tensor-parallel layer runs; no effect without tensor parallelism."""
    optimizer: str
    """As the workload names it: ``adamw`` is PyTorch's foreach AdamW (its default on CUDA),
    ``adamw-fused`` the fused one."""
    compile: bool
    cuda_graphs: bool


class StackLevelFigures(Document):
    """One GPU configuration's figures with the workload on a named stack (same model and GPUs).
    The model's figures on each stack: a measured step (the row's ``anchored``) anchors only the
    row's own figures, so the levels compare like with like."""

    level: str
    """``stock`` (plain PyTorch) or ``tuned`` (NVIDIA NGC-script level)."""
    step_time_s: float | None
    throughput: float | None
    """In the row's ``throughput_unit``."""
    peak_memory_gib: float | None
    fits: bool | None
    """Fits for certain (``memory_verdict`` is ``fits``)."""
    memory_verdict: MemoryVerdict | None = None
    """``fits``, ``may-not-fit`` or ``does-not-fit`` on that stack, read on the whole memory band
    as the row's own; None where the GPU cannot run it."""
    error: str | None = None


class AnchoredDoc(Document):
    """The measured step (``gpuplan measure``) a row's compute time is anchored on, and how it
    moved to this GPU: each op class by the roofline's ratio between the two GPUs — compute-bound
    by achieved FLOP/s, memory-bound by bandwidth (Habitat, Yu et al., USENIX ATC'21)."""

    measured_on: str
    """gpuplan's id of the GPU the step was measured on."""
    measured_at: str
    measured_step_s: float
    """The measured step (median of the timed steps), s."""
    transferred: bool
    """False on the GPU that was measured."""
    hardware_ratio: dict[str, float]
    """Per op class: the roofline's time on this GPU over its time on the measured one."""
    class_s: dict[str, float]
    """Per op class: anchored seconds of one micro-batch step on one GPU of this row."""
    host_s: float
    """CPU time of the measured step not covered by kernels, kept as measured, s."""
    model_compute_s: float
    """The model's own compute time per optimizer step without the measurement, s (to compare)."""
    range_factor: float
    """The anchored compute's 80 % range is ×/÷ this (the measured steps' spread on the measured
    GPU, else the transfer's error on published pairs, with that spread)."""
    model_range_factor: float | None = None
    """The model's own 80 % range on this GPU (×/÷, the calibration's held-out band), to compare
    with ``range_factor``: a measured step is no surer than the model when its timed runs varied
    widely. None for an unfitted prior."""


class InputHostDoc(Document):
    """The host whose vCPUs decode an image job's samples (DataLoader workers), as the row took it."""

    vcpus_per_gpu: float | None
    """Decoding processes per GPU taken (vCPUs per GPU, or the workload's workers per GPU); None:
    only the instance's disk bounded the input."""
    source: Literal["catalog", "workers", "typical"]
    """``catalog``: the named instance's vCPUs; ``workers``: the workload's ``stack.loader_workers``;
    ``typical``: no instance named, the median vCPUs per GPU of the shipped catalog's priced instance
    types of this GPU and count, which bounds only the slow end (the point and the fast end assume
    the pipeline keeps up)."""
    basis: str
    """Where the figure comes from, in words."""
    instance_types: int | None = None
    """``typical``: how many instance types the median is over."""
    bounded: bool
    """It lengthened the step time, or (``typical``) the slow end of its range."""
    slow_end_slower_pct: float
    """How much longer the slow end of the step's range is than the GPUs' own slow end, %."""


class LaunchCheckpointsDoc(Document):
    """The checkpoints the launch's train.py writes (synchronously: every GPU waits for each
    write), as ``gpuplan plan`` costs them off spot. The estimate knows no offer, so the write
    bandwidth is the one the plan assumes where it does not know the disk."""

    checkpoint_gb: float = Field(ge=0)
    """One checkpoint: trainable weights at the precision's own bytes + optimizer state + buffers, GB (a
    plan's ``checkpoint_gb``)."""
    interval_min: float = Field(gt=0)
    """The workload's ``checkpoint.every_min``, else the interval ``gpuplan deploy`` writes into
    train.py."""
    interval_stated: bool
    """True where ``interval_min`` is the workload's own."""
    write_gbps: float = Field(gt=0)
    """The storage write bandwidth assumed, GB/s (the plan's, an assumption: a volume's baseline)."""
    write_min: float = Field(ge=0)
    """Minutes one checkpoint takes to write at ``write_gbps``."""


class EstimateRow(Document):
    """One GPU configuration: memory fit, step time, throughput, job time, each with its band."""

    gpu: str
    gpu_count: int = Field(ge=1)
    parallelism: str
    fits: bool | None
    """Fits for certain (``memory_verdict`` is ``fits``); None with ``error`` (not estimated)."""
    memory_verdict: MemoryVerdict | None = None
    """``fits``, ``may-not-fit`` or ``does-not-fit``, on the whole band of ``memory.required_gib``;
    None with ``error``."""
    memory_over: bool | None = None
    """Of the ``may-not-fit`` rows, one whose estimate's point (``memory.required_gib``) is above
    ``memory_capacity_gib`` too: only the low end of the band fits, so the run most likely runs out
    of memory (*does not fit at the estimate*; ``plan``'s ``memory_over``); None with ``error``."""
    peak_memory_gib: float | None
    peak_memory_gib_low: float | None
    peak_memory_gib_high: float | None
    step_time_s: float | None
    step_time_s_low: float | None
    step_time_s_high: float | None
    comm_time_s: float | None
    """Communication time not hidden behind compute, s (the same as ``comm_exposed_s``)."""
    comm_total_s: float | None
    """All collective communication of one step, s, overlapped or not."""
    comm_exposed_s: float | None
    """The part of ``comm_total_s`` that adds to the step time, s."""
    tensor_parallel: int | None = None
    """Tensor-parallel degree (GPUs each layer is split over); None on an error row."""
    pipeline_parallel: int | None = None
    """Pipeline stages; None on an error row."""
    data_parallel: int | None = None
    """Model replicas: ``gpu_count / (tensor_parallel · pipeline_parallel)``."""
    pipeline_bubble_fraction: float | None = None
    """Share of the pipeline's time its stages idle (1F1B: ``(p−1)/(m+p−1)``, m micro-batches)."""
    pipeline_bubble_s: float | None = None
    """That idle time per optimizer step, s (part of ``step_time_s``)."""
    tensor_parallel_comm_s: float | None = None
    """Tensor-parallel all-reduces per step, s, all exposed (part of ``comm_exposed_s``)."""
    pipeline_comm_s: float | None = None
    """Stage-to-stage sends per step, s, exposed (part of ``comm_exposed_s``)."""
    optimizer_paging_s: float | None = None
    """A paged optimizer's state that does not fit on the GPU, moved in and out over PCIe per step,
    s (part of ``step_time_s``; 0 when it fits)."""
    network_gbps: float | None
    """Inter-node network per node the estimate used, Gbit/s."""
    network_source: str | None
    """Where ``network_gbps`` comes from: ``user``, ``catalog`` or ``assumed``."""
    network_gbps_slow_end: float | None = None
    """An unknown network between nodes (``network_source`` ``assumed``, more than one node): the
    slowest plausible fabric the step time's slow end is costed on, Gbit/s. None when known."""
    network_gbps_fast_end: float | None = None
    """The same for the fastest plausible fabric, the step time's fast end."""
    samples_per_s: float | None
    tokens_per_s: float | None
    """None for models without a sequence."""
    throughput: float | None
    throughput_low: float | None
    throughput_high: float | None
    throughput_unit: str | None
    """``samples_per_s`` or ``tokens_per_s``."""
    samples_per_step: int | None
    """Samples of one optimizer step on all GPUs: micro-batch × accumulation × data-parallel ranks."""
    flops_per_step: float | None = None
    """Model FLOPs of one optimizer step on all GPUs — every micro-batch of the step ``step_time_s``
    times: ``flops_per_step / step_time_s / gpu_count`` is ``achieved_tflops`` (× 1e12), and over
    the GPU's peak FLOP/s the MFU."""
    achieved_tflops: float | None
    """Model FLOPs per second per GPU (TFLOP/s)."""
    job_time_h: float | None
    """The job's time: its steps (``compute_time_h``) and the checkpoint writes of the launch
    (``checkpoint_writes_h``), as ``plan``'s ``job_time_h`` off spot less the set-up an offer adds."""
    job_time_h_low: float | None
    job_time_h_high: float | None
    compute_time_h: float | None = None
    """The steps alone: every sample of the job at ``step_time_s``, h."""
    compute_time_h_low: float | None = None
    compute_time_h_high: float | None = None
    checkpoint_writes_h: float | None = None
    """Hours writing checkpoints over ``compute_time_h`` (the document's ``checkpoints``); 0 where
    the job writes none (inference, a service); None with ``error``."""
    checkpoint_writes: float | None = None
    """Checkpoints written over the job (``checkpoint_writes_h`` over one write's time)."""
    memory_capacity_gib: float | None
    """What ``memory.required_gib`` is compared with for ``fits``, GiB: the GPU's usable memory or,
    for a served row (a serving engine runs the model), the engine's share of it (vLLM's
    ``--gpu-memory-utilization``, SGLang's ``--mem-fraction-static``); either divided among the
    replicas that time-share the GPU (``serving.replicas_per_gpu``). None with ``error``."""
    memory: MemoryDoc | None = None
    """The terms behind ``peak_memory_gib`` and ``fits``; None with ``error``."""
    input_bound: bool | None = False
    """An image workload whose host CPUs (JPEG decode + augmentation at the instance's vCPUs per
    GPU) cannot keep up with the GPUs: its step time is that bound. None with ``error``."""
    input_samples_per_s: float | None = None
    """Images/s the host CPUs feed all GPUs (point rate); None when not checked (no images, or no
    instance vCPUs given)."""
    input_host: InputHostDoc | None = None
    """The host's input pipeline the row was bounded by; None where nothing decodes on the host's
    CPUs (no images, DALI, synthetic input, a service)."""
    anchored: AnchoredDoc | None = None
    """Set when the workload's own measured step anchors this row (``gpuplan measure``)."""
    link: str | None
    """How the configuration's GPUs join (NVLink, PCIe, network); None with ``error``."""
    notes: list[str]
    plausibility: PlausibilityDoc | None = None
    """The step against the datasheets and the generation's reference GPU; None with ``error``."""
    advice: list[AdviceItem]
    advice_left_out: int = Field(default=0, ge=0)
    """Changes left out of ``advice``: they save under 1 % of the memory needed and still do not fit
    (8-bit AdamW for a LoRA fine-tune, whose optimizer state is the adapters')."""
    scaling_advice: list[ScalingAdviceItem] = Field(default_factory=list)
    """Where it fits and waits mostly on the network: fewer GPUs or more gradient accumulation,
    each estimated (empty otherwise)."""
    scaling: ScalingDoc | None = None
    """On several GPUs (training): speed-up over one GPU of the kind, the link, the communication
    and what of it is exposed; None otherwise."""
    scaling_gap: ScalingGapDoc | None = None
    """A measured speed-up or throughput against the estimate, with the likely causes; None where
    none was given."""
    stack_levels: list[StackLevelFigures] = Field(default_factory=list)
    """The same configuration on the stock and the tuned stack: the spread the code's choices make."""
    decode: DecodeDoc | None
    serving: ServingDoc | None
    error: str | None


class EstimateDocument(Document):
    """``gpuplan estimate --json``."""

    schema_version: Literal[5] = 5
    workload: EstimateWorkload
    software_level: str
    """The software stack the figures assume, in words."""
    stack: StackDoc | None = None
    """The same, setting by setting."""
    calibration: CalibrationSummary
    estimates: list[EstimateRow]
    checkpoints: LaunchCheckpointsDoc | None = None
    """The checkpoints the job writes, which each row's ``job_time_h`` includes; null where it
    writes none."""
    thin_memory_margin: str | None = None
    """Where a configuration fits with less than a tenth of the usable memory to spare at its
    memory band's high end: which, and what to change, in order, if it runs out of memory all the
    same (the line the table prints); null where none does."""
