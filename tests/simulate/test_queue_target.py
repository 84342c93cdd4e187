"""``queue`` without ``per_replica``: the requests in flight on a replica at the utilisation plans
size fleets for of the smaller of its capacity and the estimate's (Little's law), as deploy writes
it from a plan or a workload file."""

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


PROMPTS, OUTPUTS = np.array([512]), np.array([200])


def test_queue_without_per_replica_holds_what_a_replica_has_in_flight_at_the_planned_load() -> None:
    # was: slots × 0.8 = 12.8, which with continuous batching fills only near the replica's capacity
    p = parse_policy("queue:max=6")
    assert p.per_replica is None
    # W(n) = 512 / 8000 + 199 × (0.012 + 0.018 × (n − 1) / 15) = 2.2132 + 0.2388 n s on the replica
    # capacity = 16 / W(16) = 16 / 6.034 = 2.6517 req/s; at 80 %: λ = 2.1213 req/s
    # n = λ · W(n)  ⇒  n = 2.2132 λ / (1 − 0.2388 λ) = 9.515
    load = 16 / (512 / 8000 + 199 * 0.030) * TARGET_UTILISATION
    expected = 2.2132 * load / (1 - 0.2388 * load)
    assert expected == pytest.approx(9.515, abs=1e-3)
    assert queue_target(p, REPLICA, PROMPTS, OUTPUTS).per_replica == pytest.approx(expected, rel=1e-6)
    assert expected < 16 * TARGET_UTILISATION
    own = parse_policy("queue:per_replica=12,max=6")
    assert queue_target(own, REPLICA, PROMPTS, OUTPUTS) is own
    other = parse_policy("target:target=0.7")
    assert queue_target(other, REPLICA, PROMPTS, OUTPUTS) is other


def test_a_load_past_the_slots_holds_the_slots() -> None:
    from gpuplan.simulate.in_flight import in_flight

    held = in_flight(REPLICA, 100.0, PROMPTS, OUTPUTS)
    assert held.full and held.in_flight == REPLICA.slots
    light = in_flight(REPLICA, 0.1, PROMPTS, OUTPUTS)
    # one request alone: 0.064 + 199 × 0.012 = 2.452 s; 0.1 × 2.452 = 0.245 (n < 1: tpot at 1)
    assert not light.full and light.in_flight == pytest.approx(0.2452, abs=1e-6)
    assert light.time_in_replica_s == pytest.approx(2.452)


def test_queue_per_replica_still_refused_at_zero() -> None:
    with pytest.raises(InputError, match="per_replica=N > 0"):
        parse_policy("queue:per_replica=0")


def test_simulation_runs_queue_at_what_its_replica_holds_at_the_planned_load() -> None:
    trace = diurnal_trace(
        Shape(mean_requests_per_s=3.0, duration_s=2 * 3600, seed=3, prompt_tokens=512, output_tokens=200)
    )
    assert trace.prompt_tokens is not None and trace.output_tokens is not None
    target = queue_target(parse_policy("queue:max=6"), REPLICA, trace.prompt_tokens, trace.output_tokens)
    assert target.per_replica is not None
    res = simulate_autoscale(
        trace,
        REPLICA,
        [
            parse_policy("queue:max=6"),
            parse_policy(f"queue:per_replica={target.per_replica!r},max=6,name=given"),
            parse_policy("queue:per_replica=12.8,max=6,name=slots"),
        ],
        FleetPrices(usd_per_hour={"on_demand": 3.0}, source="t"),
    )
    derived, given, slots = res.policies
    assert derived.policy.per_replica == pytest.approx(target.per_replica)
    # the same threshold written out scales the same
    assert derived.replica_hours == given.replica_hours
    # slots × 0.8 held more in flight per replica: fewer replicas
    assert sum(slots.replica_hours.values()) < sum(derived.replica_hours.values())


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
    said = _behaviour(res.policies[0])
    assert "in flight (running and waiting), 9.5 per replica" in said
    # 80 % of 2.674 req/s, the replica's capacity on this trace's lengths (drawn to plan's p95 lengths)
    assert "9.5 is what one replica holds in flight at 2.14 requests/s (Little's law" in said
    # no estimate given (a --replica): the simulated replica's capacity alone, said so, and no claim
    # that deploy writes the same
    assert (
        "the serving simulation's replica carries 2.674 requests/s at full load (gpuplan's estimate" in said
    )
    assert "deploy writes the same" not in said


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


def test_queue_takes_the_smaller_of_the_estimates_capacity_and_the_replicas() -> None:
    # was: the simulated replica's capacity alone (2.65 req/s here), where deploy from a plan took the
    # estimate's: a service planned at 2.0 req/s a replica was replayed at 2.12 and held more in flight
    p = parse_policy("queue:max=6")
    smaller = queue_target(p, REPLICA, PROMPTS, OUTPUTS, estimate_capacity_requests_per_s=2.0)
    assert smaller.replica_load is not None and smaller.replica_load.basis == "estimate"
    assert smaller.replica_load.requests_per_s == pytest.approx(2.0 * TARGET_UTILISATION)
    # n = 2.2132 λ / (1 − 0.2388 λ) at λ = 1.6: 4.2475
    assert smaller.per_replica == pytest.approx(2.2132 * 1.6 / (1 - 0.2388 * 1.6), abs=2e-3)
    larger = queue_target(p, REPLICA, PROMPTS, OUTPUTS, estimate_capacity_requests_per_s=9.0)
    assert larger.replica_load is not None and larger.replica_load.basis == "simulation"
    assert larger.per_replica == pytest.approx(queue_target(p, REPLICA, PROMPTS, OUTPUTS).per_replica)


def test_a_latency_share_below_the_headroom_lowers_the_load() -> None:
    from gpuplan.perf.replica_load import replica_load

    load = replica_load(
        estimate_capacity_requests_per_s=10.0, simulation_capacity_requests_per_s=12.0, latency_share=0.5
    )
    assert (load.basis, load.requests_per_s, load.share) == ("latency", 5.0, 0.5)
    # a share above what the smaller capacity at the headroom gives changes nothing
    loose = replica_load(
        estimate_capacity_requests_per_s=10.0, simulation_capacity_requests_per_s=6.0, latency_share=0.7
    )
    assert (loose.basis, loose.requests_per_s) == ("simulation", pytest.approx(4.8))
