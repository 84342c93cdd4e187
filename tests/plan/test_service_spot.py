"""A service on spot: a reclaim costs availability (replicas down until a replacement has loaded the
model), not re-done work, and the price includes the spare that keeps the load target."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest
from plan_helpers import aws_costs, offer
from rich.console import Console

from gpuplan.i18n import use_language
from gpuplan.plan import Constraints, CostFacts, EstimateKey, EstimateRow, JobFacts, OfferTable, plan_offers
from gpuplan.plan.spot import service_spot
from gpuplan.report.plan import option_json, plan_view
from gpuplan.units import HOURS_PER_MONTH

#: An 8B model served for a month in replicas of 4 GPUs (tensor parallel): two on each 8-GPU
#: instance, 16 GB of weights each, read at a stated 0.5 GB/s (32 s: the worked example of
#: ``plan.spot.service_spot``'s docstring).
SERVICE = JobFacts(
    task="infer",
    checkpoint_write_gbps=0.5,
    data_location=("aws", "us-east-1"),
    calendar_months=1.0,
    tensor_parallel=4,
    weights_gb=16.0,
    served_tokens_per_hour=(9.2e6, 4.6e6),
)


def _serving_estimator(key: EstimateKey) -> EstimateRow:
    """Every shape carries the load for the month (the planner's serving rows: a month of time)."""
    h = HOURS_PER_MONTH
    return EstimateRow(fits=True, job_time_h=h, job_time_h_low=h, job_time_h_high=h, peak_memory_gib=20.0)


def _plan(rows, job=SERVICE):  # type: ignore[no-untyped-def]
    return plan_offers(
        OfferTable.from_rows(rows),
        CostFacts([aws_costs()]),
        job,
        _serving_estimator,
        Constraints(max_gpus=8),
    )


def test_service_spot_worked_example() -> None:
    # λ₁ = 0.01 /h, 2 instances of 8 GPUs, replicas of 4 GPUs, 730 h, restart 10 min, 16 GB of
    # weights at 0.5 GB/s (32 s a replica): k = 2 replicas a reclaim, D = 1/6 + 2 × 32/3600 = 0.184444 h;
    # λD = 0.00184444, q = λD / (1 + λD) = 0.00184105; reclaims 2 × 730 / (100 + D) = 14.57312;
    # replica-hours down 14.57312 × 2 × D = 5.37586; below target 1 − (1 − q)² = 0.00367870;
    # with a spare instance (3 units, target 2): 3q²(1 − q) + q³ = 1.015585e-5.
    s = service_spot(np.array([0.01]), np.array([2]), np.array([8]), 4, 730.0, 1 / 6, 16 / 0.5 / 3600)
    assert int(s.replicas_per_unit[0]) == 2 and int(s.spare_instances[0]) == 1
    assert float(s.down_h[0]) == pytest.approx(0.184444, rel=1e-5)
    assert float(s.interruptions[0]) == pytest.approx(14.57312, rel=1e-6)
    assert float(s.replica_hours_down[0]) == pytest.approx(5.37586, rel=1e-5)
    assert float(s.below_target_share[0]) == pytest.approx(0.00367870, rel=1e-5)
    assert float(s.below_target_share_with_spare[0]) == pytest.approx(1.015585e-5, rel=1e-5)


def test_a_replica_wider_than_an_instance_needs_a_spare_of_as_many_instances() -> None:
    # Replicas of 8 GPUs over 4-GPU instances (pipeline stages): a unit is 2 instances holding one
    # replica; either instance's reclaim takes it (λᵤ = 2λ₁), and the spare is 2 instances.
    s = service_spot(np.array([0.01]), np.array([4]), np.array([4]), 8, 730.0, 1 / 6, 0.0)
    assert int(s.replicas_per_unit[0]) == 1 and int(s.spare_instances[0]) == 2
    # 2 units × 730 / (1/0.02 + 1/6)
    assert float(s.interruptions[0]) == pytest.approx(2 * 730 / (50 + 1 / 6), rel=1e-9)


def test_a_rare_overlap_keeps_its_digits() -> None:
    # q ≈ 1e-9: P(two of 3 down) ≈ 3q², far below double precision's 1 − P(0) − P(1).
    s = service_spot(np.array([1e-8]), np.array([2]), np.array([8]), 4, 730.0, 0.1, 0.0)
    q = 1e-9 / (1 + 1e-9)
    assert float(s.below_target_share_with_spare[0]) == pytest.approx(3 * q * q, rel=1e-6)


def _spot_service():  # type: ignore[no-untyped-def]
    rows = [
        offer(pricing="on_demand", price_usd=21.96),
        offer(pricing="spot", price_usd=6.0, interruption_band="<5%"),
    ]
    plan = _plan(rows)
    spot = next(o for o in plan.options if o.pricing == "spot")
    demand = next(o for o in plan.options if o.pricing == "on_demand")
    return plan, spot, demand


def test_a_service_on_spot_runs_the_calendar_month_not_a_longer_one() -> None:
    # was: T = 730 h / (1 − λR), a "month" of 30.9 d and "10.3 h lost" for a service
    _, spot, demand = _spot_service()
    assert spot.job_time_h == pytest.approx(demand.job_time_h)
    assert spot.job_time_h == pytest.approx(HOURS_PER_MONTH + SERVICE.setup_h)
    assert spot.spot is not None
    assert spot.spot.expected_lost_h is None and spot.spot.checkpoint_overhead_h is None


def test_a_service_on_spot_reports_reclaims_a_month_and_the_capacity_they_take() -> None:
    # "<5%" a month: λ₁ = −ln(0.95) / 730 = 7.02648e-5 /h. One 8-GPU instance, two 4-GPU replicas:
    # D = 10 min boot + 60 s engine start + 2 × 16 GB / 0.5 GB/s = 0.201111 h (the one start-up
    # model deploy and simulate autoscale count too); reclaims 730 / (1/λ₁ + D); 2 replicas each.
    _, spot, _ = _spot_service()
    assert spot.spot is not None and spot.spot.service is not None
    s = spot.spot.service
    lam = -math.log(0.95) / 730
    down = 1 / 6 + 60 / 3600 + 2 * 16 / 0.5 / 3600
    reclaims = 730 / (1 / lam + down)
    assert s.interruptions_per_month == pytest.approx(reclaims, rel=1e-9)
    assert s.replicas == 2 and s.replicas_per_reclaim == 2
    assert s.down_min_per_reclaim == pytest.approx(down * 60)
    assert s.replica_hours_down_per_month == pytest.approx(reclaims * 2 * down, rel=1e-9)
    q = lam * down / (1 + lam * down)
    assert s.below_target_share == pytest.approx(q, rel=1e-9)
    assert s.below_target_share_with_spare == pytest.approx(q * q, rel=1e-6)
    assert "assumed" in s.down_assumed


def test_the_spare_is_reclaimed_too_and_its_reclaims_are_counted_in_the_line() -> None:
    # was: the reclaim line, the option's reclaims and its time between them counted the serving
    # instances only, though the spare is a spot instance as well (reclaimed at the same rate,
    # replaced, no replica down). Worked example of service_spot: the spare unit (one 8-GPU
    # instance) is reclaimed 730 / (100 + D) = 7.28656 times.
    s = service_spot(np.array([0.01]), np.array([2]), np.array([8]), 4, 730.0, 1 / 6, 16 / 0.5 / 3600)
    assert float(s.spare_interruptions[0]) == pytest.approx(14.57312 / 2, rel=1e-6)
    _, spot, _ = _spot_service()
    assert spot.spot is not None and spot.spot.service is not None
    service = spot.spot.service
    assert service.spare_interruptions_per_month == pytest.approx(service.interruptions_per_month)
    # One serving instance and a spare of one: two instances reclaimed at λ₁ each (each reclaim's
    # few minutes down, when none comes, lengthen the time between them a little).
    lam = -math.log(0.95) / 730
    assert spot.spot.mtbi_h == pytest.approx(1 / (2 * lam), rel=1e-4)
    months = spot.job_time_h / HOURS_PER_MONTH
    both = service.interruptions_per_month + service.spare_interruptions_per_month
    assert spot.spot.expected_interruptions == pytest.approx(both * months, rel=1e-3)
    doc = option_json(spot).model_dump(mode="json")
    assert doc["spot"]["service"]["spare_interruptions_per_month"] == pytest.approx(
        service.spare_interruptions_per_month
    )
    plan = _plan([offer(pricing="spot", price_usd=6.0, interruption_band="<5%")])
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(plan_view(plan))
    text = " ".join(out.getvalue().split())
    # the time between reclaims is all the instances', said with their count (it had stood beside the
    # spare's: "0.05 of them the spare's (one every 296.5 d)")
    assert (
        "spot: 0.10 reclaims a month (one every 296.5 d), 0.05 of them the spare's; each of a serving "
        "instance takes 2 replicas down for 12 min"
    ) in text
    with use_language("zh"):
        out = io.StringIO()
        Console(file=out, width=200, color_system=None).print(plan_view(plan))
    zh = "".join(out.getvalue().split())
    assert "抢占式：每月回收0.10次（平均每296.5天一次），其中备用实例0.05次；" in zh, zh
    assert "the spare's takes none (a replacement is started)" in text


def test_a_service_on_spot_is_priced_with_its_spare_instance() -> None:
    # One instance serving, one spare beside it: the spare costs what the instance does.
    _, spot, _ = _spot_service()
    b = spot.cost_breakdown
    assert spot.spot is not None and spot.spot.service is not None
    assert spot.spot.service.spare_instances == 1
    assert b.spot_overhead_usd == pytest.approx(b.compute_usd)
    assert spot.spot.service.spare_usd == pytest.approx(b.spot_overhead_usd)
    assert spot.total_cost_usd == pytest.approx(b.total_usd)
    item = next(i for i in b.items if i.component == "spot_overhead")
    assert item.multiplier == 1


def test_a_service_on_spot_says_availability_never_lost_hours() -> None:
    plan, spot, _ = _spot_service()
    buf = io.StringIO()
    Console(file=buf, width=200, color_system=None).print(plan_view(plan))
    text = buf.getvalue()
    assert plan.recommended.pricing == "spot"
    assert " lost" not in text and "30.9 d" not in text
    assert "reclaims a month" in text and "takes 2 replicas down" in text
    assert "the price includes 1 spare instance" in text and "spare for reclaims" in text
    doc = option_json(spot).model_dump(mode="json")
    assert doc["spot"]["expected_lost_h"] is None
    assert doc["spot"]["service"]["spare_instances"] == 1
    assert doc["spot"]["service"]["replicas_per_reclaim"] == 2


def test_a_training_job_on_spot_still_counts_its_lost_work() -> None:
    job = JobFacts(dataset_gb=0, checkpoint_gb=5, data_location=("aws", "us-east-1"))
    rows = [offer(pricing="spot", price_usd=6.0, interruption_band="<5%")]

    def est(key: EstimateKey) -> EstimateRow:
        return EstimateRow(fits=True, job_time_h=100.0, job_time_h_low=90.0, job_time_h_high=120.0)

    plan = plan_offers(
        OfferTable.from_rows(rows), CostFacts([aws_costs()]), job, est, Constraints(max_gpus=8)
    )
    s = plan.recommended.spot
    assert s is not None and s.service is None and s.expected_lost_h is not None and s.expected_lost_h > 0
    assert plan.recommended.job_time_h > 100.0


def test_the_html_report_says_a_services_availability_on_spot_as_the_terminal_does() -> None:
    from gpuplan.report.plan_html import plan_html

    plan, _, _ = _spot_service()
    page = plan_html(plan, "service")
    assert "reclaims a month" in page and "the price includes 1 spare instance" in page
    assert "expected interruptions" not in page and "h lost" not in page


def test_a_service_on_spot_says_its_downtime_in_chinese() -> None:
    # was: "每次使 2 个副本停机 11 分钟（assumed: 10 min to get a replacement instance, …）" — the
    # downtime's words were formatted from the marked English constant, never translated.
    from gpuplan.i18n import use_language

    with use_language("zh"):
        plan, spot, _ = _spot_service()
        assert spot.spot is not None and spot.spot.service is not None
        assert "assumed" not in spot.spot.service.down_assumed
        buf = io.StringIO()
        Console(file=buf, width=200, color_system=None).print(plan_view(plan))
    text = buf.getvalue()
    assert "获取替代实例" in text
    assert "to get a replacement instance" not in text


def test_a_plan_joins_its_spot_rates_in_the_users_language() -> None:
    # Two sources of spot rates (a published band, a provider's assumed rate) in one note: joined by
    # the language's clause separator, not an English "; " inside a Chinese line.
    from gpuplan.i18n import use_language

    rows = [
        offer(pricing="on_demand", price_usd=21.96),
        offer(pricing="spot", price_usd=6.0, interruption_band="<5%"),
        offer(pricing="spot", price_usd=6.5, region="us-west-2", interruption_band=None),
        offer(provider="alibaba", region="cn-beijing", country="CN", pricing="spot", price_usd=6.4),
    ]
    with use_language("zh"):
        plan = _plan(rows)
    note = next(n for n in plan.notes if n.startswith("抢占式："))
    assert "; " not in note and "；" in note


def test_a_service_planned_on_spot_only_is_measured_against_on_demand_of_its_own_kind() -> None:
    # was: with --pricing spot no on-demand option was left to compare with, so the savings fell
    # back to the training baseline (an 8-GPU p4d.24xlarge for a month: "节省 98%" for a 2-GPU
    # service) or, where that is not in the catalog, to none.
    from gpuplan.plan import Constraints as C

    kind = {"instance_type": "g6e.12xlarge", "gpu": "L40S", "gpu_count": 4, "gpu_memory_gib": 48.0}
    rows = [offer(pricing="on_demand", price_usd=10.0, **kind), offer(pricing="spot", price_usd=4.0, **kind)]
    plan = plan_offers(
        OfferTable.from_rows(rows),
        CostFacts([aws_costs()]),
        SERVICE,
        _serving_estimator,
        C(max_gpus=8, pricing=("spot",)),
    )
    assert plan.recommended.pricing == "spot"
    assert plan.baseline is not None
    assert (plan.baseline.pricing, plan.baseline.instance_type) == ("on_demand", "g6e.12xlarge")
    assert plan.baseline.gpu_count == plan.recommended.gpu_count
    assert "cheapest on-demand option" in plan.baseline_note
    assert plan.savings_vs_baseline_pct is not None and 0 < plan.savings_vs_baseline_pct < 100


def test_a_dearer_service_than_its_baseline_is_not_said_to_buy_time() -> None:
    # was: "Costs 1.1× the baseline … (…, 30.4 d), for 30.4 d instead" — a service runs the same
    # month on every option; the dearer choice buys no time.
    from gpuplan.plan import Constraints as C

    kind = {"instance_type": "g6e.12xlarge", "gpu": "L40S", "gpu_count": 4, "gpu_memory_gib": 48.0}
    rows = [offer(pricing="on_demand", price_usd=4.0, **kind), offer(pricing="spot", price_usd=3.9, **kind)]
    plan = plan_offers(
        OfferTable.from_rows(rows),
        CostFacts([aws_costs()]),
        SERVICE,
        _serving_estimator,
        C(max_gpus=8, pricing=("spot",)),
    )
    assert plan.savings_vs_baseline_pct is not None and plan.savings_vs_baseline_pct < 0  # the spare
    buf = io.StringIO()
    Console(file=buf, width=300, color_system=None).print(plan_view(plan))
    text = buf.getvalue()
    assert "× the baseline" in text and "for the same time" in text and " instead" not in text


def test_a_recommendation_that_is_its_own_baseline_says_so_not_savings_of_0_percent() -> None:
    # was: "Savings vs <the recommended option itself>: 0%"
    from gpuplan.report.plan_html import plan_html

    plan = _plan([offer(pricing="on_demand", price_usd=21.96)])
    assert plan.baseline is not None and plan.recommended.instance_type == plan.baseline.instance_type
    buf = io.StringIO()
    Console(file=buf, width=200, color_system=None).print(plan_view(plan))
    text = buf.getvalue()
    assert "The recommendation is the savings baseline itself" in text and "Savings vs" not in text
    page = plan_html(plan, "service")
    assert "The recommendation is the savings baseline itself" in page and "Savings vs" not in page


def test_a_services_baseline_is_an_on_demand_option_within_the_users_places_even_over_the_budget() -> None:
    # was: a budget that left out every on-demand option of the user's own clouds made the
    # baseline AWS p4d.24xlarge in us-east-1 for a team that had asked for China only ("costs
    # 1.1× the baseline aws/us-east-1 …"), as if the recommendation were the worse deal.
    from gpuplan.plan import Constraints as C

    kind = {"instance_type": "gn7", "gpu": "A100-SXM4-40GB", "gpu_count": 8, "gpu_memory_gib": 40.0}
    cn = {"provider": "alibaba", "region": "cn-beijing", "country": "CN", **kind}
    rows = [
        offer(pricing="on_demand", price_usd=21.96),  # the source articles' baseline, in the US
        offer(pricing="on_demand", price_usd=20.0, **cn),
        offer(pricing="monthly", price_usd=10.0, **cn),
    ]
    plan = plan_offers(
        OfferTable.from_rows(rows),
        CostFacts([aws_costs()]),
        SERVICE,
        _serving_estimator,
        C(max_gpus=8, countries=("CN",), pricing=("on_demand", "monthly"), budget_usd=12_000.0),
    )
    assert plan.recommended.pricing == "monthly"
    assert plan.baseline is not None
    assert (plan.baseline.provider, plan.baseline.pricing) == ("alibaba", "on_demand")
    assert "over the budget: no savings shown" in plan.baseline_note
    assert plan.savings_vs_baseline_pct is None


def test_a_default_baseline_outside_the_users_places_says_so_and_shows_no_savings() -> None:
    # The user's clouds sell no on-demand option: the baseline falls back to the source articles'
    # (AWS us-east-1); savings against a cloud and a country the user left out are not shown.
    from gpuplan.plan import Constraints as C

    kind = {"instance_type": "gn7", "gpu": "A100-SXM4-40GB", "gpu_count": 8, "gpu_memory_gib": 40.0}
    cn = {"provider": "alibaba", "region": "cn-beijing", "country": "CN", **kind}
    rows = [offer(pricing="on_demand", price_usd=21.96), offer(pricing="monthly", price_usd=10.0, **cn)]
    plan = plan_offers(
        OfferTable.from_rows(rows),
        CostFacts([aws_costs()]),
        SERVICE,
        _serving_estimator,
        C(max_gpus=8, providers=("alibaba",), countries=("CN",)),
    )
    assert plan.baseline is not None and plan.baseline.provider == "aws"
    assert plan.savings_vs_baseline_pct is None
    assert (
        "it is outside your providers (alibaba), countries (CN), where no on-demand option carries the load "
        "within the targets: no savings shown"
    ) in plan.baseline_note
