"""A price imported for a region the catalog holds no price of is checked against the figure of a
region of the same country before any region's: a mainland user's cn-beijing quote was checked
against cn-hongkong, where the catalog held the same instance type in cn-hangzhou."""

from __future__ import annotations

from gpuplan.catalog.importers.instance_prices import HeldPrice, off_the_instance
from gpuplan.catalog.model import OfferRow, PriceRow


def _held(region: str, cny: float) -> HeldPrice:
    return HeldPrice(
        region=region,
        zone="",
        pricing="on_demand",
        amount=cny,
        currency="CNY",
        unit="hour",
        as_of="2026-11-01",
        usd_per_hour=cny / 7.0,
        rate_as_of="2026-01-27",
    )


def test_a_quote_is_checked_against_a_region_of_its_own_country_first() -> None:
    row = OfferRow(
        provider="alibaba",
        region="cn-beijing",
        zone=None,
        instance_type="ecs.gn8is.2xlarge",
        gpu="L20",
        gpu_count=1,
        vcpus=8,
        memory_gib=64,
        network_gbps=None,
        interconnect=None,
        source="quote",
    )
    # yuan typed as dollars: 130 "USD" an hour, 910 yuan; Hong Kong's figure is the nearer of the two
    quote = PriceRow(
        pricing="on_demand",
        amount=130.0,
        currency="USD",
        unit="hour",
        as_of="2026-12-01",
        source="quote",
        confidence="primary",
    )
    said = off_the_instance(row, quote, 1.0, [_held("cn-hongkong", 18.52), _held("cn-hangzhou", 14.50)], None)
    assert said is not None
    assert said.fields["where"] == "alibaba cn-hangzhou", said.fields
