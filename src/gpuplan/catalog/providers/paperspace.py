"""Paperspace (DigitalOcean): GPU machines in its New York data centre; catalog v6, older."""

from __future__ import annotations

from gpuplan.catalog.providers.base import OfferTerms, ProviderFacts, SpotFacts, regions
from gpuplan.catalog.providers.marketplace import UNKNOWN_BILLING, SnapshotOnlyFetcher, skypilot_file
from gpuplan.i18n import N_

__all__ = ["FACTS", "FETCHER"]

FACTS = ProviderFacts(
    provider="paperspace",
    skypilot_cloud="paperspace",
    display_name="Paperspace",
    kind="marketplace",
    regions=regions(("East Coast (NY2)", "US", "New York")),
    regions_source="region name as " + skypilot_file("paperspace", "v6") + " ('East Coast (NY2)')",
    kubernetes=None,
    billing=UNKNOWN_BILLING,
    spot=SpotFacts(
        name=None,
        notice_s=None,
        published_rate=None,
        source=skypilot_file("paperspace", "v6") + " lists no spot price",
        rate_note=N_("Paperspace lists no interruptible price"),
    ),
    default_region=None,
    egress_storage_note="no egress or storage price in gpuplan's sourced data",
    price_sources=(skypilot_file("paperspace", "v6"),),
    offer_terms=(
        OfferTerms(
            host="cloud_vm",
            interruptible=False,
            price_covers="a machine per hour with its listed vCPUs and RAM",
            min_rental_s=None,
            storage_billed_apart=None,
            host_specs_known=True,
            network_known=False,
            reliability="a cloud provider's own data centre; SkyPilot's v6 catalog folder is the only "
            "one with Paperspace, so the figures may be old",
            source=skypilot_file("paperspace", "v6"),
        ),
    ),
)

FETCHER = SnapshotOnlyFetcher("Paperspace")
