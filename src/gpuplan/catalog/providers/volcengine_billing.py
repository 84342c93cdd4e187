"""Volcano Engine list prices through the billing OpenAPI (keys required), and the GPU types known.

``QueryPriceForPayAsYouGo`` (hourly) and ``QueryPriceForSubscription`` (1, 12 and 36 months
prepaid) on ``open.volcengineapi.com`` (Service ``billing``, Version ``2022-01-01``, signed with
Volcano Engine's ``HMAC-SHA256``, :func:`gpuplan.catalog.providers.signing.volc_authorization`).
The list price is ``TotalOriginalAmount`` (``TotalDiscountAmount`` is the account's).

NB: the request's ``ChargeItemCode`` follows the convention ``<family>_<size>_<region>`` that
cvm-get-price uses; Volcano Engine does not publish these codes (the shared
``volcengine_billing_query_price_for_pay_as_you_go_shape.json`` is a shape built from the SDK's
field names, marked UNVERIFIED). A code the API does not know answers an error for that item
only; such items are counted in the refresh line, never priced by guess.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from gpuplan.catalog.model import OfferRow, PriceRow
from gpuplan.catalog.providers.base import Credentials, FetchResult, MissingCredentialsError, Region
from gpuplan.catalog.providers.common import InstanceFacts, key_list, offer, price
from gpuplan.catalog.providers.signing import canonical_query, sha256_hex, volc_authorization
from gpuplan.errors import DataError, Phrase
from gpuplan.i18n import N_

if TYPE_CHECKING:
    from gpuplan.catalog.providers.http import Http

__all__ = ["INSTANCES", "BillingFetcher", "charge_item_code", "total_original_amount"]

HOST = "open.volcengineapi.com"
VERSION = "2022-01-01"
SERVICE = "billing"
#: The billing API is served from one region; the instance's region is in the charge-item code.
SIGNING_REGION = "cn-beijing"
_FATAL = ("InvalidAccessKey", "SignatureDoesNotMatch", "InvalidCredential", "AccessDenied")

#: GPU types with their facts. Only one is known here: the ini2/g1v families were not found in the
#: sources read, and the A800 types only in UNVERIFIED user documents (the shipped snapshot carries
#: the ECS one, ecs.ebmhpcpni2l.32xlarge, from them).
INSTANCES: dict[str, InstanceFacts] = {
    "ecs.gni2.3xlarge": InstanceFacts(
        gpu="A10",
        gpu_count=1,
        vcpus=14,
        memory_gib=56,
        network_gbps=None,
        network_kind=None,
        interconnect="PCIe",
        local_nvme_gb=None,
        source="a third-party README naming the type's specs (UNVERIFIED: no Volcano Engine page found "
        "that states them; read 2026-12-01)",
    ),
}


def charge_item_code(instance_type: str, region: str) -> str:
    """``ecs.gni2.3xlarge`` in ``cn-beijing`` -> ``ecs.gni2_3xlarge_cn-beijing`` (unverified)."""
    family, _, size = instance_type.rpartition(".")
    return f"{family}_{size}_{region}"


def total_original_amount(response: dict[str, Any]) -> tuple[float, str] | None:
    """(list price, currency) of a QueryPriceFor* answer, or None."""
    result = response.get("Result") or {}
    value = result.get("TotalOriginalAmount")
    if value in (None, "") or float(value) <= 0:
        return None
    return float(value), str(result.get("Currency") or "CNY")


class BillingFetcher:
    def __init__(self, *, regions: Sequence[Region], keys: tuple[str, ...]) -> None:
        self.regions = tuple(regions)
        self.keys = keys

    def _call(
        self, http: Http, ak: str, sk: str, action: str, payload: dict[str, Any]
    ) -> dict[str, Any] | None:
        body = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
        query = canonical_query({"Action": action, "Version": VERSION})
        headers = {
            "Content-Type": "application/json",
            "Host": HOST,
            "X-Content-Sha256": sha256_hex(body),
            "X-Date": datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ"),
        }
        headers["Authorization"] = volc_authorization(
            access_key=ak,
            secret_key=sk,
            region=SIGNING_REGION,
            service=SERVICE,
            method="POST",
            query=query,
            headers={k: v for k, v in headers.items()},
            body=body,
        )
        raw = http.request(
            "POST", f"https://{HOST}/?{query}", headers=headers, content=body, client_errors=(400, 403, 404)
        )
        doc = http.parse_json(raw, f"https://{HOST}/?{query}")
        error = (doc.get("ResponseMetadata") or {}).get("Error") or {}
        if error:
            code = str(error.get("Code") or "")
            if code.startswith(_FATAL):
                raise DataError.worded(
                    N_("volcengine: the billing API refused the keys ({code}: {message})"),
                    code=code,
                    message=error.get("Message"),
                )
            return None
        return doc if isinstance(doc, dict) else None

    def fetch(self, http: Http, credentials: Credentials, today: str) -> FetchResult:
        missing = [k for k in self.keys if not credentials.get(k)]
        if missing:
            raise MissingCredentialsError(
                Phrase(
                    N_("Volcano Engine prices need keys (billing API): set {keys}"), keys=key_list(missing)
                )
            )
        ak, sk = (str(credentials.get(k)) for k in self.keys)
        source = f"https://{HOST} billing {VERSION}"
        kw: dict[str, Any] = {"as_of": today[:10], "fetched_at": today}
        rows: list[OfferRow] = []
        refused = 0
        for region in self.regions:
            for itype, facts in INSTANCES.items():
                config = {
                    "ConfigurationCode": itype,
                    "ChargeItemCode": charge_item_code(itype, region.code),
                    "Quantity": 1,
                    "Count": "1",
                }
                # UseDuration 1 = one hour of pay-as-you-go (the shape sample's request).
                answer = self._call(
                    http,
                    ak,
                    sk,
                    "QueryPriceForPayAsYouGo",
                    {"Product": "ECS", "ConfigList": [{**config, "UseDuration": 1}]},
                )
                hourly = total_original_amount(answer) if answer else None
                if hourly is None:
                    refused += 1
                    continue
                prices: list[PriceRow] = [
                    price(
                        "on_demand",
                        hourly[0],
                        currency=hourly[1],
                        source=f"{source} QueryPriceForPayAsYouGo",
                        **kw,
                    )
                ]
                for months in (1, 12, 36):
                    answer = self._call(
                        http,
                        ak,
                        sk,
                        "QueryPriceForSubscription",
                        {"Product": "ECS", "ConfigList": [{**config, "UseDuration": months}]},
                    )
                    total = total_original_amount(answer) if answer else None
                    if total is None:
                        continue
                    src = f"{source} QueryPriceForSubscription"
                    if months == 1:
                        term: dict[str, Any] = {"billing": "monthly subscription"}
                        prices.append(
                            price(
                                "monthly",
                                total[0],
                                currency=total[1],
                                unit="month",
                                term=term,
                                source=src,
                                **kw,
                            )
                        )
                    else:
                        years = months // 12
                        term = {"years": years, "prepaid_total": total[0], "kind": "subscription"}
                        prices.append(
                            price(
                                f"reserved_{years}y",
                                round(total[0] / months, 4),
                                currency=total[1],
                                unit="month",
                                term=term,
                                source=src,
                                **kw,
                            )
                        )
                rows.append(offer("volcengine", region.code, itype, facts, prices))
        notes = (
            (
                Phrase(
                    N_(
                        "{n} region x type pairs not priced (charge-item code unknown to the API or not sold)"
                    ),
                    n=refused,
                ),
            )
            if refused
            else ()
        )
        return FetchResult(rows=tuple(rows), sources=(f"https://{HOST}",), notes=notes)
