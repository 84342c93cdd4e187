"""Ranking: objective order, the cost/time Pareto front, persona picks, and why the winner wins."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gpuplan.i18n import N_, _, format_number, format_percent, money
from gpuplan.i18n.phrases import item_list
from gpuplan.plan.constraints import Constraints, Objective, claimed_only
from gpuplan.plan.input_types import BoolArray, FloatArray, IntArray
from gpuplan.plan.region_countries import managed_kubernetes
from gpuplan.plan.result import Option, PersonaPick
from gpuplan.plan.unknowns import Fact
from gpuplan.units import format_hours

__all__ = [
    "FASTEST_TIME_SHARE",
    "OBJECTIVE_NAMES",
    "claim_words",
    "explain_winner",
    "objective_order",
    "pareto_mask",
    "persona_picks",
    "primary_key",
    "unknown_count",
]

#: What each objective means, in words (translated where shown).
OBJECTIVE_NAMES = {
    Objective.COST: N_("the lowest all-in cost"),
    Objective.TIME: N_("the shortest job time"),
    Objective.BALANCED: N_("the best cost × time balance"),
}


def claim_words(labels: Sequence[str]) -> str:
    """Compliance labels only a low-confidence source claims, each marked as such:
    ``MLPS 2.0 level 3 (claimed by a low-confidence source, not a certificate)``."""
    return item_list(
        _("{label} (claimed by a low-confidence source, not a certificate)").format(label=label)
        for label in labels
    )


def _compliance_pick(compliant: Option | None, constraints: Constraints, objective: str) -> tuple[str, str]:
    """The compliance persona's rule and, without a pick, its note. Asked for labels, it counts
    them as the filter does (a claim only with allow_low_confidence, and then says which label
    is only claimed); asked for none, only labels of a reliable source, and it says so."""
    wanted = sorted({x.lower() for x in constraints.compliance or ()})
    if not wanted:
        rule = _(
            "region holds a compliance label from a reliable source (e.g. MLPS level 3; labels only "
            "claimed by a low-confidence source are not counted); best by {objective}"
        ).format(objective=objective)
        note = _(
            "no compliance label from a reliable source is known in the catalog for the feasible regions"
        )
        return rule, "" if compliant else note
    claims = (
        claimed_only(constraints.compliance, compliant.compliance, compliant.compliance_claimed)
        if compliant
        else ()
    )
    if claims:
        rule = _(
            "region meets the compliance labels asked for ({labels}) by counting claims, as "
            "allow_low_confidence asks: {claims}; best by {objective}"
        ).format(labels=item_list(wanted), claims=claim_words(claims), objective=objective)
    else:
        rule = _("region carries a compliance label ({labels}); best by {objective}").format(
            labels=item_list(wanted), objective=objective
        )
    return rule, "" if compliant else _("no compliance labels known in the catalog for the feasible regions")


def primary_key(cost: FloatArray, time: FloatArray, objective: Objective) -> FloatArray:
    """The quantity an objective minimises first (cost, time, or log cost + log time)."""
    if objective is Objective.COST:
        return cost
    if objective is Objective.TIME:
        return time
    out: FloatArray = np.log(np.maximum(cost, 1e-12)) + np.log(np.maximum(time, 1e-12))
    return out


def objective_order(
    cost: FloatArray,
    time: FloatArray,
    objective: Objective,
    unknowns: IntArray | None = None,
    best_cost: FloatArray | None = None,
    near: FloatArray | None = None,
) -> IntArray:
    """Indices best first. Costs are compared to the cent (two options a rounding apart cost the
    same). Ties break on the other quantity, then on ``unknowns`` (the number of facts each option's
    figures rest on the conservative bound of: fewer first, so that an unknown never wins a tie),
    then on ``near`` (:func:`gpuplan.plan.nearness.near_key`: a service's round trip to its users, a
    job's distance from its data; nearer first, unknown last), then on ``best_cost`` (the cost with
    every unknown at its best case: of two options alike at the bound, the one that may cost less —
    the zone of an instance whose undated spot price is the lowest, where each is held to the
    region's dated one), then on position (stable)."""
    n = cost.shape[0]
    tie = np.zeros(n, dtype=np.int64) if unknowns is None else unknowns
    then = np.zeros(n) if best_cost is None else np.nan_to_num(best_cost, nan=np.inf)
    far = np.zeros(n) if near is None else np.nan_to_num(near, nan=np.inf)
    cents = np.round(cost, 2)
    if objective is Objective.COST:
        order = np.lexsort((then, far, tie, time, cents))
    elif objective is Objective.TIME:
        order = np.lexsort((then, far, tie, cents, time))
    else:
        # cost × time compared in log space: log c + log t (both positive for any real option).
        order = np.lexsort((then, far, tie, time, cents, primary_key(cost, time, objective)))
    out: IntArray = order.astype(np.int64)
    return out


def unknown_count(mask: IntArray) -> IntArray:
    """How many facts each bit mask holds (``plan.unknowns.Fact`` masks)."""
    out: IntArray = np.zeros(mask.shape[0], dtype=np.int64)
    for bit in range(max(Fact).bit_length()):  # every fact's bit (a region unknown, 256, was left out)
        out += (mask >> bit) & 1
    return out


def pareto_mask(cost: FloatArray, time: FloatArray) -> BoolArray:
    """True where no other candidate is at least as cheap and strictly faster, or strictly cheaper
    and at least as fast. Sort by cost (then time) and keep each that is faster than all before it."""
    order = np.lexsort((time, cost))
    t_sorted = time[order]
    best_before = np.concatenate(([np.inf], np.minimum.accumulate(t_sorted)[:-1]))
    keep_sorted = t_sorted < best_before
    mask = np.zeros(cost.shape[0], dtype=bool)
    mask[order[keep_sorted]] = True
    return mask


#: The performance persona takes the cheapest option whose expected job time is within this share of
#: the shortest: 2 %, far inside the estimator's own error (its held-out median error on measured
#: runs is several per cent, ``gpuplan estimate``'s accuracy line), so two options closer than it are
#: not told apart by speed, while their prices can differ several times over (8 on-demand instances
#: for a minute less than a cheaper option on the Pareto front).
FASTEST_TIME_SHARE = 0.02


def persona_picks(
    cheapest: Option,
    fastest: Option,
    kubernetes: Option | None,
    compliant: Option | None,
    constraints: Constraints,
    *,
    service: bool = False,
) -> tuple[PersonaPick, ...]:
    """The pick for each persona of the source articles (each the best over every feasible
    candidate of its kind, not only the top N shown). ``service``: the job is a service, whose
    time is its calendar period on every option, so "fastest" means the shortest set-up."""
    objective = _(OBJECTIVE_NAMES[constraints.objective])
    services = item_list(sorted(set(managed_kubernetes().values())))
    compliance_rule, compliance_note = _compliance_pick(compliant, constraints, objective)
    return (
        PersonaPick(
            persona="budget",
            # spot is one of the models weighed only where the constraints allow it
            rule=_("lowest expected all-in cost, spot included")
            if "spot" in constraints.allowed_pricing
            else _("lowest expected all-in cost"),
            option=cheapest,
        ),
        PersonaPick(
            persona="performance",
            rule=_(
                "a service runs the same hours on every option: the shortest set-up, "
                "then the lowest all-in cost"
            )
            if service
            else _("shortest expected job time: the cheapest option within {share} of the shortest").format(
                share=format_percent(FASTEST_TIME_SHARE)
            ),
            option=fastest,
        ),
        PersonaPick(
            persona="kubernetes",
            rule=_(
                "on-demand or spot nodes (autoscalable node pools) on a provider with managed "
                "Kubernetes GPU support ({services}); best by {objective}"
            ).format(services=services, objective=objective),
            option=kubernetes,
            note="" if kubernetes else _("no feasible on-demand or spot option"),
        ),
        PersonaPick(
            persona="compliance",
            rule=compliance_rule,
            option=compliant,
            note=compliance_note,
        ),
    )


def _main_driver(win: Option, other: Option) -> str:
    """The cost component that contributes most to ``other`` costing more than ``win``.

    Compute is split into a rate part (price per instance-hour × the winner's billed hours) and a
    time part (the other's price × the difference in billed hours), so "GPU speed" and "price"
    are told apart.
    """
    w, o = win.cost_breakdown, other.cost_breakdown
    rate_w = win.price_usd_per_hour * win.nodes
    rate_o = other.price_usd_per_hour * other.nodes
    parts = {
        "price": (rate_o - rate_w) * win.billed_hours,
        "time": rate_o * (other.billed_hours - win.billed_hours),
        "egress": o.egress_usd - w.egress_usd,
        "storage": o.storage_usd - w.storage_usd,
        "licences": o.licence_usd - w.licence_usd,
        "spot": o.spot_overhead_usd - w.spot_overhead_usd,
    }
    # Compute totals differ from rate × billed hours for monthly/reserved: put the rest on price.
    parts["price"] += (o.compute_usd - w.compute_usd) - (parts["price"] + parts["time"])
    name, value = max(parts.items(), key=lambda kv: kv[1])
    same_offer = (win.provider, win.region, win.instance_type) == (
        other.provider,
        other.region,
        other.instance_type,
    )
    if name == "price" and same_offer and win.pricing == other.pricing and win.nodes != other.nodes:
        text = _("fewer instances ({a} vs {b} × {instance})").format(
            a=win.nodes, b=other.nodes, instance=win.instance_type
        )
    elif name == "price" and win.pricing != other.pricing:
        text = _("pricing model ({a} vs {b})").format(a=_(win.pricing), b=_(other.pricing))
    elif name == "price" and win.gpu != other.gpu:
        text = _("price per hour ({a} vs {b})").format(a=_gpus(win, other), b=_gpus(other, win))
    elif name == "time" and win.gpu != other.gpu and win.gpu_count != other.gpu_count:
        # 8 A100s against 1 H100: the count moves the time as much as the GPU does
        text = _("job time ({a} vs {b})").format(a=_gpus(win, other), b=_gpus(other, win))
    elif name == "time" and win.gpu != other.gpu:
        text = _("GPU speed ({a} vs {b})").format(a=win.gpu, b=other.gpu)
    elif name == "spot" and other.spot is not None and other.spot.service is not None:
        # a service's spot overhead is the spare that keeps its load target, not interruptions
        text = _("the spare instances that keep the load target through spot reclaims")
    else:
        text = _(_DRIVER_NAMES[name])
    said = _("{driver} ({amount})").format(driver=text, amount=money(value))
    # a part far larger than the whole difference was mostly paid back by another: say which, where
    # "price per hour ($138.27)" had stood alone beside options $0.92 apart
    back_name, back = min(parts.items(), key=lambda kv: kv[1])
    difference = other.total_cost_usd - win.total_cost_usd
    if back < 0 and difference > 0 and value > 2 * difference:
        said = _("{driver}, mostly offset by {other} (−{back})").format(
            driver=said, other=_(_DRIVER_NAMES[back_name]), back=money(-back)
        )
    return said


def _gpus(o: Option, against: Option) -> str:
    """``o``'s GPU, with its count where the two options' counts differ (``8× A100-SXM4-40GB``)."""
    return f"{o.gpu_count}× {o.gpu}" if o.gpu_count != against.gpu_count else o.gpu


_DRIVER_NAMES = {
    "price": N_("price per hour"),
    "time": N_("job time (GPU speed and count)"),
    "egress": N_("egress"),
    "storage": N_("storage"),
    "licences": N_("licences"),
    "spot": N_("spot interruptions"),
}


def _time_driver(win: Option, other: Option) -> str:
    """Why ``win`` is faster than ``other``, in words."""
    if win.gpu != other.gpu:
        return _("GPU ({a} vs {b})").format(a=win.gpu, b=other.gpu)
    if win.gpu_count != other.gpu_count:
        return _("more GPUs ({a} vs {b})").format(a=win.gpu_count, b=other.gpu_count)
    if win.pricing != other.pricing:
        return _("pricing model ({a} vs {b}: spot interruptions)").format(
            a=_(win.pricing), b=_(other.pricing)
        )
    return _("interconnect and network")


#: Job times closer than this share are "the same time", not "0 s faster".
_SAME_TIME_SHARE = 0.005
#: All-in costs closer than this share are the same cost (float noise), not "$0.00 (0%) cheaper".
_SAME_COST_SHARE = 1e-9


def _time_gap_h(win: Option, other: Option, *, service: bool) -> float:
    """How much longer ``other`` takes, 0 when the two take about the same time (or are a service)."""
    dt = other.job_time_h - win.job_time_h
    if service or abs(dt) <= _SAME_TIME_SHARE * max(win.job_time_h, other.job_time_h):
        return 0.0
    return dt


def _time_words(win: Option, dt: float, *, service: bool) -> str:
    """How the winner's time compares: faster/slower, the same, or — for a service, whose options all
    run for the same stretch of calendar time — the period both carry the load for."""
    if service:
        return _("for the same {time} of service").format(time=format_hours(win.job_time_h))
    if dt == 0:
        return _("about the same time ({time})").format(time=format_hours(win.job_time_h))
    hours = format_hours(abs(dt))
    return (_("{time} faster") if dt > 0 else _("{time} slower")).format(time=hours)


def _near_words(win: Option, other: Option) -> str:
    """Why the nearer of two options alike in cost, time and unknown facts comes first: its round
    trip to the users (a service) or its distance from the data (a job), as
    :func:`gpuplan.plan.nearness.near_key` ranks them; "" where neither tells them apart."""
    a = win.service.users_rtt_s if win.service is not None else None
    b = other.service.users_rtt_s if other.service is not None else None
    if a is not None and (b is None or round(a * 1000.0) < round(b * 1000.0)):
        theirs = _("unknown") if b is None else _("{ms} ms").format(ms=format_number(round(b * 1000.0)))
        if a == 0.0:
            # placed in the users' city: said so, not "0 ms", which reads as a figure missing
            return _("ranked ahead: in the same city as your users (against {theirs} round trip)").format(
                theirs=theirs
            )
        return _("ranked ahead: nearer your users ({mine} ms round trip against {theirs})").format(
            mine=format_number(round(a * 1000.0)), theirs=theirs
        )
    far = other.data_km
    if a is None and win.data_km is not None and (far is None or round(win.data_km) < round(far)):
        return _("ranked ahead: nearer the data ({mine} km from data.location against {theirs})").format(
            mine=format_number(round(win.data_km)),
            theirs=_("unknown") if far is None else _("{km} km").format(km=format_number(round(far))),
        )
    return ""


def _tie_words(win: Option, other: Option) -> str:
    """Why the winner of a tie on cost and time comes first: fewer facts of its figures unknown
    (an unknown never wins a tie), nearer its users or its data, or nothing at all — the two are
    equals."""
    mine, theirs = len(win.unknown_facts), len(other.unknown_facts)
    if mine < theirs:
        return _("ranked ahead: fewer unknown facts ({mine} against {theirs})").format(
            mine=mine, theirs=theirs
        )
    if near := _near_words(win, other):
        return near
    return _("a tie on cost, time and unknown facts: either will do")


def explain_winner(
    ranked: Sequence[Option], objective: Objective, n: int = 2, *, service: bool = False
) -> tuple[str, ...]:
    """One line per runner-up: cost and time deltas against the winner and the main driver.

    ``service``: the options are capacity for a service over the same period (every one carries the
    load), so time is not a difference between them and the line says so instead of "0 s faster".
    """
    if not ranked:
        return ()
    win = ranked[0]
    lines = []
    for other in ranked[1 : 1 + n]:
        dc = other.total_cost_usd - win.total_cost_usd
        if abs(dc) <= _SAME_COST_SHARE * max(abs(win.total_cost_usd), abs(other.total_cost_usd)) or (
            round(win.total_cost_usd, 2) == round(other.total_cost_usd, 2)
        ):
            dc = 0.0  # the same to the cent, as the ranking compares them
        dt = _time_gap_h(win, other, service=service)
        share = abs(dc) / other.total_cost_usd if other.total_cost_usd else 0.0
        amount = {"amount": money(abs(dc)), "share": format_percent(share)}
        if dc == 0:
            cost_word = _("the same all-in cost ({amount})").format(amount=money(win.total_cost_usd))
        else:
            template = _("{amount} ({share}) cheaper") if dc > 0 else _("{amount} ({share}) dearer")
            cost_word = template.format(**amount)
        time_word = _time_words(win, dt, service=service)
        if dc > 0:
            driver = _("main cost driver: {driver}").format(driver=_main_driver(win, other))
        elif dt > 0:
            driver = _("faster through: {driver}").format(driver=_time_driver(win, other))
        elif dc == 0 and dt == 0:
            driver = _tie_words(win, other)
        else:
            driver = _("ranked ahead by {objective} (tie-break)").format(
                objective=_(OBJECTIVE_NAMES[objective])
            )
        lines.append(
            _("vs {option}: {cost}, {time}; {driver}").format(
                option=other.label, cost=cost_word, time=time_word, driver=driver
            )
        )
    return tuple(lines)
