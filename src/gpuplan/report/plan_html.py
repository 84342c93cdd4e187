"""Plan reports as files: self-contained HTML with an inline SVG cost/time chart, or Markdown with the
chart as an SVG file next to it. Nothing is loaded from the network."""

from __future__ import annotations

import math
from html import escape

from gpuplan.plan.result import Option, Plan
from gpuplan.units import format_hours

__all__ = ["cost_time_svg", "plan_html", "plan_markdown"]

_W, _H = 720, 420
_L, _R, _T, _B = 80, 20, 20, 50  # plot margins, px


def _ticks(lo: float, hi: float, log: bool) -> list[float]:
    if log:
        a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
        return [10.0**e * m for e in range(a, b + 1) for m in (1, 2, 5) if lo <= 10.0**e * m <= hi]
    step = 10 ** math.floor(math.log10(max(hi - lo, 1e-9)))
    while (hi - lo) / step > 8:
        step *= 2
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step) + 1)]


def _fmt(v: float, unit: str) -> str:
    if unit == "$":
        return f"${v:,.0f}" if v >= 10 else f"${v:,.2f}"
    return f"{v:g} h"


def cost_time_svg(plan: Plan) -> str:
    """Scatter of the shown options (time vs all-in cost), the Pareto front as a line, the
    recommended option and the baseline marked. Log axes when the values span over 20×."""
    opts: list[tuple[Option, str]] = [(o, "option") for o in plan.options]
    opts += [(o, "pareto") for o in plan.pareto]
    if plan.baseline is not None:
        opts.append((plan.baseline, "baseline"))
    xs = [o.job_time_h for o, _ in opts]
    ys = [o.total_cost_usd for o, _ in opts]
    x_lo, x_hi = min(xs), max(xs)
    y_lo, y_hi = min(ys), max(ys)
    x_log = x_hi / max(x_lo, 1e-9) > 20
    y_log = y_hi / max(y_lo, 1e-9) > 20
    pad = 1.15

    def span(lo: float, hi: float, log: bool) -> tuple[float, float]:
        if log:
            return lo / pad, hi * pad
        width = max(hi - lo, 0.1 * max(hi, 1e-9))
        return max(0.0, lo - 0.1 * width), hi + 0.1 * width

    x0, x1 = span(x_lo, x_hi, x_log)
    y0, y1 = span(y_lo, y_hi, y_log)

    def sx(v: float) -> float:
        f = (math.log(v / x0) / math.log(x1 / x0)) if x_log else (v - x0) / (x1 - x0)
        return _L + f * (_W - _L - _R)

    def sy(v: float) -> float:
        f = (math.log(v / y0) / math.log(y1 / y0)) if y_log else (v - y0) / (y1 - y0)
        return _H - _B - f * (_H - _T - _B)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_W} {_H}" width="{_W}" height="{_H}" '
        'font-family="sans-serif" font-size="11" role="img" aria-label="cost versus time">',
        f'<rect x="{_L}" y="{_T}" width="{_W - _L - _R}" height="{_H - _T - _B}" '
        'fill="#fafafa" stroke="#999"/>',
    ]
    for t in _ticks(x0, x1, x_log):
        x = sx(t)
        parts.append(f'<line x1="{x:.1f}" y1="{_T}" x2="{x:.1f}" y2="{_H - _B}" stroke="#e4e4e4"/>')
        parts.append(f'<text x="{x:.1f}" y="{_H - _B + 14}" text-anchor="middle">{_fmt(t, "h")}</text>')
    for t in _ticks(y0, y1, y_log):
        y = sy(t)
        parts.append(f'<line x1="{_L}" y1="{y:.1f}" x2="{_W - _R}" y2="{y:.1f}" stroke="#e4e4e4"/>')
        parts.append(f'<text x="{_L - 6}" y="{y + 4:.1f}" text-anchor="end">{_fmt(t, "$")}</text>')
    parts.append(
        f'<text x="{(_W + _L) / 2:.0f}" y="{_H - 12}" text-anchor="middle">expected job time'
        f"{' (log)' if x_log else ''}</text>"
    )
    parts.append(
        f'<text x="16" y="{(_H - _B) / 2:.0f}" transform="rotate(-90 16 {(_H - _B) / 2:.0f})" '
        f'text-anchor="middle">all-in cost, USD{" (log)" if y_log else ""}</text>'
    )
    front = sorted(plan.pareto, key=lambda o: o.job_time_h)
    if len(front) > 1:
        pts = " ".join(f"{sx(o.job_time_h):.1f},{sy(o.total_cost_usd):.1f}" for o in front)
        parts.append(f'<polyline points="{pts}" fill="none" stroke="#2b7bb9" stroke-width="1.5"/>')
    style = {"option": ("#888", 4), "pareto": ("#2b7bb9", 4), "baseline": ("#c0392b", 6)}
    for o, kind in opts:
        color, r = style[kind]
        title = escape(f"{o.label}: {o.job_time_h:.2f} h, ${o.total_cost_usd:,.2f}")
        parts.append(
            f'<circle cx="{sx(o.job_time_h):.1f}" cy="{sy(o.total_cost_usd):.1f}" r="{r}" fill="{color}" '
            f'fill-opacity="0.8"><title>{title}</title></circle>'
        )
    rec = plan.recommended
    cx, cy = sx(rec.job_time_h), sy(rec.total_cost_usd)
    parts.append(
        f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="9" fill="none" stroke="#27ae60" stroke-width="2.5"/>'
    )
    parts.append(f'<text x="{cx + 12:.1f}" y="{cy - 8:.1f}" fill="#1e8449">recommended</text>')
    if plan.baseline is not None:
        bx, by = sx(plan.baseline.job_time_h), sy(plan.baseline.total_cost_usd)
        parts.append(f'<text x="{bx + 10:.1f}" y="{by + 4:.1f}" fill="#c0392b">baseline</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _rows(plan: Plan) -> list[list[str]]:
    out = []
    for i, o in enumerate(plan.options, 1):
        miss = o.deadline_miss_probability
        out.append(
            [
                str(i),
                f"{o.provider}/{o.region}",
                f"{o.nodes}× {o.instance_type}" if o.nodes > 1 else o.instance_type,
                f"{o.gpu_count}× {o.gpu}",
                o.pricing,
                f"{format_hours(o.job_time_h)} "
                f"({format_hours(o.job_time_h_low)}–{format_hours(o.job_time_h_high)})",
                f"${o.total_cost_usd:,.2f} (${o.total_cost_usd_low:,.2f}–${o.total_cost_usd_high:,.2f})",
                "" if miss is None else f"{miss:.1%}",
                f"{o.as_of or '?'} ({o.confidence})",
                "; ".join((*o.flags, *o.assumptions)),
            ]
        )
    return out


_HEAD = [
    "#",
    "provider/region",
    "instance",
    "GPUs",
    "pricing",
    "time",
    "all-in cost",
    "miss P",
    "price date",
    "notes",
]


def _summary_lines(plan: Plan) -> list[str]:
    rec = plan.recommended
    b = rec.cost_breakdown
    lines = [
        f"Recommended: {rec.label} — {format_hours(rec.job_time_h)}, ${rec.total_cost_usd:,.2f} "
        f"(compute ${b.compute_usd:,.2f}, storage ${b.storage_usd:,.2f}, egress ${b.egress_usd:,.2f}, "
        f"licences ${b.licence_usd:,.2f}, spot overhead ${b.spot_overhead_usd:,.2f})",
    ]
    lines += [f"Why: {w}" for w in plan.why]
    if plan.baseline is not None and plan.savings_vs_baseline_pct is not None:
        lines.append(
            f"Savings vs baseline {plan.baseline.label} (${plan.baseline.total_cost_usd:,.2f}): "
            f"{plan.savings_vs_baseline_pct:.0f} %"
        )
    else:
        lines.append(plan.baseline_note)
    for p in plan.personas:
        pick = (
            f"{p.option.label} (${p.option.total_cost_usd:,.2f}, {format_hours(p.option.job_time_h)})"
            if p.option
            else p.note
        )
        lines.append(f"Persona {p.persona}: {pick} — {p.rule}")
    lines.append("Excluded: " + (", ".join(f"{k} {v}" for k, v in plan.excluded.items()) or "none"))
    lines += [f"Note: {n}" for n in plan.notes]
    return lines


def plan_html(plan: Plan, title: str) -> str:
    """One self-contained HTML page (inline CSS and SVG)."""
    head = "".join(f"<th>{escape(h)}</th>" for h in _HEAD)
    body = "\n".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in _rows(plan))
    items = "\n".join(f"<li>{escape(line)}</li>" for line in _summary_lines(plan))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>gpuplan: {escape(title)}</title>
<style>
body {{ font-family: sans-serif; margin: 2em; color: #222; }}
table {{ border-collapse: collapse; font-size: 13px; }}
td, th {{ border: 1px solid #ccc; padding: 3px 6px; text-align: left; }}
th {{ background: #f0f0f0; }}
li {{ margin: 2px 0; }}
</style></head><body>
<h1>gpuplan plan: {escape(title)}</h1>
<p>Objective: {escape(plan.objective.value)}; {plan.feasible} feasible of {plan.candidates} candidates.</p>
<ul>
{items}
</ul>
<h2>Cost and time</h2>
{cost_time_svg(plan)}
<h2>Ranked options</h2>
<table><tr>{head}</tr>
{body}
</table>
</body></html>
"""


def plan_markdown(plan: Plan, title: str, svg_name: str) -> str:
    """Markdown; the chart is the SVG file ``svg_name`` written next to it."""

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    lines = [f"# gpuplan plan: {title}", "", f"Objective: {plan.objective.value}", ""]
    lines += [f"- {cell(x)}" for x in _summary_lines(plan)]
    lines += ["", f"![cost versus time]({svg_name})", "", "| " + " | ".join(_HEAD) + " |"]
    lines.append("|" + "---|" * len(_HEAD))
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in _rows(plan)]
    return "\n".join(lines) + "\n"
