"""A month's planned spend: each saved plan's cost (one run) times its runs in the month, and one
plan per workload and month (a plan saved again replaces the earlier one)."""

from __future__ import annotations

import pytest
from serve_helpers import Service, bert_workload


def _workloads(service: Service, *names: str) -> None:
    for name in names:
        r = service.client.post(
            "/api/v1/workloads",
            json={"name": name, "workload": bert_workload()},
            headers=service.auth("plan"),
        )
        assert r.status_code == 201, r.text


def _save(service: Service, name: str, month: str = "2027-01", **extra: object) -> dict:
    r = service.client.post(
        "/api/v1/plans", json={"name": name, "month": month, **extra}, headers=service.auth("plan")
    )
    assert r.status_code == 201, r.text
    return r.json()


def test_the_month_spend_is_each_plans_cost_times_its_runs(service: Service) -> None:
    # runs_per_month was refused ("Extra inputs are not permitted"): a nightly job was counted once
    c = service.client
    _workloads(service, "embed", "tagger", "lora")
    embed = _save(service, "embed", runs_per_month=30)
    tagger = _save(service, "tagger", runs_per_month=4)
    lora = _save(service, "lora")  # once, unless said
    assert (embed["runs_per_month"], tagger["runs_per_month"], lora["runs_per_month"]) == (30, 4, 1)
    assert embed["month_cost_usd"] == pytest.approx(embed["total_cost_usd"] * 30)
    doc = c.put("/api/v1/budget/2027-01", json={"amount_usd": 5000}, headers=service.auth("admin")).json()
    want = embed["total_cost_usd"] * 30 + tagger["total_cost_usd"] * 4 + lora["total_cost_usd"]
    assert doc["planned_usd"] == round(want, 2) and doc["planned_usd"] > 0
    assert doc["used_pct"] == round(doc["planned_usd"] / 5000 * 100, 1)
    listed = {p["workload"]: p for p in doc["plans"]}
    assert (listed["embed"]["runs_per_month"], listed["tagger"]["runs_per_month"]) == (30, 4)
    assert listed["embed"]["month_cost_usd"] == pytest.approx(embed["total_cost_usd"] * 30)
    # a whole number of runs, 1 to 744 (hourly through a 31-day month)
    for runs in (0, -1, 745, 2.5, True):
        r = c.post(
            "/api/v1/plans",
            json={"name": "lora", "month": "2027-01", "runs_per_month": runs},
            headers=service.auth("plan"),
        )
        assert r.status_code == 400 and r.json()["field"] == "runs_per_month", r.text
    assert _save(service, "lora", runs_per_month=744)["month_cost_usd"] == pytest.approx(
        lora["total_cost_usd"] * 744
    )


def test_a_plan_saved_again_for_its_workload_and_month_replaces_the_earlier(service: Service) -> None:
    # saving the embed plan a second time raised planned_usd by the plan's cost (counted twice)
    c = service.client
    _workloads(service, "embed", "tagger")
    first = _save(service, "embed", runs_per_month=30)
    tagger = _save(service, "tagger")
    other_month = _save(service, "embed", "2027-02")
    again = _save(service, "embed", runs_per_month=31)
    doc = c.get("/api/v1/budget/2027-01", headers=service.auth("read")).json()
    assert doc["planned_usd"] == round(again["total_cost_usd"] * 31 + tagger["total_cost_usd"], 2)
    assert sorted(p["id"] for p in doc["plans"]) == sorted([again["id"], tagger["id"]])
    status = {
        p["id"]: p["status"] for p in c.get("/api/v1/plans", headers=service.auth("read")).json()["plans"]
    }
    assert status == {
        first["id"]: "replaced",
        tagger["id"]: "planned",
        other_month["id"]: "planned",
        again["id"]: "planned",
    }
    # the other month's plan of the workload is its own
    feb = c.get("/api/v1/budget/2027-02", headers=service.auth("read")).json()
    assert [p["id"] for p in feb["plans"]] == [other_month["id"]]
    audit = c.get("/api/v1/audit", headers=service.auth("admin")).json()["entries"]
    saved = next(e for e in audit if e["action"] == "plan.save" and e["details"]["plan_id"] == again["id"])
    assert saved["details"]["replaced"] == [first["id"]] and saved["details"]["runs_per_month"] == 31
    # cancelling the newest takes the workload out of the month: the replaced one does not come back
    c.post(f"/api/v1/plans/{again['id']}/cancel", headers=service.auth("plan"))
    after = c.get("/api/v1/budget/2027-01", headers=service.auth("read")).json()
    assert [p["id"] for p in after["plans"]] == [tagger["id"]]


def _team_tokens(service: Service, **teams: str | None) -> dict[str, dict[str, str]]:
    """A plan-scope token of each team (name: team; None: no team), as headers."""
    from gpuplan.catalog import open_store
    from gpuplan.catalog.team_store import TeamStore

    store = open_store(service.db)
    try:
        made = {n: TeamStore(store.engine).create_token(n, "plan", team=team)[0] for n, team in teams.items()}
    finally:
        store.close()
    return {n: {"Authorization": f"Bearer {token}"} for n, token in made.items()}


def test_a_teams_budget_counts_its_own_plans_and_the_service_sees_every_team(service: Service) -> None:
    # one budget for the whole service, and no way to tell whose plans spent it
    c, admin, read = service.client, service.auth("admin"), service.auth("read")
    h = _team_tokens(service, alice="nlp", bob="vision")
    _workloads(service, "embed", "tagger")

    def save(who: dict[str, str], name: str, runs: int) -> dict:
        body = {"name": name, "month": "2027-01", "runs_per_month": runs}
        r = c.post("/api/v1/plans", json=body, headers=who)
        assert r.status_code == 201, r.text
        return r.json()

    embed = save(h["alice"], "embed", 30)
    tagger = save(h["bob"], "tagger", 4)
    bob_embed = save(h["bob"], "embed", 1)  # another team's plan of the same workload: its own
    lone = _save(service, "tagger")  # a token of no team: the whole service's only
    assert (embed["team"], tagger["team"], lone["team"]) == ("nlp", "vision", None)

    nlp = c.put("/api/v1/budget/2027-01?team=nlp", json={"amount_usd": 1000}, headers=admin).json()
    assert nlp["team"] == "nlp" and nlp["budget_usd"] == 1000 and nlp["teams"] == []
    assert [p["id"] for p in nlp["plans"]] == [embed["id"]]
    assert nlp["planned_usd"] == round(embed["total_cost_usd"] * 30, 2)
    vision = c.get("/api/v1/budget/2027-01?team=vision", headers=read).json()
    assert vision["budget_usd"] is None and sorted(p["id"] for p in vision["plans"]) == sorted(
        [tagger["id"], bob_embed["id"]]
    )
    assert vision["planned_usd"] == round(tagger["total_cost_usd"] * 4 + bob_embed["total_cost_usd"], 2)

    # the whole service's: its own budget, every team's plans, each team's line beside it
    whole = c.put("/api/v1/budget/2027-01", json={"amount_cny": 30_000}, headers=admin).json()
    assert whole["team"] is None and whole["budget_cny"] == 30_000
    assert len(whole["plans"]) == 4
    assert whole["planned_usd"] == round(
        embed["month_cost_usd"]
        + tagger["month_cost_usd"]
        + bob_embed["month_cost_usd"]
        + lone["month_cost_usd"],
        2,
    )
    lines = {x["team"]: x for x in whole["teams"]}
    assert lines.keys() == {"nlp", "vision"}
    assert (lines["nlp"]["budget_usd"], lines["nlp"]["planned_usd"]) == (1000, nlp["planned_usd"])
    assert (lines["vision"]["budget_usd"], lines["vision"]["planned_usd"]) == (None, vision["planned_usd"])
    # setting the service's budget left the team's as it was
    assert c.get("/api/v1/budget/2027-01?team=nlp", headers=read).json()["budget_usd"] == 1000
    listed = c.get("/api/v1/plans?team=nlp", headers=read).json()["plans"]
    assert [p["id"] for p in listed] == [embed["id"]]


def test_only_an_admin_sets_a_teams_budget_and_a_misspelt_team_is_named(service: Service) -> None:
    c = service.client
    h = _team_tokens(service, alice="nlp")
    refused = c.put("/api/v1/budget/2027-01?team=nlp", json={"amount_usd": 10}, headers=h["alice"])
    assert refused.status_code == 403, refused.text
    typo = c.put("/api/v1/budget/2027-01?team=nlpp", json={"amount_usd": 10}, headers=service.auth("admin"))
    assert typo.status_code == 400 and "did you mean 'nlp'" in typo.json()["error"], typo.text
    read = c.get("/api/v1/budget/2027-01?team=nlpp", headers=service.auth("read"))
    assert read.status_code == 400 and "did you mean 'nlp'" in read.json()["error"], read.text
    assert c.get("/api/v1/budget/2027-01?team=nlp", headers=service.auth("read")).json()["budget_usd"] is None


def test_a_budget_given_twice_or_not_at_all_names_the_field_in_the_readers_language(service: Service) -> None:
    # was: {"error": "give the budget once: amount_usd or amount_cny", "field": null}, English
    # whatever the reader's language
    c, admin = service.client, service.auth("admin")
    both = c.put(
        "/api/v1/budget/2027-02?lang=zh", json={"amount_cny": "¥1万", "amount_usd": 100}, headers=admin
    )
    assert both.status_code == 400, both.text
    assert both.json()["field"] == "amount_cny", both.text
    assert "预算只能给一次" in both.json()["error"] and "give the budget" not in both.json()["error"], (
        both.text
    )
    none = c.put("/api/v1/budget/2027-02", json={"note": "x"}, headers=admin)
    assert none.status_code == 400 and "give the budget: amount_usd or amount_cny" in none.json()["error"]


def test_a_token_is_made_for_a_team_and_listed_with_it(fresh_db: str) -> None:
    import json

    from typer.testing import CliRunner

    from gpuplan.cli import app
    from gpuplan.errors import InputError

    runner = CliRunner()
    made = runner.invoke(
        app, ["--db", fresh_db, "serve", "token", "create", "--name", "alice", "--team", "nlp"]
    )
    assert made.exit_code == 0, made.output
    # the holder's team is said beside the name ("token for alice (read)" had left it out)
    assert "token for alice of team nlp (read);" in made.stderr
    carol = runner.invoke(app, ["--db", fresh_db, "serve", "token", "create", "--name", "carol"])
    assert "token for carol (read);" in carol.stderr
    listed = runner.invoke(app, ["--db", fresh_db, "serve", "token", "list", "--json"])
    teams = {t["name"]: t["team"] for t in json.loads(listed.stdout)["tokens"]}
    assert teams == {"alice": "nlp", "carol": None}
    text = runner.invoke(app, ["--db", fresh_db, "serve", "token", "list"]).stdout
    assert "\tteam nlp\t" in text and "\tno team\t" in text, text
    bad = runner.invoke(
        app, ["--db", fresh_db, "serve", "token", "create", "--name", "dave", "--team", "a/b"]
    )
    assert isinstance(bad.exception, InputError) and "team 'a/b': give 1 to 64 letters" in str(bad.exception)


def test_a_service_is_planned_as_a_month_and_runs_once_in_it(service: Service) -> None:
    # was: a 730-hour service plan saved with runs_per_month 30 counted 30 months in one month
    serving = {"requests_per_s": 2, "prompt_tokens": 64, "output_tokens": 16}
    r = service.client.post(
        "/api/v1/workloads",
        json={"name": "chat", "workload": {**bert_workload(), "task": "infer", "serving": serving}},
        headers=service.auth("plan"),
    )
    assert r.status_code == 201, r.text
    r = service.client.post(
        "/api/v1/plans",
        json={"name": "chat", "month": "2027-01", "runs_per_month": 30},
        headers=service.auth("plan"),
    )
    assert r.status_code == 400 and r.json()["field"] == "runs_per_month", r.text
    assert "chat is a service, planned as a month of capacity" in r.json()["error"]
    assert "\n" not in r.json()["error"]


def test_a_saved_plans_bad_option_or_unknown_workload_names_its_field(service: Service) -> None:
    # was: POST /plans answered these with field null (POST /plan named the deadline)
    _workloads(service, "w")
    for body, field, said in [
        ({"name": "w", "deadline": "6"}, "deadline", "'6' has no unit: write 6h (hours)"),
        ({"name": "w", "deadline": "6 fortnights"}, "deadline", "expected a duration like 12h"),
        ({"name": "w", "pricing": ["reserved"]}, "pricing", "did you mean"),
        ({"name": "ww"}, "name", "unknown saved workload 'ww'"),
        ({"name": "w", "version": 7}, "version", "7"),
        # was: "workload: Input should be a valid dictionary" (the field is ignored here)
        ({"workload": "w"}, "workload", 'a saved workload is planned by its name: send {"name": "w"}'),
    ]:
        r = service.client.post(
            "/api/v1/plans", json={"month": "2027-01", **body}, headers=service.auth("plan")
        )
        doc = r.json()
        assert r.status_code == 400 and doc["field"] == field, r.text
        assert said in doc["error"] and "\n" not in doc["error"], r.text


def test_teams_budgets_adding_up_past_the_services_are_set_and_said(service: Service) -> None:
    # was: the teams' budgets could add up to any amount beyond the service's own, without a word
    c, admin, read = service.client, service.auth("admin"), service.auth("read")
    _team_tokens(service, alice="nlp", bob="vision")

    def put(amount: float, team: str | None = None, currency: str = "usd") -> dict:
        q = f"?team={team}" if team else ""
        r = c.put(f"/api/v1/budget/2027-03{q}", json={f"amount_{currency}": amount}, headers=admin)
        assert r.status_code == 200, r.text  # never refused: over-allocating is a choice
        return r.json()

    put(1000)
    nlp = put(600, "nlp")
    assert (nlp["teams_budget_usd"], nlp["over_allocated_usd"], nlp["notes"]) == (600, None, [])
    vision = put(500, "vision")
    # 600 + 500 = 1100 > 1000, by 100, said in the answer to the write that made it so
    assert (vision["teams_budget_usd"], vision["over_allocated_usd"]) == (1100, 100), vision
    assert vision["notes"] == [
        "The teams' budgets for 2027-03 add up to $1,100.00, $100.00 more than the whole service's "
        "budget of $1,000.00: if every team spends its budget, the service's is exceeded."
    ]
    whole = c.get("/api/v1/budget/2027-03", headers=read).json()
    assert (whole["over_allocated_usd"], whole["notes"]) == (100, vision["notes"])
    zh = c.get("/api/v1/budget/2027-03?lang=zh", headers=read).json()["notes"]
    assert len(zh) == 1 and "1,100.00" in zh[0] and "您" in zh[0] and "budgets" not in zh[0], zh
    # the service's budget raised to the sum: no longer over; lowered under it: over again
    assert put(1100)["notes"] == []
    assert put(900)["over_allocated_usd"] == 200
    # another month is its own; a team's budget in yuan counts at the rate it was kept at, said
    assert c.get("/api/v1/budget/2027-04", headers=read).json()["notes"] == []
    yuan = put(10_000, "vision", currency="cny")
    # the yuan at the catalog's newest rate, the one the document names
    rate = yuan["exchange_rate"]
    assert yuan["budget_usd"] == round(10_000 * rate["usd_per_unit"], 2)
    assert yuan["teams_budget_usd"] == round(600 + 10_000 * rate["usd_per_unit"], 2)
    assert yuan["over_allocated_usd"] == round(600 + 10_000 * rate["usd_per_unit"] - 900, 2)
    assert yuan["teams_budget_cny"] == round(600 / rate["usd_per_unit"] + 10_000, 2)  # each budget in its own
    assert yuan["notes"][0].endswith(
        f"Budgets given in the other currency are added at 1 USD = {1 / rate['usd_per_unit']:.4f} CNY "
        f"(as of {rate['as_of']}), the catalog's newest rate."
    )
    # in Chinese one sentence follows another without a space (they had been joined by " ")
    zh_doc = c.get("/api/v1/budget/2027-03?team=vision&lang=zh", headers=read).json()
    said = [*zh_doc["notes"], zh_doc["note"]]
    assert len(said) == 2 and all("。" in n and "。 " not in n for n in said), said


def test_a_plan_that_takes_its_team_over_budget_is_kept_and_says_so(service: Service) -> None:
    # was: a plan of $728 against a team's $100 was answered 201 without a word of the budget, and
    # the budget's notes carried only the service-wide over-allocation line
    c, admin, read = service.client, service.auth("admin"), service.auth("read")
    h = _team_tokens(service, alice="ml")
    _workloads(service, "embed")
    first = c.post("/api/v1/plans", json={"name": "embed", "month": "2027-05"}, headers=h["alice"]).json()
    cost = first["total_cost_usd"]
    assert cost > 0 and first["budget_notes"] == []  # no budget yet: nothing to be over
    c.put("/api/v1/budget/2027-05?team=ml", json={"amount_usd": 10}, headers=admin)
    c.put("/api/v1/budget/2027-05", json={"amount_usd": 1_000_000}, headers=admin)
    body = {"name": "embed", "month": "2027-05", "runs_per_month": 744}
    r = c.post("/api/v1/plans", json=body, headers=h["alice"])
    assert r.status_code == 201, r.text  # kept: a team may decide to spend
    saved = r.json()
    assert saved["month_cost_usd"] == pytest.approx(cost * 744)
    planned = round(saved["month_cost_usd"], 2)  # the month's spend: this plan only
    over = planned - 10
    assert over > 10  # e.g. 83.72 planned: over by 73.72, 737.2 % of the $10
    want = (
        f"Team ml is over its budget for 2027-05 by ${over:,.2f} ({over * 10:,.1f} %): ${planned:,.2f} "
        "planned against $10.00."
    )
    assert saved["budget_notes"] == [want]  # the service's million is not over: no note of it
    doc = c.get("/api/v1/budget/2027-05?team=ml", headers=read).json()
    assert doc["remaining_usd"] == round(10 - planned, 2) and doc["notes"][0] == want
    # after it, where the plan rests on a price not known to be current, the figure on current ones
    assert all("not known to be current" in n for n in doc["notes"][1:])
    # the whole service's document says the team's overrun beside its own budget, which is not over
    whole = c.get("/api/v1/budget/2027-05", headers=read).json()
    assert [n for n in whole["notes"] if "not known to be current" not in n] == [want]
    zh = c.get("/api/v1/budget/2027-05?team=ml&lang=zh", headers=read).json()["notes"]
    zh = [n for n in zh if "不确知为当前" not in n]
    assert len(zh) == 1 and f"{over:,.2f}" in zh[0] and "budget" not in zh[0], zh
    # the share in full-width brackets, as Chinese writes them (was " (…%)" inside the Chinese)
    assert f"（{over * 10:,.1f} %）" in zh[0], zh
    # the whole service over its own budget too: both said to the one who saves
    c.put("/api/v1/budget/2027-05", json={"amount_usd": 20}, headers=admin)
    again = c.post("/api/v1/plans", json=body, headers=h["alice"]).json()
    assert again["budget_notes"][0] == want
    assert again["budget_notes"][1].startswith("The whole service is over its budget for 2027-05 by $")
    # a team and a service within their budgets: no note
    c.put("/api/v1/budget/2027-05", json={"amount_usd": 1_000_000}, headers=admin)
    c.put("/api/v1/budget/2027-05?team=ml", json={"amount_usd": 1000}, headers=admin)
    notes = c.get("/api/v1/budget/2027-05?team=ml", headers=read).json()["notes"]
    assert [n for n in notes if "not known to be current" not in n] == []


def _add_rate(service: Service, usd_per_cny: float, as_of: str) -> None:
    """A CNY rate newer than the catalog's, as ``catalog refresh --rates`` appends one."""
    from gpuplan.catalog import open_store
    from gpuplan.catalog.model import ExchangeRate

    store = open_store(service.db)
    try:
        store.add_exchange_rate(
            ExchangeRate(currency="CNY", usd_per_unit=usd_per_cny, as_of=as_of, source="a test's rate")
        )
    finally:
        store.close()


def test_a_budget_in_yuan_is_compared_in_yuan_and_a_rate_refresh_moves_nothing(service: Service) -> None:
    # A budget given in yuan was kept in dollars at the rate of the day it was set, and each plan in
    # dollars at its own day's: after a rate refresh, the same yuan budget and the same yuan plan
    # moved by the rates' ratio (used_pct 158.7 % -> 153.4 % -> 158.9 % for one team of a Wuhan
    # service, no yuan figure changed).
    c, admin, read = service.client, service.auth("admin"), service.auth("read")
    _workloads(service, "embed")
    c.put("/api/v1/budget/2027-09", json={"amount_cny": 100, "note": "GPU"}, headers=admin)
    first = _save(service, "embed", month="2027-09", providers=["alibaba"])
    old = first["usd_per_cny"]
    assert old and first["month_cost_cny"] == round(first["month_cost_usd"] / old, 2) > 0
    before = c.get("/api/v1/budget/2027-09", headers=read).json()
    assert before["currency"] == "CNY" and before["budget_cny"] == 100
    assert before["planned_cny"] == first["month_cost_cny"]
    assert before["used_pct"] == round(before["planned_cny"] / 100 * 100, 1)
    assert before["remaining_cny"] == round(100 - before["planned_cny"], 2)

    _add_rate(service, old * 0.95, "2026-12-01")  # the dollar 5 % dearer in yuan
    after = c.get("/api/v1/budget/2027-09", headers=read).json()
    # the yuan budget and the yuan plan: unchanged, and so is the verdict
    assert (after["planned_cny"], after["used_pct"]) == (before["planned_cny"], before["used_pct"])
    # the dollar figures are the yuan ones at the newest rate, named
    assert after["exchange_rate"]["as_of"] == "2026-12-01"
    assert after["budget_usd"] == round(100 * old * 0.95, 2)
    assert after["remaining_usd"] == round(after["remaining_cny"] * old * 0.95, 2)
    # the note states the rate the refresh brought, and no longer asks for a refresh
    assert "2026-12-01" in after["note"] and "refresh" not in after["note"], after["note"]
    assert after["note"].endswith(" · GPU")

    # the same yuan budget set again: the same verdict
    again = c.put("/api/v1/budget/2027-09", json={"amount_cny": 100, "note": "GPU"}, headers=admin).json()
    assert (again["budget_cny"], again["used_pct"]) == (100, before["used_pct"])
    # the workload planned again on its same yuan prices: its compute, priced in yuan, is the same
    # yuan (its egress, priced in dollars here, is more yuan at the dearer dollar)
    replanned = _save(service, "embed", month="2027-09", providers=["alibaba"])
    assert replanned["usd_per_cny"] == pytest.approx(old * 0.95)

    def compute_cny(plan: dict) -> float:
        doc = c.get(f"/api/v1/plans/{plan['id']}", headers=read).json()["document"]
        return doc["recommended"]["cost_breakdown"]["compute_usd"] / plan["usd_per_cny"]

    assert compute_cny(replanned) == pytest.approx(compute_cny(first), rel=1e-9)
    final = c.get("/api/v1/budget/2027-09", headers=read).json()
    assert final["planned_cny"] == replanned["month_cost_cny"]
    assert final["used_pct"] == round(replanned["month_cost_cny"] / 100 * 100, 1)


def test_a_budget_in_yuan_is_said_over_in_yuan(service: Service) -> None:
    # "Team demo is over its budget for 2026-12 by $252.15 (58.7 %): $681.59 planned against
    # $429.44." of a ¥3,000 budget: never a ¥
    c, admin, read = service.client, service.auth("admin"), service.auth("read")
    h = _team_tokens(service, alice="demo")
    _workloads(service, "embed")
    c.put("/api/v1/budget/2027-10?team=demo", json={"amount_cny": 1}, headers=admin)
    body = {"name": "embed", "month": "2027-10", "runs_per_month": 30}
    r = c.post("/api/v1/plans", json=body, headers=h["alice"])
    assert r.status_code == 201, r.text
    saved = r.json()
    planned = round(saved["month_cost_cny"], 2)
    over = planned - 1
    want = (
        f"Team demo is over its budget for 2027-10 by ¥{over:,.2f} ({over * 100:,.1f} %): ¥{planned:,.2f} "
        "planned against ¥1.00."
    )
    assert saved["budget_notes"] == [want]
    doc = c.get("/api/v1/budget/2027-10?team=demo", headers=read).json()
    assert (doc["currency"], doc["planned_cny"], doc["remaining_cny"]) == (
        "CNY",
        planned,
        round(1 - planned, 2),
    )
    assert doc["notes"][0] == want
    assert all("not known to be current" in n for n in doc["notes"][1:])
    whole = c.get("/api/v1/budget/2027-10", headers=read).json()
    line = whole["teams"][0]
    assert (line["team"], line["currency"], line["budget_cny"], line["planned_cny"]) == (
        "demo",
        "CNY",
        1,
        planned,
    )
    zh = c.get("/api/v1/budget/2027-10?team=demo&lang=zh", headers=read).json()["notes"]
    assert zh[1:] == [n for n in zh if "不确知为当前" in n]  # the plan's figure on current prices, after
    assert zh[:1] == [
        f"团队 demo 已超出其 2027-10 的预算 ¥{over:,.2f}（{over * 100:,.1f} %）："
        f"计划支出 ¥{planned:,.2f}，预算为 ¥1.00。"
    ]


def test_a_teams_price_check_is_of_its_own_plans_each_in_its_budgets_currency(service: Service) -> None:
    # the price check listed every team's plans to every token, each in the currency of whatever
    # budget the page showed
    c, admin = service.client, service.auth("admin")
    h = _team_tokens(service, alice="nlp", bob="vision", lone=None)
    _workloads(service, "embed", "tagger")

    def save(who: dict[str, str], name: str) -> int:
        r = c.post("/api/v1/plans", json={"name": name, "month": "2027-01"}, headers=who)
        assert r.status_code == 201, r.text
        return int(r.json()["id"])

    nlp, vision, lone = save(h["alice"], "embed"), save(h["bob"], "tagger"), save(h["lone"], "tagger")
    assert (
        c.put("/api/v1/budget/2027-01?team=nlp", json={"amount_cny": 8000}, headers=admin).status_code == 200
    )

    def check(who: dict[str, str], query: str = "") -> list[tuple[int, str | None, str]]:
        r = c.get(f"/api/v1/price-changes{query}", headers=who)
        assert r.status_code == 200, r.text
        return [(p["plan_id"], p["team"], p["currency"]) for p in r.json()["plans"]]

    # a team's token: its team's plans, named or not; a token of no team: the plans of no team
    assert check(h["alice"]) == check(h["alice"], "?team=nlp") == [(nlp, "nlp", "CNY")]
    assert check(h["bob"]) == [(vision, "vision", "USD")]
    assert check(h["lone"]) == check(service.auth("read")) == [(lone, None, "USD")]
    # an admin: the team asked, or every plan, each in its own team's budget's currency
    assert check(admin, "?team=vision") == [(vision, "vision", "USD")]
    assert check(admin) == [(lone, None, "USD"), (vision, "vision", "USD"), (nlp, "nlp", "CNY")]
    # another team's plans: refused, saying whose and what to ask instead; an unknown team as elsewhere
    for who, own in ((h["bob"], "team 'vision'"), (h["lone"], "no team")):
        r = c.get("/api/v1/price-changes?team=nlp", headers=who)
        assert r.status_code == 403 and r.json()["kind"] == "forbidden", r.text
        line = r.json()["error"]
        assert "'nlp'" in line and own in line and "\n" not in line, line
    r = c.get("/api/v1/price-changes?team=nlpp", headers=admin)
    assert r.status_code == 400 and r.json()["field"] == "team" and "nlp" in r.json()["error"], r.text
