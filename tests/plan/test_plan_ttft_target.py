"""A service's p95 time-to-first-token target (``serving.ttft_p95_ms``): the workload takes it, the
planner prices the replicas that meet it and leaves out the options that miss it, naming it where
none meets it, and the plan and the estimate show the time to first token beside the p95 latency."""

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
from gpuplan.errors import WorkloadError
from gpuplan.plan import PlanInfeasibleError
from gpuplan.profile.model import Profile
from gpuplan.report.estimate import estimate_json, estimate_view
from gpuplan.report.plan import option_json
from gpuplan.report.plan_view import plan_view


@pytest.fixture(scope="module")
def store(seeded_copy: Callable[[str], Path]) -> Iterator[Store]:
    yield from module_store(seeded_copy, "ttft")


@pytest.fixture(scope="module")
def profile() -> Profile:
    return llama7b_profile()


def test_the_workload_takes_a_time_to_first_token_target_and_checks_it() -> None:
    # was: "serving: unknown key 'ttft_p95_ms'"
    w = service(ttft_p95_ms=1500)
    assert w.serving is not None and w.serving.ttft_p95_ms == 1500.0
    refused = [(0, "must be > 0"), (-5, "must be > 0"), (1e12, "must be ≤")]
    refused.append(("soon", "write a latency in ms, s or min"))
    for bad, said in refused:
        with pytest.raises(WorkloadError, match=rf"serving\.ttft_p95_ms: {said}"):
            service(ttft_p95_ms=bad)
    with pytest.raises(WorkloadError, match="did you mean 'ttft_p95_ms'"):
        service(ttft_p95=1500)


def test_a_reachable_target_adds_replicas_and_is_shown(store: Store, profile: Profile) -> None:
    free = plan(service(), store=store, profile=profile, providers=["aws"])
    held = plan(service(ttft_p95_ms=90), store=store, profile=profile, providers=["aws"])
    f, h = free.recommended, held.recommended
    assert f.service is not None and h.service is not None
    # without the target the cheapest option's time to first token is over 90 ms (its prompt's
    # compute and the decode iterations it waits for, the slots seldom all busy): more replicas of
    # the same GPU (or a faster one) are priced to meet it
    assert f.service.ttft_p95_s is not None and f.service.ttft_p95_s > 0.09
    assert h.service.replicas > f.service.replicas or h.gpu != f.gpu
    assert h.total_cost_usd > f.total_cost_usd
    assert "misses_latency_target" in held.excluded and "misses_latency_target" not in free.excluded
    for o in held.options:
        assert o.service is not None and o.service.ttft_p95_s is not None and o.service.ttft_p95_s <= 0.09
        assert o.service.ttft_target_s == pytest.approx(0.09)
    # the figure is estimate's for the same GPU and count, in its JSON and its text
    report = estimate(service(ttft_p95_ms=90), [f"{h.gpu}:{h.gpu_count}"], profile=profile)
    (out,) = report.outcomes
    assert out.serving is not None and out.serving.ttft_p95_s == pytest.approx(h.service.ttft_p95_s, rel=1e-6)
    assert out.serving.gpus_needed == h.gpu_count  # the count the target needs, as the plan priced
    (row,) = estimate_json(report.profile, report.outcomes, report.calibration).model_dump()["estimates"]
    assert row["serving"]["ttft_p95_s"] == pytest.approx(h.service.ttft_p95_s)
    console = Console(width=300, record=True, file=io.StringIO())
    console.print(estimate_view(report.profile, report.outcomes, report.calibration))
    assert re.search(r"first token p95 [\d.]+ (ms|s), on \d+ GPU", console.export_text())
    doc = option_json(h).model_dump()["service"]
    assert doc["ttft_p95_s"] == pytest.approx(h.service.ttft_p95_s)
    assert doc["ttft_target_s"] == pytest.approx(0.09)
    console = Console(width=200, record=True)
    console.print(plan_view(held))
    text = " ".join(console.export_text().split())
    assert re.search(r"p95 time to first token [\d.]+ (ms|s) \(target 90 ms\)", text), text
    assert "first token p95" in text[: text.index("Recommended:")]  # under each option's GPUs


def test_an_unreachable_target_is_refused_naming_it_and_the_best_reached(
    store: Store, profile: Profile
) -> None:
    # 1 ms is below any GPU's prefill of a 512-token prompt: no number of replicas reaches it
    with pytest.raises(PlanInfeasibleError) as caught:
        plan(service(ttft_p95_ms=1), store=store, profile=profile, providers=["aws"])
    text = str(caught.value)
    assert re.search(r"missing the latency target \d+", text), text
    assert re.search(
        r"no option meets the p95 time-to-first-token target of 1 ms: "
        r"the best reached is [\d.]+ s on \d+ × \S+",
        text,
    ), text
    assert "p95 latency target" not in text  # no p95 latency target was set
