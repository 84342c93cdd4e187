"""Write transactions and database errors of the catalog, shared by opening, store, seeding and imports.

Its own module so that the store, the snapshot seeding and the importers can begin a write without
importing :mod:`gpuplan.catalog.opening`, which itself imports them (a cycle import-linter forbids).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy import Connection, Engine

__all__ = ["db_error", "is_busy", "writing"]


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
