"""A usage whose reservations are paid all upfront is costed at the all-upfront effective rate of
the shipped AWS rows, and its commitments say the cash each takes at the start of its term."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gpuplan.catalog import open_store
from gpuplan.commit import tco
from gpuplan.errors import InputError
from gpuplan.report.tco import schedule_rows, tco_json


def _usage(**constraints: Any) -> dict[str, Any]:
    """Three single-L40S replicas around the clock for a year, on AWS us-east-1 (g6e.xlarge: one
    L40S each; ``gpus_per_run: 1``, or the three would be one run on an instance holding them)."""
    return {
        "horizon_months": 12,
        "start": "2027-01",
        "currency": "USD",
        "demands": [{"name": "service", "gpu": "L40S", "gpus": 3, "gpus_per_run": 1, "hours_per_month": 730}],
        "constraints": {
            "providers": ["aws"],
            "regions": ["us-east-1"],
            "pricing": ["on_demand", "reserved_1y"],
            **constraints,
        },
    }


@pytest.fixture(scope="module")
def store(seeded_copy: Callable[[str], Path]):  # type: ignore[no-untyped-def]
    # the shipped snapshot, its limit wide enough that its reserved prices (2025-11-30) are current:
    # a schedule leaves stale commitment prices out, and these tests are about what it buys at them
    s = open_store(str(seeded_copy("catalog")), stale_after_days=800)
    yield s
    s.close()


def test_all_upfront_lowers_the_commitment_by_the_all_upfront_rate_and_says_the_cash(store) -> None:  # type: ignore[no-untyped-def]
    before = tco(_usage(), store=store, currency="USD")
    after = tco(_usage(upfront="all-upfront"), store=store, currency="USD")
    (was,), (now,) = before.schedule.commitments, after.schedule.commitments
    # 3 g6e.xlarge × 8760 h: no upfront 1.17243 $/h = $30,811.46; all upfront 1.094292 $/h
    # (instances.vantage.sh, 2025-11-30) = $28,757.99, paid at the start of the term
    assert was.contract_usd == pytest.approx(3 * 1.17243 * 8760, abs=0.01)
    assert now.contract_usd == pytest.approx(28757.99, abs=0.01)
    assert was.contract_usd - now.contract_usd == pytest.approx(2053.47, abs=0.01)
    assert was.upfront_usd is None and now.upfront_usd == pytest.approx(28757.99, abs=0.01)
    doc = tco_json(after)["commitments"][0]
    assert (doc["upfront"], doc["upfront_usd"]) == ("all", pytest.approx(28757.99, abs=0.01))
    (row,) = schedule_rows(after)
    assert row[4] == "reserved 1 year, all upfront" and "$28,758 paid at the start" in row[-1]
    assert "[all upfront: effective rate of 2025-11-30" in now.offer.source
    assert not any("no upfront option is modelled" in n for n in after.notes)


def test_the_upfront_flag_replaces_the_usage_files(store) -> None:  # type: ignore[no-untyped-def]
    report = tco(_usage(upfront="none"), store=store, currency="USD", upfront="partial")
    (c,) = report.schedule.commitments
    # yrTerm1Standard.partialUpfront 1.116633 $/h × 8760 h × 3; the upfront part is not known
    assert c.contract_usd == pytest.approx(3 * 1.116633 * 8760, abs=0.01)
    assert c.upfront_usd is None and c.offer.upfront == "partial"


def test_a_wrong_upfront_is_one_line_with_did_you_mean(store) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError, match="did you mean 'partial'") as e:
        tco(_usage(upfront="partal"), store=store, currency="USD")
    assert "\n" not in str(e.value) and "upfront" in str(e.value)


def test_the_html_report_keeps_the_cash_at_the_start_on_a_line_of_its_own(store) -> None:  # type: ignore[no-untyped-def]
    from gpuplan.report.tco_html import tco_html

    page = tco_html(tco(_usage(upfront="all"), store=store, currency="USD"), "u")
    assert "$28,758<br>$28,758 paid at the start" in page


def _console(report: Any) -> str:
    from rich.console import Console

    from gpuplan.report.tco import tco_view

    console = Console(width=160, record=True, file=io.StringIO())
    console.print(tco_view(report))
    return console.export_text()


def test_all_upfront_cash_is_shown_in_the_month_it_is_paid(store) -> None:  # type: ignore[no-untyped-def]
    # was: the month table spread the $28,757.99 paid on day one as $2,396.50 in each of 12 months,
    # with nothing saying when the money leaves
    report = tco(_usage(upfront="all"), store=store, currency="USD")
    (c,) = report.schedule.commitments
    months = tco_json(report)["monthly"]
    spread = c.contract_usd / 12  # 28,757.99 / 12 = 2,396.50 a month, as the total counts it
    assert months[0]["cash_usd"] == pytest.approx(months[0]["cost_usd"] - spread + 28757.99, abs=0.02)
    for m in months[1:]:
        assert m["cash_usd"] == pytest.approx(m["cost_usd"] - spread, abs=0.02)
    # the cash adds up to the same total: the whole term falls inside the horizon
    assert sum(m["cash_usd"] for m in months) == pytest.approx(report.schedule.total_usd, abs=0.1)
    text = " ".join(_console(report).split())
    assert "total cash paid" in text
    assert (
        "The cost per month spreads an all-upfront reservation evenly over its term's months, as the "
        "total counts it; the cash column is what is paid each month, each upfront payment whole in the "
        "first month of its term: $28,758 in 2027-01." in text
    )
    from gpuplan.report.tco_html import tco_html

    assert "each upfront payment whole in the first month of its term: $28,758 in 2027-01." in tco_html(
        report, "u"
    )


def test_a_partial_upfront_says_its_first_months_cash_is_not_known(store) -> None:  # type: ignore[no-untyped-def]
    report = tco(_usage(upfront="partial"), store=store, currency="USD")
    assert all(m["cash_usd"] is None for m in tco_json(report)["monthly"])
    text = " ".join(_console(report).split())
    assert "cash paid" not in text
    assert (
        "how much is paid at the start is not published with the rate, so the cash of its first month is "
        "not known" in text
    )
    plain = " ".join(_console(tco(_usage(), store=store, currency="USD")).split())
    assert "cash" not in plain


def test_all_upfront_cash_past_the_horizon_is_said_where_the_total_credits_it(store) -> None:  # type: ignore[no-untyped-def]
    # six months of a 12-month term: the total counts six of its months, the cash is the whole term
    usage = {**_usage(upfront="all"), "horizon_months": 6, "past_horizon": "remaining_value"}
    report = tco(usage, store=store, currency="USD")
    assert len(report.schedule.commitments) == 1
    months = tco_json(report)["monthly"]
    assert months[0]["cash_usd"] == pytest.approx(28757.99, abs=0.02)
    assert all(m["cash_usd"] == 0 for m in months[1:])
    text = " ".join(_console(report).split())
    # 28,757.99 / 2 = 14,379.00 of it for the six months after the horizon
    assert (
        "The cash paid includes $14,379 for term months after the horizon, which the total leaves out "
        "as worth their price (past_horizon: remaining_value)." in text
    )
