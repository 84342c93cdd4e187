"""Views of price history (``catalog history``): a table, and an HTML page with an inline SVG chart."""

from __future__ import annotations

import html
from collections import defaultdict
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from gpuplan.i18n import _, current_language
from gpuplan.report.common import Widest, house_table

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.table import Table

    from gpuplan.catalog.history import HistoryPoint

__all__ = ["history_html", "history_view"]

_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf")


def _history_table(points: Sequence[HistoryPoint], layout: int, source_width: int | None) -> Table:
    """Layout 0: one column per field; 1 (narrower consoles): where under the date, the price in USD
    under the published one, how it was imported under the confidence. The source wraps at
    ``source_width`` (None: one line)."""
    title = (
        _("price history of {instance}").format(instance=points[0].instance_type)
        if points
        else _("price history")
    )
    table = house_table(title)
    if layout == 0:
        for head in (_("as of"), _("provider"), _("region"), _("pricing")):
            table.add_column(head, no_wrap=True)
        table.add_column(_("price"), justify="right", no_wrap=True)
        table.add_column("USD/h", justify="right", no_wrap=True)
        table.add_column(_("confidence"), no_wrap=True)
        table.add_column(_("via"), no_wrap=True)
    else:
        table.add_column(_("as of") + "\n" + _("provider") + "/" + _("region"), no_wrap=True)
        table.add_column(_("pricing"), no_wrap=True)
        table.add_column(_("price") + "\nUSD/h", justify="right", no_wrap=True)
        table.add_column(_("confidence") + "\n" + _("via"), overflow="fold")
    table.add_column(_("source"), overflow="fold", min_width=12, max_width=source_width)
    for p in points:
        usd = "—" if p.price_usd_per_hour is None else f"{p.price_usd_per_hour:,.4f}"
        if p.discount_percent is not None:
            usd += f" (−{p.discount_percent:g} %)"
        where = p.region + (f"/{p.zone}" if p.zone else "")
        price = f"{p.amount:g} {p.currency}/{_(p.unit)}"
        if layout == 0:
            cells = [p.as_of, p.provider, where, _(p.pricing), price, usd, _(p.confidence), p.imported_by]
        else:
            cells = [f"{p.as_of}\n{p.provider}/{where}", _(p.pricing), f"{price}\n{usd}"]
            cells.append(f"{_(p.confidence)}\n{p.imported_by}")
        table.add_row(*cells, p.source[:60])
    return table


def history_view(points: Sequence[HistoryPoint]) -> RenderableType:
    """One row per dated price, the price as published and in USD per hour: the widest layout that
    fits the console, identifiers whole."""
    layouts = ((0, None), (0, 30), (1, 30))
    return Widest([partial(_history_table, points, layout, width) for layout, width in layouts])


def _series(points: Sequence[HistoryPoint]) -> dict[str, list[tuple[str, float]]]:
    out: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for p in points:
        if p.price_usd_per_hour is not None:
            out[f"{p.provider} {p.region}{'/' + p.zone if p.zone else ''} {p.pricing}"].append(
                (p.as_of, p.price_usd_per_hour)
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
    axis = html.escape(_("USD/h (max {top})").format(top=f"{top:,.2f}"))
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
                p.as_of,
                p.provider,
                p.region,
                p.pricing,
                f"{p.amount:g} {p.currency}/{p.unit}",
                "" if p.price_usd_per_hour is None else f"{p.price_usd_per_hour:,.4f}",
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
    heads = (_("as of"), _("provider"), _("region"), _("pricing"), _("price"), "USD/h", _("confidence"))
    head_row = "".join(f"<th>{html.escape(h)}</th>" for h in (*heads, _("source")))
    lang = html.escape(current_language().value)
    return (
        f"<!doctype html><html lang='{lang}'><head><meta charset='utf-8'><title>{title}</title></head>"
        f"<body><h1>{title}</h1>{''.join(parts)}"
        f"<table border='1' cellpadding='3'><tr>{head_row}</tr>{rows}</table></body></html>\n"
    )
