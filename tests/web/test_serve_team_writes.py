"""Writes are scoped by team: a workload is the team's that first saved it, and only its tokens save
new versions of it, plan it or cancel its team's plans; an admin changes any team's; a workload of no
team (saved by a token of no team, or before workloads had teams) is anyone's, as it was."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from serve_helpers import Service, bert_workload, cache_stand_in, make_tokens


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


def _save_workload(service: Service, who: dict[str, str], name: str, batch_size: int = 32) -> Any:
    """Save the BERT workload under ``name`` (at ``batch_size``: another one is another version)."""
    workload = bert_workload()
    workload["inputs"]["batch_size"] = batch_size
    body = {"name": name, "workload": workload}
    return service.client.post("/api/v1/workloads", json=body, headers=who)


def _versions(service: Service, name: str) -> list[tuple[int, str | None]]:
    r = service.client.get(f"/api/v1/workloads?name={name}", headers=service.auth("read"))
    return [(w["version"], w["team"]) for w in r.json()["workloads"]]


def test_another_team_cannot_save_a_new_version_of_a_teams_workload(service: Service) -> None:
    # training's token saved version 2 of inference's workload (201, no warning): inference's next
    # plan planned training's spec, and its budget went from 123 % to 330 % used
    h = _team_tokens(service, infer="inference", train="training", lone=None)
    assert _save_workload(service, h["infer"], "llama8b-chat").status_code == 201
    r = _save_workload(service, h["train"], "llama8b-chat")
    assert r.status_code == 403, r.text
    line = r.json()["error"]
    assert "\n" not in line and "'inference'" in line and "another name" in line, line
    # a token of no team is no member of inference either
    assert _save_workload(service, h["lone"], "llama8b-chat").status_code == 403
    assert _versions(service, "llama8b-chat") == [(1, "inference")]
    # under a name of its own, training's workload is training's
    assert _save_workload(service, h["train"], "llama8b-train").status_code == 201
    assert _versions(service, "llama8b-train") == [(1, "training")]
    # inference saves its own again; an admin saves anyone's (the owner stays)
    assert _save_workload(service, h["infer"], "llama8b-chat", batch_size=16).status_code == 201
    assert _save_workload(service, service.auth("admin"), "llama8b-chat", batch_size=8).status_code == 201
    assert _versions(service, "llama8b-chat") == [(3, "inference"), (2, "inference"), (1, "inference")]
    audit = service.client.get("/api/v1/audit", headers=service.auth("admin")).json()["entries"]
    saves = [e["actor"] for e in audit if e["action"] == "workload.save" and e["target"] == "llama8b-chat"]
    assert sorted(saves) == ["admin-user", "infer", "infer"]


def test_a_team_plans_only_its_own_workloads_and_those_of_no_team(service: Service) -> None:
    # training saved a plan of inference's workload into its own budget
    c = service.client
    h = _team_tokens(service, infer="inference", train="training", lone=None)
    assert _save_workload(service, h["infer"], "llama8b-chat").status_code == 201
    assert _save_workload(service, service.auth("plan"), "shared").status_code == 201  # no team
    assert _versions(service, "shared") == [(1, None)]
    body = {"name": "llama8b-chat", "month": "2027-01"}
    for who in (h["train"], h["lone"]):
        r = c.post("/api/v1/plans", json=body, headers=who)
        assert r.status_code == 403, r.text
        assert "'inference'" in r.json()["error"] and "another name" in r.json()["error"]
    assert c.get("/api/v1/plans", headers=service.auth("read")).json()["plans"] == []
    mine = c.post("/api/v1/plans", json=body, headers=h["infer"])
    assert mine.status_code == 201 and mine.json()["team"] == "inference", mine.text
    # a workload of no team is anyone's to plan, each plan its saver's team's
    shared = {"name": "shared", "month": "2027-01"}
    train = c.post("/api/v1/plans", json=shared, headers=h["train"])
    assert train.status_code == 201 and train.json()["team"] == "training", train.text
    admin = c.post("/api/v1/plans", json=body, headers=service.auth("admin"))
    assert admin.status_code == 201 and admin.json()["team"] is None, admin.text


def test_a_team_cancels_only_its_own_teams_plans(service: Service) -> None:
    # training's token cancelled inference's plan: 200 cancelled, nothing stopped it
    c = service.client
    h = _team_tokens(service, infer="inference", train="training", lone=None)
    assert _save_workload(service, h["infer"], "llama8b-chat").status_code == 201
    assert _save_workload(service, h["lone"], "shared").status_code == 201
    body = {"name": "llama8b-chat", "month": "2027-01"}
    plan = c.post("/api/v1/plans", json=body, headers=h["infer"]).json()
    lone = c.post("/api/v1/plans", json={"name": "shared", "month": "2027-01"}, headers=h["lone"]).json()
    for who in (h["train"], h["lone"]):
        r = c.post(f"/api/v1/plans/{plan['id']}/cancel", headers=who)
        assert r.status_code == 403, r.text
        assert "'inference'" in r.json()["error"] and "\n" not in r.json()["error"]
    # a plan of no team is not a team's to cancel
    r = c.post(f"/api/v1/plans/{lone['id']}/cancel", headers=h["train"])
    assert r.status_code == 403 and "no team" in r.json()["error"], r.text
    status = {
        p["id"]: p["status"] for p in c.get("/api/v1/plans", headers=service.auth("read")).json()["plans"]
    }
    assert status == {plan["id"]: "planned", lone["id"]: "planned"}
    audit = c.get("/api/v1/audit", headers=service.auth("admin")).json()["entries"]
    assert [e for e in audit if e["action"] == "plan.status"] == []
    # its own team, a token of no team on a plan of no team, an admin on any
    assert c.post(f"/api/v1/plans/{plan['id']}/cancel", headers=h["infer"]).json()["status"] == "cancelled"
    assert c.post(f"/api/v1/plans/{lone['id']}/cancel", headers=h["lone"]).json()["status"] == "cancelled"
    again = c.post("/api/v1/plans", json=body, headers=h["infer"]).json()
    r = c.post(f"/api/v1/plans/{again['id']}/cancel", headers=service.auth("admin"))
    assert r.status_code == 200 and r.json()["status"] == "cancelled", r.text


def test_a_refusal_is_in_the_readers_language(service: Service) -> None:
    h = _team_tokens(service, infer="inference", train="training")
    assert _save_workload(service, h["infer"], "llama8b-chat").status_code == 201
    r = _save_workload(service, {**h["train"], "Accept-Language": "zh"}, "llama8b-chat")
    assert r.status_code == 403 and "'inference'" in r.json()["error"], r.text
    assert r.json()["error"] != _save_workload(service, h["train"], "llama8b-chat").json()["error"]


def test_another_teams_uncached_workload_is_refused_before_a_job_and_an_admins_job_plans_it(
    fresh_db: str, tmp_path: Path
) -> None:
    # refused only once traced, the job would have run for nothing; an admin's job carries its right
    from fastapi.testclient import TestClient

    from gpuplan.web.app import create_app
    from gpuplan.web.config import ServeConfig

    tokens = make_tokens(fresh_db)
    app = create_app(ServeConfig(db=fresh_db, scratch_dir=str(tmp_path)))  # no worker: jobs wait
    w = {**bert_workload(), "name": "bert-16", "inputs": {"batch_size": 16, "seq_len": 384}}
    with TestClient(app) as client:
        service = Service(client=client, db=fresh_db, tokens=tokens)
        h = _team_tokens(service, infer="inference", train="training")
        body = {"name": "bert-16", "workload": w}
        assert client.post("/api/v1/workloads", json=body, headers=h["infer"]).status_code == 201
        plan = {"name": "bert-16", "month": "2027-01"}
        r = client.post("/api/v1/plans", json=plan, headers=h["train"])
        assert r.status_code == 403 and "'inference'" in r.json()["error"], r.text
        queued = client.post("/api/v1/plans", json=plan, headers=service.auth("admin"))
        assert queued.status_code == 202, queued.text
        cache_stand_in(fresh_db, w)
        app.state.runner.run(queued.json()["job_id"])
        done = client.get(queued.json()["href"], headers=service.auth("admin")).json()
        assert done["status"] == "done", done
        assert (done["result"]["workload"], done["result"]["team"]) == ("bert-16", None)
