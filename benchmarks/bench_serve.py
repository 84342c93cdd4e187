"""Load test of ``gpuplan serve`` on loopback: 50 concurrent clients planning on a cached profile.

    python benchmarks/bench_serve.py [--clients 50] [--seconds 60] [--workers 2]

Starts ``gpuplan serve`` on 127.0.0.1 (a fresh SQLite catalog in a temporary folder; nothing else
is contacted), traces the BERT-Large example once, then runs ``--clients`` concurrent clients for
``--seconds``: each posts the example's plan request (one of five deadlines, so the plan cache holds
five answers) and every tenth request saves a workload (a write). It prints p50/p95/p99 latency of
the plans, the error count, and whether every acknowledged write is in the database (0 lost
writes). The reference, measured in the same run and printed as a ratio: one plan computed by the
library in this process (``plan_workload`` on the cached profile, no HTTP, no cache).

Bounded: the clients stop after ``--seconds``; the server is stopped with its children.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import yaml

REPO = Path(__file__).resolve().parents[1]
DEADLINES = ("6h", "8h", "12h", "1d", "2d")


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _prepare(db: Path) -> tuple[str, dict[str, Any], float]:
    """A token, the workload (traced and cached), and the reference: one library plan, seconds."""
    from gpuplan.catalog import open_store
    from gpuplan.catalog.team_store import TeamStore
    from gpuplan.plan import plan_workload
    from gpuplan.profile import profile
    from gpuplan.workload import load_workload

    workload = yaml.safe_load((REPO / "examples" / "bert-large-squad.yaml").read_text())
    store = open_store(str(db))
    try:
        token, _ = TeamStore(store.engine).create_token("load", "plan", rate_per_minute=1_000_000)
        w = load_workload(workload)
        prof = profile(w, store.local)  # traced once (seconds), then cached
        times = []
        for _ in range(3):
            t = time.perf_counter()
            plan_workload(w, prof, store, overrides={"deadline_h": 12.0})
            times.append(time.perf_counter() - t)
    finally:
        store.close()
    return token, workload, min(times)


async def _client(
    n: int, base: str, token: str, workload: dict[str, Any], until: float, out: dict[str, list[Any]]
) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=60) as c:
        i = 0
        while time.monotonic() < until:
            i += 1
            body = {"workload": workload, "deadline": DEADLINES[(n + i) % len(DEADLINES)]}
            t = time.perf_counter()
            try:
                r = await c.post("/api/v1/plan", json=body)
                ok = r.status_code == 200
            except httpx.HTTPError:
                ok = False
            out["plan_s"].append(time.perf_counter() - t)
            if not ok:
                out["errors"].append(n)
            if i % 10 == 0:
                name = f"load-{n}-{i}"
                t = time.perf_counter()
                try:
                    r = await c.post("/api/v1/workloads", json={"name": name, "workload": workload})
                    if r.status_code == 201:
                        out["written"].append(name)
                    else:
                        out["errors"].append(n)
                except httpx.HTTPError:
                    out["errors"].append(n)
                out["write_s"].append(time.perf_counter() - t)


def _cpu_s(root: int) -> float:
    """CPU seconds (user + system) of ``root`` and every process below it, from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
            todo += [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        except OSError:
            continue
    return total


def _quantile(xs: list[float], q: float) -> float:
    return statistics.quantiles(xs, n=100, method="inclusive")[int(q * 100) - 1] if len(xs) > 1 else xs[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=2, help="uvicorn worker processes")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="gpuplan-bench-serve-"))
    db = folder / "catalog.sqlite"
    proc = None
    try:
        token, workload, reference_s = _prepare(db)
        port = _free_port()
        base = f"http://127.0.0.1:{port}"
        command = [sys.executable, "-m", "gpuplan", "--db", str(db), "serve", "--port", str(port)]
        command += ["--workers", str(args.workers), "--job-workers", "0"]
        log = (folder / "serve.log").open("wb")
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(base + "/api/v1/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                print((folder / "serve.log").read_text()[-2000:])
                return 1
            time.sleep(0.3)
        out: dict[str, list[Any]] = {"plan_s": [], "write_s": [], "errors": [], "written": []}
        until = time.monotonic() + args.seconds

        async def run() -> None:
            await asyncio.gather(
                *(_client(n, base, token, workload, until, out) for n in range(args.clients))
            )

        started, cpu_before = time.monotonic(), _cpu_s(proc.pid)
        asyncio.run(run())
        elapsed, server_cpu_s = time.monotonic() - started, _cpu_s(proc.pid) - cpu_before
        load = os.getloadavg()[0]
    finally:
        if proc is not None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
    conn = sqlite3.connect(db)
    stored = {r[0] for r in conn.execute("SELECT name FROM team_workloads")}
    conn.close()
    shutil.rmtree(folder, ignore_errors=True)
    plans = sorted(out["plan_s"])
    lost = set(out["written"]) - stored
    p50, p95, p99 = (_quantile(plans, q) for q in (0.50, 0.95, 0.99))
    print(f"gpuplan serve, {args.clients} clients × {args.seconds:g} s on 127.0.0.1, {args.workers} workers")
    print(f"  plans answered: {len(plans)} ({len(plans) / elapsed:.0f}/s); errors: {len(out['errors'])}")
    print(f"  plan latency: p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms")
    if out["write_s"]:
        write_p95 = _quantile(sorted(out["write_s"]), 0.95)
        print(f"  writes: {len(out['written'])} acknowledged, p95 {write_p95 * 1000:.0f} ms")
    print(f"  lost writes: {len(lost)}")
    requests = len(plans) + len(out["write_s"])
    per_request_ms = server_cpu_s / requests * 1000
    print(f"  server CPU: {per_request_ms:.1f} ms per request ({requests / server_cpu_s:.0f} per CPU-second)")
    print(f"  machine load average at the end: {load:.1f} on {os.cpu_count()} CPUs")
    print(f"  reference (one library plan, no HTTP, no cache): {reference_s * 1000:.0f} ms")
    print(f"  p95 / reference: {p95 / reference_s:.2f}")
    return 0 if not lost and not out["errors"] else 1


if __name__ == "__main__":
    sys.exit(main())
