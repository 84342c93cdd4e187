"""``kill -9`` under load: a uvicorn worker killed during writes loses no acknowledged write, and a
job worker killed during a job leaves a job that the next worker finishes.

Both run ``gpuplan serve`` as a real process on 127.0.0.1 (bounded: a few hundred requests, a
few seconds each way) and stop it with its children.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import threading
import time
from pathlib import Path

import httpx
from serve_helpers import make_tokens
from server_process import children, cmdline, serving


def test_killing_a_worker_during_writes_loses_no_acknowledged_write(tmp_path: Path, fresh_db: str) -> None:
    db = fresh_db
    token = make_tokens(db)["plan"]
    acknowledged: list[str] = []
    lock = threading.Lock()
    workload = {"name": "w", "model": {"preset": "gpt2"}, "inputs": {"batch_size": 1, "seq_len": 16}}
    with serving(db, "--workers", "2", "--job-workers", "0", log=tmp_path / "serve.log") as (base, proc):
        stop = threading.Event()

        def writer(n: int) -> None:
            with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=30) as c:
                for i in range(40):
                    if stop.is_set():
                        return
                    name = f"w-{n}-{i}"
                    try:
                        r = c.post("/api/v1/workloads", json={"name": name, "workload": workload})
                    except httpx.HTTPError:
                        continue  # the connection died with the worker: not acknowledged
                    if r.status_code == 201:
                        with lock:
                            acknowledged.append(name)

        threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 60
        while len(acknowledged) < 5:  # writes are going through both workers
            assert time.monotonic() < deadline, "no write was acknowledged"
            time.sleep(0.1)
        workers = [p for p in children(proc.pid) if "serve worker" not in cmdline(p)]
        assert workers, "no uvicorn worker process found"
        before = len(acknowledged)
        os.kill(workers[0], signal.SIGKILL)
        for t in threads:
            t.join(timeout=120)
        stop.set()
        assert before > 0 and len(acknowledged) > before, (before, len(acknowledged))
        assert httpx.get(base + "/api/v1/health", timeout=10).status_code == 200
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        stored = {r[0] for r in conn.execute("SELECT name FROM team_workloads")}
        audited = {r[0] for r in conn.execute("SELECT target FROM audit_log WHERE action = 'workload.save'")}
    finally:
        conn.close()
    lost = set(acknowledged) - stored
    assert not lost, f"{len(lost)} acknowledged writes lost"
    assert stored <= audited  # every stored change has its audit row (same transaction)


def test_a_job_whose_worker_is_killed_is_finished_by_the_next_worker(tmp_path: Path, fresh_db: str) -> None:
    """Traces a small GPT-2 step; the worker is killed while it runs, the supervisor starts another,
    which takes the job over once its heartbeat is stale (4 s here)."""
    db = fresh_db
    token = make_tokens(db)["plan"]
    headers = {"Authorization": f"Bearer {token}"}
    w = {"name": "gpt2-kill", "model": {"preset": "gpt2"}, "inputs": {"batch_size": 2, "seq_len": 256}}
    with serving(db, "--job-stall-s", "4", log=tmp_path / "serve.log") as (base, proc):
        r = httpx.post(
            base + "/api/v1/estimate", json={"workload": w, "gpus": ["L4"]}, headers=headers, timeout=30
        )
        assert r.status_code == 202, r.text
        href = base + r.json()["href"]
        deadline = time.monotonic() + 60
        while httpx.get(href, headers=headers, timeout=10).json()["status"] != "running":
            assert time.monotonic() < deadline, "the job never started"
            time.sleep(0.2)
        job_workers = [p for p in children(proc.pid) if "serve worker" in cmdline(p)]
        assert len(job_workers) == 1
        os.kill(job_workers[0], signal.SIGKILL)
        deadline = time.monotonic() + 150
        while (job := httpx.get(href, headers=headers, timeout=10).json())["status"] in ("queued", "running"):
            assert time.monotonic() < deadline, f"the job was not finished: {job}"
            time.sleep(0.5)
        assert job["status"] == "done", job
        assert job["attempts"] == 2 and job["result"]["estimates"][0]["gpu"] == "L4"
    assert "job worker stopped" in (tmp_path / "serve.log").read_text()
