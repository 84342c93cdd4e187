"""Opening the catalog database: where it lives, the engine, schema migrations, first-use seeding.

Split from :mod:`gpuplan.catalog.store` (the queries); ``open_store`` is the way in for both.

A catalog survives being interrupted and shared:

* SQLite's Python driver runs DDL outside any transaction unless told otherwise; the engine here
  turns the driver's own transaction handling off and issues ``BEGIN`` itself, so the schema's
  creation (every ``CREATE TABLE`` and the Alembic revision row) commits as one unit or not at all.
  Writers begin with ``BEGIN IMMEDIATE`` (:func:`writing`): two writers never both hold a read
  lock they must upgrade, which SQLite would answer with an immediate "database is locked".
* Creation, migration and seeding run under an inter-process lock, so N processes opening a fresh
  catalog at once create it once; each step is idempotent, so a run killed at any point leaves a
  catalog the next open completes. A SQLite file is locked with a file beside it (``<db>.lock``,
  filelock); PostgreSQL with a transaction-level advisory lock (``pg_advisory_xact_lock``) held on
  a connection of its own for the whole creation, which the server releases if the process dies.
  Other servers rely on their transactional DDL alone.
* A database that is neither empty nor a gpuplan catalog by its revision table (tables, a view or
  a trigger of another application; gpuplan's tables without a revision; a newer gpuplan's) is
  refused without a change: a SQLite file is judged read-only before any lock or write.
* Connections wait up to :data:`BUSY_TIMEOUT_S` for another writer (an import holds the lock for
  seconds), and database errors become one line (the driver's message, not the SQL).
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuplan.catalog.dates import DEFAULT_STALE_AFTER_DAYS
from gpuplan.catalog.model import ExchangeRate
from gpuplan.catalog.ownership import check_owned, check_owned_sqlite, current_revision, refuse_non_sqlite
from gpuplan.catalog.revisions import HEAD_REVISION
from gpuplan.catalog.transactions import db_error, is_busy, writing
from gpuplan.errors import DataError, InputError, StoreError
from gpuplan.i18n.messages import N_
from gpuplan.i18n.numbers import USER_RATE_SOURCE
from gpuplan.i18n.os_reasons import os_reason

if TYPE_CHECKING:
    from sqlalchemy import Connection, Engine

    from gpuplan.catalog.store import Store

__all__ = [
    "BUSY_TIMEOUT_S",
    "DEFAULT_STALE_AFTER_DAYS",
    "RATE_TOLERANCE",
    "check_rate",
    "db_error",
    "default_db_path",
    "existing_catalog",
    "is_busy",
    "make_engine",
    "open_store",
    "writing",
]

#: Seconds a connection waits for another writer. A large SkyPilot import holds the write lock for
#: ~8 s on a slow disk (measured in the fault-injection pass); SQLite's default 5 s was too short.
BUSY_TIMEOUT_S = 60.0
#: Seconds open_store waits for another process creating or migrating the same catalog: creating
#: and seeding takes ~1-3 s, so this only runs out when a lock holder hangs.
CREATION_LOCK_TIMEOUT_S = 120.0


def default_db_path() -> Path:
    """Where the catalog lives when no database is given: the user's data directory."""
    import platformdirs  # lazy: only needed when no --db is given

    return Path(platformdirs.user_data_dir("gpuplan")) / "gpuplan.sqlite"


def _resolve(db: str | None) -> tuple[str, Path | None]:
    """(SQLAlchemy URL, SQLite file path or None) of what the user gave."""
    if db is None:
        path = default_db_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError.worded(
                N_("cannot create the data directory {folder}: {why}; pass --db PATH"),
                folder=path.parent,
                why=e,
            ) from e
        return f"sqlite:///{path}", path
    if "://" in db:
        # A plain SQLite file URL can be read through sqlite3 as well; anything else (options,
        # in-memory, other databases) only through SQLAlchemy.
        file = db[len("sqlite:///") :] if db.startswith("sqlite:///") else ""
        plain = file and "?" not in file and file != ":memory:"
        return db, (Path(file).resolve() if plain else None)
    path = Path(db).expanduser().resolve()
    if not path.parent.is_dir():
        raise StoreError.worded(
            N_("database folder {folder} does not exist; create it or pass another --db"), folder=path.parent
        )
    return f"sqlite:///{path}", path


def existing_catalog(db: str | None) -> bool:
    """Whether the catalog ``db`` names (as :func:`open_store` takes it) may already exist: a SQLite
    file that is there, or any other database (a server's is not made by opening it here either)."""
    if db is None:
        return default_db_path().is_file()
    url, path = _resolve(db) if "://" in db or Path(db).expanduser().parent.is_dir() else (db, None)
    if path is not None:
        return path.is_file()
    return "://" in url and not url.startswith("sqlite")


#: SQLite's result codes of a damaged file: SQLITE_CORRUPT (11) and SQLITE_NOTADB (26).
_DAMAGED = frozenset({11, 26})


def make_engine(url: str) -> tuple[Engine, str]:
    from sqlalchemy import create_engine, event
    from sqlalchemy.exc import ArgumentError, SQLAlchemyError

    sqlite = url.startswith("sqlite")
    try:
        engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_S} if sqlite else {})
    except (SQLAlchemyError, ArgumentError, ImportError, ValueError) as e:
        raise StoreError.worded(
            N_("cannot open database {url}: {why}"), url=repr(url), why=db_error(e)
        ) from e
    if engine.dialect.name == "sqlite":

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            # The driver's own transaction handling leaves DDL outside transactions: off, and
            # BEGIN is issued below. Foreign keys are off by default in SQLite; the schema relies
            # on them.
            dbapi_conn.isolation_level = None
            cursor = dbapi_conn.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _sqlite_begin(conn: Connection) -> None:
            mode = conn.get_execution_options().get("gpuplan_begin", "DEFERRED")
            conn.exec_driver_sql(f"BEGIN {mode}")

        shown = engine.url.render_as_string(hide_password=True)

        @event.listens_for(engine, "handle_error")
        def _damaged(context: Any) -> None:
            # A damaged file fails whichever query touches the damage first, anywhere in gpuplan:
            # one line naming the file, not SQLAlchemy's traceback with the SQL and its parameters.
            # Other errors (busy, read-only, full) stay SQLAlchemy's: their callers retry or warn.
            code = getattr(context.original_exception, "sqlite_errorcode", None)
            if code is not None and code & 0xFF in _DAMAGED:
                raise StoreError.worded(
                    N_(
                        "the catalog database {location} is damaged ({why}); restore it from a backup or "
                        "move it aside (a new catalog is created)"
                    ),
                    location=shown,
                    why=db_error(context.original_exception),
                ) from None

    return engine, engine.url.render_as_string(hide_password=True)


_CANNOT_READ = N_("cannot read the database {location}: {why}")


def _migrate(engine: Engine, location: str) -> str:
    """Bring the schema to head in one transaction; refuse a database that is not gpuplan's or is
    from a newer gpuplan. Returns the revision."""
    from sqlalchemy.exc import SQLAlchemyError

    try:
        with engine.connect() as conn:
            current = current_revision(conn)
    except SQLAlchemyError as e:
        raise StoreError.worded(_CANNOT_READ, location=location, why=db_error(e)) from e
    if current == HEAD_REVISION:
        return current  # no Alembic import at all
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    try:
        with writing(engine) as conn:
            check_owned(conn, location)
            current = current_revision(conn)
            if current != HEAD_REVISION:
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, "head")
    except SQLAlchemyError as e:
        raise StoreError.worded(
            N_("cannot create or migrate the database schema in {location}: {why}"),
            location=location,
            why=db_error(e),
        ) from e
    return HEAD_REVISION


#: The advisory lock key of catalog creation on PostgreSQL: "gpuplan\0" as a big-endian bigint
#: (advisory locks are per database, so two catalogs in two databases do not wait for each other).
PG_CREATION_LOCK_KEY = int.from_bytes(b"gpuplan\x00", "big")


def pg_creation_lock_sql(timeout_s: float | None = None) -> tuple[str, str]:
    """The two statements that take the creation lock on PostgreSQL, in its own transaction: a
    bound on the wait (default :data:`CREATION_LOCK_TIMEOUT_S`), then the lock (released when that
    transaction ends)."""
    if timeout_s is None:
        timeout_s = CREATION_LOCK_TIMEOUT_S
    return (
        f"SET LOCAL lock_timeout = '{int(timeout_s * 1000)}ms'",
        f"SELECT pg_advisory_xact_lock({PG_CREATION_LOCK_KEY})",
    )


@contextmanager
def _pg_creation_lock(engine: Engine, location: str) -> Iterator[None]:
    from sqlalchemy.exc import SQLAlchemyError

    try:
        conn = engine.connect()
    except SQLAlchemyError as e:
        raise StoreError.worded(N_("cannot open database {url}: {why}"), url=location, why=db_error(e)) from e
    try:
        with conn.begin():
            try:
                for statement in pg_creation_lock_sql():
                    conn.exec_driver_sql(statement)
            except SQLAlchemyError as e:
                if "lock timeout" in db_error(e).lower():
                    raise StoreError.worded(
                        N_(
                            "another gpuplan has been creating the catalog in {location} for "
                            "{wait_s:.0f} s; try again once it is done"
                        ),
                        location=location,
                        wait_s=CREATION_LOCK_TIMEOUT_S,
                    ) from e
                raise StoreError.worded(
                    N_("cannot lock the catalog in {location}: {why}"), location=location, why=db_error(e)
                ) from e
            yield  # the creation runs on other connections; ending this transaction releases it
    finally:
        conn.close()


@contextmanager
def _creation_lock(engine: Engine, path: Path | None, location: str) -> Iterator[None]:
    """The inter-process lock held while a catalog is created, migrated or seeded (module docstring)."""
    if path is None:
        if engine.dialect.name == "postgresql":
            with _pg_creation_lock(engine, location):
                yield
        else:
            yield
        return
    from filelock import FileLock, Timeout

    lock = FileLock(f"{path}.lock", timeout=CREATION_LOCK_TIMEOUT_S)
    try:
        lock.acquire()
    except Timeout as e:
        raise StoreError.worded(
            N_(
                "another gpuplan has been creating {path} for {wait_s:.0f} s; if none is "
                "running, delete {path}.lock and try again"
            ),
            path=path,
            wait_s=CREATION_LOCK_TIMEOUT_S,
        ) from e
    except OSError as e:
        raise StoreError.worded(
            N_(
                "cannot create the catalog {path}: {why} (for its lock file); pass --db "
                "with a writable folder"
            ),
            path=path,
            why=os_reason(e),
        ) from e
    try:
        yield
    finally:
        lock.release()


def _ready_for_plain_sqlite(path: Path, snapshot: str | None) -> bool:
    """True if ``path`` is a SQLite catalog at the head revision that holds ``snapshot`` (if given)."""
    if not path.is_file():
        return False
    try:
        conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return False
    try:
        row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
        if row is None or row[0] != HEAD_REVISION:
            return False
        if snapshot is not None:
            have = conn.execute(
                "SELECT 1 FROM imports WHERE snapshot_id = ? AND kind = 'snapshot'", (snapshot,)
            ).fetchone()
            return have is not None
        return True
    except sqlite3.Error:
        return False  # no such table, not a database …: the SQLAlchemy path reports it properly
    finally:
        conn.close()


def _engine_only(url: str) -> Engine:
    return make_engine(url)[0]


def open_store(
    db: str | None = None,
    *,
    usd_per_cny: float | None = None,
    stale_after_days: int = DEFAULT_STALE_AFTER_DAYS,
    seed: bool = True,
    today: date | None = None,
    force_rate: bool = False,
) -> Store:
    """Open (and on first use create, migrate and seed) the catalog database.

    ``db``: None = ``gpuplan.sqlite`` in the user's data directory; a file path; or an SQLAlchemy
    URL. ``usd_per_cny`` overrides the stored CNY rate for this session (dated today, source "user").
    ``seed``: load the shipped snapshot if this database has not got it yet (appends, never replaces).
    A ``usd_per_cny`` more than 3× away from the catalog's own dated rate is refused (most often it
    is the rate the wrong way round, CNY per USD) unless ``force_rate``.
    """
    if usd_per_cny is not None and not (math.isfinite(usd_per_cny) and usd_per_cny > 0):
        raise DataError.worded(
            N_("USD per CNY must be a positive number, got {rate}"), rate=repr(usd_per_cny)
        )
    if stale_after_days < 0:
        raise DataError.worded(N_("stale_after_days must be 0 or more, got {days}"), days=stale_after_days)
    url, path = _resolve(db)
    day = today or date.today()
    from gpuplan.catalog.snapshot import ensure_snapshot, snapshot_id  # stdlib-only until it writes
    from gpuplan.catalog.store import Store

    sid = snapshot_id() if seed else None
    if path is not None and _ready_for_plain_sqlite(path, sid):
        store = Store(
            url,
            location=url,
            revision=HEAD_REVISION,
            stale_after_days=stale_after_days,
            today=day,
            engine_factory=_engine_only,
        )
    else:
        if path is not None:
            refuse_non_sqlite(path)
            check_owned_sqlite(path)  # before the creation lock: no file is made beside another's
        engine, location = make_engine(url)
        try:
            with _creation_lock(engine, path, location):
                revision = _migrate(engine, str(path or location))
                store = Store(
                    url,
                    location=location,
                    revision=revision,
                    stale_after_days=stale_after_days,
                    today=day,
                    engine=engine,
                )
                if seed:
                    ensure_snapshot(store)
        except BaseException:
            engine.dispose()  # no connection left open behind a failed open
            raise
    store.use_plain_sqlite(path)
    from gpuplan.catalog.declaring import load_declared

    load_declared(store)  # the providers this catalog declares, and no other catalog's
    if usd_per_cny is not None:
        try:
            if not MIN_USD_PER_CNY <= usd_per_cny <= MAX_USD_PER_CNY:
                # --force-rate overrides the 3× check, not arithmetic: 1e-300 printed 300 digits
                # stated as every rate is, 1 USD = x CNY (a --cny-per-usd figure as written)
                written = usd_per_cny.written if isinstance(usd_per_cny, CnyPerUsd) else 1.0 / usd_per_cny
                raise InputError.worded(
                    N_(
                        "the exchange rate you gave, 1 USD = {rate:g} CNY, is outside {low:g}–{high:g} CNY "
                        "(even with --force-rate)"
                    ),
                    rate=written,
                    low=1.0 / MAX_USD_PER_CNY,
                    high=1.0 / MIN_USD_PER_CNY,
                )
            if not force_rate:
                check_rate(usd_per_cny, store.find_exchange_rate("CNY"))
        except InputError:
            store.close()
            raise
        store.override_exchange_rate(
            ExchangeRate(
                currency="CNY",
                usd_per_unit=float(usd_per_cny),  # a plain float, however the user wrote it
                as_of=day.isoformat(),
                source=USER_RATE_SOURCE,
            )
        )
    return store


#: The rates a user may give at all, USD per CNY (about 0.12–0.17 since 2005: 8.28 to 6.04 CNY per USD):
#: a thousandth and a thousand times a dollar per yuan leave any "what if" room and keep figures printable.
MIN_USD_PER_CNY = 1e-3
MAX_USD_PER_CNY = 1e3

#: How far a user's rate may be from the catalog's dated one before it is refused without --force-rate.
RATE_TOLERANCE = 3.0


class CnyPerUsd(float):
    """A USD-per-CNY rate the user wrote the other way round (``--cny-per-usd 7.2``): the value is
    USD per CNY, :attr:`written` the figure as given, so that a refusal quotes the user's flag."""

    written: float

    def __new__(cls, cny_per_usd: float) -> CnyPerUsd:
        rate = super().__new__(cls, 1.0 / cny_per_usd)
        rate.written = cny_per_usd
        return rate


def check_rate(usd_per_cny: float, shipped: ExchangeRate | None) -> None:
    """Refuse ``usd_per_cny`` when it is more than 3× away from ``shipped`` (InputError with the fix),
    quoting it as the user wrote it (a :class:`CnyPerUsd` by ``--cny-per-usd``).

    e.g. shipped 0.1390 USD/CNY (7.19 CNY per USD): 7.2 is 52× too high, and 1/7.2 = 0.139 is within
    3× of the shipped rate, so the message says it is the rate the wrong way round.
    """
    if shipped is None or not shipped.usd_per_unit > 0:
        return
    ratio = usd_per_cny / shipped.usd_per_unit
    if 1.0 / RATE_TOLERANCE <= ratio <= RATE_TOLERANCE:
        return
    inverse_ratio = (1.0 / usd_per_cny) / shipped.usd_per_unit
    if 1.0 / RATE_TOLERANCE <= inverse_ratio <= RATE_TOLERANCE:
        if isinstance(usd_per_cny, CnyPerUsd):
            raise InputError.worded(
                N_(
                    "--cny-per-usd {rate:g} looks like the rate the wrong way round ({rate:g} USD per "
                    "CNY); write --usd-per-cny {rate:g} (or --cny-per-usd {inverse:.4f})"
                ),
                rate=usd_per_cny.written,
                inverse=1.0 / usd_per_cny.written,
            )
        raise InputError.worded(
            N_(
                "--usd-per-cny {rate:g} looks like the rate the wrong way round ({rate:g} CNY per USD); "
                "write --cny-per-usd {rate:g} (or --usd-per-cny {inverse:.4f})"
            ),
            rate=usd_per_cny,
            inverse=1.0 / usd_per_cny,
        )
    if isinstance(usd_per_cny, CnyPerUsd):
        raise InputError.worded(
            N_(
                "--cny-per-usd {rate:g} is {times:.3g}× away from the catalog's rate "
                "({shipped:.4f} CNY per USD, {as_of}); check it, or pass --force-rate"
            ),
            rate=usd_per_cny.written,
            times=max(ratio, 1 / ratio),
            shipped=1.0 / shipped.usd_per_unit,
            as_of=shipped.as_of,
        )
    raise InputError.worded(
        N_(
            "--usd-per-cny {rate:g} is {times:.3g}× away from the catalog's rate "
            "({shipped:.4f} USD per CNY, {as_of}); check it, or pass --force-rate"
        ),
        rate=usd_per_cny,
        times=max(ratio, 1 / ratio),
        shipped=shipped.usd_per_unit,
        as_of=shipped.as_of,
    )
