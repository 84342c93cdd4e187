"""The autoscale report's chart: load, replicas asked for and ready, latency and losses over time."""

from __future__ import annotations

from gpuplan.i18n import _
from gpuplan.report.fonts import FONT_STACK
from gpuplan.report.simulate_common import READY_SUFFIX, panel
from gpuplan.simulate.autoscale import AutoscaleResult

__all__ = ["autoscale_svg"]

_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2")


def autoscale_svg(res: AutoscaleResult) -> str:
    """One self-contained SVG, five panels sharing the time axis: arrivals; replicas each policy
    asked for (solid) and had ready (dashed: the gap is cold start); p95 end-to-end latency with the
    SLO line; p95 time to first token; requests lost or late per bin."""
    first = res.policies[0].timeline
    xs = first.t_s

    def colour(i: int) -> str:
        return _COLOURS[i % len(_COLOURS)]

    load = panel(_("Load (requests/s)"), xs, [(_("arrivals"), list(first.requests_per_s), "#444")], 30)
    replicas: list[tuple[str, list[float | None], str]] = []
    for i, p in enumerate(res.policies):
        replicas.append((p.name, list(p.timeline.replicas), colour(i)))
        replicas.append((p.name + READY_SUFFIX, list(p.timeline.ready), colour(i)))
    reps = panel(_("Replicas: asked for (solid) and ready (dashed)"), xs, replicas, 230)
    lat = panel(
        _("p95 end-to-end latency (s)"),
        xs,
        [(p.name, list(p.timeline.latency_p95_s), colour(i)) for i, p in enumerate(res.policies)],
        430,
        line=res.settings.slo_s,
    )
    ttft_slo = next((s.threshold_s for s in res.settings.slos if s.metric == "ttft"), None)
    ttft = panel(
        _("p95 time to first token (s)"),
        xs,
        [(p.name, list(p.timeline.ttft_p95_s), colour(i)) for i, p in enumerate(res.policies)],
        630,
        line=ttft_slo,
    )
    lost = panel(
        _("Requests lost or late per {minutes:g} min").format(minutes=res.settings.chart_bin_s / 60),
        xs,
        [(p.name, [float(v) for v in p.timeline.lost], colour(i)) for i, p in enumerate(res.policies)],
        830,
    )
    style = (
        "<style>.t{font-weight:bold;font-size:13px}.l{font-size:10px;text-anchor:end}"
        ".x{font-size:10px;text-anchor:middle}.ax{stroke:#999}"
        f"text{{font-family:{FONT_STACK};font-size:11px}}</style>"
    )
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="880" height="1020" viewBox="0 0 880 1020">'
    return f"{svg}{style}{load}{reps}{lat}{ttft}{lost}</svg>"
