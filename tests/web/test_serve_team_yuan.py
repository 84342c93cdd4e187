"""A service whose teams count in yuan is shown its spend in yuan where no budget fixes the currency:
the whole service with no budget of its own, each plan's month at the rate it was priced at, and a
service plan's cost basis in the currency the plan was made in."""

from __future__ import annotations

import pytest
from serve_helpers import Service, bert_workload
from test_serve_budget_day import CHAT, _service_plan

MONTH = "2027-01"


def _team_token(service: Service, name: str, team: str) -> dict[str, str]:
    from gpuplan.catalog import open_store
    from gpuplan.catalog.team_store import TeamStore

    store = open_store(service.db)
    try:
        token = TeamStore(store.engine).create_token(name, "plan", team=team, rate_per_minute=10_000)[0]
    finally:
        store.close()
    return {"Authorization": "Bearer " + token}


def _team_plan(service: Service, who: dict[str, str], name: str, currency: str) -> dict:
    r = service.client.post(
        "/api/v1/workloads", json={"name": name, "workload": bert_workload()}, headers=who
    )
    assert r.status_code == 201, r.text
    r = service.client.post(
        "/api/v1/plans", json={"name": name, "month": MONTH, "currency": currency}, headers=who
    )
    assert r.status_code == 201, r.text
    return r.json()


def _teams_in_yuan(service: Service, currency: str = "CNY") -> list[dict]:
    """Teams rec (¥50,000) and support (¥100,000), a plan each made in ``currency``; no budget of
    the whole service."""
    admin = service.auth("admin")
    plans = []
    for team, amount in (("rec", "5万"), ("support", 100_000)):
        who = _team_token(service, f"{team}-lead", team)
        plans.append(_team_plan(service, who, f"{team}-embed", currency))
        r = service.client.put(
            f"/api/v1/budget/{MONTH}?team={team}", json={"amount_cny": amount}, headers=admin
        )
        assert r.status_code == 200, r.text
    return plans


def test_the_whole_services_spend_is_in_yuan_where_every_team_counts_in_yuan(service: Service) -> None:
    # was: no whole-service budget, so "Budget: none · Planned: $3,754.11" though every team budgets
    # and plans in yuan
    plans = _teams_in_yuan(service)
    doc = service.client.get(f"/api/v1/budget/{MONTH}", headers=service.auth("read")).json()
    assert doc["currency"] is None and doc["display_currency"] == "CNY"
    # each plan at the rate it was priced at, as a yuan budget counts it
    assert doc["planned_cny"] == pytest.approx(sum(p["month_cost_cny"] for p in plans), abs=0.011)
    assert doc["planned_cny"] > 0 and doc["teams_budget_cny"] == 150_000
    assert {t["team"]: t["display_currency"] for t in doc["teams"]} == {"rec": "CNY", "support": "CNY"}
    # one team's own document, no budget of its own, its plans in yuan: in yuan too
    zh = {**service.auth("read"), "Accept-Language": "zh-CN"}
    other = service.client.get("/api/v1/budget/2027-02?team=rec", headers=zh).json()
    assert other["display_currency"] == "USD"  # no plan, no budget: nothing in yuan to go by


def test_mixed_currencies_are_shown_in_dollars(service: Service) -> None:
    # a plan made in dollars beside the yuan budgets: one sum in the dollars every plan was priced in
    _teams_in_yuan(service)
    lone = service.client.post(
        "/api/v1/workloads", json={"name": "lone", "workload": bert_workload()}, headers=service.auth("plan")
    )
    assert lone.status_code == 201, lone.text
    r = service.client.post(
        "/api/v1/plans", json={"name": "lone", "month": MONTH}, headers=service.auth("plan")
    )
    assert r.status_code == 201, r.text
    doc = service.client.get(f"/api/v1/budget/{MONTH}", headers=service.auth("read")).json()
    assert doc["display_currency"] == "USD" and doc["planned_cny"] is None and doc["planned_usd"] > 0
    # each team's line is still in its budget's yuan
    assert {t["display_currency"] for t in doc["teams"]} == {"CNY"}
    # and a dollar service budget fixes the currency, whatever the teams count in
    r = service.client.put(
        f"/api/v1/budget/{MONTH}", json={"amount_usd": 10_000}, headers=service.auth("admin")
    )
    assert r.json()["display_currency"] == "USD" and r.json()["currency"] == "USD"


def test_a_service_plans_cost_basis_is_in_the_currency_it_was_made_in(service: Service) -> None:
    # was: "…its peak fleet all month, $4,594.81, is the bound…" for a plan made with currency CNY
    from gpuplan.i18n.numbers import format_amount

    r = service.client.post(
        "/api/v1/workloads", json={"name": "chat", "workload": CHAT}, headers=service.auth("plan")
    )
    assert r.status_code == 201, r.text
    r = service.client.post(
        "/api/v1/plans",
        json={"name": "chat", "month": MONTH, "currency": "CNY"},
        headers=service.auth("plan"),
    )
    # planned at once, or as a job done inline
    assert r.status_code in (201, 202), r.text[:500]
    saved = r.json() if r.status_code == 201 else r.json()["result"]
    per_cny = saved["usd_per_cny"]
    assert per_cny, saved
    peak = saved["peak_fleet_month_cost_usd"]
    yuan = format_amount(peak / per_cny, "CNY")
    zh = {**service.auth("read"), "Accept-Language": "zh-CN"}
    listed = service.client.get(f"/api/v1/plans?month={MONTH}", headers=zh).json()["plans"]
    doc = service.client.get(f"/api/v1/budget/{MONTH}", headers=zh).json()
    for item in (saved, listed[0], doc["plans"][0]):
        assert yuan in item["cost_basis_words"] and "$" not in item["cost_basis_words"], item[
            "cost_basis_words"
        ]
    # a plan made in dollars says dollars, as before
    _service_plan(service, {**CHAT, "name": "chat2"}, name="chat2")
    listed = service.client.get(f"/api/v1/plans?month={MONTH}", headers=service.auth("read")).json()["plans"]
    words = next(p for p in listed if p["workload"] == "chat2")["cost_basis_words"]
    assert "$" in words and "¥" not in words, words
