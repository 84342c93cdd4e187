"""LLM latency as users measure it: per request queueing, TTFT, TPOT and end-to-end; SLOs on any.

- queue: from arrival to the start of service (a batch slot);
- TTFT (time to first token): from arrival to the first output token (queue + prefill);
- TPOT (time per output token): the generation after the first token divided by the tokens after it
  (``vllm bench serve``'s TPOT; one-token outputs have none);
- end-to-end: from arrival to the last token.

An SLO is a percentile of one of them under a threshold, written ``ttft_p95=2s``, ``tpot_p95=80ms``,
``e2e_p99=30s``, ``queue_p50=500ms``. A request dropped or killed never got an answer: it counts as
over every threshold, so a policy that sheds load cannot look faster for it. A request no capacity
could bring under a threshold (on an idle replica, its prompt and output alone take longer) is
counted apart: adding replicas will not fix it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from gpuplan.errors import InputError, NotFoundError
from gpuplan.i18n.messages import N_
from gpuplan.units import split_list

__all__ = [
    "METRICS",
    "PERCENTILES",
    "LatencyStats",
    "Slo",
    "SloOutcome",
    "parse_slos",
    "slo_outcome",
    "stats",
]

METRICS = ("queue", "ttft", "tpot", "e2e")
#: Percentiles every report gives for each metric.
PERCENTILES = (50.0, 90.0, 95.0, 99.0)

_UNITS = {"ms": 1e-3, "s": 1.0, "min": 60.0, "m": 60.0}


@dataclass(frozen=True, kw_only=True)
class Slo:
    """``metric`` at ``percentile`` under ``threshold_s``."""

    metric: str
    percentile: float
    threshold_s: float

    @property
    def name(self) -> str:
        return f"{self.metric}_p{self.percentile:g}"


def _seconds(text: str, item: str) -> float:
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(ms|s|min|m)\s*", text)
    if not m:
        raise InputError.worded(
            N_(
                "--slo {item!r}: write the threshold as a number and one of the units ms, s or min "
                "(m), e.g. 2s, 80ms or 1min"
            ),
            item=item,
        )
    value = float(m.group(1)) * _UNITS[m.group(2)]
    if not (math.isfinite(value) and value > 0):
        raise InputError.worded(N_("--slo {item!r}: the threshold must be a positive time"), item=item)
    return value


def parse_slos(text: str) -> tuple[Slo, ...]:
    """``ttft_p95=2s,tpot_p95=80ms`` → SLOs; one-line errors say what to write."""
    out: list[Slo] = []
    for item in split_list(text):
        key, eq, value = item.partition("=")
        m = re.fullmatch(r"\s*([a-z0-9]+)_p([0-9]+(?:\.[0-9]+)?)\s*", key.lower())
        if not eq or not m:
            raise InputError.worded(
                N_("--slo {item!r}: write METRIC_pN=TIME, e.g. ttft_p95=2s (queue, ttft, tpot or e2e)"),
                item=item,
            )
        metric = m.group(1)
        if metric not in METRICS:
            raise NotFoundError("SLO metric", metric, METRICS)
        pct = float(m.group(2))
        if not 0 < pct < 100:
            raise InputError.worded(N_("--slo {item!r}: the percentile must be between 0 and 100"), item=item)
        out.append(Slo(metric=metric, percentile=pct, threshold_s=_seconds(value, item)))
    if not out:
        raise InputError.worded(N_("--slo is empty; write e.g. ttft_p95=2s,tpot_p95=80ms"))
    names = [s.name for s in out]
    if len(set(names)) != len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise InputError.worded(N_("--slo names {name} twice"), name=twice)
    return tuple(out)


@dataclass(frozen=True, kw_only=True)
class LatencyStats:
    """Percentiles (``PERCENTILES``) and mean of one metric over the requests served, seconds."""

    p50_s: float | None
    p90_s: float | None
    p95_s: float | None
    p99_s: float | None
    mean_s: float | None


def stats(values: np.ndarray) -> LatencyStats:
    v = values[np.isfinite(values)]
    if not len(v):
        return LatencyStats(p50_s=None, p90_s=None, p95_s=None, p99_s=None, mean_s=None)
    # Nearest rank, as the SLO check reads its percentile: one screen had shown an e2e p95 of 8.15 s
    # in the latency table (interpolated) and 8.16 s in the SLO table.
    p = np.percentile(v, PERCENTILES, method="inverted_cdf")
    return LatencyStats(
        p50_s=float(p[0]), p90_s=float(p[1]), p95_s=float(p[2]), p99_s=float(p[3]), mean_s=float(v.mean())
    )


@dataclass(frozen=True, kw_only=True)
class SloOutcome:
    slo: Slo
    achieved_s: float | None
    """The percentile over every request that arrived, dropped ones counted as infinitely late
    (None: more than the percentile's share were dropped)."""
    met: bool
    over_pct: float
    """Requests over the threshold (dropped and killed included), percent."""
    unreachable: int
    """Requests no number of replicas brings under the threshold."""
    unreachable_min_output_tokens: int | None
    """The fewest output tokens among those requests (their output alone is too long)."""


def slo_outcome(slo: Slo, values: np.ndarray, lost: int, best: np.ndarray, output: np.ndarray) -> SloOutcome:
    """``values``: the metric per served request (nan: not defined, e.g. TPOT of one token);
    ``lost``: requests dropped or killed; ``best``: the metric per request on an idle replica."""
    v = values[np.isfinite(values)]
    counted = len(v) + lost
    if counted == 0:
        return SloOutcome(
            slo=slo,
            achieved_s=None,
            met=True,
            over_pct=0.0,
            unreachable=0,
            unreachable_min_output_tokens=None,
        )
    over = int(np.count_nonzero(v > slo.threshold_s)) + lost
    k = math.ceil(slo.percentile / 100.0 * counted) - 1  # nearest-rank percentile
    # None: the percentile falls among the dropped requests.
    achieved = None if k >= len(v) else float(np.partition(v, k)[k])
    impossible = np.isfinite(best) & (best > slo.threshold_s)
    n_bad = int(np.count_nonzero(impossible))
    return SloOutcome(
        slo=slo,
        achieved_s=achieved,
        met=achieved is not None and achieved <= slo.threshold_s,
        over_pct=100.0 * over / counted,
        unreachable=n_bad,
        unreachable_min_output_tokens=int(output[impossible].min()) if n_bad else None,
    )
