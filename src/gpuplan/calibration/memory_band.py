"""The memory band from grouped residuals: every published peak memory the calibration cases
reproduce, against the estimate's term that counts the same thing, grouped by publisher.

No constant of the memory model is fitted on these figures (``perf/memory.py`` cites each one's
source), so every residual is already held out; what a random pool would still hide is that one
publisher's rows share one stack and one way of reading memory. So the band is the 80th percentile
of |ln(estimated / published)| with each publisher weighing as much as any other (however many
rows it published), and its coverage is judged publisher by publisher: the band from the *other*
publishers' rows, tried on this one's (leave-one-publisher-out), as the time band is.

A case that reproduces a run's time but cannot say its memory (``CalibrationCase.memory_as_run``
False: Megatron's mixed precision, a config that cannot be the published run, a process-lifetime
peak), a memory row left out of the fit (its stack is not modelled), and each configuration after
its first row (the same memory, published again beside another throughput) are left out.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpuplan.calibration.case import CalibrationCase
from gpuplan.calibration.published import MeasuredRow, load_rows, publisher_group
from gpuplan.profile.model import Profile

if TYPE_CHECKING:
    from gpuplan.perf.estimate import Estimate

__all__ = [
    "BAND_COVERAGE",
    "MemoryBand",
    "MemoryResidual",
    "estimate_term",
    "grouped_memory_band",
    "memory_residuals",
]

#: Share of the held-out memory figures the band is meant to cover (as the time band's 80 %).
BAND_COVERAGE = 0.8
#: The metric of a row that publishes only a peak memory (``cases._MEMORY_METRIC``).
MEMORY_METRIC = "peak_mem_gib"
#: The narrowest band: what so few rows cannot show (as ``cases.with_band``'s floor).
MIN_BAND = 1.05


@dataclass(frozen=True, kw_only=True)
class MemoryResidual:
    """One published peak memory and the estimate of the same quantity."""

    publisher: str
    label: str
    term: str
    """The estimate's term compared: ``peak_allocated_gib``, ``reserved_gib`` or ``nvidia_smi_gib``."""
    estimated_gib: float
    published_gib: float
    verdict: str

    @property
    def log_error(self) -> float:
        return math.log(self.estimated_gib / self.published_gib)


@dataclass(frozen=True, kw_only=True)
class MemoryBand:
    """The grouped band and how it covers each publisher's figures."""

    factor: float
    """Multiplicative band (≥ :data:`MIN_BAND`): exp of the publisher-weighted 80th percentile."""
    coverage: float
    """Share of all figures inside the band (in sample: the band saw them)."""
    heldout_coverage: float | None
    """Share of the figures inside the band built without their publisher; None with one publisher
    (no other publisher's rows to build it from)."""
    per_publisher: tuple[tuple[str, int, float, float | None, float | None], ...]
    """(publisher, figures, median |error| %, band without it, share of its figures inside that);
    the last two None where no other publisher has figures."""


def estimate_term(what: str) -> str:
    """The estimate's term that counts what the publisher printed (``memory_what``)."""
    w = what.lower()
    if "nvidia-smi" in w:
        return "nvidia_smi_gib"
    if "reserved" in w:
        return "reserved_gib"
    return "peak_allocated_gib"  # allocated, active, torchtune's peak memory stats


def _match(rows: Sequence[MeasuredRow], case: CalibrationCase) -> MeasuredRow | None:
    return next(
        (
            r
            for r in rows
            if r.memory_gib is not None
            and r.model == case.workload["name"]
            and r.gpu == case.gpu
            and r.gpu_count == case.gpu_count
        ),
        None,
    )


def memory_residuals(
    pairs: Iterable[tuple[CalibrationCase, Profile]],
    estimate: Callable[[CalibrationCase, Profile], Estimate],
    rows: Sequence[MeasuredRow] | None = None,
) -> list[MemoryResidual]:
    """The residual of every published peak memory a case claims to reproduce; ``estimate`` runs a
    case (``cases.case_request`` through ``run_estimate``)."""
    published = [r for r in (load_rows() if rows is None else rows) if r.memory_gib is not None]
    seen: set[tuple[str, str, int, str, int]] = set()
    out = []
    for case, prof in pairs:
        key = (prof.key, case.gpu, case.gpu_count, case.parallelism, case.tensor_parallel)
        if key in seen or not case.memory_as_run or (case.metric == MEMORY_METRIC and not case.used_in_fit):
            # (a memory row left out of the fit is one whose stack the workload cannot state)
            continue
        seen.add(key)
        match = _match(published, case)
        if match is None or match.memory_gib is None:
            continue
        e = estimate(case, prof)
        term = estimate_term(match.memory_what)
        out.append(
            MemoryResidual(
                publisher=case.publisher or publisher_group(match.publisher),
                label=case.label,
                term=term,
                estimated_gib=float(getattr(e.memory, term)),
                published_gib=match.memory_gib,
                verdict=e.memory_verdict.value,
            )
        )
    return out


def _weighted_quantile(residuals: Sequence[MemoryResidual], q: float) -> float:
    """The ``q`` quantile of |ln error| with each publisher's rows sharing one publisher's weight."""
    if not residuals:
        return 0.0
    count: dict[str, int] = defaultdict(int)
    for r in residuals:
        count[r.publisher] += 1
    weighted = sorted((abs(r.log_error), 1.0 / (count[r.publisher] * len(count))) for r in residuals)
    total = 0.0
    for value, weight in weighted:
        total += weight
        if total >= q - 1e-12:
            return value
    return weighted[-1][0]


def _factor(residuals: Sequence[MemoryResidual]) -> float:
    return max(MIN_BAND, math.exp(_weighted_quantile(residuals, BAND_COVERAGE)))


def _inside(r: MemoryResidual, factor: float) -> bool:
    return abs(r.log_error) <= math.log(factor) + 1e-12


def grouped_memory_band(residuals: Sequence[MemoryResidual]) -> MemoryBand:
    """The band of ``residuals`` and its coverage, in sample and leave-one-publisher-out."""
    factor = _factor(residuals)
    by_pub: dict[str, list[MemoryResidual]] = defaultdict(list)
    for r in residuals:
        by_pub[r.publisher].append(r)
    per: list[tuple[str, int, float, float | None, float | None]] = []
    held_in = held_n = 0
    for pub, mine in sorted(by_pub.items()):
        others = [r for r in residuals if r.publisher != pub]
        errs = [100.0 * abs(math.exp(r.log_error) - 1.0) for r in mine]
        if not others:
            per.append((pub, len(mine), statistics.median(errs), None, None))
            continue
        band = _factor(others)
        inside = sum(_inside(r, band) for r in mine)
        held_in, held_n = held_in + inside, held_n + len(mine)
        per.append((pub, len(mine), statistics.median(errs), band, inside / len(mine)))
    n = len(residuals)
    return MemoryBand(
        factor=factor,
        coverage=sum(_inside(r, factor) for r in residuals) / n if n else 0.0,
        heldout_coverage=held_in / held_n if held_n else None,
        per_publisher=tuple(per),
    )
