"""SLOs on any latency a user measures, written the way they say them, and read honestly."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gpuplan.errors import GpuplanError
from gpuplan.simulate.latency import Slo, parse_slos, slo_outcome, stats


def test_slos_parse_with_units() -> None:
    slos = parse_slos("ttft_p95=2s, tpot_p95=80ms,e2e_p99=1.5min,queue_p50=500ms")
    assert [(s.metric, s.percentile, s.threshold_s) for s in slos] == [
        ("ttft", 95.0, 2.0),
        ("tpot", 95.0, 0.08),
        ("e2e", 99.0, 90.0),
        ("queue", 50.0, 0.5),
    ]
    assert slos[0].name == "ttft_p95"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("ttft_p95=2", "unit"),
        ("ttfb_p95=2s", "did you mean 'ttft'"),
        ("ttft=2s", "METRIC_pN"),
        ("ttft_p100=2s", "between 0 and 100"),
        ("ttft_p95=0s", "positive"),
        ("ttft_p95=2s,ttft_p95=3s", "twice"),
        ("", "empty"),
    ],
)
def test_a_bad_slo_is_one_line(text: str, words: str) -> None:
    with pytest.raises(GpuplanError) as e:
        parse_slos(text)
    assert words in str(e.value) and "\n" not in str(e.value)


def test_dropped_requests_count_as_late_and_the_unreachable_are_named() -> None:
    slo = Slo(metric="e2e", percentile=90, threshold_s=10.0)
    served = np.array([1.0, 2.0, 3.0, 4.0, 20.0, 5.0, 6.0, 7.0])
    best = np.array([1.0, 1.0, 1.0, 1.0, 12.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    output = np.array([10, 10, 10, 10, 900, 10, 10, 10, 10, 10])
    o = slo_outcome(slo, served, lost=2, best=best, output=output)
    # 10 requests counted; 1 served late and 2 dropped: 30 % over. The 90th percentile (the 9th
    # of 10 by nearest rank) falls among the dropped ones, so no figure is claimed.
    assert o.over_pct == pytest.approx(30.0)
    assert o.achieved_s is None and not o.met
    assert o.unreachable == 1 and o.unreachable_min_output_tokens == 900
    ok = slo_outcome(slo, served[:4], lost=0, best=best[:4], output=output[:4])
    assert ok.met and ok.achieved_s == 4.0 and ok.over_pct == 0.0


def test_stats_ignore_undefined_values() -> None:
    s = stats(np.array([1.0, math.nan, 3.0]))
    assert s.p50_s == 1.0 and s.mean_s == 2.0  # nearest rank: a value some request took
    assert stats(np.array([math.nan])).p95_s is None


def test_the_latency_table_and_the_slo_check_read_a_percentile_alike() -> None:
    # The latency table had interpolated (8.15 s) where the SLO check took the nearest rank (8.16 s).
    values = np.linspace(1.0, 10.0, 37)
    (slo,) = parse_slos("e2e_p95=100s")
    check = slo_outcome(slo, values, 0, np.zeros_like(values), np.ones_like(values))
    assert stats(values).p95_s == check.achieved_s
