"""Plan reports as files: a self-contained HTML page (plotly.js's basic bundle embedded, nothing loaded
from the network, a static SVG version of each of the three charts, in the page once, for printing
and for browsers without JavaScript, a ranked table that fits the page), or
Markdown with the chart as an SVG file next to it.

Text is in the current language, money in the current display currency (``gpuplan.i18n``).
"""

from __future__ import annotations

from html import escape

from gpuplan.i18n import N_, _, current_language, current_money, format_percent, money
from gpuplan.i18n.phrases import item_list
from gpuplan.plan.hosts import host_cell
from gpuplan.plan.result import Option, Plan
from gpuplan.report.fonts import FONT_STACK
from gpuplan.report.plan_svg import breakdown_svg, cost_time_svg, gpu_svg, per_gpu
from gpuplan.report.plan_view import (
    PERSONA_NAMES,
    age_text,
    border_cell,
    border_lines,
    breakdown_words,
    licence_amount,
    per_words,
    price_words,
    same_as_baseline,
    sanctions_cell,
    sanctions_lines,
    service_cell,
    service_lines,
    spot_lines,
    stale_warning,
    unknown_lines,
    unknowns_cell,
    where_words,
    with_countries,
)
from gpuplan.units import format_hours
from gpuplan.vocab import confidence_name

__all__ = ["cost_time_svg", "plan_html", "plan_markdown"]


def _gpu_memory(gpu: str) -> float | None:
    from gpuplan.errors import GpuplanError
    from gpuplan.hardware import get_gpu

    try:
        return float(get_gpu(gpu).memory_gib)
    except GpuplanError:
        return None


def _head() -> list[str]:
    return [
        "#",
        _("where / instance"),
        _("GPUs"),
        _("pricing"),
        _("price per instance-hour"),
        _("time"),
        _("all-in cost"),
        _("compute"),
        _("storage"),
        _("egress"),
        _("licences"),
        _("spot overhead"),
        _("peak memory / GPU"),
        _("miss P"),
        _("price date"),
        _("notes"),
    ]


def _times(amount: str, o: Option, component: str) -> str:
    """``$42.38 (2 instances)``: an amount with the multiplier of its charge (egress: the copies in)."""
    item = next((i for i in o.cost_breakdown.items if i.component == component), None)
    return f"{amount} ({per_words(item.per, item.multiplier)})" if item is not None else amount


def _age_and_confidence(o: Option) -> list[str]:
    """The price's age and its confidence in words, those known (a cell's note)."""
    return [w for w in (age_text(o), confidence_name(o.confidence)) if w]


def _row(rank: int, o: Option, countries: bool) -> list[str]:
    b = o.cost_breakdown
    miss = o.deadline_miss_probability
    capacity = _gpu_memory(o.gpu)
    memory = f"{o.peak_memory_gib:.1f} / {capacity:g} GiB" if capacity else f"{o.peak_memory_gib:.1f} GiB"
    instance = f"{o.nodes}× {o.instance_type}" if o.nodes > 1 else o.instance_type
    band = current_money().format_range(o.total_cost_usd_low, o.total_cost_usd_high)
    return [
        str(rank),
        f"{where_words(o, countries)} {instance}",
        _(", ").join((f"{o.gpu_count}× {o.gpu}", *service_cell(o))),
        _(o.pricing),
        money(o.price_usd_per_hour, per=_("h")),
        f"{format_hours(o.job_time_h)} ({format_hours(o.job_time_h_low)}–{format_hours(o.job_time_h_high)})",
        f"{money(o.total_cost_usd)} ({band})",
        _times(money(b.compute_usd), o, "compute"),
        _times(money(b.storage_usd), o, "storage"),
        _times(money(b.egress_usd), o, "egress_in"),
        _times(licence_amount(o), o, "licences"),
        money(b.spot_overhead_usd),
        memory,
        "—" if miss is None else format_percent(miss),
        f"{o.as_of.replace('/', '–') or '?'} ({'; '.join(_age_and_confidence(o))})",
        _("; ").join(
            (
                *(_(f) for f in o.flags),
                *([host_cell(o)] if host_cell(o) else []),
                *([sanctions_cell(o)] if o.sanctions else []),
                *([border_cell(o)] if border_cell(o) else []),
                *o.implausible,
                *([unknowns_cell(o)] if o.unknown_facts else []),
                *o.assumptions,
            )
        ),
    ]


def _html_head() -> list[str]:
    """The HTML table's columns: related figures share a cell (a range under its value, the
    breakdown as one list) so that the table fits a page; the Markdown table keeps one per field."""
    return [
        "#",
        _("where / instance"),
        _("GPUs"),
        _("pricing / per hour"),
        _("time / miss P"),
        _("all-in cost"),
        _("breakdown (× instances, disks, dataset copies)"),
        _("peak memory / GPU"),
        _("price date"),
        _("notes"),
    ]


def _ids(*lines: str) -> str:
    # Identifiers (provider/region, instance type, GPU) never wrap inside; lines stack.
    return "<br>".join(f'<span class="id">{escape(line)}</span>' for line in lines)


def _html_row(rank: int, o: Option, countries: bool) -> str:
    cells = _row(rank, o, countries)
    instance = f"{o.nodes}× {o.instance_type}" if o.nodes > 1 else o.instance_type
    band = current_money().format_range(o.total_cost_usd_low, o.total_cost_usd_high)
    times = f"{format_hours(o.job_time_h_low)}–{format_hours(o.job_time_h_high)}"
    # "× 2" after each charge: the instances, disks or dataset copies it is paid for (in words on hover).
    # A part of another charge ("of which set-up …") may wrap: the cell stays as wide as its charges.
    breakdown = "<br>".join(
        f'<span class="{"part" if part else "charge"}">{escape(text)} '
        f'<span class="band" title="{escape(words)}">×{n}</span></span>'
        for text, n, words, part in _item_lines(o)
    )
    small = '<br><span class="band">{}</span>'
    # a service's replicas and p95 latency at the load, under its GPUs
    service = "".join(small.format(escape(w)) for w in service_cell(o))
    tds = [
        f'<td class="num">{rank}</td>',
        f"<td>{_ids(where_words(o, countries), instance)}</td>",
        f"<td>{_ids(f'{o.gpu_count}× {o.gpu}')}{service}</td>",
        f"<td>{escape(_(o.pricing))}{small.format(escape(cells[4]))}</td>",
        f'<td class="num">{escape(format_hours(o.job_time_h))}{small.format(escape(times))}'
        f"{small.format(escape(cells[13]))}</td>",
        f'<td class="num">{escape(money(o.total_cost_usd))}{small.format(escape(band))}</td>',
        f'<td class="num">{breakdown}</td>',
        f'<td class="num">{escape(cells[12])}</td>',
        f"<td>{escape(o.as_of.replace('/', '–') or '?')}"
        + small.format(escape(_("; ").join(_age_and_confidence(o))))
        + "</td>",
        f'<td class="notes">{escape(cells[15])}</td>',
    ]
    return "<tr>" + "".join(tds) + "</tr>"


_ITEM_WORDS = {
    "compute": N_("compute {amount}"),
    "setup": N_("of which set-up {amount}"),
    "checkpoints": N_("of which checkpoints {amount}"),
    "storage": N_("storage {amount}"),
    "egress_in": N_("dataset in {amount}"),
    "egress_out": N_("results back {amount}"),
    "licences": N_("licences {amount}"),
    "spot_overhead": N_("spot overhead {amount}"),
}


_SPARE_WORDS = N_("spare for reclaims {amount}")
_ANSWERS_WORDS = N_("answers to clients {amount}")


def _item_lines(o: Option) -> list[tuple[str, int, str, bool]]:
    """Each charge of ``o`` with its multiplier (``compute $42.38``, 2, ``2 instances``) and whether it
    is part of another (the set-up, checkpoints: of compute); nothing of what costs nothing, but
    compute always."""
    lines = []
    for item in o.cost_breakdown.items:
        licence = item.component == "licences" and o.cost_breakdown.licence_unknown
        if item.cost_usd == 0 and item.component != "compute" and not licence:
            continue
        amount = licence_amount(o) if licence else money(item.cost_usd)
        words = _ITEM_WORDS[item.component]
        if item.component == "spot_overhead" and o.spot is not None and o.spot.service is not None:
            words = _SPARE_WORDS  # a service's spot overhead is its spare, not interruptions
        if item.component == "egress_out" and o.service is not None:
            words = _ANSWERS_WORDS  # what leaves a service's region is its answers, not results
        text = _(words).format(amount=amount)
        lines.append(
            (text, item.multiplier, per_words(item.per, item.multiplier), item.included_in is not None)
        )
    return lines


def _summary_lines(plan: Plan) -> list[str]:
    rec = plan.recommended
    lines = [
        _("Recommended: ")
        + _("{option} — {time}, {cost}").format(
            option=rec.label, time=format_hours(rec.job_time_h), cost=money(rec.total_cost_usd)
        )
        + " ("
        + breakdown_words(rec)
        + ")",
        *([plan.host_caution] if plan.host_caution else []),
        price_words(rec),
    ]
    if warning := stale_warning(plan):
        lines.append(warning)
    if plan.without_stale_prices is not None:
        lines.append(plan.without_stale_prices.words)
    lines += service_lines(rec)
    lines += spot_lines(rec)
    if plan.host:
        lines.append(plan.host)
    lines += sanctions_lines(rec)
    lines += border_lines(rec)
    lines += unknown_lines(rec)
    if plan.decided_by_unknowns:
        lines.append(plan.decided_by_unknowns)
    lines += [_("why: {reason}").format(reason=w) for w in plan.why]
    if plan.network:
        lines.append(plan.network)
    if plan.baseline is not None and plan.savings_vs_baseline_pct is not None:
        what = _("{option} ({cost}, {time})").format(
            option=plan.baseline.label,
            cost=money(plan.baseline.total_cost_usd),
            time=format_hours(plan.baseline.job_time_h),
        )
        share = format_percent(plan.savings_vs_baseline_pct / 100)
        if same_as_baseline(plan):
            lines.append(
                _("The recommendation is the savings baseline itself: {baseline}").format(baseline=what)
            )
        else:
            lines.append(_("Savings vs {baseline}: {share}").format(baseline=what, share=share))
    else:
        lines.append(plan.baseline_note)
    for p in plan.personas:
        pick = (
            _("{option} — {time}, {cost}").format(
                option=p.option.label,
                time=format_hours(p.option.job_time_h),
                cost=money(p.option.total_cost_usd),
            )
            if p.option
            else p.note
        )
        lines.append(_("{name}: {pick}").format(name=_(PERSONA_NAMES.get(p.persona, p.persona)), pick=pick))
    excluded = item_list(f"{_(k)} {v:,}" for k, v in plan.excluded.items()) or _("none")
    lines.append(_("excluded: {reasons}").format(reasons=excluded))
    return lines


def _notes(plan: Plan) -> list[str]:
    return current_money().notes_with_rate(plan.notes)


_STYLE = (
    "body { font-family: "
    + FONT_STACK
    + """; margin: 2em auto;
       max-width: 1200px; color: #222; padding: 0 1em; }
table { border-collapse: collapse; font-size: 12px; }
td, th { border: 1px solid #ccc; padding: 3px 6px; text-align: left; vertical-align: top; }
td.num { text-align: right; white-space: nowrap; }
td.notes { min-width: 16em; font-size: 11px; }
.id { white-space: nowrap; }
.part { white-space: normal; }
.band { color: #666; font-size: 11px; }
/* The table fits the page; on a narrower screen it scrolls inside its box, never past the page. */
.wide { overflow-x: auto; max-width: 100%; }
.wide table { width: 100%; }
svg { max-width: 100%; height: auto; }
th { background: #f0f0f0; }
li { margin: 2px 0; }
.static { display: none; }
@media print {
  body { margin: 0; max-width: none; }
  .interactive { display: none; }
  .wide { overflow: visible; }
  .static { display: block; }
  table { font-size: 9px; }
  h2 { break-after: avoid; }
}
"""
)


#: Without JavaScript the static charts show in place of the interactive ones: each chart's SVG is
#: in the page once, for print and for a browser that runs no script alike.
_NO_SCRIPT_STYLE = ".static { display: block; } .interactive { display: none; }"


def plan_html(plan: Plan, title: str) -> str:
    """One self-contained HTML page: summary, three interactive charts (with static SVG versions for
    print), the ranked options with price per hour, cost breakdown and memory, and the assumptions."""
    from gpuplan.report.plan_charts import (
        breakdown_figure,
        cost_time_figure,
        figure_div,
        gpu_figure,
        plotly_js,
    )

    memory = {o.gpu: cap for o in per_gpu(plan) if (cap := _gpu_memory(o.gpu)) is not None}
    head = "".join(f"<th>{escape(h)}</th>" for h in _html_head())
    countries = with_countries(plan.options)
    body = "\n".join(_html_row(rank, o, countries) for rank, o in enumerate(plan.options, 1))
    items = "\n".join(f"<li>{escape(line)}</li>" for line in _summary_lines(plan))
    notes = "\n".join(f"<li>{escape(n)}</li>" for n in _notes(plan))
    objective = _("Options, best first by {objective}").format(objective=_(_objective_name(plan)))
    lang = "zh-CN" if current_language().value == "zh" else "en"
    # Messages outside the f-string: the catalog's extractor does not read inside one.
    feasible = _("{feasible} of {candidates} candidates feasible").format(
        feasible=f"{plan.feasible:,}", candidates=f"{plan.candidates:,}"
    )
    h_cost_time = _("Cost and time")
    h_breakdown = _("What the top options pay for")
    h_gpu = _("Per GPU: step time and memory fit")
    h_table = _("Ranked options")
    h_notes = _("Assumptions and notes:")
    return f"""<!DOCTYPE html>
<html lang="{lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gpuplan: {escape(title)}</title>
<style>{_STYLE}</style>
<noscript><style>{_NO_SCRIPT_STYLE}</style></noscript>
<script>{plotly_js()}</script>
</head><body>
<h1>gpuplan: {escape(title)}</h1>
<p>{escape(objective)} · {escape(feasible)}</p>
<ul>
{items}
</ul>
<h2>{escape(h_cost_time)}</h2>
<div class="interactive">{figure_div(cost_time_figure(plan), "cost-time")}</div>
<div class="static">{cost_time_svg(plan)}</div>
<h2>{escape(h_breakdown)}</h2>
<div class="interactive">{figure_div(breakdown_figure(plan), "breakdown")}</div>
<div class="static">{breakdown_svg(plan)}</div>
<h2>{escape(h_gpu)}</h2>
<div class="interactive">{figure_div(gpu_figure(plan, memory), "per-gpu")}</div>
<div class="static">{gpu_svg(plan, memory)}</div>
<h2>{escape(h_table)}</h2>
<div class="wide"><table><tr>{head}</tr>
{body}
</table></div>
<h2>{escape(h_notes)}</h2>
<ul>
{notes}
</ul>
</body></html>
"""


def _objective_name(plan: Plan) -> str:
    from gpuplan.plan.rank import OBJECTIVE_NAMES

    return OBJECTIVE_NAMES[plan.objective]


#: What Markdown would read as HTML, a link or an escape in text from a shared file (a workload's
#: name, a catalog's instance names): written as entities and backslash escapes, shown as typed.
_MARKDOWN_ESCAPES = str.maketrans(
    {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\\": "\\\\", "[": "\\[", "]": "\\]", "`": "\\`"}
)


def _markdown_text(text: str) -> str:
    """``text`` shown as typed; where its backticks pair up (a command quoted in a note:
    ``(`gpuplan estimate …`)``), each pair is a code span, whose text Markdown shows as it is, so
    it is written as it is (escaped, the backticks were shown and the command was not code)."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an odd number of backticks: no spans
        return text.translate(_MARKDOWN_ESCAPES)
    return "`".join(part if i % 2 else part.translate(_MARKDOWN_ESCAPES) for i, part in enumerate(parts))


def plan_markdown(plan: Plan, title: str, svg_name: str) -> str:
    """Markdown; the chart is the SVG file ``svg_name`` written next to it."""

    def cell(text: str) -> str:
        return _markdown_text(text).replace("|", "\\|")

    head = _head()
    lines = [f"# gpuplan: {_markdown_text(title)}", ""]
    lines += [f"- {cell(x)}" for x in _summary_lines(plan)]
    chart = _("cost versus time")
    lines += ["", f"![{chart}]({svg_name})", "", "| " + " | ".join(head) + " |"]
    lines.append("|" + "---|" * len(head))
    countries = with_countries(plan.options)
    lines += [
        "| " + " | ".join(cell(c) for c in _row(rank, o, countries)) + " |"
        for rank, o in enumerate(plan.options, 1)
    ]
    notes = _("Assumptions and notes:")
    lines += ["", f"## {notes}", ""] + [f"- {cell(n)}" for n in _notes(plan)]
    return "\n".join(lines) + "\n"
