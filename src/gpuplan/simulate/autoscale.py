"""Simulate scaling policies on a trace: cost, replica-hours, utilisation, latency, SLO misses.

``simulate_autoscale`` replays one :class:`~gpuplan.simulate.trace.Trace` under each policy with
the same replicas, prices and interruption draws, so the policies differ only in their decisions.
A replica's speed comes from the estimator (:func:`replica_from_decode`): its batch slots are the
sequences whose KV cache fits, a request holds one slot for ``prompt / prefill rate + output ×
time per token``, the time per token being the decode step of the batch the replicas run when the
request starts (from one sequence to a full batch; see :mod:`gpuplan.simulate.engine`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from gpuplan.errors import InputError, Phrase
from gpuplan.i18n.messages import N_, _
from gpuplan.simulate.engine import (
    STATUS_DROPPED,
    STATUS_KILLED,
    STATUS_SERVED,
    EngineConfig,
    EngineRun,
    Work,
    run_engine,
)
from gpuplan.simulate.policy import Policy
from gpuplan.simulate.trace import MAX_WINDOW_S, Trace

if TYPE_CHECKING:
    from gpuplan.perf.inference import DecodeEstimate

__all__ = [
    "AutoscaleResult",
    "FleetPrices",
    "PolicyResult",
    "ReplicaModel",
    "SimulationSettings",
    "Timeline",
    "replica_from_decode",
    "simulate_autoscale",
]

#: Decisions × replicas one policy may take: each decision walks the live replicas, so this is the
#: simulation's work beyond its requests (a day at the 15 s period with 1,000 replicas is 5.8 M).
MAX_REPLICA_DECISIONS = 20_000_000
#: Batch slots of the largest fleet (replicas × slots per replica): each slot keeps its free time
#: and request (16 bytes) and is walked when its replica stops.
MAX_SLOTS = 1_000_000

#: The pricing models a replica-hour is billed under, as messages name them (catalog words).
PRICING_WORDS = {"on_demand": N_("on_demand"), "spot": N_("spot")}


@dataclass(frozen=True, kw_only=True)
class ReplicaModel:
    """How fast one replica (one GPU) serves requests."""

    gpu: str
    slots: int
    """Requests it runs at once (continuous batching up to the sequences that fit)."""
    prefill_tokens_per_s: float
    time_per_output_token_s: float
    """Decode step time with every slot busy."""
    source: str
    """How these figures were obtained (estimator, or given)."""
    time_per_output_token_1_s: float | None = None
    """Decode step time with one sequence running; None: the full-batch time always."""

    def work(self, prompt_tokens: np.ndarray, output_tokens: np.ndarray) -> Work:
        """What each request asks of a slot."""
        prefill = (
            prompt_tokens / self.prefill_tokens_per_s
            if self.prefill_tokens_per_s > 0
            else 0.0 * prompt_tokens
        )
        one = self.time_per_output_token_1_s
        return Work(
            fixed_s=np.asarray(prefill, dtype=np.float64),
            tokens=np.asarray(output_tokens, dtype=np.float64),
            step_1_s=self.time_per_output_token_s if one is None else one,
            step_full_s=self.time_per_output_token_s,
        )

    def service_s(
        self, prompt_tokens: np.ndarray, output_tokens: np.ndarray, *, running: float
    ) -> np.ndarray:
        """Seconds each request holds its slot with ``running`` sequences per replica."""
        w = self.work(prompt_tokens, output_tokens)
        return np.asarray(w.fixed_s + w.tokens * w.step_s(running, self.slots))


def replica_from_decode(
    decode: DecodeEstimate, *, single: DecodeEstimate | None = None, mean_context_tokens: float | None = None
) -> ReplicaModel:
    """A replica from the estimator's decode figures.

    ``mean_context_tokens``: the trace's mean KV length per running sequence (prompt + half the
    output, as a paged KV cache grows). The KV budget that held ``max_concurrent_sequences`` at
    the traced context then holds proportionally more or fewer sequences; the per-token time stays
    (the same KV bytes are read per step). ``single``: the estimate at batch 1, for the step time of
    a lightly loaded replica.
    """
    slots = max(1, decode.max_concurrent_sequences)
    if mean_context_tokens and mean_context_tokens > 0:
        slots = max(1, math.floor(slots * decode.context_tokens / mean_context_tokens))
    return ReplicaModel(
        gpu=decode.gpu,
        slots=slots,
        prefill_tokens_per_s=decode.prefill_tokens_per_s,
        time_per_output_token_s=decode.time_per_token_at_max_s,
        time_per_output_token_1_s=single.time_per_token_s if single is not None else None,
        source=_replica_source(decode, single, slots),
    )


def _replica_source(decode: DecodeEstimate, single: DecodeEstimate | None, slots: int) -> str:
    """Where a replica's figures come from, in the user's language."""
    full_ms, prefill = decode.time_per_token_at_max_s * 1e3, decode.prefill_tokens_per_s
    if single is None:
        return _(
            "estimator: {slots} concurrent sequences (KV cache), {full_ms:.1f} ms per token at full batch, "
            "prefill {prefill:,.0f} tokens/s"
        ).format(slots=slots, full_ms=full_ms, prefill=prefill)
    return _(
        "estimator: {slots} concurrent sequences (KV cache), {alone_ms:.1f} ms per token alone, "
        "{full_ms:.1f} ms per token at full batch, prefill {prefill:,.0f} tokens/s"
    ).format(slots=slots, alone_ms=single.time_per_token_s * 1e3, full_ms=full_ms, prefill=prefill)


@dataclass(frozen=True, kw_only=True)
class FleetPrices:
    """USD per replica-hour by pricing model, and where the figures come from."""

    usd_per_hour: dict[str, float]
    """``on_demand`` always; ``spot`` when any policy uses spot."""
    source: str
    spot_rate_per_hour: float = 1.0 / 24.0
    """Interruptions per spot replica-hour."""
    spot_rate_source: str = "assumed: 1 interruption per 24 instance-hours"


@dataclass(frozen=True, kw_only=True)
class SimulationSettings:
    """What is the same for every policy."""

    slo_s: float | None = None
    """Latency target of a whole request; None: no SLO counted."""
    timeout_s: float = 120.0
    """A request that waited this long without starting is dropped (the client gives up)."""
    spot_notice_s: float = 30.0
    """Warning before a spot replica is reclaimed (Azure and GCP give 30 s, AWS 2 min)."""
    seed: int = 0
    chart_bin_s: float = 300.0


@dataclass(frozen=True, kw_only=True)
class Timeline:
    """Per chart bin: load, replicas and latency (for the HTML chart)."""

    t_s: list[float]
    requests_per_s: list[float]
    replicas: list[float]
    """Mean replicas counted by the policy over the bin."""
    latency_p95_s: list[float | None]


@dataclass(frozen=True, kw_only=True)
class PolicyResult:
    """One policy's outcome (the JSON contract's ``policies`` entries, plus detail)."""

    name: str
    spec: str
    cost_usd: float
    replica_hours: dict[str, float]
    utilisation: float
    """Busy batch-slot time / paid batch-slot time (0–1)."""
    latency_p50_s: float | None
    latency_p95_s: float | None
    latency_p99_s: float | None
    slo_miss_pct: float | None
    """Share of requests that ended late, were dropped or killed, of those that arrived and did
    not stay queued at the end, in percent; None without an SLO."""
    dropped: int
    """Timed out in the queue, or killed by a spot interruption."""
    max_replicas: int
    interruptions: int
    served: int
    queued_at_end: int
    killed: int
    timeline: Timeline


@dataclass(frozen=True, kw_only=True)
class AutoscaleResult:
    replica: ReplicaModel
    prices: FleetPrices
    settings: SimulationSettings
    trace_name: str
    trace_synthetic: bool
    requests: int
    duration_s: float
    policies: tuple[PolicyResult, ...]


def _pcts(values: np.ndarray) -> tuple[float | None, float | None, float | None]:
    """p50, p95, p99 in one pass."""
    if not len(values):
        return None, None, None
    p50, p95, p99 = np.percentile(values, [50, 95, 99])
    return float(p50), float(p95), float(p99)


def _timeline(
    trace: Trace, run: EngineRun, latency: np.ndarray, served: np.ndarray, bin_s: float
) -> Timeline:
    nb = max(1, math.ceil(trace.duration_s / bin_s))
    arr = trace.arrival_s
    bins = np.minimum((arr / bin_s).astype(np.int64), nb - 1)
    counts = np.bincount(bins, minlength=nb)
    tick_t = np.asarray(run.tick_s)
    tick_b = np.minimum((tick_t / bin_s).astype(np.int64), nb - 1)
    reps = np.bincount(tick_b, weights=np.asarray(run.tick_replicas, dtype=float), minlength=nb)
    ticks = np.bincount(tick_b, minlength=nb)
    p95: list[float | None] = [None] * nb
    # Arrivals are sorted, so the bins of served requests are too: each bin is one slice.
    sb, lat = bins[served], latency[served]
    edges = np.searchsorted(sb, np.arange(nb + 1))
    for b in range(nb):
        lo, hi = edges[b], edges[b + 1]
        if hi > lo:
            k = lo + int(0.95 * (hi - lo - 1))
            p95[b] = float(np.partition(lat[lo:hi], k - lo)[k - lo])
    return Timeline(
        t_s=[b * bin_s for b in range(nb)],
        requests_per_s=(counts / bin_s).tolist(),
        replicas=np.where(ticks > 0, reps / np.maximum(ticks, 1), np.nan).tolist(),
        latency_p95_s=p95,
    )


def _summarise(policy: Policy, trace: Trace, run: EngineRun, prices: FleetPrices, cfg: _Ctx) -> PolicyResult:
    st = run.status
    served = st == STATUS_SERVED
    finish = run.start_s + run.service_s
    latency = np.where(served, finish - trace.arrival_s, np.nan)
    lat = latency[served]
    horizon = trace.duration_s
    hours: dict[str, float] = {}
    for launch, end, spot in zip(run.replica_launch_s, run.replica_end_s, run.replica_spot, strict=True):
        key = "spot" if spot else "on_demand"
        hours[key] = hours.get(key, 0.0) + max(0.0, end - launch) / 3600.0
    missing = [k for k in hours if k not in prices.usd_per_hour]
    if missing:
        flag = missing[0].replace("_", "-")
        raise InputError.worded(
            N_("no {pricing} price for {gpu}; give one with --{flag}-price"),
            pricing=Phrase(PRICING_WORDS[missing[0]]),
            gpu=cfg.replica.gpu,
            flag=flag,
        )
    cost = sum(h * prices.usd_per_hour[k] for k, h in hours.items())
    ran = served | (st == STATUS_KILLED)
    started = run.start_s[ran]
    # Every start is within the window, so the clip only guards a rounding below zero.
    busy = float(np.sum(np.clip(np.minimum(finish[ran], horizon) - started, 0, None)))
    paid = sum(hours.values()) * 3600.0 * cfg.replica.slots
    counts = np.bincount(st, minlength=STATUS_KILLED + 1)
    dropped, killed, queued = int(counts[STATUS_DROPPED]), int(counts[STATUS_KILLED]), int(counts[0])
    miss: float | None = None
    if cfg.settings.slo_s is not None:
        late = int(np.sum(lat > cfg.settings.slo_s))
        counted = len(lat) + dropped + killed
        miss = 100.0 * (late + dropped + killed) / counted if counted else 0.0
    pcts = _pcts(lat)
    return PolicyResult(
        name=policy.name,
        spec=policy.spec,
        cost_usd=cost,
        replica_hours=hours,
        utilisation=busy / paid if paid > 0 else 0.0,
        latency_p50_s=pcts[0],
        latency_p95_s=pcts[1],
        latency_p99_s=pcts[2],
        slo_miss_pct=miss,
        dropped=dropped + killed,
        max_replicas=max(run.tick_replicas) if run.tick_replicas else 0,
        interruptions=run.interruptions,
        served=int(served.sum()),
        queued_at_end=queued,
        killed=killed,
        timeline=_timeline(trace, run, latency, served, cfg.settings.chart_bin_s),
    )


def _check_work(trace: Trace, replica: ReplicaModel, policies: Sequence[Policy]) -> None:
    """Refuse, before anything is allocated, a simulation whose work its inputs do not bound: a
    window past MAX_WINDOW_S, more than MAX_REPLICA_DECISIONS or MAX_SLOTS for a policy."""
    if not (math.isfinite(trace.duration_s) and trace.duration_s <= MAX_WINDOW_S):
        raise InputError.worded(
            N_(
                "trace {name} spans {days:,.1f} days, longer than the {limit:,.0f} days a simulation "
                "replays (one-second resolution); cut it to the window you want to simulate"
            ),
            name=trace.name,
            days=trace.duration_s / 86_400,
            limit=MAX_WINDOW_S / 86_400,
        )
    for p in policies:
        decisions = math.ceil(trace.duration_s / p.period_s) + 1
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
        if p.max_replicas * replica.slots > MAX_SLOTS:
            raise InputError.worded(
                N_(
                    "policy {name!r}: {replicas:,} replicas × {slots:,} slots is more than the {limit:,} "
                    "batch slots a simulation keeps"
                ),
                name=p.name,
                replicas=p.max_replicas,
                slots=replica.slots,
                limit=MAX_SLOTS,
            )


@dataclass(frozen=True, kw_only=True)
class _Ctx:
    replica: ReplicaModel
    settings: SimulationSettings


def simulate_autoscale(
    trace: Trace,
    replica: ReplicaModel,
    policies: Sequence[Policy],
    prices: FleetPrices,
    settings: SimulationSettings | None = None,
) -> AutoscaleResult:
    """Each policy on ``trace``; requests need the trace's token counts (see ``Trace.with_tokens``)."""
    settings = settings or SimulationSettings()
    if trace.prompt_tokens is None or trace.output_tokens is None:
        raise InputError.worded(N_("the trace has no token counts; give the workload's serving: figures"))
    if not policies:
        raise InputError.worded(N_("no policy to simulate; give --policy (e.g. target:target=0.7)"))
    names = [p.name for p in policies]
    if len(set(names)) != len(names):
        raise InputError.worded(N_("two policies share a name; give each a name=… key"))
    _check_work(trace, replica, policies)
    work = replica.work(trace.prompt_tokens, trace.output_tokens)
    ctx = _Ctx(replica=replica, settings=settings)
    out = []
    for p in policies:
        cfg = EngineConfig(
            slots=replica.slots,
            horizon_s=trace.duration_s,
            timeout_s=settings.timeout_s,
            spot_rate_per_hour=prices.spot_rate_per_hour,
            spot_notice_s=settings.spot_notice_s,
            seed=settings.seed,
            start_of_day_s=trace.start_of_day_s,
        )
        run = run_engine(trace.arrival_s, work, p, cfg)
        out.append(_summarise(p, trace, run, prices, ctx))
    return AutoscaleResult(
        replica=replica,
        prices=prices,
        settings=settings,
        trace_name=trace.name,
        trace_synthetic=trace.synthetic,
        requests=trace.requests,
        duration_s=trace.duration_s,
        policies=tuple(out),
    )
