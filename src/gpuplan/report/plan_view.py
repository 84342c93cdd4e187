"""The terminal view of a plan: ranked options, why the winner wins, personas, the front, assumptions.

Every text goes through the message catalog and every amount through the current display currency
(``gpuplan.i18n``). The options table picks, at render time, the widest layout that fits the
console (stacking where/instance/GPUs and cost/range in one cell as it narrows), so 80, 100 and
120 columns all show every identifier whole.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.text import Text

from gpuplan.bounded import printable
from gpuplan.catalog.dates import launch_bound
from gpuplan.catalog.region_countries import name_country
from gpuplan.hardware import launch_month
from gpuplan.i18n import N_, _, current_money, format_percent, money, ngettext
from gpuplan.i18n.numbers import format_minutes
from gpuplan.i18n.phrases import item_list
from gpuplan.i18n.places import place
from gpuplan.i18n.sources import source_words
from gpuplan.perf.memory_margin import over_at_estimate_words
from gpuplan.plan.border import border_cell, country_cell
from gpuplan.plan.hosts import host_cell
from gpuplan.plan.options import RESULTS_UNPRICED_FLAG
from gpuplan.plan.rank import OBJECTIVE_NAMES
from gpuplan.plan.result import Option, Plan
from gpuplan.plan.spot import checkpoint_interval_basis, heavy_checkpoint_words, heavy_spot_checkpoint_words
from gpuplan.plan.unknowns import UnknownFact, fact_name
from gpuplan.report.common import Widest, price_age_words
from gpuplan.units import DEFAULT_CHECKPOINT_INTERVAL_MIN, HOURS_PER_MONTH, format_hours
from gpuplan.vocab import confidence_name, pricing_name

if TYPE_CHECKING:
    from rich.table import Table

__all__ = [
    "PERSONA_NAMES",
    "age_text",
    "border_cell",
    "border_lines",
    "breakdown_words",
    "latency_words",
    "option_label",
    "per_words",
    "plan_view",
    "pricing_name",
    "replicas_words",
    "same_as_baseline",
    "sanctions_cell",
    "sanctions_lines",
    "service_cell",
    "service_lines",
    "spot_lines",
    "stale_warning",
    "unknown_lines",
    "unknown_words",
    "unknowns_cell",
    "where_words",
    "with_countries",
]

#: Footnote markers for option flags, in the order flags are first met (not digits: "2¹" reads as a power).
_MARKS = "*†‡§¶"
#: Words the plan stores as codes (JSON keeps the codes), marked here for the catalog.
_CODES = (
    N_("provider"),
    N_("gpu"),
    N_("region"),
    N_("country"),
    N_("hosts"),
    N_("pricing"),
    N_("needs_commitment"),
    N_("compliance"),
    N_("interconnect"),
    N_("min_gpu_memory"),
    N_("max_gpus"),
    N_("min_gpus"),
    N_("fractional_gpu"),
    N_("unpriced"),
    N_("low_confidence_price"),
    N_("model_parallel_split"),
    N_("misses_latency_target"),
    N_("too_far_from_users"),
    N_("short_of_load"),
    N_("below_min_replicas"),
    N_("above_max_replicas"),
    N_("no_precision_path"),
    N_("host_ram_short"),
    N_("no_published_rate"),
    N_("does_not_fit"),
    N_("spot_too_unstable"),
    N_("unknown_cost_component"),
    N_("over_deadline"),
    N_("over_budget"),
)
PERSONA_NAMES = {
    "budget": N_("budget"),
    "performance": N_("performance"),
    "kubernetes": N_("kubernetes"),
    "compliance": N_("compliance"),
}


def option_label(o: Option) -> str:
    """``aws/us-east-1 2× p5en.48xlarge spot``, with the pricing model in the user's language."""
    return o.label


def with_countries(options: Sequence[Option]) -> bool:
    """Whether a plan's table shows each option's country beside its region: where the options lie
    in more than one country, or where a region's name suggests another country than its own
    (``cn-hongkong`` reads as mainland China; it is Hong Kong)."""
    countries = {o.country for o in options}
    return len(countries) > 1 or any(name_country(o.region) not in ("", o.country) for o in options)


def where_words(o: Option, countries: bool) -> str:
    """``alibaba/cn-hongkong``, with its country code beside it where ``countries`` (``alibaba/cn-hongkong
    (HK)``; ``(?)`` where the catalog knows none)."""
    where = place(o.provider, o.region)
    return _("{place} ({country})").format(place=where, country=o.country or "?") if countries else where


def _instance(o: Option) -> str:
    return f"{o.nodes}× {o.instance_type}" if o.nodes > 1 else o.instance_type


def _options_table(plan: Plan, marks: dict[str, str], layout: int) -> Table:
    """Layout 0: one column per field; 1: range under the cost; 2: GPUs under where and instance;
    3 (a narrow terminal): the pricing model under the GPUs, and the time over the cost."""
    from rich import box
    from rich.table import Table

    with_miss = plan.constraints.deadline_h is not None
    title = _("Options, best first by {objective}").format(objective=_(OBJECTIVE_NAMES[plan.objective]))
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1))
    # Identifiers fold rather than end in "…" if the console is narrower than every layout.
    table.add_column("#", justify="right", no_wrap=True)
    heads = {0: _("where / instance"), 1: _("where / instance"), 2: _("where / instance / GPUs")}
    table.add_column(heads.get(layout, _("where / instance / GPUs / pricing")), overflow="fold")
    if layout < 2:
        table.add_column(_("GPUs"), overflow="fold")
    if layout < 3:
        table.add_column(_("pricing"), overflow="fold")
        table.add_column(_("time"), justify="right", no_wrap=True)
        table.add_column(_("all-in cost"), justify="right", no_wrap=True)
    else:
        # its head on two lines: the column is as wide as its cells, not its words
        table.add_column(_("time / all-in cost").replace(" / ", " /\n", 1), justify="right", no_wrap=True)
    if layout == 0:
        table.add_column(_("range"), justify="right", no_wrap=True)
    if with_miss:
        table.add_column(_("miss P"), justify="right", no_wrap=True)

    m = current_money()
    countries = with_countries(plan.options)
    # The unknowns under an instance wrap at the widest name of the column (so it keeps its width).
    width = max(
        [18]
        + [cell_len(where_words(o, countries)) for o in plan.options]
        + [cell_len(_instance(o)) for o in plan.options]
        + ([cell_len(f"{o.gpu_count}× {o.gpu}") for o in plan.options] if layout >= 2 else [])
        + ([cell_len(pricing_name(o.pricing)) for o in plan.options] if layout == 3 else [])
    )
    for rank, o in enumerate(plan.options, 1):
        gpus = Text.assemble(f"{o.gpu_count}× {o.gpu}", *_service_cell(o))
        where = Text(f"{where_words(o, countries)}\n{_instance(o)}")
        if layout >= 2:
            where = Text.assemble(where, "\n", gpus)
        if layout == 3:
            where.append(f"\n{pricing_name(o.pricing)}")
        cost = m.format(o.total_cost_usd)
        band = m.format_range(o.total_cost_usd_low, o.total_cost_usd_high)
        row: list[str | Text] = [
            f"{rank}{''.join(sorted((marks[f] for f in o.flags if f in marks), key=_MARKS.index))}",
            where,
        ]
        if layout < 2:
            row.append(gpus)
        if layout < 3:
            row += [pricing_name(o.pricing), format_hours(o.job_time_h)]
            row += [cost, band] if layout == 0 else [Text.assemble(cost, "\n", (band, "dim"))]
        else:
            row.append(Text.assemble(format_hours(o.job_time_h), "\n", cost, "\n", (band, "dim")))
        if with_miss:
            miss = o.deadline_miss_probability
            row.append(format_percent(miss) if miss is not None else "—")
        if host := host_cell(o):
            # what a marketplace offer rents (a community host, a kind not stated), under its place
            where = Text.assemble(where, "\n", (_wrapped(host, width), "dim"))
            row[1] = where
        if o.sanctions:
            # on the option itself, not only in the note: a country to check before paying
            where = Text.assemble(where, "\n", (_wrapped(sanctions_cell(o), width), "bold red"))
            row[1] = where
        if crossing := border_cell(o):
            # on the option itself, not only in the note: the data crosses a border (mainland China's)
            where = Text.assemble(where, "\n", (_wrapped(crossing, width), "bold red"))
            row[1] = where
        if o.unknown_facts:
            # Under the instance: the facts costed at their conservative bound, and the best case,
            # in lines no wider than the names above (so that the column keeps its width).
            row[1] = Text.assemble(where, "\n", (_wrapped(unknowns_cell(o), width), "yellow"))
        table.add_row(*row)
    return table


def service_cell(o: Option) -> tuple[str, ...]:
    """A service option's replicas and p95 latency at the load, short (``2 replicas``, ``2 replicas
    of 8 GPUs``, ``tensor parallel 8``, ``p95 4.2 s``) for a table's cell, with the p95 time to
    first token where the workload sets a target for it (``first token p95 0.3 s``); () for a job."""
    s = o.service
    if s is None:
        return ()
    n = ngettext("{n} replica", "{n} replicas", s.replicas).format(n=s.replicas)
    p95 = "—" if s.p95_latency_s is None else latency_words(s.p95_latency_s)
    split: tuple[str, ...] = ()
    if s.replica_gpus > 1:
        # the replica's split, its degree on a line of its own (the planner's choice where the
        # workload gives none)
        n = _("{replicas} of {n} GPUs").format(replicas=n, n=s.replica_gpus)
        if s.tensor_parallel > 1:
            split = (_("tensor parallel {tp}").format(tp=s.tensor_parallel),)
    cells = (n, *split, _("p95 {time}").format(time=p95))
    if s.ttft_target_s is not None:
        ttft = "—" if s.ttft_p95_s is None else latency_words(s.ttft_p95_s)
        cells = (*cells, _("first token p95 {time}").format(time=ttft))
    if s.users_in:
        # the round trip the targets were held to with, beside the server's own figures
        if s.users_rtt_s == 0.0:
            # the region and the users are placed in one city: no distance to time, not a missing figure
            cells = (*cells, _("same city as users"))
        else:
            trip = "—" if s.users_rtt_s is None else latency_words(s.users_rtt_s)
            cells = (*cells, _("+ {time} to users").format(time=trip))
    if s.tpot_target_s is not None:
        tpot = "—" if s.tpot_s is None else latency_words(s.tpot_s)
        cells = (*cells, _("{time} a token").format(time=tpot))
    return cells


def _service_cell(o: Option) -> tuple[tuple[str, str], ...]:
    """Under a service option's GPUs, dim: its replicas and the p95 latency at the load."""
    words = service_cell(o)
    return (("".join("\n" + w for w in words), "dim"),) if words else ()


def _wrapped(text: str, width: int) -> str:
    """``text`` broken between words into lines of at most ``width`` cells (a longer word whole)."""
    lines: list[str] = []
    for word in text.split(" "):
        if lines and cell_len(lines[-1]) + 1 + cell_len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "\n".join(lines)


def unknowns_cell(o: Option) -> str:
    """``unknown: vCPUs, RAM; best case $28.74``: the facts an option was costed at the conservative
    bound of, and its cost were they at their best case."""
    if not o.unknown_facts:
        return ""
    names = item_list(fact_name(u.fact) for u in o.unknown_facts)
    if o.best_case_total_cost_usd is None:
        return _("unknown: {facts}").format(facts=names)
    return _("unknown: {facts}; best case {cost}").format(facts=names, cost=money(o.best_case_total_cost_usd))


def _flag_marks(options: Iterable[Option]) -> dict[str, str]:
    marks: dict[str, str] = {}
    for o in options:
        for f in o.flags:
            if f not in marks and len(marks) < len(_MARKS):
                marks[f] = _MARKS[len(marks)]
    return marks


def breakdown_words(o: Option) -> str:
    """Each charge with what multiplies it: ``compute $42.38 (2 instances; set-up $0.26 of it)``."""
    b = o.cost_breakdown
    items = {i.component: i for i in b.items}

    def paren(*clauses: str) -> str:
        # the brackets of the reader's language: "（…）" in Chinese text
        said = [c for c in clauses if c]
        return _(" ({clauses})").format(clauses=_("; ").join(said)) if said else ""

    def per(component: str) -> str:
        item = items.get(component)
        return "" if item is None else per_words(item.per, item.multiplier)

    def times(component: str) -> str:
        return paren(per(component))

    setup = items.get("setup")
    of_it = (
        _("set-up {amount} of it").format(amount=money(setup.cost_usd))
        if setup and setup.cost_usd > 0
        else ""
    )
    writes = items.get("checkpoints")
    writes_of_it = (
        _("checkpoints {amount} of it").format(amount=money(writes.cost_usd))
        if writes and writes.cost_usd > 0
        else ""
    )
    compute = _("compute {amount}").format(amount=money(b.compute_usd)) + paren(
        per("compute"), of_it, writes_of_it
    )
    egress = _("egress {amount}").format(amount=money(b.egress_usd))
    if "egress_in" in items:
        # What leaves the region: a job's results back to its data, a service's answers to its clients.
        words = (
            _("in {amount} × {copies}, answers out {back}")
            if o.service
            else _("in {amount} × {copies}, back {back}")
        )
        egress += paren(
            words.format(
                amount=money(items["egress_in"].cost_usd / max(items["egress_in"].multiplier, 1)),
                copies=per_words("copy", items["egress_in"].multiplier),
                back=money(items["egress_out"].cost_usd) if "egress_out" in items else money(0.0),
            )
        )
    parts = [
        compute,
        _("storage {amount}").format(amount=money(b.storage_usd)) + times("storage"),
        egress,
        _("licences {amount}").format(amount=licence_amount(o)) + times("licences"),
    ]
    if o.spot and o.spot.service:
        parts.append(
            _("spare for reclaims {amount}").format(amount=money(b.spot_overhead_usd))
            + times("spot_overhead")
        )
    elif o.spot:
        parts.append(
            _("spot overhead {amount}").format(amount=money(b.spot_overhead_usd)) + times("spot_overhead")
        )
    return " · ".join(parts)


def licence_amount(o: Option) -> str:
    """The licence cost in words: its amount, or "unknown" (with the known part) where the catalog
    names a fee it does not know — never a 0 that reads as known."""
    b = o.cost_breakdown
    if not b.licence_unknown:
        return money(b.licence_usd)
    if b.licence_usd > 0:
        return _("{amount} + unknown").format(amount=money(b.licence_usd))
    return _("unknown")


def per_words(per: str, n: int) -> str:
    """``2 instances``, ``1 disk``, ``3 copies``: a charge's multiplier in words (``CostItem.per``)."""
    forms = {
        "instance": ngettext("{n} instance", "{n} instances", n),
        "disk": ngettext("{n} disk", "{n} disks", n),
        "bucket": ngettext("{n} bucket", "{n} buckets", n),
        "copy": ngettext("{n} copy", "{n} copies", n),
    }
    return forms.get(per, f"{n} × {per}").format(n=n)


def age_text(o: Option) -> str:
    """``5 mo old``, ``stale (2.7 y)``, ``age unknown (up to 18 mo)``, ``date unknown``."""
    return price_age_words(o.price_age_days, o.staleness, o.gpu, launch_bound(o.as_of, launch_month(o.gpu)))


def stale_warning(plan: Plan) -> str:
    """The headline's warning when the recommended price is stale, of unknown age (undated, or dated by
    a month or a year that straddles the limit) or of low confidence ("" if none)."""
    rec = plan.recommended
    words = []
    if rec.staleness == "stale":
        words.append(
            _("stale price: older than the {days}-day limit; check it before you rent").format(
                days=plan.stale_after_days
            )
        )
    elif rec.stale and rec.as_of and "/" not in rec.as_of:
        # dated by a month or a year that straddles the limit: its source does date it
        words.append(
            _(
                "price of unknown age: dated {date}, it may be older than the {days}-day limit; check it "
                "before you rent"
            ).format(date=rec.as_of, days=plan.stale_after_days)
        )
    elif rec.stale:
        words.append(
            _(
                "price of unknown age: its source carries no date, and it may be older than the "
                "{days}-day limit; check it before you rent"
            ).format(days=plan.stale_after_days)
        )
    if rec.confidence == "low":
        words.append(_("low-confidence price: check it before you rent"))
    return _("; ").join(words)


def price_words(o: Option) -> str:
    """The price of an option with its date, age, confidence and source (gpuplan's own words in the
    source in the reader's language, as tco says them); a zone's own price names its zone, which a
    launch must pick to pay it: spot prices are set per zone (the shipped catalog's
    Alibaba ecs.gn7i-c32g1.32xlarge spot stands at 0.97 USD/h in cn-guangzhou-b and 2.29 in
    cn-guangzhou-a: tools/skypilot_fork/alicloud_v8_vms_cn.csv, lines 74 and 65)."""
    fields = {
        "price": money(o.price_usd_per_hour, per=_("h")),
        "date": o.as_of.replace("/", "–") or "?",
        "age": age_text(o) or "?",
        "confidence": confidence_name(o.confidence),
        "source": source_words(printable(o.price_source)),
    }
    words = (
        _(
            "price {price} per instance in zone {zone} (launch in that zone: another zone of {region} "
            "may be priced otherwise), as of {date} ({age}; {confidence}); {source}"
        ).format(zone=o.zone, region=o.region, **fields)
        if o.zone
        else _("price {price} per instance, as of {date} ({age}; {confidence}); {source}").format(**fields)
    )
    if o.commitment_usd is not None and o.commitment_months is not None:
        words += _(
            "; the reservation commits to {total} over {months} months, billed whether the service runs "
            "or not: the month shown is its share"
        ).format(total=money(o.commitment_usd), months=o.commitment_months)
    if o.upfront_usd is not None:
        words += _("; all upfront: {cash} paid on day one for its {n} instance(s)").format(
            cash=money(o.upfront_usd), n=o.nodes
        )
    return words


def _price_line(plan: Plan, rec: Option) -> list[Any]:
    """The recommended price with its age; a stale or low-confidence one flagged in yellow."""
    lines: list[Any] = [Text("  " + price_words(rec))]
    if warning := stale_warning(plan):
        lines.append(Text("  " + warning, style="bold yellow"))
    if plan.without_stale_prices is not None:
        lines.append(Text("  " + plan.without_stale_prices.words, style="bold yellow"))
    return lines


def _recommended(plan: Plan) -> list[Any]:
    rec = plan.recommended
    lines: list[Any] = [
        Text.assemble(
            (_("Recommended: "), "bold"),
            option_label(rec),
            " — " + _time_cost(rec),
        ),
        Text("  " + breakdown_words(rec)),
        *_price_line(plan, rec),
    ]
    if plan.host:
        bold = rec.sanctions or rec.host_kind in (None, "community_host")
        lines.append(Text("  " + plan.host, style="bold yellow" if bold else ""))
    lines += [Text("  " + line, style="bold yellow") for line in sanctions_lines(rec)]
    # where it will most likely run out of memory, that comes first, under the headline
    lines.insert(1 if rec.memory_over else len(lines), _memory_line(rec))
    if plan.host_caution:
        # a community host for data at a named place: said where the recommendation is said
        lines.insert(1, Text("  " + plan.host_caution, style="bold yellow"))
    if plan.thin_memory_margin and rec.memory_thin:
        lines.append(Text("  " + plan.thin_memory_margin, style="dim"))
    lines += [Text("  " + line) for line in service_lines(rec)]
    lines += [Text("  " + line) for line in spot_lines(rec)]
    lines += [Text("  " + line, style="bold yellow") for line in border_lines(rec)]
    lines += [Text("  " + line, style="yellow") for line in unknown_lines(rec)]
    if plan.decided_by_unknowns:
        lines.append(Text("  " + plan.decided_by_unknowns, style="bold yellow"))
    lines += [Text("  " + _("why: {reason}").format(reason=w)) for w in plan.why]
    if plan.network:
        lines.append(Text("  " + plan.network, style="yellow"))
    lines += [Text("  " + _("assumed: {what}").format(what=a), style="yellow") for a in rec.assumptions]
    return lines


def latency_words(s: float) -> str:
    """A request latency in words: ``850 ms``, ``4.2 s``, or hours past two minutes (as
    ``gpuplan estimate`` writes it)."""
    if s < 1.0:
        return _("{n} ms").format(n=f"{s * 1e3:.3g}")
    if s < 120:
        return _("{n} s").format(n=f"{s:.3g}")
    return format_hours(s / 3600.0)


def replicas_words(o: Option) -> str:
    """``2 replicas``, ``2 replicas of 2 GPUs each`` or ``4 replicas, 2 to a GPU``; "" for a job."""
    s = o.service
    if s is None:
        return ""
    n = ngettext("{n} replica", "{n} replicas", s.replicas).format(n=s.replicas)
    if s.replica_gpus > 1 and s.tensor_parallel > 1:
        return _("{replicas} of {n} GPUs each (tensor parallel {tp})").format(
            replicas=n, n=s.replica_gpus, tp=s.tensor_parallel
        )
    if s.replica_gpus > 1:
        return _("{replicas} of {n} GPUs each").format(replicas=n, n=s.replica_gpus)
    if s.replicas_per_gpu > 1:
        return _("{replicas}, {n} to a GPU").format(replicas=n, n=s.replicas_per_gpu)
    return n


def service_lines(o: Option) -> list[str]:
    """A service's option: the load on its replicas, what each carries, and the p95 latency, p95
    time to first token and time per output token at the load — the figures ``gpuplan estimate``
    gives for the same GPU and count."""
    s = o.service
    if s is None:
        return []
    load = f"{s.requests_per_s:.3g}"
    if s.replica_requests_per_s is None:
        return [
            _("serves {load} req/s on {replicas}: their capacity is not estimated").format(
                load=load, replicas=replicas_words(o)
            )
        ]
    if s.p95_latency_s is None:
        p95 = _("p95 latency unknown: {why}").format(why=s.p95_unknown or "?")
    elif s.p95_target_s is None:
        p95 = _("p95 latency {time} at this load").format(time=latency_words(s.p95_latency_s))
    else:
        p95 = _("p95 latency {time} at this load (target {target})").format(
            time=latency_words(s.p95_latency_s), target=latency_words(s.p95_target_s)
        )
    if s.ttft_p95_s is not None:
        # unknown exactly where the p95 latency is: said once, above
        first = (
            _("p95 time to first token {time}").format(time=latency_words(s.ttft_p95_s))
            if s.ttft_target_s is None
            else _("p95 time to first token {time} (target {target})").format(
                time=latency_words(s.ttft_p95_s), target=latency_words(s.ttft_target_s)
            )
        )
        p95 = _("{clauses}; {clause}").format(clauses=p95, clause=first)
    if s.users_in:
        # the round trip to the users, which the targets above were held to with it added
        trip = (
            _("network round trip to your users unknown: {why}").format(why=s.users_rtt_basis)
            if s.users_rtt_s is None
            else _(
                "same city as your users ({where}): the estimate, by distance, adds no network round "
                "trip; the city's own network and the users' access are not counted"
            ).format(where=s.users_rtt_basis)
            if s.users_rtt_s == 0.0
            else _("+ {rtt} network round trip to your users ({where})").format(
                rtt=latency_words(s.users_rtt_s), where=s.users_rtt_basis
            )
        )
        p95 = _("{clauses}; {clause}").format(clauses=p95, clause=trip)
    if s.tpot_s is not None and s.p95_latency_s is not None:
        # the decode step at the load's operating point: the typical gap between streamed tokens
        tokens = (
            _("time per output token {time}").format(time=latency_words(s.tpot_s))
            if s.tpot_target_s is None
            else _("time per output token {time} (target {target})").format(
                time=latency_words(s.tpot_s), target=latency_words(s.tpot_target_s)
            )
        )
        p95 = _("{clauses}; {clause}").format(clauses=p95, clause=tokens)
    return [
        _(
            "serves {load} req/s on {replicas}, each carrying up to {each} req/s ({util} utilised); {p95}"
        ).format(
            load=load,
            replicas=replicas_words(o),
            each=f"{s.replica_requests_per_s:.3g}",
            util=format_percent(s.utilisation),
            p95=p95,
        ),
        *([o.service_day_words] if o.service_day_words else []),
        *_packed_words(o),
    ]


def _packed_words(o: Option) -> list[str]:
    """Where the option puts several replicas on one instance: which launch runs them so, and what
    the other costs. SkyServe runs each replica as a cluster of its own (deploy's skypilot README
    says so at its cost); a plan read before that was ranked at the packed price unsaid."""
    s = o.service
    if s is None or s.replicas_per_gpu > 1 or s.replica_gpus < 1:
        return []
    per_instance = o.gpus_per_node // s.replica_gpus
    if per_instance < 2:
        return []
    return [
        _(
            "{k} replicas share each {instance}, as `gpuplan deploy --target k8s` runs them (the price "
            "above); SkyServe (`--target skypilot`) gives each replica a whole instance, so launched "
            "there this option's instances cost about {k}× as much"
        ).format(k=per_instance, instance=o.instance_type)
    ]


def _share_words(share: float) -> str:
    """``0.4% of the time (about 2.9 h a month)``: a share of a month, with the time it is."""
    hours = share * HOURS_PER_MONTH
    if 0 < hours < 1 / 3600:  # "about 0 s" would read as never
        return _("{share} of the time (under 1 s a month)").format(share=format_percent(share))
    return _("{share} of the time (about {time} a month)").format(
        share=format_percent(share), time=format_hours(hours)
    )


def band_lines(o: Option) -> list[str]:
    """Where the catalog's sources disagree on the option's interruption band: the band costed (the
    worst) and the others, each with its source and date; none where they agree."""
    if o.spot is None or not o.spot.interruption_bands:
        return []
    costed = [b for b in o.spot.interruption_bands if b.costed]
    others = [b for b in o.spot.interruption_bands if not b.costed]
    if not costed:
        return []
    return [
        _(
            "spot interruption band: {band} costed ({source}), the worst of the catalog's sources for "
            "{instance} in {region}; they disagree: {others}"
        ).format(
            band=repr(costed[0].band),
            source=costed[0].source,
            instance=o.instance_type,
            region=o.region,
            others=_("; ").join(
                _("{band} from {source}").format(band=repr(b.band), source=b.source) for b in others
            ),
        )
    ]


def fallback_line(o: Option) -> str | None:
    """What an on-demand fallback replica's instance costs against the spot one (a service on spot;
    None otherwise): the catalog's on-demand price of the same type and region, or that it has none."""
    if o.spot is None or o.spot.service is None:
        return None
    od = o.spot.service.on_demand_usd_per_instance_hour
    if od is None:
        return _(
            "on-demand fallback: the catalog holds no on-demand price of {instance} in {region}, so what "
            "an on-demand replica's instance costs is unknown (spot {spot})"
        ).format(instance=o.instance_type, region=o.region, spot=money(o.price_usd_per_hour, per=_("h")))
    return _(
        "on-demand fallback: an on-demand {instance} in {region} costs {od} against {spot} on spot "
        "({ratio}×), the catalog's on-demand price; each replica moved to on-demand costs that while it runs"
    ).format(
        instance=o.instance_type,
        region=o.region,
        od=money(od, per=_("h")),
        spot=money(o.price_usd_per_hour, per=_("h")),
        ratio=f"{od / o.price_usd_per_hour:.1f}" if o.price_usd_per_hour > 0 else "?",
    )


def checkpoint_lines(o: Option) -> list[str]:
    """The checkpoints a job off spot writes and the time they take, in words (none on spot, whose
    :func:`spot_lines` say its own, or where the job writes none)."""
    w = o.checkpoints
    if w is None:
        return []
    basis = checkpoint_interval_basis(w.interval_stated, w.interval_min, w.write_min)
    line = _("checkpoints: every {interval} min ({basis}): {writes} × {write} = {time}, {amount}").format(
        interval=f"{w.interval_min:.0f}",
        basis=basis,
        writes=f"{w.writes:,.0f}",
        write=format_minutes(w.write_min),
        time=format_hours(w.overhead_h),
        amount=money(w.usd),
    )
    if not w.interval_stated and o.job_time_h > 0 and w.interval_min > DEFAULT_CHECKPOINT_INTERVAL_MIN:
        line += _(" ({share} of the job's time)").format(share=f"{w.overhead_h / o.job_time_h:.1%}")
    heavy = (
        heavy_checkpoint_words(
            w.interval_min, w.write_min, w.overhead_h, o.job_time_h, format_hours(w.overhead_h), money(w.usd)
        )
        if w.interval_stated
        else None
    )
    return [line] if heavy is None else [line, heavy]


def spot_lines(o: Option) -> list[str]:
    """What spot interruptions cost ``o``, in words: a service's availability and spare
    (:func:`service_spot_lines`), a job's interruptions, checkpoints and lost work; off spot, the
    checkpoints a job writes (:func:`checkpoint_lines`)."""
    if o.spot is None:
        return checkpoint_lines(o)
    if o.spot.service is not None:
        return service_spot_lines(o) + band_lines(o)
    s = o.spot
    if s.resume_chunk_min is not None:
        ckpt = _(
            "resumes by output chunks of {minutes} min, as the batch job `gpuplan deploy` writes does "
            "(a runner that starts over would lose all the work done)"
        ).format(minutes=f"{s.resume_chunk_min:.1f}")
    elif s.checkpoint_interval_min and s.checkpoint_interval_stated:
        ckpt = _(
            "checkpoint every {minutes} min (the workload's checkpoint.every_min, shorter than "
            "Young/Daly's {optimum} min)"
        ).format(minutes=f"{s.checkpoint_interval_min:.0f}", optimum=f"{s.checkpoint_optimum_min or 0:.0f}")
    elif s.checkpoint_interval_min:
        ckpt = _("checkpoint every {minutes} min (Young/Daly)").format(
            minutes=f"{s.checkpoint_interval_min:.0f}"
        )
    else:
        ckpt = _("no checkpoints: an interruption restarts the job from the beginning")
    line = _("spot: {n} expected interruptions (one every {mtbi}), {checkpoint}, {lost} lost").format(
        n=f"{s.expected_interruptions:.2f}",
        mtbi=format_hours(s.mtbi_h),
        checkpoint=ckpt,
        lost=format_hours(s.expected_lost_h),
    )
    if s.restart_min is not None and s.restart_assumed:
        line += _("; each restart {minutes} min ({how})").format(
            minutes=f"{s.restart_min:.1f}", how=s.restart_assumed
        )
    heavy = (
        heavy_spot_checkpoint_words(
            s.checkpoint_interval_min,
            s.checkpoint_optimum_min,
            s.checkpoint_write_min,
            s.checkpoint_overhead_h,
            o.job_time_h,
            # the writes at the instances' hourly price (spot's are in its overhead, not an item)
            money(o.price_usd_per_hour * o.nodes * s.checkpoint_overhead_h),
        )
        if s.checkpoint_interval_stated
        and s.checkpoint_interval_min
        and s.checkpoint_optimum_min
        and s.checkpoint_write_min
        and s.checkpoint_overhead_h
        else None
    )
    return [line, *([heavy] if heavy else []), *band_lines(o)]


def service_spot_lines(o: Option) -> list[str]:
    """What spot reclaims cost a service, in words: its availability (reclaims a month and the time
    between them, all its instances', the spare's among them, the replicas each other takes down and
    for how long, the time below its replica count — where its fleet follows its day, below the
    replicas the hour needs) and the spare its price includes, with the time the target is still
    missed."""
    assert o.spot is not None and o.spot.service is not None
    s = o.spot.service
    reclaim = ngettext(
        "spot: {n} reclaims a month (one every {mtbi}), {spare} of them the spare's; each of a serving "
        "instance takes {k} replica down for {minutes} min ({how}); the spare's takes none (a "
        "replacement is started)",
        "spot: {n} reclaims a month (one every {mtbi}), {spare} of them the spare's; each of a serving "
        "instance takes {k} replicas down for {minutes} min ({how}); the spare's takes none (a "
        "replacement is started)",
        s.replicas_per_reclaim,
    ).format(
        n=f"{s.interruptions_per_month + s.spare_interruptions_per_month:.2f}",
        spare=f"{s.spare_interruptions_per_month:.2f}",
        mtbi=format_hours(o.spot.mtbi_h),
        k=s.replicas_per_reclaim,
        minutes=f"{s.down_min_per_reclaim:.0f}",
        how=s.down_assumed,
    )
    # a fleet that follows its day is short of the replicas the hour needs, not of its peak's
    below = (
        ngettext(
            "{hours} replica-hours down a month; without a spare, below the replicas it needs at that "
            "hour (its fleet follows its day, up to {n} replica) {share}",
            "{hours} replica-hours down a month; without a spare, below the replicas it needs at that "
            "hour (its fleet follows its day, up to {n} replicas) {share}",
            s.replicas,
        )
        if o.peak_fleet_cost_usd is not None
        else ngettext(
            "{hours} replica-hours down a month; without a spare, below its {n} replica {share}",
            "{hours} replica-hours down a month; without a spare, below its {n} replicas {share}",
            s.replicas,
        )
    ).format(
        hours=f"{s.replica_hours_down_per_month:.2f}", n=s.replicas, share=_share_words(s.below_target_share)
    )
    spare = ngettext(
        "the price includes {n} spare instance ({usd}) to keep the load target: with it, below target "
        "{share} (two reclaims at once; reclaims taken as independent)",
        "the price includes {n} spare instances ({usd}) to keep the load target: with them, below target "
        "{share} (two reclaims at once; reclaims taken as independent)",
        s.spare_instances,
    ).format(n=s.spare_instances, usd=money(s.spare_usd), share=_share_words(s.below_target_share_with_spare))
    fallback = fallback_line(o)
    return [reclaim, below, spare, *([fallback] if fallback else [])]


def sanctions_cell(o: Option) -> str:
    """Under an option in a country under broad US or EU sanctions or export restrictions."""
    return _("check before paying: sanctions") if o.sanctions else ""


def sanctions_lines(o: Option) -> list[str]:
    """A line beside the recommendation where its country is under broad US or EU sanctions or
    export restrictions (``Option.sanctions``); the note among the plan's notes cites the pages."""
    if not o.sanctions:
        return []
    return [
        _(
            "check before paying: this option's country is under broad US or EU sanctions or export "
            "restrictions: see the note on it below; --countries keeps such places out"
        )
    ]


def border_lines(o: Option) -> list[str]:
    """One line beside the recommendation where its option takes the data out of its country: across
    the border of mainland China (``Option.crosses_border``), else from which country to which (any
    country: :func:`gpuplan.plan.border.country_cell`); the note among the plan's notes says the rest."""
    if o.crosses_border:
        return [_("this option moves the data across the mainland-China border: see the note on it below")]
    if crossing := country_cell(o):
        return [
            _(
                "this option runs the work in another country than its data's or its users' ({crossing}): "
                "see the note on it below"
            ).format(crossing=crossing)
        ]
    return []


def unknown_lines(o: Option) -> list[str]:
    """The recommended option's unknown facts: those costed at their conservative bound (with the
    best case), then those that only rank it after a known one."""
    costed = [u for u in o.unknown_facts if u.costed]
    ranked = [u for u in o.unknown_facts if not u.costed]
    lines = []
    if costed:
        lines.append(
            _("unknown, costed at the conservative bound: {facts}").format(facts=unknown_words(o, costed))
        )
    if ranked:
        lines.append(
            _(
                "unknown, in no figure (ranked after an option that knows it at the same cost): {facts}"
            ).format(facts=_("; ").join(_fact_words(u) for u in ranked))
        )
    return lines


def _fact_words(u: UnknownFact) -> str:
    """``spot rate: 1 interruption per 24 instance-hours``, with the language's colon."""
    return _("{name}: {pick}").format(name=fact_name(u.fact), pick=u.assumed)


def unknown_words(o: Option, facts_of: Sequence[UnknownFact] | None = None) -> str:
    """``vCPUs: 24 vCPUs (…); RAM: …; best case $28.74, 6.0 h`` (``facts_of``: those facts only)."""
    chosen = o.unknown_facts if facts_of is None else facts_of
    facts = _("; ").join(_fact_words(u) for u in chosen)
    if o.best_case_total_cost_usd is None or o.best_case_job_time_h is None:
        return facts
    return _("{facts}; best case {cost}, {time}").format(
        facts=facts, cost=money(o.best_case_total_cost_usd), time=format_hours(o.best_case_job_time_h)
    )


def _time_cost(o: Option) -> str:
    return _("{time}, {cost}").format(time=format_hours(o.job_time_h), cost=money(o.total_cost_usd))


def _memory_line(rec: Option) -> Text:
    """The recommended option's peak memory; where it may not fit (its band straddles the GPU's
    usable memory, § in the table), that too, in yellow: the band's top against the usable memory;
    where it does not fit at the estimate's point (only the band's low end fits: recommended because
    no option's point fits), in red: the point against the usable memory."""
    line = _("peak memory {gib} GiB per GPU ({gpu}, {total} GiB)").format(
        gib=f"{rec.peak_memory_gib:.1f}", gpu=rec.gpu, total=_gpu_memory(rec)
    )
    if rec.service is not None and rec.service.tpot_s is not None:
        # An engine-served LLM's peak is the engine's share, which it takes whole at start (its KV
        # cache fills what the weights leave): the figure estimate and deploy give as its room.
        line += _(": the serving engine's share, which it takes whole")
    if not rec.memory_uncertain:
        return Text("  " + line)
    need, high, usable = rec.memory_needed_gib, rec.memory_needed_gib_high, rec.usable_memory_gib
    if rec.memory_over and need is not None and high is not None and usable is not None:
        risk = over_at_estimate_words(need, usable, high)
        return Text.assemble("  " + line + _("; "), (risk, "bold red"))
    if high is not None and usable is not None:
        risk = _("may not fit: needs up to {need} GiB of {usable} usable").format(
            need=f"{high:.1f}", usable=f"{usable:.1f}"
        )
    else:
        risk = _("may not fit: the high end of its memory estimate is above the GPU's usable memory")
    return Text.assemble("  " + line + _("; "), (risk, "bold yellow"))


def _gpu_memory(o: Option) -> str:
    from gpuplan.errors import GpuplanError
    from gpuplan.hardware import get_gpu

    try:
        return f"{get_gpu(o.gpu).memory_gib:g}"
    except GpuplanError:
        return "?"


#: Job times closer than this share are the same time (as the plan's "why" lines take them).
_SAME_TIME_SHARE = 0.005


def same_as_baseline(plan: Plan) -> bool:
    """The recommended option is the savings baseline: the same offer, count and pricing model."""
    base, rec = plan.baseline, plan.recommended
    if base is None:
        return False
    key = ("provider", "region", "zone", "instance_type", "nodes", "pricing")
    return all(getattr(base, k) == getattr(rec, k) for k in key)


def _savings(plan: Plan) -> Any:
    from rich.text import Text

    base = plan.baseline
    pct = plan.savings_vs_baseline_pct
    if base is None or pct is None:
        return Text(plan.baseline_note)
    what = _("{option} ({cost}, {time})").format(
        option=option_label(base), cost=money(base.total_cost_usd), time=format_hours(base.job_time_h)
    )
    if same_as_baseline(plan):
        # "Savings 0 %" against itself reads as if a cheaper option had been weighed and found equal.
        return Text(_("The recommendation is the savings baseline itself: {baseline}").format(baseline=what))
    if pct >= 0:
        return Text(
            _("Savings vs {baseline}: {share}").format(baseline=what, share=format_percent(pct / 100))
        )
    # Dearer than the naive choice (a time objective): say how much more, not "savings −1532 %".
    rec = plan.recommended
    times = f"{rec.total_cost_usd / base.total_cost_usd:.1f}"
    if abs(rec.job_time_h - base.job_time_h) <= _SAME_TIME_SHARE * max(rec.job_time_h, base.job_time_h):
        # A service runs the same month on every option (or the times merely agree): no time bought.
        return Text(
            _("Costs {times}× the baseline {baseline}, for the same time").format(times=times, baseline=what)
        )
    return Text(
        _("Costs {times}× the baseline {baseline}, for {time} instead").format(
            times=times, baseline=what, time=format_hours(rec.job_time_h)
        )
    )


def _per_million_tokens(plan: Plan) -> list[Any]:
    """A service or a batch generation job: what the recommended option costs per million tokens
    (to set beside API prices), or why that is not known."""
    from rich.text import Text

    o = plan.recommended
    if o.usd_per_thousand_images is not None and o.service is not None:
        return [Text(_per_thousand("images", o.usd_per_thousand_images, o.service.mean_requests_per_s))]
    if o.usd_per_thousand_requests is not None and o.service is not None:
        return [Text(_per_thousand("requests", o.usd_per_thousand_requests, o.service.mean_requests_per_s))]
    if o.usd_per_million_output_tokens is None or o.usd_per_million_tokens is None:
        if o.usd_per_million_tokens_unknown:
            return [
                Text(
                    _("Cost per million tokens: not known: {why}").format(
                        why=o.usd_per_million_tokens_unknown
                    )
                )
            ]
        return []
    service = o.service
    output, both = money(o.usd_per_million_output_tokens), money(o.usd_per_million_tokens)
    if service is None:  # a batch generation job: the run's own tokens
        words = _(
            "Cost per million tokens: {output} per million output tokens, {all} per million prompt and "
            "output tokens (the all-in cost over the tokens the run reads and generates, as the plan "
            "prices it: each sample's prompt inputs.seq_len tokens and its answer inputs.output_tokens; "
            "answers that stop before inputs.output_tokens make the run shorter and its tokens fewer)"
        ).format(output=output, all=both)
    elif service.mean_requests_per_s is not None:
        words = _(
            "Cost per million tokens: {output} per million output tokens, {all} per million prompt "
            "and output tokens (the all-in cost over the tokens of {rate:g} requests/s, the mean load "
            "(serving.mean_requests_per_s), in the month billed)"
        ).format(output=output, all=both, rate=service.mean_requests_per_s)
    else:
        # The peak's tokens all month are the most the month can have: the figure is a floor.
        words = _(
            "Cost per million tokens: at least {output} per million output tokens, {all} per million "
            "prompt and output tokens (lower bounds: the all-in cost spread over the tokens of the peak "
            "rate, serving.requests_per_s, held every hour served; the month serves no more, so a million "
            "cost no less. Give serving.mean_requests_per_s, the mean load, for the figures themselves)"
        ).format(output=output, all=both)
    return [Text(words)]


#: What one request of an image or a forward-pass service makes, and the cost per 1,000 of them at
#: the mean load and as a floor where the peak is taken all month (the image's, then the request's).
_PER_THOUSAND = {
    "images": (
        N_(
            "Cost per 1,000 images: {cost} (the all-in cost over the images of {rate:g} requests/s, "
            "the mean load (serving.mean_requests_per_s), one image a request, in the month billed)"
        ),
        N_(
            "Cost per 1,000 images: at least {cost} (a lower bound: the all-in cost spread over the images "
            "of the peak rate, serving.requests_per_s, held every hour served, one image a request; the "
            "month serves no more, so 1,000 cost no less. Give serving.mean_requests_per_s, the mean "
            "load, for the figure itself)"
        ),
    ),
    "requests": (
        N_(
            "Cost per 1,000 requests: {cost} (the all-in cost over the requests of {rate:g} requests/s, "
            "the mean load (serving.mean_requests_per_s), one forward pass a request, in the month billed)"
        ),
        N_(
            "Cost per 1,000 requests: at least {cost} (a lower bound: the all-in cost spread over the "
            "requests of the peak rate, serving.requests_per_s, held every hour served, one forward pass "
            "a request; the month serves no more, so 1,000 cost no less. Give "
            "serving.mean_requests_per_s, the mean load, for the figure itself)"
        ),
    ),
}


def _per_thousand(kind: str, usd: float, mean_requests_per_s: float | None) -> str:
    """An image (``kind`` "images") or forward-pass ("requests") service's cost per 1,000, in words:
    the figure at the mean load, or a floor where the peak is taken all month."""
    at_mean, floor = _PER_THOUSAND[kind]
    if mean_requests_per_s is not None:
        return _(at_mean).format(cost=money(usd), rate=mean_requests_per_s)
    return _(floor).format(cost=money(usd))


def _per_thousand_samples(plan: Plan) -> list[Any]:
    """A batch inference job: what the recommended option costs per 1,000 of the samples the run
    processes, or why that is not known; nothing for any other job."""
    from rich.text import Text

    o = plan.recommended
    if o.usd_per_thousand_samples is not None:
        return [
            Text(
                _(
                    "Cost per 1,000 samples: {cost} (the all-in cost over the samples the run processes, "
                    "data.samples × epochs)"
                ).format(cost=money(o.usd_per_thousand_samples))
            )
        ]
    if o.usd_per_thousand_samples_unknown:
        return [
            Text(_("Cost per 1,000 samples: not known: {why}").format(why=o.usd_per_thousand_samples_unknown))
        ]
    return []


def _personas(plan: Plan) -> list[Any]:
    from rich.text import Text

    lines: list[Any] = [Text(_("Personas:"), style="bold")]
    for p in plan.personas:
        name = _(PERSONA_NAMES.get(p.persona, p.persona))
        pick = f"{option_label(p.option)} — {_time_cost(p.option)}" if p.option else p.note
        lines.append(Text("  " + _("{name}: {pick}").format(name=name, pick=pick)))
        lines.append(Text(f"    {p.rule}", style="dim"))
    return lines


#: Points of the Pareto front the text shows; ``--json`` holds them all.
_FRONT_SHOWN = 8


def _front_shown(plan: Plan) -> list[int]:
    """The positions of the front's points the text shows: all of a short front; of a long one,
    points evenly spaced from cheapest to fastest, each persona's pick on the front among them (in
    place of the nearest spaced point). The performance pick had been left out of "8 of them
    shown", the line beside it a faster one at twice the price."""
    n = len(plan.pareto)
    if n <= _FRONT_SHOWN:
        return list(range(n))
    step = (n - 1) / (_FRONT_SHOWN - 1)
    shown = sorted({round(i * step) for i in range(_FRONT_SHOWN)})
    labels = [o.label for o in plan.pareto]
    picked = sorted(
        {labels.index(p.option.label) for p in plan.personas if p.option and p.option.label in labels}
    )
    for i in picked:
        if i not in shown:
            free = [j for j in shown if j not in picked]
            shown.remove(min(free, key=lambda j: abs(j - i)))
            shown = sorted([*shown, i])
    return shown


def _front(plan: Plan) -> list[Any]:
    from rich.text import Text

    excluded = item_list(f"{_(k)} {v:,}" for k, v in plan.excluded.items()) or _("none")
    # The front from cheapest to fastest; long fronts are thinned to a readable 8 points.
    front = [plan.pareto[i] for i in _front_shown(plan)]
    options = ngettext("{n} option", "{n} options", len(plan.pareto)).format(n=len(plan.pareto))
    if len(front) < len(plan.pareto):
        # the header had said 11 options above 8 lines
        options = _("{options}, {shown} of them shown; all in --json").format(
            options=options, shown=len(front)
        )
    lines: list[Any] = [
        Text(
            _(
                "Pareto front ({options}): {feasible} of {candidates} candidates feasible; "
                "excluded: {excluded}"
            ).format(
                options=options,
                feasible=f"{plan.feasible:,}",
                candidates=f"{plan.candidates:,}",
                excluded=excluded,
            ),
            style="bold",
        )
    ]
    # A cost without its results back (their size not stated) is less than the option's: said so.
    unpriced = "  " + _("(before its results back, not priced)")
    lines += [
        Text(
            f"  {format_hours(o.job_time_h):>8}  {money(o.total_cost_usd):>10}  {option_label(o)}"
            + (unpriced if RESULTS_UNPRICED_FLAG in o.flags else ""),
            style="cyan",
        )
        for o in front
    ]
    return lines


def plan_view(plan: Plan) -> Any:
    """A Rich renderable of ``plan`` in the current language and display currency."""
    from rich.console import Group
    from rich.text import Text

    marks = _flag_marks(plan.options)
    table = Widest([partial(_options_table, plan, marks, layout) for layout in (0, 1, 2, 3)])
    parts: list[Any] = [table]
    if marks:
        parts.append(Text("  ".join(f"{m} {_(flag)}" for flag, m in marks.items()), style="dim"))
    if plan.thin_memory_margin and not plan.recommended.memory_thin:
        # of other ranked options only: said under the table, not under the recommendation
        parts.append(Text(plan.thin_memory_margin, style="dim"))
    parts += _recommended(plan)
    parts.append(_savings(plan))
    parts += _per_million_tokens(plan)
    parts += _per_thousand_samples(plan)
    parts += _personas(plan)
    parts += _front(plan)
    parts.append(Text(_("Assumptions and notes:"), style="bold"))
    parts += [Text(f"  - {n}", style="dim") for n in current_money().notes_with_rate(plan.notes)]
    return Group(*parts)
