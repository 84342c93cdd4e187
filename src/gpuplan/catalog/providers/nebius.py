"""Nebius AI Cloud: GPU VMs in its own data centres (Finland, France, the US)."""

from __future__ import annotations

from gpuplan.catalog.providers.base import Billing, OfferTerms, ProviderFacts, SpotFacts, regions
from gpuplan.catalog.providers.marketplace import SnapshotOnlyFetcher, skypilot_file
from gpuplan.i18n import N_

__all__ = ["FACTS", "FETCHER"]

_PRICING_DOC = (
    "Nebius docs 'Object Storage pricing' (billing unit of GPUs on running VMs: 1 second), "
    "https://docs.nebius.com/object-storage/resources/pricing, read 2026-12-02"
)
_TERMS_DOC = (
    "Nebius 'Specific terms: Compute' sections 2.3-2.4 (a VM is charged from start to stop; disks are "
    "charged whether or not the VM runs), https://docs.nebius.com/legal/specific-terms/compute, "
    "read 2026-12-02"
)

FACTS = ProviderFacts(
    provider="nebius",
    skypilot_cloud="nebius",
    display_name="Nebius AI Cloud",
    kind="marketplace",
    regions=regions(
        ("eu-north1", "FI", "Mäntsälä"),
        ("eu-west1", "FR", "Paris"),
        ("us-central1", "US", "Kansas City"),
    ),
    regions_source="region codes as " + skypilot_file("nebius") + "; locations from Nebius's region "
    "list, https://docs.nebius.com/overview/regions (read 2026-12-02)",
    kubernetes="Managed Service for Kubernetes",
    billing=Billing(
        granularity_s=1,
        min_billing_s=None,
        as_of="2026-12-02",
        source=_PRICING_DOC,
    ),
    spot=SpotFacts(
        name="preemptible VMs",
        notice_s=None,
        published_rate=None,
        source=_TERMS_DOC + " (interrupted VMs are outside the SLA)",
        rate_note=N_("Nebius publishes no interruption rate for its preemptible VMs"),
    ),
    default_region=None,
    egress_storage_note="no egress or storage price in gpuplan's sourced data (disks are billed apart)",
    price_sources=(skypilot_file("nebius"),),
    offer_terms=(
        OfferTerms(
            host="cloud_vm",
            interruptible=False,
            price_covers="the VM per hour: its GPUs, vCPUs and RAM (one unified item for H100, H200 "
            "and B200 VMs since 2025-10-01); disks apart",
            min_rental_s=None,
            storage_billed_apart=True,
            host_specs_known=True,
            network_known=False,
            reliability="a cloud provider's own data centres under its SLA; the on-demand VM runs "
            "until stopped",
            source=_TERMS_DOC + "; Nebius 'Billing changes from October 1, 2025', "
            "https://docs.nebius.com/signup-billing/billing-changes-oct-2025, read 2026-12-02",
        ),
    ),
)

FETCHER = SnapshotOnlyFetcher("Nebius")
