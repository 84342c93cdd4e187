"""Render ``simulate share``: the JSON document, the terminal table and the HTML report.

JSON schema (``schema_version`` 1; money in USD, times in seconds)::

    simulate share --json
    {"schema_version": 1, "gpu", "sharing", "gpus_needed", "lower_bound_gpus", "optimal",
     "cost_usd_per_hour" (null when a service is not placed), "cost_usd_per_month",
     "placed_cost_usd_per_hour",
     "placements": [{"gpu_index", "service", "slice", "start"}],
     "unplaced": [{"service", "reason"}], "services": [{"name", "slice", "instances",
     "p95_latency_s", "latency_headroom_s", "ttft_p95_s", "ttft_headroom_s", ...}],
     "notebooks": [{"name", "kind", "users", "slice", "gpus", "slowed_chance", "mean_slowdown",
     "p95_slowdown", "oom_risk", ...}], "method", "notes", "price",
     "hours_per_month" (the hours cost_usd_per_month is for), "schedule" (null: round the clock)}

``simulate autoscale`` is rendered by :mod:`gpuplan.report.autoscale`.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

from rich.console import Group
from rich.text import Text

from gpuplan.documents.simulate import SHARE_SCHEMA_VERSION, ShareDocument
from gpuplan.i18n import Money, _, format_percent
from gpuplan.i18n.phrases import bracketed, item_list
from gpuplan.report.common import house_table
from gpuplan.report.simulate_common import (
    basis_doc,
    html_page,
    seconds,
    table_html,
    validated,
)
from gpuplan.simulate.share import SharePlan, tenant_words
from gpuplan.vocab import sharing_name

__all__ = ["share_html", "share_json", "share_view"]


def share_json(plan: SharePlan) -> dict[str, Any]:
    """The ``simulate share --json`` document, validated by :class:`ShareDocument`."""
    return validated(
        ShareDocument,
        {
            "schema_version": SHARE_SCHEMA_VERSION,
            "gpu": plan.gpu_id,
            "sharing": plan.sharing,
            "gpus_needed": plan.gpus_needed,
            "lower_bound_gpus": plan.lower_bound_gpus,
            "optimal": plan.optimal,
            "cost_usd_per_hour": plan.cost_usd_per_hour,
            "cost_usd_per_month": plan.cost_usd_per_month,
            "placed_cost_usd_per_hour": plan.placed_cost_usd_per_hour,
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
                    "latency_headroom_s": _finite(s.latency_headroom_s),
                    "ttft_p95_s": s.ttft_p95_s,
                    "ttft_headroom_s": _finite(s.ttft_headroom_s),
                    "tpot_s": s.tpot_s,
                    "tpot_headroom_s": _finite(s.tpot_headroom_s),
                }
                for s in plan.services
            ],
            "notebooks": [
                {
                    "name": n.name,
                    "kind": n.kind,
                    "users": n.users,
                    "memory_gib": n.memory_gib,
                    "active_share": n.active_share,
                    "hours_per_day": n.hours_per_day,
                    "slice": n.slice,
                    "gpus": n.gpus,
                    "users_per_gpu": n.users_per_gpu,
                    "speed_fraction": n.speed_fraction,
                    "slowed_chance": n.slowed_chance,
                    "mean_slowdown": n.mean_slowdown,
                    "p95_slowdown": n.p95_slowdown,
                    "max_slowdown": n.max_slowdown,
                    "oom_risk": n.oom_risk,
                    "max_oom_risk": n.max_oom_risk,
                    "meets_targets": n.meets_targets,
                }
                for n in plan.notebooks
            ],
            "method": plan.method,
            "notes": list(plan.notes),
            "price": basis_doc(plan.price) if plan.price is not None else None,
            "hours_per_month": plan.hours_per_month,
            "schedule": _schedule_json(plan),
        },
    )


def _schedule_json(plan: SharePlan) -> dict[str, Any] | None:
    """The file's ``schedule:`` and the hours it prices; None without one."""
    h = plan.hours
    if h is None:
        return None
    w = h.schedule.window
    return {
        "hours": w.hours_text,
        "days": w.days_text,
        "time_zone": w.zone,
        "serving_hours_per_month": h.served_per_month,
        "hours_per_month": h.billed_per_month,
        "start_up_s": h.start_up_s,
        "start_ups_per_day": h.start_ups_per_day,
        "start_up": h.start_up_words,
    }


def _finite(headroom: float | None) -> float | None:
    """A headroom in JSON: an unknown or overloaded figure (−inf) as null, as before."""
    return headroom if headroom is None or math.isfinite(headroom) else None


def _share_summary(plan: SharePlan, money: Money) -> list[str]:
    if plan.unplaced:
        # no total, no "optimal": the plan serves only some of the services
        lines = [
            _(
                "Incomplete: {m} of {total} {what} cannot run on one {gpu}; the other {placed} need "
                "{n} × {gpu} ({sharing}), {cost}."
            ).format(
                what=_(tenant_words(plan.unplaced, len(plan.services), len(plan.notebooks)).template),
                m=len(plan.unplaced),
                total=len(plan.unplaced) + len(plan.services) + len(plan.notebooks),
                placed=len(plan.services) + len(plan.notebooks),
                n=plan.gpus_needed,
                gpu=plan.gpu_id,
                sharing=sharing_name(plan.sharing),
                cost=money.format(plan.placed_cost_usd_per_hour, per=_("h"), unknown=_("price unknown")),
            )
        ]
    else:
        lines = [
            _("{n} × {gpu} ({sharing}), {cost}.").format(
                n=plan.gpus_needed,
                gpu=plan.gpu_id,
                sharing=sharing_name(plan.sharing),
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
        if plan.cost_usd_per_month is not None:
            lines += _month_lines(plan, money.format(plan.cost_usd_per_month))
    lines += [
        _("Not placed: {service}: {reason}").format(service=u.service, reason=u.reason) for u in plan.unplaced
    ]
    lines += [
        _("Misses its p95 target: {service} (p95 {p95}, {over} over the target)").format(
            service=s.name, p95=seconds(s.p95_latency_s), over=seconds(-s.latency_headroom_s)
        )
        for s in plan.services
        if s.latency_headroom_s is not None and s.latency_headroom_s < 0 and s.p95_latency_s is not None
    ]
    lines += [
        (
            _("Misses its time-to-first-token target: {service} (p95 {ttft}, {over} over the target)").format(
                service=s.name, ttft=seconds(s.ttft_p95_s), over=seconds(-s.ttft_headroom_s)
            )
            if s.ttft_p95_s is not None
            else _("Misses its time-to-first-token target: {service} (its p95 is not known)").format(
                service=s.name
            )
        )
        for s in plan.services
        if s.ttft_headroom_s is not None and s.ttft_headroom_s < 0
    ]
    lines += [
        (
            _(
                "Misses its time-per-output-token target: {service} ({tpot} a token, {over} over the target)"
            ).format(service=s.name, tpot=seconds(s.tpot_s), over=seconds(-s.tpot_headroom_s))
            if s.tpot_s is not None
            else _(
                "Misses its time-per-output-token target: {service} (its time per token is not known)"
            ).format(service=s.name)
        )
        for s in plan.services
        if s.tpot_headroom_s is not None and s.tpot_headroom_s < 0
    ]
    lines += [
        _(
            "Misses its slow-down target: {group} (×{p95:.2f} at the 95th percentile of the time it "
            "computes, target ×{target:g})"
        ).format(group=n.name, p95=n.p95_slowdown, target=n.max_slowdown)
        for n in plan.notebooks
        if n.p95_slowdown > n.max_slowdown + 1e-9
    ]
    lines += [
        _(
            "Misses its OOM-risk target: {group} ({risk} chance of running out of memory, target {target})"
        ).format(group=n.name, risk=format_percent(n.oom_risk), target=format_percent(n.max_oom_risk))
        for n in plan.notebooks
        if n.oom_risk > n.max_oom_risk + 1e-12
    ]
    lines += list(plan.notes)
    if money.rate_note():
        lines.append(money.rate_note())
    return lines


def _month_lines(plan: SharePlan, cost: str) -> list[str]:
    """The month's cost and the hours it is for: round the clock (and, where notebooks are open
    fewer hours a day, how a schedule prices them for those), or the file's schedule's."""
    h = plan.hours
    if h is None:
        lines = [_("A month (730 h, the GPUs kept round the clock): {cost}.").format(cost=cost)]
        if any(n.hours_per_day < 24 for n in plan.notebooks):
            lines.append(
                _(
                    "The GPUs are priced all month, round the clock, though the notebooks are open only "
                    "some hours a day; schedule: (hours, days, time_zone) in the file prices them for "
                    "those hours only."
                )
            )
        return lines
    if h.start_ups_per_day == 0:
        return [
            _(
                "A month ({hours:.0f} h: the GPUs are kept on, as the gaps between the schedule's hours, "
                "{said}, are shorter than a new instance's {start:.0f} min start-up): {cost}."
            ).format(
                hours=h.billed_per_month, said=h.schedule.window.said, start=h.start_up_s / 60, cost=cost
            )
        ]
    return [
        _(
            "A month ({hours:.0f} h: the schedule's {said}, {served:.0f} h, and each day it runs a new "
            "instance's start-up, {start:.0f} min before them; stopped outside them): {cost}."
        ).format(
            hours=h.billed_per_month,
            said=h.schedule.window.said,
            served=h.served_per_month,
            start=h.start_up_s / 60,
            cost=cost,
        ),
        _("Start-up: {how}.").format(how=h.start_up_words),
    ]


def _service_rows(plan: SharePlan) -> list[list[str]]:
    rows = []
    for s in plan.services:
        gpus = sorted({p.gpu_index for p in plan.placements if p.service == s.name})
        rows.append(
            [
                s.name,
                sharing_name(s.slice),
                str(s.instances),
                item_list(str(g) for g in gpus),
                format_percent(s.utilisation),
                seconds(s.p95_latency_s),
                _headroom_cell(s.latency_headroom_s),
                seconds(s.ttft_p95_s),
                _headroom_cell(s.ttft_headroom_s),
            ]
        )
    return rows


def _notebook_headers() -> list[str]:
    return [
        _("Notebooks, experiments"),
        _("Users"),
        _("GiB each"),
        _("Computes"),
        _("Slice"),
        _("GPUs"),
        # the chance a neighbour computes at once (none where isolated), and the slow-down against a
        # whole GPU, which an isolated share has too: "0 %" beside "×2.11" had read as a contradiction
        _("Neighbour slows it"),
        _("× whole GPU, mean / p95"),
        _("OOM risk"),
    ]


def _notebook_rows(plan: SharePlan) -> list[list[str]]:
    kinds = {"notebook": _("notebook"), "experiment": _("experiment")}
    return [
        [
            bracketed(n.name, kinds[n.kind]),
            str(n.users),
            f"{n.memory_gib:g}",
            _("{share} of {hours:g} h").format(share=format_percent(n.active_share), hours=n.hours_per_day),
            sharing_name(n.slice),
            str(n.gpus),
            format_percent(n.slowed_chance),
            f"×{n.mean_slowdown:.2f} / ×{n.p95_slowdown:.2f}",
            format_percent(n.oom_risk),
        ]
        for n in plan.notebooks
    ]


def _headroom_cell(head: float | None) -> str:
    return "—" if head is None else (_("misses SLO") if not math.isfinite(head) else f"{head:+.2f} s")


def _service_headers() -> list[str]:
    # The GPU column lists the indices of the GPUs a service's instances run on (0, 1 …), not a count.
    return [
        _("Service"),
        _("Slice"),
        _("Instances"),
        _("on GPU #"),
        _("Busy"),
        "p95",
        _("Headroom"),
        _("TTFT p95"),
        _("TTFT headroom"),
    ]


def _share_title(places: str) -> str:
    """The report's title, with the place options the GPUs were priced within (``--countries CN``)."""
    if not places:
        return _("Services on shared GPUs")
    return _("Services on shared GPUs (priced within {places})").format(places=places)


def share_view(plan: SharePlan, money: Money, places: str = "") -> Group:
    """``places``: the place options the offers were kept to, said in the title ("" where none)."""
    t = house_table(_share_title(places))
    for h in _service_headers():
        left = h in (_("Service"), _("Slice"), _("on GPU #"))
        # Service names and slice names are identifiers: whole, never wrapped.
        t.add_column(h, justify="left" if left else "right", no_wrap=h != _("on GPU #"))
    for r in _service_rows(plan):
        t.add_row(*r)
    tables = [t] if plan.services or not plan.notebooks else []
    if plan.notebooks:
        way = sharing_name(plan.sharing)
        nt = house_table(_("Notebooks and experiments on {sharing}").format(sharing=way))
        for i, h in enumerate(_notebook_headers()):
            nt.add_column(h, justify="left" if i in (0, 4) else "right", no_wrap=i in (0, 4))
        for r in _notebook_rows(plan):
            nt.add_row(*r)
        tables.append(nt)
    return Group(*tables, *[Text(line, style="dim") for line in _share_summary(plan, money)])


def share_html(plan: SharePlan, money: Money, places: str = "") -> str:
    body = f"<h2>{escape(_share_title(places))}</h2>" + table_html(_service_headers(), _service_rows(plan))
    if plan.notebooks:
        body += table_html(_notebook_headers(), _notebook_rows(plan))
    body += "".join(f'<p class="note">{escape(line)}</p>' for line in _share_summary(plan, money))
    body += table_html(
        [_("GPU #"), _("Service"), _("Slice"), _("Start slice")],
        [
            [str(p.gpu_index), p.service, sharing_name(p.slice), "" if p.start is None else str(p.start)]
            for p in plan.placements
        ],
    )
    return html_page(_("Services packed on {gpu}").format(gpu=plan.gpu_id), body)
