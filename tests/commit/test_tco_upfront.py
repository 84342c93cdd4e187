"""A usage whose reservations are paid all upfront is costed at the all-upfront effective rate of
the shipped AWS rows, and its commitments say the cash each takes at the start of its term."""

from __future__ import annotations

from typing import Any

import pytest

from gpuplan.catalog import open_store
from gpuplan.commit import tco
from gpuplan.errors import InputError
from gpuplan.report.tco import schedule_rows, tco_json


def _usage(**constraints: Any) -> dict[str, Any]:
    """Three L40S around the clock for a year, on AWS us-east-1 (g6e.xlarge: one L40S each)."""
    return {
        "horizon_months": 12,
        "start": "2027-01",
        "currency": "USD",
        "demands": [{"name": "service", "gpu": "L40S", "gpus": 3, "hours_per_month": 730}],
        "constraints": {
            "providers": ["aws"],
            "regions": ["us-east-1"],
            "pricing": ["on_demand", "reserved_1y"],
            **constraints,
        },
    }


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    s = open_store(str(tmp_path_factory.mktemp("catalog") / "c.sqlite"))  # the shipped snapshot
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
