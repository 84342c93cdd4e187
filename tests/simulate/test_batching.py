"""The iteration-level replica: continuous batching as vLLM schedules it, checked by hand arithmetic."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from gpuplan.errors import GpuplanError, InputError
from gpuplan.hardware import get_gpu
from gpuplan.perf.engine_cpu import (
    NO_ENGINE,
    SGLANG_OVERLAP,
    SGLANG_SYNC,
    VLLM_V1_ASYNC,
    VLLM_V1_SYNC,
    engine_cpu,
)
from gpuplan.perf.inference import StepModel
from gpuplan.simulate.batching import EngineSettings, parse_engine, run_replica
from gpuplan.simulate.engines import engine_defaults

# A replica whose iteration time is easy to follow: 10 ms to read the weights, 1 µs per token of
# KV cache read, 100 µs per prompt token, no floor, no host or tensor-parallel time.
MODEL = StepModel(
    gpu="test",
    tensor_parallel=1,
    weights_bytes=1e7,
    kv_bytes_per_token=1e3,
    bandwidth_bytes_per_s=1e9,
    decode_s_per_token=0.0,
    attention_s_per_context_token=0.0,
    prefill_s_per_token=1e-4,
    floor_s=0.0,
    host_s=0.0,
    comm_fixed_s=0.0,
    comm_s_per_token=0.0,
    kv_capacity_tokens=100_000,
)
ENGINE = EngineSettings(max_num_seqs=64, max_batched_tokens=2048)


def test_one_request_alone_takes_its_prefill_then_one_decode_step_per_token() -> None:
    run = run_replica(MODEL, ENGINE, np.array([1000]), np.array([11]), arrival_s=np.array([0.0]))
    # Prefill: max(10 ms weights, 1000 × 100 µs = 100 ms) = 100 ms, which also yields token 1.
    assert run.ttft_s[0] == pytest.approx(0.100)
    # Then 10 decode steps over contexts 1000 … 1009: 10 ms + 1,000-1,009 tokens × 1 µs each.
    steps = sum(0.010 + (1000 + k) * 1e-6 for k in range(10))
    assert run.finish_s[0] == pytest.approx(0.100 + steps)
    assert run.tpot_s[0] == pytest.approx(steps / 10)


def test_a_long_prompt_is_chunked_across_iterations_by_the_token_budget() -> None:
    run = run_replica(MODEL, ENGINE, np.array([5000]), np.array([1]), arrival_s=np.array([0.0]))
    # 2048 + 2048 + 904 tokens: three iterations at 100 µs per token, 500 ms in all.
    assert run.ttft_s[0] == pytest.approx(0.5)
    assert run.iterations == 3
    assert np.isnan(run.tpot_s[0])  # one output token: no time per output token


def test_prefill_and_decode_share_iterations_and_whole_prompts_stall_decodes() -> None:
    prompts, outputs = np.array([100, 1000]), np.array([50, 2])
    arrivals = np.array([0.0, 0.05])
    chunked = run_replica(MODEL, ENGINE, prompts, outputs, arrival_s=arrivals)
    whole = run_replica(MODEL, replace(ENGINE, chunked_prefill=False), prompts, outputs, arrival_s=arrivals)
    # Chunked: the second prompt runs beside the first request's decode step (one longer step).
    # Whole prompts: it runs alone, and the first request waits for it; both end later or equal.
    assert chunked.finish_s[0] <= whole.finish_s[0]
    assert chunked.iterations < whole.iterations


def test_kv_cache_capacity_limits_the_sequences_that_run_at_once() -> None:
    small = replace(MODEL, kv_capacity_tokens=2_000)
    n = 10
    run = run_replica(small, ENGINE, np.full(n, 300), np.full(n, 100), arrival_s=np.zeros(n))
    assert np.all(np.isfinite(run.finish_s))
    # 2,000 tokens hold six 300-token prompts (in 16-token blocks: 6 × 304 = 1,824), never ten;
    # as they grow, the newest is preempted and computed again later.
    marks = np.sort(np.concatenate([run.admitted_s, run.finish_s]))
    running = max(int(np.sum((run.admitted_s <= x) & (run.finish_s > x))) for x in marks)
    assert running <= 6
    roomy = run_replica(MODEL, ENGINE, np.full(n, 300), np.full(n, 100), arrival_s=np.zeros(n))
    # With room, the token budget decides: 6 prompts whole and 248 tokens of a 7th fill the first
    # iteration's 2,048 tokens; the other three start in the next one.
    assert int(np.sum(roomy.admitted_s == 0.0)) == 7


def test_a_preempted_request_finds_the_prefix_nobody_took_in_the_prefix_cache() -> None:
    small = replace(MODEL, kv_capacity_tokens=1_000)
    prompts, outputs = np.array([480, 480]), np.array([100, 100])
    cached = run_replica(small, ENGINE, prompts, outputs, arrival_s=np.zeros(2))
    erased = run_replica(
        small, replace(ENGINE, prefix_caching=False), prompts, outputs, arrival_s=np.zeros(2)
    )
    # Both prompts fill 960 tokens; 20 decode steps fill the other 40; the second request is
    # preempted with 500 tokens in the cache (480 + 20 generated, one more sampled: 21 to resume).
    assert cached.preemptions == erased.preemptions == 1
    # The first request's 79 remaining tokens take the front of the free queue: the preempted
    # request's blocks, tail first. 500 − 79 = 421 tokens of its prefix remain, 26 full blocks of
    # 16 = 416; it computes 480 + 21 − 416 = 85 tokens, 500 − 416 = 84 of them a second time.
    assert cached.recomputed_tokens == 84
    # Without prefix caching it computes all 500 again.
    assert erased.recomputed_tokens == 500
    # 416 tokens fewer at 100 µs each: the second request ends ~41.6 ms sooner (less the 10 ms
    # weight-read floor of the shorter iteration), the first one as before.
    assert cached.finish_s[0] == erased.finish_s[0]
    assert erased.finish_s[1] - cached.finish_s[1] == pytest.approx(0.0416, abs=0.002)


def test_decode_steps_grow_with_the_batch_tokens() -> None:
    one = run_replica(MODEL, ENGINE, np.array([2000]), np.array([100]), arrival_s=np.zeros(1))
    many = run_replica(MODEL, ENGINE, np.full(32, 2000), np.full(32, 100), arrival_s=np.zeros(32))
    assert np.nanmean(many.tpot_s) > 2 * np.nanmean(one.tpot_s)


def test_closed_loop_keeps_at_most_its_concurrency_in_flight() -> None:
    n, c = 40, 4
    run = run_replica(MODEL, ENGINE, np.full(n, 200), np.full(n, 20), concurrency=c)
    assert np.all(np.isfinite(run.finish_s))
    t = np.sort(np.concatenate([run.sent_s, run.finish_s]))
    in_flight = [np.sum((run.sent_s <= x) & (run.finish_s > x)) for x in t]
    assert max(in_flight) == c


def test_every_request_of_a_busy_stream_finishes_once_with_positive_latencies() -> None:
    rng = np.random.default_rng(3)
    n = 400
    arrivals = np.sort(rng.random(n) * 20)
    run = run_replica(
        replace(MODEL, kv_capacity_tokens=20_000),
        ENGINE,
        rng.integers(10, 3000, n),
        rng.integers(1, 300, n),
        arrival_s=arrivals,
    )
    assert np.all(np.isfinite(run.finish_s))
    assert np.all(run.ttft_s > 0) and np.all(run.e2e_s >= run.ttft_s)
    assert np.all(run.queue_s >= 0)


def test_defaults_follow_vllm_and_settings_parse_in_one_line() -> None:
    l4 = get_gpu("L4")
    assert engine_defaults(get_gpu("H100-SXM")).max_batched_tokens == 8192
    assert engine_defaults(get_gpu("A100-SXM4-80GB")).max_batched_tokens == 2048  # vLLM PR #17885
    assert engine_defaults(l4).max_num_seqs == 256
    s = parse_engine("max_num_seqs=32,chunked_prefill=off", engine_defaults(l4))
    assert (s.max_num_seqs, s.chunked_prefill, s.max_batched_tokens) == (32, False, 2048)
    assert engine_defaults(l4).prefix_caching and not s.prefix_caching  # V1 on, V0 off
    kept = parse_engine("chunked_prefill=off,prefix_caching=on", engine_defaults(l4))
    assert not kept.chunked_prefill and kept.prefix_caching
    assert not parse_engine("prefix_caching=off", engine_defaults(l4)).prefix_caching
    for bad in (
        "max_num_seq=3",
        "max_num_seqs=0",
        "max_num_seqs=\u00b2",
        "chunked_prefill=maybe",
        "prefix_caching=1",
    ):
        with pytest.raises(GpuplanError):
            parse_engine(bad, ENGINE)
    with pytest.raises(InputError, match="does not fit"):
        run_replica(
            replace(MODEL, kv_capacity_tokens=100),
            ENGINE,
            np.array([200]),
            np.array([1]),
            arrival_s=np.zeros(1),
        )


def test_the_iteration_model_and_the_replica_carry_the_engines_cpu_time() -> None:
    # A 10 ms decode step (the weight read): vLLM 0.11 adds 2.9 ms, vLLM 0.19 hides it.
    sync = replace(MODEL, engine=engine_cpu("vLLM 0.11.0"))
    overlapped = replace(MODEL, engine=engine_cpu("vLLM 0.19.0"))
    assert MODEL.iteration_s(1, 0, 0) == pytest.approx(0.010)
    assert sync.iteration_s(1, 0, 0) == pytest.approx(0.010 + SGLANG_SYNC.step_s)
    assert overlapped.iteration_s(1, 0, 0) == pytest.approx(0.010)
    # The replica's vectorised decode stretch takes the same step as the one-iteration path.
    runs = {
        m.engine.name: run_replica(m, ENGINE, np.array([10]), np.array([101]), arrival_s=np.array([0.0]))
        for m in (MODEL, sync, overlapped)
    }
    base = runs[NO_ENGINE.name].tpot_s[0]
    assert runs[VLLM_V1_SYNC.name].tpot_s[0] == pytest.approx(base + SGLANG_SYNC.step_s)
    assert runs[VLLM_V1_ASYNC.name].tpot_s[0] == pytest.approx(base)


def test_tensor_parallel_collectives_are_gpu_work_the_cpu_overlaps() -> None:
    tp = replace(MODEL, comm_fixed_s=2e-3, engine=SGLANG_OVERLAP)
    # 10 ms of kernels + 2 ms of all-reduces on the GPU; 2.9 ms on the CPU beside them.
    assert tp.iteration_s(1, 0, 0) == pytest.approx(0.012)
    assert replace(tp, engine=SGLANG_SYNC).iteration_s(1, 0, 0) == pytest.approx(0.012 + SGLANG_SYNC.step_s)


def test_the_replica_says_what_cpu_work_it_counted() -> None:
    from gpuplan.simulate import replica_from_step

    words = {
        m.engine.name: replica_from_step(m, ENGINE, mean_prompt_tokens=100, mean_output_tokens=50).source
        for m in (MODEL, replace(MODEL, engine=SGLANG_SYNC), replace(MODEL, engine=SGLANG_OVERLAP))
    }
    assert "CPU" not in words[NO_ENGINE.name]
    assert "CPU work 2.9 ms per iteration, added to the GPU's time" in words[SGLANG_SYNC.name]
    assert "CPU work 2.9 ms per iteration, overlapped with the GPU's work" in words[SGLANG_OVERLAP.name]
