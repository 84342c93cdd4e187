"""The embedded catalog store: SQLite by default, any SQLAlchemy URL (PostgreSQL) by choice.

Prices are appended with their date and never overwritten; the current price of an offer under a
pricing model is the one with the latest ``as_of``, then the latest import. The schema is created
and upgraded by the Alembic migrations shipped in ``migrations/``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, func, insert, select
from sqlalchemy.exc import SQLAlchemyError

from gpuplan.catalog import schema as t
from gpuplan.catalog.gates import check_offer
from gpuplan.catalog.model import (
    HOURS_PER_MONTH,
    BenchResult,
    BillingPolicy,
    CatalogInfo,
    ComplianceLabel,
    Currency,
    ExchangeRate,
    ImportReport,
    LicenceFee,
    OfferPrice,
    OfferRow,
    PricingModel,
    Provider,
    RejectedRow,
    StoragePrice,
    TransferTier,
)
from gpuplan.errors import AmbiguousNameError, CatalogImportError, DataError, StoreError
from gpuplan.hardware import all_gpus, resolve_gpu

__all__ = ["DEFAULT_STALE_AFTER_DAYS", "Store", "default_db_path", "open_store"]

#: A price older than this many days is flagged ``stale``.
DEFAULT_STALE_AFTER_DAYS = 180
#: Region value of rows that hold for every region of a provider.
ANY_REGION = "*"


def default_db_path() -> Path:
    """Where the catalog lives when no database is given: the user's data directory."""
    import platformdirs  # lazy: only needed when no --db is given

    return Path(platformdirs.user_data_dir("gpuplan")) / "gpuplan.sqlite"


def _now_iso() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


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


@dataclass(frozen=True)
class _Facts:
    """Per-provider facts joined onto every offer row (loaded once per Store)."""

    billing: dict[tuple[str, str], BillingPolicy]
    compliance: dict[tuple[str, str], tuple[str, ...]]


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


class Store:
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

    def _load_facts(self) -> _Facts:
        if self._facts is None:
            billing: dict[tuple[str, str], BillingPolicy] = {}
            compliance: dict[tuple[str, str], list[str]] = {}
            with self._engine.connect() as conn:
                b = t.billing_policies.c
                for r in conn.execute(
                    select(
                        b.provider, b.region, b.granularity_s, b.min_billing_s, b.as_of, b.source, b.reason
                    ).order_by(b.id)
                ):
                    billing[(r.provider, r.region)] = BillingPolicy(
                        provider=r.provider,
                        region=r.region,
                        granularity_s=r.granularity_s,
                        min_billing_s=r.min_billing_s,
                        as_of=r.as_of,
                        source=r.source,
                        reason=r.reason,
                    )
                c = t.compliance_labels.c
                for lr in conn.execute(select(c.provider, c.region, c.label).order_by(c.id)):
                    labels = compliance.setdefault((lr.provider, lr.region), [])
                    if lr.label not in labels:
                        labels.append(lr.label)
            self._facts = _Facts(billing=billing, compliance={k: tuple(v) for k, v in compliance.items()})
        return self._facts

    def billing_policy(self, provider: str, region: str) -> BillingPolicy:
        """How ``provider`` bills compute in ``region`` (granularity None = unknown: assume hourly)."""
        p = Provider.cast(provider).value
        facts = self._load_facts()
        found = facts.billing.get((p, region)) or facts.billing.get((p, ANY_REGION))
        if found is not None:
            return found
        return BillingPolicy(
            provider=p,
            region=region,
            granularity_s=None,
            min_billing_s=None,
            as_of=None,
            source=None,
            reason="no billing granularity in the catalog; assume hourly billing",
        )

    def compliance_labels(self, provider: str, region: str) -> tuple[str, ...]:
        """Sourced compliance labels of a provider/region (provider-wide labels included)."""
        p = Provider.cast(provider).value
        facts = self._load_facts()
        return facts.compliance.get((p, ANY_REGION), ()) + facts.compliance.get((p, region), ())

    def compliance_details(self, provider: str) -> list[ComplianceLabel]:
        """The compliance labels of a provider with their sources."""
        p = Provider.cast(provider).value
        c = t.compliance_labels.c
        with self._engine.connect() as conn:
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

    def known_instances(self) -> dict[tuple[str, str], tuple[str, float]]:
        """(provider, instance type) -> (GPU id, count) for every instance type in the catalog."""
        o = t.offers.c
        with self._engine.connect() as conn:
            rows = conn.execute(select(o.provider, o.instance_type, o.gpu, o.gpu_count).distinct()).all()
        return {(r.provider, r.instance_type): (r.gpu, r.gpu_count) for r in rows}

    # ---------------------------------------------------------------- transfer, storage, licences

    def _transfer(self, provider: str, region: str, kind: str) -> list[TransferTier]:
        p = Provider.cast(provider).value
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
        with self._engine.connect() as conn:
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

    def egress_tiers(self, provider: str, region: str) -> list[TransferTier]:
        """Internet egress tiers of ``region``, ordered by tier start.

        Without rows for ``region``, the provider's generic/default-region rows, with
        ``fallback=True`` and a ``reason``; a tier whose price is unknown has ``price_per_gb=None``.
        """
        return self._transfer(provider, region, "internet_egress")

    def inter_region_price(self, provider: str, region: str) -> TransferTier | None:
        """Price of moving data from ``region`` to another region of the provider; None if unknown."""
        tiers = self._transfer(provider, region, "inter_region")
        return tiers[0] if tiers else None

    def storage_prices(self, provider: str, region: str) -> list[StoragePrice]:
        """Object and block storage prices of ``region`` (default-region rows as fallback)."""
        p = Provider.cast(provider).value
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
        with self._engine.connect() as conn:
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

    def licence_fees(self, provider: str, region: str) -> list[LicenceFee]:
        """Licence fees (or their known absence, or unknown with a reason) for a provider/region."""
        p = Provider.cast(provider).value
        c = t.licence_fees.c
        with self._engine.connect() as conn:
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

    # ---------------------------------------------------------------- other layers' tables

    def get_profile(self, key: str, schema_version: int) -> str | None:
        """The cached profile payload for ``key`` at ``schema_version``; None if absent or older."""
        c = t.profile_cache.c
        with self._engine.connect() as conn:
            row = conn.execute(
                select(c.payload).where(c.key == key, c.schema_version == schema_version)
            ).first()
        return None if row is None else str(row.payload)

    def put_profile(self, key: str, schema_version: int, payload: str) -> None:
        """Cache a profile payload (replacing any entry for ``key``)."""
        c = t.profile_cache.c
        with self._engine.begin() as conn:
            conn.execute(t.profile_cache.delete().where(c.key == key))
            conn.execute(
                insert(t.profile_cache).values(
                    key=key, schema_version=schema_version, created_at=_now_iso(), payload=payload
                )
            )

    def add_bench_results(self, results: Sequence[BenchResult]) -> None:
        """Append measurements (one transaction)."""
        if not results:
            return
        with self._engine.begin() as conn:
            conn.execute(
                insert(t.bench_results),
                [
                    {
                        "gpu_id": r.gpu_id,
                        "device_name": r.device_name,
                        "host": r.host,
                        "measured_at": r.measured_at,
                        "metric": r.metric,
                        "dtype": r.dtype,
                        "value": r.value,
                        "unit": r.unit,
                        "datasheet_value": r.datasheet_value,
                        "details": json.dumps(r.details, sort_keys=True),
                    }
                    for r in results
                ],
            )

    def bench_results(self, gpu_id: str | None = None) -> list[BenchResult]:
        """Stored measurements, oldest first; only ``gpu_id``'s when given."""
        c = t.bench_results.c
        stmt = select(
            c.gpu_id,
            c.device_name,
            c.host,
            c.measured_at,
            c.metric,
            c.dtype,
            c.value,
            c.unit,
            c.datasheet_value,
            c.details,
        ).order_by(c.measured_at, c.id)
        if gpu_id is not None:
            stmt = stmt.where(c.gpu_id == gpu_id)
        with self._engine.connect() as conn:
            rows = conn.execute(stmt).all()
        return [
            BenchResult(
                gpu_id=r.gpu_id,
                device_name=r.device_name,
                host=r.host,
                measured_at=r.measured_at,
                metric=r.metric,
                dtype=r.dtype,
                value=r.value,
                unit=r.unit,
                datasheet_value=r.datasheet_value,
                details=json.loads(r.details) if r.details else {},
            )
            for r in rows
        ]

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

    # ---------------------------------------------------------------- imports

    def import_offers(
        self,
        rows: Iterable[OfferRow],
        *,
        provider: str,
        source: str,
        kind: str = "manual",
        rejected: Sequence[RejectedRow] = (),
        snapshot_id: str | None = None,
    ) -> ImportReport:
        """Gate ``rows`` and store those that pass, in one transaction (all or nothing).

        ``rejected`` are rows the parser already refused (truncated lines …); they are reported
        along with the rows the gates refuse. Offers are matched on (provider, region, zone,
        instance type); their prices are appended, never overwritten.
        """
        prov = Provider.cast(provider).value
        rows = list(rows)
        known = self.known_instances()
        # Instance types first seen in this batch are checked against each other too.
        batch_known: dict[tuple[str, str], tuple[str, float]] = {}
        od_batch: dict[tuple[str, str, str], float] = {}
        for row in rows:
            for pr in row.prices:
                if pr.pricing == PricingModel.ON_DEMAND.value and pr.amount > 0:
                    key = (row.provider, row.region, row.instance_type)
                    od_batch[key] = min(od_batch.get(key, math.inf), pr.amount)
        current_od = self._current_on_demand(prov)

        def on_demand_hourly(row: OfferRow) -> float | None:
            key = (row.provider, row.region, row.instance_type)
            return od_batch.get(key, current_od.get(key))

        good: list[OfferRow] = []
        bad: list[RejectedRow] = list(rejected)
        for row in rows:
            reasons = check_offer(
                row,
                provider=prov,
                known_instances={**batch_known, **known},
                on_demand_hourly=on_demand_hourly,
            )
            if reasons:
                bad.append(
                    RejectedRow(
                        line=row.line,
                        instance_type=row.instance_type,
                        region=row.region,
                        reason="; ".join(reasons),
                    )
                )
            else:
                good.append(row)
                batch_known.setdefault((row.provider, row.instance_type), (row.gpu, row.gpu_count))
        # One file line can yield two rows (AWS: region on-demand + zone spot); report it once.
        bad = list(dict.fromkeys(bad))
        if not good:
            return ImportReport(
                provider=prov,
                source=source,
                offers_imported=0,
                prices_imported=0,
                rejected=tuple(bad),
                import_id=None,
            )
        try:
            with self._engine.begin() as conn:
                import_id = conn.execute(
                    insert(t.imports).values(
                        provider=prov,
                        kind=kind,
                        source=source,
                        snapshot_id=snapshot_id,
                        imported_at=_now_iso(),
                        rows_ok=len(good),
                        rows_rejected=len(bad),
                    )
                ).inserted_primary_key[0]  # type: ignore[index]
                n_offers, n_prices = self._write_offers(conn, good, import_id)
        except SQLAlchemyError as e:
            raise CatalogImportError(
                f"import of {prov} from {source} failed and was rolled back (database unchanged): {e}"
            ) from e
        self._facts = None
        return ImportReport(
            provider=prov,
            source=source,
            offers_imported=n_offers,
            prices_imported=n_prices,
            rejected=tuple(bad),
            import_id=int(import_id),
        )

    def _current_on_demand(self, provider: str) -> dict[tuple[str, str, str], float]:
        rows = self.offers(provider=provider, pricing=PricingModel.ON_DEMAND.value)
        out: dict[tuple[str, str, str], float] = {}
        for r in rows:
            if r.price is not None and r.unit == "hour":
                key = (r.provider, r.region, r.instance_type)
                out[key] = min(out.get(key, math.inf), r.price)
        return out

    @staticmethod
    def _write_offers(conn: Connection, rows: Sequence[OfferRow], import_id: int) -> tuple[int, int]:
        o = t.offers.c
        existing = {
            (r.provider, r.region, r.zone, r.instance_type): r.id
            for r in conn.execute(select(o.id, o.provider, o.region, o.zone, o.instance_type))
        }
        n_offers = 0
        price_values: list[dict[str, Any]] = []
        seen_prices: set[tuple[Any, ...]] = set()
        for row in rows:
            key = (row.provider, row.region, row.zone or "", row.instance_type)
            offer_id = existing.get(key)
            if offer_id is None:
                offer_id = conn.execute(
                    insert(t.offers).values(
                        provider=row.provider,
                        region=row.region,
                        zone=row.zone or "",
                        instance_type=row.instance_type,
                        gpu=row.gpu,
                        gpu_count=row.gpu_count,
                        vcpus=row.vcpus,
                        memory_gib=row.memory_gib,
                        network_gbps=row.network_gbps,
                        interconnect=row.interconnect,
                        source=row.source,
                        price_reason=row.price_reason,
                        notes=row.notes,
                    )
                ).inserted_primary_key[0]  # type: ignore[index]
                existing[key] = offer_id
                n_offers += 1
            for pr in row.prices:
                # The same price twice in one import (an on-demand price repeated on every zone
                # row of a region) is stored once.
                dedup = (offer_id, pr.pricing, pr.amount, pr.currency, pr.unit, pr.as_of)
                if dedup in seen_prices:
                    continue
                seen_prices.add(dedup)
                price_values.append(
                    {
                        "offer_id": offer_id,
                        "pricing": pr.pricing,
                        "amount": pr.amount,
                        "currency": Currency.cast(pr.currency).code,
                        "unit": pr.unit,
                        "as_of": pr.as_of,
                        "source": pr.source,
                        "confidence": pr.confidence,
                        "interruption_band": pr.interruption_band,
                        "term_json": json.dumps(pr.term, sort_keys=True) if pr.term else None,
                        "import_id": import_id,
                    }
                )
        if price_values:
            conn.execute(insert(t.prices), price_values)
        return n_offers, len(price_values)


_PRICING_ORDER = {m.value: i for i, m in enumerate(PricingModel)}


def _latest_import(rows: Sequence[Any]) -> list[Any]:
    """The rows of the newest import among ``rows``: a refreshed fact set supersedes the older one
    (the older rows stay in the database as history)."""
    if not rows:
        return []
    newest = max(r.import_id for r in rows)
    return [r for r in rows if r.import_id == newest]


def _fallback_reason(reason: str | None, fallback: bool, asked: str, used: str) -> str | None:
    if not fallback:
        return reason
    note = (
        f"no rows for region {asked!r}; using the provider's {'generic' if used == ANY_REGION else used} rows"
    )
    return f"{note}; {reason}" if reason else note
