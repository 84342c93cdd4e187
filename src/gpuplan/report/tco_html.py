"""A commitment schedule as one self-contained HTML page: the summary, a stacked bar chart of the
cost per month by pricing model (inline SVG, drawn here: nothing is loaded from the network), the
schedule and the notes."""

from __future__ import annotations

import math
from html import escape
from typing import TYPE_CHECKING

from gpuplan.i18n import N_, _, current_language
from gpuplan.report.fonts import FONT_STACK
from gpuplan.report.tco import (
    PRICE_HEAD,
    PRICING_LABELS,
    SCHEDULE_HEAD,
    considered_lines,
    no_commitment_line,
    price_rows,
    schedule_rows,
    source_lines,
    summary_lines,
)
from gpuplan.report.tco_cash import cash_lines

if TYPE_CHECKING:
    from gpuplan.commit import TcoReport

__all__ = ["monthly_cost_svg", "tco_html"]

_W, _H = 760, 380
_L, _R, _T, _B = 80, 170, 20, 50  # plot margins, px (legend on the right)
#: Colours for the pricing models, given in the chart's stacking order (``PRICING_LABELS``): the
#: colour-blind-safe Okabe-Ito palette (Okabe & Ito 2008), its black last.
_PALETTE = ("#0072B2", "#56B4E9", "#009E73", "#E69F00", "#CC79A7", "#D55E00", "#F0E442", "#000000")
_COLOURS = dict(zip(PRICING_LABELS, _PALETTE, strict=False))
#: What the runs pay besides GPU time: grey, apart from every pricing model's colour.
_DATA_COLOUR = "#999999"


def _nice_step(top: float) -> float:
    raw = top / 5 if top > 0 else 1.0
    mag = 10 ** math.floor(math.log10(raw))
    return next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)


def monthly_cost_svg(report: TcoReport) -> str:
    """Stacked bars: one per month, one segment per pricing model, in the report currency."""
    money, months = report.money, report.schedule.monthly
    models = [p for p in PRICING_LABELS if any(p in m.by_pricing_usd for m in months)]
    # one segment per pricing model, then what the runs pay besides GPU time where it is counted
    series = [(_(PRICING_LABELS[p]), _COLOURS[p], p) for p in models]
    if any(d.run_data for d in report.problem.demands):
        series.append((_("besides GPU time"), _DATA_COLOUR, ""))
    top = max((money.amount(m.cost_usd) for m in months), default=0.0)
    step = _nice_step(top)
    y_max = max(step, math.ceil(top / step) * step)
    plot_w, plot_h = _W - _L - _R, _H - _T - _B
    bar = plot_w / max(len(months), 1)

    def y(v: float) -> float:
        return _T + plot_h * (1 - v / y_max)

    label = escape(_("Cost per month"))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_W} {_H}" width="{_W}" height="{_H}" '
        f'font-family="{FONT_STACK}" font-size="11" role="img" aria-label="{label}">',
        f'<rect x="{_L}" y="{_T}" width="{plot_w}" height="{plot_h}" fill="#fafafa" stroke="#999"/>',
    ]
    tick = 0.0
    while tick <= y_max + 1e-9:
        parts.append(
            f'<line x1="{_L}" y1="{y(tick):.1f}" x2="{_L + plot_w}" y2="{y(tick):.1f}" stroke="#e4e4e4"/>'
        )
        label = money.format_compact(tick)
        parts.append(f'<text x="{_L - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">{escape(label)}</text>')
        tick += step
    every = max(1, math.ceil(len(months) / 12))
    for i, m in enumerate(months):
        x = _L + i * bar
        base = 0.0
        for name, colour, p in series:
            v = money.amount(m.by_pricing_usd.get(p, 0.0) if p else m.data_usd)
            if v <= 0:
                continue
            title = f"{report.usage.month_label(m.month)} {name}: {money.format_native(v)}"
            parts.append(
                f'<rect x="{x + bar * 0.1:.1f}" y="{y(base + v):.1f}" width="{bar * 0.8:.1f}" '
                f'height="{y(base) - y(base + v):.1f}" fill="{colour}">'
                f"<title>{escape(title)}</title></rect>"
            )
            base += v
        if i % every == 0:
            parts.append(
                f'<text x="{x + bar / 2:.1f}" y="{_T + plot_h + 14}" text-anchor="middle">'
                f"{escape(report.usage.month_label(m.month))}</text>"
            )
    for k, (name, colour, _p) in enumerate(series):
        ly = _T + 10 + k * 18
        parts.append(f'<rect x="{_W - _R + 14}" y="{ly - 9}" width="12" height="12" fill="{colour}"/>')
        parts.append(f'<text x="{_W - _R + 32}" y="{ly + 1}">{escape(name)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _lines(cell: str) -> str:
    """A table cell escaped, its second line (all upfront's cash at the start of the term) kept a
    line of its own."""
    return escape(cell).replace("\n", "<br>")


def tco_html(report: TcoReport, title: str) -> str:
    """One self-contained HTML page (inline CSS and SVG)."""
    head = "".join(f"<th>{escape(_(h))}</th>" for h in SCHEDULE_HEAD)
    rows = schedule_rows(report)
    body = "\n".join("<tr>" + "".join(f"<td>{_lines(c)}</td>" for c in row) + "</tr>" for row in rows)
    nothing = no_commitment_line(report)
    table = f"<table><tr>{head}</tr>\n{body}\n</table>" if rows else f"<p>{escape(nothing)}</p>"
    items = "\n".join(f"<li>{escape(line)}</li>" for line in summary_lines(report))
    demands = "\n".join(f"<li>{escape(d.name)}: {escape(d.how)}</li>" for d in report.demands)
    notes = report.money.notes_with_rate(report.notes)
    note_items = "\n".join(f"<li>{escape(n)}</li>" for n in notes)
    price_head = "".join(f"<th>{escape(_(h))}</th>" for h in PRICE_HEAD)
    prices = "\n".join(
        "<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in price_rows(report)
    )
    # where each price comes from, then the prices weighed and not bought (no figure rests on them)
    sources = "\n".join(
        f"<li>{escape(line)}</li>" for line in [*source_lines(report), *considered_lines(report)]
    )
    # the chart spreads an upfront reservation over its term: when its cash is paid, in words
    cash = "\n".join(f"<p>{escape(line)}</p>" for line in cash_lines(report))
    lang = current_language().value
    h_cost, h_buy, h_demands, h_notes, h_prices = (
        escape(_(h))
        for h in (
            N_("Cost per month"),
            N_("Commitments to buy"),
            N_("Demands"),
            N_("Notes"),
            N_("Prices used"),
        )
    )
    return f"""<!DOCTYPE html>
<html lang="{lang}"><head><meta charset="utf-8"><title>gpuplan tco: {escape(title)}</title>
<style>
body {{ font-family: {FONT_STACK}; margin: 2em; color: #222; }}
table {{ border-collapse: collapse; font-size: 13px; }}
td, th {{ border: 1px solid #ccc; padding: 3px 6px; text-align: left; }}
th {{ background: #f0f0f0; }}
li {{ margin: 2px 0; }}
</style></head><body>
<h1>gpuplan tco: {escape(title)}</h1>
<ul>
{items}
</ul>
<h2>{h_cost}</h2>
{monthly_cost_svg(report)}
{cash}
<h2>{h_buy}</h2>
{table}
<h2>{h_prices}</h2>
<table><tr>{price_head}</tr>
{prices}
</table>
<ul>
{sources}
</ul>
<h2>{h_demands}</h2>
<ul>
{demands}
</ul>
<h2>{h_notes}</h2>
<ul>
{note_items}
</ul>
</body></html>
"""
