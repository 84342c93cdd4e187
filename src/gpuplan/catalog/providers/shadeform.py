"""Shadeform: one API and one bill over other GPU clouds' instances (resold, priced per cloud)."""

from __future__ import annotations

from gpuplan.catalog.providers.base import OfferTerms, ProviderFacts, SpotFacts, regions
from gpuplan.catalog.providers.marketplace import UNKNOWN_BILLING, SnapshotOnlyFetcher, skypilot_file
from gpuplan.i18n import N_

__all__ = ["FACTS", "FETCHER"]

_CONCEPTS = (
    "Shadeform docs 'Core concepts' (an abstraction layer over many cloud providers; an instance runs in "
    "the underlying cloud, named by the instance type's prefix), https://docs.shadeform.ai/getting-started/"
    "concepts, read 2026-12-02"
)

FACTS = ProviderFacts(
    provider="shadeform",
    skypilot_cloud="shadeform",
    display_name="Shadeform",
    kind="marketplace",
    regions=regions(
        ("austin-usa-1", "US", "Austin"),
        ("bangalore-india-1", "IN", "Bangalore"),
        ("beltsville-usa-1", "US", "Beltsville"),
        ("calgary-canada-1", "CA", "Calgary"),
        ("casper-usa-2", "US", "Casper"),
        ("chicago-usa-2", "US", "Chicago"),
        ("chicago-usa-3", "US", "Chicago"),
        ("culpeper-usa-1", "US", "Culpeper"),
        ("dallas-usa-3", "US", "Dallas"),
        ("desmoines-usa-1", "US", "Des Moines"),
        ("dulles-usa-1", "US", "Dulles"),
        ("dulles-usa-4", "US", "Dulles"),
        ("houston-usa-1", "US", "Houston"),
        ("houston-usa-2", "US", "Houston"),
        ("kansascity-usa-1", "US", "Kansas City"),
        ("kansascity-usa-6", "US", "Kansas City"),
        ("montreal-canada-2", "CA", "Montreal"),
        ("newyork-usa-1", "US", "New York"),
        ("paris-france-1", "FR", "Paris"),
        ("paris-france-5", "FR", "Paris"),
        ("phoenix-usa-2", "US", "Phoenix"),
        ("saltlakecity-usa-1", "US", "Salt Lake City"),
        ("sanjose-usa-2", "US", "San Jose"),
        ("tokyo-japan-1", "JP", "Tokyo"),
        ("tokyo-japan-5", "JP", "Tokyo"),
        ("warsaw-poland-1", "PL", "Warsaw"),
        ("wichita-usa-1", "US", "Wichita"),
    ),
    regions_source="region codes as " + skypilot_file("shadeform") + "; city and country as each code states",
    kubernetes=None,
    billing=UNKNOWN_BILLING,
    spot=SpotFacts(
        name=None,
        notice_s=None,
        published_rate=None,
        source=skypilot_file("shadeform") + " lists no spot price",
        rate_note=N_("Shadeform lists no interruptible price"),
    ),
    default_region=None,
    egress_storage_note="the underlying cloud's; not in gpuplan's sourced data",
    price_sources=(skypilot_file("shadeform"),),
    offer_terms=(
        OfferTerms(
            host="resold",
            interruptible=False,
            price_covers="the underlying cloud's instance per hour, billed by Shadeform",
            min_rental_s=None,
            storage_billed_apart=None,
            host_specs_known=True,
            network_known=False,
            reliability="as reliable as the underlying cloud the instance type's prefix names "
            "(lambdalabs_, crusoe_, massedcompute_ …); availability is that cloud's",
            source=_CONCEPTS,
        ),
    ),
)

FETCHER = SnapshotOnlyFetcher("Shadeform")
