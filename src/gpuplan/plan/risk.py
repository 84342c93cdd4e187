"""The chance of missing the deadline: the estimate's time distribution together with spot interruptions.

The estimator's time distribution (``perf/distribution.py``: a two-piece log-normal whose 10th and
90th percentiles are the estimate's low and high figures) gives P(job time > deadline). It keeps a
tail beyond the band's edge: a deadline at ``high`` is missed 10 % of the time, not never.

For spot options, interruptions come on top (``plan/spot.py``; a job without checkpoints restarts
from the beginning): the miss probability is averaged
over the time distribution, P(miss) = E_W[P(miss | W)], with W taken at evenly spaced quantiles.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuplan.perf.distribution import TimeDistribution
from gpuplan.plan.spot import deadline_miss_probability, restart_miss_probability

__all__ = ["SpotMissModel", "TimeDistribution", "deadline_miss", "work_distribution"]

#: Quantiles at which a spot job's time is sampled: midpoints of 64 equal-probability slices.
_SAMPLES = 64


def work_distribution(median_h: float, low_h: float, high_h: float) -> TimeDistribution:
    """The estimator's distribution for a job of ``median_h`` with the 80 % band ``[low_h, high_h]``."""
    low = min(low_h, median_h) if low_h > 0 else median_h
    return TimeDistribution.from_interval(median_h, low, max(high_h, median_h))


@dataclass(frozen=True, kw_only=True)
class SpotMissModel:
    """What ``plan/spot.py`` needs to turn a failure-free time W into a deadline-miss probability."""

    rate_per_hour: float
    """Interruptions per hour of the whole job (all nodes)."""
    stretch: float
    """Checkpoint overhead factor: work W takes W × stretch with checkpoints (1 + C/τ)."""
    lost_per_interruption_h: float
    """Work lost plus restart per interruption, δ = τ/2 + R, h (the restart R alone when
    ``from_scratch``)."""
    from_scratch: bool = False
    """No checkpoints: an interruption restarts the job from the beginning
    (:func:`~gpuplan.plan.spot.restart_miss_probability`)."""


def deadline_miss(
    work: TimeDistribution,
    deadline_h: float,
    *,
    setup_h: float = 0.0,
    spot: SpotMissModel | None = None,
    stretch: float = 1.0,
) -> float:
    """P(the job, set-up included, ends after ``deadline_h``).

    e.g. median 10 h, 90th percentile 12 h, no spot, deadline 12 h: 10 %. With spot, the average over
    64 quantiles of W of the Poisson miss probability for (W + set-up) × stretch. ``stretch``: off
    spot, the checkpoint writes' factor on the work (1 + C/τ): P(W × stretch > deadline − set-up).
    """
    budget_h = deadline_h - setup_h
    if spot is None:
        return work.prob_exceeds(budget_h / stretch) if budget_h > 0 else 1.0
    total = 0.0
    for i in range(_SAMPLES):
        w = work.quantile((i + 0.5) / _SAMPLES)
        stretched = (w + setup_h) * spot.stretch
        if spot.from_scratch:
            total += restart_miss_probability(
                stretched, spot.rate_per_hour, spot.lost_per_interruption_h, deadline_h
            )
            continue
        total += deadline_miss_probability(
            stretched, spot.lost_per_interruption_h, spot.rate_per_hour, deadline_h
        )
    return total / _SAMPLES
