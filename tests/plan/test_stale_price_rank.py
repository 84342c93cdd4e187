"""A price not known to be current never wins unseen: where the recommended option's price is older
than the staleness limit (or of unknown age), the plan names its date and shows, beside it, the best
option whose price is known to be within the limit — as ``tco`` shows its total without stale spot
prices. Its date is one of the option's unknown facts, so it never wins a tie against a fresh one."""

from __future__ import annotations

import io

from plan_helpers import aws_costs, offer, toy_estimator
from rich.console import Console

from gpuplan.plan import Constraints, CostFacts, JobFacts, OfferTable, Plan, PlanOffer, plan_offers
from gpuplan.report.plan import plan_json, plan_view
from gpuplan.report.plan_html import plan_html

#: A 2023 monthly list price (the shape of the catalog's Alibaba subscription rows) and a fresh one.
STALE = dict(as_of="2023-06", staleness="stale", stale=True, price_age_days=1282.0)
FRESH = dict(as_of="2026-11-09", staleness="fresh", stale=False, price_age_days=25.0)


def _plan(rows: list[PlanOffer], **constraints: object) -> Plan:
    return plan_offers(
        OfferTable.from_rows(rows),
        CostFacts([aws_costs()]),
        JobFacts(),
        toy_estimator(),
        Constraints(**constraints),  # type: ignore[arg-type]
    )


def _text(plan: Plan) -> str:
    buf = io.StringIO()
    Console(file=buf, width=250, color_system=None).print(plan_view(plan))
    return buf.getvalue()


def _rows() -> list[PlanOffer]:
    return [
        offer(instance_type="old", price_usd=15.0, **STALE),  # type: ignore[arg-type]
        offer(instance_type="new", price_usd=21.96, **FRESH),  # type: ignore[arg-type]
    ]


def test_a_stale_winner_is_shown_beside_the_best_option_with_a_fresh_price() -> None:
    plan = _plan(_rows())
    assert plan.recommended.instance_type == "old"  # ranked on the price it has …
    beside = plan.without_stale_prices
    assert beside is not None and beside.option is not None
    assert beside.option.instance_type == "new"  # … and the best fresh one shown beside it
    assert beside.option.total_cost_usd > plan.recommended.total_cost_usd
    for shown in (_text(plan), plan_html(plan, "toy")):
        assert "2023-06" in shown and "180-day limit" in shown
        assert "best among prices known to be within the 180-day limit" in shown
        assert "aws/us-east-1 new" in shown
    doc = plan_json(plan, {"name": "toy"})
    assert doc.without_stale_prices is not None and doc.without_stale_prices.option is not None
    assert doc.without_stale_prices.option.instance_type == "new"
    assert "2023-06" in doc.without_stale_prices.note


def test_a_stale_price_date_is_an_unknown_fact_that_names_the_date() -> None:
    [old] = [o for o in _plan(_rows()).options if o.instance_type == "old"]
    [fact] = [u for u in old.unknown_facts if u.fact == "price_date"]
    assert "2023-06" in fact.assumed and "180-day limit" in fact.assumed


def test_a_stale_price_never_wins_a_tie_against_a_fresh_one() -> None:
    rows = [
        offer(instance_type="old", **STALE),  # type: ignore[arg-type]
        offer(instance_type="new", **FRESH),  # type: ignore[arg-type]
    ]
    plan = _plan(rows)
    assert [o.instance_type for o in plan.options] == ["new", "old"]
    assert plan.without_stale_prices is None


def test_a_price_of_unknown_age_is_shown_beside_a_fresh_one_too() -> None:
    bounded = dict(as_of="2025-06/2026-12-01", staleness="unknown", stale=True, price_age_days=548.0)
    rows = [
        offer(instance_type="old", price_usd=15.0, **bounded),  # type: ignore[arg-type]
        offer(instance_type="new", price_usd=21.96, **FRESH),  # type: ignore[arg-type]
    ]
    plan = _plan(rows)
    beside = plan.without_stale_prices
    assert beside is not None and beside.option is not None and beside.option.instance_type == "new"
    assert "2025-06" in beside.words and "2026-12-01" in beside.words


def test_without_a_fresh_price_the_plan_says_none_is_known_fresh() -> None:
    plan = _plan([offer(instance_type="old", **STALE)])  # type: ignore[arg-type]
    beside = plan.without_stale_prices
    assert beside is not None and beside.option is None
    text = _text(plan)
    assert "2023-06" in text and "no feasible option has a price known to be within the 180-day limit" in text
    doc = plan_json(plan, {"name": "toy"})
    assert doc.without_stale_prices is not None and doc.without_stale_prices.option is None


def test_a_fresh_winner_has_nothing_beside_it() -> None:
    rows = [
        offer(instance_type="old", price_usd=30.0, **STALE),  # type: ignore[arg-type]
        offer(instance_type="new", price_usd=21.96, **FRESH),  # type: ignore[arg-type]
    ]
    plan = _plan(rows)
    assert plan.recommended.instance_type == "new" and plan.without_stale_prices is None
    assert "best among prices known to be within" not in _text(plan)
    assert plan_json(plan, {"name": "toy"}).without_stale_prices is None


def test_the_fresh_alternative_meets_the_same_constraints() -> None:
    # The fresh offer misses the deadline: it is not a choice, so none is shown.
    rows = [
        offer(instance_type="old", price_usd=15.0, **STALE),  # type: ignore[arg-type]
        offer(instance_type="new", gpu="T4", gpu_count=1, gpu_memory_gib=16.0, **FRESH),  # type: ignore[arg-type]
    ]
    plan = _plan(rows, deadline_h=2.0)
    beside = plan.without_stale_prices
    assert beside is not None and beside.option is None


def test_a_stale_price_date_is_not_said_to_be_costed_at_a_bound() -> None:
    # The line read "unknown, costed at the conservative bound: price date: dated 2023-06 …", though
    # the listed price is the one costed: a date only ranks the option after one that knows it.
    plan = _plan(_rows())
    for shown in (_text(plan), plan_html(plan, "toy")):
        costed = [ln for ln in shown.splitlines() if "costed at the conservative bound:" in ln]
        assert not any("price date" in ln for ln in costed), costed
        said = (
            "unknown, in no figure (ranked after an option that knows it at the same cost): "
            "price date: dated 2023-06"
        )
        assert said in shown


def test_in_chinese_a_fact_and_its_words_are_joined_by_the_full_width_colon() -> None:
    from gpuplan.i18n import use_language

    with use_language("zh"):
        shown = _text(_plan(_rows()))
    assert "价格日期：" in shown and "价格日期: " not in shown


def test_tco_sizes_a_demand_on_the_plans_known_current_best_where_its_cheapest_is_a_stale_spot_price() -> (
    None
):
    # tco holds stale spot and commitment prices out of its schedule: a demand sized on a stale spot
    # winner was bought at its GPU type's other prices, dearer than plan's own known-current best
    from gpuplan.commit.adapters import _sizing_option

    rows = [
        offer(instance_type="old", pricing="spot", price_usd=6.0, **STALE),  # type: ignore[arg-type]
        offer(instance_type="new", price_usd=21.96, **FRESH),  # type: ignore[arg-type]
    ]
    plan = _plan(rows, pricing=("on_demand", "spot"))
    assert (plan.recommended.instance_type, plan.recommended.pricing) == ("old", "spot")
    sized, held_out = _sizing_option(plan)
    assert plan.without_stale_prices is not None
    assert sized is plan.without_stale_prices.option  # the plan's own figure, not a second pick
    assert (sized.instance_type, sized.pricing) == ("new", "on_demand")
    assert held_out is plan.recommended


def test_tco_sizes_on_the_current_option_where_a_stale_on_demand_price_wins() -> None:
    # one rule for every pricing model: a stale on-demand winner is named beside the option on prices
    # known to be current, which sizes the demand (it had sized on the stale one, so that a demand
    # allowed spot as well, sized on the current option, cost more than without it)
    from gpuplan.commit.adapters import _sizing_option

    plan = _plan(_rows())
    assert plan.recommended.instance_type == "old" and plan.without_stale_prices is not None
    assert plan.without_stale_prices.option is not None
    assert _sizing_option(plan) == (plan.without_stale_prices.option, plan.recommended)


def test_the_fresh_alternative_in_another_country_says_the_data_leaves_for_it() -> None:
    # Data in Frankfurt: "best among prices known to be within the 180-day limit: aws/us-east-1 …"
    # had named a US place with no word that the dataset leaves Germany, which the table says under it
    from dataclasses import replace

    frankfurt = ("aws", "eu-central-1")
    rows = [
        offer(region="eu-central-1", country="DE", instance_type="old", price_usd=15.0, **STALE),  # type: ignore[arg-type]
        offer(instance_type="new", price_usd=21.96, **FRESH),  # type: ignore[arg-type]
    ]
    job = JobFacts(task="train", dataset_gb=20.0, data_location=frankfurt)
    costs = CostFacts([aws_costs(), replace(aws_costs(), region="eu-central-1")])
    plan = plan_offers(OfferTable.from_rows(rows), costs, job, toy_estimator(), Constraints())
    assert plan.recommended.instance_type == "old"
    beside = plan.without_stale_prices
    assert beside is not None and beside.option is not None and beside.option.instance_type == "new"
    assert beside.words.endswith("); data leaves DE for US"), beside.words
    for shown in (_text(plan), plan_html(plan, "toy")):
        assert "aws/us-east-1 new" in shown and "data leaves DE for US" in shown
    assert plan_json(plan, {"name": "toy"}).without_stale_prices.note.endswith("data leaves DE for US")  # type: ignore[union-attr]
    # the same place for data in its own country: nothing added
    home = plan_offers(
        OfferTable.from_rows(rows),
        costs,
        replace(job, data_location=("aws", "us-east-1")),
        toy_estimator(),
        Constraints(),
    )
    assert home.without_stale_prices is not None and "data leaves" not in home.without_stale_prices.words
