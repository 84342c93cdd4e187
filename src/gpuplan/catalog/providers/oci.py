"""Oracle Cloud Infrastructure: GPU bare-metal servers and VMs in Oracle's own regions."""

from __future__ import annotations

from gpuplan.catalog.providers.base import Billing, OfferTerms, ProviderFacts, SpotFacts, regions
from gpuplan.catalog.providers.marketplace import SnapshotOnlyFetcher, skypilot_file
from gpuplan.i18n import N_

__all__ = ["FACTS", "FETCHER"]

_BILLING = (
    "Oracle blog 'Announcing Per-Second Billing for Compute and Autonomous Database' (VM instances, GPU "
    "ones included, per second with a one-minute minimum; bare metal per second with a one-hour "
    "minimum), as reprinted at https://the-report.cloud/oracle-announcing-per-second-billing-for-compute-"
    "and-autonomous-database, read 2026-12-02"
)
_PRICING = (
    "Oracle 'Compute pricing' (boot and block volumes billed at block-volume prices on top of the "
    "instance), https://www.oracle.com/cloud/compute/pricing.html, read 2026-12-02"
)

FACTS = ProviderFacts(
    provider="oci",
    aliases=("oracle",),
    skypilot_cloud="oci",
    display_name="Oracle Cloud Infrastructure",
    kind="marketplace",
    regions=regions(
        ("af-casablanca-1", "MA", "Casablanca"),
        ("af-johannesburg-1", "ZA", "Johannesburg"),
    ),
    regions_source="the regions of the GPU rows read from " + skypilot_file("oci") + " (a partial copy: "
    "the first two regions); cities as the region names state",
    kubernetes="OKE",
    billing=Billing(granularity_s=1, min_billing_s=60, as_of="2026-12-02", source=_BILLING),
    spot=SpotFacts(
        name="preemptible instances",
        notice_s=None,
        published_rate=None,
        source="Oracle 'Compute pricing' (preemptible instances at 50 % of the regular price), "
        "https://www.oracle.com/cloud/compute/pricing.html, read 2026-12-02",
        rate_note=N_("Oracle publishes no interruption rate for preemptible instances"),
    ),
    default_region=None,
    egress_storage_note="no egress or storage price in gpuplan's sourced data (block volumes billed apart)",
    price_sources=(skypilot_file("oci"),),
    offer_terms=(
        OfferTerms(
            host="bare_metal",
            marker="BM.",
            interruptible=False,
            price_covers="the whole bare-metal server per hour (GPUs, CPUs, RAM, local NVMe); boot and "
            "block volumes apart",
            min_rental_s=3600,
            storage_billed_apart=True,
            host_specs_known=True,
            network_known=False,
            reliability="a hyperscale cloud's own data centres; bare metal bills at least one hour",
            source=_BILLING + "; " + _PRICING,
        ),
        OfferTerms(
            host="cloud_vm",
            interruptible=False,
            price_covers="the VM per hour (GPUs, OCPUs, RAM); boot and block volumes apart",
            min_rental_s=60,
            storage_billed_apart=True,
            host_specs_known=True,
            network_known=False,
            reliability="a hyperscale cloud's own data centres",
            source=_BILLING + "; " + _PRICING,
        ),
    ),
    unknown_prices={
        "reserved_1y": "Oracle sells capacity commitments through its sales team; no public list price "
        "in the sources read",
    },
)

FETCHER = SnapshotOnlyFetcher("Oracle Cloud")
