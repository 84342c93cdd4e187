"""Price history of an instance type: every dated price the catalog holds for it (prices are
appended, never overwritten), with the user's discount applied as everywhere else."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpuplan.catalog.dates import PriceAge
from gpuplan.catalog.discounts import discounted, discounts, matching
from gpuplan.catalog.model import HOURS_PER_MONTH
from gpuplan.catalog.wording import not_found
from gpuplan.errors import NotFoundError, Phrase
from gpuplan.i18n.messages import N_

if TYPE_CHECKING:
    from gpuplan.catalog.store import Store

__all__ = ["IMPORT_KINDS", "HistoryPoint", "price_history"]

#: How a price entered the catalog (:attr:`HistoryPoint.imported_by`, the import's kind): the
#: shipped snapshot, a refresh from the providers' APIs, a SkyPilot or gpuhunt file. Stored and
#: written to --json as they are; catalog messages, so that the table names them in the user's
#: language (an English table shows them as stored).
IMPORT_KINDS = (
    N_("snapshot-offers"),
    N_("snapshot"),
    N_("refresh"),
    N_("skypilot"),
    N_("gpuhunt"),
)


@dataclass(frozen=True, kw_only=True)
class HistoryPoint:
    provider: str
    region: str
    zone: str | None
    instance_type: str
    gpu: str = ""
    """The offer's GPU (canonical id): its launch bounds an undated price's age."""
    pricing: str
    amount: float
    currency: str
    unit: str
    as_of: str
    source: str
    confidence: str
    fetched_at: str | None
    imported_by: str
    """How the price entered the catalog: ``snapshot-offers``, ``refresh``, ``skypilot`` …"""
    price_usd_per_hour: float | None
    """After the user's discount; None when the currency has no rate."""
    discount_percent: float | None
    age: PriceAge
    """How old the price is on the day the catalog was read, against its staleness limit (the rule
    an offer's price is aged by: :meth:`Store.age_of`)."""


def price_history(store: Store, instance_type: str, region: str | None = None) -> list[HistoryPoint]:
    """Every price of ``instance_type`` (in ``region`` when given), oldest first.

    NotFoundError (with the nearest instance types) when the catalog has no such instance type.
    """
    params = {"itype": instance_type}
    where = "o.instance_type = :itype"
    if region is not None:
        where += " AND o.region = :region"
        params["region"] = region
    rows = store._query(
        "SELECT o.provider, o.region, o.zone, o.instance_type, p.pricing, p.amount, p.currency, p.unit, "
        "p.as_of, p.source, p.confidence, p.fetched_at, i.kind, o.gpu FROM prices p "
        "JOIN offers o ON o.id = p.offer_id JOIN imports i ON i.id = p.import_id "
        f"WHERE {where} ORDER BY p.as_of, p.id",
        params,
    )
    if not rows:
        known = [r.instance_type for r in store._query("SELECT DISTINCT instance_type FROM offers")]
        if instance_type in known and region is not None:
            regions = [
                r.region
                for r in store._query(
                    "SELECT DISTINCT region FROM offers WHERE instance_type = :i ORDER BY region",
                    {"i": instance_type},
                )
            ]
            raise not_found(
                Phrase(N_("region of {instance_type}"), instance_type=instance_type), region, regions
            )
        raise NotFoundError("instance type", instance_type, known)
    found = discounts(store)
    rates: dict[str, float | None] = {}
    out = []
    for r in rows:
        if r.currency not in rates:
            rate = store.find_exchange_rate(r.currency)
            rates[r.currency] = rate.usd_per_unit if rate else None
        hourly = r.amount / HOURS_PER_MONTH if r.unit == "month" else r.amount
        usd = hourly * rates[r.currency] if rates[r.currency] is not None else None
        d = matching(found, r.provider, r.instance_type, r.pricing) if discounted(r.kind) else None
        if d is not None and usd is not None:
            usd *= 1 - d.percent / 100
        out.append(
            HistoryPoint(
                provider=r.provider,
                region=r.region,
                zone=r.zone or None,
                instance_type=r.instance_type,
                gpu=r.gpu,
                pricing=r.pricing,
                amount=r.amount,
                currency=r.currency,
                unit=r.unit,
                as_of=r.as_of,
                source=r.source,
                confidence=r.confidence,
                fetched_at=r.fetched_at,
                imported_by=r.kind,
                price_usd_per_hour=usd,
                discount_percent=d.percent if d is not None and usd is not None else None,
                age=store.age_of(r.as_of, r.gpu),
            )
        )
    return out
