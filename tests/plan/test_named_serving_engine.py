"""A workload names its serving engine (``serving.engine: vllm==0.8.5``), and every place that sizes
a service takes that engine's CPU work per iteration: the estimate, the planner, the serving
simulation's replica. An engine named without a version, or none, is taken not to overlap it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

import gpuplan.perf
from gpuplan.api import estimate, plan
from gpuplan.catalog import Store, open_store
from gpuplan.cli import app
from gpuplan.errors import WorkloadError
from gpuplan.hardware import get_gpu
from gpuplan.perf.engine_cpu import (
    SGLANG_OVERLAP,
    SGLANG_SYNC,
    UNKNOWN_ENGINE,
    VLLM_V0,
    VLLM_V1_ASYNC,
    VLLM_V1_SYNC,
)
from gpuplan.perf.workload_request import serving_engine
from gpuplan.profile.model import Profile
from gpuplan.simulate.replica import ServingStack, estimator_replica
from gpuplan.workload import Workload, load_workload

ROOT = Path(__file__).resolve().parents[2]
SERVICE = ROOT / "examples" / "llm-inference-service.yaml"
PROFILE = ROOT / "tests" / "perf" / "fixtures" / "known" / "llama7b-infer-bf16.json"


def _service(engine: object) -> Workload:
    spec = yaml.safe_load(SERVICE.read_text(encoding="utf-8"))
    spec["serving"] = {**spec["serving"], "engine": engine}
    return load_workload(spec)


def _profile() -> Profile:
    return Profile.from_json(PROFILE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def store(seeded_copy: Callable[[str], Path]) -> Iterator[Store]:
    st = open_store(str(seeded_copy("engine")))
    yield st
    st.close()


@pytest.mark.parametrize(
    ("written", "kept", "engine"),
    [
        ("vllm==0.5.4", "vllm==0.5.4", VLLM_V0),
        ("vllm==0.8.5", "vllm==0.8.5", VLLM_V1_SYNC),
        ("vLLM == v0.14.0", "vllm==0.14.0", VLLM_V1_ASYNC),
        ("vllm==1.2.0rc1", "vllm==1.2.0rc1", VLLM_V1_ASYNC),
        ("sglang==0.3.6", "sglang==0.3.6", SGLANG_SYNC),
        ("sglang==0.4.1.post2", "sglang==0.4.1.post2", SGLANG_OVERLAP),
    ],
)
def test_a_named_engine_and_version_give_that_engines_cpu_work(
    written: str, kept: str, engine: object
) -> None:
    w = _service(written)
    assert w.serving is not None and w.serving.engine == kept
    assert serving_engine(w) == engine


def test_an_engine_without_a_version_is_taken_not_to_overlap_and_says_which() -> None:
    for name, words in (("vllm", "vLLM of no stated version"), ("sglang", "SGLang of no stated version")):
        cpu = serving_engine(_service(name))
        assert cpu is not None and not cpu.overlapped
        assert (cpu.step_s, cpu.overlapped) == (UNKNOWN_ENGINE.step_s, UNKNOWN_ENGINE.overlapped)
        assert cpu.name.startswith(words)
    assert serving_engine(load_workload(SERVICE)) is UNKNOWN_ENGINE  # none named


@pytest.mark.parametrize(
    ("written", "words"),
    [
        ("vlm==0.8.5", "unknown serving engine 'vlm'; did you mean 'vllm'?"),
        ("sglng", "did you mean 'sglang'?"),
        ("tensorrt-llm", "use one of: vllm, sglang"),
        ("vllm>=0.8", 'write the engine as "vllm==0.8.5"'),
        ("vllm 0.8.5", 'write the engine as "vllm==0.8.5"'),
        ("vllm==latest", "engine version 'latest': write it as numbers"),
        (0.8, 'write the engine as "vllm==0.8.5"'),  # an unquoted YAML number is not an engine
    ],
)
def test_a_wrong_engine_is_one_line_naming_the_field(written: object, words: str) -> None:
    with pytest.raises(WorkloadError) as e:
        _service(written)
    assert str(e.value).startswith("serving.engine: ") and words in str(e.value)
    assert "\n" not in str(e.value)


def test_the_cli_refuses_a_misspelt_engine_naming_file_and_field(tmp_path: Path) -> None:
    spec = yaml.safe_load(SERVICE.read_text(encoding="utf-8"))
    spec["serving"]["engine"] = "vlm==0.8.5"
    job = tmp_path / "service.yaml"
    job.write_text(yaml.safe_dump(spec), encoding="utf-8")
    r = CliRunner().invoke(app, ["estimate", str(job), "--gpu", "H100-SXM"])
    # The command raises the library's error; the entry point prints it as one line and exits 1.
    assert isinstance(r.exception, WorkloadError)
    assert str(r.exception).endswith("serving.engine: unknown serving engine 'vlm'; did you mean 'vllm'?")


def test_the_estimate_takes_the_named_engine_and_its_caption_says_which() -> None:
    named = estimate(_service("vllm==0.14.0"), ["H100-SXM"], profile=_profile())
    unnamed = estimate(load_workload(SERVICE), ["H100-SXM"], profile=_profile())
    (a,), (b,) = named.outcomes, unnamed.outcomes
    assert a.decode is not None and b.decode is not None
    assert a.decode.engine == VLLM_V1_ASYNC and b.decode.engine is UNKNOWN_ENGINE
    # Overlapped, the engine's 2.9 ms hide behind the GPU's work: more tokens/s than in turn.
    assert a.decode.tokens_per_s > b.decode.tokens_per_s


def test_the_estimate_json_and_table_name_the_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from gpuplan.cli import estimate_cmds

    prof = _profile()
    monkeypatch.setattr(estimate_cmds, "load_profile", lambda workload, db, saved=None, **kw: prof)
    spec = yaml.safe_load(SERVICE.read_text(encoding="utf-8"))
    spec["serving"]["engine"] = "vllm==0.8.5"
    job = tmp_path / "service.yaml"
    job.write_text(yaml.safe_dump(spec), encoding="utf-8")
    r = CliRunner().invoke(app, ["estimate", str(job), "--gpu", "H100-SXM", "--json"])
    assert r.exit_code == 0, r.output
    decode = json.loads(r.stdout)["estimates"][0]["decode"]
    assert decode["engine"] == VLLM_V1_SYNC.name and decode["engine_overlapped"] is False
    table = CliRunner().invoke(app, ["estimate", str(job), "--gpu", "H100-SXM"], env={"COLUMNS": "250"})
    joined = " ".join(table.stdout.split())
    assert "vLLM V1, 0.8 to 0.13 (synchronous scheduling): each iteration also waits 2.9 ms" in joined


def test_the_planner_sizes_a_service_with_the_named_engine(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Any] = []
    real = gpuplan.perf.decode_estimate

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(kwargs.get("engine"))
        return real(*args, **kwargs)

    monkeypatch.setattr(gpuplan.perf, "decode_estimate", spy)
    made = plan(_service("sglang==0.4.1"), store=store, profile=_profile(), providers=["aws"])
    assert seen and all(e == SGLANG_OVERLAP for e in seen)
    # The plan says which engine it took.
    said = "serving engine: SGLang v0.4 on (overlap scheduler), its CPU work"
    assert any(n.startswith(said) for n in made.notes)
    # and what load its latency figures are for: requests of the serving block's lengths, at random
    (latency,) = [n for n in made.notes if n.startswith("service latency: ")]
    assert "requests of 512 prompt and 256 answer tokens (the mean) arriving at random" in latency, latency
    assert "a 827-token answer" in latency and "a 1829-token prompt" in latency, latency
    assert "gpuplan simulate autoscale WORKLOAD --trace FILE.csv" in latency


def test_the_serving_simulation_takes_the_named_engine() -> None:
    prof, gpu = _profile(), get_gpu("H100-SXM")
    lengths = {"prompt_tokens": np.array([512.0]), "output_tokens": np.array([256.0])}
    unnamed, _ = estimator_replica(prof, gpu, ServingStack(), **lengths)
    named, _ = estimator_replica(
        prof, gpu, ServingStack(engine_cpu=serving_engine(_service("vllm==0.14"))), **lengths
    )
    assert unnamed.step.engine is UNKNOWN_ENGINE and named.step.engine == VLLM_V1_ASYNC
    assert named.time_per_output_token_1_s < unnamed.time_per_output_token_1_s
    assert "vLLM V1 from 0.14 (asynchronous scheduling): its CPU work 2.9 ms per iteration" in named.source
