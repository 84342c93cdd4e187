"""The embedded catalog store: SQLite by default, any SQLAlchemy URL (PostgreSQL) by choice.

Prices are appended with their date and never overwritten; the current price of an offer under a
pricing model is the one with the latest ``as_of``, then the latest import. The schema is created
and upgraded by the Alembic migrations shipped in ``migrations/``.
"""

from __future__ import annotations

import json
import math
from datetime import date
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, func, insert, select
from sqlalchemy.exc import SQLAlchemyError

from gpuplan.catalog import schema as t
from gpuplan.catalog.facts import FactsMixin, _Facts
from gpuplan.catalog.importing import ImportMixin
from gpuplan.catalog.local_tables import LocalTablesMixin
from gpuplan.catalog.model import (
    HOURS_PER_MONTH,
    CatalogInfo,
    Currency,
    ExchangeRate,
    OfferPrice,
    PricingModel,
    Provider,
)
from gpuplan.errors import AmbiguousNameError, DataError, StoreError
from gpuplan.hardware import all_gpus, resolve_gpu

__all__ = ["DEFAULT_STALE_AFTER_DAYS", "Store", "default_db_path", "open_store"]

#: A price older than this many days is flagged ``stale``.
DEFAULT_STALE_AFTER_DAYS = 180


def default_db_path() -> Path:
    """Where the catalog lives when no database is given: the user's data directory."""
    import platformdirs  # lazy: only needed when no --db is given

    return Path(platformdirs.user_data_dir("gpuplan")) / "gpuplan.sqlite"


def _as_of_date(as_of: str) -> date | None:
    """The first day an ISO (partial) date stands for: ``2023-06`` -> 2023-06-01."""
    try:
        parts = [int(p) for p in as_of.split("-")[:3]]
        while len(parts) < 3:
            parts.append(1)
        return date(parts[0], parts[1], parts[2])
    except (ValueError, IndexError):
        return None


def _engine_for(db: str | None) -> tuple[Engine, str]:
    if db is None:
        path = default_db_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError(f"cannot create the data directory {path.parent}: {e}; pass --db PATH") from e
        url = f"sqlite:///{path}"
    elif "://" in db:
        url = db
    else:
        path = Path(db).expanduser().resolve()
        if not path.parent.is_dir():
            raise StoreError(f"database folder {path.parent} does not exist; create it or pass another --db")
        url = f"sqlite:///{path}"
    try:
        engine = create_engine(url)
    except (SQLAlchemyError, ImportError, ValueError) as e:
        raise StoreError(f"cannot open database {db!r}: {e}") from e
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
    try:
        with engine.connect() as conn:
            current = _current_revision(conn)
    except SQLAlchemyError as e:
        raise StoreError(f"cannot read the database: {e}") from e
    if current == t.HEAD_REVISION:
        return current  # the common case: no Alembic import at all (startup time)
    if current is not None and current not in t.KNOWN_REVISIONS:
        raise StoreError(
            f"the database is at schema revision {current!r}, newer than this gpuplan knows "
            f"(head {t.HEAD_REVISION!r}); upgrade gpuplan or point --db at another database"
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
    return t.HEAD_REVISION


def open_store(
    db: str | None = None,
    *,
    usd_per_cny: float | None = None,
    stale_after_days: int = DEFAULT_STALE_AFTER_DAYS,
    seed: bool = True,
    today: date | None = None,
) -> Store:
    """Open (and on first use create, migrate and seed) the catalog database.

    ``db``: None = ``gpuplan.sqlite`` in the user's data directory; a file path; or an SQLAlchemy
    URL. ``usd_per_cny`` overrides the stored CNY rate for this session (dated today, source "user").
    ``seed``: load the shipped snapshot if this database has not got it yet (appends, never replaces).
    """
    if usd_per_cny is not None and not (math.isfinite(usd_per_cny) and usd_per_cny > 0):
        raise DataError(f"USD per CNY must be a positive number, got {usd_per_cny!r}")
    if stale_after_days < 0:
        raise DataError(f"stale_after_days must be 0 or more, got {stale_after_days}")
    engine, location = _engine_for(db)
    revision = _migrate(engine)
    store = Store(
        engine,
        location=location,
        revision=revision,
        stale_after_days=stale_after_days,
        today=today or date.today(),
    )
    if usd_per_cny is not None:
        store.override_exchange_rate(
            ExchangeRate(
                currency="CNY",
                usd_per_unit=usd_per_cny,
                as_of=(today or date.today()).isoformat(),
                source="user setting (usd_per_cny)",
            )
        )
    if seed:
        from gpuplan.catalog.snapshot import ensure_snapshot  # lazy: reads package data files

        ensure_snapshot(store)
    return store


class Store(FactsMixin, LocalTablesMixin, ImportMixin):
    """The catalog database. Create with :func:`open_store`."""

    def __init__(
        self, engine: Engine, *, location: str, revision: str, stale_after_days: int, today: date
    ) -> None:
        self._engine = engine
        self.location = location
        self.revision = revision
        self.stale_after_days = stale_after_days
        self._today = today
        self._rate_overrides: dict[str, ExchangeRate] = {}
        self._facts: _Facts | None = None

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine (for layers that keep their own tables here)."""
        return self._engine

    def close(self) -> None:
        """Release the connection pool."""
        self._engine.dispose()

    # ---------------------------------------------------------------- exchange rates

    def override_exchange_rate(self, rate: ExchangeRate) -> None:
        """Use ``rate`` for its currency in this session instead of the stored ones (not persisted)."""
        self._rate_overrides[Currency.cast(rate.currency).code] = rate

    def add_exchange_rate(self, rate: ExchangeRate) -> None:
        """Append a dated rate to the database (history kept; the latest ``as_of`` wins)."""
        code = Currency.cast(rate.currency).code
        if not (math.isfinite(rate.usd_per_unit) and rate.usd_per_unit > 0):
            raise DataError(f"exchange rate for {code} must be positive, got {rate.usd_per_unit!r}")
        with self._engine.begin() as conn:
            conn.execute(
                insert(t.exchange_rates).values(
                    currency=code, usd_per_unit=rate.usd_per_unit, as_of=rate.as_of, source=rate.source
                )
            )

    def exchange_rate(self, currency: str) -> ExchangeRate:
        """USD per unit of ``currency``, dated and sourced; DataError (with the fix) when unknown."""
        rate = self.find_exchange_rate(currency)
        if rate is None:
            code = Currency.cast(currency).code
            raise DataError(
                f"no dated {code}->USD exchange rate in the catalog; set one, e.g. "
                f"GPUPLAN_USD_PER_{code}=<USD per {code}> (CLI: --usd-per-{code.lower()})"
            )
        return rate

    def find_exchange_rate(self, currency: str) -> ExchangeRate | None:
        """Like :meth:`exchange_rate`, but None instead of an error when no rate is known."""
        code = Currency.cast(currency).code
        if code == "USD":
            return ExchangeRate(currency="USD", usd_per_unit=1.0, as_of="-", source="identity")
        if code in self._rate_overrides:
            return self._rate_overrides[code]
        stmt = (
            select(t.exchange_rates.c.usd_per_unit, t.exchange_rates.c.as_of, t.exchange_rates.c.source)
            .where(t.exchange_rates.c.currency == code)
            .order_by(t.exchange_rates.c.as_of.desc(), t.exchange_rates.c.id.desc())
            .limit(1)
        )
        with self._engine.connect() as conn:
            row = conn.execute(stmt).first()
        if row is None:
            return None
        return ExchangeRate(currency=code, usd_per_unit=row.usd_per_unit, as_of=row.as_of, source=row.source)

    # ---------------------------------------------------------------- offers

    def regions(self, provider: str | None = None) -> list[str]:
        """Every region with offers (of ``provider`` when given), sorted."""
        o = t.offers.c
        stmt = select(o.region).distinct().order_by(o.region)
        if provider is not None:
            stmt = stmt.where(o.provider == Provider.cast(provider).value)
        with self._engine.connect() as conn:
            return [r[0] for r in conn.execute(stmt)]

    @staticmethod
    def _gpu_ids(gpu: str) -> list[str]:
        """Canonical ids a GPU filter stands for: one, or every choice of an ambiguous family name."""
        ids = {g.id for g in all_gpus()}
        if gpu in ids:
            return [gpu]
        try:
            return [resolve_gpu(gpu).id]
        except AmbiguousNameError as e:
            # "a100" filters over every A100 variant instead of failing.
            return list(e.choices)

    def offers(
        self,
        *,
        gpu: str | None = None,
        count: int | None = None,
        min_gpu_memory_gib: float | None = None,
        provider: str | None = None,
        region: str | None = None,
        pricing: str | None = None,
        include_unpriced: bool = False,
    ) -> list[OfferPrice]:
        """One row per offer x pricing model with its current price, filtered.

        ``gpu`` is a canonical id or a name people type (an ambiguous family such as ``a100``
        matches all its variants); ``count`` is the exact GPUs per instance. Offers without any price
        appear (with ``pricing=None`` and ``price_reason``) only with ``include_unpriced``.
        """
        o, p = t.offers.c, t.prices.c
        offer_stmt = select(
            o.id,
            o.provider,
            o.region,
            o.zone,
            o.instance_type,
            o.gpu,
            o.gpu_count,
            o.vcpus,
            o.memory_gib,
            o.network_gbps,
            o.interconnect,
            o.source,
            o.price_reason,
        )
        if provider is not None:
            offer_stmt = offer_stmt.where(o.provider == Provider.cast(provider).value)
        if region is not None:
            offer_stmt = offer_stmt.where(o.region == region)
        gpu_ids: list[str] | None = self._gpu_ids(gpu) if gpu is not None else None
        if min_gpu_memory_gib is not None:
            big = [g.id for g in all_gpus() if g.memory_gib >= min_gpu_memory_gib]
            gpu_ids = big if gpu_ids is None else [g for g in gpu_ids if g in big]
        if gpu_ids is not None:
            offer_stmt = offer_stmt.where(o.gpu.in_(gpu_ids))
        if count is not None:
            offer_stmt = offer_stmt.where(o.gpu_count == count)
        pricing_value = PricingModel.cast(pricing).value if pricing is not None else None

        # Current price per (offer, pricing): latest as_of, then latest import (largest id).
        ranked = select(
            p.offer_id,
            p.pricing,
            p.amount,
            p.currency,
            p.unit,
            p.as_of,
            p.source,
            p.confidence,
            p.interruption_band,
            p.term_json,
            func.row_number()
            .over(partition_by=(p.offer_id, p.pricing), order_by=(p.as_of.desc(), p.id.desc()))
            .label("rn"),
        )
        if pricing_value is not None:
            ranked = ranked.where(p.pricing == pricing_value)
        offer_sub = offer_stmt.subquery()
        ranked = ranked.where(p.offer_id.in_(select(offer_sub.c.id)))
        rsub = ranked.subquery()
        price_stmt = select(rsub).where(rsub.c.rn == 1)

        with self._engine.connect() as conn:
            offer_rows = conn.execute(
                offer_stmt.order_by(o.provider, o.region, o.zone, o.instance_type)
            ).all()
            prices_by_offer: dict[int, list[Any]] = {}
            for pr in conn.execute(price_stmt):
                prices_by_offer.setdefault(pr.offer_id, []).append(pr)

        rates: dict[str, ExchangeRate | None] = {}
        out: list[OfferPrice] = []
        for orow in offer_rows:
            plist = sorted(prices_by_offer.get(orow.id, []), key=lambda r: _PRICING_ORDER[r.pricing])
            if not plist:
                if include_unpriced and pricing_value is None:
                    out.append(self._unpriced(orow))
                continue
            for pr in plist:
                if pr.currency not in rates:
                    rates[pr.currency] = self.find_exchange_rate(pr.currency)
                out.append(self._priced(orow, pr, rates[pr.currency]))
        return out

    def _common(self, orow: Any) -> dict[str, Any]:
        billing = self.billing_policy(orow.provider, orow.region)
        return {
            "provider": orow.provider,
            "region": orow.region,
            "zone": orow.zone or None,
            "instance_type": orow.instance_type,
            "gpu": orow.gpu,
            "gpu_count": orow.gpu_count,
            "vcpus": orow.vcpus,
            "memory_gib": orow.memory_gib,
            "network_gbps": orow.network_gbps,
            "interconnect": orow.interconnect,
            "billing_granularity_s": billing.granularity_s,
            "min_billing_s": billing.min_billing_s,
            "compliance": self.compliance_labels(orow.provider, orow.region),
        }

    def _unpriced(self, orow: Any) -> OfferPrice:
        return OfferPrice(
            **self._common(orow),
            pricing=None,
            price=None,
            currency=None,
            unit=None,
            price_usd_per_hour=None,
            price_usd_per_gpu_hour=None,
            as_of=None,
            source=orow.source,
            confidence=None,
            interruption_band=None,
            term=None,
            stale=False,
            price_reason=orow.price_reason or "no price in the catalog",
        )

    def _priced(self, orow: Any, pr: Any, rate: ExchangeRate | None) -> OfferPrice:
        hourly = pr.amount / HOURS_PER_MONTH if pr.unit == "month" else pr.amount
        usd_hour: float | None = None
        reason: str | None = None
        if rate is None:
            reason = (
                f"no dated {pr.currency}->USD exchange rate; set GPUPLAN_USD_PER_{pr.currency} "
                f"(CLI: --usd-per-{pr.currency.lower()})"
            )
        else:
            usd_hour = hourly * rate.usd_per_unit
        as_of_date = _as_of_date(pr.as_of)
        stale = as_of_date is not None and (self._today - as_of_date).days > self.stale_after_days
        return OfferPrice(
            **self._common(orow),
            pricing=pr.pricing,
            price=pr.amount,
            currency=pr.currency,
            unit=pr.unit,
            price_usd_per_hour=usd_hour,
            price_usd_per_gpu_hour=usd_hour / orow.gpu_count if usd_hour is not None else None,
            as_of=pr.as_of,
            source=pr.source,
            confidence=pr.confidence,
            interruption_band=pr.interruption_band,
            term=json.loads(pr.term_json) if pr.term_json else None,
            stale=stale,
            price_reason=reason,
            exchange_rate_usd_per_unit=rate.usd_per_unit if rate else None,
            exchange_rate_as_of=rate.as_of if rate else None,
        )

    # ---------------------------------------------------------------- info

    def info(self) -> CatalogInfo:
        """Counts, providers, date range, location and schema revision."""
        o, p = t.offers.c, t.prices.c
        with self._engine.connect() as conn:
            by_provider: dict[str, int] = {
                r[0]: int(r[1]) for r in conn.execute(select(o.provider, func.count()).group_by(o.provider))
            }
            by_pricing: dict[str, int] = {
                r[0]: int(r[1]) for r in conn.execute(select(p.pricing, func.count()).group_by(p.pricing))
            }
            oldest, newest = conn.execute(select(func.min(p.as_of), func.max(p.as_of))).one()
            n_imports = conn.execute(select(func.count()).select_from(t.imports)).scalar_one()
            currencies = [r[0] for r in conn.execute(select(t.exchange_rates.c.currency).distinct())]
        rates = [
            r for r in (self.find_exchange_rate(c) for c in sorted({*currencies, *self._rate_overrides})) if r
        ]
        return CatalogInfo(
            location=self.location,
            schema_revision=self.revision,
            providers=tuple(sorted(by_provider)),
            offers=sum(by_provider.values()),
            prices=sum(by_pricing.values()),
            offers_by_provider=dict(sorted(by_provider.items())),
            prices_by_pricing=dict(sorted(by_pricing.items(), key=lambda kv: _PRICING_ORDER.get(kv[0], 99))),
            oldest_as_of=oldest,
            newest_as_of=newest,
            imports=int(n_imports),
            exchange_rates=tuple(rates),
            stale_after_days=self.stale_after_days,
        )


_PRICING_ORDER = {m.value: i for i, m in enumerate(PricingModel)}
