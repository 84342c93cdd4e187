"""The age of the price a plan recommends: shown beside it in the store's words, and a stale,
undated or possibly-stale one (a source without a date whose bounds straddle the limit) flagged in
the headline, in the terminal view, the HTML report and ``--json``."""

from __future__ import annotations

import io

import pytest
from plan_helpers import aws_costs, offer, toy_estimator
from rich.console import Console

from gpuplan.i18n import use_language
from gpuplan.plan import Constraints, CostFacts, JobFacts, OfferTable, Plan, plan_offers
from gpuplan.report.plan import option_json, plan_view
from gpuplan.report.plan_html import plan_html


def _plan(**age: object) -> Plan:
    rows = [offer(**age)]
    return plan_offers(
        OfferTable.from_rows(rows), CostFacts([aws_costs()]), JobFacts(), toy_estimator(), Constraints()
    )


def _text(plan: Plan) -> str:
    buf = io.StringIO()
    Console(file=buf, width=200, color_system=None).print(plan_view(plan))
    return buf.getvalue()


CASES = {
    # (as_of, age fields) -> (age shown, headline warning or None)
    "fresh": (
        dict(as_of="2026-11-09", staleness="fresh", stale=False, price_age_days=22.0),
        "22 d old",
        None,
    ),
    "stale": (
        dict(as_of="2025-11-30", staleness="stale", stale=True, price_age_days=366.0),
        "stale (12 mo)",
        "stale price: older than the 180-day limit",
    ),
    "bounded": (
        dict(as_of="2025-06/2026-12-01", staleness="unknown", stale=True, price_age_days=548.0),
        "age unknown (up to 18 mo)",
        "price of unknown age: its source carries no date",
    ),
    "undated": (dict(as_of="", staleness="unknown", stale=True), "date unknown", "price of unknown age"),
}


@pytest.mark.parametrize("case", CASES)
def test_the_recommended_price_shows_its_age_and_a_stale_one_is_flagged(case: str) -> None:
    fields, age, warning = CASES[case]
    plan = _plan(**fields)
    text, html = _text(plan), plan_html(plan, "toy")
    assert age in text and age in html
    for shown in (text, html):
        if warning is None:
            assert "check it before you rent" not in shown
        else:
            assert warning in shown
    rec = option_json(plan.recommended)
    assert (rec.stale, rec.staleness) == (fields["stale"], fields["staleness"])


def test_the_warning_reads_in_chinese() -> None:
    fields, _age, _warning = CASES["bounded"]
    with use_language("zh"):
        text = _text(_plan(**fields))
    assert "价格时效未知" in text and "时效未知（最多 18 个月）" in text


def test_a_zones_own_price_names_its_zone_in_the_view_and_the_report() -> None:
    # spot prices are set per zone: a launch elsewhere in the region may pay 2.4x (cn-guangzhou-a)
    plan = _plan(as_of="2026-11-09", staleness="fresh", stale=False, price_age_days=22.0, zone="us-east-1b")
    words = (
        "per instance in zone us-east-1b (launch in that zone: another zone of us-east-1 may be priced "
        "otherwise)"
    )
    assert words in " ".join(_text(plan).split()) and words in plan_html(plan, "toy")
    assert "in zone" not in _text(_plan(as_of="2026-11-09", staleness="fresh", stale=False, zone=""))
