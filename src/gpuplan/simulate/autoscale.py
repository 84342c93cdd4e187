"""Simulate scaling policies on a trace: cost, replica-hours, utilisation, latency, SLOs, losses.

``simulate_autoscale`` replays one :class:`~gpuplan.simulate.trace.Trace` under each policy with
the same replicas, prices and interruption draws, so the policies differ only in their decisions.
A replica is a continuous-batching server (:mod:`gpuplan.simulate.replica`, from the estimator's
iteration model); the fleet's queue, scaling and billing are :mod:`gpuplan.simulate.engine`'s.
Per request it reports queueing, time to first token, time per output token and end-to-end
latency (:mod:`gpuplan.simulate.latency`), and per policy where it lost requests and why.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from gpuplan.day_load import Schedule
from gpuplan.errors import InputError, Phrase
from gpuplan.i18n.messages import N_
from gpuplan.simulate.engine import (
    STATUS_DROPPED,
    STATUS_KILLED,
    STATUS_SERVED,
    EngineConfig,
    EngineRun,
    Work,
    initial_replicas,
    run_engine,
)
from gpuplan.simulate.latency import METRICS, LatencyStats, Slo, SloOutcome, slo_outcome, stats
from gpuplan.simulate.policy import DEFAULT_STARTUP_S, Policy, queue_target
from gpuplan.simulate.pricing import PriceBasis
from gpuplan.simulate.replica import ReplicaModel, replica_from_step
from gpuplan.simulate.trace import MAX_WINDOW_S, LengthCap, ShapeRate, Trace
from gpuplan.start_up import StartUp
from gpuplan.units import MAX_SPOT_NOTICE_S
from gpuplan.vocab import PRICING_RULES

if TYPE_CHECKING:
    from gpuplan.perf.request_tail import LengthDistribution

__all__ = [
    "LOSS_CAUSES",
    "AutoscaleResult",
    "FleetPrices",
    "Losses",
    "PolicyResult",
    "ReplicaModel",
    "SimulationSettings",
    "Timeline",
    "check_slots",
    "check_window",
    "max_for_trace",
    "per_million_tokens",
    "replica_from_step",
    "simulate_autoscale",
]

#: Decisions × replicas one policy may take: each decision walks the live replicas, so this is the
#: simulation's work beyond its requests (a day at the 15 s period with 1,000 replicas is 5.8 M).
MAX_REPLICA_DECISIONS = 20_000_000
#: Batch slots of the largest fleet (replicas × slots per replica): each slot keeps its free time
#: and request (16 bytes) and is walked when its replica stops.
MAX_SLOTS = 1_000_000

#: Why a request was lost or late, in the order the report lists them.
LOSS_CAUSES = ("scaled_to_zero", "cold_start", "at_max", "not_scaled", "spot", "unreachable", "queueing")


@dataclass(frozen=True, kw_only=True)
class FleetPrices:
    """USD per replica-hour by pricing model (a replica's whole instances: ``inputs.fleet_prices``),
    and where the figures come from."""

    usd_per_hour: dict[str, float]
    """USD per replica-hour: ``on_demand`` always; ``spot`` when any policy uses spot; a committed
    model (``monthly``, ``reserved_1y``, ``reserved_3y``: its price over its hours, 730 h a month)
    when a policy commits replicas on it."""
    source: str
    sources: dict[str, str] = field(default_factory=dict)
    """Per pricing model of ``usd_per_hour``: where its figure comes from (``source`` joins them)."""
    words_currency: str = "USD"
    """The currency ``source`` and ``sources`` word their figures in (the catalog's own, in USD,
    cited beside them): a report in another adds the figures in its own."""
    basis: dict[str, PriceBasis] = field(default_factory=dict)
    """Per pricing model of ``usd_per_hour``: the offer its figure was read from (publisher, date,
    confidence) or the user's figure, and the best known-current price beside one that is not
    (empty for prices made by hand)."""
    spot_rate_per_hour: float = 1.0 / 24.0
    """Reclaims per spot instance-hour (an instance of ``per_instance("spot")`` replicas: a reclaim
    takes them all)."""
    spot_rate_source: str = "assumed: 1 interruption per 24 instance-hours"
    replicas_per_instance: dict[str, int] = field(default_factory=dict)
    """Per pricing model, replicas one instance holds (1 where absent): ``usd_per_hour`` is the
    instance's price shared by them, and a fleet pays whole instances, ``ceil(replicas / this)`` at
    each moment (a scale-down is taken to stop a replica of the emptiest instance)."""
    gpus_per_replica: int = 1
    """GPUs of one replica (its tensor-parallel ranks, in one machine)."""
    replicas_per_gpu: int = 1
    """Replicas time-sharing one GPU (``serving.share_gpu``): ``replicas_per_instance`` counts
    them, so a fleet pays ``ceil(replicas / (GPUs × this))`` instances, as ``plan`` prices it."""

    def per_instance(self, pricing: str) -> int:
        return max(1, self.replicas_per_instance.get(pricing, 1))


@dataclass(frozen=True, kw_only=True)
class SimulationSettings:
    """What is the same for every policy."""

    slos: tuple[Slo, ...] = ()
    """Latency targets (``--slo``); a policy's ``slo_miss_pct`` counts requests over any of them."""
    timeout_s: float = 120.0
    """A request that waited this long without starting is dropped (the client gives up)."""
    spot_notice_s: float = 30.0
    """Warning before a spot replica is reclaimed (Azure and GCP give 30 s, AWS 2 min)."""
    seed: int = 0
    chart_bin_s: float = 300.0
    cold_start_s: float | None = None
    """Launch to ready of a replica whose policy sets no ``startup``; None: the policy default."""
    start_up: StartUp | None = None
    """A new instance's start-up (the one model plan and deploy count): a policy on a schedule
    that sets no ``startup`` starts its replicas its :meth:`~gpuplan.start_up.StartUp.lead_min`
    before the hours, of the replicas one instance it is priced on holds (:func:`_scheduled_lead`);
    None: the policy's start-up in whole minutes."""
    cold_start_source: str = ""
    estimate_capacity_requests_per_s: float | None = None
    """One replica's capacity at full load by gpuplan's estimate (the figure plans size fleets
    with), which a queue policy's default target is chosen from beside the replica's own
    (:func:`gpuplan.simulate.in_flight.service_in_flight`); None: not known (``--replica``)."""
    latency_share: float | None = None
    """The share of :attr:`estimate_capacity_requests_per_s` the workload's latency targets hold a
    replica at, where they need more replicas than the sizing utilisation (as ``plan`` buys them,
    :func:`gpuplan.api.estimate_replica_figures`); None: no such target."""
    schedule: Schedule | None = None
    """The workload's ``serving.schedule`` (None: none), said in the report and the JSON."""
    schedule_applied: bool = False
    """Whether the run replays it: the trace's day is a scheduled day, local time from 00:00, its
    requests only in the hours, and the policies as deployed run none outside them
    (:attr:`Policy.hours`); False: a recorded trace, replayed as recorded round the clock."""

    def __post_init__(self) -> None:
        # A negative notice reclaimed replicas before they were told (and billed them for less than
        # they ran); a negative timeout dropped every request.
        if not (math.isfinite(self.timeout_s) and self.timeout_s > 0):
            raise InputError.worded(
                N_("--timeout-s must be a positive number of seconds, got {value:g}"), value=self.timeout_s
            )
        if self.timeout_s > MAX_WINDOW_S:
            raise InputError.worded(
                N_(
                    "--timeout-s must be at most {limit:,.0f} seconds (the longest window replayed), "
                    "got {value:g}"
                ),
                limit=MAX_WINDOW_S,
                value=self.timeout_s,
            )
        if not (math.isfinite(self.spot_notice_s) and self.spot_notice_s >= 0):
            raise InputError.worded(
                N_("--spot-notice-s must be 0 or more seconds, got {value:g}"), value=self.spot_notice_s
            )
        if self.spot_notice_s > MAX_SPOT_NOTICE_S:
            raise InputError.worded(
                N_(
                    "--spot-notice-s must be at most {limit:,.0f} seconds (clouds give 30 s to 2 min), "
                    "got {value:g}"
                ),
                limit=MAX_SPOT_NOTICE_S,
                value=self.spot_notice_s,
            )

    @property
    def slo_s(self) -> float | None:
        """The end-to-end threshold, for the chart's SLO line (None without an end-to-end SLO)."""
        return next((s.threshold_s for s in self.slos if s.metric == "e2e"), None)


@dataclass(frozen=True, kw_only=True)
class Timeline:
    """Per chart bin: load, replicas and latency (for the HTML chart)."""

    t_s: list[float]
    requests_per_s: list[float]
    replicas: list[float]
    """Mean replicas counted by the policy over the bin (starting and ready)."""
    ready: list[float]
    """Mean replicas ready to serve over the bin (the gap to ``replicas`` is cold start)."""
    latency_p95_s: list[float | None]
    ttft_p95_s: list[float | None]
    lost: list[int]
    """Requests arriving in the bin that were dropped, killed or over an SLO."""


@dataclass(frozen=True, kw_only=True)
class Losses:
    """Where a policy lost requests and why (``LOSS_CAUSES``)."""

    counts: dict[str, int]
    """scaled_to_zero: arrived while the policy ran no replica and started none (outside the
    workload's schedule, or at a ``scheduled`` step of 0), and dropped; it cost nothing then.
    cold_start: dropped while replicas it had asked for were still starting; at_max: dropped with
    every replica the policy may run; not_scaled: dropped below max with none starting (the
    policy's metric, tolerance or cooldown had not asked for more yet); spot: killed by a spot
    reclaim; unreachable: served over an SLO that no capacity meets for it; queueing: served over an
    SLO it would have met on an idle replica (it waited, or shared its replica's iterations with a
    large batch: more capacity helps)."""
    peak_bin_s: float | None
    """Start of the chart bin with the most losses (None: none)."""
    peak_lost: int


@dataclass(frozen=True, kw_only=True)
class PolicyResult:
    """One policy's outcome (the JSON contract's ``policies`` entries, plus detail)."""

    name: str
    spec: str
    cost_usd: float
    replica_hours: dict[str, float]
    """Per pricing model, hours of replicas paid: a committed model's (``monthly``, ``reserved_1y``
    …) are its committed replicas × the simulated span, busy or not."""
    instance_hours: dict[str, float]
    """Per pricing model, hours of the whole instances billed (``replica_hours`` where one instance
    holds one replica; fewer where replicas share one: ``FleetPrices.replicas_per_instance``)."""
    utilisation: float
    """Busy batch-slot time / paid batch-slot time (0–1)."""
    latency_p50_s: float | None
    """End-to-end, as ``latency['e2e']``."""
    latency_p95_s: float | None
    latency_p99_s: float | None
    slo_miss_pct: float | None
    """Share of the requests over any SLO, dropped or killed, in percent (those still waiting when
    the trace ended included: served in the window's drain or dropped there); None without an SLO."""
    dropped: int
    """Timed out in the queue, or killed by a spot interruption."""
    max_replicas: int
    interruptions: int
    """Spot instances reclaimed; each took every replica on it at once."""
    served: int
    queued_at_end: int
    """Requests neither served nor dropped: 0, since the replicas serve those waiting at the end of
    the trace (the window's drain, :mod:`gpuplan.simulate.engine`)."""
    killed: int
    waiting_at_end: int = 0
    """Requests still waiting when the trace ended: served after it (late, and billed) or dropped at
    their timeout; they count in ``slo_miss_pct``, the SLOs and ``dropped`` as any other."""
    dropped_after_end: int = 0
    """Of ``waiting_at_end``, those that timed out after the end (counted in ``dropped``)."""
    timeline: Timeline
    latency: dict[str, LatencyStats]
    """Per metric (``queue``, ``ttft``, ``tpot``, ``e2e``) over the requests served."""
    slos: tuple[SloOutcome, ...]
    losses: Losses
    start_replicas: int
    """Replicas ready when the trace begins."""
    startup_s: float
    """Launch to ready of a replica it adds (cold start)."""
    policy: Policy
    tokens_served: dict[str, int]
    """``prompt`` and ``output`` tokens of the requests it served (the trace's counts)."""
    usd_per_million_output_tokens: float | None
    """``cost_usd`` over the output tokens served, per million (None: ``per_million_tokens_note``)."""
    usd_per_million_tokens: float | None
    """``cost_usd`` over the prompt and output tokens served, per million."""
    per_million_tokens_note: str | None
    """Why the figures per million tokens are None (None when they are known)."""
    usd_per_thousand_images: float | None = None
    """An image service's (:attr:`ReplicaModel.image_s`): ``cost_usd`` over the images served, per
    1,000 (its requests are one image each, with no tokens); None for a language model's, or where
    none was served."""
    usd_per_thousand_requests: float | None = None
    """A forward-pass service's (:attr:`ReplicaModel.forward_pass`): ``cost_usd`` over the requests
    served, per 1,000 (one forward pass each, no tokens); None for any other, or none served."""
    saturated_s: float
    """Time its replicas ran near saturation (batch ≥ ``SATURATED_BATCH`` of the slots, or prompts
    ≥ ``SATURATED_PREFILL`` of a replica's compute): there the per-request model's latency tails
    are optimistic next to the iteration-level replica (:mod:`gpuplan.simulate.batching`)."""
    cost_usd_by_pricing: dict[str, float] = field(default_factory=dict)
    """``cost_usd`` by pricing model (the committed replicas' part apart from the burst's)."""
    prices: FleetPrices | None = None
    """The prices of its own fleet where they are not :attr:`AutoscaleResult.prices` (a policy of
    one replica priced on the one-GPU instance its own fleet takes, not on the 8-GPU one picked
    for another policy's eight); None: the run's."""
    common_cost_usd: float | None = None
    """Where :attr:`prices` is set (the policy priced at other offers than the run's): its run
    billed at :attr:`AutoscaleResult.prices`, the offers picked for the largest fleet of all the
    policies, in their whole instances, so that policies priced at different offers are also
    compared at one; None where it is priced at them already (``cost_usd`` is that figure) or they
    lack a pricing model it ran on. Its spot replicas are reclaimed there at those offers'
    interruption rate, as many to an instance as theirs holds: where either differs from its own
    offer's, the policy is run again on them (the same draws), its reclaims' restarts and lost
    requests the common offer's, not its own re-billed."""
    common_replayed: bool = False
    """:attr:`common_cost_usd` is of the policy run again on the common offers' spot instances
    (reclaimed at another rate than its own offer's, or holding another number of its replicas)."""
    current_cost_usd: float | None = None
    """Where a price it is billed at is not known to hold today and the catalog has one of the same
    GPU and pricing model that is (``PriceBasis.current``): the same run billed at that one instead,
    in its whole instances (the prices known current kept); None where every price is known current
    or one not known current has no such price (``current_cost_missing`` names its model)."""
    current_instance_hours: dict[str, float] = field(default_factory=dict)
    """Beside :attr:`current_cost_usd`: the instance-hours it bills per pricing model, in the whole
    instances of the prices known current (fewer than ``instance_hours`` where one of those holds
    more replicas)."""
    current_cost_missing: tuple[str, ...] = ()
    """The pricing models it is billed at whose price is not known current and has no known-current
    price beside it in the catalog: its cost rests on them alone."""


#: Where the per-request replica model stops tracking the iteration-level one (checked on the
#: Azure conversation trace: below these, medians agree within ~10 % and p95 within ~25 %).
SATURATED_BATCH = 0.8
SATURATED_PREFILL = 0.5


@dataclass(frozen=True, kw_only=True)
class AutoscaleResult:
    replica: ReplicaModel
    prices: FleetPrices
    settings: SimulationSettings
    trace_name: str
    trace_synthetic: bool
    trace_note: str
    requests: int
    trace_out_of_order: int = 0
    """Rows of the trace file out of time order (taken in time order)."""
    trace_default_prompt_tokens: int | None = None
    """The workload's prompt tokens, taken by every request because the trace has none."""
    trace_default_output_tokens: int | None = None
    """The workload's output tokens, taken by every request because the trace has none."""
    trace_rate: ShapeRate | None = None
    """A generated trace's rate curve (mean and peak); None for a trace read from a file."""
    trace_slow_median_gap_s: float | None = None
    """The median time between arrivals of a file of numeric timestamps, where it is a minute or more
    (are they milliseconds?)."""
    trace_lengths: tuple[LengthDistribution, LengthDistribution] | None = None
    """A generated trace's prompt and output lengths, what they were drawn from (the p95 lengths
    ``plan`` checks its p95 targets at); None for a trace read from a file."""
    trace_length_cap: LengthCap | None = None
    """Where a generated trace's lengths were cut at the longest request one replica holds
    (:meth:`Trace.within`): at what, and how many."""
    duration_s: float
    policies: tuple[PolicyResult, ...]
    plan_p95_latency_s: dict[str, float] = field(default_factory=dict)
    """Per policy name: gpuplan's estimate of the p95 latency (``plan``'s figure) at the generated
    trace's peak spread over the most replicas the policy ran (:func:`gpuplan.api.plan_p95_latency`),
    which the report sets its own p95 beside; empty where not known (a trace file, given figures)."""


def _bins(trace: Trace, bin_s: float) -> tuple[int, np.ndarray]:
    nb = max(1, math.ceil(trace.duration_s / bin_s))
    return nb, np.minimum((trace.arrival_s / bin_s).astype(np.int64), nb - 1)


def _p95_per_bin(bins: np.ndarray, values: np.ndarray, nb: int) -> list[float | None]:
    """p95 of ``values`` per bin; ``bins`` (non-decreasing: arrivals are sorted) gives each one's."""
    out: list[float | None] = [None] * nb
    edges = np.searchsorted(bins, np.arange(nb + 1))
    for b in range(nb):
        lo, hi = edges[b], edges[b + 1]
        if hi > lo:
            k = int(0.95 * (hi - lo - 1))
            out[b] = float(np.partition(values[lo:hi], k)[k])
    return out


def _tick_means(run: EngineRun, values: Sequence[float], nb: int, bin_s: float) -> list[float]:
    tick_b = np.minimum((np.asarray(run.tick_s) / bin_s).astype(np.int64), nb - 1)
    sums = np.bincount(tick_b, weights=np.asarray(values, dtype=float), minlength=nb)
    ticks = np.bincount(tick_b, minlength=nb)
    return np.where(ticks > 0, sums / np.maximum(ticks, 1), np.nan).tolist()


@dataclass(frozen=True, kw_only=True)
class _Requests:
    """Per-request figures of one policy's run, for the requests served (in arrival order)."""

    served: np.ndarray
    """Indices of the requests served."""
    lost: np.ndarray
    """Per request: dropped or killed."""
    values: dict[str, np.ndarray]
    """Per metric, per request served (nan where undefined: TPOT of one token)."""
    late: np.ndarray
    """Per request served: over some SLO."""
    hopeless: np.ndarray
    """Per request served: over some SLO that no capacity meets for it."""


def _per_request(trace: Trace, run: EngineRun, best: dict[str, np.ndarray], slos: Sequence[Slo]) -> _Requests:
    st = run.status
    idx = np.flatnonzero(st == STATUS_SERVED)
    lost = (st == STATUS_DROPPED) | (st == STATUS_KILLED)
    # Every request served (the common case): whole arrays, no gathering four million indices.
    sel: slice | np.ndarray = slice(None) if len(idx) == len(st) else idx
    queue = run.start_s[sel] - trace.arrival_s[sel]
    output = trace.output_tokens[sel] if trace.output_tokens is not None else np.ones(len(idx))
    tpot = np.array(run.step_s[sel], dtype=np.float64)  # a copy: one-token outputs become nan
    tpot[output <= 1] = math.nan
    values = {
        "queue": queue,
        "ttft": queue + run.first_token_s[sel],
        "tpot": tpot,
        "e2e": queue + run.service_s[sel],
    }
    late = np.zeros(len(idx), dtype=bool)
    hopeless = np.zeros(len(idx), dtype=bool)
    for slo in slos:
        with np.errstate(invalid="ignore"):
            over = values[slo.metric] > slo.threshold_s  # nan compares False
        late |= over
        hopeless |= over & (best[slo.metric][sel] > slo.threshold_s)
    return _Requests(served=idx, lost=lost, values=values, late=late, hopeless=hopeless)


def _losses(
    trace: Trace, run: EngineRun, req: _Requests, policy: Policy, cfg: _Ctx
) -> tuple[Losses, list[int]]:
    st = run.status
    counts = dict.fromkeys(LOSS_CAUSES, 0)
    dropped = np.flatnonzero(st == STATUS_DROPPED)
    if len(dropped) and run.tick_s:
        ticks, fleet = np.asarray(run.tick_s), np.asarray(run.tick_replicas)
        came = np.maximum(np.searchsorted(ticks, trace.arrival_s[dropped], side="right") - 1, 0)
        zero = fleet[came] == 0  # no replica up or starting when it arrived
        when = trace.arrival_s[dropped] + cfg.settings.timeout_s
        k = np.maximum(np.searchsorted(ticks, when, side="right") - 1, 0)
        asked = fleet[k]
        ready = np.asarray(run.tick_ready)[k]
        cold = ~zero & (ready < asked)
        at_max = ~zero & ~cold & (asked >= policy.max_replicas)
        counts["scaled_to_zero"] = int(zero.sum())
        counts["cold_start"] = int(cold.sum())
        counts["at_max"] = int(at_max.sum())
        counts["not_scaled"] = (
            len(dropped) - counts["scaled_to_zero"] - counts["cold_start"] - counts["at_max"]
        )
    counts["spot"] = int(np.count_nonzero(st == STATUS_KILLED))
    counts["unreachable"] = int(np.count_nonzero(req.hopeless))
    counts["queueing"] = int(np.count_nonzero(req.late & ~req.hopeless))
    nb, bins = _bins(trace, cfg.settings.chart_bin_s)
    lost_bins = np.bincount(bins[req.lost], minlength=nb) + np.bincount(
        bins[req.served[req.late]], minlength=nb
    )
    peak = int(np.argmax(lost_bins))
    peak_lost = int(lost_bins[peak])
    losses = Losses(
        counts=counts,
        peak_bin_s=peak * cfg.settings.chart_bin_s if peak_lost else None,
        peak_lost=peak_lost,
    )
    return losses, lost_bins.tolist()


def per_million_tokens(
    cost_usd: float, *, prompt: int, output: int
) -> tuple[float | None, float | None, str | None]:
    """USD per million output tokens and per million prompt and output tokens served, and why
    either is None (``N_`` words, shown in the user's language)."""
    if output <= 0:
        return None, None, N_("no request was served")
    return cost_usd / (output / 1e6), cost_usd / ((prompt + output) / 1e6), None


def _instance_hours(
    launch: Sequence[float], end: Sequence[float], per_instance: int, committed: int = 0
) -> float:
    """Hours of whole instances a fleet of replicas pays, ``per_instance`` replicas to an instance:
    at each moment ``ceil(running / per_instance)`` of them (e.g. three 4-GPU replicas on 8-GPU
    instances for an hour: 2 instance-hours). ``committed``: replicas paid for apart (a
    commitment), so that only those running above them are counted: ``ceil(max(0, running -
    committed) / per_instance)``."""
    if per_instance <= 1 and committed <= 0:
        return sum(max(0.0, e - s) for s, e in zip(launch, end, strict=True)) / 3600.0
    t0, t1 = np.asarray(launch, dtype=np.float64), np.asarray(end, dtype=np.float64)
    keep = t1 > t0
    times = np.concatenate([t0[keep], t1[keep]])
    step = np.concatenate([np.ones(int(keep.sum())), -np.ones(int(keep.sum()))])
    order = np.argsort(times, kind="stable")
    running = np.maximum(np.cumsum(step[order]) - committed, 0.0)
    instances = np.ceil(running[:-1] / max(1, per_instance) - 1e-9)
    return float(np.sum(instances * np.diff(times[order]))) / 3600.0


def _billed(
    policy: Policy, trace: Trace, run: EngineRun, prices: FleetPrices, gpu: str
) -> tuple[dict[str, float], dict[str, float]]:
    """Replica-hours and instance-hours a policy's run pays, by pricing model. Spot replicas, and
    on-demand ones above the policy's commitment, from launch until empty; the committed replicas
    (``commit``: the first ones of the fleet not on spot) in ``ceil(commit / per instance)`` whole
    instances of their committed model, paid for the whole span the other replicas are billed over
    (the trace's start to the end of its drain), whether they run or not."""
    hours: dict[str, float] = {}
    spans: dict[str, tuple[list[float], list[float]]] = {}
    for launch, end, spot in zip(run.replica_launch_s, run.replica_end_s, run.replica_spot, strict=True):
        key = "spot" if spot else "on_demand"
        starts, ends = spans.setdefault(key, ([], []))
        starts.append(launch)
        ends.append(end)
    committed = policy.commit_replicas
    for key, (starts, ends) in spans.items():
        hours[key] = _instance_hours(starts, ends, 1, committed if key == "on_demand" else 0)
    if committed > 0:
        if hours.get("on_demand", 0.0) <= 0.0:
            hours.pop("on_demand", None)  # no replica ran above the commitment
        span_s = max([trace.duration_s, *run.replica_end_s])
        hours[policy.commit_pricing] = committed * span_s / 3600.0
    missing = [k for k in hours if k not in prices.usd_per_hour]
    if missing:
        flag = (
            "commit"
            if missing[0] == policy.commit_pricing and committed > 0
            else missing[0].replace("_", "-")
        )
        raise InputError.worded(
            N_("no {pricing} price for {gpu}; give one with --{flag}-price"),
            pricing=Phrase(PRICING_RULES[missing[0]].name),
            gpu=gpu,
            flag=flag,
        )
    instance_hours = {
        k: _instance_hours(*spans[k], prices.per_instance(k), committed if k == "on_demand" else 0)
        for k in hours
        if k in spans
    }
    if committed > 0:
        instances = math.ceil(committed / prices.per_instance(policy.commit_pricing))
        instance_hours[policy.commit_pricing] = instances * hours[policy.commit_pricing] / committed
    return hours, instance_hours


def _cost(policy: Policy, trace: Trace, run: EngineRun, prices: FleetPrices, gpu: str) -> float:
    """What a policy's run costs at ``prices``: its instance-hours in their whole instances, each at
    its pricing model's price."""
    _hours, instance_hours = _billed(policy, trace, run, prices, gpu)
    return sum(h * prices.usd_per_hour[k] * prices.per_instance(k) for k, h in instance_hours.items())


def _at_current(prices: FleetPrices, models: Sequence[str]) -> tuple[FleetPrices | None, tuple[str, ...]]:
    """``prices`` with each of ``models`` whose price is not known current replaced by the best one
    that is (its figure and the replicas one of its instances holds), and the models with no such
    price; None where every price of ``models`` is known current (nothing to replace) or one has no
    known-current price (the cost cannot be given at current prices alone)."""
    stale = [k for k in models if k in prices.basis and not prices.basis[k].known_current]
    missing = tuple(k for k in stale if prices.basis[k].current is None)
    if not stale or missing:
        return None, missing
    usd = dict(prices.usd_per_hour)
    packed = dict(prices.replicas_per_instance)
    for k in stale:
        c = prices.basis[k].current
        assert c is not None  # not missing
        usd[k] = c.usd_per_hour
        packed[k] = c.replicas_per_instance or 1
    return replace(prices, usd_per_hour=usd, replicas_per_instance=packed), ()


def _engine_run(trace: Trace, work: Work, policy: Policy, ctx: _Ctx, at: FleetPrices) -> EngineRun:
    """``policy``'s run over ``trace`` on ``at``'s spot instances: reclaimed at their interruption
    rate, as many replicas to one as it holds (the same draws whichever)."""
    cfg = EngineConfig(
        slots=ctx.replica.slots,
        horizon_s=trace.duration_s,
        timeout_s=ctx.settings.timeout_s,
        spot_rate_per_hour=at.spot_rate_per_hour,
        spot_replicas_per_instance=at.per_instance("spot"),
        spot_notice_s=ctx.settings.spot_notice_s,
        seed=ctx.settings.seed,
        start_of_day_s=trace.start_of_day_s,
    )
    return run_engine(trace.arrival_s, work, policy, cfg)


def _same_reclaims(own: FleetPrices, other: FleetPrices, result: PolicyResult) -> bool:
    """Whether ``result``'s run would have been the same on ``other``'s instances: no spot replica,
    or spot instances reclaimed at the same rate and holding as many of its replicas."""
    return "spot" not in result.replica_hours or (
        own.spot_rate_per_hour == other.spot_rate_per_hour
        and own.per_instance("spot") == other.per_instance("spot")
    )


def _prices_all(prices: FleetPrices, result: PolicyResult) -> bool:
    """``prices`` has a figure for every pricing model ``result`` was billed on."""
    return all(k in prices.usd_per_hour for k in result.replica_hours)


def _summarise(policy: Policy, trace: Trace, run: EngineRun, prices: FleetPrices, cfg: _Ctx) -> PolicyResult:
    st = run.status
    req = _per_request(trace, run, cfg.best, cfg.settings.slos)
    served = st == STATUS_SERVED
    n_served = len(req.served)
    hours, instance_hours = _billed(policy, trace, run, prices, cfg.replica.gpu)
    cost_by = {k: h * prices.usd_per_hour[k] * prices.per_instance(k) for k, h in instance_hours.items()}
    cost = sum(cost_by.values())
    ran = served | (st == STATUS_KILLED)
    finish = run.start_s + run.service_s
    # Replicas are billed until what they started ends (the window's drain): so is their busy time.
    busy = float(np.sum(np.clip(finish[ran] - run.start_s[ran], 0, None)))
    paid = sum(hours.values()) * 3600.0 * cfg.replica.slots
    counts = np.bincount(st, minlength=STATUS_KILLED + 1)
    dropped, killed, queued = int(counts[STATUS_DROPPED]), int(counts[STATUS_KILLED]), int(counts[0])
    lost = dropped + killed
    output = trace.output_tokens if trace.output_tokens is not None else np.ones(trace.requests)
    outcomes = tuple(
        slo_outcome(slo, req.values[slo.metric], lost, cfg.best[slo.metric], output)
        for slo in cfg.settings.slos
    )
    miss: float | None = None
    if cfg.settings.slos:
        counted = n_served + lost
        miss = 100.0 * (int(np.count_nonzero(req.late)) + lost) / counted if counted else 0.0
    # an image is delivered whole: its "first token" is the image, so TTFT would be its end-to-end
    # latency again; left unknown (the report says why), as TPOT is for one-token answers
    blank = {"ttft"} if cfg.replica.image_s is not None else set()
    latency = {m: stats(req.values[m] if m not in blank else np.empty(0)) for m in METRICS}
    losses, lost_bins = _losses(trace, run, req, policy, cfg)
    nb, bins = _bins(trace, cfg.settings.chart_bin_s)
    timeline = Timeline(
        t_s=[b * cfg.settings.chart_bin_s for b in range(nb)],
        requests_per_s=(np.bincount(bins, minlength=nb) / cfg.settings.chart_bin_s).tolist(),
        replicas=_tick_means(run, run.tick_replicas, nb, cfg.settings.chart_bin_s),
        ready=_tick_means(run, run.tick_ready, nb, cfg.settings.chart_bin_s),
        latency_p95_s=_p95_per_bin(bins[req.served], req.values["e2e"], nb),
        ttft_p95_s=[None] * nb if blank else _p95_per_bin(bins[req.served], req.values["ttft"], nb),
        lost=lost_bins,
    )
    e2e = latency["e2e"]
    assert trace.prompt_tokens is not None and trace.output_tokens is not None  # simulate_autoscale's
    tokens = {
        "prompt": int(trace.prompt_tokens[req.served].sum(dtype=np.int64)),
        "output": int(trace.output_tokens[req.served].sum(dtype=np.int64)),
    }
    per_m_out, per_m_all, per_m_note = per_million_tokens(
        cost, prompt=tokens["prompt"], output=tokens["output"]
    )
    per_k_images = per_k_requests = None
    if cfg.replica.image_s is not None:  # one image (one forward pass) a request, no tokens: per 1,000
        per_k = cost / n_served * 1000 if n_served else None
        per_m_out = per_m_all = None
        if cfg.replica.forward_pass:
            per_k_requests = per_k
            per_m_note = N_("a forward-pass service's requests are forward passes, not tokens")
        else:
            per_k_images = per_k
            per_m_note = N_("an image service's requests are images, not tokens")
    batch = np.asarray(_tick_means(run, run.tick_batch, nb, cfg.settings.chart_bin_s))
    ready = np.asarray(timeline.ready)
    prefill_load = np.zeros(nb)
    # a replica time-sharing its GPU runs its prompts in its share of the GPU's time
    step = cfg.replica.step
    per_token = step.prefill_s_per_token / cfg.replica.time_share if step is not None else 0.0
    if per_token and trace.prompt_tokens is not None:
        prompt_tokens = np.bincount(bins, weights=trace.prompt_tokens.astype(float), minlength=nb)
        with np.errstate(divide="ignore", invalid="ignore"):
            prefill_load = prompt_tokens / cfg.settings.chart_bin_s / ready * per_token
    # the sequences running on a ready replica: each tick's batch counts the one a request starts
    # beside them too (the step it runs at), which had made a replica of one place "near saturation"
    # at every tick, idle or not
    running = np.maximum(np.nan_to_num(batch) - 1.0, 0.0)
    hot = (running >= SATURATED_BATCH * cfg.replica.slots) | (
        np.nan_to_num(prefill_load, posinf=1.0) >= SATURATED_PREFILL
    )
    return PolicyResult(
        name=policy.name,
        spec=policy.spec,
        cost_usd=cost,
        cost_usd_by_pricing=cost_by,
        replica_hours=hours,
        instance_hours=instance_hours,
        utilisation=busy / paid if paid > 0 else 0.0,
        latency_p50_s=e2e.p50_s,
        latency_p95_s=e2e.p95_s,
        latency_p99_s=e2e.p99_s,
        slo_miss_pct=miss,
        dropped=lost,
        max_replicas=max(run.tick_replicas) if run.tick_replicas else 0,
        interruptions=run.interruptions,
        served=n_served,
        queued_at_end=queued,
        killed=killed,
        waiting_at_end=run.waiting_at_end,
        dropped_after_end=run.dropped_after_end,
        timeline=timeline,
        latency=latency,
        slos=outcomes,
        losses=losses,
        start_replicas=initial_replicas(policy, trace.start_of_day_s),
        startup_s=policy.startup_s if policy.startup_s is not None else DEFAULT_STARTUP_S,
        policy=policy,
        tokens_served=tokens,
        usd_per_million_output_tokens=per_m_out,
        usd_per_million_tokens=per_m_all,
        per_million_tokens_note=per_m_note,
        usd_per_thousand_images=per_k_images,
        usd_per_thousand_requests=per_k_requests,
        saturated_s=float(hot.sum()) * cfg.settings.chart_bin_s,
    )


def _scheduled_lead(policy: Policy, prices: FleetPrices, up: StartUp) -> Policy:
    """``policy`` (on a schedule) starting its replicas before the hours by the start-up of a new
    instance of those it is priced on, its replicas reading their weights through its one disk
    together (the most one instance holds of any pricing model it runs on): the lead plan bills
    and deploy's cron lines start the fleet at, for the same offer."""
    k = max([prices.per_instance(key) for key in prices.usd_per_hour] or [1])
    return replace(policy, lead_s=60.0 * up.lead_min(k), lead_words=up.lead_words(k))


def _check_work(trace: Trace, replica: ReplicaModel, policies: Sequence[Policy]) -> None:
    """Refuse, before anything is allocated, a simulation whose work its inputs do not bound: a
    window past MAX_WINDOW_S, more than MAX_REPLICA_DECISIONS or MAX_SLOTS for a policy."""
    check_window(trace.name, trace.duration_s, policies, seconds_column=trace.seconds_column)
    check_slots(replica.slots, policies)


def check_slots(slots: int, policies: Sequence[Policy]) -> None:
    """Refuse a policy whose largest fleet of replicas of ``slots`` batch slots each holds more than
    MAX_SLOTS (the service runs this at submission where the replica's figures are given)."""
    for p in policies:
        if p.max_replicas * slots > MAX_SLOTS:
            raise InputError.worded(
                N_(
                    "policy {name!r}: {replicas:,} replicas × {slots:,} slots is more than the {limit:,} "
                    "batch slots a simulation keeps"
                ),
                name=p.name,
                replicas=p.max_replicas,
                slots=slots,
                limit=MAX_SLOTS,
            )


def _check_fits(trace: Trace, replica: ReplicaModel) -> None:
    """Refuse a trace with requests a replica cannot hold at all: prompt and output above its KV
    cache (an engine refuses such a request; served here it would be "served" for days on one
    slot). Given figures (no iteration model) carry no cache size and are not judged."""
    if replica.step is None or trace.prompt_tokens is None or trace.output_tokens is None:
        return
    cap = replica.step.kv_capacity_tokens
    need = trace.prompt_tokens.astype(np.int64) + trace.output_tokens.astype(np.int64)
    over = np.flatnonzero(need > cap)
    if not len(over):
        return
    wider = replica.room_at_tensor_parallel
    if cap <= 0:
        # no request fits: the weights fill the replica. Leaving requests out cannot help; a wider
        # split can (the plan chooses one for a workload that states none; simulate takes the stated)
        raise InputError.worded(
            N_(
                "trace {name}: one {gpu} replica has no room for a KV cache (the model's weights fill "
                "its memory), so none of its {n:,} requests can run; split each replica over {tp} GPUs, "
                "the fewest that hold its longest request (--tensor-parallel {tp}, or tensor_parallel: "
                "{tp} in the workload), or use a bigger GPU"
            )
            if wider is not None
            else N_(
                "trace {name}: one {gpu} replica has no room for a KV cache (the model's weights fill "
                "its memory), so none of its {n:,} requests can run, nor could they split over {most} "
                "GPUs (--tensor-parallel {most}, the widest even split in one instance): use a bigger GPU"
            )
            if replica.splits_tried
            else N_(
                "trace {name}: one {gpu} replica has no room for a KV cache (the model's weights fill "
                "its memory), so none of its {n:,} requests can run; split each replica over more GPUs "
                "(--tensor-parallel N, or tensor_parallel: N in the workload; `gpuplan plan` says the "
                "split it chose) or use a bigger GPU"
            ),
            name=trace.name,
            gpu=replica.gpu,
            n=len(need),
            tp=wider,
            most=max(replica.splits_tried, default=None),
        )
    first = int(over[0])
    raise InputError.worded(
        N_(
            "trace {name}: requests that need more KV cache than one {gpu} replica holds ({cap:,} "
            "tokens): {n:,}, the first at {at:,.3f} s with {tokens:,} tokens; serve them split over "
            "{tp} GPUs (--tensor-parallel {tp}, or tensor_parallel: {tp} in the workload) or on a "
            "bigger GPU, or leave them out of the trace"
        )
        if wider is not None
        else N_(
            "trace {name}: requests that need more KV cache than one {gpu} replica holds ({cap:,} "
            "tokens): {n:,}, the first at {at:,.3f} s with {tokens:,} tokens; serve them with "
            "tensor parallel or a bigger GPU, or leave them out of the trace"
        ),
        name=trace.name,
        n=len(over),
        gpu=replica.gpu,
        cap=cap,
        at=float(trace.arrival_s[first]),
        tokens=int(need[first]),
        tp=wider,
    )


def check_window(
    name: str, duration_s: float, policies: Sequence[Policy], *, seconds_column: bool = False
) -> None:
    """The bounds on work a trace's window and the policies set, judged before any replica is
    built (what ``gpuplan serve`` checks when a simulation is asked for): a window past
    MAX_WINDOW_S, more than MAX_REPLICA_DECISIONS for a policy.

    ``seconds_column``: the trace's times are a file's numbers read as seconds; a window past the
    limit that milliseconds would bring within it asks whether they are (a question, not a guess:
    the file is not read again as milliseconds)."""
    if seconds_column and math.isfinite(duration_s) and MAX_WINDOW_S < duration_s <= MAX_WINDOW_S * 1000:
        raise InputError.worded(
            N_(
                "trace {name} spans {days:,.4g} days, longer than the {limit:,.0f} days a simulation "
                "replays; its timestamp column is read as seconds, and as milliseconds it would span "
                "{hours:,.4g} h: if it is milliseconds, name the column timestamp_ms (or divide its "
                "numbers by 1,000); else cut it to the window you want to simulate"
            ),
            name=name,
            days=duration_s / 86_400,
            limit=MAX_WINDOW_S / 86_400,
            hours=duration_s / 1000 / 3600,
        )
    if not (math.isfinite(duration_s) and duration_s <= MAX_WINDOW_S):
        raise InputError.worded(
            N_(
                "trace {name} spans {days:,.4g} days, longer than the {limit:,.0f} days a simulation "
                "replays (one-second resolution); cut it to the window you want to simulate"
            ),
            name=name,
            days=duration_s / 86_400,
            limit=MAX_WINDOW_S / 86_400,
        )
    for p in policies:
        decisions = math.ceil(duration_s / p.period_s) + 1
        if decisions * p.max_replicas > MAX_REPLICA_DECISIONS:
            raise InputError.worded(
                N_(
                    "policy {name!r}: {decisions:,} decisions × {replicas:,} replicas is more than the "
                    "{limit:,} a simulation takes; give a longer period, fewer replicas or a shorter trace"
                ),
                name=p.name,
                decisions=decisions,
                replicas=p.max_replicas,
                limit=MAX_REPLICA_DECISIONS,
            )


@dataclass(frozen=True, kw_only=True)
class _Ctx:
    replica: ReplicaModel
    settings: SimulationSettings
    best: dict[str, np.ndarray]
    """Per request, each metric on an idle replica (what no capacity improves on)."""


def _distinct(tokens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct token counts and each request's index among them (``np.unique`` with
    ``return_inverse``, by a lookup table: counts are whole numbers within the reader's bound)."""
    if tokens.dtype.kind not in "iu" or (len(tokens) and tokens.min() < 0):
        lengths, back = np.unique(tokens, return_inverse=True)
        return lengths, back
    seen = np.bincount(tokens)
    lengths = np.flatnonzero(seen)
    index = np.zeros(len(seen), dtype=np.int64)
    index[lengths] = np.arange(len(lengths))
    return lengths, index[tokens]


def _best(
    trace: Trace, replica: ReplicaModel, lengths: np.ndarray, back: np.ndarray
) -> dict[str, np.ndarray]:
    assert trace.prompt_tokens is not None and trace.output_tokens is not None
    first = np.asarray(replica.prefill_s(lengths, 0.0), dtype=np.float64)[back]
    out = trace.output_tokens
    one = replica.tpot_s(1.0)
    return {
        "queue": np.zeros(trace.requests),
        "ttft": first,
        "tpot": np.where(out > 1, one, math.nan),
        # As ReplicaModel.best_e2e_s, from the prefill already computed.
        "e2e": first + np.maximum(out - 1.0, 0.0) * one,
    }


def simulate_autoscale(
    trace: Trace,
    replica: ReplicaModel,
    policies: Sequence[Policy],
    prices: FleetPrices,
    settings: SimulationSettings | None = None,
    policy_prices: Mapping[str, FleetPrices] | None = None,
) -> AutoscaleResult:
    """Each policy on ``trace``; requests need the trace's token counts (see ``Trace.with_tokens``).
    ``policy_prices``: by policy name, the prices of that policy's own fleet (``inputs.policy_fleets``
    of it alone), so that a policy costs the same whichever others run beside it; ``prices``
    otherwise."""
    settings = settings or SimulationSettings()
    if trace.synthetic and replica.step is not None:
        # a generated request is drawn no longer than a replica's engine takes (a file's is refused)
        trace = trace.within(replica.step.kv_capacity_tokens)
    if trace.prompt_tokens is None or trace.output_tokens is None:
        raise InputError.worded(N_("the trace has no token counts; give the workload's serving: figures"))
    if not policies:
        raise InputError.worded(N_("no policy to simulate; give --policy (e.g. target:target=0.7)"))
    names = [p.name for p in policies]
    if len(set(names)) != len(names):
        raise InputError.worded(N_("two policies share a name; give each a name=… key"))
    _check_work(trace, replica, policies)
    _check_fits(trace, replica)
    # Prompt lengths repeat: each distinct one is costed once, per batch (replica.work) and alone.
    lengths, back = _distinct(trace.prompt_tokens)
    work = replica.work(trace.prompt_tokens, trace.output_tokens, distinct=(lengths, back))
    # What no capacity improves on matters only against a target.
    best = _best(trace, replica, lengths, back) if settings.slos else {}
    ctx = _Ctx(replica=replica, settings=settings, best=best)
    out = []
    for given in policies:
        # A policy without its own start-up time takes the cold start derived from the model.
        p = queue_target(
            given,
            replica,
            trace.prompt_tokens,
            trace.output_tokens,
            estimate_capacity_requests_per_s=settings.estimate_capacity_requests_per_s,
            latency_share=settings.latency_share,
        )
        if p.startup_s is None and settings.cold_start_s is not None:
            p = replace(p, startup_s=settings.cold_start_s, spec=given.spec)
        own = (policy_prices or {}).get(given.name, prices)
        if p.hours is not None and given.startup_s is None and settings.start_up is not None:
            p = _scheduled_lead(p, own, settings.start_up)
        run = _engine_run(trace, work, p, ctx, own)
        result = _summarise(p, trace, run, own, ctx)
        # said where they differ in a pricing model the policy ran on (a policy of no spot replica
        # has no spot fleet of its own to price)
        same = all(
            own.usd_per_hour.get(k) == prices.usd_per_hour.get(k)
            and own.per_instance(k) == prices.per_instance(k)
            and own.sources.get(k) == prices.sources.get(k)
            for k in result.replica_hours
        )
        if not same:
            # the policy at the offers every policy can be costed at: the policy's part of a
            # difference apart from the price's. On spot instances reclaimed at another rate, or
            # holding another number of its replicas, its reclaims there are not its own offer's:
            # it is run again on them (the same draws), so that the restarts and the requests lost
            # are the common offer's too, not re-billed from its own.
            common, replayed = None, False
            if _prices_all(prices, result):
                replayed = not _same_reclaims(own, prices, result)
                there = _engine_run(trace, work, p, ctx, prices) if replayed else run
                common = _cost(p, trace, there, prices, replica.gpu)
            result = replace(result, prices=own, common_cost_usd=common, common_replayed=replayed)
        current, missing = _at_current(own, list(result.replica_hours))
        result = replace(
            result,
            current_cost_usd=None if current is None else _cost(p, trace, run, current, replica.gpu),
            current_instance_hours={} if current is None else _billed(p, trace, run, current, replica.gpu)[1],
            current_cost_missing=missing,
        )
        out.append(result)
    return AutoscaleResult(
        replica=replica,
        prices=prices,
        settings=settings,
        trace_name=trace.name,
        trace_synthetic=trace.synthetic,
        trace_note=trace.note,
        requests=trace.requests,
        trace_out_of_order=trace.out_of_order,
        trace_default_prompt_tokens=trace.default_prompt_tokens,
        trace_default_output_tokens=trace.default_output_tokens,
        trace_rate=trace.rate,
        trace_slow_median_gap_s=trace.slow_median_gap_s,
        trace_lengths=trace.lengths,
        trace_length_cap=trace.length_cap,
        duration_s=trace.duration_s,
        policies=tuple(out),
    )


def max_for_trace(
    policies: Sequence[Policy],
    trace: Trace,
    replica: ReplicaModel,
    *,
    estimate_capacity: float | None = None,
    latency_share: float | None = None,
) -> list[Policy]:
    """Each policy whose ``max`` is a default with it set by the trace's peak and the load a queue
    policy's default target holds a replica at (:func:`gpuplan.perf.replica_load.replica_load`:
    from ``estimate_capacity``, the replica's own capacity and ``latency_share``), as deploy's
    ``maxReplicas`` (:func:`gpuplan.simulate.policy.max_for_load`), at most what a simulation runs.
    ``simulate autoscale`` and the service's simulate route both take it (the route had kept the
    policy's fixed default, 8 replicas, where the plan needs 18)."""
    from gpuplan.perf.replica_load import replica_load
    from gpuplan.simulate.in_flight import replica_capacity
    from gpuplan.simulate.policy import max_for_load

    if not any(p.max_default for p in policies):
        return list(policies)
    assert trace.prompt_tokens is not None and trace.output_tokens is not None
    load = replica_load(
        estimate_capacity_requests_per_s=estimate_capacity,
        simulation_capacity_requests_per_s=replica_capacity(
            replica, trace.prompt_tokens, trace.output_tokens
        ),
        latency_share=latency_share,
    )
    # the capacity the load is a share of
    capacity = (
        load.simulation_capacity_requests_per_s
        if load.basis == "simulation" or load.estimate_capacity_requests_per_s is None
        else load.estimate_capacity_requests_per_s
    )
    if trace.rate is not None:  # a drawn trace: the peak of the curve it was drawn from
        peak = trace.rate.peak_requests_per_s
    else:  # a file: its busiest minute (the whole trace if shorter)
        window = min(60.0, max(trace.duration_s, 1.0))
        arrivals = np.sort(trace.arrival_s)
        within = np.searchsorted(arrivals, arrivals + window, side="left") - np.arange(len(arrivals))
        peak = float(within.max()) / window if len(arrivals) else 0.0
    out = []
    for p in policies:
        decisions = math.ceil(trace.duration_s / p.period_s) + 1
        most = max(1, min(MAX_SLOTS // max(1, replica.slots), MAX_REPLICA_DECISIONS // decisions))
        out.append(max_for_load(p, peak, capacity, most, share=load.share))
    return out
