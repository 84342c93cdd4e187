"""Per-provider facts of the store: billing granularity, compliance labels, internet egress and
inter-region transfer tiers, object/block storage prices and licence fees.

Each is dated and sourced, or unknown (None) with a reason. A refreshed fact set supersedes the older
one (newest import wins); the older rows stay as history. A region without rows falls back to the
provider's default-region or generic rows, flagged ``fallback`` with a reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from gpuplan.catalog import schema as t
from gpuplan.catalog.model import (
    ANY_REGION,
    HOURS_PER_MONTH,
    ComplianceLabel,
    LicenceFee,
    StoragePrice,
    TransferTier,
)
from gpuplan.catalog.providers import PROVIDERS
from gpuplan.i18n import _

if TYPE_CHECKING:
    from sqlalchemy import Engine

__all__ = [
    "compliance_details",
    "egress_tiers",
    "inter_region_price",
    "licence_fees",
    "storage_prices",
]


def compliance_details(engine: Engine, provider: str) -> list[ComplianceLabel]:
    """The compliance labels of a provider with their sources."""
    p = PROVIDERS.cast(provider)
    c = t.compliance_labels.c
    with engine.connect() as conn:
        rows = conn.execute(
            select(c.provider, c.region, c.label, c.as_of, c.source, c.confidence)
            .where(c.provider == p)
            .order_by(c.id)
        ).all()
    return [
        ComplianceLabel(
            provider=r.provider,
            region=r.region,
            label=r.label,
            as_of=r.as_of,
            source=r.source,
            confidence=r.confidence,
        )
        for r in rows
    ]


# ---------------------------------------------------------------- transfer, storage, licences


def _transfer(engine: Engine, provider: str, region: str, kind: str) -> list[TransferTier]:
    p = PROVIDERS.cast(provider)
    c = t.transfer_prices.c
    cols = (
        c.region,
        c.start_gb,
        c.end_gb,
        c.price_per_gb,
        c.currency,
        c.quantity_unit,
        c.as_of,
        c.source,
        c.confidence,
        c.description,
        c.is_default_region,
        c.reason,
        c.import_id,
    )
    with engine.connect() as conn:
        base = select(*cols).where(c.provider == p, c.kind == kind).order_by(c.start_gb, c.id)
        rows = _latest_import(conn.execute(base.where(c.region == region)).all())
        fallback = False
        if not rows:
            fallback = True
            rows = _latest_import(conn.execute(base.where(c.is_default_region == 1)).all())
    if fallback and rows:
        # Default rows of several regions would mix tier sets: keep one region's (the first by name).
        first = min(r.region for r in rows)
        rows = [r for r in rows if r.region == first]
    return [
        TransferTier(
            provider=p,
            region=r.region,
            kind=kind,
            start_gb=r.start_gb,
            end_gb=r.end_gb,
            price_per_gb=r.price_per_gb,
            currency=r.currency,
            quantity_unit=r.quantity_unit,
            as_of=r.as_of,
            source=r.source,
            confidence=r.confidence,
            description=r.description,
            fallback=fallback,
            reason=_fallback_reason(r.reason, fallback, region, r.region),
        )
        for r in rows
    ]


def egress_tiers(engine: Engine, provider: str, region: str) -> list[TransferTier]:
    """Internet egress tiers of ``region``, ordered by tier start.

    Without rows for ``region``, the provider's generic/default-region rows, with
    ``fallback=True`` and a ``reason``; a tier whose price is unknown has ``price_per_gb=None``.
    """
    return _transfer(engine, provider, region, "internet_egress")


def inter_region_price(engine: Engine, provider: str, region: str) -> TransferTier | None:
    """Price of moving data from ``region`` to another region of the provider; None if unknown."""
    tiers = _transfer(engine, provider, region, "inter_region")
    return tiers[0] if tiers else None


def storage_prices(engine: Engine, provider: str, region: str) -> list[StoragePrice]:
    """Object and block storage prices of ``region`` (default-region rows as fallback)."""
    p = PROVIDERS.cast(provider)
    c = t.storage_prices.c
    cols = (
        c.region,
        c.kind,
        c.storage_class,
        c.price,
        c.currency,
        c.unit,
        c.as_of,
        c.source,
        c.confidence,
        c.notes,
        c.reason,
        c.import_id,
    )
    with engine.connect() as conn:
        base = select(*cols).where(c.provider == p).order_by(c.kind.desc(), c.id)
        rows = _latest_import(conn.execute(base.where(c.region == region)).all())
        fallback = False
        if not rows:
            fallback = True
            rows = _latest_import(conn.execute(base.where(c.is_default_region == 1)).all())
    out = []
    for r in rows:
        per_month: float | None = None
        if r.price is not None:
            per_month = r.price * HOURS_PER_MONTH if r.unit == "GB-hour" else r.price
        out.append(
            StoragePrice(
                provider=p,
                region=r.region,
                kind=r.kind,
                storage_class=r.storage_class,
                price=r.price,
                currency=r.currency,
                unit=r.unit,
                price_per_gb_month=per_month,
                as_of=r.as_of,
                source=r.source,
                confidence=r.confidence,
                notes=r.notes,
                fallback=fallback,
                reason=_fallback_reason(r.reason, fallback, region, r.region),
            )
        )
    return out


def licence_fees(engine: Engine, provider: str, region: str) -> list[LicenceFee]:
    """Licence fees (or their known absence, or unknown with a reason) for a provider/region."""
    p = PROVIDERS.cast(provider)
    c = t.licence_fees.c
    with engine.connect() as conn:
        rows = conn.execute(
            select(
                c.region,
                c.item,
                c.applies,
                c.price,
                c.currency,
                c.unit,
                c.as_of,
                c.source,
                c.reason,
                c.import_id,
            )
            .where(c.provider == p, c.region.in_((region, ANY_REGION)))
            .order_by(c.id)
        ).all()
        rows = _latest_import(rows)
    return [
        LicenceFee(
            provider=p,
            region=r.region,
            item=r.item,
            applies=None if r.applies is None else bool(r.applies),
            price=r.price,
            currency=r.currency,
            unit=r.unit,
            as_of=r.as_of,
            source=r.source,
            reason=r.reason,
        )
        for r in rows
    ]


def _latest_import(rows: Sequence[Any]) -> list[Any]:
    """The rows of the newest import among ``rows``: a refreshed fact set supersedes the older one
    (the older rows stay in the database as history)."""
    if not rows:
        return []
    newest = max(r.import_id for r in rows)
    return [r for r in rows if r.import_id == newest]


def _fallback_reason(reason: str | None, fallback: bool, asked: str, used: str) -> str | None:
    """Why a fallback row is used, in the current language (these rows are read afresh for each
    plan, never cached); the row's own ``reason`` is catalog data and stays as written."""
    if not fallback:
        return reason
    if used == ANY_REGION:
        note = _("no rows for region {asked}; using the provider's generic rows").format(asked=repr(asked))
    else:
        note = _("no rows for region {asked}; using the provider's {used} rows").format(
            asked=repr(asked), used=used
        )
    return _("{names}; {name}").format(names=note, name=reason) if reason else note
