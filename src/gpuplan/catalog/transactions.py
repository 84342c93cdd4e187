"""Write transactions and database errors of the catalog, shared by opening, store, seeding and imports.

Its own module so that the store, the snapshot seeding and the importers can begin a write without
importing :mod:`gpuplan.catalog.open_catalog`, which itself imports them (a cycle import-linter forbids).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlalchemy import Connection, Engine, Table

__all__ = ["db_error", "is_busy", "upsert", "writing"]


def db_error(e: BaseException) -> str:
    """One line for a database error: the driver's own message, without SQL or parameters."""
    orig = getattr(e, "orig", None)
    text = str(orig if orig is not None else e).strip()
    return (text.splitlines() or [type(e).__name__])[0][:300]


def is_busy(e: BaseException) -> bool:
    """True for SQLite's "database is locked" / "busy": worth retrying once the other writer is done."""
    text = db_error(e).lower()
    return "locked" in text or "busy" in text


@contextmanager
def writing(engine: Engine) -> Iterator[Connection]:
    """A write transaction (``BEGIN IMMEDIATE`` on SQLite): committed on success, rolled back on error."""
    with engine.execution_options(gpuplan_begin="IMMEDIATE").begin() as conn:
        yield conn


def upsert(conn: Connection, table: Table, row: Mapping[str, Any], keys: Sequence[str]) -> None:
    """Insert ``row``, or update the row of the same ``keys`` (a unique key of ``table``) to it, in
    one statement (``INSERT … ON CONFLICT DO UPDATE``, SQLite and PostgreSQL alike). A delete then
    insert raced on PostgreSQL: two writers of one key both deleted nothing, and the second insert
    broke the unique key (a 500, the write lost); SQLite's ``BEGIN IMMEDIATE`` had serialised them."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert  # type: ignore[assignment]
    statement = insert(table).values(**row)
    update = {k: statement.excluded[k] for k in row if k not in keys}
    conn.execute(statement.on_conflict_do_update(index_elements=list(keys), set_=update))
