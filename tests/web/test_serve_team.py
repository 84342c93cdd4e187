"""The team's workspace: saved workloads with versions, saved plans for a month's budget, the
price-change view, the audit log, and background jobs (poll and server-sent events)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from serve_helpers import Service, bert_workload, cache_stand_in, make_tokens

from gpuplan.documents import JOB_SCHEMA_VERSION


def _save_plan(service: Service, month: str = "2027-03", **extra: object) -> dict:
    r = service.client.post(
        "/api/v1/plans", json={"name": "bert", "month": month, **extra}, headers=service.auth("plan")
    )
    assert r.status_code == 201, r.text
    return r.json()


def test_workloads_keep_every_version_with_who_and_when(service: Service) -> None:
    c, h = service.client, service.auth("plan")
    w = bert_workload()
    assert c.post("/api/v1/workloads", json={"name": "bert", "workload": w}, headers=h).status_code == 201
    w2 = {**w, "inputs": {**w["inputs"], "batch_size": 16}}
    r = c.post("/api/v1/workloads", json={"name": "bert", "workload": w2}, headers=service.auth("admin"))
    assert r.json()["workloads"][0]["version"] == 2
    found = c.get("/api/v1/workloads?name=bert", headers=service.auth("read")).json()["workloads"]
    assert [(x["version"], x["saved_by"]) for x in found] == [(2, "admin-user"), (1, "plan-user")]
    assert found[0]["spec"]["workload"]["inputs"]["batch_size"] == 16
    bad = {"name": "bad", "workload": {**w, "model": {"python": "x.y:z"}}}
    assert c.post("/api/v1/workloads", json=bad, headers=h).status_code == 400


def test_the_same_workload_saved_again_is_its_newest_version_unchanged(service: Service) -> None:
    # was: each save of the same content was a new version (201), a retried request or a form
    # saved twice filling the history with copies
    c, h = service.client, service.auth("plan")
    w = bert_workload()
    first = c.post("/api/v1/workloads", json={"name": "bert", "workload": w}, headers=h)
    assert first.status_code == 201 and first.json()["unchanged"] is False, first.text
    # the same content, its keys in another order, by another token: the newest version as it was
    shuffled = dict(reversed(list(w.items())))
    again = c.post(
        "/api/v1/workloads", json={"name": "bert", "workload": shuffled}, headers=service.auth("admin")
    )
    assert again.status_code == 200, again.text
    assert again.json()["unchanged"] is True
    assert again.json()["workloads"] == first.json()["workloads"]  # version 1, saved by plan-user, then
    changed = {**w, "inputs": {**w["inputs"], "batch_size": 16}}
    new = c.post("/api/v1/workloads", json={"name": "bert", "workload": changed}, headers=h)
    assert new.status_code == 201 and new.json()["unchanged"] is False
    assert new.json()["workloads"][0]["version"] == 2
    # the first content again is not the newest: a new version (3), as a change back is one
    back = c.post("/api/v1/workloads", json={"name": "bert", "workload": w}, headers=h)
    assert back.status_code == 201 and back.json()["workloads"][0]["version"] == 3, back.text
    found = c.get("/api/v1/workloads?name=bert", headers=service.auth("read")).json()
    assert [x["version"] for x in found["workloads"]] == [3, 2, 1] and found["unchanged"] is None
    audit = c.get("/api/v1/audit", headers=service.auth("admin")).json()["entries"]
    assert len([e for e in audit if e["action"] == "workload.save"]) == 3  # nothing changed: no entry


@pytest.mark.parametrize("name", ["   ", "bert ", " bert", "bert\t"])
def test_a_workload_name_is_not_blank_nor_padded_with_spaces(service: Service, name: str) -> None:
    body = {"name": name, "workload": bert_workload()}
    r = service.client.post("/api/v1/workloads", json=body, headers=service.auth("plan"))
    assert r.status_code == 400 and r.json()["error"].startswith("name: "), r.text
    assert service.client.get("/api/v1/workloads", headers=service.auth("read")).json()["workloads"] == []


def test_a_workload_name_may_hold_inner_spaces_and_any_script(service: Service) -> None:
    for name in ("bert large", "训练 任务", "b"):
        body = {"name": name, "workload": bert_workload()}
        r = service.client.post("/api/v1/workloads", json=body, headers=service.auth("plan"))
        assert r.status_code == 201 and r.json()["workloads"][0]["name"] == name, r.text


def test_saved_plans_count_against_the_month_budget_until_cancelled(service: Service) -> None:
    c = service.client
    for name in ("bert", "bert-b"):
        c.post(
            "/api/v1/workloads",
            json={"name": name, "workload": bert_workload()},
            headers=service.auth("plan"),
        )
    first = _save_plan(service)
    second = _save_plan(service, name="bert-b", deadline="6h")
    assert first["document"]["recommended"]["total_cost_usd"] == first["total_cost_usd"]
    assert first["created_by"] == "plan-user" and first["prices_as_of"]
    budget = c.put(
        "/api/v1/budget/2027-03", json={"amount_usd": 1000, "note": "Q1"}, headers=service.auth("admin")
    )
    doc = budget.json()
    planned = first["total_cost_usd"] + second["total_cost_usd"]
    assert abs(doc["planned_usd"] - round(planned, 2)) < 0.01
    assert abs(doc["remaining_usd"] - (1000 - doc["planned_usd"])) < 0.01
    c.post(f"/api/v1/plans/{second['id']}/cancel", headers=service.auth("plan"))
    after = c.get("/api/v1/budget/2027-03", headers=service.auth("read")).json()
    assert abs(after["planned_usd"] - round(first["total_cost_usd"], 2)) < 0.01
    listed = c.get("/api/v1/plans?month=2027-03", headers=service.auth("read")).json()["plans"]
    assert {p["status"] for p in listed} == {"planned", "cancelled"}
    assert c.get("/api/v1/budget/2027-13", headers=service.auth("read")).status_code == 400
    # The schema's upper bound is accepted (the store refused it, saying "give 0 or more"); a note
    # is one line of printable text, as a discount's is.
    top = c.put("/api/v1/budget/2027-04", json={"amount_usd": 1e12}, headers=service.auth("admin"))
    assert top.status_code == 200, top.text
    forged = c.put(
        "/api/v1/budget/2027-04",
        json={"amount_usd": 5, "note": "ok\nspent: 0"},
        headers=service.auth("admin"),
    )
    assert forged.status_code == 400 and "U+000A" in forged.text


@pytest.mark.parametrize("month", ["２０２６-12", "٢٠٢٦-12", "2026-99", "2026-00", "2026-1"])
def test_a_month_in_other_digits_or_out_of_range_is_refused_before_anything_is_kept(
    service: Service, month: str
) -> None:
    # \d matched full-width and Arabic-Indic digits: a budget was kept under "２０２６-12", which
    # no plan of 2026-12 counts against; a plan for 2026-99 was queued and failed in its job.
    c = service.client
    c.post(
        "/api/v1/workloads", json={"name": "bert", "workload": bert_workload()}, headers=service.auth("plan")
    )
    budget = c.put(f"/api/v1/budget/{month}", json={"amount_usd": 5}, headers=service.auth("admin"))
    assert budget.status_code == 400, budget.text
    plan = c.post("/api/v1/plans", json={"name": "bert", "month": month}, headers=service.auth("plan"))
    assert plan.status_code == 400 and "month" in plan.json()["error"], plan.text
    assert c.get(f"/api/v1/plans?month={month}", headers=service.auth("read")).status_code == 400
    assert c.get("/api/v1/plans", headers=service.auth("read")).json()["plans"] == []
    with sqlite3.connect(service.db) as db:
        assert db.execute("SELECT count(*) FROM jobs").fetchone() == (0,)


def test_the_team_store_keeps_months_in_ascii_digits_only(fresh_db: str) -> None:
    from gpuplan.catalog.team_store import check_month
    from gpuplan.errors import InputError

    assert check_month("2026-12") == "2026-12"
    for month in ("２０２６-12", "2026-13", "0000-01", "2026-1", " 2026-12"):
        with pytest.raises(InputError, match="write YYYY-MM"):
            check_month(month)


def test_the_plan_listing_and_the_budget_never_fetch_a_plan_document(service: Service) -> None:
    # A plan document is 100-200 KB: the listing and the budget read the recommended option out of
    # each in the database, so no row they fetch carries a document; one saved plan's does.
    from sqlalchemy import Engine, event

    c = service.client
    c.post(
        "/api/v1/workloads", json={"name": "bert", "workload": bert_workload()}, headers=service.auth("plan")
    )
    saved = _save_plan(service)
    rec = saved["document"]["recommended"]
    label = f"{rec['provider']}/{rec['region']}/{rec['instance_type']} × {rec['nodes']}, {rec['pricing']}"
    columns: list[str] = []

    def fetched(conn: object, cursor: object, statement: str, *args: object) -> None:
        columns.extend(d[0] for d in getattr(cursor, "description", None) or ())

    event.listen(Engine, "after_cursor_execute", fetched)  # every engine: the server's threads' too
    try:
        listed = c.get("/api/v1/plans", headers=service.auth("read")).json()["plans"]
        budget = c.get("/api/v1/budget/2027-03", headers=service.auth("read")).json()
        assert columns and "document" not in columns
        assert [p["recommended"] for p in listed] == [label] == [p["recommended"] for p in budget["plans"]]
        assert listed[0]["document"] is None
        one = c.get(f"/api/v1/plans/{saved['id']}", headers=service.auth("read")).json()
        assert "document" in columns and one["document"] == saved["document"]
    finally:
        event.remove(Engine, "after_cursor_execute", fetched)


def test_price_changes_show_what_a_discount_does_to_saved_plans(service: Service) -> None:
    c = service.client
    c.post(
        "/api/v1/workloads", json={"name": "bert", "workload": bert_workload()}, headers=service.auth("plan")
    )
    saved = _save_plan(service)
    provider = saved["document"]["recommended"]["provider"]
    pricing = saved["document"]["recommended"]["pricing"]  # a discount names the models it is taken off
    unchanged = c.get("/api/v1/price-changes", headers=service.auth("read")).json()["plans"][0]
    assert unchanged["change_pct"] == 0.0
    c.put(
        "/api/v1/catalog/discounts",
        json={"provider": provider, "percent": 20, "pricing": [pricing]},
        headers=service.auth("admin"),
    )
    item = c.get("/api/v1/price-changes", headers=service.auth("read")).json()["plans"][0]
    assert item["plan_id"] == saved["id"] and item["then_usd"] == saved["total_cost_usd"]
    assert item["now_usd"] < item["then_usd"] and item["change_pct"] < 0
    # compute, storage and egress: the discount is off compute only, so less than 20 % in all
    assert -20 <= item["change_pct"] < 0


def test_the_price_check_reprices_the_same_option_without_the_workload_files_own_budget(
    service: Service,
) -> None:
    # was: a plan saved with budget_usd over the workload file's own budget was checked again
    # under the file's (the request's None kept it): "now: null" and "no option costs under $…"
    # beside today's best, the very same option at the very same price
    c = service.client
    tight = {**bert_workload(), "constraints": {**bert_workload().get("constraints", {}), "budget_usd": 0.01}}
    c.post("/api/v1/workloads", json={"name": "bert", "workload": tight}, headers=service.auth("plan"))
    saved = _save_plan(service, budget_usd=1_000_000)
    assert saved["total_cost_usd"] > 0.01  # over the workload file's own budget
    item = c.get("/api/v1/price-changes", headers=service.auth("read")).json()["plans"][0]
    assert item["plan_id"] == saved["id"] and item["note"] is None, item
    assert item["now_usd"] == item["then_usd"] == saved["total_cost_usd"] and item["change_pct"] == 0.0


def test_a_saved_plan_says_how_old_its_prices_are_today_by_the_catalogs_rule(service: Service) -> None:
    # The listing sent the prices' date only: no age, no staleness, where an offer's price has both.
    from datetime import date

    from gpuplan.catalog.dates import DEFAULT_STALE_AFTER_DAYS, price_age

    c = service.client
    c.post(
        "/api/v1/workloads", json={"name": "bert", "workload": bert_workload()}, headers=service.auth("plan")
    )
    saved = _save_plan(service)
    age = price_age(saved["prices_as_of"], date.today(), DEFAULT_STALE_AFTER_DAYS)
    assert age.age_days is not None  # the recommended price is dated
    want = {"prices_age_days": age.age_days, "prices_staleness": age.staleness}
    listed = c.get("/api/v1/plans", headers=service.auth("read")).json()["plans"][0]
    assert {k: listed[k] for k in want} == want == {k: saved[k] for k in want}
    budget = c.get("/api/v1/budget/2027-03", headers=service.auth("read")).json()["plans"][0]
    assert {k: budget[k] for k in want} == want
    change = c.get("/api/v1/price-changes", headers=service.auth("read")).json()["plans"][0]
    assert (change["then_age_days"], change["then_staleness"]) == (age.age_days, age.staleness)


def test_a_saved_plans_undated_price_is_aged_no_older_than_its_gpu(fresh_catalog: Path) -> None:
    # A saved L20 plan's price "some time since 2020-11" was 2,226 days old in the API, where offers
    # and plan say at most 3.1 years (the L20 launched 2023-11).
    from types import SimpleNamespace

    from gpuplan.catalog import open_store
    from gpuplan.web.work import saved_plan_item

    store = open_store(str(fresh_catalog))
    try:
        fields = dict.fromkeys(
            (
                "id",
                "workload",
                "workload_version",
                "month",
                "status",
                "total_cost_usd",
                "runs_per_month",
                "month_cost_usd",
                "usd_per_cny",
                "team",
                "catalog_import_id",
                "created_by",
                "created_at",
                "constraints",
                "document",
                "without_stale_prices",
                "display_currency",
                "plan_version",
            ),
        )
        plan = SimpleNamespace(
            **fields,
            prices_as_of="2020-11/2026-12-03",
            recommended={"provider": "alibaba", "region": "cn-hangzhou", "instance_type": "x", "gpu": "L20"},
        )
        item = saved_plan_item(plan, store, rate=None)  # type: ignore[arg-type]
        unbounded = store.age_of("2020-11/2026-12-03")
        bounded = store.age_of("2020-11/2026-12-03", "L20")
    finally:
        store.close()
    assert unbounded.age_days is not None and bounded.age_days is not None
    assert item["prices_age_days"] == bounded.age_days < unbounded.age_days


def test_the_price_check_plans_each_distinct_request_once_and_not_again_the_same_day(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each saved plan was planned twice on every check (its best today, and its own option today),
    # none from the plan cache: two plans of one workload cost four plans, every time.
    from gpuplan.web import service as serving

    c = service.client
    c.post(
        "/api/v1/workloads", json={"name": "bert", "workload": bert_workload()}, headers=service.auth("plan")
    )
    first, second = _save_plan(service, "2027-03"), _save_plan(service, "2027-04")
    planned: list[object] = []
    real = serving.plan_document

    def counted(*args: Any, **kwargs: Any) -> dict[str, Any]:
        planned.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(serving, "plan_document", counted)
    items = c.get("/api/v1/price-changes", headers=service.auth("read")).json()["plans"]
    # the best plan today is the one each was saved with (cached); their one option, planned once
    assert len(planned) == 1, planned
    assert [i["plan_id"] for i in items] == [second["id"], first["id"]]
    for i, saved in zip(items, (second, first), strict=True):
        assert i["best_now_usd"] == i["now_usd"] == i["then_usd"] == saved["total_cost_usd"]
        assert i["change_pct"] == 0.0 and i["note"] is None
    assert c.get("/api/v1/price-changes", headers=service.auth("read")).json()["plans"] == items
    assert len(planned) == 1  # a second check the same day: every answer from the cache


def test_every_change_is_in_the_audit_log(service: Service) -> None:
    c = service.client
    c.post(
        "/api/v1/workloads", json={"name": "bert", "workload": bert_workload()}, headers=service.auth("plan")
    )
    saved = _save_plan(service)
    c.put("/api/v1/budget/2027-03", json={"amount_usd": 5}, headers=service.auth("admin"))
    c.post(f"/api/v1/plans/{saved['id']}/cancel", headers=service.auth("plan"))
    c.put("/api/v1/catalog/discounts", json={"provider": "aws", "percent": 5}, headers=service.auth("admin"))
    c.delete("/api/v1/catalog/discounts?provider=aws", headers=service.auth("admin"))
    entries = c.get("/api/v1/audit", headers=service.auth("admin")).json()["entries"]
    actions = [e["action"] for e in entries]
    for action in (
        "token.create",
        "workload.save",
        "plan.save",
        "budget.set",
        "plan.status",
        "discount.set",
        "discount.clear",
    ):
        assert action in actions, action
    text = json.dumps(entries)
    assert not any(token in text for token in service.tokens.values())
    assert c.get("/api/v1/audit", headers=service.auth("plan")).status_code == 403


def test_an_uncached_workload_is_a_job_with_progress_and_a_result(fresh_db: str, tmp_path: Path) -> None:
    """The job path without tracing: the request is queued (no worker yet), the profile appears in
    the cache (as a worker's trace would put it), and a worker runs the job."""
    from fastapi.testclient import TestClient

    from gpuplan.web.app import create_app
    from gpuplan.web.config import ServeConfig

    tokens = make_tokens(fresh_db)
    h = {"Authorization": f"Bearer {tokens['plan']}"}
    w = {**bert_workload(), "name": "bert-16", "inputs": {"batch_size": 16, "seq_len": 384}}
    app = create_app(ServeConfig(db=fresh_db, scratch_dir=str(tmp_path)))
    with TestClient(app) as client:
        r = client.post("/api/v1/estimate", json={"workload": w, "gpus": ["L4"]}, headers=h)
        assert r.status_code == 202, r.text
        job = r.json()
        assert job["status"] == "queued" and job["href"] == f"/api/v1/jobs/{job['job_id']}"
        assert job["schema_version"] == JOB_SCHEMA_VERSION  # the 202 answer too, as a poll's
        cache_stand_in(fresh_db, w)
        app.state.runner.run(job["job_id"])
        polled = client.get(job["href"], headers=h).json()
        assert polled["status"] == "done", polled
        assert polled["attempts"] == 1 and polled["progress"] == 1.0 and polled["created_by"] == "plan-user"
        assert polled["result"]["estimates"][0]["gpu"] == "L4"
        events = client.get(job["href"] + "/events", headers=h)
        assert events.headers["content-type"].startswith("text/event-stream")
        assert "event: done" in events.text and '"status": "done"' in events.text
        again = client.post("/api/v1/estimate", json={"workload": w, "gpus": ["L4"]}, headers=h)
        assert again.status_code == 200  # the profile is cached now
        assert client.get("/api/v1/jobs/" + "0" * 24, headers=h).status_code == 404
        # A plan job leaves its document in the plan cache: the same request then gets it at once.
        w2 = {**w, "name": "bert-8", "inputs": {"batch_size": 8, "seq_len": 384}}
        queued = client.post("/api/v1/plan", json={"workload": w2}, headers=h)
        assert queued.status_code == 202
        cache_stand_in(fresh_db, w2)
        app.state.runner.run(queued.json()["job_id"])
        result = client.get(queued.json()["href"], headers=h).json()["result"]
        answered = client.post("/api/v1/plan", json={"workload": w2}, headers=h)
        assert answered.status_code == 200 and answered.json() == result


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("deadline", "-5h", "deadline"),
        ("pricing", ["ondemand"], "did you mean 'on_demand'"),
        ("objective", "cheap", "objective"),
        ("interconnect", "nvlinkk", "did you mean 'nvlink'"),
    ],
)
def test_a_bad_plan_request_is_refused_before_a_job_even_when_no_profile_is_cached(
    fresh_db: str, tmp_path: Path, field: str, value: object, said: str
) -> None:
    # Queued, the request traced for seconds and then failed on its own values.
    from fastapi.testclient import TestClient

    from gpuplan.web.app import create_app
    from gpuplan.web.config import ServeConfig

    tokens = make_tokens(fresh_db)
    h = {"Authorization": f"Bearer {tokens['plan']}"}
    w = {**bert_workload(), "name": "bert-12", "inputs": {"batch_size": 12, "seq_len": 384}}
    with TestClient(create_app(ServeConfig(db=fresh_db, scratch_dir=str(tmp_path)))) as client:
        for route in ("/api/v1/plan", "/api/v1/plan/report"):
            r = client.post(route, json={"workload": w, field: value}, headers=h)
            assert r.status_code == 400, (route, r.status_code, r.text)
            assert said in r.json()["error"], r.json()
        assert client.post("/api/v1/plan", json={"workload": w}, headers=h).status_code == 202


def test_a_mistyped_data_location_is_refused_before_a_job_naming_its_field(
    fresh_db: str, tmp_path: Path
) -> None:
    # "alibaba/cn-hangzou" was queued (202) and the job failed seconds later on the region.
    from fastapi.testclient import TestClient

    from gpuplan.web.app import create_app
    from gpuplan.web.config import ServeConfig

    tokens = make_tokens(fresh_db)
    h = {"Authorization": f"Bearer {tokens['plan']}"}
    w = {**bert_workload(), "name": "bert-14", "inputs": {"batch_size": 14, "seq_len": 384}}
    with TestClient(create_app(ServeConfig(db=fresh_db, scratch_dir=str(tmp_path)))) as client:
        for route in ("/api/v1/plan", "/api/v1/plan/report"):
            bad = {**w, "data": {**w.get("data", {}), "location": "alibaba/cn-hangzou"}}
            r = client.post(route, json={"workload": bad}, headers=h)
            assert r.status_code == 400, (route, r.status_code, r.text)
            doc = r.json()
            said = "unknown region 'cn-hangzou'; did you mean 'cn-hangzhou'"
            assert doc["field"] == "workload.data.location", doc
            assert doc["error"].startswith("workload.data.location: " + said), doc
            assert doc["message"].startswith(said) and "\n" not in doc["error"], doc
        with sqlite3.connect(fresh_db) as conn:
            assert conn.execute("SELECT COUNT(*) FROM jobs").fetchone()[0] == 0  # nothing queued
        good = {**w, "data": {**w.get("data", {}), "location": "alibaba/cn-hangzhou"}}
        assert client.post("/api/v1/plan", json={"workload": good}, headers=h).status_code == 202


def test_a_failed_job_says_why_in_the_language_it_was_asked_in(fresh_db: str, tmp_path: Path) -> None:
    # The line was the English template around Chinese fields ("no option meets 12.0 小时 under …"):
    # the error was worded after the job's language had been left.
    from fastapi.testclient import TestClient

    from gpuplan.web.app import create_app
    from gpuplan.web.config import ServeConfig

    tokens = make_tokens(fresh_db)
    w = {**bert_workload(), "name": "bert-20", "inputs": {"batch_size": 20, "seq_len": 384}}
    app = create_app(ServeConfig(db=fresh_db, scratch_dir=str(tmp_path)))
    with TestClient(app) as client:
        for lang, said in (
            ("en", "no option meets 12.0 h under $0.01"),
            ("zh", "没有方案能在 12.0 小时内完成"),
        ):
            h = {"Authorization": f"Bearer {tokens['plan']}", "Accept-Language": lang}
            r = client.post("/api/v1/plan", json={"workload": w, "budget_usd": 0.01}, headers=h)
            assert r.status_code == 202, r.text
            cache_stand_in(fresh_db, w)
            app.state.runner.run(r.json()["job_id"])
            failed = client.get(r.json()["href"], headers=h).json()
            assert failed["status"] == "failed" and failed["error"].startswith(said), failed["error"]
            w = {**w, "name": "bert-24", "inputs": {"batch_size": 24, "seq_len": 384}}


def test_a_job_whose_worker_died_is_handed_out_again_and_finishes_once(service: Service) -> None:
    from datetime import datetime, timedelta, timezone

    from sqlalchemy import create_engine, update

    from gpuplan.catalog import schema as t
    from gpuplan.catalog.job_store import JobStore
    from gpuplan.catalog.team_store import now_iso

    engine = create_engine(f"sqlite:///{service.db}")
    jobs = JobStore(engine)
    job = jobs.create("plan", {"request": {}}, actor="x")
    assert jobs.claim(job.id) is not None and jobs.claim(job.id) is None  # one worker at a time
    stale = now_iso(datetime.now(timezone.utc) - timedelta(minutes=5))
    with engine.begin() as conn:
        conn.execute(update(t.jobs).where(t.jobs.c.id == job.id).values(heartbeat_at=stale))
    assert jobs.stalled(30) == [job.id]
    second = jobs.claim(job.id)
    assert second is not None and second.attempts == 2
    jobs.finish(job.id, {"ok": 1})
    jobs.finish(job.id, {"ok": 2})
    jobs.fail(job.id, "late")
    done = jobs.get(job.id)
    assert done is not None and done.status == "done" and done.result == {"ok": 1}
    engine.dispose()


def test_simulate_runs_as_a_job_on_a_small_decoder(service: Service) -> None:
    """Traces GPT-2 in inference (seconds) and replays two hours of generated load."""
    w = {
        "name": "gpt2-service",
        "task": "infer",
        "model": {"preset": "gpt2"},
        "inputs": {"batch_size": 8, "seq_len": 256},
        "precision": "bf16",
        "serving": {"requests_per_s": 2, "prompt_tokens": 128, "output_tokens": 64},
    }
    body = {
        "workload": w,
        "gpu": "L4",
        "hours": 2,
        "policies": ["fixed:replicas=2", "target:target=0.7,max=4"],
    }
    r = service.client.post("/api/v1/simulate", json=body, headers=service.auth("plan"))
    assert r.status_code == 202, r.text
    job = service.client.get(r.json()["href"], headers=service.auth("plan")).json()
    assert job["status"] == "done", job
    from gpuplan.documents.simulate import AutoscaleDocument

    doc = AutoscaleDocument.model_validate(job["result"])
    assert len(doc.policies) == 2
    training = {**w, "task": "train"}
    refused = service.client.post(
        "/api/v1/simulate", json={**body, "workload": training}, headers=service.auth("plan")
    )
    assert refused.status_code == 400 and "task: infer" in refused.json()["error"]  # not queued


def test_import_and_refresh_need_admin_and_are_audited(service: Service) -> None:
    from pathlib import Path

    csv = (
        Path(__file__).resolve().parents[1] / "catalog" / "fixtures" / "aws_vms_v8_gpu_sample.csv"
    ).read_bytes()
    url = "/api/v1/catalog/import?provider=aws&as_of=2026-11-01"
    headers = {"Content-Type": "text/csv"}
    assert (
        service.client.post(url, content=csv, headers={**headers, **service.auth("plan")}).status_code == 403
    )
    r = service.client.post(url, content=csv, headers={**headers, **service.auth("admin")})
    assert r.status_code == 200, r.text
    assert r.json()["prices_imported"] > 0 and r.json()["import_id"] is not None
    bad = service.client.post(
        url, content=b"not,a,catalog\n1,2,3\n", headers={**headers, **service.auth("admin")}
    )
    assert bad.status_code == 400
    # The server's temporary file is the client's request body, not a path on the server.
    assert bad.json()["error"].startswith("the request body does not have the SkyPilot aws header")
    assert "/tmp" not in bad.text and "gpuplan-import" not in bad.text
    # so are the line reader's own refusals: bytes that are not UTF-8, a line too long
    latin1 = service.client.post(url, content=csv + b"\xff,1\n", headers={**headers, **service.auth("admin")})
    assert latin1.status_code == 400
    assert latin1.json()["error"] == f"the request body is not UTF-8 text (byte {len(csv)})"
    long = service.client.post(
        url, content=csv + b"x" * (1 << 20) + b"\n", headers={**headers, **service.auth("admin")}
    )
    assert long.status_code == 400 and "the request body" in long.json()["error"]
    assert "is longer than" in long.json()["error"]
    assert "/tmp" not in latin1.text + long.text and "gpuplan-import" not in latin1.text + long.text
    # every row refused: the line names the first rows and why, as the CLI's table does
    header = csv.split(b"\n", 1)[0] + b"\n"
    rows = b"".join(b"g5.xlarge,A10G,1.0,4.0,16.0,,-%d,,us-east-1,use1-az1,x86_64\n" % i for i in range(1, 6))
    refused = service.client.post(url, content=header + rows, headers={**headers, **service.auth("admin")})
    assert refused.status_code == 400, refused.text
    said = refused.json()["error"]
    head = "no row of the request body passed the gates (5 rejected, 0 skipped: line 2: "
    assert said.startswith(head), said
    assert "; line 3: " in said and "; line 4: " in said and "line 5" not in said
    assert said.endswith("; … and 2 more); nothing was imported"), said
    future = service.client.post(
        url.replace("2026-11-01", "2099-01-01"), content=csv, headers={**headers, **service.auth("admin")}
    )
    assert future.status_code == 400 and "after today" in future.json()["error"]
    # an undated source's bounds, as the CLI takes them; in the wrong order they are refused
    bounds = service.client.post(
        url.replace("2026-11-01", "2026-10/2026-11-30"),
        content=csv,
        headers={**headers, **service.auth("admin")},
    )
    assert bounds.status_code == 200, bounds.text
    reversed_ = service.client.post(
        url.replace("2026-11-01", "2026-11-30/2026-10"),
        content=csv,
        headers={**headers, **service.auth("admin")},
    )
    assert reversed_.status_code == 400 and "2026-11-30/2026-10" in reversed_.json()["error"]
    # GCP needs GOOGLE_API_KEY, which the test environment does not have: skipped, no network used.
    job = service.client.post(
        "/api/v1/catalog/refresh", json={"providers": ["gcp"]}, headers=service.auth("admin")
    ).json()
    done = service.client.get(job["href"], headers=service.auth("admin")).json()
    assert done["status"] == "done" and done["result"]["outcomes"][0]["status"] == "skipped"
    actions = [
        e["action"]
        for e in service.client.get("/api/v1/audit", headers=service.auth("admin")).json()["entries"]
    ]
    assert "catalog.import" in actions and "catalog.refresh" in actions


def test_an_id_beyond_the_database_integer_and_a_misspelt_refresh_are_refused_before_any_work(
    service: Service,
) -> None:
    c = service.client
    # 2147483648: past PostgreSQL's integer id column ("integer out of range", a 500 there)
    for n in ("2147483648", "9223372036854775808", "99999999999999999999999"):
        assert c.get(f"/api/v1/plans/{n}", headers=service.auth("read")).status_code == 400  # was a 500
    cancel = c.post("/api/v1/plans/9223372036854775808/cancel", headers=service.auth("plan"))
    assert cancel.status_code == 400
    refused = c.post("/api/v1/catalog/refresh", json={"providers": ["awz"]}, headers=service.auth("admin"))
    assert refused.status_code == 400 and "did you mean 'aws'" in refused.json()["error"]  # not a job


def test_what_an_address_names_but_is_not_there_is_a_404(service: Service) -> None:
    c = service.client
    missing = c.get("/api/v1/plans/424242", headers=service.auth("read"))
    assert missing.status_code == 404 and missing.json()["error"] == "no saved plan 424242"
    gone = c.delete("/api/v1/catalog/discounts?provider=aws", headers=service.auth("admin"))
    assert gone.status_code == 404 and gone.json()["error"] == "no discount for aws"  # no trailing space
    bad = c.delete("/api/v1/catalog/discounts?provider=awz", headers=service.auth("admin"))
    assert bad.status_code == 400 and "did you mean 'aws'" in bad.json()["error"]  # a bad value stays a 400


def test_a_saved_workload_whose_inline_config_no_trace_could_read_is_refused_when_saved(
    service: Service,
) -> None:
    # model_type "nope" was saved (201) and failed only when a plan was asked of it, naming the
    # server's scratch file; it is refused at once, naming the request's field.
    w = {"name": "x", "model": {"hf_config": "inline"}, "inputs": {"batch_size": 1, "seq_len": 8}}
    body = {"name": "mine", "workload": w, "hf_config_json": {"model_type": "nope"}}
    r = service.client.post("/api/v1/workloads", json=body, headers=service.auth("plan"))
    assert r.status_code == 400, r.text
    assert "hf_config_json" in r.text and "gpuplan-serve" not in r.text and "/tmp" not in r.text
    assert service.client.get("/api/v1/workloads", headers=service.auth("read")).json()["workloads"] == []


def test_import_reads_a_price_list_of_ones_own_as_the_cli_does(service: Service) -> None:
    # The service read only SkyPilot's layout: a yuan price list (--format gpuplan) could not be
    # sent at all. It is now named in the request, with the CLI's checks and refusals.
    from pathlib import Path

    example = (Path(__file__).resolve().parents[2] / "examples" / "prices" / "alibaba-quote.csv").read_bytes()
    admin = {"Content-Type": "text/csv", **service.auth("admin")}
    c = service.client

    def _error(r: Any, status: int) -> str:
        assert r.status_code == status, r.text
        return str(r.json()["error"])

    r = c.post("/api/v1/catalog/import?format=gpuplan", content=example, headers=admin)
    assert r.status_code == 200, r.text
    assert r.json()["provider"] == "alibaba" and r.json()["prices_imported"] == 3
    # the upload is kept with its import as a file is (`catalog imports`): who sent it, its hash
    from gpuplan.catalog import open_store
    from gpuplan.catalog.undo import list_imports

    store = open_store(service.db, seed=False)
    try:
        [uploaded] = [e for e in list_imports(store) if e.id == r.json()["import_id"]]
    finally:
        store.close()
    assert uploaded.file_name == "upload by admin-user", uploaded
    assert uploaded.file_sha256 == hashlib.sha256(example).hexdigest()
    listed = c.get(
        "/api/v1/offers?provider=alibaba&pricing=monthly&currency=CNY", headers=service.auth("read")
    )
    assert any(o["price_cny_per_hour"] for o in listed.json()["offers"])
    # the same list as JSON, sent as application/json
    rows = [
        {
            "provider": "alibaba",
            "region": "cn-hangzhou",
            "instance_type": "ecs.gn7i-c8g1.2xlarge",
            "gpu": "A10",
            "gpu_count": 1,
            "pricing": "monthly",
            "price": 2900,
            "currency": "CNY",
            "unit": "month",
            "as_of": "2026-11-18",
            "source": "EXAMPLE figure",
        }
    ]
    r = c.post("/api/v1/catalog/import?format=gpuplan", json=rows, headers={**service.auth("admin")})
    assert r.status_code == 200, r.text
    # an unknown format: 400 naming the field, with "did you mean"
    said = _error(c.post("/api/v1/catalog/import?format=gpuplna", content=example, headers=admin), 400)
    assert said == "query.format: unknown format 'gpuplna'; did you mean 'gpuplan'?", said
    # the CLI's refusals, naming the request's fields, not the CLI's flags
    no_date = example.replace(b",2026-11-18,", b",,", 1)
    doc = c.post("/api/v1/catalog/import?format=gpuplan", content=no_date, headers=admin).json()
    assert doc["rejected"][0]["reason"] == (
        "as_of is empty: write the day the price was quoted (2026-11-30), or give as_of"
    )
    two = (
        example
        + b"huawei,cn-north-4,,p3.16xlarge.8,A100-SXM4-80GB,8,64,512,on_demand,260,CNY,hour,2026-11-20,x\n"
    )
    said = _error(c.post("/api/v1/catalog/import?format=gpuplan", content=two, headers=admin), 400)
    assert said == (
        "the request body names 2 providers (alibaba, huawei): import one provider at a time with "
        "provider; nothing was imported"
    ), said
    # a price list sent without its format is told the format, not SkyPilot's provider it lacks
    said = _error(c.post("/api/v1/catalog/import", content=example, headers=admin), 400)
    assert said.startswith("this file is a gpuplan price list") and "give format gpuplan" in said, said
    skypilot = b"InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region\n"
    said = _error(c.post("/api/v1/catalog/import", content=skypilot, headers=admin), 400)
    assert said == "a SkyPilot catalog file does not name its provider: give it, provider aws", said
    # a SkyPilot file carries no date: as_of is required, as --as-of is (it was dated today)
    said = _error(c.post("/api/v1/catalog/import?provider=aws", content=skypilot, headers=admin), 400)
    assert said.startswith("a SkyPilot catalog file carries no date: give as_of, the day its prices"), said
    # a monthly price typed as hourly: refused as the CLI refuses it
    hourly = example.replace(b"monthly,105000,CNY,month", b"on_demand,105000,CNY,hour", 1)
    r = c.post("/api/v1/catalog/import?format=gpuplan", content=hourly, headers=admin)
    assert r.status_code == 200, r.text
    reason = r.json()["rejected"][0]["reason"]
    assert "a monthly price typed as hourly?" in reason, reason
    assert reason.endswith("(if the price is right, import it with accept_price 2)"), reason
    # yuan typed as dollars, vouched for as `--accept-price 2` vouches: imported, and named in a warning
    dollars = example.replace(b"monthly,105000,CNY,month", b"monthly,105000,USD,month", 1)
    r = c.post("/api/v1/catalog/import?format=gpuplan", content=dollars, headers=admin)
    assert "yuan in a USD row?" in r.json()["rejected"][0]["reason"], r.text
    r = c.post("/api/v1/catalog/import?format=gpuplan&accept_price=2", content=dollars, headers=admin)
    assert r.status_code == 200 and r.json()["rejected"] == [], r.text
    assert r.json()["warnings"][0].startswith(
        "line 2 let through the check against the catalog's prices on your word (accept_price 2): "
    ), r.text
    actions = [e for e in c.get("/api/v1/audit", headers=service.auth("admin")).json()["entries"]]
    assert any(e["action"] == "catalog.import" and e["target"] == "alibaba" for e in actions)


def test_a_month_budget_that_is_no_number_is_refused_and_0_is_a_budget_of_nothing(service: Service) -> None:
    # The dashboard sent an empty field as 0; the API itself takes no empty, missing or negative
    # amount, and 0 is a deliberate budget (spend nothing this month), as set_budget's line says.
    c, admin = service.client, service.auth("admin")
    for amount in ("", "lots", -1):
        r = c.put("/api/v1/budget/2027-01", json={"amount_usd": amount}, headers=admin)
        assert r.status_code == 400 and r.json()["error"].startswith("amount_usd: "), r.text
    # null is no amount at all: neither in dollars nor in yuan
    r = c.put("/api/v1/budget/2027-01", json={"amount_usd": None}, headers=admin)
    assert r.status_code == 400 and "amount_usd or amount_cny" in r.json()["error"], r.text
    assert c.put("/api/v1/budget/2027-01", json={}, headers=admin).status_code == 400
    assert c.get("/api/v1/budget/2027-01", headers=admin).json()["budget_usd"] is None
    ok = c.put("/api/v1/budget/2027-01", json={"amount_usd": 0}, headers=admin)
    assert ok.status_code == 200 and ok.json()["budget_usd"] == 0, ok.text


def test_a_budget_in_yuan_is_kept_in_yuan_and_stated_in_dollars_at_the_catalogs_dated_rate(
    service: Service,
) -> None:
    # was: amount_usd only — a team budgeting in yuan had to convert by hand (the command takes
    # --budget-cny); now amount_cny is kept, and the note states it in dollars at the catalog's rate.
    c, admin = service.client, service.auth("admin")
    r = c.put("/api/v1/budget/2027-05", json={"amount_cny": 70_000, "note": "Q2"}, headers=admin)
    assert r.status_code == 200, r.text
    doc = r.json()
    usd = c.put("/api/v1/budget/2027-06", json={"amount_usd": 1}, headers=admin).json()
    assert usd["budget_usd"] == 1
    assert 5_000 < doc["budget_usd"] < 15_000  # 70,000 yuan at about 0.14 USD a yuan
    assert doc["note"].startswith("Budget ¥70,000.00 read as yuan (CNY) at ") and doc["note"].endswith(
        " · Q2"
    ), doc["note"]
    assert doc["budget_cny"] == 70_000 and usd["budget_cny"] is None
    assert (doc["currency"], usd["currency"]) == ("CNY", "USD")
    for body in ({"amount_usd": 1, "amount_cny": 7}, {}, {"amount_cny": -1}, {"amount_cny": 1e14}):
        bad = c.put("/api/v1/budget/2027-07", json=body, headers=admin)
        assert bad.status_code == 400, (body, bad.text)


def test_a_stale_rate_names_the_request_that_refreshes_it(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    # It said "`gpuplan catalog refresh --rates` fetches the latest, or give yours with --cny-per-usd":
    # a command, and an option no request of the service has.
    from gpuplan.catalog import refresh as refreshing

    offers = service.client.get("/api/v1/offers?currency=CNY", headers=service.auth("read")).json()
    warning = offers["exchange_rate"]["warning"]
    assert warning is not None, offers["exchange_rate"]  # the shipped rate is months old
    assert warning.endswith("`POST /api/v1/catalog/refresh (rates: true)` fetches the latest."), warning
    # the request as it is sent, so that a Chinese sentence around it holds no English words
    zh = service.client.get("/api/v1/offers?currency=CNY&lang=zh", headers=service.auth("read")).json()
    zh_warning = zh["exchange_rate"]["warning"]
    assert "`POST /api/v1/catalog/refresh (rates: true)` 可获取最新汇率" in zh_warning, zh_warning
    assert "cny-per-usd" not in warning
    asked: list[bool] = []

    def rates(store: Any, options: Any, *, named: bool = True) -> Any:
        asked.append(named)  # stands in for the ECB's file (no network in tests)
        return refreshing.RefreshOutcome(provider="rates", status="ok", message="CNY rate of today")

    monkeypatch.setattr(refreshing, "refresh_rates", rates)
    job = service.client.post("/api/v1/catalog/refresh", json={"rates": True}, headers=service.auth("admin"))
    done = service.client.get(job.json()["href"], headers=service.auth("admin")).json()
    assert done["status"] == "done" and [o["provider"] for o in done["result"]["outcomes"]] == ["rates"]
    assert asked == [True]  # the rate alone: no provider's list was read


def test_a_workload_name_that_reads_as_a_saved_one_is_refused(service: Service) -> None:
    # BERT, ｂｅｒｔ, 𝐛𝐞𝐫𝐭 and bеrt (a Cyrillic е) had each been kept beside bert as a workload of its own
    c, h = service.client, service.auth("plan")
    w = bert_workload()
    assert (
        c.post("/api/v1/workloads", json={"name": "bert-reads", "workload": w}, headers=h).status_code == 201
    )
    for twin in ("BERT-reads", "ｂｅｒｔ-reads", "𝐛𝐞𝐫𝐭-reads"):
        r = c.post("/api/v1/workloads", json={"name": twin, "workload": w}, headers=h)
        assert r.status_code == 400, r.text
        assert (
            r.json()["error"]
            == f"workload name {twin!r} reads as the saved 'bert-reads': save it under that name"
        )
    r = c.post("/api/v1/workloads", json={"name": "b\u0435rt-mixed", "workload": w}, headers=h)
    assert r.status_code == 400 and "mixes Latin, Cyrillic letters" in r.json()["error"], r.text
    assert (
        c.post("/api/v1/workloads", json={"name": "训练-bert", "workload": w}, headers=h).status_code == 201
    )


def test_a_budget_of_less_than_a_fen_is_refused(service: Service) -> None:
    # 1e-300 yuan had been kept as $1.4e-301 and shown as "¥0.00 = $0.00"
    r = service.client.put(
        "/api/v1/budget/2027-05", json={"amount_cny": 1e-300}, headers=service.auth("admin")
    )
    assert r.status_code == 400 and "amount_cny" in r.json()["error"], r.text


def test_a_budget_in_yuan_at_an_old_rate_says_the_rate_is_old(service: Service) -> None:
    # its note named the rate's date and nothing more; every output that converts warns past 30 days
    c = service.client
    r = c.put("/api/v1/budget/2027-06", json={"amount_cny": 7000}, headers=service.auth("admin"))
    assert r.status_code == 200, r.text
    note = c.get("/api/v1/budget/2027-06", headers=service.auth("read")).json()["note"]
    assert note.startswith("Budget ¥7,000.00 read as yuan (CNY) at ") and "days old (more than 30)" in note, (
        note
    )


def test_a_budget_in_yuan_states_its_conversion_in_the_readers_language(service: Service) -> None:
    # The conversion had been kept as a sentence in the setter's language: a budget set by a Chinese
    # reader's request was read in Chinese by every English one, and the other way round.
    c, admin = service.client, service.auth("admin")
    r = c.put("/api/v1/budget/2027-08?lang=zh", json={"amount_cny": 7_000, "note": "训练预算"}, headers=admin)
    assert r.status_code == 200, r.text
    set_zh = r.json()["note"]
    assert set_zh.startswith("预算 ¥7,000.00") and set_zh.endswith(" · 训练预算"), set_zh
    en = c.get("/api/v1/budget/2027-08?lang=en", headers=service.auth("read")).json()
    assert en["note"].startswith("Budget ¥7,000.00 read as yuan (CNY) at ") and en["note"].endswith(
        " · 训练预算"
    ), en["note"]
    assert en["budget_usd"] == r.json()["budget_usd"] and en["budget_cny"] == 7_000
    zh = c.get("/api/v1/budget/2027-08", headers={**service.auth("read"), "Accept-Language": "zh-CN"}).json()
    assert zh["note"] == set_zh
    audit = c.get("/api/v1/audit", headers=admin).json()["entries"]
    details = next(e["details"] for e in audit if e["action"] == "budget.set" and e["target"] == "2027-08")
    assert details["amount_cny"] == 7_000 and details["note"] == "训练预算" and details["usd_per_cny"] > 0


def test_a_refresh_asked_in_chinese_answers_in_chinese_and_is_audited_in_english(service: Service) -> None:
    # The job's result is for who asked (zh); the audit log is read by any admin: its line is English.
    job = service.client.post(
        "/api/v1/catalog/refresh?lang=zh", json={"providers": ["gcp"]}, headers=service.auth("admin")
    ).json()
    done = service.client.get(job["href"], headers=service.auth("admin")).json()
    said = done["result"]["outcomes"][0]["message"]
    assert done["status"] == "done" and any("\u4e00" <= ch <= "\u9fff" for ch in said), said
    entries = service.client.get("/api/v1/audit", headers=service.auth("admin")).json()["entries"]
    refresh = next(e for e in entries if e["action"] == "catalog.refresh")
    audited = refresh["details"]["outcomes"][0]["message"]
    assert audited.isascii() and "GOOGLE_API_KEY" in audited, audited
