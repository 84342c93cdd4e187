"""A service's fit is the serving engine's memory (its share of the GPU), not a traced forward pass."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from perf_helpers import GIB, SIMPLE_CAL, breakdown, make_profile, op

from gpuplan.api import plan
from gpuplan.catalog import Store, open_store
from gpuplan.hardware import get_gpu
from gpuplan.perf.engine_memory import engine_memory
from gpuplan.perf.engines import engine_defaults
from gpuplan.perf.estimate import EstimateRequest, run_estimate
from gpuplan.perf.inference import decode_estimate
from gpuplan.perf.memory import memory_estimate, usable_memory_gib
from gpuplan.profile.model import ModelShape, Profile
from gpuplan.vocab import MemoryVerdict
from gpuplan.workload import Workload, load_workload

#: Qwen2.5-14B-Instruct's shape (its config.json), as traced for inference at batch 32 × 1100
#: tokens: 27.51 GiB of bf16 weights and 56.63 GiB of activations at the traced peak (the logits of
#: every position among them), 84.1 GiB allocated in all.
QWEN25_14B = ModelShape(
    family="decoder",
    num_layers=48,
    hidden_size=5120,
    num_attention_heads=40,
    num_kv_heads=8,
    head_dim=128,
    vocab_size=152064,
)
LLAMA_70B = ModelShape(
    family="decoder",
    num_layers=80,
    hidden_size=8192,
    num_attention_heads=64,
    num_kv_heads=8,
    head_dim=128,
    vocab_size=128256,
)
CONTEXT = 800 + 300  # prompt_tokens + output_tokens


def _infer(shape: ModelShape, params: int, activations_gib: float, batch: int = 32) -> Profile:
    return make_profile(
        ops=(op("forward", flops=2.0 * params * batch * 1100),),
        peak=breakdown(parameters=2.0 * params, activations=activations_gib * GIB),
        precision="bf16",
        task="infer",
        batch_size=batch,
        seq_len=1100,
        params=params,
        shape=shape,
    )


def _qwen14b(batch: int = 32) -> Profile:
    return _infer(QWEN25_14B, 14_770_033_664, 56.63 * batch / 32, batch)


def _request(profile: Profile, gpu_id: str, *, served: bool, engine: str = "vllm") -> EstimateRequest:
    gpu = get_gpu(gpu_id)
    version = (0, 8) if engine == "vllm" else (0, 4)
    return EstimateRequest(
        profile=profile,
        gpu=gpu,
        calibration=SIMPLE_CAL,
        serving_scheduler=engine_defaults(gpu, engine, version) if served else None,
        serving_context_tokens=CONTEXT if served else None,
    )


@pytest.mark.parametrize("gpu_id", ["H100-SXM", "A100-SXM4-80GB"])
def test_a_14b_service_fits_by_the_engines_memory_where_its_traced_forward_may_not(gpu_id: str) -> None:
    profile = _qwen14b()
    # Plain batch inference (no engine) keeps the traced forward pass: 27.51 + 56.63 GiB allocated,
    # its band straddling the 78.8 GiB usable.
    plain = run_estimate(_request(profile, gpu_id, served=False))
    traced = memory_estimate(profile.peak.total_bytes, get_gpu(gpu_id), has_conv=False, memory_band=1.10)
    assert plain.memory == traced
    assert plain.memory_verdict is MemoryVerdict.MAY_NOT_FIT

    served = run_estimate(_request(profile, gpu_id, served=True))
    m = served.memory
    # vLLM 0.8.5 on an 80 GB GPU: gpu_memory_utilization 0.9 of 80 × 0.985 = 78.8 GiB = 70.92 GiB
    share = 0.9 * usable_memory_gib(get_gpu(gpu_id))
    assert m.capacity_gib == pytest.approx(70.92)
    assert m.capacity_gib == pytest.approx(share)
    weights = 2.0 * 14_770_033_664 / GIB  # 27.51 GiB
    # activations at its 8192-token budget: per token 2 B × (the MLP's 44,643 intermediate
    # elements + 2 × 5120 residual) = 0.84 GiB; 1024 sequences' logits × 152,064 × 14 B = 2.03 GiB
    per_layer = (14_770_033_664 - 152064 * 5120) / 48
    mlp = (per_layer - 5120 * (40 + 16) * 128 - 5120 * 5120) / 5120
    act = (8192 * (mlp + 2 * 5120) * 2 + 1024 * 152064 * 14) / GIB
    assert act == pytest.approx(2.868, abs=1e-3)
    # one request: 1100 tokens in 69 blocks of 16 = 1104 tokens × 196,608 B (2 × 48 × 8 × 128 × 2)
    sequence = 1104 * 196_608 / GIB
    assert m.required_gib == pytest.approx(weights + act * 1.02 + 1.79 + sequence)  # 32.43 GiB
    assert m.required_gib_high == pytest.approx(weights + act * 1.10 * 1.05 + 1.79 * 1.25 + sequence)
    assert served.memory_verdict is MemoryVerdict.FITS and served.fits
    # the engine's own footprint: its whole share, the KV cache filling what is left
    kv = share - weights - act * 1.02 - 1.79  # 38.69 GiB
    assert m.peak_memory_gib == pytest.approx(share)
    assert m.peak_allocated_gib == pytest.approx(weights + act * 1.02 + kv)
    # …and the generation figures read that same KV cache: whole blocks, whole requests
    tokens = math.floor(kv * GIB / (16 * 196_608)) * 16
    gpu = get_gpu(gpu_id)
    dec = decode_estimate(
        profile,
        gpu,
        calibration=SIMPLE_CAL,
        scheduler=engine_defaults(gpu, "vllm", (0, 8)),
        context_tokens=CONTEXT,
    )
    assert dec.max_concurrent_sequences == tokens // 1104 == 191
    assert dec.step is not None and dec.step.kv_capacity_tokens == tokens
    assert any("serving engine" in n for n in served.notes)


def test_the_engines_fit_does_not_move_with_the_traced_batch() -> None:
    # batch 8 and batch 32 of the same service: the engine runs neither
    small = run_estimate(_request(_qwen14b(8), "H100-SXM", served=True))
    large = run_estimate(_request(_qwen14b(32), "H100-SXM", served=True))
    assert small.memory == large.memory


def test_a_70b_service_on_one_80gb_gpu_is_still_refused() -> None:
    profile = _infer(LLAMA_70B, 70_553_706_496, 20.0, batch=8)
    est = run_estimate(_request(profile, "H100-SXM", served=True))
    # 131.4 GiB of bf16 weights alone are above the engine's 70.9 GiB
    assert est.memory.required_gib_low > est.memory.capacity_gib
    assert est.memory_verdict is MemoryVerdict.DOES_NOT_FIT and not est.fits
    assert est.memory.ruled_out


def test_sglang_keeps_its_activations_outside_its_share() -> None:
    profile = _qwen14b()
    gpu = get_gpu("H100-SXM")
    settings = engine_defaults(gpu, "sglang", (0, 4))
    held = engine_memory(profile, gpu, settings, context_tokens=CONTEXT, memory_band=1.10)
    assert held is not None and not held.activations_in_share
    # mem_fraction_static 0.88 of 78.8 GiB = 69.34 GiB: weights, outside PyTorch and the KV pool
    assert held.engine_gib == pytest.approx(0.88 * 78.8)
    assert held.kv_gib == pytest.approx(held.engine_gib - held.weights_gib - 1.79)
    est = run_estimate(_request(profile, "H100-SXM", served=True, engine="sglang"))
    # its share, what fills it: the weights, memory outside PyTorch and one request's KV cache
    assert est.memory.capacity_gib == pytest.approx(held.engine_gib)
    # (page size 1: the request's 1100 tokens exactly)
    assert est.memory.required_gib == pytest.approx(held.weights_gib + 1.79 + 1100 * 196_608 / GIB)
    assert est.memory_verdict is MemoryVerdict.FITS
    assert any("its activations and CUDA graphs use the rest of the GPU (9.5 GiB)" in n for n in est.notes)


@pytest.fixture(scope="module")
def store(seeded_copy: Callable[[str], Path]) -> Iterator[Store]:
    st = open_store(str(seeded_copy("engine")))
    yield st
    st.close()


def _service_workload(batch: int) -> Workload:
    return load_workload(
        {
            "name": "qwen25-14b-service",
            "task": "infer",
            "model": {"preset": "qwen3-14b"},  # the shape is the profile's, given below
            "inputs": {"batch_size": batch, "seq_len": 1100},
            "precision": "bf16",
            "serving": {
                "requests_per_s": 104,
                "prompt_tokens": 800,
                "output_tokens": 300,
                "engine": "vllm==0.8.5",
            },
        }
    )


def test_the_plan_ranks_80gb_options_for_the_14b_service_as_fitting(store: Store) -> None:
    # Every A100/H100 option had been flagged "may not fit" (its traced forward's 93 GiB) and
    # ranked after the options that fit; batch 8 instead of 32 had removed the flag.
    for batch in (32, 8):
        planned = plan(
            _service_workload(batch),
            store=store,
            profile=_qwen14b(batch),
            providers=["aws"],
            top=200,
        )
        big = [o for o in planned.options if o.gpu in ("A100-SXM4-80GB", "H100-SXM")]
        assert big, batch
        assert not any(o.memory_uncertain for o in big), batch
        # the engine's own footprint: vLLM's 0.9 of 78.8 GiB
        assert all(o.peak_memory_gib == pytest.approx(70.92) for o in big), batch
