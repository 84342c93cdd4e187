"""Lium: a decentralised GPU market whose independent hosts list machines worldwide."""

from __future__ import annotations

from gpuplan.catalog.providers.base import OfferTerms, ProviderFacts, SpotFacts
from gpuplan.catalog.providers.marketplace import (
    UNKNOWN_BILLING,
    SnapshotOnlyFetcher,
    iso_country_regions,
    skypilot_file,
)
from gpuplan.i18n import N_

__all__ = ["FACTS", "FETCHER"]

FACTS = ProviderFacts(
    provider="lium",
    # SkyPilot's catalog lists Lium (catalogs/v8/lium/vms.csv), but SkyPilot 0.14.1 cannot
    # launch on it: lium is not among its clouds (sky/skylet/constants.py ALL_CLOUDS).
    skypilot_cloud=None,
    display_name="Lium",
    kind="marketplace",
    regions=iso_country_regions(),
    regions_source=skypilot_file("lium") + ": Region is the host's country (ISO code)",
    kubernetes=None,
    billing=UNKNOWN_BILLING,
    spot=SpotFacts(
        name=None,
        notice_s=None,
        published_rate=None,
        source=skypilot_file("lium") + " lists no spot price",
        rate_note=N_("Lium lists no interruptible price"),
    ),
    default_region=None,
    egress_storage_note="hosts set their own terms; not in gpuplan's sourced data",
    price_sources=(skypilot_file("lium"),),
    offer_terms=(
        OfferTerms(
            host="community_host",
            interruptible=None,
            price_covers="one host's machine per hour with its listed vCPUs and RAM (the same "
            "instance type differs between hosts)",
            min_rental_s=None,
            storage_billed_apart=None,
            host_specs_known=True,
            network_known=False,
            reliability="an independent host's machine; uptime and how long the host keeps it listed "
            "are the host's",
            source=skypilot_file("lium"),
        ),
    ),
)

FETCHER = SnapshotOnlyFetcher("Lium")
