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
    ProviderFacts,
    Region,
    SpotFacts,
)
from gpuplan.catalog.providers.common import InstanceFacts, offer, price
from gpuplan.catalog.providers.marketplace import marketplace_gpu
from gpuplan.i18n import N_, _

__all__ = ["FACTS", "FETCHER", "QUERY", "parse_gpu_types"]

API_URL = "https://api.runpod.io/graphql"
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
    ),
    regions_source="RunPod docs 'Secure Cloud vs Community Cloud', https://docs.runpod.io/pods/overview "
    "(prices per cloud, not per data centre; read 2026-12-01)",
    kubernetes=None,
    billing=Billing(
        granularity_s=None,
        min_billing_s=None,
        as_of=None,
        source=None,
        reason="billing granularity not in gpuplan's sourced data; consumers assume hourly billing",
    ),
    spot=SpotFacts(
        name="interruptible pods",
        notice_s=5,
        published_rate=None,
        source="RunPod docs 'Pod pricing' (interruptible pods get a 5-second SIGTERM)",
        rate_note=N_("RunPod publishes no rate for interruptible pods"),
    ),
    default_region=None,
    egress_storage_note="no egress or storage price in gpuplan's sourced data",
    price_sources=(API_URL,),
    credentials=("RUNPOD_API_KEY",),
)


def parse_gpu_types(doc: dict[str, Any], fetched_at: str) -> tuple[list[OfferRow], list[str]]:
    """One 1-GPU offer per GPU type and cloud, with on-demand and spot prices per GPU-hour."""
    rows: list[OfferRow] = []
    notes: list[str] = []
    for t in (doc.get("data") or {}).get("gpuTypes") or []:
        gpu = marketplace_gpu(str(t.get("displayName", "")), t.get("memoryInGb"))
        if gpu is None:
            notes.append(_("{name}: GPU not in gpuplan's hardware catalog").format(name=t.get("id")))
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
            raise MissingCredentialsError(_("the RunPod API needs an API key: set RUNPOD_API_KEY"))
        doc = http.post_json(API_URL, {"query": QUERY}, headers={"Authorization": f"Bearer {key}"})
        rows, notes = parse_gpu_types(doc, today)
        return FetchResult(rows=tuple(rows), sources=(API_URL,), notes=tuple(notes))


FETCHER = _Fetcher()
