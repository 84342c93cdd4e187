"""Lambda (Lambda Cloud): regions and the fetcher of its public instance-types API (API key)."""

from __future__ import annotations

import re
from typing import Any

from gpuplan.catalog.model import OfferRow
from gpuplan.catalog.providers.base import (
    Billing,
    Credentials,
    FetchResult,
    MissingCredentialsError,
    OfferTerms,
    ProviderFacts,
    SpotFacts,
    regions,
)
from gpuplan.catalog.providers.common import InstanceFacts, offer, price
from gpuplan.catalog.providers.marketplace import marketplace_gpu, skypilot_file
from gpuplan.errors import Phrase
from gpuplan.i18n import N_

__all__ = ["FACTS", "FETCHER", "parse_instance_types"]

API_URL = "https://cloud.lambdalabs.com/api/v1/instance-types"
_BILLING_DOC = (
    "Lambda docs 'Billing' (on-demand instances billed in one-minute increments; filesystems billed per "
    "GiB-month apart), https://docs.lambda.ai/public-cloud/billing, read 2026-12-02"
)

FACTS = ProviderFacts(
    provider="lambda",
    aliases=("lambda_labs", "lambdalabs"),  # lambdalabs: gpuhunt's and dstack's name
    display_name="Lambda",
    kind="marketplace",
    regions=regions(
        ("us-east-1", "US", "Virginia"),
        ("us-east-2", "US", "Washington DC"),
        ("us-east-3", "US", "Washington DC"),
        ("us-south-1", "US", "Texas"),
        ("us-south-2", "US", "North Texas"),
        ("us-south-3", "US", "Central Texas"),
        ("us-midwest-1", "US", "Illinois"),
        ("us-west-1", "US", "California"),
        ("us-west-2", "US", "Arizona"),
        ("us-west-3", "US", "Utah"),
        ("europe-central-1", "DE", "Germany"),
        ("asia-northeast-1", "JP", "Tokyo"),
        ("asia-northeast-2", "JP", "Osaka"),
        ("asia-south-1", "IN", "India"),
        ("me-west-1", "IL", "Israel"),
        ("australia-east-1", "AU", "Australia"),
        # Listed by SkyPilot's catalog; not in Lambda's documented region list read: country unknown.
        ("europe-south-1", None, None),
    ),
    regions_source="Lambda Cloud API 'List instance types' region names and descriptions, "
    "https://docs.lambda.ai/public-cloud/cloud-api/ (read 2026-12-01); australia-east-1 and "
    "europe-south-1 as " + skypilot_file("lambda") + " lists them",
    kubernetes=None,
    billing=Billing(granularity_s=60, min_billing_s=60, as_of="2026-12-02", source=_BILLING_DOC),
    spot=SpotFacts(
        name=None,
        notice_s=None,
        published_rate=None,
        source="Lambda sells no interruptible instances",
        rate_note=N_("Lambda sells no interruptible instances"),
    ),
    default_region=None,
    egress_storage_note="no egress or storage price in gpuplan's sourced data",
    price_sources=(API_URL, skypilot_file("lambda")),
    credentials=("LAMBDA_API_KEY",),
    skypilot_cloud="lambda",
    offer_terms=(
        OfferTerms(
            host="cloud_vm",
            interruptible=False,
            price_covers="the instance per hour (GPUs, vCPUs, RAM, local disk); filesystems apart",
            min_rental_s=60,
            storage_billed_apart=True,
            host_specs_known=True,
            network_known=False,
            reliability="on-demand instances in Lambda's own data centres; they run until terminated",
            source=_BILLING_DOC,
        ),
    ),
)


def parse_instance_types(doc: dict[str, Any], fetched_at: str) -> tuple[list[OfferRow], list[Phrase]]:
    """Offers per region with capacity now; the names the GPU table lacks, as notes."""
    rows: list[OfferRow] = []
    notes: list[Phrase] = []
    for name, entry in sorted((doc.get("data") or {}).items()):
        it = entry.get("instance_type", {})
        specs = it.get("specs", {})
        desc = it.get("description", "")
        m = re.search(r"(\d+)x\s+(.+?)\s*\((\d+)\s*GB(?:\s+([A-Za-z0-9]+))?\)", desc)
        if not m:
            notes.append(
                Phrase(
                    N_("{name}: description {description} not understood"), name=name, description=repr(desc)
                )
            )
            continue
        gpu = marketplace_gpu(f"{m[2]} {m[4] or ''}".strip(), float(m[3]))
        if gpu is None:
            notes.append(
                Phrase(N_("{name}: GPU {gpu} not in gpuplan's hardware catalog"), name=name, gpu=repr(m[2]))
            )
            continue
        cents = it.get("price_cents_per_hour")
        if not cents:
            continue
        facts = InstanceFacts(
            gpu=gpu,
            gpu_count=float(specs.get("gpus") or m[1]),
            vcpus=float(specs["vcpus"]) if specs.get("vcpus") else None,
            memory_gib=float(specs["memory_gib"]) if specs.get("memory_gib") else None,
            network_gbps=None,
            network_kind=None,
            interconnect="NVLink/NVSwitch" if "SXM" in desc.upper() and int(m[1]) == 8 else None,
            local_nvme_gb=float(specs["storage_gib"]) if specs.get("storage_gib") else None,
            source=API_URL,
        )
        for region in entry.get("regions_with_capacity_available", []):
            code = region.get("name", "")
            if FACTS.region(code) is None:
                notes.append(
                    Phrase(
                        N_("{name}: region {region} not in gpuplan's Lambda region list"),
                        name=name,
                        region=repr(code),
                    )
                )
                continue
            p = price("on_demand", cents / 100, as_of=fetched_at[:10], source=API_URL, fetched_at=fetched_at)
            rows.append(offer("lambda", code, name, facts, [p]))
    return rows, notes


class _Fetcher:
    def fetch(self, http: Any, credentials: Credentials, today: str) -> FetchResult:
        key = credentials.get("LAMBDA_API_KEY")
        if key is None:
            raise MissingCredentialsError(
                Phrase(N_("the Lambda Cloud API needs an API key: set LAMBDA_API_KEY"))
            )
        doc = http.get_json(API_URL, headers={"Authorization": f"Bearer {key}"})
        rows, notes = parse_instance_types(doc, today)
        return FetchResult(rows=tuple(rows), sources=(API_URL,), notes=tuple(notes))


FETCHER = _Fetcher()
