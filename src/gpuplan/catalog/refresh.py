"""``catalog refresh``: read each provider's own price lists and append the prices, per provider.

Each provider is fetched, gated and imported on its own, in one transaction: a provider whose
source cannot be read (no network, an error page, an unreadable file) changes nothing and keeps
its last good data, and the outcome says so in one line. A provider's answer is data from
elsewhere: whatever it holds (a list where an object is expected, ``1e999``, a CSV field over
128 KiB, truncated JSON), any exception its fetch, parse or import raises becomes that provider's
one-line failure, and the next provider is refreshed all the same (:func:`iter_refresh` yields each
outcome as it is known, so the lines of the providers done are out before the next one starts).
Providers that need keys the caller did not give are skipped with the keys to set. A replay folder
(``--from``, perhaps recorded by someone else) may hold only some providers: when none was named,
each one it lacks is skipped in one line ("not recorded in …"), and no run is recorded for it (its
last real refresh stays what ``catalog info`` shows); naming one it lacks is refused before anything
is read or written (:func:`check_replay`). Every run is
recorded (``refresh_runs``) for ``catalog info``; a run that imported is recorded in the
import's own transaction, with its ``import_id``, so that a refresh killed at any point leaves
each provider's prices and its last run in step (both the old or both the new).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING

import httpx

from gpuplan.catalog.importing import ImportedFile, import_of, import_offers, write_with_retry
from gpuplan.catalog.model import Currency
from gpuplan.catalog.providers import (
    PROVIDERS,
    Credentials,
    MissingCredentialsError,
    declared_provider,
    module,
)
from gpuplan.catalog.providers.common import UnsupportedFetchError
from gpuplan.catalog.providers.http import Http
from gpuplan.catalog.stored_words import Cut, Plural
from gpuplan.catalog.transactions import writing
from gpuplan.errors import DataError, GpuplanError, InputError, NotFoundError, Phrase
from gpuplan.i18n import N_, _
from gpuplan.i18n.error_text import phrase_text
from gpuplan.i18n.phrases import listed

if TYPE_CHECKING:
    from sqlalchemy import Connection

    from gpuplan.catalog.model import ImportReport, OfferRow, RejectedRow
    from gpuplan.catalog.store import Store

__all__ = [
    "RefreshOptions",
    "RefreshOutcome",
    "check_replay",
    "iter_refresh",
    "kept_line",
    "last_runs",
    "record",
    "refresh",
    "refresh_rates",
    "store_rows",
]


@dataclass(frozen=True, kw_only=True)
class RefreshOptions:
    credentials: Credentials = field(default_factory=Credentials)
    save_dir: Path | None = None
    """Keep every raw response under ``save_dir/<provider>/``."""
    replay_dir: Path | None = None
    """Answer every request from responses saved earlier (no network)."""
    client: Callable[[], httpx.Client] | None = None
    """Makes the HTTP client (tests pass one with a mock transport); None: a plain httpx client."""
    now: str | None = None
    """ISO timestamp of the fetch (None: the current UTC time)."""


@dataclass(frozen=True, kw_only=True)
class RefreshOutcome:
    """What the refresh of one provider did, as one line says it."""

    provider: str
    status: str
    """``ok``, ``failed`` (nothing changed; last good data kept) or ``skipped`` (no keys …)."""
    message: str
    offers: int = 0
    prices: int = 0
    rejected: int = 0
    sources: tuple[str, ...] = ()
    started_at: str = ""
    label: str = ""
    """What the line names (``exchange rates``); empty: the provider's code."""

    @classmethod
    def said(cls, worded: object, **fields: object) -> RefreshOutcome:
        """The outcome whose line is ``worded`` (Phrases, :class:`~gpuplan.catalog.stored_words.Plural`
        …): ``message`` in the current language, the words kept so that the run is stored in no
        language and read in the reader's (:func:`record`, :func:`last_runs`)."""
        outcome = cls(message=phrase_text(worded), **fields)  # type: ignore[arg-type]
        object.__setattr__(outcome, "_worded", worded)  # not a field: documents are made of fields
        return outcome

    def worded(self) -> object:
        """The line's words (as :meth:`said` kept them), else ``message`` as it was written."""
        return self.__dict__.get("_worded", self.message)

    def line(self) -> str:
        return f"{self.label or self.provider}: {self.message}"


#: Characters of an exception's text a failure line keeps (the rest of the line says what was kept).
_WHAT_CHARS = 160
#: The same for gpuplan's own refusals, whose fields are bounded where they are made: they name a
#: URL or a file and a limit, which must both survive.
_OWN_WHAT_CHARS = 320
#: Characters of a fetcher's notes an ok line keeps: notes may repeat names from the answer.
_NOTES_CHARS = 600


def _what(e: BaseException) -> Cut:
    if isinstance(e, (AttributeError, IndexError, KeyError, TypeError)):
        # a reader met an answer of another shape (a list where the API sends an object …): say so
        # first; the Python words after it are what a bug report needs
        detail = f"{type(e).__name__}: {e}"
        return Cut(
            Phrase(N_("an answer not in the shape the reader expects: {detail}"), detail=detail), _WHAT_CHARS
        )
    limit = _OWN_WHAT_CHARS if isinstance(e, GpuplanError) else _WHAT_CHARS
    return Cut(Phrase("{kind}: {error}", kind=type(e).__name__, error=e), limit)  # no words to translate


def _now() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


def kept_words(store: Store, provider: str) -> Phrase:
    """ "kept the last good data (…)": what a failed refresh of ``provider`` left in place."""
    rows = store._query(
        "SELECT COUNT(DISTINCT o.id) AS n, MAX(p.as_of) AS newest FROM offers o "
        "LEFT JOIN prices p ON p.offer_id = o.id WHERE o.provider = :p",
        {"p": provider},
    )
    n, newest = (rows[0].n, rows[0].newest) if rows else (0, None)
    return Phrase(
        N_("kept the last good data ({n} offers, newest price {newest})"),
        n=n,
        newest=newest or Phrase(N_("none")),
    )


def kept_line(store: Store, provider: str) -> str:
    """:func:`kept_words` in the current language."""
    return phrase_text(kept_words(store, provider))


def _failed(store: Store, name: str, what: object, now: str, **fields: object) -> RefreshOutcome:
    """ "failed (…); kept the last good data (…)"."""
    return RefreshOutcome.said(
        Phrase(N_("failed ({what}); {kept}"), what=what, kept=kept_words(store, name)),
        provider=name,
        status="failed",
        started_at=now,
        **fields,
    )


def _skipped(name: str, e: Exception, now: str) -> RefreshOutcome:
    return RefreshOutcome.said(
        Phrase(N_("skipped: {why}"), why=e), provider=name, status="skipped", started_at=now
    )


def _recorded(replay_dir: Path, name: str) -> bool:
    """Whether a replay folder holds anything of ``name`` (``--save`` writes ``DIR/<name>/``). A
    folder that is there but broken (no ``index.json``) is that provider's failure, not a skip."""
    return os.path.lexists(replay_dir / name)


def _held(replay_dir: Path) -> list[str]:
    """What a replay folder holds, as refresh names it: providers in registry order, then the rate."""
    from gpuplan.catalog.rates import RATES_SOURCE

    held = [p for p in PROVIDERS if _recorded(replay_dir, p)]
    return held + ([_("exchange rates")] if _recorded(replay_dir, RATES_SOURCE) else [])


def _check_folder_names(replay_dir: Path) -> None:
    """Refuse a folder of saved responses (one with an ``index.json``, as ``--save`` writes) whose
    name is no provider's: a mistyped ``awss/`` would otherwise be skipped without a word, and its
    provider replayed from nothing. :class:`NotFoundError` with "did you mean"; other folders are
    the user's own and left alone."""
    from gpuplan.catalog.rates import RATES_SOURCE

    known = [*PROVIDERS, RATES_SOURCE]
    try:
        entries = sorted(replay_dir.iterdir())
    except OSError:
        return  # unreadable: each provider's own read says so
    for entry in entries:
        if entry.name in known or not (entry / "index.json").is_file():
            continue
        hint = Phrase(
            N_("a folder of saved responses in {folder}: rename it, or move it out"), folder=str(replay_dir)
        )
        raise NotFoundError("provider", entry.name, known, hint=hint)


def check_replay(replay_dir: Path, providers: Sequence[str] = (), *, rates: bool = False) -> None:
    """Refuse, before anything is read or written, a replay folder that holds a folder of saved
    responses under a name that is no provider's (with "did you mean"), or nothing a refresh can
    replay (one provider's own folder given instead of the folder above it: says which), and
    ``providers`` the caller named (and the rate when ``rates``) that it does not hold: one line.
    Providers not named are not checked: a refresh of every provider skips those the folder lacks."""
    from gpuplan.catalog.rates import RATES_SOURCE

    _check_folder_names(replay_dir)
    held = _held(replay_dir)
    if not held:
        if (replay_dir / "index.json").is_file():
            raise InputError.worded(
                N_(
                    "{folder} holds one provider's saved responses; give the folder above it: --from {parent}"
                ),
                folder=str(replay_dir),
                parent=str(replay_dir.parent),
            )
        raise InputError.worded(
            N_(
                "{folder} holds no saved responses: --save writes one folder per provider "
                "({example}), and --from reads the folder that holds them"
            ),
            folder=str(replay_dir),
            example=str(replay_dir / "aws" / "index.json"),
        )
    named = [PROVIDERS.cast(p) for p in providers]
    lacking = [p for p in dict.fromkeys(named) if not _recorded(replay_dir, p)]
    if rates and not _recorded(replay_dir, RATES_SOURCE):
        lacking.append(_("exchange rates"))
    if lacking:
        raise InputError.worded(
            N_(
                "{folder} holds no saved responses of {names} (it holds {held}): leave it out, "
                "or record it with --save"
            ),
            folder=str(replay_dir),
            names=listed(lacking),
            held=listed(held),
        )


def _not_recorded(name: str, options: RefreshOptions, now: str, label: str = "") -> RefreshOutcome:
    return RefreshOutcome.said(
        Phrase(N_("not recorded in {folder}: skipped"), folder=str(options.replay_dir)),
        provider=name,
        status="skipped",
        started_at=now,
        label=label,
    )


def _one(store: Store, provider: str, options: RefreshOptions, now: str) -> RefreshOutcome:
    name = provider
    provider_module = module(provider)
    try:
        http = Http(
            name,
            client=options.client() if options.client else None,
            save_dir=options.save_dir,
            replay_dir=options.replay_dir,
        )
    except GpuplanError as e:
        return _failed(store, name, e, now)
    fetched = False
    try:
        read_at = _read_at(http, now)
        result = provider_module.FETCHER.fetch(http, options.credentials, read_at)
        fetched = True
    except MissingCredentialsError as e:
        return _skipped(name, e, now)
    except UnsupportedFetchError as e:
        return _skipped(name, e, now)
    except httpx.HTTPError as e:
        # an answer from elsewhere must not move the cursor, clear or retitle the user's terminal
        what = Cut(f"{type(e).__name__}: {e}".splitlines()[0], _WHAT_CHARS)
        return _failed(store, name, what, now)
    except Exception as e:  # whatever the answer held, it is this provider's failure
        return _failed_reading(store, name, e, now)
    finally:
        # --save is atomic per provider: a fetch that raised leaves the last complete save.
        if fetched:
            http.commit(fetched_at=now)
        else:
            http.discard()
        http.close()
    notes: tuple[object, ...] = result.notes
    if options.replay_dir is not None and http.saved_at is None:
        notes = (
            Phrase(N_("the saved responses do not say when they were fetched: their prices are dated today")),
            *notes,
        )
    return store_rows(
        store,
        name,
        result.rows,
        sources=result.sources,
        notes=notes,
        now=now,
        kind="refresh",
        rejected=result.rejected,
    )


#: Slack for a replay folder's fetch time after this run's (clocks of two machines, time zones).
_CLOCK_SLACK = timedelta(days=1)


def _read_at(http: Http, now: str) -> str:
    """When the prices were read: a replayed folder's fetch time (``--save`` writes it into the
    index; an air-gapped team may replay it days later), else ``now``. A time that is not one, or
    lies after ``now``, fails the provider: the prices would be dated fresher than they are."""
    if http.saved_at is None:
        return now
    try:
        when = datetime.fromisoformat(http.saved_at)
    except ValueError:
        raise DataError.worded(
            N_("the replay index says its responses were fetched at {at}, which is not an ISO time"),
            at=repr(http.saved_at[:40]),
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    if when > datetime.fromisoformat(now) + _CLOCK_SLACK:
        raise DataError.worded(
            N_("the replay index says its responses were fetched at {at}, after now ({now})"),
            at=http.saved_at[:40],
            now=now,
        )
    return when.replace(microsecond=0).isoformat()


#: A price this many times above or below the offer's last one (same pricing model, currency and
#: unit; low-confidence prices aside) is stored as low confidence, which ``plan`` leaves out unless
#: ``--allow-low-confidence``: list prices of GPUs move by tens of percent a year, so a tenfold
#: move between two reads is a unit or parsing error (cents for dollars, a month for an hour)
#: far more often than a price, and a figure 100x too low would otherwise be ranked first.
MAX_PRICE_JUMP = 10.0


def _last_prices(store: Store, provider: str) -> dict[tuple[str, ...], float]:
    """The newest price that is not low confidence of each (region, zone, instance type, pricing
    model, currency, unit) of ``provider``."""
    rows = store._query(
        "SELECT o.region, o.zone, o.instance_type, p.pricing, p.currency, p.unit, p.amount FROM prices p "
        "JOIN offers o ON o.id = p.offer_id WHERE o.provider = :p AND p.confidence != 'low' "
        "ORDER BY p.as_of, p.id",
        {"p": provider},
    )
    return {(r.region, r.zone or "", r.instance_type, r.pricing, r.currency, r.unit): r.amount for r in rows}


def _flag_jumps(store: Store, provider: str, rows: Sequence[OfferRow]) -> tuple[list[OfferRow], int, int]:
    """``rows`` with each price more than :data:`MAX_PRICE_JUMP` times away from the offer's last
    one made low confidence, and each price with no last one that is out of line with what the
    catalog holds (as a file import refuses it: off the same instance type's prices — yuan typed as
    dollars —, or more than ten times off the range of its GPU and pricing model), and how many of
    each were."""
    from gpuplan.catalog.importers.own import CatalogPrices

    last = _last_prices(store, provider)
    held = CatalogPrices(store)
    out: list[OfferRow] = []
    jumped = out_of_line = 0
    for row in rows:
        prices, changed = [], False
        for pr in row.prices:
            try:
                currency = Currency.cast(pr.currency).code
            except NotFoundError:
                currency = pr.currency  # the gates refuse it
            before = last.get((row.region, row.zone or "", row.instance_type, pr.pricing, currency, pr.unit))
            usable = pr.confidence != "low" and math.isfinite(pr.amount) and pr.amount > 0
            if usable and before and before > 0:
                if not 1 / MAX_PRICE_JUMP <= pr.amount / before <= MAX_PRICE_JUMP:
                    pr = replace(pr, confidence="low")
                    jumped += 1
                    changed = True
            elif usable and held.out_of_line(row, pr) is not None:
                # a new offer (or pricing model) has no last price: a replayed folder is someone
                # else's file, and its figure 70x below every other H100 would be ranked first
                pr = replace(pr, confidence="low")
                out_of_line += 1
                changed = True
            prices.append(pr)
        out.append(replace(row, prices=tuple(prices)) if changed else row)
    return out, jumped, out_of_line


def store_rows(
    store: Store,
    provider: str,
    rows: Sequence[OfferRow],
    *,
    sources: tuple[str, ...],
    notes: Sequence[object],
    now: str,
    kind: str,
    rejected: Sequence[RejectedRow] = (),
    file: ImportedFile | None = None,
    as_of: str | None = None,
) -> RefreshOutcome:
    """Gate ``rows`` of one provider and append them with their run, in one transaction (the
    refresh of a provider, or its file of a catalog checkout): all the rows or none, and one line
    that says which. ``sources`` name where the rows were read (the source of the import);
    ``rejected`` are entries the reader already refused, counted and named with the gates' own.
    ``file`` and ``as_of``: a checkout's file and the ``--as-of`` given, kept with the import."""
    name = provider
    if not rows and not rejected:
        return RefreshOutcome.said(
            Phrase(
                N_("failed: the price lists held no GPU offer gpuplan knows; {kept}"),
                kept=kept_words(store, name),
            ),
            provider=name,
            status="failed",
            sources=sources,
            started_at=now,
        )
    verb = "catalog refresh" if kind == "refresh" else f"catalog import ({kind})"
    source = f"{verb} {now} from {', '.join(sources[:3])}" + (
        f" and {len(sources) - 3} more" if len(sources) > 3 else ""
    )
    rows, jumped, out_of_line = _flag_jumps(store, name, rows)
    if out_of_line:
        notes = [
            Plural(
                "{n} new price out of line with what the catalog holds for its instance type or GPU, "
                "stored as low confidence (plan leaves it out unless --allow-low-confidence)",
                "{n} new prices out of line with what the catalog holds for their instance types or "
                "GPUs, stored as low confidence (plan leaves them out unless --allow-low-confidence)",
                out_of_line,
                n=out_of_line,
            ),
            *notes,
        ]
    if jumped:
        notes = [
            Plural(
                "{n} price more than {factor:g}× away from the offer's last one, stored as low "
                "confidence (plan leaves it out unless --allow-low-confidence)",
                "{n} prices more than {factor:g}× away from the offers' last ones, stored as low "
                "confidence (plan leaves them out unless --allow-low-confidence)",
                jumped,
                n=jumped,
                factor=MAX_PRICE_JUMP,
            ),
            *notes,
        ]
    said = Cut(_semicolons(notes), _NOTES_CHARS) if notes else None
    # A price cannot be dated after the day it was read (nor after the catalog's today).
    read_on = max(store.today, datetime.fromisoformat(now).date())

    def write(conn: Connection) -> tuple[ImportReport, RefreshOutcome | None]:
        report = import_offers(
            store,
            rows,
            provider=name,
            source=source,
            kind=kind,
            rejected=rejected,
            conn=conn,
            today=read_on,
            file=file,
            as_of=as_of,
        )
        if report.import_id is None:
            return report, None  # nothing written: every row was refused
        parts: list[object] = [
            Plural(
                "ok: {offers} offers, {prices} prices appended ({new} new offers), {rejected} row rejected",
                "ok: {offers} offers, {prices} prices appended ({new} new offers), {rejected} rows rejected",
                len(report.rejected),
                offers=len(rows),
                prices=report.prices_imported,
                new=report.offers_imported,
                rejected=len(report.rejected),
            )
        ]
        if report.rejected:  # which rows, and why: the line is the only place a refresh says it
            parts.append(Cut(_rejected_rows(report.rejected), _NOTES_CHARS))
        parts += [said] if said is not None else []
        outcome = RefreshOutcome.said(
            _semicolons(parts),
            provider=name,
            status="ok",
            offers=len(rows),
            prices=report.prices_imported,
            rejected=len(report.rejected),
            sources=sources,
            started_at=now,
        )
        record(conn, outcome, import_id=report.import_id)
        return report, outcome

    report, done = write_with_retry(store, write, import_of(name, source))
    if done is not None:
        return done
    n = len(report.rejected)
    return RefreshOutcome.said(
        Plural(
            "failed: the only row was refused ({checks}); {kept}",
            "failed: all {n} rows were refused ({checks}); {kept}",
            n,
            n=n,
            checks=Cut(_refusals(report.rejected), _NOTES_CHARS),
            kept=kept_words(store, name),
        ),
        provider=name,
        status="failed",
        rejected=len(report.rejected),
        sources=sources,
        started_at=now,
    )


#: Rejected rows a refresh line names (the others are counted).
_REJECTED_SHOWN = 3
#: Checks a line that every row was refused counts the rows of (the rest are counted together).
_CHECKS_SHOWN = 4


def _semicolons(parts: Sequence[object]) -> object:
    """``parts`` joined with "; " (as the line always was, in every language)."""
    out: object = parts[0] if parts else ""
    for part in parts[1:]:
        out = Phrase("{a}; {b}", a=out, b=part)  # no words to translate: not a catalog message
    return out


def _refusals(rejected: Sequence[RejectedRow]) -> object:
    """How many rows each check refused, most first, in one line ("no host country: 3; …"): the
    reader's checks by name, the gates' by their reason."""
    counts: dict[str, tuple[object, int]] = {}
    for r in rejected:
        check = r.named_check()
        worded = check if check is not None else r.worded_reason()
        key = str(worded)
        counts[key] = (
            counts[key][0] if key in counts else worded,
            (counts[key][1] if key in counts else 0) + 1,
        )
    ranked = sorted(counts.values(), key=lambda kv: -kv[1])  # stable: ties in the order first met
    shown: list[object] = [Phrase(N_("{check}: {n}"), check=c, n=k) for c, k in ranked[:_CHECKS_SHOWN]]
    rest = sum(k for _c, k in ranked[_CHECKS_SHOWN:])
    if rest:
        shown.append(Plural("{n} row by other checks", "{n} rows by other checks", rest, n=rest))
    return _semicolons(shown)


def _rejected_rows(rejected: Sequence[RejectedRow]) -> object:
    """The first rejected rows, each with its instance type, region and reason, in one line."""
    shown: list[object] = [
        Phrase(
            N_("rejected {instance_type} ({region}): {reason}"),
            instance_type=r.instance_type or "?",
            region=r.region or "?",
            reason=r.worded_reason(),
        )
        for r in rejected[:_REJECTED_SHOWN]
    ]
    more = len(rejected) - _REJECTED_SHOWN
    if more > 0:
        shown.append(Plural("{n} more row rejected", "{n} more rows rejected", more, n=more))
    return _semicolons(shown)


def _failed_reading(store: Store, name: str, e: Exception, now: str) -> RefreshOutcome:
    return RefreshOutcome.said(
        Phrase(
            N_("failed reading the price list ({what}); {kept}"), what=_what(e), kept=kept_words(store, name)
        ),
        provider=name,
        status="failed",
        started_at=now,
    )


def iter_refresh(store: Store, providers: Sequence[str], options: RefreshOptions) -> Iterator[RefreshOutcome]:
    """Refresh each provider in turn (all of them when ``providers`` is empty), yielding each one's
    outcome as soon as it is recorded. Replaying: a provider named that the folder lacks is
    refused before any is refreshed (:func:`check_replay`); with none named, each one it lacks is
    skipped, and no run is recorded for it."""
    # a provider the user declared has no price list to read: its prices are the user's own files
    chosen = [PROVIDERS.cast(p) for p in providers] or [p for p in PROVIDERS if not declared_provider(p)]
    if options.replay_dir is not None and providers:
        check_replay(options.replay_dir, chosen)
    elif options.replay_dir is not None:
        _check_folder_names(options.replay_dir)
    now = options.now or _now()
    for provider in dict.fromkeys(chosen):
        if options.replay_dir is not None and not _recorded(options.replay_dir, provider):
            yield _not_recorded(provider, options, now)
            continue
        try:
            outcome = _one(store, provider, options, now)
        except Exception as e:  # the import of a hostile answer failed and rolled back
            outcome = _failed_reading(store, provider, e, now)
        if outcome.status != "ok":  # an ok run was recorded with its import
            with writing(store.engine) as conn:
                record(conn, outcome, import_id=None)
        yield outcome


def refresh(store: Store, providers: Sequence[str], options: RefreshOptions) -> list[RefreshOutcome]:
    """Refresh each provider in turn (all of them when ``providers`` is empty); one outcome each."""
    return list(iter_refresh(store, providers, options))


def record(conn: Connection, outcome: RefreshOutcome, *, import_id: int | None) -> None:
    """Write ``outcome`` as the provider's latest run (``catalog info``), inside ``conn``'s transaction:
    its line in English, and its words in no language (read in the reader's, :func:`last_runs`)."""
    from sqlalchemy import insert

    from gpuplan.catalog import schema as t
    from gpuplan.catalog.stored_words import dump, english

    worded = outcome.worded()

    conn.execute(
        insert(t.refresh_runs).values(
            provider=outcome.provider,
            started_at=outcome.started_at,
            status=outcome.status,
            message=english(worded),
            message_words=dump(worded) if "_worded" in outcome.__dict__ else None,
            offers=outcome.offers,
            prices=outcome.prices,
            rejected=outcome.rejected,
            sources=json.dumps(list(outcome.sources)),
            import_id=import_id,
        )
    )


def last_runs(store: Store) -> dict[str, RefreshOutcome]:
    """The latest refresh outcome per provider, its line in the current language (a run recorded
    before its words were kept reads as it was written)."""
    from gpuplan.catalog.stored_words import load

    rows = store._query(
        "SELECT provider, started_at, status, message, message_words, offers, prices, rejected, sources "
        "FROM refresh_runs WHERE id IN (SELECT MAX(id) FROM refresh_runs GROUP BY provider)"
    )
    out: dict[str, RefreshOutcome] = {}
    for r in rows:
        fields = {
            "provider": r.provider,
            "status": r.status,
            "offers": r.offers,
            "prices": r.prices,
            "rejected": r.rejected,
            "sources": tuple(json.loads(r.sources)),
            "started_at": r.started_at,
        }
        if r.message_words is not None:
            out[r.provider] = RefreshOutcome.said(load(r.message_words), **fields)
        else:
            out[r.provider] = RefreshOutcome(message=r.message, **fields)
    return out


def refresh_rates(store: Store, options: RefreshOptions, *, named: bool = True) -> RefreshOutcome:
    """Fetch the ECB's latest reference rates (:mod:`gpuplan.catalog.rates`) and append the CNY rate
    with its day, in one transaction with its run; a source that cannot be read, a broken file or a
    rate far from the catalog's last one changes nothing. ``--save``/``--from`` as for providers:
    a replay folder without the rate is refused when the rate was ``named`` (asked for), else
    skipped, no run recorded."""
    from gpuplan.catalog.rates import ECB_DAILY_URL, MAX_RATE_CHANGE, RATES_SOURCE, fetch_cny_rate

    now = options.now or _now()
    label = _("exchange rates")
    if options.replay_dir is not None and not _recorded(options.replay_dir, RATES_SOURCE):
        if named:
            check_replay(options.replay_dir, rates=True)
        return _not_recorded(RATES_SOURCE, options, now, label)

    def done(status: str, message: object, prices: int = 0) -> RefreshOutcome:
        return RefreshOutcome.said(
            message,
            provider=RATES_SOURCE,
            status=status,
            prices=prices,
            sources=(ECB_DAILY_URL,),
            started_at=now,
            label=label,
        )

    def failed(what: object) -> RefreshOutcome:
        outcome = done("failed", Phrase(N_("failed ({what}); {kept}"), what=what, kept=_kept_rate(store)))
        with writing(store.engine) as conn:
            record(conn, outcome, import_id=None)
        return outcome

    try:
        http = Http(
            RATES_SOURCE,
            client=options.client() if options.client else None,
            save_dir=options.save_dir,
            replay_dir=options.replay_dir,
        )
    except GpuplanError as e:
        return failed(e)
    fetched = False
    try:
        rate = fetch_cny_rate(http, today=store.today, fetched_at=_read_at(http, now))
        fetched = True
    except httpx.HTTPError as e:
        return failed(f"{type(e).__name__}: {e}".splitlines()[0][:160])
    except (GpuplanError, OSError) as e:
        return failed(Cut(e, 200))
    finally:
        if fetched:
            http.commit(fetched_at=now)
        else:
            http.discard()
        http.close()
    last = store.find_exchange_rate("CNY")
    if last is not None and not (
        1 / MAX_RATE_CHANGE <= rate.usd_per_unit / last.usd_per_unit <= MAX_RATE_CHANGE
    ):
        return failed(
            Phrase(
                N_(
                    "1 USD = {new:.4f} CNY on {day} is more than {factor:g}× away from the catalog's "
                    "{old:.4f}"
                ),
                new=1 / rate.usd_per_unit,
                day=rate.as_of,
                factor=MAX_RATE_CHANGE,
                old=1 / last.usd_per_unit,
            )
        )
    said = Phrase(N_("1 USD = {cny:.4f} CNY as of {day}"), cny=1 / rate.usd_per_unit, day=rate.as_of)
    if last is not None and last.as_of == rate.as_of and math.isclose(last.usd_per_unit, rate.usd_per_unit):
        outcome = done("ok", Phrase(N_("ok: {rate}, already in the catalog"), rate=said))
        with writing(store.engine) as conn:
            record(conn, outcome, import_id=None)
        return outcome
    if last is not None and rate.as_of < last.as_of:  # an old saved file replayed: kept as history
        message = Phrase(
            N_(
                "ok: {rate} appended; the catalog's rate of {day} (1 USD = {cny:.4f} CNY) is newer and "
                "stays in use"
            ),
            rate=said,
            day=last.as_of,
            cny=1 / last.usd_per_unit,
        )
    else:
        message = Phrase(N_("ok: {rate} appended (ECB reference rates, cross rate)"), rate=said)
    outcome = done("ok", message, 1)
    from sqlalchemy import insert

    from gpuplan.catalog import schema as t

    with writing(store.engine) as conn:  # the rate and its run, both or neither
        conn.execute(
            insert(t.exchange_rates).values(
                currency=rate.currency, usd_per_unit=rate.usd_per_unit, as_of=rate.as_of, source=rate.source
            )
        )
        record(conn, outcome, import_id=None)
    return outcome


def _kept_rate(store: Store) -> Phrase:
    rate = store.find_exchange_rate("CNY")
    if rate is None:
        return Phrase(N_("the catalog has no CNY rate"))
    return Phrase(
        N_("kept the last rate (1 USD = {cny:.4f} CNY as of {day})"),
        cny=1 / rate.usd_per_unit,
        day=rate.as_of,
    )
