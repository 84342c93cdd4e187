"""What the planner returns: costed options, the plan, persona picks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gpuplan.catalog.dates import DEFAULT_STALE_AFTER_DAYS
from gpuplan.i18n.places import place
from gpuplan.plan.constraints import Constraints, Objective
from gpuplan.plan.unknowns import UnknownFact
from gpuplan.vocab import pricing_name

if TYPE_CHECKING:
    from gpuplan.plan.service_day import ServiceDay

__all__ = [
    "CheckpointWrites",
    "CostBreakdown",
    "CostItem",
    "Option",
    "PersonaPick",
    "Plan",
    "ServiceFigures",
    "ServiceSpotRisk",
    "SpotRisk",
    "UnknownFact",
    "WithoutStalePrices",
]


@dataclass(frozen=True, kw_only=True)
class CountryCrossing:
    """The countries an option's data comes from and the country it runs the work in: whether the
    data leaves its country (:func:`gpuplan.plan.border.leaves_country`), for any country, not only
    mainland China's border (``Option.crosses_border``). No legal conclusion is drawn from it."""

    from_countries: tuple[str, ...]
    """ISO codes of where the data is: ``data.location``'s country where data moves, and a
    service's users' countries (``serving.users_in``)."""
    to_country: str
    """ISO code of the option's region's country."""

    @property
    def leaves(self) -> bool:
        """Some of the data (the dataset, results, users' requests) leaves its country for the option's."""
        return any(c != self.to_country for c in self.from_countries)

    @property
    def left(self) -> tuple[str, ...]:
        """The countries the data leaves (those of :attr:`from_countries` other than the option's)."""
        return tuple(c for c in self.from_countries if c != self.to_country)


@dataclass(frozen=True, kw_only=True)
class CostItem:
    """One charge of an option, with how many times it is paid: what is really rented."""

    component: str
    """``compute``, ``setup`` (part of compute), ``storage``, ``egress_in``, ``egress_out`` (a job's
    results back; a service's answers to its clients), ``licences`` or ``spot_overhead``."""
    cost_usd: float
    multiplier: int
    """How many times the unit charge is paid (instances, disks, copies of the dataset)."""
    per: str
    """What one multiple is: ``instance``, ``disk``, ``bucket``, ``copy``."""
    included_in: str | None = None
    """The component this item is part of (the set-up is part of compute), None when it adds up."""


@dataclass(frozen=True, kw_only=True)
class CostBreakdown:
    """All-in cost by component, USD; the components sum to the option's ``total_cost_usd``."""

    compute_usd: float
    """Instances for the failure-free job time, rounded to the billing step / month / term."""
    storage_usd: float
    """Dataset and checkpoints on block or object storage for the job's duration."""
    egress_usd: float
    """Dataset in from ``data.location`` and results back (a service: its month of answers to its
    clients, at the internet price), at inter-region or internet tier prices."""
    licence_usd: float
    """Per-instance-hour fees the catalog lists for the region: the known part where some are
    unknown (``licence_unknown``)."""
    spot_overhead_usd: float
    """Spot only. A job: instance time spent writing checkpoints, redoing lost work and restarting
    (where the dataset is on each instance's disk, copying it again, and its transfer in paid again
    per restart). A service: the spare instances that keep its load target through a reclaim
    (``SpotRisk.service``)."""
    items: tuple[CostItem, ...] = ()
    """Each charge with its multiplier (the components above, the set-up and egress split out)."""
    licence_unknown: tuple[str, ...] = ()
    """Licence items the catalog names for the region with no known fee: the licence cost is then
    unknown, not 0, and the total leaves them out (said in the option's assumptions)."""

    @property
    def total_usd(self) -> float:
        return (
            self.compute_usd + self.storage_usd + self.egress_usd + self.licence_usd + self.spot_overhead_usd
        )


@dataclass(frozen=True, kw_only=True)
class ServiceSpotRisk:
    """What spot reclaims cost a service: availability, not re-done work (``plan.spot.service_spot``)."""

    interruptions_per_month: float
    """Expected reclaims of its serving instances in a month (730 h); the spare's are
    :attr:`spare_interruptions_per_month`."""
    down_min_per_reclaim: float
    """Minutes the replicas of a reclaimed instance are down: a replacement started and the model's
    weights read back."""
    down_assumed: str
    """How ``down_min_per_reclaim`` adds up (its parts are assumptions), in words."""
    replicas: int
    """Replicas the option runs: the load target (the option is sized to carry the load)."""
    replicas_per_reclaim: int
    """Replicas one reclaim takes (all those on the instance)."""
    replica_hours_down_per_month: float
    below_target_share: float
    """Share of the time with fewer replicas up than ``replicas``, without a spare; where the
    fleet follows its day (``Option.service_day`` priced), fewer than the hour's fleet, over the
    hours it runs at each size (:func:`gpuplan.plan.spot.below_target_over_day`)."""
    spare_instances: int
    """Instances of the spare the price includes (the fewest that hold one whole replica)."""
    spare_usd: float
    """What the spare costs over the plan (the option's ``spot_overhead_usd``)."""
    below_target_share_with_spare: float
    """Share of the time below ``replicas`` (the hour's fleet where it follows its day, as
    :attr:`below_target_share`) with the spare running: two reclaims overlapping.
    Reclaims are taken as independent; a capacity crunch that takes several at once is not in it."""
    spare_interruptions_per_month: float
    """Expected reclaims of the spare in a month: it is spot too, and each takes a replacement
    (no replica goes down; not in ``interruptions_per_month``)."""
    on_demand_usd_per_instance_hour: float | None = None
    """The catalog's on-demand price of the same instance type in the same region, USD per hour:
    what an instance of an on-demand fallback replica costs (SkyServe's ``dynamic_ondemand_fallback``);
    None where the catalog holds none (unknown, never 0)."""


@dataclass(frozen=True, kw_only=True)
class ServiceFigures:
    """What a service's option serves: its replicas, what they carry and the latency at the load —
    the figures ``gpuplan estimate`` gives for the same GPU and count (the load split evenly)."""

    requests_per_s: float
    """The load (``serving.requests_per_s``), split evenly over the replicas."""
    mean_requests_per_s: float | None = None
    """The load on average over the month (``serving.mean_requests_per_s``), which the cost per token
    is taken over; None: not given, and ``requests_per_s`` is taken all month."""
    replicas: int
    """Model replicas the option runs: its GPUs ÷ a replica's GPUs × replicas to a GPU."""
    replica_gpus: int
    """GPUs of one replica (``tensor_parallel × pipeline_parallel``)."""
    tensor_parallel: int = 1
    """GPUs each layer of a replica is split over: the workload's ``tensor_parallel``, or the
    planner's choice for this option where the workload gives none (``tensor_parallel_chosen``)."""
    tensor_parallel_chosen: bool = False
    """The planner chose ``tensor_parallel`` for this option (the workload gives none)."""
    replicas_per_gpu: int
    """Replicas time-sharing each GPU (``serving.share_gpu``; 1: a GPU each)."""
    replica_requests_per_s: float | None
    """The requests/s one replica carries at its full KV cache (in wall time: a time-sharing
    replica's share); None when not estimated."""
    p95_latency_s: float | None
    """The p95 request latency at the load (queueing as M/M/1); None when overloaded or not
    estimated (``p95_unknown`` says which)."""
    p95_unknown: str | None = None
    """Why ``p95_latency_s`` is None, in words; None when it is known."""
    p95_target_s: float | None = None
    """The workload's p95 latency target (``serving.p95_latency_ms``), s; None: none set."""
    ttft_p95_s: float | None = None
    """The p95 time to first token at the load: the queueing wait at its p95 (M/M/1, as
    ``p95_latency_s``) plus the prefill; None where ``p95_latency_s`` is (``p95_unknown`` says why)."""
    ttft_target_s: float | None = None
    """The workload's p95 time-to-first-token target (``serving.ttft_p95_ms``), s; None: none set."""
    tpot_s: float | None = None
    """The time per output token at the load: the decode step at the sequences the load keeps
    running on each replica, stretched by the prompts beside it; the typical gap between streamed
    tokens, not a p95 (``gpuplan simulate autoscale`` measures that on a trace). None: not estimated."""
    tpot_target_s: float | None = None
    """The workload's p95 time-per-output-token target (``serving.tpot_p95_ms``), s; None: none set."""
    users_in: tuple[str, ...] = ()
    """The countries the users are in (``serving.users_in``, ISO codes); empty: not named, and the
    network to them not counted."""
    users_rtt_s: float | None = None
    """The estimated network round trip from this option's region to the farthest users, s: added to
    ``ttft_p95_s`` and ``p95_latency_s`` where they are held to their targets (not to
    ``tpot_s``); None: no users named, or the region's place not known (``users_rtt_basis`` says)."""
    users_rtt_basis: str = ""
    """How ``users_rtt_s`` was found (the places and the distance), or why it is not known; "" when
    no users are named."""

    @property
    def capacity_requests_per_s(self) -> float | None:
        """The requests/s all the option's replicas carry; None when not estimated."""
        each = self.replica_requests_per_s
        return None if each is None else each * self.replicas

    @property
    def utilisation(self) -> float | None:
        """The load over that capacity (1 or more: overloaded); None when not estimated."""
        cap = self.capacity_requests_per_s
        return None if not cap else self.requests_per_s / cap


@dataclass(frozen=True, kw_only=True)
class SpotBand:
    """One of the catalog's interruption bands for a spot option's instance type and region."""

    band: str
    source: str
    """Where it comes from, with its date."""
    costed: bool
    """True for the band the option is costed at: the worst its sources give."""


@dataclass(frozen=True, kw_only=True)
class SpotRisk:
    """How a spot option's time and cost were derived (see ``plan/spot.py``)."""

    interruptions_per_instance_hour: float
    mtbi_h: float
    """Mean time between interruptions of the whole job (all nodes; a service's spare too), h."""
    rate_source: str
    rate_assumed: bool
    checkpoint_write_min: float | None
    """None for a service (it writes no checkpoint)."""
    checkpoint_interval_min: float | None
    """Young/Daly interval sqrt(2·C·MTBI), minutes (the workload's ``checkpoint.every_min`` where
    shorter: ``checkpoint_interval_stated``); None when the job writes no checkpoint."""
    checkpoint_overhead_h: float | None
    expected_lost_h: float | None
    """Lost work plus restarts over the job, h; None for a service (it re-does no work: ``service``)."""
    expected_interruptions: float
    """Over the job; over the plan's month for a service, its spare's reclaims included."""
    service: ServiceSpotRisk | None = None
    """A service's availability on spot; None for a job."""
    restart_min: float | None = None
    """A job: minutes one reclaim costs before its work resumes (a replacement, the checkpoint read
    back and a LoRA/QLoRA job's frozen base read again); None for a service (``service``)."""
    restart_assumed: str | None = None
    """How ``restart_min`` adds up (its parts are assumptions), in words; None for a service."""
    interruption_bands: tuple[SpotBand, ...] = ()
    """Where the catalog's sources disagree on the instance type's band in its region: every band,
    the costed (the worst) first; empty where it holds one band or none."""
    checkpoint_interval_stated: bool = False
    """The interval is the workload's ``checkpoint.every_min``, shorter than Young/Daly's."""
    checkpoint_optimum_min: float | None = None
    """Young/Daly's interval, minutes, where the workload's shorter one is used instead."""
    resume_chunk_min: float | None = None
    """Batch inference: minutes of work in one output chunk, which a reclaimed shard of the batch job
    ``gpuplan deploy`` writes runs again at most (it resumes by chunks:
    :data:`gpuplan.units.BATCH_CHUNK_BATCHES` batches each); None for other jobs."""


@dataclass(frozen=True, kw_only=True)
class CheckpointWrites:
    """The checkpoints a job off spot writes, and the time they take: the launch's train.py saves
    every ``interval_min`` whatever the pricing, synchronously (every GPU waits for the write), so an
    on-demand, reserved or monthly option pays for them too. (A spot option's are in ``SpotRisk``.)"""

    interval_min: float
    """Minutes between checkpoints: the workload's ``checkpoint.every_min``, else the interval the
    launch's train.py writes at (``gpuplan.units.DEFAULT_CHECKPOINT_INTERVAL_MIN``)."""
    interval_stated: bool
    """True where ``interval_min`` is the workload's own (``checkpoint.every_min``)."""
    write_min: float
    """Minutes one checkpoint takes to write, at the plan's assumed storage bandwidth."""
    writes: float
    """Checkpoints written over the job (its work over the interval; at least one)."""
    overhead_h: float
    """Hours spent writing them, part of ``job_time_h``."""
    usd: float
    """The part of ``cost_breakdown.compute_usd`` that pays for them."""


@dataclass(frozen=True, kw_only=True)
class Option:
    """One costed way to run the job."""

    provider: str
    region: str
    zone: str
    country: str
    instance_type: str
    gpu: str
    gpus_per_node: int
    nodes: int
    pricing: str
    interconnect: str
    network_gbps: float | None
    """Inter-node network of one instance as the catalog states it, Gbit/s; None when not stated."""
    job_time_h: float
    """Expected job time (for spot: including checkpoints, lost work and restarts), h."""
    job_time_h_low: float
    job_time_h_high: float
    compute_time_h: float
    """Failure-free job time from the estimator, h."""
    billed_hours: float
    """Hours billed per instance (after granularity and minimum); months × 730 for monthly."""
    total_cost_usd: float
    total_cost_usd_low: float
    total_cost_usd_high: float
    cost_breakdown: CostBreakdown
    price_usd_per_hour: float
    """Instance price per hour (monthly and reserved prices divided by their hours)."""
    price_usd: float
    unit_hours: float
    price_source: str
    confidence: str
    as_of: str
    stale: bool
    peak_memory_gib: float
    deadline_miss_probability: float | None
    """P(finishing after the deadline); None without a deadline."""
    spot: SpotRisk | None
    compliance: tuple[str, ...]
    checkpoints: CheckpointWrites | None = None
    """A job off spot that writes checkpoints: their interval and the time they take (a spot
    option's are in ``spot``); None otherwise."""
    """Compliance labels of the region from a source that can be relied on."""
    kubernetes: str | None
    """The provider's managed Kubernetes service (EKS, AKS …)."""
    compliance_claimed: tuple[str, ...] = ()
    """Compliance labels a low-confidence source only claims for the region (an article, not the
    certificate); they meet a required label only with ``allow_low_confidence``."""
    step_time_s: float | None = None
    """One training step (one batch) on this configuration, s; None when unknown."""
    input_bound: bool = False
    """The instance's CPUs (an image workload's decode and augmentation), not its GPUs, set the time."""
    memory_uncertain: bool = False
    """*May not fit*: the memory band straddles the GPU's usable memory (ranked after those that fit)."""
    memory_over: bool = False
    """Of those, the estimate's point (:attr:`memory_needed_gib`) is above the usable memory too: only
    the low end of the band fits (ranked after every option whose point fits)."""
    memory_needed_gib: float | None = None
    """The memory that must fit one GPU at the estimate's point, GiB; None when not known."""
    memory_needed_gib_high: float | None = None
    """The high end of the memory band that must fit one GPU, GiB (above :attr:`usable_memory_gib`
    where the option may not fit); None when not known."""
    usable_memory_gib: float | None = None
    """The memory a process can allocate on one of the option's GPUs, GiB; None when not known."""
    flags: tuple[str, ...] = ()
    """Warnings: low-confidence price, stale price, assumed billing step …"""
    implausible: tuple[str, ...] = ()
    """Each datasheet bound the estimated step on this option's GPU breaks, in words, as ``estimate``
    flags it (``perf/plausibility.py``); empty when the estimate is plausible."""
    assumptions: tuple[str, ...] = ()
    """Cost components priced with an assumption instead of catalog data, in words."""
    unknown_facts: tuple[UnknownFact, ...] = ()
    """Facts the catalog lacks that this option was costed at the conservative bound of."""
    best_case_total_cost_usd: float | None = None
    """The all-in cost with every unknown fact at its best case (None when none is unknown)."""
    best_case_job_time_h: float | None = None
    """The job time with every unknown fact at its best case (None when none is unknown)."""
    usd_per_million_output_tokens: float | None = None
    """The all-in cost over the output tokens of the work priced, per million: a service's, those its
    request rate asks for in the months billed; a batch generation job's (``inputs.output_tokens``),
    those the run generates (None: neither, no token asked for, or not known:
    :attr:`usd_per_million_tokens_unknown`)."""
    usd_per_million_tokens: float | None = None
    """The same over the prompt and output tokens, per million."""
    usd_per_thousand_images: float | None = None
    """An image service's (``inputs.denoising_steps``) all-in cost over the images its request rate
    asks for in the months billed, per 1,000 images (None: not an image service)."""
    usd_per_thousand_requests: float | None = None
    """A forward-pass service's (one forward pass a request: a classifier, an embedding, a
    segmentation) all-in cost over the requests its rate asks for in the months billed, per 1,000
    requests (None: not such a service)."""
    usd_per_thousand_samples: float | None = None
    """A batch inference job's (``task: infer`` without ``serving:``) all-in cost over the samples
    the run processes (``data.samples`` × epochs), per 1,000 samples (None: another job, no sample
    count, or not known: :attr:`usd_per_thousand_samples_unknown`)."""
    usd_per_thousand_samples_unknown: str | None = None
    """Why :attr:`usd_per_thousand_samples` is None for a batch job that has a sample count."""
    usd_per_million_tokens_unknown: str | None = None
    """Why the two figures above are None for a job that has them (its all-in cost not known), in
    words; None where they are known or do not apply."""
    price_age_days: int | None = None
    """The oldest the price can be on the day of the plan (from the earliest day ``as_of`` allows),
    days; None when the price is undated."""
    staleness: str = ""
    """``fresh``, ``stale`` or ``unknown`` (the date's bounds straddle the staleness limit, or there is
    none): the catalog's judgement (:func:`gpuplan.catalog.dates.price_age`)."""
    service: ServiceFigures | None = None
    """A service: its replicas, capacity and p95 latency at the load; None for a job."""
    network_kind: str = ""
    """Inter-node fabric as the catalog states it (``EFA``, ``InfiniBand``, ``RoCE``, ``TCP``); "" when
    not stated."""
    network_timed_gbps: float | None = None
    """The inter-node network of one instance the option's time was estimated at, Gbit/s: the
    catalog's, the user's (``plan --network-gbps``) or the slowest assumed (:attr:`network_source`);
    None for one node or a service (no network between nodes in its time)."""
    network_timed_kind: str = ""
    """The fabric that time was estimated over: the catalog's word (``EFA``, ``InfiniBand`` …),
    ``RDMA`` or ``TCP``; "" where :attr:`network_timed_gbps` is None."""
    network_source: str = ""
    """Where the two come from: ``catalog``, ``given`` (the user's, for an instance the catalog gives
    no network) or ``slowest-assumed`` (the catalog gives none and none was given); "" where
    :attr:`network_timed_gbps` is None."""
    commitment_usd: float | None = None
    """A service on a reservation: what its instances' whole term costs, billed whether the service
    runs or not (its ``total_cost_usd`` holds the month's share); None otherwise."""
    commitment_months: int | None = None
    """The reservation's term in months where ``commitment_usd`` is given."""
    upfront: str = ""
    """The reservation's payment option its price is the effective rate of (``partial``, ``all``);
    "" for no upfront or another pricing model."""
    upfront_usd: float | None = None
    """All upfront: the cash its instances' reservations take on day one (the effective rate × the
    term's hours × instances); None otherwise (partial upfront: the split is not published)."""
    service_day: ServiceDay | None = None
    """A service whose workload gives a mean below its peak, on several instances: the fleet its
    day needs (``plan/service_day.py``), the model ``tco`` prices the service by too; None
    otherwise (a job, no mean, a fleet of one instance, a replica's capacity not estimated)."""
    service_day_words: str = ""
    """How the option is priced against its day, in words (``plan/service_day.option_day_words``);
    "" where it has no ``service_day``."""
    peak_fleet_cost_usd: float | None = None
    """Where the option is priced as the fleet its day needs (it scales down: ``serving.min_replicas``
    set, billed by the hour, the autoscaler able to follow the day): its all-in cost with its peak
    fleet all month, the bound where the autoscaler does not follow (also ``total_cost_usd_high``);
    None where ``total_cost_usd`` is the peak fleet all month already."""
    crosses_border: bool | None = None
    """The option moves the job's data (dataset in, results back) across the border of mainland
    China: exactly one of ``data.location`` and the option's region is in it; None where the data's
    country or the option's is not known (:func:`gpuplan.plan.border.crosses_border`)."""
    data_leaves_country: CountryCrossing | None = None
    """The data's countries and the option's (any country): whether the work runs in another country
    than its data's or its users'; None where the option's country, or the data's where data moves,
    is not known (:func:`gpuplan.plan.border.leaves_country`)."""
    data_km: float | None = None
    """Great-circle distance from the job's data (``data.location``) to the option's region, km: what
    breaks a tie of cost and time between jobs (:mod:`gpuplan.plan.nearness`); None where the data's
    place is not given or either place is not known."""
    host_kind: str | None = None
    """What the price rents, as the provider's module states it (``OfferTerms.host``: ``cloud_vm``,
    ``bare_metal``, ``secure_cloud``, ``community_host``, ``resold``); None where it states nothing."""
    sanctions: tuple[str, ...] = ()
    """The official sanctions or export-control pages that restrict the option's country
    (:mod:`gpuplan.plan.sanctions`): a check before paying, never an exclusion; empty where none."""

    @property
    def gpu_count(self) -> int:
        return self.gpus_per_node * self.nodes

    @property
    def checkpoint_interval_min(self) -> float | None:
        """The interval the plan prices the checkpoints at, minutes (what ``gpuplan deploy`` writes
        into train.py); None where the job writes none."""
        if self.spot:
            return self.spot.checkpoint_interval_min
        return self.checkpoints.interval_min if self.checkpoints else None

    @property
    def expected_interruptions(self) -> float:
        return self.spot.expected_interruptions if self.spot else 0.0

    @property
    def memory_thin(self) -> bool:
        """Whether the option fits with little memory to spare at its band's high end
        (:func:`gpuplan.perf.memory_margin.is_thin`); False where it may not fit or either figure is
        unknown."""
        from gpuplan.perf.memory_margin import is_thin

        need, usable = self.memory_needed_gib_high, self.usable_memory_gib
        return not self.memory_uncertain and need is not None and usable is not None and is_thin(need, usable)

    @property
    def label(self) -> str:
        """``aws/us-east-1 2× p5en.48xlarge spot``, the pricing model in the current language."""
        nodes = f"{self.nodes}× " if self.nodes > 1 else ""
        return f"{place(self.provider, self.region)} {nodes}{self.instance_type} {pricing_name(self.pricing)}"


@dataclass(frozen=True, kw_only=True)
class PersonaPick:
    """The best option for one of the personas of the source articles."""

    persona: str
    """``budget``, ``performance``, ``kubernetes`` or ``compliance``."""
    rule: str
    """How the pick was chosen, in words."""
    option: Option | None
    note: str = ""


@dataclass(frozen=True, kw_only=True)
class WithoutStalePrices:
    """Beside a recommended option whose price is not known to be within the staleness limit (older,
    or of unknown age): the best option, by the same objective and constraints, among the prices that
    are. Prices move, so a winner that rests on an old one is shown beside the best fresh one, as
    ``tco`` shows its total without stale spot prices."""

    option: Option | None
    """None when no feasible option has a price known to be within the limit."""
    left_out: int
    """Feasible offers (provider, region, instance, pricing) left out for their price's age."""
    words: str
    """The recommended price's date and the alternative, in words."""


@dataclass(frozen=True, kw_only=True)
class Plan:
    """The planner's answer."""

    objective: Objective
    constraints: Constraints
    recommended: Option
    options: tuple[Option, ...]
    """Ranked best first (the top N, one per provider/region/instance/nodes/pricing)."""
    pareto: tuple[Option, ...]
    """Options no other option beats on both cost and time, cheapest first; a job's ends at the
    performance pick (those faster than it by less than the share the pick ignores cost more)."""
    baseline: Option | None
    baseline_note: str
    savings_vs_baseline_pct: float | None
    excluded: dict[str, int]
    """Candidates left out, by first reason."""
    personas: tuple[PersonaPick, ...]
    why: tuple[str, ...]
    """Why the recommended option beats the next ones, one line each."""
    candidates: int
    """Candidates enumerated (offer × node count × pricing)."""
    feasible: int
    notes: tuple[str, ...] = field(default_factory=tuple)
    """Assumptions and data caveats that apply to the whole plan."""
    network: str = ""
    """The network between the recommended option's nodes its time assumes (fabric, rate, where each
    comes from) and its time without it, in words; "" for one node."""
    decided_by_unknowns: str = ""
    """In words, when unknown facts decided the winner: which option would rank first with them at
    their best case, and which facts those are; empty when no unknown changes the winner."""
    host: str = ""
    """The recommended option's host kind and country in words (:mod:`gpuplan.plan.hosts`); where it
    is a community host or of unknown kind, the best option on a provider-run machine beside it."""
    host_caution: str = ""
    """Under the recommendation's headline where it is a community host and the workload brings data
    to it: that the host can read the data, and ``--hosts provider``
    (:func:`gpuplan.plan.hosts.community_data_caution`); "" otherwise."""
    stale_after_days: int = DEFAULT_STALE_AFTER_DAYS
    """The staleness limit the options' prices are flagged against, days."""
    without_stale_prices: WithoutStalePrices | None = None
    """The best option among prices known to be within the staleness limit, shown beside a
    recommended option whose price is not; None when the recommended price is known fresh."""
    checkpoint_gb: float = 0.0
    """One checkpoint of the job (trainable weights at the precision's own bytes + optimizer state + buffers),
    GB, as the plan stores and prices it (``JobFacts.checkpoint_gb``); 0 for a job that writes none."""
    checkpoint_write_min: float = 0.0
    """Minutes to write one checkpoint at the plan's assumed storage bandwidth
    (``JobFacts.checkpoint_write_gbps``); 0 for a job that writes none."""
    disk_gb: float | None = None
    """What one instance's block-storage disk holds as the plan prices it, GB: the dataset, the
    checkpoints kept and any model weights (``JobFacts.stored_gb_per_copy``); None where they are
    kept in one object-storage bucket (``storage: object``)."""
    launch_disk_gb: int | None = None
    """The disk each instance is launched with and priced at, GB (``JobFacts.launch_disk_gb``: what
    ``gpuplan deploy`` asks for, ``disk_gb`` with headroom and room for the OS and the image, at
    least SkyPilot's default; in a bucket's plan, the disk each instance boots with)."""
    thin_memory_margin: str = ""
    """The ranked options that fit with less than a tenth of the usable memory to spare at their
    memory band's high end, and what to change, in order, if they run out of memory all the same
    (:func:`gpuplan.perf.memory_margin.thin_margin_words`); "" where none does."""
