"""A generated trace draws no request longer than one replica holds: its lengths are cut at the
replica's KV cache (the longest request its engine takes, vLLM's max_model_len), their means and
p95 lengths kept, and the report says how many draws were cut and where. Before, the log-normal
tail (cut only at its 99.9th percentile, about 21 × the mean prompt) drew requests no replica
holds, and the simulation refused the trace gpuplan had drawn itself ("leave them out of the
trace"). A trace file's over-long requests are still refused."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from test_batching import MODEL

from gpuplan.errors import InputError
from gpuplan.perf.request_tail import length_distribution
from gpuplan.report.autoscale import _trace_input_lines
from gpuplan.simulate import Shape, SimulationSettings, diurnal_trace, replica_from_step, simulate_autoscale
from gpuplan.simulate.autoscale import FleetPrices
from gpuplan.simulate.batching import EngineSettings
from gpuplan.simulate.policy import parse_policy

# the test replica of test_batching with a KV cache of 4,000 tokens: below the 99.9th percentile of
# prompts of mean 500 (about 10,400 tokens)
SMALL = replace(MODEL, kv_capacity_tokens=4_000)


def _run(synthetic: bool = True) -> object:
    trace = diurnal_trace(
        Shape(peak_requests_per_s=4.0, duration_s=3600.0, prompt_tokens=500, output_tokens=100)
    )
    assert trace.prompt_tokens is not None and trace.output_tokens is not None
    assert int((trace.prompt_tokens + trace.output_tokens).max()) > SMALL.kv_capacity_tokens
    replica = replica_from_step(
        SMALL,
        EngineSettings(max_num_seqs=64, max_batched_tokens=2048),
        mean_prompt_tokens=500,
        mean_output_tokens=100,
    )
    prices = FleetPrices(usd_per_hour={"on_demand": 1.0}, source="given")
    return simulate_autoscale(
        trace if synthetic else replace(trace, synthetic=False),
        replica,
        [parse_policy("fixed:replicas=4")],
        prices,
        SimulationSettings(),
    )


def test_a_generated_trace_on_a_small_kv_cache_runs_and_says_how_many_draws_were_cut() -> None:
    res = _run()
    cap = res.trace_length_cap  # type: ignore[attr-defined]
    assert cap is not None and cap.kv_tokens == 4_000
    prompt, output = cap.lengths
    assert prompt.longest + output.longest <= 4_000
    assert cap.cut[0] > 0
    text = " ".join(" ".join(_trace_input_lines(res)).split())  # type: ignore[arg-type]
    assert "One test replica's KV cache holds 4,000 tokens" in text
    assert f"cut at {prompt.longest:,} prompt and {output.longest:,} output tokens" in text
    assert f"Draws cut there: {cap.cut[0]:,} of the prompts, {cap.cut[1]:,} of the answers." in text


def test_a_trace_files_requests_longer_than_a_replica_holds_are_still_refused() -> None:
    with pytest.raises(InputError, match="leave them out of the trace"):
        _run(synthetic=False)


def test_the_cut_lengths_keep_the_mean_and_the_p95_plan_checks_at() -> None:
    prompt = length_distribution(500, 1786)
    assert prompt is not None and prompt.longest > 10_000
    cut = prompt.capped(3_000)
    assert cut is not None and cut.longest == 3_000 and cut.sigma < prompt.sigma
    drawn = cut.draw(400_000, np.random.default_rng(0))
    assert int(drawn.max()) == 3_000
    assert float(drawn.mean()) == pytest.approx(500, rel=0.01)
    assert float(np.percentile(drawn, 95)) == pytest.approx(1786, rel=0.02)
    # the same draws of the wider spread, taken again, keep their order and the cut's figures
    wide = prompt.draw(400_000, np.random.default_rng(0))
    again, n = prompt.redrawn(wide, cut)
    assert 0 < n <= int(np.count_nonzero(again == 3_000)) and int(again.max()) == 3_000
    assert float(again.mean()) == pytest.approx(500, rel=0.01)
    assert prompt.capped(1_000) is None  # below the p95: no cut keeps it
