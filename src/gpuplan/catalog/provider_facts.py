"""Per-provider facts of the store: billing granularity, compliance labels, internet egress and
inter-region transfer tiers, object/block storage prices and licence fees.

Each is dated and sourced, or unknown (None) with a reason. A refreshed fact set supersedes the older
one (newest import wins); the older rows stay as history. A region without rows falls back to the
provider's default-region or generic rows, flagged ``fallback`` with a reason.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

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

__all__ = [
    "RowsOf",
    "compliance_details",
    "egress_tiers",
    "inter_region_price",
    "licence_fees",
    "priced_storage",
    "storage_prices",
]

#: ``rows_of(table, provider)``: every row of a facts table for one provider, in insertion order
#: (the store reads each table once per provider and keeps it until a write: a plan asks for
#: hundreds of regions, and one query per region and table cost more than the plan's arithmetic).
RowsOf = Callable[[str, str], Sequence[Any]]


def compliance_label(r: Any) -> ComplianceLabel:
    """A ``compliance_labels`` row as a :class:`ComplianceLabel` (its source and confidence)."""
    return ComplianceLabel(
        provider=r.provider,
        region=r.region,
        label=r.label,
        as_of=r.as_of,
        source=r.source,
        confidence=r.confidence,
    )


def compliance_details(rows_of: RowsOf, provider: str) -> list[ComplianceLabel]:
    """The compliance labels of a provider with their sources."""
    p = PROVIDERS.cast(provider)
    return [compliance_label(r) for r in rows_of("compliance_labels", p)]


# ---------------------------------------------------------------- transfer, storage, licences


def _region_or_default(rows: Sequence[Any], region: str) -> tuple[list[Any], bool]:
    """The newest import's rows for ``region``, else its default-region rows (``fallback``)."""
    here = _latest_import([r for r in rows if r.region == region])
    if here:
        return here, False
    return _latest_import([r for r in rows if r.is_default_region == 1]), True


def _transfer(rows_of: RowsOf, provider: str, region: str, kind: str) -> list[TransferTier]:
    p = PROVIDERS.cast(provider)
    all_rows = sorted(
        (r for r in rows_of("transfer_prices", p) if r.kind == kind), key=lambda r: (r.start_gb, r.id)
    )
    rows, fallback = _region_or_default(all_rows, region)
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


def egress_tiers(rows_of: RowsOf, provider: str, region: str) -> list[TransferTier]:
    """Internet egress tiers of ``region``, ordered by tier start.

    Without rows for ``region``, the provider's generic/default-region rows, with
    ``fallback=True`` and a ``reason``; a tier whose price is unknown has ``price_per_gb=None``.
    """
    return _transfer(rows_of, provider, region, "internet_egress")


def priced_transfer(rows_of: RowsOf, kind: str) -> list[TransferTier]:
    """Every priced transfer tier of ``kind`` (``internet_egress`` or ``inter_region``) the catalog
    holds, of every provider and region (each provider's newest import): what the planner bounds an
    unknown transfer price with, so that its bound is a price the catalog holds."""
    out: list[TransferTier] = []
    for p in PROVIDERS:
        rows = _latest_import(list(rows_of("transfer_prices", p)))
        for region in dict.fromkeys(r.region for r in rows if r.kind == kind and r.price_per_gb is not None):
            out.extend(t for t in _transfer(rows_of, p, region, kind) if not t.fallback)
    return [t for t in out if t.price_per_gb is not None]


def inter_region_price(rows_of: RowsOf, provider: str, region: str) -> TransferTier | None:
    """Price of moving data from ``region`` to another region of the provider; None if unknown."""
    tiers = _transfer(rows_of, provider, region, "inter_region")
    return tiers[0] if tiers else None


def storage_prices(rows_of: RowsOf, provider: str, region: str) -> list[StoragePrice]:
    """Object and block storage prices of ``region`` (default-region rows as fallback)."""
    p = PROVIDERS.cast(provider)
    ordered = sorted(rows_of("storage_prices", p), key=lambda r: (r.kind != "object", r.id))  # kind desc
    rows, fallback = _region_or_default(ordered, region)
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


def priced_storage(rows_of: RowsOf, kind: str) -> list[StoragePrice]:
    """Every priced storage row of ``kind`` (``object`` or ``block``) the catalog holds, of every
    provider and region (each provider's newest import): what the planner bounds an unknown storage
    price with, so that its bound is a price the catalog holds, not a constant."""
    out: list[StoragePrice] = []
    for p in PROVIDERS:
        rows = _latest_import(list(rows_of("storage_prices", p)))
        for region in dict.fromkeys(r.region for r in rows if r.kind == kind and r.price is not None):
            out.extend(s for s in storage_prices(rows_of, p, region) if s.kind == kind and not s.fallback)
    return [s for s in out if s.price_per_gb_month is not None]


def licence_fees(rows_of: RowsOf, provider: str, region: str) -> list[LicenceFee]:
    """Licence fees (or their known absence, or unknown with a reason) for a provider/region."""
    p = PROVIDERS.cast(provider)
    rows = _latest_import([r for r in rows_of("licence_fees", p) if r.region in (region, ANY_REGION)])
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
    """Why a fallback row is used, in the current language (the store caches the database rows, not
    these objects, so the words follow the language of each call); the row's own ``reason`` is
    catalog data and stays as written."""
    if not fallback:
        return reason
    if used == ANY_REGION:
        note = _("no rows for region {asked}; using the provider's generic rows").format(asked=repr(asked))
    else:
        note = _("no rows for region {asked}; using the provider's {used} rows").format(
            asked=repr(asked), used=used
        )
    return _("{names}; {name}").format(names=note, name=reason) if reason else note
