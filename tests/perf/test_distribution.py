"""The estimate's time distribution: the 80 % interval is its 10th–90th percentile range."""

from __future__ import annotations

import pytest
from perf_helpers import make_profile, op

from gpuplan.errors import EstimateError
from gpuplan.hardware import get_gpu
from gpuplan.perf.distribution import TimeDistribution
from gpuplan.perf.estimate import JobSize, estimate


def test_interval_edges_are_the_10th_and_90th_percentiles() -> None:
    d = TimeDistribution.from_interval(10.0, 8.0, 15.0)
    assert d.quantile(0.1) == pytest.approx(8.0)
    assert d.quantile(0.9) == pytest.approx(15.0)
    assert d.quantile(0.5) == pytest.approx(10.0)
    assert d.prob_exceeds(15.0) == pytest.approx(0.1)
    assert d.prob_exceeds(8.0) == pytest.approx(0.9)
    assert d.prob_exceeds(10.0) == pytest.approx(0.5)
    # Asymmetric: the slow side is wider (ln 1.5 > ln 1.25).
    assert d.sigma_above > d.sigma_below


def test_bad_interval_or_probability_is_one_clear_error() -> None:
    with pytest.raises(EstimateError, match="low ≤ median ≤ high"):
        TimeDistribution.from_interval(10.0, 12.0, 15.0)
    with pytest.raises(EstimateError, match="0 < p < 1"):
        TimeDistribution.from_interval(10.0, 8.0, 15.0).quantile(1.0)


def test_estimate_gives_job_time_quantiles_and_deadline_miss_probability() -> None:
    prof = make_profile(ops=(op("forward", flops=1e12), op("backward", flops=2e12)))
    e = estimate(prof, get_gpu("A100-SXM4-80GB"), job=JobSize(samples=8e5))
    assert e.job_time_h is not None and e.job_time_h_low is not None and e.job_time_h_high is not None
    assert e.time_quantile(0.1) == pytest.approx(e.job_time_h_low)
    assert e.time_quantile(0.9) == pytest.approx(e.job_time_h_high)
    assert e.prob_time_exceeds(e.job_time_h_high) == pytest.approx(0.1)
    assert e.prob_time_exceeds(e.job_time_h) == pytest.approx(0.5)
    # Without a job size it is the step time, in seconds.
    step = estimate(prof, get_gpu("A100-SXM4-80GB"))
    assert step.time_quantile(0.9) == pytest.approx(step.step_time_s_high)
