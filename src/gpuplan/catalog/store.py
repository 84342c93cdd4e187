"""The embedded catalog store: SQLite by default, any SQLAlchemy URL (PostgreSQL) by choice.

Prices are appended with their date and never overwritten; the current price of an offer under a
pricing model is the one with the latest ``as_of``, then the latest import. The schema is created
and upgraded by the Alembic migrations shipped in ``migrations/``.

Startup time: browsing (``offers``, exchange rates, billing and compliance facts) runs plain SQL. On
a SQLite file already at the head revision and holding the shipped snapshot, it goes through the
standard library's ``sqlite3`` and SQLAlchemy is never imported (it alone costs ~0.3 s of CPU);
everything else, and every other database, goes through SQLAlchemy, created on first use.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections import namedtuple
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuplan.catalog.dates import PriceAge, price_age
from gpuplan.catalog.model import (
    ANY_REGION,
    HOURS_PER_MONTH,
    NO_PRICE,
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
    RejectedRow,
    StoragePrice,
    TransferTier,
    trusted_offer_price,
)
from gpuplan.catalog.providers import PROVIDERS
from gpuplan.catalog.spot_floors import DatedSpot, dated_spot_prices, needs_gpu_floor, with_gpu_floors
from gpuplan.errors import DataError, InputError, StoreError
from gpuplan.hardware import launch_month
from gpuplan.i18n.messages import N_

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from gpuplan.catalog.importing import ImportedFile
    from gpuplan.catalog.local_store import LocalStore

__all__ = ["ANY_REGION", "Store"]

#: Region value of rows that hold for every region of a provider.


@lru_cache(maxsize=1024)  # a catalog has a few dozen distinct dates; the result is not mutated
def _age(as_of: str, today: date, limit_days: int, launched: str | None = None) -> dict[str, Any]:
    """The age fields of a price dated ``as_of`` (:func:`gpuplan.catalog.dates.price_age`): its
    precision, its oldest and youngest possible age in days, and whether it is fresh, stale or of
    unknown age against ``limit_days``. An unreadable date is of unknown age and stale.
    ``launched``: the launch month of the offer's GPU, which bounds an undated price's oldest age."""
    age = price_age(as_of, today, limit_days, launched)
    if age.precision is None:
        # every field named, as for a readable date: the row takes this dict's keys as its own
        return {
            "as_of_precision": None,
            "age_days": None,
            "age_min_days": None,
            "staleness": "unknown",
            "stale": True,
            "stale_after_days": limit_days,
            "priced_on": today,
            "age_bound_launch": None,
        }
    return {
        "as_of_precision": age.precision.value,
        "age_days": age.age_days,
        "age_min_days": age.age_min_days,
        "staleness": age.staleness,
        "stale": age.stale,
        "stale_after_days": limit_days,
        "priced_on": today,
        "age_bound_launch": age.launched,
    }


@dataclass(frozen=True)
class _Facts:
    """Per-provider facts joined onto every offer row (loaded once per Store)."""

    billing: dict[tuple[str, str], BillingPolicy]
    compliance: dict[tuple[str, str], tuple[str, ...]]
    """Labels from a source that can be relied on (:data:`CERTAIN_COMPLIANCE`), per provider/region."""
    compliance_claimed: dict[tuple[str, str], tuple[str, ...]]
    """Labels only claimed (a low-confidence source), per provider/region."""
    compliance_rows: tuple[ComplianceLabel, ...]
    """Every compliance row with its source, in insertion order."""
    discounts: list[Any]
    """The user's negotiated discounts (:class:`gpuplan.catalog.discounts.Discount`)."""


@cache
def _row_type(columns: tuple[str, ...]) -> Any:
    return namedtuple("Row", columns)


def _named(cursor: sqlite3.Cursor) -> list[Any]:
    # One row class per statement, not per row: at catalog size (8,000 offers, 13,000 prices) a
    # per-row factory spends more time reading ``cursor.description`` than SQLite spends on the query.
    if cursor.description is None:
        return cursor.fetchall()
    make = _row_type(tuple(d[0] for d in cursor.description))._make
    # Row by row from the cursor: each plain tuple is freed as its named one is made, not all
    # 13,000 held until the last is converted.
    return list(map(make, cursor))


class Store:
    """The catalog database. Create with :func:`open_store`."""

    def __init__(
        self,
        url: str,
        *,
        location: str,
        revision: str,
        stale_after_days: int,
        today: date,
        engine: Engine | None = None,
        engine_factory: Callable[[str], Engine] | None = None,
    ) -> None:
        self._url = url
        self._engine = engine
        self._engine_factory = engine_factory
        self._sqlite_path: Path | None = None
        self._reader: sqlite3.Connection | None = None
        self.location = location
        self.revision = revision
        self.stale_after_days = stale_after_days
        self._today = today
        self._rate_overrides: dict[str, ExchangeRate] = {}
        self._facts: _Facts | None = None
        self._fact_cache: dict[tuple[str, str], list[Any]] = {}
        self._superseded: tuple[int, ...] | None = None
        self._dated_spot: dict[str, tuple[DatedSpot, ...]] | None = None
        self._on_demand_rows: dict[tuple[str, str, str], OfferPrice] | None = None

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine (created on first use; for layers that keep their own tables here)."""
        if self._engine is None:
            if self._engine_factory is None:
                raise StoreError.worded(
                    N_("this store was opened without a database engine; use open_store()")
                )
            self._engine = self._engine_factory(self._url)
        return self._engine

    def use_plain_sqlite(self, path: Path | None) -> None:
        """Read through the standard library's sqlite3 from ``path`` (None: through SQLAlchemy)."""
        self._sqlite_path = path

    def close(self) -> None:
        """Release connections."""
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        if self._engine is not None:
            self._engine.dispose()

    def invalidate_caches(self) -> None:
        """Forget cached facts (after a write)."""
        self._facts = None
        self._fact_cache.clear()
        self._superseded = None
        self._dated_spot = None
        self._on_demand_rows = None

    def _superseded_imports(self) -> tuple[int, ...]:
        """Ids of the offer imports of shipped snapshots older than the newest one loaded.

        A newer snapshot replaces the older one's rows rather than adding to them: its prices are the
        current ones even where its ``as_of`` sorts lower (an undated source's bounds), and an offer
        or price it no longer ships (a price found to be another list's) does not come back from the
        older snapshot. The older rows stay in the price history."""
        if self._superseded is None:
            newest = self._query(
                "SELECT snapshot_id FROM imports WHERE kind = 'snapshot' ORDER BY id DESC LIMIT 1"
            )
            self._superseded = (
                tuple(
                    r.id
                    for r in self._query(
                        "SELECT id FROM imports WHERE kind = 'snapshot-offers' AND snapshot_id <> :sid",
                        {"sid": newest[0].snapshot_id},
                    )
                )
                if newest
                else ()
            )
        return self._superseded

    def _fact_rows(self, table: str, provider: str) -> list[Any]:
        """Every row of facts table ``table`` for ``provider``, in insertion order, read once until
        the next write (:mod:`gpuplan.catalog.provider_facts`)."""
        key = (table, provider)
        if key not in self._fact_cache:
            if table not in _FACT_TABLES:
                raise ValueError(f"not a facts table: {table}")
            self._fact_cache[key] = self._query(
                f"SELECT * FROM {table} WHERE provider = :provider ORDER BY id", {"provider": provider}
            )
        return self._fact_cache[key]

    def _query(self, sql: str, params: dict[str, Any] | None = None) -> list[Any]:
        """Rows of a read-only SQL statement with ``:name`` parameters, with attribute access."""
        if self._sqlite_path is not None:
            if self._reader is None:
                # Autocommit (isolation_level None): every SELECT sees the latest committed write.
                self._reader = sqlite3.connect(
                    f"{self._sqlite_path.as_uri()}?mode=ro",
                    uri=True,
                    isolation_level=None,
                    check_same_thread=False,
                )
            try:
                return _named(self._reader.execute(sql, params or {}))
            except sqlite3.Error as e:
                raise StoreError.worded(
                    N_("cannot read the catalog database {location}: {why}"), location=self.location, why=e
                ) from e
        from sqlalchemy import text

        with self.engine.connect() as conn:
            return list(conn.execute(text(sql), params or {}).all())

    @property
    def today(self) -> date:
        """The day the catalog was opened: ages of prices and exchange rates are counted to it."""
        return self._today

    def age_of(self, as_of: str | None, gpu: str | None = None) -> PriceAge:
        """How old a price dated ``as_of`` is on :attr:`today`, against this catalog's staleness limit:
        the rule its offers are aged by (a saved plan's prices, a price's history); ``gpu``: the
        offer's GPU, whose launch bounds an undated price's age as an offer's is."""
        return price_age(as_of, self._today, self.stale_after_days, launch_month(gpu) if gpu else None)

    # ---------------------------------------------------------------- exchange rates

    def override_exchange_rate(self, rate: ExchangeRate) -> None:
        """Use ``rate`` for its currency in this session instead of the stored ones (not persisted)."""
        self._rate_overrides[Currency.cast(rate.currency).code] = rate

    def add_exchange_rate(self, rate: ExchangeRate) -> None:
        """Append a dated rate to the database (history kept; the latest ``as_of`` wins)."""
        from sqlalchemy import insert

        from gpuplan.catalog import schema as t

        code = Currency.cast(rate.currency).code
        if not (math.isfinite(rate.usd_per_unit) and rate.usd_per_unit > 0):
            raise DataError.worded(
                N_("exchange rate for {code} must be positive, got {rate}"),
                code=code,
                rate=repr(rate.usd_per_unit),
            )
        from gpuplan.catalog.transactions import writing

        with writing(self.engine) as conn:
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
            raise DataError.worded(
                N_(
                    "no dated {code}->USD exchange rate in the catalog; set one, e.g. "
                    "GPUPLAN_USD_PER_{code}=<USD per {code}> (CLI: --usd-per-{lower})"
                ),
                code=code,
                lower=code.lower(),
            )
        return rate

    def find_exchange_rate(self, currency: str) -> ExchangeRate | None:
        """Like :meth:`exchange_rate`, but None instead of an error when no rate is known."""
        code = Currency.cast(currency).code
        if code == "USD":
            return ExchangeRate(currency="USD", usd_per_unit=1.0, as_of="-", source="identity")
        if code in self._rate_overrides:
            return self._dated(self._rate_overrides[code])
        rows = self._query(
            "SELECT usd_per_unit, as_of, source FROM exchange_rates WHERE currency = :currency "
            "ORDER BY as_of DESC, id DESC LIMIT 1",
            {"currency": code},
        )
        if not rows:
            return None
        row = rows[0]
        return self._dated(
            ExchangeRate(currency=code, usd_per_unit=row.usd_per_unit, as_of=row.as_of, source=row.source)
        )

    def _dated(self, rate: ExchangeRate) -> ExchangeRate:
        """``rate`` with its age on the day the catalog was opened (None when ``as_of`` is no date)."""
        try:
            fixed = date.fromisoformat(rate.as_of.strip()[:10])
        except ValueError:
            return replace(rate, age_days=None)
        return replace(rate, age_days=max(0, (self._today - fixed).days))

    # ---------------------------------------------------------------- billing and compliance

    def _load_facts(self) -> _Facts:
        if self._facts is None:
            billing: dict[tuple[str, str], BillingPolicy] = {}
            for r in self._query(
                "SELECT provider, region, granularity_s, min_billing_s, as_of, source, reason "
                "FROM billing_policies ORDER BY id"
            ):
                # Later rows (newer imports) replace earlier ones.
                billing[(r.provider, r.region)] = BillingPolicy(
                    provider=r.provider,
                    region=r.region,
                    granularity_s=r.granularity_s,
                    min_billing_s=r.min_billing_s,
                    as_of=r.as_of,
                    source=r.source,
                    reason=r.reason,
                )
            from gpuplan.catalog.provider_facts import compliance_label

            rows = tuple(
                compliance_label(r)
                for r in self._query(
                    "SELECT provider, region, label, as_of, source, confidence "
                    "FROM compliance_labels ORDER BY id"
                )
            )
            # A label from a low-confidence source is a claim (an article saying so, not the
            # certificate): kept apart, so that it satisfies a required label only when asked.
            certain: dict[tuple[str, str], list[str]] = {}
            claimed: dict[tuple[str, str], list[str]] = {}
            for row in rows:
                labels = (certain if row.certain else claimed).setdefault((row.provider, row.region), [])
                if row.label not in labels:
                    labels.append(row.label)
            from gpuplan.catalog.discounts import discounts

            self._facts = _Facts(
                billing=billing,
                compliance={k: tuple(v) for k, v in certain.items()},
                compliance_claimed={k: tuple(v) for k, v in claimed.items()},
                compliance_rows=rows,
                discounts=discounts(self),
            )
        return self._facts

    def billing_policy(self, provider: str, region: str) -> BillingPolicy:
        """How ``provider`` bills compute in ``region`` (granularity None = unknown: assume hourly)."""
        return self._billing(PROVIDERS.cast(provider), region)

    def _billing(self, p: str, region: str) -> BillingPolicy:
        # ``p`` is a provider code as stored: the listing asks without loading the provider modules.
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
        """Compliance labels of a provider/region from a source that can be relied on (provider-wide
        labels included); the labels only claimed are :meth:`compliance_claims`."""
        return self._compliance(PROVIDERS.cast(provider), region)

    def compliance_claims(self, provider: str, region: str) -> tuple[str, ...]:
        """Compliance labels a low-confidence source claims for a provider/region (provider-wide
        claims included), less those a reliable source gives it."""
        return self._claims(PROVIDERS.cast(provider), region)

    def _compliance(self, p: str, region: str) -> tuple[str, ...]:
        facts = self._load_facts()
        return facts.compliance.get((p, ANY_REGION), ()) + facts.compliance.get((p, region), ())

    def _claims(self, p: str, region: str) -> tuple[str, ...]:
        facts = self._load_facts()
        certain = set(self._compliance(p, region))
        claims = facts.compliance_claimed.get((p, ANY_REGION), ()) + facts.compliance_claimed.get(
            (p, region), ()
        )
        return tuple(c for c in dict.fromkeys(claims) if c not in certain)

    def known_compliance_labels(self) -> list[str]:
        """Every compliance label the catalog holds for any provider or region, sorted (those only
        claimed included: a label is known however it is sourced)."""
        return sorted({row.label for row in self._load_facts().compliance_rows})

    def all_compliance_details(self) -> tuple[ComplianceLabel, ...]:
        """Every compliance label of every provider with its source and confidence."""
        return self._load_facts().compliance_rows

    def compliance_details(self, provider: str) -> list[ComplianceLabel]:
        """The compliance labels of a provider with their sources."""
        from gpuplan.catalog import provider_facts

        return provider_facts.compliance_details(self._fact_rows, provider)

    # ---------------------------------------------------------------- transfer, storage, licences

    def egress_tiers(self, provider: str, region: str) -> list[TransferTier]:
        """Internet egress tiers of ``region``, ordered by tier start.

        Without rows for ``region``, the provider's generic/default-region rows, with
        ``fallback=True`` and a ``reason``; a tier whose price is unknown has ``price_per_gb=None``.
        """
        from gpuplan.catalog import provider_facts

        return provider_facts.egress_tiers(self._fact_rows, provider, region)

    def inter_region_price(self, provider: str, region: str) -> TransferTier | None:
        """Price of moving data from ``region`` to another region of the provider; None if unknown."""
        from gpuplan.catalog import provider_facts

        return provider_facts.inter_region_price(self._fact_rows, provider, region)

    def storage_prices(self, provider: str, region: str) -> list[StoragePrice]:
        """Object and block storage prices of ``region`` (default-region rows as fallback)."""
        from gpuplan.catalog import provider_facts

        return provider_facts.storage_prices(self._fact_rows, provider, region)

    def priced_transfer(self, kind: str) -> list[TransferTier]:
        """Every priced transfer tier of ``kind`` the catalog holds, across providers and regions."""
        from gpuplan.catalog import provider_facts

        return provider_facts.priced_transfer(self._fact_rows, kind)

    def priced_storage(self, kind: str) -> list[StoragePrice]:
        """Every priced storage row of ``kind`` the catalog holds, across providers and regions."""
        from gpuplan.catalog import provider_facts

        return provider_facts.priced_storage(self._fact_rows, kind)

    def licence_fees(self, provider: str, region: str) -> list[LicenceFee]:
        """Licence fees (or their known absence, or unknown with a reason) for a provider/region."""
        from gpuplan.catalog import provider_facts

        return provider_facts.licence_fees(self._fact_rows, provider, region)

    # ---------------------------------------------------------------- what this machine records

    @property
    def local(self) -> LocalStore:
        """The profile cache and bench results kept in the same database (their own module)."""
        from gpuplan.catalog.local_store import LocalStore

        return LocalStore(self)

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
        file: ImportedFile | None = None,
        as_of: str | None = None,
    ) -> ImportReport:
        """Gate ``rows`` and store those that pass, in one transaction (all or nothing).

        ``rejected`` are rows the parser already refused (truncated lines …); they are reported
        along with the rows the gates refuse. Offers are matched on (provider, region, zone,
        instance type); their prices are appended, never overwritten. ``file`` and ``as_of``: the
        file read and the ``--as-of`` given, which ``catalog imports`` lists the import by.
        """
        from gpuplan.catalog import importing

        return importing.import_offers(
            self,
            rows,
            provider=provider,
            source=source,
            kind=kind,
            rejected=rejected,
            snapshot_id=snapshot_id,
            file=file,
            as_of=as_of,
        )

    def known_instances(self) -> dict[tuple[str, str], tuple[str, float]]:
        """(provider, instance type) -> (GPU id, count) for every instance type in the catalog."""
        rows = self._query("SELECT DISTINCT provider, instance_type, gpu, gpu_count FROM offers")
        return {(r.provider, r.instance_type): (r.gpu, r.gpu_count) for r in rows}

    def instance_host(
        self, provider: str, instance_type: str
    ) -> tuple[float, float | None, float | None] | None:
        """(GPUs, vCPUs, memory GiB) of one instance of ``instance_type`` on ``provider``; None where
        the catalog lists no such instance. A figure the catalog does not list is None; one listed
        at several sizes (a row per region) is the smallest: unknown is never the best case, and a
        pod that asks for more than its node has never starts."""
        rows = self._query(
            "SELECT DISTINCT gpu_count, vcpus, memory_gib FROM offers "
            "WHERE provider = :provider AND instance_type = :instance_type",
            {"provider": provider, "instance_type": instance_type},
        )
        if not rows:
            return None

        def least(values: list[float | None]) -> float | None:
            known = [v for v in values if v is not None]
            return min(known) if known else None

        gpus = least([r.gpu_count for r in rows])
        assert gpus is not None  # gpu_count is never null
        return gpus, least([r.vcpus for r in rows]), least([r.memory_gib for r in rows])

    def instance_networks(self, gpu: str) -> dict[tuple[str, str], tuple[float | None, str | None]]:
        """(provider, instance type) -> (network Gbit/s, network kind) for every instance type of
        ``gpu`` (its canonical id); None where the catalog does not list it. An instance type listed
        with several speeds (one per region) has the slowest: unknown is never the best case."""
        rows = self._query(
            "SELECT DISTINCT provider, instance_type, network_gbps, network_kind FROM offers "
            "WHERE gpu = :gpu",
            {"gpu": gpu},
        )
        found: dict[tuple[str, str], tuple[float | None, str | None]] = {}
        for r in rows:
            key, here = (r.provider, r.instance_type), (r.network_gbps, r.network_kind)
            had = found.get(key)
            if had is None or had[0] is None or (here[0] is not None and here[0] < had[0]):
                found[key] = here
        return found

    # ---------------------------------------------------------------- offers

    def regions(self, provider: str | None = None) -> list[str]:
        """Every region with offers (of ``provider`` when given), sorted."""
        if provider is None:
            rows = self._query("SELECT DISTINCT region FROM offers ORDER BY region")
        else:
            rows = self._query(
                "SELECT DISTINCT region FROM offers WHERE provider = :provider ORDER BY region",
                {"provider": PROVIDERS.cast(provider)},
            )
        return [r.region for r in rows]

    @staticmethod
    def _gpu_ids(gpu: str) -> list[str]:
        """Canonical ids a GPU filter stands for: one, or every choice of an ambiguous family name."""
        from gpuplan.hardware import (
            all_gpus,
            gpus_named,
        )  # lazy: a listing without a GPU filter needs neither

        ids = {g.id for g in all_gpus()}
        if gpu in ids:
            return [gpu]
        # "a100" filters over every A100 variant instead of failing; "a10x" is refused.
        return [g.id for g in gpus_named(gpu)]

    def offers(
        self,
        *,
        gpu: str | Sequence[str] | None = None,
        count: int | None = None,
        min_gpu_memory_gib: float | None = None,
        provider: str | Sequence[str] | None = None,
        region: str | Sequence[str] | None = None,
        pricing: str | Sequence[str] | None = None,
        include_unpriced: bool = False,
        instance_type: Sequence[str] | None = None,
        floored: bool = True,
    ) -> list[OfferPrice]:
        """One row per offer x pricing model with its current price, filtered.

        ``gpu`` is a canonical id or a name people type (an ambiguous family such as ``a100``
        matches all its variants); ``count`` is the exact GPUs per instance. ``gpu``, ``provider``,
        ``region`` and ``pricing`` each take one name or several (an offer matching any of them).
        Offers without any price appear (with ``pricing=None`` and ``price_reason``) only with
        ``include_unpriced``.

        A spot price of unknown age carries the dated spot price of its GPU it is held to
        (:mod:`gpuplan.catalog.spot_floors`), read from the whole catalog whatever the filter;
        ``floored=False``: the rows as the database holds them, without those floors.
        """
        conds: list[str] = []
        params: dict[str, Any] = {}
        if provider is not None:
            codes = [PROVIDERS.cast(p) for p in _several(provider)]
            conds.append(_in_list("provider", codes, params))
        if region is not None:
            conds.append(_in_list("region", _several(region), params))
        if instance_type is not None:  # (the instance types of the prices a snapshot took out)
            conds.append(_in_list("instance_type", list(instance_type), params))
        gpu_ids: list[str] | None = (
            sorted({i for g in _several(gpu) for i in self._gpu_ids(g)}) if gpu is not None else None
        )
        if min_gpu_memory_gib is not None:
            if not (math.isfinite(min_gpu_memory_gib) and min_gpu_memory_gib >= 0):
                raise InputError.worded(
                    N_("minimum GPU memory must be a number of GiB, 0 or more (got {got})"),
                    got=min_gpu_memory_gib,
                )
            from gpuplan.hardware import all_gpus

            big = [g.id for g in all_gpus() if g.memory_gib >= min_gpu_memory_gib]
            gpu_ids = big if gpu_ids is None else [g for g in gpu_ids if g in big]
        if gpu_ids is not None:
            if not gpu_ids:
                return []
            names = [f"g{i}" for i in range(len(gpu_ids))]
            conds.append(f"gpu IN ({', '.join(':' + n for n in names)})")
            params.update(zip(names, gpu_ids, strict=True))
        if count is not None:
            conds.append("gpu_count = :count")
            params["count"] = count
        pricing_values = [PricingModel.cast(m).value for m in _several(pricing or [])]
        superseded = self._superseded_imports()
        # The current price per (offer, pricing): the latest as_of, then the latest import (largest
        # id) among the prices of the current snapshot's imports and of refreshes.
        price_conds = [f"p.offer_id IN (SELECT id FROM offers WHERE {' AND '.join(conds)})"] if conds else []
        newer = (
            "q.offer_id = p.offer_id AND q.pricing = p.pricing "
            "AND (q.as_of > p.as_of OR (q.as_of = p.as_of AND q.id > p.id))"
        )
        if superseded:
            # an offer whose every price came from an older snapshot is one the newest no longer ships
            old = ", ".join(str(i) for i in superseded)
            price_conds.append(f"p.import_id NOT IN ({old})")
            newer += f" AND q.import_id NOT IN ({old})"
            conds.append(
                f"id NOT IN (SELECT offer_id FROM prices WHERE import_id IN ({old}) EXCEPT "
                f"SELECT offer_id FROM prices WHERE import_id NOT IN ({old}))"
            )
        where = f" WHERE {' AND '.join(conds)}" if conds else ""
        offer_rows = self._query(
            "SELECT id, provider, region, zone, instance_type, gpu, gpu_count, vcpus, memory_gib, "
            "network_gbps, interconnect, source, price_reason, network_kind, local_nvme_gb "
            f"FROM offers{where} "
            "ORDER BY provider, region, zone, instance_type",
            params,
        )
        if pricing_values:
            names = [f"pricing{i}" for i in range(len(pricing_values))]
            price_conds.append(f"p.pricing IN ({', '.join(':' + n for n in names)})")
            params.update(zip(names, pricing_values, strict=True))
        # NOT EXISTS a newer price, on the (offer_id, pricing, as_of) index: half the time of ranking
        # every price with a window function at catalog size.
        price_conds.append(f"NOT EXISTS (SELECT 1 FROM prices q WHERE {newer})")
        price_rows = self._query(
            "SELECT p.offer_id, p.pricing, p.amount, p.currency, p.unit, p.as_of, p.source, p.confidence, "
            # A spot price without an interruption band, or without the dated spot prices of its
            # region that an undated one is held to (the term), keeps the offer's last ones: both
            # are facts of the instance type in its region (AWS Spot Advisor, instances.vantage.sh),
            # not of its price — a spot price of one's own imported for it had dropped them.
            "COALESCE(p.interruption_band, CASE WHEN p.pricing = 'spot' THEN (SELECT b.interruption_band "
            "FROM prices b WHERE b.offer_id = p.offer_id AND b.pricing = 'spot' AND b.interruption_band "
            "IS NOT NULL ORDER BY b.as_of DESC, b.id DESC LIMIT 1) END) AS interruption_band, "
            "COALESCE(p.term_json, CASE WHEN p.pricing = 'spot' THEN (SELECT t.term_json FROM prices t "
            "WHERE t.offer_id = p.offer_id AND t.pricing = 'spot' AND t.term_json IS NOT NULL "
            "ORDER BY t.as_of DESC, t.id DESC LIMIT 1) END) AS term_json, "
            "p.fetched_at, i.kind AS import_kind FROM prices p "
            f"LEFT JOIN imports i ON i.id = p.import_id WHERE {' AND '.join(price_conds)}",
            params,
        )
        prices_by_offer: dict[int, list[Any]] = {}
        for pr in price_rows:
            prices_by_offer.setdefault(pr.offer_id, []).append(pr)

        from gpuplan.catalog.discounts import discounted, matching

        discounts = self._load_facts().discounts
        rates: dict[str, ExchangeRate | None] = {}
        # Billing and compliance facts are per provider x region: looked up once per call, not per row.
        shared: dict[tuple[str, str], dict[str, Any]] = {}
        out: list[OfferPrice] = []
        for orow in offer_rows:
            plist = prices_by_offer.get(orow.id)
            if not plist:
                if include_unpriced and not pricing_values:
                    out.append(self._unpriced(orow, shared))
                continue
            if len(plist) > 1:
                plist.sort(key=_pricing_rank)
            common = self._common(orow, shared)  # once per offer, shared by its prices
            for pr in plist:
                if pr.currency not in rates:
                    rates[pr.currency] = self.find_exchange_rate(pr.currency)
                # a discount names the pricing models it is taken off (spot only where named)
                mine = (
                    matching(discounts, orow.provider, orow.instance_type, pr.pricing)
                    if discounts and discounted(pr.import_kind)
                    else None
                )
                out.append(self._priced(common, orow, pr, rates[pr.currency], mine))
        return self._with_gpu_floors(out) if floored else out

    def _with_gpu_floors(self, rows: list[OfferPrice]) -> list[OfferPrice]:
        """``rows`` with each spot price of unknown age held to its GPU's dated spot price (else to its
        instance's on-demand price), read once from the whole catalog and kept until a write."""
        undated = [r for r in rows if needs_gpu_floor(r)]
        if not undated:
            return rows
        if self._dated_spot is None:
            self._dated_spot = dated_spot_prices(
                self.offers(pricing="spot", floored=False), self._today, self.stale_after_days
            )
        on_demand: dict[tuple[str, str, str], OfferPrice] = {}
        if any(not self._dated_spot.get(r.gpu) for r in undated):  # the on-demand bound is needed
            if self._on_demand_rows is None:
                lowest: dict[tuple[str, str, str], OfferPrice] = {}
                for o in self.offers(pricing="on_demand", floored=False):
                    if o.price_usd_per_gpu_hour is None:
                        continue
                    key = (o.provider, o.region, o.instance_type)  # of its zones, the lowest
                    held = lowest.get(key)
                    if held is None or o.price_usd_per_gpu_hour < (held.price_usd_per_gpu_hour or 0.0):
                        lowest[key] = o
                self._on_demand_rows = lowest
            on_demand = self._on_demand_rows
        return with_gpu_floors(rows, self._dated_spot, on_demand)

    def _common(self, orow: Any, shared: dict[tuple[str, str], dict[str, Any]]) -> dict[str, Any]:
        key = (orow.provider, orow.region)
        if key not in shared:
            billing = self._billing(orow.provider, orow.region)
            shared[key] = {
                "billing_granularity_s": billing.granularity_s,
                "min_billing_s": billing.min_billing_s,
                "compliance": self._compliance(orow.provider, orow.region),
                "compliance_claimed": self._claims(orow.provider, orow.region),
            }
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
            "network_kind": orow.network_kind,
            "local_nvme_gb": orow.local_nvme_gb,
            **shared[key],
        }

    def _unpriced(self, orow: Any, shared: dict[tuple[str, str], dict[str, Any]]) -> OfferPrice:
        return OfferPrice(
            **self._common(orow, shared),
            pricing=None,
            source=orow.source,
            price_reason=orow.price_reason or N_("no price in the catalog"),  # translated when shown
            **NO_PRICE,
        )

    def _priced(
        self, common: dict[str, Any], orow: Any, pr: Any, rate: ExchangeRate | None, discount: Any
    ) -> OfferPrice:
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
        list_usd_hour: float | None = None
        if discount is not None and usd_hour is not None:
            list_usd_hour = usd_hour
            usd_hour = usd_hour * (1 - discount.percent / 100)
        return trusted_offer_price(
            {
                **common,
                "pricing": pr.pricing,
                "price": pr.amount,
                "currency": pr.currency,
                "unit": pr.unit,
                "price_usd_per_hour": usd_hour,
                "price_usd_per_gpu_hour": usd_hour / orow.gpu_count if usd_hour is not None else None,
                "as_of": pr.as_of,
                "source": pr.source,
                "confidence": pr.confidence,
                "interruption_band": pr.interruption_band,
                "term": json.loads(pr.term_json) if pr.term_json else None,
                "price_reason": reason,
                "exchange_rate_usd_per_unit": rate.usd_per_unit if rate else None,
                "exchange_rate_as_of": rate.as_of if rate else None,
                "fetched_at": pr.fetched_at,
                "list_price_usd_per_hour": list_usd_hour,
                "discount_percent": discount.percent if list_usd_hour is not None and discount else None,
                **_age(pr.as_of, self._today, self.stale_after_days, launch_month(orow.gpu)),
            }
        )

    # ---------------------------------------------------------------- info

    def info(self) -> CatalogInfo:
        """Counts, providers, date range, location and schema revision."""
        from sqlalchemy import func, select

        from gpuplan.catalog import schema as t

        o, p = t.offers.c, t.prices.c
        with self.engine.connect() as conn:
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
            coverage=_coverage(self),
        )


_PRICING_ORDER = {m.value: i for i, m in enumerate(PricingModel)}


def _several(names: str | Sequence[str]) -> list[str]:
    """One name or several, as a list."""
    return [names] if isinstance(names, str) else list(names)


def _in_list(column: str, values: Sequence[str], params: dict[str, Any]) -> str:
    """``column = :column`` for one value, ``column IN (...)`` for several, their parameters added."""
    if not values:
        return "0 = 1"
    if len(values) == 1:
        params[column] = values[0]
        return f"{column} = :{column}"
    names = [f"{column}{i}" for i in range(len(values))]
    params.update(zip(names, values, strict=True))
    return f"{column} IN ({', '.join(':' + n for n in names)})"


def _pricing_rank(price_row: Any) -> int:
    return _PRICING_ORDER[price_row.pricing]


#: The tables :meth:`Store._fact_rows` reads (named in SQL, so only these).
_FACT_TABLES = frozenset({"compliance_labels", "transfer_prices", "storage_prices", "licence_fees"})


def _coverage(store: Store) -> tuple[Any, ...]:
    from gpuplan.catalog.coverage import coverage

    return coverage(store)
