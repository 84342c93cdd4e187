"""A service's fleet over its day: the instances its autoscaler runs minute by minute, as tiers of
hours a month, and whether it can follow the day at all.

One model for every command that prices a service by its day: ``plan`` ranks and prices each
option on it (:func:`service_days`, where the workload scales down), and ``tco`` takes the plan's
option's day (:attr:`gpuplan.plan.result.Option.service_day`) for the tiers it buys — so one
service has one monthly cost in both, and in the team service's budget, which counts the plan's.

The day is the workload's own where it gives one (``serving.day``, :class:`gpuplan.day_load.LoadDay`:
its points, linear between them, minute by minute), else the one ``gpuplan simulate`` draws a
diurnal trace from for the serving block's mean and peak (:func:`gpuplan.day_load.diurnal_day_rate`;
a mean under what it can hold below the peak keeps the peak, the mean raised, and says so). Each
minute needs ``ceil(rate / load)`` replicas, ``load`` the requests/s one replica is held at as
``deploy``'s autoscaler targets it (the caller's
:data:`LoadFn`: the smaller of the plan's capacity of one and the serving simulation's, × the
sizing utilisation, or the plan's × the lower share it met a latency target at); without it, or
where it gives none, the plan's capacity at that share, as deploy falls back to. Never fewer than
``min_replicas`` and never more than the option's fleet (the peak it was sized for), in whole
instances.

An instance is billed from its start, not from when it serves, and until it is removed: each
instance the day adds is paid its start-up (:func:`start_up`: the instance's boot, its weights
read and the engine's start, the one model ``deploy`` and ``simulate autoscale`` count too) before
the minutes it is needed, and the autoscaler's scale-down delay after them (:func:`scale_down`:
the longer of deploy's targets', as the plan does not know which one launches it). Where the load
leaves an instance for less than the two together, it is kept running through the gap and started
no more. ``simulate autoscale`` replays a trace with the launch's own delays and bills its replicas so too.

An autoscaler follows the day only if a new instance serves before the load has grown past what
it adds: where a new instance takes longer to serve (:func:`start_up`, as the plan's model of a
spot replacement, :func:`gpuplan.plan.spot.service_down_h`) than the day's steepest rise takes to
grow by one instance's load, the fleet cannot be scaled down and up again in time, and the service
is priced as its peak fleet all month.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from gpuplan.i18n import _
from gpuplan.i18n.phrases import item_list
from gpuplan.perf.inference import TARGET_UTILISATION
from gpuplan.perf.replica_load import ReplicaLoad, launch_latency_share, replica_load_words

if TYPE_CHECKING:
    from gpuplan.day_load import LoadDay, Schedule
    from gpuplan.plan.candidates import Candidates
    from gpuplan.plan.input_types import FloatArray, IntArray, JobFacts, OfferTable
    from gpuplan.profile import Profile
    from gpuplan.workload.spec import Workload

    #: :data:`LoadFn` for any workload (:func:`gpuplan.api.replica_load_on`): the caller's
    #: serving simulation, which this room does not import; ``plan_workload`` binds it to its own.
    WorkloadLoadFn = Callable[[Workload, Profile, str, int, float, float | None], ReplicaLoad | None]

#: The pricing models billed by the hour, on which a fleet scaled down pays less: a monthly
#: subscription or a reservation is paid whether its instances run or not.
HOURLY_PRICING = ("on_demand", "spot")

__all__ = [
    "HOURLY_PRICING",
    "LoadFn",
    "ServiceDay",
    "ServiceDays",
    "day_of",
    "fleet_at_load",
    "gaps_billed",
    "held_load",
    "replica_load_for",
    "scale_down",
    "service_days",
    "start_up",
]

#: The load ``deploy``'s autoscaler holds one replica at, for a GPU type, the GPUs a replica is
#: split over, the plan's capacity of one replica (requests/s) and the plan's latency share (None:
#: the sizing utilisation): :func:`gpuplan.api.launch_replica_load`'s figure; None where it is not
#: known (the plan's capacity at that share is taken, as deploy falls back to).
LoadFn = Callable[[str, int, float, float | None], ReplicaLoad | None]


@dataclass(frozen=True, kw_only=True)
class ServiceDay:
    """A service option's fleet over its day (:func:`day_of`)."""

    step: float
    """GPUs of one step: one instance of the option's, as the autoscaler adds it."""
    hours: tuple[float, ...]
    """Hours a month each further instance is billed, busiest first; only those needed at all: the
    hours it serves (:attr:`serving_hours`) and, each time the day adds it, its start-up before
    them and the scale-down delay after them."""
    serving_hours: tuple[float, ...]
    """Hours a month each of those instances is needed to serve, busiest first."""
    start_ups: int
    """Instances the day starts, a day (each scale-up's new instances)."""
    start_up_day_h: float
    """Instance-hours a day billed beyond those served: each started instance's start-up and the
    scale-down delay before it is removed (less where the load leaves it for a shorter gap)."""
    instances: int
    """The option's instances: its fleet at the peak."""
    share: float
    """The instance-hours the day needs over the fleet's all month (``sum(hours) / (instances ×
    run_h)``)."""
    per_replica_requests_per_s: float
    """The load one replica is held at, requests/s."""
    load_words: str
    """Where that load comes from, in words."""
    mean_held: float
    """The day's mean, requests/s (the mean asked for, or the lowest the day reaches under the peak)."""
    mean_asked: float | None
    """A mean asked for that the day cannot hold under the peak; None where it holds."""
    peak: float
    """The day's peak, requests/s (the serving block's ``requests_per_s``)."""
    least: int
    """The fewest replicas it runs (``serving.min_replicas``, else 1)."""
    start_up_h: float
    """How long a new instance takes to serve, h (:func:`start_up`)."""
    start_up_words: str
    """How that adds up, in words."""
    down_h: float
    """How long the autoscaler keeps an instance the load no longer needs, h (:func:`scale_down`)."""
    down_words: str
    """Where that comes from, in words."""
    rise_h: float
    """How long the day's load takes, at its steepest, to grow by one instance's load, h."""
    replicas: int
    """The option's replicas (over its :attr:`instances`): the most the day runs."""
    run_h: float
    """The hours a month the day is taken over (a month of the service)."""
    schedule: Schedule | None = None
    """The hours the service runs (``serving.schedule``): its whole fleet in them, none outside
    them, each instance started before them and removed after; None: its day, every day."""
    load_day: LoadDay | None = None
    """The workload's own day (``serving.day``) the fleet follows; None: the cosine day fitted to
    the mean and the peak."""

    def at_load(self, scale: float, per_replica: float | None = None) -> ServiceDay | None:
        """The same service's day with its load (mean and peak) × ``scale``, on a fleet of the same
        instances resized to carry that peak (:func:`fleet_at_load`), each replica held at
        ``per_replica`` requests/s (the load a plan of that peak holds one at; None: this day's);
        None where that day is priced as its peak fleet all its hours (:func:`day_of`: a fleet of
        one instance, nothing to scale down)."""
        per_node = self.replicas / self.instances
        held = self.per_replica_requests_per_s if per_replica is None else per_replica
        instances = fleet_at_load(self.peak * scale, held, self.least, per_node, self.instances, scale)
        return day_of(
            mean=self.mean_held * scale,
            peak=self.peak * scale,
            least=self.least,
            replicas=round(instances * per_node),
            instances=instances,
            gpus=round(self.step * instances),
            per_replica=held,
            load_words=self.load_words,
            run_h=self.run_h,
            start_up_h=self.start_up_h,
            start_up_words=self.start_up_words,
            down_h=self.down_h,
            down_words=self.down_words,
            schedule=self.schedule,
            load_day=None if self.load_day is None else self.load_day.scaled(scale),
        )

    @property
    def follows(self) -> bool:
        """A new instance serves before the load outgrows the fleet: the autoscaler can follow the day."""
        return self.start_up_h <= self.rise_h

    @property
    def oversized(self) -> bool:
        """Even its busiest minute needs fewer instances than the option has: a smaller fleet of the
        same instance carries the day, and this one is priced as the whole fleet it is (else every
        larger fleet would tie with the right-sized one)."""
        return len(self.hours) < self.instances

    @property
    def scales(self) -> bool:
        """Priced as this day's fleet where the workload lets the autoscaler scale down (and, in a
        plan, the option is billed by the hour): it follows the day and is not oversized."""
        return self.follows and not self.oversized

    def listed(self, gpu: str) -> str:
        """The tiers in words: ``1 × L40S × 730 h, 1 × L40S × 402 h …``."""
        return item_list(
            _("{gpus:g} × {gpu} × {hours:.0f} h").format(gpus=self.step, gpu=gpu, hours=h) for h in self.hours
        )

    @property
    def day(self) -> str:
        """The day assumed, in words."""
        from gpuplan.day_load import DIURNAL_PEAK_HOUR, DIURNAL_PEAK_TO_TROUGH

        if self.schedule is not None:
            return _(
                "it runs {when} only, {week:g} h a week: its whole fleet in those hours (the load's "
                "shape within them is not priced, the high end) and no replica outside them"
            ).format(when=self.schedule.said, week=round(self.schedule.hours_per_week, 2))

        if self.load_day is not None:
            return _(
                "the workload's day (serving.day): {day} requests/s, linear between those times, mean "
                "{mean:g} and peak {peak:g} requests/s, {load:.3g} requests/s a replica ({how}), no "
                "fewer than {least} replica(s)"
            ).format(
                day=self.load_day.said,
                mean=round(self.mean_held, 2),
                peak=self.peak,
                load=self.per_replica_requests_per_s,
                how=self.load_words,
                least=self.least,
            )
        words = _(
            "a diurnal day assumed, as simulate draws it: a cosine busiest at {hour:02.0f}:00, mean {mean:g} "
            "and peak {peak:g} requests/s, {load:.3g} requests/s a replica ({how}), no fewer than {least} "
            "replica(s)"
        ).format(
            hour=DIURNAL_PEAK_HOUR,
            mean=round(self.mean_held, 2),
            peak=self.peak,
            load=self.per_replica_requests_per_s,
            how=self.load_words,
            least=self.least,
        )
        if self.mean_asked is not None:
            # the peak is what the plan sized for, so it is kept; the trough, not the mean, gives way
            words += _(
                "; a mean of {asked:g} requests/s is lower than a cosine day under a peak of {peak:g} can "
                "average: the mean is taken as {held:g}, the lowest such a day reaches (its quietest hour "
                "at 0 rather than at 1/{ratio:g} of the peak), so the GPU-hours are if anything high; "
                "the answers stay at the {asked:g} requests/s given: their egress and the cost per "
                "million tokens (this fleet's cost over the tokens of {asked:g} requests/s, so if "
                "anything high too) count the traffic that is sent, not the mean the fleet is sized for"
            ).format(
                ratio=DIURNAL_PEAK_TO_TROUGH,
                asked=self.mean_asked,
                peak=self.peak,
                held=round(self.mean_held, 2),
            )
        return words

    @property
    def follow_words(self) -> str:
        """Whether the autoscaler can follow the day, by the plan's own start-up time, in words."""
        if self.schedule is not None:
            return _("the schedule starts its instances, not the load")
        if self.load_day is not None:
            template = (
                _(
                    "a new instance serves after about {start} min ({how}); at its steepest the workload's "
                    "day (serving.day) grows by one instance's load in {rise} min, so the autoscaler can "
                    "follow it"
                )
                if self.follows
                else _(
                    "a new instance serves only after about {start} min ({how}), while at its steepest the "
                    "workload's day (serving.day) grows by one instance's load in {rise} min: the "
                    "autoscaler cannot follow the day, so it is priced as its peak fleet all month"
                )
            )
        elif self.follows:
            # the verdict holds for this day only: a real evening ramp can rise far faster than the
            # cosine (a team's 3 -> 40 requests/s in 30 min adds one instance's load in ~8 min)
            template = _(
                "a new instance serves after about {start} min ({how}); at its steepest the day's load "
                "grows by one instance's in {rise} min, so the autoscaler can follow it. That holds for "
                "this day only: a load that grows by one instance's in less than {start} min (a steep "
                "evening ramp) outruns it, so replay your own traffic with `gpuplan simulate autoscale "
                "--trace`, or start the fleet ahead of the ramp on a schedule"
            )
        else:
            template = _(
                "a new instance serves only after about {start} min ({how}), while at its steepest the day's "
                "load grows by one instance's in {rise} min: the autoscaler cannot follow the day, so it is "
                "priced as its peak fleet all month"
            )
        return template.format(
            start=f"{self.start_up_h * 60:.0f}", how=self.start_up_words, rise=f"{self.rise_h * 60:.0f}"
        )

    @property
    def start_up_words_day(self) -> str:
        """The instance-hours a day its start-ups and scale-down delays add, in words."""
        if self.start_ups == 0 and self.start_up_day_h <= 0:
            return _("no instance is started or removed over the day")
        template = (
            _(
                "+{h:.1f} instance-hours each day it runs: {n} instance(s) started before its hours, each "
                "billed from its start, {start} min before them ({how}; deploy's cron lines start it then), "
                "and for the {down} min after them before it is removed ({down_how})"
            )
            if self.schedule is not None
            else _(
                "+{h:.1f} instance-hours a day of start-up: {n} instance(s) started a day, each billed "
                "from its start, about {start} min before it serves, and for the {down} min the "
                "autoscaler waits before removing it ({down_how})"
            )
        )
        return template.format(
            how=self.start_up_words,
            h=self.start_up_day_h,
            n=self.start_ups,
            start=f"{self.start_up_h * 60:.0f}",
            down=f"{self.down_h * 60:.0f}",
            down_how=self.down_words,
        )

    def said(self, gpu: str) -> str:
        """The tiers in words, the day assumed, its start-ups and whether the autoscaler follows it."""
        if self.schedule is not None:
            return _("priced as its fleet in its hours, a month: {tiers} ({day}); {starts}").format(
                tiers=self.listed(gpu), day=self.day, starts=self.start_up_words_day
            )
        return _("priced as the fleet its day needs, a month: {tiers} ({day}); {starts}; {follows}").format(
            tiers=self.listed(gpu), day=self.day, starts=self.start_up_words_day, follows=self.follow_words
        )


def option_day_words(
    day: ServiceDay, gpu: str, *, scales_down: bool, pricing: str, peak_usd: float | None
) -> str:
    """How a service option with a day (``day``) is priced, in words: by that day, its peak fleet
    all month beside it as the bound (``peak_usd``, USD, where it is priced by the day), or why it is
    priced as its peak fleet all month."""
    from gpuplan.i18n import money
    from gpuplan.vocab import pricing_name

    if peak_usd is not None and day.schedule is not None:
        return _(
            "on its schedule: {said}; its fleet all month, {peak}, is the bound where it is not taken "
            "down outside its hours"
        ).format(said=day.said(gpu), peak=money(peak_usd))
    if peak_usd is not None:
        return _(
            "autoscaled with its day: {said}; its peak fleet all month, {peak}, is the bound where the "
            "autoscaler does not scale down as assumed"
        ).format(said=day.said(gpu), peak=money(peak_usd))
    if not scales_down:
        return _(
            "priced as its peak fleet all month, as its launch keeps it (no serving.min_replicas: the "
            "autoscaler's floor is the plan's fleet); with serving.min_replicas set (e.g. 1) it scales "
            "down with its day: {tiers} ({day})"
        ).format(tiers=day.listed(gpu), day=day.day)
    if pricing not in HOURLY_PRICING:
        return _(
            "priced as its peak fleet all month: {pricing} is paid whether its instances run or not "
            "(its day would need {tiers})"
        ).format(pricing=pricing_name(pricing), tiers=day.listed(gpu))
    if day.oversized:
        return _(
            "priced as its peak fleet all month: even its busiest minute needs only {n} of its {m} "
            "instances, so a smaller fleet of them carries its day ({tiers})"
        ).format(n=len(day.hours), m=day.instances, tiers=day.listed(gpu))
    return _("priced as its peak fleet all month: {why} (its day would need {tiers})").format(
        why=day.follow_words, tiers=day.listed(gpu)
    )


def replica_load_for(
    load_fn: LoadFn | None, gpu: str, tensor_parallel: int, capacity: float, latency: float | None
) -> tuple[float, str]:
    """The requests/s one replica is held at and where it comes from, in words: ``load_fn``'s,
    else the plan's ``capacity`` of one at the sizing utilisation (or ``latency``, where lower)."""
    load = load_fn(gpu, tensor_parallel, capacity, latency) if load_fn is not None else None
    if load is not None:
        return load.requests_per_s, _("as deploy's autoscaler targets it: {words}").format(
            words=replica_load_words(load)
        )
    share = TARGET_UTILISATION if latency is None else min(TARGET_UTILISATION, latency)
    return capacity * share, _(
        "{pct:.0f} % of the plan's capacity of one replica ({cap:.3g} requests/s), as deploy holds "
        "it where the serving simulation's replica is not worked out"
    ).format(pct=share * 100, cap=capacity)


def fleet_at_load(
    peak: float, per_replica: float, least: int, per_instance: float, instances: int, scale: float
) -> int:
    """The instances a service's fleet needs at a peak of ``peak`` requests/s (its planned peak ×
    ``scale``), as the plan sizes it: the peak over the load one replica is held at
    (``per_replica``: its capacity at the sizing utilisation), rounded up, no fewer than ``least``
    (``serving.min_replicas``, else 1), in whole instances of ``per_instance`` replicas. Less load
    never needs more than the planned fleet of ``instances`` (a load of the planned peak needs it),
    nor more load fewer."""
    replicas = max(least, math.ceil(peak / per_replica - 1e-9))
    need = max(1, math.ceil(replicas / per_instance - 1e-9))
    if scale < 1:
        return min(need, instances)
    return max(need, instances) if scale > 1 else instances


def held_load(
    load_fn: LoadFn | None, job: JobFacts, gpu: str, tensor_parallel: int, capacity: float, replicas: int
) -> tuple[float, str]:
    """The requests/s one replica of an option of ``replicas`` replicas, each of ``capacity``
    requests/s, is held at and where it comes from, in words (:func:`replica_load_for`), at the
    lower share the plan met a latency target at where it did (:func:`launch_latency_share`)."""
    return replica_load_for(load_fn, gpu, tensor_parallel, capacity, _latency_share(job, capacity, replicas))


def _latency_share(job: JobFacts, capacity: float, replicas: int) -> float | None:
    """:func:`launch_latency_share` of an option of ``replicas`` replicas of ``capacity`` each."""
    targets = any(t is not None for t in (job.p95_latency_ms, job.ttft_p95_ms, job.tpot_p95_ms))
    return launch_latency_share(
        utilisation=(job.requests_per_s or 0.0) / (capacity * replicas), has_latency_target=targets
    )


def day_of(
    *,
    mean: float | None,
    peak: float,
    least: int,
    replicas: int,
    instances: int,
    gpus: int,
    per_replica: float,
    load_words: str,
    run_h: float,
    start_up_h: float,
    start_up_words: str,
    down_h: float,
    down_words: str,
    schedule: Schedule | None = None,
    load_day: LoadDay | None = None,
) -> ServiceDay | None:
    """The fleet a service's day needs on an option of ``instances`` instances holding ``replicas``
    replicas over ``gpus`` GPUs, each replica held at ``per_replica`` requests/s, over ``run_h``
    hours a month, each instance billed ``start_up_h`` before it serves and ``down_h`` after it is
    no longer needed; None where it is priced as its peak fleet all its hours: no mean below the
    peak, a replica's load not known, or a fleet of one instance (nothing to scale down).

    With a ``schedule``, its week instead, minute by minute: the whole fleet in its hours and none
    outside them (each instance started and removed as the day's are), whatever the mean.

    With a ``load_day`` (``serving.day``), that day minute by minute rather than the cosine fitted
    to ``mean`` and ``peak`` (``mean`` is its mean)."""
    from gpuplan.day_load import diurnal_day_rate

    per_node = replicas / instances
    if schedule is not None:
        # its week, Monday first: the whole fleet in its hours, none outside them
        nodes = np.where(schedule.week_minutes(), instances, 0)
        held, asked, rise_h, days = peak, None, math.inf, max(1, len(schedule.weekdays))
    elif (
        mean is None
        or mean >= peak
        or not per_replica > 0
        or instances <= 1
        or not math.isfinite(per_replica)
    ):
        return None
    else:
        day = diurnal_day_rate(mean, peak) if load_day is None else load_day.rate()
        need = np.clip(np.ceil(day.rate_per_minute / per_replica - 1e-9), least, replicas)
        nodes = np.minimum(np.ceil(need / per_node - 1e-9), instances)
        # the day's steepest rise, requests/s per hour (the day repeats: its last minute leads to its first)
        rate = day.rate_per_minute
        rise_per_h = float(np.max(np.diff(np.append(rate, rate[0])))) * 60.0
        rise_h = per_replica * per_node / rise_per_h if rise_per_h > 0 else math.inf
        held, asked, days = day.mean_held, day.mean_asked, 1
    minutes = len(nodes)
    serving: list[float] = []
    billed: list[float] = []
    starts, extra_min = 0, 0.0
    for k in range(1, instances + 1):
        on = nodes >= k
        added, started = gaps_billed(on, (start_up_h + down_h) * 60.0)
        serving.append(run_h * float(np.count_nonzero(on)) / minutes)
        billed.append(run_h * (float(np.count_nonzero(on)) + added) / minutes)
        starts += started
        extra_min += added
    needed = [i for i, h in enumerate(serving) if h > 0]
    return ServiceDay(
        step=gpus / instances,
        hours=tuple(billed[i] for i in needed),
        serving_hours=tuple(serving[i] for i in needed),
        # a day's: of its day, or each day a schedule runs
        start_ups=starts // days,
        start_up_day_h=extra_min / 60.0 / days,
        instances=instances,
        share=sum(billed) / (instances * run_h) if run_h > 0 else 1.0,
        per_replica_requests_per_s=per_replica,
        load_words=load_words,
        mean_held=held,
        mean_asked=asked,
        peak=peak,
        least=least,
        start_up_h=start_up_h,
        start_up_words=start_up_words,
        down_h=down_h,
        down_words=down_words,
        rise_h=rise_h,
        replicas=replicas,
        run_h=run_h,
        schedule=schedule,
        load_day=load_day,
    )


def gaps_billed(on: np.ndarray, cap_min: float) -> tuple[float, int]:
    """For one instance's day, minute by minute (``on``: needed; the day repeats), the minutes it is
    billed beyond those it serves and the times a day it is started: each gap in its need costs
    ``cap_min`` (its start-up before the need resumes and the scale-down delay after it ended), or
    the whole gap where it is shorter — the instance is then kept running and not started again."""
    if on.all() or not on.any():
        return 0.0, 0
    r = np.roll(on, -int(np.argmax(on))).astype(np.int8)
    edges = np.diff(r, append=r[0])
    # starting where it is needed, each fall (needed, then not) comes before its rise
    gaps = np.flatnonzero(edges == 1) - np.flatnonzero(edges == -1)
    return float(np.minimum(gaps, cap_min).sum()), int(np.count_nonzero(gaps > cap_min))


def scale_down(*, scheduled: bool = False) -> tuple[float, str]:
    """How long the autoscaler keeps an instance the load no longer needs, h, and where that comes
    from, in words: the longer of deploy's targets' (the plan does not know which launches it).

    ``scheduled``: a service on a schedule, whose fleet is removed at the end of its hours by the
    schedule, not by the load: KEDA's cooldown period deploy writes for Kubernetes (its cron
    trigger's end, then the cooldown, then none), while SkyPilot's launch is taken down by deploy's
    cron line at the end (SkyServe's scale-down delay is a load's, and does not apply)."""
    from gpuplan.deploy.engine import K8S_SCALE_DOWN_S, SKYSERVE_SCALE_DOWN_S

    if scheduled:
        return K8S_SCALE_DOWN_S / 3600.0, _(
            "the {k8s} min cooldown deploy writes for Kubernetes' scale to none after the schedule's "
            "end (SkyPilot's launch is taken down at the end by its cron line)"
        ).format(k8s=f"{K8S_SCALE_DOWN_S / 60:.0f}")
    longest = max(K8S_SCALE_DOWN_S, SKYSERVE_SCALE_DOWN_S)
    return longest / 3600.0, _(
        "the longer of SkyServe's default scale-down delay, {sky} min, and the {k8s} min scale-down "
        "window deploy writes for Kubernetes, as the launch target is not known"
    ).format(sky=f"{SKYSERVE_SCALE_DOWN_S / 60:.0f}", k8s=f"{K8S_SCALE_DOWN_S / 60:.0f}")


def start_up(
    job: JobFacts, gpus_per_node: int, replica_gpus: int, *, scheduled: bool = False
) -> tuple[float, str]:
    """How long a new instance of a service takes to serve, h, and how that adds up, in words: the
    one start-up model plan, deploy and ``simulate autoscale`` count
    (:attr:`JobFacts.replica_start_up`): the instance's boot, the engine's start and the weights of
    the replicas it holds read through its one disk — as the plan's spot replacement
    (:func:`gpuplan.plan.spot.service_down_h`). Where the weights' size is not known, the bound
    ``deploy`` gives a replica to come up before it takes it to have failed, said.

    ``scheduled``: started before a schedule's hours, by a cron line: that start-up in whole
    minutes (:meth:`gpuplan.start_up.StartUp.lead_min`), the lead deploy's cron lines and ``simulate
    autoscale`` start the fleet at, so that the plan bills the minutes the launch runs."""
    from gpuplan.plan.spot import service_unit

    k = int(service_unit(np.array([gpus_per_node]), replica_gpus, job.replicas_per_gpu)[1][0])
    up = job.replica_start_up
    if scheduled:
        return up.lead_min(k) / 60.0, up.lead_words(k)
    return up.seconds(k) / 3600.0, up.parts_words(k)


@dataclass(frozen=True, kw_only=True)
class ServiceDays:
    """Each candidate's day (:func:`service_days`)."""

    share: FloatArray
    """Per candidate: the share of its fleet's instance-hours it is priced at (1: its peak fleet
    all month)."""
    day: IntArray
    """Per candidate: the index of its day in :attr:`days`; -1 where it has none."""
    days: tuple[ServiceDay, ...]


def service_days(
    cands: Candidates, offers: OfferTable, job: JobFacts, load_fn: LoadFn | None, *, run_h: float
) -> ServiceDays | None:
    """Each live candidate's day, and the share of its fleet's hours it is priced at: a service whose
    workload gives a mean below its peak, on an option of several instances whose replica capacity
    is known. The share is below 1 only where it scales down — the workload sets
    ``serving.min_replicas`` (else ``deploy`` keeps the autoscaler's floor at the plan's fleet),
    the option is billed by the hour (:data:`HOURLY_PRICING`) and the autoscaler can follow the day
    (:attr:`ServiceDay.follows`). A service on a schedule (``serving.schedule``) has a day on every
    option, of one instance too: its hours. None for a job, or a service with no mean below its peak
    and no schedule."""
    peak, mean = job.requests_per_s, job.mean_requests_per_s
    if peak is None or (job.schedule is None and (mean is None or mean >= peak)):
        return None
    n = len(cands)
    share = np.ones(n)
    which = np.full(n, -1, dtype=np.int64)
    days: list[ServiceDay] = []
    seen: dict[tuple[object, ...], int] = {}
    loads: dict[tuple[str, int, float, float | None], tuple[float, str]] = {}
    replica = cands.replica_gpus(job)
    for i in np.flatnonzero(cands.alive):
        cap = float(cands.replica_requests_per_s[i])
        nodes = int(cands.nodes[i])
        if not cap > 0 or not math.isfinite(cap) or (nodes <= 1 and job.schedule is None):
            continue
        gpn, rg = int(cands.gpus_per_node[i]), int(replica[i])
        replicas = gpn * nodes // rg * job.replicas_per_gpu
        if replicas <= 0:
            continue
        row = int(cands.offer[i])
        gpu = str(offers.gpu[row])
        tp = int(cands.tensor_parallel[i]) or job.tensor_parallel
        latency = _latency_share(job, cap, replicas)
        key = (gpu, tp, cap, latency)
        if key not in loads:
            loads[key] = replica_load_for(load_fn, gpu, tp, cap, latency)
        per_replica, how = loads[key]
        day_key = (per_replica, how, replicas, nodes, gpn, rg)
        if day_key not in seen:
            up_h, up_words = start_up(job, gpn, rg, scheduled=job.schedule is not None)
            down_h, down_words = scale_down(scheduled=job.schedule is not None)
            d = day_of(
                mean=mean,
                peak=peak,
                least=job.min_replicas,
                replicas=replicas,
                instances=nodes,
                gpus=gpn * nodes,
                per_replica=per_replica,
                load_words=how,
                run_h=run_h,
                start_up_h=up_h,
                start_up_words=up_words,
                down_h=down_h,
                down_words=down_words,
                schedule=job.schedule,
                load_day=job.load_day,
            )
            seen[day_key] = -1 if d is None else len(days)
            if d is not None:
                days.append(d)
        which[i] = seen[day_key]
        if which[i] < 0:
            continue
        d = days[int(which[i])]
        if job.scales_down and d.scales and str(offers.pricing[row]) in HOURLY_PRICING:
            share[i] = d.share
    return ServiceDays(share=share, day=which, days=tuple(days))
