"""A year's budget (``PUT /api/v1/budget/2027``): kept as a month's is, in dollars or yuan, the
whole service's or a team's; the month's document says the year's budget, its planned spend so far
(each month's as the month's document counts it) and what remains, and a note when it is over."""

from __future__ import annotations

import pytest
from serve_helpers import Service
from test_serve_team_budget import _workloads
from test_serve_team_yuan import _team_plan, _team_token


def _usd(amount: float) -> str:
    """``amount`` in dollars as the notes write it ($0.13; under a dime, $0.080)."""
    from gpuplan.i18n.numbers import format_amount

    return format_amount(amount, "USD")


def _plan(service: Service, name: str, month: str, currency: str = "USD") -> dict:
    _workloads(service, name)
    body = {"name": name, "month": month, "currency": currency}
    r = service.client.post("/api/v1/plans", json=body, headers=service.auth("plan"))
    assert r.status_code == 201, r.text
    return r.json()


def test_a_years_budget_in_yuan_is_set_once_and_counted_against_its_months(service: Service) -> None:
    # was: PUT /api/v1/budget/2027 was refused ("give a month as YYYY-MM"): ¥1,200,000 for the year
    # was entered month by month, and no figure said what the year's plans came to against it
    c, admin = service.client, service.auth("admin")
    r = c.put("/api/v1/budget/2027", json={"amount_cny": 1_200_000, "note": "FY2027"}, headers=admin)
    assert r.status_code == 200, r.text
    year = r.json()
    assert (year["year"], year["currency"], year["budget_cny"]) == ("2027", "CNY", 1_200_000)
    assert (year["planned_cny"], year["remaining_cny"], year["months"]) == (0, 1_200_000, [])
    assert year["budget_usd"] > 0 and "FY2027" in year["note"]
    jan, mar = _plan(service, "embed", "2027-01", "CNY"), _plan(service, "tagger", "2027-03", "CNY")
    _plan(service, "other-year", "2028-01", "CNY")  # another year's: not counted
    months = {
        m: c.get(f"/api/v1/budget/{m}", headers=service.auth("read")).json() for m in ("2027-01", "2027-03")
    }
    doc = months["2027-03"]
    # each month's planned spend as the month's document counts it, added, in the year's yuan
    want = round(sum(months[m]["planned_cny"] for m in months), 2)
    assert want == pytest.approx(jan["month_cost_cny"] + mar["month_cost_cny"], abs=0.02) and want > 0
    assert doc["year_budget_cny"] == 1_200_000 and doc["year_planned_cny"] == want
    assert doc["year_remaining_cny"] == round(1_200_000 - want, 2)
    assert doc["year_budget_usd"] == year["budget_usd"] and doc["year_planned_usd"] > 0
    got = c.get("/api/v1/budget/2027", headers=service.auth("read")).json()
    assert got["planned_cny"] == want and [m["month"] for m in got["months"]] == ["2027-01", "2027-03"]
    # the audit log has it, as a month's
    entries = c.get("/api/v1/audit", headers=admin).json()["entries"]
    [entry] = [e for e in entries if e["action"] == "budget.set" and e["target"] == "2027"]
    assert entry["details"]["amount_cny"] == 1_200_000 and entry["details"]["usd_per_cny"] > 0


def test_a_year_over_its_budget_is_noted_and_a_teams_year_is_its_own(service: Service) -> None:
    c, admin = service.client, service.auth("admin")
    who = _team_token(service, "rec-lead", "rec")
    plan = _team_plan(service, who, "rec-embed", "USD")  # in 2027-01
    r = c.put("/api/v1/budget/2027?team=rec", json={"amount_usd": 0.01}, headers=admin)
    assert r.status_code == 200, r.text
    year = r.json()
    assert year["team"] == "rec" and year["planned_usd"] == pytest.approx(plan["month_cost_usd"], abs=0.01)
    assert year["remaining_usd"] < 0 and len(year["notes"]) == 1 and "2027" in year["notes"][0]
    doc = c.get("/api/v1/budget/2027-01?team=rec", headers=service.auth("read")).json()
    assert doc["year_budget_usd"] == 0.01 and doc["year_remaining_usd"] == year["remaining_usd"]
    assert any("Team rec is over its budget for the year 2027 by $" in n for n in doc["notes"]), doc["notes"]
    # the whole service has no year's budget: its figures say none, its team's line says the team's
    service_doc = c.get("/api/v1/budget/2027-01", headers=service.auth("read")).json()
    assert service_doc["year_budget_usd"] is None and service_doc["year_remaining_usd"] is None
    assert service_doc["year_planned_usd"] == doc["year_planned_usd"]
    [line] = service_doc["teams"]
    assert line["year_budget_usd"] == 0.01 and line["year_remaining_usd"] == year["remaining_usd"]
    # a Chinese reader reads the note in Chinese
    zh = c.get("/api/v1/budget/2027?team=rec", headers={**service.auth("read"), "Accept-Language": "zh-CN"})
    assert "2027" in zh.json()["notes"][0] and "rec" in zh.json()["notes"][0]


def test_the_whole_services_month_says_a_teams_year_over_its_budget(service: Service) -> None:
    # was: the whole service's 2027-01 said team rec's month was within its $100 and nothing of its
    # year, its plans of the month ($0.13) against its year's $0.05
    c, admin, read = service.client, service.auth("admin"), service.auth("read")
    who = _team_token(service, "rec-lead", "rec")
    _team_plan(service, who, "rec-embed", "USD")  # in 2027-01
    c.put("/api/v1/budget/2027-01?team=rec", json={"amount_usd": 100}, headers=admin)
    c.put("/api/v1/budget/2027?team=rec", json={"amount_usd": 0.05}, headers=admin)
    whole = c.get("/api/v1/budget/2027-01", headers=read).json()
    [line] = whole["teams"]
    planned = line["year_planned_usd"]
    assert planned > 0.05 and line["year_remaining_usd"] == round(0.05 - planned, 2)
    # the team's own document says it so: the whole service's says the same words of the team
    [said] = [n for n in c.get("/api/v1/budget/2027?team=rec", headers=read).json()["notes"]]
    over, usd = planned - 0.05, _usd
    assert said.startswith(f"Team rec is over its budget for the year 2027 by {usd(over)} ("), said
    assert said.endswith(f"{usd(planned)} planned against $0.050."), said
    assert [n for n in whole["notes"] if "2027-01" not in n] == [said]  # its month is within budget
    # in Chinese, the year named as a year
    zh = c.get("/api/v1/budget/2027-01?lang=zh", headers=read).json()["notes"]
    assert any(n.startswith("团队 rec 已超出其 2027 年全年的预算") for n in zh), zh
    # a year within its budget: no note
    c.put("/api/v1/budget/2027?team=rec", json={"amount_usd": 1_000_000}, headers=admin)
    notes = c.get("/api/v1/budget/2027-01", headers=read).json()["notes"]
    assert not [n for n in notes if "year" in n], notes


def test_a_teams_year_of_unknown_cost_is_no_note_and_null(service: Service) -> None:
    # a year whose plans' costs are all unknown is not over a budget of $0.01, nor $0.00 planned
    _plan_of_unknown_cost(service, team="nlp")
    c, read = service.client, service.auth("read")
    whole = c.get("/api/v1/budget/2029-04", headers=read).json()
    [line] = whole["teams"]
    assert (line["team"], line["year_budget_usd"]) == ("nlp", 5000)
    assert line["year_planned_usd"] is None and line["year_remaining_usd"] is None
    c.put("/api/v1/budget/2029?team=nlp", json={"amount_usd": 0.01}, headers=service.auth("admin"))
    notes = c.get("/api/v1/budget/2029-04", headers=read).json()["notes"]
    assert not [n for n in notes if "over" in n], notes


def test_a_plan_that_takes_its_teams_year_over_its_budget_says_so(service: Service) -> None:
    # was: a plan taking team rec's 2027 to $0.13 against its year's $0.05 was answered without a
    # word of the year (only a month over its month's budget was said)
    c, admin = service.client, service.auth("admin")
    who = _team_token(service, "rec-lead", "rec")
    c.put("/api/v1/budget/2027?team=rec", json={"amount_usd": 0.05}, headers=admin)
    c.put("/api/v1/budget/2027", json={"amount_cny": 0.01}, headers=admin)  # the whole service's, in yuan
    saved = _team_plan(service, who, "rec-embed", "USD")  # in 2027-01
    team_note, service_note = saved["budget_notes"]
    planned = saved["month_cost_usd"]
    assert team_note.startswith(f"Team rec is over its budget for the year 2027 by {_usd(planned - 0.05)} (")
    assert team_note.endswith(f"{_usd(planned)} planned against $0.050."), team_note
    # the whole service's year, in the yuan its budget was given in
    assert service_note.startswith("The whole service is over its budget for the year 2027 by ¥")
    assert service_note.endswith(f"¥{saved['month_cost_cny']:,.2f} planned against ¥0.010."), service_note
    # the same in Chinese, to a Chinese saver
    _workloads_of(service, who, "rec-embed-zh")
    r = c.post("/api/v1/plans?lang=zh", json={"name": "rec-embed-zh", "month": "2027-02"}, headers=who)
    assert r.status_code == 201, r.text
    zh = r.json()["budget_notes"]
    assert len(zh) == 2 and zh[0].startswith("团队 rec 已超出其 2027 年全年的预算"), zh
    assert zh[1].startswith("整个服务已超出其 2027 年全年的预算 ¥"), zh


def _workloads_of(service: Service, who: dict[str, str], name: str) -> None:
    """``name``, the example workload, saved by ``who``."""
    from serve_helpers import bert_workload

    r = service.client.post(
        "/api/v1/workloads", json={"name": name, "workload": bert_workload()}, headers=who
    )
    assert r.status_code == 201, r.text


def test_the_budget_documents_say_their_schema_version_first(service: Service) -> None:
    # was: a month's budget document began with its year's figures, schema_version seventh
    c, read = service.client, service.auth("read")
    for period in ("2027-01", "2027"):
        doc = c.get(f"/api/v1/budget/{period}", headers=read).json()
        assert next(iter(doc)) == "schema_version", list(doc)[:8]


def _plan_of_unknown_cost(service: Service, team: str | None = None) -> str:
    """A plan for 2029-04 that had no feasible option (its cost unknown), ``team``'s, and a budget
    of $5,000 for 2029, the team's or the whole service's; the ``?team=`` query of its documents."""
    from gpuplan.catalog import open_store
    from gpuplan.catalog.team_store import TeamStore

    store = open_store(service.db)
    try:
        records = TeamStore(store.engine)
        if team is not None:
            records.create_token(f"{team}-lead", "plan", team=team)
        workload = records.save_workload("distil", {"workload": {"name": "distil"}}, actor="alice", team=team)
        records.save_plan(
            workload,
            month="2029-04",
            constraints={},
            document={"schema_version": 4, "recommended": None},
            catalog_import_id=None,
            actor="alice",
            team=team,
        )
    finally:
        store.close()
    q = "" if team is None else f"?team={team}"
    r = service.client.put(
        f"/api/v1/budget/2029{q}", json={"amount_usd": 5000}, headers=service.auth("admin")
    )
    assert r.status_code == 200, r.text
    return q


def test_a_year_whose_plans_costs_are_all_unknown_has_no_planned_figure(service: Service) -> None:
    c, q = service.client, _plan_of_unknown_cost(service)
    year = c.get(f"/api/v1/budget/2029{q}", headers=service.auth("read")).json()
    assert year["planned_usd"] is None and year["remaining_usd"] is None and year["unknown_cost_plans"] == 1
    doc = c.get(f"/api/v1/budget/2029-04{q}", headers=service.auth("read")).json()
    assert doc["year_planned_usd"] is None and doc["year_remaining_usd"] is None  # never 0
    assert doc["year_budget_usd"] == 5000


@pytest.mark.parametrize("period", ["2027-13", "27", "2027-1", "02027"])
@pytest.mark.parametrize("method", ["GET", "PUT"])
def test_a_period_of_the_wrong_form_names_both_forms(service: Service, period: str, method: str) -> None:
    r = service.client.request(
        method, f"/api/v1/budget/{period}", json={"amount_usd": 1}, headers=service.auth("admin")
    )
    assert r.status_code == 400, r.text
    assert "YYYY-MM" in r.json()["error"] and "YYYY (e.g. 2027)" in r.json()["error"], r.text


def test_a_year_of_zeros_is_refused_by_the_store() -> None:
    from gpuplan.catalog.team_store import check_year
    from gpuplan.errors import InputError

    assert check_year("2027") == "2027"
    for bad in ("0000", "２０２７", "2027-01", 2027):
        with pytest.raises(InputError, match="YYYY"):
            check_year(bad)  # type: ignore[arg-type]
