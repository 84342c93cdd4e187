"""A replica's serving capacity as ``estimate`` and ``plan`` take it, against the replica ``simulate
autoscale`` runs with every slot busy (``benchmarks/capacity_check.py`` prints the whole grid, with
the iteration-level replica beside it).

The two share the iteration model and the engine's cap on running sequences; they differ in the
context each running sequence is taken to hold: the estimate a whole request (prompt + output, the
mean a running sequence holds when answer lengths are spread as an exponential distribution:
length-biased), the simulation prompt + half the output (every answer the same length). Where the
KV cache limits the batch (long answers on a 24 GiB card) the estimate serves down to 0.55 of the
simulation's figure; with long prompts on an engine that runs them in iterations of their own
(vLLM 0.6, SGLang) up to 1.08 of it (the separate prompt iterations' own CPU work). Both hold the
KV cache the engine's share of the GPU leaves (``perf/engine_memory.py``).
"""

from __future__ import annotations

import numpy as np
import pytest

from azure_traces import llama_8b
from gpuplan.hardware import get_gpu
from gpuplan.perf.sweep import estimate_all
from gpuplan.perf.workload_request import request_for, serving_load
from gpuplan.simulate.replica import ServingStack, estimator_replica
from gpuplan.workload.spec import load_workload

GPUS = ("L4", "A10G", "RTX-4090", "A100-SXM4-80GB", "H100-SXM")
LENGTHS = ((512, 256), (128, 512), (2048, 128), (1024, 1024))
ENGINES = ("vllm==0.6.6", "vllm==0.8.5", "vllm==0.14.0", "sglang==0.4.6")
#: The band the README states: the estimate's capacity over the simulation's, on this grid.
BAND = (0.55, 1.08)


def _service(prompt: int, output: int, engine: str):  # type: ignore[no-untyped-def]
    return load_workload(
        {
            "name": "llama8b-chat-service",
            "task": "infer",
            "model": {"preset": "llama-8b"},
            "inputs": {"batch_size": 16, "seq_len": 768},
            "precision": "bf16",
            "serving": {
                "requests_per_s": 1,
                "prompt_tokens": prompt,
                "output_tokens": output,
                "engine": engine,
            },
        }
    )


def _both(gpu_id: str, prompt: int, output: int, engine: str) -> tuple[float, float, int, int]:
    """(estimate's capacity, simulation's capacity, estimate's sequences, simulation's slots)."""
    from gpuplan.perf.workload_request import serving_engine

    w, prof, g = _service(prompt, output, engine), llama_8b(), get_gpu(gpu_id)
    (outcome,) = estimate_all([request_for(w, prof, g)], serving=serving_load(w), with_advice=False)
    assert outcome.serving is not None and outcome.decode is not None
    s = w.serving
    assert s is not None
    stack = ServingStack(
        engine_cpu=serving_engine(w), engine_name=s.engine_name, engine_version=s.engine_version
    )
    rep, _ = estimator_replica(
        prof, g, stack, prompt_tokens=np.array([prompt]), output_tokens=np.array([output])
    )
    held = rep.service_s(np.array([float(prompt)]), np.array([float(output)]), running=rep.slots)[0]
    return (
        outcome.serving.capacity_requests_per_s,
        rep.slots / float(held),
        outcome.decode.max_concurrent_sequences,
        rep.slots,
    )


def test_the_estimates_capacity_stays_in_the_stated_band_of_the_simulated_replicas() -> None:
    ratios = {
        (gpu, p, o, e): _both(gpu, p, o, e)[0] / _both(gpu, p, o, e)[1]
        for gpu in GPUS
        for p, o in LENGTHS
        for e in ENGINES
    }
    outside = {case: round(r, 3) for case, r in ratios.items() if not BAND[0] <= r <= BAND[1]}
    assert not outside
    # The README's example service on an RTX 4090: 44 sequences of 768 tokens against 53 of 640.
    assert 0.8 < ratios["RTX-4090", 512, 256, "vllm==0.8.5"] < 0.9


@pytest.mark.parametrize("gpu", ["H100-SXM", "A100-SXM4-80GB"])
def test_the_estimate_runs_the_engines_sequences_and_its_prompt_iterations(gpu: str) -> None:
    # vLLM 0.6 runs at most 256 sequences (max_num_seqs), where an 80 GB GPU's KV cache holds 719
    # of 640 tokens of an 8B model, and it runs prompts in iterations of their own: with 128-token
    # prompts and 512-token answers one for every other decode step, each costing its fixed time.
    # was (H100): 719 sequences, 23.4 requests/s against the simulated replica's 14.1; with the cap
    # alone 15.2 (prompts at the prefill rate); now 13.1
    est, sim, seqs, slots = _both(gpu, 128, 512, "vllm==0.6.6")
    assert seqs == slots == 256
    assert 0.9 * sim <= est <= sim
