"""Yotta: RTX 5090 instances in its secure-cloud data centres in the US."""

from __future__ import annotations

from gpuplan.catalog.providers.base import OfferTerms, ProviderFacts, SpotFacts, regions
from gpuplan.catalog.providers.marketplace import UNKNOWN_BILLING, SnapshotOnlyFetcher, skypilot_file
from gpuplan.i18n import N_

__all__ = ["FACTS", "FETCHER"]

FACTS = ProviderFacts(
    provider="yotta",
    skypilot_cloud="yotta",
    display_name="Yotta",
    kind="marketplace",
    regions=regions(("us-east-2", "US", None), ("us-central-2", "US", None)),
    regions_source="region codes as " + skypilot_file("yotta") + "; the country each code names",
    kubernetes=None,
    billing=UNKNOWN_BILLING,
    spot=SpotFacts(
        name=None,
        notice_s=None,
        published_rate=None,
        source=skypilot_file("yotta") + " lists no spot price",
        rate_note=N_("Yotta lists no interruptible price"),
    ),
    default_region=None,
    egress_storage_note="no egress or storage price in gpuplan's sourced data",
    price_sources=(skypilot_file("yotta"),),
    offer_terms=(
        OfferTerms(
            host="secure_cloud",
            marker="_SECURE",
            interruptible=False,
            price_covers="an instance per hour with the vCPUs and RAM its type names",
            min_rental_s=None,
            storage_billed_apart=None,
            host_specs_known=True,
            network_known=False,
            reliability="the instance types are marked SECURE (data-centre hosts); the catalog states no SLA",
            source=skypilot_file("yotta"),
        ),
    ),
)

FETCHER = SnapshotOnlyFetcher("Yotta")
