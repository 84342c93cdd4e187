"""Scale policies: what decides how many replicas run, written compactly or in YAML.

Compact syntax, one policy per ``--policy``: ``KIND[:key=value,key=value…]``::

    fixed:replicas=4
    target:target=0.7,min=1,max=12           # HPA on utilisation (busy batch slots / ready slots)
    queue:per_replica=48,max=12,spot=0.5      # HPA/KEDA on requests in flight (running + waiting)
    queue:max=12                              # the same at what a replica holds at 80 % load
    scheduled:at=0h@2/8h@6/20h@3              # replicas by time of day (from that hour on)
    gpu-util:80,min=1,max=8                   # the HPA gpuplan deploy writes: DCGM GPU util, percent

``queue`` is the autoscaler ``gpuplan deploy --target k8s`` writes for a serving engine: the HPA (or
KEDA's, which makes an HPA) on the requests in flight per replica, running and waiting, as the
engine's ``vllm:num_requests_running`` + ``vllm:num_requests_waiting`` count them, by the HPA's rule
(``tolerance``, replicas still starting counted at 0 for a scale-up, at most 4 pods or 100 % more a
decision). Without ``per_replica`` it holds the requests in flight on the simulated replica at the
load deploy writes its target at: the smaller of gpuplan's estimate of one replica's capacity (the
figure plans size fleets with) and the simulated replica's own, × the utilisation plans size fleets
for (``gpuplan.perf.inference.TARGET_UTILISATION``, 0.8), by Little's law
(:mod:`gpuplan.perf.replica_load`, :mod:`gpuplan.simulate.in_flight`): set when the replica and the
trace are known (:func:`queue_target`), as deploy works it out from a plan or a workload file (a
plan whose replicas were bought for a latency target holds less; its README's replay command names
that ``per_replica``). It reads the count ``delay`` s late (default 15: the PodMonitor deploy writes
scrapes the engine every 15 s).

``gpu-util`` is the autoscaler ``gpuplan deploy --target k8s`` generates: an HPA on the average of
the replicas' ``DCGM_FI_DEV_GPU_UTIL``, the percent of the sample period during which one or more
kernels ran on the GPU (NVIDIA DCGM field identifiers, field 203, read from NVML's
``nvmlUtilization_t.gpu``: https://docs.nvidia.com/datacenter/dcgm/latest/dcgm-api/dcgm-api-field-ids.html,
https://docs.nvidia.com/deploy/nvml-api/structnvmlUtilization__t.html). Its first bare value is the
target in percent (``gpu-util:80`` = ``gpu-util:target=80``; default: the workload's
``serving.gpu_utilization_target``, else deploy's 80). It also takes ``delay`` (s from the GPU's
sample to the HPA reading it: the dcgm-exporter collect interval and the Prometheus scrape and
adapter; default 30) and ``sample`` (s the driver averages over; default 1).

Keys every kind takes: ``name``, ``min``, ``max``, ``start`` (replicas ready when the trace begins;
default ``min``; ``max`` of target, queue and gpu-util, where neither the policy nor the serving
block gives it: twice the replicas the trace's peak needs at ``TARGET_UTILISATION`` of a replica's
capacity, as deploy writes ``maxReplicas`` from a plan — :func:`max_for_load`), ``startup`` (s
from launch to ready: image pull and model load; default: the cold start the simulation derives
from the model's size), ``period`` (s between decisions),
``up_cooldown`` (s between two scale-ups),
``down_window`` (s of recommendations whose maximum a scale-down may not go below — the HPA's
stabilisation window), ``tolerance`` (target, queue and gpu-util), ``spot`` (share of replicas on
spot, 0–1: at most that share at every fleet size, rounded down; of the replicas above ``commit``),
``commit`` (replicas bought on a commitment: paid for every hour of the simulated span, busy or not,
never reclaimed; at most ``min``) and ``commit_pricing`` (how they are bought: ``monthly``, a monthly
subscription, 包年包月 on the Chinese clouds, the default; ``reserved_1y`` or ``reserved_3y``, a one-
or three-year reservation)::

    fixed:replicas=4,commit=4                  # a fleet of four bought by the month
    queue:min=2,max=12,commit=2,commit_pricing=reserved_1y,spot=0.5

A team serving round the clock buys its base fleet so and only the burst on demand: priced on
demand, that base makes an autoscaling policy beside it look cheaper than it is.
A policies YAML is a list of mappings with the same keys plus ``kind``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuplan.errors import InputError, NotFoundError, Phrase
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import listed
from gpuplan.units import as_typed, split_list

if TYPE_CHECKING:
    import numpy as np

    from gpuplan.perf.replica_load import ReplicaLoad
    from gpuplan.simulate.replica import ReplicaModel
    from gpuplan.workload.spec import ServingSpec

__all__ = [
    "COMMIT_PRICINGS",
    "KINDS",
    "LOAD_MAX_KINDS",
    "MAX_REPLICAS",
    "Policy",
    "as_deployed",
    "load_policies",
    "max_for_load",
    "parse_policy",
    "queue_target",
    "service_hours",
    "with_serving",
]

KINDS = ("fixed", "target", "queue", "scheduled", "gpu-util")
#: How ``commit`` replicas may be bought: the committed pricing models of ``gpuplan.vocab``.
COMMIT_PRICINGS = ("monthly", "reserved_1y", "reserved_3y")


def _pricing_name(raw: str) -> str:
    """A pricing model as written (``包年包月``, ``1 年预留``, ``reserved-1y``: the names ``--pricing``
    takes) as its code; a name no model has is kept as written, for the refusal's did-you-mean."""
    from gpuplan.errors import GpuplanError
    from gpuplan.vocab import PricingModel

    try:
        return PricingModel.cast(raw.strip()).value
    except GpuplanError:
        return raw.strip().lower()


#: Replicas a policy may run: the simulation keeps every replica's slots and walks the live ones at
#: each decision, so its work grows with this (1,000 one-GPU replicas is a very large service).
MAX_REPLICAS = 1000
#: The largest count a policy takes as written, refused as it is read: far above MAX_REPLICAS (a
#: count between them is refused in words by the policy's check), small enough to be printed whole
#: (replicas=1e308 had been refused with all 309 digits of it, and a schedule's 5,000-digit count
#: was no whole number Python prints: an Internal Server Error).
_MAX_COUNT = 1_000_000
#: The longest policy text a refusal of a count repeats whole.
_MAX_SHOWN_SPEC = 80

# Defaults, each with its reason:
#: Kubernetes' HPA controller syncs every 15 s (--horizontal-pod-autoscaler-sync-period default).
DEFAULT_PERIOD_S = 15.0
#: HPA default scale-down stabilisation window, 300 s (autoscaling/v2 behavior docs).
DEFAULT_DOWN_WINDOW_S = 300.0
#: ASSUMPTION: 3 minutes from a scale-up decision to a ready LLM replica (node already in the pool:
#: image pull from a warm cache and loading ~16 GB of weights), used only when neither the policy's
#: ``startup`` nor a cold start derived from the model's size is known. A cold node adds minutes.
DEFAULT_STARTUP_S = 180.0
#: The HPA's default tolerance: no change while the metric is within 10 % of its target.
DEFAULT_TOLERANCE = 0.1
#: gpu-util's target when neither the policy nor the workload's serving block gives one: deploy's
#: ``serving.gpu_utilization_target`` default, percent.
DEFAULT_GPU_UTIL_PCT = 80.0
#: gpu-util's ``max`` when neither the policy nor the serving block gives one and the load is not
#: known: deploy's ``serving.max_replicas`` default. Where the replica and the trace are known the
#: default follows the load instead (:func:`max_for_load`).
DEFAULT_GPU_UTIL_MAX = 8
#: The kinds that scale on a metric, whose ``max`` follows the load unless it is given.
LOAD_MAX_KINDS = ("target", "queue", "gpu-util")
#: ASSUMPTION: 30 s from a GPU's utilisation sample to the HPA acting on it: dcgm-exporter collects
#: every 30 s by default, so its value is ~15 s old on average when Prometheus scrapes it (every
#: 15–30 s: another ~10 s) and prometheus-adapter serves the latest sample (a few s more).
DEFAULT_METRIC_DELAY_S = 30.0
#: ASSUMPTION: 15 s from an engine's requests in flight to the HPA acting on them: the PodMonitor
#: ``deploy --target k8s`` writes scrapes the engine every 15 s, so the sample the HPA reads through
#: prometheus-adapter (the latest one) is 0–15 s old; taken at its bound.
DEFAULT_SCRAPE_DELAY_S = 15.0
#: The period NVML (and so DCGM's GPU_UTIL) averages over: "between 1 second and 1/6 second,
#: depending on the product" (NVML nvmlUtilization_t); the longer one, as on data-centre GPUs.
DEFAULT_UTIL_SAMPLE_S = 1.0


@dataclass(frozen=True, kw_only=True)
class Policy:
    """One scaling policy and the replicas it may run."""

    name: str
    kind: str
    min_replicas: int = 1
    max_replicas: int = 10
    replicas: int | None = None
    """fixed: how many."""
    target: float | None = None
    """target: busy-slot utilisation to hold, 0–1."""
    per_replica: float | None = None
    """queue: outstanding requests per replica (KEDA AverageValue threshold); None: those in flight
    on the replica at the load deploy writes its target at, set by :func:`queue_target` once the
    replica and the trace are known."""
    gpu_util_pct: float | None = None
    """gpu-util: average GPU utilisation (DCGM_FI_DEV_GPU_UTIL) to hold, percent, 0–100."""
    metric_delay_s: float | None = None
    """gpu-util and queue: age of the sample the controller acts on, s; None: the kind's default
    (:attr:`delay_s`)."""
    util_sample_s: float = DEFAULT_UTIL_SAMPLE_S
    """gpu-util: the period one utilisation sample averages over, s."""
    schedule: tuple[tuple[float, int], ...] = ()
    """scheduled: (hour of day, replicas from then on), sorted; a step of 0 runs no replica."""
    hours: tuple[float, float] | None = None
    """The workload's ``serving.schedule`` (:func:`as_deployed`): the hours of each day of the trace,
    (start, end), in which the fleet runs; none outside them, as ``deploy``'s KEDA cron trigger
    (minReplicaCount 0), its replicas started :meth:`schedule_lead_s` early, as its cron starts
    them. None: every hour."""
    lead_s: float | None = field(default=None, compare=False)
    """Seconds before :attr:`hours` its replicas are started (:meth:`schedule_lead_s`), as the
    simulation sets it from the one start-up model (:meth:`gpuplan.start_up.StartUp.lead_min`, of
    the instance the policy is priced on); None: its ``startup`` in whole minutes."""
    lead_words: str = field(default="", compare=False)
    """What :attr:`lead_s` is made of, in words; empty where it is not set."""
    start_replicas: int | None = None
    """Replicas ready when the trace begins; None: ``min_replicas``."""
    startup_s: float | None = None
    """Launch to ready; None: the simulation's cold start (from the model's size)."""
    period_s: float = DEFAULT_PERIOD_S
    up_cooldown_s: float = 0.0
    down_window_s: float = DEFAULT_DOWN_WINDOW_S
    tolerance: float = DEFAULT_TOLERANCE
    spot_fraction: float = 0.0
    """Share of the replicas above ``commit_replicas`` run on spot, 0–1."""
    commit_replicas: int = 0
    """Replicas bought on a commitment (``commit``): paid for the whole simulated span whether they
    run or not, never reclaimed; at most ``min_replicas``."""
    commit_pricing: str = "monthly"
    """How the committed replicas are bought: one of :data:`COMMIT_PRICINGS`."""
    spec: str = field(default="", compare=False)
    max_default: bool = field(default=False, compare=False)
    """``max_replicas`` is a default (neither the policy nor the serving block gave it): the load
    sets it once known (:func:`max_for_load`)."""
    max_basis: tuple[int, float, float, float] | None = field(default=None, compare=False)
    """Where the load set ``max_replicas``: (replicas its peak needs, the peak in requests/s, one
    replica's capacity in requests/s at full load, the share of it each replica is to carry)."""

    @property
    def delay_s(self) -> float:
        """Age of the metric the controller acts on: gpu-util's utilisation sample
        (:data:`DEFAULT_METRIC_DELAY_S`), queue's engine gauges (:data:`DEFAULT_SCRAPE_DELAY_S`)
        unless the policy gives ``delay``; 0 for the kinds that read no metric of a replica."""
        if self.metric_delay_s is not None:
            return self.metric_delay_s
        return {"gpu-util": DEFAULT_METRIC_DELAY_S, "queue": DEFAULT_SCRAPE_DELAY_S}.get(self.kind, 0.0)

    """The text it was parsed from, for the report."""
    given: frozenset[str] = field(default=frozenset(), compare=False)
    """The keys the user wrote (``target``, ``min``…): those a workload's serving block does not
    override (:func:`with_serving`)."""
    replica_load: ReplicaLoad | None = field(default=None, compare=False)
    """queue without ``per_replica``: the load its target was worked out at and the two capacities
    it was chosen from (:func:`queue_target`); None otherwise."""

    def __post_init__(self) -> None:
        _validate(self)

    def schedule_lead_s(self) -> float:
        """Seconds before the schedule's hours (:attr:`hours`) its replicas are started, so that
        they serve from its first minute: :attr:`lead_s`, the start-up plan bills and ``deploy``'s
        cron lines start them at (``gpuplan.deploy.engine.schedule_lead_min``), else its own
        ``startup`` (:data:`DEFAULT_STARTUP_S` where none) rounded up to the whole minute a cron
        line fires at."""
        if self.lead_s is not None:
            return self.lead_s
        startup = self.startup_s if self.startup_s is not None else DEFAULT_STARTUP_S
        return 60.0 * math.ceil(startup / 60.0 - 1e-9)

    def runs_at(self, hour_of_day: float) -> bool:
        """Whether the fleet may run at ``hour_of_day``: always without :attr:`hours`, else from the
        lead before their start to their end."""
        if self.hours is None:
            return True
        begin, end = self.hours[0] - self.schedule_lead_s() / 3600.0, self.hours[1]
        return begin <= hour_of_day < end or hour_of_day >= begin + 24.0

    def scheduled_replicas(self, hour_of_day: float) -> int:
        """Replicas the schedule asks for at ``hour_of_day`` (the last entry at or before it)."""
        out = self.schedule[-1][1]  # before the first entry: yesterday's last one still holds
        for hour, n in self.schedule:
            if hour <= hour_of_day:
                out = n
        return out


def _validate(p: Policy) -> None:
    def bad(problem: Phrase) -> InputError:
        return InputError.worded(N_("policy {name!r}: {problem}"), name=p.name, problem=problem)

    if p.kind not in KINDS:
        raise NotFoundError("policy kind", p.kind, KINDS)
    for name in _FLOATS:
        value = getattr(p, name)
        if value is not None and not math.isfinite(value):
            raise bad(
                Phrase(
                    N_("{key} must be a finite number (got {value})"),
                    key=_user_key(name),
                    value=value,
                )
            )
    if p.max_replicas > MAX_REPLICAS or (p.replicas or 0) > MAX_REPLICAS:
        raise bad(
            Phrase(
                N_("{replicas:,} replicas is more than the {limit:,} a simulation runs"),
                replicas=max(p.max_replicas, p.replicas or 0),
                limit=MAX_REPLICAS,
            )
        )
    # A fixed policy's min and max are its replicas: named as the user wrote them.
    if p.kind == "fixed" and (p.replicas is None or p.replicas < 1):
        raise bad(Phrase(N_("fixed needs replicas=N (N ≥ 1), e.g. fixed:replicas=4")))
    if p.min_replicas < (0 if p.kind == "scheduled" else 1):
        # a schedule's step of 0 runs none; the kinds that scale on a metric keep one to read it.
        # Said alone: the max beside it may yet be the workload's (with_serving), not this default
        raise bad(Phrase(N_("min must be at least 1 (got min={min})"), min=p.min_replicas))
    if not p.min_replicas <= p.max_replicas:
        raise bad(
            Phrase(
                N_("need 1 ≤ min ≤ max (got min={min}, max={max})"), min=p.min_replicas, max=p.max_replicas
            )
        )
    if p.kind == "target" and (p.target is None or not 0 < p.target <= 1):
        raise bad(Phrase(N_("target needs target=U with 0 < U ≤ 1, e.g. target:target=0.7")))
    if p.kind == "gpu-util" and p.gpu_util_pct is not None and 0 < p.gpu_util_pct <= 1:
        # a fraction written for a percent (target: takes 0.7); no one scales out at 1 % busy
        raise bad(
            Phrase(
                N_(
                    "gpu-util's target is a percent: {value:g} would be {value:g} %; "
                    "did you mean gpu-util:{percent:g}?"
                ),
                value=p.gpu_util_pct,
                percent=p.gpu_util_pct * 100,
            )
        )
    if p.kind == "gpu-util" and (p.gpu_util_pct is None or not 0 < p.gpu_util_pct <= 100):
        raise bad(Phrase(N_("gpu-util needs a target percent P with 0 < P ≤ 100, e.g. gpu-util:80")))
    if p.kind == "gpu-util" and p.util_sample_s <= 0:
        raise bad(Phrase(N_("sample must be > 0 seconds")))
    if p.kind == "queue" and p.per_replica is not None and p.per_replica <= 0:
        raise bad(Phrase(N_("queue needs per_replica=N > 0, e.g. queue:per_replica=32")))
    if p.kind == "scheduled" and not p.schedule:
        raise bad(Phrase(N_("scheduled needs at=HOURh@N/…, e.g. scheduled:at=0h@2/8h@6/20h@3")))
    if not 0 <= p.spot_fraction <= 1:
        raise bad(Phrase(N_("spot must be a share between 0 and 1 (got {spot})"), spot=p.spot_fraction))
    if p.commit_pricing not in COMMIT_PRICINGS:
        raise NotFoundError("commitment", p.commit_pricing, COMMIT_PRICINGS, hint=_in_spec(p.spec or p.name))
    if p.commit_replicas < 0:
        raise bad(
            Phrase(N_("commit must be 0 or more replicas (got commit={commit})"), commit=p.commit_replicas)
        )
    if (
        p.kind == "fixed"
        and ({"min", "max"} & p.given)
        and (p.min_replicas, p.max_replicas) != (p.replicas,) * 2
    ):
        # fixed:replicas=4,min=8 had run 8 replicas and said "starts with 4 ready, never scales"
        raise bad(
            Phrase(
                N_(
                    "a fixed fleet is replicas={replicas} throughout: min and max go with the kinds "
                    "that scale"
                ),
                replicas=p.replicas,
            )
        )
    if p.kind == "fixed" and p.commit_replicas > (p.replicas or 0):
        raise bad(
            Phrase(
                N_(
                    "commit={commit} is more than the fleet's replicas={replicas}: a committed replica is "
                    "paid whether it runs or not: set replicas ≥ {commit}"
                ),
                commit=p.commit_replicas,
                replicas=p.replicas,
            )
        )
    if p.commit_replicas > p.min_replicas:
        raise bad(
            Phrase(
                N_(
                    "commit={commit} is more than min={min}: a committed replica is paid whether it runs "
                    "or not: set min ≥ {commit}"
                ),
                commit=p.commit_replicas,
                min=p.min_replicas,
            )
        )
    if "commit_pricing" in p.given and "commit" not in p.given:
        raise bad(Phrase(N_("commit_pricing prices committed replicas: give commit=N beside it")))
    if p.start_replicas is not None and not p.min_replicas <= p.start_replicas <= p.max_replicas:
        raise bad(
            Phrase(
                N_("start must be between min and max (got start={start}, min={min}, max={max})"),
                start=p.start_replicas,
                min=p.min_replicas,
                max=p.max_replicas,
            )
        )
    for name in ("startup_s", "up_cooldown_s", "down_window_s", "tolerance", "metric_delay_s"):
        value = getattr(p, name)
        if value is not None and value < 0:
            raise bad(Phrase(N_("{key} must be ≥ 0"), key=_user_key(name)))
    if p.period_s <= 0:
        raise bad(Phrase(N_("period must be > 0 seconds")))


def _user_key(attr: str) -> str:
    """The key a user writes for a field (``metric_delay_s`` → ``delay``)."""
    if attr == "gpu_util_pct":
        return "target"
    return next((key for key, (a, _) in _KEYS.items() if a == attr), attr.removesuffix("_s"))


#: Number fields that must be finite (an infinite start-up or period would stall the simulation).
_FLOATS = (
    "target",
    "per_replica",
    "gpu_util_pct",
    "metric_delay_s",
    "util_sample_s",
    "startup_s",
    "period_s",
    "up_cooldown_s",
    "down_window_s",
    "tolerance",
    "spot_fraction",
)


class _TooMany(ValueError):
    """A count over :data:`_MAX_COUNT`."""


def _whole(raw: object) -> int:
    """A count as written (``4``, ``4.0``, ``1e3``): a whole finite number, else ValueError
    (:class:`_TooMany` over :data:`_MAX_COUNT`)."""
    if isinstance(raw, bool):
        raise ValueError(raw)
    if isinstance(raw, int):
        if abs(raw) > _MAX_COUNT:
            raise _TooMany(raw)
        return raw
    x = float(raw) if isinstance(raw, float | str) else math.nan
    infinity = isinstance(raw, float) or str(raw).strip().lstrip("+-").lower().startswith("inf")
    if abs(x) > _MAX_COUNT and not (math.isinf(x) and infinity):
        raise _TooMany(raw)  # 1e400 and 400 nines, read as infinity, are counts too large
    if not math.isfinite(x) or x != int(x):
        raise ValueError(raw)
    return int(x)


def _too_many(spec: str, key: str, raw: object, hour: str | None = None) -> InputError:
    """The refusal of a count over :data:`_MAX_COUNT`: the count in three digits (``1e+308``), the
    policy's text cut, so that the line stays one a reader can read."""
    from decimal import Decimal, InvalidOperation

    try:
        value = format(Decimal(raw if isinstance(raw, int) else str(raw).strip()), ".3g")
    except (InvalidOperation, ValueError):
        value = f"> {_MAX_COUNT:,}"
    shown = spec if len(spec) <= _MAX_SHOWN_SPEC else spec[: _MAX_SHOWN_SPEC - 1] + "…"
    # the count as it was written, its key (or a schedule entry's hour) before it: replicas=1e+308
    given = f"{key}={value}" if hour is None else f"{key}={hour}h@{value}"
    return InputError.worded(
        N_("policy {spec!r}: {given} is more than the {limit:,} replicas a simulation runs"),
        spec=shown,
        given=given,
        limit=MAX_REPLICAS,
    )


def _number(raw: object) -> float:
    """A number as written; ``true`` from YAML is not one (finite is checked with the policy)."""
    if isinstance(raw, bool):
        raise ValueError(raw)
    return float(raw)  # type: ignore[arg-type]


# Key as the user writes it -> (field, converter).
_KEYS: dict[str, tuple[str, Any]] = {
    "name": ("name", str),
    "min": ("min_replicas", _whole),
    "max": ("max_replicas", _whole),
    "start": ("start_replicas", _whole),
    "replicas": ("replicas", _whole),
    "target": ("target", _number),
    "per_replica": ("per_replica", _number),
    "startup": ("startup_s", _number),
    "period": ("period_s", _number),
    "up_cooldown": ("up_cooldown_s", _number),
    "down_window": ("down_window_s", _number),
    "tolerance": ("tolerance", _number),
    "spot": ("spot_fraction", _number),
    "commit": ("commit_replicas", _whole),
    "commit_pricing": ("commit_pricing", lambda raw: _pricing_name(str(raw))),
    "delay": ("metric_delay_s", _number),
    "sample": ("util_sample_s", _number),
}
#: Keys only some kinds take: the kinds that read a metric of the replicas.
_KIND_KEYS = {"delay": ("gpu-util", "queue"), "sample": ("gpu-util",)}


def _schedule(text: str) -> tuple[tuple[float, int], ...]:
    out = []
    for part in re.split(r"[/;]", text):
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)h?@(\d+)\s*", part)
        if not m or not 0 <= float(m.group(1)) < 24:
            raise InputError.worded(
                N_("schedule entry {entry!r}: write HOURh@REPLICAS, e.g. 8h@6 (hours 0–23)"), entry=part
            )
        if len(m.group(2).lstrip("0")) > len(str(_MAX_COUNT)) or int(m.group(2)) > _MAX_COUNT:
            raise _TooMany(m.group(1), m.group(2))
        out.append((float(m.group(1)), int(m.group(2))))
    hours = [h for h, _ in out]
    if len(set(hours)) != len(hours):  # 0h@2/0h@3: two fleet sizes for one hour
        twice = next(h for h in hours if hours.count(h) > 1)
        raise InputError.worded(N_("schedule: the hour {hour:g}h is given twice"), hour=twice)
    return tuple(sorted(out))


def _build(kind: str, values: dict[str, Any], spec: str, default_name: str) -> Policy:
    kwargs: dict[str, Any] = {}
    for key, raw in values.items():
        if key == "at":
            try:
                kwargs["schedule"] = _schedule(str(raw))
            except _TooMany as e:
                raise _too_many(spec, key, e.args[1], hour=e.args[0]) from None
            continue
        if key in _KIND_KEYS and kind not in _KIND_KEYS[key]:
            raise InputError.worded(
                N_("policy {spec!r}: {key} is a key of these kinds only: {kinds}"),
                spec=spec,
                key=key,
                kinds=listed(_KIND_KEYS[key]),
            )
        if key not in _KEYS:
            raise NotFoundError("policy key", key, [*_KEYS, "at"], hint=_in_spec(spec))
        attr, conv = _KEYS[key]
        if kind == "gpu-util" and key == "target":
            attr = "gpu_util_pct"  # percent, as DCGM and the serving block write it
        try:
            kwargs[attr] = conv(raw)
        except _TooMany:
            raise _too_many(spec, key, raw) from None
        except (TypeError, ValueError, OverflowError) as e:
            template = (
                N_("policy {spec!r}: {key}={raw!r} is not a whole number")
                if conv is _whole
                else N_("policy {spec!r}: {key}={raw!r} is not a number")
            )
            raise InputError.worded(template, spec=spec, key=key, raw=raw) from e
    kwargs.setdefault("name", default_name)
    kwargs["given"] = frozenset(values)
    kwargs["max_default"] = kind in LOAD_MAX_KINDS and "max" not in values
    if kind == "gpu-util":
        kwargs.setdefault("gpu_util_pct", DEFAULT_GPU_UTIL_PCT)
        kwargs.setdefault("max_replicas", max(DEFAULT_GPU_UTIL_MAX, kwargs.get("min_replicas", 1)))
    if kind == "fixed" and "replicas" in kwargs:
        # A fixed fleet is its own bounds.
        kwargs.setdefault("min_replicas", kwargs["replicas"])
        kwargs.setdefault("max_replicas", max(kwargs["replicas"], kwargs.get("min_replicas", 1)))
    if kind == "scheduled" and kwargs.get("schedule"):
        top = max(n for _, n in kwargs["schedule"])
        kwargs.setdefault("max_replicas", max(top, 1))
        kwargs.setdefault("min_replicas", min(n for _, n in kwargs["schedule"]))
    return Policy(kind=kind, spec=spec, **kwargs)


def _in_spec(spec: str) -> Phrase:
    """The hint of an unknown name inside a policy: which policy it was in."""
    return Phrase(N_("in {spec!r}"), spec=spec)


def parse_policy(text: str) -> Policy:
    """A policy from its compact form (module docstring); one-line errors say what to write."""
    spec = as_typed(text).strip()
    kind, _, rest = spec.partition(":")
    kind = kind.strip().lower()
    if kind not in KINDS:
        raise NotFoundError("policy kind", kind, KINDS, hint=_in_spec(spec))
    values: dict[str, str] = {}
    for n, item in enumerate(split_list(rest)):
        key, eq, value = item.partition("=")
        if not eq and n == 0 and kind == "gpu-util":
            key, eq, value = "target", "=", item.removesuffix("%")  # gpu-util:80
        if not eq:
            raise InputError.worded(N_("policy {spec!r}: {item!r} is not key=value"), spec=spec, item=item)
        key = key.strip().lower()
        if key in values:  # replicas=2,replicas=3: which one was meant?
            raise InputError.worded(N_("policy {spec!r}: {key} is given twice"), spec=spec, key=key)
        values[key] = value.strip()
    return _build(kind, values, spec, default_name=spec)


def load_policies(path: str | Path) -> list[Policy]:
    """Policies from a YAML list of mappings (``kind`` plus the compact form's keys)."""
    from gpuplan.bounded import MAX_DOCUMENT_BYTES, load_yaml, read_text

    p = Path(path)
    text = read_text(p, what="policies file", max_bytes=MAX_DOCUMENT_BYTES)
    data = load_yaml(text, source=f"policies file {p.name}")
    if isinstance(data, dict) and "policies" in data:
        data = data["policies"]
    if not isinstance(data, list) or not data:
        raise InputError.worded(
            N_("policies file {name}: expected a list of policies (each with kind: …)"), name=p.name
        )
    out = []
    for i, entry in enumerate(data):
        if not isinstance(entry, dict) or "kind" not in entry:
            raise InputError.worded(
                N_("policies file {name}: entry {entry} needs a kind (one of {kinds})"),
                name=p.name,
                entry=i + 1,
                kinds=listed(KINDS),
            )
        values = {str(k).lower(): v for k, v in entry.items() if k != "kind"}
        kind = str(entry["kind"]).lower()
        if kind not in KINDS:
            hint = Phrase(N_("entry {entry} of {name}"), entry=i + 1, name=p.name)
            raise NotFoundError("policy kind", kind, KINDS, hint=hint)
        out.append(_build(kind, values, spec=f"{p.name}#{i + 1}", default_name=f"{kind}-{i + 1}"))
    return out


def as_deployed(
    policies: Sequence[Policy], serving: ServingSpec | None, *, on_schedule: bool = True
) -> list[Policy]:
    """``policies`` with each gpu-util and queue one as ``deploy`` writes the autoscaler from the
    workload's ``serving`` block (:func:`with_serving`), and, where the block has a ``schedule`` and
    ``on_schedule`` (the trace's day is the schedule's, in its time zone), every one but a
    ``scheduled`` policy (whose steps are its own hours) running only in its hours, as deploy's
    KEDA cron trigger runs the fleet (:attr:`Policy.hours`)."""
    if serving is None:
        return list(policies)
    hours = service_hours(serving) if on_schedule else None
    return [
        replace(q, hours=hours) if hours is not None and q.kind != "scheduled" else q
        for q in (
            with_serving(
                p,
                gpu_util_pct=serving.gpu_utilization_target,
                # a schedule's 0 is outside its hours (Policy.hours): in them, at least one
                min_replicas=None if serving.min_replicas is None else max(1, serving.min_replicas),
                max_replicas=serving.max_replicas,
            )
            for p in policies
        )
    ]


def service_hours(serving: ServingSpec | None) -> tuple[float, float] | None:
    """The hours of each day a service runs, (start, end) local time, from its ``schedule``; None
    without one."""
    if serving is None or serving.schedule is None:
        return None
    window = serving.schedule.window
    return window.start_min / 60.0, window.end_min / 60.0


def with_serving(
    policy: Policy,
    *,
    gpu_util_pct: float | None,
    min_replicas: int | None,
    max_replicas: int | None,
) -> Policy:
    """A gpu-util or queue policy as the workload's ``serving:`` block deploys it (``deploy
    --target k8s`` scales a serving engine on its requests in flight, serve.py on GPU utilisation):
    its ``min_replicas`` and ``max_replicas``, and gpu-util's ``gpu_utilization_target``, where the
    policy does not write ``min``, ``max`` or ``target`` itself (None: not in the block). Other kinds
    unchanged."""
    if policy.kind not in ("gpu-util", "queue"):
        return policy
    update: dict[str, Any] = {}
    if gpu_util_pct is not None and policy.kind == "gpu-util" and "target" not in policy.given:
        update["gpu_util_pct"] = gpu_util_pct
    if min_replicas is not None and "min" not in policy.given:
        update["min_replicas"] = min_replicas
    if max_replicas is not None and "max" not in policy.given:
        update["max_replicas"] = max_replicas
        update["max_default"] = False  # the serving block's, as deploy writes it
    least = update.get("min_replicas", policy.min_replicas)
    if "max" not in policy.given and max_replicas is None and least > policy.max_replicas:
        # a block's min_replicas above the policy's default max, the block naming no max: the fleet
        # may hold its minimum (deploy's maxReplicas is never below its minReplicas)
        update["max_replicas"] = least
    return replace(policy, **update) if update else policy


def max_for_load(
    policy: Policy,
    peak_requests_per_s: float,
    capacity_requests_per_s: float,
    most: int,
    *,
    share: float | None = None,
) -> Policy:
    """A policy whose ``max`` is a default with it set by the load: twice the replicas the peak
    needs at ``share`` of a replica's capacity (None: the utilisation plans size fleets for,
    ``TARGET_UTILISATION``), as ``deploy`` writes ``maxReplicas`` ("room to double what was
    priced"), at least its ``min`` and ``start`` and at most ``most`` (the replicas a simulation
    runs). A fixed 8 or 10 had capped a service whose plan needs 18 below its load. The caller
    gives the load the queue target holds a replica at (:mod:`gpuplan.perf.replica_load`), so the
    default is the replicas ``deploy`` writes. Others unchanged."""
    from gpuplan.perf.inference import TARGET_UTILISATION

    share = TARGET_UTILISATION if share is None else share
    if (
        not policy.max_default
        or not capacity_requests_per_s > 0
        or not peak_requests_per_s > 0
        or not 0 < share <= 1
    ):
        return policy
    needed = max(1, math.ceil(peak_requests_per_s / (capacity_requests_per_s * share) - 1e-9))
    floor = max(policy.min_replicas, policy.start_replicas or 0)
    top = max(floor, min(2 * needed, most, MAX_REPLICAS))
    basis = (needed, peak_requests_per_s, capacity_requests_per_s, share)
    return replace(policy, max_replicas=top, max_basis=basis)


def queue_target(
    policy: Policy,
    replica: ReplicaModel,
    prompt_tokens: np.ndarray,
    output_tokens: np.ndarray,
    *,
    estimate_capacity_requests_per_s: float | None = None,
    latency_share: float | None = None,
) -> Policy:
    """A queue policy without ``per_replica`` at the requests in flight on ``replica`` (requests of
    these lengths) at the load ``deploy`` writes its target at: the smaller of the estimate's
    capacity of one replica (``estimate_capacity_requests_per_s``; None: not known) and the
    replica's own, × the utilisation plans size fleets for, or the estimate's × ``latency_share``
    where the service's latency targets hold it lower; Little's law, load × the time a request
    spends on the replica at that load, at most its slots
    (:func:`gpuplan.simulate.in_flight.service_in_flight`). Others, and one that names it,
    unchanged."""
    from gpuplan.simulate.in_flight import service_in_flight

    if policy.kind != "queue" or policy.per_replica is not None:
        return policy
    load, held = service_in_flight(
        replica,
        prompt_tokens,
        output_tokens,
        estimate_capacity_requests_per_s=estimate_capacity_requests_per_s,
        latency_share=latency_share,
    )
    return replace(policy, per_replica=max(1.0, held.in_flight), replica_load=load)
