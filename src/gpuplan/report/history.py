"""Views of price history (``catalog history``): a table, and an HTML page with an inline SVG chart."""

from __future__ import annotations

import html
from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpuplan.report.common import plain_table

if TYPE_CHECKING:
    from rich.console import RenderableType

    from gpuplan.catalog.history import HistoryPoint

__all__ = ["history_html", "history_view"]

_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf")


def history_view(points: Sequence[HistoryPoint]) -> RenderableType:
    table = plain_table(
        f"price history of {points[0].instance_type}" if points else "price history",
        ["as of", "provider", "region", "pricing", "price", "USD/h", "confidence", "via", "source"],
    )
    for p in points:
        usd = "—" if p.price_usd_per_hour is None else f"{p.price_usd_per_hour:,.4f}"
        if p.discount_percent is not None:
            usd += f" (−{p.discount_percent:g} %)"
        table.add_row(
            p.as_of,
            p.provider,
            p.region + (f"/{p.zone}" if p.zone else ""),
            p.pricing,
            f"{p.amount:g} {p.currency}/{p.unit}",
            usd,
            p.confidence,
            p.imported_by,
            p.source[:60],
        )
    return table


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
    parts.append(f'<text x="4" y="{pad - 8}" font-size="11">USD/h (max {top:,.2f})</text>')
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
    title = html.escape(points[0].instance_type if points else "")
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>Price history of {title}</title></head>"
        f"<body><h1>Price history of {title}</h1>{''.join(parts)}"
        "<table border='1' cellpadding='3'><tr><th>as of</th><th>provider</th><th>region</th><th>pricing</th>"
        f"<th>price</th><th>USD/h</th><th>confidence</th><th>source</th></tr>{rows}</table></body></html>\n"
    )
