"""The plan document: what ``gpuplan plan --json`` writes and ``gpuplan deploy`` reads.

One model, both ways: the writer (report/plan.py) builds a :class:`PlanDocument`, the reader
(deploy/spec.py) validates a file into the same class, so the two cannot drift apart.

Money is in USD, in fields that say so (``total_cost_usd``, ``price_usd_per_hour``), whatever
``--currency`` shows: the document states the display currency and the CNY rate (the one CNY
prices were converted at, and the one the table shows yuan at).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from gpuplan.documents.base import Document, ExchangeRateDoc, HostKind
from gpuplan.errors import Phrase
from gpuplan.i18n.messages import N_
from gpuplan.vocab import MemoryVerdict, Parallelism, PricingModel, Task

__all__ = [
    "PLAN_SCHEMA_VERSION",
    "CheckpointsDoc",
    "CostBreakdownDoc",
    "CostItemDoc",
    "CountryCrossingDoc",
    "DataCopyDoc",
    "PersonaDoc",
    "PlanConstraintsDoc",
    "PlanDocument",
    "PlanOption",
    "PlanWithoutStalePrices",
    "PlanWorkload",
    "ScheduleDoc",
    "ServiceDayDoc",
    "ServiceDoc",
    "ServiceSpotDoc",
    "SpotBandDoc",
    "SpotDoc",
    "UnknownFactDoc",
    "WorkloadCheckpoint",
    "WorkloadData",
    "WorkloadInputs",
    "WorkloadModel",
    "upgrade_v1_option",
    "workload_digest",
]

#: The plan document's schema version. 2: ``price_usd`` per ``price_unit_hours`` became
#: ``price_usd_per_month`` (monthly billing) with ``price_unit``; the document states
#: ``display_currency`` and ``exchange_rate``. 3: a service option that scales down with its day
#: (``serving.min_replicas`` set, a mean below the peak, billed by the hour, the autoscaler able to
#: follow the day) has the fleet its day needs as ``total_cost_usd`` — the figure ``tco`` prices it
#: at — and its peak fleet all month as ``peak_fleet_cost_usd`` and ``total_cost_usd_high``; before,
#: ``total_cost_usd`` was always the peak fleet all month. ``service_day`` says how. 4: such an
#: option's ``service_day.hours_per_month`` (and so its ``total_cost_usd``) are the hours each
#: instance is billed — each time the day adds it, its start-up before it serves and the scale-down
#: delay after — with the hours it serves as ``serving_hours_per_month`` and the start-ups a day
#: beside them; before, the hours it served. 5: a service on a schedule (``serving.schedule``) has a
#: ``service_day`` on every option billed by the hour, one instance's too, whose hours are its
#: schedule's with each day's start-up (``service_day.schedule`` says which), and its answers' egress
#: and cost per token are those of its hours. 6: an option's storage (``cost.storage_usd``, its
#: ``storage`` item) prices each instance's launch disk (``launch_disk_gb``, the size
#: ``deploy`` launches it with), where before it priced the bytes stored (``disk_gb``), so the same
#: plan's storage is higher from version 6 on. ``deploy`` reads versions 1 (:func:`upgrade_v1`) to 6.
#: An option may carry ``data_copy`` (a field a reader may ignore; filled in ``plan --json`` and the
#: service's documents alike, wherever a copy could be kept).
PLAN_SCHEMA_VERSION = 6


class CostItemDoc(Document):
    """One charge of an option with how many times it is paid (what is really rented)."""

    component: Literal[
        "compute", "setup", "checkpoints", "storage", "egress_in", "egress_out", "licences", "spot_overhead"
    ]
    cost_usd: float | None
    multiplier: int = Field(ge=0)
    """Instances, disks or dataset copies the unit charge is paid for."""
    per: Literal["instance", "disk", "bucket", "copy"]
    included_in: Literal["compute"] | None = None
    """The component this item is part of (the set-up and, off spot, the checkpoint writes are part
    of compute); None when it adds up."""


class CostBreakdownDoc(Document):
    """The all-in cost of one option by component, USD; the known parts sum to ``total_cost_usd``
    (a licence fee the catalog does not know is left out, ``licence_unknown``)."""

    compute_usd: float | None
    storage_usd: float | None
    egress_usd: float | None
    licence_usd: float | None
    spot_overhead_usd: float | None
    items: list[CostItemDoc] = Field(default_factory=list)
    """Each charge with its multiplier: compute (instances), its set-up part, storage (disks or one
    bucket), the dataset in (copies), the results back (``egress_out``; a service's: its answers to
    its clients over the internet), licences, spot overhead."""
    licence_unknown: list[str] = Field(default_factory=list)
    """Licence items with no known fee in the option's region: ``licence_usd`` (and the licences
    item's ``cost_usd``) is then None — unknown, not 0 — and ``total_cost_usd`` leaves them out."""


class DataCopyDoc(Document):
    """The option's dataset, moved into its region at a price, kept there as one copy in the
    region's object storage instead of moved in for each run, as ``gpuplan tco`` keeps it: what a
    month of runs that read the same data pays for it then."""

    copy_in_usd: float = Field(ge=0)
    """One copy moved in once (the run's dataset in, over the copies its disks need)."""
    storage_usd_per_month: float = Field(ge=0)
    """That copy kept a month at the region's object-storage price (unknown: the highest the
    catalog holds, ``assumptions`` says so)."""
    assumptions: list[str] = Field(default_factory=list)


class UnknownFactDoc(Document):
    """A fact the catalog lacks that the option was costed at the conservative bound of."""

    fact: Literal[
        "vcpus",
        "ram",
        "network",
        "egress_price",
        "storage_price",
        "spot_rate",
        "price_date",
        "gpu_link",
        "region",
        "reclaim_disk",
    ]
    assumed: str
    """The bound taken, in words."""
    costed: bool = True
    """Whether the bound is in the option's figures (false: a listed price's date or an unnamed
    region, which only rank it after an option that knows them; a price date is costed where an
    undated price was held to a dated one above it)."""


class ServiceDoc(Document):
    """What a service's option serves, as ``gpuplan estimate`` gives it for the same GPU and count:
    the load split evenly over the replicas, each at its full KV cache."""

    requests_per_s: float = Field(ge=0)
    """The load (``serving.requests_per_s``)."""
    mean_requests_per_s: float | None = Field(default=None, ge=0)
    """The load on average over the month (``serving.mean_requests_per_s``), which the cost per token
    is taken over; null: not given (``requests_per_s`` all month)."""
    replicas: int = Field(ge=1)
    """Model replicas the option runs: its GPUs ÷ ``replica_gpus`` × ``replicas_per_gpu``."""
    replica_gpus: int = Field(ge=1)
    """GPUs of one replica (``tensor_parallel × pipeline_parallel``)."""
    tensor_parallel: int = Field(default=1, ge=1)
    """GPUs each layer of a replica is split over: the workload's ``tensor_parallel``, or the
    planner's choice for this option where the workload gives none (``tensor_parallel_chosen``);
    ``gpuplan deploy`` starts the engine at it."""
    tensor_parallel_chosen: bool = False
    """The planner chose ``tensor_parallel`` for this option (the workload gives none)."""
    replicas_per_gpu: int = Field(default=1, ge=1)
    """Replicas time-sharing each GPU (``serving.share_gpu``)."""
    replica_capacity_requests_per_s: float | None = Field(default=None, ge=0)
    """Requests/s one replica carries (wall time: a time-sharing replica's share); null when not
    estimated."""
    capacity_requests_per_s: float | None = Field(default=None, ge=0)
    """Requests/s all the replicas carry (``replicas`` × the replica's); null when not estimated."""
    utilisation: float | None = Field(default=None, ge=0)
    """The load over ``capacity_requests_per_s`` (1 or more: overloaded); null when not estimated."""
    p95_latency_s: float | None = Field(default=None, ge=0)
    """p95 request latency at the load, s (queueing as M/M/1); null when overloaded or not
    estimated (``p95_unknown`` says which)."""
    p95_unknown: str | None = None
    """Why ``p95_latency_s`` is null, in words; null when it is known."""
    p95_target_s: float | None = None
    """The workload's p95 latency target, s; null when it sets none."""
    ttft_p95_s: float | None = Field(default=None, ge=0)
    """p95 time to first token at the load, s: the queueing wait at its p95 (M/M/1, as
    ``p95_latency_s``) plus the prefill; null where ``p95_latency_s`` is."""
    ttft_target_s: float | None = None
    """The workload's p95 time-to-first-token target, s; null when it sets none."""
    tpot_s: float | None = Field(default=None, ge=0)
    """Time per output token at the load, s: the decode step at the sequences the load keeps
    running on each replica, stretched by the prompts beside it (the typical gap between streamed
    tokens, not a p95: ``gpuplan simulate autoscale`` measures that); null when not estimated."""
    tpot_target_s: float | None = None
    """The workload's p95 time-per-output-token target, s; null when it sets none."""
    users_in: list[str] = Field(default_factory=list)
    """The countries the service's users are in (``serving.users_in``, ISO 3166 alpha-2 codes);
    empty when not named: the latency targets are then held at the server, the network not counted."""
    users_rtt_ms: float | None = Field(default=None, ge=0)
    """The estimated network round trip from this option's region to the farthest of ``users_in``,
    ms (great-circle distance × 2.1 at 66% of the speed of light, there and back): added to
    ``ttft_p95_s`` and ``p95_latency_s`` where they were held to their targets, not to ``tpot_s``;
    null when no users are named or where the region is, is not known (``users_rtt_basis`` says)."""
    users_rtt_basis: str | None = None
    """Where the region and the farthest users were taken to be and how far apart (a region's own
    city, else its country's most populous city), or why the round trip is not known; null when no
    users are named."""


class ServiceSpotDoc(Document):
    """What spot reclaims cost a service: availability, not re-done work. A reclaim takes every
    replica on the instance down until a replacement has started and read the weights back."""

    interruptions_per_month: float
    """Expected reclaims of the service's instances in a month (730 h)."""
    down_min_per_reclaim: float
    """Minutes the replicas of a reclaimed instance are down."""
    down_assumed: str
    """How those minutes add up, in words (assumptions)."""
    replicas: int
    """Replicas the option runs, sized to carry the load: the load target."""
    replicas_per_reclaim: int
    """Replicas one reclaim takes (all those on the instance)."""
    replica_hours_down_per_month: float
    below_target_share: float = Field(ge=0, le=1)
    """Share of the time with fewer replicas up than ``replicas``, without a spare; where the fleet
    follows its day (``service_day`` priced), fewer than the hour's fleet, over the hours it runs at
    each size."""
    spare_instances: int = Field(ge=1)
    """Spare instances included in the option's price (``spot_overhead_usd``)."""
    spare_usd: float
    below_target_share_with_spare: float = Field(ge=0, le=1)
    """Share of the time below ``replicas`` (the hour's fleet where it follows its day) with the
    spare running (two reclaims overlapping; reclaims taken as independent)."""
    spare_interruptions_per_month: float
    """Expected reclaims of the spare in a month (spot too): each takes a replacement, no replica
    goes down; not in ``interruptions_per_month``."""
    on_demand_usd_per_instance_hour: float | None = None
    """The catalog's on-demand price of the same instance type in the same region, USD per hour:
    what an instance of an on-demand fallback replica costs; null where the catalog holds none."""


class SpotBandDoc(Document):
    """One of the catalog's interruption bands for a spot option's instance type and region."""

    band: str
    source: str
    """Where it comes from, with its date."""
    costed: bool
    """True for the band the option is costed at: the worst its sources give."""


class CheckpointsDoc(Document):
    """The checkpoints a job off spot writes and the time they take (train.py saves synchronously
    every ``interval_min`` on every pricing; a spot option's are in ``spot``)."""

    interval_min: float = Field(gt=0)
    """The workload's ``checkpoint.every_min``, else the interval ``gpuplan deploy`` writes into
    train.py."""
    interval_stated: bool = False
    """True where ``interval_min`` is the workload's own."""
    write_min: float = Field(ge=0)
    writes: float = Field(ge=0)
    overhead_h: float = Field(ge=0)
    """Hours spent writing them, part of ``job_time_h``."""
    usd: float | None = None
    """The part of ``cost_breakdown.compute_usd`` that pays for them."""


class SpotDoc(Document):
    """Spot risk of one option: interruption rate, checkpointing and the time they cost (a job), or
    the availability reclaims cost and the spare that keeps the load target (a service: ``service``;
    its checkpoint and lost-time fields are null)."""

    interruptions_per_instance_hour: float | None
    mtbi_h: float | None
    """Mean time between interruptions of the whole job (all its nodes; a service's spare too),
    hours."""
    rate_source: str
    rate_assumed: bool
    checkpoint_write_min: float | None
    checkpoint_interval_min: float | None
    checkpoint_overhead_h: float | None
    expected_lost_h: float | None
    expected_interruptions: float | None
    """Interruptions expected over the option's time (a service: its spare's reclaims too)."""
    checkpoint_interval_stated: bool = False
    """The interval is the workload's ``checkpoint.every_min``, shorter than Young/Daly's
    (``checkpoint_optimum_min``)."""
    checkpoint_optimum_min: float | None = None
    service: ServiceSpotDoc | None = None
    """A service's availability on spot; null for a job."""
    interruption_bands: list[SpotBandDoc] = Field(default_factory=list)
    """Where the catalog's sources disagree on the instance type's band in its region: every band,
    the costed (the worst) first; empty where it holds one band or none."""
    restart_min: float | None = None
    """A job: minutes one reclaim costs before its work resumes (a replacement, the checkpoint read
    back and a LoRA/QLoRA job's frozen base read again); null for a service."""
    restart_assumed: str | None = None
    """How ``restart_min`` adds up (assumptions), in words; null for a service."""
    resume_chunk_min: float | None = Field(default=None, ge=0)
    """Batch inference: minutes of work in one output chunk of the batch job ``gpuplan deploy``
    writes, which resumes by chunks (a reclaimed shard runs at most that again); null otherwise."""


class ScheduleDoc(Document):
    """The hours a service runs (``serving.schedule``), none outside them."""

    hours: str
    """``09:00-19:00``, local time."""
    days: list[str]
    """The days it runs: ``mon`` … ``sun``."""
    time_zone: str
    """The IANA time zone of its hours."""
    hours_per_week: float = Field(gt=0, le=168)
    """The hours a week it runs."""


class ServiceDayDoc(Document):
    """A service option's fleet over its day (``plan/service_day.py``): the instances its
    autoscaler runs minute by minute on the day ``simulate`` draws for the serving block's mean and
    peak, as ``tco`` prices it."""

    gpus_per_step: float = Field(gt=0)
    """GPUs of one instance, as the autoscaler adds it."""
    hours_per_month: list[float] = Field(default_factory=list)
    """Hours a month each further instance is billed, busiest first: the hours it serves and, each
    time the day adds it, its start-up before them and the scale-down delay after them."""
    serving_hours_per_month: list[float] = Field(default_factory=list)
    """Hours a month each of those instances serves, busiest first."""
    start_ups_per_day: int = Field(default=0, ge=0)
    """Instances the day starts, a day (on a schedule: each day it runs)."""
    start_up_instance_hours_per_day: float = Field(default=0.0, ge=0)
    """Instance-hours a day billed beyond those served: the start-ups and scale-down delays (on a
    schedule: each day it runs)."""
    scale_down_delay_min: float = Field(default=0.0, ge=0)
    """Minutes the autoscaler keeps an instance the load no longer needs (the longer of deploy's
    targets')."""
    share: float = Field(ge=0, le=1)
    """The instance-hours the day bills over the peak fleet's all month."""
    per_replica_requests_per_s: float = Field(gt=0)
    """The load one replica is held at, requests/s (as ``deploy``'s autoscaler targets it)."""
    start_up_min: float = Field(ge=0)
    """Minutes a new instance takes to serve: its boot, the engine's start and its replicas' weights
    read from its disk (the one start-up model plan, deploy and ``simulate autoscale`` count)."""
    rise_min: float | None = Field(default=None, ge=0)
    """Minutes the day's load takes, at its steepest, to grow by one instance's load; null: it
    never does."""
    follows: bool
    """A new instance serves before the load outgrows the fleet: the autoscaler can follow the day."""
    priced: bool
    """``total_cost_usd`` is this day's fleet (``peak_fleet_cost_usd`` the bound); false: the option
    is priced as its peak fleet all month (``words`` says why)."""
    words: str
    """How the option is priced against its day, in words (the user's language)."""
    schedule: ScheduleDoc | None = None
    """The hours it runs, whose hours these are (its whole fleet in them, none outside); null: its
    day, every day."""


class CountryCrossingDoc(Document):
    """Where an option takes its data from and where it runs the work, for any country."""

    leaves: bool
    """The work runs in another country than one of ``from_countries``: the data (the dataset in,
    the results back, a service's users' requests and its answers) leaves that country. Whether
    that is lawful is not judged: the rules of the countries involved say."""
    from_countries: list[str]
    """ISO 3166 alpha-2 codes of where the data is: ``data.location``'s country where data moves,
    then a service's users' countries (``serving.users_in``); empty where no data moves."""
    to_country: str
    """ISO 3166 alpha-2 code of the country of the option's region."""


class PlanOption(Document):
    """One costed option: an offer, a node count and a pricing model."""

    provider: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    """The provider's code (``aws``); which codes exist is the catalog's registry
    (``gpuplan.catalog.PROVIDERS``), checked when deploy reads the file."""
    region: str
    zone: str | None = None
    country: str | None = None
    """ISO 3166 alpha-2 code; None when unknown."""
    crosses_border: bool | None = None
    """The option moves the job's data (dataset in from ``data.location``, results back) across the
    border of mainland China (``CN``; Hong Kong is outside it): true where exactly one of the data
    and the option is in it, false where both are on one side or nothing moves; null where the data's
    country is not known (``data.location`` not given: the data is at the user's site) or the
    option's is not. Moving data out of mainland China is governed by its data-export rules, which
    gpuplan does not judge; the plan's notes say which options cross. It is about mainland China's
    border only: false does not mean the data stays in its country (``data_leaves_country`` says
    that, for any country)."""
    data_leaves_country: CountryCrossingDoc | None = None
    """Whether the option runs the work in another country than its data's (or, for a service, its
    users'), for any country, with the countries from and to; null where the option's country is not
    known, or data moves and ``data.location`` is not given or its country is not known."""
    host_kind: HostKind | None = None
    """What the price rents, as the provider's terms state it: ``cloud_vm`` (a VM in the provider's
    own data centre), ``bare_metal`` (a whole server of the provider's), ``secure_cloud`` (a
    marketplace's own or vetted data centre), ``community_host`` (a machine an independent host
    lists), ``resold`` (another cloud's machine sold through an aggregator); null where the
    provider's terms do not say (never taken for the best case: the plan names the best option on a
    provider-run machine beside a recommendation of unknown kind or on a community host)."""
    data_distance_km: float | None = Field(default=None, ge=0)
    """Great-circle distance from the job's data (``data.location``) to the option's region, km: it
    breaks ties of cost and time between jobs (nearer first); null where ``data.location`` is not
    given or either place is not known (ranked after every known one)."""
    sanctions: list[str] = Field(default_factory=list)
    """The official pages (publisher, title, URL) under which the option's country is under broad US
    or EU sanctions or export restrictions: a check before paying, not legal advice; the option is
    not left out (``--countries`` keeps such places out). Empty where none is known."""
    instance_type: str
    gpu: str
    """Canonical GPU id from gpuplan.hardware (``A100-SXM4-80GB``)."""
    gpu_count: int = Field(ge=1)
    """GPUs in all, over every node."""
    gpus_per_node: int = Field(ge=1)
    """GPUs per node; a file that omits it means ``gpu_count // nodes``."""
    nodes: int = Field(default=1, ge=1)
    pricing: PricingModel
    interconnect: str | None = None
    network_gbps: float | None = None
    """Network bandwidth per node, Gbit/s."""
    network_kind: str | None = None
    """The fabric between nodes as the catalog states it (``EFA``, ``InfiniBand``, ``RoCE``, ``TCP``);
    None when not stated. EFA, InfiniBand and RoCE must be set up at launch."""
    network_timed_gbps: float | None = Field(default=None, gt=0)
    """The network per node the option's time was estimated at, Gbit/s: the catalog's
    (``network_gbps``), the user's (``plan --network-gbps``, for an instance the catalog gives no
    network) or the slowest assumed (``network_source``); null for one node or a service."""
    network_timed_kind: str | None = None
    """The fabric that time was estimated over: the catalog's word (``EFA``, ``InfiniBand`` …),
    ``RDMA`` or ``TCP``; null where ``network_timed_gbps`` is."""
    network_source: Literal["catalog", "given", "slowest-assumed"] | None = None
    """Where ``network_timed_gbps`` and ``network_timed_kind`` come from: the catalog's instance row,
    the user's statement (``given``: ``gpuplan deploy`` then sets up the fabric it names), or the
    slowest network a GPU instance is known to have; null where ``network_timed_gbps`` is."""
    commitment_usd: float | None = Field(default=None, ge=0)
    """A service on a reservation: what its instances' whole term costs, USD, billed whether the
    service runs or not (``total_cost_usd`` is the month's share of it); null otherwise."""
    commitment_months: int | None = Field(default=None, ge=1)
    """The reservation's term in months, where ``commitment_usd`` is given."""
    upfront: str | None = None
    """The reservation's payment option its price is the effective rate of (``partial``, ``all``);
    null for no upfront or another pricing model."""
    upfront_usd: float | None = Field(default=None, ge=0)
    """All upfront: the cash its instances' reservations take on day one, USD (the effective rate
    × the term's hours × instances); null otherwise (partial upfront: the split is not published)."""
    job_time_h: float | None = Field(default=None, ge=0)
    job_time_h_low: float | None = None
    job_time_h_high: float | None = None
    compute_time_h: float | None = None
    billed_hours: float | None = None
    total_cost_usd: float | None = None
    """The all-in cost, USD; a service that scales down with its day: the fleet its day needs
    (``service_day``), with its peak fleet all month as ``peak_fleet_cost_usd``."""
    total_cost_usd_low: float | None = None
    total_cost_usd_high: float | None = None
    peak_fleet_cost_usd: float | None = Field(default=None, ge=0)
    """A service priced as the fleet its day needs: its all-in cost with its peak fleet all month,
    the bound where the autoscaler does not scale down as assumed; null where ``total_cost_usd`` is
    the peak fleet all month already."""
    service_day: ServiceDayDoc | None = None
    """A service with a mean below its peak on several instances: its fleet over the day; null
    otherwise (``total_cost_usd`` is then its peak fleet all month)."""
    cost_breakdown: CostBreakdownDoc | None = None
    data_copy: DataCopyDoc | None = None
    """Where the dataset is moved into the option's region at a price, each run reads the same data
    and the provider's object storage there can keep it (the clouds, not a marketplace): one copy
    moved in and kept a month, which ``gpuplan serve``'s budget counts once for a month's runs where
    it costs less than moving the dataset in for each (``gpuplan tco``'s rule). Filled on every
    option of the document (``gpuplan plan --json`` and the service alike) whose dataset is moved in
    at a price from another region (the workload's ``data.location``), whose provider's instances
    read its object storage there for free, and whose runs read the same data (not batch
    inference); null otherwise."""
    price_usd_per_hour: float | None = None
    """Price of one instance-hour, USD (monthly / 730 h; CNY at the dated rate)."""
    price_usd_per_month: float | None = None
    """Price of one instance-month, USD, for an option billed by the month (None when hourly)."""
    price_unit: Literal["hour", "month"] = "hour"
    """What one billed unit is: an hour, or a calendar month (monthly and reserved terms)."""
    price_source: str | None = None
    confidence: str | None = None
    as_of: str | None = None
    stale: bool = False
    """The price is not known to be within the catalog's staleness limit: older, or of unknown age."""
    age_days: int | None = None
    """The oldest the price can be on the day of the plan (from the earliest day ``as_of`` allows,
    or from ``age_bound_launch`` where that is later), days; None when undated."""
    age_bound_launch: str | None = None
    """``YYYY-MM``: the launch month of the option's GPU where it, not ``as_of``, bounds the price's
    age (no price is older than its GPU); None where ``as_of`` does."""
    staleness: Literal["fresh", "stale", "unknown"] | None = None
    """Against ``stale_after_days``: fresh even at its oldest, stale even at its youngest, or unknown
    (the date's bounds straddle the limit, or there is none)."""
    unknown_facts: list[UnknownFactDoc] = Field(default_factory=list)
    """Facts the catalog lacks, each costed at its conservative bound (which the ranking uses)."""
    best_case_total_cost_usd: float | None = None
    """The all-in cost with every unknown fact at its best case; None when none is unknown."""
    best_case_job_time_h: float | None = None
    """The job time with every unknown fact at its best case; None when none is unknown."""
    usd_per_million_output_tokens: float | None = None
    """All-in cost per million output tokens: a service's over request rate × output tokens in the
    months billed; a batch generation job's (inputs.output_tokens) over the tokens the run generates
    (samples × epochs × output_tokens). None for any other job, or where not known
    (``usd_per_million_tokens_unknown`` says why)."""
    usd_per_million_tokens: float | None = None
    """All-in cost per million prompt and output tokens (a batch generation job's prompts at
    inputs.seq_len tokens each); None as ``usd_per_million_output_tokens`` is."""
    usd_per_thousand_images: float | None = None
    """An image service's (inputs.denoising_steps: one image a request) all-in cost per 1,000
    images, over request rate × the months billed; None for any other workload."""
    usd_per_thousand_requests: float | None = None
    """A forward-pass service's (one forward pass of the traced model a request: a classifier, an
    embedding, a segmentation) all-in cost per 1,000 requests, over request rate × the months
    billed; None for any other workload."""
    usd_per_thousand_samples: float | None = None
    """A batch inference job's (task: infer without serving:) all-in cost per 1,000 samples, over the
    samples the run processes (data.samples × epochs); None for any other job, one without a sample
    count, or where not known (``usd_per_thousand_samples_unknown`` says why)."""
    usd_per_thousand_samples_unknown: str | None = None
    """Why ``usd_per_thousand_samples`` is null for a batch job with a sample count."""
    usd_per_million_tokens_unknown: str | None = None
    """Why the two figures above are None for a service or a batch generation job (its all-in cost
    not known); None where they are known or do not apply."""
    peak_memory_gib: float | None = None
    """Estimated peak memory per GPU, GiB."""
    input_bound: bool = False
    """An image workload whose decode and augmentation on this instance's vCPUs per GPU cannot keep
    up with its GPUs: the job time is the CPUs' bound (JPEG decode + random-resized crop at an
    assumed 100 images/s per vCPU, 50–250)."""
    memory_verdict: MemoryVerdict | None = None
    """``fits`` or ``may-not-fit`` (the memory band straddles the GPU's usable memory: ranked after
    the options that fit); None in a file written before the verdict existed."""
    memory_over: bool = False
    """Of the ``may-not-fit`` options, one whose estimate's point (``memory_needed_gib``) is above
    ``usable_memory_gib`` too: only the low end of the estimate's range fits. Ranked after every
    option whose point fits; recommended only where none does (the notes say so)."""
    memory_needed_gib: float | None = None
    """The memory that must fit one GPU at the estimate's point (``estimate``'s
    ``memory.required_gib``), GiB; None where not known."""
    memory_needed_gib_high: float | None = None
    """The high end of its range (``memory.required_gib_high``), GiB; None where not known."""
    usable_memory_gib: float | None = None
    """The memory a process can allocate on one of the option's GPUs, GiB; None where not known."""
    deadline_miss_probability: float | None = None
    checkpoint_interval_min: float | None = Field(default=None, gt=0)
    expected_interruptions: float | None = None
    spot: SpotDoc | None = None
    checkpoints: CheckpointsDoc | None = None
    """A job off spot: the checkpoints it writes (null on spot: ``spot``; or where none is written)."""
    compliance: list[str] = Field(default_factory=list)
    """Compliance labels of the region from a source that can be relied on (a certificate list)."""
    compliance_claimed: list[str] = Field(default_factory=list)
    """Compliance labels a low-confidence source only claims for the region (an article, not the
    certificate); they meet a required label only with ``allow_low_confidence``."""
    kubernetes: str | None = None
    """The provider's managed Kubernetes service (``EKS``), None where it has none."""
    flags: list[str] = Field(default_factory=list)
    implausible: list[str] = Field(default_factory=list)
    """Each datasheet bound the estimated step on this option's GPU breaks, in words (the
    ``plausibility`` flags of ``estimate --json``); empty when the estimate is plausible."""
    assumptions: list[str] = Field(default_factory=list)
    service: ServiceDoc | None = None
    """A service: its replicas, their capacity and the p95 latency at the load; null for a job (and
    in a file written before these figures were kept)."""

    @model_validator(mode="before")
    @classmethod
    def _per_node(cls, data: Any) -> Any:
        if isinstance(data, dict) and "gpus_per_node" not in data:
            count, nodes = data.get("gpu_count"), data.get("nodes", 1)
            if isinstance(count, int):
                # A bad ``nodes`` (0, negative, 0.5) is refused by its own field: filled from one
                # node here, so the one error named is the real one, not a missing gpus_per_node.
                whole = nodes if isinstance(nodes, int) and not isinstance(nodes, bool) else 1
                return {**data, "gpus_per_node": max(1, count // max(whole, 1))}
        return data

    @model_validator(mode="after")
    def _whole_nodes(self) -> PlanOption:
        if self.gpu_count % self.nodes:
            raise ValueError(
                Phrase(
                    N_("gpu_count {count} is not a multiple of nodes {nodes}"),
                    count=self.gpu_count,
                    nodes=self.nodes,
                )
            )
        if self.gpu_count != self.gpus_per_node * self.nodes:
            raise ValueError(
                Phrase(
                    N_("gpu_count {count} is not gpus_per_node {per_node} x nodes {nodes}"),
                    count=self.gpu_count,
                    per_node=self.gpus_per_node,
                    nodes=self.nodes,
                )
            )
        return self


class PlanConstraintsDoc(Document):
    """The constraints the plan was made under."""

    deadline_h: float | None = None
    budget_usd: float | None = None
    providers: list[str] | None = None
    gpus: list[str] | None = None
    """The GPUs allowed, as named (a family name allows each of its variants)."""
    regions: list[str] | None = None
    countries: list[str] | None = None
    hosts: Literal["provider"] | None = None
    """``provider``: only hosts a provider runs were planned on (community hosts and hosts of
    unknown kind left out); null: any host."""
    pricing: list[PricingModel]
    max_gpus: int | None = None
    min_gpus: int | None = None
    """Fewest GPUs in all the plan was asked for (a service's: its whole fleet's); null: no floor."""
    min_gpu_memory_gib: float | None = None
    interconnect: str | None = None
    compliance: list[str] | None = None
    commitment: str | None = None
    upfront: str | None = None
    """How much of a reservation is paid upfront (``partial``, ``all``); null: none."""


class PersonaDoc(Document):
    """The pick for one persona of the source articles (budget, performance, kubernetes …)."""

    persona: str
    rule: str
    option: PlanOption | None
    note: str | None = None


# --- the workload as a plan carries it ---------------------------------------------------------
# The plan holds the whole workload (Workload.to_dict), so that `deploy` has what it needs. These
# models type the fields launch files depend on and keep every other field as it is
# (extra="allow"), so the workload spec can grow without a new plan schema.


class _WorkloadPart(Document):
    model_config = ConfigDict(extra="allow", frozen=True)


class WorkloadModel(_WorkloadPart):
    """Where the model comes from: one of a preset, a HF config or the user's Python entry point."""

    preset: str | None = None
    hf_config: str | None = None
    python: str | None = None
    project_dir: str | None = None
    """Folder of the user's own model code where the plan was made (deploy copies it only from the
    plan file's own folder or below)."""
    hub_id: str | None = None
    """The Hugging Face Hub checkpoint the workload names (``model.hub_id``), else an ``hf_config``
    model's id as its config named it where the plan was made (``_name_or_path``), with
    :attr:`family` and :attr:`max_positions`: what deploy needs of the model where the config does
    not travel with the plan (another machine, the planning service)."""
    family: str | None = None
    """``decoder`` where one of the config's architectures is a causal LM; None otherwise."""
    max_positions: int | None = Field(default=None, ge=1)
    """The config's ``max_position_embeddings`` (or kin): the longest request an engine takes."""


class WorkloadInputs(_WorkloadPart):
    """One micro-batch on one GPU."""

    batch_size: int = Field(default=8, ge=1)
    seq_len: int | None = Field(default=None, ge=1)
    image_size: int | None = Field(default=None, ge=1)
    output_tokens: int | None = Field(default=None, ge=1)
    """A batch generation job's answer tokens per sample (the prompt is ``seq_len``)."""


class WorkloadData(_WorkloadPart):
    """The data set one run goes through."""

    samples: int | None = Field(default=None, ge=1)
    tokens: int | None = Field(default=None, ge=1)
    epochs: float | None = Field(default=None, gt=0)
    size_gb: float | None = Field(default=None, ge=0)
    results_gb: float | None = Field(default=None, ge=0)
    """Size of what one run writes back to the data's location, GB (None: not stated)."""
    upload_gbps: float | None = Field(default=None, gt=0)
    """The uplink from the user's own site to the cloud, Gbit/s, for data that is there (None: not
    given; the set-up then assumes each instance copies the dataset at the disk's rate)."""
    location: str | None = None
    """Where the data lives, ``provider/region`` (None: the user's own site)."""
    copy_gbps: float | None = Field(default=None, gt=0)
    """The rate the user measured copying the dataset onto an instance's disk, GB/s (None: not
    given; the set-up then assumes the disk's rate, gp3's baseline)."""


class WorkloadCheckpoint(_WorkloadPart):
    """How the training job checkpoints (the workload's ``checkpoint`` block)."""

    every_min: float | None = Field(default=None, gt=0)
    """Minutes between checkpoints (None: the launch's default off spot, the plan's on spot)."""
    keep: int | None = Field(default=None, ge=2)
    """Checkpoints on disk at once at the most, the one being written included (None: 2)."""


class PlanWorkload(_WorkloadPart):
    """The workload the plan was made for (its fields as ``gpuplan.workload.Workload`` writes them)."""

    name: str = "gpuplan-job"
    task: Task = Task.TRAIN
    model: WorkloadModel = Field(default_factory=WorkloadModel)
    inputs: WorkloadInputs = Field(default_factory=WorkloadInputs)
    precision: str = "fp32"
    optimizer: str = "adamw"
    gradient_checkpointing: bool = False
    gradient_accumulation: int = Field(default=1, ge=1)
    parallelism: Parallelism = Parallelism.DDP
    data: WorkloadData | None = None
    checkpoint: WorkloadCheckpoint | None = None
    serving: dict[str, Any] | None = None
    """The serving block (load and deploy settings); deploy validates it into its ServingDeployment."""

    @field_validator("task", "parallelism", "precision", "optimizer", mode="before")
    @classmethod
    def _fold_case(cls, v: object) -> object:
        # As the workload spec: AMP_BF16, amp_bf16 and amp-bf16 are one value.
        return str(v).strip().lower().replace("_", "-") if isinstance(v, str) else v

    @field_validator("model", mode="before")
    @classmethod
    def _model_shorthand(cls, v: object) -> object:
        return {"preset": v} if isinstance(v, str) else v


class PlanWithoutStalePrices(Document):
    """Beside a recommended option whose price is not known to be within the staleness limit (older,
    or of unknown age): the best option, by the same objective and constraints, among the prices
    that are. Prices move, so a winner resting on an old one is shown beside the best fresh one."""

    option: PlanOption | None = None
    """None when no feasible option has a price known to be within the limit."""
    offers_left_out: int = Field(ge=0)
    """Feasible offers (provider, region, instance, pricing) left out for their price's age."""
    note: str
    """The recommended price's date and the alternative, in words."""


class PlanDocument(Document):
    """``gpuplan plan --json``: ranked options, the Pareto front, personas, baseline and why."""

    schema_version: Literal[6] = 6
    display_currency: Literal["USD", "CNY"] = "USD"
    """The currency the table showed (``--currency``); the fields stay in USD."""
    exchange_rate: ExchangeRateDoc | None = None
    """The catalog's CNY rate for this plan (CNY prices converted, CNY shown); None when it has none."""
    workload: PlanWorkload
    workload_sha256: str | None = None
    """SHA-256 of ``workload`` as written (:func:`workload_digest`): ``gpuplan deploy`` checks the
    fit of a plan whose workload no longer matches it (edited by hand after planning) again, and
    takes the plan's own verdict for one that does. None in a plan written before it existed."""
    objective: str
    """``cost``, ``time`` or ``balanced``."""
    constraints: PlanConstraintsDoc
    recommended: PlanOption
    options: list[PlanOption]
    """Ranked, best first."""
    pareto: list[PlanOption]
    """The cost/time front, cheapest first; a job's ends at the performance persona's pick (an option
    faster than it by less than 2 % of the shortest time, which the estimate does not tell apart,
    costs more)."""
    baseline: PlanOption | None = None
    baseline_note: str = ""
    savings_vs_baseline_pct: float | None = None
    excluded: dict[str, int] = Field(default_factory=dict)
    """Candidates left out, counted by their first reason."""
    personas: list[PersonaDoc] = Field(default_factory=list)
    why: list[str] = Field(default_factory=list)
    candidates: int = Field(ge=0)
    feasible: int = Field(ge=0)
    notes: list[str] = Field(default_factory=list)
    network: str = ""
    """The network between the recommended option's nodes its time assumes (fabric, rate, where
    each comes from) and its time without it, in words; empty for one node."""
    decided_by_unknowns: str = ""
    """When unknown facts decided the winner: which option would rank first at their best case."""
    host: str = ""
    """The recommended option's host kind and country in words (a cloud VM, a vetted data centre, a
    community host…); where it is a community host or of unknown kind, the best option on a machine
    a provider runs beside it, and what it costs more. Empty in a plan written before it was kept."""
    host_caution: str = ""
    """Where the recommended option is a community host and the workload brings data to it: that the
    host can read the data, and that ``constraints.hosts: provider`` keeps to machines a provider
    runs (the line the table prints under the recommendation); empty otherwise."""
    stale_after_days: int | None = None
    """The staleness limit the options' ``stale`` flags are set against, days."""
    without_stale_prices: PlanWithoutStalePrices | None = None
    """The best option among prices known to be within the staleness limit, beside a recommended
    option whose price is not; None when the recommended price is known fresh."""
    checkpoint_gb: float | None = Field(default=None, ge=0)
    """One checkpoint of the job (trainable weights at the precision's own bytes + optimizer state + buffers),
    GB, as the plan stores and prices it: ``gpuplan deploy`` sizes the checkpoint volume from it. 0 for a job
    that writes none; None in a plan written before it was kept."""
    checkpoint_write_min: float | None = Field(default=None, ge=0)
    """Minutes to write one checkpoint at the plan's assumed storage bandwidth: ``gpuplan deploy``
    sizes the time a stopped job is given to save from it. None as ``checkpoint_gb`` is."""
    disk_gb: float | None = Field(default=None, ge=0)
    """What one instance's block-storage disk holds as the plan prices it, GB (the dataset, the
    checkpoints kept and any model weights): ``gpuplan deploy`` sizes each node's launch disk from
    it. None where the plan keeps them in one object-storage bucket, or in a plan written before it
    was kept."""
    launch_disk_gb: int | None = Field(default=None, ge=0)
    """The disk each instance is launched with, GB, the size the options' storage prices (not
    ``disk_gb``, the bytes on it): ``disk_gb`` with 15 % headroom and 64 GB for the OS and the
    image, up to a whole 64 GB, at least SkyPilot's default 256 GB, as ``gpuplan deploy`` asks for
    it; where the plan keeps its storage in a bucket, the disk each instance boots with (the
    default, or one that holds an inference engine's weights). None in a plan written before it
    was kept."""
    thin_memory_margin: str | None = None
    """Where ranked options fit with less than a tenth of the usable memory to spare at their
    memory band's high end: which GPUs, on which ranked options (``#7`` the seventh of
    :attr:`options`), and what to change, in order, if the job runs out of memory all the same (the
    line ``gpuplan estimate`` prints); null where none does."""


class PlanInfeasibleDocument(Document):
    """``gpuplan plan --json`` where no option meets the constraints: the reason, and the candidates
    left out by reason, on stdout (the same line goes to stderr and the exit code is 1). It has no
    ``recommended``: ``gpuplan deploy`` refuses it."""

    schema_version: Literal[6] = 6
    feasible: Literal[0] = 0
    """No option is feasible."""
    error: str
    """Which constraint left no option, and what to change, in one line (the user's language)."""
    excluded: dict[str, int] = Field(default_factory=dict)
    """Candidates left out, counted by their first reason."""
    workload: str
    """The workload's name."""


def workload_digest(workload: Mapping[str, Any]) -> str:
    """SHA-256 of a plan's ``workload`` as JSON data (``PlanWorkload.model_dump(mode="json")``, or
    the ``workload`` object of a plan file read back): keys sorted, no spaces, so that the same
    content gives the same digest however it was indented."""
    text = json.dumps(workload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def upgrade_v1_option(option: dict[str, Any]) -> dict[str, Any]:
    """An option of a version-1 plan file in version 2's names (``deploy`` reads both): the price
    per ``price_unit_hours`` becomes ``price_usd_per_month`` and ``price_unit``."""
    out = {k: v for k, v in option.items() if k not in ("price_usd", "price_unit_hours")}
    unit_hours, price = option.get("price_unit_hours"), option.get("price_usd")
    monthly = isinstance(unit_hours, (int, float)) and unit_hours > 1
    out["price_unit"] = "month" if monthly else "hour"
    out["price_usd_per_month"] = price if monthly else None
    return out
