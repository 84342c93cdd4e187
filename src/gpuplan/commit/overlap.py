"""Which demands run at the same hours of a month: the month's load, hour by hour, taken at its worst.

A usage file says how many GPUs each demand needs at once and for how many hours of the month, not
at which hours. A demand's GPUs at once are whole (``Demand.levels``: its whole steps for its hours,
one step more for part of them), each layer stacked as a demand of its own. The hours are laid out
so that the load needs the most capacity above any number of committed GPUs: every demand from
the month's first hour, the longest at the bottom of the stack (its load, sorted from the busiest
hour down, majorises that of any other layout, so the GPU-hours above any commitment level are
largest). Demands of different named shifts never share an hour:
each shift is stacked alone, the shifts' pieces are laid end to end busiest first, and the demands
without a shift are stacked on the busiest hours of that.

e.g. 12 GPUs for 730 h and 20 for 180 h: 32 GPUs for 180 h, then 12 for 550 h.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from gpuplan.commit.model import Demand

__all__ = ["Slice", "month_slices"]


@dataclass(frozen=True, kw_only=True)
class Slice:
    """Hours of a month with the same demands running."""

    hours: float
    """How long, h."""
    gpus: dict[int, float]
    """Demand index (into the list given to :func:`month_slices`) -> its GPUs at once."""

    @property
    def load(self) -> float:
        """GPUs busy at once during these hours."""
        return sum(self.gpus.values())


def _gpus(items: Sequence[tuple[int, float, float]]) -> dict[int, float]:
    """Demand index -> its GPUs at once in ``items`` (a demand's layers add up)."""
    out: dict[int, float] = {}
    for i, g, _ in items:
        out[i] = out.get(i, 0.0) + g
    return out


def _stack(items: Sequence[tuple[int, float, float]]) -> list[Slice]:
    """``(index, GPUs, hours)`` all from the first hour: slices from the busiest down."""
    order = sorted(items, key=lambda it: (-it[2], it[0]))
    out = []
    for k, (_, _, hours) in enumerate(order):
        below = order[k + 1][2] if k + 1 < len(order) else 0.0
        if hours > below:
            out.append(Slice(hours=hours - below, gpus=_gpus(order[: k + 1])))
    return out[::-1]


def month_slices(demands: Sequence[Demand], month: int, scale: float = 1.0) -> list[Slice]:
    """The hours of ``month`` in which ``demands`` run, as slices from the busiest down (idle hours
    left out); ``scale`` changes each demand's GPUs at once (a sensitivity run)."""
    free: list[tuple[int, float, float]] = []
    shifts: dict[str, list[tuple[int, float, float]]] = {}
    for i, d in enumerate(demands):
        # whole GPUs: a layer for all its hours, and a step more for part of them (Demand.levels)
        for gpus, hours in d.levels(month, scale):
            if gpus > 0 and hours > 0:
                (shifts.setdefault(d.shift, []) if d.shift else free).append((i, gpus, hours))
    if not shifts:
        return _stack(free)
    # Each shift's slices, laid end to end from the busiest (TcoProblem checks that they fit).
    pieces = sorted((s for name in sorted(shifts) for s in _stack(shifts[name])), key=lambda s: -s.load)
    # Cut that timeline where a demand without a shift stops.
    cuts = sorted({0.0, *(hours for _, _, hours in free)})
    out: list[Slice] = []
    t = 0.0
    for piece in [*pieces, None]:
        start, end = t, t + piece.hours if piece is not None else max(cuts[-1], t)
        marks = [start, *(c for c in cuts if start < c < end), end]
        for a, b in itertools.pairwise(marks):
            if b <= a:
                continue
            running = dict(piece.gpus) if piece is not None else {}
            for i, g in _gpus([it for it in free if it[2] > a]).items():
                running[i] = running.get(i, 0.0) + g
            if running:
                out.append(Slice(hours=b - a, gpus=running))
        t = end
    return out
