"""A plan asked to pay its reservations all upfront costs the shipped AWS rows at their
all-upfront effective rate, names it with its date, and says the cash its instances take on day
one; a reserved row whose term does not carry the option keeps its own rate and says so."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from plan_helpers import aws_costs

from gpuplan.catalog import open_store
from gpuplan.catalog.upfront import with_upfront
from gpuplan.plan import CostFacts, EstimateKey, EstimateRow, JobFacts, plan_offers
from gpuplan.plan.build_inputs import constraints_from_spec, offer_table_from_prices
from gpuplan.report.plan_view import price_words
from gpuplan.workload import ConstraintsSpec

MONTH_H = 730.0
#: A month of serving on three one-GPU replicas, whatever the offer.
SERVICE = JobFacts(calendar_months=1.0, requests_per_s=3.0, task="infer")


def _estimate(key: EstimateKey) -> EstimateRow:
    carried = key.gpu_count >= 3
    return EstimateRow(
        fits=carried,
        short_of_load=not carried,
        replica_requests_per_s=1.0,
        job_time_h=MONTH_H,
        job_time_h_low=MONTH_H,
        job_time_h_high=MONTH_H,
        peak_memory_gib=20.0,
    )


@pytest.fixture(scope="module")
def reserved(seeded_copy: Callable[[str], Path]):  # type: ignore[no-untyped-def]
    store = open_store(str(seeded_copy("catalog")))  # the shipped snapshot
    try:
        rows = store.offers(provider="aws", region="us-east-1", instance_type=["g6e.xlarge"])
    finally:
        store.close()
    return [p for p in rows if p.pricing == "reserved_1y"]


def _plan(prices, upfront):  # type: ignore[no-untyped-def]
    constraints = constraints_from_spec(
        ConstraintsSpec(commitment="1y", pricing=("reserved_1y",)), upfront=upfront
    )
    table = offer_table_from_prices(with_upfront(prices, constraints.upfront))
    return plan_offers(table, CostFacts([aws_costs()]), SERVICE, _estimate, constraints).recommended


def test_all_upfront_costs_the_all_upfront_rate_and_names_the_cash_on_day_one(reserved) -> None:  # type: ignore[no-untyped-def]
    before, after = _plan(reserved, None), _plan(reserved, "all-upfront")
    # instances.vantage.sh of 2025-11-30, g6e.xlarge us-east-1 yrTerm1Standard: no upfront
    # 1.17243 $/h, all upfront 1.094292 $/h (6.7 % less)
    assert before.price_usd_per_hour == pytest.approx(1.17243)
    assert after.price_usd_per_hour == pytest.approx(1.094292)
    assert (after.nodes, after.upfront) == (3, "all")
    # 3 instances × 1.094292 $/h × 8760 h = $28,757.99 paid on day one (no upfront: none)
    assert after.upfront_usd == pytest.approx(28757.99, abs=0.01)
    assert before.upfront_usd is None and before.upfront == ""
    # the month's share: 3 × 730 h × (1.17243 − 1.094292) = $171.12 less
    assert before.total_cost_usd - after.total_cost_usd == pytest.approx(171.12, abs=0.01)
    words = price_words(after)
    assert "all upfront: effective rate of 2025-11-30" in words
    assert "all upfront: $28,758 paid on day one for its 3 instance(s)" in words


def test_partial_upfront_costs_its_rate_and_says_the_split_is_not_known(reserved) -> None:  # type: ignore[no-untyped-def]
    rec = _plan(reserved, "部分预付")
    assert rec.price_usd_per_hour == pytest.approx(1.116633)  # yrTerm1Standard.partialUpfront
    assert rec.upfront == "partial" and rec.upfront_usd is None
    assert "how much is paid upfront and how much hourly is not known" in rec.price_source


def test_a_row_without_the_option_keeps_its_rate_and_says_it_is_not_known(reserved) -> None:  # type: ignore[no-untyped-def]
    bare = [replace(p, term={"years": 1}) for p in reserved]
    rec = _plan(bare, "all")
    assert rec.price_usd_per_hour == pytest.approx(1.17243)
    assert rec.upfront == "" and rec.upfront_usd is None
    assert "all upfront not known for this offer: its no-upfront rate is kept" in rec.price_source


def test_a_workloads_constraints_upfront_is_read_and_a_typo_is_one_line_with_did_you_mean() -> None:
    from pydantic import ValidationError

    assert constraints_from_spec(ConstraintsSpec(upfront="全预付")).upfront == "all"
    assert constraints_from_spec(ConstraintsSpec()).upfront is None
    with pytest.raises(ValidationError, match="unknown upfront payment 'partal'; did you mean 'partial'"):
        ConstraintsSpec(upfront="partal")
