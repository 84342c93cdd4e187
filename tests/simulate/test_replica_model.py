"""The fleet's per-request replica model against the iteration-level replica it stands for.

On the Azure conversation trace, one replica, the same arrivals: below saturation the fleet model's
medians agree with iterating the engine within 20 % and its end-to-end p95 within 10 %, while its
TTFT and TPOT p95 are optimistic (measured 2026-12-02 with llama-8b, H100 at the trace's rate /
A100 at 0.6 of it: TTFT p50 +10 % / +12 %, TPOT p50 +7 % / +12 %, e2e p50 −8 % / −14 %; e2e p95
−0 % / −2 %; TTFT p95 −23 % / −39 %, TPOT p95 −32 % / −47 %: an iteration that carries a burst of
prompts is long for every sequence in it, which a per-request average does not see). The A100 ran
at 0.7 of the rate until the refit on 106 rows put Ampere's tensor-core efficiency 11 % lower
(0.867 → 0.770 of peak): at 0.7 its e2e p50 came out −22 %, past the 20 % this test allows, so
the rate follows the A100 down to the same distance from saturation (0.7 × 0.770 / 0.867 ≈ 0.6). Near
saturation the iteration-level replica congests (prompts fill every iteration, the cache fills,
sequences are preempted) and the fleet model's tails are optimistic: the simulation says so per
policy (``saturated_s``); the last test pins that it notices.
"""

from __future__ import annotations

import numpy as np
import pytest

from azure_traces import CONV, azure, llama_8b
from gpuplan.hardware import get_gpu
from gpuplan.perf.inference import step_model
from gpuplan.simulate import (
    FleetPrices,
    SimulationSettings,
    parse_policy,
    read_trace_csv,
    replica_from_step,
    retime,
    simulate_autoscale,
)
from gpuplan.simulate.batching import run_replica
from gpuplan.simulate.engines import engine_defaults

PRICES = FleetPrices(usd_per_hour={"on_demand": 1.0}, source="test")


def _both(gpu_id: str, scale: float):  # type: ignore[no-untyped-def]
    trace = retime(read_trace_csv(azure(CONV)), rate_scale=scale)
    gpu = get_gpu(gpu_id)
    step = step_model(llama_8b(), gpu)
    engine = engine_defaults(gpu)
    exact = run_replica(step, engine, trace.prompt_tokens, trace.output_tokens, arrival_s=trace.arrival_s)
    rep = replica_from_step(
        step,
        engine,
        mean_prompt_tokens=float(trace.prompt_tokens.mean()),
        mean_output_tokens=float(trace.output_tokens.mean()),
    )
    fleet = simulate_autoscale(
        trace, rep, [parse_policy("fixed:replicas=1")], PRICES, SimulationSettings(timeout_s=1e6)
    ).policies[0]
    return exact, fleet


@pytest.mark.parametrize(("gpu", "scale"), [("H100-SXM", 1.0), ("A100-SXM4-80GB", 0.6)])
def test_below_saturation_the_fleet_model_tracks_the_iterations(gpu: str, scale: float) -> None:
    exact, fleet = _both(gpu, scale)
    pairs = {
        "ttft": exact.ttft_s,
        "tpot": exact.tpot_s,
        "e2e": exact.e2e_s,
    }
    for metric, values in pairs.items():
        s = fleet.latency[metric]
        assert s.p50_s == pytest.approx(np.nanpercentile(values, 50), rel=0.20), metric
        # The per-request model's tails are never pessimistic next to the iterations.
        assert s.p95_s <= np.nanpercentile(values, 95) * 1.05, metric
    assert fleet.latency["e2e"].p95_s == pytest.approx(np.nanpercentile(exact.e2e_s, 95), rel=0.10)
    assert exact.preemptions == 0
    # At 0.6 of the trace's rate an A100 spends half its compute on prompts in the busiest 5-minute
    # bins: the simulation flags those (its TTFT and TPOT tails there are the optimistic ones).
    assert (fleet.saturated_s == 0) == (gpu == "H100-SXM")


def test_near_saturation_the_simulation_says_its_tails_are_optimistic() -> None:
    exact, fleet = _both("H100-SXM", 3.0)
    assert exact.preemptions > 0  # the iteration-level replica congests
    assert np.nanpercentile(exact.e2e_s, 95) > fleet.latency["e2e"].p95_s
    assert fleet.saturated_s > 0


def _long_prompts():  # type: ignore[no-untyped-def]
    """The code trace's means (2,048-token prompts, 28-token answers) on an 8B replica of an H100:
    the prompts joining a full batch are more tokens than an iteration's budget."""
    gpu = get_gpu("H100-SXM")
    step = step_model(llama_8b(), gpu)
    engine = engine_defaults(gpu)
    rep = replica_from_step(step, engine, mean_prompt_tokens=2048, mean_output_tokens=28)
    return step, engine, rep


def test_an_iteration_never_computes_more_prompt_tokens_than_its_budget_leaves() -> None:
    # was: 8.0 prompts of 2,048 tokens (16k tokens) in every iteration beside 223 decodes, with a
    # budget of 8,192 tokens: 708 ms per output token, over twice the longest iteration the
    # budget allows
    step, engine, rep = _long_prompts()
    n = rep.slots
    assert engine.chunked_prefill and 2048 * n / 28 > engine.max_batched_tokens
    ctx = n * (2048 + 28 / 2)
    longest = step.iteration_s(n, ctx, engine.max_batched_tokens - n, prefill_seqs=1)
    assert rep.tpot_s(n) <= longest * 1.001


def test_with_prompts_over_the_budget_they_wait_for_it_as_the_engine_has_them() -> None:
    # The iteration-level replica (vLLM's scheduler) at a full batch, as a closed loop: the prompts
    # that do not fit an iteration's budget wait for later ones, which lengthens TTFT, not TPOT.
    # was: TPOT 708 ms against 345 ms, TTFT 1.19 s against 10.3 s
    step, engine, rep = _long_prompts()
    n = rep.slots
    prompt, output = np.full(20 * n, 2048), np.full(20 * n, 28)
    exact = run_replica(step, engine, prompt, output, concurrency=n, stagger_s=1.0)
    steady = slice(5 * n, None)
    tpot = float(np.nanmean(exact.tpot_s[steady]))
    ttft = float(np.nanmean(exact.ttft_s[steady]))
    assert rep.tpot_s(n) == pytest.approx(tpot, rel=0.2)
    assert float(rep.prefill_s(np.array([2048.0]), n)[0]) == pytest.approx(ttft, rel=0.3)
