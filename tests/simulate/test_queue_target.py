"""``queue`` without ``per_replica``: requests in flight per replica at the replica's batch slots ×
the utilisation plans size fleets for."""

from __future__ import annotations

import numpy as np
import pytest

from gpuplan.errors import InputError
from gpuplan.perf.inference import TARGET_UTILISATION
from gpuplan.simulate import FleetPrices, ReplicaModel, Shape, diurnal_trace, parse_policy, simulate_autoscale
from gpuplan.simulate.engine import EngineConfig, run_engine
from gpuplan.simulate.policy import queue_target

REPLICA = ReplicaModel(
    gpu="A100-SXM4-80GB",
    slots=16,
    prefill_tokens_per_s=8000.0,
    time_per_output_token_s=0.03,
    time_per_output_token_1_s=0.012,
    source="given",
)


def test_queue_without_per_replica_takes_the_slots_at_the_planned_utilisation() -> None:
    p = parse_policy("queue:max=6")
    assert p.per_replica is None
    assert queue_target(p, 83).per_replica == pytest.approx(83 * TARGET_UTILISATION)
    own = parse_policy("queue:per_replica=12,max=6")
    assert queue_target(own, 83) is own
    other = parse_policy("target:target=0.7")
    assert queue_target(other, 83) is other


def test_queue_per_replica_still_refused_at_zero() -> None:
    with pytest.raises(InputError, match="per_replica=N > 0"):
        parse_policy("queue:per_replica=0")


def test_simulation_runs_queue_at_the_replicas_slots() -> None:
    trace = diurnal_trace(
        Shape(mean_requests_per_s=2.0, duration_s=2 * 3600, seed=3, prompt_tokens=512, output_tokens=200)
    )
    res = simulate_autoscale(
        trace,
        REPLICA,
        [parse_policy("queue:max=6"), parse_policy("queue:per_replica=12.8,max=6,name=given")],
        FleetPrices(usd_per_hour={"on_demand": 3.0}, source="t"),
    )
    derived, given = res.policies
    assert derived.policy.per_replica == pytest.approx(16 * TARGET_UTILISATION)
    # the same threshold written out scales the same
    assert derived.replica_hours == given.replica_hours


def test_report_says_what_queue_scales_on() -> None:
    from gpuplan.report.autoscale import _behaviour

    trace = diurnal_trace(
        Shape(mean_requests_per_s=1.0, duration_s=3600, seed=3, prompt_tokens=512, output_tokens=200)
    )
    res = simulate_autoscale(
        trace,
        REPLICA,
        [parse_policy("queue:max=4")],
        FleetPrices(usd_per_hour={"on_demand": 3.0}, source="t"),
    )
    assert "in flight (running and waiting), 12.8 per replica" in _behaviour(res.policies[0])


def test_queue_scales_as_the_hpa_deploy_writes_within_its_tolerance() -> None:
    # ~10.4 requests in flight on one replica held at 10.4: 10 or 11 at any moment, within the
    # HPA's 10 % tolerance, so it keeps one replica (the bare rule, ceil(11 / 10.4) = 2, had added one)
    arrivals = np.arange(0.0, 1200.0, 1 / 10.4)
    cfg = EngineConfig(slots=64, horizon_s=1200.0)
    run = run_engine(arrivals, np.full(len(arrivals), 1.0), parse_policy("queue:per_replica=10.4,max=4"), cfg)
    assert set(run.tick_replicas) == {1}


def test_a_burst_scales_up_as_fast_as_the_hpa_allows() -> None:
    # 50 requests of 600 s at once, one in flight per replica wanted: the HPA adds at most 4 pods or
    # 100 % per decision, replicas still starting counted at 0 in flight (it had asked 50 at once)

    burst, trickle = np.linspace(0.0, 1.0, 50), np.arange(2.0, 1200.0, 30.0)  # the trickle keeps time going
    service = np.concatenate([np.full(50, 600.0), np.full(len(trickle), 0.5)])
    run = run_engine(
        np.concatenate([burst, trickle]),
        service,
        parse_policy("queue:per_replica=1,max=60,startup=120"),
        EngineConfig(slots=64, horizon_s=1200.0),
    )
    sizes = [n for i, n in enumerate(run.tick_replicas) if i == 0 or n != run.tick_replicas[i - 1]]
    assert sizes[:6] == [1, 5, 10, 20, 40, 50]


def test_the_hpa_reads_the_engines_count_a_scrape_late() -> None:
    # The PodMonitor deploy writes scrapes the engine every 15 s: the HPA acts on a count up to 15 s
    # old, so a burst is seen one decision later than the count of the moment would have it.
    burst, trickle = np.linspace(100.0, 101.0, 50), np.arange(2.0, 1200.0, 30.0)
    arrivals = np.sort(np.concatenate([burst, trickle]))
    service = np.full(len(arrivals), 300.0)

    def first_scale_up(policy: str) -> int:
        run = run_engine(arrivals, service, parse_policy(policy), EngineConfig(slots=64, horizon_s=1200.0))
        return next(i for i, n in enumerate(run.tick_replicas) if n > 1)

    at_once = first_scale_up("queue:per_replica=4,max=20,delay=0")
    assert parse_policy("queue:per_replica=4").delay_s == 15.0  # the default: one scrape interval
    assert first_scale_up("queue:per_replica=4,max=20") == at_once + 1
    assert first_scale_up("queue:per_replica=4,max=20,delay=45") == at_once + 3


def test_the_report_says_how_late_the_count_is_read() -> None:
    from gpuplan.report.autoscale import _behaviour

    trace = diurnal_trace(
        Shape(mean_requests_per_s=1.0, duration_s=3600, seed=3, prompt_tokens=512, output_tokens=200)
    )
    prices = FleetPrices(usd_per_hour={"on_demand": 3.0}, source="t")
    res = simulate_autoscale(trace, REPLICA, [parse_policy("queue:max=4")], prices)
    words = " ".join(_behaviour(res.policies[0]).split())
    assert "the count read 15 s late (Prometheus scrapes the engine every 15 s)" in words
