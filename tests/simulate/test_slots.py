"""Block dispatch gives the heap loop's results bit for bit, and takes most requests in blocks."""

from __future__ import annotations

import numpy as np
import pytest

import gpuplan.simulate.engine as engine
from gpuplan.simulate import ReplicaModel, Shape, bursty_trace, parse_policy
from gpuplan.simulate.engine import EngineConfig, EngineRun, run_engine

REPLICA = ReplicaModel(
    gpu="A100-SXM4-80GB",
    slots=64,
    prefill_tokens_per_s=8000.0,
    time_per_output_token_s=0.030,
    time_per_output_token_1_s=0.011,
    source="given",
)

FIELDS = ("start_s", "status", "service_s", "replica_launch_s", "replica_end_s", "replica_spot")
TICKS = ("tick_s", "tick_replicas", "tick_ready", "tick_queued", "interruptions")


def _same(a: EngineRun, b: EngineRun) -> None:
    for name in FIELDS:
        x, y = np.asarray(getattr(a, name)), np.asarray(getattr(b, name))
        assert np.array_equal(x, y, equal_nan=True), name
    for name in TICKS:
        assert getattr(a, name) == getattr(b, name), name


@pytest.mark.parametrize(
    "spec",
    [
        "fixed:replicas=6",
        "fixed:replicas=1",  # overloaded: drops, the heap loop every period
        "target:target=0.7,max=12,startup=60",
        "queue:per_replica=32,max=12,spot=0.5,startup=30",
        "scheduled:at=0h@2/0.5h@8/1h@3,startup=30",
    ],
)
def test_block_dispatch_equals_the_heap_loop_on_a_bursty_trace(spec: str) -> None:
    tr = bursty_trace(
        Shape(mean_requests_per_s=30, duration_s=5400, seed=4, prompt_tokens=400, output_tokens=150),
        burst_factor=4,
    )
    work = REPLICA.work(tr.prompt_tokens, tr.output_tokens)
    # Many interruptions (a spot replica lives 30 min on average) and a short timeout: kills and drops.
    cfg = EngineConfig(slots=REPLICA.slots, horizon_s=tr.duration_s, timeout_s=30, spot_rate_per_hour=2.0)
    pol = parse_policy(spec)
    _same(run_engine(tr.arrival_s, work, pol, cfg), run_engine(tr.arrival_s, work, pol, cfg, blocks=False))


def test_block_dispatch_breaks_ties_by_slot_as_the_heap_does() -> None:
    # Whole-second arrivals and a fixed 3 s service: free times tie with arrivals and each other.
    rng = np.random.default_rng(7)
    arrival = np.sort(np.round(rng.random(40_000) * 2000))
    service = np.full(len(arrival), 3.0)
    cfg = EngineConfig(slots=32, horizon_s=2000.0, timeout_s=20, spot_rate_per_hour=3.0)
    for spec in ("fixed:replicas=3", "target:target=0.5,max=8,startup=10,period=5,spot=1"):
        pol = parse_policy(spec)
        _same(run_engine(arrival, service, pol, cfg), run_engine(arrival, service, pol, cfg, blocks=False))


def test_most_requests_of_a_large_fleet_start_in_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    tr = bursty_trace(
        Shape(mean_requests_per_s=40, duration_s=3600, seed=1, prompt_tokens=512, output_tokens=256)
    )
    in_blocks = []
    block = engine.dispatch_block

    def counting(*args: object) -> int:
        done = block(*args)  # type: ignore[arg-type]
        in_blocks.append(done)
        return done

    monkeypatch.setattr(engine, "dispatch_block", counting)
    cfg = EngineConfig(slots=REPLICA.slots, horizon_s=tr.duration_s)
    run_engine(
        tr.arrival_s, REPLICA.work(tr.prompt_tokens, tr.output_tokens), parse_policy("fixed:replicas=8"), cfg
    )
    assert sum(in_blocks) > 0.9 * tr.requests
