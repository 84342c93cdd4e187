"""RunPod: its two clouds and the fetcher of GPU prices from its GraphQL API (API key).

RunPod prices a GPU type per GPU-hour, the same in every data centre of a cloud: ``secure``
(its own data centres) and ``community`` (hosts' machines). Interruptible pods are its spot.
"""

from __future__ import annotations

from typing import Any

from gpuplan.catalog.model import OfferRow
from gpuplan.catalog.providers.base import (
    Billing,
    Credentials,
    FetchResult,
    MissingCredentialsError,
    OfferTerms,
    ProviderFacts,
    Region,
    SpotFacts,
)
from gpuplan.catalog.providers.common import InstanceFacts, offer, price
from gpuplan.catalog.providers.marketplace import iso_country_regions, marketplace_gpu, skypilot_file
from gpuplan.errors import Phrase
from gpuplan.i18n import N_

__all__ = ["FACTS", "FETCHER", "QUERY", "parse_gpu_types"]

API_URL = "https://api.runpod.io/graphql"
_PRICING_DOC = (
    "RunPod docs 'Pricing' (pods billed by the second; on-demand pods are not interrupted), "
    "https://docs.runpod.io/pods/pricing, read 2026-12-02"
)
_STORAGE_DOC = (
    "RunPod docs 'Billing information' (storage 0.10 USD per GB-month while running, 0.20 stopped), "
    "https://docs.runpod.io/get-started/billing-information, read 2026-12-02"
)
_FAQ_DOC = (
    "RunPod docs 'FAQ' (Secure Cloud in T3/T4 data centres of trusted partners; Community Cloud hosts "
    "invite-only and vetted), https://docs.runpod.io/faq, read 2026-12-02"
)
QUERY = (
    "query GpuTypes { gpuTypes { id displayName memoryInGb secureCloud communityCloud "
    "securePrice communityPrice secureSpotPrice communitySpotPrice } }"
)

FACTS = ProviderFacts(
    provider="runpod",
    display_name="RunPod",
    kind="marketplace",
    regions=(
        Region(code="secure", country=None, city=None),
        Region(code="community", country=None, city=None),
        *iso_country_regions(),
    ),
    regions_source="RunPod docs 'Secure Cloud vs Community Cloud', https://docs.runpod.io/pods/overview "
    "(the API prices per cloud, not per data centre; read 2026-12-01); "
    + skypilot_file("runpod")
    + " files offers by country (Region, ISO code) and data centre (AvailabilityZone, kept as the zone)",
    kubernetes=None,
    billing=Billing(granularity_s=1, min_billing_s=None, as_of="2026-12-02", source=_PRICING_DOC),
    spot=SpotFacts(
        name="interruptible pods",
        notice_s=5,
        published_rate=None,
        source="RunPod docs 'Pod pricing' (interruptible pods get a 5-second SIGTERM)",
        rate_note=N_("RunPod publishes no rate for interruptible pods"),
    ),
    default_region=None,
    egress_storage_note="no egress or storage price in gpuplan's sourced data",
    price_sources=(API_URL, skypilot_file("runpod")),
    credentials=("RUNPOD_API_KEY",),
    skypilot_cloud="runpod",
    offer_terms=(
        OfferTerms(
            host="community_host",
            marker="community",
            interruptible=False,
            price_covers="a pod per hour (GPUs with the host's share of vCPUs and RAM, container disk); "
            "volume storage apart",
            min_rental_s=None,
            storage_billed_apart=True,
            host_specs_known=False,
            network_known=False,
            reliability="an invite-only, vetted independent host's machine (Community Cloud)",
            source=_FAQ_DOC + "; " + _PRICING_DOC + "; " + _STORAGE_DOC,
        ),
        OfferTerms(
            host="secure_cloud",
            interruptible=False,
            price_covers="a pod per hour (GPUs with their share of vCPUs and RAM, container disk); "
            "volume storage apart",
            min_rental_s=None,
            storage_billed_apart=True,
            host_specs_known=True,
            network_known=False,
            reliability="Secure Cloud: Tier 3/4 data centres of RunPod's partners; an on-demand pod "
            "cannot be displaced",
            source=_FAQ_DOC + "; " + _PRICING_DOC + "; " + _STORAGE_DOC,
        ),
    ),
)


def parse_gpu_types(doc: dict[str, Any], fetched_at: str) -> tuple[list[OfferRow], list[Phrase]]:
    """One 1-GPU offer per GPU type and cloud, with on-demand and spot prices per GPU-hour."""
    rows: list[OfferRow] = []
    notes: list[Phrase] = []
    for t in (doc.get("data") or {}).get("gpuTypes") or []:
        gpu = marketplace_gpu(str(t.get("displayName", "")), t.get("memoryInGb"))
        if gpu is None:
            notes.append(Phrase(N_("{name}: GPU not in gpuplan's hardware catalog"), name=t.get("id")))
            continue
        facts = InstanceFacts(
            gpu=gpu,
            gpu_count=1,
            vcpus=None,
            memory_gib=None,
            network_gbps=None,
            network_kind=None,
            interconnect=None,
            local_nvme_gb=None,
            source=API_URL,
        )
        for cloud in ("secure", "community"):
            if not t.get(f"{cloud}Cloud"):
                continue
            prices = []
            kw: dict[str, Any] = {"as_of": fetched_at[:10], "source": API_URL, "fetched_at": fetched_at}
            if t.get(f"{cloud}Price"):
                prices.append(price("on_demand", float(t[f"{cloud}Price"]), **kw))
            if t.get(f"{cloud}SpotPrice"):
                prices.append(price("spot", float(t[f"{cloud}SpotPrice"]), **kw))
            if any(p.pricing == "on_demand" for p in prices):
                rows.append(offer("runpod", cloud, f"1x {t.get('id')}", facts, prices))
    return rows, notes


class _Fetcher:
    def fetch(self, http: Any, credentials: Credentials, today: str) -> FetchResult:
        key = credentials.get("RUNPOD_API_KEY")
        if key is None:
            raise MissingCredentialsError(Phrase(N_("the RunPod API needs an API key: set RUNPOD_API_KEY")))
        doc = http.post_json(API_URL, {"query": QUERY}, headers={"Authorization": f"Bearer {key}"})
        rows, notes = parse_gpu_types(doc, today)
        return FetchResult(rows=tuple(rows), sources=(API_URL,), notes=tuple(notes))


FETCHER = _Fetcher()
