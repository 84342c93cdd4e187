"""Cudo Compute: GPU VMs in its own and partner data centres (North America, Europe)."""

from __future__ import annotations

from gpuplan.catalog.providers.base import OfferTerms, ProviderFacts, SpotFacts, regions
from gpuplan.catalog.providers.marketplace import UNKNOWN_BILLING, SnapshotOnlyFetcher, skypilot_file
from gpuplan.i18n import N_

__all__ = ["FACTS", "FETCHER"]

FACTS = ProviderFacts(
    provider="cudo",
    skypilot_cloud="cudo",
    display_name="Cudo Compute",
    kind="marketplace",
    regions=regions(
        ("ca-montreal-3", "CA", "Montreal"),
        ("no-kristiansand-1", "NO", "Kristiansand"),
        ("se-stockholm-1", "SE", "Stockholm"),
        ("us-carlsbad-1", "US", "Carlsbad"),
        ("us-newyork-1", "US", "New York"),
    ),
    regions_source="region codes as " + skypilot_file("cudo") + "; country and city as each code states",
    kubernetes=None,
    billing=UNKNOWN_BILLING,
    spot=SpotFacts(
        name=None,
        notice_s=None,
        published_rate=None,
        source=skypilot_file("cudo") + " lists no spot price",
        rate_note=N_("Cudo Compute lists no interruptible price"),
    ),
    default_region=None,
    egress_storage_note="no egress or storage price in gpuplan's sourced data",
    price_sources=(skypilot_file("cudo"),),
    offer_terms=(
        OfferTerms(
            host="secure_cloud",
            interruptible=None,
            price_covers="a VM per hour with the vCPUs and RAM its instance type names "
            "(`..._1x2v4gb`: 1 GPU, 2 vCPUs, 4 GB); disks not included in the figure",
            min_rental_s=None,
            storage_billed_apart=None,
            host_specs_known=True,
            network_known=False,
            reliability="data centres Cudo runs or resells; which one is not named per offer",
            source=skypilot_file("cudo"),
        ),
    ),
)

FETCHER = SnapshotOnlyFetcher("Cudo Compute")
