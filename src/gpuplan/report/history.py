"""Views of price history (``catalog history``): the ``--json`` document, a table, and an HTML page
with an inline SVG chart. Amounts are shown in the current display currency
(:func:`gpuplan.i18n.current_money`, ``--currency``) next to the price as published."""

from __future__ import annotations

import html
from collections import defaultdict
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from gpuplan.catalog.history import IMPORT_KINDS
from gpuplan.documents.catalog_admin import HistoryDocument, HistoryPrice
from gpuplan.i18n import _, current_language, current_money, format_amount, format_number
from gpuplan.i18n.phrases import bracketed
from gpuplan.i18n.places import region_name
from gpuplan.report.catalog import price_fields, rate_doc
from gpuplan.report.common import Widest, house_table, price_age_words
from gpuplan.vocab import confidence_name

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.table import Table

    from gpuplan.catalog.history import HistoryPoint
    from gpuplan.catalog.model import ExchangeRate

__all__ = ["history_html", "history_json", "history_view"]


def history_json(
    points: Sequence[HistoryPoint], instance_type: str, cny: ExchangeRate | None, display_currency: str
) -> HistoryDocument:
    """The ``catalog history --json`` document; ``cny``: the rate of its ``_cny_`` figures."""
    prices = [
        HistoryPrice(
            provider=p.provider,
            region=p.region,
            zone=p.zone,
            instance_type=p.instance_type,
            pricing=p.pricing,
            published_currency=p.currency,
            published_unit=p.unit,  # type: ignore[arg-type]  # the store's units: hour or month
            **price_fields(
                amount=p.amount,
                currency=p.currency,
                unit=p.unit,
                usd_per_hour=p.price_usd_per_hour,
                discount_percent=p.discount_percent,
                cny=cny,
            ),
            discount_percent=p.discount_percent,
            as_of=p.as_of,
            age_days=p.age.age_days,
            staleness=p.age.staleness,  # type: ignore[arg-type]  # fresh, stale or unknown
            source=p.source,
            confidence=p.confidence,
            fetched_at=p.fetched_at,
            imported_by=p.imported_by,
        )
        for p in points
    ]
    return HistoryDocument(
        instance_type=instance_type,
        display_currency=display_currency,  # type: ignore[arg-type]  # Currency codes: USD or CNY
        exchange_rate=rate_doc(cny),
        prices=prices,
    )


def _published(p: HistoryPoint) -> str:
    """The price as published: ``¥2,500.00/month``."""
    return format_amount(p.amount, p.currency, per=_(p.unit))


def _shown(p: HistoryPoint) -> str:
    """Per instance-hour in the display currency, with the user's discount: ``$0.48 (−10 %)``."""
    text = current_money().format(p.price_usd_per_hour, per=None, unknown="—")
    if p.discount_percent is not None:
        text = bracketed(text, f"−{format_number(p.discount_percent)} %")
    return text


def _as_of(p: HistoryPoint) -> str:
    """The price's date as ``offers`` shows it: an interval ``2025-06–2026-12-02``."""
    return (p.as_of or "—").replace("/", "–")


def _age(p: HistoryPoint) -> str:
    """How old the price is, in the words plan, tco and offers use: ``5 mo old``, ``stale (2.7 y)``,
    ``age unknown (up to 18 mo)``, ``date unknown``."""
    return price_age_words(p.age.age_days, p.age.staleness, p.gpu, p.age.launched)


_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf")


def _history_table(points: Sequence[HistoryPoint], layout: int, source_width: int | None) -> Table:
    """Layout 0: one column per field; 1 (narrower consoles): the age and where under the date, the
    price in USD under the published one, how it was imported under the confidence. The source wraps
    at ``source_width`` (None: one line)."""
    title = (
        _("price history of {instance}").format(instance=points[0].instance_type)
        if points
        else _("price history")
    )
    table = house_table(title)
    per_h = _("{currency}/h").format(currency=current_money().currency)
    if layout == 0:
        for head in (_("as of"), _("age"), _("provider"), _("region"), _("pricing")):
            table.add_column(head, no_wrap=True)
        table.add_column(_("price"), justify="right", no_wrap=True)
        table.add_column(per_h, justify="right", no_wrap=True)
        table.add_column(_("confidence"), no_wrap=True)
        table.add_column(_("via"), no_wrap=True)
    else:
        head = _("as of") + "\n" + _("age") + "\n" + _("provider") + "/" + _("region")
        table.add_column(head, no_wrap=True)
        table.add_column(_("pricing"), no_wrap=True)
        table.add_column(_("price") + "\n" + per_h, justify="right", no_wrap=True)
        table.add_column(_("confidence") + "\n" + _("via"), overflow="fold")
    table.add_column(_("source"), overflow="fold", min_width=12, max_width=source_width)
    for p in points:
        via = _(p.imported_by) if p.imported_by in IMPORT_KINDS else p.imported_by
        usd = _shown(p)
        where = region_name(p.region) + (f"/{p.zone}" if p.zone else "")
        price, as_of, age = _published(p), _as_of(p), _age(p)
        if layout == 0:
            cells = [as_of, age, p.provider, where, _(p.pricing), price, usd, confidence_name(p.confidence)]
            cells.append(via)
        else:
            cells = [f"{as_of}\n{age}\n{p.provider}/{where}", _(p.pricing), f"{price}\n{usd}"]
            cells.append(f"{confidence_name(p.confidence)}\n{via}")
        table.add_row(*cells, p.source)  # whole: its commit, line and date are what a reader follows
    return table


def history_view(points: Sequence[HistoryPoint]) -> RenderableType:
    """One row per dated price, the price as published and per hour in the display currency: the
    widest layout that fits the console, identifiers whole; then the rate used, when not USD."""
    from rich.console import Group
    from rich.text import Text

    layouts = ((0, None), (0, 60), (0, 45), (0, 30), (1, 30))
    table = Widest([partial(_history_table, points, layout, width) for layout, width in layouts])
    note = current_money().rate_note()
    return Group(table, Text(note, style="dim")) if note else table


def _series(points: Sequence[HistoryPoint]) -> dict[str, list[tuple[str, float]]]:
    out: dict[str, list[tuple[str, float]]] = defaultdict(list)
    shown = current_money()
    for p in points:
        if p.price_usd_per_hour is not None:
            out[f"{p.provider} {p.region}{'/' + p.zone if p.zone else ''} {p.pricing}"].append(
                (p.as_of, shown.amount(p.price_usd_per_hour))
            )
    return out


def history_html(points: Sequence[HistoryPoint]) -> str:
    """A self-contained page: an SVG line per (region, pricing model) over time, and the table."""
    series = _series(points)
    dates = sorted({d for s in series.values() for d, _ in s})
    values = [v for s in series.values() for _, v in s]
    w, h, pad = 760, 320, 50
    top = max(values) * 1.1 if values else 1.0

    def x(d: str) -> float:
        return pad + (w - 2 * pad) * (dates.index(d) / max(len(dates) - 1, 1))

    def y(v: float) -> float:
        return h - pad - (h - 2 * pad) * (v / top)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img">']
    parts.append(f'<line x1="{pad}" y1="{h - pad}" x2="{w - pad}" y2="{h - pad}" stroke="#999"/>')
    parts.append(f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{h - pad}" stroke="#999"/>')
    shown = current_money()
    axis = html.escape(
        _("{currency}/h (max {top})").format(currency=shown.currency, top=shown.format_native(top))
    )
    parts.append(f'<text x="4" y="{pad - 8}" font-size="11">{axis}</text>')
    for d in dates:
        parts.append(
            f'<text x="{x(d):.1f}" y="{h - pad + 16}" font-size="10" text-anchor="middle">{d}</text>'
        )
    for i, (name, pts) in enumerate(sorted(series.items())):
        colour = _COLOURS[i % len(_COLOURS)]
        coords = " ".join(f"{x(d):.1f},{y(v):.1f}" for d, v in pts)
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{coords}"/>')
        for d, v in pts:
            parts.append(f'<circle cx="{x(d):.1f}" cy="{y(v):.1f}" r="3" fill="{colour}"/>')
        label = html.escape(name)
        parts.append(
            f'<text x="{w - pad + 4}" y="{pad + 14 * i}" font-size="10" fill="{colour}">{label}</text>'
        )
    parts.append("</svg>")
    rows = "".join(
        "<tr>"
        + "".join(
            f"<td>{html.escape(str(c))}</td>"
            for c in (
                _as_of(p),
                _age(p),
                p.provider,
                p.region,
                p.pricing,
                _published(p),
                _shown(p),
                p.confidence,
                p.source,
            )
        )
        + "</tr>"
        for p in points
    )
    title = html.escape(
        _("Price history of {instance}").format(instance=points[0].instance_type if points else "")
    )
    per_h = _("{currency}/h").format(currency=shown.currency)
    heads = [_("as of"), _("age"), _("provider"), _("region"), _("pricing"), _("price"), per_h]
    head_row = "".join(f"<th>{html.escape(h)}</th>" for h in (*heads, _("confidence"), _("source")))
    lang = html.escape(current_language().value)
    return (
        f"<!doctype html><html lang='{lang}'><head><meta charset='utf-8'><title>{title}</title></head>"
        f"<body><h1>{title}</h1>{''.join(parts)}"
        f"<table border='1' cellpadding='3'><tr>{head_row}</tr>{rows}</table>"
        f"<p>{html.escape(shown.rate_note())}</p></body></html>\n"
    )
