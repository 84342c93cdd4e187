"""DigitalOcean: GPU Droplets (H100) in its Toronto region; catalog v6, older."""

from __future__ import annotations

from gpuplan.catalog.providers.base import OfferTerms, ProviderFacts, SpotFacts, regions
from gpuplan.catalog.providers.marketplace import UNKNOWN_BILLING, SnapshotOnlyFetcher, skypilot_file
from gpuplan.i18n import N_

__all__ = ["FACTS", "FETCHER"]

FACTS = ProviderFacts(
    provider="digitalocean",
    aliases=("do",),
    skypilot_cloud="do",
    display_name="DigitalOcean",
    kind="marketplace",
    regions=regions(
        ("nyc1", "US", "New York"),
        ("nyc2", "US", "New York"),
        ("nyc3", "US", "New York"),
        ("sfo1", "US", "San Francisco"),
        ("sfo2", "US", "San Francisco"),
        ("sfo3", "US", "San Francisco"),
        ("tor1", "CA", "Toronto"),
    ),
    regions_source="region codes as " + skypilot_file("do", "v6") + "; DigitalOcean's data-centre "
    "names (NYC, SFO, TOR) as its 'Regional availability' page lists them, "
    "https://docs.digitalocean.com/platform/regional-availability/, read 2026-12-02",
    kubernetes=None,
    billing=UNKNOWN_BILLING,
    spot=SpotFacts(
        name=None,
        notice_s=None,
        published_rate=None,
        source=skypilot_file("do", "v6") + " lists no spot price",
        rate_note=N_("DigitalOcean sells no interruptible GPU Droplets"),
    ),
    default_region=None,
    egress_storage_note="no egress or storage price in gpuplan's sourced data",
    price_sources=(skypilot_file("do", "v6"),),
    offer_terms=(
        OfferTerms(
            host="cloud_vm",
            interruptible=False,
            price_covers="a GPU Droplet per hour with its listed vCPUs and RAM",
            min_rental_s=None,
            storage_billed_apart=None,
            host_specs_known=True,
            network_known=False,
            reliability="a cloud provider's own data centres; SkyPilot's v6 catalog folder is the only "
            "one with DigitalOcean, so the figures may be old",
            source=skypilot_file("do", "v6"),
        ),
    ),
)

FETCHER = SnapshotOnlyFetcher("DigitalOcean")
