"""Jarvislabs: GPU instances in India, priced per instance-hour."""

from __future__ import annotations

from gpuplan.catalog.providers.base import OfferTerms, ProviderFacts, SpotFacts, regions
from gpuplan.catalog.providers.marketplace import UNKNOWN_BILLING, SnapshotOnlyFetcher, skypilot_file
from gpuplan.i18n import N_

__all__ = ["FACTS", "FETCHER"]

FACTS = ProviderFacts(
    provider="jarvislabs",
    # SkyPilot's catalog lists Jarvislabs (catalogs/v8/jarvislabs/vms.csv), but SkyPilot 0.14.1 cannot
    # launch on it: jarvislabs is not among its clouds (sky/skylet/constants.py ALL_CLOUDS).
    skypilot_cloud=None,
    display_name="Jarvislabs",
    kind="marketplace",
    regions=regions(("IN1", "IN", None), ("IN2", "IN", None)),
    regions_source="region codes as " + skypilot_file("jarvislabs") + "; the country each code names",
    kubernetes=None,
    billing=UNKNOWN_BILLING,
    spot=SpotFacts(
        name=None,
        notice_s=None,
        published_rate=None,
        source=skypilot_file("jarvislabs") + " lists no spot price",
        rate_note=N_("Jarvislabs lists no interruptible price"),
    ),
    default_region=None,
    egress_storage_note="no egress or storage price in gpuplan's sourced data",
    price_sources=(skypilot_file("jarvislabs"),),
    offer_terms=(
        OfferTerms(
            host="cloud_vm",
            interruptible=False,
            price_covers="an instance per hour with the vCPUs and RAM its type names (1x_H100_24V_200G)",
            min_rental_s=None,
            storage_billed_apart=None,
            host_specs_known=True,
            network_known=False,
            reliability="a GPU cloud's instances; the catalog states no SLA",
            source=skypilot_file("jarvislabs"),
        ),
    ),
)

FETCHER = SnapshotOnlyFetcher("Jarvislabs")
