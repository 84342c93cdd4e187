"""A job cannot hold a worker for ever: it is stopped past ``ServeConfig.job_limit_s`` (and the
next job runs), and its owner or an admin can cancel it, queued or running (``DELETE /jobs/{id}``):
it ends ``cancelled``. A job is its owner's and the admins' to read, cancel or follow; to anyone else
it is unknown. The running jobs here are stand-ins that sleep (``job_stand_ins``), not traces."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from job_stand_ins import sleeper
from serve_helpers import Service

from gpuplan.catalog import open_store
from gpuplan.catalog.job_store import JobRecord, JobStore
from gpuplan.catalog.team_store import TeamStore
from gpuplan.web.config import ServeConfig
from gpuplan.web.jobs import JobRunner


@pytest.fixture
def runner(fresh_db: str, tmp_path: Path) -> Iterator[JobRunner]:
    """A runner on its own queue in the catalog file, whose jobs are sleepers; at most 3 s a job."""
    config = ServeConfig(db=fresh_db, scratch_dir=str(tmp_path / "s"), job_limit_s=3.0, job_stall_s=60)
    runner = JobRunner(config, lambda: open_store(fresh_db, seed=False))
    runner.child_main = sleeper
    try:
        yield runner
    finally:
        runner.close()


def _sleep_job(jobs: JobStore, seconds: float, actor: str = "plan-user") -> str:
    return jobs.create("estimate", {"sleep_s": seconds, "lang": "en"}, actor=actor).id


def _until(jobs: JobStore, job_id: str, done: object, timeout_s: float = 60.0) -> JobRecord:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        record = jobs.get(job_id)
        assert record is not None
        if callable(done) and done(record):
            return record
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} did not get there in {timeout_s} s: {jobs.get(job_id)}")


def test_a_job_past_its_limit_fails_and_the_next_job_runs(runner: JobRunner) -> None:
    jobs = runner.jobs
    slow, quick = _sleep_job(jobs, 600), _sleep_job(jobs, 0)
    stop = threading.Event()
    worker = threading.Thread(target=runner.work, kwargs={"threads": 1, "stop": stop})
    worker.start()
    try:
        runner.submit(slow)
        runner.submit(quick)
        # one worker thread: the quick job runs only once the slow one is stopped, 3 s into it
        ended = _until(jobs, quick, lambda r: r.status in ("done", "failed"))
    finally:
        stop.set()
        worker.join(60)
    stopped = jobs.get(slow)
    assert stopped is not None and stopped.status == "failed"
    assert stopped.error == (
        "stopped after 3 s, the longest a job may run on this service (gpuplan serve --job-limit-s)"
    )
    assert ended.status == "done" and ended.result == {"slept_s": 0}
    assert ended.started_at is not None and stopped.finished_at is not None
    assert ended.started_at >= stopped.finished_at[: len(ended.started_at)]


def test_cancelling_a_running_job_kills_its_process(runner: JobRunner) -> None:
    jobs = runner.jobs
    runner.config = ServeConfig(**{**runner.config.__dict__, "job_limit_s": 600.0})
    job_id = _sleep_job(jobs, 600)
    running = threading.Thread(target=runner.run, args=(job_id,))
    running.start()
    sleeping = _until(jobs, job_id, lambda r: r.message.startswith("sleeping in "))
    pid = int(sleeping.message.rsplit(" ", 1)[1])
    assert jobs.cancel(job_id, "cancelled by plan-user", actor="plan-user")
    running.join(30)
    assert not running.is_alive()  # the worker is free again
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # and the job's process is gone
    ended = jobs.get(job_id)
    assert ended is not None and (ended.status, ended.error) == ("cancelled", "cancelled by plan-user")


def test_the_owner_cancels_a_queued_job_which_then_never_runs(service: Service, runner: JobRunner) -> None:
    jobs = runner.jobs
    job_id = _sleep_job(jobs, 0)
    r = service.client.delete(f"/api/v1/jobs/{job_id}", headers=service.auth("plan"))
    assert r.status_code == 200, r.text
    assert (r.json()["status"], r.json()["error"]) == ("cancelled", "cancelled by plan-user")
    runner.run(job_id)  # its queue message, taken later: nothing runs
    after = jobs.get(job_id)
    assert after is not None and after.result is None and after.attempts == 0
    assert after.status == "cancelled"
    # again: the job has ended; it is returned as it is
    again = service.client.delete(f"/api/v1/jobs/{job_id}", headers=service.auth("plan"))
    assert again.status_code == 200 and again.json()["error"] == "cancelled by plan-user"
    # polled and followed, it says so in its status (a client branches on it, not on the line)
    polled = service.client.get(f"/api/v1/jobs/{job_id}", headers=service.auth("plan"))
    assert polled.status_code == 200, polled.text
    assert (polled.json()["status"], polled.json()["schema_version"]) == ("cancelled", 2)
    events = service.client.get(f"/api/v1/jobs/{job_id}/events", headers=service.auth("plan")).text
    assert events.startswith("event: cancelled\n") and '"status": "cancelled"' in events


def test_another_users_job_is_unknown_to_a_plan_token_and_an_admin_cancels_it(service: Service) -> None:
    jobs = JobStore(open_store(service.db, seed=False).engine)
    job_id = _sleep_job(jobs, 0, actor="someone-else")
    r = service.client.delete(f"/api/v1/jobs/{job_id}", headers=service.auth("plan"))
    assert r.status_code == 404, r.text
    assert r.json()["error"] == f"no job {job_id}"
    assert jobs.get(job_id).status == "queued"  # type: ignore[union-attr]
    assert service.client.delete(f"/api/v1/jobs/{job_id}", headers=service.auth("read")).status_code == 403
    r = service.client.delete(f"/api/v1/jobs/{job_id}?lang=zh", headers=service.auth("admin"))
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "cancelled" and r.json()["error"] == "cancelled by admin-user"


def _refusal_without_id(r: Any, job_id: str) -> dict[str, Any]:
    assert r.status_code == 404, r.text
    assert r.json()["kind"] == "not_found"  # a documented kind (ErrorKind)
    return json.loads(r.text.replace(job_id, "JOB"))


def test_a_job_is_unknown_to_anyone_but_its_owner_and_an_admin(service: Service) -> None:
    """Its request and result (the workload, the plan and its figures) are its owner's: another
    token, of another name or another team, reads, follows and cancels nothing, and is answered as
    for a job that does not exist, in every language."""
    store = open_store(service.db, seed=False)
    try:
        jobs = JobStore(store.engine)
        job_id = _sleep_job(jobs, 0, actor="plan-user")
        assert jobs.claim(job_id) is not None
        jobs.finish(job_id, {"plan": "the owner's figures"})
        other_team = TeamStore(store.engine).create_token("infer-user", "plan", team="infer")[0]
    finally:
        store.close()
    unknown = "0" * 24
    c = service.client
    strangers = {
        "read": service.auth("read"),
        "plan, of another name and a team": {"Authorization": f"Bearer {other_team}"},
    }
    for who, headers in strangers.items():
        for lang in ("en", "zh"):
            for path in ("", "/events"):
                refused = c.get(f"/api/v1/jobs/{job_id}{path}?lang={lang}", headers=headers)
                absent = c.get(f"/api/v1/jobs/{unknown}{path}?lang={lang}", headers=headers)
                assert _refusal_without_id(refused, job_id) == _refusal_without_id(absent, unknown), who
                assert "figures" not in refused.text
        if who != "read":
            r = c.delete(f"/api/v1/jobs/{job_id}", headers=headers)
            assert _refusal_without_id(r, job_id) == _refusal_without_id(
                c.delete(f"/api/v1/jobs/{unknown}", headers=headers), unknown
            )
    for owner_or_admin in ("plan", "admin"):
        r = c.get(f"/api/v1/jobs/{job_id}", headers=service.auth(owner_or_admin))
        assert r.status_code == 200, r.text
        assert r.json()["result"] == {"plan": "the owner's figures"}
        events = c.get(f"/api/v1/jobs/{job_id}/events", headers=service.auth(owner_or_admin)).text
        assert events.startswith("event: done\n") and "the owner's figures" in events


def test_a_revoked_tokens_name_is_never_given_again_so_its_jobs_stay_its_holders(service: Service) -> None:
    """A job is its owner's by the name of the token that queued it: were a revoked token's name
    given to a new token, that token would read and cancel the old holder's jobs. The name is kept
    for good, and the refusal says so rather than suggesting to revoke the old token first."""
    from gpuplan.errors import InputError

    store = open_store(service.db, seed=False)
    try:
        team = TeamStore(store.engine)
        alice = {"Authorization": f"Bearer {team.create_token('alice', 'plan')[0]}"}
        job_id = _sleep_job(JobStore(store.engine), 0, actor="alice")
        assert service.client.get(f"/api/v1/jobs/{job_id}", headers=alice).status_code == 200
        team.revoke_token("alice")
        for again in ("alice", "ALICE", "ａｌｉｃｅ"):
            with pytest.raises(InputError) as refused:
                team.create_token(again, "plan")
            line = str(refused.value)
            assert "'alice'" in line and "never given again" in line and "revoke it first" not in line, line
        assert [t.name for t in team.tokens()].count("alice") == 1
    finally:
        store.close()
    assert service.client.get(f"/api/v1/jobs/{job_id}", headers=alice).status_code == 401
    r = service.client.get(f"/api/v1/jobs/{job_id}", headers=service.auth("admin"))
    assert r.status_code == 200 and r.json()["created_by"] == "alice", r.text
