"""A service's options say what they serve: how many replicas, what each carries (requests/s) and
the p95 latency at the load — the figures ``gpuplan estimate`` gives for the same GPU and count.
Before, the plan showed cost and GPUs only, so its capacity and latency could not be set beside
estimate's or simulate's."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from plan_helpers import aws_costs, llama7b_profile, offer, service_workload, toy_estimator
from rich.console import Console

from gpuplan.api import estimate, plan
from gpuplan.catalog import Store, open_store
from gpuplan.plan import Constraints, CostFacts, JobFacts, OfferTable, plan_offers
from gpuplan.plan.result import Option, Plan
from gpuplan.profile.model import Profile
from gpuplan.report.plan import option_json, plan_json
from gpuplan.report.plan_view import plan_view, service_lines


@pytest.fixture(scope="module")
def store(seeded_copy: Callable[[str], Path]) -> Iterator[Store]:
    st = open_store(str(seeded_copy("figures")))
    yield st
    st.close()


@pytest.fixture(scope="module")
def profile() -> Profile:
    return llama7b_profile()


_service = service_workload


@pytest.fixture(scope="module")
def service_plan(store: Store, profile: Profile) -> Plan:
    return plan(_service(p95_latency_ms=60_000), store=store, profile=profile, providers=["aws"])


def _text(p: Plan) -> str:
    console = Console(width=200, record=True)
    console.print(plan_view(p))
    return " ".join(console.export_text().split())


def test_each_option_carries_the_figures_estimate_gives_for_its_gpu_and_count(
    service_plan: Plan, profile: Profile
) -> None:
    # One replica a GPU (tensor_parallel 1): the option's GPUs are its replicas, the 5 requests/s
    # split evenly over them, as estimate splits them for the same count.
    seen = set()
    for o in service_plan.options:
        s = o.service
        assert s is not None
        assert s.replicas == o.gpu_count
        assert s.requests_per_s == 5.0
        assert s.p95_target_s == pytest.approx(60.0)
        if (o.gpu, o.gpu_count) in seen:
            continue
        seen.add((o.gpu, o.gpu_count))
        (out,) = estimate(_service(), [f"{o.gpu}:{o.gpu_count}"], profile=profile).outcomes
        srv = out.serving
        assert srv is not None
        assert s.replica_requests_per_s == pytest.approx(srv.capacity_requests_per_s, rel=1e-6)
        assert s.capacity_requests_per_s == pytest.approx(srv.capacity_requests_per_s * o.gpu_count, rel=1e-6)
        assert s.utilisation == pytest.approx(srv.utilisation, rel=1e-6)
        assert s.p95_latency_s is not None and srv.p95_latency_s is not None
        assert s.p95_latency_s == pytest.approx(srv.p95_latency_s, rel=1e-6)
        assert s.p95_unknown is None
        # a shown option carries its load within the target
        assert s.utilisation is not None and s.utilisation < 1
        assert s.p95_latency_s <= 60.0


def test_the_json_and_the_text_state_them(service_plan: Plan) -> None:
    rec = service_plan.recommended
    s = rec.service
    assert s is not None and s.replica_requests_per_s is not None and s.p95_latency_s is not None
    doc = option_json(rec).model_dump()["service"]
    assert doc["replicas"] == s.replicas
    assert doc["replica_capacity_requests_per_s"] == pytest.approx(s.replica_requests_per_s)
    # 2 replicas of 3.2 req/s each carry 6.4 req/s: 5 of them is 78 %
    assert doc["capacity_requests_per_s"] == pytest.approx(s.replicas * s.replica_requests_per_s)
    assert doc["utilisation"] == pytest.approx(5.0 / (s.replicas * s.replica_requests_per_s))
    assert doc["p95_latency_s"] == pytest.approx(s.p95_latency_s)
    assert doc["p95_target_s"] == pytest.approx(60.0)
    text = _text(service_plan)
    assert (
        f"serves 5 req/s on {s.replicas} replicas, each carrying up to {s.replica_requests_per_s:.3g} req/s"
        in (text)
    )
    assert f"p95 latency {s.p95_latency_s:.3g} s at this load (target 60 s)" in text
    # in the table, under each option's GPUs
    table = text[: text.index("Recommended:")]
    assert f"{s.replicas} replicas" in table and f"p95 {s.p95_latency_s:.3g} s" in table


def test_a_time_shared_gpu_counts_its_replicas(store: Store, profile: Profile) -> None:
    p = plan(_service(share_gpu=2), store=store, profile=profile, providers=["aws"], min_gpu_memory_gib=40)
    o = p.recommended
    assert o.service is not None
    assert o.service.replicas == 2 * o.gpu_count
    assert o.service.replicas_per_gpu == 2
    (out,) = estimate(_service(share_gpu=2), [f"{o.gpu}:{o.gpu_count}"], profile=profile).outcomes
    assert out.serving is not None
    assert o.service.replica_requests_per_s == pytest.approx(out.serving.capacity_requests_per_s, rel=1e-6)
    assert f"on {o.service.replicas} replicas, 2 to a GPU" in _text(p)


def test_an_unknown_latency_is_said_with_its_reason_never_as_a_number(service_plan: Plan) -> None:
    rec = service_plan.recommended
    assert rec.service is not None
    why = "overloaded: the load is 120% of what its replicas carry"
    # the time to first token is unknown where the p95 is (the same wait): said once, by the p95
    figures = replace(rec.service, p95_latency_s=None, ttft_p95_s=None, p95_unknown=why)
    unknown: Option = replace(rec, service=figures)
    (line,) = service_lines(unknown)
    assert line.endswith(f"p95 latency unknown: {why}")
    assert option_json(unknown).model_dump()["service"]["p95_latency_s"] is None


def test_a_training_job_has_no_service_figures() -> None:
    p = plan_offers(
        OfferTable.from_rows([offer()]),
        CostFacts([aws_costs()]),
        JobFacts(dataset_gb=0, checkpoint_gb=0, data_location=("aws", "us-east-1")),
        toy_estimator(),
        Constraints(),
    )
    assert all(o.service is None for o in p.options)
    doc = plan_json(p, {"name": "x", "task": "train"}).model_dump()
    assert doc["recommended"]["service"] is None
    assert service_lines(p.recommended) == []
    assert "replica" not in _text(p)


def test_an_overloaded_or_unestimated_option_gets_no_latency_but_its_reason() -> None:
    import math
    from types import SimpleNamespace

    import numpy as np

    from gpuplan.plan.options import _service_figures

    # Two 1-GPU candidates of 2 replicas each at 5 req/s: 2 × 2.0 req/s = 4 req/s carry 125 % of
    # it (no p95: overloaded); the second has no serving estimate at all.
    cands = SimpleNamespace(
        gpus_per_node=np.array([1, 1]),
        nodes=np.array([2, 2]),
        replica_requests_per_s=np.array([2.0, math.nan], dtype=np.float32),
        p95_latency_s=np.array([math.nan, math.nan]),
        ttft_p95_s=np.array([math.nan, math.nan]),
        tpot_s=np.array([math.nan, math.nan]),
        tensor_parallel=np.array([0, 0]),
    )
    job = JobFacts(dataset_gb=0, checkpoint_gb=0, data_location=("aws", "us-east-1"), requests_per_s=5.0)
    ctx: Any = SimpleNamespace(job=job, cands=cands)
    over = _service_figures(ctx, 0)
    assert over is not None and over.p95_latency_s is None and over.ttft_p95_s is None
    assert over.utilisation == pytest.approx(1.25)
    assert over.p95_unknown == "overloaded: the load is 125% of what its replicas carry"
    unknown = _service_figures(ctx, 1)
    assert unknown is not None and unknown.replica_requests_per_s is None and unknown.utilisation is None
    assert unknown.p95_unknown == "not estimated for this GPU and count"
    (line,) = service_lines(replace(_any_option(), service=unknown))
    assert "their capacity is not estimated" in line
    # not a service: nothing
    assert _service_figures(SimpleNamespace(job=replace(job, requests_per_s=None), cands=cands), 0) is None  # type: ignore[arg-type]


def _any_option() -> Option:
    return plan_offers(
        OfferTable.from_rows([offer()]),
        CostFacts([aws_costs()]),
        JobFacts(dataset_gb=0, checkpoint_gb=0, data_location=("aws", "us-east-1")),
        toy_estimator(),
        Constraints(),
    ).recommended


def test_replicas_packed_on_an_instance_say_which_launch_runs_them_so(service_plan: Plan) -> None:
    # the plan ranked 2 replicas to a 2-GPU instance at the packed price; SkyServe gives each its own
    # instance (deploy's README said so, 2×, after the plan had been read)
    rec = service_plan.recommended
    assert rec.service is not None
    one_gpu = replace(rec.service, replica_gpus=1, replicas_per_gpu=1)
    packed: Option = replace(rec, gpus_per_node=4, service=one_gpu)
    said = " ".join(service_lines(packed))
    assert f"4 replicas share each {rec.instance_type}, as `gpuplan deploy --target k8s` runs them" in said
    assert "launched there this option's instances cost about 4× as much" in said
    alone: Option = replace(rec, gpus_per_node=1, service=one_gpu)
    assert "share each" not in " ".join(service_lines(alone))
