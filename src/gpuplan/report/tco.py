"""Render a commitment schedule (``gpuplan tco``): the stable ``--json`` document and the terminal view.

JSON (``gpuplan.documents.TcoDocument``, ``docs/schemas/tco.schema.json``): amounts in USD with
``_usd`` in their names, rounded to the cent; ``display_currency`` and ``exchange_rate`` say how the
table shows them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpuplan.documents.tco import TCO_SCHEMA_VERSION
from gpuplan.i18n import N_, _, format_number, format_percent
from gpuplan.i18n.places import place
from gpuplan.report.catalog import rate_doc
from gpuplan.vocab import PRICING_RULES

if TYPE_CHECKING:
    from gpuplan.commit import Commitment, TcoReport

__all__ = ["PRICING_LABELS", "TCO_SCHEMA_VERSION", "commitment_runs", "tco_json", "tco_view"]


#: How each pricing model is named to people (vocab ``PRICING_RULES`` labels), in the order the chart
#: stacks them: committed models first, the longest term lowest, then the hourly ones.
PRICING_LABELS: dict[str, str] = {
    str(p): rule.label
    for p, rule in sorted(
        PRICING_RULES.items(), key=lambda kv: (not kv[1].committed, -(kv[1].term_hours or 0.0))
    )
}


def _cents(x: float | None) -> float | None:
    return None if x is None else round(x, 2)


def tco_json(report: TcoReport) -> dict[str, Any]:
    """The stable document ``gpuplan tco --json`` prints, validated by
    :class:`gpuplan.documents.TcoDocument` (see the module docstring)."""
    from gpuplan.documents import TcoDocument

    return TcoDocument.model_validate(_tco_data(report)).model_dump(mode="json")


def _tco_data(report: TcoReport) -> dict[str, Any]:
    s, u = report.schedule, report.usage
    cost = _cents
    hourly = []
    for key, o in s.hourly_used.items():
        demand = key.split("/spot/", 1)[1] if "/spot/" in key else None
        hourly.append(
            {
                "use": key,
                "provider": o.provider,
                "region": o.region,
                "instance_type": o.instance_type,
                "pricing": o.pricing,
                "price_usd_per_gpu_hour": round(o.usd_per_gpu_hour, 6),
                "spot_overhead_ratio": s.spot_overhead.get(demand) if demand else None,
            }
        )
    rate = rate_doc(report.cny_rate)
    return {
        "schema_version": TCO_SCHEMA_VERSION,
        "horizon_months": u.horizon_months,
        "start": u.start,
        "display_currency": report.money.currency,
        "exchange_rate": rate.model_dump() if rate else None,
        "past_horizon": u.past_horizon,
        "total_cost_usd": cost(s.total_usd),
        "all_on_demand_cost_usd": cost(s.all_on_demand_usd),
        "savings_pct": None if s.savings_pct is None else round(s.savings_pct, 2) + 0.0,  # never -0.0
        "past_horizon_cost_usd": cost(s.past_horizon_usd),
        "monthly": [
            {
                "month": u.month_label(m.month),
                "cost_usd": cost(m.cost_usd),
                "cost_usd_by_pricing": {p: cost(v) for p, v in m.by_pricing_usd.items()},
            }
            for m in s.monthly
        ],
        "commitments": [
            {
                "provider": c.offer.provider,
                "region": c.offer.region,
                "instance_type": c.offer.instance_type,
                "gpu": c.offer.gpu,
                "gpus_per_unit": c.offer.gpus_per_unit,
                "pricing": c.offer.pricing,
                "units": c.units,
                "start_month": u.month_label(c.start_month),
                "term_months": c.term_months,
                "cost_usd": cost(c.cost_usd),
            }
            for c in s.commitments
        ],
        "break_even_utilisation": {p: round(v, 4) for p, v in s.break_even_utilisation.items()},
        "sensitivity": [{"demand_change_pct": pct, "total_cost_usd": cost(t)} for pct, t in s.sensitivity],
        "demands": [
            {"name": d.name, "gpu": d.gpu, "gpu_hours_total": round(d.gpu_hours_total, 2), "how": d.how}
            for d in report.demands
        ],
        "hourly_prices": hourly,
        "notes": list(report.notes),
    }


def commitment_runs(commitments: tuple[Commitment, ...]) -> list[tuple[Commitment, int, float]]:
    """Monthly subscriptions of the same offer and unit count in consecutive months, as one run:
    (first commitment, months, their cost in USD). Reserved terms stay one row each."""
    runs: list[tuple[Commitment, int, int, float]] = []  # (first, months, last start, cost)
    for c in sorted(commitments, key=lambda c: (c.offer.label, c.start_month)):
        if runs:
            first, months, last, total = runs[-1]
            if (
                c.term_months == 1
                and first.term_months == 1
                and first.offer == c.offer
                and first.units == c.units
                and c.start_month == last + 1
            ):
                runs[-1] = (first, months + 1, c.start_month, total + c.cost_usd)
                continue
        runs.append((c, c.term_months, c.start_month, c.cost_usd))
    out = [(first, months, total) for first, months, _last, total in runs]
    return sorted(out, key=lambda r: (r[0].start_month, r[0].offer.label))


def _pricing(p: str) -> str:
    return _(PRICING_LABELS.get(p, p))


def summary_lines(report: TcoReport) -> list[str]:
    """The headline figures, one sentence each (also the HTML report's summary)."""
    s, money = report.schedule, report.money
    lines = [
        _("Total over {months} months: {total}").format(
            months=report.usage.horizon_months, total=money.format(s.total_usd)
        )
    ]
    if s.all_on_demand_usd is not None:
        lines.append(
            _("All on demand: {baseline}; saving {pct}").format(
                baseline=money.format(s.all_on_demand_usd),
                pct=format_percent((s.savings_pct or 0.0) / 100.0),
            )
        )
    else:
        lines.append(_("All on demand: not priced (a GPU demanded has no on-demand price)"))
    if s.past_horizon_usd > 0:
        lines.append(
            _("Of the total, {amount} pays for term months after the horizon").format(
                amount=money.format(s.past_horizon_usd)
            )
        )
    for p, be in s.break_even_utilisation.items():
        verdict = _("never pays off") if be >= 1 else _("pays off above this")
        lines.append(
            _("Break-even utilisation, {pricing}: {share} of its hours ({verdict})").format(
                pricing=_pricing(p), share=format_percent(be), verdict=verdict
            )
        )
    for pct, total in s.sensitivity:
        if pct == 0:
            continue
        lines.append(
            _("Demand {change}: total {total} (commitments fixed)").format(
                change=f"{pct:+g}%",
                total=money.format(total) if total is not None else _("cannot be met"),
            )
        )
    return lines


def schedule_rows(report: TcoReport) -> list[list[str]]:
    """The commitment schedule for people: what to buy, when, for how long, what it costs."""
    u, money = report.usage, report.money
    rows = []
    for first, months, cost_usd in commitment_runs(report.schedule.commitments):
        o = first.offer
        if first.term_months == 1:
            span = _("{n} month(s), renewed monthly").format(n=months)
        else:
            span = _("{n}-month term").format(n=first.term_months)
        rows.append(
            [
                u.month_label(first.start_month),
                place(o.provider, o.region),
                o.instance_type,
                f"{format_number(o.gpus_per_unit)}× {o.gpu}",
                _pricing(o.pricing),
                str(first.units),
                span,
                money.format(cost_usd),
            ]
        )
    return rows


SCHEDULE_HEAD = (
    N_("start"),
    N_("provider/region"),
    N_("instance"),
    N_("GPUs per unit"),
    N_("pricing"),
    N_("units"),
    N_("for"),
    N_("cost"),
)


def _schedule_table(rows: list[list[str]], layout: int) -> Any:
    """Layout 0: one column per field; 1: the instance under provider/region, the term under the
    pricing model (words that may wrap); 2 (narrow consoles): start month, where, instance and
    GPUs in one cell.
    Identifiers never wrap."""
    from gpuplan.report.common import house_table

    table = house_table(_("Commitments to buy"))
    start, where, instance, gpus, pricing, units, span, cost = (_(c) for c in SCHEDULE_HEAD)
    if layout == 0:
        heads = [start, where, instance, gpus, pricing, units, span, cost]
    elif layout == 1:
        heads = [start, f"{where}\n{instance}", gpus, f"{pricing}\n{span}", units, cost]
    else:
        heads = [f"{start}\n{where}\n{instance}\n{gpus}", f"{pricing}\n{span}", units, cost]
    for h in heads:
        # Identifiers and amounts stay whole; the pricing model and term are words and may wrap.
        words = layout > 0 and h == heads[-3]
        table.add_column(h, justify="right" if h in (units, cost) else "left", no_wrap=not words)
    for r in rows:
        if layout == 0:
            table.add_row(*r)
        elif layout == 1:
            table.add_row(r[0], f"{r[1]}\n{r[2]}", r[3], f"{r[4]}\n{r[6]}", r[5], r[7])
        else:
            table.add_row(f"{r[0]}\n{r[1]}\n{r[2]}\n{r[3]}", f"{r[4]}\n{r[6]}", r[5], r[7])
    return table


def tco_view(report: TcoReport) -> Any:
    """A Rich renderable: the summary, the schedule (the widest layout that fits the console), cost
    per month by pricing model, the notes."""
    from functools import partial

    from rich.console import Group
    from rich.text import Text

    from gpuplan.report.common import Widest, house_table

    parts: list[Any] = [Text(line) for line in summary_lines(report)]
    rows = schedule_rows(report)
    if rows:
        parts.append(Widest([partial(_schedule_table, rows, layout) for layout in (0, 1, 2)]))
    else:
        parts.append(Text(_("No commitment pays off: everything is bought by the hour.")))
    models = [p for p in PRICING_LABELS if any(p in m.by_pricing_usd for m in report.schedule.monthly)]
    months = house_table(_("Cost per month"))
    months.add_column(_("month"), no_wrap=True)
    # Pricing names are words (they may wrap in the header); amounts have no spaces and stay whole.
    for p in models:
        months.add_column(_pricing(p), justify="right")
    months.add_column(_("total"), justify="right")
    for m in report.schedule.monthly:
        cells = [report.money.format(m.by_pricing_usd[p]) if p in m.by_pricing_usd else "" for p in models]
        months.add_row(report.usage.month_label(m.month), *cells, report.money.format(m.cost_usd))
    parts += [Text(""), months]
    parts += [Text(_("Demand {name}: {how}").format(name=d.name, how=d.how)) for d in report.demands]
    parts += [Text(_("Note: {note}").format(note=n), style="dim") for n in report.notes]
    if report.money.rate_note():
        parts.append(Text(report.money.rate_note(), style="dim"))
    return Group(*parts)
