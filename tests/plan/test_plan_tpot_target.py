"""A service's time-per-output-token target (``serving.tpot_p95_ms``): the planner prices the
replicas whose decode step at the load meets it and leaves out the options that miss it, saying so
where no number of replicas can meet it, and the plan shows the time per output token."""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from llm_service import llama7b_profile, module_store, service
from rich.console import Console

from gpuplan.api import estimate, plan
from gpuplan.catalog import Store
from gpuplan.plan import PlanInfeasibleError
from gpuplan.profile.model import Profile
from gpuplan.report.plan import option_json
from gpuplan.report.plan_view import plan_view


@pytest.fixture(scope="module")
def store(seeded_copy: Callable[[str], Path]) -> Iterator[Store]:
    yield from module_store(seeded_copy, "tpot")


@pytest.fixture(scope="module")
def profile() -> Profile:
    return llama7b_profile()


def test_a_reachable_target_adds_replicas_and_is_shown(store: Store, profile: Profile) -> None:
    free = plan(service(), store=store, profile=profile, providers=["aws"])
    held = plan(service(tpot_p95_ms=30), store=store, profile=profile, providers=["aws"])
    f, h = free.recommended, held.recommended
    assert f.service is not None and h.service is not None
    # without the target the cheapest option's replicas run enough sequences each that a decode
    # step takes over 30 ms: more replicas of the same GPU (or a faster one) are priced to meet it
    assert f.service.tpot_s is not None and f.service.tpot_s > 0.03
    assert f.service.tpot_target_s is None
    assert h.service.replicas > f.service.replicas or h.gpu != f.gpu
    assert h.total_cost_usd > f.total_cost_usd
    assert "misses_latency_target" in held.excluded and "misses_latency_target" not in free.excluded
    for o in held.options:
        assert o.service is not None and o.service.tpot_s is not None and o.service.tpot_s <= 0.03
        assert o.service.tpot_target_s == pytest.approx(0.03)
    # estimate sizes the same GPU for the same target with the count the plan priced
    report = estimate(service(tpot_p95_ms=30), [f"{h.gpu}:{h.gpu_count}"], profile=profile)
    (out,) = report.outcomes
    assert out.serving is not None and out.serving.tpot_s == pytest.approx(h.service.tpot_s, rel=1e-6)
    assert out.serving.gpus_needed == h.gpu_count
    doc = option_json(h).model_dump()["service"]
    assert doc["tpot_s"] == pytest.approx(h.service.tpot_s)
    assert doc["tpot_target_s"] == pytest.approx(0.03)
    assert option_json(f).model_dump()["service"]["tpot_target_s"] is None
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(plan_view(held))
    text = " ".join(console.export_text().split())
    assert re.search(r"time per output token [\d.]+ ms \(target 30 ms\)", text), text
    assert " a token" in text[: text.index("Recommended:")]  # under each option's GPUs


def test_a_target_below_every_replica_step_says_no_replica_count_meets_it(
    store: Store, profile: Profile
) -> None:
    # 1 ms is below the decode step of a 7B model's replica on any GPU, alone: more replicas only
    # lighten the load, which cannot take a step below that
    with pytest.raises(PlanInfeasibleError) as caught:
        plan(service(tpot_p95_ms=1), store=store, profile=profile, providers=["aws"])
    text = str(caught.value)
    assert re.search(r"missing the latency target \d+", text), text
    assert re.search(
        r"no option meets the time-per-output-token target of 1 ms: a decode step takes at least "
        r"[\d.]+ ms even at the lightest load \(on \S+, the fastest\), so no number of replicas meets it",
        text,
    ), text
    assert "p95 latency target" not in text and "first-token" not in text
