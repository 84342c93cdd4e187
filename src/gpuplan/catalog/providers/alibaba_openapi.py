"""Alibaba Cloud ECS OpenAPI with the user's keys: mainland hourly, 包年包月 and spot prices.

Called per mainland region (``ecs.<region>.aliyuncs.com``, RPC API 2014-05-26, CNY on the China
site), signed with ``ACS3-HMAC-SHA256`` (:func:`gpuplan.catalog.providers.signing.acs3_authorization`):

- ``DescribePrice`` per instance type: ``PriceUnit=Hour`` (pay-as-you-go), ``Month`` ×1 and
  ``Year`` ×1 and ×3 (subscription). The list price is the ``instanceType`` line's
  ``OriginalPrice`` (``TradePrice`` carries the account's discounts; the system disk and image
  lines are left out, as on the other clouds).
- ``DescribeSpotPriceHistory`` per instance type: the latest spot price per zone.
- ``DescribeSpotAdvice`` per region: the zone's interruption-rate band (``InterruptRateDesc``,
  e.g. ``0-3%``; Alibaba's figure for the trailing 30 days, read as a monthly band).

BSS ``QuerySkuPriceList`` would list hourly prices in bulk, but its China-site commodity code is
not documented in the sources read (only ``ecs_intl`` is); the per-type ``DescribePrice`` is.
Response shapes: the example responses recorded in sparecores-crawler (PyPI, ``sc_crawler/vendors/
_alibaba.py``); the spot-history one is built from the SDK's field names.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from gpuplan.catalog.model import OfferRow, PriceRow
from gpuplan.catalog.providers.common import InstanceFacts, offer, price
from gpuplan.catalog.providers.signing import acs3_authorization, canonical_query, sha256_hex
from gpuplan.errors import DataError
from gpuplan.i18n import N_

if TYPE_CHECKING:
    from gpuplan.catalog.providers.http import Http

__all__ = ["KEYS", "OpenApiFetch", "instance_list_price", "latest_spot_by_zone", "spot_bands"]

KEYS = ("ALIBABA_CLOUD_ACCESS_KEY_ID", "ALIBABA_CLOUD_ACCESS_KEY_SECRET")
VERSION = "2014-05-26"
#: Error codes that mean the keys themselves were refused: the whole provider fails.
_FATAL = ("InvalidAccessKeyId", "SignatureDoesNotMatch", "IncompleteSignature", "Forbidden.RAM", "Forbidden")


def instance_list_price(response: Mapping[str, Any]) -> tuple[float, str] | None:
    """(list price of the instance alone, currency) of a DescribePrice answer, or None."""
    p = (response.get("PriceInfo") or {}).get("Price") or {}
    details = (p.get("DetailInfos") or {}).get("DetailInfo") or []
    amounts = [d.get("OriginalPrice") for d in details if d.get("Resource") == "instanceType"]
    amount = amounts[0] if amounts else p.get("OriginalPrice")
    if amount is None or float(amount) <= 0:
        return None
    return float(amount), str(p.get("Currency") or "CNY")


def latest_spot_by_zone(response: Mapping[str, Any]) -> dict[str, tuple[float, str]]:
    """Zone -> (latest spot price, its timestamp) of a DescribeSpotPriceHistory answer."""
    out: dict[str, tuple[float, str]] = {}
    for item in (response.get("SpotPrices") or {}).get("SpotPriceType") or []:
        zone, value, ts = item.get("ZoneId"), item.get("SpotPrice"), str(item.get("Timestamp") or "")
        if not zone or value is None or float(value) <= 0:
            continue
        if zone not in out or ts > out[zone][1]:
            out[zone] = (float(value), ts)
    return out


def spot_bands(response: Mapping[str, Any]) -> dict[tuple[str, str], str]:
    """(zone, instance type) -> interruption band (``0-3%``) of a DescribeSpotAdvice answer."""
    out: dict[tuple[str, str], str] = {}
    for z in (response.get("AvailableSpotZones") or {}).get("AvailableSpotZone") or []:
        for r in (z.get("AvailableSpotResources") or {}).get("AvailableSpotResource") or []:
            if z.get("ZoneId") and r.get("InstanceType") and r.get("InterruptRateDesc"):
                out[(str(z["ZoneId"]), str(r["InstanceType"]))] = str(r["InterruptRateDesc"])
    return out


def _chunks(items: list[str], size: int) -> Iterable[list[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


class OpenApiFetch:
    """One refresh's signed calls (keys and time held for its duration)."""

    def __init__(self, http: Http, access_key_id: str, access_key_secret: str, now: str) -> None:
        self.http = http
        self.key_id = access_key_id
        self.secret = access_key_secret
        self.now = now
        self.skipped = 0

    def call(
        self, region: str, action: str, params: Mapping[str, str], volatile: Mapping[str, str] | None = None
    ) -> dict[str, Any] | None:
        """The JSON answer, or None when the API refuses this item (type not sold there).

        ``volatile`` parameters (a time window) are sent but left out of the saved response's key,
        so that ``--from`` replays it on another day.
        """
        host = f"ecs.{region}.aliyuncs.com"
        stable = {"RegionId": region, **params}
        query = canonical_query({**stable, **(volatile or {})})
        headers = {
            "host": host,
            "x-acs-action": action,
            "x-acs-content-sha256": sha256_hex(b""),
            "x-acs-date": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "x-acs-signature-nonce": uuid.uuid4().hex,
            "x-acs-version": VERSION,
        }
        headers["Authorization"] = acs3_authorization(
            access_key_id=self.key_id,
            access_key_secret=self.secret,
            method="POST",
            query=query,
            headers={k: v for k, v in headers.items()},
            body=b"",
        )
        url = f"https://{host}/?{query}"
        key_url = f"https://{host}/?{canonical_query(stable)}" if volatile else None
        body = self.http.request("POST", url, headers=headers, key_url=key_url, client_errors=(400, 403, 404))
        doc = self.http.parse_json(body, url)
        code = str(doc.get("Code") or "")
        if code and "PriceInfo" not in doc and "SpotPrices" not in doc and "AvailableSpotZones" not in doc:
            if code.startswith(_FATAL):
                raise DataError.worded(
                    N_("alibaba: the OpenAPI refused the keys ({code}: {message})"),
                    code=code,
                    message=doc.get("Message"),
                )
            self.skipped += 1
            return None
        return doc if isinstance(doc, dict) else None

    def region_offers(self, region: str, instances: Mapping[str, InstanceFacts]) -> list[OfferRow]:
        source = f"https://ecs.{region}.aliyuncs.com DescribePrice {VERSION}"
        kw: dict[str, Any] = {"as_of": self.now[:10], "source": source, "fetched_at": self.now}
        rows: list[OfferRow] = []
        for itype, facts in instances.items():
            # The quote includes a system disk; ESSD is named because the default category
            # (cloud_efficiency) is refused by newer GPU families. Its line is not in the price.
            base = {
                "ResourceType": "instance",
                "InstanceType": itype,
                "InstanceNetworkType": "vpc",
                "SystemDisk.Category": "cloud_essd",
            }
            prices: list[PriceRow] = []
            hourly = self._price(region, {**base, "PriceUnit": "Hour", "Period": "1"})
            if hourly is None:
                continue  # not sold in this region
            prices.append(price("on_demand", hourly[0], currency=hourly[1], **kw))
            month = self._price(region, {**base, "PriceUnit": "Month", "Period": "1"})
            if month is not None:
                monthly_term: dict[str, Any] = {"billing": "monthly subscription"}
                prices.append(
                    price("monthly", month[0], currency=month[1], unit="month", term=monthly_term, **kw)
                )
            for years in (1, 3):
                total = self._price(region, {**base, "PriceUnit": "Year", "Period": str(years)})
                if total is not None:
                    term: dict[str, Any] = {"years": years, "prepaid_total": total[0], "kind": "subscription"}
                    monthly = round(total[0] / (12 * years), 4)
                    prices.append(
                        price(f"reserved_{years}y", monthly, currency=total[1], unit="month", term=term, **kw)
                    )
            rows.append(offer("alibaba", region, itype, facts, prices))
        rows.extend(self._spot(region, instances, currency=rows[0].prices[0].currency if rows else "CNY"))
        return rows

    def _price(self, region: str, params: Mapping[str, str]) -> tuple[float, str] | None:
        doc = self.call(region, "DescribePrice", params)
        return instance_list_price(doc) if doc else None

    def _spot(self, region: str, instances: Mapping[str, InstanceFacts], currency: str) -> list[OfferRow]:
        bands: dict[tuple[str, str], str] = {}
        for chunk in _chunks(sorted(instances), 10):  # InstanceTypes.N: N = 1..10
            params = {f"InstanceTypes.{i}": t for i, t in enumerate(chunk, start=1)}
            advice = self.call(region, "DescribeSpotAdvice", params)
            bands.update(spot_bands(advice) if advice else {})
        # The history's window must be given (at most 30 days); one day back from the fetch time.
        end = datetime.fromisoformat(self.now.replace("Z", "+00:00"))
        start = end - timedelta(days=1)
        window = {
            "StartTime": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "EndTime": end.strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        source = f"https://ecs.{region}.aliyuncs.com DescribeSpotPriceHistory {VERSION}"
        out: list[OfferRow] = []
        for itype, facts in instances.items():
            params = {"InstanceType": itype, "NetworkType": "vpc", "OSType": "linux"}
            history = self.call(region, "DescribeSpotPriceHistory", params, volatile=window)
            if not history:
                continue
            cur = str(history.get("Currency") or currency)
            for zone, (amount, ts) in sorted(latest_spot_by_zone(history).items()):
                band = bands.get((zone, itype))
                p = price(
                    "spot",
                    amount,
                    currency=cur,
                    as_of=(ts or self.now)[:10],
                    source=source + (f" (band: DescribeSpotAdvice {region})" if band else ""),
                    fetched_at=self.now,
                    band=band,
                )
                out.append(offer("alibaba", region, itype, facts, [p], zone=zone))
        return out
