"""The plan's JSON document and report files (rendered from hand-made plans)."""

from __future__ import annotations

import json

import pytest
from plan_helpers import aws_costs, offer, toy_estimator

from gpuplan.plan import Constraints, CostFacts, JobFacts, OfferTable, plan_offers
from gpuplan.report.plan import plan_json, plan_view
from gpuplan.report.plan_html import cost_time_svg, plan_html, plan_markdown


def _plan():  # type: ignore[no-untyped-def]
    rows = [
        offer(),
        offer(pricing="spot", price_usd=8.0, interruption_band=">20%"),
        offer(instance_type="g5|x", gpu="A10G", gpu_count=1, gpu_memory_gib=24, price_usd=0.1),
        offer(provider="tencent", region="ap-guangzhou", country="CN", instance_type="GT4", price_usd=20.0),
    ]
    job = JobFacts(dataset_gb=200, checkpoint_gb=5, data_location=("aws", "us-east-1"))
    return plan_offers(
        OfferTable.from_rows(rows),
        CostFacts([aws_costs()]),
        job,
        toy_estimator(),
        Constraints(deadline_h=5),
        top=60,
    )


def test_json_is_strict_and_carries_the_contract() -> None:
    plan = _plan()
    text = plan_json(plan, {"name": "toy"}).to_json()
    back = json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in the plan"))  # unknowns are null
    assert back["schema_version"] == 6 and back["workload"]["name"] == "toy"
    spot = next(o for o in back["options"] if o["pricing"] == "spot")
    assert spot["checkpoint_interval_min"] > 0
    assert spot["spot"]["rate_assumed"] is True  # the open ">20%" band is read by assumption
    assert 0.0 <= spot["deadline_miss_probability"] <= 1.0
    tencent = [o for o in back["pareto"] + back["options"] if o["provider"] == "tencent"]
    for o in tencent:  # unknown storage/egress prices are assumptions, shown
        assert any("assumed" in a for a in o["assumptions"])
    for o in back["options"]:
        parts = {k: v for k, v in o["cost_breakdown"].items() if k.endswith("_usd")}
        assert sum(parts.values()) == pytest.approx(o["total_cost_usd"])


def test_svg_chart_is_inline_and_marks_the_recommendation() -> None:
    svg = cost_time_svg(_plan())
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    assert "recommended" in svg and "baseline" in svg and "<circle" in svg
    assert "href" not in svg


def test_html_and_markdown_reports() -> None:
    plan = _plan()
    html = plan_html(plan, "toy <job>")
    assert "toy &lt;job&gt;" in html and "<svg" in html
    md = plan_markdown(plan, "toy", "toy.svg")
    assert "(toy.svg)" in md
    assert "g5\\|x" in md  # a pipe in a cell does not break the table


def test_terminal_view_renders() -> None:
    from rich.console import Console

    console = Console(record=True, width=200)
    console.print(plan_view(_plan()))
    text = console.export_text()
    assert "Recommended:" in text and "Personas:" in text and "Savings vs" in text
