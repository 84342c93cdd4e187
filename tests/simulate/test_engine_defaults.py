"""A replica runs with the scheduling defaults of the engine the workload names, at its version.

vLLM before V1 runs whole prompts in iterations of their own with no prefix cache; vLLM V1
packs decodes and prompt chunks into one budget (8192 tokens and 1024 sequences on a GPU of 70 GiB
or more; from 0.9 not on the A100); SGLang runs prompts first, up to 16384 tokens an iteration,
its radix cache on, its memory share by GPU count (0.4) or by what it reserves (0.5).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from gpuplan.errors import WorkloadError
from gpuplan.hardware import get_gpu
from gpuplan.perf.engine_cpu import named_engine
from gpuplan.perf.engine_memory import engine_memory
from gpuplan.perf.memory import usable_memory_gib
from gpuplan.profile.model import Profile
from gpuplan.simulate.batching import EngineSettings
from gpuplan.simulate.engines import engine_defaults
from gpuplan.simulate.replica import ServingStack, estimator_replica
from gpuplan.workload import Workload, load_workload

ROOT = Path(__file__).resolve().parents[2]
PROFILE = ROOT / "tests" / "perf" / "fixtures" / "known" / "llama7b-infer-bf16.json"
H100, A100, L4 = get_gpu("H100-SXM"), get_gpu("A100-SXM4-80GB"), get_gpu("L4")


def test_vllm_by_version() -> None:
    v0 = engine_defaults(H100, "vllm", (0, 6))
    assert (v0.max_num_seqs, v0.max_batched_tokens, v0.chunked_prefill, v0.prefix_caching) == (
        256,
        2048,
        False,
        False,
    )
    assert "nearest documented" not in v0.source
    assert "vllm 0.5: nearest documented" in engine_defaults(H100, "vllm", (0, 5)).source
    v08 = engine_defaults(A100, "vllm", (0, 8))  # 0.8.5: every GPU of 70 GiB, the A100 too
    assert (v08.max_num_seqs, v08.max_batched_tokens, v08.chunked_prefill, v08.prefix_caching) == (
        1024,
        8192,
        True,
        True,
    )
    assert engine_defaults(A100, "vllm", (0, 10)).max_batched_tokens == 2048  # PR #17885
    assert engine_defaults(L4, "vllm", (0, 8)).max_batched_tokens == 2048
    assert "vllm 0.19: nearest documented" in engine_defaults(H100, "vllm", (0, 19)).source
    # 0.12 and 0.13 lie between 0.11 and 0.14.0, read with the same get_batch_defaults
    assert "nearest documented" not in engine_defaults(H100, "vllm", (0, 14)).source
    assert "nearest documented" not in engine_defaults(H100, "vllm", (0, 12)).source
    assert "vllm 0.15: nearest documented" in engine_defaults(H100, "vllm", (0, 15)).source
    # was: "version not stated: taken as 0.11" beside a deployment of 0.14.0
    assert engine_defaults(H100, "vllm").source.endswith(
        "; version not stated: the one `gpuplan deploy` runs, vLLM 0.14.0"
    )
    assert "no engine named: vLLM's" in engine_defaults(H100).source


def test_sglang_by_version_and_gpu_memory() -> None:
    s04 = engine_defaults(H100, "sglang", (0, 4))
    assert (s04.max_batched_tokens, s04.chunked_prefill, s04.prefix_caching) == (16384, False, True)
    assert s04.memory_fraction == 0.88
    assert engine_defaults(H100, "sglang", (0, 4), tensor_parallel=8).memory_fraction == 0.81
    assert "chunked_prefill_size 2048" in engine_defaults(L4, "sglang", (0, 4)).source  # < 25,000 MiB
    s05 = engine_defaults(H100, "sglang", (0, 5))
    # An H100's memory as nvidia-smi reports it (78.8 GiB here): 9.5 + 1/2 GiB reserved below 90.
    assert s05.memory_fraction == pytest.approx(1 - 10.0 / usable_memory_gib(H100), abs=1e-3)
    assert "chunked_prefill_size 8192" in s05.source
    assert "chunked_prefill_size 16384" in engine_defaults(get_gpu("B200"), "sglang", (0, 5)).source
    # was: "taken as 0.5" (0.5.2's defaults) beside a deployment of 0.4.0.post1
    assert engine_defaults(H100, "sglang").source.endswith(
        "; version not stated: the one `gpuplan deploy` runs, SGLang 0.5.2"
    )
    assert engine_defaults(H100, "sglang").memory_fraction == s05.memory_fraction


def test_named_engine_reads_a_software_text() -> None:
    assert named_engine("vLLM v0.11.0 (vllm serve Qwen/Qwen3-14B)") == ("vllm", (0, 11))
    assert named_engine("SGLang v0.4.1") == ("sglang", (0, 4))
    assert named_engine("vLLM (version not stated)") == ("vllm", None)
    assert named_engine("TGI 2.0") == (None, None)


def test_the_simulation_takes_the_named_engines_defaults() -> None:
    prof = Profile.from_json(PROFILE.read_text(encoding="utf-8"))
    lengths = {"prompt_tokens": np.array([512.0]), "output_tokens": np.array([256.0])}
    vllm, _ = estimator_replica(
        prof, H100, ServingStack(engine_name="vllm", engine_version=(0, 8)), **lengths
    )
    sglang, _ = estimator_replica(
        prof, H100, ServingStack(engine_name="sglang", engine_version=(0, 4)), **lengths
    )
    assert vllm.engine is not None and sglang.engine is not None
    assert vllm.engine.chunked_prefill and not sglang.engine.chunked_prefill
    assert "SGLang 0.4.6 defaults" in sglang.source and "whole-prompt prefill" in sglang.source
    # SGLang's 0.88 of memory against vLLM's 0.9, whose share also holds its activations at its
    # 8192-token budget (perf/engine_memory.py): 0.02 × 78.8 GiB less those, at 512 KiB a token.
    assert vllm.step is not None and sglang.step is not None
    held = engine_memory(prof, H100, engine_defaults(H100, "vllm", (0, 8)))
    assert held is not None and held.tokens == 8192
    fewer = vllm.step.kv_capacity_tokens - sglang.step.kv_capacity_tokens
    room = 0.02 * usable_memory_gib(H100) - held.activations_gib[1]
    assert fewer == pytest.approx(room * 2**30 / vllm.step.kv_bytes_per_token, abs=16)  # vLLM's blocks


def _service(**serving: object) -> Workload:
    spec = yaml.safe_load((ROOT / "examples" / "llm-inference-service.yaml").read_text(encoding="utf-8"))
    spec["serving"] = {**spec["serving"], **serving}
    return load_workload(spec)


def test_prefix_caching_is_a_serving_key_over_the_engines_default() -> None:
    assert _service().serving.prefix_caching is None  # type: ignore[union-attr]
    off = _service(engine="sglang==0.4.6", prefix_caching=False).serving
    assert off is not None and off.prefix_caching is False
    with pytest.raises(WorkloadError, match="prefix_caching"):
        _service(prefix_caching="maybe")
    prof = Profile.from_json(PROFILE.read_text(encoding="utf-8"))
    lengths = {"prompt_tokens": np.array([512.0]), "output_tokens": np.array([256.0])}

    def engine(name: str, version: tuple[int, int], caching: bool | None) -> EngineSettings:
        stack = ServingStack(engine_name=name, engine_version=version, prefix_caching=caching)
        replica, _ = estimator_replica(prof, H100, stack, **lengths)
        assert replica.engine is not None
        return replica.engine

    assert engine("sglang", (0, 4), None).prefix_caching  # the radix cache, on by default
    said = engine("sglang", (0, 4), False)
    assert not said.prefix_caching and "prefix caching off (serving.prefix_caching)" in said.source
    assert not engine("vllm", (0, 6), None).prefix_caching  # V0: off by default
    assert engine("vllm", (0, 6), True).prefix_caching
    assert "serving.prefix_caching" not in engine("vllm", (0, 8), True).source  # the default said again
