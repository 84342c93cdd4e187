"""The catalog's imports, listed and undone (``catalog imports``, ``catalog import --undo ID``).

Prices are appended, never overwritten, and each names the import that wrote it; an offer names
the import that created it (revision 0013). Undoing an import therefore deletes its prices, and the
offers it created that no other import has priced since: the prices it had superseded are current
again by the store's own rule (latest ``as_of``, then latest row), with nothing to restore. A price
the import found already recorded (``prices_already_recorded``) was not written again, belongs to
the earlier import and stays. The import's row stays, marked undone, so that it is not undone twice
and a plan cached against the catalog is not served again.

An import stored before revision 0013 did not record which offers it created: undone, its prices
are deleted and its offers stay (those without another price are then listed without one). The
shipped snapshot's imports are not undone: the snapshot is the catalog's base.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, NoReturn

from sqlalchemy import Connection, delete, exists, func, select, update

from gpuplan.catalog import schema as t
from gpuplan.errors import AbsentError, InputError, Phrase
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import listed

if TYPE_CHECKING:
    from gpuplan.catalog.store import Store

__all__ = ["ImportEntry", "UndoReport", "list_imports", "undo_import"]

#: Ids a refusal of an unknown one names at most (the newest): a catalog refreshed every night has
#: hundreds; ``catalog imports`` lists them all.
_IDS_SHOWN = 10


@dataclass(frozen=True, kw_only=True)
class ImportEntry:
    """One import as ``catalog imports`` lists it."""

    id: int
    imported_at: str
    provider: str | None
    """None: the shipped snapshot's facts, of every provider."""
    kind: str
    source: str
    file_name: str | None
    """The file read (None: not a file import, or stored before revision 0013)."""
    file_sha256: str | None
    as_of: str | None
    """The ``--as-of`` given (None: none, or stored before revision 0013)."""
    rows_ok: int
    rows_rejected: int
    offers_added: int | None
    """Offers it created; None for an import stored before revision 0013 (not recorded)."""
    prices_added: int | None
    prices_held: int
    """Its prices the catalog holds now (none once undone)."""
    undone_at: str | None
    undoable: bool
    """False for the shipped snapshot's imports."""


@dataclass(frozen=True, kw_only=True)
class UndoReport:
    """What undoing one import removed."""

    import_id: int
    provider: str | None
    source: str
    file_name: str | None
    prices_removed: int
    offers_removed: int
    offers_kept: int
    """Offers it created that another import has priced since: they stay, with those prices."""
    prices_current_again: int
    """Offer prices (an offer under one pricing model) whose current price was this import's and is
    now the one recorded before it."""
    offers_recorded: bool
    """False for an import stored before revision 0013: its offers were not recorded, and stay."""
    same_file: tuple[int, ...] = ()
    """Other imports that stand and read the same file (its SHA-256): a price they found already
    recorded was this import's, not written again, and is gone with it."""


def _snapshot(kind: str) -> bool:
    return kind.startswith("snapshot")


def list_imports(store: Store) -> list[ImportEntry]:
    """Every import, oldest first, with the prices of each the catalog holds now."""
    i, p = t.imports.c, t.prices.c
    with store.engine.connect() as conn:
        held: dict[int, int] = {
            int(r[0]): int(r[1])
            for r in conn.execute(select(p.import_id, func.count()).group_by(p.import_id))
        }
        rows = conn.execute(select(t.imports).order_by(i.id)).all()
    return [
        ImportEntry(
            id=r.id,
            imported_at=r.imported_at,
            provider=r.provider,
            kind=r.kind,
            source=r.source,
            file_name=r.file_name,
            file_sha256=r.file_sha256,
            as_of=r.as_of,
            rows_ok=r.rows_ok,
            rows_rejected=r.rows_rejected,
            offers_added=r.offers_added,
            prices_added=r.prices_added,
            prices_held=int(held.get(r.id, 0)),
            undone_at=r.undone_at,
            undoable=not _snapshot(r.kind),
        )
        for r in rows
    ]


def undo_import(store: Store, import_id: int, *, actor: str = "cli") -> UndoReport:
    """Delete import ``import_id``'s prices and the offers it alone created, in one transaction
    (a failure leaves the catalog as it was), and record the undo in the audit log as ``actor``.

    AbsentError (the newest ids named) for an id the catalog has no import of; InputError for the
    snapshot's imports and for one undone already."""
    from gpuplan.catalog.importing import write_with_retry
    from gpuplan.catalog.team_store import TeamStore

    def write(conn: Connection) -> UndoReport:
        report = _undo(conn, import_id)
        details = {
            "provider": report.provider,
            "file": report.file_name,
            "prices_removed": report.prices_removed,
            "offers_removed": report.offers_removed,
        }
        TeamStore.audit(conn, actor, "catalog.undo", str(import_id), details)
        return report

    try:
        return write_with_retry(store, write, Phrase(N_("undo of import {id}"), id=import_id))
    finally:
        store.invalidate_caches()


def _undo(conn: Connection, import_id: int) -> UndoReport:
    i, p, o = t.imports.c, t.prices.c, t.offers.c
    # FOR UPDATE on PostgreSQL: a second undo of the same import waits, then finds it undone (SQLite's
    # BEGIN IMMEDIATE serialises writers already; SQLAlchemy writes no FOR UPDATE there)
    row = conn.execute(select(t.imports).where(i.id == import_id).with_for_update()).one_or_none()
    if row is None:
        _refuse_unknown(conn, import_id)
    if _snapshot(row.kind):
        raise InputError.worded(
            N_(
                "import {id} is one of the shipped snapshot's: the catalog's base, not undone; nothing "
                "changed"
            ),
            id=import_id,
        )
    if row.undone_at is not None:
        raise InputError.worded(
            N_("import {id} was undone already ({at}); nothing changed"), id=import_id, at=row.undone_at
        )
    current_again = _current_again(conn, import_id)
    # the offers this import created (none recorded before revision 0013), or one an undone import
    # created and this one priced since: without a price once this import's are gone, they go
    created = select(t.imports.c.id).where((i.id == import_id) | i.undone_at.is_not(None))
    prices_removed = conn.execute(delete(t.prices).where(p.import_id == import_id)).rowcount
    priced = exists().where(p.offer_id == o.id)
    offers_removed = conn.execute(delete(t.offers).where(o.import_id.in_(created), ~priced)).rowcount
    kept = conn.execute(
        select(func.count()).select_from(t.offers).where(o.import_id == import_id)
    ).scalar_one()
    conn.execute(update(t.imports).where(i.id == import_id).values(undone_at=_now_iso()))
    same_file = (
        tuple(
            r.id
            for r in conn.execute(
                select(i.id)
                .where(i.file_sha256 == row.file_sha256, i.id != import_id, i.undone_at.is_(None))
                .order_by(i.id)
            )
        )
        if row.file_sha256 is not None
        else ()
    )
    return UndoReport(
        import_id=import_id,
        provider=row.provider,
        source=row.source,
        file_name=row.file_name,
        prices_removed=int(prices_removed),
        offers_removed=int(offers_removed),
        offers_kept=int(kept),
        prices_current_again=current_again,
        offers_recorded=row.offers_added is not None,
        same_file=same_file,
    )


def _current_again(conn: Connection, import_id: int) -> int:
    """Offer prices (offer, pricing model) whose current price is import ``import_id``'s and that
    hold an earlier one: it is current again once this import's are deleted."""
    p = t.prices.c
    pairs = select(p.offer_id, p.pricing).where(p.import_id == import_id).distinct().subquery()
    rows = conn.execute(
        select(p.offer_id, p.pricing, p.as_of, p.id, p.import_id).join(
            pairs, (pairs.c.offer_id == p.offer_id) & (pairs.c.pricing == p.pricing)
        )
    ).all()
    by_pair: dict[tuple[int, str], list[Any]] = {}
    for r in rows:
        by_pair.setdefault((r.offer_id, r.pricing), []).append(r)
    # the store's rule: the latest as_of, then the latest row
    return sum(
        1
        for prices in by_pair.values()
        if max(prices, key=lambda r: (r.as_of, r.id)).import_id == import_id
        and any(r.import_id != import_id for r in prices)
    )


def _refuse_unknown(conn: Connection, import_id: int) -> NoReturn:
    i = t.imports.c
    ids = [
        str(r.id)
        for r in conn.execute(
            select(i.id)
            .where(~i.kind.like("snapshot%"), i.undone_at.is_(None))
            .order_by(i.id.desc())
            .limit(_IDS_SHOWN)
        )
    ][::-1]
    if not ids:
        raise AbsentError.worded(
            N_(
                "no import {id} in the catalog, and no import there to undo (the shipped snapshot is "
                "not undone)"
            ),
            id=import_id,
        )
    raise AbsentError.worded(
        N_(
            "no import {id} in the catalog; imports that can be undone: {ids} (gpuplan catalog imports "
            "lists them)"
        ),
        id=import_id,
        ids=listed(ids),
    )


def _now_iso() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()
