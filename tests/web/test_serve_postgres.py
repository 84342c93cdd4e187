"""The service on a PostgreSQL catalog: tokens, plans, the workspace, and the job queue in the same
database (huey's PostgreSQL storage, psycopg 3), taken by a worker as another replica's
would. Skipped, saying why, where no server can be had (``tests/postgres_server.py``)."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_helpers import Service, bert_workload, cache_stand_in, make_tokens

from postgres_server import Server, fresh_database, start


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    yield from start()


@pytest.fixture
def pg_service(server: Server, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Service]:
    from fastapi.testclient import TestClient

    from gpuplan.web.app import create_app
    from gpuplan.web.config import ServeConfig

    url = fresh_database(server, "serve_" + re.sub(r"\W", "_", request.node.name)[:50].lower())
    tokens = make_tokens(url)
    cache_stand_in(url, bert_workload())
    app = create_app(ServeConfig(db=url, scratch_dir=str(tmp_path), job_stall_s=4))
    with TestClient(app) as client:
        yield Service(client=client, db=url, tokens=tokens)


def test_plans_and_the_workspace_on_postgres(pg_service: Service) -> None:
    c = pg_service.client
    plan = c.post("/api/v1/plan", json={"workload": bert_workload()}, headers=pg_service.auth("plan"))
    assert plan.status_code == 200, plan.text
    assert (
        c.post(
            "/api/v1/workloads",
            json={"name": "bert", "workload": bert_workload()},
            headers=pg_service.auth("plan"),
        ).status_code
        == 201
    )
    saved = c.post(
        "/api/v1/plans", json={"name": "bert", "month": "2027-02"}, headers=pg_service.auth("plan")
    )
    assert saved.status_code == 201, saved.text
    c.put("/api/v1/budget/2027-02", json={"amount_usd": 500}, headers=pg_service.auth("admin"))
    budget = c.get("/api/v1/budget/2027-02", headers=pg_service.auth("read")).json()
    assert budget["planned_usd"] == round(saved.json()["total_cost_usd"], 2)
    # The listing's recommended option, read out of the document by PostgreSQL's json operators.
    rec = saved.json()["document"]["recommended"]
    assert [p["recommended"] for p in budget["plans"]] == [
        f"{rec['provider']}/{rec['region']}/{rec['instance_type']} × {rec['nodes']}, {rec['pricing']}"
    ]
    # a year's budget, its own table on PostgreSQL too, counted against the year's months
    year = c.put("/api/v1/budget/2027", json={"amount_usd": 6000}, headers=pg_service.auth("admin"))
    assert year.status_code == 200, year.text
    assert year.json()["planned_usd"] == budget["planned_usd"]
    again = c.get("/api/v1/budget/2027-02", headers=pg_service.auth("read")).json()
    assert again["year_budget_usd"] == 6000 and again["year_remaining_usd"] == round(
        6000 - budget["planned_usd"], 2
    )
    assert c.get("/api/v1/offers", headers={"Authorization": "Bearer gpuplan_x_y"}).status_code == 401


def test_a_job_queued_on_postgres_is_run_by_a_worker_and_claimed_once(pg_service: Service) -> None:
    from gpuplan.catalog.job_store import JobStore
    from gpuplan.web.requests import PlanRequest

    runner = pg_service.client.app.state.runner  # type: ignore[attr-defined]
    store = pg_service.client.app.state.stores.get()  # type: ignore[attr-defined]
    jobs = JobStore(store.engine)
    request = PlanRequest(workload=bert_workload()).model_dump(mode="json")
    job = jobs.create("plan", {"request": request, "lang": "en"}, actor="plan-user")
    runner.submit(job.id)
    stop = threading.Event()
    worker = threading.Thread(target=runner.work, kwargs={"threads": 1, "stop": stop})
    worker.start()
    try:
        deadline = time.monotonic() + 60
        while (found := jobs.get(job.id)) is not None and found.status in ("queued", "running"):
            assert time.monotonic() < deadline, found
            time.sleep(0.2)
    finally:
        stop.set()
        worker.join(timeout=30)
    assert found is not None and found.status == "done", found
    assert found.result is not None and found.result["recommended"]["total_cost_usd"] > 0
    # Two workers claiming one job at once: the row lock lets one of them have it.
    other = jobs.create("plan", {"request": request, "lang": "en"}, actor="plan-user")
    got: list[object] = []
    claims = [threading.Thread(target=lambda: got.append(jobs.claim(other.id))) for _ in range(4)]
    for t in claims:
        t.start()
    for t in claims:
        t.join()
    assert sum(x is not None for x in got) == 1


def test_concurrent_writes_of_one_key_on_postgres_all_land_with_their_audit(server: Server) -> None:
    # was: a delete then insert per budget and discount, and max(version) + 1 per workload save:
    # writers of one key collided on its unique key (21 of 32 budget PUTs a 500, the writes lost),
    # a discount's audit entry was written in a second transaction (its last entry not the value in
    # force), and a save racing a name's creation was told the name "reads as the saved" itself
    from concurrent.futures import ThreadPoolExecutor

    from gpuplan.catalog import open_store
    from gpuplan.catalog.discounts import discounts, set_discount
    from gpuplan.catalog.team_store import TeamStore

    url = fresh_database(server, "serve_concurrent_writes")
    store = open_store(url)
    team = TeamStore(store.engine)
    n = 16

    def budget(i: int) -> None:
        team.set_budget("2031-01", 100.0 + i, actor="admin")

    def discount(i: int) -> None:
        def audit(conn: object, d: object) -> None:
            TeamStore.audit(conn, "admin", "discount.set", "lambda", {"percent": d.percent})  # type: ignore[arg-type, attr-defined]

        set_discount(store, "lambda", 1.0 + i, also=audit)

    def save(i: int) -> None:
        workload = bert_workload()
        workload["inputs"]["batch_size"] = 1 + i  # each its own: a new version each
        team.save_workload("raced", workload, actor=f"user{i}")

    def save_same(i: int) -> bool:
        return team.save_workload("twice", bert_workload(), actor=f"user{i}").unchanged

    with ThreadPoolExecutor(n) as pool:
        for job in (budget, discount, save):
            list(pool.map(job, range(n)))  # any exception is raised here
        unchanged = list(pool.map(save_same, range(n)))
    # one spec saved at once by every writer: one version, the others told it is unchanged
    assert [w.version for w in team.workload_versions("twice")] == [1]
    assert sorted(unchanged) == [False] + [True] * (n - 1)
    kept = team.budget("2031-01")
    assert kept is not None and 100.0 <= kept.amount_usd < 100.0 + n
    [lam] = [d for d in discounts(store) if d.provider == "lambda"]
    entries = team.audit_entries(limit=1000)
    last = next(e for e in entries if e.action == "discount.set")
    assert last.details["percent"] == lam.percent  # the audit's newest entry is the value in force
    assert sorted(w.version for w in team.workload_versions("raced")) == list(range(1, n + 1))
    store.close()
