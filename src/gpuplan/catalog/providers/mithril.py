"""Mithril (formerly Foundry Cloud Platform): H100 and H200 capacity sold by auction and reservation."""

from __future__ import annotations

from gpuplan.catalog.providers.base import OfferTerms, ProviderFacts, SpotFacts, regions
from gpuplan.catalog.providers.marketplace import UNKNOWN_BILLING, SnapshotOnlyFetcher, skypilot_file
from gpuplan.i18n import N_

__all__ = ["FACTS", "FETCHER"]

FACTS = ProviderFacts(
    provider="mithril",
    skypilot_cloud="mithril",
    display_name="Mithril",
    kind="marketplace",
    regions=regions(("us-central2-a", "US", None), ("us-central2-b", "US", None)),
    regions_source="region codes as " + skypilot_file("mithril") + "; the country each code names",
    kubernetes=None,
    billing=UNKNOWN_BILLING,
    spot=SpotFacts(
        name="spot capacity (auction)",
        notice_s=None,
        published_rate=None,
        source=skypilot_file("mithril") + " (Price equals SpotPrice on every row)",
        rate_note=N_("Mithril publishes no interruption rate for its auctioned capacity"),
    ),
    default_region=None,
    egress_storage_note="no egress or storage price in gpuplan's sourced data",
    price_sources=(skypilot_file("mithril"),),
    offer_terms=(
        OfferTerms(
            host="cloud_vm",
            interruptible=True,
            price_covers="unknown: the catalog gives one figure per GPU-hour for on-demand and spot alike",
            min_rental_s=None,
            storage_billed_apart=None,
            host_specs_known=True,
            network_known=False,
            reliability="capacity won at auction can be taken back when outbid; the catalog's figure "
            "does not say which price it is",
            source=skypilot_file("mithril"),
        ),
    ),
)

FETCHER = SnapshotOnlyFetcher("Mithril")
