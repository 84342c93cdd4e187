"""The performance persona's rule says what it picks: the shortest job for training, and for a
service (whose time is its calendar period on every option) the shortest set-up, in both languages."""

from __future__ import annotations

from dataclasses import replace

from plan_helpers import aws_costs, offer, toy_estimator

from gpuplan.i18n import use_language
from gpuplan.plan import Constraints, CostFacts, EstimateKey, EstimateRow, JobFacts, OfferTable, plan_offers

JOB = JobFacts(dataset_gb=0, checkpoint_gb=0, data_location=("aws", "us-east-1"))


def _serving_month(key: EstimateKey) -> EstimateRow:
    return EstimateRow(fits=True, job_time_h=730.0, job_time_h_low=730.0, job_time_h_high=730.0)


def _performance_rule(job: JobFacts, estimate=toy_estimator()) -> str:  # type: ignore[no-untyped-def]
    rows = [
        offer(pricing="on_demand", price_usd=13.0),
        offer(pricing="monthly", price_usd=9000.0, unit_hours=730.0),
    ]
    plan = plan_offers(
        OfferTable.from_rows(rows), CostFacts([aws_costs()]), job, estimate, Constraints(max_nodes=1)
    )
    return next(p.rule for p in plan.personas if p.persona == "performance")


def test_a_service_is_not_told_it_gets_the_shortest_job_time() -> None:
    service = replace(JOB, setup_h=10 / 60, calendar_months=1.0)
    rule = _performance_rule(service, _serving_month)
    assert "job time" not in rule and "same hours on every option" in rule and "set-up" in rule
    with use_language("zh"):
        zh = _performance_rule(service, _serving_month)
    assert "用时最短" not in zh and "运行的时长相同" in zh


def test_training_keeps_the_shortest_expected_job_time() -> None:
    rule = _performance_rule(JOB)
    assert rule == "shortest expected job time: the cheapest option within 2.0% of the shortest"
    with use_language("zh"):
        assert _performance_rule(JOB).startswith("期望用时最短")


def test_the_kubernetes_persona_lists_the_managed_services_with_the_enumeration_comma() -> None:
    # The services were joined with an ASCII ", " in Chinese too ("EKS, AKS, GKE").
    from gpuplan.plan.region_countries import managed_kubernetes

    services = sorted(set(managed_kubernetes().values()))
    assert len(services) > 1
    rows = [offer(pricing="on_demand", price_usd=13.0)]

    def rule() -> str:
        plan = plan_offers(
            OfferTable.from_rows(rows),
            CostFacts([aws_costs()]),
            JOB,
            toy_estimator(),
            Constraints(max_nodes=1),
        )
        return next(p.rule for p in plan.personas if p.persona == "kubernetes")

    assert ", ".join(services) in rule()
    with use_language("zh"):
        zh = rule()
    assert "、".join(services) in zh and ", ".join(services[:2]) not in zh, zh
