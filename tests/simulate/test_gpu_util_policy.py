"""The gpu-util policy: the HPA ``gpuplan deploy --target k8s`` writes, on the replicas' average
DCGM GPU utilisation (the share of a sample with a kernel running), read late by the metric pipeline,
scaled by the HPA's rule, tolerance and scale-down stabilisation window."""

from __future__ import annotations

import numpy as np
import pytest

from azure_traces import CONV, azure, llama_8b
from gpuplan.errors import GpuplanError
from gpuplan.hardware import get_gpu
from gpuplan.perf.inference import step_model
from gpuplan.simulate import (
    FleetPrices,
    SimulationSettings,
    Trace,
    parse_policy,
    read_trace_csv,
    replica_from_step,
    simulate_autoscale,
)
from gpuplan.simulate.engine import EngineConfig, run_engine
from gpuplan.simulate.engines import engine_defaults


def test_gpu_util_reads_as_deploy_writes_it() -> None:
    p = parse_policy("gpu-util:75,min=2,max=6")
    assert (p.kind, p.gpu_util_pct, p.min_replicas, p.max_replicas) == ("gpu-util", 75.0, 2, 6)
    assert (p.delay_s, p.util_sample_s, p.down_window_s, p.tolerance) == (30.0, 1.0, 300.0, 0.1)
    # bare: deploy's defaults (serving.gpu_utilization_target 80 %, max_replicas 8)
    bare = parse_policy("gpu-util")
    assert (bare.gpu_util_pct, bare.min_replicas, bare.max_replicas) == (80.0, 1, 8)
    assert parse_policy("gpu-util:target=75,delay=45,sample=0.5").metric_delay_s == 45.0


def test_the_serving_block_fills_what_the_policy_does_not_write() -> None:
    from gpuplan.simulate.policy import with_serving

    served = dict(gpu_util_pct=60.0, min_replicas=2, max_replicas=5)
    p = with_serving(parse_policy("gpu-util"), **served)
    assert (p.gpu_util_pct, p.min_replicas, p.max_replicas) == (60.0, 2, 5)
    own = with_serving(parse_policy("gpu-util:90,max=3"), **served)
    assert (own.gpu_util_pct, own.min_replicas, own.max_replicas) == (90.0, 2, 3)
    other = parse_policy("target:target=0.7")
    assert with_serving(other, **served) is other


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("gpu-util:120", "0 < P ≤ 100"),
        ("gpu-util:0", "0 < P ≤ 100"),
        ("gpu-util:eighty", "is not a number"),
        ("gpu-util:80,sample=0", "sample must be > 0"),
        ("gpu-util:80,delay=-5", "delay=-5': delay must be ≥ 0"),
        ("gpu-util:80,sample=inf", "sample must be a finite number"),
        ("gpu-util:80,min=5,max=2", "need 1 ≤ min ≤ max"),
        ("gpu-utl:80", "did you mean 'gpu-util'"),
        ("target:target=0.7,delay=30", "delay is a key of these kinds only: gpu-util, queue"),
    ],
)
def test_bad_gpu_util_input_is_one_line(spec: str, words: str) -> None:
    with pytest.raises(GpuplanError) as e:
        parse_policy(spec)
    assert words in str(e.value)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize(("spec", "meant"), [("gpu-util:0.8", "80"), ("gpu-util:target=0.75,max=4", "75")])
def test_a_fraction_for_a_percent_is_refused_with_the_percent_it_means(spec: str, meant: str) -> None:
    # was: 0.8 read as a 0.8 % target, every replica busier than that: scaled to max
    with pytest.raises(GpuplanError) as e:
        parse_policy(spec)
    assert f"did you mean gpu-util:{meant}?" in str(e.value) and "\n" not in str(e.value)
    assert parse_policy("gpu-util:1.5").gpu_util_pct == 1.5  # above 1: taken as written


def test_the_serving_blocks_target_is_refused_as_a_fraction_too() -> None:
    from pydantic import ValidationError

    from gpuplan.deploy.serving_spec import ServingDeployment
    from gpuplan.workload.spec import ServingSpec

    with pytest.raises(ValidationError, match="did you mean 80"):
        ServingSpec(requests_per_s=1, prompt_tokens=8, output_tokens=8, gpu_utilization_target=0.8)
    with pytest.raises(ValidationError, match="did you mean 70"):
        ServingDeployment(gpu_utilization_target=0.7)  # deploy --utilization-target 0.7
    assert ServingSpec(requests_per_s=1, prompt_tokens=8, output_tokens=8, gpu_utilization_target=60)


def test_a_min_below_one_says_nothing_of_a_max_not_yet_in_effect() -> None:
    # was: "(got min=0, max=8)": 8 the policy's default, where the workload's max_replicas (6) applies
    with pytest.raises(GpuplanError) as e:
        parse_policy("gpu-util:80,min=0")
    assert str(e.value) == "policy 'gpu-util:80,min=0': min must be at least 1 (got min=0)"
    from gpuplan.simulate.policy import with_serving

    # a min over the workload's max: both as in effect
    with pytest.raises(GpuplanError, match=r"got min=7, max=6\)"):
        with_serving(parse_policy("gpu-util:80,min=7"), gpu_util_pct=None, min_replicas=None, max_replicas=6)


# A load step on one-slot replicas serving each request in 1 s: 0.5 req/s (one replica half busy),
# 3 req/s from 600 s to 1800 s, 0.5 req/s again to 3000 s. Arrivals are regular, so a replica's
# busy share over a 10 s sample is exact.
STEP = np.concatenate([np.arange(0, 600, 2.0), np.arange(600, 1800, 1 / 3), np.arange(1800, 3000, 2.0)])
STEP_CFG = EngineConfig(slots=1, horizon_s=3000.0)


def _step_run(spec: str):  # type: ignore[no-untyped-def]
    return run_engine(STEP, np.full(len(STEP), 1.0), parse_policy(spec), STEP_CFG)


def _changes(run) -> list[tuple[float, int]]:  # type: ignore[no-untyped-def]
    prev = None
    out = []
    for t, n in zip(run.tick_s, run.tick_replicas, strict=True):
        if n != prev:
            out.append((t, n))
        prev = n
    return out


def test_a_load_step_scales_out_after_the_metric_delay() -> None:
    run = _step_run("gpu-util:80,max=8,startup=60,sample=10")
    # Decisions every 15 s; the sample a decision at t reads is [t - 40, t - 30): the first one
    # inside the step (from 600 s) is the decision at 645 s (at 630 s it reads [590, 600)).
    assert min(run.replica_launch_s[1:]) == 645.0
    # before the step, one replica half busy: 50 % / 80 % = 0.625 → ceil(0.625) = 1, no change
    assert all(n == 1 for t, n in zip(run.tick_s, run.tick_replicas, strict=True) if t < 645)
    # with no pipeline delay the same HPA reacts 30 s sooner
    assert min(_step_run("gpu-util:80,max=8,startup=60,sample=10,delay=0").replica_launch_s[1:]) == 615.0
    # 3 req/s × 1 s = 3 busy replicas; 3 / 0.8 → 4 at least at the peak
    assert max(run.tick_replicas) >= 4


def test_the_step_down_scales_in_only_after_the_stabilisation_window() -> None:
    run = _step_run("gpu-util:80,max=8,startup=60,sample=10")
    changes = dict(_changes(run))
    before = [n for t, n in zip(run.tick_s, run.tick_replicas, strict=True) if 1800 <= t < 2145]
    # the first sample after the step down is read at 1845 s (it covers [1805, 1815)); the
    # recommendations of the 300 s before it still ask for the peak fleet until 2145 s
    assert len(set(before)) == 1 and before[0] > 1
    assert changes[2145.0] == 1  # then straight to what 0.5 req/s needs
    retired = [e for e in run.replica_end_s if e < 3000]
    assert retired and min(e for e in retired if e >= 1800) >= 2145.0


def test_a_decode_bound_replica_reads_busy_at_light_load() -> None:
    # The known flaw of GPU_UTIL: one sequence decoding keeps a kernel running, so a replica with
    # 64 slots and two requests in flight reads 100 % and the HPA scales out under light load.
    arrivals = np.arange(0, 3600, 20.0)  # one request every 20 s, each decoding for 40 s
    cfg = EngineConfig(slots=64, horizon_s=3600.0)
    run = run_engine(arrivals, np.full(len(arrivals), 40.0), parse_policy("gpu-util:80,max=8"), cfg)
    assert max(run.tick_replicas) > 1  # scaled out ...
    assert max(run.tick_batch) < 0.05 * 64 + 1  # ... while under 5 % of one replica's slots were busy


@pytest.fixture(scope="module")
def azure_slice():  # type: ignore[no-untyped-def]
    whole = read_trace_csv(azure(CONV))
    keep = whole.arrival_s < 900.0  # the first 15 minutes of the conversation trace
    assert whole.prompt_tokens is not None and whole.output_tokens is not None
    trace = Trace(
        arrival_s=whole.arrival_s[keep],
        prompt_tokens=whole.prompt_tokens[keep],
        output_tokens=whole.output_tokens[keep],
        duration_s=900.0,
        name="conv-15min",
        synthetic=False,
    )
    gpu = get_gpu("L4")
    rep = replica_from_step(
        step_model(llama_8b(), gpu),
        engine_defaults(gpu),
        mean_prompt_tokens=float(trace.prompt_tokens.mean()),  # type: ignore[union-attr]
        mean_output_tokens=float(trace.output_tokens.mean()),  # type: ignore[union-attr]
    )
    prices = FleetPrices(usd_per_hour={"on_demand": 0.8}, source="test prices")
    settings = SimulationSettings(cold_start_s=183.0, cold_start_source="test")
    res = simulate_autoscale(trace, rep, [parse_policy("gpu-util:80,min=2,max=8")], prices, settings)
    return trace, res


def test_on_an_azure_slice_cost_and_latency_follow_the_replica_hours(azure_slice) -> None:  # type: ignore[no-untyped-def]
    trace, res = azure_slice
    (p,) = res.policies
    hours = p.replica_hours["on_demand"]
    assert p.cost_usd == pytest.approx(hours * 0.8)
    assert p.served + p.dropped + p.queued_at_end == trace.requests
    assert p.usd_per_million_output_tokens == pytest.approx(p.cost_usd / (p.tokens_served["output"] / 1e6))
    # billed from launch to the end of what each replica started: at least the replicas it counted
    # over the window (chart bins of 300 s), at most its max over the window and a drain
    counted = np.nansum(p.timeline.replicas) * res.settings.chart_bin_s / 3600
    assert counted * 0.95 <= hours <= 8 * (900 + 600) / 3600
    assert 2 <= p.max_replicas <= 8
    assert p.latency["e2e"].p50_s is not None and p.latency["e2e"].p50_s > 0


def test_a_queue_policy_takes_the_replica_range_deploy_writes() -> None:
    # deploy --target k8s scales an engine on its requests in flight between the serving block's
    # min_replicas and max_replicas: `--policy queue` replays that range unless it names its own
    from gpuplan.simulate.policy import with_serving

    queue = with_serving(parse_policy("queue"), gpu_util_pct=70, min_replicas=2, max_replicas=3)
    assert (queue.min_replicas, queue.max_replicas, queue.gpu_util_pct) == (2, 3, None)
    own = with_serving(parse_policy("queue:min=1,max=9"), gpu_util_pct=None, min_replicas=2, max_replicas=3)
    assert (own.min_replicas, own.max_replicas) == (1, 9)
    # a block's minimum above the policy's default maximum, the block naming no maximum: it holds
    # its minimum (it had been refused, "need 1 ≤ min ≤ max (got min=12, max=8)")
    held = with_serving(parse_policy("gpu-util:80"), gpu_util_pct=None, min_replicas=12, max_replicas=None)
    assert (held.min_replicas, held.max_replicas) == (12, 12)
    fixed = parse_policy("fixed:replicas=2")
    assert with_serving(fixed, gpu_util_pct=None, min_replicas=5, max_replicas=6) is fixed


def test_a_max_the_serving_block_gives_is_not_replaced_by_the_loads() -> None:
    from gpuplan.simulate.policy import max_for_load, parse_policy, with_serving

    p = parse_policy("gpu-util:80")
    # 100 requests/s at 80 % of 1 request/s: 125 replicas, a default max of 250
    assert p.max_default and max_for_load(p, 100.0, 1.0, 1000).max_replicas == 250
    block = with_serving(p, gpu_util_pct=None, min_replicas=None, max_replicas=5)
    assert max_for_load(block, 100.0, 1.0, 1000).max_replicas == 5
    assert max_for_load(parse_policy("gpu-util:80,max=6"), 100.0, 1.0, 1000).max_replicas == 6
    assert max_for_load(parse_policy("fixed:replicas=3"), 100.0, 1.0, 1000).max_replicas == 3
