"""Huawei Cloud: regions, GPU flavors, and the fetcher of BSS list prices (keys required).

Prices come from the BSS rating APIs, signed with the APIG ``SDK-HMAC-SHA256`` scheme
(:func:`gpuplan.catalog.providers.signing.huawei_authorization`): ``ListOnDemandResourceRatings``
for the hourly price and ``ListRateOnPeriodDetail`` for one month, one year and three years
prepaid. The list price is ``official_website_amount`` (``amount`` carries the account's
discounts). A flavor a region does not sell answers an error for that request only, and is left
out with a count in the refresh line (one unknown flavor would reject a whole batch, so each
flavor is asked on its own).
"""

from __future__ import annotations

from gpuplan.catalog.providers.base import (
    Billing,
    ProviderFacts,
    SharedStorage,
    SpotFacts,
    own_cloud_vm,
    regions,
)
from gpuplan.catalog.providers.huawei_bss import INSTANCES, BssFetcher
from gpuplan.i18n import N_

__all__ = ["FACTS", "FETCHER", "INSTANCES"]

_KEYS = ("HUAWEICLOUD_ACCESS_KEY", "HUAWEICLOUD_SECRET_KEY", "HUAWEICLOUD_PROJECT_ID")
_BILLING_DOC = (
    "Huawei Cloud ECS 'Pay-per-Use Billing' (usage calculated by the second and billed every hour; from "
    "launch to deletion; no minimum stated), https://support.huaweicloud.com/intl/en-us/price-ecs/"
    "ecs_billing_2003.html (text read on its intl/ar-mena and eu copies), read 2026-12-06"
)

FACTS = ProviderFacts(
    provider="huawei",
    # huaweicloud: the Terraform provider's name; huawei_cloud also reads huawei-cloud and "Huawei Cloud"
    aliases=("华为云", "huaweicloud", "huawei_cloud"),
    display_name="Huawei Cloud",
    kind="china_cloud",
    regions=regions(
        ("cn-north-4", "CN", "Beijing"),
        ("cn-north-9", "CN", "Ulanqab"),
        ("cn-east-3", "CN", "Shanghai"),
        ("cn-south-1", "CN", "Guangzhou"),
        ("cn-southwest-2", "CN", "Guiyang"),
        ("ap-southeast-1", "HK", "Hong Kong"),
        ("ap-southeast-2", "TH", "Bangkok"),
        ("ap-southeast-3", "SG", "Singapore"),
        ("ap-southeast-4", "ID", "Jakarta"),
        ("af-south-1", "ZA", "Johannesburg"),
        ("sa-brazil-1", "BR", "São Paulo"),
        ("la-south-2", "CL", "Santiago"),
        ("me-east-1", "SA", "Riyadh"),
        ("tr-west-1", "TR", "Istanbul"),
    ),
    regions_source="Huawei Cloud 'Regions and Endpoints', "
    "https://developer.huaweicloud.com/intl/en-us/endpoint "
    "(read 2026-12-01)",
    kubernetes="CCE",
    mainland_china_cloud=True,
    shared_storage=SharedStorage(service="SFS Turbo", csi_driver="everest-csi-provisioner"),
    # Pay-per-use (按需计费) ECSs: "Pay-per-use ECS usage is calculated by the second and billed every
    # hour (UTC+08:00). The billing starts when the ECS instance is launched and ends when the instance
    # is deleted." No minimum is stated. Spot price ECSs' own billing page was not read; the catalog
    # holds no Huawei spot price (no spot price API found).
    billing=Billing(granularity_s=1, min_billing_s=None, as_of="2026-12-06", source=_BILLING_DOC),
    spot=SpotFacts(
        name="spot price ECSs",
        notice_s=None,
        published_rate=None,
        source="Huawei Cloud ECS docs 'Spot Pricing' (no interruption rate published; "
        "no spot price API found)",
        rate_note=N_("Huawei publishes no rate"),
    ),
    default_region=None,
    egress_storage_note="no OBS or egress price found",
    offer_terms=(own_cloud_vm(_BILLING_DOC, interruptible=False, host_specs_known=True, network_known=True),),
    price_sources=(
        "https://bss.myhuaweicloud.com/v2/bills/ratings/on-demand-resources (ListOnDemandResourceRatings)",
        "https://bss.myhuaweicloud.com/v2/bills/ratings/period-resources/subscribe-rate "
        "(ListRateOnPeriodDetail)",
    ),
    credentials=(*_KEYS, "HUAWEICLOUD_BSS_ENDPOINT"),
)

FETCHER = BssFetcher(regions=FACTS.regions, keys=_KEYS)
