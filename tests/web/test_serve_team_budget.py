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
        assert r.status_code == 422 and r.json()["field"] == "runs_per_month", r.text
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
