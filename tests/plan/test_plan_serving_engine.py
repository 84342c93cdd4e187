"""A service is costed with its serving engine's CPU work per iteration wherever it is sized: the
estimate, the planner (and the serving simulation, which always took it). Before, the estimate and
the planner sized a service on a plain generation loop, the best case for an engine nobody named."""

from __future__ import annotations

from collections.abc import Callable, Iterator
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
def store(seeded_copy: Callable[[str], Path]) -> Iterator[Store]:
    st = open_store(str(seeded_copy("serving")))
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


def test_the_planner_sizes_a_tensor_parallel_service_as_replicas_of_its_degree(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each option's GPUs are replicas of tensor_parallel GPUs on the offer's own link, the load split
    # over the replicas (before: every service was sized as one replica per GPU).
    decodes: list[Any] = []
    loads: list[tuple[int, float]] = []
    real_decode, real_serving = gpuplan.perf.decode_estimate, gpuplan.perf.serving_estimate

    def decode_spy(*args: Any, **kwargs: Any) -> Any:
        dec = real_decode(*args, **kwargs)
        decodes.append((kwargs.get("tensor_parallel"), kwargs.get("link")))
        return dec

    def serving_spy(dec: Any, **kwargs: Any) -> Any:
        loads.append((dec.tensor_parallel, kwargs["requests_per_s"]))
        return real_serving(dec, **kwargs)

    monkeypatch.setattr(gpuplan.perf, "decode_estimate", decode_spy)
    monkeypatch.setattr(gpuplan.perf, "serving_estimate", serving_spy)
    service = load_workload(SERVICE).model_copy(update={"tensor_parallel": 2})
    result = plan(service, store=store, profile=_profile(), providers=["aws"])
    assert decodes and all(tp == 2 and link is not None and link.gpus_per_node >= 2 for tp, link in decodes)
    rate = service.serving.requests_per_s if service.serving else 0.0
    # 5 requests/s over a whole number of replicas of two GPUs each.
    assert {tp for tp, _ in loads} == {2}
    assert all(abs(rate / r - round(rate / r)) < 1e-9 for _, r in loads)
    assert result.options, "a service of two GPUs per replica still has options on AWS"
    assert all(o.gpu_count % 2 == 0 for o in result.options)


def test_the_planner_sizes_a_service_with_the_headroom_the_estimate_asks(store: Store) -> None:
    # 5 requests/s: 2 L4s run at ρ = 0.97 (the serving simulation dropped one request in 16 there),
    # while `estimate` says 3 are needed at 80 %; the plan took the 2 L4s. Every option it ranks now
    # runs its replicas at most at that share of their capacity.
    # The workload gives no tensor_parallel: each option is held to the estimate at the split the
    # planner chose for it.
    workload = load_workload(SERVICE)
    result = plan(workload, store=store, profile=_profile(), providers=["aws"], top=20)
    assert result.options
    needs: dict[tuple[str, int], int] = {}
    for tp in {o.service.tensor_parallel for o in result.options if o.service is not None}:
        split = workload.model_copy(update={"tensor_parallel": tp})
        report = estimate(split, sorted({o.gpu for o in result.options}), profile=_profile())
        needs |= {(o.gpu, tp): o.serving.gpus_needed for o in report.outcomes if o.serving is not None}
    for o in result.options:
        assert o.service is not None
        need = needs[(o.gpu, o.service.tensor_parallel)]
        assert o.gpus_per_node * o.nodes >= need, (o.instance_type, need)


def test_an_estimate_on_several_gpus_splits_the_load_over_their_replicas() -> None:
    # 3 L4s carry 5 requests/s as three replicas; each was shown under the whole load ("overloaded")
    report = estimate(load_workload(SERVICE), ["L4", "L4:3"], profile=_profile())
    one, three = (o.serving for o in report.outcomes)
    assert one is not None and three is not None
    assert three.requests_per_s == pytest.approx(one.requests_per_s / 3)
    assert three.utilisation == pytest.approx(one.utilisation / 3)  # each replica a third as busy
    assert one.gpus_needed == three.gpus_needed  # the whole load's GPUs, whichever configuration is shown
