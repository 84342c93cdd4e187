"""Hyperbolic: an on-demand GPU marketplace (H100) whose catalog names no region."""

from __future__ import annotations

from gpuplan.catalog.providers.base import OfferTerms, ProviderFacts, Region, SpotFacts
from gpuplan.catalog.providers.marketplace import UNKNOWN_BILLING, SnapshotOnlyFetcher, skypilot_file
from gpuplan.i18n import N_

__all__ = ["FACTS", "FETCHER"]

FACTS = ProviderFacts(
    provider="hyperbolic",
    skypilot_cloud="hyperbolic",
    display_name="Hyperbolic",
    kind="marketplace",
    # The catalog files every offer under "default": the country is not known, so a --country or
    # data-residency constraint leaves these offers out.
    regions=(Region(code="default", country=None, city=None),),
    regions_source=skypilot_file("hyperbolic") + " (Region 'default': no location stated)",
    kubernetes=None,
    billing=UNKNOWN_BILLING,
    spot=SpotFacts(
        name=None,
        notice_s=None,
        published_rate=None,
        source=skypilot_file("hyperbolic") + " lists no spot price",
        rate_note=N_("Hyperbolic lists no interruptible price"),
    ),
    default_region=None,
    egress_storage_note="no egress or storage price in gpuplan's sourced data",
    price_sources=(skypilot_file("hyperbolic"),),
    offer_terms=(
        OfferTerms(
            host="community_host",
            interruptible=None,
            price_covers="a machine per hour with its listed vCPUs, RAM and storage (StorageGiB)",
            min_rental_s=None,
            storage_billed_apart=False,
            host_specs_known=True,
            network_known=False,
            reliability="a marketplace machine whose supplier and location the catalog does not name; "
            "taken as the less reliable kind",
            source=skypilot_file("hyperbolic"),
        ),
    ),
)

FETCHER = SnapshotOnlyFetcher("Hyperbolic")
