"""A saved plan whose recommended option rests on a price older than the staleness limit (or
undated) is counted in the month's budget beside the figure the team can count on: its own best
option on prices known to be current (the plan document's ``without_stale_prices.option``), item by
item, team by team and in the month's total, with a note that gives both."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpuplan.catalog import ExchangeRate, open_store
from gpuplan.catalog.team_store import TeamStore
from gpuplan.documents.serve import BudgetDocument
from gpuplan.i18n import use_language


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
    # nor the month's: no plan had a known-current cost, so it is unknown (it read 0.0, and the note
    # said the month's plans "cost $0.00" on current prices)
    assert doc.planned_current_usd is None and doc.unknown_current_cost_plans == 1
    (note,) = [n for n in doc.notes if "not known to be current" in n]
    assert "no plan of the month had a feasible option on prices known to be current" in note
    assert "the month's cost is unknown, against the $326.77 planned" in note and "$0.00" not in note
    # a budget in yuan, and each team's line in the whole service's document: unknown too
    store.add_exchange_rate(_rate())
    team.set_budget("2027-01", 100.0, actor="admin", team="ml", given_cny=(700.0, _rate()))
    doc = BudgetDocument.model_validate(budget_document(store, "2027-01", "ml"))
    assert doc.planned_current_cny is None and doc.planned_current_usd is None
    (line,) = BudgetDocument.model_validate(budget_document(store, "2027-01")).teams
    assert line.planned_current_cny is None and line.planned_current_usd is None
    with use_language("zh"):
        notes = budget_document(store, "2027-01", "ml")["notes"]
    assert not [n for n in notes if "¥0.00" in n] and [n for n in notes if "未知" in n], notes


def test_a_month_partly_without_a_current_option_says_its_figure_is_partial_and_names_them(store) -> None:  # type: ignore[no-untyped-def]
    from gpuplan.web.work import budget_document

    team = TeamStore(store.engine)
    stale = _option("p5en.48xlarge", "spot", 326.77, stale=True)
    _save(team, "pretrain", _document(stale, _option("p4de.24xlarge", "on_demand", 1473.89, stale=False)))
    _save(team, "distil", _document(stale, None))
    doc = BudgetDocument.model_validate(budget_document(store, "2027-01", "ml"))
    # the known one only, and said so: "at least", and which plan is left out of it (it read "the
    # month's plans cost $1,473.89", and "1 plan had no feasible option", unnamed)
    assert doc.planned_current_usd == pytest.approx(1473.89) and doc.unknown_current_cost_plans == 1
    (note,) = [n for n in doc.notes if "not known to be current" in n]
    assert "the month's plans that had one cost at least $1,473.89 against the $653.54 planned" in note
    assert "1 plan had no feasible option on prices known to be current and is not in that figure" in note
    assert note.endswith("so the cost may be more: distil."), note


def test_a_plan_saved_before_the_newest_import_says_its_current_option_is_as_of_then(
    store, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    from gpuplan.web.work import budget_document

    team = TeamStore(store.engine)
    _save(team, "pretrain", _document(_option("p5en.48xlarge", "spot", 326.77, stale=True), None))
    doc = BudgetDocument.model_validate(budget_document(store, "2027-01", "ml"))
    assert not [n for n in doc.notes if "newest price import" in n]  # no import since
    # a dated quote imported after the plan was saved: the budget's option on current prices is the
    # one of when it was saved, which today's catalog (the price check) may better; said, with where
    # to look (the budget kept saying "no feasible option" beside a price check that found one)
    _import_quote(store, tmp_path)
    doc = BudgetDocument.model_validate(budget_document(store, "2027-01", "ml"))
    (note,) = [n for n in doc.notes if "not known to be current" in n]
    assert "1 of them was saved before the catalog's newest price import" in note
    assert "GET /api/v1/price-changes" in note and "planning it again" in note
    # saved again on today's catalog: not said
    newest, _digest = team.catalog_state()
    workload = team.workload("pretrain", None)
    team.save_plan(
        workload,
        month="2027-01",
        constraints={},
        document=_document(_option("p5en.48xlarge", "spot", 326.77, stale=True), None),
        catalog_import_id=newest,
        actor="a",
        team="ml",
    )
    doc = BudgetDocument.model_validate(budget_document(store, "2027-01", "ml"))
    assert not [n for n in doc.notes if "newest price import" in n]


def _rate() -> ExchangeRate:
    return ExchangeRate(currency="CNY", usd_per_unit=1 / 7.0, as_of="2026-11-01", source="test")


def _import_quote(store, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A dated Volcano Engine quote imported as ``catalog import --format gpuplan`` does."""
    import json

    from gpuplan.catalog.importers.own import read_own_prices

    quote = {
        "provider": "volcengine",
        "region": "cn-beijing",
        "instance_type": "ecs.gni3.8xlarge",
        "gpu": "A100-SXM4-80GB",
        "gpu_count": 8,
        "pricing": "monthly",
        "price": 160000,
        "currency": "CNY",
        "unit": "month",
        "as_of": "2026-11-20",
        "source": "EXAMPLE figure",
    }
    path = tmp_path / "quote.json"
    path.write_text(json.dumps([quote]), encoding="utf-8")
    own = read_own_prices(store, path)
    store.import_offers(own.rows, provider=own.provider, source="test")


def test_a_month_whose_plans_all_cost_unknown_has_no_planned_figure_not_zero(store) -> None:  # type: ignore[no-untyped-def]
    from gpuplan.web.work import budget_document

    team = TeamStore(store.engine)
    # two plans with no feasible option: their cost is unknown
    _save(team, "pretrain", {"schema_version": 4, "recommended": None})
    _save(team, "distil", {"schema_version": 4, "recommended": None})
    team.set_budget("2027-01", 2000.0, actor="admin", team="ml")
    doc = BudgetDocument.model_validate(budget_document(store, "2027-01", "ml"))
    # it read planned $0.00, remaining the whole $2,000.00 and 0 % used
    assert doc.unknown_cost_plans == 2
    assert (doc.planned_usd, doc.remaining_usd, doc.used_pct) == (None, None, None)
    (line,) = BudgetDocument.model_validate(budget_document(store, "2027-01")).teams
    assert (line.planned_usd, line.remaining_usd, line.used_pct) == (None, None, None)
    # in yuan too
    store.add_exchange_rate(_rate())
    team.set_budget("2027-01", 100.0, actor="admin", team="ml", given_cny=(700.0, _rate()))
    doc = BudgetDocument.model_validate(budget_document(store, "2027-01", "ml"))
    assert (doc.planned_cny, doc.planned_usd, doc.remaining_cny, doc.used_pct) == (None, None, None, None)
    # one plan of known cost: the figure is the known ones' (and said to leave the other out)
    _save(team, "embed", _document(_option("g6e.xlarge", "on_demand", 40.0, stale=False), None, beside=False))
    doc = BudgetDocument.model_validate(budget_document(store, "2027-01", "ml"))
    assert doc.planned_cny == pytest.approx(280.0) and doc.unknown_cost_plans == 2


def test_an_empty_month_plans_nothing(store) -> None:  # type: ignore[no-untyped-def]
    from gpuplan.web.work import budget_document

    TeamStore(store.engine).set_budget("2027-01", 2000.0, actor="admin")
    doc = BudgetDocument.model_validate(budget_document(store, "2027-01"))
    assert (doc.planned_usd, doc.remaining_usd, doc.used_pct) == (0.0, 2000.0, 0.0)
