"""A service is costed with its serving engine's CPU work per iteration wherever it is sized: the
estimate, the planner (and the serving simulation, which always took it). Before, the estimate and
the planner sized a service on a plain generation loop, the best case for an engine nobody named."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import gpuplan.perf
from gpuplan.api import estimate, plan
from gpuplan.catalog import Store, open_store
from gpuplan.perf.engine_cpu import UNKNOWN_ENGINE
from gpuplan.perf.workload_request import serving_engine
from gpuplan.profile.model import Profile
from gpuplan.workload import load_workload

ROOT = Path(__file__).resolve().parents[2]
SERVICE = ROOT / "examples" / "llm-inference-service.yaml"
PROFILE = ROOT / "tests" / "perf" / "fixtures" / "known" / "llama7b-infer-bf16.json"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    st = open_store(str(tmp_path_factory.mktemp("serving") / "catalog.sqlite"))
    yield st
    st.close()


def _profile() -> Profile:
    return Profile.from_json(PROFILE.read_text(encoding="utf-8"))


def test_a_service_runs_in_an_engine_of_no_stated_version_and_a_generation_loop_in_none() -> None:
    service = load_workload(SERVICE)
    assert serving_engine(service) is UNKNOWN_ENGINE
    assert serving_engine(service.model_copy(update={"serving": None})) is None


def test_the_estimate_of_a_service_waits_for_its_engine(store: Store) -> None:
    report = estimate(load_workload(SERVICE), ["H100-SXM"], profile=_profile())
    (outcome,) = report.outcomes
    assert outcome.decode is not None and outcome.decode.engine is UNKNOWN_ENGINE
    assert outcome.serving is not None


def test_the_planner_sizes_a_service_with_its_engine(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []
    real = gpuplan.perf.decode_estimate

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(kwargs.get("engine"))
        return real(*args, **kwargs)

    monkeypatch.setattr(gpuplan.perf, "decode_estimate", spy)
    plan(load_workload(SERVICE), store=store, profile=_profile(), providers=["aws"])
    assert seen and all(e is UNKNOWN_ENGINE for e in seen)
