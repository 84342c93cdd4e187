"""A service's p95 latency target that no option reaches is counted under its own reason, and the
infeasibility line names the target and the best latency any option reached (before, those
candidates were counted as does_not_fit, which reads as memory)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gpuplan.api import plan
from gpuplan.catalog import Store, open_store
from gpuplan.plan import Plan, PlanInfeasibleError
from gpuplan.profile.model import Profile
from gpuplan.workload import load_workload

ROOT = Path(__file__).resolve().parents[2]
SERVICE = ROOT / "examples" / "llm-inference-service.yaml"
PROFILE = ROOT / "tests" / "perf" / "fixtures" / "known" / "llama7b-infer-bf16.json"


@pytest.fixture(scope="module")
def store(seeded_copy: Callable[[str], Path]) -> Iterator[Store]:
    st = open_store(str(seeded_copy("latency")))
    yield st
    st.close()


def _service(p95_ms: float | None):  # type: ignore[no-untyped-def]
    w = load_workload(SERVICE)
    assert w.serving is not None
    return w.model_copy(update={"serving": w.serving.model_copy(update={"p95_latency_ms": p95_ms})})


@pytest.fixture(scope="module")
def profile() -> Profile:
    return Profile.from_json(PROFILE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def unbounded(store: Store, profile: Profile) -> Plan:
    """The service's plan on AWS without a latency target, made once for the module's tests that
    read it (a plan of it takes seconds; a plan is frozen)."""
    return plan(_service(None), store=store, profile=profile, providers=["aws"])


def test_an_unreachable_latency_target_is_its_own_reason_and_names_the_best_reached(
    store: Store, profile: Profile, unbounded: Plan
) -> None:
    # Without the target the same service plans; what does not fit then (too few GPUs of a small
    # kind to carry 5 requests/s) is all that does not fit with it.
    ok = unbounded
    assert "misses_latency_target" not in ok.excluded
    with pytest.raises(PlanInfeasibleError) as caught:
        plan(_service(50.0), store=store, profile=profile, providers=["aws"])
    text = str(caught.value)
    words = {"no_precision_path": "without a path for the precision", "does_not_fit": "not fitting in memory"}
    for reason, said in words.items():
        if reason in ok.excluded:
            assert f"{said} {ok.excluded[reason]:,}," in text  # counts thousands separated
        else:
            assert f"{said} " not in text
    assert re.search(r"missing the latency target \d+", text)
    assert re.search(
        r"no option meets the p95 latency target of 50 ms: the best reached is [\d.]+ s on \d+ × \S+", text
    )


def test_a_service_plan_gives_each_option_its_cost_per_million_tokens(unbounded: Plan) -> None:
    # 5 requests/s × (512 prompt + 256 output) tokens over the month billed (730 h): the cost of the
    # month over those tokens, per million, as serving teams compare with API prices.
    from gpuplan.report.plan import option_json
    from gpuplan.report.plan_view import plan_view

    p = unbounded
    out_m = 5 * 256 * 730 * 3600 / 1e6
    all_m = 5 * (512 + 256) * 730 * 3600 / 1e6
    for o in p.options:
        assert o.usd_per_million_output_tokens == pytest.approx(o.total_cost_usd / out_m)
        assert o.usd_per_million_tokens == pytest.approx(o.total_cost_usd / all_m)
    doc = option_json(p.options[0]).model_dump()
    assert doc["usd_per_million_output_tokens"] == pytest.approx(p.options[0].usd_per_million_output_tokens)
    assert doc["usd_per_million_tokens"] == pytest.approx(p.options[0].usd_per_million_tokens)
    from rich.console import Console

    console = Console(width=200, record=True)
    console.print(plan_view(p))
    text = " ".join(console.export_text().split())
    assert "per million output tokens" in text
    assert "Cost per million tokens: at least" in text  # the peak all month: a floor
    assert "Give serving.mean_requests_per_s, the mean load, for the figures themselves" in text


def test_a_service_is_measured_against_the_cheapest_on_demand_option_for_the_same_load(
    unbounded: Plan,
) -> None:
    # The default baseline was an 8 × A100 p4d.24xlarge whatever the service ("savings 99 %" for
    # a 1-GPU service); a service's is now the cheapest on-demand option that carries its load.
    p = unbounded
    base = p.baseline
    assert base is not None and base.pricing == "on_demand"
    on_demand = [o.total_cost_usd for o in p.options if o.pricing == "on_demand"]
    assert base.total_cost_usd <= min(on_demand, default=base.total_cost_usd) + 1e-9
    assert "cheapest on-demand option that carries the same load" in p.baseline_note


def test_replicas_short_of_the_load_are_their_own_reason_not_does_not_fit(
    store: Store, profile: Profile, unbounded: Plan
) -> None:
    # was: a load no fleet carries (10⁹ requests/s) was "does_not_fit 32094", which reads as memory
    ok = unbounded
    w = load_workload(SERVICE)
    assert w.serving is not None
    flood = w.model_copy(update={"serving": w.serving.model_copy(update={"requests_per_s": 1e9})})
    with pytest.raises(PlanInfeasibleError) as caught:
        plan(flood, store=store, profile=profile, providers=["aws"])
    text = str(caught.value)
    assert re.search(r"short of the load \d+", text), text
    # what does not fit in memory is what did not fit before: the rest was short of the load
    assert "not fitting in memory" not in text or re.search(r"not fitting in memory (\d+)", text)[1] == str(  # type: ignore[index]
        ok.excluded.get("does_not_fit", 0)
    )


def test_a_service_plan_holds_at_least_the_replicas_deploy_will_start(
    store: Store, profile: Profile, unbounded: Plan
) -> None:
    # deploy starts serving.min_replicas whatever the plan priced; a plan had priced 1 or 2 GPUs for a
    # deployment of 4 replicas. Those options are now left out under their own reason.
    base = _service(None)
    assert base.serving is not None
    free = unbounded
    assert any(o.gpus_per_node * o.nodes < 4 for o in free.options)
    assert "below_min_replicas" not in free.excluded
    four = base.model_copy(update={"serving": base.serving.model_copy(update={"min_replicas": 4})})
    held = plan(four, store=store, profile=profile, providers=["aws"])
    assert held.options and all(o.gpus_per_node * o.nodes >= 4 for o in held.options)
    assert held.excluded["below_min_replicas"] > 0
    # Replicas sharing a GPU are not counted in GPUs: the rule does not apply to them.
    shared = base.model_copy(
        update={"serving": base.serving.model_copy(update={"min_replicas": 4, "share_gpu": 4})}
    )
    assert "below_min_replicas" not in plan(shared, store=store, profile=profile, providers=["aws"]).excluded


def test_the_cost_per_token_is_over_the_mean_load_where_it_is_given(
    store: Store, profile: Profile, unbounded: Plan
) -> None:
    # A service sized for its peak (5 requests/s) that carries 2 on average over the month: the
    # month's cost is spread over 2/5 of the tokens, 2.5× a token's cost at the peak all month.
    from rich.console import Console

    from gpuplan.errors import WorkloadError
    from gpuplan.report.plan import option_json
    from gpuplan.report.plan_view import plan_view

    peak = unbounded
    w = _service(None)
    assert w.serving is not None
    mean = w.model_copy(update={"serving": w.serving.model_copy(update={"mean_requests_per_s": 2.0})})
    p = plan(mean, store=store, profile=profile, providers=["aws"])
    a, b = p.recommended, peak.recommended
    assert a.cost_breakdown.compute_usd == pytest.approx(b.cost_breakdown.compute_usd)  # sized alike
    # but it sends 2/5 of the answers out: the egress of 2 requests/s all month
    assert a.cost_breakdown.egress_usd == pytest.approx(2 / 5 * b.cost_breakdown.egress_usd)
    assert a.usd_per_million_output_tokens == pytest.approx(
        2.5 * b.usd_per_million_output_tokens * a.total_cost_usd / b.total_cost_usd
    )
    assert option_json(p.recommended).model_dump()["service"]["mean_requests_per_s"] == 2.0
    console = Console(width=200, record=True)
    console.print(plan_view(p))
    assert "the tokens of 2 requests/s, the mean load" in " ".join(console.export_text().split())
    with pytest.raises(WorkloadError, match=r"mean_requests_per_s \(9\) is above requests_per_s \(5\)"):
        load_workload(SERVICE).from_dict(
            {**mean.to_dict(), "serving": {**mean.to_dict()["serving"], "mean_requests_per_s": 9}}
        )
