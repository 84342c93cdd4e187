"""A generated trace draws its requests' lengths from the p95 lengths ``plan`` checks its p95 latency
at (the workload's ``*_tokens_p95``, else the mean × the published Azure ratios), and the report sets
each policy's simulated p95 beside the plan's in the direction the two figures have. Before, the
lengths were log-normal with σ 0.5 (a p95 of 2.0 × the mean, not the plan's 3.228 ×): a 1.3B service
on one L4 read p95 5.63 s in simulate and 10.3 s in plan, and the report said its p95 latencies were
longer than the plan's."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from gpuplan.errors import InputError
from gpuplan.perf.request_tail import MOST_P95_OVER_MEAN, length_distribution, request_tail
from gpuplan.report.autoscale import _against_plan_lines
from gpuplan.simulate import Shape, SimulationSettings, diurnal_trace, simulate_autoscale
from gpuplan.simulate.autoscale import FleetPrices
from gpuplan.simulate.inputs import parse_replica
from gpuplan.simulate.policy import parse_policy


def _shape(**p95: int) -> Shape:
    return Shape(peak_requests_per_s=1.0, duration_s=6 * 3600, prompt_tokens=64, output_tokens=200, **p95)


def test_a_shapes_p95_answer_is_the_one_the_plan_checks() -> None:
    trace = diurnal_trace(_shape())
    assert trace.prompt_tokens is not None and trace.output_tokens is not None
    tail = request_tail(prompt_tokens=64, output_tokens=200)  # what plan takes: 646 and 229 tokens
    for drawn, mean, p95 in (
        (trace.output_tokens, 200, tail.output_tokens),
        (trace.prompt_tokens, 64, tail.prompt_tokens),
    ):
        assert float(np.mean(drawn)) == pytest.approx(mean, rel=0.04)
        assert float(np.percentile(drawn, 95)) == pytest.approx(p95, rel=0.05)


def test_a_stated_p95_is_drawn_to_and_one_no_log_normal_holds_is_refused() -> None:
    trace = diurnal_trace(_shape(output_tokens_p95=300))
    assert trace.output_tokens is not None
    assert float(np.percentile(trace.output_tokens, 95)) == pytest.approx(300, rel=0.05)
    even = diurnal_trace(_shape(output_tokens_p95=200))  # a p95 at the mean: every answer the mean
    assert even.output_tokens is not None and set(even.output_tokens.tolist()) == {200}
    with pytest.raises(InputError, match="output_tokens_p95 of 900"):
        diurnal_trace(_shape(output_tokens_p95=900))  # 4.5 × the mean
    assert length_distribution(200, 802) is not None and 4.0 < MOST_P95_OVER_MEAN < 4.1


def _result() -> object:
    trace = diurnal_trace(replace(_shape(), duration_s=3600.0))
    replica = parse_replica("slots=64,tpot_ms=10,prefill_tps=20000", "L4")
    prices = FleetPrices(usd_per_hour={"on_demand": 1.0}, source="given")
    return simulate_autoscale(
        trace, replica, [parse_policy("fixed:replicas=1")], prices, SimulationSettings()
    )


def test_the_sentence_beside_the_plan_follows_the_figures() -> None:
    res = _result()
    p95 = res.policies[0].latency_p95_s  # type: ignore[attr-defined]
    assert p95 is not None
    words = {
        "longer": _against_plan_lines(replace(res, plan_p95_latency_s={"fixed:replicas=1": p95 / 2})),  # type: ignore[type-var]
        "shorter": _against_plan_lines(replace(res, plan_p95_latency_s={"fixed:replicas=1": p95 * 2})),  # type: ignore[type-var]
        "same": _against_plan_lines(replace(res, plan_p95_latency_s={"fixed:replicas=1": p95})),  # type: ignore[type-var]
    }
    assert "is longer than the plan's" in words["longer"][0]
    assert "is shorter than the plan's" in words["shorter"][0]
    assert "is the plan's" in words["same"][0]
    assert _against_plan_lines(res) == []  # type: ignore[arg-type]
