"""A saved plan whose recommended option rests on a price older than the staleness limit (or
undated) is counted in the month's budget beside the figure the team can count on: its own best
option on prices known to be current (the plan document's ``without_stale_prices.option``), item by
item, team by team and in the month's total, with a note that gives both."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpuplan.catalog import open_store
from gpuplan.catalog.team_store import TeamStore
from gpuplan.documents.serve import BudgetDocument


def _option(instance: str, pricing: str, cost: float, *, stale: bool) -> dict[str, Any]:
    return {
        "provider": "aws",
        "region": "us-east-1",
        "instance_type": instance,
        "gpu": "H200-SXM",
        "nodes": 1,
        "gpu_count": 8,
        "pricing": pricing,
        "total_cost_usd": cost,
        "as_of": "2025-11-30" if stale else "2026-11-09",
        "stale": stale,
        "staleness": "stale" if stale else "fresh",
    }


def _document(rec: dict[str, Any], current: dict[str, Any] | None, *, beside: bool = True) -> dict[str, Any]:
    doc: dict[str, Any] = {"schema_version": 4, "recommended": rec}
    if beside:
        doc["without_stale_prices"] = {"option": current, "offers_left_out": 3, "note": "…"}
    return doc


def _save(team: TeamStore, name: str, document: dict[str, Any], *, runs: int = 1, who: str = "a") -> None:
    workload = team.save_workload(name, {"workload": {"name": name}}, actor=who, team="ml")
    team.save_plan(
        workload,
        month="2027-01",
        constraints={},
        document=document,
        catalog_import_id=None,
        actor=who,
        runs_per_month=runs,
        team="ml",
    )


@pytest.fixture
def store(tmp_path: Path):  # type: ignore[no-untyped-def]
    st = open_store(str(tmp_path / "x.db"), seed=False)
    try:
        yield st
    finally:
        st.close()


def test_a_plan_on_a_stale_price_counts_its_known_current_option_beside_it(store) -> None:  # type: ignore[no-untyped-def]
    from gpuplan.web.work import budget_document

    team = TeamStore(store.engine)
    # the probe's pre-training: a year-old spot price wins at $326.77; the best on current prices
    # is p4de on demand at $1,473.89, run twice in the month
    stale = _document(
        _option("p5en.48xlarge", "spot", 326.77, stale=True),
        _option("p4de.24xlarge", "on_demand", 1473.89, stale=False),
    )
    _save(team, "pretrain", stale, runs=2)
    # a plan on a current price counts the same in both
    _save(team, "embed", _document(_option("g6e.xlarge", "on_demand", 40.0, stale=False), None, beside=False))
    team.set_budget("2027-01", 2000.0, actor="admin", team="ml")

    doc = BudgetDocument.model_validate(budget_document(store, "2027-01", "ml"))
    assert doc.planned_usd == pytest.approx(2 * 326.77 + 40.0)
    assert doc.planned_current_usd == pytest.approx(2 * 1473.89 + 40.0)
    assert (doc.stale_price_plans, doc.unknown_current_cost_plans) == (1, 0)
    items = {p.workload: p for p in doc.plans}
    pre = items["pretrain"]
    assert pre.month_cost_usd == pytest.approx(653.54)
    assert pre.current_month_cost_usd == pytest.approx(2947.78)
    assert not pre.prices_current_when_planned and pre.current_option is not None
    assert "p4de.24xlarge" in pre.current_option
    embed = items["embed"]
    assert embed.prices_current_when_planned and embed.current_option is None
    assert embed.current_month_cost_usd == pytest.approx(40.0)
    # the total says both, and that the known-current one is over the budget
    (note,) = [n for n in doc.notes if "not known to be current" in n]
    assert "$2,987.78" in note and "$693.54" in note and "over the budget of $2,000.00" in note

    # the whole service's document: the team's line carries both too
    whole = BudgetDocument.model_validate(budget_document(store, "2027-01"))
    (line,) = whole.teams
    assert line.planned_usd == pytest.approx(693.54)
    assert line.planned_current_usd == pytest.approx(2987.78) and line.stale_price_plans == 1
    assert any(n.startswith("Team ml: 1 plan for 2027-01 rests on") for n in whole.notes)


def test_a_stale_plan_with_no_current_option_is_not_counted_as_current_and_said(store) -> None:  # type: ignore[no-untyped-def]
    from gpuplan.web.work import budget_document

    team = TeamStore(store.engine)
    _save(team, "pretrain", _document(_option("p5en.48xlarge", "spot", 326.77, stale=True), None))
    doc = BudgetDocument.model_validate(budget_document(store, "2027-01", "ml"))
    (item,) = doc.plans
    # unknown is never the best case: not the stale figure, and not 0
    assert item.current_month_cost_usd is None and item.current_option is None
    assert doc.planned_current_usd == 0 and doc.unknown_current_cost_plans == 1
    (note,) = [n for n in doc.notes if "not known to be current" in n]
    assert "no feasible option on prices known to be current" in note
