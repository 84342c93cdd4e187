"""Read a price list of one's own (``gpuplan catalog import FILE --format gpuplan``) into offer rows.

The layout is gpuplan's: one price per row, every figure with its currency, unit, date and who
quoted it, so that a negotiated quote (a 包年包月 price, a reserved term) enters the catalog as
written. CSV with a header naming the columns in any order (:data:`COLUMNS`, :data:`OPTIONAL`), or
the same as JSON: a list of objects with those keys (``.json``). The layout is documented in
``examples/prices/README.md``.

What the file says is never guessed at: the currency is stated on every row (a yuan price is kept in
yuan and converted, where shown, at the catalog's dated rate as every CNY price is), a monthly price
is kept per month (costed at 730 h a month). What a row must be besides the store's gates:

- its provider one gpuplan knows, its region one of the provider's known regions (``cn-atlantis``
  is refused with the nearest names: an offer there would rank in a country it is not in);
- its GPU a name the hardware catalog resolves (did-you-mean, or the choices of an ambiguous name);
- its price a positive figure, in line with what the catalog holds for the same instance type
  (:mod:`~gpuplan.catalog.importers.instance_prices`: its price under the same pricing model in the
  same region, else in another region, else its on-demand price hour for hour — yuan typed as
  dollars), and not wildly out of line with the same GPU and pricing model (:func:`out_of_line`: per
  GPU-hour in USD more than :data:`OUT_OF_LINE` times the highest or less than its inverse times the
  lowest) — a monthly price typed as hourly; where the catalog holds no price to compare with, it
  stands, and a price the user vouches for (``--accept-price LINE``) stands too.

Every refusal quotes the figure and currency as the file writes them. The file is untrusted: read
within :mod:`gpuplan.bounded`'s limits and the row cap of a price CSV, nothing in it is evaluated,
and a file unusable as a whole (unreadable, a missing or unknown column, rows of several providers
without ``--provider``, no row at all) raises :class:`~gpuplan.errors.CatalogImportError` before
anything is written.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Any, Protocol

from gpuplan.bounded import (
    MAX_CSV_ROWS,
    MAX_DOCUMENT_BYTES,
    control_character,
    decimal_number,
    load_json,
    other_separator,
    read_text,
)
from gpuplan.catalog import dates
from gpuplan.catalog.gates import MAX_GPUS_PER_INSTANCE, MIN_GPU_FRACTION
from gpuplan.catalog.importers.instance_prices import HeldPrice, held_prices, off_the_instance
from gpuplan.catalog.importers.skypilot_common import read_rows, too_many_rows
from gpuplan.catalog.model import HOURS_PER_MONTH, OfferPrice, OfferRow, PriceRow, RejectedRow
from gpuplan.catalog.providers import PROVIDERS, facts
from gpuplan.catalog.providers.declared import REGION as DECLARED_REGION
from gpuplan.catalog.wording import Worded, did_you_mean, not_found
from gpuplan.errors import CatalogImportError, GpuplanError, NotFoundError, Phrase, closest
from gpuplan.hardware import resolve_gpu
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import either, listed, separated
from gpuplan.units import as_typed
from gpuplan.vocab import PRICING_RULES, Currency, PriceUnit, PricingModel, price_words

__all__ = [
    "ACCEPTED_MARK",
    "COLUMNS",
    "OPTIONAL",
    "OUT_OF_LINE",
    "Accepted",
    "OwnFile",
    "PriceFacts",
    "out_of_line",
    "parse_own",
    "read_own_prices",
    "rows_out_of_line",
]

#: The columns every row fills (the header may order them as it likes).
COLUMNS = (
    "provider",
    "region",
    "instance_type",
    "gpu",
    "gpu_count",
    "pricing",
    "price",
    "currency",
    "unit",
    "as_of",
    "source",
)
#: Columns a file may have and a row may leave empty.
OPTIONAL = ("zone", "vcpus", "memory_gib")
#: Columns only ``catalog export`` writes: its rows carry the catalog's confidence (imported as
#: one's own quote, a low-confidence price would become a trusted one) and USD figures it derived.
_EXPORT_ONLY = ("confidence", "price_usd_per_hour", "rate_source")
#: How far out of line with the catalog's prices of the same GPU and pricing model a price may be:
#: per GPU-hour in USD, up to this many times the highest held and down to the lowest over it.
OUT_OF_LINE = 10.0
#: How close to the catalog's yuan price of the same offer a SkyPilot-layout figure (dollars, by the
#: layout) must be to be taken for yuan, which refuses the whole file
#: (:func:`~gpuplan.catalog.importers.price_file.yuan_typed_as_usd`): within this factor either way.
#: The two readings of one figure are 1/0.14 ≈ 7 times apart, so a band of 1.5 (a discount of a
#: third, a rise of half) stays far from the dollar reading (the geometric middle between them is
#: √7 ≈ 2.6).
YUAN_BAND = 1.5
#: Characters of a row's source kept (who quoted it: a name, a document, a date).
MAX_SOURCE_CHARS = 300
#: Characters of a rejected row's instance type or region kept for the report.
_SHOWN_CHARS = 100
#: What the rows of an own price list are taken as: the provider's own figure, quoted to the team.
_CONFIDENCE = "high"


@dataclass(frozen=True, kw_only=True)
class OwnFile:
    """The rows of a price list of one's own: the provider they are imported for, the offer rows, and
    the lines refused while reading or checking them."""

    provider: str
    rows: tuple[OfferRow, ...]
    rejected: tuple[RejectedRow, ...]
    written: Mapping[int, str] = field(default_factory=dict)
    """Each row's price as the file writes it, by line: what a refusal quotes."""


class PriceFacts(Protocol):
    """What the checks need of the catalog (the :class:`~gpuplan.catalog.store.Store` is one)."""

    def offers(self, *, gpu: str | None = ..., pricing: str | None = ...) -> list[OfferPrice]: ...

    def find_exchange_rate(self, currency: str) -> Any: ...

    @property
    def today(self) -> date: ...


def read_own_prices(
    store: PriceFacts,
    path: Path | str,
    *,
    provider: str | None = None,
    as_of: str | None = None,
    provider_name: str = "--provider",
    as_of_name: str = "--as-of",
    new_provider_name: str = "--new-provider",
    accept: Accepted | None = None,
) -> OwnFile:
    """:func:`parse_own` of ``path`` with the catalog's day, then :func:`out_of_line` against the
    catalog's prices: what ``catalog import --format gpuplan`` hands the store. ``accept``: the
    lines the user vouches for (:func:`rows_out_of_line`)."""
    parsed = parse_own(
        path,
        provider=provider,
        as_of=as_of,
        today=store.today,
        provider_name=provider_name,
        as_of_name=as_of_name,
        new_provider_name=new_provider_name,
    )
    return out_of_line(parsed, store, accept)


# ---------------------------------------------------------------- reading the file


def parse_own(
    path: Path | str,
    *,
    provider: str | None = None,
    as_of: str | None = None,
    today: date,
    provider_name: str = "--provider",
    as_of_name: str = "--as-of",
    new_provider_name: str = "--new-provider",
) -> OwnFile:
    """The offer rows of a price list in gpuplan's layout.

    ``provider`` (``--provider``): the provider imported; a row naming another is refused. Without
    it the file's rows must name one provider. ``as_of`` (``--as-of``): the date of a row whose
    ``as_of`` is empty; without it every row dates its price. ``today``: no price is observed later.
    ``provider_name``, ``as_of_name``, ``new_provider_name``: what a refusal calls them (the
    service's ``provider``).
    """
    prov = PROVIDERS.cast(provider) if provider is not None else None
    records = _json_records(path) if Path(path).suffix.lower() == ".json" else _csv_records(path)
    rows: list[OfferRow] = []
    refused: list[RejectedRow] = []
    written: dict[int, str] = {}
    named: dict[str, None] = {}  # the providers the rows name, in file order
    unknown: dict[str, Phrase] = {}  # the names no provider gpuplan knows, each said with its first line
    for line, r in records:
        not_known = None  # what is said of the row's provider where gpuplan does not know it
        if _text(r, "provider"):
            try:
                known_name = PROVIDERS.cast(_text(r, "provider"))
            except NotFoundError as e:  # the row is refused with its did-you-mean
                not_known = _unknown_provider(e)
                unknown.setdefault(e.name[:_SHOWN_CHARS], _unknown_provider(e, line))
                named.setdefault(e.name[:_SHOWN_CHARS], None)  # the file names it as it names the others
            else:
                named.setdefault(known_name, None)
        if prov is not None and (other := _other_provider(r, prov)) is not None:
            # --provider picks one provider of a file that prices several: the others' rows are left
            # out by the user's choice, not lost (the import does not exit as if rows were refused)
            refused.append(
                RejectedRow.because(
                    Phrase(
                        N_("a row of {provider}, not of {expected} ({flag} {expected})"),
                        provider=other,
                        flag=provider_name,
                        expected=prov,
                    ),
                    line=line,
                    instance_type=_text(r, "instance_type")[:_SHOWN_CHARS],
                    region=_text(r, "region")[:_SHOWN_CHARS],
                    check=OTHER_PROVIDER,
                    skipped=True,
                )
            )
            continue
        reasons: list[Worded] = []
        row = _row(path, line, r, reasons, as_of=as_of, today=today, as_of_name=as_of_name)
        if row is None or reasons:
            refused.append(
                RejectedRow.because(
                    separated(reasons),
                    line=line,
                    instance_type=_text(r, "instance_type")[:_SHOWN_CHARS],
                    region=_text(r, "region")[:_SHOWN_CHARS],
                    # a provider gpuplan does not know is one line however many rows name it
                    check=not_known,
                )
            )
        else:
            rows.append(row)
            written[line] = _text(r, "price")
    if not rows and not refused:
        raise CatalogImportError.worded(N_("{path} has no price rows; nothing was imported"), path=path)
    known = {n: None for n in named if n not in unknown}
    if prov is None:
        if not known:
            first = refused[0]
            raise CatalogImportError.worded(
                N_(
                    "no row of {path} names a provider gpuplan knows (line {line}: {reason}); to import "
                    "the prices of a provider gpuplan does not know, declare it: {flag} CODE (its facts "
                    "are then unknown, costed at their conservative bounds); nothing was imported"
                ),
                path=path,
                line=first.line,
                reason=first.worded_reason(),
                flag=new_provider_name,
            )
        if len(known) > 1:
            # every provider the file names, each one it does not know with its line and did-you-mean
            # (the refusal had named the known ones only, the others' rows gone unsaid)
            fields: dict[str, object] = {"unknown": separated(list(unknown.values()))} if unknown else {}
            raise CatalogImportError.worded(
                N_(
                    "{path} names {n} providers ({providers}): import one provider at a time with "
                    "{flag}; {unknown}; nothing was imported"
                )
                if unknown
                else N_(
                    "{path} names {n} providers ({providers}): import one provider at a time with "
                    "{flag}; nothing was imported"
                ),
                path=path,
                flag=provider_name,
                n=len(named),
                providers=listed(named),
                **fields,
            )
        prov = next(iter(known))
    return OwnFile(provider=prov, rows=tuple(rows), rejected=tuple(refused), written=written)


def _header(path: Path | str, names: Iterable[str], *, every: bool = True) -> None:
    """A file unusable as a whole for its columns: one unknown (did-you-mean), repeated, or (with
    ``every``: a CSV header) one of :data:`COLUMNS` missing."""
    names = list(names)
    known = (*COLUMNS, *OPTIONAL)
    if len(names) == 1 and (sep := other_separator(names[0], known)):
        raise CatalogImportError.worded(
            N_(
                "{path}: its columns are separated by {separator}, not by commas: save it as CSV "
                "(comma-separated, UTF-8); nothing was imported"
            ),
            path=path,
            separator=repr(sep),
        )
    if names and not set(names) & set(known):
        # Not a price list at all (a symlink to another file, the wrong file): its first line is no
        # column name, and quoting it would show a line of whatever file the path leads to.
        raise CatalogImportError.worded(
            N_(
                "{path} is not a gpuplan price list: it names none of the price-list columns "
                "(expected CSV or JSON with the columns {columns}); nothing was imported"
            ),
            path=path,
            columns=listed(COLUMNS),
        )
    if set(_EXPORT_ONLY) <= set(names):
        raise CatalogImportError.worded(
            N_(
                "{path} is a `gpuplan catalog export` file, not a price list: its confidence and the "
                "figures it derived would be lost or taken as your own quote; keep the columns "
                "{columns} (and {optional}) of the rows you were quoted; nothing was imported"
            ),
            path=path,
            columns=listed(COLUMNS),
            optional=listed(OPTIONAL),
        )
    for name in names:
        if name not in known:
            raise CatalogImportError.worded(
                N_("{path}: {problem}; gpuplan's price-list columns are {columns}; nothing was imported"),
                path=path,
                problem=not_found(Phrase(N_("column")), name, known),
                columns=listed(known),
            )
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise CatalogImportError.worded(
            N_("{path} has the columns {repeated} more than once; nothing was imported"),
            path=path,
            repeated=listed(repeated),
        )
    missing = [c for c in COLUMNS if c not in names] if every else []
    if missing:
        raise CatalogImportError.worded(
            N_("{path} lacks the columns {missing} (every row states them); nothing was imported"),
            path=path,
            missing=listed(missing),
        )


def _csv_records(path: Path | str) -> Iterator[tuple[int, dict[str, str]]]:
    """(line, fields by column) of a CSV file, read as a stream within the bounds of a price CSV.

    The file is read twice: first only to count its rows, so that one past
    :data:`~gpuplan.bounded.MAX_CSV_ROWS` is refused before any row is checked (checking is what
    takes the time: a minute and more for 200,000 rows), then to yield them."""
    for _ in read_rows(path, lambda _names: None):
        pass
    header: list[tuple[str, str]] = []  # (the file's name, the column it is)

    def check(names: tuple[str, ...]) -> None:
        header.extend((n, n.strip().lower()) for n in names)
        _header(path, [c for _, c in header])

    for line, r in read_rows(path, check):
        fields = {column: r.get(name, "") for name, column in header}
        n = int(r["__n"])
        if n != len(header):
            fields["__width"] = f"{n}/{len(header)}"
        yield line, fields


def _json_records(path: Path | str) -> Iterator[tuple[int, dict[str, str]]]:
    """(entry number, fields) of a JSON list of objects keyed by the same column names (or an object
    ``{"prices": [...]}``); a number is read as the text JSON writes it."""
    doc = load_json(
        read_text(path, what=N_("price file"), max_bytes=MAX_DOCUMENT_BYTES, error=CatalogImportError),
        source=str(path),
        error=CatalogImportError,
    )
    if isinstance(doc, dict) and list(doc) == ["prices"]:
        doc = doc["prices"]
    if not isinstance(doc, list) or not all(isinstance(x, dict) for x in doc):
        raise CatalogImportError.worded(
            N_(
                "{path} is not a list of price objects (or an object with one key, prices); "
                "nothing was imported"
            ),
            path=path,
        )
    if len(doc) > MAX_CSV_ROWS:
        raise too_many_rows(path)
    for entry in doc:
        _header(path, [str(k).strip().lower() for k in entry], every=False)
    for i, entry in enumerate(doc, start=1):
        fields: dict[str, str] = {}
        for k, v in entry.items():
            column = str(k).strip().lower()
            if isinstance(v, bool) or not isinstance(v, str | int | float | type(None)):
                fields["__bad"] = column
            else:
                fields[column] = "" if v is None else str(v)
        yield i, fields


def _text(r: Mapping[str, str], column: str) -> str:
    return (r.get(column) or "").strip()


def _row(
    path: Path | str,
    line: int,
    r: Mapping[str, str],
    reasons: list[Worded],
    *,
    as_of: str | None,
    today: date,
    as_of_name: str,
) -> OfferRow | None:
    """The offer row of one line, or None; every reason it cannot be one is added to ``reasons``."""
    if "__width" in r:
        n, width = r["__width"].split("/")
        reasons.append(Phrase(N_("truncated or malformed line: {n} of {width} fields"), n=n, width=width))
        return None
    if "__bad" in r:
        reasons.append(Phrase(N_("{column} is not a text or a number"), column=r["__bad"]))
        return None
    for column in COLUMNS:
        if column not in ("as_of",) and not _text(r, column):
            reasons.append(Phrase(N_("{column} is empty"), column=column))
    if reasons:
        return None
    prov = _choice(_row_provider, _text(r, "provider"), reasons)
    region = _text(r, "region")
    declared = prov is not None and facts(prov).declared
    if prov is not None and declared:
        # A provider the user declared has no list of regions: any name stands, but a name only.
        if not DECLARED_REGION.fullmatch(region):
            reasons.append(
                Phrase(
                    N_("region {region} is not a region name (letters, digits, '.', '_', '-')"),
                    region=repr(region[:_SHOWN_CHARS]),
                )
            )
    elif prov is not None:
        codes = [g.code for g in facts(prov).regions]
        if region not in codes:
            reasons.append(_unknown_region(prov, region, codes))
    gpu = _choice(lambda name: resolve_gpu(name).id, _text(r, "gpu"), reasons)
    count = _number(r, "gpu_count", reasons)
    pricing = _choice(lambda v: PricingModel.cast(v).value, _text(r, "pricing"), reasons)
    if declared and pricing == PricingModel.SPOT.value:
        reasons.append(
            Phrase(
                N_(
                    "a spot price of a provider you declared: gpuplan knows nothing of its interruptions; "
                    "import its on-demand or monthly prices"
                )
            )
        )
    currency = _choice(lambda v: Currency.cast(v).code, _text(r, "currency"), reasons)
    unit = _choice(lambda v: PriceUnit.cast(v).value, _text(r, "unit"), reasons)
    if pricing is not None and unit is not None and unit not in PRICING_RULES[pricing].units:
        # the gate's own words, said here so that the price is not judged per hour of a monthly term
        reasons.append(
            Phrase(
                N_("{pricing} price in unit {unit}; expected {expected}"),
                pricing=Phrase(pricing),
                unit=repr(unit),
                expected=either(sorted(PRICING_RULES[pricing].units)),
            )
        )
    written = _text(r, "price")
    amount = _number(r, "price", reasons)
    if amount is not None and amount <= 0:
        reasons.append(
            Phrase(
                N_("price {price} {currency}/{unit} is not a positive amount"),
                price=written,
                **price_words(_text(r, "currency"), _text(r, "unit")),
            )
        )
    day = _as_of(_text(r, "as_of") or as_of, today, reasons, as_of_name)
    source = _text(r, "source")
    bad = control_character(source)
    if bad is not None or len(source) > MAX_SOURCE_CHARS:
        reasons.append(
            Phrase(
                N_("source is not a line of at most {limit} characters (who quoted the price)"),
                limit=MAX_SOURCE_CHARS,
            )
        )
    vcpus = _number(r, "vcpus", reasons, optional=True)
    memory = _number(r, "memory_gib", reasons, optional=True)
    if reasons:
        return None
    assert prov and gpu and count is not None and pricing and currency and unit and amount and day
    where = f"{source} (own price list {Path(path).name}, line {line})"
    term: dict[str, Any] | None = None
    if pricing == PricingModel.MONTHLY.value:
        term = {"billing": "monthly subscription", "kind": "own quote"}
    elif pricing in (PricingModel.RESERVED_1Y.value, PricingModel.RESERVED_3Y.value):
        term = {"years": 1 if pricing == PricingModel.RESERVED_1Y.value else 3, "kind": "own quote"}
    price = PriceRow(
        pricing=pricing,
        amount=amount,
        currency=currency,
        unit=unit,
        as_of=day,
        source=where,
        confidence=_CONFIDENCE,
        term=term,
    )
    return OfferRow(
        provider=prov,
        region=region,
        zone=_text(r, "zone") or None,
        instance_type=_text(r, "instance_type"),
        gpu=gpu,
        gpu_count=count,
        vcpus=vcpus,
        memory_gib=memory,
        network_gbps=None,
        interconnect=None,
        source=where,
        prices=(price,),
        line=line,
    )


#: The check that leaves out a row of another provider than ``--provider`` picked.
OTHER_PROVIDER = Phrase(N_("another provider's row"))


def _other_provider(r: Mapping[str, str], prov: str) -> str | None:
    """The provider a row names where it is a known one other than ``prov``; None otherwise (a
    row of ``prov``, or one naming no provider gpuplan knows, which is refused with its reason)."""
    try:
        named = PROVIDERS.cast(_text(r, "provider"))
    except NotFoundError:
        return None
    return named if named != prov else None


def _unknown_provider(error: NotFoundError, line: int | None = None) -> Phrase:
    """What is said of a provider name of a price list that gpuplan does not know: the name, the
    first line naming it where given (a refusal of the whole file), and its did-you-mean
    (``'tencnet' (line 4) is not a provider gpuplan knows; did you mean 'tencent'?``); without a
    line, the same for every row that names it."""
    near = did_you_mean(error.suggestions)
    name = error.name[:_SHOWN_CHARS]
    if line is None:
        return Phrase(N_("{name!r} is not a provider gpuplan knows{near}"), name=name, near=near)
    return Phrase(
        N_("{name!r} (line {line}) is not a provider gpuplan knows{near}"), name=name, line=line, near=near
    )


def _row_provider(value: str) -> str:
    """``PROVIDERS.cast(value)`` for one row: a provider it does not know is refused with its
    did-you-mean only, not the list of every provider gpuplan knows (the file's refusal says what
    to do with one it does not know: declare it; the list on every row would bury that)."""
    try:
        return PROVIDERS.cast(value)
    except NotFoundError as e:
        raise NotFoundError(e.kind, e.name, e.known, suggestions=e.suggestions or None, cutoff=1.0) from None


def _choice(cast: Callable[[str], str], value: str, reasons: list[Worded]) -> str | None:
    """``cast(value)``, or None with its error (did-you-mean) among ``reasons``."""
    try:
        return cast(value)
    except NotFoundError as e:
        reasons.append(e)
        return None


def _unknown_region(provider: str, region: str, codes: list[str]) -> Worded:
    """An unknown region of ``provider``: where it is a console name (``华东2``), the provider's code
    for it, as ``plan --regions 华东1`` says (it had been the list of codes, with no "did you mean")."""
    from gpuplan.catalog.region_aliases import console_region

    hit = console_region(region, provider)
    if hit is not None and hit[0] in codes:
        return Phrase(
            N_(
                "region {region!r} is a console name, of {city}; write {provider}'s region code: "
                "did you mean {code!r}?"
            ),
            region=region[:_SHOWN_CHARS],
            city=hit[1],
            provider=provider,
            code=hit[0],
        )
    from gpuplan.catalog.zones import shipped_zone_region

    code = shipped_zone_region(provider, region)
    if code is not None and code in codes:
        return Phrase(
            N_(
                "unknown region of {provider} {value!r}: {value} is a zone of region {code}: put it in "
                "the zone column, and {code} in region"
            ),
            provider=provider,
            value=region[:_SHOWN_CHARS],
            code=code,
        )
    kind = Phrase(N_("region of {provider}"), provider=provider)
    return not_found(kind, region, codes, _nearest_regions(region, codes))


def _nearest_regions(region: str, codes: list[str]) -> list[str]:
    """Up to 3 region codes nearest to ``region``: the code of the country it names (``Romania``: a
    marketplace's regions are countries), else by spelling, else the codes it holds as a part
    (``EU-RO-1`` holds RunPod's ``RO``)."""
    from gpuplan.i18n.countries import country_codes

    try:
        named = [c for c in codes if c in country_codes(region)]
    except GpuplanError:
        named = []
    near = named or closest(region, codes)
    if near:
        return near[:3]
    parts = {p for p in re.split(r"[-_\s/.]+", region.lower()) if p}
    return [c for c in codes if c.lower() in parts][:3]


#: A price written with its currency or unit in the cell: ``8.5元/小时``, ``¥4200/月``, ``$2.5/h``,
#: ``2.5 USD/hour`` -- the number in group 1 (a plain number is read before this is tried).
_PRICE_WITH_UNIT = re.compile(
    r"(?:[$¥￥]|us\$|usd|cny|rmb)?\s*(\d+(?:\.\d+)?)\s*"
    r"(?:[/／\s¥￥$元块]|us|usd|cny|rmb|per|每|小时|时|月|天|日|年|hours?|hrs?|h|months?|mo|days?)*",
    re.IGNORECASE,
)


def _number(
    r: Mapping[str, str], column: str, reasons: list[Worded], *, optional: bool = False
) -> float | None:
    text = _text(r, column)
    if not text and optional:
        return None
    try:
        # the ASCII decimal grammar (no "1_5"), a price typed full-width (３２．５) read as ASCII
        x = decimal_number(as_typed(text))
    except ValueError:
        x = math.nan
    if not math.isfinite(x):
        if column == "price" and (m := _PRICE_WITH_UNIT.fullmatch(as_typed(text))) is not None:
            reasons.append(
                Phrase(
                    N_(
                        "price {value} holds its currency or unit: write the number ({number}) in price, "
                        "the currency in currency (CNY, USD) and the unit in unit (hour, month)"
                    ),
                    value=repr(text[:40]),
                    number=m[1],
                )
            )
            return None
        reasons.append(Phrase(N_("{what} {value} is not a number"), what=column, value=repr(text[:40])))
        return None
    return x


def _as_of(day: str | None, today: date, reasons: list[Worded], as_of_name: str) -> str | None:
    if not day:
        reasons.append(
            Phrase(
                N_("as_of is empty: write the day the price was quoted (2026-11-30), or give {flag}"),
                flag=as_of_name,
            )
        )
        return None
    parsed = dates.parse_as_of(day)
    if parsed is None:
        reasons.append(
            Phrase(
                N_("as_of {day} is not a date; write 2026-11-30, 2026-11 or 2026-10/2026-11-30"),
                day=repr(day),
            )
        )
        return None
    if parsed.earliest > today:
        reasons.append(
            Phrase(
                N_("as_of {day} is after today ({today}): a price cannot be observed in the future"),
                day=repr(day),
                today=today.isoformat(),
            )
        )
        return None
    return day


# ---------------------------------------------------------------- against the catalog's prices


@dataclass(frozen=True)
class _Held:
    """The lowest and highest price per GPU-hour, USD, the catalog holds for a GPU and pricing model."""

    low: float
    low_where: str
    high: float
    high_where: str


def _held(store: PriceFacts, gpu: str, pricing: str) -> _Held | None:
    found: list[tuple[float, str]] = []
    for o in store.offers(gpu=gpu, pricing=pricing):
        usd = o.list_price_usd_per_hour if o.list_price_usd_per_hour is not None else o.price_usd_per_hour
        if usd is None or not o.gpu_count > 0:
            continue
        found.append((usd / o.gpu_count, f"{o.provider} {o.instance_type} {o.region}"))
    if not found:
        return None
    low, high = min(found), max(found)
    return _Held(low=low[0], low_where=low[1], high=high[0], high_where=high[1])


def out_of_line(parsed: OwnFile, store: PriceFacts, accept: Accepted | None = None) -> OwnFile:
    """``parsed`` with each row whose price is out of line with the catalog's
    (:func:`rows_out_of_line`) moved to the refused rows, the refusal quoting the file's figure;
    ``accept``: the lines the user vouches for."""
    kept, refused = rows_out_of_line(
        parsed.rows, store, written=lambda row, _p: parsed.written.get(row.line or 0), accept=accept
    )
    refused = sorted([*parsed.rejected, *refused], key=lambda r: (r.line is None, r.line or 0))
    return replace(parsed, rows=tuple(kept), rejected=tuple(refused))


class CatalogPrices:
    """What the catalog holds to compare a new price with: per GPU and pricing model, its lowest and
    highest price per GPU-hour in USD, and per instance type its prices under every pricing model
    (each read once)."""

    def __init__(self, store: PriceFacts) -> None:
        self._store = store
        self._held: dict[tuple[str, str], _Held | None] = {}
        self._instances: dict[str, dict[tuple[str, str], list[HeldPrice]]] = {}
        self._rates: dict[str, float | None] = {}

    def out_of_line(self, row: OfferRow, p: PriceRow, written: str | None = None) -> Phrase | None:
        """Why ``p`` of ``row`` is out of line with the catalog, or None: off the same instance
        type's prices (:func:`~gpuplan.catalog.importers.instance_prices.off_the_instance`: yuan
        typed as dollars, a month for an hour), else more than :data:`OUT_OF_LINE` times off the
        range of its GPU and pricing model. ``written``: the figure as its file writes it, for the
        reason."""
        if p.currency not in self._rates:
            rate = self._store.find_exchange_rate(p.currency)
            self._rates[p.currency] = rate.usd_per_unit if rate is not None else None
        usd_per_unit = self._rates[p.currency]
        if usd_per_unit is None:
            return None  # no dated rate: nothing to compare in
        if row.gpu not in self._instances:
            self._instances[row.gpu] = held_prices(self._store.offers(gpu=row.gpu))
        held = self._instances[row.gpu].get((row.provider, row.instance_type), [])
        why = off_the_instance(row, p, usd_per_unit, held, written)
        if why is None:
            key = (row.gpu, p.pricing)
            if key not in self._held:
                self._held[key] = _held(self._store, *key)
            why = _out_of_line(row, p, usd_per_unit, self._held[key], written)
        return why


def rows_out_of_line(
    rows: Iterable[OfferRow],
    store: PriceFacts,
    *,
    written: Callable[[OfferRow, PriceRow], str | None] = lambda _row, _p: None,
    accept: Accepted | None = None,
) -> tuple[list[OfferRow], list[RejectedRow]]:
    """(the rows kept, the rows refused): a row is refused when one of its prices is out of line with
    the catalog's (:meth:`CatalogPrices.out_of_line`: off the same instance type's prices, or more
    than :data:`OUT_OF_LINE` times off the range of its GPU and pricing model), the refusal naming
    the figure it was compared with. A price with nothing to compare with stands. ``written``: a
    price's figure as the file writes it, for the refusal (None: the figure as read). ``accept``:
    the lines the user vouches for (``--accept-price``): kept, and named in ``accept.taken``; a
    refusal of another line says how to vouch for it."""
    check = CatalogPrices(store)
    kept: list[OfferRow] = []
    # the reasons of each refused line (a line may be read into two rows: AWS's region on-demand
    # price and zone spot price), refused once
    lines: dict[tuple[int | None, str, int], tuple[OfferRow, list[Worded]]] = {}
    for i, row in enumerate(rows):
        if not MIN_GPU_FRACTION <= row.gpu_count <= MAX_GPUS_PER_INSTANCE:
            # a GPU count the gates refuse is refused for it, not for the price it divides
            kept.append(row)
            continue
        off = {
            k: why
            for k, p in enumerate(row.prices)
            if (why := check.out_of_line(row, p, written(row, p))) is not None
        }
        reasons: list[Worded] = list(off.values())
        if reasons and accept is not None and row.line in accept.lines:
            accept.taken.append((row.line, separated(reasons)))
            kept.append(_vouched(row, set(off), accept.flag))
        elif reasons:
            key = (row.line, row.instance_type, i if row.line is None else 0)
            lines.setdefault(key, (row, []))[1].extend(reasons)
        else:
            kept.append(row)
    refused: list[RejectedRow] = []
    for first, reasons in lines.values():
        said: Worded = separated(reasons)
        if accept is not None and first.line is not None:
            said = Phrase(
                N_("{why} (if the price is right, import it with {flag} {line})"),
                why=said,
                flag=accept.flag,
                line=first.line,
            )
        refused.append(
            RejectedRow.because(
                said,
                line=first.line,
                instance_type=first.instance_type[:_SHOWN_CHARS],
                region=first.region,
            )
        )
    return kept, refused


#: What a price taken past the check on the user's word (``--accept-price``) carries in its stored
#: source, so that ``catalog history`` and an export show it was not held to the catalog's prices as
#: the others were (its confidence stays the file's). Stored in English, as sources are.
ACCEPTED_MARK = "[taken past the catalog's price check: {flag} {line}]"


def _vouched(row: OfferRow, off: set[int], flag: str) -> OfferRow:
    """``row`` with the prices at ``off`` (those out of line) marked as taken on the user's word."""
    mark = ACCEPTED_MARK.format(flag=flag, line=row.line)
    prices = tuple(
        replace(p, source=f"{p.source} {mark}") if k in off else p for k, p in enumerate(row.prices)
    )
    return replace(row, prices=prices)


@dataclass(kw_only=True)
class Accepted:
    """The file lines whose prices the user vouches for against the catalog's (``--accept-price``;
    the service's ``accept_price``), and what was taken for them."""

    lines: frozenset[int]
    flag: str
    """What the user types to vouch for a line: a refusal names it."""
    taken: list[tuple[int, Worded]] = field(default_factory=list)
    """(line, why it would have been refused) of each line taken on the user's word."""


def _out_of_line(
    row: OfferRow, p: PriceRow, usd_per_unit: float | None, known: _Held | None, written: str | None
) -> Phrase | None:
    """Why ``p`` of ``row`` is out of line with ``known``, or None."""
    if usd_per_unit is None or known is None or not (math.isfinite(p.amount) and p.amount > 0):
        return None  # nothing to compare with; a figure that is no price is the gates' to refuse
    hours = HOURS_PER_MONTH if p.unit == PriceUnit.MONTH.value else 1.0
    usd = p.amount / hours * usd_per_unit / row.gpu_count
    fields: dict[str, object] = {
        "pricing": Phrase(p.pricing),
        "price": written or f"{p.amount:g}",
        **price_words(p.currency, p.unit),
        "usd": usd,
        "gpu": row.gpu,
        "times": OUT_OF_LINE,
    }
    if usd > known.high * OUT_OF_LINE:
        return Phrase(
            N_(
                "{pricing} price {price} {currency}/{unit} is {usd:,.4g} USD per GPU-hour, more than "
                "{times:g}x the highest {pricing} price the catalog holds for {gpu} ({held:,.4g} USD "
                "per GPU-hour, {where}): a monthly price typed as hourly, or the wrong currency or unit?"
            ),
            held=known.high,
            where=known.high_where,
            **fields,
        )
    if usd < known.low / OUT_OF_LINE:
        return Phrase(
            N_(
                "{pricing} price {price} {currency}/{unit} is {usd:,.4g} USD per GPU-hour, less than "
                "1/{times:g} of the lowest {pricing} price the catalog holds for {gpu} ({held:,.4g} USD "
                "per GPU-hour, {where}): an hourly price typed as monthly, or the wrong currency or unit?"
            ),
            held=known.low,
            where=known.low_where,
            **fields,
        )
    return None
