"""Alibaba Cloud: regions, GPU instance types, and the fetcher of the international price list.

Without credentials: the public JSON behind the international site's price calculator
(``instancePrice.json``: USD per hour, week, month and year per region, instance type and OS).
Its path carries a version segment that changes; pass the current one with
``ALIBABA_PRICE_VERSION``. With ``ALIBABA_CLOUD_ACCESS_KEY_ID`` and ``ALIBABA_CLOUD_ACCESS_KEY_SECRET``
the fetcher also reads the mainland regions through the ECS OpenAPI
(:mod:`gpuplan.catalog.providers.alibaba_openapi`): hourly, 包年包月 (1 month, 1 and 3 years) and
per-zone spot prices with their interruption band, in CNY.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpuplan.catalog.model import OfferRow, PriceRow
from gpuplan.catalog.providers.alibaba_openapi import KEYS as OPENAPI_KEYS
from gpuplan.catalog.providers.alibaba_openapi import OpenApiFetch
from gpuplan.catalog.providers.base import (
    Billing,
    Credentials,
    FetchResult,
    ProviderFacts,
    SharedStorage,
    SpotFacts,
    own_cloud_vm,
    regions,
)
from gpuplan.catalog.providers.common import InstanceFacts, ethernet_instance, key_list, number, offer, price
from gpuplan.catalog.stored_words import Plural
from gpuplan.errors import Phrase
from gpuplan.i18n import N_

if TYPE_CHECKING:
    from gpuplan.catalog.providers.http import Http

__all__ = ["FACTS", "FETCHER", "INSTANCES", "parse_price_list", "price_list_url"]

#: The version last seen in public code using the API (2026-12-01); override when it moves on.
DEFAULT_PRICE_VERSION = "2.0.421"


def price_list_url(version: str) -> str:
    return f"https://g.alicdn.com/aliyun/ecs-price-info-intl/{version}/price/download/instancePrice.json"


_PAYG_DOC = (
    "Alibaba Cloud 'Pay-as-you-go' (ECS billing: computing resources billed in 1-second increments from "
    "creation to release), https://www.alibabacloud.com/help/en/ecs/product-overview/pay-as-you-go-1 "
    "(read 2026-12-04)"
)


FACTS = ProviderFacts(
    provider="alibaba",
    aliases=(
        "aliyun",
        "alibaba_cloud",
        "alicloud",  # SkyPilot's and Terraform's name (catalogs' alicloud/vms.csv; the alicloud provider)
        "阿里云",
    ),
    display_name="Alibaba Cloud",
    kind="china_cloud",
    regions=regions(
        ("cn-hangzhou", "CN", "Hangzhou"),
        ("cn-shanghai", "CN", "Shanghai"),
        ("cn-beijing", "CN", "Beijing"),
        ("cn-zhangjiakou", "CN", "Zhangjiakou"),
        ("cn-wulanchabu", "CN", "Ulanqab"),
        ("cn-shenzhen", "CN", "Shenzhen"),
        ("cn-qingdao", "CN", "Qingdao"),
        ("cn-heyuan", "CN", "Heyuan"),
        ("cn-guangzhou", "CN", "Guangzhou"),
        ("cn-chengdu", "CN", "Chengdu"),
        ("cn-nanjing", "CN", "Nanjing"),
        ("cn-hongkong", "HK", "Hong Kong"),
        ("ap-northeast-1", "JP", "Tokyo"),
        ("ap-northeast-2", "KR", "Seoul"),
        ("ap-southeast-1", "SG", "Singapore"),
        ("ap-southeast-3", "MY", "Kuala Lumpur"),
        ("ap-southeast-5", "ID", "Jakarta"),
        ("ap-southeast-6", "PH", "Manila"),
        ("ap-southeast-7", "TH", "Bangkok"),
        ("us-east-1", "US", "Virginia"),
        ("us-west-1", "US", "Silicon Valley"),
        ("eu-central-1", "DE", "Frankfurt"),
        ("eu-west-1", "GB", "London"),
        ("me-east-1", "AE", "Dubai"),
        ("me-central-1", "SA", "Riyadh"),
    ),
    regions_source="Alibaba Cloud 'Regions and zones', https://www.alibabacloud.com/help/en/ecs/product-overview/"
    "regions-and-zones (read 2026-12-01)",
    kubernetes="ACK",
    mainland_china_cloud=True,
    shared_storage=SharedStorage(service="NAS", csi_driver="nasplugin.csi.alibabacloud.com"),
    billing=Billing(
        granularity_s=None,
        min_billing_s=None,
        as_of=None,
        source=None,
        # Alibaba Cloud, "Pay-as-you-go" (ECS billing, https://www.alibabacloud.com/help/en/ecs/
        # product-overview/pay-as-you-go-1, read 2026-12-04; its copy at .../help/en/ecs/pay-as-you-go-1,
        # "Last Updated: Aug 28, 2024", read 2026-12-06): computing resources are billed in 1-second
        # increments, but "Within each billing cycle (1 hour), computing resources has a minimum
        # billing duration that varies based on the number of vCPUs provided by the instance type" —
        # a table the catalog does not hold (the copies read cut it off). Preemptible instances:
        # "billed in 1-second increments per hour" ('Instance types' billing page,
        # https://www.alibabacloud.com/help/en/elastic-compute-service/latest/instance-types, read
        # 2026-12-06), with no minimum stated there. Older pages (AlibabaCloudDocs/ecs, 按量付费.md)
        # state no minimum at all. An unknown minimum is not taken as none: whole hours stay assumed,
        # and the plan says per-second billing is documented (documented_increment_s).
        documented_increment_s=1,
        reason=(
            "per-second billing with a minimum per hourly billing cycle that varies with the instance's "
            "vCPUs (Alibaba Cloud 'Pay-as-you-go'), not held per instance type; consumers assume hourly "
            "billing, the conservative bound"
        ),
    ),
    spot=SpotFacts(
        name="preemptible (spot) instances",
        notice_s=300,
        published_rate="an interruption-rate band per zone through DescribeSpotAdvice (needs keys)",
        source="Alibaba Cloud docs 'Preemptible instances' (5-minute notice; 1-hour protection period); "
        "DescribeSpotAdvice (ECS OpenAPI, keys)",
        rate_note=N_(
            "Alibaba publishes no rate; a spot instance is kept for at least its 1-hour protection period"
        ),
    ),
    default_region="us-west-ot7-a01",
    egress_storage_note="only the international site's block-storage row is known",
    offer_terms=(own_cloud_vm(_PAYG_DOC, interruptible=False, host_specs_known=True, network_known=True),),
    price_sources=(price_list_url(DEFAULT_PRICE_VERSION),),
    credentials=("ALIBABA_PRICE_VERSION", *OPENAPI_KEYS),
    price_list_region_codes=("us-west-ot7-a01",),
)

_DOC = "Alibaba Cloud 'GPU-accelerated compute-optimized instance families', https://www.alibabacloud.com/help/en/ecs/user-guide/gpu-accelerated-compute-optimized-and-vgpu-accelerated-instance-families-1"


def _i(gpu: str, n: float, vcpus: float, mem: float, net: float | None, link: str) -> InstanceFacts:
    return ethernet_instance(_DOC, gpu, n, vcpus, mem, net, link)


INSTANCES: dict[str, InstanceFacts] = {
    "ecs.gn6i-c4g1.xlarge": _i("T4", 1, 4, 15, 4, "PCIe"),
    "ecs.gn6i-c8g1.2xlarge": _i("T4", 1, 8, 31, 5, "PCIe"),
    "ecs.gn6i-c16g1.4xlarge": _i("T4", 1, 16, 62, 6, "PCIe"),
    "ecs.gn6i-c24g1.6xlarge": _i("T4", 1, 24, 93, 7.5, "PCIe"),
    "ecs.gn6i-c24g1.12xlarge": _i("T4", 2, 48, 186, 15, "PCIe"),
    "ecs.gn6i-c24g1.24xlarge": _i("T4", 4, 96, 372, 30, "PCIe"),
    "ecs.gn6v-c8g1.2xlarge": _i("V100-SXM2-16GB", 1, 8, 32, 2.5, "NVLink"),
    "ecs.gn6v-c8g1.8xlarge": _i("V100-SXM2-16GB", 4, 32, 128, 10, "NVLink"),
    "ecs.gn6v-c8g1.16xlarge": _i("V100-SXM2-16GB", 8, 64, 256, 20, "NVLink"),
    "ecs.gn6e-c12g1.24xlarge": _i("V100-SXM2-32GB", 8, 96, 736, 32, "NVLink"),
    "ecs.gn7i-c8g1.2xlarge": _i("A10", 1, 8, 30, 16, "PCIe"),
    "ecs.gn7i-c16g1.4xlarge": _i("A10", 1, 16, 60, 16, "PCIe"),
    "ecs.gn7i-c32g1.8xlarge": _i("A10", 1, 32, 188, 16, "PCIe"),
    "ecs.gn7i-c32g1.16xlarge": _i("A10", 2, 64, 376, 32, "PCIe"),
    "ecs.gn7i-c32g1.32xlarge": _i("A10", 4, 128, 752, 64, "PCIe"),
    "ecs.gn7-c12g1.3xlarge": _i("A100-SXM4-40GB", 1, 12, 94, 4, "NVLink/NVSwitch"),
    "ecs.gn7-c13g1.13xlarge": _i("A100-SXM4-40GB", 4, 52, 378, 16, "NVLink/NVSwitch"),
    "ecs.gn7-c13g1.26xlarge": _i("A100-SXM4-40GB", 8, 104, 756, 30, "NVLink/NVSwitch"),
    "ecs.gn7e-c16g1.4xlarge": _i("A100-SXM4-80GB", 1, 16, 125, 8, "NVLink/NVSwitch"),
    "ecs.gn7e-c16g1.32xlarge": _i("A100-SXM4-80GB", 8, 128, 1000, 32, "NVLink/NVSwitch"),
}


def parse_price_list(
    doc: dict[str, Any], source: str, fetched_at: str
) -> dict[tuple[str, str], list[PriceRow]]:
    """(region, instance type) -> Linux on-demand (hour), monthly and 1y/3y prepaid prices (USD).

    Keys are ``region::instance type::network::os::io``; values hold ``hours``, ``months`` and
    ``years`` lists of ``{price, period}``. A prepaid year is stored as its monthly equivalent.
    """
    as_of = str(doc.get("publicationDate") or fetched_at)[:10]
    currency = str(doc.get("currency") or "USD").upper()
    out: dict[tuple[str, str], list[PriceRow]] = {}
    for key, v in (doc.get("pricingInfo") or {}).items():
        parts = key.split("::")
        if len(parts) < 4 or parts[1] not in INSTANCES or parts[3] != "linux" or parts[2] != "vpc":
            continue
        rows: list[PriceRow] = []

        def first(kind: str, period: str, v: dict[str, Any] = v) -> float | None:
            for p in v.get(kind) or []:
                if str(p.get("period", "1")) == period:
                    value = number(p.get("price"))
                    return value if value and value > 0 else None
            return None

        kw: dict[str, Any] = {
            "currency": currency,
            "as_of": as_of,
            "source": source,
            "fetched_at": fetched_at,
        }
        if (hourly := first("hours", "1")) is not None:
            rows.append(price("on_demand", hourly, **kw))
        if (monthly := first("months", "1")) is not None:
            rows.append(
                price("monthly", monthly, unit="month", term={"billing": "monthly subscription"}, **kw)
            )
        for years in (1, 3):
            if (yearly := first("years", str(years))) is not None:
                rows.append(
                    price(
                        f"reserved_{years}y",
                        round(yearly / (12 * years), 4),
                        unit="month",
                        term={"years": years, "prepaid_total": yearly, "kind": "subscription"},
                        **kw,
                    )
                )
        if rows:
            out[(parts[0], parts[1])] = rows
    return out


class _Fetcher:
    def fetch(self, http: Http, credentials: Credentials, today: str) -> FetchResult:
        url = price_list_url(credentials.get("ALIBABA_PRICE_VERSION") or DEFAULT_PRICE_VERSION)
        doc = http.get_json(url)
        rows: list[OfferRow] = [
            offer("alibaba", region, itype, INSTANCES[itype], prices)
            for (region, itype), prices in sorted(parse_price_list(doc, url, today).items())
            if FACTS.region(region) is not None
        ]
        sources = [url]
        notes: list[object] = []  # Phrases: a run is stored in no language
        key_id, secret = (credentials.get(k) for k in OPENAPI_KEYS)
        if key_id and secret:
            api = OpenApiFetch(http, key_id, secret, today)
            for region in FACTS.regions:
                if region.country == "CN":
                    rows.extend(api.region_offers(region.code, INSTANCES))
                    sources.append(f"https://ecs.{region.code}.aliyuncs.com")
            if api.skipped:
                notes.append(
                    Plural(
                        "{n} OpenAPI request refused (instance type not sold there)",
                        "{n} OpenAPI requests refused (instance type not sold there)",
                        api.skipped,
                        n=api.skipped,
                    )
                )
        else:
            notes.append(
                Phrase(
                    N_("mainland China regions, 包年包月 and spot prices need the OpenAPI: set {keys}"),
                    keys=key_list(OPENAPI_KEYS),
                )
            )
        return FetchResult(rows=tuple(rows), sources=tuple(sources), notes=tuple(notes))


FETCHER = _Fetcher()
