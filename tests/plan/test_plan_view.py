"""The terminal view of a plan: fits 80, 100 and 120 columns (terminal or piped) without cutting an
identifier, and reads in Chinese with amounts in yuan."""

from __future__ import annotations

import io

import pytest
from plan_helpers import aws_costs, offer, toy_estimator
from rich.cells import cell_len
from rich.console import Console

from gpuplan.i18n import Money, use_language, use_money
from gpuplan.plan import Constraints, CostFacts, JobFacts, Objective, OfferTable, plan_offers
from gpuplan.report.plan import plan_view

#: Identifiers as long as the real catalog's (the issue saw `p5en.48xla…`, `Standard_N…` cut).
LONG = [
    offer(instance_type="p5en.48xlarge", gpu="H100-SXM5-80GB", gpu_memory_gib=80.0, price_usd=63.3),
    offer(
        provider="azure",
        region="eastus",
        instance_type="Standard_NC24ads_A100_v4",
        gpu_count=1,
        price_usd=3.67,
        billing_granularity_s=None,
    ),
    offer(
        provider="alibaba",
        region="cn-shanghai",
        country="CN",
        instance_type="ecs.gn7i-c8g1.2xlarge",
        gpu="A10G",
        gpu_count=1,
        gpu_memory_gib=24.0,
        price_usd=1.9,
        pricing="spot",
    ),
    offer(),
]
IDENTIFIERS = ["p5en.48xlarge", "Standard_NC24ads_A100_v4", "ecs.gn7i-c8g1.2xlarge", "p4d.24xlarge"]


def _plan():  # type: ignore[no-untyped-def]
    job = JobFacts(dataset_gb=150, checkpoint_gb=2, data_location=("aws", "us-east-1"))
    return plan_offers(
        OfferTable.from_rows(LONG),
        CostFacts([aws_costs()]),
        job,
        toy_estimator(),
        Constraints(deadline_h=48, budget_usd=3000),
        top=10,
    )


def _render(width: int, *, terminal: bool) -> str:
    buf = io.StringIO()
    # force_terminal=False is what a pipe gets: no colour, the width we give.
    console = Console(file=buf, width=width, force_terminal=terminal, color_system=None)
    console.print(plan_view(_plan()))
    return buf.getvalue()


@pytest.mark.parametrize("terminal", [True, False], ids=["terminal", "piped"])
@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("width", [60, 80, 100, 120])
def test_plan_fits_the_width_and_keeps_every_identifier_whole(
    width: int, terminal: bool, language: str
) -> None:
    # At 60 columns "aws/us-east" and "g6e.xla" had been cut (the pricing model and the time in
    # columns of their own); a fourth layout stacks them.
    with use_language(language):
        text = _render(width, terminal=terminal)
    lines = text.splitlines()
    assert max(cell_len(line) for line in lines) <= width
    assert "…" not in text
    table = text.split("Recommended" if language == "en" else "推荐：")[0]
    for ident in [*IDENTIFIERS, "alibaba/cn-shanghai", "azure/eastus"]:
        assert ident in table, f"{ident} is cut at {width} columns"


def test_narrow_layouts_stack_cells_instead_of_dropping_columns() -> None:
    wide, narrow = _render(120, terminal=False), _render(80, terminal=False)
    assert "range" in wide.split("Recommended")[0]  # its own column at 120
    assert "range" not in narrow.split("Recommended")[0]  # under the cost at 80
    assert "where / instance / GPUs" in narrow  # GPUs stacked under where and instance at 80


def test_plan_reads_in_chinese_with_yuan() -> None:
    cny = Money.from_rate("CNY", usd_per_unit=0.125, as_of="2024-11-25", source="CFETS")
    buf = io.StringIO()
    with use_language("zh"), use_money(cny):
        Console(file=buf, width=100, color_system=None).print(plan_view(_plan()))
    text = buf.getvalue()
    assert "推荐：" in text and "候选方案" in text and "假设与说明" in text
    assert "¥" in text and "$" not in text.split("假设与说明")[0]
    assert "按 1 USD = 8.0000 CNY 换算" in text
    for english in ("Recommended", "Personas", "Options", "on_demand"):
        assert english not in text


def test_a_dearer_pick_says_how_many_times_the_baseline_not_negative_savings() -> None:
    # --objective time: the fastest option costs more than the baseline; no "savings -1532 %".
    job = JobFacts(dataset_gb=0, checkpoint_gb=0, data_location=("aws", "us-east-1"))
    rows = [offer(), offer(instance_type="p5", gpu="H100-SXM5-80GB", gpu_memory_gib=80.0, price_usd=98.0)]
    plan = plan_offers(
        OfferTable.from_rows(rows),
        CostFacts([aws_costs()]),
        job,
        toy_estimator(),
        Constraints(objective=Objective.TIME, max_nodes=1),
    )
    buf = io.StringIO()
    Console(file=buf, width=100, color_system=None).print(plan_view(plan))
    text = buf.getvalue()
    assert "× the baseline" in text and "-" not in text.split("× the baseline")[0].splitlines()[-1]


def test_a_thinned_pareto_front_says_how_many_of_its_options_it_shows() -> None:
    # one-GPU instances at 1…64 GPUs: each count a point of the front; the header had said
    # "(11 options)" above the 8 lines it shows
    plan = plan_offers(
        OfferTable.from_rows([offer(instance_type="a2", gpu_count=1, price_usd=3.67)]),
        CostFacts([aws_costs()]),
        JobFacts(),
        toy_estimator(),
        Constraints(max_nodes=16),
    )
    assert len(plan.pareto) > 8
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(plan_view(plan))
    text = out.getvalue()
    header = next(line for line in text.splitlines() if line.startswith("Pareto front ("))
    assert header.startswith(f"Pareto front ({len(plan.pareto)} options, 8 of them shown; all in --json): ")
    after = text.split(header, 1)[1].splitlines()
    assert len([line for line in after[:9] if "a2" in line]) == 8


def _one_country_plan(region: str, country: str, provider: str = "alibaba"):  # type: ignore[no-untyped-def]
    rows = [
        offer(provider=provider, region=region, country=country, instance_type="ecs.gn7i-c8g1.2xlarge"),
        offer(provider=provider, region=region, country=country, price_usd=30.0),
    ]
    return plan_offers(OfferTable.from_rows(rows), CostFacts([]), JobFacts(), toy_estimator(), Constraints())


@pytest.mark.parametrize("width", [80, 120])
def test_a_region_named_like_another_country_shows_its_own_beside_it(width: int) -> None:
    """``cn-hongkong`` reads as mainland China; the table had shown no country, and a plan with no
    data location nor users said nothing else of it."""
    from gpuplan.report.plan_html import plan_html, plan_markdown

    plan = _one_country_plan("cn-hongkong", "HK")
    buf = io.StringIO()
    Console(file=buf, width=width, color_system=None).print(plan_view(plan))
    text = buf.getvalue()
    assert "alibaba/cn-hongkong (HK)" in text
    assert max(cell_len(line) for line in text.splitlines()) <= width
    assert "alibaba/cn-hongkong (HK)" in plan_html(plan, "toy")
    assert "alibaba/cn-hongkong (HK)" in plan_markdown(plan, "toy", "chart.svg")


def test_options_in_several_countries_show_each_ones_country() -> None:
    text = _render(80, terminal=False)
    assert "alibaba/cn-shanghai (CN)" in text and "azure/eastus (US)" in text


def test_options_in_one_country_named_as_it_show_none() -> None:
    plan = _one_country_plan("cn-shanghai", "CN")
    buf = io.StringIO()
    Console(file=buf, width=120, color_system=None).print(plan_view(plan))
    assert "alibaba/cn-shanghai " in buf.getvalue() and "alibaba/cn-shanghai (CN)" not in buf.getvalue()
