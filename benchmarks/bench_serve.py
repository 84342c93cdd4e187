"""Load test of ``gpuplan serve`` on loopback: concurrent clients planning on a cached profile,
some of them saving plans.

    python benchmarks/bench_serve.py [--clients 50] [--seconds 60] [--workers 2] [--out FILE]

Starts ``gpuplan serve`` on 127.0.0.1 (a fresh SQLite catalog in a temporary folder; nothing else
is contacted), traces the BERT-Large example once, saves it as a team workload, and asks each of
the five plan requests once (one per deadline) so that the answers are cached, as the target
says ("a cached plan"). Then ``--clients`` closed-loop clients run for ``--seconds``: each posts
one of the five plan requests in turn, and every tenth request saves a plan of the saved workload
(``POST /api/v1/plans``: a write of the plan document and its audit row).

The load generator is a plain HTTP/1.1 keep-alive client on asyncio streams (one connection per
client, the request bytes built once), so that it takes little of the two cores it shares with the
server; its own CPU time is measured and printed beside the server's. ``--wrk`` runs the plan
requests with wrk instead (Debian's ``wrk``, ``benchmarks/serve_plan.lua``; no writes), as a
second opinion on the same server: its figures go under ``"wrk"`` in the JSON.

Printed, and written as JSON to ``--out`` (default ``benchmarks/results/serve.json``): p50/p95/p99
latency of the plans and of the writes, errors by status, requests per second, the server's and
the load generator's CPU per request, and the lost writes (acknowledged saved plans missing from
the database afterwards; must be 0). The reference, measured in the same run: one plan computed
by the library in this process (``plan_workload`` on the cached profile, no HTTP, no cache) and
the CPU of ``python -c "import gpuplan"``.

Bounded: the clients stop after ``--seconds``; the server is stopped with its children.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from _process import IMPORT_GPUPLAN, measure  # noqa: E402

DEADLINES = ("6h", "8h", "12h", "1d", "2d")
WRITE_EVERY = 10
MONTH = "2030-01"
SAVED = "bench-bert"


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _prepare(db: Path) -> tuple[str, dict[str, Any], float]:
    """A token, the workload (traced, cached and saved), and the reference: one library plan."""
    from gpuplan.catalog import open_store
    from gpuplan.catalog.team_store import TeamStore
    from gpuplan.plan import plan_workload
    from gpuplan.profile import profile
    from gpuplan.workload import load_workload

    workload = yaml.safe_load((REPO / "examples" / "bert-large-squad.yaml").read_text())
    store = open_store(str(db))
    try:
        team = TeamStore(store.engine)
        token, _ = team.create_token("load", "plan", rate_per_minute=1_000_000)
        team.save_workload(SAVED, {"workload": workload, "hf_config_json": None}, actor="bench")
        w = load_workload(workload)
        prof = profile(w, store.local)  # traced once (seconds), then cached
        times = []
        for _ in range(3):
            t = time.process_time()
            plan_workload(w, prof, store, overrides={"deadline_h": 12.0})
            times.append(time.process_time() - t)
    finally:
        store.close()
    return token, workload, min(times)


def _request(port: int, token: str, path: str, body: dict[str, Any]) -> bytes:
    data = json.dumps(body).encode()
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
    )
    return head.encode() + data


async def _exchange(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes
) -> tuple[int, bytes]:
    """One request on a kept-alive connection: (status, body). The server states a Content-Length."""
    writer.write(request)
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    lower = head.lower()
    at = lower.find(b"\r\ncontent-length:")
    if at < 0:
        raise ConnectionError("no Content-Length in the answer")
    end = lower.index(b"\r\n", at + 2)
    body = await reader.readexactly(int(lower[at + 17 : end]))
    return status, body


@dataclass
class Tally:
    plan_s: list[float] = field(default_factory=list)
    write_s: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    saved_ids: list[int] = field(default_factory=list)


async def _client(n: int, port: int, plans: list[bytes], write: bytes, until: float, out: Tally) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    i = n  # clients start at different deadlines
    try:
        while time.monotonic() < until:
            i += 1
            is_write = i % WRITE_EVERY == 0
            t = time.perf_counter()
            try:
                status, body = await _exchange(reader, writer, write if is_write else plans[i % len(plans)])
            except (OSError, asyncio.IncompleteReadError, ConnectionError, ValueError) as e:
                out.errors[type(e).__name__] += 1
                writer.close()
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                continue
            spent = time.perf_counter() - t
            if is_write:
                out.write_s.append(spent)
                if status == 201:
                    out.saved_ids.append(int(json.loads(body)["id"]))
                else:
                    out.errors[f"write {status}"] += 1
            else:
                out.plan_s.append(spent)
                if status != 200:
                    out.errors[f"plan {status}"] += 1
    finally:
        writer.close()


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
    xs = sorted(xs)
    return statistics.quantiles(xs, n=100, method="inclusive")[int(q * 100) - 1] if len(xs) > 1 else xs[0]


def _start(db: Path, folder: Path, port: int, workers: int) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "gpuplan", "--db", str(db), "serve", "--port", str(port)]
    command += ["--workers", str(workers), "--job-workers", "0"]
    log = (folder / "serve.log").open("wb")
    return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


async def _warm(port: int, plans: list[bytes], write: bytes) -> str | None:
    """Each plan request once (computed and cached), and one saved plan; an error line or None."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        for request in [*plans, write]:
            status, body = await _exchange(reader, writer, request)
            if status not in (200, 201):
                return f"warm-up answered {status}: {body[:300]!r}"
    finally:
        writer.close()
    return None


def _wait_ready(port: int, proc: subprocess.Popen[bytes], folder: Path) -> bool:
    import urllib.request

    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/health", timeout=2) as r:
                if r.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(0.3)
    print((folder / "serve.log").read_text()[-2000:])
    return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=2, help="uvicorn worker processes")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "serve.json")
    parser.add_argument("--wrk", action="store_true", help="also run the plan requests with wrk")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="gpuplan-bench-serve-"))
    db = folder / "catalog.sqlite"
    proc = None
    stored: set[int] = set()
    finished = False
    out = Tally()
    try:
        token, workload, reference_s = _prepare(db)
        import_s = measure(IMPORT_GPUPLAN, 3).cpu_s
        port = _free_port()
        plans = [
            _request(port, token, "/api/v1/plan", {"workload": workload, "deadline": d}) for d in DEADLINES
        ]
        write = _request(port, token, "/api/v1/plans", {"name": SAVED, "month": MONTH, "deadline": "12h"})
        proc = _start(db, folder, port, args.workers)
        if not _wait_ready(port, proc, folder):
            return 1
        problem = asyncio.run(_warm(port, plans, write))
        if problem:
            print(problem)
            return 1
        until = time.monotonic() + args.seconds

        async def run() -> None:
            await asyncio.gather(*(_client(n, port, plans, write, until, out) for n in range(args.clients)))

        started, server_before, client_before = time.monotonic(), _cpu_s(proc.pid), time.process_time()
        asyncio.run(run())
        elapsed = time.monotonic() - started
        server_cpu_s, client_cpu_s = _cpu_s(proc.pid) - server_before, time.process_time() - client_before
        load = os.getloadavg()[0]
        wrk = _wrk(folder, port, token, workload, args, proc.pid) if args.wrk else None
        finished = True
    finally:
        if proc is not None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
        if finished:  # what was stored, read before the folder goes
            conn = sqlite3.connect(db)
            stored = {r[0] for r in conn.execute("SELECT id FROM team_plans")}
            conn.close()
        shutil.rmtree(folder, ignore_errors=True)
    lost = sorted(set(out.saved_ids) - stored)
    requests = len(out.plan_s) + len(out.write_s)
    result: dict[str, Any] = {
        "measured_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, load average {load:.1f} at the end",
        "setup": f"{args.clients} closed-loop clients × {args.seconds:g} s on 127.0.0.1, "
        f"{args.workers} uvicorn workers, SQLite; every {WRITE_EVERY}th request saves a plan",
        "plans": len(out.plan_s),
        "plan_ms": {q: round(_quantile(out.plan_s, v) * 1000, 1) for q, v in _QS},
        "writes_acknowledged": len(out.saved_ids),
        "write_ms": {q: round(_quantile(out.write_s, v) * 1000, 1) for q, v in _QS} if out.write_s else None,
        "requests_per_s": round(requests / elapsed, 1),
        "errors": dict(out.errors),
        "lost_writes": len(lost),
        "server_cpu_ms_per_request": round(server_cpu_s / requests * 1000, 2),
        "load_generator_cpu_ms_per_request": round(client_cpu_s / requests * 1000, 2),
        "reference_library_plan_cpu_ms": round(reference_s * 1000, 1),
        "reference_import_gpuplan_cpu_ms": round(import_s * 1000, 1),
        "server_cpu_per_request_over_import": round(server_cpu_s / requests / import_s, 3),
    }
    if wrk is not None:
        result["wrk"] = wrk
    text = json.dumps(result, indent=2)
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text + "\n")
    return 0 if not lost and not out.errors else 1


_QS = (("p50", 0.50), ("p95", 0.95), ("p99", 0.99))


def _wrk(
    folder: Path, port: int, token: str, workload: dict[str, Any], args: argparse.Namespace, server: int
) -> dict[str, Any]:
    """The plan requests (no writes) with wrk on the same server: its JSON line, and the CPU it and
    the server spent per request."""
    import resource

    files = []
    for d in DEADLINES:
        path = folder / f"plan-{d}.json"
        path.write_text(json.dumps({"workload": workload, "deadline": d}))
        files.append(str(path))
    script = REPO / "benchmarks" / "serve_plan.lua"
    command = ["wrk", "-t2", f"-c{args.clients}", f"-d{int(args.seconds)}s", "-s", str(script)]
    command += [f"http://127.0.0.1:{port}", "--", *files]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    server_before = _cpu_s(server)
    out = subprocess.run(
        command, capture_output=True, text=True, check=True, env={**os.environ, "GPUPLAN_TOKEN": token}
    )
    server_cpu_s = _cpu_s(server) - server_before
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    line = json.loads(out.stdout.strip().splitlines()[-1])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    line["requests_per_s"] = round(line["requests"] / line["duration_s"], 1)
    line["server_cpu_ms_per_request"] = round(server_cpu_s / line["requests"] * 1000, 2)
    line["load_generator_cpu_ms_per_request"] = round(cpu / line["requests"] * 1000, 2)
    line["load_average_at_the_end"] = round(os.getloadavg()[0], 1)
    return dict(line)


if __name__ == "__main__":
    sys.exit(main())
