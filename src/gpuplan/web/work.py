"""The team's work on top of :mod:`gpuplan.web.service`: running a queued job, saving a plan of a
saved workload, the month's budget against planned spend, and what today's prices do to saved plans.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuplan.errors import Phrase
from gpuplan.i18n import N_
from gpuplan.web.requests import (
    EstimateRequest,
    PlanRequest,
    RefreshRequest,
    RefusedValue,
    SavePlanRequest,
    SimulateRequest,
    refused_as,
)
from gpuplan.web.service import (
    Progress,
    cached_plan_text,
    check_plan_request,
    estimate_document,
    materialize,
    plan_document,
)
from gpuplan.web.simulating import simulate_document

if TYPE_CHECKING:
    from gpuplan.catalog import Store
    from gpuplan.catalog.job_store import JobRecord
    from gpuplan.catalog.model import ExchangeRate
    from gpuplan.catalog.team_store import Budget, SavedPlan, SavedWorkload, TeamStore
    from gpuplan.commit.recurring import PlanMonth
    from gpuplan.web.answers import AnswerCache
    from gpuplan.workload import Workload

__all__ = [
    "JOB_KINDS",
    "budget_document",
    "option_label",
    "price_changes",
    "run_job",
    "save_plan",
    "saved_plan_item",
    "year_budget_document",
    "year_spend",
]

#: What a job may be: the request model its ``request`` is validated with again when it runs.
JOB_KINDS: dict[str, type[Any]] = {
    "estimate": EstimateRequest,
    "plan": PlanRequest,
    "simulate": SimulateRequest,
    "save-plan": SavePlanRequest,
    "refresh": RefreshRequest,
}


def run_job(store: Store, record: JobRecord, scratch: Path, progress: Progress) -> dict[str, Any]:
    """The document a queued job produces (its request is validated again: the row is data)."""
    from gpuplan.i18n import use_language, use_option_names

    kind = JOB_KINDS[record.kind]
    request = kind.model_validate(record.request["request"])
    actor = record.created_by
    lang = str(record.request.get("lang", "en"))
    # in the language the job was asked in, its notes naming the options as its request's fields
    with use_language(lang), use_option_names(kind.OPTION_FIELDS):
        if record.kind == "refresh":
            return refresh(store, request, actor=actor)
        if record.kind == "save-plan":
            team = record.request.get("team")
            return save_plan(
                store,
                request,
                scratch,
                actor=actor,
                lang=lang,
                progress=progress,
                team=str(team) if team else None,
                admin=record.request.get("admin") is True,
            )
        workload = materialize(request.workload, request.hf_config_json, scratch)
        if record.kind == "estimate":
            return estimate_document(store, request, workload, progress)
        if record.kind == "simulate":
            return simulate_document(store, request, workload, scratch, progress)
        document = plan_document(store, request, workload, progress)
        key = record.request.get("cache_key")
        if key:
            from gpuplan.catalog.job_store import JobStore

            JobStore(store.engine).cache_document(str(key), json.dumps(document, ensure_ascii=False))
        return document


def refresh(store: Store, request: RefreshRequest, *, actor: str) -> dict[str, Any]:
    """``gpuplan catalog refresh``: the providers' price lists, with the keys this server's
    environment holds (each provider module names its variables; a provider without them is skipped)."""
    import os

    from gpuplan.catalog import refresh as refreshing
    from gpuplan.catalog.providers import REGISTRY, Credentials
    from gpuplan.catalog.stored_words import english
    from gpuplan.catalog.team_store import TeamStore

    names = {n for m in REGISTRY.values() for n in m.FACTS.credentials} | {"TENCENTCLOUD_CURRENCY"}
    creds = Credentials(values={n: os.environ[n] for n in names if os.environ.get(n)})
    options = refreshing.RefreshOptions(credentials=creds)
    # The providers named, or every one; the rate when asked (alone: only the rate), as the command.
    outcomes = (
        []
        if request.rates and not request.providers
        else refreshing.refresh(store, request.providers, options)
    )
    if request.rates:
        outcomes = [*outcomes, refreshing.refresh_rates(store, options)]
    # The audit log is read by any admin, in any language: its line is English, as a log's is (the
    # job's result, read by who asked, is in the language asked).
    lines = [{"provider": o.provider, "status": o.status, "message": english(o.worded())} for o in outcomes]
    what = [*request.providers, *(["rates"] if request.rates else [])]
    TeamStore(store.engine).record(actor, "catalog.refresh", ",".join(what) or "all", {"outcomes": lines})
    from gpuplan.report.catalog import refresh_json

    return refresh_json(outcomes).model_dump(mode="json")  # `catalog refresh --json`


def refuse_service_runs(workload: Workload, runs_per_month: int, name: str) -> None:
    """A service's plan is a month of capacity: it runs once a month, whatever its requests (30 of
    them had been counted as 30 months of a 730-hour plan in one month's spend)."""
    if workload.serving is not None and runs_per_month != 1:
        raise RefusedValue.of(
            "runs_per_month",
            Phrase(
                N_(
                    "{runs}: {name} is a service, planned as a month of capacity; it runs once a month "
                    "(its load is the serving block's requests per second)"
                ),
                runs=runs_per_month,
                name=name,
            ),
        )


def plan_request_of(request: SavePlanRequest, spec: dict[str, Any]) -> PlanRequest:
    """The plan request a saved plan makes of its saved workload's ``spec``."""
    fields = request.model_dump(
        exclude={"name", "version", "month", "runs_per_month", "workload", "hf_config_json"}
    )
    return PlanRequest(workload=spec["workload"], hf_config_json=spec.get("hf_config_json"), **fields)


def save_plan(
    store: Store,
    request: SavePlanRequest,
    scratch: Path,
    *,
    actor: str,
    lang: str,
    answers: AnswerCache | None = None,
    progress: Progress | None = None,
    team: str | None = None,
    admin: bool = False,
) -> dict[str, Any]:
    """Plan a saved workload version and keep the plan, as ``team``'s (the saver's); the saved
    plan's item, document included. The plan is the one ``POST /plan`` gives for the same request
    today (the plan cache's). Another team's workload is refused unless ``admin``."""
    kept, _text = _save_plan(
        store,
        request,
        scratch,
        actor=actor,
        lang=lang,
        answers=answers,
        progress=progress,
        team=team,
        admin=admin,
    )
    item = saved_plan_item(kept, store, with_document=True)
    item["budget_notes"] = over_budget_notes(store, kept.month, kept.team)
    return item


@dataclass(frozen=True)
class CheckedSave:
    """A saved plan's request read and checked before anything is planned or queued: its saved
    workload version, the plan request it makes and the workload it plans."""

    saved: SavedWorkload
    plan_request: PlanRequest
    workload: Workload


def check_save(
    store: Store, request: SavePlanRequest, scratch: Path, *, team: str | None, admin: bool
) -> CheckedSave:
    """Read the saved workload once and refuse now what the plan would end in: another team's
    workload, a service's runs other than one, the plan's own options (each named, as ``POST /plan``
    refuses them), an unknown workload or version (named ``name`` or ``version``)."""
    from gpuplan.catalog.team_store import TeamStore, check_plannable

    with refused_as("version" if request.version is not None else "name"):
        saved = TeamStore(store.engine).workload(request.name, request.version)
    check_plannable(saved, team, admin=admin)
    plan_request = plan_request_of(request, saved.spec)
    workload = materialize(plan_request.workload, plan_request.hf_config_json, scratch)
    refuse_service_runs(workload, request.runs_per_month, request.name)
    check_plan_request(store, plan_request, workload)
    return CheckedSave(saved, plan_request, workload)


def save_plan_json(
    store: Store,
    request: SavePlanRequest,
    scratch: Path,
    *,
    actor: str,
    lang: str,
    answers: AnswerCache,
    team: str | None = None,
    admin: bool = False,
    checked: CheckedSave | None = None,
) -> bytes:
    """:func:`save_plan`'s item as JSON, the plan document's text put in as the cache holds it
    (a plan document is ~130 KB: written once, not encoded again for the answer). ``checked``: the
    request as :func:`check_save` read it (read again otherwise)."""
    kept, text = _save_plan(
        store,
        request,
        scratch,
        actor=actor,
        lang=lang,
        answers=answers,
        team=team,
        admin=admin,
        checked=checked,
    )
    item = saved_plan_item(kept, store)
    item["budget_notes"] = over_budget_notes(store, kept.month, kept.team)
    del item["document"]
    head = json.dumps(item, ensure_ascii=False)  # an object: "{…}"
    return (head[:-1] + ', "document": ' + text + "}").encode("utf-8")


def _save_plan(
    store: Store,
    request: SavePlanRequest,
    scratch: Path,
    *,
    actor: str,
    lang: str,
    answers: AnswerCache | None,
    progress: Progress | None = None,
    team: str | None = None,
    admin: bool = False,
    checked: CheckedSave | None = None,
) -> tuple[SavedPlan, str]:
    from gpuplan.catalog.team_store import TeamStore

    records = TeamStore(store.engine)
    # a queued save is checked here, when its job runs (the request was checked when it came in)
    checked = checked or check_save(store, request, scratch, team=team, admin=admin)
    saved, plan_request, workload = checked.saved, checked.plan_request, checked.workload
    text = cached_plan_text(
        store, plan_request, workload, lang=lang, answers=answers, progress=progress or (lambda _f, _m: None)
    )
    document, text = _with_data_copy(store, text)
    newest, _ = records.catalog_state()
    constraints = plan_request.model_dump(mode="json", exclude={"workload", "hf_config_json"})
    kept = records.save_plan(
        saved,
        month=request.month,
        constraints=constraints,
        document=document,
        document_text=text,
        catalog_import_id=newest,
        actor=actor,
        runs_per_month=request.runs_per_month,
        team=team,
        admin=admin,
    )
    return kept, text


def _with_data_copy(store: Store, text: str) -> tuple[dict[str, Any], str]:
    """The plan document ``text`` as kept with the plan, and its text: its options with
    ``data_copy`` (:func:`gpuplan.commit.recurring.with_data_copies`), so that the month's runs count
    one copy of a dataset moved into its region where that costs less, as ``gpuplan tco`` does. A
    fresh document has them already (:func:`~gpuplan.web.service.plan_document`); one the plan cache
    kept from an earlier gpuplan the same day may not."""
    from gpuplan.commit.recurring import with_data_copies

    document = json.loads(text)
    if not isinstance(document, dict):
        return document, text
    filled = with_data_copies(json.loads(text), store)
    if filled == document:
        return document, text
    return filled, json.dumps(filled, ensure_ascii=False)


def plan_month_of(p: SavedPlan) -> PlanMonth:
    """What ``p`` puts against its month: its runs, sharing a commitment and a data copy as
    ``gpuplan tco`` does (:func:`gpuplan.commit.recurring.plan_month`)."""
    from gpuplan.commit.recurring import plan_month

    return plan_month(p.recommended, p.total_cost_usd, p.runs_per_month)


def current_option(p: SavedPlan) -> tuple[bool, dict[str, Any] | None]:
    """Whether ``p``'s recommended option rests on a price not known to be current when it was
    planned (older than the staleness limit, or undated), and, where it does, the plan's own best
    option on prices known to be current (its document's ``without_stale_prices.option``; None:
    no feasible option had one). A recommended option that does not say its price's age (a plan
    of an older document) rests on one not known to be current: unknown is never the best case.
    A plan with no recommended option (none was feasible) rests on no price at all."""
    rec = p.recommended or {}
    if not rec or (rec.get("stale") is False and rec.get("staleness") in ("fresh", "")):
        return False, None
    option = (p.without_stale_prices or {}).get("option")
    return True, option if isinstance(option, dict) else None


def current_month_of(p: SavedPlan) -> PlanMonth:
    """What ``p`` puts against its month on prices known to be current when it was planned: its own
    month where its recommended price was (:func:`plan_month_of`); else the month of the plan's best
    option on prices known to be current, counted as the recommended one's is (total unknown where
    the plan had none)."""
    from gpuplan.commit.recurring import plan_month

    stale, option = current_option(p)
    if not stale:
        return plan_month_of(p)
    cost = None if option is None else option.get("total_cost_usd")
    usd = float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None
    return plan_month(option, usd, p.runs_per_month)


def _month_breakdown(
    month: PlanMonth, per_cny: float | None, currency: str
) -> tuple[dict[str, Any], str | None]:
    """A saved plan's month by part in US dollars and, at ``per_cny`` (US dollars per yuan), in
    yuan; and in words in ``currency`` (yuan only where ``per_cny`` is known), None where the month
    is its run's cost times its runs."""
    from gpuplan.commit.recurring import month_words
    from gpuplan.i18n.numbers import format_amount

    def cny(usd: float | None) -> float | None:
        return None if usd is None or per_cny is None else round(usd / per_cny, 2)

    def usd(value: float | None) -> float | None:
        return None if value is None else round(value, 2)

    parts = {
        "runs_usd": month.runs_usd,
        "commitment_usd": month.commitment_usd,
        "data_kept_usd": month.data_usd if month.data_kept else None,
        "data_each_run_usd": month.data_each_run_usd,
    }
    out: dict[str, Any] = {"commitment_units": month.commitment_units, "data_kept": month.data_kept}
    for key, value in parts.items():
        out[key] = usd(value)
        out[key.replace("_usd", "_cny")] = cny(value)
    yuan = currency == "CNY" and per_cny is not None
    words = month_words(month, lambda v: format_amount(v / per_cny if yuan else v, "CNY" if yuan else "USD"))
    return out, words or None


def option_label(option: dict[str, Any] | None) -> str | None:
    """``aws/us-east-1/p5.48xlarge × 2, spot`` with the pricing model named in the current language."""
    from gpuplan.vocab import pricing_name

    if not option:
        return None
    nodes = option.get("nodes") or 1
    where = f"{option.get('provider')}/{option.get('region')}/{option.get('instance_type')}"
    return f"{where} × {nodes}, {pricing_name(str(option.get('pricing')))}"


def _plan_gpu(p: SavedPlan) -> str | None:
    """The GPU of a saved plan's recommended option (None without one)."""
    gpu = (p.recommended or {}).get("gpu")
    return gpu if isinstance(gpu, str) and gpu else None


def saved_plan_item(
    p: SavedPlan,
    store: Store,
    *,
    with_document: bool = False,
    rate: ExchangeRate | None = None,
    currency: str | None = None,
) -> dict[str, Any]:
    """A saved plan as the API lists it: the date of the prices it rests on and, by the catalog's
    rule for an offer's price (:meth:`Store.age_of`), how old they are today; its month's cost in
    yuan too (:func:`plan_cost_cny`; ``rate``: the catalog's newest, read when not given), and by
    part (its month's note in ``currency``, yuan where the plan's yuan are known; None: the
    currency the plan was made in)."""
    # the recommended option's GPU bounds an undated price's age, as an offer's is (an L20's price
    # "some time since 2020-11" is at most as old as the L20)
    age = store.age_of(p.prices_as_of, _plan_gpu(p))
    rate = rate if rate is not None else store.find_exchange_rate("CNY")
    cny = plan_cost_cny(p, rate)
    per_cny = _plan_usd_per_cny(p, rate)
    month = plan_month_of(p)
    stale, current = current_option(p)
    current_month = current_month_of(p).total_usd
    shown = currency or p.display_currency
    breakdown, note = _month_breakdown(month, per_cny, shown)
    return {
        "id": p.id,
        "workload": p.workload,
        "workload_version": p.workload_version,
        "month": p.month,
        "status": p.status,
        "total_cost_usd": p.total_cost_usd,
        "total_cost_cny": None
        if p.total_cost_usd is None or per_cny is None
        else round(p.total_cost_usd / per_cny, 2),
        "runs_per_month": p.runs_per_month,
        "month_cost_usd": month.total_usd,
        "month_cost_cny": None if cny is None else round(cny, 2),
        **plan_cost_basis(p, shown, per_cny),
        **plan_storage_basis(p),
        "month_breakdown": breakdown if month.total_usd is not None else None,
        "month_note": note,
        "usd_per_cny": p.usd_per_cny,
        "team": p.team,
        "recommended": option_label(p.recommended),
        "prices_as_of": p.prices_as_of,
        "prices_age_days": age.age_days,
        "prices_staleness": age.staleness,
        "prices_current_when_planned": not stale,
        "current_option": option_label(current),
        "current_month_cost_usd": current_month,
        "current_month_cost_cny": None
        if current_month is None or per_cny is None
        else round(current_month / per_cny, 2),
        "catalog_import_id": p.catalog_import_id,
        "created_by": p.created_by,
        "created_at": p.created_at,
        "constraints": p.constraints,
        "document": p.document if with_document else None,
    }


def budget_document(store: Store, month: str, team: str | None = None) -> dict[str, Any]:
    """The month's budget and the planned spend of its saved plans: each plan's cost (one run's)
    times its runs in the month. Cancelled plans are left out, and so are replaced ones (a workload
    planned again for the month counts once per team, at its newest plan).

    A budget is compared in the currency it was given in (:func:`_spend`); where currencies mix,
    at one rate, the catalog's newest, which the document names.

    ``team``: that team's budget and plans; None: the whole service's budget and every plan, with
    each team's budget and spend beside it."""
    from gpuplan.catalog.team_store import TeamStore

    records = TeamStore(store.engine)
    if team is not None:
        records.check_known_team(team)
    rate = store.find_exchange_rate("CNY")
    budget = records.budget(month, team)
    year = month[:4]
    # one read of the year's plans: the month's are among them
    of_year = _year_plans(records, year, team)
    plans = [p for p in of_year if p.month == month]
    shown = _shown_currency(budget, [] if team is not None else records.budgets(month), plans)
    lines = [] if team is not None else _team_lines(records, month, plans, rate, of_year)
    teams = [line for line, _year in lines]
    items = [saved_plan_item(p, store, rate=rate, currency=shown) for p in plans]
    service = budget if team is None else records.budget(month)
    allocation = _allocation(records, month, service, rate, shown if service is None else None)
    spend, in_year = _month_and_year(records, month, team, budget, plans, of_year, rate, shown)
    newest, _digest = records.catalog_state()

    def team_notes(line: dict[str, Any], of_team_year: dict[str, Any]) -> list[str]:
        """A team's month over its budget, its year over its year's, and its month on current prices."""
        name = line["team"]
        mine = [p for p in plans if p.team == name]
        return [
            *_over_note(line, month, name),
            *_over_note(of_team_year, year, name),
            *_current_note(line, mine, month, name, newest, True),
        ]

    # over its budget: the document's own (a team's or the whole service's), then each team's
    over = [
        *_over_note(spend, month, team),
        *_over_note(in_year, year, team),
        *_current_note(spend, plans, month, team, newest),
        *(n for line, of_team_year in lines for n in team_notes(line, of_team_year)),
    ]
    allocation["notes"] = [*over, *allocation["notes"]]
    budgets = [budget, records.budget(month), *records.budgets(month)]
    return {
        **spend,
        **_year_fields(in_year),
        "team": team,
        "teams": teams,
        "plans": items,
        **allocation,
        "exchange_rate": _rate_where_yuan(rate, _yuan_involved(store, budgets, plans)),
    }


def year_budget_document(store: Store, year: str, team: str | None = None) -> dict[str, Any]:
    """The year's budget (``YYYY``), the whole service's or ``team``'s, and the planned spend of
    its months (:func:`year_spend`), with a note where that is over the budget."""
    from gpuplan.catalog.team_store import TeamStore

    records = TeamStore(store.engine)
    if team is not None:
        records.check_known_team(team)
    rate = store.find_exchange_rate("CNY")
    budget = records.year_budget(year, team)
    plans = _year_plans(records, year, team)
    spend = year_spend(year, budget, plans, rate, _shown_currency(budget, [], plans))
    return {
        **spend,
        "team": team,
        "notes": _over_note(spend, year, team),
        "exchange_rate": _rate_where_yuan(rate, _yuan_involved(store, [budget], plans)),
    }


def _year_plans(records: TeamStore, year: str, team: str | None) -> list[SavedPlan]:
    """The planned plans of every month of ``year``: ``team``'s, or (None) every plan."""
    return [p for p in records.plans(year=year, team=team) if p.status == "planned"]


def year_spend(
    year: str, budget: Budget | None, plans: list[SavedPlan], rate: ExchangeRate | None, shown: str
) -> dict[str, Any]:
    """``budget`` (the year's) against the planned spend of ``plans`` (the year's planned plans):
    each month's as its month's budget document counts it (:func:`_spend`), in the year budget's
    currency (``shown`` where there is none), added. The sum is None (unknown, never 0) where no
    plan's cost is known; a plan of unknown cost is left out of it, and counted."""
    currency = _currency(budget) if budget is not None else shown
    unit = currency.lower()
    months = sorted({p.month for p in plans})
    spends = [_spend(m, None, [p for p in plans if p.month == m], rate, currency) for m in months]
    planned = _known_sum([x for s in spends if (x := s[f"planned_{unit}"]) is not None], len(spends))
    amount = None if budget is None else budget.amount_cny if currency == "CNY" else budget.amount_usd

    def both(name: str, value: float | None) -> dict[str, float | None]:
        """``value`` (in ``currency``) as ``name``'s dollars and yuan, as :func:`_spend` gives them."""
        if currency == "USD":
            return {f"{name}_usd": value, f"{name}_cny": None}
        usd = None if rate is None or value is None else round(value * rate.usd_per_unit, 2)
        return {f"{name}_usd": usd, f"{name}_cny": value}

    return {
        "year": year,
        "currency": currency if budget else None,
        "display_currency": currency,
        **both("budget", amount),
        **both("planned", planned),
        **both("remaining", _less(amount, planned)),
        "unknown_cost_plans": sum(s["unknown_cost_plans"] for s in spends),
        "used_pct": round(planned / amount * 100, 1) if amount and planned is not None else None,
        "months": [{k: s[k] for k in _YEAR_MONTH} for s in spends],
        "note": _budget_note(budget, rate) if budget else None,
        "set_by": budget.set_by if budget else None,
        "set_at": budget.set_at if budget else None,
    }


def _month_and_year(
    records: TeamStore,
    month: str,
    team: str | None,
    budget: Budget | None,
    plans: list[SavedPlan],
    of_year: list[SavedPlan],
    rate: ExchangeRate | None,
    shown: str | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``budget`` against ``plans``, the month's (:func:`_spend`, counted in ``shown`` where there is
    no budget), and ``team``'s year's budget (None: the whole service's) against ``of_year``, its
    year's plans (:func:`year_spend`, in the month's currency where the year has no budget)."""
    spend = _spend(month, budget, plans, rate, shown)
    year = month[:4]
    return spend, year_spend(year, records.year_budget(year, team), of_year, rate, spend["display_currency"])


#: What each month of a year's budget document holds.
_YEAR_MONTH = ("month", "planned_usd", "planned_cny", "unknown_cost_plans")


def _year_fields(year: dict[str, Any]) -> dict[str, Any]:
    """A month's budget document's (or a team line's) figures of its year, from :func:`year_spend`."""
    return {
        f"year_{k}_{c}": year[f"{k}_{c}"] for k in ("budget", "planned", "remaining") for c in ("usd", "cny")
    }


def _rate_where_yuan(rate: ExchangeRate | None, yuan: bool) -> dict[str, Any] | None:
    """A document's ``exchange_rate``: the catalog's CNY rate, with its age warning only where
    ``yuan`` are involved (:func:`_yuan_involved`). A team whose budgets and plans are all in US
    dollars converts nothing: an old yuan rate is no news to it."""
    from gpuplan.report.offers_json import rate_fields

    fields = rate_fields(rate)
    return fields if fields is None or yuan else {**fields, "warning": None}


def _yuan_involved(store: Store, budgets: Iterable[Budget | None], plans: Iterable[SavedPlan]) -> bool:
    """Whether a budget document converts at the CNY rate: a budget of it given in yuan (then the
    plans' dollars are counted in yuan, a team's in the other currency added at the rate), or a
    plan whose recommended option's price is published in yuan (its dollars are converted ones)."""
    if any(_currency(b) == "CNY" for b in budgets):
        return True
    picked = [p.recommended for p in plans if p.recommended]
    if not picked:
        return False
    keys = {(r.get("provider"), r.get("region"), r.get("instance_type"), r.get("pricing")) for r in picked}
    offers = store.offers(
        provider=sorted({str(k[0]) for k in keys}),
        region=sorted({str(k[1]) for k in keys}),
        instance_type=sorted({str(k[2]) for k in keys}),
    )
    return any(
        (o.provider, o.region, o.instance_type, o.pricing) in keys for o in offers if o.currency == "CNY"
    )


def over_budget_notes(store: Store, month: str, team: str | None) -> list[str]:
    """What a plan of ``team`` saved for ``month`` finds of the budgets it counts in: the team's
    (when it has one) and the whole service's, of the month and of its year, a note for each the
    planned spend is over (the month's; the year's, each month as its month's document counts it).
    Not a refusal: a team may decide to spend past its budget, but the one who saved the plan
    should know it there, not only from the budget's page."""
    from gpuplan.catalog.team_store import TeamStore

    records = TeamStore(store.engine)
    rate = store.find_exchange_rate("CNY")
    year = month[:4]
    # one read of the year's plans: the month's are among them
    of_year = _year_plans(records, year, None)
    notes: list[str] = []
    for scope in (team, None) if team is not None else (None,):
        in_year = of_year if scope is None else [p for p in of_year if p.team == scope]
        mine = [p for p in in_year if p.month == month]
        spend, of_scope_year = _month_and_year(
            records, month, scope, records.budget(month, scope), mine, in_year, rate
        )
        notes.extend([*_over_note(spend, month, scope), *_over_note(of_scope_year, year, scope)])
    return notes


def _over_note(spend: dict[str, Any], month: str, team: str | None) -> list[str]:
    """A note when ``spend`` (a budget document's or a team's line; a year's, :func:`year_spend`,
    where ``month`` is a year, ``YYYY``) is over its budget: by how much, in the budget's currency
    and in per cent of it; none when it is not, there is no budget, or the planned spend is
    unknown (never said as 0). A plan of unknown cost is not counted, so the spend may be more
    still: said."""
    from gpuplan.i18n import _, ngettext
    from gpuplan.i18n.numbers import format_amount
    from gpuplan.i18n.phrases import bracketed, sentences

    currency = spend["display_currency"] or "USD"
    unit = currency.lower()
    amount, planned = spend[f"budget_{unit}"], spend[f"planned_{unit}"]
    if amount is None or planned is None or planned - amount < _ALLOCATION_TOLERANCE:
        return []
    over = planned - amount
    if len(month) == 4:  # a year's budget (YYYY)
        if team is None:
            note = _(
                "The whole service is over its budget for the year {year} by {over}{pct}: {planned} "
                "planned against {budget}."
            )
        else:
            note = _(
                "Team {team} is over its budget for the year {year} by {over}{pct}: {planned} planned "
                "against {budget}."
            )
    elif team is None:
        note = _(
            "The whole service is over its budget for {month} by {over}{pct}: {planned} planned "
            "against {budget}."
        )
    else:
        note = _(
            "Team {team} is over its budget for {month} by {over}{pct}: {planned} planned against {budget}."
        )
    # a budget of nothing is over by no per cent of it
    pct = bracketed("", f"{over / amount * 100:,.1f} %") if amount > 0 else ""
    text = note.format(
        team=team,
        month=month,
        year=month,
        over=format_amount(over, currency),
        pct=pct,
        planned=format_amount(planned, currency),
        budget=format_amount(amount, currency),
    )
    unknown = spend["unknown_cost_plans"]
    if unknown:
        text = sentences(
            text,
            ngettext(
                "{n} plan of unknown cost is not counted: the spend may be more.",
                "{n} plans of unknown cost are not counted: the spend may be more.",
                unknown,
            ).format(n=unknown),
        )
    return [text]


def _current_note(
    spend: dict[str, Any],
    plans: list[SavedPlan],
    month: str,
    team: str | None,
    newest: int | None,
    only_over: bool = False,
) -> list[str]:
    """Where ``plans`` (those counted in ``spend``, a budget document's or a team's line) include
    one resting on a price not known to be current: what the month's plans cost on prices known to
    be current (each such plan at its best option on them), beside the planned figure, in the
    budget's currency, and whether that is over the budget; none where every plan's price was known
    current, nor, with ``only_over`` (a team's line in the whole service's document, which carries
    the figure), where that is within the budget or unknown.

    The figure is partial where a plan had no such option: said, naming the plans left out of it;
    unknown (None, never 0) where no plan had one. Each plan's option is as of when it was saved:
    where a plan was saved before ``newest`` (the catalog's newest import), said, with where
    today's catalog is asked."""
    from gpuplan.i18n import _, ngettext
    from gpuplan.i18n.numbers import format_amount
    from gpuplan.i18n.phrases import item_list, sentences

    stale = spend["stale_price_plans"]
    if not stale:
        return []
    currency = spend["display_currency"] or "USD"
    unit = currency.lower()
    planned, current = spend[f"planned_{unit}"], spend[f"planned_current_{unit}"]
    amount = spend[f"budget_{unit}"]
    if planned is None:
        return []
    missing = [
        p.workload
        for p in plans
        if current_month_of(p).total_usd is None and plan_month_of(p).total_usd is not None
    ]
    if current is None:
        if only_over:
            return []
        said = ngettext(
            "{n} plan for {month} rests on a price not known to be current (older than the "
            "staleness limit, or undated), and no plan of the month had a feasible option on prices "
            "known to be current: on them, the month's cost is unknown, against the {planned} planned",
            "{n} plans for {month} rest on prices not known to be current (older than the "
            "staleness limit, or undated), and no plan of the month had a feasible option on prices "
            "known to be current: on them, the month's cost is unknown, against the {planned} planned",
            stale,
        ).format(n=stale, month=month, planned=format_amount(planned, currency))
        over = False
    else:
        if missing:
            template = ngettext(
                "{n} plan for {month} rests on a price not known to be current (older than the "
                "staleness limit, or undated): on prices known to be current, each such plan at its "
                "best option on them, the month's plans that had one cost at least {current} against "
                "the {planned} planned",
                "{n} plans for {month} rest on prices not known to be current (older than the "
                "staleness limit, or undated): on prices known to be current, each such plan at its "
                "best option on them, the month's plans that had one cost at least {current} against "
                "the {planned} planned",
                stale,
            )
        else:
            template = ngettext(
                "{n} plan for {month} rests on a price not known to be current (older than the "
                "staleness limit, or undated): on prices known to be current, each such plan at its "
                "best option on them, the month's plans cost {current} against the {planned} planned",
                "{n} plans for {month} rest on prices not known to be current (older than the "
                "staleness limit, or undated): on prices known to be current, each such plan at its "
                "best option on them, the month's plans cost {current} against the {planned} planned",
                stale,
            )
        said = template.format(
            n=stale,
            month=month,
            current=format_amount(current, currency),
            planned=format_amount(planned, currency),
        )
        over = amount is not None and current - amount >= _ALLOCATION_TOLERANCE
    if team is not None:
        said = _("Team {team}: {said}").format(team=team, said=said)
    if only_over and not over:
        return []
    if over:
        said = _("{said}, {over} over the budget of {budget}").format(
            said=said, over=format_amount(current - amount, currency), budget=format_amount(amount, currency)
        )
    said = _("{said}.").format(said=said)
    left_out = ""
    if missing and current is not None:
        left_out = ngettext(
            "{n} plan had no feasible option on prices known to be current and is not in that "
            "figure, so the cost may be more: {plans}.",
            "{n} plans had no feasible option on prices known to be current and are not in that "
            "figure, so the cost may be more: {plans}.",
            len(missing),
        ).format(n=len(missing), plans=item_list(missing))
    return [sentences(said, left_out, _saved_before(plans, newest))]


def _saved_before(plans: list[SavedPlan], newest: int | None) -> str:
    """Where some of ``plans`` resting on a price not known to be current were saved before
    ``newest``, the catalog's newest import: that their options on prices known to be current are
    as of when each was saved (prices imported since are not in them), and where today's are."""
    from gpuplan.i18n import ngettext

    if newest is None:
        return ""
    before = [
        p
        for p in plans
        if current_option(p)[0] and (p.catalog_import_id is None or p.catalog_import_id < newest)
    ]
    if not before:
        return ""
    return ngettext(
        "{n} of them was saved before the catalog's newest price import: its option on prices known "
        "to be current is as of when it was saved, and prices imported since are not in these "
        "figures; the price check (GET /api/v1/price-changes) prices it on today's catalog, and "
        "planning it again for the month counts today's option here.",
        "{n} of them were saved before the catalog's newest price import: their options on prices "
        "known to be current are as of when each was saved, and prices imported since are not in "
        "these figures; the price check (GET /api/v1/price-changes) prices them on today's catalog, "
        "and planning them again for the month counts today's options here.",
        len(before),
    ).format(n=len(before))


#: Less than this (a hundredth of a cent or fen) between two amounts is no difference: the rounding
#: of an amount converted at a rate, not a choice.
_ALLOCATION_TOLERANCE = 0.005


def _currency(budget: Budget | None) -> str:
    """The currency ``budget`` was given in: CNY for one given in yuan, else USD."""
    return "CNY" if budget is not None and budget.amount_cny is not None else "USD"


def _shown_currency(budget: Budget | None, budgets: Iterable[Budget], plans: Iterable[SavedPlan]) -> str:
    """The currency a budget document's amounts are shown in: its ``budget``'s; where it has none,
    yuan when every one of the teams' ``budgets`` beside it and every one of its ``plans`` is in
    yuan (a service that counts only in yuan is not shown its spend in dollars), else US dollars.
    Where currencies mix, one sum must be said in one currency: the dollars every plan was priced
    in, so that no figure moves with today's rate."""
    if budget is not None:
        return _currency(budget)
    kinds = {*(_currency(b) for b in budgets), *(p.display_currency for p in plans)}
    return "CNY" if kinds == {"CNY"} else "USD"


def _amount_in(budget: Budget, currency: str, rate: ExchangeRate | None) -> float | None:
    """``budget`` in ``currency``: as given when it was given in it, else at ``rate`` (the
    catalog's newest; None without one)."""
    if _currency(budget) == "CNY":
        assert budget.amount_cny is not None
        if currency == "CNY":
            return budget.amount_cny
        return None if rate is None else budget.amount_cny * rate.usd_per_unit
    if currency == "USD":
        return budget.amount_usd
    return None if rate is None else budget.amount_usd / rate.usd_per_unit


def _allocation(
    records: TeamStore,
    month: str,
    service: Budget | None,
    rate: ExchangeRate | None,
    shown: str | None = None,
) -> dict[str, Any]:
    """The teams' budgets of ``month`` against the whole ``service``'s: their sum, by how much it
    is over, and a note saying so. Not a refusal: a service may promise its teams more than it
    holds (not every team spends its budget), but the one who sets the budgets should know.

    They are added in the service's budget's currency (US dollars when it has none): a team's in
    the other currency at ``rate``, the catalog's newest, which the note names; the sums in the
    other currency are at the same rate. ``shown``: the currency where the service has no budget
    (:func:`_shown_currency`; None: US dollars)."""
    from gpuplan.i18n import _
    from gpuplan.i18n.numbers import format_amount, per_usd
    from gpuplan.i18n.phrases import sentences

    empty: dict[str, Any] = {
        "teams_budget_usd": None,
        "teams_budget_cny": None,
        "over_allocated_usd": None,
        "over_allocated_cny": None,
        "notes": [],
    }
    teams = records.budgets(month)
    if not teams:
        return empty
    currency = _currency(service) if service is not None else (shown or "USD")
    amounts = [_amount_in(b, currency, rate) for b in teams]
    mixed = any(_currency(b) != currency for b in teams)

    def both(amount: float | None) -> dict[str, float | None]:
        """``amount`` (in ``currency``) in US dollars and, where yuan are in it, in yuan."""
        per = None if rate is None else rate.usd_per_unit
        if amount is None:
            return {"usd": None, "cny": None}
        if currency == "CNY":
            return {"usd": None if per is None else round(amount * per, 2), "cny": round(amount, 2)}
        return {"usd": round(amount, 2), "cny": None if per is None or not mixed else round(amount / per, 2)}

    if any(a is None for a in amounts):  # a team's in the other currency, and no rate to add it at
        return empty
    total = sum(a for a in amounts if a is not None)
    sums = both(total)
    out = {**empty, "teams_budget_usd": sums["usd"], "teams_budget_cny": sums["cny"]}
    limit = None if service is None else _amount_in(service, currency, rate)
    if limit is None or total - limit < _ALLOCATION_TOLERANCE:
        return out
    over = total - limit
    overs = both(over)
    note = _(
        "The teams' budgets for {month} add up to {teams}, {over} more than the whole service's "
        "budget of {service}: if every team spends its budget, the service's is exceeded."
    ).format(
        month=month,
        teams=format_amount(total, currency),
        over=format_amount(over, currency),
        service=format_amount(limit, currency),
    )
    if mixed and rate is not None:
        note = sentences(
            note,
            _(
                "Budgets given in the other currency are added at 1 USD = {rate} CNY (as of {date}), "
                "the catalog's newest rate."
            ).format(rate=per_usd(rate.usd_per_unit), date=rate.as_of),
        )
    return {**out, "over_allocated_usd": overs["usd"], "over_allocated_cny": overs["cny"], "notes": [note]}


def _team_lines(
    records: TeamStore,
    month: str,
    plans: list[SavedPlan],
    rate: ExchangeRate | None,
    of_year: list[SavedPlan],
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each team's budget and planned spend of ``month`` (a team with either), by team, and of its
    year; ``plans``: the month's planned plans of every team, ``of_year`` the year's. Each line
    with its team's year as :func:`year_spend` gives it (its notes are said from it)."""
    budgets = {b.team: b for b in records.budgets(month) if b.team}
    names = sorted({*budgets, *(p.team for p in plans if p.team)})
    lines = []
    for name in names:
        mine = [p for p in plans if p.team == name]
        budget = budgets.get(name)
        spend, year = _month_and_year(
            records,
            month,
            name,
            budget,
            mine,
            [p for p in of_year if p.team == name],
            rate,
            _shown_currency(budget, [], mine),
        )
        lines.append(({"team": name, **{k: spend[k] for k in _TEAM_LINE}, **_year_fields(year)}, year))
    return lines


#: What a team's line in the whole service's budget document holds.
_TEAM_LINE = (
    "currency",
    "display_currency",
    "budget_usd",
    "budget_cny",
    "planned_usd",
    "planned_cny",
    "planned_current_usd",
    "planned_current_cny",
    "stale_price_plans",
    "unknown_current_cost_plans",
    "unknown_cost_plans",
    "remaining_usd",
    "remaining_cny",
    "used_pct",
)


#: The first plan document version that prices a service by its day (``documents/plan.py``): a
#: service's cost in an older one is its peak fleet all month.
_DAY_PRICED_VERSION = 3


def plan_cost_basis(plan: SavedPlan, currency: str = "USD", per_cny: float | None = None) -> dict[str, Any]:
    """What a saved plan's month cost is, for a service, as the budget counts it: ``cost_basis``
    (``autoscaled_day``: the fleet its day needs, with ``peak_fleet_month_cost_usd`` beside it as
    the bound; ``peak_fleet``: its peak fleet all month; None: a job, priced by its runs) and
    ``cost_basis_words``, in the reader's language, its amount in ``currency`` (yuan at
    ``per_cny``, US dollars per yuan, the rate the plan's yuan are counted at; dollars where it is
    unknown). A plan saved before plan document version 3 priced every service as its peak fleet:
    said, and that planning it again prices its day."""
    from gpuplan.i18n import _
    from gpuplan.i18n.numbers import format_amount

    def money(usd: float) -> str:
        if currency == "CNY" and per_cny:
            return format_amount(usd / per_cny, "CNY")
        return format_amount(usd, "USD")

    rec = plan.recommended or {}
    none: dict[str, Any] = {"cost_basis": None, "peak_fleet_month_cost_usd": None, "cost_basis_words": ""}
    if not isinstance(rec, dict) or rec.get("service") is None:
        return none
    version = plan.plan_version
    if version is not None and version < _DAY_PRICED_VERSION:
        return {
            **none,
            "cost_basis": "peak_fleet",
            "cost_basis_words": _(
                "its peak fleet all month: planned before gpuplan priced a service by its day (plan "
                "document version {version}); planning it again prices the fleet its day needs, where "
                "its autoscaler scales down (serving.min_replicas and a mean below its peak)"
            ).format(version=version),
        }
    peak = rec.get("peak_fleet_cost_usd")
    if isinstance(peak, int | float) and not isinstance(peak, bool):
        month_peak = round(float(peak) * plan.runs_per_month, 2)
        day = rec.get("service_day")
        hours = day.get("schedule") if isinstance(day, dict) else None
        if isinstance(hours, dict):
            # on a schedule (plan document version 5): its hours, each day's start-up included
            return {
                "cost_basis": "autoscaled_day",
                "peak_fleet_month_cost_usd": month_peak,
                "cost_basis_words": _(
                    "its scheduled hours, {hours} {days} ({zone}), each day's start-up included; its "
                    "fleet all month, {peak}, is the bound where it is not taken down outside them"
                ).format(
                    hours=str(hours.get("hours", ""))[:20],
                    days=",".join(str(d)[:3] for d in hours.get("days", []) if isinstance(d, str))[:40],
                    zone=str(hours.get("time_zone", ""))[:60],
                    peak=money(month_peak),
                ),
            }
        return {
            "cost_basis": "autoscaled_day",
            "peak_fleet_month_cost_usd": month_peak,
            "cost_basis_words": _(
                "the autoscaled day: the fleet its day needs, its start-ups included; its peak fleet all "
                "month, {peak}, is the bound where the autoscaler does not scale down as assumed"
            ).format(peak=money(month_peak)),
        }
    return {**none, "cost_basis": "peak_fleet", "cost_basis_words": _("its peak fleet all month")}


#: The first plan document version whose storage prices each instance's launch disk
#: (``documents/plan.py``): an older one's prices the bytes stored alone.
_LAUNCH_DISK_VERSION = 6


def plan_storage_basis(plan: SavedPlan) -> dict[str, Any]:
    """What a saved plan's storage prices, as of its document's version: ``storage_basis``
    (``launch_disk`` from plan document version 6; ``stored_bytes`` before it; None: no version
    stated) and, for an older plan, ``storage_basis_words`` saying so in the reader's language, so
    that its storage is not read against a newer plan's as if it had been priced alike."""
    from gpuplan.i18n import _

    version = plan.plan_version
    if version is None:
        return {"storage_basis": None, "storage_basis_words": ""}
    if version >= _LAUNCH_DISK_VERSION:
        return {"storage_basis": "launch_disk", "storage_basis_words": ""}
    return {
        "storage_basis": "stored_bytes",
        "storage_basis_words": _(
            "its storage prices the bytes it stores (plan document version {version}); planning it "
            "again prices each instance's launch disk, the size deploy launches it with, which costs more"
        ).format(version=version),
    }


def plan_cost_cny(plan: SavedPlan, rate: ExchangeRate | None) -> float | None:
    """The month's cost of ``plan`` in yuan: its US dollars at the CNY rate the plan was priced at
    (prices kept in yuan were converted to dollars at it, so this is their yuan as they were); at
    ``rate`` (the catalog's newest) for a plan that recorded none. None: cost unknown, or no rate."""
    return _in_cny(plan_month_of(plan).total_usd, plan, rate)


def _in_cny(usd: float | None, plan: SavedPlan, rate: ExchangeRate | None) -> float | None:
    """``usd``, a month of ``plan``, in yuan at the rate its yuan are counted at
    (:func:`plan_cost_cny`); None: unknown, or no rate."""
    per = _plan_usd_per_cny(plan, rate)
    return None if usd is None or per is None else usd / per


def _plan_usd_per_cny(plan: SavedPlan, rate: ExchangeRate | None) -> float | None:
    """The US dollars per yuan ``plan``'s yuan are counted at (:func:`plan_cost_cny`): the rate it
    was priced at, else ``rate``'s; None: neither."""
    return plan.usd_per_cny or (rate.usd_per_unit if rate is not None else None)


def _spend(
    month: str,
    budget: Budget | None,
    plans: list[SavedPlan],
    rate: ExchangeRate | None,
    shown: str | None = None,
) -> dict[str, Any]:
    """``budget`` against the spend of ``plans`` (planned ones): cost times runs, where known, in the
    currency the budget was given in. A budget in US dollars is compared with the plans' dollars.
    One in yuan is compared with the plans' yuan (:func:`plan_cost_cny`), so that neither moves
    when the rate does; its dollar figures are the yuan ones at ``rate``, the catalog's newest.
    With no budget, the spend is counted in ``shown`` (:func:`_shown_currency`; None: US dollars),
    in yuan as a yuan budget counts it."""
    currency = _currency(budget) if budget is not None else (shown or "USD")
    if currency == "USD":
        months = [plan_month_of(p).total_usd for p in plans]
        currents = [current_month_of(p).total_usd for p in plans]
        known = [m for m in months if m is not None]
        known_current = [m for m in currents if m is not None]
        planned = _known_sum(known, len(plans))
        current = _known_sum(known_current, len(plans))
        amount = budget.amount_usd if budget else None
        figures: dict[str, Any] = {
            "budget_usd": amount,
            "budget_cny": None,
            "planned_usd": planned,
            "planned_cny": None,
            "planned_current_usd": current,
            "planned_current_cny": None,
            "remaining_usd": _less(amount, planned),
            "remaining_cny": None,
        }
    else:
        costs = [plan_cost_cny(p, rate) for p in plans]
        currents = [_in_cny(current_month_of(p).total_usd, p, rate) for p in plans]
        known = [c for c in costs if c is not None]
        known_current = [c for c in currents if c is not None]
        amount = budget.amount_cny if budget is not None else None
        planned = _known_sum(known, len(plans))
        current = _known_sum(known_current, len(plans))

        def usd(cny: float | None) -> float | None:
            return None if rate is None or cny is None else round(cny * rate.usd_per_unit, 2)

        figures = {
            "budget_usd": usd(amount),
            "budget_cny": amount,
            "planned_usd": usd(planned),
            "planned_cny": planned,
            "planned_current_usd": usd(current),
            "planned_current_cny": current,
            "remaining_usd": usd(_less(amount, planned)),
            "remaining_cny": _less(amount, planned),
        }
    return {
        "month": month,
        "currency": currency if budget else None,
        "display_currency": currency,
        **figures,
        "unknown_cost_plans": len(plans) - len(known),
        "stale_price_plans": sum(current_option(p)[0] for p in plans),
        "unknown_current_cost_plans": len(plans) - len(known_current),
        "used_pct": round(planned / amount * 100, 1) if amount and planned is not None else None,
        "note": _budget_note(budget, rate) if budget else None,
        "set_by": budget.set_by if budget else None,
        "set_at": budget.set_at if budget else None,
    }


def _less(amount: float | None, planned: float | None) -> float | None:
    """What ``amount`` (a budget) leaves after ``planned``; None where either is unknown: a month
    whose plans' costs are all unknown has no remaining figure, not the whole budget."""
    return None if amount is None or planned is None else round(amount - planned, 2)


def _known_sum(known: list[float], plans: int) -> float | None:
    """The sum of ``known``, the figures known of ``plans`` plans; None where there were plans and
    not one figure is known: unknown, never 0 (no plans at all cost 0)."""
    return None if plans and not known else round(sum(known), 2)


def _budget_note(budget: Budget, rate: ExchangeRate | None) -> str:
    """The budget's note as its reader reads it: for a budget given in yuan, the line that states
    it in US dollars at ``rate`` (the catalog's newest) and how it is compared, in the current
    language, before the setter's own words."""
    if _currency(budget) != "CNY":
        return budget.note
    from gpuplan.i18n import _
    from gpuplan.i18n.phrases import sentences

    assert budget.amount_cny is not None
    compared = _(
        "It is compared with the plans' costs in yuan: each plan's US dollars at the CNY rate that "
        "plan was priced at, which gives prices kept in yuan back as they were."
    )
    if rate is None:
        said = _("Budget ¥{cny:,.2f}; the catalog has no CNY rate to state it in US dollars.").format(
            cny=budget.amount_cny
        )
    else:
        from gpuplan.plan.build_inputs import cny_in_usd

        _usd, said = cny_in_usd(budget.amount_cny, rate)
    said = sentences(said, compared)
    return f"{said} · {budget.note}" if budget.note else said


def _same_option(option: dict[str, Any], candidates: list[dict[str, Any]]) -> dict[str, Any] | None:
    keys = ("provider", "region", "instance_type", "pricing", "nodes", "gpu_count")
    for c in candidates:
        if all(c.get(k) == option.get(k) for k in keys):
            return c
    return None


def _change(
    p: SavedPlan,
    store: Store,
    scratch: Path,
    plan: Callable[[PlanRequest, Workload], dict[str, Any]],
    rate: ExchangeRate | None,
) -> dict[str, Any]:
    from gpuplan.errors import GpuplanError
    from gpuplan.i18n.error_text import error_text

    then = p.recommended or {}
    age = store.age_of(p.prices_as_of, _plan_gpu(p))
    item: dict[str, Any] = {
        "plan_id": p.id,
        "workload": p.workload,
        "month": p.month,
        "recommended": option_label(then),
        "then_usd": p.total_cost_usd,
        "then_as_of": p.prices_as_of,
        "then_age_days": age.age_days,
        "then_staleness": age.staleness,
        "now_usd": None,
        "change_pct": None,
        "best_now_usd": None,
        "best_now": None,
        "note": None,
    }
    from gpuplan.catalog.team_store import TeamStore

    spec = TeamStore(store.engine).workload(p.workload, p.workload_version).spec
    request = PlanRequest(
        workload=spec["workload"], hf_config_json=spec.get("hf_config_json"), **p.constraints
    )
    try:
        workload = materialize(request.workload, request.hf_config_json, scratch)
        best = plan(request, workload).get("recommended")
        item["best_now_usd"], item["best_now"] = (best or {}).get("total_cost_usd"), option_label(best)
        if then:
            # The same option on today's prices: planned on its provider, region and pricing only, and
            # without any budget (a price rise past it must show as a rise, not as "gone") — the
            # workload file's own included: a request's None keeps the workload's, and a plan saved
            # with budget_usd 100,000 of a workload saying 40,000 had read "now: none under $40,000"
            # beside today's best, the same option at the same price.
            unbudgeted = _without_budget(request.workload)
            same = request.model_copy(
                update={
                    "workload": unbudgeted,
                    "providers": [then["provider"]],
                    "regions": [then["region"]],
                    "pricing": [then["pricing"]],
                    "budget_usd": None,
                    "budget_cny": None,
                    "top": 100,
                }
            )
            same_workload = (
                workload
                if unbudgeted is request.workload
                else materialize(unbudgeted, request.hf_config_json, scratch)
            )
            doc = plan(same, same_workload)
            now = _same_option(then, [doc["recommended"], *doc.get("options", [])])
            if now is None:
                from gpuplan.i18n import _

                item["note"] = _("the option is no longer offered")
            else:
                item["now_usd"] = now.get("total_cost_usd")
    except GpuplanError as e:
        item["note"] = error_text(e, PlanRequest.OPTION_FIELDS)  # the options as its fields
    then_usd, now_usd = item["then_usd"], item["now_usd"]
    if then_usd and now_usd is not None:
        item["change_pct"] = round((now_usd - then_usd) / then_usd * 100, 2)
    return {**item, **_change_cny(p, item, rate)}


def _without_budget(workload: dict[str, Any]) -> dict[str, Any]:
    """The workload's fields without its own budget (``constraints.budget_usd``/``budget_cny``): a
    copy where it gives one, else the same dict."""
    constraints = workload.get("constraints")
    if not isinstance(constraints, dict) or not ({"budget_usd", "budget_cny"} & constraints.keys()):
        return workload
    kept = {k: v for k, v in constraints.items() if k not in ("budget_usd", "budget_cny")}
    return {**workload, "constraints": kept}


def _change_cny(p: SavedPlan, item: dict[str, Any], rate: ExchangeRate | None) -> dict[str, Any]:
    """A price change in yuan, for a team that budgets in yuan: the cost then as its budget counts
    it (its dollars at the rate the plan was priced at, :func:`plan_cost_cny`), today's costs at
    ``rate`` (the catalog's newest, the document's ``exchange_rate``), and the change between them
    (the rate's move included: what the yuan budget sees). None where a figure or rate is unknown."""
    per_then = _plan_usd_per_cny(p, rate)
    now = rate.usd_per_unit if rate is not None else None

    def yuan(usd: float | None, per: float | None) -> float | None:
        return None if usd is None or per is None else round(usd / per, 2)

    then_cny, now_cny = yuan(item["then_usd"], per_then), yuan(item["now_usd"], now)
    return {
        "then_cny": then_cny,
        "then_usd_per_cny": per_then,
        "now_cny": now_cny,
        "change_cny_pct": (
            round((now_cny - then_cny) / then_cny * 100, 2) if then_cny and now_cny is not None else None
        ),
        "best_now_cny": yuan(item["best_now_usd"], now),
    }


@dataclass(frozen=True)
class PriceCheckScope:
    """Whose saved plans a price check plans again: every plan (``every_team``), else ``team``'s
    (None: the plans of no team)."""

    team: str | None
    every_team: bool = False

    def holds(self, p: SavedPlan) -> bool:
        return self.every_team or p.team == self.team


def price_check_scope(team: str | None, *, caller_team: str | None, admin: bool) -> PriceCheckScope:
    """The plans a price check asked for ``team`` (None: not named) is of, for a caller of
    ``caller_team``: an admin's, the team named or every plan; anyone else's, its own team's (a
    token of no team: the plans of no team). Another team's are ForbiddenError: each is planned
    again on the check (seconds each), and one team's costs are no other team's to watch."""
    if admin:
        return PriceCheckScope(team, every_team=team is None)
    if team is None or team == caller_team:
        return PriceCheckScope(caller_team)
    from gpuplan.errors import ForbiddenError

    if caller_team is None:
        raise ForbiddenError.worded(
            N_(
                "team {team!r}'s plans: only its tokens or an admin check their prices; your token is "
                "of no team: leave team out to check the plans of no team"
            ),
            team=team,
        )
    raise ForbiddenError.worded(
        N_(
            "team {team!r}'s plans: only its tokens or an admin check their prices; leave team out to "
            "check team {own!r}'s"
        ),
        team=team,
        own=caller_team,
    )


def price_changes(
    store: Store,
    scratch: Path,
    *,
    lang: str,
    answers: AnswerCache | None = None,
    limit: int = 50,
    scope: PriceCheckScope,
) -> dict[str, Any]:
    """Each planned saved plan of ``scope`` (newest ``limit``) priced again on today's catalog, in
    ``lang``; each in the currency of the budget it counts in (``currency``: its team's for its
    month, a plan of no team the whole service's; US dollars where none is set).

    Each plan asked of today's catalog goes through the plan cache (:func:`cached_plan_text`), so
    the answer a request already got today on the same catalog is not computed again: the plan a
    saved plan was made with today, the same workload and constraints saved for several months,
    another plan sharing its option, a second check."""
    from gpuplan.catalog.team_store import TeamStore, now_iso

    def plan(request: PlanRequest, workload: Workload) -> dict[str, Any]:
        text = cached_plan_text(store, request, workload, lang=lang, answers=answers)
        found: dict[str, Any] = json.loads(text)
        return found

    records = TeamStore(store.engine)
    asked = None if scope.every_team else scope.team
    found = records.plans(team=asked)
    plans = [p for p in found if p.status == "planned" and scope.holds(p)][:limit]
    rate = store.find_exchange_rate("CNY")
    currencies: dict[tuple[str, str | None], str] = {}
    for p in plans:  # one budget read per month and team
        if (p.month, p.team) not in currencies:
            currencies[(p.month, p.team)] = _currency(records.budget(p.month, p.team))
    return {
        "checked_at": now_iso(),
        "plans": [
            {
                **_change(p, store, scratch, plan, rate),
                "team": p.team,
                "currency": currencies[(p.month, p.team)],
            }
            for p in plans
        ],
        "exchange_rate": _rate_where_yuan(
            rate, "CNY" in currencies.values() or _yuan_involved(store, [], plans)
        ),
    }


def this_month() -> str:
    return date.today().strftime("%Y-%m")
