"""Interactive plotly charts of a plan for the HTML report (plotly is imported only here, lazily).

Three figures: cost against time with the Pareto front, the ranked options numbered and a legend;
the cost breakdown of the top options as stacked bars; and per GPU model its step time and its peak
memory against the GPU's capacity. Amounts in the current display currency, words in the current
language.
"""

from __future__ import annotations

import math
from typing import Any

from gpuplan.i18n import _, current_money, format_hours, format_number
from gpuplan.plan.result import Option, Plan
from gpuplan.report.fonts import FONT_STACK
from gpuplan.report.plan_svg import COMPONENTS, hours_tick, nice_ticks, per_gpu

__all__ = ["breakdown_figure", "cost_time_figure", "figure_div", "gpu_figure", "per_gpu", "plotly_js"]

_CONFIG = {"displaylogo": False, "responsive": True}


#: plotly.js's "basic" bundle (its scatter, bar and pie traces, all the report draws): 1.2 MB where the
#: full bundle that the plotly package ships is 4.8 MB, four fifths of the page for trace types (maps,
#: 3-D, WebGL) no chart here uses. Its source, version and checksum: ``static/README.md``.
PLOTLY_BUNDLE = "static/plotly-basic.min.js"


def plotly_js() -> str:
    """plotly.js (its basic bundle), to embed once per page (the report works offline)."""
    from importlib import resources

    return resources.files("gpuplan.report").joinpath(PLOTLY_BUNDLE).read_text(encoding="utf-8")


def figure_div(fig: Any, div_id: str) -> str:
    """One figure as a ``<div>`` and its script (plotly.js is embedded separately, once)."""
    import plotly.io as pio

    return str(pio.to_html(fig, include_plotlyjs=False, full_html=False, config=_CONFIG, div_id=div_id))


def _log(values: list[float]) -> bool:
    return bool(values) and max(values) / max(min(values), 1e-9) > 20


def _padded_ticks(values: list[float]) -> list[float]:
    """Round tick values over the data's range, a little beyond it (1-2-5 steps on a log axis)."""
    log = _log(values)
    lo, hi = min(values), max(values)
    # All equal (a service: every option runs the same month): a ±20 % window, not a 1e-9-wide one
    # whose ticks would pile up on each other.
    width = max(hi - lo, 0.2 * max(abs(hi), 1e-9))
    lo, hi = (lo / 1.3, hi * 1.3) if log else (max(0.0, lo - 0.1 * width), hi + 0.1 * width)
    return nice_ticks(lo, hi, log)


def _hover(o: Option) -> str:
    m = current_money()
    return f"{o.label}<br>{format_hours(o.job_time_h)} · {m.format(o.total_cost_usd)}"


def cost_time_figure(plan: Plan) -> Any:
    """Scatter of expected job time against all-in cost."""
    import plotly.graph_objects as go

    m = current_money()
    fig = go.Figure()
    front = sorted(plan.pareto, key=lambda o: o.job_time_h)
    fig.add_trace(
        go.Scatter(
            name=_("Pareto front"),
            x=[o.job_time_h for o in front],
            y=[m.amount(o.total_cost_usd) for o in front],
            mode="lines+markers",
            line={"color": "#1f6fb2"},
            hovertext=[_hover(o) for o in front],
            hoverinfo="text",
        )
    )
    ranked = list(plan.options)
    fig.add_trace(
        go.Scatter(
            name=_("ranked options (numbered)"),
            x=[o.job_time_h for o in ranked],
            y=[m.amount(o.total_cost_usd) for o in ranked],
            mode="markers+text",
            text=[str(i) for i in range(1, len(ranked) + 1)],
            textposition="top right",
            marker={"color": "#7f7f7f", "size": 8},
            hovertext=[_hover(o) for o in ranked],
            hoverinfo="text",
        )
    )
    rec = plan.recommended
    fig.add_trace(
        go.Scatter(
            name=_("recommended"),
            x=[rec.job_time_h],
            y=[m.amount(rec.total_cost_usd)],
            mode="markers",
            marker={"color": "rgba(0,0,0,0)", "size": 18, "line": {"color": "#1e8449", "width": 3}},
            hovertext=[_hover(rec)],
            hoverinfo="text",
        )
    )
    if plan.baseline is not None:
        base = plan.baseline
        fig.add_trace(
            go.Scatter(
                name=_("baseline"),
                x=[base.job_time_h],
                y=[m.amount(base.total_cost_usd)],
                mode="markers",
                marker={"color": "#c0392b", "size": 12, "symbol": "x"},
                hovertext=[_hover(base)],
                hoverinfo="text",
            )
        )
    # The baseline is drawn too: the ticks cover it.
    shown = (*front, *ranked, *((plan.baseline,) if plan.baseline is not None else ()))
    xs = [o.job_time_h for o in shown]
    ys = [m.amount(o.total_cost_usd) for o in shown]
    x_ticks = _padded_ticks(xs)
    y_ticks = _padded_ticks(ys)
    fig.update_layout(
        xaxis={
            "title": {"text": _("expected job time")},
            "type": "log" if _log(xs) else "linear",
            "tickvals": x_ticks,
            "ticktext": [hours_tick(t) for t in x_ticks],
        },
        yaxis={
            "title": {"text": _("all-in cost, {currency}").format(currency=m.currency)},
            "type": "log" if _log(ys) else "linear",
            "tickvals": y_ticks,
            "ticktext": [m.symbol + format_number(t) for t in y_ticks],
        },
        legend={"orientation": "h", "y": -0.2},
        margin={"l": 70, "r": 20, "t": 20, "b": 40},
        height=460,
        template="plotly_white",
        # The reports' font stack: Chinese axis titles and legends in a CJK face, not Open Sans.
        font={"family": FONT_STACK},
    )
    return fig


def breakdown_figure(plan: Plan, top: int = 8) -> Any:
    """Stacked bars: what each of the top options pays for."""
    import plotly.graph_objects as go

    m = current_money()
    options = list(plan.options[:top])
    names = [f"{i}. {o.label}" for i, o in enumerate(options, 1)]
    fig = go.Figure()
    for field, color, name in COMPONENTS:
        fig.add_trace(
            go.Bar(
                name=_(name),
                y=names,
                x=[m.amount(getattr(o.cost_breakdown, field)) for o in options],
                orientation="h",
                marker={"color": color},
            )
        )
    cost_title = _("all-in cost, {currency}").format(currency=m.currency)
    fig.update_layout(
        barmode="stack",
        xaxis={"title": {"text": cost_title}, "tickprefix": m.symbol},
        yaxis={"autorange": "reversed"},
        legend={"orientation": "h", "y": -0.25},
        margin={"l": 20, "r": 20, "t": 20, "b": 40},
        height=120 + 34 * len(options),
        template="plotly_white",
        # The reports' font stack: Chinese axis titles and legends in a CJK face, not Open Sans.
        font={"family": FONT_STACK},
    )
    return fig


def gpu_figure(plan: Plan, gpu_memory_gib: dict[str, float]) -> Any:
    """Per GPU model: step time of its cheapest configuration, and peak memory against capacity."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    rows = per_gpu(plan)
    labels = [f"{o.gpu} ×{o.gpu_count}" for o in rows]
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=(_("step time, s"), _("memory per GPU, GiB")),
        horizontal_spacing=0.18,
    )
    steps = [o.step_time_s if o.step_time_s is not None else math.nan for o in rows]
    fig.add_trace(
        go.Bar(name=_("step time"), y=labels, x=steps, orientation="h", marker={"color": "#1f6fb2"}),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Bar(
            name=_("peak memory"),
            y=labels,
            x=[o.peak_memory_gib for o in rows],
            orientation="h",
            marker={"color": "#e6a100"},
        ),
        row=1,
        col=2,
    )
    fig.add_trace(
        go.Scatter(
            name=_("GPU memory"),
            y=labels,
            x=[gpu_memory_gib.get(o.gpu, math.nan) for o in rows],
            mode="markers",
            marker={"symbol": "line-ns-open", "size": 22, "color": "#c0392b", "line": {"width": 3}},
        ),
        row=1,
        col=2,
    )
    fig.update_layout(
        legend={"orientation": "h", "y": -0.25},
        margin={"l": 20, "r": 20, "t": 40, "b": 40},
        height=140 + 30 * len(rows),
        template="plotly_white",
        # The reports' font stack: Chinese axis titles and legends in a CJK face, not Open Sans.
        font={"family": FONT_STACK},
    )
    return fig
