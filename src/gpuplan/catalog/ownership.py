"""Whose database is it? A catalog database is opened only when it is empty or a gpuplan catalog by
its revision table; anything else — another program's tables, a view, a trigger, a file that is not
SQLite, gpuplan's tables without a revision, a newer gpuplan's — is refused and left byte for byte
as it was. A SQLite file is judged through a read-only connection before anything else opens it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuplan.catalog.revisions import HEAD_REVISION, KNOWN_REVISIONS
from gpuplan.errors import StoreError
from gpuplan.i18n.messages import N_
from gpuplan.i18n.os_reasons import os_reason
from gpuplan.i18n.phrases import item_list

if TYPE_CHECKING:
    from sqlalchemy import Connection

__all__ = ["check_owned", "check_owned_sqlite", "current_revision", "refuse_non_sqlite"]

_CANNOT_READ = N_("cannot read the database {location}: {why}")


def current_revision(conn: Connection) -> str | None:
    from sqlalchemy import inspect

    if not inspect(conn).has_table("alembic_version"):
        return None
    rev = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
    return str(rev) if rev is not None else None


#: Tables a catalog of any revision has: with an unknown revision, they say it is a newer gpuplan's.
_CORE_TABLES = frozenset({"imports", "offers", "prices"})
#: Objects listed in a refusal.
_SHOWN = 5


def _judge(objects: list[tuple[str, str]], revision: str | None, location: str) -> None:
    """Refuse, untouched, a database that is neither empty nor a gpuplan catalog by its revision.

    ``objects``: (kind, name) of its tables, views and triggers (indexes follow their tables).
    Empty: create it. A revision this gpuplan knows and only gpuplan's tables: a catalog. Anything
    else is another program's (other tables, a view, a trigger), a newer gpuplan's (its tables,
    a revision this code does not know), or a catalog whose creation an older gpuplan left
    unfinished (its tables, no revision): each is refused with what to do, and never changed —
    a table named like one of gpuplan's (``offers``) proves nothing.
    """
    from gpuplan.catalog.schema import QUEUE_TABLES, metadata

    ours = set(metadata.tables) | {"alembic_version"} | set(QUEUE_TABLES)
    tables = {name for kind, name in objects if kind == "table"}
    foreign = sorted(tables - ours)
    others = sorted(f"{kind} {name}" for kind, name in objects if kind != "table")
    if others:
        shown = others + [f"table {name}" for name in foreign]
        raise StoreError.worded(
            N_(
                "{location} is not a gpuplan catalog (it holds {shown}); it was left unchanged: "
                "point --db at a new file"
            ),
            location=location,
            shown=item_list(shown[:_SHOWN]) + (" …" if len(shown) > _SHOWN else ""),
        )
    if foreign:
        raise StoreError.worded(
            N_(
                "{location} is not a gpuplan catalog (it has other tables: {shown}); it was left unchanged: "
                "point --db at a new file"
            ),
            location=location,
            shown=item_list(foreign[:_SHOWN]) + (" …" if len(foreign) > _SHOWN else ""),
        )
    if not tables:
        return  # empty: the catalog is created in it
    if revision is None:
        raise StoreError.worded(
            N_(
                "{location} has gpuplan's tables but no schema revision (a first use an older gpuplan "
                "left unfinished, or another program's); it was left unchanged: move it aside and run "
                "again (a new catalog is created), then re-import your price files"
            ),
            location=location,
        )
    if revision not in KNOWN_REVISIONS:
        if not tables >= _CORE_TABLES:
            raise StoreError.worded(
                N_(
                    "{location} is not a gpuplan catalog (its schema revision {current} is not gpuplan's); "
                    "it was left unchanged: point --db at a new file"
                ),
                location=location,
                current=repr(revision),
            )
        raise StoreError.worded(
            N_(
                "the database is at schema revision {current}, newer than this gpuplan knows "
                "(head {head}); upgrade gpuplan or point --db at another database"
            ),
            current=repr(revision),
            head=repr(HEAD_REVISION),
        )


def _revision_of(rows: list[Any]) -> str | None:
    return str(rows[0][0]) if rows and rows[0][0] is not None else None


def check_owned(conn: Connection, location: str) -> None:
    """:func:`_judge` on a connection (any database SQLAlchemy opens)."""
    from sqlalchemy import inspect

    insp = inspect(conn)
    objects = [("table", n) for n in insp.get_table_names()] + [("view", n) for n in insp.get_view_names()]
    if conn.dialect.name == "sqlite":
        triggers = conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'trigger'").all()
        objects += [("trigger", str(name)) for (name,) in triggers]
    _judge(objects, current_revision(conn), location)


def check_owned_sqlite(path: Path) -> None:
    """:func:`_judge` on a SQLite file, read-only and before anything else opens it: a database that
    is not gpuplan's is refused without a lock file, a journal or a write."""
    if not path.is_file() or path.stat().st_size == 0:
        return
    try:
        conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
        try:
            objects = conn.execute(
                "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view', 'trigger') "
                "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
            ).fetchall()
            names = {name for kind, name in objects if kind == "table"}
            revision = (
                _revision_of(conn.execute("SELECT version_num FROM alembic_version LIMIT 1").fetchall())
                if "alembic_version" in names
                else None
            )
        finally:
            conn.close()
    except sqlite3.Error as e:
        if getattr(e, "sqlite_errorcode", 0) & 0xFF in (11, 26):  # SQLITE_CORRUPT, SQLITE_NOTADB
            raise StoreError.worded(_CANNOT_READ, location=path, why=str(e).splitlines()[0][:300]) from e
        # Not readable read-only (a hot journal left by a writer killed mid-transaction must be
        # rolled back first, a write): judged again under the creation lock, after SQLite's recovery.
        return
    _judge([(str(k), str(n)) for k, n in objects], revision, str(path))


def refuse_non_sqlite(path: Path) -> None:
    """Refuse, untouched, a file that exists and is not a SQLite database (or not a regular file)."""
    try:
        if not path.exists():
            return
        if not path.is_file():
            raise StoreError.worded(
                N_("--db {path} is not a regular file; point --db at a new file"), path=path
            )
        with path.open("rb") as fh:
            head = fh.read(16)
    except OSError as e:
        raise StoreError.worded(_CANNOT_READ, location=path, why=os_reason(e)) from e
    if head and head != b"SQLite format 3\x00":
        raise StoreError.worded(
            N_("{path} is not a SQLite database; it was left unchanged: point --db at a new file"), path=path
        )
