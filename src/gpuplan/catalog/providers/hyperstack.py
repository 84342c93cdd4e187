"""Hyperstack (NexGen Cloud): GPU VMs in its data centres in Canada, Norway and the US."""

from __future__ import annotations

from gpuplan.catalog.providers.base import OfferTerms, ProviderFacts, SpotFacts, regions
from gpuplan.catalog.providers.marketplace import UNKNOWN_BILLING, SnapshotOnlyFetcher, skypilot_file
from gpuplan.i18n import N_

__all__ = ["FACTS", "FETCHER"]

FACTS = ProviderFacts(
    provider="hyperstack",
    # SkyPilot's catalog lists Hyperstack (catalogs/v8/hyperstack/vms.csv), but SkyPilot 0.14.1 cannot
    # launch on it: hyperstack is not among its clouds (sky/skylet/constants.py ALL_CLOUDS).
    skypilot_cloud=None,
    display_name="Hyperstack",
    kind="marketplace",
    regions=regions(("CANADA-1", "CA", None), ("NORWAY-1", "NO", None), ("US-1", "US", None)),
    regions_source="region codes as " + skypilot_file("hyperstack") + "; the country each code names "
    "(no city stated)",
    kubernetes=None,
    billing=UNKNOWN_BILLING,
    spot=SpotFacts(
        name=None,
        notice_s=None,
        published_rate=None,
        source=skypilot_file("hyperstack") + " lists no spot price",
        rate_note=N_("Hyperstack lists no interruptible price"),
    ),
    default_region=None,
    egress_storage_note="no egress or storage price in gpuplan's sourced data",
    price_sources=(skypilot_file("hyperstack"),),
    offer_terms=(
        OfferTerms(
            host="cloud_vm",
            interruptible=False,
            price_covers="a VM per hour with its listed vCPUs and RAM",
            min_rental_s=None,
            storage_billed_apart=None,
            host_specs_known=True,
            network_known=False,
            reliability="a GPU cloud's own data centres; the catalog states no SLA",
            source=skypilot_file("hyperstack"),
        ),
    ),
)

FETCHER = SnapshotOnlyFetcher("Hyperstack")
