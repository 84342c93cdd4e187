"""Fluidstack: GPU servers in partner data centres (US, Canada, Finland); catalog v6, older."""

from __future__ import annotations

from gpuplan.catalog.providers.base import OfferTerms, ProviderFacts, SpotFacts, regions
from gpuplan.catalog.providers.marketplace import UNKNOWN_BILLING, SnapshotOnlyFetcher, skypilot_file
from gpuplan.i18n import N_

__all__ = ["FACTS", "FETCHER"]

FACTS = ProviderFacts(
    provider="fluidstack",
    skypilot_cloud="fluidstack",
    display_name="Fluidstack",
    kind="marketplace",
    regions=regions(
        ("ARIZONA_USA", "US", "Arizona"),
        ("CANADA", "CA", None),
        ("FINLAND", "FI", None),
        ("NORTH_DAKOTA_USA", "US", "North Dakota"),
        ("UTAH_USA", "US", "Utah"),
    ),
    regions_source="region codes as " + skypilot_file("fluidstack", "v6") + "; country and state as "
    "each code states",
    kubernetes=None,
    billing=UNKNOWN_BILLING,
    spot=SpotFacts(
        name=None,
        notice_s=None,
        published_rate=None,
        source=skypilot_file("fluidstack", "v6") + " lists no spot price",
        rate_note=N_("Fluidstack lists no interruptible price"),
    ),
    default_region=None,
    egress_storage_note="no egress or storage price in gpuplan's sourced data",
    price_sources=(skypilot_file("fluidstack", "v6"),),
    offer_terms=(
        OfferTerms(
            host="secure_cloud",
            interruptible=False,
            price_covers="a server per hour with its listed vCPUs and RAM",
            min_rental_s=None,
            storage_billed_apart=None,
            host_specs_known=True,
            network_known=False,
            reliability="partner data centres; SkyPilot's v6 catalog folder is the only one with "
            "Fluidstack, so the figures may be old",
            source=skypilot_file("fluidstack", "v6"),
        ),
    ),
)

FETCHER = SnapshotOnlyFetcher("Fluidstack")
