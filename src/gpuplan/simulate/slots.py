"""FIFO dispatch of requests onto batch slots between two policy decisions, in blocks where exact.

The engine (:mod:`gpuplan.simulate.engine`) keeps one free time per slot and asks, at each
decision period, for the requests that start before the next decision. The per-request rule is
the one of a heap of ``(free time, slot)``: request ``j`` takes the slot that frees first (ties:
the lowest slot), starts at ``max(arrival, free time)``, and frees it ``service`` seconds later.

:func:`dispatch_block` applies that rule to many requests at once. With the slots sorted by
``(free time, slot)`` before the block, request ``i`` of the block takes the ``i``-th of them
exactly when every request before it in the block ends strictly after that slot frees (then no
slot freed inside the block can come first). That condition is checked for every request with a
running minimum, and only the prefix where it holds, no request is dropped and every start is
before the next decision is committed. The rest goes to :func:`dispatch_heap`, the
per-request heap loop, which is the reference: both give bit-identical start times, slots and free
times (the same float operations in the same order: ``start + fixed + tokens × step``).

Blocks pay off when many slots are idle or free in arrival order (a fleet of tens of replicas ×
64 slots); a small or saturated fleet falls back to the heap loop period by period.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

import numpy as np

__all__ = ["MIN_BLOCK", "Dispatch", "SlotPool", "dispatch_block", "dispatch_heap"]

_INF = math.inf
#: A block shorter than this is not worth its sort of every slot's free time: the rest of the
#: period runs through the heap loop.
MIN_BLOCK = 8

STATUS_DROPPED = 2


class SlotPool:
    """Free time (``inf`` once its replica stops taking requests) and last request of each slot."""

    def __init__(self) -> None:
        self.free = np.empty(0, dtype=np.float64)
        self.req = np.empty(0, dtype=np.int64)
        self.n = 0
        self.live = np.empty(0, dtype=np.int64)
        """Indices of the slots that take requests, ascending (what a block sorts)."""

    def add(self, count: int, ready_at: float) -> int:
        """``count`` new slots, free from ``ready_at``; returns the first one's index."""
        base = self.n
        if base + count > len(self.free):
            size = max(2 * len(self.free), base + count, 64)
            self.free = np.concatenate([self.free[:base], np.full(size - base, _INF)])
            self.req = np.concatenate([self.req[:base], np.full(size - base, -1, dtype=np.int64)])
        self.free[base : base + count] = ready_at
        self.req[base : base + count] = -1
        self.n = base + count
        self.live = np.concatenate([self.live, np.arange(base, base + count)])
        return base

    def close(self, first: int, count: int) -> None:
        """Slots ``first … first + count - 1`` take no more requests."""
        self.free[first : first + count] = _INF
        self.live = self.live[(self.live < first) | (self.live >= first + count)]

    def earliest(self) -> float:
        return float(self.free[self.live].min()) if len(self.live) else _INF


@dataclass(frozen=True, kw_only=True)
class Dispatch:
    """The requests and limits one dispatch works with (the same for the whole run but ``step_s``)."""

    arrival: np.ndarray
    fixed_s: np.ndarray
    tokens: np.ndarray
    start: np.ndarray
    """Written: start of service per request (nan until started)."""
    status: np.ndarray
    """Written: STATUS_DROPPED for a request that timed out before starting."""
    timeout_s: float
    slot: np.ndarray | None = None
    """Written when given: the slot each request started on (-1 until started), for a signal per
    replica (the GPU-utilisation policy's)."""


def dispatch_block(pool: SlotPool, d: Dispatch, j: int, next_tick: float, step_s: float, arrived: int) -> int:
    """Start requests ``j, j+1, …`` as a block while exact (module docstring); returns how many.
    ``arrived``: the requests that arrive before ``next_tick`` (the first index at or after it)."""
    live = pool.live
    hi = min(arrived, j + len(live))
    if hi <= j:
        return 0
    # Live slots are in ascending order, so a stable sort breaks ties by the lower slot.
    live_free = pool.free[live]
    by_free = np.argsort(live_free, kind="stable")[: hi - j]
    order = live[by_free]
    ms = live_free[by_free]
    m = len(order)
    hi = j + m
    a = d.arrival[j:hi]
    st = np.maximum(a, ms)
    end = st + d.fixed_s[j:hi] + d.tokens[j:hi] * step_s
    ok = (st < next_tick) & (st - a <= d.timeout_s)
    # Request i takes the i-th slot only if every earlier request of the block ends after it frees.
    ok[1:] &= np.minimum.accumulate(end[:-1]) > ms[1:]
    v = m if ok.all() else int(np.argmin(ok))
    if v:
        slots = order[:v]
        pool.free[slots] = end[:v]
        pool.req[slots] = np.arange(j, j + v)
        d.start[j : j + v] = st[:v]
        if d.slot is not None:
            d.slot[j : j + v] = slots
    return v


def dispatch_heap(pool: SlotPool, d: Dispatch, j: int, next_tick: float, step_s: float, arrived: int) -> int:
    """The per-request heap loop from request ``j`` until the next start is at or after
    ``next_tick`` (never with no slot taking requests). Returns the next request's index."""
    free, live = pool.free, pool.live
    # A sentinel that never leaves the heap: with no live slot the next start is "never".
    heap = [*zip(free[live].tolist(), live.tolist(), strict=True), (_INF, -1)]
    heapq.heapify(heap)
    hi = arrived
    # Every request started here arrived before next_tick (a start is never before its arrival).
    arrival = d.arrival[j : hi + 1].tolist()
    fixed = d.fixed_s[j : hi + 1].tolist()
    tokens = d.tokens[j : hi + 1].tolist()
    starts: list[float] = []
    taken: list[int] = []
    req, status = pool.req, d.status
    timeout = d.timeout_s
    replace = heapq.heapreplace
    n, j0 = len(d.arrival), j
    while j < n:
        tf, s = heap[0]
        i = j - j0
        a = arrival[i]
        cs = a if a >= tf else tf
        if cs >= next_tick:
            break
        if cs - a > timeout:
            status[j] = STATUS_DROPPED
            starts.append(math.nan)
            taken.append(-1)
            j += 1
            continue
        replace(heap, (cs + fixed[i] + tokens[i] * step_s, s))
        starts.append(cs)
        taken.append(s)
        req[s] = j
        j += 1
    d.start[j0:j] = starts
    if d.slot is not None:
        d.slot[j0:j] = taken
    for f, s in heap:
        if s >= 0:
            free[s] = f
    return j
