"""A service's p95 time to first token: the M/M/1 queueing wait at its p95 (the one the p95 latency
adds) plus the request's prefill, and the GPUs a service needs meet a target for it too."""

from __future__ import annotations

import math

import pytest
from perf_helpers import GIB, SIMPLE_CAL, breakdown, make_profile, op

from gpuplan.hardware import get_gpu
from gpuplan.perf.inference import DecodeEstimate, decode_estimate, serving_estimate
from gpuplan.profile.model import ModelShape

LLAMA7B = ModelShape(
    family="decoder", num_layers=32, hidden_size=4096, num_attention_heads=32, num_kv_heads=32, head_dim=128
)
LOAD = {"prompt_tokens": 512, "output_tokens": 256}


def _decode() -> DecodeEstimate:
    params = 6_738_415_616
    profile = make_profile(
        ops=(op("forward", flops=2.0 * params * 2048),),
        peak=breakdown(parameters=2.0 * params, activations=1 * GIB),
        task="infer",
        batch_size=1,
        seq_len=2048,
        params=params,
        shape=LLAMA7B,
    )
    return decode_estimate(profile, get_gpu("A100-SXM4-80GB"), calibration=SIMPLE_CAL)


def test_time_to_first_token_is_the_prefill_at_a_light_load_and_rises_with_the_load() -> None:
    d = _decode()
    # no engine named: prompts join the decode iterations, each at the GPU's prefill rate
    prefill = 512 / d.prefill_tokens_per_s
    light = serving_estimate(d, requests_per_s=1e-3, **LOAD)
    assert light.ttft_p95_s == pytest.approx(prefill)  # ρ ≤ 0.05: no wait at the p95
    cap = light.capacity_requests_per_s
    loads = [serving_estimate(d, requests_per_s=f * cap, **LOAD) for f in (0.2, 0.5, 0.8, 0.95)]
    ttfts = [s.ttft_p95_s for s in loads]
    assert all(t is not None for t in ttfts)
    assert ttfts == sorted(ttfts) and ttfts[0] > prefill  # type: ignore[type-var]
    for s in loads:
        # the same M/M/1 wait as the p95 latency adds: P(wait > t) = ρ·e^(−(μ−λ)t) at 5 %
        rho = s.requests_per_s / cap
        wait = math.log(rho / 0.05) / (cap - s.requests_per_s)
        assert s.ttft_p95_s == pytest.approx(prefill + wait)
        assert s.p95_latency_s == pytest.approx(s.request_latency_s + wait)
    # overloaded: no wait to give, so no time to first token (never read as within a target)
    assert serving_estimate(d, requests_per_s=2 * cap, **LOAD).ttft_p95_s is None


def test_the_gpus_a_service_needs_meet_its_time_to_first_token_target() -> None:
    d = _decode()
    load = {"requests_per_s": 5.0, **LOAD}
    headroom = serving_estimate(d, **load).gpus_needed
    at = serving_estimate(d, **load, replicas=headroom)
    assert at.ttft_p95_s is not None
    tight = serving_estimate(d, **load, ttft_target_s=at.ttft_p95_s * 0.9).gpus_needed
    assert tight > headroom
    met = serving_estimate(d, **load, replicas=tight)
    assert met.ttft_p95_s is not None and met.ttft_p95_s <= at.ttft_p95_s * 0.9
    assert serving_estimate(d, **load, ttft_target_s=at.ttft_p95_s * 1.1).gpus_needed == headroom
    # below the prefill no number of replicas reaches it: the headroom's count stands
    assert serving_estimate(d, **load, ttft_target_s=512 / d.prefill_tokens_per_s / 2).gpus_needed == headroom
