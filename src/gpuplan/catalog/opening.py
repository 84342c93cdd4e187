"""Opening the catalog database: where it lives, the engine, schema migrations, first-use seeding.

Split from :mod:`gpuplan.catalog.store` (the queries); ``open_store`` is the way in for both.
"""

from __future__ import annotations

import math
import sqlite3
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuplan.catalog.model import ExchangeRate
from gpuplan.catalog.revisions import HEAD_REVISION, KNOWN_REVISIONS
from gpuplan.errors import DataError, InputError, StoreError

if TYPE_CHECKING:
    from sqlalchemy import Connection, Engine

    from gpuplan.catalog.store import Store

__all__ = [
    "DEFAULT_STALE_AFTER_DAYS",
    "RATE_TOLERANCE",
    "check_rate",
    "default_db_path",
    "make_engine",
    "open_store",
]

#: A price older than this many days is flagged ``stale``.
DEFAULT_STALE_AFTER_DAYS = 180


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
            raise StoreError(f"cannot create the data directory {path.parent}: {e}; pass --db PATH") from e
        return f"sqlite:///{path}", path
    if "://" in db:
        # A plain SQLite file URL can be read through sqlite3 as well; anything else (options,
        # in-memory, other databases) only through SQLAlchemy.
        file = db[len("sqlite:///") :] if db.startswith("sqlite:///") else ""
        plain = file and "?" not in file and file != ":memory:"
        return db, (Path(file).resolve() if plain else None)
    path = Path(db).expanduser().resolve()
    if not path.parent.is_dir():
        raise StoreError(f"database folder {path.parent} does not exist; create it or pass another --db")
    return f"sqlite:///{path}", path


def make_engine(url: str) -> tuple[Engine, str]:
    from sqlalchemy import create_engine, event
    from sqlalchemy.exc import ArgumentError, SQLAlchemyError

    try:
        engine = create_engine(url)
    except (SQLAlchemyError, ArgumentError, ImportError, ValueError) as e:
        raise StoreError(f"cannot open database {url!r}: {e}") from e
    if engine.dialect.name == "sqlite":

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            # Foreign keys are off by default in SQLite; the schema relies on them.
            cursor = dbapi_conn.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

    return engine, engine.url.render_as_string(hide_password=True)


def _current_revision(conn: Connection) -> str | None:
    from sqlalchemy import inspect

    if not inspect(conn).has_table("alembic_version"):
        return None
    rev = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
    return str(rev) if rev is not None else None


def _migrate(engine: Engine) -> str:
    """Bring the schema to head; refuse a database from a newer gpuplan. Returns the revision."""
    from sqlalchemy.exc import SQLAlchemyError

    try:
        with engine.connect() as conn:
            current = _current_revision(conn)
    except SQLAlchemyError as e:
        raise StoreError(f"cannot read the database: {e}") from e
    if current == HEAD_REVISION:
        return current  # no Alembic import at all
    if current is not None and current not in KNOWN_REVISIONS:
        raise StoreError(
            f"the database is at schema revision {current!r}, newer than this gpuplan knows "
            f"(head {HEAD_REVISION!r}); upgrade gpuplan or point --db at another database"
        )
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    try:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")
    except SQLAlchemyError as e:
        raise StoreError(f"cannot create or migrate the database schema: {e}") from e
    return HEAD_REVISION


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
        raise DataError(f"USD per CNY must be a positive number, got {usd_per_cny!r}")
    if stale_after_days < 0:
        raise DataError(f"stale_after_days must be 0 or more, got {stale_after_days}")
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
        engine, location = make_engine(url)
        revision = _migrate(engine)
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
    store.use_plain_sqlite(path)
    if usd_per_cny is not None:
        if not force_rate:
            try:
                check_rate(usd_per_cny, store.find_exchange_rate("CNY"))
            except InputError:
                store.close()
                raise
        store.override_exchange_rate(
            ExchangeRate(
                currency="CNY",
                usd_per_unit=usd_per_cny,
                as_of=day.isoformat(),
                source="user setting (usd_per_cny)",
            )
        )
    return store


#: How far a user's rate may be from the catalog's dated one before it is refused without --force-rate.
RATE_TOLERANCE = 3.0


def check_rate(usd_per_cny: float, shipped: ExchangeRate | None) -> None:
    """Refuse ``usd_per_cny`` when it is more than 3× away from ``shipped`` (InputError with the fix).

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
        raise InputError(
            f"--usd-per-cny {usd_per_cny:g} looks like the rate the wrong way round "
            f"({usd_per_cny:g} CNY per USD); write --cny-per-usd {usd_per_cny:g} "
            f"(or --usd-per-cny {1.0 / usd_per_cny:.4f})"
        )
    raise InputError(
        f"--usd-per-cny {usd_per_cny:g} is {max(ratio, 1 / ratio):.0f}× away from the catalog's rate "
        f"({shipped.usd_per_unit:.4f} USD per CNY, {shipped.as_of}); check it, or pass --force-rate"
    )
