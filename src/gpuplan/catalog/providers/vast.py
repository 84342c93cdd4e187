"""Vast.ai: the fetcher of its public offer search (no key), grouped per GPU, count and country.

Vast.ai is a market of hosts' machines: each offer is one machine. gpuplan keeps, per
(GPU, GPU count, host country), the cheapest verified on-demand price and the lowest
interruptible bid as spot; the machine ids behind them are in the row's term.
"""

from __future__ import annotations

import json
from typing import Any

from gpuplan.catalog.model import OfferRow
from gpuplan.catalog.providers.base import (
    Billing,
    Credentials,
    FetchResult,
    OfferTerms,
    ProviderFacts,
    SpotFacts,
)
from gpuplan.catalog.providers.common import InstanceFacts, offer, price
from gpuplan.catalog.providers.marketplace import iso_country_regions, marketplace_gpu, skypilot_file
from gpuplan.i18n import N_, _

__all__ = ["FACTS", "FETCHER", "SEARCH", "parse_offers"]

API_URL = "https://console.vast.ai/api/v0/bundles/"
_BILLING_DOC = (
    "Vast.ai docs 'Billing' (the active rental charged per second; storage charged every second the "
    "instance exists, stopped or not), https://vast.ai/docs/billing/billing, read 2026-12-02"
)
_RENTAL_DOC = (
    "Vast.ai docs 'Rental types' (on-demand runs until the host's maximum duration; interruptible "
    "instances are paused when outbid), https://vast.ai/docs/instance-rental/rental-types, read 2026-12-02"
)
_FAQ_DOC = (
    "Vast.ai docs 'FAQ' (anyone can host; 'Secure Cloud' = vetted ISO 27001 / Tier 3-4 data centres), "
    "https://vast.ai/docs/overview/faq, read 2026-12-02"
)
SEARCH = {"verified": {"eq": True}, "rentable": {"eq": True}, "rented": {"eq": False}, "limit": 5000}


FACTS = ProviderFacts(
    provider="vast",
    aliases=("vast_ai", "vastai"),  # vastai: gpuhunt's and dstack's name
    display_name="Vast.ai",
    kind="marketplace",
    regions=iso_country_regions(),
    regions_source="Vast.ai offers carry the host's geolocation ('City, CC'); regions are ISO 3166 countries",
    kubernetes=None,
    billing=Billing(granularity_s=1, min_billing_s=None, as_of="2026-12-02", source=_BILLING_DOC),
    spot=SpotFacts(
        name="interruptible instances (bids)",
        notice_s=None,
        published_rate=None,
        source="Vast.ai docs 'Rental types' (an interruptible instance is paused when outbid)",
        rate_note=N_("Vast.ai publishes no rate; an interruptible instance is paused when outbid"),
    ),
    default_region=None,
    egress_storage_note="hosts set their own bandwidth prices (inet_up_cost per offer); not stored yet",
    price_sources=(API_URL, skypilot_file("vast")),
    skypilot_cloud="vast",
    # SkyPilot's Vast regions are its catalog's Region strings ('France, FR, EU'; sky/clouds/vast.py
    # regions_with_offering); the catalog keeps the country (FR), which is none of them.
    skypilot_regions=False,
    offer_terms=(
        OfferTerms(
            host="community_host",
            interruptible=False,
            price_covers="one host's machine per second of running (GPUs with the host's vCPUs and RAM); "
            "storage billed apart for as long as the instance exists, bandwidth at the host's price",
            min_rental_s=None,
            storage_billed_apart=True,
            host_specs_known=True,
            network_known=False,
            reliability="an independent host's machine (data-centre hosts are marked 'secure cloud'); "
            "an on-demand rental runs until the host's maximum duration, hosts carry a reliability score",
            source=_RENTAL_DOC + "; " + _BILLING_DOC + "; " + _FAQ_DOC,
        ),
    ),
)


def parse_offers(doc: dict[str, Any], fetched_at: str) -> tuple[list[OfferRow], list[str]]:
    best: dict[tuple[str, int, str], dict[str, Any]] = {}
    unknown: set[str] = set()
    for o in doc.get("offers") or []:
        name = str(o.get("gpu_name", ""))
        gpu = marketplace_gpu(name, (o.get("gpu_ram") or 0) / 1024 or None)
        if gpu is None:
            unknown.add(name)
            continue
        country = str(o.get("geolocation") or "").split(",")[-1].strip().upper()
        if FACTS.region(country) is None:
            continue
        n = int(o.get("num_gpus") or 0)
        dph = o.get("dph_total")
        if n <= 0 or not dph:
            continue
        key = (gpu, n, country)
        b = best.setdefault(key, {"od": None, "bid": None, "od_id": None, "bid_id": None, "offer": o})
        if b["od"] is None or dph < b["od"]:
            b.update(od=float(dph), od_id=o.get("id"), offer=o)
        bid = o.get("min_bid")
        if bid and (b["bid"] is None or bid < b["bid"]):
            b.update(bid=float(bid), bid_id=o.get("id"))
    rows: list[OfferRow] = []
    for (gpu, n, country), b in sorted(best.items()):
        o = b["offer"]
        facts = InstanceFacts(
            gpu=gpu,
            gpu_count=n,
            vcpus=float(o["cpu_cores_effective"]) if o.get("cpu_cores_effective") else None,
            memory_gib=round(o["cpu_ram"] / 1024, 1) if o.get("cpu_ram") else None,
            network_gbps=round(o["inet_down"] / 1000, 2) if o.get("inet_down") else None,
            network_kind="TCP",
            interconnect=None,
            local_nvme_gb=None,
            source=f"{API_URL} offer {b['od_id']}",
        )
        kw: dict[str, Any] = {"as_of": fetched_at[:10], "source": API_URL, "fetched_at": fetched_at}
        prices = [price("on_demand", b["od"], term={"vast_offer_id": b["od_id"]}, **kw)]
        if b["bid"] is not None and b["bid"] < b["od"]:
            prices.append(
                price("spot", b["bid"], term={"vast_offer_id": b["bid_id"], "kind": "minimum bid"}, **kw)
            )
        rows.append(offer("vast", country, f"{n}x {gpu}", facts, prices))
    notes = (
        [
            _("GPU names not in gpuplan's hardware catalog: {names}").format(
                names=_(", ").join(sorted(unknown))
            )
        ]
        if unknown
        else []
    )
    return rows, notes


class _Fetcher:
    def fetch(self, http: Any, credentials: Credentials, today: str) -> FetchResult:
        doc = http.get_json(API_URL, params={"q": json.dumps(SEARCH, sort_keys=True)})
        rows, notes = parse_offers(doc, today)
        return FetchResult(rows=tuple(rows), sources=(API_URL,), notes=tuple(notes))


FETCHER = _Fetcher()
