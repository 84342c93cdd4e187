"""A service's p95 targets are checked at its p95 request's lengths: the serving block's
``prompt_tokens_p95`` and ``output_tokens_p95``, else the means × the longer tail of the two published
Azure LLM inference traces. Before, every request was taken at the mean: a 70B chat service on four
TP4 A100 replicas read "p95 16.2 s, target 30 s met" where the conversation trace's own replay of
its autoscaler gave 42 s (its p95 answer is 451 tokens against a mean of 211)."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest
from test_serving_ttft import LOAD, _decode

from gpuplan.perf.inference import serving_estimate
from gpuplan.perf.request_tail import OUTPUT_P95_OVER_MEAN, PROMPT_P95_OVER_MEAN, request_tail
from gpuplan.workload import load_workload

TRACES = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "traces"


def test_unstated_p95_lengths_are_the_means_times_the_longer_published_tail() -> None:
    # 211 × 3.228 = 681.1 → 682; 1155 × 3.572 = 4125.7 → 4126
    tail = request_tail(prompt_tokens=1155, output_tokens=211)
    assert (tail.prompt_tokens, tail.output_tokens) == (4126, 682)
    assert not tail.prompt_stated and not tail.output_stated
    stated = request_tail(prompt_tokens=1155, output_tokens=211, output_tokens_p95=451)
    assert (stated.prompt_tokens, stated.output_tokens) == (4126, 451) and stated.output_stated


@pytest.mark.skipif(not TRACES.is_dir(), reason="the shared Azure traces are not beside the checkout")
def test_the_ratios_are_the_larger_of_the_two_azure_traces() -> None:
    def ratio(name: str, column: str) -> float:
        with (TRACES / f"AzureLLMInferenceTrace_{name}.csv").open(encoding="utf-8") as f:
            values = sorted(int(r[column]) for r in csv.DictReader(f))
        p95 = values[math.ceil(0.95 * len(values)) - 1]  # the 95th-percentile request
        return p95 / (sum(values) / len(values))

    prompt = max(ratio("conv", "ContextTokens"), ratio("code", "ContextTokens"))
    output = max(ratio("conv", "GeneratedTokens"), ratio("code", "GeneratedTokens"))
    assert (prompt, output) == pytest.approx((PROMPT_P95_OVER_MEAN, OUTPUT_P95_OVER_MEAN), abs=1e-3)


def test_the_p95_latency_takes_the_p95_answer_and_the_first_token_the_p95_prompt() -> None:
    d = _decode()
    mean = serving_estimate(d, requests_per_s=1.0, **LOAD)
    tail = serving_estimate(d, requests_per_s=1.0, **LOAD, tail_prompt_tokens=2048, tail_output_tokens=600)
    # the load's work is the mean request's: capacity, utilisation and time per token unchanged
    assert tail.capacity_requests_per_s == mean.capacity_requests_per_s
    assert tail.tpot_s == mean.tpot_s and tail.request_latency_s == mean.request_latency_s
    assert mean.p95_latency_s is not None and tail.p95_latency_s is not None
    # 600 − 256 = 344 more tokens at the operating point's time per token
    assert tail.p95_latency_s - mean.p95_latency_s == pytest.approx(344 * mean.tpot_s)  # type: ignore[operator]
    assert mean.ttft_p95_s is not None and tail.ttft_p95_s is not None
    assert tail.ttft_p95_s > mean.ttft_p95_s + (2048 - 512) / d.prefill_tokens_per_s * 0.99


def test_replicas_for_a_p95_target_are_counted_at_the_p95_answer() -> None:
    d = _decode()
    # 4 requests/s: two replicas at the headroom, their mean request's p95 with 10 % to spare
    two = serving_estimate(d, requests_per_s=4.0, **LOAD, replicas=2)
    assert two.gpus_needed == 2 and two.p95_latency_s is not None
    target = two.p95_latency_s * 1.1
    at_mean = serving_estimate(d, requests_per_s=4.0, **LOAD, p95_target_s=target)
    # a p95 answer of 1.5× the mean is past it there: more replicas, each at a shorter step
    at_tail = serving_estimate(d, requests_per_s=4.0, **LOAD, p95_target_s=target, tail_output_tokens=384)
    assert at_mean.gpus_needed == 2 and at_tail.gpus_needed > 2


def test_the_serving_block_takes_its_p95_lengths() -> None:
    serving = load_workload(
        {
            "name": "s",
            "task": "infer",
            "model": {"preset": "llama-8b"},
            "inputs": {"batch_size": 1, "seq_len": 768},
            "serving": {
                "requests_per_s": 5,
                "prompt_tokens": 512,
                "output_tokens": 256,
                "prompt_tokens_p95": 1800,
                "output_tokens_p95": 700,
            },
        }
    ).serving
    assert serving is not None and (serving.prompt_tokens_p95, serving.output_tokens_p95) == (1800, 700)


def test_deploy_names_a_p95_target_that_only_the_p95_answer_misses() -> None:
    # deploy from a workload file counts the GPUs by the estimate (now at the p95 answer) and names
    # the target that needs them: at the mean it had found none, and said "needs 3" with no reason
    from gpuplan.cli.deploy_checks import _binding_targets

    d = _decode()
    two = serving_estimate(d, requests_per_s=4.0, **LOAD, replicas=2)
    assert two.p95_latency_s is not None
    target_ms = two.p95_latency_s * 1.1 * 1000
    w = load_workload(
        {
            "name": "s",
            "task": "infer",
            "model": {"preset": "llama-8b"},
            "inputs": {"batch_size": 1, "seq_len": 768},
            "serving": {"requests_per_s": 4, **LOAD, "p95_latency_ms": target_ms, "output_tokens_p95": 384},
        }
    )
    assert _binding_targets(w, d, 2) == [f"serving.p95_latency_ms target of {target_ms:g} ms a request"]


def test_the_note_names_each_mean_with_its_own_multiplier() -> None:
    # the sentence names the answer first, then the prompt: its multipliers must follow that order
    # (it read "the means × 3.572 and × 3.228" after naming the answer, i.e. the prompt's first)
    from gpuplan.perf.request_tail import tail_source

    words = tail_source(request_tail(prompt_tokens=1024, output_tokens=256))
    assert f"answer the mean × {OUTPUT_P95_OVER_MEAN:g}" in words
    assert f"prompt the mean × {PROMPT_P95_OVER_MEAN:g}" in words
