"""Render simulations: the JSON documents, terminal tables and the HTML report with its chart.

JSON schemas (``schema_version`` 1; money in USD, times in seconds)::

    simulate autoscale --json
    {"schema_version": 1, "trace": {...}, "replica": {...}, "prices": {...},
     "policies": [{"name", "cost_usd", "replica_hours": {"on_demand": h, "spot": h}, "utilisation",
                   "latency_p50_s", "latency_p95_s", "latency_p99_s", "slo_miss_pct", "dropped",
                   "max_replicas", "interruptions", "served", "queued_at_end", "killed", "spec"}]}

    simulate share --json
    {"schema_version": 1, "gpu", "sharing", "gpus_needed", "lower_bound_gpus", "optimal",
     "cost_usd_per_hour", "placements": [{"gpu_index", "service", "slice", "start"}],
     "unplaced": [{"service", "reason"}], "services": [{"name", "slice", "instances",
     "p95_latency_s", "latency_headroom_s", ...}], "method", "notes"}
"""

from __future__ import annotations

import math
from functools import partial
from html import escape
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from gpuplan.documents.base import Document
from gpuplan.documents.simulate import AutoscaleDocument, ShareDocument
from gpuplan.i18n import Money, _, format_number, format_percent
from gpuplan.report.common import Widest, house_table, to_jsonable
from gpuplan.report.fonts import FONT_STACK
from gpuplan.simulate.autoscale import AutoscaleResult, PolicyResult
from gpuplan.simulate.share import SharePlan

__all__ = [
    "JSON_SCHEMA_VERSION",
    "autoscale_html",
    "autoscale_json",
    "autoscale_view",
    "share_html",
    "share_json",
    "share_view",
]

JSON_SCHEMA_VERSION = 1


def _validated(model: type[Document], doc: Any) -> dict[str, Any]:
    # Through the published model: a key the model does not declare fails here, not downstream.
    return model.model_validate(to_jsonable(doc)).model_dump(mode="json")


def _policy_doc(p: PolicyResult) -> dict[str, Any]:
    return {
        "name": p.name,
        "cost_usd": p.cost_usd,
        "replica_hours": p.replica_hours,
        "utilisation": p.utilisation,
        "latency_p50_s": p.latency_p50_s,
        "latency_p95_s": p.latency_p95_s,
        "latency_p99_s": p.latency_p99_s,
        "slo_miss_pct": p.slo_miss_pct,
        "dropped": p.dropped,
        "max_replicas": p.max_replicas,
        "interruptions": p.interruptions,
        "served": p.served,
        "queued_at_end": p.queued_at_end,
        "killed": p.killed,
        "spec": p.spec,
    }


def autoscale_json(res: AutoscaleResult) -> dict[str, Any]:
    """The ``simulate autoscale --json`` document, validated by :class:`AutoscaleDocument`."""
    return _validated(
        AutoscaleDocument,
        {
            "schema_version": JSON_SCHEMA_VERSION,
            "trace": {
                "name": res.trace_name,
                "synthetic": res.trace_synthetic,
                "requests": res.requests,
                "duration_s": res.duration_s,
            },
            "replica": {
                "gpu": res.replica.gpu,
                "slots": res.replica.slots,
                "time_per_output_token_s": res.replica.time_per_output_token_s,
                "prefill_tokens_per_s": res.replica.prefill_tokens_per_s,
                "source": res.replica.source,
            },
            "prices": {
                "usd_per_hour": res.prices.usd_per_hour,
                "source": res.prices.source,
                "spot_interruptions_per_hour": res.prices.spot_rate_per_hour,
                "spot_rate_source": res.prices.spot_rate_source,
            },
            "settings": {
                "slo_s": res.settings.slo_s,
                "timeout_s": res.settings.timeout_s,
                "spot_notice_s": res.settings.spot_notice_s,
                "seed": res.settings.seed,
            },
            "policies": [_policy_doc(p) for p in res.policies],
        },
    )


def _s(v: float | None) -> str:
    return "—" if v is None or not math.isfinite(v) else f"{v:.2f} s"


def _header(res: AutoscaleResult) -> list[str]:
    kind = _("synthetic") if res.trace_synthetic else _("as read, not generated")
    lines = [
        _("Trace {name} ({kind}): {n} requests over {hours} h.").format(
            name=res.trace_name,
            kind=kind,
            n=format_number(res.requests),
            hours=f"{res.duration_s / 3600:.1f}",
        ),
        _("Replica: one {gpu}; {source}.").format(gpu=res.replica.gpu, source=res.replica.source),
        _("Prices: {source}.").format(source=res.prices.source),
        _("Spot interruptions: {source}.").format(source=res.prices.spot_rate_source),
    ]
    if res.settings.slo_s is not None:
        lines.append(
            _("SLO: a request within {slo} s; dropped requests count as misses.").format(
                slo=f"{res.settings.slo_s:g}"
            )
        )
    return lines


def _policy_table(res: AutoscaleResult, money: Money, layout: int) -> Table:
    """Layout 0: one column per figure; 1: the three latencies in one cell, replicas and
    interruptions in one; 2 (narrow consoles): policies by number (named in a key below the table),
    cost over utilisation and SLO miss over dropped. Policy names (``queue:per_replica=48,max=10``)
    never wrap."""
    t = house_table(_("Policies side by side"))
    if layout < 2:
        t.add_column(_("Policy"), no_wrap=True)
        t.add_column(_("Cost"), justify="right", no_wrap=True)
    else:
        t.add_column("#", justify="right", no_wrap=True)
        t.add_column(_("Cost") + "\n" + _("Utilisation"), justify="right", no_wrap=True)
    t.add_column(_("Replica-hours"), justify="right", no_wrap=True)
    if layout < 2:
        t.add_column(_("Utilisation"), justify="right", no_wrap=True)
    if layout == 0:
        for h in ("p50", "p95", "p99"):
            t.add_column(h, justify="right", no_wrap=True)
        for h in (_("SLO miss"), _("Dropped"), _("Max replicas"), _("Interruptions")):
            t.add_column(h, justify="right", no_wrap=True)
    else:
        t.add_column(_("latency") + "\np50/p95/p99", justify="right", no_wrap=True)
        if layout == 1:
            t.add_column(_("SLO miss"), justify="right", no_wrap=True)
            t.add_column(_("Dropped"), justify="right", no_wrap=True)
        else:
            t.add_column(_("SLO miss") + "\n" + _("Dropped"), justify="right", no_wrap=True)
        t.add_column(_("Max replicas") + "\n" + _("Interruptions"), justify="right", no_wrap=True)
    for number, p in enumerate(res.policies, 1):
        hours = "\n".join(f"{_(k)} {v:.1f}" for k, v in sorted(p.replica_hours.items()))
        cost, util = money.format(p.cost_usd), format_percent(p.utilisation)
        latencies = [_s(p.latency_p50_s), _s(p.latency_p95_s), _s(p.latency_p99_s)]
        miss = "—" if p.slo_miss_pct is None else f"{p.slo_miss_pct:.2f}%"
        dropped = format_number(p.dropped)
        row = [p.name, cost] if layout < 2 else [str(number), f"{cost}\n{util}"]
        row.append(hours)
        if layout < 2:
            row.append(util)
        if layout == 0:
            row += [*latencies, miss, dropped, str(p.max_replicas), str(p.interruptions)]
        else:
            row.append("\n".join(latencies))
            row += [miss, dropped] if layout == 1 else [f"{miss}\n{dropped}"]
            row.append(f"{p.max_replicas}\n{p.interruptions}")
        t.add_row(*row)
    if layout < 2:
        return t
    key = house_table()
    key.show_header = False
    key.add_column(justify="right", no_wrap=True)
    key.add_column(overflow="fold")  # wider than the console itself: fold, never "…"
    for number, p in enumerate(res.policies, 1):
        key.add_row(str(number), p.name)
    grid = Table.grid()
    grid.add_row(t)
    grid.add_row(key)
    return grid


def autoscale_view(res: AutoscaleResult, money: Money) -> Group:
    """The policies side by side (the widest layout that fits the console), then what was assumed."""
    table = Widest([partial(_policy_table, res, money, layout) for layout in (0, 1, 2)])
    notes = [Text(line, style="dim") for line in _header(res)]
    if money.rate_note():
        notes.append(Text(money.rate_note(), style="dim"))
    return Group(table, *notes)


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


def _panel(
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
        parts.append(f'<g stroke="{colour}" fill="none" stroke-width="1.5">{_polyline(xs, ys, sx, sy)}</g>')
        parts.append(f'<text x="{w - 200}" y="{y0 + 14 + 14 * i}" fill="{colour}">{escape(name)}</text>')
    return "".join(parts)


_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2")


def autoscale_svg(res: AutoscaleResult) -> str:
    """Load, replicas and p95 latency over time for every policy (one self-contained SVG)."""
    first = res.policies[0].timeline
    xs = first.t_s
    load = _panel(_("Load (requests/s)"), xs, [(_("arrivals"), list(first.requests_per_s), "#444")], 30)
    reps = _panel(
        _("Replicas"),
        xs,
        [
            (p.name, list(p.timeline.replicas), _COLOURS[i % len(_COLOURS)])
            for i, p in enumerate(res.policies)
        ],
        230,
    )
    lat = _panel(
        _("p95 latency (s)"),
        xs,
        [
            (p.name, list(p.timeline.latency_p95_s), _COLOURS[i % len(_COLOURS)])
            for i, p in enumerate(res.policies)
        ],
        430,
        line=res.settings.slo_s,
    )
    style = (
        "<style>.t{font-weight:bold;font-size:13px}.l{font-size:10px;text-anchor:end}"
        ".x{font-size:10px;text-anchor:middle}.ax{stroke:#999}"
        f"text{{font-family:{FONT_STACK};font-size:11px}}</style>"
    )
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="880" height="620" viewBox="0 0 880 620">'
    return f"{svg}{style}{load}{reps}{lat}</svg>"


def _html_page(title: str, body: str) -> str:
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


def _table_html(headers: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def autoscale_html(res: AutoscaleResult, money: Money) -> str:
    headers = [
        _("Policy"),
        _("Cost"),
        _("Replica-hours"),
        _("Utilisation"),
        "p50",
        "p95",
        "p99",
        _("SLO miss"),
        _("Dropped"),
        _("Max replicas"),
        _("Interruptions"),
    ]
    rows = [
        [
            p.name,
            money.format(p.cost_usd),
            ", ".join(f"{k} {v:.1f}" for k, v in sorted(p.replica_hours.items())),
            format_percent(p.utilisation),
            _s(p.latency_p50_s),
            _s(p.latency_p95_s),
            _s(p.latency_p99_s),
            "—" if p.slo_miss_pct is None else f"{p.slo_miss_pct:.2f}%",
            format_number(p.dropped),
            str(p.max_replicas),
            str(p.interruptions),
        ]
        for p in res.policies
    ]
    notes = "".join(
        f'<p class="note">{escape(line)}</p>' for line in [*_header(res), money.rate_note()] if line
    )
    body = _table_html(headers, rows) + notes + autoscale_svg(res)
    return _html_page(_("Autoscaling policies on {trace}").format(trace=res.trace_name), body)


def share_json(plan: SharePlan) -> dict[str, Any]:
    """The ``simulate share --json`` document, validated by :class:`ShareDocument`."""
    return _validated(
        ShareDocument,
        {
            "schema_version": JSON_SCHEMA_VERSION,
            "gpu": plan.gpu_id,
            "sharing": plan.sharing,
            "gpus_needed": plan.gpus_needed,
            "lower_bound_gpus": plan.lower_bound_gpus,
            "optimal": plan.optimal,
            "cost_usd_per_hour": plan.cost_usd_per_hour,
            "placements": [
                {"gpu_index": p.gpu_index, "service": p.service, "slice": p.slice, "start": p.start}
                for p in plan.placements
            ],
            "unplaced": [{"service": u.service, "reason": u.reason} for u in plan.unplaced],
            "services": [
                {
                    "name": s.name,
                    "slice": s.slice,
                    "instances": s.instances,
                    "speed_fraction": s.speed_fraction,
                    "utilisation": s.utilisation,
                    "p95_latency_s": s.p95_latency_s,
                    "latency_headroom_s": s.latency_headroom_s,
                }
                for s in plan.services
            ],
            "method": plan.method,
            "notes": list(plan.notes),
        },
    )


def _share_summary(plan: SharePlan, money: Money) -> list[str]:
    lines = [
        _("{n} × {gpu} ({sharing}), {cost}.").format(
            n=plan.gpus_needed,
            gpu=plan.gpu_id,
            sharing=plan.sharing,
            cost=money.format(plan.cost_usd_per_hour, per=_("h"), unknown=_("price unknown")),
        ),
        (
            _("Optimal: no packing uses fewer GPUs ({method}).").format(method=plan.method)
            if plan.optimal
            else _("At least {lb} GPUs are needed; this packing uses {n} ({method}).").format(
                lb=plan.lower_bound_gpus, n=plan.gpus_needed, method=plan.method
            )
        ),
    ]
    lines += [
        _("Not placed: {service}: {reason}").format(service=u.service, reason=u.reason) for u in plan.unplaced
    ]
    lines += list(plan.notes)
    if money.rate_note():
        lines.append(money.rate_note())
    return lines


def _service_rows(plan: SharePlan) -> list[list[str]]:
    rows = []
    for s in plan.services:
        gpus = sorted({p.gpu_index for p in plan.placements if p.service == s.name})
        head = s.latency_headroom_s
        rows.append(
            [
                s.name,
                s.slice,
                str(s.instances),
                ", ".join(str(g) for g in gpus),
                format_percent(s.utilisation),
                _s(s.p95_latency_s),
                "—" if head is None else (_("misses SLO") if not math.isfinite(head) else f"{head:+.2f} s"),
            ]
        )
    return rows


def _service_headers() -> list[str]:
    # The GPU column lists the indices of the GPUs a service's instances run on (0, 1 …), not a count.
    return [_("Service"), _("Slice"), _("Instances"), _("on GPU #"), _("Busy"), "p95", _("Headroom")]


def share_view(plan: SharePlan, money: Money) -> Group:
    t = house_table(_("Services on shared GPUs"))
    for h in _service_headers():
        left = h in (_("Service"), _("Slice"), _("on GPU #"))
        # Service names and slice names are identifiers: whole, never wrapped.
        t.add_column(h, justify="left" if left else "right", no_wrap=h != _("on GPU #"))
    for r in _service_rows(plan):
        t.add_row(*r)
    return Group(t, *[Text(line, style="dim") for line in _share_summary(plan, money)])


def share_html(plan: SharePlan, money: Money) -> str:
    body = _table_html(_service_headers(), _service_rows(plan))
    body += "".join(f'<p class="note">{escape(line)}</p>' for line in _share_summary(plan, money))
    body += _table_html(
        [_("GPU #"), _("Service"), _("Slice"), _("Start slice")],
        [
            [str(p.gpu_index), p.service, p.slice, "" if p.start is None else str(p.start)]
            for p in plan.placements
        ],
    )
    return _html_page(_("Services packed on {gpu}").format(gpu=plan.gpu_id), body)
