"""Notebooks and one-GPU experiments as tenants of ``simulate share``.

A group is ``users`` people, each holding a GPU process (a Jupyter kernel, a training run) that
needs ``memory_gib`` of GPU memory and computes on the GPU a share ``active_share`` of its working
hours (a notebook is idle while its user reads and types; an experiment computes all the time it
runs). What each way of sharing gives one user, against a whole GPU of the same kind:

- **whole**: a GPU each; never slowed, never waits.
- **mig**: one MIG slice each, the smallest of the GPU's real profiles that holds its memory and
  runs within its ``max_slowdown`` (else the fastest that holds it, the miss shown); isolated, so
  always at the slice's speed (the profile's share of compute and memory bandwidth), never slowed
  by a neighbour, memory its own.
- **mps**: one equal part of an MPS-shared GPU (1/N of its memory and threads, the same N as the
  services'); isolated as far as MPS limits go, always at (1 − MPS penalty)/N of the GPU.
- **time-slice**: users share a GPU's memory and time. Memory is not isolated: what they hold
  must fit together. Time is shared among those computing at once: a user's neighbours compute
  independently, each at its own ``active_share`` (ASSUMPTION: independent users with the same
  working hours, the crowded case), so the number of others computing when it computes is a sum of
  Bernoulli draws (binomial for one group; the Poisson-binomial distribution for several), and with
  k others computing it runs at (1 − time-slice penalty)/(k + 1) of the GPU (ASSUMPTION: the GPU's
  time split evenly among the processes with work; the penalty only where two or more share it).
  Users go onto GPUs of their own (services are not time-sliced with them: their bursts are outside
  the services' latency model) as long as every user there stays within its ``max_slowdown`` at the
  95th percentile of the time it computes, and, for a group whose kernels hold memory only while
  they compute (``holds_memory: active``), the chance that the memory in use then passes the GPU's
  stays within ``max_oom_risk``.

A notebook's kernel holds its GPU memory while it is open, idle or not (``holds_memory: open``, the
default): PyTorch's caching allocator keeps what it has allocated until the process ends or
``torch.cuda.empty_cache()`` is called (PyTorch documentation, "CUDA semantics: memory management").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from gpuplan.errors import InputError
from gpuplan.i18n.messages import N_

__all__ = [
    "DEFAULT_MAX_OOM_RISK",
    "DEFAULT_MAX_SLOWDOWN",
    "HOLDS_MEMORY",
    "KINDS",
    "NotebookGroup",
    "NotebookOutcome",
    "TimeSliceNotebooks",
    "fixed_outcome",
    "pack_time_slice",
    "slowdown_stats",
]

KINDS = ("notebook", "experiment")
HOLDS_MEMORY = ("open", "active")
#: ASSUMPTION (changeable per group, ``max_slowdown``): a user accepts work taking up to 3× as long
#: as on a whole GPU at the 95th percentile of the time it computes.
DEFAULT_MAX_SLOWDOWN = 3.0
#: ASSUMPTION (changeable per group, ``max_oom_risk``): for kernels that hold memory only while they
#: compute, a 1 % chance that the memory in use passes the GPU's when one computes.
DEFAULT_MAX_OOM_RISK = 0.01
#: The percentile of the time a user computes that its slow-down is held to.
PERCENTILE = 0.95


@dataclass(frozen=True, kw_only=True)
class NotebookGroup:
    """``users`` people with the same GPU process: a notebook each, or an experiment each."""

    name: str
    kind: str
    users: int
    memory_gib: float
    """GPU memory one user's process holds (model, activations, CUDA context)."""
    active_share: float
    """Share of its working hours the process computes on the GPU."""
    hours_per_day: float
    """Working hours a day (the process open); reported, and the window ``active_share`` is of."""
    max_slowdown: float = DEFAULT_MAX_SLOWDOWN
    """Slow-down against a whole GPU acceptable at the 95th percentile of the time it computes."""
    holds_memory: str = "open"
    """``open``: the memory is held while the process is open; ``active``: only while it computes."""
    max_oom_risk: float = DEFAULT_MAX_OOM_RISK

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            from gpuplan.errors import NotFoundError

            raise NotFoundError("notebook kind", self.kind, KINDS)
        if self.holds_memory not in HOLDS_MEMORY:
            from gpuplan.errors import NotFoundError

            raise NotFoundError("holds_memory", self.holds_memory, HOLDS_MEMORY)
        if self.users < 1 or self.memory_gib <= 0:
            raise InputError.worded(
                N_("notebooks {name!r}: users and memory_gib must be positive"), name=self.name
            )
        if not 0 < self.active_share <= 1 or not 0 < self.hours_per_day <= 24:
            raise InputError.worded(
                N_("notebooks {name!r}: active_share must be in (0, 1] and hours_per_day in (0, 24]"),
                name=self.name,
            )
        if self.max_slowdown < 1 or not 0 <= self.max_oom_risk < 1:
            raise InputError.worded(
                N_("notebooks {name!r}: max_slowdown must be at least 1 and max_oom_risk in [0, 1)"),
                name=self.name,
            )


@dataclass(frozen=True, kw_only=True)
class NotebookOutcome:
    """What one user of a group gets: on the most crowded of the group's GPUs."""

    name: str
    kind: str
    users: int
    slice: str
    """A MIG profile, ``mps-1/N``, ``time-slice`` or ``whole``."""
    gpus: int
    """GPUs the group's users are on (some shared with others under MIG and MPS)."""
    users_per_gpu: int
    """The most of the group's users on one GPU."""
    speed_fraction: float
    """Share of a whole GPU's speed the user has when it computes alone on its share."""
    slowed_chance: float
    """Chance that another user computes while it does (time-slicing; 0 where isolated)."""
    mean_slowdown: float
    """Mean slow-down against a whole GPU over the time it computes."""
    p95_slowdown: float
    """Slow-down at the 95th percentile of the time it computes."""
    oom_risk: float
    """Chance that the memory in use on its GPU passes the GPU's when it computes (0: what its GPU's
    users hold fits, as long as each stays within its ``memory_gib``)."""
    max_slowdown: float
    max_oom_risk: float
    active_share: float
    hours_per_day: float
    memory_gib: float

    @property
    def meets_targets(self) -> bool:
        return self.p95_slowdown <= self.max_slowdown + 1e-9 and self.oom_risk <= self.max_oom_risk + 1e-12


def fixed_outcome(g: NotebookGroup, slice_: str, speed: float, gpus: int, per_gpu: int) -> NotebookOutcome:
    """A user on a share of its own (whole, MIG, MPS): always at ``speed``, never slowed by others."""
    return _outcome(g, slice_, speed, (gpus, per_gpu), (0.0, 1.0 / speed, 1.0 / speed, 0.0))


def _outcome(
    g: NotebookGroup,
    slice_: str,
    speed: float,
    gpus: tuple[int, int],
    felt: tuple[float, float, float, float],
) -> NotebookOutcome:
    """``gpus``: the GPUs the group is on and the most of its users on one; ``felt``: the chance a
    user is slowed, its mean and p95 slow-down and its OOM risk."""
    chance, mean, p95, oom = felt
    return NotebookOutcome(
        name=g.name,
        kind=g.kind,
        users=g.users,
        slice=slice_,
        gpus=gpus[0],
        users_per_gpu=gpus[1],
        speed_fraction=speed,
        slowed_chance=chance,
        mean_slowdown=mean,
        p95_slowdown=p95,
        oom_risk=oom,
        max_slowdown=g.max_slowdown,
        max_oom_risk=g.max_oom_risk,
        active_share=g.active_share,
        hours_per_day=g.hours_per_day,
        memory_gib=g.memory_gib,
    )


def _poisson_binomial(ps: Sequence[float]) -> list[float]:
    """P(k of the independent Bernoulli draws ``ps`` come up), k = 0 … len(ps)."""
    pmf = [1.0]
    for p in ps:
        nxt = [0.0] * (len(pmf) + 1)
        for k, q in enumerate(pmf):
            nxt[k] += q * (1.0 - p)
            nxt[k + 1] += q * p
        pmf = nxt
    return pmf


def slowdown_stats(others: Sequence[float], penalty: float) -> tuple[float, float, float]:
    """(chance slowed, mean slow-down, p95 slow-down) of a time-sliced user while it computes, its
    neighbours computing independently with the chances ``others``: with k of them at once it runs
    at (1 − penalty)/(k + 1) of the GPU, alone at the whole GPU's speed."""
    pmf = _poisson_binomial(others)

    def slow(k: int) -> float:
        return 1.0 if k == 0 else (k + 1) / (1.0 - penalty)

    mean = sum(q * slow(k) for k, q in enumerate(pmf))
    cum, p95 = 0.0, slow(len(pmf) - 1)
    for k, q in enumerate(pmf):
        cum += q
        if cum >= PERCENTILE - 1e-12:
            p95 = slow(k)
            break
    return 1.0 - pmf[0], mean, p95


def _oom_risk(mine: NotebookGroup, others: Sequence[NotebookGroup], cap_gib: float) -> float:
    """Chance that the memory in use on the GPU passes ``cap_gib`` while a user of ``mine`` computes:
    a process that holds memory while open always counts, one that holds it only while it computes
    counts with its ``active_share``."""
    held = mine.memory_gib + sum(o.memory_gib for o in others if o.holds_memory == "open")
    if held > cap_gib + 1e-9:
        return 1.0
    varying = [o for o in others if o.holds_memory == "active"]
    if not varying:
        return 0.0
    # the distribution of the memory the varying ones add, on a 1/100 GiB grid (exact sums of the
    # memory given to two decimals)
    dist: dict[int, float] = {0: 1.0}
    for o in varying:
        m = round(o.memory_gib * 100)
        nxt: dict[int, float] = {}
        for s, q in dist.items():
            nxt[s] = nxt.get(s, 0.0) + q * (1.0 - o.active_share)
            nxt[s + m] = nxt.get(s + m, 0.0) + q * o.active_share
        dist = nxt
    room = round((cap_gib - held) * 100)
    return sum(q for s, q in dist.items() if s > room)


@dataclass(frozen=True, kw_only=True)
class TimeSliceNotebooks:
    bins: list[list[int]]
    """Per GPU, the indices into ``groups`` of its users (one entry per user)."""
    outcomes: list[NotebookOutcome]
    lower: int
    """No packing of these users within their targets takes fewer GPUs."""
    optimal: bool


def pack_time_slice(
    groups: Sequence[NotebookGroup], mem_cap_gib: float, gpu_gib: float, penalty: float
) -> TimeSliceNotebooks:
    """The users on time-sliced GPUs of their own, first-fit in decreasing memory, a user added to a
    GPU only where every user there then stays within its slow-down and OOM-risk targets.
    ``mem_cap_gib``: what users sharing a GPU may hold together; ``gpu_gib``: what one alone may.

    A group that misses a target even with one user to a GPU (memory over the GPU's, a slow-down
    target below 1/(1 − penalty) is not one: alone it is never slowed) has a GPU per user, the miss
    shown."""

    @cache
    def fits(counts: tuple[int, ...]) -> bool:
        members = [i for i, c in enumerate(counts) for _ in range(c)]
        if len(members) <= 1:
            return True
        return all(_user_ok(groups, members, j, mem_cap_gib, penalty) for j in range(len(members)))

    order = sorted(
        (i for i, g in enumerate(groups) for _ in range(g.users)), key=lambda i: (-groups[i].memory_gib, i)
    )
    bins: list[list[int]] = []
    counts: list[list[int]] = []
    for i in order:
        for b, c in enumerate(counts):
            trial = list(c)
            trial[i] += 1
            if fits(tuple(trial)):
                bins[b].append(i)
                counts[b] = trial
                break
        else:
            bins.append([i])
            counts.append([1 if k == i else 0 for k in range(len(groups))])
    # Bounds: the memory held at all times, and each group alone (others only crowd a GPU more).
    held = sum(g.memory_gib * g.users for g in groups if g.holds_memory == "open")
    lower = math.ceil(held / mem_cap_gib - 1e-9) if held else 0
    for i, g in enumerate(groups):
        n = 1
        while n < g.users and fits(tuple(n + 1 if k == i else 0 for k in range(len(groups)))):
            n += 1
        lower = max(lower, math.ceil(g.users / n))
    outcomes = []
    for i, g in enumerate(groups):
        worst: tuple[float, float, float, float] | None = None
        gpus = [b for b in bins if i in b]
        for on in gpus:
            j = on.index(i)
            others = [groups[k] for t, k in enumerate(on) if t != j]
            cap = mem_cap_gib if others else gpu_gib  # alone, it may fill the GPU (as a whole one)
            stats = (*slowdown_stats([o.active_share for o in others], penalty), _oom_risk(g, others, cap))
            if worst is None or (stats[2], stats[3], stats[1]) > (worst[2], worst[3], worst[1]):
                worst = stats
        assert worst is not None  # every user was placed
        outcomes.append(_outcome(g, "time-slice", 1.0, (len(gpus), max(on.count(i) for on in gpus)), worst))
    return TimeSliceNotebooks(bins=bins, outcomes=outcomes, lower=lower, optimal=len(bins) == lower)


def _user_ok(
    groups: Sequence[NotebookGroup], members: list[int], j: int, mem_cap_gib: float, penalty: float
) -> bool:
    g = groups[members[j]]
    others = [groups[k] for t, k in enumerate(members) if t != j]
    _chance, _mean, p95 = slowdown_stats([o.active_share for o in others], penalty)
    return p95 <= g.max_slowdown + 1e-9 and _oom_risk(g, others, mem_cap_gib) <= g.max_oom_risk + 1e-12
