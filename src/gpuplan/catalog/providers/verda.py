"""Verda (formerly DataCrunch): GPU VMs in its data centres in Finland, with spot instances."""

from __future__ import annotations

from gpuplan.catalog.providers.base import OfferTerms, ProviderFacts, SpotFacts, regions
from gpuplan.catalog.providers.marketplace import UNKNOWN_BILLING, SnapshotOnlyFetcher, skypilot_file
from gpuplan.i18n import N_

__all__ = ["FACTS", "FETCHER"]

FACTS = ProviderFacts(
    provider="verda",
    aliases=("datacrunch",),
    skypilot_cloud="verda",
    display_name="Verda",
    kind="marketplace",
    regions=regions(("FIN-01", "FI", None), ("FIN-02", "FI", None), ("FIN-03", "FI", None)),
    regions_source="region codes as " + skypilot_file("verda") + "; the country each code names",
    kubernetes=None,
    billing=UNKNOWN_BILLING,
    spot=SpotFacts(
        name="spot instances",
        notice_s=None,
        published_rate=None,
        source=skypilot_file("verda") + " (SpotPrice column)",
        rate_note=N_("Verda publishes no interruption rate for spot instances"),
    ),
    default_region=None,
    egress_storage_note="no egress or storage price in gpuplan's sourced data",
    price_sources=(skypilot_file("verda"),),
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
            source=skypilot_file("verda"),
        ),
    ),
)

FETCHER = SnapshotOnlyFetcher("Verda")
