"""Seeweb: an Italian cloud with GPU servers in its data centres (Italy, Switzerland, Bulgaria)."""

from __future__ import annotations

from gpuplan.catalog.providers.base import OfferTerms, ProviderFacts, SpotFacts, regions
from gpuplan.catalog.providers.marketplace import UNKNOWN_BILLING, SnapshotOnlyFetcher, skypilot_file
from gpuplan.i18n import N_

__all__ = ["FACTS", "FETCHER"]

FACTS = ProviderFacts(
    provider="seeweb",
    skypilot_cloud="seeweb",
    display_name="Seeweb",
    kind="marketplace",
    regions=regions(
        ("it-fr2", "IT", "Frosinone"),
        ("it-mi2", "IT", "Milan"),
        ("ch-lug1", "CH", "Lugano"),
        ("bg-sof1", "BG", "Sofia"),
    ),
    regions_source="region codes as " + skypilot_file("seeweb") + "; Seeweb's data centres "
    "(Frosinone, Milan, Lugano, Sofia) as named on https://www.seeweb.it, read 2026-12-02",
    kubernetes=None,
    billing=UNKNOWN_BILLING,
    spot=SpotFacts(
        name=None,
        notice_s=None,
        published_rate=None,
        source=skypilot_file("seeweb") + " lists no spot price",
        rate_note=N_("Seeweb lists no interruptible price"),
    ),
    default_region=None,
    egress_storage_note="no egress or storage price in gpuplan's sourced data",
    price_sources=(skypilot_file("seeweb"),),
    offer_terms=(
        OfferTerms(
            host="cloud_vm",
            interruptible=False,
            price_covers="a cloud server per hour with its listed vCPUs and RAM",
            min_rental_s=None,
            storage_billed_apart=None,
            host_specs_known=True,
            network_known=False,
            reliability="a cloud provider's own data centres; the catalog states no SLA",
            source=skypilot_file("seeweb"),
        ),
    ),
)

FETCHER = SnapshotOnlyFetcher("Seeweb")
