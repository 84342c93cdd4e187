"""A reservation paid partly or all upfront is costed at its payment option's effective rate where
the shipped row's term carries it (AWS: every option of the row's term and offering class), with
the cash all upfront needs on day one; a row without it keeps its own rate and says so."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from gpuplan.catalog import open_store
from gpuplan.catalog.upfront import upfront_said, with_upfront
from gpuplan.errors import UnknownChoiceError
from gpuplan.vocab import Upfront


@pytest.fixture(scope="module")
def g6e(seeded_copy: Callable[[str], Path]):  # type: ignore[no-untyped-def]
    store = open_store(str(seeded_copy("catalog")))  # the shipped snapshot
    try:
        rows = store.offers(provider="aws", region="us-east-1", instance_type=["g6e.xlarge"])
    finally:
        store.close()
    return {p.pricing: p for p in rows}


def test_all_upfront_costs_the_effective_rate_of_the_rows_own_class_and_names_the_cash(g6e) -> None:  # type: ignore[no-untyped-def]
    one, three = with_upfront([g6e["reserved_1y"], g6e["reserved_3y"]], "all-upfront")
    # instances.vantage.sh of 2025-11-30, g6e.xlarge us-east-1: yrTerm1Standard.allUpfront 1.094292
    # (no upfront 1.17243), yrTerm3Standard.allUpfront 0.699734 (no upfront 0.80395)
    assert g6e["reserved_1y"].price_usd_per_hour == pytest.approx(1.17243)
    assert one.price_usd_per_hour == pytest.approx(1.094292)
    assert three.price_usd_per_hour == pytest.approx(0.699734)
    assert one.as_of == "2025-11-30"
    # 1.094292 $/h × 8760 h = $9,586.00 paid on day one per instance
    assert one.term["upfront_usd_per_instance"] == pytest.approx(9586.00, abs=0.01)
    assert three.term["upfront_usd_per_instance"] == pytest.approx(0.699734 * 26280)
    said = upfront_said(one)
    assert "all upfront: effective rate of 2025-11-30" in said
    assert "$9,586.00 per instance paid on day one" in said


def test_partial_upfront_costs_its_effective_rate_and_says_the_split_is_not_known(g6e) -> None:  # type: ignore[no-untyped-def]
    (one,) = with_upfront([g6e["reserved_1y"]], Upfront.PARTIAL)
    assert one.price_usd_per_hour == pytest.approx(1.116633)  # yrTerm1Standard.partialUpfront
    assert one.term["upfront_usd_per_instance"] is None
    assert "how much is paid upfront and how much hourly is not known" in upfront_said(one)


def test_a_convertible_row_keeps_convertible(g6e) -> None:  # type: ignore[no-untyped-def]
    conv = replace(
        g6e["reserved_1y"],
        term={**g6e["reserved_1y"].term, "offering_class": "convertible"},
        price=1.40692,
        price_usd_per_hour=1.40692,
    )
    (one,) = with_upfront([conv], "all")
    assert one.price_usd_per_hour == pytest.approx(1.313128)  # yrTerm1Convertible.allUpfront


def test_a_row_without_the_options_keeps_its_rate_and_says_it_is_not_known(g6e) -> None:  # type: ignore[no-untyped-def]
    bare = replace(g6e["reserved_1y"], term={"years": 1, "purchase_option": "No Upfront"})
    (one,) = with_upfront([bare], "all")
    assert one.price_usd_per_hour == pytest.approx(1.17243)
    assert "all upfront not known for this offer: its no-upfront rate is kept" in upfront_said(one)


def test_terms_of_another_price_list_than_the_rows_are_not_applied(g6e) -> None:  # type: ignore[no-untyped-def]
    # the row's own no-upfront rate moved since the options were published: not a cheaper guess
    moved = replace(g6e["reserved_1y"], price=1.30, price_usd_per_hour=1.30)
    (one,) = with_upfront([moved], "all")
    assert one.price_usd_per_hour == pytest.approx(1.30)
    assert one.term["upfront_known"] is False


def test_on_demand_and_no_upfront_are_untouched(g6e) -> None:  # type: ignore[no-untyped-def]
    assert with_upfront([g6e["on_demand"]], "all") == [g6e["on_demand"]]
    assert with_upfront([g6e["reserved_1y"]], None) == [g6e["reserved_1y"]]
    assert upfront_said(g6e["reserved_1y"]) == ""


def test_a_wrong_value_gets_did_you_mean() -> None:
    with pytest.raises(UnknownChoiceError, match="did you mean 'partial'"):
        Upfront.cast("partal")
    assert Upfront.cast("全预付") is Upfront.ALL
    assert Upfront.cast("部分预付") is Upfront.PARTIAL
    assert Upfront.cast("no-upfront") is Upfront.NONE


def test_offers_list_reserved_prices_at_the_chosen_option_and_say_which(fresh_catalog) -> None:  # type: ignore[no-untyped-def]
    from gpuplan.catalog.query import OfferQuery, list_offers
    from gpuplan.report.catalog import offers_view

    store = open_store(str(fresh_catalog))
    try:
        query = OfferQuery(provider="aws", region=("us-east-1", "ap-east-1"), pricing="reserved_1y",
                           all_regions=True, upfront="all")  # fmt: skip
        listing = list_offers(store, query)
    finally:
        store.close()
    by = {(v.offer.region, v.offer.instance_type): v for v in listing.views}
    g6e = by[("us-east-1", "g6e.xlarge")]
    assert g6e.price_per_hour == pytest.approx(1.094292)  # yrTerm1Standard.allUpfront
    assert g6e.offer.term["purchase_option"] == "All Upfront"
    assert g6e.offer.term["billing"] == "the whole term at its start"
    # ap-east-1 g5.2xlarge: a 2026-01-21 row without the other options, kept at its own rate
    g5 = by[("ap-east-1", "g5.2xlarge")]
    assert g5.price_per_hour == pytest.approx(1.17555)
    assert g5.offer.term["upfront_known"] is False
    from rich.console import Console

    console = Console(width=400, record=True)
    console.print(offers_view(listing))
    text = console.export_text()
    assert "all upfront: effective rate of 2025-11-30" in text
    assert "all upfront not known for this offer: its no-upfront rate is kept" in text


def test_a_discount_on_reservations_is_taken_off_the_chosen_options_rate(g6e) -> None:  # type: ignore[no-untyped-def]
    # a 10 % discount that names reserved_1y: 1.17243 × 0.9 listed, so all upfront 1.094292 × 0.9
    own = g6e["reserved_1y"]
    discounted = replace(
        own, price_usd_per_hour=1.17243 * 0.9, list_price_usd_per_hour=1.17243, discount_percent=10.0
    )
    (one,) = with_upfront([discounted], "all")
    assert one.price_usd_per_hour == pytest.approx(1.094292 * 0.9)
    assert one.list_price_usd_per_hour == pytest.approx(1.094292)
    assert one.term["upfront_usd_per_instance"] == pytest.approx(1.094292 * 0.9 * 8760)
