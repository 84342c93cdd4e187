"""Tencent Cloud: regions, GPU instance types, and the fetcher of CVM prices (keys required).

``DescribeZoneInstanceConfigInfos`` lists every instance type sold in a region's zones with its
price, per charge type (POSTPAID_BY_HOUR, SPOTPAID, PREPAID). It needs a SecretId/SecretKey; the
request is signed with TC3-HMAC-SHA256 as Tencent Cloud API 3.0 documents ("Signature v3",
https://www.tencentcloud.com/document/product/267/37447).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from gpuplan.catalog.model import OfferRow
from gpuplan.catalog.providers.base import (
    Billing,
    Credentials,
    FetchResult,
    MissingCredentialsError,
    ProviderFacts,
    SharedStorage,
    SpotFacts,
    own_cloud_vm,
    regions,
)
from gpuplan.catalog.providers.common import InstanceFacts, key_list, offer, price
from gpuplan.errors import Phrase
from gpuplan.i18n import N_

if TYPE_CHECKING:
    from gpuplan.catalog.providers.http import Http

__all__ = ["FACTS", "FAMILIES", "FETCHER", "INSTANCE_DOC", "parse_quota_set", "tc3_authorization"]

HOST = "cvm.tencentcloudapi.com"
ENDPOINT = f"https://{HOST}/"
VERSION = "2017-03-12"
_BILLING_DOC = (
    "Tencent Cloud CVM docs 'Selecting a Billing Mode' (pay-as-you-go: billing granularity accurate to the "
    "second, a bill every hour on the dot; spot instances: calculated by the second, settled on the hour; "
    "no minimum stated; page last updated 2024-06-25), "
    "https://www.tencentcloud.com/document/product/213/15373, read 2026-12-06"
)

FACTS = ProviderFacts(
    provider="tencent",
    # tencentcloud: the Terraform provider's name; tencent_cloud also reads tencent-cloud and "Tencent
    # Cloud" (runs of '-', '_' and spaces read alike), the name the company writes
    aliases=("腾讯云", "tencentcloud", "tencent_cloud"),
    display_name="Tencent Cloud",
    kind="china_cloud",
    regions=regions(
        ("ap-guangzhou", "CN", "Guangzhou"),
        ("ap-shanghai", "CN", "Shanghai"),
        ("ap-nanjing", "CN", "Nanjing"),
        ("ap-beijing", "CN", "Beijing"),
        ("ap-chengdu", "CN", "Chengdu"),
        ("ap-chongqing", "CN", "Chongqing"),
        ("ap-hongkong", "HK", "Hong Kong"),
        ("ap-singapore", "SG", "Singapore"),
        ("ap-jakarta", "ID", "Jakarta"),
        ("ap-seoul", "KR", "Seoul"),
        ("ap-tokyo", "JP", "Tokyo"),
        ("ap-bangkok", "TH", "Bangkok"),
        ("na-siliconvalley", "US", "Silicon Valley"),
        ("na-ashburn", "US", "Virginia"),
        ("eu-frankfurt", "DE", "Frankfurt"),
        ("sa-saopaulo", "BR", "São Paulo"),
    ),
    regions_source="Tencent Cloud 'Regions and Availability Zones', "
    "https://www.tencentcloud.com/document/product/213/6091 "
    "(read 2026-12-01)",
    kubernetes="TKE",
    mainland_china_cloud=True,
    shared_storage=SharedStorage(service="CFS", csi_driver="com.tencent.cloud.csi.cfs"),
    # Pay-as-you-go (按量计费) and spot instances (竞价实例) alike: "The billing granularity is accurate
    # to second, and no up-front payment is required. A bill is generated every hour on the dot." and
    # spot "charges are calculated by the second and settlements are made on the hour". No minimum is
    # stated. The hourly bill is a settlement, not a rounding: a 1.17 h job is billed 1.17 h.
    billing=Billing(granularity_s=1, min_billing_s=None, as_of="2026-12-06", source=_BILLING_DOC),
    spot=SpotFacts(
        name="spot instances (竞价实例)",
        notice_s=120,
        published_rate=None,
        source="Tencent Cloud docs 'Spot Instances' (2-minute reclaim notice)",
        rate_note=N_("Tencent publishes no rate"),
    ),
    default_region=None,
    egress_storage_note="no COS or egress price found (billing method only)",
    offer_terms=(
        own_cloud_vm(_BILLING_DOC, interruptible=False, host_specs_known=True, network_known=False),
    ),
    price_sources=(f"{ENDPOINT} DescribeZoneInstanceConfigInfos {VERSION}",),
    credentials=("TENCENTCLOUD_SECRET_ID", "TENCENTCLOUD_SECRET_KEY"),
)

#: Where Tencent Cloud lists its GPU instance families (GPU, link).
INSTANCE_DOC = (
    "Tencent Cloud 'Instance Types' GPU families, https://www.tencentcloud.com/document/product/560/19701"
)
_DOC = INSTANCE_DOC

#: GPU families: the CVM family name -> (GPU id, GPU link). Counts, vCPUs and memory come from the API.
FAMILIES: dict[str, tuple[str, str]] = {
    "GN7": ("T4", "PCIe"),
    "GN10Xp": ("V100-SXM2-32GB", "NVLink"),
    "GN10X": ("V100-SXM2-32GB", "NVLink"),
    "GT4": ("A100-SXM4-40GB", "NVLink/NVSwitch"),
    "GNV4": ("A10", "PCIe"),
    "PNV4": ("A10", "PCIe"),
}


def _sign(key: bytes, msg: str) -> bytes:
    return hmac.new(key, msg.encode("utf-8"), hashlib.sha256).digest()


def tc3_authorization(
    *,
    secret_id: str,
    secret_key: str,
    service: str,
    payload: str,
    timestamp: int,
    headers: Mapping[str, str],
) -> str:
    """The ``Authorization`` header of a TC3-HMAC-SHA256 signed POST to ``/`` (no query string).

    ``headers`` are the headers to sign, names lower case (at least ``content-type`` and ``host``).
    """
    day = datetime.fromtimestamp(timestamp, timezone.utc).strftime("%Y-%m-%d")
    names = sorted(headers)
    canonical_headers = "".join(f"{n}:{headers[n].strip()}\n" for n in names)
    signed_headers = ";".join(names)
    payload_hash = hashlib.sha256(payload.encode("utf-8")).hexdigest()
    canonical_request = "\n".join(["POST", "/", "", canonical_headers, signed_headers, payload_hash])
    scope = f"{day}/{service}/tc3_request"
    request_hash = hashlib.sha256(canonical_request.encode("utf-8")).hexdigest()
    to_sign = "\n".join(["TC3-HMAC-SHA256", str(timestamp), scope, request_hash])
    k = _sign(_sign(_sign(("TC3" + secret_key).encode("utf-8"), day), service), "tc3_request")
    signature = hmac.new(k, to_sign.encode("utf-8"), hashlib.sha256).hexdigest()
    return (
        f"TC3-HMAC-SHA256 Credential={secret_id}/{scope}, "
        f"SignedHeaders={signed_headers}, Signature={signature}"
    )


def parse_quota_set(
    response: dict[str, Any], region: str, source: str, fetched_at: str, currency: str
) -> dict[tuple[str, str, str], tuple[InstanceFacts, list[Any]]]:
    """(region, zone, instance type) -> (facts, prices) of the GPU types a zone sells now."""
    out: dict[tuple[str, str, str], tuple[InstanceFacts, list[Any]]] = {}
    for item in response.get("Response", {}).get("InstanceTypeQuotaSet", []):
        family = item.get("InstanceFamily") or str(item.get("InstanceType", "")).split(".")[0]
        if family not in FAMILIES or item.get("Status") != "SELL":
            continue
        gpu, link = FAMILIES[family]
        count = float(item.get("GpuCount") or item.get("Gpu") or 0)
        if count <= 0:
            continue
        facts = InstanceFacts(
            gpu=gpu,
            gpu_count=count,
            vcpus=float(item["Cpu"]) if item.get("Cpu") else None,
            memory_gib=float(item["Memory"]) if item.get("Memory") else None,
            network_gbps=float(item["InstanceBandwidth"]) if item.get("InstanceBandwidth") else None,
            network_kind="TCP",
            interconnect=link,
            local_nvme_gb=None,
            source=f"{_DOC}; counts from {source}",
        )
        p = item.get("Price") or {}
        charge = item.get("InstanceChargeType")
        rows = []
        kw: dict[str, Any] = {
            "currency": currency,
            "as_of": fetched_at[:10],
            "source": source,
            "fetched_at": fetched_at,
        }
        if charge == "POSTPAID_BY_HOUR" and p.get("UnitPrice"):
            rows.append(price("on_demand", float(p["UnitPrice"]), **kw))
        elif charge == "SPOTPAID" and p.get("UnitPrice"):
            rows.append(price("spot", float(p["UnitPrice"]), **kw))
        elif charge == "PREPAID":
            # Subscription list prices: one month, and 1/3-year terms stored as their monthly share.
            if p.get("OriginalPrice"):
                rows.append(price("monthly", float(p["OriginalPrice"]), unit="month", **kw))
            for years, field in ((1, "OriginalPriceOneYear"), (3, "OriginalPriceThreeYear")):
                if p.get(field):
                    total = float(p[field])
                    term = {"years": years, "prepaid_total": total, "kind": "subscription"}
                    rows.append(
                        price(
                            f"reserved_{years}y",
                            round(total / (12 * years), 4),
                            unit="month",
                            term=term,
                            **kw,
                        )
                    )
        key = (region, str(item.get("Zone", "")), str(item.get("InstanceType", "")))
        if key in out:
            out[key][1].extend(rows)
        else:
            out[key] = (facts, rows)
    return out


class _Fetcher:
    def fetch(self, http: Http, credentials: Credentials, today: str) -> FetchResult:
        sid, skey = credentials.get("TENCENTCLOUD_SECRET_ID"), credentials.get("TENCENTCLOUD_SECRET_KEY")
        if not sid or not skey:
            raise MissingCredentialsError(
                Phrase(
                    N_("Tencent Cloud prices need keys: set {keys}"),
                    keys=key_list(("TENCENTCLOUD_SECRET_ID", "TENCENTCLOUD_SECRET_KEY")),
                )
            )
        currency = credentials.get("TENCENTCLOUD_CURRENCY") or "CNY"
        action = "DescribeZoneInstanceConfigInfos"
        found: dict[tuple[str, str, str], tuple[InstanceFacts, list[Any]]] = {}
        for region in FACTS.regions:
            for charge in ("POSTPAID_BY_HOUR", "SPOTPAID", "PREPAID"):
                body = {"Filters": [{"Name": "instance-charge-type", "Values": [charge]}]}
                payload = json.dumps(body, separators=(",", ":"), sort_keys=True)
                ts = int(datetime.now(timezone.utc).timestamp())
                signed = {
                    "content-type": "application/json; charset=utf-8",
                    "host": HOST,
                    "x-tc-action": action.lower(),
                }
                auth = tc3_authorization(
                    secret_id=sid,
                    secret_key=skey,
                    service="cvm",
                    payload=payload,
                    timestamp=ts,
                    headers=signed,
                )
                headers = {
                    "Authorization": auth,
                    "Content-Type": signed["content-type"],
                    "Host": HOST,
                    "X-TC-Action": action,
                    "X-TC-Timestamp": str(ts),
                    "X-TC-Version": VERSION,
                    "X-TC-Region": region.code,
                }
                response = http.parse_json(
                    http.request(
                        "POST", ENDPOINT, headers=headers, content=payload.encode(), vary=region.code
                    ),
                    ENDPOINT,
                )
                error = response.get("Response", {}).get("Error")
                if error:
                    raise RuntimeError(f"tencent {region.code}: {error.get('Code')}: {error.get('Message')}")
                for key, (facts, rows) in parse_quota_set(
                    response, region.code, f"{ENDPOINT} {action}", today, currency
                ).items():
                    if key in found:
                        found[key][1].extend(rows)
                    else:
                        found[key] = (facts, rows)
        out: list[OfferRow] = [
            offer("tencent", region, itype, facts, rows, zone=zone)
            for (region, zone, itype), (facts, rows) in sorted(found.items())
            if rows
        ]
        return FetchResult(rows=tuple(out), sources=(ENDPOINT,))


FETCHER = _Fetcher()
