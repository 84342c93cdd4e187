"""Volcano Engine: regions, GPU types, and the fetcher of billing-API list prices (keys required).

The fetcher and its (unverified) charge-item codes: :mod:`gpuplan.catalog.providers.volcengine_billing`.
"""

from __future__ import annotations

from gpuplan.catalog.providers.base import Billing, ProviderFacts, SpotFacts, own_cloud_vm, regions
from gpuplan.catalog.providers.volcengine_billing import INSTANCES, BillingFetcher
from gpuplan.i18n import N_

__all__ = ["FACTS", "FETCHER", "INSTANCES"]

_KEYS = ("VOLCENGINE_ACCESS_KEY", "VOLCENGINE_SECRET_KEY")

_REGIONS_DOC = (
    "Volcano Engine 'Regions and availability zones', https://www.volcengine.com/docs/6396/74013 "
    "(read 2026-12-01)"
)


FACTS = ProviderFacts(
    provider="volcengine",
    aliases=(
        "volcano",
        "volcano_engine",
        "火山引擎",
        "huoshan",  # 火山 in pinyin, as users in China type it
    ),
    display_name="Volcano Engine",
    kind="china_cloud",
    regions=regions(
        ("cn-beijing", "CN", "Beijing"),
        ("cn-shanghai", "CN", "Shanghai"),
        ("cn-guangzhou", "CN", "Guangzhou"),
        ("cn-hongkong", "HK", "Hong Kong"),
        ("ap-southeast-1", "MY", "Johor"),
        ("ap-southeast-3", "ID", "Jakarta"),
    ),
    regions_source=_REGIONS_DOC,
    kubernetes="VKE",
    mainland_china_cloud=True,
    # Only preemptible instances' billing was found in Volcano Engine's own docs ('抢占式实例',
    # https://www.volcengine.com/docs/6396/125675, updated 2024.04.15, read 2026-12-06: "秒级计费，按小时
    # 出账单"); the catalog prices on-demand (按量计费) ECSs only, whose rule was not found.
    billing=Billing(
        granularity_s=None,
        min_billing_s=None,
        as_of=None,
        source=None,
        reason="billing granularity not in gpuplan's sourced data; consumers assume hourly billing",
    ),
    spot=SpotFacts(
        name="preemptible instances (抢占式实例)",
        notice_s=None,
        published_rate=None,
        source="Volcano Engine ECS docs (no interruption rate published; no spot price API found)",
        rate_note=N_("Volcano Engine publishes no rate"),
    ),
    default_region=None,
    egress_storage_note="no TOS or egress price found (billing method only)",
    offer_terms=(own_cloud_vm(_REGIONS_DOC, interruptible=None, host_specs_known=True, network_known=False),),
    price_sources=(
        "https://open.volcengineapi.com billing QueryPriceForPayAsYouGo 2022-01-01",
        "https://open.volcengineapi.com billing QueryPriceForSubscription 2022-01-01",
    ),
    credentials=_KEYS,
)

FETCHER = BillingFetcher(regions=FACTS.regions, keys=_KEYS)
