"""Prime Intellect: a GPU aggregator reselling other clouds' instances, filed by country."""

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
    provider="primeintellect",
    aliases=("prime_intellect",),
    skypilot_cloud="primeintellect",
    display_name="Prime Intellect",
    kind="marketplace",
    regions=iso_country_regions(),
    regions_source=skypilot_file("primeintellect") + ": Region is the country (ISO code), "
    "AvailabilityZone the underlying cloud's region, kept as the zone",
    kubernetes=None,
    billing=UNKNOWN_BILLING,
    spot=SpotFacts(
        name="spot instances (of the underlying cloud)",
        notice_s=None,
        published_rate=None,
        source=skypilot_file("primeintellect") + " (__SPOT instance types)",
        rate_note=N_("Prime Intellect publishes no interruption rate for spot instances"),
    ),
    default_region=None,
    egress_storage_note="the underlying cloud's; not in gpuplan's sourced data",
    price_sources=(skypilot_file("primeintellect"),),
    offer_terms=(
        OfferTerms(
            host="resold",
            interruptible=False,
            price_covers="the underlying cloud's instance per hour (the instance type names the cloud, "
            "GPUs, vCPUs and RAM: lambdalabs__8xH100_80GB__208__1800), billed by Prime Intellect",
            min_rental_s=None,
            storage_billed_apart=None,
            host_specs_known=True,
            network_known=False,
            reliability="as reliable as the underlying cloud; community and data-centre suppliers are "
            "not told apart in the catalog row",
            source=skypilot_file("primeintellect") + " (UpstreamCloudId column)",
        ),
    ),
)

FETCHER = SnapshotOnlyFetcher("Prime Intellect")
