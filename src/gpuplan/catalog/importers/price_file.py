"""One price file read for an import: what ``catalog import FILE`` and the service's
``POST /catalog/import`` both do with it, so that the two read the same layouts with the same checks
and refuse with the same reasons.

Two layouts (:data:`FILE_FORMATS`): ``skypilot``, SkyPilot's catalog CSV of one provider
(:func:`~gpuplan.catalog.importers.parse_skypilot`), and ``gpuplan``, a price list of one's own with a
currency on every row (:mod:`~gpuplan.catalog.importers.own`). Both are checked against the catalog's
prices before the store's gates see them:

- a SkyPilot spot price not below the on-demand price of its instance type and region is dropped
  and named in a warning (one for those that repeat the on-demand figure, which the source does where
  it publishes no spot price, one for those above it), the line's on-demand price kept, as the
  snapshot builder drops it
  (:func:`~gpuplan.catalog.importers.skypilot_traps.spot_not_below_on_demand`);
- a region that is a slip of one of the provider's known regions is refused, row by row, and one it
  does not know otherwise is kept and named in a warning (:mod:`~gpuplan.catalog.importers.regions`);
- a price out of line with the catalog's for the same instance type (yuan typed as dollars) or
  wildly out of line for the same GPU and pricing model is refused, row by row
  (:func:`~gpuplan.catalog.importers.own.rows_out_of_line`), unless the user vouches for its line
  (``--accept-price LINE``; it is imported and named in a warning);
- a SkyPilot-layout file of a provider that charges in yuan (Alibaba Cloud, Tencent Cloud: the layout
  defines ``Price`` as USD) whose figures look like yuan is refused whole (:func:`yuan_typed_as_usd`).

The faces name their inputs differently (the CLI's ``--provider``, the service's ``provider``):
:class:`InputNames` says which, so that a refusal names what the user typed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Protocol

from gpuplan.catalog.discounts import OWN_PRICES
from gpuplan.catalog.importers.own import YUAN_BAND, Accepted, read_own_prices, rows_out_of_line
from gpuplan.catalog.importers.prepare import UNRELIABLE
from gpuplan.catalog.importers.regions import checked_regions
from gpuplan.catalog.importers.skypilot_traps import Trap, repeats_on_demand, spot_not_below_on_demand
from gpuplan.catalog.model import OfferPrice, OfferRow, RejectedRow
from gpuplan.errors import CatalogImportError, InputError, NotFoundError, Phrase
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import item_list

__all__ = [
    "CLI_NAMES",
    "FILE_FORMATS",
    "SERVICE_NAMES",
    "YUAN_BAND",
    "InputNames",
    "PriceFile",
    "file_format",
    "not_a_price_list",
    "read_price_file",
    "skypilot_as_of",
    "yuan_typed_as_usd",
]

#: The layouts a price file may have (``--format``; the service's ``format``).
FILE_FORMATS = ("skypilot", "gpuplan")


@dataclass(frozen=True)
class InputNames:
    """What a refusal calls the import's inputs."""

    format: str
    provider: str
    as_of: str
    accept: str
    """The line numbers whose prices the user vouches for against the catalog's."""
    new_provider: str
    """How a provider gpuplan does not know is declared (the service has no parameter for it: its
    administrator declares one on the command line)."""


#: The command line's flags.
CLI_NAMES = InputNames(
    format="--format",
    provider="--provider",
    as_of="--as-of",
    accept="--accept-price",
    new_provider="--new-provider",
)
#: The service's query parameters.
SERVICE_NAMES = InputNames(
    format="format",
    provider="provider",
    as_of="as_of",
    accept="accept_price",
    new_provider="`gpuplan catalog import FILE --format gpuplan --new-provider`",
)


@dataclass(frozen=True, kw_only=True)
class PriceFile:
    """A price file read and checked: what the store's import is given."""

    provider: str
    rows: tuple[OfferRow, ...]
    rejected: tuple[RejectedRow, ...]
    kind: str
    """The import's kind as the imports table keeps it: ``skypilot`` or ``own``."""
    source: str
    """What the import is recorded as coming from."""
    warnings: tuple[Phrase, ...] = ()
    """What was imported but should be looked at (a region gpuplan does not know), one line each."""


class PriceStore(Protocol):
    """What reading a price file needs of the catalog (the :class:`~gpuplan.catalog.store.Store`)."""

    def offers(
        self, *, gpu: str | None = ..., provider: str | None = ..., pricing: str | None = ...
    ) -> list[OfferPrice]: ...

    def find_exchange_rate(self, currency: str) -> Any: ...

    def known_instances(self) -> dict[tuple[str, str], tuple[str, float]]: ...

    @property
    def today(self) -> date: ...


def file_format(fmt: str, names: InputNames = CLI_NAMES) -> str:
    """``fmt`` if it is one of :data:`FILE_FORMATS`, else NotFoundError with "did you mean"."""
    if fmt not in FILE_FORMATS:
        raise NotFoundError(names.format, fmt, list(FILE_FORMATS))
    return fmt


def read_price_file(
    store: PriceStore,
    path: Path | str,
    *,
    fmt: str,
    provider: str | None,
    as_of: str | None,
    today: date,
    described: str,
    names: InputNames = CLI_NAMES,
    accept: Sequence[int] = (),
) -> PriceFile:
    """The rows of ``path`` in layout ``fmt``, checked against the catalog.

    ``provider``: the file's provider (a SkyPilot file needs it; a price list names its own, and
    with it only that provider's rows are taken). ``as_of``: the day of the prices (a SkyPilot file's,
    required: :func:`skypilot_as_of`) or of a price list's rows whose ``as_of`` is empty.
    ``described``: what the import's source calls the file (its name, or who uploaded it). ``accept``:
    the lines whose prices the user vouches for: imported though out of line with the catalog's, each
    named in a warning.
    """
    from gpuplan.catalog.gates import import_day
    from gpuplan.catalog.importers import parse_skypilot
    from gpuplan.catalog.providers import PROVIDERS

    file_format(fmt, names)
    vouched = Accepted(lines=frozenset(accept), flag=names.accept)
    if fmt == "gpuplan":
        if as_of is not None:
            import_day(as_of, today, names.as_of)
        own = read_own_prices(
            store,
            path,
            provider=provider,
            as_of=as_of,
            provider_name=names.provider,
            as_of_name=names.as_of,
            new_provider_name=names.new_provider,
            accept=vouched,
        )
        return PriceFile(
            provider=own.provider,
            rows=own.rows,
            rejected=own.rejected,
            kind=OWN_PRICES,
            source=f"own price list {described} ({own.provider}, gpuplan layout)",
            warnings=_vouched_warnings(vouched),
        )
    not_a_price_list(path, names)
    if provider is None:
        raise InputError.worded(
            N_("a SkyPilot catalog file does not name its provider: give it, {flag} aws"),
            flag=names.provider,
        )
    prov = PROVIDERS.cast(provider)
    day = import_day(skypilot_as_of(as_of, names), today, names.as_of)
    parsed = parse_skypilot(path, prov, as_of=day, known_instances=store.known_instances())
    # A provider whose figures are not prices (Mithril's auction figure in both columns) is left to
    # the gates, which refuse its lines: dropping the spot copy would store the figure as on-demand.
    spotless, dropped = (parsed.rows, []) if prov in UNRELIABLE else spot_not_below_on_demand(parsed.rows)
    # A row whose only price was such a spot price (an AWS zone's) goes; its line's on-demand stays.
    rows = [r for r, was in zip(spotless, parsed.rows, strict=True) if r.prices or not was.prices]
    placed, misplaced, warnings = checked_regions(rows, prov)
    yuan_typed_as_usd(store, path, prov, placed, names)
    kept, refused = rows_out_of_line(placed, store, accept=vouched)
    rejected = sorted([*parsed.rejected, *misplaced, *refused], key=lambda r: (r.line is None, r.line or 0))
    return PriceFile(
        provider=prov,
        rows=tuple(kept),
        rejected=tuple(rejected),
        kind="skypilot",
        source=f"SkyPilot catalog file {described} ({prov}), as of {day}",
        warnings=(*dropped_spot_warnings(dropped), *warnings, *_vouched_warnings(vouched)),
    )


def not_a_price_list(path: Path | str, names: InputNames = CLI_NAMES) -> None:
    """Refuses, as a SkyPilot catalog file, a file whose header is a gpuplan price list's (it had
    been told to give the date a SkyPilot file lacks, or the SkyPilot columns it lacks, not the
    layout it is in). Only the first line is read; a file that cannot be read is left to the read
    that follows, which says why."""
    from gpuplan.catalog.importers.own import COLUMNS

    try:
        with open(path, "rb") as fh:
            first = fh.readline(65_536)
    except OSError:
        return
    header = {c.strip().strip('"').lower() for c in first.decode("utf-8-sig", "replace").split(",")}
    if set(COLUMNS) <= header or str(path).lower().endswith(".json"):
        raise InputError.worded(
            N_(
                "this file is a gpuplan price list ({columns}), not a SkyPilot catalog: give "
                "{flag} gpuplan; nothing was imported"
            ),
            columns="provider, pricing, price, currency, unit, as_of, source",
            flag=names.format,
        )


def skypilot_as_of(as_of: str | None, names: InputNames = CLI_NAMES) -> str:
    """``as_of``, required for a SkyPilot catalog file: the file carries no date, and dated today
    by default, a copy downloaded months ago would pass its old (spot) prices off as today's, fresher
    than the dated prices they displace, and a plan costed on them as cheaper than it is."""
    if as_of is None:
        raise InputError.worded(
            N_(
                "a SkyPilot catalog file carries no date: give {flag}, the day its prices were read "
                "(the day you downloaded it: {flag} 2026-11-30, or a month: {flag} 2026-11); "
                "nothing was imported"
            ),
            flag=names.as_of,
        )
    return as_of


def _vouched_warnings(vouched: Accepted) -> tuple[Phrase, ...]:
    """One warning for each line let through on the user's word though out of line with the catalog's
    prices (the store's gates still judge it)."""
    return tuple(
        Phrase(
            N_(
                "line {line} let through the check against the catalog's prices on your word "
                "({flag} {line}): {why}"
            ),
            line=line,
            flag=vouched.flag,
            why=why,
        )
        for line, why in sorted(vouched.taken, key=lambda t: t[0])
    )


#: Lines a warning names before "…".
_LINES_SHOWN = 5


def dropped_spot_warnings(dropped: Sequence[Trap]) -> list[Phrase]:
    """The warnings for the spot prices taken out for not standing below their on-demand price
    (none when none was): one for those that repeat it, one for those above it, each with how many,
    their lines and the first with both figures. A row left without a price (an AWS zone's spot
    half) is not imported; the on-demand price of its line is."""
    repeats = [t for t in dropped if t.compared is None or repeats_on_demand(t.amount, t.compared)]
    above = [t for t in dropped if t.compared is not None and not repeats_on_demand(t.amount, t.compared)]
    one_repeat = N_(
        "spot price dropped on line {lines} ({first}): repeats its on-demand price (no spot price "
        "published); the on-demand price is imported"
    )
    many_repeats = N_(
        "{n} spot prices dropped (lines {lines}; first: {first}): each repeats its on-demand price "
        "(no spot price published); the on-demand prices are imported"
    )
    one_above = N_(
        "spot price on line {lines} ({first}): spot above on-demand: not a spot discount, dropped; "
        "the on-demand price is imported"
    )
    many_above = N_(
        "{n} spot prices (lines {lines}; first: {first}): spot above on-demand: not a spot discount, "
        "dropped; the on-demand prices are imported"
    )
    return [
        *_dropped_spot_warning(repeats, one_repeat, many_repeats),
        *_dropped_spot_warning(above, one_above, many_above),
    ]


def _dropped_spot_warning(dropped: Sequence[Trap], one: str, many: str) -> list[Phrase]:
    """``dropped`` in ``one``'s words (a single price) or ``many``'s; none when none was."""
    if not dropped:
        return []
    first = dropped[0]
    shown_first = Phrase(
        N_("{instance} in {region}: spot {spot:g}, on-demand {on_demand:g}"),
        instance=first.instance_type,
        region=first.region,
        spot=first.amount,
        on_demand=first.compared,  # always set for a spot price taken out
    )
    lines = sorted({t.line for t in dropped if t.line is not None})
    shown = ", ".join(str(n) for n in lines[:_LINES_SHOWN]) + (" …" if len(lines) > _LINES_SHOWN else "")
    template = one if len(dropped) == 1 else many
    return [Phrase(template, n=len(dropped), lines=shown or "?", first=shown_first)]


def yuan_typed_as_usd(
    store: PriceStore, path: Path | str, provider: str, rows: Sequence[OfferRow], names: InputNames
) -> None:
    """Refuse the whole SkyPilot-layout file of a provider that charges in yuan when a row's
    ``Price`` (USD, as the layout defines it) is within :data:`YUAN_BAND` of the catalog's yuan price
    for the same offer (region, instance type, pricing model): the figure is yuan, and read as
    dollars it would stand about seven times too high.

    Why the file and not the row: the currency of the column is the file's, not a row's — whoever
    typed yuan into one row typed it into the others, and only the rows the catalog already prices
    can be caught; the rest would be stored too dear, unnoticed."""
    from gpuplan.catalog.importers.skypilot_markets import MARKET_LAYOUTS

    layout = MARKET_LAYOUTS.get(provider)
    if layout is None or layout.usd_per_cny is None:
        return  # the layout's figures are the provider's own dollars
    rate = store.find_exchange_rate("CNY")
    if rate is None:
        return  # no dated rate: the catalog's prices cannot be put in yuan to compare
    held: dict[tuple[str, str, str], list[float]] = {}
    for o in store.offers(provider=provider):
        if o.price is None or o.pricing is None or o.unit != "hour":
            continue
        if o.currency == "CNY":
            cny = o.price
        elif o.currency == "USD":
            cny = o.price / rate.usd_per_unit
        else:
            continue
        held.setdefault((o.region, o.instance_type, o.pricing), []).append(cny)
    found: list[tuple[OfferRow, float, float]] = []  # (row, the file's figure, the catalog's yuan)
    for row in rows:
        for p in row.prices:
            figure = p.amount * layout.usd_per_cny  # what the file wrote (kept as CNY ÷ its rate)
            for cny in held.get((row.region, row.instance_type, p.pricing), ()):
                if cny / YUAN_BAND <= figure <= cny * YUAN_BAND:
                    found.append((row, figure, cny))
                    break
    if not found:
        return
    row, figure, cny = found[0]
    lines = sorted({r.line for r, _, _ in found[1:] if r.line is not None and r.line != row.line})
    others = (
        Phrase(
            N_("; so do lines {lines}"),
            lines=item_list(str(n) for n in lines[:5]) + (" …" * (len(lines) > 5)),
        )
        if lines
        else ""
    )
    raise CatalogImportError.worded(
        N_(
            "{path}: Price {figure:g} of {instance} in {region} (line {line}) looks like yuan: the "
            "catalog holds {cny:,.4g} CNY/hour for it ({usd:,.4g} USD at the CNY rate of {rate_day})"
            "{others}; the SkyPilot layout's Price is USD: import yuan prices with {format} gpuplan "
            "and currency CNY; nothing was imported"
        ),
        path=path,
        figure=round(figure, 6),
        instance=row.instance_type,
        region=row.region,
        line=row.line if row.line is not None else "?",
        cny=cny,
        usd=cny * rate.usd_per_unit,
        rate_day=rate.as_of,
        others=others,
        format=names.format,
    )
