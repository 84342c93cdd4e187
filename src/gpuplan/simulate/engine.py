"""The autoscaling simulator's event loop: FIFO requests on the batch slots of scaled replicas.

Model (exact for it, no time-stepping of requests):

- A replica serves up to ``slots`` requests at once (continuous batching up to the sequences
  whose KV cache fits); a request holds one slot for ``fixed_s + tokens × time per token``: its
  prefill (first token) and then one decode step per further token, both at the batch the replicas
  run when it starts (:mod:`gpuplan.simulate.replica`: from the estimator's iteration model; the
  batch is read at each decision, so it lags by at most one period). With ``tokens`` zero the
  service time is exact.
- One queue in front of all replicas, first come first served (a gateway with least-outstanding
  routing); a request that has waited ``timeout_s`` without starting is dropped.
- Every ``period_s`` the policy reads its metric and asks for a replica count (clamped to
  min/max; none outside the workload's schedule, :attr:`Policy.hours`, and none at a
  ``scheduled`` step of 0: a request arriving then waits for a replica that is not coming and is
  dropped at its timeout, unless one is started before it). The gpu-util policy's metric is
  each replica's GPU busy fraction (some sequence prefilling or decoding on it, as DCGM's GPU_UTIL
  counts time with a kernel running) over a ``util_sample_s`` sample taken ``Policy.delay_s``
  before the decision (``_Fleet._gpu_util``).
  A launched replica is billed from the decision and serves from ``startup_s`` later; one scaled
  down stops taking requests, finishes those it has, and is billed until it is empty.
- The window's drain: at the end of the trace the replicas up (and those starting) go on serving the
  requests still waiting, first come first served, each started when a slot frees or dropped at its
  timeout as within the window, and are billed until what they started ends. The policy takes no
  decision past the window (the trace says nothing of the load after it) and no spot reclaim is
  drawn there (the drain lasts at most ``timeout_s`` plus a request's service). A request that
  arrived is owed an answer: left out, an overloaded fleet would show only the few it served in
  time (one replica "meeting" an SLO on a thousand times its load); counted late without being
  served, it would cost nothing, so the policy that left work undone would look the cheaper, and
  a request arriving a second before the end would count late though it is served at once.
- Spot replicas run on spot instances of ``spot_replicas_per_instance`` replicas each (two 4-GPU
  replicas on an 8-GPU instance): a new one takes a free place on an instance already running, else
  starts one. An instance is reclaimed after an exponential lifetime (mean 1/rate: the rate is per
  instance-hour, as the catalog's bands are), and takes every replica on it at once (those
  scaled down but still finishing requests too); they stop taking requests, those they cannot
  finish within the notice are dropped, and the next decision replaces them (so restart time =
  startup time).

The loop walks requests in arrival order against each slot's free time (:mod:`gpuplan.simulate.slots`:
in blocks where that is exact, else one heap operation per request). Start times are
non-decreasing under FIFO, so a decision at time T has seen exactly the requests started
before T: decisions are interleaved at their true times, not after the fact. The controller's
utilisation signal is kept at one-second resolution (the requests' own times are exact).
"""

from __future__ import annotations

import gc
import math
from bisect import bisect_right
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from gpuplan.simulate.policy import DEFAULT_STARTUP_S, Policy
from gpuplan.simulate.slots import MIN_BLOCK, Dispatch, SlotPool, dispatch_block, dispatch_heap

__all__ = [
    "STATUS_DROPPED",
    "STATUS_KILLED",
    "STATUS_SERVED",
    "EngineConfig",
    "EngineRun",
    "Work",
    "initial_replicas",
    "run_engine",
    "spot_share",
]

STATUS_QUEUED = 0
STATUS_SERVED = 1
STATUS_DROPPED = 2
"""Waited ``timeout_s`` without starting."""
STATUS_KILLED = 3
"""Running on a spot replica that was reclaimed before it finished."""

_ALIVE, _DRAINING, _GONE = 0, 1, 2

_INF = math.inf


@dataclass(frozen=True, kw_only=True)
class EngineConfig:
    """Everything about the fleet that is not the policy."""

    slots: int
    """Requests one replica runs at once."""
    horizon_s: float
    """End of the simulated window: the policy's last decision is at or before it; a replica up then
    is billed to it and until the requests it started (those waiting at the end included) end."""
    timeout_s: float = 120.0
    spot_rate_per_hour: float = 1.0 / 24.0
    """Reclaims per spot instance-hour."""
    spot_notice_s: float = 30.0
    spot_replicas_per_instance: int = 1
    """Spot replicas one spot instance holds; a reclaim takes them all."""
    seed: int = 0
    start_of_day_s: float = 0.0


@dataclass(frozen=True, kw_only=True)
class Work:
    """What each request asks of a slot."""

    fixed_s: np.ndarray
    """Seconds before the first output token (prefill), per request. With ``prefill_at`` the engine
    rewrites the entries of the requests not yet started at each decision (the batch moves)."""
    tokens: np.ndarray
    """Decode steps per request after the first token; zeros for a fixed service time."""
    step_1_s: float = 0.0
    """One decode step with one sequence running (without ``step_at``)."""
    step_full_s: float = 0.0
    """One decode step with every slot busy (without ``step_at``)."""
    step_at: Callable[[float], float] | None = None
    """Seconds per output token with this many sequences per replica."""
    prefill_at: Callable[[int, int, float], np.ndarray] | None = None
    """Prefill seconds of requests ``lo … hi - 1`` with this many sequences per replica."""

    def step_s(self, running: float, slots: int) -> float:
        if self.step_at is not None:
            return self.step_at(running)
        if slots <= 1:
            return self.step_full_s
        n = min(max(running, 1.0), float(slots))
        return self.step_1_s + (self.step_full_s - self.step_1_s) * (n - 1.0) / (slots - 1.0)


@dataclass(kw_only=True)
class EngineRun:
    """Raw outcome of one policy; :mod:`gpuplan.simulate.autoscale` turns it into figures."""

    start_s: np.ndarray
    """Start of service per request (nan where it never started)."""
    status: np.ndarray
    """STATUS_* per request."""
    service_s: np.ndarray = field(default_factory=lambda: np.empty(0))
    """Seconds each started request held its slot."""
    first_token_s: np.ndarray = field(default_factory=lambda: np.empty(0))
    """Seconds from its start to its first output token (prefill), per request."""
    step_s: np.ndarray = field(default_factory=lambda: np.empty(0))
    """Seconds per output token after the first, per request (the batch at its start)."""
    replica_launch_s: list[float] = field(default_factory=list)
    replica_end_s: list[float] = field(default_factory=list)
    replica_spot: list[bool] = field(default_factory=list)
    replica_instance: list[int] = field(default_factory=list)
    """The spot instance each replica ran on (-1: on-demand, one instance of its own)."""
    replica_reclaimed_s: list[float] = field(default_factory=list)
    """When each replica's instance was reclaimed while it ran (inf: never)."""
    interruptions: int = 0
    """Spot instances reclaimed (each takes every replica on it)."""
    tick_s: list[float] = field(default_factory=list)
    tick_replicas: list[int] = field(default_factory=list)
    """Replicas counted by the policy after each decision (starting + ready, not draining)."""
    tick_ready: list[int] = field(default_factory=list)
    tick_queued: list[int] = field(default_factory=list)
    tick_batch: list[float] = field(default_factory=list)
    """Sequences per ready replica at each decision (what the next requests start beside)."""
    waiting_at_end: int = 0
    """Requests that had arrived and neither started nor timed out when the window ended (served in
    its drain or dropped at their timeout after it)."""
    dropped_after_end: int = 0
    """Of those, the ones that timed out in the drain."""


class _Fleet:
    """Replica and slot state, and the decisions taken at each tick."""

    def __init__(
        self, policy: Policy, cfg: EngineConfig, arrival: np.ndarray, work: Work, run: EngineRun
    ) -> None:
        self.p, self.cfg, self.arrival, self.work, self.run = policy, cfg, arrival, work, run
        self.step = work.step_s(1.0, cfg.slots)
        self.batch = 1.0
        """Sequences per ready replica the next requests start beside (read at each decision)."""
        self.marks: list[int] = [0]
        """Index of the first request dispatched under each step time in ``steps``."""
        self.steps: list[float] = [self.step]
        self.k = cfg.slots
        self.state: list[int] = []
        self.ready: list[float] = []
        self.die: list[float] = []
        self.slots = SlotPool()
        """Replica r owns slots r·k … r·k + k - 1."""
        self.alive: list[int] = []
        self.draining: list[int] = []
        """Replicas scaled down and still finishing requests (a reclaim of their instance cuts them)."""
        self.host_die: list[float] = []
        """Reclaim time of each spot instance."""
        self.host_members: list[list[int]] = []
        """The replicas on each spot instance (pruned to those still holding GPUs)."""
        self.live_hosts: list[int] = []
        """Spot instances that may take another replica (up, not emptied)."""
        self.killed_at: dict[int, float] = {}
        """Request -> the moment its spot replica was reclaimed (its slot was busy until then only)."""
        self.recent: deque[tuple[float, int]] = deque()
        self.last_up = -_INF
        rng = np.random.default_rng(cfg.seed)
        # Unit exponential draws consumed in launch order: the same seed gives the same
        # interruptions whatever the policy's timing (cycled if ever exhausted).
        self.exps: list[float] = rng.exponential(1.0, 1 << 16).tolist()
        self.exp_i = 0
        # Change of the number of running requests per one-second bin (the utilisation signal).
        self.diff = np.zeros(int(cfg.horizon_s) + 2, dtype=np.int64)
        self.level = 0
        self.bin = 0
        # The queue policy's samples of requests in flight: (time, in flight, replicas serving).
        self.in_flight_seen: deque[tuple[float, float, int]] = deque()
        self.seen = 0
        """Requests before this index are already in ``diff``."""
        self.slot: np.ndarray | None = None
        """gpu-util: the slot each request started on (the dispatch writes it)."""
        self.busy_iv: list[deque[list[float]]] = []
        """gpu-util: per replica, its busy spans [start, end) in time order, merged where they meet."""
        self.gseen = 0
        """gpu-util: requests before this index are already in ``busy_iv``."""

    # -- replicas ------------------------------------------------------------------------------
    def launch(self, t: float, ready_at: float, spot: bool) -> None:
        r = len(self.state)
        self.state.append(_ALIVE)
        self.ready.append(ready_at)
        host, die = self._host(t) if spot else (-1, _INF)
        if host >= 0:
            self.host_members[host].append(r)
        self.die.append(die)
        self.run.replica_launch_s.append(t)
        self.run.replica_end_s.append(_INF)
        self.run.replica_spot.append(spot)
        self.run.replica_instance.append(host)
        self.run.replica_reclaimed_s.append(_INF)
        self.slots.add(self.k, ready_at)
        self.alive.append(r)
        self.busy_iv.append(deque())

    def _occupied(self, r: int, t: float) -> bool:
        """Replica ``r`` still holds its GPUs at ``t`` (up, or scaled down and finishing requests)."""
        return self.state[r] == _ALIVE or (self.state[r] == _DRAINING and self.run.replica_end_s[r] > t)

    def _host(self, t: float) -> tuple[int, float]:
        """(instance, its reclaim time) for a spot replica launched at ``t``: a free place on a spot
        instance that is up and not empty, else a new instance with a lifetime of its own (unit
        exponential draws consumed in the order instances start). An emptied instance is given back,
        never reused: with one replica to an instance, each spot replica draws its own lifetime."""
        k = max(1, self.cfg.spot_replicas_per_instance)
        kept = []
        found = -1
        for h in self.live_hosts:
            members = [m for m in self.host_members[h] if self._occupied(m, t)]
            self.host_members[h] = members
            if self.host_die[h] <= t or not members:
                continue
            kept.append(h)
            if found < 0 and len(members) < k:
                found = h
        self.live_hosts = kept
        if found >= 0:
            return found, self.host_die[found]
        die = _INF
        if self.cfg.spot_rate_per_hour > 0:
            e = self.exps[self.exp_i % len(self.exps)]
            self.exp_i += 1
            die = t + e * 3600.0 / self.cfg.spot_rate_per_hour
        self.host_die.append(die)
        self.host_members.append([])
        self.live_hosts.append(len(self.host_die) - 1)
        return len(self.host_die) - 1, die

    def _slot_end(self, s: int, start: np.ndarray) -> float:
        q = int(self.slots.req[s])
        if q < 0:
            return -_INF
        step = self.steps[bisect_right(self.marks, q) - 1]
        return float(start[q]) + float(self.work.fixed_s[q] + self.work.tokens[q] * step)

    def _busy_until(self, r: int, t: float, start: np.ndarray) -> float:
        base = r * self.k
        return max(t, *(self._slot_end(s, start) for s in range(base, base + self.k)))

    def retire(self, r: int, t: float, start: np.ndarray) -> None:
        """Scale-down: stop taking requests, bill until the last running one ends."""
        self.state[r] = _DRAINING
        self.alive.remove(r)
        self.slots.close(r * self.k, self.k)
        self.run.replica_end_s[r] = self._busy_until(r, t, start)
        if self.run.replica_end_s[r] > t and self.die[r] < _INF:
            self.draining.append(r)

    def interrupt(self, r: int, t: float, status: np.ndarray, start: np.ndarray) -> None:
        """Replica ``r``'s instance was reclaimed: what it cannot finish within the notice is killed."""
        if self.state[r] == _ALIVE:
            self.alive.remove(r)
            self.slots.close(r * self.k, self.k)
        self.state[r] = _GONE
        kill_at = self.die[r] + self.cfg.spot_notice_s
        self.run.replica_reclaimed_s[r] = self.die[r]
        base = r * self.k
        for s in range(base, base + self.k):
            if self._slot_end(s, start) > kill_at:
                q = int(self.slots.req[s])
                status[q] = STATUS_KILLED
                self.killed_at[q] = kill_at
        self.run.replica_end_s[r] = min(kill_at, self.run.replica_end_s[r], self._busy_until(r, t, start))

    def reclaim(self, t: float, status: np.ndarray, start: np.ndarray) -> None:
        """Every spot instance whose lifetime ended by ``t`` takes all its replicas at once: those up
        and those scaled down but still finishing requests."""
        self.draining = [
            r for r in self.draining if self.state[r] == _DRAINING and self.run.replica_end_s[r] > t
        ]
        gone = [r for r in (*self.alive, *self.draining) if self.die[r] <= t]
        for r in gone:
            self.interrupt(r, t, status, start)
        self.draining = [r for r in self.draining if self.state[r] == _DRAINING]
        self.run.interruptions += len({self.run.replica_instance[r] for r in gone})

    # -- decisions -----------------------------------------------------------------------------
    def _desired(self, t: float, current: int, ready: int, queued: int, util: float | None) -> int:
        p = self.p
        if not p.runs_at(((self.cfg.start_of_day_s + t) % 86_400.0) / 3600.0):
            return 0  # outside the workload's schedule: none (KEDA's cron, minReplicaCount 0)
        if p.kind == "fixed":
            want = p.replicas or p.min_replicas
        elif p.kind == "scheduled":
            hour = ((self.cfg.start_of_day_s + t) % 86_400.0) / 3600.0
            want = p.scheduled_replicas(hour)
        elif p.kind == "queue":
            want = self._in_flight_desired(t, current, queued)
        elif p.kind == "gpu-util":
            want = self._gpu_util_desired(t, current)
        else:  # target utilisation, the HPA's rule
            if util is None or ready == 0:
                want = current
            else:
                ratio = util / (p.target or 1.0)
                want = current if abs(ratio - 1.0) <= p.tolerance else math.ceil(ready * ratio)
        return max(p.min_replicas, min(p.max_replicas, want))

    def _gpu_intake(self, j: int, start: np.ndarray) -> None:
        """Add the requests started since the last decision to their replicas' busy spans (all
        started under the current step time, as ``_signal`` has it; FIFO starts never go back in
        time, so each replica's spans stay in order)."""
        lo, slot = self.gseen, self.slot
        if j <= lo or slot is None:
            return
        st = start[lo:j]
        idx = np.flatnonzero(np.isfinite(st) & (slot[lo:j] >= 0))
        w = self.work
        end = st[idx] + w.fixed_s[lo + idx] + w.tokens[lo + idx] * self.step
        reps = slot[lo + idx] // self.k
        for r, a, b in zip(reps.tolist(), st[idx].tolist(), end.tolist(), strict=True):
            spans = self.busy_iv[r]
            if spans and a <= spans[-1][1]:
                spans[-1][1] = max(spans[-1][1], b)
            else:
                spans.append([a, b])
        self.gseen = j

    def _gpu_util(self, r: int, a: float, b: float) -> float:
        """Replica ``r``'s GPU utilisation over [a, b): the share of it during which it ran an
        iteration (some sequence prefilling or decoding), as DCGM's GPU_UTIL counts the time with
        one or more kernels running. Samples move forward only: spans ended by ``a`` are dropped."""
        spans = self.busy_iv[r]
        while spans and spans[0][1] <= a:
            spans.popleft()
        busy = 0.0
        for s, e in spans:
            if s >= b:
                break
            busy += min(e, b) - max(s, a)
        return busy / (b - a)

    def _gpu_util_desired(self, t: float, current: int) -> int:
        """The HPA's recommendation on the replicas' average GPU utilisation (Kubernetes,
        "Horizontal Pod Autoscaling", algorithm details:
        https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#algorithm-details):
        ``ceil(current × average / target)``, no change within the tolerance, and replicas without a
        sample yet (starting, or up for less than the sample's age) counted at 0 % for a scale-up and
        at the target for a scale-down, the move dropped if that reverses or cancels it. Scale-up
        is bounded by the HPA's default scaleUp policies: per 15 s, 4 pods or 100 %, the larger."""
        p = self.p
        b = t - p.delay_s
        a = b - p.util_sample_s
        known = [r for r in self.alive if self.ready[r] <= a]
        if a < 0:
            return current
        target = (p.gpu_util_pct or 100.0) / 100.0
        return self._hpa_rule(sum(self._gpu_util(r, a, b) for r in known), len(known), current, target)

    def _in_flight_desired(self, t: float, current: int, queued: int) -> int:
        """The HPA's recommendation on the requests in flight per replica (running + waiting: the
        AverageValue Pods metric ``deploy --target k8s`` writes for an engine; KEDA's ScaledObject
        makes the same HPA): the fleet's requests in flight, every one of them in some serving
        replica's engine, over the replicas serving (a replica still starting publishes no metric),
        by :meth:`_hpa_rule` — on the count of a sample :attr:`Policy.delay_s` old: the one the last
        decision at least that long ago took (a scrape every decision period), none before it."""
        serving = sum(1 for r in self.alive if self.ready[r] <= t)
        self.in_flight_seen.append((t, float(queued + self.level), serving))
        while len(self.in_flight_seen) > 1 and self.in_flight_seen[1][0] <= t - self.p.delay_s + 1e-9:
            self.in_flight_seen.popleft()
        seen_at, total, known = self.in_flight_seen[0]
        if seen_at > t - self.p.delay_s + 1e-9:
            return current  # no sample that old yet
        return self._hpa_rule(total, known, current, self.p.per_replica or 1.0)

    def _hpa_rule(self, total: float, known: int, current: int, target: float) -> int:
        """Kubernetes' HPA on an average-value metric ("Horizontal Pod Autoscaling", algorithm
        details: https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#algorithm-details):
        ``total`` of the metric over the ``known`` replicas that publish it, ``current`` replicas in
        all: ``ceil(total / target)``, no change within the tolerance, replicas without a sample
        counted at 0 for a scale-up and at the target for a scale-down, the move dropped if that
        reverses or cancels it. Scale-up is bounded by the HPA's default scaleUp policies: per 15 s,
        4 pods or 100 %, the larger."""
        tolerance = self.p.tolerance
        if not known:
            return current
        ratio = total / known / target
        if abs(ratio - 1.0) <= tolerance:
            return current
        missing = current - known
        total += missing * target if ratio < 1.0 else 0.0
        settled = total / current / target
        if (settled > 1.0) != (ratio > 1.0) or abs(settled - 1.0) <= tolerance:
            return current
        want = math.ceil(total / target - 1e-9)
        return min(want, max(current + 4, 2 * current))

    def _signal(self, t: float, j: int, start: np.ndarray) -> tuple[int, int]:
        """(busy slot-seconds, seconds) since the last decision, from the requests started."""
        if j > self.seen:
            st = start[self.seen : j]
            ok = np.isfinite(st)
            st = st[ok]
            # Every request since the last decision started under the current step time.
            w = self.work
            end = st + (w.fixed_s[self.seen : j] + w.tokens[self.seen : j] * self.step)[ok]
            last = len(self.diff) - 1
            for idx, sign in ((st.astype(np.int64), 1), (np.minimum(end.astype(np.int64), last), -1)):
                if len(idx):
                    # bincount over the touched window (np.add.at is an order slower).
                    lo = int(idx.min())
                    counts = np.bincount(idx - lo)
                    self.diff[lo : lo + len(counts)] += sign * counts
            self.seen = j
        end_bin = min(int(t), len(self.diff) - 1)
        if end_bin <= self.bin:
            return 0, 0
        levels = self.level + np.cumsum(self.diff[self.bin : end_bin])
        bins = end_bin - self.bin
        self.level, self.bin = int(levels[-1]), end_bin
        return int(levels.sum()), bins

    def full_batch(self, j: int) -> None:
        """Requests ``j`` on start beside every slot of their replica busy."""
        self.batch = float(self.k)
        step = self.work.step_s(self.batch, self.k)
        if step != self.step:
            self.step = step
            self.marks.append(j)
            self.steps.append(step)

    def tick(self, t: float, j: int, status: np.ndarray, start: np.ndarray) -> None:
        p, run = self.p, self.run
        self.reclaim(t, status, start)
        busy, bins = self._signal(t, j, start)
        self._gpu_intake(j, start)
        ready = sum(1 for r in self.alive if self.ready[r] <= t)
        util = busy / (bins * ready * self.k) if bins > 0 and ready > 0 else None
        queued = max(0, int(np.searchsorted(self.arrival, t, side="right")) - j)
        current = len(self.alive)
        want = self._desired(t, current, ready, queued, util)
        if p.kind in ("target", "queue", "gpu-util"):
            # Scale down no lower than the highest recommendation of the stabilisation window.
            self.recent.append((t, want))
            while self.recent and self.recent[0][0] < t - p.down_window_s:
                self.recent.popleft()
            floor_ = max(w for _, w in self.recent)
        else:
            floor_ = want
        if want > current and t - self.last_up >= p.up_cooldown_s:
            spot_now = sum(1 for r in self.alive if run.replica_spot[r])
            spot_goal = spot_share(p, want)
            for _ in range(want - current):
                spot = spot_now < spot_goal
                spot_now += spot
                startup = p.startup_s if p.startup_s is not None else DEFAULT_STARTUP_S
                self.launch(t, t + startup, spot)
            self.last_up = t
        elif floor_ < current:
            # A spot one first while the fleet left would hold more spot replicas than its share
            # allows; else not-yet-ready first, then the newest (a ReplicaSet's order).
            spot_goal = spot_share(p, floor_)
            spot_now = sum(1 for r in self.alive if run.replica_spot[r])
            for _ in range(current - floor_):
                excess = spot_now > spot_goal
                r = min(
                    self.alive, key=lambda r: (not (excess and run.replica_spot[r]), self.ready[r] <= t, -r)
                )
                spot_now -= run.replica_spot[r]
                self.retire(r, t, start)
        # The batch each ready replica runs now sets the step time of the requests started next.
        ready_now = sum(1 for r in self.alive if self.ready[r] <= t)
        self.batch = self.level / max(1, ready_now) + 1.0
        step = self.work.step_s(self.batch, self.k)
        if step != self.step:
            self.step = step
            self.marks.append(j)
            self.steps.append(step)
        run.tick_s.append(t)
        run.tick_replicas.append(len(self.alive))
        run.tick_ready.append(sum(1 for r in self.alive if self.ready[r] <= t))
        run.tick_queued.append(queued)
        run.tick_batch.append(self.batch)


def spot_share(policy: Policy, replicas: int) -> int:
    """Replicas of a fleet of ``replicas`` that run on spot: at most the policy's share of those
    above its commitment (``commit``: bought for the term, never on spot), rounded down."""
    return math.floor(policy.spot_fraction * max(0, replicas - policy.commit_replicas) + 1e-9)


def initial_replicas(policy: Policy, start_of_day_s: float = 0.0) -> int:
    """Replicas ready when the trace begins: none outside the workload's schedule
    (:attr:`Policy.hours`), else the policy's ``start``, else what it asks for then (fixed and
    scheduled), else its ``min``."""
    if not policy.runs_at((start_of_day_s % 86_400.0) / 3600.0):
        return 0
    if policy.start_replicas is not None:
        return policy.start_replicas
    if policy.kind == "fixed":
        return policy.replicas or policy.min_replicas
    if policy.kind == "scheduled":
        return max(policy.min_replicas, policy.scheduled_replicas((start_of_day_s % 86_400.0) / 3600.0))
    return policy.min_replicas


def run_engine(
    arrival_s: np.ndarray,
    work: Work | np.ndarray,
    policy: Policy,
    cfg: EngineConfig,
    *,
    blocks: bool = True,
) -> EngineRun:
    """Simulate ``policy`` over requests arriving at ``arrival_s`` (sorted) that need ``work``
    (or a fixed service time in seconds per request). ``blocks=False`` dispatches every request
    through the heap loop (the reference the block dispatch is tested against)."""
    # The heap loop allocates one tuple per request and no reference cycles: the cyclic
    # collector only costs time here. Paused, then restored.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _run(np.asarray(arrival_s, dtype=np.float64), work, policy, cfg, blocks)
    finally:
        if was_enabled:
            gc.enable()


def _run(
    arrival: np.ndarray, work: Work | np.ndarray, policy: Policy, cfg: EngineConfig, blocks: bool
) -> EngineRun:
    n = len(arrival)
    if not isinstance(work, Work):
        work = Work(fixed_s=np.asarray(work, dtype=np.float64), tokens=np.zeros(n))
    elif work.prefill_at is not None:
        # This run rewrites the prefill of requests not yet started: its own copy (policies share
        # the Work they are given).
        work = replace(work, fixed_s=np.array(work.fixed_s, dtype=np.float64))
    d = Dispatch(
        arrival=arrival,
        fixed_s=np.asarray(work.fixed_s, dtype=np.float64),
        tokens=np.asarray(work.tokens, dtype=np.float64),
        start=np.full(n, math.nan),
        status=np.zeros(n, dtype=np.uint8),
        timeout_s=cfg.timeout_s,
        slot=np.full(n, -1, dtype=np.int64) if policy.kind == "gpu-util" else None,
    )
    start, status = d.start, d.status
    run = EngineRun(start_s=np.empty(0), status=np.empty(0))
    fleet = _Fleet(policy, cfg, arrival, work, run)
    fleet.slot = d.slot
    # A warm start: the initial replicas are ready when the trace begins (and billed from then).
    initial = initial_replicas(policy, cfg.start_of_day_s)
    spot_goal = spot_share(policy, initial)
    for i in range(initial):
        fleet.launch(0.0, 0.0, spot=i < spot_goal)

    pool = fleet.slots
    horizon, period = cfg.horizon_s, policy.period_s
    next_tick = 0.0
    arrived = 0  # requests arriving before next_tick
    j = 0
    while j < n:
        a = float(arrival[j])
        tf = pool.earliest()
        if (a if a >= tf else tf) >= next_tick:
            if next_tick == _INF:
                break  # the drain with no slot left taking requests: the rest time out
            if next_tick > horizon:
                # The window's drain (module docstring): no more decisions. Every slot that takes
                # requests is busy past the last one's period (request j could not start in it), and
                # a request waiting starts only as one frees: each starts beside a full batch.
                next_tick = _INF
                arrived = n
                fleet.full_batch(j)
                if work.prefill_at is not None:
                    d.fixed_s[j:] = work.prefill_at(j, n, fleet.batch)
                continue
            fleet.tick(next_tick, j, status, start)
            next_tick += period
            arrived = int(np.searchsorted(arrival, next_tick, side="left"))
            if work.prefill_at is not None:
                # The prompts that can start before the next decision, at the batch read now.
                hi = min(n, arrived + 1)
                d.fixed_s[j:hi] = work.prefill_at(j, hi, fleet.batch)
            continue
        # Request j starts before the next decision: dispatch up to that decision.
        done = dispatch_block(pool, d, j, next_tick, fleet.step, arrived) if blocks else 0
        j += done
        if done < MIN_BLOCK:
            j = dispatch_heap(pool, d, j, next_tick, fleet.step, arrived)
    # A fleet the time of day sets (a schedule) goes on following it to the window's end after the
    # last request: its replicas stop at the schedule's end, not at the window's.
    if policy.kind == "scheduled" or policy.hours is not None:
        while next_tick <= horizon:
            fleet.tick(next_tick, j, status, start)
            next_tick += period
    # Requests never started (no replica left to serve them): dropped at their timeout.
    status[j:] = STATUS_DROPPED
    # Waiting when the window ended: arrived by then, not started by then, not timed out by then.
    with np.errstate(invalid="ignore"):
        waiting = (arrival <= horizon) & ~(start <= horizon) & (arrival + cfg.timeout_s > horizon)
    run.waiting_at_end = int(np.count_nonzero(waiting))
    run.dropped_after_end = int(np.count_nonzero(waiting & (status == STATUS_DROPPED)))
    # The window's replicas are billed to its end and on until the requests they started in it end:
    # the work a window takes is paid for (a trace of one burst spans no time; its fleet does).
    for r in fleet.alive:
        run.replica_end_s[r] = fleet._busy_until(r, horizon, start)
    run.start_s = start
    run.status = status
    run.status[(run.status == STATUS_QUEUED) & np.isfinite(run.start_s)] = STATUS_SERVED
    per_request = np.asarray(fleet.steps)[np.searchsorted(fleet.marks, np.arange(n), side="right") - 1]
    run.service_s = work.fixed_s + work.tokens * per_request
    for q, end in fleet.killed_at.items():  # a killed request held its slot until the reclaim, not to its end
        run.service_s[q] = min(run.service_s[q], max(0.0, end - start[q]))
    run.first_token_s = np.asarray(work.fixed_s, dtype=np.float64)
    run.step_s = per_request
    return run
