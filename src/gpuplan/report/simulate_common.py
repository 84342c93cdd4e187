"""Pieces the simulation reports share: the JSON check, times in words, the HTML page and tables,
and the SVG line chart panel."""

from __future__ import annotations

import math
from html import escape
from typing import TYPE_CHECKING, Any

from gpuplan.documents.base import Document
from gpuplan.report.common import to_jsonable
from gpuplan.report.fonts import FONT_STACK

if TYPE_CHECKING:
    from gpuplan.simulate.pricing import PriceBasis

__all__ = [
    "JSON_SCHEMA_VERSION",
    "READY_SUFFIX",
    "basis_doc",
    "html_page",
    "panel",
    "seconds",
    "table_html",
    "validated",
]

JSON_SCHEMA_VERSION = 1
#: The suffix of a series drawn dashed (replicas ready, beside those asked for).
READY_SUFFIX = " (ready)"


def validated(model: type[Document], doc: Any) -> dict[str, Any]:
    # Through the published model: a key the model does not declare fails here, not downstream.
    return model.model_validate(to_jsonable(doc)).model_dump(mode="json")


def seconds(v: float | None) -> str:
    return "—" if v is None or not math.isfinite(v) else f"{v:.2f} s"


def _polyline(xs: list[float], ys: list[float | None], sx: Any, sy: Any) -> str:
    pts: list[str] = []
    out: list[str] = []
    for x, y in zip(xs, ys, strict=True):
        if y is None or not math.isfinite(y):
            if len(pts) > 1:
                out.append(" ".join(pts))
            pts = []
            continue
        pts.append(f"{sx(x):.1f},{sy(y):.1f}")
    if len(pts) > 1:
        out.append(" ".join(pts))
    return "".join(f'<polyline points="{p}"/>' for p in out)


def panel(
    title: str,
    xs: list[float],
    series: list[tuple[str, list[float | None], str]],
    y0: float,
    line: float | None = None,
) -> str:
    """One chart: ``series`` over ``xs`` (seconds), with an optional dashed level ``line``."""
    w, h, left = 860.0, 150.0, 60.0
    vals = [v for _, ys, _ in series for v in ys if v is not None and math.isfinite(v)]
    if line is not None:
        vals.append(line)
    top = max(vals) * 1.1 if vals and max(vals) > 0 else 1.0
    span = max(xs[-1], 1.0) if xs else 1.0

    def sx(x: float) -> float:
        return left + (w - left - 10) * x / span

    def sy(y: float) -> float:
        return y0 + h - h * y / top

    parts = [f'<text x="{left}" y="{y0 - 6}" class="t">{escape(title)}</text>']
    parts.append(f'<line x1="{left}" y1="{y0 + h}" x2="{w - 10}" y2="{y0 + h}" class="ax"/>')
    for frac in (0.0, 0.5, 1.0):
        parts.append(
            f'<text x="{left - 6}" y="{sy(top * frac / 1.1) + 4:.1f}" class="l">{top * frac / 1.1:.3g}</text>'
        )
    # At most ~12 time labels: every 15 min, 30 min, 1 h, 2 h … as the trace's length allows.
    step = next((s for s in (900, 1800, 3600, 7200, 14400, 43200) if span / s <= 12), 86400)
    for k in range(int(span // step) + 1):
        parts.append(f'<text x="{sx(k * step):.1f}" y="{y0 + h + 14}" class="x">{k * step / 3600:g} h</text>')
    if line is not None:
        parts.append(
            f'<line x1="{left}" y1="{sy(line):.1f}" x2="{w - 10}" y2="{sy(line):.1f}" stroke="#999" '
            'stroke-dasharray="4 3"/>'
            f'<text x="{left + 4}" y="{sy(line) - 3:.1f}" fill="#777">SLO</text>'
        )
    for i, (name, ys, colour) in enumerate(series):
        # A name ending in " (ready)" is drawn dashed beside its solid twin.
        dash = ' stroke-dasharray="5 3"' if name.endswith(READY_SUFFIX) else ""
        parts.append(
            f'<g stroke="{colour}" fill="none" stroke-width="1.5"{dash}>{_polyline(xs, ys, sx, sy)}</g>'
        )
        parts.append(f'<text x="{w - 260}" y="{y0 + 14 + 14 * i}" fill="{colour}">{escape(name)}</text>')
    return "".join(parts)


_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2")


def html_page(title: str, body: str) -> str:
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>gpuplan: {escape(title)}</title>
<style>body{{font-family:{FONT_STACK};max-width:960px;margin:2em auto}}
table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:4px 8px;text-align:right}}
td:first-child,th:first-child{{text-align:left}}
.note{{color:#555;font-size:90%}}</style></head><body>
<h1>{escape(title)}</h1>
{body}
</body></html>
"""


def table_html(headers: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def basis_doc(b: PriceBasis) -> dict[str, Any]:
    """A price's basis as the documents carry it (``PriceBasisDoc``): the offer's publisher text,
    date and confidence (null for the user's own figure), and the best known-current price beside
    one that is not."""
    c = b.current
    return {
        "usd_per_hour": b.usd_per_hour,
        "given": b.given,
        "usd_per_instance_hour": b.usd_per_instance_hour,
        "replicas_per_instance": b.replicas_per_instance,
        **_offer_doc(None if b.given else b),
        "known_current": None if b.given else b.known_current,
        "date_note": None if b.given or b.known_current else b.date_words,
        "best_known_current": None
        if c is None
        else {
            "usd_per_hour": c.usd_per_hour,
            "usd_per_instance_hour": c.usd_per_instance_hour,
            "replicas_per_instance": c.replicas_per_instance,
            **_offer_doc(c),
        },
    }


def _offer_doc(b: PriceBasis | None) -> dict[str, Any]:
    """The offer a price was read from and what the catalog says of it; all null for none (the
    user's own figure)."""
    return {
        "provider": None if b is None else b.provider,
        "region": None if b is None else b.region,
        "instance_type": None if b is None else b.instance_type,
        "as_of": None if b is None else b.as_of,
        "confidence": None if b is None else b.confidence,
        "price_source": None if b is None else b.source,
    }
