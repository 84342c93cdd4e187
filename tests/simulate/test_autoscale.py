"""The autoscaling simulator keeps its books and matches queueing theory where theory applies."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gpuplan.errors import InputError
from gpuplan.simulate import (
    FleetPrices,
    ReplicaModel,
    Shape,
    SimulationSettings,
    Slo,
    Trace,
    diurnal_trace,
    parse_policy,
    simulate_autoscale,
    step_trace,
)
from gpuplan.simulate.engine import STATUS_KILLED, STATUS_SERVED, EngineConfig, run_engine


def E2E(threshold_s: float) -> Slo:
    return Slo(metric="e2e", percentile=95, threshold_s=threshold_s)


PRICES = FleetPrices(usd_per_hour={"on_demand": 3.0, "spot": 1.2}, source="test prices")
REPLICA = ReplicaModel(
    gpu="A100-SXM4-80GB",
    slots=16,
    prefill_tokens_per_s=8000.0,
    time_per_output_token_s=0.03,
    time_per_output_token_1_s=0.012,
    source="given",
)


def _diurnal(rate: float = 2.0, hours: float = 6.0, seed: int = 3) -> Trace:
    return diurnal_trace(
        Shape(
            mean_requests_per_s=rate, duration_s=hours * 3600, seed=seed, prompt_tokens=512, output_tokens=200
        )
    )


POLICIES = [
    "fixed:replicas=3",
    "target:target=0.7,min=1,max=6",
    "queue:per_replica=12,max=6",
    "scheduled:at=0h@1/3h@3",
    "target:target=0.6,min=2,max=6,spot=0.5,name=hpa-spot",
]


@pytest.fixture(scope="module")
def result():
    return simulate_autoscale(
        _diurnal(),
        REPLICA,
        [parse_policy(p) for p in POLICIES],
        FleetPrices(usd_per_hour=PRICES.usd_per_hour, source="t", spot_rate_per_hour=0.5),
        SimulationSettings(slos=(E2E(12.0),), seed=1),
    )


def test_cost_equals_replica_hours_times_price(result) -> None:
    for p in result.policies:
        assert p.cost_usd == pytest.approx(
            sum(h * PRICES.usd_per_hour[k] for k, h in p.replica_hours.items())
        )
        assert p.cost_usd > 0


def test_every_request_is_served_dropped_or_still_queued(result) -> None:
    for p in result.policies:
        assert p.served + p.dropped + p.queued_at_end == result.requests


def test_replica_hours_never_exceed_max_replicas_over_the_window(result) -> None:
    hours = result.duration_s / 3600
    for p, spec in zip(result.policies, POLICIES, strict=True):
        pol = parse_policy(spec)
        assert p.max_replicas <= pol.max_replicas
        # Draining replicas are billed past their decision, so allow one replica's drain.
        assert sum(p.replica_hours.values()) <= pol.max_replicas * hours + 1.0


def test_replicas_stay_within_min_and_max_at_every_decision() -> None:
    tr = _diurnal()
    work = REPLICA.work(tr.prompt_tokens, tr.output_tokens)
    for spec in POLICIES[:4]:
        pol = parse_policy(spec)
        run = run_engine(tr.arrival_s, work, pol, EngineConfig(slots=REPLICA.slots, horizon_s=tr.duration_s))
        assert min(run.tick_replicas) >= pol.min_replicas
        assert max(run.tick_replicas) <= pol.max_replicas


def test_spot_replicas_are_interrupted_and_replaced(result) -> None:
    spot = result.policies[-1]
    assert spot.interruptions > 0
    assert spot.replica_hours["spot"] > 0
    # Interrupted replicas are replaced: the fleet keeps serving nearly everything.
    assert spot.served / result.requests > 0.95


def test_same_seed_same_result_and_another_seed_differs() -> None:
    pol = [parse_policy("target:target=0.6,max=6,spot=1")]
    prices = FleetPrices(usd_per_hour=PRICES.usd_per_hour, source="t", spot_rate_per_hour=1.0)
    a = simulate_autoscale(_diurnal(), REPLICA, pol, prices, SimulationSettings(seed=5)).policies[0]
    b = simulate_autoscale(_diurnal(), REPLICA, pol, prices, SimulationSettings(seed=5)).policies[0]
    c = simulate_autoscale(_diurnal(), REPLICA, pol, prices, SimulationSettings(seed=6)).policies[0]
    assert (a.cost_usd, a.interruptions, a.dropped) == (b.cost_usd, b.interruptions, b.dropped)
    assert (a.cost_usd, a.interruptions) != (c.cost_usd, c.interruptions)


def test_waiting_time_matches_erlang_c_for_a_fixed_fleet() -> None:
    # M/M/c with c = 2 replicas × 2 slots, service 1 s (mean), λ = 3.2/s: ρ = 0.8.
    rng = np.random.default_rng(0)
    n, lam, c = 200_000, 3.2, 4
    arrival = np.cumsum(rng.exponential(1 / lam, n))
    service = rng.exponential(1.0, n)
    run = run_engine(
        arrival,
        service,
        parse_policy("fixed:replicas=2"),
        EngineConfig(slots=2, horizon_s=float(arrival[-1]) + 1, timeout_s=1e9),
    )
    served = run.status == STATUS_SERVED
    wait = (run.start_s - arrival)[served]
    a = lam  # offered load in erlangs (μ = 1)
    p0_terms = sum(a**k / math.factorial(k) for k in range(c))
    erlang_c = (a**c / math.factorial(c) * c / (c - a)) / (p0_terms + a**c / math.factorial(c) * c / (c - a))
    expected_wait = erlang_c / (c - a)  # = 1.4937 s for c=4, a=3.2
    assert wait.mean() == pytest.approx(expected_wait, rel=0.06)


def test_light_load_waits_for_nothing() -> None:
    tr = _diurnal(rate=0.2, hours=2)
    res = simulate_autoscale(tr, REPLICA, [parse_policy("fixed:replicas=2")], PRICES).policies[0]
    # One request at a time on a replica: every step is the single-sequence step (its drawn
    # lengths have the long tail plan takes, so the load is light enough that they seldom overlap).
    svc = REPLICA.service_s(tr.prompt_tokens, tr.output_tokens, running=1)
    assert res.latency_p50_s == pytest.approx(float(np.percentile(svc, 50)), rel=0.02)
    assert res.dropped == 0


def test_overload_drops_requests_after_the_timeout() -> None:
    tr = _diurnal(rate=12.0, hours=1)
    res = simulate_autoscale(
        tr,
        REPLICA,
        [parse_policy("fixed:replicas=1")],
        PRICES,
        SimulationSettings(timeout_s=30, slos=(E2E(10),)),
    ).policies[0]
    assert res.dropped > 0
    assert res.served + res.dropped + res.queued_at_end == tr.requests
    assert res.slo_miss_pct is not None and res.slo_miss_pct > 50
    # Its cost per token counts the tokens it served only: said beside it, or dropping would look cheap.
    from gpuplan.i18n import Money
    from gpuplan.report.autoscale import _per_million

    line = _per_million(res, Money.usd())
    assert f"It dropped {res.dropped:,} of {res.served + res.dropped:,} requests" in line, line


def test_target_policy_scales_up_after_a_step_once_replicas_are_ready() -> None:
    tr = step_trace(
        Shape(mean_requests_per_s=2.0, duration_s=7200, seed=1, prompt_tokens=256, output_tokens=128),
        factor=4,
    )
    pol = parse_policy("target:target=0.7,max=10,startup=120")
    run = run_engine(
        tr.arrival_s,
        REPLICA.work(tr.prompt_tokens, tr.output_tokens),
        pol,
        EngineConfig(slots=REPLICA.slots, horizon_s=tr.duration_s),
    )
    ticks = np.asarray(run.tick_s)
    reps = np.asarray(run.tick_replicas)
    before, after = reps[ticks < 3500].max(), reps[ticks > 4500].max()
    assert after > before
    ready = np.asarray(run.tick_ready)
    # A replica launched at a decision is counted at once but ready only 120 s later.
    first_up = int(np.argmax(reps > reps[0]))
    assert ready[first_up] < reps[first_up]


def test_a_queue_policy_reacts_to_waiting_requests_faster_than_utilisation() -> None:
    tr = step_trace(
        Shape(mean_requests_per_s=3.0, duration_s=7200, seed=2, prompt_tokens=256, output_tokens=200),
        factor=5,
    )
    pols = [parse_policy("target:target=0.9,max=12"), parse_policy("queue:per_replica=12,max=12")]
    res = simulate_autoscale(tr, REPLICA, pols, PRICES, SimulationSettings(slos=(E2E(20),)))
    hpa, keda = res.policies
    assert keda.latency_p99_s <= hpa.latency_p99_s


def test_missing_tokens_and_duplicate_names_are_one_line_errors() -> None:
    tr = Trace(
        arrival_s=np.arange(5.0),
        prompt_tokens=None,
        output_tokens=None,
        duration_s=5,
        name="t",
        synthetic=True,
    )
    with pytest.raises(InputError, match="token counts"):
        simulate_autoscale(tr, REPLICA, [parse_policy("fixed:replicas=1")], PRICES)
    with pytest.raises(InputError, match="share a name"):
        simulate_autoscale(tr.with_tokens(10, 10), REPLICA, [parse_policy("fixed:replicas=1")] * 2, PRICES)


def test_spot_policy_without_a_spot_price_says_how_to_give_one() -> None:
    tr = _diurnal(hours=1)
    with pytest.raises(InputError, match="spot-price"):
        simulate_autoscale(
            tr,
            REPLICA,
            [parse_policy("fixed:replicas=2,spot=1")],
            FleetPrices(usd_per_hour={"on_demand": 3.0}, source="t"),
        )


def test_a_spot_share_is_at_most_the_share_asked_at_every_fleet_size() -> None:
    # spot=0.5 on one replica ran it on spot, and scale-downs retired on-demand replicas first:
    # a queue policy asking half ran 87 % of its hours on spot
    tr = _diurnal()
    work = REPLICA.work(tr.prompt_tokens, tr.output_tokens)
    for spec in (
        "fixed:replicas=1,spot=0.5",
        "queue:per_replica=12,max=6,spot=0.5",
        "target:target=0.6,min=1,max=6,spot=0.5",
    ):
        pol = parse_policy(spec)
        run = run_engine(tr.arrival_s, work, pol, EngineConfig(slots=REPLICA.slots, horizon_s=tr.duration_s))
        spot_h = sum(
            e - s
            for s, e, sp in zip(run.replica_launch_s, run.replica_end_s, run.replica_spot, strict=True)
            if sp
        )
        all_h = sum(e - s for s, e in zip(run.replica_launch_s, run.replica_end_s, strict=True))
        assert spot_h <= 0.5 * all_h + 1e-6, (spec, spot_h / all_h)
    one = run_engine(
        tr.arrival_s,
        work,
        parse_policy("fixed:replicas=1,spot=0.5"),
        EngineConfig(slots=REPLICA.slots, horizon_s=tr.duration_s),
    )
    assert not any(one.replica_spot)


def test_a_request_killed_by_a_reclaim_held_its_slot_only_until_then() -> None:
    # counted to its would-be end, heavy spot loss pushed the busy share of paid slot time over 100 %
    arrival = np.arange(0.0, 3600.0, 5.0)
    service = np.full(arrival.size, 600.0)  # ten minutes each: most outlive a 30 s reclaim notice
    cfg = EngineConfig(slots=4, horizon_s=3600.0, spot_rate_per_hour=6.0, seed=2)
    run = run_engine(arrival, service, parse_policy("fixed:replicas=3,spot=1"), cfg)
    killed = np.flatnonzero(run.status == STATUS_KILLED)
    assert killed.size > 0
    held = float(np.sum(run.service_s[np.isfinite(run.start_s)]))
    paid = sum(e - s for s, e in zip(run.replica_launch_s, run.replica_end_s, strict=True)) * cfg.slots
    assert np.all(run.service_s[killed] < 600.0)  # cut at the reclaim
    assert held <= paid + 1e-6


def test_replicas_that_share_an_instance_are_billed_in_whole_instances() -> None:
    # Three 4-GPU replicas, two to an 8-GPU instance at $40/h: two instances, $80 an hour (not three
    # replicas × a whole instance each, $120).
    trace = _diurnal(rate=0.5, hours=2.0)
    prices = FleetPrices(
        usd_per_hour={"on_demand": 20.0},
        source="t",
        replicas_per_instance={"on_demand": 2},
        gpus_per_replica=4,
    )
    res = simulate_autoscale(trace, REPLICA, [parse_policy("fixed:replicas=3")], prices)
    (p,) = res.policies
    hours = p.replica_hours["on_demand"]
    assert p.instance_hours["on_demand"] == pytest.approx(hours * 2 / 3, rel=1e-6)
    assert p.cost_usd == pytest.approx(40.0 * hours * 2 / 3, rel=1e-6)
    # One replica to an instance: instance-hours are replica-hours.
    one = simulate_autoscale(trace, REPLICA, [parse_policy("fixed:replicas=3")], PRICES).policies[0]
    assert one.instance_hours == one.replica_hours and one.cost_usd == pytest.approx(3.0 * hours)


def test_each_policy_gives_its_cost_per_million_tokens_served() -> None:
    # The policy's cost over the tokens of the requests it served (the trace's), per million.
    from gpuplan.report.autoscale import autoscale_json

    trace = _diurnal(rate=0.5, hours=2.0)
    res = simulate_autoscale(trace, REPLICA, [parse_policy("fixed:replicas=2")], PRICES)
    (p,) = res.policies
    assert trace.prompt_tokens is not None and trace.output_tokens is not None
    assert p.served == trace.requests
    out, prompt = float(trace.output_tokens.sum()), float(trace.prompt_tokens.sum())
    assert p.tokens_served == {"prompt": int(prompt), "output": int(out)}
    assert p.usd_per_million_output_tokens == pytest.approx(p.cost_usd / (out / 1e6))
    assert p.usd_per_million_tokens == pytest.approx(p.cost_usd / ((out + prompt) / 1e6))
    doc = autoscale_json(res)["policies"][0]
    assert doc["usd_per_million_output_tokens"] == pytest.approx(p.usd_per_million_output_tokens)
    assert doc["per_million_tokens_note"] is None


def test_no_request_served_gives_no_cost_per_million_tokens_and_says_why() -> None:
    from gpuplan.simulate.autoscale import per_million_tokens

    assert per_million_tokens(12.0, prompt=0, output=0) == (None, None, "no request was served")
    assert per_million_tokens(12.0, prompt=2_000_000, output=1_000_000) == (12.0, 4.0, None)


def _late_burst() -> Trace:
    """One request a second for a minute, then 400 in its last second: one replica of 16 slots
    (about 6 s a request) has most of the burst still waiting when the trace ends."""
    arrival = np.concatenate([np.arange(0.0, 59.0, 1.0), np.linspace(59.0, 60.0, 400)])
    return Trace(
        arrival_s=arrival,
        prompt_tokens=None,
        output_tokens=None,
        duration_s=60.0,
        name="burst",
        synthetic=True,
    ).with_tokens(512, 200)


def test_requests_waiting_when_the_trace_ends_are_served_after_it_or_dropped_never_left_out() -> None:
    # was: 380 of the burst "queued at the end", left out of the SLO miss, the SLO and Dropped
    # (SLO miss 0 %, Dropped 0, e2e_p95 met)
    tr = _late_burst()
    res = simulate_autoscale(
        tr,
        REPLICA,
        [parse_policy("fixed:replicas=1")],
        PRICES,
        SimulationSettings(timeout_s=30, slos=(E2E(10.0),)),
    ).policies[0]
    assert res.queued_at_end == 0
    assert res.served + res.dropped == tr.requests
    assert res.waiting_at_end > 300
    # 16 slots × 30 s of timeout / ~6 s a request: about 80 of them start after the end, the rest time out
    assert 0 < res.dropped_after_end < res.waiting_at_end
    assert res.dropped >= res.dropped_after_end
    assert res.slo_miss_pct is not None and res.slo_miss_pct > 60
    [slo] = res.slos
    assert not slo.met
    # The drain is paid for: the replica serves past the window's 60 s.
    assert res.replica_hours["on_demand"] * 3600 > 60 + 30


def test_a_policy_gains_nothing_from_requests_it_left_waiting() -> None:
    # Two replicas serve the burst sooner than one: the one-replica fleet must not look better on the
    # SLO for the requests it had not served when the trace ended.
    tr = _late_burst()
    one, two = simulate_autoscale(
        tr,
        REPLICA,
        [parse_policy("fixed:replicas=1"), parse_policy("fixed:replicas=2")],
        PRICES,
        SimulationSettings(timeout_s=30, slos=(E2E(10.0),)),
    ).policies
    assert one.slo_miss_pct is not None and two.slo_miss_pct is not None
    assert one.slo_miss_pct > two.slo_miss_pct
    assert one.dropped > two.dropped


def _reclaims(run) -> dict[float, int]:
    """Reclaim moment -> replicas it took (each spot replica's instance reclaim time, where it had one)."""
    out: dict[float, int] = {}
    for t in run.replica_reclaimed_s:
        if math.isfinite(t):
            out[t] = out.get(t, 0) + 1
    return out


def test_a_reclaim_takes_every_replica_on_the_instance_at_once() -> None:
    # Two 4-GPU replicas on each 8-GPU spot instance: a reclaim takes the instance, so both replicas on
    # it go at the same moment (each replica once drew a lifetime of its own, as if alone on a machine).
    arrival = np.arange(0.0, 12 * 3600.0, 4.0)
    service = np.full(arrival.size, 2.0)
    pol = parse_policy("fixed:replicas=4,spot=1")
    packed = run_engine(
        arrival,
        service,
        pol,
        EngineConfig(
            slots=4, horizon_s=12 * 3600.0, spot_rate_per_hour=1.0, seed=4, spot_replicas_per_instance=2
        ),
    )
    reclaims = _reclaims(packed)
    assert packed.interruptions == len(reclaims) > 5
    assert set(reclaims.values()) == {2}
    # The replicas of one instance share it: at most two at once on each.
    hosts = [h for h in packed.replica_instance if h >= 0]
    assert max(hosts.count(h) for h in set(hosts)) == 2
    alone = run_engine(
        arrival,
        service,
        pol,
        EngineConfig(slots=4, horizon_s=12 * 3600.0, spot_rate_per_hour=1.0, seed=4),
    )
    assert set(_reclaims(alone).values()) == {1}
    assert alone.interruptions == len(_reclaims(alone))


def test_spot_reclaims_come_at_the_rate_per_instance_not_per_replica() -> None:
    # λ = 2 per instance-hour, 4 replicas two to an instance for 12 h: about 2 × 2 × 12 = 48 reclaims
    # (drawn per replica: about 96, twice the catalog's rate per instance).
    trace = _diurnal(rate=0.3, hours=12.0)
    prices = FleetPrices(
        usd_per_hour={"on_demand": 20.0, "spot": 8.0},
        source="t",
        spot_rate_per_hour=2.0,
        replicas_per_instance={"on_demand": 2, "spot": 2},
        gpus_per_replica=4,
    )
    (p,) = simulate_autoscale(
        trace, REPLICA, [parse_policy("fixed:replicas=4,spot=1")], prices, SimulationSettings(seed=7)
    ).policies
    expected = 2.0 * p.instance_hours["spot"]
    assert abs(p.interruptions - expected) < 3.0 * math.sqrt(expected), (p.interruptions, expected)


def test_a_schedule_step_of_zero_runs_no_replica_and_counts_who_came() -> None:
    # was: min must be at least 1; a step @0 ran one replica all day, and nobody arrived to none
    night, day = [7200.0 + k for k in range(5)], [36_000.0 + k for k in range(20)]
    n = len(night) + len(day)
    tr = Trace(
        arrival_s=np.array(night + day),
        prompt_tokens=np.full(n, 512),
        output_tokens=np.full(n, 64),
        duration_s=86_400.0,
        name="t",
        synthetic=False,
    )
    pol = parse_policy("scheduled:at=0h@0/8h@1/18h@0,startup=60")
    assert pol.min_replicas == 0
    [p] = simulate_autoscale(tr, REPLICA, [pol], PRICES).policies
    assert p.losses.counts["scaled_to_zero"] == 5 == p.dropped
    assert p.served == 20
    assert p.replica_hours["on_demand"] == pytest.approx(10.0, abs=0.01)


def test_the_workloads_schedule_starts_the_fleet_early_and_stops_it_at_its_end() -> None:
    from gpuplan.simulate.policy import as_deployed
    from gpuplan.workload.spec import ServingSpec

    serving = ServingSpec.model_validate(
        {
            "requests_per_s": 1,
            "prompt_tokens": 512,
            "output_tokens": 64,
            "schedule": {"hours": "08:00-18:00", "time_zone": "UTC"},
        }
    )
    [pol] = as_deployed([parse_policy("fixed:replicas=2,startup=700")], serving)
    # 700 s rounded up to the whole minute a cron line fires at (it had been 5 min: 900 s)
    assert pol.hours == (8.0, 18.0) and pol.schedule_lead_s() == 720
    assert not pol.runs_at(7.79) and pol.runs_at(7.8) and not pol.runs_at(18.0)
    assert as_deployed([parse_policy("fixed:replicas=2")], serving, on_schedule=False)[0].hours is None
    tr = Trace(
        arrival_s=np.array([40_000.0]),
        prompt_tokens=np.array([512]),
        output_tokens=np.array([64]),
        duration_s=86_400.0,
        name="t",
        synthetic=False,
    )
    [p] = simulate_autoscale(tr, REPLICA, [pol], PRICES).policies
    assert p.start_replicas == 0
    assert p.replica_hours["on_demand"] == pytest.approx(2 * 10.2, abs=0.01)
