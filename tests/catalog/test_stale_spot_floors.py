"""A spot price that is dated but stale (older than the catalog's staleness limit even at its
youngest) is held, as an undated one is, to the fresh dated spot prices of its GPU above it — never to
an older figure, nor to the on-demand bound (:meth:`OfferPrice.spot_age_held`,
:mod:`gpuplan.catalog.spot_floors`). A tiny catalog of A100 80GB and H100 rows, today 2026-11-30,
limit 180 days."""

from __future__ import annotations

import contextlib
from datetime import date
from pathlib import Path

import pytest

from gpuplan.catalog import OfferPrice, OfferRow, PriceRow, Store, open_store
from gpuplan.catalog.model import FloorBasis
from gpuplan.plan.build_inputs import offer_table_from_prices

A100, H100 = "A100-SXM4-80GB", "H100-SXM"
TODAY = date(2026, 11, 30)  # the empty_store fixture's (tests/catalog/conftest.py)


def _row(
    provider: str, region: str, instance: str, gpu: str, amount: float, as_of: str, pricing: str = "spot"
) -> OfferRow:
    return OfferRow(
        provider=provider, region=region, zone=None, instance_type=instance, gpu=gpu, gpu_count=8,
        vcpus=None, memory_gib=None, network_gbps=None, interconnect=None, source="test",
        prices=(
            PriceRow(
                pricing=pricing, amount=amount, currency="USD", unit="hour", as_of=as_of,
                source=f"test rows ({instance})", confidence="high",
            ),
        ),
    )  # fmt: skip


def _fill(store: Store) -> None:
    by_provider = {
        "aws": [
            # fresh: $11.00/h, $1.375/GPU-h
            _row("aws", "us-east-1", "p4de.24xlarge", A100, 11.0, "2026-11-20"),
            # only stale dated H100 spot prices in the catalog
            _row("aws", "us-east-1", "p5.48xlarge", H100, 20.0, "2025-01-10"),
        ],
        "gcp": [
            # stale (2025-01-10, 689 days old): $4.00/h, $0.50/GPU-h, below the fresh $1.375
            _row("gcp", "us-central1", "a2-ultragpu-8g", A100, 4.0, "2025-01-10"),
            _row("gcp", "us-central1", "a3-highgpu-8g", H100, 15.0, "2025-03-01"),
            _row("gcp", "us-central1", "a3-highgpu-8g", H100, 88.0, "2026-11-20", pricing="on_demand"),
            # undated (a bounded date): held to the stale dated H100 prices all the same
            _row("gcp", "europe-west4", "a3-highgpu-8g", H100, 9.0, "2025-06/2026-11-29"),
        ],
        "azure": [
            # stale at month precision, its on-demand dearer: held to the fresh AWS price only
            _row("azure", "eastus", "Standard_ND96amsr_A100_v4", A100, 3.6, "2025-02"),
            _row(
                "azure", "eastus", "Standard_ND96amsr_A100_v4", A100, 32.77, "2026-11-20", pricing="on_demand"
            ),
        ],
    }
    for provider, rows in by_provider.items():
        store.import_offers(rows, provider=provider, source="test")


def _spot(store: Store, provider: str, region: str, gpu: str) -> OfferPrice:
    [row] = store.offers(provider=provider, region=region, gpu=gpu, pricing="spot")
    return row


def test_a_stale_spot_price_below_a_fresh_one_of_its_gpu_is_costed_at_the_fresh_one(
    empty_store: Store,
) -> None:
    _fill(empty_store)
    gcp = _spot(empty_store, "gcp", "us-central1", A100)
    assert (gcp.as_of_precision, gcp.staleness, gcp.spot_age_held()) == ("day", "stale", "stale")
    floor = gcp.dated_floor_usd_per_hour()
    # was: None (a dated price was taken at face value however old): $0.50/GPU-h ranked first
    assert floor is not None and floor.held == "stale" and floor.basis is FloorBasis.GPU_CATALOG
    assert floor.usd_per_hour == pytest.approx(11.0) and floor.region == "aws/us-east-1"
    assert (floor.as_of, floor.staleness) == ("2026-11-20", "fresh")
    assert gcp.conservative_usd_per_gpu_hour() == pytest.approx(1.375)
    # Azure's, dated by month only: the fresh spot price, not its on-demand bound
    azure = _spot(empty_store, "azure", "eastus", A100).dated_floor_usd_per_hour()
    assert (
        azure is not None
        and azure.basis is FloorBasis.GPU_CATALOG
        and azure.usd_per_hour == pytest.approx(11.0)
    )
    # plan: ranked at the fresh price, its own figure the best case, its own date kept for the notes
    t = offer_table_from_prices([gcp])
    assert t.price_usd[0] == pytest.approx(11.0) and t.price_usd_best[0] == pytest.approx(4.0)
    assert t.own_stale_as_of.tolist() == ["2025-01-10"] and t.as_of.tolist() == ["2026-11-20"]


def test_only_fresh_dated_prices_hold_a_stale_one_and_only_while_it_is_stale(
    empty_store: Store, tmp_path: Path
) -> None:
    _fill(empty_store)
    fresh = _spot(empty_store, "aws", "us-east-1", A100)
    assert fresh.spot_age_held() is None and fresh.dated_floor_usd_per_hour() is None
    # no fresh dated H100 spot price: the stale $15 stands (said stale), not the stale $20 nor the
    # $88 on-demand bound
    stale = _spot(empty_store, "gcp", "us-central1", H100)
    assert stale.staleness == "stale" and stale.dated_floor_usd_per_hour() is None
    # an undated one is still held to them: the lowest dated H100 spot price, $15 of 2025-03-01
    undated = _spot(empty_store, "gcp", "europe-west4", H100)
    floor = undated.dated_floor_usd_per_hour()
    assert floor is not None and floor.held == "undated" and floor.usd_per_hour == pytest.approx(15.0)
    assert offer_table_from_prices([undated]).own_stale_as_of.tolist() == [""]  # said undated
    assert _spot(empty_store, "gcp", "us-central1", A100).dated_floor_usd_per_hour() is not None
    empty_store.close()
    # --stale-days 800: the A100 row's 689 days are within it, and its own price stands
    with contextlib.closing(
        open_store(str(tmp_path / "empty.sqlite"), today=TODAY, seed=False, stale_after_days=800)
    ) as store:
        gcp = _spot(store, "gcp", "us-central1", A100)
        assert gcp.staleness == "fresh" and gcp.dated_floor_usd_per_hour() is None


def test_a_spot_price_dated_by_a_month_that_straddles_the_limit_is_held_as_a_stale_one_is(
    empty_store: Store,
) -> None:
    """A price of 2026-06 is 153 to 182 days old on 2026-11-30: it may be past the 180-day limit, so it
    is held to the fresh dated price of its GPU as one of 2025-01-10 is, never ranked at its own
    figure where a stale one would not be."""
    _fill(empty_store)
    empty_store.import_offers(
        [_row("gcp", "us-west1", "a2-ultragpu-8g", A100, 4.0, "2026-06")], provider="gcp", source="test"
    )
    month = _spot(empty_store, "gcp", "us-west1", A100)
    assert (month.as_of_precision, month.staleness) == ("month", "unknown")
    # was: None (held neither as undated nor as stale): $0.50/GPU-h ranked at face value
    assert month.spot_age_held() == "stale"
    floor = month.dated_floor_usd_per_hour()
    assert floor is not None and floor.usd_per_hour == pytest.approx(11.0)
    assert (floor.as_of, floor.staleness) == ("2026-11-20", "fresh")
    t = offer_table_from_prices([month])
    assert t.price_usd[0] == pytest.approx(11.0) and t.price_usd_best[0] == pytest.approx(4.0)
    assert t.own_stale_as_of.tolist() == ["2026-06"]
