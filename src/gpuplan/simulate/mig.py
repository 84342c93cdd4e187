"""Which sets of MIG slices fit one GPU: the placement rules over the profiles of
:mod:`gpuplan.hardware.mig` (its docstring has ``nvidia-smi mig -lgipp``'s start indices and sources).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache

from gpuplan.hardware.mig import COMPUTE_SLICES, MEMORY_SLICES, MigGpu, MigProfile, mig_gpu, mig_gpus

__all__ = [
    "COMPUTE_SLICES",
    "MEMORY_SLICES",
    "MigGpu",
    "MigProfile",
    "layout_is_valid",
    "layouts",
    "mig_gpu",
    "mig_gpus",
    "place",
]


def layout_is_valid(gpu: MigGpu, placements: Iterable[tuple[str, int]]) -> bool:
    """Whether instances ``(profile name, start slice)`` can all exist on one GPU."""
    used = [False] * MEMORY_SLICES
    compute = 0
    counts: dict[str, int] = {}
    for name, start in placements:
        p = gpu.profile(name)
        if start not in p.starts:
            return False
        for i in range(start, start + p.memory_slices):
            if used[i]:
                return False
            used[i] = True
        compute += p.compute_slices
        counts[name] = counts.get(name, 0) + 1
        if counts[name] > p.max_instances:
            return False
    return compute <= COMPUTE_SLICES


def place(gpu: MigGpu, names: Sequence[str]) -> tuple[tuple[str, int], ...] | None:
    """Start slices for instances of ``names`` on one GPU, or None if they cannot all fit."""
    key = tuple(sorted(names, key=lambda n: (-gpu.profile(n).memory_slices, n)))
    return _place(gpu, key)


@cache
def _place(gpu: MigGpu, names: tuple[str, ...]) -> tuple[tuple[str, int], ...] | None:
    # Depth-first over the instances, biggest first; at most 7 instances, so this is tiny.
    out: list[tuple[str, int]] = []

    def go(i: int) -> bool:
        if i == len(names):
            return True
        p = gpu.profile(names[i])
        for s in p.starts:
            cand = [*out, (names[i], s)]
            if layout_is_valid(gpu, cand):
                out.append((names[i], s))
                if go(i + 1):
                    return True
                out.pop()
        return False

    return tuple(out) if go(0) else None


@cache
def layouts(gpu: MigGpu, *, media: bool = False) -> tuple[tuple[tuple[str, int], ...], ...]:
    """Every maximal valid set of instances on one GPU (no instance can be added), as counts.

    Returned as sorted tuples of (profile name, count); ``media`` includes the +me profiles.
    Walks the 8 memory slices left to right: each is left empty or starts an instance.
    """
    profiles = [p for p in gpu.profiles if media or not p.media_extensions]
    found: set[tuple[tuple[str, int], ...]] = set()

    def maximal(pl: list[tuple[str, int]]) -> bool:
        return not any(layout_is_valid(gpu, [*pl, (p.name, s)]) for p in profiles for s in p.starts)

    def go(i: int, pl: list[tuple[str, int]]) -> None:
        if i >= MEMORY_SLICES:
            if pl and maximal(pl):
                c: dict[str, int] = {}
                for n, _ in pl:
                    c[n] = c.get(n, 0) + 1
                found.add(tuple(sorted(c.items())))
            return
        go(i + 1, pl)
        for p in profiles:
            if i in p.starts and layout_is_valid(gpu, [*pl, (p.name, i)]):
                go(i + p.memory_slices, [*pl, (p.name, i)])

    go(0, [])
    return tuple(sorted(found))
