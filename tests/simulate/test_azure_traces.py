"""The Azure LLM inference traces of 2023 through the autoscaling simulation: the books balance,
replicas stay in bounds, every request is served, dropped or still queued, and every loss has a
cause. Both traces, estimator replicas (continuous batching), four kinds of policy, spot included."""

from __future__ import annotations

import numpy as np
import pytest

from azure_traces import CODE, CONV, azure, llama_8b
from gpuplan.hardware import get_gpu
from gpuplan.perf.inference import step_model
from gpuplan.simulate import (
    FleetPrices,
    SimulationSettings,
    Slo,
    parse_policy,
    read_trace_csv,
    replica_from_step,
    simulate_autoscale,
)
from gpuplan.simulate.engines import engine_defaults

PRICES = FleetPrices(
    usd_per_hour={"on_demand": 0.8, "spot": 0.3}, source="test prices", spot_rate_per_hour=0.5
)
POLICIES = (
    "fixed:replicas=4",
    "target:target=0.7,max=10",
    "queue:per_replica=48,max=10,start=2",
    "target:target=0.6,min=2,max=8,spot=0.5,name=hpa-spot",
)


@pytest.fixture(scope="module", params=[CONV, CODE], ids=["conv", "code"])
def result(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    trace = read_trace_csv(azure(request.param))
    gpu = get_gpu("L4")  # a small card: the conversation trace makes the policies drop and queue
    rep = replica_from_step(
        step_model(llama_8b(), gpu),
        engine_defaults(gpu),
        mean_prompt_tokens=float(trace.prompt_tokens.mean()),
        mean_output_tokens=float(trace.output_tokens.mean()),
    )
    slos = (
        Slo(metric="ttft", percentile=95, threshold_s=2.0),
        Slo(metric="e2e", percentile=95, threshold_s=30.0),
    )
    settings = SimulationSettings(slos=slos, seed=4, cold_start_s=183.0, cold_start_source="test")
    return trace, simulate_autoscale(trace, rep, [parse_policy(p) for p in POLICIES], PRICES, settings)


def test_the_traces_are_read_whole(result) -> None:  # type: ignore[no-untyped-def]
    trace, res = result
    assert res.requests == trace.requests in (19_366, 8_819)
    assert 3_400 < res.duration_s < 3_600  # one hour each


def test_cost_is_replica_hours_times_price(result) -> None:  # type: ignore[no-untyped-def]
    _, res = result
    for p in res.policies:
        assert p.cost_usd == pytest.approx(
            sum(h * PRICES.usd_per_hour[k] for k, h in p.replica_hours.items())
        )
        assert p.cost_usd > 0


def test_replicas_stay_within_the_policy_bounds(result) -> None:  # type: ignore[no-untyped-def]
    _, res = result
    for p in res.policies:
        pol = p.policy
        assert pol.min_replicas <= p.start_replicas <= pol.max_replicas
        assert p.max_replicas <= pol.max_replicas
        ready = [r for r in p.timeline.ready if np.isfinite(r)]
        asked = [r for r in p.timeline.replicas if np.isfinite(r)]
        assert all(0 <= r <= pol.max_replicas for r in ready)
        assert all(pol.min_replicas <= r <= pol.max_replicas for r in asked)
        assert all(r <= a + 1e-9 for r, a in zip(ready, asked, strict=True))
        total_h = sum(p.replica_hours.values())
        # billed over the window and its drain: at most one request's service past the end (the
        # longest of these traces' requests is served in well under 10 minutes on an L4)
        assert total_h <= pol.max_replicas * (res.duration_s + 600) / 3600
        if pol.kind == "fixed":
            assert total_h >= pol.max_replicas * res.duration_s / 3600  # the whole window, paid


def test_every_request_is_served_dropped_or_still_queued(result) -> None:  # type: ignore[no-untyped-def]
    _, res = result
    for p in res.policies:
        assert p.served + p.dropped + p.queued_at_end == res.requests


def test_every_loss_has_its_cause(result) -> None:  # type: ignore[no-untyped-def]
    _, res = result
    for p in res.policies:
        c = p.losses.counts
        assert c["cold_start"] + c["at_max"] + c["not_scaled"] + c["spot"] == p.dropped
        assert c["spot"] == p.killed
        # Late requests were served (a dropped one is not also counted late).
        assert c["unreachable"] + c["queueing"] <= p.served
        if p.policy.kind == "fixed":
            assert c["cold_start"] == 0  # a fixed fleet never starts a replica mid-trace (no spot)


def test_latency_figures_are_ordered_and_consistent(result) -> None:  # type: ignore[no-untyped-def]
    _, res = result
    for p in res.policies:
        for m, s in p.latency.items():
            if s.p50_s is None:
                continue
            assert s.p50_s <= s.p90_s <= s.p95_s <= s.p99_s, m
        assert p.latency["e2e"].p50_s >= p.latency["ttft"].p50_s
        assert p.latency_p95_s == p.latency["e2e"].p95_s


def test_the_running_context_weighs_each_request_by_its_answer() -> None:
    # A slot is held for as many iterations as the answer has tokens: Σ o·(p + o/2) / Σ o. Equal
    # lengths give prompt + half the answer; Azure's conversations, whose long answers come with
    # shorter prompts, run below that mean; its code trace, a few long answers, above.
    from gpuplan.simulate.replica import running_context

    assert running_context(np.array([512, 512]), np.array([256, 256])) == pytest.approx(640.0)
    assert running_context(np.array([600, 600]), np.array([20, 580])) == pytest.approx(
        (20 * 610 + 580 * 890) / 600
    )
    for name, low, high in ((CONV, 1_200, 1_240), (CODE, 2_110, 2_150)):
        trace = read_trace_csv(azure(name))
        assert trace.prompt_tokens is not None and trace.output_tokens is not None
        naive = trace.prompt_tokens.mean() + trace.output_tokens.mean() / 2
        ctx = running_context(trace.prompt_tokens, trace.output_tokens)
        assert low < ctx < high
        assert (ctx < naive) == (name == CONV)
