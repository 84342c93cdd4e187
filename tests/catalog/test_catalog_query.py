"""Browsing: cheapest region per instance type, sorting, price caps, display currency."""

from __future__ import annotations

import pytest

from gpuplan.catalog import ExchangeRate, OfferRow, PriceRow, Store
from gpuplan.catalog.query import OfferQuery, cheapest_by_gpu, list_offers
from gpuplan.errors import DataError, NotFoundError


def _offer(region: str, amount: float) -> OfferRow:
    return OfferRow(
        provider="gcp",
        region=region,
        zone=None,
        instance_type="test-h200-8g",  # a type of its own: the snapshot's rows do not compete
        gpu="H200-SXM",
        gpu_count=8,
        vcpus=224,
        memory_gib=2952,
        network_gbps=None,
        interconnect=None,
        source="test",
        prices=(
            PriceRow(
                pricing="on_demand",
                amount=amount,
                currency="USD",
                unit="hour",
                as_of="2026-11-01",
                source="test",
                confidence="high",
            ),
        ),
    )


def test_default_keeps_the_cheapest_region_and_counts_the_others(store: Store) -> None:
    store.import_offers([_offer("asia-south1", 70.0), _offer("us-west1", 95.0)], provider="gcp", source="t")
    q = OfferQuery(gpu="h200", provider="gcp", pricing="on_demand")
    [view] = [v for v in list_offers(store, q).views if v.offer.instance_type == "test-h200-8g"]
    assert view.offer.region == "asia-south1"
    assert view.regions_compared == 2
    every = list_offers(store, OfferQuery(gpu="h200", provider="gcp", pricing="on_demand", all_regions=True))
    assert len([v for v in every.views if v.offer.instance_type == "test-h200-8g"]) == 2


def test_sorting(store: Store) -> None:
    by_price = [v.price_per_hour for v in list_offers(store, OfferQuery(pricing="on_demand")).views]
    known = [p for p in by_price if p is not None]
    assert known == sorted(known)
    assert by_price.index(None) > by_price.index(known[-1]) if None in by_price else True
    # by what plans cost each (an undated spot price below its region's dated one at that one)
    per_gpu = [v.ranked_per_gpu_hour for v in list_offers(store, OfferQuery(sort="price-per-gpu")).views]
    known = [p for p in per_gpu if p is not None]
    assert known == sorted(known)
    mem = list_offers(store, OfferQuery(sort="gpu-memory")).views
    assert mem[0].offer.gpu in ("H200-SXM", "MI300X")  # 8 x 141 or 8 x 192 GB first
    with pytest.raises(NotFoundError, match="sort key"):
        list_offers(store, OfferQuery(sort="cheapness"))


def test_max_price_leaves_out_unknown_prices_and_says_so(store: Store) -> None:
    listing = list_offers(store, OfferQuery(max_price_per_hour=1.0))
    assert listing.views and all(
        v.price_per_hour is not None and v.price_per_hour <= 1.0 for v in listing.views
    )
    assert listing.hidden_unknown_price > 0
    with pytest.raises(DataError):
        list_offers(store, OfferQuery(max_price_per_hour=-1))


def test_cny_display_uses_the_dated_rate_and_shows_it(store: Store) -> None:
    shipped = list_offers(store, OfferQuery(currency="CNY", provider="aws", pricing="on_demand"))
    assert [(r.currency, r.as_of) for r in shipped.rates] == [("CNY", "2026-01-27")]
    with pytest.raises(NotFoundError, match="currency"):
        list_offers(store, OfferQuery(currency="EUR"))
    store.override_exchange_rate(
        ExchangeRate(currency="CNY", usd_per_unit=0.125, as_of="2026-11-30", source="t")
    )
    listing = list_offers(
        store, OfferQuery(currency="CNY", provider="aws", pricing="on_demand", gpu="H100-SXM", count=8)
    )
    [p5] = listing.views  # p5.48xlarge, cheapest in us-east-1
    # 55.04 USD/h / 0.125 USD per CNY = 440.32 CNY/h
    assert p5.price_per_hour == pytest.approx(440.32)
    assert [r.currency for r in listing.rates] == ["CNY"]
    ali = list_offers(
        store, OfferQuery(currency="CNY", provider="alibaba", region="cn-shanghai", pricing="on_demand")
    )
    # Already in CNY: the published amount, unconverted.
    assert {v.price_per_hour for v in ali.views} >= {31.58}


def test_cheapest_by_gpu_ignores_unconvertible_prices(store: Store) -> None:
    best = cheapest_by_gpu(store.offers())
    # Lium's H100-SXM_8x in RU at 14.00 USD/h (SkyPilot catalog lium/vms.csv line 10) = 1.75 USD/GPU-h
    # undercuts p5.48xlarge (55.04 / 8 = 6.88 USD/GPU-h).
    assert best["H100-SXM"]["on_demand"].price_usd_per_gpu_hour == pytest.approx(14.0 / 8)
    offers = store.offers()
    for gpu, per in best.items():
        for pricing, o in per.items():
            # Each at what a plan costs it at: a spot price undated or stale, below its dated floor,
            # counts at that floor, so "cheapest" is never a figure planning would not use.
            candidates = [
                x.conservative_usd_per_gpu_hour()
                for x in offers
                if x.gpu == gpu
                and x.pricing == pricing
                and x.price_usd_per_gpu_hour is not None
                and x.confidence != "low"
            ]
            assert o.conservative_usd_per_gpu_hour() == min(c for c in candidates if c is not None)
    # AWS's p6-b200 spot in us-east-1: SkyPilot's undated 13.0338/h below the region's dated lowest
    # zone of 2025-11-30, 37.872/h; it used to be the "cheapest" B200 spot at 1.63 USD/GPU-h.
    p6 = next(
        x
        for x in offers
        if x.instance_type == "p6-b200.48xlarge" and x.region == "us-east-1" and x.pricing == "spot"
    )
    assert p6.price_usd_per_hour == pytest.approx(13.0338)
    assert p6.conservative_usd_per_gpu_hour() == pytest.approx(37.872 / 8)
    assert best["B200"]["spot"].conservative_usd_per_gpu_hour() > 13.0338 / 8


def test_max_price_names_the_rate_that_left_a_converted_offer_out(store: Store) -> None:
    # Alibaba's prices are in CNY: shown in USD under a cap they all exceed, none is listed, but
    # the CNY rate decided that, so the listing names it (and its age warning).
    ali = OfferQuery(provider="alibaba", region="cn-shanghai", pricing="on_demand", currency="USD")
    assert [r.currency for r in list_offers(store, ali).rates] == ["CNY"]
    capped = list_offers(
        store,
        OfferQuery(provider="alibaba", region="cn-shanghai", pricing="on_demand", max_price_per_hour=0.01),
    )
    assert capped.views == ()
    assert [r.currency for r in capped.rates] == ["CNY"]
    # A USD-only listing still names none.
    aws = list_offers(store, OfferQuery(provider="aws", pricing="on_demand", max_price_per_hour=0.01))
    assert aws.rates == ()


def test_offers_pick_and_sort_an_undated_spot_price_at_what_plans_cost_it(store: Store) -> None:
    # AWS's p5en spot in eu-south-2: an undated 6.836/h (0.85 per H200-hour) against the region's
    # dated average of 2025-11-30, 34.86/h. It was listed as the cheapest of 18 regions and sorted
    # first among 8-GPU offers; plans cost it at 34.86. The listing now picks and sorts by that.
    from gpuplan.report.offers_json import offer_items

    listing = list_offers(store, OfferQuery(gpu="H200-SXM", pricing="spot"))
    p5en = next(v for v in listing.views if v.offer.instance_type == "p5en.48xlarge")
    assert p5en.offer.region != "eu-south-2" and p5en.regions_compared > 1
    every = list_offers(store, OfferQuery(gpu="H200-SXM", pricing="spot", all_regions=True))
    south = next(
        v for v in every.views if v.offer.instance_type == "p5en.48xlarge" and v.offer.zone == "eus2-az2"
    )
    assert south.price_per_hour == pytest.approx(6.836)
    assert south.floor is not None and south.ranked_per_hour == pytest.approx(34.863437)
    ranked = [v.ranked_per_hour for v in every.views if v.ranked_per_hour is not None]
    assert ranked == sorted(ranked)
    item = next(i for i, v in zip(offer_items(every), every.views, strict=True) if v is south)
    assert item["price_usd_per_hour"] == pytest.approx(34.863437)
    assert item["floor"]["basis"] == "region-average" and "average" in item["floor"]["what"]
    assert item["floor"]["best_case_usd_per_hour"] == pytest.approx(6.836)


def test_max_price_says_what_it_left_out_at_its_costed_price(store: Store) -> None:
    # p5.48xlarge spot: an undated 10.24/h that plans cost at its region's dated lowest zone, 13.22;
    # under a cap of 13 it is left out, and the listing says why (it printed "0 offers." only).
    listing = list_offers(
        store, OfferQuery(gpu="H100-SXM", provider="aws", pricing="spot", max_price_per_hour=13.0)
    )
    assert listing.hidden_costed >= 1
    assert all(v.ranked_per_hour is not None and v.ranked_per_hour <= 13.0 for v in listing.views)


def test_the_zones_of_one_region_count_as_one_region(store: Store) -> None:
    # `offers --region cn-heyuan` said "cheapest of 2 regions": its two zones.
    from dataclasses import replace

    zones = [
        replace(_offer("europe-west4", 80.0), zone=z, instance_type="test-h200-zones")
        for z in ("europe-west4-a", "europe-west4-b")
    ]
    store.import_offers(zones, provider="gcp", source="t")
    q = OfferQuery(gpu="h200", provider="gcp", pricing="on_demand")
    [view] = [v for v in list_offers(store, q).views if v.offer.instance_type == "test-h200-zones"]
    assert view.regions_compared == 1
    every = list_offers(store, replace(q, all_regions=True)).views
    assert len([v for v in every if v.offer.instance_type == "test-h200-zones"]) == 2  # both zones kept


def test_a_gpu_no_source_lists_says_so_instead_of_an_empty_table(store: Store) -> None:
    # was: "0 offers." with empty_reason null for the L20 and H20 a team in China rents (the L20's
    # Alibaba rows are shipped now; the H20's are not: no source read names the fork's "H 96GB")
    listing = list_offers(store, OfferQuery(gpu="H20"))
    assert not listing.views and listing.empty_reason is not None
    assert listing.empty_reason.startswith("no offer of H20 in the catalog")
    assert "gn8v (every price)" in listing.empty_reason  # the snapshot's note that names it
