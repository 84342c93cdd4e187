"""Render the catalog commands: ``gpuplan gpus``, ``gpuplan offers``, ``gpuplan catalog info|import``.

The ``--json`` documents are declared in :mod:`gpuplan.documents.catalog` (schemas in
``docs/schemas/``): every amount names its currency and unit, USD always and CNY wherever the
catalog has a CNY rate, which the document states once.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from gpuplan.bounded import printable
from gpuplan.catalog.model import (
    CatalogInfo,
    ExchangeRate,
    ImportReport,
    OfferPrice,
    PricingModel,
    RejectedRow,
)
from gpuplan.catalog.providers import host_kind, host_kind_short
from gpuplan.catalog.query import OfferListing, OfferView
from gpuplan.catalog.rates import rate_warning
from gpuplan.catalog.upfront import upfront_said
from gpuplan.errors import Phrase
from gpuplan.hardware import GPU
from gpuplan.i18n import N_, _, current_money, format_age, format_amount, format_number, money, ngettext
from gpuplan.i18n.numbers import per_usd, rate_source
from gpuplan.i18n.phrases import item_list, listed
from gpuplan.i18n.places import UNSPECIFIED_REGION, place, region_name
from gpuplan.report.common import Widest, fmt_money, fmt_num, house_table, to_jsonable, unknown_age_words
from gpuplan.report.offers_json import (
    offer_items,
    offer_prices,
    price_fields,
    rate_fields,
    spot_bands,
    spot_rate_reason,
)
from gpuplan.vocab import pricing_name

if TYPE_CHECKING:
    # The document models (pydantic) are imported by the functions that build them: the tables
    # (`gpuplan offers`, `gpus`, `catalog info`) do without pydantic.
    from gpuplan.catalog.coverage import ProviderCoverage
    from gpuplan.catalog.discounts import Discount
    from gpuplan.catalog.refresh import RefreshOutcome
    from gpuplan.catalog.undo import ImportEntry, UndoReport
    from gpuplan.documents.base import ExchangeRateDoc
    from gpuplan.documents.catalog import CheapestPrice, GpusDocument, OffersDocument
    from gpuplan.documents.catalog_admin import (
        CatalogInfoDocument,
        ImportDocument,
        ImportsDocument,
        RefreshDocument,
        UndoDocument,
    )
    from gpuplan.documents.serve import DiscountsDocument

__all__ = [
    "discounts_json",
    "gpus_json",
    "gpus_view",
    "import_json",
    "import_view",
    "imports_json",
    "info_json",
    "info_view",
    "offer_prices",
    "offers_json",
    "offers_view",
    "price_fields",
    "rate_doc",
    "rates_line",
    "refresh_json",
    "rejected_reasons",
    "undo_json",
]

_PRICINGS = tuple(m.value for m in PricingModel)
#: Price units as stored (``OfferPrice.unit``), marked for the catalog.
_UNITS = (N_("hour"), N_("month"))


def rates_line(rates: Sequence[ExchangeRate], currency: str) -> str:
    """One line naming the exchange rates used, with their dates and sources."""
    if not rates:
        if currency != "USD":
            return ""
        return _("Prices in {currency}; no currency conversion needed.").format(currency=currency)
    parts = [
        _("1 USD = {rate} {currency} (as of {date}; {source})").format(
            currency=r.currency, rate=per_usd(r.usd_per_unit), date=r.as_of, source=rate_source(r.source)
        )
        for r in rates
    ]
    warnings = [w for w in map(rate_warning, rates) if w]
    # The warning on a line of its own: the rate's source is long, and the warning is what to act on.
    return "\n".join([_("Exchange rate: {rates}").format(rates=_("; ").join(parts)), *warnings])


def rate_doc(rate: ExchangeRate | None) -> ExchangeRateDoc | None:
    """A catalog rate as the documents state it (None stays None)."""
    from gpuplan.documents.base import ExchangeRateDoc

    fields_ = rate_fields(rate)
    return None if fields_ is None else ExchangeRateDoc(**fields_)


def _offers_header(listing: OfferListing) -> OffersDocument:
    from gpuplan.documents.catalog import OffersDocument

    return OffersDocument(
        display_currency=listing.currency,  # type: ignore[arg-type]  # Currency codes: USD or CNY
        exchange_rate=rate_doc(listing.cny_rate),
        offers=[],
        empty_reason=listing.empty_reason,
        country_unknown=list(listing.country_unknown),
        low_confidence_left_out=listing.low_confidence_left_out,
        hosts_left_out=listing.hosts_left_out,
    )


def offers_json(listing: OfferListing) -> OffersDocument:
    """The ``offers --json`` document (``report.offers_json.offers_json_text`` writes its text faster)."""
    from gpuplan.documents.catalog import OfferFloor, OfferItem
    from gpuplan.documents.plan import SpotBandDoc

    items = [
        OfferItem.model_construct(
            **{
                **item,
                "floor": None if item["floor"] is None else OfferFloor.model_construct(**item["floor"]),
                "interruption_bands": [SpotBandDoc.model_construct(**b) for b in item["interruption_bands"]],
            }
        )
        for item in offer_items(listing)
    ]
    return _offers_header(listing).model_copy(update={"offers": items})


def _amount(value: float | None, currency: str) -> str:
    # The one money formatter (gpuplan.i18n): "$2.53", "¥18.16", "$0.035".
    return "—" if value is None else format_amount(value, currency)


def _price_cell(value: float | None, currency: str) -> str:
    # An unknown price says why in the notes column (the reason is a sentence; this cell stays narrow).
    return _amount(value, currency) if value is not None else _("unknown")


def _shown_prices(v: OfferView, currency: str) -> tuple[str, str]:
    """The price cells of an offer: per hour and per GPU-hour at what the listing ranks it by
    (:attr:`OfferView.ranked_per_hour`: a spot price undated or older than the staleness limit, below
    the dated floor it is held to, at that floor, as plans cost it; its listed figure is in its
    notes), so that the column reads in order."""
    if v.floor is not None and v.ranked_per_hour is not None:
        return _price_cell(v.ranked_per_hour, currency), _amount(v.ranked_per_gpu_hour, currency)
    return _price_cell(v.price_per_hour, currency), _amount(v.price_per_gpu_hour, currency)


def _shared_reasons(listing: OfferListing) -> dict[str, int]:
    """The reasons for an unknown price that two or more offers of the listing share, numbered: each
    is said once under the table (a provider whose whole list is unpriced had repeated the same
    fifteen-line reason in every row)."""
    counts: dict[str, int] = {}
    for v in listing.views:
        reason = v.offer.price_reason
        if v.price_per_hour is None and v.offer.price is None and reason:
            counts[reason] = counts.get(reason, 0) + 1
    shared = [r for r, n in counts.items() if n > 1]
    return {r: i for i, r in enumerate(shared, 1)}


def _price_note(offer: OfferPrice, value: float | None, marks: dict[str, int] | None = None) -> str | None:
    if value is not None:
        return None
    if offer.price is not None and offer.currency:
        # Priced in a currency that cannot be converted: show it as published.
        return _("{price}/{unit} as published (not convertible)").format(
            price=fmt_money(offer.price, offer.currency), unit=_(offer.unit or "hour")
        )
    if offer.price_reason:
        if marks and offer.price_reason in marks:
            return _("price unknown (note {n})").format(n=marks[offer.price_reason])
        # The store's own reason is a catalog message; a reason from the catalog's data stays as written.
        return _("price unknown: {reason}").format(reason=_(offer.price_reason))
    return None


def age_flags(o: OfferPrice) -> list[str]:
    """What a price's age says when it is not known to be fresh: ``stale (10 mo)`` past the limit,
    ``age unknown (up to 4.7 y)`` when the source carries no date and its bounds straddle it
    (``age unknown (at most 3.1 y: the L20 launched 2023-11)`` where the GPU's launch bounds it)."""
    if o.staleness == "stale":
        return [_("stale ({age})").format(age=format_age(o.age_days))]
    if o.staleness == "unknown":
        return [unknown_age_words(o.age_days, o.gpu, o.age_bound_launch)]
    if o.stale:  # an offer whose date the store could not read
        return [_("stale")]
    return []


def spot_note(o: OfferPrice) -> str:
    """A spot price's interruption rate in the notes: the provider's published band, or unknown
    with what the provider publishes (the wording a plan states beside the rate it assumes)."""
    bands = spot_bands(o)
    if bands:
        # the band plan costs, never the better of two disagreeing sources without a word
        # the sources themselves are in --json (interruption_bands): a table cell names the bands
        return _(
            "interruption rate {band} a month (published band, the worst of the sources; another: {others})"
        ).format(band=bands[0][0], others=item_list(b for b, _src, _costed in bands[1:]))
    if o.interruption_band is not None:
        return _("interruption rate {band} a month (published band)").format(band=o.interruption_band)
    return _("interruption rate unknown: {reason}").format(reason=_(spot_rate_reason(o.provider)))


def _spot_flag(o: OfferPrice) -> str:
    """:func:`spot_note` as a row of the table says it: a band in full; an unknown rate in two
    words, its provider's reason said once under the table (:func:`_unknown_rate_lines`), not on
    every row of a long listing."""
    if o.interruption_band is not None:
        return spot_note(o)
    return _("interruption rate unknown")


def _unknown_rate_lines(listing: OfferListing) -> list[str]:
    """Under the table: each provider whose spot rows have no interruption rate, and why, once."""
    providers = dict.fromkeys(
        v.offer.provider
        for v in listing.views
        if v.offer.pricing == "spot" and v.offer.interruption_band is None
    )
    return [
        _("Spot interruption rate unknown ({provider}): {reason}.").format(
            provider=p, reason=_(spot_rate_reason(p))
        )
        for p in providers
    ]


def _offer_notes(v: OfferView, currency: str, marks: dict[str, int] | None = None) -> str:
    o = v.offer
    flags = [n] if (n := _price_note(o, v.price_per_hour, marks)) else []
    if kind := host_kind_short(host_kind(o.provider, o.instance_type, o.region)):
        # a marketplace's machine says what it is (a cloud VM, the common case, is left unsaid)
        flags.append(kind)
    if o.region == UNSPECIFIED_REGION:
        # why the row's place reads "tencent/unspecified": the price's source states no region
        flags.append(_("the source names no region"))
    if v.regions_compared > 1 and v.ranked_per_hour is None:
        # no region's price is known: none is the cheapest (it read "cheapest of 5 regions")
        flags.append(_("no known price in any of its {n} regions").format(n=v.regions_compared))
    elif v.regions_compared > 1:
        flags.append(_("cheapest of {n} regions").format(n=v.regions_compared))
    flags.extend(age_flags(o))
    if o.pricing == "spot":
        flags.append(_spot_flag(o))
    if v.floor is not None and v.ranked_per_hour is not None:
        # the price columns show what plans cost it at and what the listing ranked it by (a row
        # shown at its lower listed figure had sat below a dearer-looking one); its own figure here
        flags.append(
            _("listed {listed}/h; shown at {what} ({day}), as plans cost it").format(
                listed=_amount(v.price_per_hour, currency), what=v.floor.what(), day=v.floor.as_of
            )
        )
    if (o.term or {}).get("offering_class") == "convertible":
        # AWS sells a reserved term in one of two offering classes, Standard or Convertible; the
        # JSON's term.offering_class says which, and so does the table
        flags.append(_("Convertible reserved term"))
    if (said := upfront_said(o).strip(" []")) != "":
        # --upfront partial|all: the option the price is the effective rate of, or that it is not known
        flags.append(said)
    if o.confidence == "low":
        flags.append(_("low confidence"))
    if o.unit == "month" and o.price is not None:
        # the month the hourly figure is of: after the user's discount where one applies (the list
        # month beside a discounted hour had not divided to it: ¥4,575.66 ÷ 730 is ¥6.27, not ¥5.01)
        month = o.price * (1.0 - (o.discount_percent or 0.0) / 100.0)
        flags.append(_("{price}/month ÷ 730 h").format(price=fmt_money(month, o.currency or "")))
    if o.discount_percent is not None and o.list_price_usd_per_hour is not None:
        # the list price in the table's currency, at the rate its own price was shown at
        list_price, in_currency = o.list_price_usd_per_hour, "USD"
        if v.price_per_hour is not None and o.price_usd_per_hour:
            list_price, in_currency = (
                v.price_per_hour * o.list_price_usd_per_hour / o.price_usd_per_hour,
                currency,
            )
        flags.append(
            # the pricing model named: a discount is taken off the models it names only
            _("your {pricing} −{percent} % (list {price})").format(
                pricing=pricing_name(o.pricing or ""),
                percent=format_number(o.discount_percent),
                price=format_amount(list_price, in_currency, per=_("h")),
            )
        )
    return _(", ").join(flags)


#: The notes column wraps at this width when one line does not fit, so that a long note does not
#: push a layout out.
_NOTES_WIDTH = 28


def _offers_table(listing: OfferListing, layout: int, notes_width: int | None) -> Table:
    """Layout 0: one column per field; 1: the instance under provider/region, the GPUs in one cell,
    the date under the pricing model; 2 (narrow consoles): the GPUs under the instance too, and the
    price per GPU-hour under the price per hour. Identifiers never wrap; only the notes do."""
    cur = listing.currency
    marks = _shared_reasons(listing)
    per_h, per_gpu_h = _("{currency}/h").format(currency=cur), _("{currency}/GPU-h").format(currency=cur)
    table = house_table()
    if layout == 3:
        # Consoles too narrow for any table of columns (Rich then drops the columns that do not
        # fit, the prices among them): one offer per cell, its lines folded, nothing left out.
        table.add_column(_("offer"), overflow="fold")
        for i, v in enumerate(listing.views):
            if i:
                table.add_row("")  # offers apart
            o = v.offer
            region = region_name(o.region) + (f" ({o.zone})" if o.zone else "")
            price, per_gpu = _shown_prices(v, cur)
            lines = [
                f"{o.provider}/{region}",
                o.instance_type,
                f"{fmt_num(o.gpu_count, 3)}× {o.gpu} · {_(o.pricing) if o.pricing else '—'}",
                (o.as_of or "—").replace("/", "–"),
                f"{per_h} {price} · {per_gpu_h} {per_gpu}",
                _offer_notes(v, cur, marks),
            ]
            table.add_row("\n".join(line for line in lines if line))
        return table
    # The last layout is the fallback for consoles narrower than every layout: the notes give way
    # first (the identifiers' column keeps the longest one's width), and identifiers fold rather
    # than end in "…" only where even that does not fit.
    longest = max((cell_len(v.offer.instance_type) for v in listing.views), default=0)
    ident: dict[str, Any] = {"no_wrap": True} if layout < 2 else {"overflow": "fold", "min_width": longest}
    if layout == 0:
        table.add_column(_("provider"), **ident)
        table.add_column(_("region"), **ident)
        table.add_column(_("instance type"), **ident)
        table.add_column("GPU", **ident)
        table.add_column("n", justify="right", no_wrap=True)
        table.add_column(_("pricing"), no_wrap=True)
    else:
        table.add_column(_("where / instance") if layout == 1 else _("where / instance / GPUs"), **ident)
        if layout == 1:
            table.add_column(_("GPUs"), **ident)
        table.add_column(_("pricing / as of"), no_wrap=True)
    table.add_column(per_h if layout < 2 else f"{per_h}\n{per_gpu_h}", justify="right", no_wrap=True)
    if layout < 2:
        table.add_column(per_gpu_h, justify="right", no_wrap=True)
    if layout == 0:
        table.add_column(_("as of"), no_wrap=True)
    table.add_column(_("notes"), max_width=notes_width, overflow="fold")
    for v in listing.views:
        o = v.offer
        region = region_name(o.region) + (f" ({o.zone})" if o.zone else "")
        gpus = f"{fmt_num(o.gpu_count, 3)}× {o.gpu}"
        pricing = _(o.pricing) if o.pricing else "—"
        price, per_gpu = _shown_prices(v, cur)
        as_of, notes = (o.as_of or "—").replace("/", "–"), _offer_notes(v, cur, marks)
        if layout == 0:
            cells = [o.provider, region, o.instance_type, o.gpu, fmt_num(o.gpu_count, 3)]
            cells += [pricing, price, per_gpu, as_of, notes]
        elif layout == 1:
            cells = [f"{o.provider}/{region}\n{o.instance_type}", gpus, f"{pricing}\n{as_of}"]
            cells += [price, per_gpu, notes]
        else:
            cells = [f"{o.provider}/{region}\n{o.instance_type}\n{gpus}", f"{pricing}\n{as_of}"]
            cells += [f"{price}\n{per_gpu}", notes]
        table.add_row(*cells)
    return table


def country_unknown_note(regions: Sequence[str]) -> str:
    """The line that says which regions ``--countries`` left out for want of a known country."""
    # TRANSLATORS: {regions} are provider/region names ("autodl/cn-hangzhou, vast/unspecified")
    return _(
        "left out by --countries: the offers in {regions}, regions whose country gpuplan does not know "
        "(so in none of the countries asked for)"
    ).format(regions=item_list(regions))


def offers_view(listing: OfferListing) -> RenderableType:
    """The ``offers`` table (the widest layout that fits the console), the rates used and what was
    left out."""
    cur = listing.currency
    layouts = ((0, None), (0, _NOTES_WIDTH), (1, _NOTES_WIDTH), (2, _NOTES_WIDTH))
    table = Widest(
        [partial(_offers_table, listing, layout, notes) for layout, notes in layouts],
        last_resort=partial(_offers_table, listing, 3, None),
    )
    lines: list[RenderableType] = [table]
    notes = [
        ngettext("{n} offer.", "{n} offers.", len(listing.views)).format(n=len(listing.views)),
        rates_line(listing.rates, cur),
    ]
    notes.extend(
        _("note {n}: price unknown: {reason}").format(n=n, reason=_(reason))
        for reason, n in _shared_reasons(listing).items()
    )
    notes.extend(_unknown_rate_lines(listing))
    if listing.empty_reason:
        notes.append(listing.empty_reason)
    if listing.unconvertible:
        notes.append(
            _(
                "{n} priced offers are not convertible to {currency}: no dated exchange rate; "
                "set GPUPLAN_USD_PER_CNY=<USD per CNY> or --usd-per-cny."
            ).format(n=listing.unconvertible, currency=cur)
        )
    if listing.hidden_unknown_price:
        notes.append(
            _("{n} offers with an unknown price left out by --max-price.").format(
                n=listing.hidden_unknown_price
            )
        )
    if listing.country_unknown:
        notes.append(country_unknown_note(listing.country_unknown))
    if listing.low_confidence_left_out:
        notes.append(
            ngettext(
                "{n} low-confidence price left out (two published Chinese GPU guide articles' 2024 "
                "price tables, as plans leave "
                "them out); --allow-low-confidence shows it.",
                "{n} low-confidence prices left out (two published Chinese GPU guide articles' 2024 "
                "price tables, as plans leave "
                "them out); --allow-low-confidence shows them.",
                listing.low_confidence_left_out,
            ).format(n=listing.low_confidence_left_out)
        )
    if listing.hosts_left_out:
        notes.append(
            ngettext(
                "{n} price on a community host or a host of unknown kind left out by --hosts provider "
                "(as plans leave it out); --hosts any shows it.",
                "{n} prices on community hosts or hosts of unknown kind left out by --hosts provider "
                "(as plans leave them out); --hosts any shows them.",
                listing.hosts_left_out,
            ).format(n=listing.hosts_left_out)
        )
    if any(v.floor is not None for v in listing.views):
        notes.append(
            _(
                "A spot price undated or older than the limit, below a dated one it is held to, is shown, "
                "and ranked, at that one, as plans cost it; its notes give the listed figure."
            )
        )
    if listing.hidden_costed:
        notes.append(
            _(
                "{n} offers left out by --max-price at what plans cost them: spot prices undated or older "
                "than the staleness limit, below the dated floor they are held to, costed at that floor "
                "(--all-regions without --max-price lists them)."
            ).format(n=listing.hidden_costed)
        )
    lines.extend(Text(n, style="dim") for n in notes if n)
    return Group(*lines)


def _gpu_base(g: GPU) -> dict[str, Any]:
    return {
        "id": g.id,
        "name": g.name,
        "vendor": g.vendor,
        "architecture": g.architecture,
        "memory_gib": g.memory_gib,
        "memory_bandwidth_gbps": g.memory_bandwidth_gbps,
        "fp32_tflops": g.fp32_tflops,
        "tf32_tflops": g.tf32_tflops,
        "bf16_tflops": g.bf16_tflops,
        "fp16_tflops": g.fp16_tflops,
        "fp8_tflops": g.fp8_tflops,
        "int8_tops": g.int8_tops,
        "interconnect": g.interconnect,
        "nvlink_gen": g.nvlink_gen,
        "nvlink_gbps": g.nvlink_gbps,
        "pcie_gen": g.pcie_gen,
        "source": g.source,
        "peak_basis": g.peak_basis or None,
    }


def gpus_json(
    gpus: Sequence[GPU],
    cheapest: dict[str, dict[str, OfferPrice]],
    cny: ExchangeRate | None,
    display_currency: str = "USD",
) -> GpusDocument:
    """The ``gpus --json`` document; ``cny``: the rate of its ``_cny_`` figures (None: none)."""
    from gpuplan.documents.catalog import GpuItem, GpusDocument

    out = []
    for g in gpus:
        per = cheapest.get(g.id, {})
        item = GpuItem(
            **_gpu_base(g),
            cheapest={p: _cheapest_price(o, cny) if (o := per.get(p)) else None for p in _PRICINGS},
        )
        out.append(item)
    return GpusDocument(
        display_currency=display_currency,  # type: ignore[arg-type]  # Currency codes: USD or CNY
        exchange_rate=rate_doc(cny),
        gpus=out,
    )


def _cheapest_price(o: OfferPrice, cny: ExchangeRate | None) -> CheapestPrice:
    from gpuplan.documents.catalog import CheapestPrice

    usd = o.conservative_usd_per_gpu_hour()
    cny_figure = offer_prices(o, cny)["price_cny_per_gpu_hour"]
    floored = o.dated_floor_usd_per_hour() is not None
    if floored:  # a dated floor, in USD: converted at the document's rate
        cny_figure = None if cny is None or usd is None else usd / cny.usd_per_unit
    return CheapestPrice(
        price_usd_per_gpu_hour=usd,
        price_cny_per_gpu_hour=cny_figure,
        best_case_usd_per_gpu_hour=o.price_usd_per_gpu_hour if floored else None,
        provider=o.provider,
        region=o.region,
        instance_type=o.instance_type,
        as_of=o.as_of,
        stale=o.stale,
        source=o.source,
        confidence=o.confidence,
        discount_percent=o.discount_percent if o.list_price_usd_per_hour is not None else None,
        list_price_usd_per_gpu_hour=(
            o.list_price_usd_per_hour / o.gpu_count if o.list_price_usd_per_hour is not None else None
        ),
    )


def _gpus_table(gpus: Sequence[GPU], cheapest: dict[str, dict[str, OfferPrice]], layout: int) -> Table:
    """Layout 0: every column the command's help names (fits 190 columns: the interconnect on two
    lines, each price above where it is); 1: memory and bandwidth in one cell, the four peaks in
    another, every pricing model; 2 (narrow consoles): memory, BF16, on-demand and spot prices."""
    from gpuplan.report.common import house_table

    pricings = (_PRICINGS, _PRICINGS, _PRICINGS[:2])[layout]
    mem, bw, link = _("mem GiB"), "GB/s", _("interconnect")
    peaks = "FP32 · TF32\nBF16 · FP8"
    figures = ([mem, bw, "FP32", "TF32", "BF16", "FP8"], [f"{mem}\n{bw}", peaks], [mem, "BF16"])[layout]
    names = [pricing_name(p) for p in pricings]
    header = ["GPU", *figures, *([link] if layout < 2 else []), *names]
    table = house_table(None)
    for h in header:
        right = h in figures or h in names
        table.add_column(
            h, justify="right" if right else "left", no_wrap=h in ("GPU", *figures), overflow="fold"
        )
    for g in gpus:
        per = cheapest.get(g.id, {})
        cells = []
        for p in pricings:
            o = per.get(p)
            if o is None:
                cells.append("—")
                continue
            mark = " *" if o.stale else ""
            cells.append(f"{money(o.conservative_usd_per_gpu_hour())}{mark}\n{place(o.provider, o.region)}")
        values = {
            mem: fmt_num(g.memory_gib),
            bw: fmt_num(g.memory_bandwidth_gbps),
            "FP32": fmt_num(g.fp32_tflops),
            "TF32": fmt_num(g.tf32_tflops),
            "BF16": _peak(g, "bf16"),
            "FP8": _peak(g, "fp8"),
        }
        values[f"{mem}\n{bw}"] = f"{values[mem]}\n{values[bw]}"
        values[peaks] = f"{values['FP32']} · {values['TF32']}\n{values['BF16']} · {values['FP8']}"
        # one link a line ("NVLink 4 (900 GB/s)" over "PCIe Gen5 (128 GB/s)"): the prices need the width
        link_cell = [(g.interconnect or "").replace(", ", "\n")] if layout < 2 else []
        table.add_row(g.id, *(values[f] for f in figures), *link_cell, *cells)
    return table


def _peak(g: GPU, path: str) -> str:
    """A tensor-core peak: its figure, "?" where the part has the tensor cores but no source gives
    their rate (the H20's FP8), "—" where it has none (a T4's BF16)."""
    from gpuplan.perf.roofline import rate_unpublished

    value = g.peak_tflops(path)
    if value is not None:
        return ("~" if g.peak_basis and path in ("tf32", "bf16", "fp16") else "") + fmt_num(value)
    return "?" if rate_unpublished(g, path) else "—"


def gpus_view(
    gpus: Sequence[GPU], cheapest: dict[str, dict[str, OfferPrice]], rates: Sequence[ExchangeRate] | None
) -> RenderableType:
    """The ``gpus`` table: datasheet figures and the cheapest price per GPU-hour under each pricing model,
    in the current display currency (``gpuplan.i18n.current_money``). ``rates``: those that converted
    a price shown (empty: none did); None when the catalog has no CNY rate."""
    table = Widest([partial(_gpus_table, gpus, cheapest, layout) for layout in (0, 1, 2)])
    notes = [
        _(
            "Peaks are dense datasheet TFLOP/s (~ = derived, not published: `gpuplan gpus --json` says "
            "how; ? = the part has these tensor cores but no source publishes their rate; — = it has "
            "none). Prices: cheapest known per GPU-hour (monthly ÷ 730 h), "
            "any provider; — = no known price; * = stale or of unknown age (offers shows its date). A "
            "spot price undated or older than the staleness limit is shown, as plans cost it, at the "
            "dated floor it is held to where that is higher: the lowest dated spot price per GPU-hour "
            "of the same GPU in its region, else in the catalog (fresh ones first; a stale price is "
            "held to fresh ones only), else, for an undated one, the instance's on-demand price; or "
            "its instance type's own lowest dated spot price in the region, where higher."
        ),
        # Shown in CNY, the display note names the same rate, both ways round: said once.
        current_money().rate_note()
        or (
            rates_line(rates, "USD")
            if rates is not None
            else _("CNY prices count only once a CNY rate is set (--usd-per-cny or --cny-per-usd).")
        ),
    ]
    discounted = sorted(
        {
            (o.provider, o.pricing or "", o.discount_percent)
            for per in cheapest.values()
            for o in per.values()
            if o.discount_percent is not None and o.list_price_usd_per_hour is not None
        }
    )
    if discounted:
        notes.append(
            _(
                "Your negotiated discounts are in these prices: {which} (offers shows each list price)."
            ).format(which=listed(f"{p} {pricing_name(m)} −{format_number(d)} %" for p, m, d in discounted))
        )
    return Group(table, *(Text(n, style="dim") for n in notes))


def info_json(info: CatalogInfo) -> CatalogInfoDocument:
    """The ``catalog info --json`` document."""
    from gpuplan.documents.catalog_admin import CatalogInfoDocument

    doc = to_jsonable(info)
    doc["exchange_rates"] = [{**to_jsonable(r), "stale": r.stale} for r in info.exchange_rates]
    return CatalogInfoDocument.model_validate(doc)


def import_json(report: ImportReport, warnings: Sequence[object] = ()) -> ImportDocument:
    """The ``catalog import --json`` document; ``warnings``: what the file's reading found to look at
    (Phrases, written in English as the rest of the document is)."""
    from gpuplan.documents.catalog_admin import ImportDocument

    doc = to_jsonable(report)
    rows = doc.pop("rejected")
    # the rows refused apart from the rows of what gpuplan does not price, as the summary counts them
    return ImportDocument.model_validate(
        doc
        | {
            "rejected": [r for r in rows if not r.get("skipped")],
            "skipped": [r for r in rows if r.get("skipped")],
            "warnings": [str(w) for w in warnings],
        }
    )


def refresh_json(outcomes: Sequence[RefreshOutcome]) -> RefreshDocument:
    """The ``catalog refresh --json`` document (and the service's refresh job's result)."""
    from gpuplan.documents.catalog_admin import RefreshDocument

    return RefreshDocument.model_validate(
        {"outcomes": [{k: v for k, v in to_jsonable(o).items() if k != "label"} for o in outcomes]}
    )


def discounts_json(found: Sequence[Discount]) -> DiscountsDocument:
    """The ``catalog discount list --json`` document (and the service's ``/catalog/discounts``)."""
    from gpuplan.documents.serve import DiscountsDocument

    return DiscountsDocument.model_validate({"discounts": [to_jsonable(d) for d in found]})


def _info_table(info: CatalogInfo) -> Table:
    table = house_table()
    table.show_header = False
    table.add_column(no_wrap=True)
    table.add_column(overflow="fold")  # sentences wrap; a long database path folds
    counts = item_list(f"{p} {n}" for p, n in info.offers_by_provider.items())
    prices = item_list(f"{_(p)} {n}" for p, n in info.prices_by_pricing.items())
    rates = _("; ").join(
        "\n".join(
            [
                _("1 USD = {rate} {currency} ({date}, {source})").format(
                    currency=r.currency,
                    rate=per_usd(r.usd_per_unit),
                    date=r.as_of,
                    source=rate_source(r.source),
                ),
                *filter(None, [rate_warning(r)]),
            ]
        )
        for r in info.exchange_rates
    )
    table.add_row(_("database"), info.location)
    table.add_row(_("schema revision"), info.schema_revision)
    table.add_row(_("providers"), item_list(info.providers))
    table.add_row(_("offers"), _("{counts} (total {total})").format(counts=counts, total=info.offers))
    table.add_row(_("prices"), _("{counts} (total {total})").format(counts=prices, total=info.prices))
    table.add_row(_("prices dated"), f"{info.oldest_as_of or '—'} … {info.newest_as_of or '—'}")
    table.add_row(_("stale after"), _("{n} days").format(n=info.stale_after_days))
    table.add_row(_("imports"), str(info.imports))
    table.add_row(
        _("exchange rates"), rates or _("none (CNY prices are not converted; set GPUPLAN_USD_PER_CNY)")
    )
    return table


def _coverage_table(info: CatalogInfo, layout: int) -> Table:
    """Layout 0: one column per field; 1: the three counts in one cell and the dates stacked."""
    table = house_table(_("per provider"))
    table.add_column(_("provider"), no_wrap=True)
    if layout == 0:
        for head in (_("offers"), _("priced"), _("regions")):
            table.add_column(head, justify="right", no_wrap=True)
    else:
        table.add_column(_("offers /\npriced /\nregions"), justify="right", no_wrap=True)
    # Pricing model codes stay whole: on one line, or one per line in the narrow layout.
    table.add_column(_("pricing models"), no_wrap=True)
    table.add_column(_("prices dated"), no_wrap=True)
    table.add_column(_("last refresh"), overflow="fold")
    for c in info.coverage:
        dated = (
            f"{c.oldest_as_of or '—'} … {c.newest_as_of or '—'}"
            if layout == 0
            # the second line opens with the ellipsis: one range on two lines, not a date of the
            # pricing model beside it
            else f"{c.oldest_as_of or '—'}\n… {c.newest_as_of or '—'}"
        )
        counts = [str(c.offers), str(c.priced_offers), str(c.regions)]
        table.add_row(
            c.provider,
            *(counts if layout == 0 else [" / ".join(counts)]),
            _pricing_models_cell(c, layout),
            dated,
            c.last_refresh or _("never"),
        )
    return table


def _pricing_models_cell(c: ProviderCoverage, layout: int) -> str:
    """The provider's usable pricing models; where its only prices are low-confidence (its priced
    offers counted, yet none a plan costs unasked), says so rather than a bare dash that reads as
    no price at all: the note under the table names those pricing models."""
    usable = (item_list if layout == 0 else "\n".join)(_(m) for m in c.pricing_models)
    if usable or not c.low_confidence_only:
        return usable or "—"
    # one line in the wide layout; in the narrow one no wider than a pricing model's code
    said = _("none usable:\nlow-confidence\nonly")
    return " ".join(said.split("\n")) if layout == 0 else said


def info_view(info: CatalogInfo) -> RenderableType:
    """``catalog info``: what the catalog holds, then one row per provider (widest layout that fits)."""
    table = _info_table(info)
    if not info.coverage:
        return table
    per = Widest([partial(_coverage_table, info, layout) for layout in (0, 1)])
    parts: list[RenderableType] = [table, Text(""), per]
    if any(c.last_refresh is None for c in info.coverage):
        parts.append(Text(_("never: only the shipped snapshot; run `gpuplan catalog refresh`."), style="dim"))
    low = [c for c in info.coverage if c.low_confidence_only]
    if low:
        # apart from the table's pricing models: an article's figure is no pricing model the
        # provider is known to sell at
        parts.append(
            Text(
                _(
                    "Pricing models only low-confidence prices give (two published Chinese GPU "
                    "guide articles' 2024 price tables; "
                    "plans, tco and offers leave them out unless asked): {models}."
                ).format(
                    models=_("; ").join(
                        f"{c.provider} {item_list(_(m) for m in c.low_confidence_only)}" for c in low
                    )
                ),
                style="dim",
            )
        )
    return Group(*parts)


#: Rejected rows an import's table shows; --json lists them all.
SHOWN_REJECTED = 50

#: Characters of a rejected row's instance type or region the table shows: the longest the shipped
#: catalog holds (``4x120v460g_NVIDIA_GeForce_RTX_5090_32G_SECURE``, a marketplace's) has 45.
NAME_SHOWN_CHARS = 48


#: Rejected rows a refused import's one line names (the service's answer, which has no table).
NAMED_REJECTED = 3


def rejected_reasons(rejected: Sequence[RejectedRow], shown: int = NAMED_REJECTED) -> Phrase:
    """The first ``shown`` rejected rows as ``line 3: reason; line 7: reason``, then how many more:
    the table of :func:`import_view` in one line, for an answer that is one line."""
    from gpuplan.i18n.phrases import separated

    clauses: list[object] = [
        Phrase(N_("line {line}: {reason}"), line=r.line or "—", reason=r.worded_reason())
        for r in rejected[:shown]
    ]
    if len(rejected) > shown:
        clauses.append(Phrase(N_("… and {n:,} more"), n=len(rejected) - shown))
    return separated(clauses)


def _refusals_by_check(rejected: Sequence[RejectedRow]) -> list[Text]:
    """One line per named check (a file of made-up zones is one cause, however many rows it has):
    how many rows it refused and the first one's line; rows refused for reasons of their own are
    in the table only."""
    from gpuplan.i18n.error_text import phrase_text

    by_check: dict[str, list[RejectedRow]] = {}
    for r in rejected:
        check = r.named_check()
        if check is not None:
            by_check.setdefault(phrase_text(check), []).append(r)
    lines = []
    for check, rows in by_check.items():
        first = next((r.line for r in rows if r.line is not None), None)
        said = ngettext(
            "{check}: {n:,} row rejected (line {line})",
            "{check}: {n:,} rows rejected (first on line {line})",
            len(rows),
        ).format(check=check, n=len(rows), line=first if first is not None else "—")
        lines.append(Text(said, style="yellow"))
    return lines


def _other_providers(skipped: Sequence[RejectedRow]) -> list[Text]:
    """One line per provider whose rows ``--provider`` left out of a file that prices several: which
    providers the file names besides the one imported (the summary line had counted their rows
    only, naming none)."""
    from gpuplan.catalog.importers.own import OTHER_PROVIDER

    by_provider: dict[str, list[RejectedRow]] = {}
    for r in skipped:
        reason = r.worded_reason()
        if r.named_check() is OTHER_PROVIDER and isinstance(reason, Phrase):
            by_provider.setdefault(str(reason.fields["provider"]), []).append(r)
    lines = []
    for provider, rows in by_provider.items():
        first = next((r.line for r in rows if r.line is not None), None)
        said = ngettext(
            "{provider}: {n:,} row not imported, another provider than the one imported (line {line})",
            "{provider}: {n:,} rows not imported, another provider than the one imported (first on line "
            "{line})",
            len(rows),
        ).format(provider=provider, n=len(rows), line=first if first is not None else "—")
        lines.append(Text(said, style="dim"))
    return lines


def _dated(days: Sequence[str]) -> str:
    """ ", dated 2026-11-30" (", dated 2026-10-01 … 2026-11-30" for prices of several dates): the date
    an import gave its prices, said on its summary line, so that an old file dated today is seen."""
    if not days:
        return ""
    shown = days[0] if len(days) == 1 else f"{days[0]} … {days[-1]}"
    return _(", dated {days}").format(days=shown)


def _already(n: int) -> str:
    """ ", 3 prices already recorded": prices the catalog held for the same offer, pricing model, date
    and amount, which the import did not record again."""
    if not n:
        return ""
    return ngettext(", {n} price already recorded", ", {n} prices already recorded", n).format(n=n)


def _skipped(rows: Sequence[RejectedRow]) -> str:
    """ ", 1 row skipped (…)": rows left out by design, said apart from the rows rejected (they are
    not lost, and the exit status does not count them): rows of what gpuplan does not price, and
    rows of another provider than the one ``--provider`` picked."""
    from gpuplan.catalog.importers.own import OTHER_PROVIDER

    others = sum(r.named_check() is OTHER_PROVIDER for r in rows)
    unpriced = len(rows) - others
    said = ""
    if unpriced:
        said += ngettext(
            ", {n} row skipped (not priced by gpuplan: no GPU, or a GPU it has no datasheet of)",
            ", {n} rows skipped (not priced by gpuplan: no GPU, or a GPU it has no datasheet of)",
            unpriced,
        ).format(n=unpriced)
    if others:
        said += ngettext(
            ", {n} row of another provider left out",
            ", {n} rows of other providers left out",
            others,
        ).format(n=others)
    return said


def import_view(report: ImportReport, warnings: Sequence[object] = ()) -> RenderableType:
    """What an import did, a line for each of ``warnings`` (what the file's reading found to look at),
    and each row not imported with its line and reason: the rows rejected first, then the rows
    skipped (each said so), counted apart on the summary line as the exit status counts them."""
    lost = [r for r in report.rejected if not r.skipped]
    skipped = [r for r in report.rejected if r.skipped]
    head = Text(
        ngettext(
            "{provider}: {offers} new offers, {prices} prices imported{dated}{already}; {rejected} row "
            "rejected{skipped}.",
            "{provider}: {offers} new offers, {prices} prices imported{dated}{already}; {rejected} rows "
            "rejected{skipped}.",
            len(lost),
        ).format(
            provider=report.provider,
            offers=report.offers_imported,
            prices=report.prices_imported,
            dated=_dated(report.dated),
            already=_already(report.prices_already_recorded),
            rejected=len(lost),
            skipped=_skipped(skipped),
        )
    )
    parts: list[RenderableType] = [head]
    if report.import_id is not None:
        # the id is what takes the import out again: a wrong file, another team's, a wrong --as-of
        parts.append(
            Text(
                _("import {id}; `gpuplan catalog import --undo {id}` takes it out again").format(
                    id=report.import_id
                ),
                style="dim",
            )
        )
    if warnings:
        from gpuplan.i18n.error_text import phrase_text

        parts += [Text(_("warning: {what}").format(what=phrase_text(w)), style="yellow") for w in warnings]
    if not report.rejected:
        return Group(*parts) if len(parts) > 1 else head
    parts += _refusals_by_check(lost)
    parts += _other_providers(skipped)
    title = _("rejected") if not skipped else _("skipped") if not lost else _("rejected and skipped")
    table = house_table(title)
    table.add_column(_("line"), justify="right", no_wrap=True)
    # The names are the file's own and may run to thousands of characters: cut, so that the line and
    # reason columns (what the user needs) are never the ones the table drops for want of width.
    table.add_column(_("instance type"), no_wrap=True, max_width=NAME_SHOWN_CHARS, overflow="ellipsis")
    table.add_column(_("region"), no_wrap=True, max_width=NAME_SHOWN_CHARS, overflow="ellipsis")
    table.add_column(_("reason"), overflow="fold")
    shown = [*lost, *skipped]
    for r in shown[:SHOWN_REJECTED]:
        # The instance type and region are the file's own bytes: an ESC sequence in them would
        # recolour or retitle the terminal (the reason quotes its values with repr already).
        reason = r.reason_text() if not r.skipped else _("skipped: {why}").format(why=r.reason_text())
        table.add_row(str(r.line or "—"), printable(r.instance_type), printable(r.region), reason)
    if len(shown) <= SHOWN_REJECTED:
        return Group(*parts, table)
    # A whole SkyPilot file skips ~50,000 CPU rows: a table that long says less than its count.
    more = Text(
        _("… and {n:,} more rows (every one with its line and reason in --json)").format(
            n=len(shown) - SHOWN_REJECTED
        ),
        style="dim",
    )
    return Group(*parts, table, more)


def imports_view(entries: Sequence[ImportEntry], snapshot_hidden: int = 0) -> RenderableType:
    """Imports, oldest first: the id, when, what it read (the file and the first characters of its
    SHA-256, else its source), the --as-of given, its rows and what it added, and the prices it holds
    now (or when it was undone). ``snapshot_hidden``: the shipped snapshot's imports left out."""
    parts: list[RenderableType] = []
    if entries:
        table = house_table(_("the catalog's imports"))
        table.add_column(_("id"), justify="right", no_wrap=True)
        table.add_column(_("imported"), no_wrap=True)
        table.add_column(_("provider"), no_wrap=True)
        table.add_column(_("file or source"), overflow="fold", min_width=12, ratio=1)
        table.add_column(_("as of"), overflow="fold")
        table.add_column(_("rows"), no_wrap=True)
        table.add_column(_("prices now"), no_wrap=True)
        for e in entries:
            # the file's name and the source are the user's text: printable, each line on its own
            what = (
                f"{printable(e.file_name)}\n({e.file_sha256[:12]})"
                if e.file_name and e.file_sha256
                else printable(e.source)
            )
            rows = (
                [
                    ngettext("{n} offer", "{n} offers", e.offers_added).format(n=e.offers_added),
                    ngettext("{n} price", "{n} prices", e.prices_added or 0).format(n=e.prices_added or 0),
                ]
                if e.offers_added is not None
                else [_("{n} ok").format(n=e.rows_ok)]
            )
            rows.append(_("{n} rejected").format(n=e.rows_rejected))
            now = (
                _("undone\n{day}").format(day=e.undone_at[:10])
                if e.undone_at is not None
                else str(e.prices_held)
            )
            table.add_row(
                str(e.id),
                e.imported_at[:16].replace("T", "\n"),
                e.provider or "—",
                what,
                e.as_of or "—",
                "\n".join(rows),
                now,
            )
        parts.append(table)
    else:
        parts.append(Text(_("no import in the catalog but the shipped snapshot's")))
    if any(e.offers_added is None and e.undone_at is None for e in entries):
        parts.append(
            Text(
                _(
                    "An import without the offers it added listed was stored before gpuplan recorded them: "
                    "undone, its prices go and its offers stay."
                ),
                style="dim",
            )
        )
    if snapshot_hidden:
        parts.append(
            Text(
                ngettext(
                    "{n} import of the shipped snapshot not listed (the catalog's base, not undone; --all "
                    "lists it).",
                    "{n} imports of the shipped snapshot not listed (the catalog's base, not undone; --all "
                    "lists them).",
                    snapshot_hidden,
                ).format(n=snapshot_hidden),
                style="dim",
            )
        )
    parts.append(Text(_("`gpuplan catalog import --undo ID` takes an import out again."), style="dim"))
    return Group(*parts)


def imports_json(entries: Sequence[ImportEntry], snapshot_hidden: int = 0) -> ImportsDocument:
    """The ``catalog imports --json`` document."""
    from gpuplan.documents.catalog_admin import ImportsDocument

    return ImportsDocument.model_validate(
        {"imports": [to_jsonable(e) for e in entries], "snapshot_hidden": snapshot_hidden}
    )


def undo_json(report: UndoReport) -> UndoDocument:
    """The ``catalog import --undo ID --json`` document."""
    from gpuplan.documents.catalog_admin import UndoDocument

    return UndoDocument.model_validate(to_jsonable(report))


def undo_view(report: UndoReport) -> RenderableType:
    """What undoing an import removed, and what it left: offers another import priced since, and
    the offers of an import stored before they were recorded."""
    what = report.file_name or report.source
    lines = [
        _("undid import {id} ({provider}, {what}): removed {prices} and {offers}.").format(
            id=report.import_id,
            provider=report.provider or "—",
            what=printable(what),
            prices=ngettext("{n} price", "{n} prices", report.prices_removed).format(n=report.prices_removed),
            offers=ngettext("{n} offer", "{n} offers", report.offers_removed).format(n=report.offers_removed),
        )
    ]
    if report.prices_current_again:
        lines.append(
            ngettext(
                "{n} offer price is the one recorded before the import again.",
                "{n} offer prices are the ones recorded before the import again.",
                report.prices_current_again,
            ).format(n=report.prices_current_again)
        )
    if report.offers_kept:
        lines.append(
            ngettext(
                "{n} offer it created stays: another import has priced it since.",
                "{n} offers it created stay: another import has priced them since.",
                report.offers_kept,
            ).format(n=report.offers_kept)
        )
    if report.same_file:
        lines.append(
            _(
                "Import {ids} read the same file: the prices it found already recorded were this import's, "
                "and are gone with it; import the file again to have them back."
            ).format(ids=item_list(str(i) for i in report.same_file))
        )
    if not report.offers_recorded:
        lines.append(
            _(
                "This import was stored before gpuplan recorded which offers an import created: its offers "
                "stay (those without another price are listed without one)."
            )
        )
    return Text("\n".join(lines))
