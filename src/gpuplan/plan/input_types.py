"""The planner's own input types: offers as numpy columns, regional non-compute prices, job facts.

The planner core works on these small types only, so its arithmetic is testable with hand-made data;
``plan/build_inputs.py`` builds them from the catalog store, the workload and the estimator.
Unknown is ``nan`` (numbers) or ``""`` (strings) in the columns, ``None`` in the dataclasses —
never 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
import numpy.typing as npt

from gpuplan.day_load import LoadDay, Schedule
from gpuplan.launch_disk import disk_need_gb
from gpuplan.start_up import INSTANCE_BOOT_S, StartUp, replica_start_up
from gpuplan.units import (
    ASSUMED_DISK_GBPS,
    CHECKPOINTS_KEPT,
    DEFAULT_CHECKPOINT_INTERVAL_MIN,
    HOURS_PER_MONTH,
    default_checkpoint_interval_min,
)

__all__ = [
    "HOURS_PER_MONTH",
    "EstimateKey",
    "EstimateRow",
    "JobFacts",
    "OfferTable",
    "PlanOffer",
    "RegionCosts",
    "UsdTransferTier",
]


FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
StrArray = npt.NDArray[np.str_]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, kw_only=True)
class PlanOffer:
    """One priced (or unpriced) offer the planner ranks: an instance type in a region under one
    pricing model (built from the catalog's ``OfferRow`` and its prices)."""

    provider: str
    region: str
    instance_type: str
    gpu: str
    """Canonical GPU id (``hardware/``)."""
    gpu_count: float
    """GPUs per instance; below 1 for a fractional (vGPU) instance."""
    gpu_memory_gib: float
    """Memory of one GPU, GiB (from the datasheet)."""
    pricing: str
    """``on_demand``, ``spot``, ``monthly``, ``reserved_1y`` or ``reserved_3y``."""
    price_usd: float | None
    """Price per ``unit_hours`` for one instance, in USD; None when unknown."""
    unit_hours: float = 1.0
    """Hours one price unit buys: 1 for an hourly price, 730 for a monthly one."""
    term_hours: float | None = None
    """Length of a reserved commitment in hours (8760 for 1 year); None for other pricing models."""
    zone: str = ""
    country: str = ""
    """ISO 3166 alpha-2 code of the region's country; "" when unknown."""
    vcpus: float | None = None
    memory_gib: float | None = None
    network_gbps: float | None = None
    """Inter-node network bandwidth of one instance, Gbit/s."""
    interconnect: str = ""
    """Intra-node GPU link as the catalog states it (``NVLink``, ``PCIe`` …); "" when unknown."""
    network_kind: str = ""
    """Inter-node fabric as the catalog states it: ``EFA``, ``InfiniBand``, ``RoCE`` or ``TCP``;
    "" when not published."""
    billing_granularity_s: float | None = None
    """Billing step in seconds (1 = per second, 3600 = per hour); None when unknown."""
    min_billing_s: float | None = None
    """Minimum billed duration per instance start, seconds; None when unknown."""
    interruption_band: str = ""
    """Published spot interruption band, e.g. ``<5%`` or ``10-15%`` (per month); "" when unknown."""
    interruption_band_source: str = ""
    """Where the band comes from, dated (:func:`gpuplan.catalog.spot_bands.band_source`); "" without
    a band."""
    compliance: tuple[str, ...] = ()
    """Compliance labels from a source that can be relied on."""
    compliance_claimed: tuple[str, ...] = ()
    """Compliance labels only a low-confidence source claims (not a certificate): they satisfy a
    required label only with ``allow_low_confidence``."""
    confidence: str = "high"
    """``high``, ``secondary`` or ``low``."""
    as_of: str = ""
    source: str = ""
    stale: bool = False
    """Not known to be within the catalog's staleness limit: older, or of unknown age."""
    staleness: str = ""
    """The catalog's word on the price's age (``fresh``, ``stale``, ``unknown``: the date's bounds
    straddle the limit, or there is none); "" for an offer without a price."""
    price_age_days: float | None = None
    """The oldest the price can be on the day of the plan (from the earliest day ``as_of`` allows),
    days; None when undated."""
    price_usd_best: float | None = None
    """The price's best case: its own figure where ``price_usd`` is a dated floor above it (a spot
    price of unknown age below every dated one, :meth:`OfferPrice.dated_floor_usd_per_hour`);
    None: ``price_usd`` itself."""
    floor_as_of: str = ""
    """The date of that floor; "" when ``price_usd`` is the offer's own price."""
    floor_basis: str = ""
    """Which dated price the floor is (a :class:`gpuplan.catalog.FloorBasis` value); "" without one."""
    floor_region: str = ""
    """The region whose dated price the floor is; "" without one."""
    floor_source: str = ""
    """Where that dated price was read; "" without one (or where the catalog does not say)."""
    own_stale_as_of: str = ""
    """Where the floor holds a dated but stale price of the offer's own (older than the catalog's
    limit, :meth:`OfferPrice.spot_age_held`): that price's date; "" for an undated one, or no floor."""
    upfront: str = ""
    """A reservation's payment option its price is the effective rate of (``partial``, ``all``:
    :mod:`gpuplan.catalog.upfront`); "" for no upfront, another pricing model, or an option asked
    for that the row does not carry (its own no-upfront rate kept)."""
    network_given: bool = False
    """``network_gbps`` and ``network_kind`` are the user's (``plan --network-gbps``), put in where
    the catalog gives the instance no network: the option's words say whose they are."""


#: Each :class:`PlanOffer` field's annotation, in declaration order (the columns of an :class:`OfferTable`).
_FIELD_TYPES: dict[str, str] = {f.name: str(f.type) for f in fields(PlanOffer)}
#: The columns of tuples of labels (numpy object arrays).
_LABEL_COLUMNS = frozenset({"compliance", "compliance_claimed"})
#: The columns of flags (numpy bool arrays).
_BOOL_COLUMNS = frozenset({"stale", "network_given"})


@dataclass(frozen=True, kw_only=True)
class OfferTable:
    """Offers as parallel numpy columns (one row per offer × pricing model); see :class:`PlanOffer`."""

    provider: StrArray
    region: StrArray
    zone: StrArray
    country: StrArray
    instance_type: StrArray
    gpu: StrArray
    gpu_count: FloatArray
    gpu_memory_gib: FloatArray
    pricing: StrArray
    price_usd: FloatArray
    unit_hours: FloatArray
    term_hours: FloatArray
    vcpus: FloatArray
    memory_gib: FloatArray
    network_gbps: FloatArray
    interconnect: StrArray
    network_kind: StrArray
    billing_granularity_s: FloatArray
    min_billing_s: FloatArray
    interruption_band: StrArray
    interruption_band_source: StrArray
    compliance: npt.NDArray[np.object_]
    compliance_claimed: npt.NDArray[np.object_]
    confidence: StrArray
    as_of: StrArray
    source: StrArray
    stale: BoolArray
    staleness: StrArray
    price_age_days: FloatArray
    price_usd_best: FloatArray
    floor_as_of: StrArray
    floor_basis: StrArray
    floor_region: StrArray
    floor_source: StrArray
    own_stale_as_of: StrArray
    upfront: StrArray
    network_given: BoolArray

    def __len__(self) -> int:
        return int(self.provider.shape[0])

    @classmethod
    def from_rows(cls, rows: Sequence[PlanOffer]) -> OfferTable:
        """Columns from rows; None becomes nan (numbers) so that unknown never reads as 0."""
        return cls.from_columns({f.name: [getattr(r, f.name) for r in rows] for f in fields(PlanOffer)})

    @classmethod
    def from_columns(cls, columns: Mapping[str, Sequence[Any]]) -> OfferTable:
        """Columns from one sequence of values per :class:`PlanOffer` field, as :meth:`from_rows`
        makes them (a caller with thousands of offers need not build an object per row)."""
        if set(columns) != _FIELD_TYPES.keys():
            raise ValueError(f"offer columns {sorted(columns)} are not PlanOffer's fields")
        cols: dict[str, object] = {}
        for name, kind in _FIELD_TYPES.items():
            values = columns[name]
            if name in _LABEL_COLUMNS:
                arr = np.empty(len(values), dtype=object)
                arr[:] = [tuple(v) for v in values]
                cols[name] = arr
            elif name in _BOOL_COLUMNS:
                cols[name] = np.array(values, dtype=bool)
            elif kind in ("str",):
                cols[name] = np.array(values, dtype=str) if len(values) else np.array([], dtype=str)
            else:
                cols[name] = np.array([math.nan if v is None else v for v in values], dtype=float)
        return cls(**cols)  # type: ignore[arg-type]

    def row(self, i: int) -> PlanOffer:
        """One row back as an :class:`PlanOffer` (for the few options the planner materialises)."""

        def num(a: FloatArray) -> float | None:
            v = float(a[i])
            return None if math.isnan(v) else v

        kw: dict[str, object] = {}
        for f in fields(PlanOffer):
            col = getattr(self, f.name)
            if f.name in _LABEL_COLUMNS:
                kw[f.name] = tuple(col[i])
            elif f.name in _BOOL_COLUMNS:
                kw[f.name] = bool(col[i])
            elif col.dtype.kind == "U":
                kw[f.name] = str(col[i])
            else:
                kw[f.name] = num(col)
        for required in ("gpu_count", "gpu_memory_gib", "unit_hours"):
            kw[required] = float(getattr(self, required)[i])
        return PlanOffer(**kw)  # type: ignore[arg-type]


@dataclass(frozen=True, kw_only=True)
class UsdTransferTier:
    """One tier of a monthly, volume-tiered transfer price, in US dollars (the planner's form of
    the catalog's :class:`~gpuplan.catalog.model.TransferTier`: cumulative upper bound, USD per GB)."""

    upto_gb: float
    """Cumulative GB per month up to which this tier applies; ``inf`` for the last tier."""
    usd_per_gb: float


@dataclass(frozen=True, kw_only=True)
class RegionCosts:
    """Non-compute prices of one provider region as the catalog knows them; None = unknown."""

    provider: str
    region: str
    internet_egress: tuple[UsdTransferTier, ...] | None = None
    """Internet egress tiers (ascending ``upto_gb``); None when unknown."""
    internet_egress_doubt: str = ""
    """Why ``internet_egress`` is a low-confidence figure rather than the region's known price
    (empty when it is known): such a figure is costed as an assumption, at the conservative bound,
    and is only the best case."""
    inter_region_usd_per_gb: float | None = None
    """Transfer to another region of the same provider, USD/GB; None when unknown."""
    object_storage_usd_per_gb_month: float | None = None
    block_storage_usd_per_gb_month: float | None = None
    licence_usd_per_instance_hour: float = 0.0
    """Sum of per-hour fees the catalog lists for GPU instances here (0 when it lists none)."""
    licence_unknown: tuple[str, ...] = ()
    """Licence items the catalog names for the region whose fee is unknown (not included in
    ``licence_usd_per_instance_hour``: the licence cost is then unknown, never 0)."""
    source: str = ""
    as_of: str = ""
    notes: tuple[str, ...] = ()
    """Caveats on these prices (another region's price used, licence fees unknown …), shown with
    every option in this region."""


@dataclass(frozen=True, kw_only=True)
class JobFacts:
    """What the planner needs to know about the job beyond its run time."""

    task: str = "train"
    """``train``, ``finetune`` or ``infer``."""
    dataset_gb: float = 0.0
    """Dataset size that must be moved to and stored next to the GPUs, GB."""
    checkpoint_gb: float = 0.0
    """One checkpoint (weights + optimizer state + buffers), GB; 0 for a job that writes none."""
    results_gb: float | None = None
    """Results sent back to ``data_location`` at the end (default: one checkpoint), GB."""
    results_unpriced: bool = False
    """True when the size of the results is not known (a batch inference job that does not state
    ``data.results_gb``): ``results_gb`` is then 0, and an option that would send them over a priced
    link (out of a region other than ``data_location``) is ranked after those that would not."""
    data_location: tuple[str, str] | None = None
    """(provider, region) where the dataset lives and results go; None = the user's own site."""
    storage_kind: str = "block"
    """``block`` (a disk per node with the dataset and checkpoints) or ``object`` (one shared bucket)."""
    checkpoints_kept: int = CHECKPOINTS_KEPT
    """Checkpoints stored at once: the last good one plus the one being written (the workload's
    ``checkpoint.keep``, else train.py's default)."""
    checkpoint_every_h: float = DEFAULT_CHECKPOINT_INTERVAL_MIN / 60.0
    """The interval a job off spot checkpoints at, h: the train.py ``gpuplan deploy`` writes saves
    every so often whatever the pricing (synchronously: every GPU waits for the write), so an
    on-demand, reserved or monthly option pays for the writes too. The workload's
    ``checkpoint.every_min``, else :data:`gpuplan.units.DEFAULT_CHECKPOINT_INTERVAL_MIN`, which
    :attr:`checkpoint_interval_h` lengthens for a checkpoint slow to write: the interval priced."""
    checkpoint_every_stated: bool = False
    """``checkpoint_every_h`` is the workload's own (``checkpoint.every_min``): on spot it replaces
    the Young/Daly interval where it is shorter (the launch writes at the shorter of the two)."""
    checkpoint_write_gbps: float = ASSUMED_DISK_GBPS
    """Bandwidth of the disk beside the GPUs, GB/s: checkpoints are written and read back at this.
    ASSUMPTION: :data:`gpuplan.units.ASSUMED_DISK_GBPS`, the EBS gp3 baseline (125 MiB/s), the
    conservative bound where the volume's throughput is not known."""
    dataset_copy_gbps: float = ASSUMED_DISK_GBPS
    """The rate one instance copies the dataset onto its disk at, GB/s: the workload's
    ``data.copy_gbps`` (the user's measured rate, ``copy_gbps_stated``), else the disk's assumed
    bandwidth (:data:`gpuplan.units.ASSUMED_DISK_GBPS`, the conservative bound). An instance whose
    network the catalog states slower copies at that (:meth:`copy_hours`)."""
    copy_gbps_stated: bool = False
    """``dataset_copy_gbps`` is the user's measured rate (``data.copy_gbps``, ``plan --copy-gbps``)."""
    restart_h: float = INSTANCE_BOOT_S / 3600.0
    """Time to get a replacement instance and restart after an interruption, h. ASSUMPTION:
    10 minutes (instance boot + container pull + process start,
    :data:`gpuplan.start_up.INSTANCE_BOOT_S`), not including reading the
    checkpoint and a LoRA/QLoRA job's frozen base, which are added from ``checkpoint_gb``,
    ``weights_gb`` and ``checkpoint_write_gbps`` (:attr:`spot_restart_h`)."""

    setup_h: float = 0.0
    """Time from asking for an instance to its first training step, paid once per run, h:
    provisioning, image pull, copying the dataset next to the GPUs, as one instance alone would
    wait. The adapter from a real workload sets it (see ``plan.build_inputs.job_facts_from``); 0 in
    hand-made test facts. An option's own set-up is :meth:`setup_hours`: its nodes' copies may share
    the site's uplink (``upload_gbps``)."""
    upload_gbps: float | None = None
    """The uplink from the user's own site to the cloud, Gbit/s (the workload's ``data.upload_gbps``),
    for a dataset that is there (``data_location`` None); None: not given, and the dataset is taken
    to be copied at ``checkpoint_write_gbps`` wherever it comes from."""

    calendar_months: float | None = None
    """Set when the job is a stretch of calendar time rather than a piece of work (a service planned
    for one month): monthly and reserved terms are counted in these months (see
    ``billing.compute_cost_usd``). None for training and batch jobs."""
    egress_free_tier: bool = False
    """True when the account's monthly free egress allowance is unused and may pay for this job's
    first GBs; False (default) prices every GB, because the allowance is shared with all the
    account's other traffic."""
    data_transfer: str = "per_node"
    """How a multi-node job gets the dataset (the workload's ``data.transfer``): ``per_node`` (each
    node downloads its own copy, each paying the transfer) or ``fan_out`` (one copy into the region,
    copied between the nodes inside it at no transfer charge)."""
    image_job: bool = False
    """The job decodes images on the host CPUs: an instance's vCPUs bound its time."""
    precision: str | None = None
    """The workload's precision (``amp-bf16``, ``fp8``, …): a GPU without its tensor-core path (BF16
    on a T4) cannot run the job at all (``Reason.NO_PRECISION_PATH``); None: not known (test facts)."""
    rereads_dataset: bool = False
    """The job reads its dataset more than once (several epochs): an instance's RAM decides whether
    it is read from the page cache or from disk each epoch."""
    tensor_parallel: int = 1
    """GPUs one layer's matmuls are split over (the workload's ``tensor_parallel``); they must sit in
    one instance, because their all-reduces run every layer over NVLink."""
    pipeline_parallel: int = 1
    """Pipeline stages of one model replica (the workload's ``pipeline_parallel``)."""
    attention_heads: int = 0
    """The model's attention heads (0: not known), which a ``tensor_parallel`` must divide."""
    kv_heads: int = 0
    """The model's key/value heads (0: not known, or as many as ``attention_heads``), which a
    ``tensor_parallel`` must divide, or be a multiple of."""
    tensor_parallel_choices: tuple[int, ...] = ()
    """A service whose workload states no ``tensor_parallel``: the degrees the planner may split
    each candidate's replicas over (``perf.stages.layout.tensor_parallel_degrees``), the chosen one
    per candidate in ``Candidates.tensor_parallel``; () where the workload's ``tensor_parallel``
    holds for every candidate."""
    min_replicas: int = 1
    """A service's ``serving.min_replicas``: the replicas ``deploy`` starts, so the fewest an option
    may price (1 where the workload leaves it out)."""
    scales_down: bool = False
    """A service whose workload sets ``serving.min_replicas``: ``deploy``'s autoscaler may go down
    to it, so the service is priced as the fleet its day needs (``plan/service_day.py``); without
    it the launch keeps the plan's fleet, which is priced all month."""
    schedule: Schedule | None = None
    """A service's ``serving.schedule``: the hours it runs, none outside them (``plan/service_day.py``
    prices its hours); None: all month."""
    load_day: LoadDay | None = None
    """A service's ``serving.day``: its load minute by minute, as its team gives it
    (``plan/service_day.py`` prices its fleet on it); None: the cosine day fitted to its mean and peak."""
    max_replicas: int | None = None
    """A service's ``serving.max_replicas``: the most its autoscaler runs, so the most an option may
    price (None: no bound given)."""
    replicas_per_gpu: int = 1
    """A service's replicas time-sharing one GPU (``serving.share_gpu``; 1: a GPU each)."""
    p95_latency_ms: float | None = None
    """A service's p95 latency target (the workload's ``serving.p95_latency_ms``; None: none)."""
    ttft_p95_ms: float | None = None
    """A service's p95 time-to-first-token target (``serving.ttft_p95_ms``; None: none)."""
    users_in: tuple[str, ...] = ()
    """The countries a service's users are in (``serving.users_in``, ISO codes): the round trip from
    each option's region to the farthest is added to its p95 latency and time-to-first-token; empty:
    the network to the users is not counted."""
    tpot_p95_ms: float | None = None
    """A service's p95 time-per-output-token target (``serving.tpot_p95_ms``; None: none)."""
    batch_size: int = 0
    """A training job's batch per GPU (``inputs.batch_size``), samples; 0: not a training job."""
    gradient_accumulation: int = 1
    """Micro-batches per optimizer step (``gradient_accumulation``)."""
    seq_len: int | None = None
    """Tokens per sample (``inputs.seq_len``); None: not a sequence workload."""
    weights_gb: float = 0.0
    """A service's model weights, one replica's (all its GPUs'), GB: stored on every instance's disk
    (priced as storage) and read back from it by the replacement of a reclaimed spot instance. For a
    training job, its frozen base weights (a LoRA/QLoRA base) as downloaded, stored beside the
    checkpoints, which do not hold them (0: every weight trained, or no profile)."""
    served_tokens_per_hour: tuple[float, float] | None = None
    """A service's (prompt, output) tokens per hour of the month: its mean request rate
    (``serving.mean_requests_per_s``, else ``requests_per_s``) × tokens per request, over the hours
    it runs (all month, or its ``serving.schedule``'s) (None: not a service)."""
    run_tokens: tuple[float, float] | None = None
    """A batch job that generates (``inputs.output_tokens``): the (prompt, output) tokens the whole
    run reads and generates as its estimate prices it, samples × epochs × ``inputs.seq_len`` and
    × ``inputs.output_tokens`` (None: not a batch generation job)."""
    run_samples: float | None = None
    """A batch inference job (``task: infer`` without ``serving:``): the samples the whole run
    processes, ``data.samples`` × epochs (None: not such a job, or its sample count not given)."""
    mean_requests_per_s: float | None = None
    """A service's load on average over the month (``serving.mean_requests_per_s``; None: not given)."""
    requests_per_s: float | None = None
    """A service's load (``serving.requests_per_s``), split evenly over its replicas (None: not a
    service)."""
    served_images_per_hour: float | None = None
    """An image service's (``inputs.denoising_steps``) images per hour of the month, at the billed
    load (each request one image); None for any other workload."""
    served_passes_per_hour: float | None = None
    """A forward-pass service's requests (each one forward pass of the traced model on one sample)
    per hour of the month, at the billed load; None for any other workload."""
    answers_per_month: float = 0.0
    """A service's answers in the month planned: its mean request rate (``serving.mean_requests_per_s``,
    else ``requests_per_s``) over its hours (0: not a service)."""
    answer_bytes: float = 0.0
    """Bytes one answer sends its client on the wire (``serving.response_bytes``, else streamed:
    ``plan.answer_bytes.streamed_answer_bytes``). The answers leave the region to the internet,
    at its internet egress price, wherever the data is."""

    @property
    def answers_gb(self) -> float:
        """What a service's answers send its clients in the month planned, GB (0: not a service)."""
        return self.answers_per_month * self.answer_bytes / 1e9

    @property
    def resumes_by_chunks(self) -> bool:
        """Batch inference (``infer`` without a ``serving:`` block, no checkpoint): on spot it
        resumes by its output chunks, as the batch job ``gpuplan deploy`` writes does
        (:data:`gpuplan.units.BATCH_CHUNK_BATCHES`)."""
        return self.task == "infer" and not self.is_service and self.checkpoint_gb <= 0

    @property
    def resumes_after_reclaim(self) -> bool:
        """A job that, reclaimed on spot, resumes as the planner costs it (``plan/costing.py``): from
        its last checkpoint (it writes one), or batch inference from its output chunks written whole;
        else a reclaim restarts the run from its beginning (``gpuplan tco`` keeps such a job off spot
        unless the usage says ``interruptible: true``)."""
        return self.checkpoint_gb > 0 or self.resumes_by_chunks

    @property
    def is_service(self) -> bool:
        """A service (a workload with ``serving:``, planned as a month of capacity): its replicas
        are independent servers, not the nodes of one job."""
        return self.calendar_months is not None

    @property
    def checkpoint_write_h(self) -> float:
        """One checkpoint written, h, at ``checkpoint_write_gbps`` (0 for a job that writes none)."""
        return self.checkpoint_gb / self.checkpoint_write_gbps / 3600.0

    @property
    def checkpoint_interval_h(self) -> float:
        """The interval a job off spot checkpoints at, h, as the plan prices it and ``gpuplan
        deploy`` writes it into train.py: the workload's ``checkpoint.every_min``, else
        ``checkpoint_every_h`` lengthened where the writes would take more than
        :data:`gpuplan.units.CHECKPOINT_WRITE_SHARE` of the job
        (:func:`gpuplan.units.default_checkpoint_interval_min`)."""
        if self.checkpoint_every_stated:
            return self.checkpoint_every_h
        chosen = default_checkpoint_interval_min(self.checkpoint_write_h * 60.0) / 60.0
        return max(self.checkpoint_every_h, chosen)

    @property
    def checkpoint_interval_lengthened(self) -> bool:
        """:attr:`checkpoint_interval_h` is longer than the default: not the workload's, and one
        write would take more than :data:`gpuplan.units.CHECKPOINT_WRITE_SHARE` of the default's."""
        return not self.checkpoint_every_stated and self.checkpoint_interval_h > self.checkpoint_every_h

    @property
    def writes_checkpoints_off_spot(self) -> bool:
        """Whether the job pays for checkpoint writes on every pricing, not only on spot: a job
        with a checkpoint to write (not a service, not batch inference), as the launch's train.py
        writes one every ``checkpoint_interval_h`` synchronously (every GPU waits for the write)."""
        return self.checkpoint_write_h > 0 and not self.is_service and not self.resumes_by_chunks

    @property
    def spot_restart_h(self) -> float:
        """What one reclaim of a job costs before its work resumes, h: a replacement instance
        (``restart_h``), then the checkpoint read back and, for a LoRA/QLoRA job, the frozen base
        model's weights read again (the checkpoints do not hold them), both at the bandwidth the
        checkpoint is written at (``checkpoint_write_gbps``: the same disk)."""
        return self.restart_h + (self.checkpoint_gb + self.weights_gb) / self.checkpoint_write_gbps / 3600.0

    @property
    def recopies_on_reclaim(self) -> bool:
        """A spot reclaim may take the dataset's disk with it: a job (not a service, whose replicas
        read only weights) keeps its dataset on a disk of each instance (``storage_kind`` block)."""
        return not self.is_service and self.dataset_gb > 0 and self.storage_kind == "block"

    def recopy_hours(
        self, nodes: IntArray | FloatArray, network_gbps: FloatArray | None = None
    ) -> FloatArray:
        """The dataset copied again onto an option of ``nodes`` instances after a reclaim that lost
        their disks, h: the copy its set-up makes (:meth:`setup_hours` without the boot), the
        instances' copies sharing the site's uplink as they did then; 0 where
        :attr:`recopies_on_reclaim` does not hold. Unknown is never the best case: AWS terminates a
        reclaimed Spot Instance by default (AWS, "Behavior of Spot Instance interruptions", Amazon
        EC2 User Guide, https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/interruption-behavior.html),
        and the recovery of the SkyPilot managed job ``gpuplan deploy`` writes relaunches the cluster,
        tearing it down and launching it anew where it cannot bring it back in place
        (skypilot-org/skypilot, ``sky/jobs/recovery_strategy.py``, ``FailoverStrategyExecutor``):
        a new instance's disk starts empty."""
        n = np.asarray(nodes, dtype=float)
        if not self.recopies_on_reclaim:
            return np.zeros(n.shape)
        first, extra = self._copy_parts(n, network_gbps)
        out: FloatArray = first + extra
        return out

    @property
    def dataset_copy_h(self) -> float:
        """One copy of the dataset written to an instance's disk, h, at ``dataset_copy_gbps`` (the
        user's measured rate, else the disk's assumed bandwidth), whatever the instance's network."""
        return self.dataset_gb / self.dataset_copy_gbps / 3600.0

    def copy_hours(self, network_gbps: FloatArray | None, shape: tuple[int, ...]) -> FloatArray:
        """One copy of the dataset onto each option's instance, h: at ``dataset_copy_gbps``, or at
        the instance's network (``network_gbps``, Gbit/s, NaN where the catalog states none) where
        that is slower, since the copy comes over it. An unknown network leaves the rate as it is:
        it is never taken to be faster."""
        out: FloatArray = np.full(shape, self.dataset_copy_h)
        if network_gbps is None or self.dataset_gb <= 0:
            return out
        net = np.broadcast_to(np.asarray(network_gbps, dtype=float), shape) / 8.0
        rate = np.where(
            np.isfinite(net) & (net > 0), np.minimum(net, self.dataset_copy_gbps), self.dataset_copy_gbps
        )
        out = self.dataset_gb / rate / 3600.0
        return out

    @property
    def upload_h(self) -> float | None:
        """One copy of the dataset sent up the site's uplink, h (``dataset_gb`` × 8 / ``upload_gbps``);
        None where the uplink does not apply: not given, or the data is in a cloud region."""
        if self.upload_gbps is None or self.data_location is not None or self.dataset_gb <= 0:
            return None
        return self.dataset_gb * 8.0 / self.upload_gbps / 3600.0

    @property
    def copies_per_node(self) -> bool:
        """Each node brings its own copy of the dataset into the region (``data.transfer: per_node`` on
        a disk per node); otherwise one copy comes in (fanned out inside the region, or one bucket).
        A batch inference job's nodes bring their parts of one copy (:attr:`reads_its_shard`)."""
        return self.storage_kind == "block" and self.data_transfer == "per_node" and not self.reads_its_shard

    @property
    def reads_its_shard(self) -> bool:
        """Each of the job's n nodes reads only its 1/n of the dataset: batch inference
        (:attr:`resumes_by_chunks`), whose batch.py and vllm_batch.py (``gpuplan deploy``) cut the
        inputs' bytes into one range a shard and read only their own (``deploy/templates/
        batch_entry.py`` ``shard_lines``). A node's copy, at the set-up and after a reclaim, is its
        part, and the whole dataset comes into the region once in all, on any ``data.transfer``. A
        training job's every node reads all of it (every epoch goes over every sample)."""
        return self.resumes_by_chunks

    def node_share(self, n: FloatArray) -> FloatArray:
        """The part of the dataset one of ``n`` nodes copies: 1/n where :attr:`reads_its_shard`, else 1."""
        out: FloatArray = 1.0 / np.maximum(n, 1.0) if self.reads_its_shard else np.ones(n.shape)
        return out

    def _copy_parts(self, n: FloatArray, network_gbps: FloatArray | None) -> tuple[FloatArray, FloatArray]:
        """The first copy of an option of ``n`` instances, h (at :meth:`copy_hours`, or up the site's
        uplink where that is slower), and what sharing the uplink adds to it (:meth:`setup_hours`)."""
        share = self.node_share(n)
        disk = self.copy_hours(network_gbps, n.shape) * share
        if self.upload_h is None:
            return disk, np.zeros(n.shape)
        one = self.upload_h * share
        if self.copies_per_node or self.reads_its_shard:  # n copies, or n parts, up the one uplink
            extra = np.maximum(n * one, disk) - np.maximum(one, disk)
        elif self.storage_kind == "block":
            extra = np.where(n > 1, disk, 0.0)
        else:
            extra = np.zeros(n.shape)
        return np.maximum(one, disk), extra

    def setup_hours(self, nodes: IntArray | FloatArray, network_gbps: FloatArray | None = None) -> FloatArray:
        """The set-up of an option of ``nodes`` instances, h: ``setup_h``, with each instance's copy
        at its own network where the catalog states one slower than ``dataset_copy_gbps``
        (``network_gbps``, Gbit/s, NaN where not stated; None: no instance's network is known),
        plus what sharing the site's uplink adds. The copies of ``per_node`` go up it at once, each
        at 1/n of it, so all n arrive after n × ``upload_h`` (each written to its disk as it comes,
        at most at the copy's rate); ``fan_out`` sends one copy, which is then copied to the other
        nodes inside the region at the copy's rate; one bucket takes one copy. Without the uplink,
        every instance copies its own at the copy's rate, whatever the node count."""
        n = np.asarray(nodes, dtype=float)
        first, extra = self._copy_parts(n, network_gbps)
        one = self.upload_h
        # ``setup_h`` holds the first copy at ``dataset_copy_gbps``: the instance's own replaces it
        assumed = self.dataset_copy_h if one is None else max(one, self.dataset_copy_h)
        out: FloatArray = self.setup_h - assumed + first + extra
        return out

    @property
    def replica_start_up(self) -> StartUp:
        """A serving replica's start-up on a new instance (:func:`gpuplan.start_up.replica_start_up`,
        the model deploy and ``simulate autoscale`` count too): ``restart_h``, then ``weights_gb``
        read at the workload's ``data.copy_gbps`` where it gives one (``copy_gbps_stated``), else at
        ``checkpoint_write_gbps`` (the same disk checkpoints are written to), then the engine's start."""
        if self.copy_gbps_stated:
            rate, given = self.dataset_copy_gbps, "data.copy_gbps"
        else:
            rate, given = self.checkpoint_write_gbps, None
        return replica_start_up(self.weights_gb, rate, given=given, boot_s=self.restart_h * 3600.0)

    @property
    def service_restart_h(self) -> float:
        """The part of a service instance's start-up that does not grow with the replicas it holds, h:
        the boot and the engine's start (:attr:`replica_start_up`; where the weights' size is not
        known, the boot and the bound deploy gives a replica to come up)."""
        return self.replica_start_up.seconds(0) / 3600.0

    @property
    def weights_load_h(self) -> float:
        """Time to read ``weights_gb`` back from an instance's disk, h, at :attr:`replica_start_up`'s
        rate: a service's replacement instance loads its replicas' weights so
        (:func:`gpuplan.plan.spot.service_down_h`)."""
        return (self.replica_start_up.read_s(1) or 0.0) / 3600.0

    @property
    def splits_heads_unevenly(self) -> bool:
        """The workload's ``tensor_parallel`` splits the model's attention (or key/value) heads
        unevenly: no GPU count runs it (``perf.stages.layout.check_model_parallel``)."""
        t, heads = self.tensor_parallel, self.attention_heads
        kv = self.kv_heads or heads
        return t > 1 and heads > 0 and bool(heads % t or (kv % t and t % kv))

    @property
    def replica_gpus(self) -> int:
        """GPUs of one model replica, ``tensor_parallel × pipeline_parallel``: a candidate's GPU
        count must be a multiple of it."""
        return self.tensor_parallel * self.pipeline_parallel

    @property
    def stored_gb_per_copy(self) -> float:
        """What one disk (or the one bucket) holds, GB: the dataset, the checkpoints kept and the
        model weights (a service's, which every instance loads its replicas from its own disk; a
        fine-tune's frozen base)."""
        return self.dataset_gb + self.checkpoints_kept * self.checkpoint_gb + self.weights_gb

    @property
    def launch_disk_gb(self) -> int:
        """The disk each instance is launched with, GB, as ``gpuplan deploy`` asks for it
        (:func:`gpuplan.launch_disk.disk_need_gb`): the plan prices this disk, not the bytes on it,
        for the hours it bills the instance's disk. On block storage it holds
        :attr:`stored_gb_per_copy` (the plan's ``disk_gb``). In a bucket (``storage_kind`` object)
        each instance still boots with a disk of its own: an inference engine's (a service's, a
        batch job's) holds the weights it downloads (deploy's ``LaunchSpec.with_weights_gb``), a
        training job's is the default launch disk (the dataset, the checkpoints and any frozen base
        stay in the bucket, priced by their bytes: :attr:`bucket_gb`)."""
        if self.storage_kind == "block":
            return disk_need_gb(self.stored_gb_per_copy)
        return disk_need_gb(self.weights_gb if self.task == "infer" else 0.0)

    @property
    def bucket_gb(self) -> float:
        """What the one shared object-storage bucket holds, GB (priced by its bytes, for the job's
        hours or the service's month, whatever its instances do): :attr:`stored_gb_per_copy` where
        ``storage_kind`` is object, 0 on block storage (each instance's disk holds it)."""
        return self.stored_gb_per_copy if self.storage_kind == "object" else 0.0

    @property
    def result_size_gb(self) -> float:
        return self.checkpoint_gb if self.results_gb is None else self.results_gb


@dataclass(frozen=True, kw_only=True)
class EstimateKey:
    """A GPU configuration the estimator is asked about (one per distinct candidate shape)."""

    gpu: str
    gpus_per_node: int
    nodes: int
    interconnect: str
    """Intra-node link as the catalog states it ("" when unknown)."""
    network_gbps: float | None
    """Inter-node network per instance, Gbit/s (matters for nodes > 1)."""
    vcpus: float | None = None
    """vCPUs of one instance (they decode an image workload's samples); None when unknown."""
    network_kind: str = ""
    """Inter-node fabric as the catalog states it (``EFA``, ``InfiniBand``, ``RoCE``, ``TCP``); "" when
    not published."""
    memory_gib: float | None = None
    """Host RAM of one instance, GiB (it decides whether the dataset stays in the page cache); None
    when unknown."""

    @property
    def gpu_count(self) -> int:
        return self.gpus_per_node * self.nodes


@dataclass(frozen=True, kw_only=True)
class EstimateRow:
    """The estimator's answer for one :class:`EstimateKey`."""

    fits: bool
    """The job can run here: memory not ruled out (the low end of its band fits), a serving load
    carried."""
    job_time_h: float
    """Failure-free job time, h (nan when it does not fit)."""
    memory_uncertain: bool = False
    """The memory band straddles the GPU's usable memory (*may not fit*): ranked after every option
    that fits for certain, and flagged."""
    memory_over: bool = False
    """Of those, the estimate's point (:attr:`memory_needed_gib`) is above the usable memory too:
    only the low end of the band fits (*does not fit at the estimate*). Ranked after every option
    whose point fits, and flagged apart: the job most likely runs out of memory there."""
    job_time_h_low: float
    job_time_h_high: float
    peak_memory_gib: float = math.nan
    memory_needed_gib: float = math.nan
    """The memory that must fit one GPU at the estimate's point (``MemoryEstimate.required_gib``),
    GiB; nan when unknown."""
    memory_needed_gib_high: float = math.nan
    """The high end of the memory band that must fit one GPU, GiB (what decides *may not fit*
    against :attr:`usable_memory_gib`); nan when unknown."""
    usable_memory_gib: float = math.nan
    """The memory a process can allocate on the GPU, GiB (``perf.memory.usable_memory_gib``); nan
    when unknown."""
    step_time_s: float = math.nan
    """One training step (or one batch) on this configuration, s; nan when unknown."""
    input_bound: bool = False
    """The instance's CPUs, not its GPUs, set the step time (an image workload's decode and
    augmentation at its vCPUs per GPU)."""
    input_unknown: bool = False
    """An image workload on an instance whose vCPUs the catalog lacks: whether its CPUs keep the
    GPUs fed is unknown (the time is the GPUs' alone, and the option says so)."""
    misses_latency: bool = False
    """A service that fits and carries its load but whose p95 latency, p95 time to first token or
    time per output token is over the workload's target, or unknown where a target is set (``fits``
    is False): left out for the target, not for memory."""
    short_of_load: bool = False
    """A service that fits but whose replicas cannot carry its load within the headroom (or at
    all): left out for the load, not for memory (``fits`` is False)."""
    rate_unknown: bool = False
    """No source gives this GPU's rate for the workload's math (the H20's FP8 tensor cores): its
    time is unknown (``fits`` is False), left out for that, never ranked as fast or free."""
    p95_latency_s: float = math.nan
    """A service's estimated p95 request latency here, s (nan: not a service, or unknown)."""
    ttft_p95_s: float = math.nan
    """A service's estimated p95 time to first token here, s (nan: not a service, or unknown)."""
    tpot_s: float = math.nan
    """A service's estimated time per output token here, at its load's operating point, s (nan: not
    a service, or unknown)."""
    tpot_floor_s: float = math.nan
    """The shortest time per output token a replica here reaches at any load, s: a target below it
    is met by no number of replicas (nan: not a service, or unknown)."""
    replica_requests_per_s: float = math.nan
    """A service: the requests/s one of its replicas carries here at its full KV cache (wall time:
    a time-sharing replica's share), as ``estimate`` gives it (nan: not a service, or unknown)."""
    tensor_parallel: int = 0
    """A service whose workload states no ``tensor_parallel``: the degree its replicas are split
    over here, the fewest GPUs that hold the model and carry the load (0: the workload's own)."""
    implausible: tuple[str, ...] = ()
    """Each datasheet bound the one-GPU step breaks, in words (``perf/plausibility.py``: the flags
    ``estimate`` shows for this GPU); empty when the step is plausible."""
    wording: Callable[[], tuple[str, ...]] | None = field(default=None, repr=False, compare=False)
    """Words :attr:`notes` when they are read: the planner asks about thousands of offers and shows
    a few, so the estimator words none until then (None: no notes)."""

    @property
    def notes(self) -> tuple[str, ...]:
        """The estimate's caveats (layout, time range, memory, host, network), worded now."""
        return self.wording() if self.wording is not None else ()
