"""Render a commitment schedule (``gpuplan tco``): the stable ``--json`` document and the terminal view.

JSON (``gpuplan.documents.TcoDocument``, ``docs/schemas/tco.schema.json``): amounts in USD with
``_usd`` in their names, rounded to the cent; ``display_currency`` and ``exchange_rate`` say how the
table shows them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpuplan.bounded import printable
from gpuplan.catalog.rates import read_as_yuan
from gpuplan.catalog.upfront import upfront_name
from gpuplan.commit.api import DATA_COVERS
from gpuplan.commit.crossings import places_abroad
from gpuplan.documents.tco import TCO_SCHEMA_VERSION
from gpuplan.i18n import N_, Money, _, format_age, format_hours, format_number, format_percent
from gpuplan.i18n.phrases import bracketed, item_list
from gpuplan.i18n.places import UNSPECIFIED_REGION, place
from gpuplan.i18n.sources import source_words
from gpuplan.report.catalog import rate_doc
from gpuplan.report.common import price_age_words
from gpuplan.report.tco_cash import cash_by_month, cash_lines
from gpuplan.vocab import PRICING_RULES

if TYPE_CHECKING:
    from collections.abc import Sequence

    from gpuplan.catalog.dates import PriceAge
    from gpuplan.commit import Commitment, MissingPrice, PricedOffer, TcoReport
    from gpuplan.commit.api import WithStalePrices
    from gpuplan.commit.model import BreakEvenBasis, Demand, HeldOut, Peak, Schedule, SpotFallback

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


def offer_age(report: TcoReport, offer: PricedOffer) -> PriceAge:
    """How old ``offer``'s price is on the report's day (past the limit or of unknown age: stale)."""
    from datetime import date

    from gpuplan.catalog.dates import price_age
    from gpuplan.hardware import launch_month

    return price_age(
        offer.as_of, report.today or date.today(), report.stale_after_days, launch_month(offer.gpu)
    )


def _price_fields(report: TcoReport, offer: PricedOffer) -> dict[str, Any]:
    """The date, age, confidence and source of the price ``offer`` is costed at."""
    age = offer_age(report, offer)
    return {
        "as_of": offer.as_of,
        "floor_as_of": offer.floor_as_of or None,
        "own_usd_per_gpu_hour": (
            None
            if offer.own_usd_per_unit_hour is None
            else round(offer.own_usd_per_unit_hour / offer.gpus_per_unit, 6)
        ),
        "age_days": age.age_days,
        "stale": age.stale,
        "staleness": age.staleness,
        "confidence": offer.confidence,
        "price_source": offer.source,
        **(
            {
                "interruptions_per_hour": offer.interruptions_per_hour,
                "interruption_rate_assumed": offer.spot_rate.assumed,
                "interruption_rate_source": offer.spot_rate.source,
            }
            if offer.spot_rate is not None
            else {}
        ),
    }


#: Why a pricing model with prices of the GPU is still missing for the demands: none holds their runs.
ELSEWHERE = N_(
    "{n} price(s) of it within the constraints, all on instances that do not hold a demand's runs (its "
    "demand line says which do: a run's GPUs in one node, or the instance a workload was sized on)"
)


def held_out_words(missing: MissingPrice) -> str:
    """Why priced offers of a missing pricing model do not serve a demand, and what would let them,
    in words, for each reason they are held out (:class:`HeldOutReason`); "" where none was held
    out."""
    from gpuplan.commit.model import HeldOutReason

    by_demand: dict[str, list[HeldOut]] = {}
    for h in missing.held_out_for(HeldOutReason.NOT_AS_ABLE):
        by_demand.setdefault(h.demand, []).append(h)
    parts = []
    for demand, held in by_demand.items():
        providers = list(dict.fromkeys(h.provider for h in held))
        parts.append(
            _(
                "a price exists ({offers}), but {demand}'s hours were sized on {sized} and hold only on an "
                "instance known to be as able: {why}; to price {demand} there, list only {providers} in "
                "constraints.providers (the planner then sizes it there) or give {demand} as GPU-hours "
                "(gpu:, gpus:, hours_per_month:)"
            ).format(
                offers=item_list(h.offer for h in held),
                demand=demand,
                sized=held[0].sized_on,
                why=_("; ").join(dict.fromkeys(h.why for h in held)),
                providers=item_list(providers),
            )
        )
    if missing.elsewhere:
        parts.append(_(ELSEWHERE).format(n=missing.elsewhere))
    return _("; ").join(parts)


def fill_words(missing: MissingPrice) -> str:
    """What would fill a missing price, in words."""
    if missing.held_out:
        return held_out_words(missing)
    if missing.low_confidence_rows:
        return _(
            "{n} low-confidence row(s) left out; set constraints.allow_low_confidence: true to use them"
        ).format(n=missing.low_confidence_rows)
    return _(
        "no usable price in the catalog; `gpuplan catalog refresh` fetches reserved and spot prices "
        "where a provider publishes them, `gpuplan catalog import FILE --format gpuplan` adds a price "
        "list of your own (a quoted monthly or reserved price)"
    )


def _tco_data(report: TcoReport) -> dict[str, Any]:
    s, u = report.schedule, report.usage
    cost = _cents
    cash = cash_by_month(report)
    hourly: list[dict[str, Any]] = []
    considered: list[dict[str, Any]] = []
    reasons = {key: why for key, _o, why in _considered(report)}
    for key, o in s.hourly_used.items():
        demand = key.split("/spot/", 1)[1] if "/spot/" in key else None
        packing = s.hourly_packing.get(key, 1.0)
        (hourly if _listed(report, key) else considered).append(
            {
                "use": key,
                "provider": o.provider,
                "region": o.region,
                "instance_type": o.instance_type,
                "pricing": o.pricing,
                "price_usd_per_gpu_hour": round(o.usd_per_gpu_hour, 6),
                "spot_overhead_ratio": s.spot_overhead.get(demand) if demand else None,
                "gpu_hours_paid_per_used": round(packing, 6),
                **({"bought": key in s.hourly_bought} if _listed(report, key) else {"why": reasons[key]}),
                **_price_fields(report, o),
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
        "hosts": u.constraints.hosts if u.constraints.provider_hosts_only else None,
        "total_cost_usd": cost(s.total_usd),
        "stale_prices_in_total": len(total_stale_prices(report)),
        "gpus_without_current_price": list(report.without_current_price),
        "data_cost_usd": cost(s.data_usd),
        "data_cost_covers": _(DATA_COVERS),
        "data_costs_counted_for": [d.name for d in report.problem.demands if d.run_data],
        "data_copies": [
            {
                "demand": c.demand,
                "provider": c.provider,
                "region": c.region,
                "choice": "kept_copy" if c.kept else "per_run",
                "runs": round(c.runs, 4),
                "first_month": u.month_label(c.first_month),
                "per_run_transfer_usd": cost(c.per_run_usd),
                "kept_copy_usd": cost(c.kept_usd),
                "copy_transfer_usd": cost(c.copy_in_usd),
                "copy_storage_usd_per_month": cost(c.copy_storage_usd_per_month),
            }
            for c in s.data_copies
        ],
        "all_on_demand_cost_usd": cost(s.all_on_demand_usd),
        "on_demand_known_total_usd": cost(s.on_demand_priced_usd),
        "on_demand_unpriced": list(s.on_demand_unpriced),
        "spot_fallbacks": [
            {"demand": f.demand, "gpu": f.gpu, "same_gpu": f.same_gpu, "cost_usd": cost(f.usd)}
            for f in s.spot_fallbacks
        ],
        "total_without_spot_usd": cost(s.total_without_spot_usd),
        "without_spot_at_least_usd": cost(s.without_spot_at_least_usd),
        "autoscaled_baseline": any(d.tiers for d in report.demands),
        "savings_pct": None if s.savings_pct is None else round(s.savings_pct, 2) + 0.0,  # never -0.0
        "past_horizon_cost_usd": cost(s.past_horizon_usd),
        "past_horizon_credited_usd": cost(credited_usd(s)),
        "monthly": [
            {
                "month": u.month_label(m.month),
                "cost_usd": cost(m.cost_usd),
                "cost_usd_by_pricing": {p: cost(v) for p, v in m.by_pricing_usd.items()},
                "data_cost_usd": cost(m.data_usd),
                "cash_usd": None if cash is None else cost(cash.months[i]),
            }
            for i, m in enumerate(s.monthly)
        ],
        "commitments": [_commitment_doc(report, c) for c in s.commitments],
        "break_even_utilisation": {p: round(v, 4) for p, v in s.break_even_utilisation.items()},
        "break_even_by_gpu": {
            g: {p: round(v, 4) for p, v in per.items()} for g, per in s.break_even_by_gpu.items()
        },
        "break_even_prices": [
            {
                "gpu": g,
                "pricing": p,
                "provider": o.provider,
                "region": o.region,
                "instance_type": o.instance_type,
                "gpus_per_unit": o.gpus_per_unit,
                "term_months": o.term_months,
                "price_usd_per_gpu_hour": round(o.usd_per_gpu_hour, 6),
                "break_even": round(s.break_even_by_gpu[g][p], 4),
                "on_demand": _basis_doc(s.break_even_on_demand.get(g, {}).get(p)),
                "bought": _break_even_only(report, o) is None,
                **_price_fields(report, o),
            }
            for g, per in s.break_even_offers.items()
            for p, o in per.items()
        ],
        "sensitivity": [{"demand_change_pct": pct, "total_cost_usd": cost(t)} for pct, t in s.sensitivity],
        "peaks": [
            {
                "gpu": p.gpu,
                "month": u.month_label(p.month),
                "gpus_at_once": round(p.gpus_at_once, 4),
                "committed_gpus": round(p.committed_gpus, 4),
                "hours_above_committed": round(p.hours_above, 2),
            }
            for p in s.peaks
        ],
        "with_stale_prices": None
        if (w := report.with_stale_prices) is None
        else {
            "prices_used": w.used,
            "prices_left_out": w.left_out,
            "total_cost_usd": cost(w.total_usd),
            "savings_pct": None if w.savings_pct is None else round(w.savings_pct, 2) + 0.0,
            "needed": w.needed,
            "stale_prices": [_price_doc(report, o) for o in w.stale],
            "prices": [_price_doc(report, o) for o in w.offers],
            "commitments": [_commitment_doc(report, c) for c in w.commitments],
        },
        "demands": [
            {
                "name": d.name,
                "gpu": d.gpu,
                "gpu_hours_total": round(d.gpu_hours_total, 2),
                "how": d.how,
                "tiers": [
                    {"gpus": g, "hours_per_month": round(h, 2), "start_up_hours_per_month": round(u, 2)}
                    for (g, h), u in zip(d.tiers, d.start_up_hours or (0.0,) * len(d.tiers), strict=True)
                ],
                "day_assumed": d.day,
                "cheapest_not_current": d.held_out,
                "data_leaves_country": _crossings_doc(report, d.name),
            }
            for d in report.demands
        ],
        "hourly_prices": hourly,
        "considered_prices": considered,
        "unknown_prices": [
            {"pricing": m.pricing, "gpu": m.gpu, "fill": fill_words(m)} for m in report.missing
        ],
        "stale_after_days": report.stale_after_days,
        "against_budget_usd": _budget_doc(report),
        # the prices' age and confidence first, as the text's headline says them: a page that shows a
        # year's total from this document had shown it with no word of a stale price under it
        "notes": [*_age_lines(report), *_with_stale_lines(report), *report.notes],
    }


def _crossings_doc(report: TcoReport, name: str) -> list[dict[str, Any]]:
    """The places the schedule buys demand ``name``'s hours in another country than its data's or
    its users' (:func:`gpuplan.commit.crossings.places_abroad`)."""
    return [
        {
            "provider": provider,
            "region": region,
            "from_countries": list(c.from_countries),
            "to_country": c.to_country,
        }
        for d in report.problem.demands
        if d.name == name
        for provider, region, c in places_abroad(report.schedule, d)
    ]


def _budget_doc(report: TcoReport) -> dict[str, Any] | None:
    """The total against ``--budget``; None where none was given."""
    budget, total = report.budget_usd, report.schedule.total_usd
    if budget is None:
        return None
    return {
        "budget_usd": _cents(budget),
        "budget_cny": None if report.budget_cny is None else _cents(report.budget_cny),
        "within": total <= budget,
        "over_usd": _cents(max(0.0, total - budget)),
        "left_usd": _cents(max(0.0, budget - total)),
        "total_to_budget": round(total / budget, 4),
        "within_without_spot": _within_without_spot(report, budget),
    }


def _within_without_spot(report: TcoReport, budget: float) -> bool | None:
    """Whether the total is within the budget if spot capacity cannot be had; None where no spot is
    bought, or a spot demand's fallback is unknown and the known part is within it."""
    s = report.schedule
    if s.total_without_spot_usd is not None:
        return s.total_without_spot_usd <= budget
    if s.without_spot_at_least_usd is not None and s.without_spot_at_least_usd > budget:
        return False
    return None


def budget_line(report: TcoReport) -> str | None:
    """The total against what the user has for the horizon (``--budget``), in words; None without
    a budget. Said of the headline total, the one the schedule and its month table add up to."""
    budget, total, money = report.budget_usd, report.schedule.total_usd, report.money
    if budget is None:
        return None
    if total > budget:
        line = _(
            "Budget {budget}: the total is over it by {over} ({pct} over; {times:.1f}× the budget)"
        ).format(
            budget=_budget_said(report, budget),
            over=money.format(total - budget),
            pct=format_percent((total - budget) / budget),
            times=total / budget,
        )
    else:
        line = _("Budget {budget}: the total is within it, leaving {left} ({pct} of the budget)").format(
            budget=_budget_said(report, budget),
            left=money.format(budget - total),
            pct=format_percent((budget - total) / budget),
        )
    if (spot := _budget_without_spot(report, budget)) is None:
        return line
    return _("{verdict}; {without_spot}").format(verdict=line, without_spot=spot)


def _budget_said(report: TcoReport, budget: float) -> str:
    """The budget as the budget line names it: in the report's money, and where it was given in
    yuan, how it was read (as yuan, at the catalog's rate, of its date and age): a bare ¥ is the
    yen's sign too, and a yen budget had been taken for yuan without a word."""
    shown = report.money.format(budget)
    if report.budget_cny is None or report.cny_rate is None:
        return shown
    given = f"¥{report.budget_cny:,.2f}".removesuffix(".00")
    # in dollars where the line's figure is not; the yuan figure not said twice where it is the line's
    usd = None if report.currency == "USD" else Money.usd().format(budget)
    read = read_as_yuan("" if report.currency == "CNY" else given, report.cny_rate, usd).strip()
    return _("{budget} ({how_read})").format(budget=shown, how_read=read)


def _budget_without_spot(report: TcoReport, budget: float) -> str | None:
    """The budget's verdict if spot capacity cannot be had, in words; None where no spot is bought."""
    s, money = report.schedule, report.money
    if not s.spot_fallbacks:
        return None
    if (without := s.total_without_spot_usd) is not None:
        if without > budget:
            return _("over it by {over} if spot cannot be had").format(over=money.format(without - budget))
        return _("within it if spot cannot be had, leaving {left}").format(
            left=money.format(budget - without)
        )
    if (least := s.without_spot_at_least_usd) is not None and least > budget:
        return _("over it by at least {over} if spot cannot be had").format(over=money.format(least - budget))
    return _("unknown whether within it if spot cannot be had (a spot demand has no on-demand option)")


def _where_words(report: TcoReport) -> str:
    """Where a demand may run, as the reasons below say it: the usage's countries, else its
    constraints."""
    countries = report.usage.constraints.countries
    if countries:
        return _("in {countries}").format(countries=item_list(list(countries)))
    return _("within the constraints")


def _partial_baseline_line(report: TcoReport) -> str:
    """The all-on-demand line where some demand has no on-demand price where it may run: the
    demands that have one priced, at least that much in all, and each of the others with why;
    never the unknown counted as 0."""
    s, money = report.schedule, report.money
    gpu_of = {d.name: d.gpu for d in report.problem.demands}
    unpriced = _("; ").join(
        _("{demand}: no on-demand price for {gpu} {where}").format(
            demand=name, gpu=gpu_of[name], where=_where_words(report)
        )
        for name in s.on_demand_unpriced
    )
    if s.on_demand_priced_usd is None:
        return _("All on demand: not priced ({unpriced})").format(unpriced=unpriced)
    # the priced demands' sum: below the total where the others cost something, so said as no baseline
    return _(
        "All on demand: at least {amount}, the demands that have an on-demand price only (the others are "
        "not counted in it, so it is no baseline for the total); not priced: {unpriced}"
    ).format(amount=money.format(s.on_demand_priced_usd), unpriced=unpriced)


def _fallback_words(report: TcoReport, f: SpotFallback) -> str:
    """One spot demand on demand instead, in words."""
    money = report.money
    own = next(d for d in report.problem.demands if d.name == f.demand)
    if (f.usd is None or f.gpu is None) and not own.run_data:
        # a direct demand names its GPU: no workload for the planner to size another on
        return _(
            "{demand}: unknown, no on-demand price for {gpu} {where} (a demand given in GPU-hours is not "
            "sized on another GPU: give its workload file)"
        ).format(demand=f.demand, gpu=own.gpu, where=_where_words(report))
    if f.usd is None or f.gpu is None:
        return _("{demand}: unknown, no on-demand option meets it {where}").format(
            demand=f.demand, where=_where_words(report)
        )
    if f.same_gpu:
        return _("{demand} on {gpu} on demand, {amount}").format(
            demand=f.demand, gpu=f.gpu, amount=money.format(f.usd)
        )
    return _(
        "{demand} on {gpu} on demand, {amount} (the plan's cheapest on-demand option meeting its "
        "deadline; {own} has no on-demand price {where})"
    ).format(demand=f.demand, gpu=f.gpu, amount=money.format(f.usd), own=own.gpu, where=_where_words(report))


def without_spot_line(report: TcoReport) -> str | None:
    """What the schedule costs if spot capacity cannot be had (each spot demand on its fallback,
    commitments kept), in words; None where it buys no spot."""
    s, money = report.schedule, report.money
    if not s.spot_fallbacks:
        return None
    each = _("; ").join(_fallback_words(report, f) for f in s.spot_fallbacks)
    if s.total_without_spot_usd is not None:
        total = money.format(s.total_without_spot_usd)
    elif s.without_spot_at_least_usd is not None:
        total = _("at least {amount}").format(amount=money.format(s.without_spot_at_least_usd))
    else:
        total = _("unknown")
    return _("If spot capacity cannot be had: total {total} ({each})").format(total=total, each=each)


def _commitment_doc(report: TcoReport, c: Commitment) -> dict[str, Any]:
    """One commitment as the document states it, with its price's date, age and source."""
    cost = _cents
    return {
        "provider": c.offer.provider,
        "region": c.offer.region,
        "instance_type": c.offer.instance_type,
        "gpu": c.offer.gpu,
        "gpus_per_unit": c.offer.gpus_per_unit,
        "pricing": c.offer.pricing,
        "units": c.units,
        "start_month": report.usage.month_label(c.start_month),
        "term_months": c.term_months,
        "cost_usd": cost(c.cost_usd),
        "contract_cost_usd": cost(c.contract_usd),
        "upfront": c.offer.upfront or None,
        "upfront_usd": None if c.upfront_usd is None else cost(c.upfront_usd),
        **_price_fields(report, c.offer),
    }


def _price_doc(report: TcoReport, o: PricedOffer) -> dict[str, Any]:
    """A price a figure rests on, as the document states it, with its date, age and source."""
    return {
        "provider": o.provider,
        "region": o.region,
        "instance_type": o.instance_type,
        "gpu": o.gpu,
        "pricing": o.pricing,
        "price_usd_per_gpu_hour": round(o.usd_per_gpu_hour, 6),
        **_price_fields(report, o),
    }


def credited_usd(s: Schedule) -> float:
    """What ``past_horizon: remaining_value`` leaves out of the total: the contracts' term months
    after the horizon (0 under ``full``, which bills them)."""
    return max(0.0, sum(c.contract_usd - c.cost_usd for c in s.commitments))


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


def _copy_lines(report: TcoReport) -> list[str]:
    """Per workload demand and region its runs are placed in away from its data: how its dataset
    gets there, with both figures."""
    money, out = report.money, []
    for c in report.schedule.data_copies:
        where = f"{c.provider}/{c.region}"
        if c.kept:
            text = _(
                "{name} in {where}: its dataset is kept in the region's object storage, {kept} (moved in "
                "once in {month}, then {storage}/month), rather than moved in for each of its {runs} runs "
                "there, {per_run}"
            )
        else:
            text = _(
                "{name} in {where}: its dataset is moved in for each of its {runs} runs there, {per_run}, "
                "rather than kept in the region's object storage, {kept} (moved in once in {month}, then "
                "{storage}/month)"
            )
        line = text.format(
            name=c.demand,
            where=where,
            kept=money.format(c.kept_usd),
            month=report.usage.month_label(c.first_month),
            storage=money.format(c.copy_storage_usd_per_month),
            runs=format_number(round(c.runs, 1)),  # 72; 7.2 where growth adds part of a run
            per_run=money.format(c.per_run_usd),
        )
        if c.recopies > 0:
            line = _(
                "{line}; moved in for every run, it is moved in again by each of their {restarts} expected "
                "spot restarts (a reclaim is taken to lose the disks that hold it), counted in {per_run}"
            ).format(
                line=line, restarts=format_number(round(c.recopies, 1)), per_run=money.format(c.per_run_usd)
            )
        out.append(line)
    return out


def summary_lines(report: TcoReport) -> list[str]:
    """The headline figures, one sentence each (also the HTML report's summary)."""
    s, money = report.schedule, report.money
    lines = [_total_line(report)]
    if (budget := budget_line(report)) is not None:
        lines.append(budget)
    baseline = money.format(s.all_on_demand_usd) if s.all_on_demand_usd is not None else ""
    if baseline and any(d.tiers for d in report.demands):
        # the services priced by their tiers are their autoscaled fleets in the baseline too
        baseline = _("{amount} (services autoscaled: the fleet their day needs, hour by hour)").format(
            amount=baseline
        )
    if s.all_on_demand_usd is not None and not s.savings_pct:
        lines.append(_("All on demand: {baseline}; no saving").format(baseline=baseline))
    elif s.all_on_demand_usd is not None:
        lines.append(
            _("All on demand: {baseline}; saving {pct}").format(
                baseline=baseline,
                pct=format_percent((s.savings_pct or 0.0) / 100.0),
            )
        )
    else:
        lines.append(_partial_baseline_line(report))
    if (spot := without_spot_line(report)) is not None:
        lines.append(spot)
    if any(d.run_data for d in report.problem.demands):
        lines.append(
            _(
                "Of the total, {amount} is not GPU time: the workload demands' data transfer, storage and "
                "licence fees where their runs are placed (the notes say what)"
            ).format(amount=money.format(s.data_usd))
        )
    lines += _copy_lines(report)
    if s.past_horizon_usd > 0:
        lines.append(
            _("Of the total, {amount} pays for term months after the horizon").format(
                amount=money.format(s.past_horizon_usd)
            )
        )
    if (credited := credited_usd(s)) > 0:
        lines.append(
            _(
                "Past the horizon, {amount} of term months are credited as worth their price "
                "(past_horizon: remaining_value) and left out of the total; the contracts cost {contract} "
                "in all"
            ).format(
                amount=money.format(credited),
                contract=money.format(sum(c.contract_usd for c in s.commitments)),
            )
        )
    stale = _stale_break_evens(report)
    several = len({*s.break_even_by_gpu, *stale}) > 1
    for gpu, per in s.break_even_by_gpu.items():
        for p, be in per.items():
            verdict = _("never pays off") if be >= 1 else _("pays off above this")
            term = PRICING_RULES[p].term_months
            if be >= 1 and report.problem.past_horizon == "full" and term > report.problem.horizon_months:
                # the reason, and the setting that changes it: a term longer than the horizon is
                # paid whole inside it, so a reader comparing 3-year prices must know that
                verdict = _(
                    "never pays off: its {term}-month term is paid whole within the {horizon}-month "
                    "horizon; past_horizon: remaining_value counts the months after it as worth their price"
                ).format(term=term, horizon=report.problem.horizon_months)
            pricing = f"{gpu} {_pricing(p)}" if several else _pricing(p)
            line = _("Break-even utilisation, {pricing}: {share} of its hours ({verdict})").format(
                pricing=pricing, share=format_percent(be), verdict=verdict
            )
            lines.append(line + _basis_of(report, s, gpu, p))
    for gpu, per in stale.items():
        for p, be in per.items():
            line = _(
                "Break-even utilisation, {pricing}: none at prices known to be current (no current "
                "price of it); at its stale price, the one the total with stale prices is figured at, "
                "{share} of its hours ({verdict})"
            ).format(
                pricing=f"{gpu} {_pricing(p)}" if several else _pricing(p),
                share=format_percent(be),
                verdict=_("never pays off") if be >= 1 else _("pays off above this"),
            )
            # the prices it is the quotient of, as the line at current prices gives them
            lines.append(line + _basis_of(report, report.with_stale_prices, gpu, p))
    lines += unknown_lines(report)
    lines += _age_lines(report)
    lines += _with_stale_lines(report)
    for peak in s.peaks:
        lines.append(peak_line(report, peak))
    lines += _sensitivity_lines(report)
    return lines


def _basis_doc(basis: BreakEvenBasis | None) -> dict[str, Any] | None:
    """The document's ``break_even_prices[].on_demand``: what the break-even is figured against."""
    if basis is None:
        return None
    o = basis.offer
    return {
        "demand": basis.demand,
        "provider": o.provider,
        "region": o.region,
        "instance_type": o.instance_type,
        "price_usd_per_gpu_hour": round(o.usd_per_gpu_hour, 6),
        "packing": round(basis.packing, 6),
        "billing": round(basis.billing, 6),
        "run_hours": None if basis.run_hours is None else round(basis.run_hours, 4),
        "usd_per_gpu_hour_used": round(basis.usd_per_gpu_hour_used, 6),
        "term_factor": round(basis.term_factor, 6),
    }


def _basis_of(report: TcoReport, schedule: Schedule | WithStalePrices | None, gpu: str, pricing: str) -> str:
    """:func:`_break_even_basis_words` of ``schedule``'s break-even of ``gpu`` on ``pricing`` (the
    report's, or the one with stale prices beside it); "" where it records none."""
    basis = schedule.break_even_on_demand.get(gpu, {}).get(pricing) if schedule is not None else None
    offer = schedule.break_even_offers.get(gpu, {}).get(pricing) if schedule is not None else None
    return "" if basis is None or offer is None else _break_even_basis_words(report, offer, basis)


def _break_even_basis_words(report: TcoReport, offer: PricedOffer, basis: BreakEvenBasis) -> str:
    """``: ¥22.84 a GPU-hour ÷ ¥38.04 a GPU-hour used on demand (cv-vitb-finetunes on
    alibaba/cn-shenzhen ecs.gn7e-c16g1.4xlarge: ¥34.83 × 1.092, each run's 10.1 h billed as 11.0 h)``:
    the prices a break-even is the quotient of, each as the prices used show it, and what makes the
    on-demand one a GPU-hour of work (whole instances, runs billed in whole steps), so that the
    figure can be reproduced."""
    money = report.money
    committed = _("{price} a GPU-hour").format(price=money.format(offer.usd_per_gpu_hour))
    if abs(basis.term_factor - 1.0) > 1e-9:
        committed = _("{price} × {factor} (the months billed over those of the horizon it serves)").format(
            price=committed, factor=format_number(basis.term_factor, 3)
        )
    price = money.format(basis.offer.usd_per_gpu_hour)
    factors = []
    if basis.packing > 1.0 + 1e-9:
        factors.append(_("× {factor}, whole instances").format(factor=format_number(basis.packing, 4)))
    if basis.billing > 1.0 + 1e-9:
        words = _("× {factor}, its runs' hours rounded up as billed").format(
            factor=format_number(basis.billing, 4)
        )
        if basis.run_hours is not None:
            words = _("× {factor}, each run's {hours} billed as {billed}").format(
                factor=format_number(basis.billing, 4),
                hours=format_hours(basis.run_hours),
                billed=format_hours(basis.run_hours * basis.billing),
            )
        factors.append(words)
    where = f"{place(basis.offer.provider, basis.offer.region)} {basis.offer.instance_type}"
    if not factors:
        return _(": {committed} ÷ {price} a GPU-hour on demand ({demand} on {offer})").format(
            committed=committed, price=price, demand=basis.demand, offer=where
        )
    return _(": {committed} ÷ {used} a GPU-hour used on demand ({demand} on {offer}: {price})").format(
        committed=committed,
        used=money.format(basis.usd_per_gpu_hour_used),
        demand=basis.demand,
        offer=where,
        price=" ".join([price, *factors]),
    )


def _stale_break_evens(report: TcoReport) -> dict[str, dict[str, float]]:
    """The break-evens the total with stale prices has and the report's schedule has not (per GPU,
    per commitment pricing model): a commitment whose only prices are stale, left out of the
    schedule, whose line had gone without a word."""
    w = report.with_stale_prices
    if w is None:
        return {}
    have = report.schedule.break_even_by_gpu
    out = {
        gpu: {p: be for p, be in per.items() if p not in have.get(gpu, {})}
        for gpu, per in w.break_even_by_gpu.items()
    }
    return {gpu: per for gpu, per in out.items() if per}


def total_stale_prices(report: TcoReport) -> list[PricedOffer]:
    """The prices the total buys at (hourly offers bought, commitments) that are stale or of
    unknown age, each once."""
    s = report.schedule
    bought = [s.hourly_used[k] for k in s.hourly_bought] + [c.offer for c in s.commitments]
    return [o for o in dict.fromkeys(bought) if offer_age(report, o).stale]


def _stale_kind(offers: Sequence[PricedOffer]) -> str:
    """What the stale prices left out of the schedule are, in words: spot, commitment, or both;
    price(s) where an on-demand one is among them."""
    if any(o.pricing == "on_demand" for o in offers):
        return _("price(s)")
    spot = any(o.pricing == "spot" for o in offers)
    if any(o.is_commitment for o in offers):
        return _("spot and commitment price(s)") if spot else _("commitment price(s)")
    return _("spot price(s)")


def _total_line(report: TcoReport) -> str:
    """The headline total (:func:`_total_words`), and where a GPU demanded has no price known to be
    current, that the total on such prices is unknown: the total rests on its stale prices, as the
    plan's recommendation does, and unknown is never the best case."""
    line = _total_words(report)
    if not report.without_current_price:
        return line
    return _("{line}; on prices known to be current: unknown (none for {gpus})").format(
        line=line, gpus=item_list(report.without_current_price)
    )


def _total_words(report: TcoReport) -> str:
    """The headline total, on prices known to be current first, the cheaper one beside it.

    The schedule's own total leads: the month table, the commitments and the sensitivity below are
    that schedule's, and a headline they did not add up to would contradict them. Its schedule was
    solved without spot and commitment prices not known to be current (spot prices move, and a
    commitment locks its price in: unknown is never the best case), so where those would make it
    cheaper, the same line gives that total, said as such; where the demand cannot be met without
    them, the total rests on them and says so; where it rests on another stale price (an on-demand
    price, which has no fresher fallback), it says so too."""
    s, money = report.schedule, report.money
    total = money.format(s.total_usd)
    months = report.usage.horizon_months
    stale = total_stale_prices(report)
    w = report.with_stale_prices
    if w is not None and w.needed:
        return _(
            "Total over {months} months: {total}, at {n} {kind} stale or of unknown age; without them "
            "the demand cannot be met"
        ).format(months=months, total=total, n=w.used, kind=_stale_kind(w.stale))
    if w is not None and stale:
        return _(
            "Total over {months} months: {total}, at {stale} price(s) stale or of unknown age (named "
            "below); {cheaper} with {n} {kind} stale or of unknown age, left out of it as they may have "
            "changed"
        ).format(
            months=months,
            total=total,
            stale=len(stale),
            cheaper=money.format(w.total_usd),
            n=w.used,
            kind=_stale_kind(w.stale),
        )
    if w is not None:
        return _(
            "Total over {months} months: {total}; {cheaper} with {n} {kind} stale or of unknown age, left "
            "out of it as they may have changed"
        ).format(
            months=months, total=total, cheaper=money.format(w.total_usd), n=w.used, kind=_stale_kind(w.stale)
        )
    if stale:
        return _(
            "Total over {months} months: {total}, at {n} price(s) stale or of unknown age (named below)"
        ).format(months=months, total=total, n=len(stale))
    return _("Total over {months} months: {total}").format(months=months, total=total)


def _with_stale_lines(report: TcoReport) -> list[str]:
    """The total and saving that the stale spot and commitment prices left out of the schedule would
    give, and each commitment it would buy, with its price's date, age and source: a commitment is
    signed on its price, so the price is the one to check first."""
    if (w := report.with_stale_prices) is None:
        return []
    kind = _stale_kind(w.stale)
    why = []
    if any(o.pricing == "spot" for o in w.stale):
        why.append(_("spot prices move"))
    if any(o.is_commitment for o in w.stale):
        why.append(_("a commitment locks its price in for its term"))
    if any(o.pricing == "on_demand" for o in w.stale):
        why.append(_("its GPU has a price known to be current"))
    if w.needed:
        return [
            _(
                "Without stale prices ({why}; the schedule uses {n} {kind}, {left_out} left out in all): "
                "{outcome}"
            ).format(
                why=_("; ").join(why),
                n=w.used,
                kind=kind,
                left_out=w.left_out,
                outcome=_("the demand cannot be met"),
            )
        ]
    money = report.money
    if w.savings_pct:
        outcome = _("total {total}; saving {pct}").format(
            total=money.format(w.total_usd), pct=format_percent(w.savings_pct / 100.0)
        )
    else:
        outcome = _("total {total}; no saving").format(total=money.format(w.total_usd))
    lines = [
        _(
            "With stale prices (not known to be current, so left out of the schedule above: {why}; it "
            "would use {n} {kind}, {left_out} left out in all): {outcome}"
        ).format(why=_("; ").join(why), n=w.used, kind=kind, left_out=w.left_out, outcome=outcome)
    ]
    # a commitment the schedule above buys too, at a price known to be current, is that schedule's,
    # not one that rests on a stale price: said once, not listed as "check it before signing"
    ours = {(c.offer, c.start_month, c.units) for c in report.schedule.commitments}
    shared = [c for c in w.commitments if (c.offer, c.start_month, c.units) in ours]
    if shared:
        lines.append(
            _(
                "With stale prices it would buy the schedule's own commitments above as well ({n} of them, "
                "at prices known to be current)"
            ).format(n=len(commitment_runs(tuple(shared))))
        )
    for first, months, cost_usd in commitment_runs(tuple(c for c in w.commitments if c not in shared)):
        o = first.offer
        age = offer_age(report, o)
        lines.append(
            _(
                "With stale prices it would buy: from {start}, {units} × {offer} ({gpus}× {gpu}), {span}, "
                "{cost}, at a price of {as_of} ({age}; source: {source}): check it before signing"
            ).format(
                start=report.usage.month_label(first.start_month),
                units=first.units,
                offer=_offer_words(o),
                gpus=format_number(o.gpus_per_unit),
                gpu=o.gpu,
                span=_span_words(first, months),
                cost=money.format(cost_usd),
                as_of=o.as_of.replace("/", "–") or _("date unknown"),
                age=price_age_words(age.age_days, age.staleness, o.gpu, age.launched),
                source=source_words(printable(o.source)) if o.source else _("not stated"),
            )
        )
    return lines


def _sensitivity_lines(report: TcoReport) -> list[str]:
    """The total with demand ±N %, saying what changes: a job's runs at once (each of the same size
    and hours: its GPU-hours scale with the change), a service's load, its fleet resized in whole
    replicas in each part of its day as the plan sizes it (:attr:`Demand.at_load`), with the most
    GPUs each service then runs at once beside those at its own load."""
    money, demands = report.money, report.problem.demands
    services = [d for d in demands if d.at_load]
    runs = _("more or fewer runs at once, of the same size and hours (their GPU-hours scale with it)")
    fleets = _(
        "its fleet resized in whole replicas in each part of its day, as the plan sizes it (the load "
        "over the load a replica is held at, rounded up, at least serving.min_replicas or 1)"
    )
    if not services:
        what = _("the change is more or fewer runs at once, of the same size and hours")
    elif len(services) == len(demands):
        what = _("the change is each service's load: {fleets}").format(fleets=fleets)
    else:
        what = _(
            "for the service(s) {services} the change is the load: {fleets}; for the rest, {runs}"
        ).format(services=_(", ").join(d.name for d in services), fleets=fleets, runs=runs)
    out = []
    for pct, total in report.schedule.sensitivity:
        if pct == 0:
            continue
        scale = 1.0 + pct / 100.0
        peaks = item_list(
            _("{name} up to {gpus:,.4g} × {gpu} at once ({planned:,.4g} at its own load)").format(
                name=d.name, gpus=_most_at_once(d, scale), gpu=d.gpu, planned=_most_at_once(d, 1.0)
            )
            for d in services
        )
        out.append(
            _(
                "Demand {change}: total {total} (commitments fixed; {what}; the rest bought by the hour)"
            ).format(
                change=f"{pct:+g}%",
                total=money.format(total) if total is not None else _("cannot be met"),
                what=what if not services else _("{what}: {peaks}").format(what=what, peaks=peaks),
            )
        )
    return out


def _most_at_once(demand: Demand, scale: float) -> float:
    """The most GPUs ``demand`` runs at once in any month at ``scale`` × its demand."""
    return max((demand.gpus_at_once(m, scale) for m in range(len(demand.gpu_hours))), default=0.0)


def peak_line(report: TcoReport, peak: Peak) -> str:
    """The most GPUs needed at once, and how the schedule meets them."""
    head = _("Peak {gpus:,.4g} × {gpu} at once in {month}").format(
        gpus=peak.gpus_at_once, gpu=peak.gpu, month=report.usage.month_label(peak.month)
    )
    if peak.hours_above <= 0:
        tail = _("all on committed GPUs ({committed:,.4g})").format(committed=peak.committed_gpus)
    else:
        tail = _(
            "{committed:,.4g} committed; more bought by the hour in {hours:,.0f} h of the month, up to "
            "{extra:,.4g} at once"
        ).format(
            committed=peak.committed_gpus,
            extra=peak.gpus_at_once - peak.committed_gpus,
            hours=peak.hours_above,
        )
    return _("{head}: {tail} (demands of a month taken to run together unless their shifts differ)").format(
        head=head, tail=tail
    )


def _listed(report: TcoReport, key: str) -> bool:
    """Whether a figure rests on the hourly price of ``key``: one the schedule buys, or an on-demand
    one (the all-on-demand total and the break-even are figured at it, bought or not)."""
    return key in report.schedule.hourly_bought or key.split("/", 2)[1:2] == ["on_demand"]


def used_offers(report: TcoReport) -> list[tuple[str, PricedOffer]]:
    """Every price a figure rests on, by use: the hourly offers the schedule buys (one offer can
    serve several demands, each with its own whole-instance factor), the on-demand ones the
    baseline is priced at, the commitments, the commitment offer each break-even is figured at
    (a "pays off above 72 %" or "never pays off" rests on its price, bought or not), and those the
    total with stale prices buys. A spot price weighed and not bought is not one
    (:func:`considered_lines`)."""
    s = report.schedule
    out: list[tuple[str, PricedOffer]] = [(k, o) for k, o in s.hourly_used.items() if _listed(report, k)]
    seen = {o for _use, o in out}
    behind = [o for per in s.break_even_offers.values() for o in per.values()]
    for o in [c.offer for c in s.commitments] + behind + list(_beside_only(report)):
        if o not in seen:
            seen.add(o)
            out.append((f"{o.gpu}/{o.pricing}", o))
    return out


def _beside_only(report: TcoReport) -> tuple[PricedOffer, ...]:
    """The prices the total with stale prices buys at that no other figure rests on (the stale
    spot and commitment prices themselves): listed too, since the headline gives that total."""
    s, w = report.schedule, report.with_stale_prices
    if w is None:
        return ()
    other = {o for k, o in s.hourly_used.items() if _listed(report, k)}
    other |= {c.offer for c in s.commitments}
    other |= {o for per in s.break_even_offers.values() for o in per.values()}
    return tuple(o for o in w.offers if o not in other)


def _break_even_only(report: TcoReport, offer: PricedOffer) -> float | None:
    """The break-even figured at ``offer`` where the schedule buys none of it; None otherwise."""
    s = report.schedule
    if offer in {c.offer for c in s.commitments}:
        return None
    if s.break_even_offers.get(offer.gpu, {}).get(offer.pricing) != offer:
        return None
    return s.break_even_by_gpu[offer.gpu][offer.pricing]


def _considered(report: TcoReport) -> list[tuple[str, PricedOffer, str]]:
    """The hourly prices weighed for a demand and not bought, by use, each with why, in words."""
    s, money = report.schedule, report.money
    out = []
    for key, o in s.hourly_used.items():
        if _listed(report, key):
            continue
        gpu, _p, name = key.split("/", 2)
        od_key = f"{gpu}/on_demand/{name}"
        ratio = s.spot_overhead.get(name, 1.0)
        spot = o.usd_per_gpu_hour * ratio * s.hourly_packing.get(key, 1.0)
        od = s.hourly_used.get(od_key)
        od_useful = None if od is None else od.usd_per_gpu_hour * s.hourly_packing.get(od_key, 1.0)
        demand = next(d for d in report.problem.demands if d.name == name)
        dearer = od_useful is not None and spot >= od_useful
        if od_key not in s.hourly_bought:
            why = _("commitments serve all its hours")
        elif dearer and demand.restarts_from_scratch:
            why = _(
                "on demand costs less: without checkpoint_gb an interruption restarts a run from its "
                "beginning, so on spot a run of {hours} h takes {ratio} times its hours"
            ).format(
                hours=format_number(round(demand.run_hours, 1)),
                ratio=format_number(round(ratio, 2)) if ratio < 1000 else "> 1,000",
            )
        elif dearer and od_useful is not None:
            why = _(
                "on demand costs less: {spot} per useful GPU-hour once its interruptions are paid for "
                "({ratio} hours paid per useful hour), against {on_demand}"
            ).format(
                spot=money.format(spot),
                ratio=format_number(round(ratio, 3)),
                on_demand=money.format(od_useful),
            )
        else:
            why = _("on demand costs less per useful GPU-hour with what its runs pay besides GPU time")
        out.append((key, o, why))
    return out


def considered_lines(report: TcoReport) -> list[str]:
    """The hourly prices weighed for a demand and not bought, each with why: no figure rests on
    them, so they are neither in the "Prices used" table nor counted in its stale line."""
    return [
        _("Weighed, not bought: {use} {offer} at {price} per GPU-hour, as {why}").format(
            use=_use_words(key), offer=_offer_words(o), price=report.money.format(o.usd_per_gpu_hour), why=why
        )
        for key, o, why in _considered(report)
    ]


def unknown_lines(report: TcoReport) -> list[str]:
    """The pricing models whose saving is unknown for want of a price, grouped by what fills them."""

    def listed(missing: list[MissingPrice]) -> str:
        by_pricing: dict[str, list[str]] = {}
        for m in missing:
            by_pricing.setdefault(m.pricing, []).append(m.gpu)
        return _("; ").join(bracketed(_pricing(p), item_list(gpus)) for p, gpus in by_pricing.items())

    from gpuplan.commit.model import HeldOutReason

    # a price exists for each held out, not for the demand: "no usable price" only where none is
    # held out of a workload demand's sized instance (a direct demand's run is told its instances'
    # size in its demand line)
    sized = [m for m in report.missing if m.held_out_for(HeldOutReason.NOT_AS_ABLE)]
    small = [m for m in report.missing if m.held_out and m not in sized]
    none = [m for m in report.missing if not m.low_confidence_rows and not m.held_out]
    low = [m for m in report.missing if m.low_confidence_rows and not m.held_out]
    lines = [_("Unknown — {listed}: {why}").format(listed=listed([m]), why=held_out_words(m)) for m in sized]
    lines += [
        _("Unknown — no usable price for {listed}: {why}").format(listed=listed([m]), why=held_out_words(m))
        for m in small
    ]
    if none:
        lines.append(
            _(
                "Unknown — no usable price for {listed}: `gpuplan catalog refresh` fetches reserved and "
                "spot prices where a provider publishes them; `gpuplan catalog import FILE --format "
                "gpuplan` adds a price list of your own (a quoted monthly or reserved price)"
            ).format(listed=listed(none))
        )
    if low:
        lines.append(
            _(
                "Unknown — only low-confidence prices for {listed}: set constraints.allow_low_confidence: "
                "true to use them"
            ).format(listed=listed(low))
        )
    return lines


def _offer_words(o: PricedOffer) -> str:
    """``alibaba/cn-shanghai ecs.gn7-c13g1.26xlarge 包月``: an offer as a sentence names it, in the
    user's language (``PricedOffer.label`` is the language-free key the optimiser sorts by)."""
    return f"{place(o.provider, o.region)} {o.instance_type} {_pricing(o.pricing)}"


def _use_words(use: str) -> str:
    """A price's use (``A100-SXM4-40GB/on_demand/training-cluster``) with its pricing model in the
    user's language; the document keeps the key as it is."""
    gpu, sep, rest = use.partition("/")
    pricing, sep2, demand = rest.partition("/")
    if not sep or pricing not in PRICING_RULES:
        return use
    return f"{gpu}/{_pricing(pricing)}{sep2}{demand}"


def _age_lines(report: TcoReport) -> list[str]:
    """The headline's word on the prices' age and confidence: stale and low-confidence ones named."""
    used = list(dict.fromkeys(o for _use, o in used_offers(report)))  # each price once
    stale = [(o, offer_age(report, o)) for o in used]
    stale = [(o, a) for o, a in stale if a.stale]
    lines = []
    if stale:
        listed = _("; ").join(
            f"{_offer_words(o)} {price_age_words(a.age_days, a.staleness, o.gpu, a.launched)}"
            for o, a in stale
        )
        line = _(
            "Stale prices: {n} of the {total} used are older than {days} days or of unknown age ({listed})"
        ).format(n=len(stale), total=len(used), days=report.stale_after_days, listed=listed)
        # the headline counts those the total buys at: where some stale ones are not, say which
        # count is which, so that the two agree
        bought = len(total_stale_prices(report))
        if bought < len(stale):
            line += (
                _(
                    "; none of them is in the total (the headline's count): the all-on-demand "
                    "total, a break-even or the total with stale prices rests on them"
                )
                if bought == 0
                else _(
                    "; {k} of them in the total (the headline's count), the others not bought: the "
                    "all-on-demand total, a break-even or the total with stale prices rests on them"
                ).format(k=bought)
            )
        lines.append(line)
    low = [o for o in used if o.confidence == "low"]
    if low:
        lines.append(
            _("Low-confidence prices used: {listed}").format(
                listed=_("; ").join(_offer_words(o) for o in low)
            )
        )
    return lines


def price_rows(report: TcoReport) -> list[list[str]]:
    """Every price used, with its date and age, for the "Prices used" table."""
    rows = []
    for use, o in used_offers(report):
        age = offer_age(report, o)
        flags = [_("stale")] if age.staleness == "stale" else [_("age unknown")] if age.stale else []
        if o.confidence == "low":
            flags.append(_("low confidence"))
        if o.region == UNSPECIFIED_REGION:
            flags.append(_("the source names no region"))
        if o.floor_as_of and o.own_usd_per_unit_hour is not None:
            said = (
                _(
                    "costed at the dated spot price of {day}; its own, of {own_day} (older than the limit): "
                    "{price}"
                )
                if o.own_stale_as_of
                else _("costed at the dated spot price of {day}; its own, undated: {price}")
            )
            flags.append(
                said.format(
                    day=o.floor_as_of,
                    own_day=o.own_stale_as_of,
                    price=report.money.format(o.own_usd_per_unit_hour / o.gpus_per_unit),
                )
            )
        if use in report.schedule.hourly_used and use not in report.schedule.hourly_bought:
            # an on-demand price the schedule does not buy: the baseline (and break-even) rest on it
            if report.schedule.break_even_by_gpu.get(o.gpu):
                flags.append(_("not bought: the all-on-demand total and the break-even are figured at it"))
            else:
                flags.append(_("not bought: the all-on-demand total is figured at it"))
        if o.pricing == "monthly":
            # the figure a subscription is quoted at (the column is it ÷ 730 h ÷ GPUs)
            flags.append(
                _("{price} per instance a month").format(price=report.money.format(o.usd_per_unit_month))
            )
        if o in _beside_only(report):
            flags.append(_("not bought: the total with stale prices is figured at it"))
        if (be := _break_even_only(report, o)) is not None:
            flags.append(
                _("not bought: the break-even utilisation ({share}) is figured at it").format(
                    share=format_percent(be)
                )
            )
        if o.spot_rate is not None and o.spot_rate.assumed:
            # no published interruption rate: the one costed is assumed, and said so (as plan does)
            flags.append(o.spot_rate.shown())
        if (packing := report.schedule.hourly_packing.get(use, 1.0)) > 1.0 + 1e-9:
            flags.append(
                _("whole instances: {factor} GPU-hours paid per GPU-hour used").format(
                    factor=format_number(packing)
                )
            )
        rows.append(
            [
                _use_words(use),
                place(o.provider, o.region),
                o.instance_type,
                _pricing(o.pricing),
                report.money.format(o.usd_per_gpu_hour),
                _("date unknown")
                if age.age_days is None
                else bracketed(o.as_of.replace("/", "–"), format_age(age.age_days)),
                _(", ").join(flags),
            ]
        )
    return rows


def source_lines(report: TcoReport) -> list[str]:
    """Where each price of the "Prices used" table comes from, one line each, in the table's order:
    the source cells would make the table too wide for a terminal. A source is the text of someone's
    price file: its control characters are shown escaped, not sent to the terminal."""
    return [
        _("Source of {use}: {source}").format(
            use=_use_words(use), source=source_words(printable(o.source)) if o.source else _("not stated")
        )
        for use, o in used_offers(report)
    ]


PRICE_HEAD = (
    N_("use"),
    N_("provider/region"),
    N_("instance"),
    N_("pricing"),
    N_("per GPU-hour"),
    N_("date"),
    N_("flags"),
)


def _price_table(rows: list[list[str]], layout: int) -> Any:
    """Layout 0: one column per field; 1: the instance under provider/region and the price under the
    pricing model; 2: everything that names the offer in one cell. Identifiers never wrap."""
    from gpuplan.report.common import house_table

    table = house_table(_("Prices used"))
    use, where, instance, pricing, price, when, flags = (_(c) for c in PRICE_HEAD)
    if layout == 0:
        heads = [use, where, instance, pricing, price, when, flags]
        cells = [r for r in rows]
    elif layout == 1:
        heads = [use, f"{where}\n{instance}", f"{pricing}\n{price}", when, flags]
        cells = [[r[0], f"{r[1]}\n{r[2]}", f"{r[3]}\n{r[4]}", r[5], r[6]] for r in rows]
    else:
        heads = [f"{use}\n{where}\n{instance}", f"{pricing}\n{price}", f"{when}\n{flags}"]
        cells = [[f"{r[0]}\n{r[1]}\n{r[2]}", f"{r[3]}\n{r[4]}", f"{r[5]}\n{r[6]}"] for r in rows]
    for h in heads:
        # The date in words and the flags may wrap; names and amounts stay whole.
        table.add_column(h, no_wrap=h not in (when, flags, f"{when}\n{flags}"))
    for c in cells:
        table.add_row(*c)
    return table


def schedule_rows(report: TcoReport) -> list[list[str]]:
    """The commitment schedule for people: what to buy, when, for how long, what it costs."""
    u, money = report.usage, report.money
    rows = []
    for first, months, cost_usd in commitment_runs(report.schedule.commitments):
        o = first.offer
        contract_usd = first.contract_usd * (months // first.term_months)
        span = _span_words(first, months)
        rows.append(
            [
                u.month_label(first.start_month),
                place(o.provider, o.region),
                o.instance_type,
                f"{format_number(o.gpus_per_unit)}× {o.gpu}",
                _pricing(o.pricing) if not o.upfront else f"{_pricing(o.pricing)}, {upfront_name(o.upfront)}",
                str(first.units),
                span,
                money.format(cost_usd)
                if cost_usd >= contract_usd - 0.005
                # past_horizon: remaining_value bills the months inside the horizon only
                else _("{billed} (contract {contract})").format(
                    billed=money.format(cost_usd), contract=money.format(contract_usd)
                ),
            ]
        )
        if first.upfront_usd is not None:
            # all upfront: the contract is cash at the start of each term, not a monthly bill
            rows[-1][-1] += "\n" + _("{cash} paid at the start").format(cash=money.format(first.upfront_usd))
        if (age := offer_age(report, o)).stale:
            # signed on a price not known to be current (no current one meets the need): said on
            # its row, not only in the price table further down
            words = price_age_words(age.age_days, age.staleness, o.gpu, age.launched)
            rows[-1][-1] += "\n" + (
                _("price of {as_of}: {age}").format(as_of=o.as_of.replace("/", "–"), age=words)
                if o.as_of
                else _("price: {age}").format(age=words)
            )
    return rows


def _span_words(first: Commitment, months: int) -> str:
    """How long a run of commitments lasts, in words: monthly renewals, or one term."""
    if first.term_months == 1:
        return _("{n} month(s), renewed monthly").format(n=months)
    return _("{n}-month term").format(n=first.term_months)


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


def no_commitment_line(report: TcoReport) -> str:
    """What the schedule says when it buys no commitment: "no" only when every commitment allowed
    has a price; where one is missing, whether it would pay off is unknown; where one would at a
    price not known to be current, said so (the lines above name it, with its date)."""
    w = report.with_stale_prices
    if w is not None and w.commitments:
        return _(
            "No commitment pays off at prices known to be current; at a stale price one would (named "
            "above, with its date): everything is bought by the hour."
        )
    if not any(PRICING_RULES[m.pricing].committed for m in report.missing):
        return _("No commitment pays off: everything is bought by the hour.")
    if report.schedule.break_even_utilisation:
        return _(
            "No priced commitment pays off; whether the others would is unknown (prices missing, above). "
            "Everything is bought by the hour."
        )
    return _(
        "Unknown whether a commitment pays off: no commitment allowed has a usable price (above). "
        "Everything is bought by the hour."
    )


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
        parts.append(Text(no_commitment_line(report)))
    models = [p for p in PRICING_LABELS if any(p in m.by_pricing_usd for m in report.schedule.monthly)]
    months = house_table(_("Cost per month"))
    months.add_column(_("month"), no_wrap=True)
    # Pricing names are words (they may wrap in the header); amounts have no spaces and stay whole.
    for p in models:
        months.add_column(_pricing(p), justify="right")
    # what the runs pay besides GPU time (transfer, storage, licences), where it is counted
    data = any(d.run_data for d in report.problem.demands)
    if data:
        months.add_column(_("besides GPU time"), justify="right")
    months.add_column(_("total"), justify="right")
    # an all-upfront reservation's cash in the month it is paid, beside the total that spreads it
    cash = cash_by_month(report)
    if cash is not None:
        months.add_column(_("cash paid"), justify="right")
    for i, m in enumerate(report.schedule.monthly):
        cells = [report.money.format(m.by_pricing_usd[p]) if p in m.by_pricing_usd else "" for p in models]
        cells += [report.money.format(m.data_usd)] if data else []
        cells += [report.money.format(m.cost_usd)]
        cells += [report.money.format(cash.months[i])] if cash is not None else []
        months.add_row(report.usage.month_label(m.month), *cells)
    if report.schedule.past_horizon_usd > 0:
        # The commitments' months after the horizon are in the total: a row of their own, so that
        # the column adds up to it (it had been said only in a line above the table).
        months.add_row(
            _("after the horizon"),
            *[""] * (len(models) + data),
            report.money.format(report.schedule.past_horizon_usd),
            *([report.money.format(cash.past_horizon_usd)] if cash is not None else []),
        )
    parts += [Text(""), months, *(Text(line) for line in cash_lines(report))]
    prices = price_rows(report)
    parts += [Text(""), Widest([partial(_price_table, prices, layout) for layout in (0, 1, 2)])]
    parts += [Text(line, style="dim") for line in source_lines(report)]
    parts += [Text(line) for line in considered_lines(report)]
    parts += [Text(_("Demand {name}: {how}").format(name=d.name, how=d.how)) for d in report.demands]
    notes = report.money.without_rate_warning(report.notes)
    parts += [Text(_("Note: {note}").format(note=n), style="dim") for n in notes]
    if report.money.rate_note():
        parts.append(Text(report.money.rate_note(), style="dim"))
    return Group(*parts)
