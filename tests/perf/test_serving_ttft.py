"""A service's p95 time to first token: the wait for a slot at its p95 (M/M/c, the one the p95
latency adds) plus the prompt's compute and the decode iterations it waits for, and the GPUs a
service needs meet a target for it too."""

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


def _erlang_c(c: int, a: float) -> float:
    """Erlang C from its closed form (the code uses Erlang B's recursion)."""
    terms = sum(a**k / math.factorial(k) for k in range(c))
    top = a**c / math.factorial(c) * c / (c - a)
    return top / (terms + top)


def test_the_wait_for_a_slot_is_erlang_c_and_one_slot_is_m_m_1() -> None:
    from gpuplan.perf.inference import _wait_p95

    # one slot: P(wait > t) = ρ·e^(−(μ−λ)t), the p95 at ln(ρ / 0.05) / (μ − λ)
    assert _wait_p95(0.8, 1.0, 1) == pytest.approx(math.log(0.8 / 0.05) / 0.2)
    # eight slots sharing a capacity of 10/s at 9/s: C(8, 7.2) of them wait
    c = _erlang_c(8, 7.2)
    assert _wait_p95(9.0, 10.0, 8) == pytest.approx(math.log(c / 0.05) / 1.0)
    # 64 slots at 70 %: fewer than 1 request in 20 finds them all busy (at 80 %, 5.6 % do)
    assert _erlang_c(64, 0.7 * 64) < 0.05 and _wait_p95(7.0, 10.0, 64) == 0.0
    assert _wait_p95(8.0, 10.0, 64) == pytest.approx(math.log(_erlang_c(64, 51.2) / 0.05) / 2.0)
    assert _wait_p95(10.0, 10.0, 64) is None  # overloaded


def test_time_to_first_token_is_the_prefill_and_its_iterations_and_rises_with_the_load() -> None:
    d = _decode()
    # no engine named: prompts join the decode iterations, each at the GPU's prefill rate; the first
    # token waits for half the iteration under way and the one its prompt joins
    prefill = 512 / d.prefill_tokens_per_s
    light = serving_estimate(d, requests_per_s=1e-3, **LOAD)
    per_token = light.request_latency_s - prefill
    assert light.ttft_p95_s == pytest.approx(prefill + 1.5 * per_token / 256)
    cap = light.capacity_requests_per_s
    loads = [serving_estimate(d, requests_per_s=f * cap, **LOAD) for f in (0.2, 0.5, 0.8, 0.99)]
    ttfts = [s.ttft_p95_s for s in loads]
    assert all(t is not None for t in ttfts)
    assert ttfts == sorted(ttfts) and ttfts[0] > light.ttft_p95_s  # type: ignore[operator]
    # near the full cache every slot is busy often enough to queue: the p95s wait alike
    full = loads[-1]
    assert full.p95_latency_s is not None and full.ttft_p95_s is not None
    waited = full.p95_latency_s - full.request_latency_s
    assert waited > 0
    step = (full.request_latency_s - prefill) / 256
    assert full.ttft_p95_s == pytest.approx(waited + prefill + 1.5 * step)
    # overloaded: no wait to give, so no time to first token (never read as within a target)
    assert serving_estimate(d, requests_per_s=2 * cap, **LOAD).ttft_p95_s is None


def test_the_gpus_a_service_needs_meet_its_time_to_first_token_target() -> None:
    d = _decode()
    cap = serving_estimate(d, requests_per_s=1e-3, **LOAD).capacity_requests_per_s
    load = {"requests_per_s": 0.99 * cap, **LOAD}  # one replica's worth, near its full cache
    one = serving_estimate(d, **load, replicas=1)
    two = serving_estimate(d, **load, replicas=2)
    assert one.ttft_p95_s is not None and two.ttft_p95_s is not None and two.ttft_p95_s < one.ttft_p95_s
    headroom = serving_estimate(d, **load).gpus_needed
    assert headroom == 2  # 99 % of one replica at 80 % busy
    at = serving_estimate(d, **load, replicas=headroom)
    assert at.ttft_p95_s is not None
    tight = serving_estimate(d, **load, ttft_target_s=at.ttft_p95_s * 0.97).gpus_needed
    assert tight > headroom
    met = serving_estimate(d, **load, replicas=tight)
    assert met.ttft_p95_s is not None and met.ttft_p95_s <= at.ttft_p95_s * 0.97
    assert serving_estimate(d, **load, ttft_target_s=at.ttft_p95_s * 1.1).gpus_needed == headroom
    # below the prefill no number of replicas reaches it: the headroom's count stands
    assert serving_estimate(d, **load, ttft_target_s=512 / d.prefill_tokens_per_s / 2).gpus_needed == headroom
