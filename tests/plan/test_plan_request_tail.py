"""The plan checks a service's p95 targets at its p95 request's lengths, and says which it took and
from where. Before, every request was the mean: a 70B chat service read "p95 16.2 s, target 30 s"
on four replicas where the conversation trace's replay of its autoscaler gave 42 s."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gpuplan.api import plan
from gpuplan.catalog import Store, open_store
from gpuplan.profile.model import Profile
from gpuplan.workload import Workload, load_workload

ROOT = Path(__file__).resolve().parents[2]
SERVICE = ROOT / "examples" / "llm-inference-service.yaml"
PROFILE = ROOT / "tests" / "perf" / "fixtures" / "known" / "llama7b-infer-bf16.json"


@pytest.fixture(scope="module")
def store(seeded_copy: Callable[[str], Path]) -> Iterator[Store]:
    st = open_store(str(seeded_copy("serving")))
    yield st
    st.close()


def _service(**serving: int) -> Workload:
    w = load_workload(SERVICE)
    assert w.serving is not None
    return w.model_copy(update={"serving": w.serving.model_copy(update=serving)})


def _p95s(result: object) -> dict[tuple[str, int], float]:
    return {
        (o.instance_type, o.service.replicas): o.service.p95_latency_s  # type: ignore[attr-defined]
        for o in result.options  # type: ignore[attr-defined]
        if o.service is not None and o.service.p95_latency_s is not None
    }


def test_the_p95_latency_is_the_p95_answers_not_the_means(store: Store) -> None:
    profile = Profile.from_json(PROFILE.read_text(encoding="utf-8"))
    # the example's 256-token mean answer; stated as its own p95, every request is the mean (the old
    # reading); left out, its p95 is 256 × 3.228 → 827 tokens
    at_mean = _p95s(
        plan(
            _service(output_tokens_p95=256, prompt_tokens_p95=512),
            store=store,
            profile=profile,
            providers=["aws"],
            top=20,
        )
    )
    result = plan(_service(), store=store, profile=profile, providers=["aws"], top=20)
    tail = _p95s(result)
    shared = at_mean.keys() & tail.keys()
    assert shared
    assert all(tail[k] > 2 * at_mean[k] for k in shared), {k: (at_mean[k], tail[k]) for k in shared}
    words = " ".join(result.notes)
    assert "827-token answer" in words and "1829-token prompt" in words and "× 3.228" in words
