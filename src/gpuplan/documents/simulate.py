"""The documents of ``gpuplan simulate autoscale --json`` and ``gpuplan simulate share --json``."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gpuplan.documents.base import Document, ExchangeRateDoc

__all__ = [
    "AUTOSCALE_SCHEMA_VERSION",
    "SHARE_SCHEMA_VERSION",
    "AutoscaleDocument",
    "BehaviourDoc",
    "CurrentPriceDoc",
    "EngineDoc",
    "LatencyDoc",
    "LossesDoc",
    "PolicyDoc",
    "PriceBasisDoc",
    "ShareDocument",
    "ShareNotebookDoc",
    "SharePlacementDoc",
    "ShareScheduleDoc",
    "ShareServiceDoc",
    "SloDoc",
    "SloOutcomeDoc",
    "UnplacedDoc",
]

AUTOSCALE_SCHEMA_VERSION: Literal[1] = 1
#: The ``simulate share`` document's schema version. 2: ``cost_usd_per_month`` is for
#: ``hours_per_month``, the file's ``schedule:`` hours with each day's start-up where it has one
#: (``schedule`` says which); before, always 730 h.
SHARE_SCHEMA_VERSION: Literal[2] = 2


class TraceDoc(Document):
    name: str
    synthetic: bool
    """True for a generated trace (or a file gpuplan's generator marked SYNTHETIC)."""
    requests: int
    duration_s: float
    note: str
    """How it was re-timed from a recorded trace ("" as read)."""
    out_of_order: int
    """Rows of the file earlier than a row above them (the requests are taken in time order)."""
    default_prompt_tokens: int | None
    """The workload's prompt tokens, taken by every request because the trace has no such column."""
    default_output_tokens: int | None
    """The workload's output tokens, taken by every request because the trace has no such column."""
    mean_requests_per_s: float | None = None
    """A generated trace's rate averaged over its window (None for a trace read from a file)."""
    peak_requests_per_s: float | None = None
    """A generated trace's highest rate: a diurnal day's busiest minute, a burst, a step's upper level."""
    mean_requests_per_s_asked: float | None = None
    """A mean the shape could not hold under the peak asked (the peak is kept); None when it held."""
    median_gap_s_doubt: float | None = None
    """A file of numeric timestamps read as seconds whose median time between requests is a minute
    or more: milliseconds, perhaps (then name the column timestamp_ms)."""


class EngineDoc(Document):
    max_num_seqs: int
    max_batched_tokens: int
    chunked_prefill: bool
    source: str


class ReplicaDoc(Document):
    gpu: str
    slots: int
    """Requests one replica runs at once."""
    time_per_output_token_s: float
    """Time per output token with every slot busy (prefill of the requests joining included)."""
    time_per_output_token_1_s: float | None
    """Time per output token with one sequence running."""
    prefill_tokens_per_s: float
    source: str
    engine: EngineDoc | None
    """The serving engine's scheduling (null for given figures)."""
    kv_cache_tokens: int | None


class CurrentPriceDoc(Document):
    """The best price known to be within the catalog's staleness limit, beside one that is not."""

    usd_per_hour: float
    """In the unit of the price it stands beside."""
    usd_per_instance_hour: float | None
    """One instance of the offer."""
    replicas_per_instance: int | None
    """``simulate autoscale``: replicas one instance holds, sharing its price; null for share."""
    provider: str
    region: str
    instance_type: str
    as_of: str
    confidence: str
    price_source: str
    """Who published it, as the catalog states it."""


class PriceBasisDoc(Document):
    """What one price rests on: a catalog offer's publisher, date and confidence, or the user's figure."""

    usd_per_hour: float
    """``simulate autoscale``: per replica-hour; ``simulate share``: the plan's GPUs per hour, bought
    as whole instances."""
    given: bool
    """The user's own figure (``--on-demand-price``): the offer's fields are null."""
    usd_per_instance_hour: float | None
    """One instance of the offer (its conservative figure)."""
    replicas_per_instance: int | None
    """``simulate autoscale``: replicas one instance holds, sharing its price (a fleet pays whole
    instances); null for share and for the user's figure."""
    provider: str | None
    region: str | None
    instance_type: str | None
    as_of: str | None
    """The price's date as the catalog holds it (``2025-03/2026-12-02``: observed between the two)."""
    confidence: str | None
    """``high`` (the provider's own list or API) or ``secondary`` (a dated compilation of them)."""
    price_source: str | None
    """Who published the price, as the catalog states it (publisher, file or URL, line)."""
    known_current: bool | None
    """The price is known to be within the catalog's staleness limit (``plan``'s test)."""
    date_note: str | None
    """Why it is not known to hold today, naming its date (null where it is known to)."""
    best_known_current: CurrentPriceDoc | None
    """Beside a price not known current: the best one of the same GPU and pricing model that is,
    chosen the same way; null where the price is current or the catalog has none."""


class PricesDoc(Document):
    usd_per_hour: dict[str, float]
    """Per replica-hour, by pricing model (an instance's price shared by the replicas it holds)."""
    source: str
    spot_interruptions_per_hour: float
    spot_rate_source: str
    replicas_per_instance: dict[str, int]
    """Per pricing model, replicas one instance holds: a fleet pays whole instances."""
    gpus_per_replica: int
    """GPUs of one replica (its tensor-parallel ranks, in one machine)."""
    replicas_per_gpu: int = 1
    """Replicas time-sharing one GPU (the workload's ``serving.share_gpu``): counted in
    ``replicas_per_instance``, so n of them pay for one GPU; each runs its share of the GPU's time."""
    basis: dict[str, PriceBasisDoc]
    """Per pricing model of ``usd_per_hour``: what its figure rests on."""


class SloDoc(Document):
    name: str
    """``ttft_p95`` …"""
    metric: Literal["queue", "ttft", "tpot", "e2e"]
    percentile: float
    threshold_s: float


class ScheduleDoc(Document):
    """The workload's ``serving.schedule`` as the run used it."""

    hours: str
    """``08:00-18:00``, local time."""
    days: str
    """``mon-fri``."""
    time_zone: str
    applied: bool
    """True: each day of the (generated) trace is a scheduled day in the schedule's time zone, its
    requests only in the hours, and every policy but a scheduled one runs no replica outside them
    (as deploy's KEDA cron trigger), its replicas started ``behaviour.schedule_lead_s`` early; false:
    a recorded trace, replayed as recorded, the policies as written."""
    note: str
    """The same in words, as the report says it."""


class SettingsDoc(Document):
    slo_s: float | None
    """The end-to-end threshold among ``slos`` (null without one)."""
    slos: list[SloDoc]
    timeout_s: float
    spot_notice_s: float
    seed: int
    cold_start_s: float | None
    """Launch to ready of a replica a policy adds when the policy sets no startup."""
    cold_start_source: str
    schedule: ScheduleDoc | None = None
    """The workload's ``serving.schedule``; null without one."""


class LatencyDoc(Document):
    """Over the requests served, seconds."""

    p50_s: float | None
    p90_s: float | None
    p95_s: float | None
    p99_s: float | None
    mean_s: float | None
    note: str | None = None
    """Why the figures are null for every request (an image service's ``ttft`` and ``tpot``: an
    image has no tokens); null otherwise."""


class SloOutcomeDoc(Document):
    name: str
    threshold_s: float
    achieved_s: float | None
    """The percentile, dropped requests counted as late (null: it falls among the dropped)."""
    met: bool
    over_pct: float
    unreachable: int
    """Requests no number of replicas brings under the threshold."""
    unreachable_min_output_tokens: int | None


class LossesDoc(Document):
    scaled_to_zero: int = 0
    """Dropped requests that arrived while the policy ran no replica and started none (outside the
    workload's schedule, or at a scheduled step of 0); that time cost nothing."""
    cold_start: int
    at_max: int
    not_scaled: int
    spot: int
    unreachable: int
    queueing: int
    peak_bin_s: float | None
    peak_lost: int


class BehaviourDoc(Document):
    start_replicas: int
    min_replicas: int
    max_replicas: int
    startup_s: float
    period_s: float
    up_cooldown_s: float
    down_window_s: float
    saturated_s: float
    """Time its replicas ran near saturation, where the simulated latency tails are optimistic."""
    commit_replicas: int = 0
    """Replicas bought on a commitment (the policy's ``commit``): paid for the whole span, busy or
    not; the replicas above them are billed on demand or spot."""
    commit_pricing: Literal["monthly", "reserved_1y", "reserved_3y"] | None = None
    """How the committed replicas are bought; null without any."""
    per_replica: float | None = None
    """queue: the requests in flight per replica it scales at; null for other kinds."""
    schedule_lead_s: float | None = None
    """Where it runs on the workload's schedule (``settings.schedule.applied``): seconds before the
    hours it starts its replicas, their start-up rounded up to 5 min, as deploy's cron; null
    otherwise."""
    replica_load_requests_per_s: float | None = None
    """queue without its own ``per_replica``: the load a replica carries at that target, requests/s,
    as deploy works it out; null otherwise."""
    replica_load_basis: Literal["estimate", "simulation", "latency"] | None = None
    """Which capacity set that load: the estimate's (which plans size fleets with) or the simulated
    replica's, the smaller × the sizing utilisation; null otherwise."""
    estimate_capacity_requests_per_s: float | None = None
    """One replica's capacity at full load by gpuplan's estimate; null where not known."""
    simulation_capacity_requests_per_s: float | None = None
    """One replica's capacity with every slot busy, as the simulated replica has it; null where the
    policy names its own ``per_replica``."""


class PolicyDoc(Document):
    name: str
    cost_usd: float
    cost_usd_by_pricing: dict[str, float] = Field(default_factory=dict)
    """``cost_usd`` by pricing model, as ``replica_hours`` (the committed part apart)."""
    replica_hours: dict[str, float]
    """Hours by pricing model (``on_demand``, ``spot``, and the committed model of a policy that
    commits replicas — ``monthly``, ``reserved_1y`` or ``reserved_3y`` —: its committed replicas ×
    the simulated span from the trace's start to the end of its drain, busy or not; ``on_demand``
    then counts only the replicas above them)."""
    instance_hours: dict[str, float]
    """Hours of whole instances billed, by pricing model (fewer than ``replica_hours`` where
    replicas share an instance; a commitment's ``ceil(commit / replicas per instance)`` instances
    for the whole span)."""
    utilisation: float
    """Busy batch-slot time / paid batch-slot time, 0–1."""
    latency_p50_s: float | None
    latency_p95_s: float | None
    latency_p99_s: float | None
    slo_miss_pct: float | None
    """Late, dropped or killed requests, percent; null without an SLO."""
    dropped: int
    """Timed out in the queue or killed by a spot interruption."""
    max_replicas: int
    interruptions: int
    served: int
    queued_at_end: int
    """Neither served nor dropped: 0, since the requests waiting at the end of the trace are served
    after it or dropped at their timeout."""
    waiting_at_end: int
    """Requests still waiting when the trace ended (served after it, late where over an SLO, and
    billed; or dropped at their timeout): counted in ``slo_miss_pct``, the SLOs and ``dropped``."""
    dropped_after_end: int
    """Of ``waiting_at_end``, those that timed out after the end."""
    killed: int
    tokens_served: dict[str, int]
    """``prompt`` and ``output`` tokens of the requests served."""
    usd_per_million_output_tokens: float | None
    """``cost_usd`` per million output tokens served; null with ``per_million_tokens_note``."""
    usd_per_million_tokens: float | None
    """``cost_usd`` per million prompt and output tokens served."""
    per_million_tokens_note: str | None
    """Why the figures per million tokens are null (null when they are known)."""
    usd_per_thousand_images: float | None = None
    """An image service's (one image a request, no tokens): ``cost_usd`` per 1,000 images served;
    null for a language model's service, or where none was served."""
    usd_per_thousand_requests: float | None = None
    """A forward-pass service's (one forward pass a request, no tokens): ``cost_usd`` per 1,000
    requests served; null for any other service, or where none was served."""
    spec: str
    latency: dict[str, LatencyDoc]
    """``queue``, ``ttft``, ``tpot``, ``e2e``."""
    slos: list[SloOutcomeDoc]
    losses: LossesDoc
    behaviour: BehaviourDoc
    commitment_note: str | None = None
    """Where the policy commits replicas: that a commitment bills whole months or years, so that
    its pro-rata share of the span is what it averages to only over the whole term; null without."""
    prices: PricesDoc | None = None
    """The prices of this policy's own fleet where they are not the document's ``prices`` (a
    policy of one replica on the one-GPU instance its fleet takes); null: the document's."""
    common_basis_cost_usd: float | None = None
    """The policy's run billed at the document's ``prices`` (the offers picked for the largest fleet
    of all the policies, in their whole instances): every policy's cost at one basis, where
    ``prices`` above makes them differ (``cost_usd`` where the policy is priced at the document's
    already); null where those prices lack a pricing model it ran on. Its spot replicas are those
    offers': where their spot instances are reclaimed at another rate than its own offer's, or hold
    another number of its replicas, the policy is run again on them (the same draws), so that its
    reclaims and restarts at that basis are theirs."""
    known_current_cost_usd: float | None = None
    """Where a price it is billed at is not known to hold today: the same run billed at the best
    known-current price of that GPU and pricing model instead (each basis's
    ``best_known_current``); null where every price is known current, or one is not and has none
    (``known_current_note`` says so)."""
    known_current_note: str | None = None
    """Where a price it is billed at is not known current: its cost there and at known-current
    prices, with their offers, or that the catalog has none; null otherwise."""


class AutoscaleDocument(Document):
    schema_version: Literal[1] = AUTOSCALE_SCHEMA_VERSION
    display_currency: Literal["USD", "CNY"] = "USD"
    """The currency the command showed money in (``--currency``; the service's ``currency``, else
    CNY for a workload budgeted in yuan); the fields stay in USD, ``_usd`` in their names."""
    exchange_rate: ExchangeRateDoc | None = None
    """The catalog's CNY rate (the one yuan prices were converted at, and USD figures are shown in
    yuan at); None when it has none."""
    trace: TraceDoc
    replica: ReplicaDoc
    prices: PricesDoc
    settings: SettingsDoc
    policies: list[PolicyDoc]
    comparison_note: str | None = None
    """Where the policies are priced at different offers (each at its own fleet's, a policy's
    ``prices``): which each is priced at, and each one's cost at the document's ``prices``
    (``common_basis_cost_usd``), so that a difference of price is told from one of policy; null
    where every policy is priced at the same offers."""


class SharePlacementDoc(Document):
    gpu_index: int
    service: str
    slice: str
    """A MIG profile (``3g.40gb``), ``time-slice``, ``mps-1/N`` or ``whole``."""
    start: int | None
    """First memory slice of a MIG instance."""


class UnplacedDoc(Document):
    service: str
    reason: str


class ShareServiceDoc(Document):
    name: str
    slice: str
    instances: int
    speed_fraction: float
    utilisation: float | None
    p95_latency_s: float | None
    latency_headroom_s: float | None
    """SLO − p95 (negative: missed; null: no SLO, or overloaded when the SLO is set)."""
    ttft_p95_s: float | None = None
    """p95 time to first token (null: overloaded, or not known for a service given by hand)."""
    ttft_headroom_s: float | None = None
    """TTFT target − its p95 (negative: missed; null: no TTFT target, or not known when it is set)."""
    tpot_s: float | None = None
    """Time per output token at the instance's load, the plan's model (null: overloaded, or not
    known for a service given by hand)."""
    tpot_headroom_s: float | None = None
    """TPOT target (the workload's ``tpot_p95_ms``) − that time (negative: missed; null: no TPOT
    target, or not known when it is set)."""


class ShareNotebookDoc(Document):
    """A group of notebook or experiment users: what one of them gets, on the most crowded of the
    group's GPUs."""

    name: str
    kind: Literal["notebook", "experiment"]
    users: int = Field(ge=1)
    memory_gib: float = Field(gt=0)
    active_share: float = Field(gt=0, le=1)
    """Share of its working hours it computes on the GPU."""
    hours_per_day: float = Field(gt=0, le=24)
    slice: str
    """A MIG profile, ``mps-1/N``, ``time-slice`` or ``whole``."""
    gpus: int = Field(ge=0)
    """GPUs its users are on."""
    users_per_gpu: int = Field(ge=0)
    speed_fraction: float = Field(gt=0, le=1)
    """Share of a whole GPU's speed it has computing alone on its share."""
    slowed_chance: float = Field(ge=0, le=1)
    """Chance another user computes on its GPU while it does (0 where isolated)."""
    mean_slowdown: float = Field(ge=1)
    """Mean slow-down against a whole GPU over the time it computes."""
    p95_slowdown: float = Field(ge=1)
    """Slow-down at the 95th percentile of the time it computes."""
    max_slowdown: float = Field(ge=1)
    oom_risk: float = Field(ge=0, le=1)
    """Chance the memory in use on its GPU passes the GPU's while it computes (0: what the GPU's
    users hold fits, each within its memory_gib)."""
    max_oom_risk: float = Field(ge=0, lt=1)
    meets_targets: bool


class ShareScheduleDoc(Document):
    """The services file's ``schedule:``: the hours its GPUs run, and what a month of them bills."""

    hours: str
    """``08:00-12:00``, local time."""
    days: str
    """``mon-fri``."""
    time_zone: str
    serving_hours_per_month: float = Field(gt=0)
    """The schedule's own hours a month (its hours a week over 730 h)."""
    hours_per_month: float = Field(gt=0)
    """The hours a month the GPUs are billed: those and each day's start-up before them (730 where
    the gaps are shorter than a start-up and the GPUs are kept on)."""
    start_up_s: float = Field(ge=0)
    """A new instance's start before the hours (the instance's boot; with services, their engines'
    start too)."""
    start_ups_per_day: int = Field(ge=0)
    """Times a day the instances are started; 0: kept on."""
    start_up: str
    """How ``start_up_s`` adds up, in words."""


class ShareDocument(Document):
    schema_version: Literal[2] = SHARE_SCHEMA_VERSION
    gpu: str
    sharing: str
    gpus_needed: int
    lower_bound_gpus: int
    optimal: bool
    """No packing uses fewer GPUs, and every service is placed."""
    cost_usd_per_hour: float | None
    """The whole plan per hour; null when a service is not placed or the price is unknown."""
    cost_usd_per_month: float | None
    """``cost_usd_per_hour`` × ``hours_per_month``."""
    placed_cost_usd_per_hour: float | None
    """The services that are placed, per hour."""
    placements: list[SharePlacementDoc]
    unplaced: list[UnplacedDoc]
    services: list[ShareServiceDoc]
    notebooks: list[ShareNotebookDoc]
    """Groups of notebook or one-GPU experiment users."""
    method: str
    notes: list[str]
    price: PriceBasisDoc | None
    """What the on-demand price of the plan's GPUs rests on; null when none is known."""
    hours_per_month: float = Field(gt=0)
    """The hours a month ``cost_usd_per_month`` is for: 730 (round the clock), or the schedule's
    hours with each day's start-up."""
    schedule: ShareScheduleDoc | None = None
    """The file's ``schedule:``; null: the GPUs priced round the clock."""
