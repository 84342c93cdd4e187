"""Huawei Cloud BSS list prices: the GPU flavors gpuplan knows, the signed rating calls, their parsing.

``ListOnDemandResourceRatings`` (hourly) and ``ListRateOnPeriodDetail`` (1 month, 1 and 3 years
prepaid) on ``bss.myhuaweicloud.com`` (China site, CNY; ``HUAWEICLOUD_BSS_ENDPOINT`` points at
``https://bss-intl.myhuaweicloud.com`` for the international site), signed with APIG
``SDK-HMAC-SHA256``. Request and response fields: the huaweicloudsdkbss models (PyPI) (shapes built
from the SDK, not captured responses).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from gpuplan.catalog.model import OfferRow, PriceRow
from gpuplan.catalog.providers.base import Credentials, FetchResult, MissingCredentialsError, Region
from gpuplan.catalog.providers.common import InstanceFacts, ethernet_instance, key_list, offer, price
from gpuplan.catalog.providers.signing import huawei_authorization
from gpuplan.errors import DataError, Phrase
from gpuplan.i18n import N_

if TYPE_CHECKING:
    from gpuplan.catalog.providers.http import Http

__all__ = ["INSTANCES", "BssFetcher", "on_demand_price", "period_price"]

DEFAULT_ENDPOINT = "https://bss.myhuaweicloud.com"
ON_DEMAND_PATH = "/v2/bills/ratings/on-demand-resources"
PERIOD_PATH = "/v2/bills/ratings/period-resources/subscribe-rate"

_DOC = (
    "Huawei Cloud ECS docs 'GPU-accelerated ECSs' (en-us_topic_0097289624, "
    "https://support.huaweicloud.com/intl/en-us/productdesc-ecs/en-us_topic_0097289624.html; read 2026-12-01)"
)


def _i(gpu: str, n: float, vcpus: float, mem: float, net: float, link: str | None) -> InstanceFacts:
    # Network: the doc's maximum of "max/assured" Gbit/s (p2s.2xlarge.8: 10/4 -> 10); plain VPC
    # Ethernet (no RDMA flavor among these).
    return ethernet_instance(_DOC, gpu, n, vcpus, mem, net, link)


#: GPU flavors with their facts. pi2 is left out: its GPU is not verified in any source read.
INSTANCES: dict[str, InstanceFacts] = {
    "p3.2xlarge.8": _i("A100-SXM4-80GB", 1, 8, 64, 10, "PCIe"),
    "p3.16xlarge.8": _i("A100-SXM4-80GB", 8, 64, 512, 36, None),  # GPU link: the doc states none
    "p2s.2xlarge.8": _i("V100-PCIE-32GB", 1, 8, 64, 10, "PCIe"),
    "p2s.16xlarge.8": _i("V100-PCIE-32GB", 8, 64, 512, 30, "PCIe"),
    "p2v.2xlarge.8": _i("V100-SXM2-16GB", 1, 8, 64, 10, "PCIe"),
    "p2v.16xlarge.8": _i("V100-SXM2-16GB", 8, 64, 512, 30, "NVLink"),
    "g6.4xlarge.4": _i("T4", 1, 16, 64, 25, "PCIe"),
}

#: BSS ``measure_id`` -> divisor to yuan (1 = 元, 2 = 角, 3 = 分).
_MEASURE = {1: 1.0, 2: 10.0, 3: 100.0}
#: (period_type, period_num) -> pricing: 2 = month, 3 = year.
PERIODS: tuple[tuple[str, int, int], ...] = (
    ("monthly", 2, 1),
    ("reserved_1y", 3, 1),
    ("reserved_3y", 3, 3),
)


def _product(flavor: str, region: str) -> dict[str, Any]:
    return {
        "id": "1",
        "cloud_service_type": "hws.service.type.ec2",
        "resource_type": "hws.resource.type.vm",
        "resource_spec": f"{flavor}.linux",
        "region": region,
        "subscription_num": 1,
    }


def _amount(value: Any, measure_id: Any) -> float | None:
    if value in (None, ""):
        return None
    amount = float(value) / _MEASURE.get(int(measure_id or 1), 1.0)
    return amount if amount > 0 else None


def on_demand_price(response: dict[str, Any]) -> tuple[float, str] | None:
    """(list price per hour, currency) of a one-product ListOnDemandResourceRatings answer."""
    amount = _amount(response.get("official_website_amount"), response.get("measure_id"))
    if amount is None:
        return None
    return amount, str(response.get("currency") or "CNY")


def period_price(response: dict[str, Any]) -> tuple[float, str] | None:
    """(list price of the whole period, currency) of a ListRateOnPeriodDetail answer."""
    official = response.get("official_website_rating_result") or {}
    amount = _amount(official.get("official_website_amount"), official.get("measure_id"))
    if amount is None:
        return None
    return amount, str(response.get("currency") or "CNY")


class BssFetcher:
    def __init__(self, *, regions: Sequence[Region], keys: tuple[str, ...]) -> None:
        self.regions = tuple(regions)
        self.keys = keys
        self._first_error: str | None = None

    def _call(
        self, http: Http, creds: dict[str, str], endpoint: str, path: str, body: dict[str, Any]
    ) -> dict[str, Any] | None:
        content = json.dumps(body, separators=(",", ":"), sort_keys=True).encode()
        host = endpoint.split("://", 1)[-1].rstrip("/")
        headers = {
            "Content-Type": "application/json",
            "Host": host,
            "X-Sdk-Date": datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ"),
        }
        headers["Authorization"] = huawei_authorization(
            access_key=creds["ak"],
            secret_key=creds["sk"],
            method="POST",
            path=path,
            query="",
            headers={k: v for k, v in headers.items()},
            body=content,
        )
        raw = http.request(
            "POST", endpoint.rstrip("/") + path, headers=headers, content=content, client_errors=(400, 404)
        )
        doc = http.parse_json(raw, endpoint.rstrip("/") + path)
        if doc.get("error_code"):
            # Most often the flavor is not sold in that region (CBC.* errors): left out, and the
            # first error is kept to say why when every request was refused (wrong project id …).
            self._first_error = self._first_error or f"{doc.get('error_code')}: {doc.get('error_msg')}"
            return None
        return doc if isinstance(doc, dict) else None

    def fetch(self, http: Http, credentials: Credentials, today: str) -> FetchResult:
        missing = [k for k in self.keys if not credentials.get(k)]
        if missing:
            raise MissingCredentialsError(
                Phrase(N_("Huawei Cloud prices need keys (BSS ratings): set {keys}"), keys=key_list(missing))
            )
        ak, sk, project = (str(credentials.get(k)) for k in self.keys)
        creds = {"ak": ak, "sk": sk}
        endpoint = credentials.get("HUAWEICLOUD_BSS_ENDPOINT") or DEFAULT_ENDPOINT
        on_demand_url = endpoint.rstrip("/") + ON_DEMAND_PATH
        period_url = endpoint.rstrip("/") + PERIOD_PATH
        kw: dict[str, Any] = {"as_of": today[:10], "fetched_at": today}
        self._first_error = None
        rows: list[OfferRow] = []
        refused = 0
        for region in self.regions:
            for flavor, facts in INSTANCES.items():
                prices: list[PriceRow] = []
                product = {**_product(flavor, region.code), "usage_factor": "Duration", "usage_value": 1}
                product["usage_measure_id"] = 4  # hour
                body = {"project_id": project, "inquiry_precision": 0, "product_infos": [product]}
                answer = self._call(http, creds, endpoint, ON_DEMAND_PATH, body)
                hourly = on_demand_price(answer) if answer else None
                if hourly is None:
                    refused += 1
                    continue
                prices.append(price("on_demand", hourly[0], currency=hourly[1], source=on_demand_url, **kw))
                for pricing, period_type, period_num in PERIODS:
                    product = {**_product(flavor, region.code), "period_type": period_type}
                    product["period_num"] = period_num
                    answer = self._call(
                        http,
                        creds,
                        endpoint,
                        PERIOD_PATH,
                        {"project_id": project, "product_infos": [product]},
                    )
                    total = period_price(answer) if answer else None
                    if total is None:
                        continue
                    if pricing == "monthly":
                        prices.append(
                            price(
                                "monthly",
                                total[0],
                                currency=total[1],
                                unit="month",
                                source=period_url,
                                term={"billing": "monthly subscription"},
                                **kw,
                            )
                        )
                    else:
                        prices.append(
                            price(
                                pricing,
                                round(total[0] / (12 * period_num), 4),
                                currency=total[1],
                                unit="month",
                                source=period_url,
                                term={"years": period_num, "prepaid_total": total[0], "kind": "subscription"},
                                **kw,
                            )
                        )
                rows.append(offer("huawei", region.code, flavor, facts, prices))
        if not rows and self._first_error:
            raise DataError.worded(
                N_("huawei: BSS refused every rating request ({error})"), error=self._first_error
            )
        notes = (
            (Phrase(N_("{n} region x flavor pairs not rated (not sold there)"), n=refused),)
            if refused
            else ()
        )
        return FetchResult(rows=tuple(rows), sources=(on_demand_url, period_url), notes=notes)
