"""The chance of missing the deadline: the estimate's time distribution together with spot interruptions.

The estimator gives each configuration a point estimate with a low/high band. Until it publishes a
distribution of its own, the planner reads the band as a split log-normal: the point estimate is the
median, ``low`` and ``high`` are the 5th and 95th percentiles (ASSUMPTION, stated in every plan), so
each side has its own spread, σ = ln(edge / median) / 1.645. Unlike a triangle, this keeps a tail
beyond the band's edge: a deadline just past ``high`` is missed about 5 % of the time, not never.

For spot options, interruptions come on top (``plan/spot.py``): the miss probability is averaged
over the time distribution, P(miss) = E_W[P(miss | W)], with W taken at evenly spaced quantiles.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

from gpuplan.plan.spot import deadline_miss_probability

__all__ = ["BAND_PERCENTILE", "SpotMissModel", "TimeDistribution", "deadline_miss"]

#: The band's edges are read as these percentiles (5th and 95th). ASSUMPTION, see the module docstring.
BAND_PERCENTILE = 0.05
_Z = NormalDist().inv_cdf(1.0 - BAND_PERCENTILE)  # 1.6449
#: Quantiles at which a spot job's time is sampled: midpoints of 64 equal-probability slices.
_SAMPLES = 64


@dataclass(frozen=True, kw_only=True)
class TimeDistribution:
    """Failure-free job time, h, as a split log-normal around ``median_h``."""

    median_h: float
    low_h: float
    """5th percentile."""
    high_h: float
    """95th percentile."""

    def _sigma(self, upper: bool) -> float:
        edge = self.high_h if upper else self.low_h
        if not (edge > 0 and self.median_h > 0):
            return 0.0
        return abs(math.log(edge / self.median_h)) / _Z

    def prob_exceeds(self, hours: float) -> float:
        """P(T > ``hours``)."""
        if self.median_h <= 0 or not math.isfinite(self.median_h):
            return 1.0
        if hours <= 0:
            return 1.0
        x = math.log(hours / self.median_h)
        sigma = self._sigma(upper=x > 0)
        if sigma == 0.0:
            return 1.0 if x < 0 else 0.0
        return 1.0 - NormalDist().cdf(x / sigma)

    def quantile(self, p: float) -> float:
        """The time not exceeded with probability ``p`` (0 < p < 1)."""
        z = NormalDist().inv_cdf(p)
        return self.median_h * math.exp(z * self._sigma(upper=z > 0))


@dataclass(frozen=True, kw_only=True)
class SpotMissModel:
    """What ``plan/spot.py`` needs to turn a failure-free time W into a deadline-miss probability."""

    rate_per_hour: float
    """Interruptions per hour of the whole job (all nodes)."""
    stretch: float
    """Checkpoint overhead factor: work W takes W × stretch with checkpoints (1 + C/τ)."""
    lost_per_interruption_h: float
    """Work lost plus restart per interruption, δ = τ/2 + R, h."""


def deadline_miss(
    work: TimeDistribution, deadline_h: float, *, setup_h: float = 0.0, spot: SpotMissModel | None = None
) -> float:
    """P(the job, set-up included, ends after ``deadline_h``).

    e.g. median 10 h, 95th percentile 12 h, no spot, deadline 12 h: 5 %. With spot, the average over
    64 quantiles of W of the Poisson miss probability for (W + set-up) × stretch.
    """
    budget_h = deadline_h - setup_h
    if spot is None:
        return work.prob_exceeds(budget_h) if budget_h > 0 else 1.0
    total = 0.0
    for i in range(_SAMPLES):
        w = work.quantile((i + 0.5) / _SAMPLES)
        stretched = (w + setup_h) * spot.stretch
        total += deadline_miss_probability(
            stretched, spot.lost_per_interruption_h, spot.rate_per_hour, deadline_h
        )
    return total / _SAMPLES
