"""The estimate's uncertainty as a distribution: what the planner needs for a deadline-miss
probability, and what the low/high figures are the 10th and 90th percentiles of.

A two-piece log-normal: ``ln(T / median)`` is normal with one spread below the median and
another above it (the calibration's held-out residuals are not symmetric once the slow end of an
assumed network is included). The 80 % interval ``[low, high]`` fixes both spreads:
``σ_below = ln(median / low) / z₀.₉``, ``σ_above = ln(high / median) / z₀.₉`` with
``z₀.₉ = 1.2816`` — so ``quantile(0.1) == low`` and ``quantile(0.9) == high`` exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

from gpuplan.errors import EstimateError
from gpuplan.i18n import N_

__all__ = ["Z80", "TimeDistribution"]

_STD = NormalDist()
#: The standard normal's 90th percentile: an 80 % central interval is median × exp(±Z80·σ).
Z80 = _STD.inv_cdf(0.9)


@dataclass(frozen=True, kw_only=True)
class TimeDistribution:
    """A duration's distribution (any unit; the owner says which)."""

    median: float
    sigma_below: float
    """Log-scale spread below the median."""
    sigma_above: float
    """Log-scale spread above the median."""

    @classmethod
    def from_interval(cls, median: float, low: float, high: float) -> TimeDistribution:
        """The distribution whose 10th/90th percentiles are ``low``/``high``."""
        if not 0 < low <= median <= high:
            raise EstimateError.worded(
                N_("an 80 % interval needs 0 < low ≤ median ≤ high (got {low}, {median}, {high})"),
                low=low,
                median=median,
                high=high,
            )
        return cls(
            median=median,
            sigma_below=math.log(median / low) / Z80,
            sigma_above=math.log(high / median) / Z80,
        )

    def scaled(self, factor: float) -> TimeDistribution:
        """The same distribution in another unit (or for a proportional quantity)."""
        return TimeDistribution(
            median=self.median * factor, sigma_below=self.sigma_below, sigma_above=self.sigma_above
        )

    def quantile(self, p: float) -> float:
        """The ``p``-quantile (0 < p < 1)."""
        if not 0.0 < p < 1.0:
            raise EstimateError.worded(N_("a quantile needs 0 < p < 1 (got {p})"), p=p)
        z = _STD.inv_cdf(p)
        sigma = self.sigma_below if z < 0 else self.sigma_above
        return self.median * math.exp(z * sigma)

    def prob_exceeds(self, t: float) -> float:
        """P(duration > ``t``)."""
        if t <= 0:
            return 1.0
        x = math.log(t / self.median)
        sigma = self.sigma_below if x < 0 else self.sigma_above
        if sigma == 0.0:
            return 0.0 if x >= 0 else 1.0
        return 1.0 - _STD.cdf(x / sigma)
