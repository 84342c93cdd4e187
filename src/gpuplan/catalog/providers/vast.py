"""Vast.ai: the fetcher of its public offer search (no key), grouped per GPU, count and country.

Vast.ai is a market of hosts' machines: each offer is one machine. gpuplan keeps, per
(GPU, GPU count, host country), the cheapest verified on-demand price and the lowest
interruptible bid as spot; the machine ids behind them are in the row's term.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from gpuplan.bounded import printable
from gpuplan.catalog.model import OfferRow, RejectedRow
from gpuplan.catalog.providers.base import (
    Billing,
    Credentials,
    FetchResult,
    OfferTerms,
    ProviderFacts,
    SpotFacts,
)
from gpuplan.catalog.providers.common import InstanceFacts, comma_list, offer, price
from gpuplan.catalog.providers.marketplace import iso_country_regions, marketplace_gpu, skypilot_file
from gpuplan.errors import DataError, Phrase
from gpuplan.i18n import N_

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


#: Fields of a listing that are numbers when present; absent or null: not published (None).
_OPTIONAL_NUMBERS = ("gpu_ram", "min_bid", "cpu_cores_effective", "cpu_ram", "inet_down")


@dataclass(frozen=True, kw_only=True)
class _Listing:
    """One machine of the answer whose fields are what they should be."""

    id: int | str
    gpu: str
    count: int
    country: str
    on_demand: float
    """``dph_total``: USD per hour, as the listing states it."""
    bid: float | None
    """``min_bid``: the lowest interruptible bid, USD per hour (None: not offered)."""
    numbers: dict[str, float | None]
    """The optional numbers of :data:`_OPTIONAL_NUMBERS` (None: not published)."""


def _shown(value: object) -> str:
    """A listing's value as a reason quotes it: JSON, one line, at most 40 characters."""
    text = printable(json.dumps(value, ensure_ascii=False, default=str))
    return text if len(text) <= 40 else text[:39] + "…"


def _a_number(value: object) -> bool:
    """A JSON number a float holds (not a bool, not NaN or infinite, not an integer past 1e308)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer of 400 digits
        return False


def _judge(o: object, position: int) -> _Listing | RejectedRow | str:
    """One listing read alone: a :class:`_Listing`, the listing refused with its reason, or the
    name of a GPU gpuplan does not know (said once in the notes, not a fault of the listing)."""
    if not isinstance(o, dict):
        return _refused(
            Phrase(N_("Vast.ai listing {n} of the answer: not an object"), n=position), _NO_LISTING
        )
    oid = o.get("id")
    if isinstance(oid, bool) or not isinstance(oid, (int, str)) or oid == "":
        return _refused(Phrase(N_("Vast.ai listing {n} of the answer: no offer id"), n=position), _NO_LISTING)
    label = Phrase(N_("Vast.ai offer {id}"), id=_shown(oid).strip('"'))
    name, where = o.get("gpu_name"), o.get("geolocation")
    country = where.split(",")[-1].strip().upper() if isinstance(where, str) else ""
    country = country if FACTS.region(country) is not None else ""
    row = ""  # the offer row the listing would price, once known

    def refused(template: str, check: str, **fields: object) -> RejectedRow:
        return _refused(Phrase(template, offer=label, **fields), check, row, country)

    if name is None:
        return refused(N_("{offer}: no gpu_name"), _NO_GPU_NAME)
    if not isinstance(name, str) or not name.strip():
        return refused(N_("{offer}: gpu_name is {value}, not a GPU name"), _NO_GPU_NAME, value=_shown(name))
    for field in _OPTIONAL_NUMBERS:
        if o.get(field) is not None and not _a_number(o[field]):
            return refused(_NOT_A_NUMBER, _NO_NUMBER, field=field, value=_shown(o[field]))
    gpu_ram = o.get("gpu_ram")
    gpu = marketplace_gpu(name, gpu_ram / 1024 if gpu_ram else None)
    if gpu is None:
        return name
    count = o.get("num_gpus")
    if count is None:
        return refused(N_("{offer}: no num_gpus"), _NO_GPU_COUNT)
    if not _a_number(count) or count < 1 or count != int(count):
        return refused(
            N_("{offer}: num_gpus is {value}, not a whole number of GPUs"),
            _NO_WHOLE_COUNT,
            value=_shown(count),
        )
    if where is None:
        return refused(N_("{offer}: no geolocation"), _NO_COUNTRY)
    if not country:
        return refused(
            N_("{offer}: geolocation {value} names no ISO 3166 country"), _NO_COUNTRY, value=_shown(where)
        )
    row = f"{int(count)}x {gpu}"
    dph, bid = o.get("dph_total"), o.get("min_bid")
    if dph is None:
        return refused(N_("{offer}: no dph_total"), _NO_PRICE)
    if not _a_number(dph):
        return refused(_NOT_A_NUMBER, _NO_NUMBER, field="dph_total", value=_shown(dph))
    if dph <= 0:
        return refused(_NOT_A_PRICE, _PRICE_NOT_ABOVE_ZERO, field="dph_total", value=_shown(dph))
    if bid is not None and bid < 0:
        return refused(_NOT_A_PRICE, _PRICE_NOT_ABOVE_ZERO, field="min_bid", value=_shown(bid))
    return _Listing(
        id=oid,
        gpu=gpu,
        count=int(count),
        country=country,
        on_demand=float(dph),
        bid=float(bid) if bid else None,  # 0: no bid taken
        numbers={f: float(o[f]) if o.get(f) is not None else None for f in _OPTIONAL_NUMBERS},
    )


_NOT_A_NUMBER = N_("{offer}: {field} is {value}, not a number")
_NOT_A_PRICE = N_("{offer}: {field} is {value}, not a price above zero")

# The checks a listing can fail, in plain words: a refresh whose every listing was refused counts
# them by these (each reason above names its listing and value, so no two are alike).
_NO_LISTING = N_("not a listing")
_NO_GPU_NAME = N_("no GPU name")
_NO_NUMBER = N_("a figure that is no number")
_NO_GPU_COUNT = N_("no GPU count")
_NO_WHOLE_COUNT = N_("GPU count not a whole number")
_NO_COUNTRY = N_("no host country")
_NO_PRICE = N_("no price")
_PRICE_NOT_ABOVE_ZERO = N_("price not above zero")


def _refused(reason: Phrase, check: str, instance_type: str = "", region: str = "") -> RejectedRow:
    return RejectedRow.because(
        reason, line=None, instance_type=instance_type, region=region, check=Phrase(check)
    )


def parse_offers(
    doc: dict[str, Any], fetched_at: str
) -> tuple[list[OfferRow], list[Phrase], list[RejectedRow]]:
    """Per (GPU, GPU count, host country): the cheapest on-demand listing and the lowest bid, with
    the notes and the listings refused. Each listing is judged alone: one whose price, GPU count or
    host facts are missing or no number is refused with its reason, and its group is priced from
    the others (read with the group, it could stand for it or make the gates refuse the whole row)."""
    offers = doc.get("offers")
    if offers is None:
        offers = []
    if not isinstance(offers, list):
        raise DataError.worded(N_("Vast.ai: the answer's offers are not a list"))
    best: dict[tuple[str, int, str], dict[str, Any]] = {}
    unknown: set[str] = set()
    rejected: list[RejectedRow] = []
    for position, o in enumerate(offers, start=1):
        judged = _judge(o, position)
        if isinstance(judged, str):
            unknown.add(judged)
            continue
        if isinstance(judged, RejectedRow):
            rejected.append(judged)
            continue
        key = (judged.gpu, judged.count, judged.country)
        b = best.setdefault(key, {"od": None, "bid": None, "od_id": None, "bid_id": None, "offer": judged})
        if b["od"] is None or judged.on_demand < b["od"]:
            b.update(od=judged.on_demand, od_id=judged.id, offer=judged)
        if judged.bid is not None and (b["bid"] is None or judged.bid < b["bid"]):
            b.update(bid=judged.bid, bid_id=judged.id)
    rows: list[OfferRow] = []
    for (gpu, n, country), b in sorted(best.items()):
        numbers = b["offer"].numbers
        facts = InstanceFacts(
            gpu=gpu,
            gpu_count=n,
            vcpus=numbers["cpu_cores_effective"] or None,
            memory_gib=round(numbers["cpu_ram"] / 1024, 1) if numbers["cpu_ram"] else None,
            network_gbps=round(numbers["inet_down"] / 1000, 2) if numbers["inet_down"] else None,
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
            Phrase(
                N_("GPU names not in gpuplan's hardware catalog: {names}"),
                names=comma_list(sorted(printable(n) for n in unknown)),
            )
        ]
        if unknown
        else []
    )
    return rows, notes, rejected


class _Fetcher:
    def fetch(self, http: Any, credentials: Credentials, today: str) -> FetchResult:
        doc = http.get_json(API_URL, params={"q": json.dumps(SEARCH, sort_keys=True)})
        rows, notes, rejected = parse_offers(doc, today)
        return FetchResult(rows=tuple(rows), sources=(API_URL,), notes=tuple(notes), rejected=tuple(rejected))


FETCHER = _Fetcher()
