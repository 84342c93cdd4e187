"""tco prices the all-on-demand baseline of the demands that have an on-demand price where one does
not (never counting it as 0), and says what a schedule on spot costs if spot cannot be had."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest
from tco_helpers import priced_offer

from gpuplan.commit import Demand, PricedOffer, TcoProblem, TcoReport, load_usage, optimise
from gpuplan.commit.adapters import DemandSource
from gpuplan.commit.model import OnDemandAlternative
from gpuplan.i18n import Money
from gpuplan.report.tco import summary_lines, tco_json

H = 12


def _offer(gpu: str, pricing: str, usd: float, **kw: object) -> PricedOffer:
    offer = priced_offer("asia-southeast1", usd, pricing, term_months=0, as_of="2026-11-09", **kw)
    return replace(offer, gpu=gpu, instance_type=f"{gpu}.x")


#: the demo on L4, priced on demand; the pre-train on H100, sold only on spot where it may run
DEMO = Demand(name="demo", gpu="L4", gpu_hours=(200.0,) * H)
PRE = Demand(name="pretrain", gpu="H100-SXM", gpu_hours=(1000.0,) * 3 + (0.0,) * (H - 3), interruptible=True)
SPOT = _offer("H100-SXM", "spot", 2.0, interruptions_per_hour=0.001)
L4 = _offer("L4", "on_demand", 1.0)


def _report(*demands: Demand, offers: tuple[PricedOffer, ...], budget: float | None = None) -> TcoReport:
    usage = load_usage(
        {
            "horizon_months": H,
            "start": "2027-01",
            "demands": [{"name": d.name, "gpu": d.gpu, "gpus": 1, "hours_per_month": 1} for d in demands],
            "constraints": {"countries": ["SG"], "pricing": ["on_demand", "spot"]},
        }
    )
    problem = TcoProblem(horizon_months=H, demands=demands, offers=offers)
    return TcoReport(
        usage=usage,
        problem=problem,
        schedule=optimise(problem),
        demands=tuple(
            DemandSource(name=d.name, gpu=d.gpu, gpu_hours_total=sum(d.gpu_hours), how="given")
            for d in demands
        ),
        money=Money.usd(),
        notes=(),
        missing=(),
        today=date(2026, 12, 1),
        budget_usd=budget,
    )


def test_baseline_prices_the_demands_that_have_an_on_demand_price_and_names_the_rest() -> None:
    report = _report(DEMO, PRE, offers=(L4, SPOT))
    s = report.schedule
    assert s.all_on_demand_usd is None  # the whole is unknown …
    assert s.on_demand_priced_usd == pytest.approx(200 * H * 1.0)  # … the demo's part is not
    assert s.on_demand_unpriced == ("pretrain",)
    line = next(x for x in summary_lines(report) if x.startswith("All on demand"))
    assert "at least $2,400" in line and "pretrain: no on-demand price for H100-SXM in SG" in line
    # said as no baseline: below the total where the unpriced demand costs something
    assert "the others are not counted in it, so it is no baseline for the total" in line, line
    doc = tco_json(report)
    assert doc["all_on_demand_cost_usd"] is None
    assert doc["on_demand_known_total_usd"] == 2400.0 and doc["on_demand_unpriced"] == ["pretrain"]


def test_spot_on_its_own_gpu_falls_back_to_that_gpus_on_demand_price_against_the_budget() -> None:
    od = _offer("H100-SXM", "on_demand", 6.0)
    report = _report(DEMO, PRE, offers=(L4, SPOT, od), budget=20_000.0)
    s = report.schedule
    (f,) = s.spot_fallbacks
    assert (f.demand, f.gpu, f.same_gpu, f.usd) == ("pretrain", "H100-SXM", True, pytest.approx(3000 * 6.0))
    assert s.total_without_spot_usd == pytest.approx(2400 + 3000 * 6.0)
    assert s.total_usd < 20_000.0 < s.total_without_spot_usd
    budget = next(x for x in summary_lines(report) if x.startswith("Budget"))
    assert "within it" in budget and "over it by $400.00 if spot cannot be had" in budget
    assert tco_json(report)["against_budget_usd"]["within_without_spot"] is False


def test_spot_without_an_on_demand_price_falls_back_to_the_plans_cheapest_on_demand_option() -> None:
    alt = OnDemandAlternative(gpu="A100-SXM4-80GB", gpus=8, usd=(5000.0,) * 3 + (0.0,) * (H - 3))
    report = _report(DEMO, replace(PRE, on_demand_elsewhere=lambda: alt), offers=(L4, SPOT))
    s = report.schedule
    (f,) = s.spot_fallbacks
    assert (f.gpu, f.same_gpu, f.usd) == ("A100-SXM4-80GB", False, 15_000.0)
    assert s.total_without_spot_usd == pytest.approx(2400 + 15_000)
    line = next(x for x in summary_lines(report) if x.startswith("If spot capacity cannot be had"))
    assert "$17,400" in line and "pretrain on A100-SXM4-80GB on demand, $15,000" in line
    assert tco_json(report)["spot_fallbacks"] == [
        {"demand": "pretrain", "gpu": "A100-SXM4-80GB", "same_gpu": False, "cost_usd": 15000.0}
    ]


def test_spot_with_no_fallback_is_unknown_not_zero() -> None:
    report = _report(DEMO, PRE, offers=(L4, SPOT), budget=180_000.0)
    s = report.schedule
    assert s.total_without_spot_usd is None and s.without_spot_at_least_usd == pytest.approx(2400)
    lines = summary_lines(report)
    assert any("If spot capacity cannot be had: total at least $2,400" in x for x in lines)
    assert any("unknown whether within it if spot cannot be had" in x for x in lines)
    assert tco_json(report)["against_budget_usd"]["within_without_spot"] is None


def test_two_fallbacks_are_joined_as_clauses_of_the_readers_language() -> None:
    # a Chinese line had joined them with an ASCII "; " ("…，¥37,179; cv-resnet50-train 按量使用 …")
    from gpuplan.i18n import use_language

    tune = Demand(name="finetune", gpu="L40S", gpu_hours=(500.0,) * 2 + (0.0,) * (H - 2), interruptible=True)
    offers = (
        L4,
        SPOT,
        _offer("H100-SXM", "on_demand", 6.0),
        _offer("L40S", "spot", 0.5, interruptions_per_hour=0.001),
        _offer("L40S", "on_demand", 1.5),
    )
    report = _report(DEMO, PRE, tune, offers=offers)
    assert len(report.schedule.spot_fallbacks) == 2
    en = next(x for x in summary_lines(report) if x.startswith("If spot capacity cannot be had"))
    assert "on demand, $18,000; finetune on L40S on demand, $1,500" in en, en
    with use_language("zh"):
        zh = next(x for x in summary_lines(report) if x.startswith("若抢占式容量无法获得"))
    assert "¥" not in zh and "; " not in zh and "$18,000；finetune " in zh, zh
