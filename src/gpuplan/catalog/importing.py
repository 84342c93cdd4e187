"""Imports into the store: gate every row, write those that pass in one transaction per provider."""

from __future__ import annotations

import hashlib
import json
import math
from collections import ChainMap
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Protocol, TypeVar

from sqlalchemy import Connection, Engine, insert, select, update
from sqlalchemy.exc import SQLAlchemyError

from gpuplan.catalog import schema as t
from gpuplan.catalog.gates import offer_problems
from gpuplan.catalog.model import (
    Currency,
    ImportReport,
    OfferPrice,
    OfferRow,
    PricingModel,
    RejectedRow,
)
from gpuplan.catalog.providers import PROVIDERS
from gpuplan.errors import CatalogImportError, Phrase
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import item_list, separated

__all__ = [
    "ImportTarget",
    "ImportedFile",
    "import_of",
    "import_offers",
    "imported_file",
    "write_offers",
    "write_with_retry",
]


@dataclass(frozen=True)
class ImportedFile:
    """The file an import read, as its row in ``imports`` keeps it: its name (as the user gave it)
    and the SHA-256 of its bytes, so that ``catalog imports`` tells two files of one name apart."""

    name: str
    sha256: str


def imported_file(path: Path, name: str | None = None) -> ImportedFile:
    """``path``'s name (``name`` when given) and the SHA-256 of its bytes, read in blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return ImportedFile(name=name if name is not None else str(path), sha256=digest.hexdigest())


class ImportTarget(Protocol):
    """What an import needs of the store (the :class:`~gpuplan.catalog.store.Store` is one); a
    Protocol, so that this module does not import the store that calls it."""

    @property
    def engine(self) -> Engine: ...

    @property
    def today(self) -> date: ...

    def known_instances(self) -> dict[tuple[str, str], tuple[str, float]]: ...

    def offers(self, *, provider: str | None = ..., pricing: str | None = ...) -> list[OfferPrice]: ...

    def invalidate_caches(self) -> None: ...


T = TypeVar("T")


def _now_iso() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


def import_offers(
    store: ImportTarget,
    rows: Iterable[OfferRow],
    *,
    provider: str,
    source: str,
    kind: str = "manual",
    rejected: Sequence[RejectedRow] = (),
    snapshot_id: str | None = None,
    conn: Connection | None = None,
    today: date | None = None,
    file: ImportedFile | None = None,
    as_of: str | None = None,
) -> ImportReport:
    """Gate ``rows`` and store those that pass, in one transaction (all or nothing).

    ``conn``: write inside this open transaction (the caller commits) instead of a new one.
    ``today``: a price dated after it (one day of slack) is refused; None: the store's today.
    ``file`` and ``as_of``: the file read and the ``--as-of`` given, kept with the import's row for
    ``catalog imports`` (and an undo) to name it by.

    ``rejected`` are rows the parser already refused (truncated lines …); they are reported
    along with the rows the gates refuse. Offers are matched on (provider, region, zone,
    instance type); their prices are appended, never overwritten.
    """
    prov = PROVIDERS.cast(provider)
    rows = list(rows)
    known = store.known_instances()
    conflicts = _conflicting_prices(rows)
    # Instance types first seen in this batch are checked against each other too.
    batch_known: dict[tuple[str, str], tuple[str, float]] = {}
    od_batch: dict[tuple[str, str, str], float] = {}
    for i, row in enumerate(rows):
        if i in conflicts:
            continue  # refused below: neither figure may stand for the other's spot check
        for pr in row.prices:
            if pr.pricing == PricingModel.ON_DEMAND.value and pr.amount > 0:
                key = (row.provider, row.region, row.instance_type)
                od_batch[key] = min(od_batch.get(key, math.inf), pr.amount)
    current_od = _current_on_demand(store, prov)
    misplaced = _misplaced_zones(store, rows, prov, conn)

    def on_demand_hourly(row: OfferRow) -> float | None:
        key = (row.provider, row.region, row.instance_type)
        return od_batch.get(key, current_od.get(key))

    good: list[OfferRow] = []
    bad: list[RejectedRow] = list(rejected)
    # A file line is taken whole or not at all: the rows it was split into (AWS: the region's
    # on-demand, the zone's spot) stand or fall together, and with the line the reader refused.
    earlier: dict[_LineKey, RejectedRow] = {at: r for r in rejected if (at := _refusal_key(r)) is not None}
    # The store's instance types, then those of this file's lines taken so far (the store's win):
    # a view, not a copy of both a line, which made an import's time grow with the square of the
    # new instance types in its file.
    known_with_batch = ChainMap(known, batch_known)
    for at, members in _by_line(rows).items():
        reasons: list[object] = []
        zone_reasons: list[object] = []
        zone_checks: list[Phrase] = []
        for i in members:
            reasons += [conflicts[i]] if i in conflicts else []
            if i in misplaced:
                zone_reasons.append(misplaced[i][0])
                zone_checks.append(misplaced[i][1])
            reasons += offer_problems(
                rows[i],
                provider=prov,
                known_instances=known_with_batch,
                on_demand_hourly=on_demand_hourly,
                today=today or store.today,
            )
        # a line refused for its zone alone is counted under that check (a file of made-up zones
        # is one cause, however many rows it has)
        check = zone_checks[0] if zone_checks and not reasons and at not in earlier else None
        reasons = [*zone_reasons, *reasons]
        refused_before = earlier.get(at)
        if refused_before is not None and reasons:
            bad.remove(refused_before)
            reasons.insert(0, refused_before.worded_reason())
        elif refused_before is not None:
            continue  # the reader's refusal of the line stands for all of it
        if reasons:
            first = rows[members[0]]
            bad.append(
                RejectedRow.because(
                    separated(_distinct(reasons)),
                    line=first.line,
                    instance_type=first.instance_type,
                    region=first.region,
                    check=check,
                )
            )
            continue
        for i in members:
            good.append(rows[i])
            batch_known.setdefault(
                (rows[i].provider, rows[i].instance_type), (rows[i].gpu, rows[i].gpu_count)
            )
    # One file line can yield two rows (AWS: region on-demand + zone spot); report it once.
    # In file order, parser and gate rejections together (a line without a number goes last).
    bad = sorted(dict.fromkeys(bad), key=lambda r: (r.line is None, r.line or 0))
    if not good:
        return ImportReport(
            provider=prov,
            source=source,
            offers_imported=0,
            prices_imported=0,
            rejected=tuple(bad),
            import_id=None,
        )

    def write(conn: Connection) -> tuple[int, int, int, int]:
        import_id = conn.execute(
            insert(t.imports).values(
                provider=prov,
                kind=kind,
                source=source,
                snapshot_id=snapshot_id,
                imported_at=_now_iso(),
                rows_ok=len(good),
                rows_rejected=len(bad),
                file_name=file.name if file is not None else None,
                file_sha256=file.sha256 if file is not None else None,
                as_of=as_of,
            )
        ).inserted_primary_key[0]  # type: ignore[index]
        n_offers, n_prices, n_held = write_offers(conn, good, import_id)
        conn.execute(
            update(t.imports)
            .where(t.imports.c.id == import_id)
            .values(offers_added=n_offers, prices_added=n_prices)
        )
        return int(import_id), n_offers, n_prices, n_held

    if conn is not None:
        import_id, n_offers, n_prices, n_held = write(conn)
    else:
        import_id, n_offers, n_prices, n_held = write_with_retry(store, write, import_of(prov, source))
    store.invalidate_caches()
    return ImportReport(
        provider=prov,
        source=source,
        offers_imported=n_offers,
        prices_imported=n_prices,
        rejected=tuple(bad),
        import_id=int(import_id),
        prices_already_recorded=n_held,
        dated=_dates(good),
    )


def _dates(rows: Sequence[OfferRow]) -> tuple[str, ...]:
    """The distinct ``as_of`` of ``rows``' prices, earliest first (by the day each begins)."""
    from gpuplan.catalog.dates import parse_as_of

    def begins(day: str) -> tuple[date, str]:
        parsed = parse_as_of(day)
        return (parsed.earliest if parsed is not None else date.max, day)

    return tuple(sorted({pr.as_of for row in rows for pr in row.prices if pr.as_of}, key=begins))


#: Characters of an instance type a refusal keeps (:data:`~gpuplan.catalog.importers.skypilot_common`'s
#: and the price checks' cut): what a row and the refusal of its line are matched on.
_KEY_CHARS = 100


#: What the rows of one file line share: (line, instance type); (``""``, index) for a row without a line.
_LineKey = tuple[int, str] | tuple[str, int]


def _refusal_key(r: RejectedRow) -> _LineKey | None:
    return (r.line, r.instance_type[:_KEY_CHARS]) if r.line is not None else None


def _by_line(rows: Sequence[OfferRow]) -> dict[_LineKey, list[int]]:
    """Indices of ``rows`` by the file line (and instance type) they were read from, in file order.

    One line may yield several rows of one offer (AWS: the region's on-demand price, the zone's
    spot price) or several offers of different instance types (GCP: one N1 host with 1, 2 or 4
    attachable GPUs): the first stand or fall together, the second each on its own. A row without
    a line is a group of its own."""
    groups: dict[_LineKey, list[int]] = {}
    for i, row in enumerate(rows):
        at: _LineKey = (row.line, row.instance_type[:_KEY_CHARS]) if row.line is not None else ("", i)
        groups.setdefault(at, []).append(i)
    return groups


def _distinct(reasons: Sequence[object]) -> list[object]:
    """``reasons`` without repeats (both rows of one line may fail the same check)."""
    seen: set[str] = set()
    out: list[object] = []
    for r in reasons:
        if str(r) not in seen:
            seen.add(str(r))
            out.append(r)
    return out


def _conflicting_prices(rows: Sequence[OfferRow]) -> dict[int, Phrase]:
    """Rows (by index) that price one offer (provider, region, zone, instance type, pricing model,
    currency, unit and term) differently from another row of the same import: stored, the later
    one would silently stand as the current price. Equal figures are no conflict (a file may
    repeat a region's price on each of its zones' lines)."""
    seen: dict[tuple[Any, ...], list[tuple[int, float]]] = {}
    for i, row in enumerate(rows):
        for pr in row.prices:
            if not (math.isfinite(pr.amount) and pr.amount > 0):
                continue  # refused as a figure of its own
            term = json.dumps(pr.term, sort_keys=True) if pr.term else ""
            where = (row.provider, row.region, row.zone, row.instance_type)
            key = (*where, pr.pricing, pr.currency, pr.unit, term)
            seen.setdefault(key, []).append((i, pr.amount))
    out: dict[int, Phrase] = {}
    for key, found in seen.items():
        if len({amount for _, amount in found}) < 2:
            continue
        lines = sorted({n for i, _ in found if (n := rows[i].line) is not None})
        amounts = ", ".join(f"{a:g}" for a in sorted({a for _, a in found}))
        for i, _ in found:
            out[i] = Phrase(
                N_("{pricing} priced {amounts} for the same offer in one import (lines {lines}): keep one"),
                pricing=Phrase(key[4]),  # the pricing model's name, in the user's language
                amounts=amounts,
                lines=item_list(str(n) for n in lines) or "?",
            )
    return out


def import_of(provider: str, source: str) -> Phrase:
    """What a failed import's line calls it: "import of aws from <source>"."""
    return Phrase(N_("import of {provider} from {source}"), provider=provider, source=source)


#: Attempts of a write transaction that finds the database locked after the busy timeout.
WRITE_ATTEMPTS = 3


def write_with_retry(store: ImportTarget, write: Callable[[Connection], T], what: str | Phrase) -> T:
    """``write`` in its own transaction, tried again while another writer keeps the database locked
    beyond the busy timeout; any failure rolls back (the database is left unchanged)."""
    from gpuplan.catalog.transactions import db_error, is_busy, writing

    for attempt in range(1, WRITE_ATTEMPTS + 1):
        try:
            with writing(store.engine) as conn:
                return write(conn)
        except SQLAlchemyError as e:
            if attempt < WRITE_ATTEMPTS and is_busy(e):
                continue
            raise CatalogImportError.worded(
                N_("{what} failed and was rolled back (database unchanged): {why}"),
                what=what,
                why=db_error(e),
            ) from e
    raise AssertionError("unreachable")  # pragma: no cover


def write_offers(conn: Connection, rows: Sequence[OfferRow], import_id: int) -> tuple[int, int, int]:
    """Append ``rows``' offers and prices: (new offers, prices written, prices already recorded).

    History is append-only, but a price the store holds already for the same offer, pricing model,
    date, amount, currency, unit and term (the same file imported twice with the same ``--as-of``)
    is not written again: a second row would say the price was observed twice, and count twice in
    the history of the offer."""
    o = t.offers.c
    existing = {
        (r.provider, r.region, r.zone, r.instance_type): r.id
        for r in conn.execute(select(o.id, o.provider, o.region, o.zone, o.instance_type))
    }
    held = _held_prices(conn, {row.provider for row in rows})
    # New offers are written in one executemany, in the rows' order (so their ids are what one
    # insert a row gave), and their ids read back once: an insert a row cost a statement each, the
    # most of an import of a file of new instance types.
    new_offers: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for row in rows:
        key = (row.provider, row.region, row.zone or "", row.instance_type)
        if key not in existing and key not in new_offers:
            new_offers[key] = {
                "provider": row.provider,
                "region": row.region,
                "zone": row.zone or "",
                "instance_type": row.instance_type,
                **row.spec_columns(),
                "import_id": import_id,
            }
    if new_offers:
        conn.execute(insert(t.offers), list(new_offers.values()))
        for r in conn.execute(
            select(o.id, o.provider, o.region, o.zone, o.instance_type).where(o.import_id == import_id)
        ):
            existing[(r.provider, r.region, r.zone, r.instance_type)] = r.id
    n_offers = len(new_offers)
    n_held = 0
    price_values: list[dict[str, Any]] = []
    seen_prices: set[tuple[Any, ...]] = set()
    for row in rows:
        offer_id = existing[(row.provider, row.region, row.zone or "", row.instance_type)]
        for pr in row.prices:
            # The same price twice in one import (an on-demand price repeated on every zone
            # row of a region) is stored once.
            dedup = (offer_id, pr.pricing, pr.amount, pr.currency, pr.unit, pr.as_of)
            if dedup in seen_prices:
                continue
            seen_prices.add(dedup)
            term = json.dumps(pr.term, sort_keys=True) if pr.term else None
            currency = Currency.cast(pr.currency).code
            if (offer_id, pr.pricing, pr.amount, currency, pr.unit, pr.as_of, term) in held:
                n_held += 1
                continue
            price_values.append(
                {
                    "offer_id": offer_id,
                    "pricing": pr.pricing,
                    "amount": pr.amount,
                    "currency": currency,
                    "unit": pr.unit,
                    "as_of": pr.as_of,
                    "source": pr.source,
                    "confidence": pr.confidence,
                    "interruption_band": pr.interruption_band,
                    "term_json": term,
                    "import_id": import_id,
                    "fetched_at": pr.fetched_at,
                }
            )
    if price_values:
        conn.execute(insert(t.prices), price_values)
    return n_offers, len(price_values), n_held


def _held_prices(conn: Connection, providers: set[str]) -> set[tuple[Any, ...]]:
    """The prices the store holds for ``providers``' offers, as :func:`write_offers` compares them:
    (offer id, pricing model, amount, currency, unit, as_of, term as JSON)."""
    o, p = t.offers.c, t.prices.c
    query = (
        select(p.offer_id, p.pricing, p.amount, p.currency, p.unit, p.as_of, p.term_json)
        .join_from(t.prices, t.offers, p.offer_id == o.id)
        .where(o.provider.in_(sorted(providers)))
    )
    return {tuple(r) for r in conn.execute(query)}


#: What the rows refused for their zone alone are counted under: a zone not in the provider's form
#: for its region, and one zone more than a region may have.
_ZONE_FORM_CHECK = Phrase(N_("zone not of its region"))
_ZONE_BOUND_CHECK = Phrase(N_("more zones than a region may have"))


def _misplaced_zones(
    store: ImportTarget, rows: Sequence[OfferRow], provider: str, conn: Connection | None
) -> dict[int, tuple[Phrase, Phrase]]:
    """Rows (by index) whose zone is not one of its region's in the provider's form, or would be
    one zone more than a region may have (:mod:`gpuplan.catalog.zones`): (reason, check)."""
    from gpuplan.catalog.zones import zone_problem, zones_over_bound

    out: dict[int, tuple[Phrase, Phrase]] = {}
    for i, row in enumerate(rows):
        problem = zone_problem(row.provider, row.region, row.zone)
        if problem is not None:
            out[i] = (problem, _ZONE_FORM_CHECK)
    if not any(row.zone for row in rows):
        return out
    o = t.offers.c
    query = select(o.provider, o.region, o.zone).distinct().where(o.provider == provider, o.zone != "")
    if conn is not None:
        held = [(r.provider, r.region, r.zone) for r in conn.execute(query)]
    else:
        with store.engine.connect() as c:
            held = [(r.provider, r.region, r.zone) for r in c.execute(query)]
    # rows already refused for their form do not take a place among the region's zones
    placed = [row for i, row in enumerate(rows) if i not in out]
    index = [i for i in range(len(rows)) if i not in out]
    for j, problem in zones_over_bound(placed, held).items():
        out[index[j]] = (problem, _ZONE_BOUND_CHECK)
    return out


def _current_on_demand(store: ImportTarget, provider: str) -> dict[tuple[str, str, str], float]:
    rows = store.offers(provider=provider, pricing=PricingModel.ON_DEMAND.value)
    out: dict[tuple[str, str, str], float] = {}
    for r in rows:
        if r.price is not None and r.unit == "hour":
            key = (r.provider, r.region, r.instance_type)
            out[key] = min(out.get(key, math.inf), r.price)
    return out
