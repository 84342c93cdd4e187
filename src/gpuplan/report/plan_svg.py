"""Static SVG charts of a plan, drawn by hand: the print and no-JavaScript fallback of the HTML report,
and the chart file next to a Markdown report.

Amounts are in the current display currency and labels in the current language (``gpuplan.i18n``).
Every point is numbered like the options table and the chart has a legend, so it reads on paper.
"""

from __future__ import annotations

import math
from html import escape

from gpuplan.i18n import N_, _, current_money, format_hours
from gpuplan.plan.result import Option, Plan
from gpuplan.report.fonts import FONT_STACK

__all__ = ["COMPONENTS", "breakdown_svg", "cost_time_svg", "gpu_svg", "hours_tick", "nice_ticks", "per_gpu"]

_W, _H = 760, 440
_L, _R, _T, _B = 84, 170, 20, 50  # plot margins, px (the legend sits in the right margin)
_COLORS = {"front": "#1f6fb2", "option": "#7f7f7f", "recommended": "#1e8449", "baseline": "#c0392b"}
#: Cost components, their colours and their names (shared with the interactive chart).
COMPONENTS = (
    ("compute_usd", "#1f6fb2", N_("compute")),
    ("storage_usd", "#e6a100", N_("storage")),
    ("egress_usd", "#c0392b", N_("egress")),
    ("licence_usd", "#8e44ad", N_("licences")),
    ("spot_overhead_usd", "#16a085", N_("spot overhead")),
)


def nice_ticks(lo: float, hi: float, log: bool) -> list[float]:
    """Round tick values in [lo, hi]: 1-2-5 per decade on a log axis, 4 to 8 even steps otherwise."""
    if log:
        a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
        return [10.0**e * m for e in range(a, b + 1) for m in (1, 2, 5) if lo <= 10.0**e * m <= hi]
    step = 10 ** math.floor(math.log10(max(hi - lo, 1e-9)))
    while (hi - lo) / step > 8:
        step *= 2
    while (hi - lo) / step < 4:
        step /= 2
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step) + 1)]


def hours_tick(h: float) -> str:
    """A tick label for a duration in hours: ``0.5 h``, ``50 h``, ``3 d``.

    Days only for whole days: the ticks are round numbers of hours (1-2-5 steps), and 50 h
    written as "2.08333 d" reads as noise."""
    return f"{h / 24:g} d" if h >= 48 and (h / 24).is_integer() else f"{h:g} h"


def _span(lo: float, hi: float, log: bool) -> tuple[float, float]:
    if log:
        return lo / 1.2, hi * 1.2
    width = max(hi - lo, 0.1 * max(hi, 1e-9))
    return max(0.0, lo - 0.1 * width), hi + 0.1 * width


def cost_time_svg(plan: Plan) -> str:
    """Expected job time against all-in cost: the Pareto front as a line, the ranked options numbered,
    the recommendation and the baseline marked, a legend. Log axes when values span over 20×."""
    m = current_money()
    ranked = list(plan.options)
    points: list[tuple[Option, str]] = [(o, "front") for o in plan.pareto]
    points += [(o, "option") for o in ranked]
    if plan.baseline is not None:
        points.append((plan.baseline, "baseline"))
    xs = [o.job_time_h for o, _k in points]
    ys = [m.amount(o.total_cost_usd) for o, _k in points]
    x_log = max(xs) / max(min(xs), 1e-9) > 20
    y_log = max(ys) / max(min(ys), 1e-9) > 20
    x0, x1 = _span(min(xs), max(xs), x_log)
    y0, y1 = _span(min(ys), max(ys), y_log)

    def sx(v: float) -> float:
        f = math.log(v / x0) / math.log(x1 / x0) if x_log else (v - x0) / (x1 - x0)
        return _L + f * (_W - _L - _R)

    def sy(v: float) -> float:
        f = math.log(v / y0) / math.log(y1 / y0) if y_log else (v - y0) / (y1 - y0)
        return _H - _B - f * (_H - _T - _B)

    time_title = _("expected job time") + (" (log)" if x_log else "")
    cost_title = _("all-in cost, {currency}").format(currency=m.currency) + (" (log)" if y_log else "")
    aria = escape(_("cost versus time"))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_W} {_H}" width="{_W}" height="{_H}" '
        f'font-family="{FONT_STACK}" font-size="12" role="img" aria-label="{aria}">',
        f'<rect x="{_L}" y="{_T}" width="{_W - _L - _R}" height="{_H - _T - _B}" '
        'fill="#fcfcfc" stroke="#999"/>',
    ]
    for t in nice_ticks(x0, x1, x_log):
        x = sx(t)
        parts.append(f'<line x1="{x:.1f}" y1="{_T}" x2="{x:.1f}" y2="{_H - _B}" stroke="#e6e6e6"/>')
        parts.append(f'<text x="{x:.1f}" y="{_H - _B + 15}" text-anchor="middle">{hours_tick(t)}</text>')
    for t in nice_ticks(y0, y1, y_log):
        y = sy(t)
        parts.append(f'<line x1="{_L}" y1="{y:.1f}" x2="{_W - _R}" y2="{y:.1f}" stroke="#e6e6e6"/>')
        parts.append(
            f'<text x="{_L - 6}" y="{y + 4:.1f}" text-anchor="end">{escape(m.format_native(t))}</text>'
        )
    mid_x, mid_y = (_L + _W - _R) / 2, (_T + _H - _B) / 2
    parts.append(f'<text x="{mid_x:.0f}" y="{_H - 12}" text-anchor="middle">{escape(time_title)}</text>')
    parts.append(
        f'<text x="18" y="{mid_y:.0f}" transform="rotate(-90 18 {mid_y:.0f})" '
        f'text-anchor="middle">{escape(cost_title)}</text>'
    )
    front = sorted(plan.pareto, key=lambda o: o.job_time_h)
    if len(front) > 1:
        pts = " ".join(f"{sx(o.job_time_h):.1f},{sy(m.amount(o.total_cost_usd)):.1f}" for o in front)
        parts.append(f'<polyline points="{pts}" fill="none" stroke="{_COLORS["front"]}" stroke-width="1.5"/>')
    for o, kind in points:
        x, y = sx(o.job_time_h), sy(m.amount(o.total_cost_usd))
        tip = escape(f"{o.label}: {format_hours(o.job_time_h)}, {m.format(o.total_cost_usd)}")
        if kind == "baseline":
            parts.append(
                f'<path d="M{x - 5:.1f},{y - 5:.1f} L{x + 5:.1f},{y + 5:.1f} M{x - 5:.1f},{y + 5:.1f} '
                f'L{x + 5:.1f},{y - 5:.1f}" stroke="{_COLORS["baseline"]}" stroke-width="2.5">'
                f"<title>{tip}</title></path>"
            )
        else:
            parts.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{_COLORS[kind]}" fill-opacity="0.85">'
                f"<title>{tip}</title></circle>"
            )
    for rank, o in enumerate(ranked, 1):
        x, y = sx(o.job_time_h), sy(m.amount(o.total_cost_usd))
        parts.append(f'<text x="{x + 6:.1f}" y="{y - 5:.1f}" font-size="11" fill="#333">{rank}</text>')
    rec = plan.recommended
    cx, cy = sx(rec.job_time_h), sy(m.amount(rec.total_cost_usd))
    parts.append(
        f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="9" fill="none" stroke="{_COLORS["recommended"]}" '
        'stroke-width="2.5"/>'
    )
    legend = [
        ("front", _("Pareto front")),
        ("option", _("ranked options (numbered)")),
        ("recommended", _("recommended")),
        ("baseline", _("baseline")),
    ]
    lx = _W - _R + 14
    for i, (kind, text) in enumerate(legend):
        ly = _T + 14 + 20 * i
        parts.append(f'<circle cx="{lx}" cy="{ly - 4}" r="5" fill="{_COLORS[kind]}"/>')
        parts.append(f'<text x="{lx + 10}" y="{ly}">{escape(text)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def breakdown_svg(plan: Plan, top: int = 8) -> str:
    """One stacked horizontal bar per ranked option: compute, storage, egress, licences, spot overhead."""
    m = current_money()
    options = list(plan.options[:top])
    row_h, left, right, legend_h = 26, 40, 30, 30
    width, height = _W, legend_h + row_h * len(options) + 30
    most = max((m.amount(o.total_cost_usd) for o in options), default=1.0) or 1.0
    scale = (width - left - right - 90) / most
    aria = escape(_("cost breakdown"))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" font-family="{FONT_STACK}" font-size="12" role="img" aria-label="{aria}">'
    ]
    x = left
    for _field, color, name in COMPONENTS:
        parts.append(f'<rect x="{x}" y="8" width="12" height="12" fill="{color}"/>')
        parts.append(f'<text x="{x + 16}" y="18">{escape(_(name))}</text>')
        x += 24 + 8 * len(_(name)) + 20
    for i, o in enumerate(options):
        y = legend_h + i * row_h
        parts.append(f'<text x="{left - 8}" y="{y + 16}" text-anchor="end">{i + 1}</text>')
        bx = float(left)
        for field, color, name in COMPONENTS:
            w = m.amount(getattr(o.cost_breakdown, field)) * scale
            if w <= 0:
                continue
            tip = escape(f"{_(name)}: {m.format(getattr(o.cost_breakdown, field))}")
            parts.append(
                f'<rect x="{bx:.1f}" y="{y + 4}" width="{w:.1f}" height="{row_h - 8}" fill="{color}">'
                f"<title>{tip}</title></rect>"
            )
            bx += w
        parts.append(f'<text x="{bx + 6:.1f}" y="{y + 16}">{escape(m.format(o.total_cost_usd))}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def per_gpu(plan: Plan) -> list[Option]:
    """For each GPU model among the shown options, its cheapest option (fewest GPUs on a tie)."""
    best: dict[str, Option] = {}
    for o in (*plan.options, *plan.pareto):
        cur = best.get(o.gpu)
        if cur is None or (o.total_cost_usd, o.gpu_count) < (cur.total_cost_usd, cur.gpu_count):
            best[o.gpu] = o
    return sorted(best.values(), key=lambda o: o.gpu)


_GPU_COLORS = {"step": "#1f6fb2", "peak": "#e6a100", "capacity": "#c0392b"}


def _panel_axis(x0: float, width: float, most: float, y: float, unit: str) -> list[str]:
    parts = [f'<line x1="{x0:.1f}" y1="{y:.1f}" x2="{x0 + width:.1f}" y2="{y:.1f}" stroke="#999"/>']
    for t in nice_ticks(0.0, most, False):
        x = x0 + width * t / most
        parts.append(f'<line x1="{x:.1f}" y1="{y:.1f}" x2="{x:.1f}" y2="{y + 4:.1f}" stroke="#999"/>')
        parts.append(
            f'<text x="{x:.1f}" y="{y + 16:.1f}" text-anchor="middle" font-size="10">{t:g}{unit}</text>'
        )
    return parts


def gpu_svg(plan: Plan, gpu_memory_gib: dict[str, float]) -> str:
    """Per GPU model, its cheapest configuration: step time as a bar, and peak memory per GPU as a
    bar against the GPU's own memory (a red mark). The static twin of the interactive chart, for
    print and browsers without JavaScript. A service has no training step: its bar reads "—"."""
    rows = per_gpu(plan)
    row_h, top, label_w, gap, right = 26, 40, 190, 60, 20
    panel_w = (_W - label_w - gap - right) / 2
    axis_y = top + row_h * len(rows) + 4
    height = axis_y + 64
    # Axes run 25 % past the largest value so that the value written after a bar stays inside.
    most_step = 1.25 * max((o.step_time_s or 0.0 for o in rows), default=0.0) or 1.0
    memories = [o.peak_memory_gib for o in rows] + [gpu_memory_gib.get(o.gpu, 0.0) for o in rows]
    most_mem = 1.25 * max(memories, default=0.0) or 1.0
    x_step, x_mem = float(label_w), label_w + panel_w + gap
    aria = escape(_("Per GPU: step time and memory fit"))
    # Messages outside the f-strings: the catalog's extractor does not read inside one.
    step_title, memory_title = escape(_("step time, s")), escape(_("memory per GPU, GiB"))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_W} {height}" width="{_W}" '
        f'height="{height}" font-family="{FONT_STACK}" font-size="12" role="img" aria-label="{aria}">',
        f'<text x="{x_step:.1f}" y="{top - 14}" font-weight="bold">{step_title}</text>',
        f'<text x="{x_mem:.1f}" y="{top - 14}" font-weight="bold">{memory_title}</text>',
    ]
    for i, o in enumerate(rows):
        y = top + i * row_h
        label = escape(f"{o.gpu} ×{o.gpu_count}")
        parts.append(f'<text x="{label_w - 8}" y="{y + 17}" text-anchor="end">{label}</text>')
        if o.step_time_s is not None:
            w = panel_w * o.step_time_s / most_step
            parts.append(
                f'<rect x="{x_step:.1f}" y="{y + 5}" width="{w:.1f}" height="{row_h - 10}" '
                f'fill="{_GPU_COLORS["step"]}"/>'
            )
            text, tx = f"{o.step_time_s:.3g} s", x_step + w + 4
        else:
            text, tx = "—", x_step + 4
        parts.append(f'<text x="{tx:.1f}" y="{y + 17}" font-size="11">{escape(text)}</text>')
        w = panel_w * o.peak_memory_gib / most_mem
        parts.append(
            f'<rect x="{x_mem:.1f}" y="{y + 5}" width="{w:.1f}" height="{row_h - 10}" '
            f'fill="{_GPU_COLORS["peak"]}"/>'
        )
        capacity = gpu_memory_gib.get(o.gpu)
        value = f"{o.peak_memory_gib:.1f}"
        if capacity:
            cx = x_mem + panel_w * capacity / most_mem
            parts.append(
                f'<line x1="{cx:.1f}" y1="{y + 2}" x2="{cx:.1f}" y2="{y + row_h - 2}" '
                f'stroke="{_GPU_COLORS["capacity"]}" stroke-width="3"/>'
            )
            value += f" / {capacity:g}"
        tx = max(x_mem + w, x_mem + panel_w * (capacity or 0.0) / most_mem) + 6
        parts.append(f'<text x="{tx:.1f}" y="{y + 17}" font-size="11">{escape(value)}</text>')
    parts += _panel_axis(x_step, panel_w, most_step, axis_y, "")
    parts += _panel_axis(x_mem, panel_w, most_mem, axis_y, "")
    legend = [
        ("step", _("step time")),
        ("peak", _("peak memory")),
        ("capacity", _("GPU memory")),
    ]
    lx, ly = float(label_w), axis_y + 44
    for kind, text in legend:
        parts.append(f'<rect x="{lx:.1f}" y="{ly - 10}" width="12" height="12" fill="{_GPU_COLORS[kind]}"/>')
        parts.append(f'<text x="{lx + 16:.1f}" y="{ly}">{escape(text)}</text>')
        lx += 36 + 8 * len(text)
    parts.append("</svg>")
    return "\n".join(parts)
