"""How long the team service's saved-plan listing (``GET /plans``) and the month's budget
(``GET /budget/{month}``) take with thousands of saved plans.

    .venv/bin/python benchmarks/bench_team_plans.py [--plans 2000] [--document PLAN.json] [--out FILE]
                                                    [--journal wal|delete]

Builds a fresh SQLite catalog in a temporary folder, saves the BERT-Large example as ``--plans``
team workloads, and saves a plan of each for one month through ``TeamStore.save_plan`` (the write
the service does, audit row included; one workload each, since a workload planned again for the
month replaces its plan in the budget). Each plan's document is a real ``gpuplan plan
--json`` document of that example over the shipped catalog (~180 KB), made once by the CLI in
this run (which traces the model on the CPU), or read from ``--document``.

Printed, and written as JSON to ``--out`` (default ``benchmarks/results/team_plans.json``): the
CPU time (user + system of this process, the database's work included; best of ``--repeat``) of

- the listing: every saved plan's item, as ``GET /plans`` answers it (``saved_plan_item`` over
  ``TeamStore.plans()``);
- the budget: ``budget_document`` of the month (all the plans are in it);
- the reference, in the same run: the same listing as it was built before it read the recommended
  option in the database, every row's plan document fetched and parsed in Python
  (``json.loads``), then labelled, as a ratio to each of the two.

And the saving itself (wall and CPU per plan), in the journal mode the service runs the file in
(``--journal wal``, as ``web.app.shared_sqlite`` sets it; ``delete``: SQLite's default, as the
command line leaves a new catalog), against its floor in the same run and mode: the same document
written by plain ``sqlite3``, one ``INSERT`` and one commit per row, at SQLite's default
``synchronous`` (FULL) as the store's commits run. Each save is one transaction by design (a
request saves one plan, and its commit is what the service acknowledges), so saving costs what one
durable commit of ~180 KB costs on this disk: the ratio says how much of it is the store's own work.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "bert-large-squad.yaml"
MONTH = "2030-01"
SAVED = "bench-bert"


def best_cpu_s(fn: Callable[[], object], repeat: int) -> float:
    """The least CPU seconds (this process: user + system) of ``repeat`` calls of ``fn``."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def plan_document(db: str) -> str:
    """``gpuplan plan --json`` of the example on the catalog ``db``, as the CLI writes it."""
    out = subprocess.run(
        [sys.executable, "-m", "gpuplan", "--db", db, "plan", str(EXAMPLE), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout


def journal(path: str, mode: str) -> str:
    """Put the SQLite file ``path`` in journal ``mode`` (``wal`` or ``delete``); the mode it is in."""
    conn = sqlite3.connect(path, timeout=30, isolation_level=None)
    try:
        return str(conn.execute(f"PRAGMA journal_mode={mode}").fetchone()[0])
    finally:
        conn.close()


def floor_per_commit_s(folder: str, text: str, mode: str, rows: int) -> tuple[float, float]:
    """Wall and CPU seconds per row of the floor: ``rows`` inserts of ``text`` by plain sqlite3 into a
    fresh file in journal ``mode``, one commit each (SQLite's default synchronous=FULL)."""
    path = str(Path(folder) / "floor.sqlite")
    journal(path, mode)
    conn = sqlite3.connect(path, timeout=30, isolation_level=None)
    try:
        conn.execute("CREATE TABLE docs (id INTEGER PRIMARY KEY, document TEXT NOT NULL)")
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(rows):
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("INSERT INTO docs (document) VALUES (?)", (text,))
            conn.execute("COMMIT")
        return (time.perf_counter() - wall) / rows, (time.process_time() - cpu) / rows
    finally:
        conn.close()


def documents_parsed_in_python(engine: Any) -> list[dict[str, Any]]:
    """The reference: the listing as it was, every plan's document fetched and parsed, then labelled."""
    from sqlalchemy import select

    from gpuplan.catalog import schema as t
    from gpuplan.web.work import option_label

    p, w = t.team_plans.c, t.team_workloads.c
    stmt = select(t.team_plans, w.name).join_from(t.team_plans, t.team_workloads, p.workload_id == w.id)
    with engine.connect() as conn:
        rows = conn.execute(stmt.order_by(p.id.desc())).all()
    return [
        {
            "id": r.id,
            "constraints": json.loads(r.constraints),
            "recommended": option_label(json.loads(r.document).get("recommended")),
            "total_cost_usd": r.total_cost_usd,
        }
        for r in rows
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--plans", type=int, default=2000, help="saved plans (default 2000)")
    ap.add_argument("--document", type=Path, help="a `gpuplan plan --json` document (default: made now)")
    ap.add_argument("--repeat", type=int, default=5, help="runs of each measurement; the best is kept")
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "team_plans.json")
    ap.add_argument(
        "--journal", choices=("wal", "delete"), default="wal", help="the file's journal mode (default wal)"
    )
    ap.add_argument("--floor-rows", type=int, default=500, help="rows of the sqlite3 floor (default 500)")
    args = ap.parse_args()

    from gpuplan.catalog import open_store
    from gpuplan.catalog.team_store import TeamStore
    from gpuplan.web.work import budget_document, saved_plan_item

    with tempfile.TemporaryDirectory(prefix="gpuplan-bench-") as tmp:
        db = str(Path(tmp) / "catalog.sqlite")
        store = open_store(db)
        text = args.document.read_text(encoding="utf-8") if args.document else plan_document(db)
        document = json.loads(text)
        mode = journal(db, args.journal)
        store.engine.dispose()  # the pool's connections reopen the file in its new mode
        team = TeamStore(store.engine)
        spec = {"workload": yaml.safe_load(EXAMPLE.read_text())}
        workloads = [team.save_workload(f"{SAVED}-{i}", spec, actor="bench") for i in range(args.plans)]
        started, started_cpu = time.perf_counter(), time.process_time()
        for workload in workloads:
            team.save_plan(
                workload,
                month=MONTH,
                constraints={"deadline": "1d"},
                document=document,
                document_text=text,
                catalog_import_id=None,
                actor="bench",
            )
        saving_s, saving_cpu_s = time.perf_counter() - started, time.process_time() - started_cpu
        floor_wall_s, floor_cpu_s = floor_per_commit_s(tmp, text, args.journal, args.floor_rows)

        listed = [saved_plan_item(p, store) for p in team.plans()]
        reference = documents_parsed_in_python(store.engine)
        # Both ways give the same items: the same labels, costs and constraints, in the same order.
        assert [(i["id"], i["recommended"], i["total_cost_usd"], i["constraints"]) for i in listed] == [
            (i["id"], i["recommended"], i["total_cost_usd"], i["constraints"]) for i in reference
        ]
        assert len(budget_document(store, MONTH)["plans"]) == args.plans

        listing_s = best_cpu_s(lambda: [saved_plan_item(p, store) for p in team.plans()], args.repeat)
        budget_s = best_cpu_s(lambda: budget_document(store, MONTH), args.repeat)
        reference_s = best_cpu_s(lambda: documents_parsed_in_python(store.engine), args.repeat)
        store.close()

    result = {
        "measured_on": date.today().isoformat(),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "plans": args.plans,
        "document_bytes": len(text.encode("utf-8")),
        "cpu_s": {
            "listing": round(listing_s, 4),
            "budget": round(budget_s, 4),
            "reference_documents_parsed": round(reference_s, 4),
        },
        "reference_over_listing": round(reference_s / listing_s, 1),
        "reference_over_budget": round(reference_s / budget_s, 1),
        "saving_wall_s": round(saving_s, 1),
        "saving": {
            "journal_mode": mode,
            "wall_ms_per_plan": round(saving_s / args.plans * 1000, 2),
            "cpu_ms_per_plan": round(saving_cpu_s / args.plans * 1000, 2),
            "floor_wall_ms_per_commit": round(floor_wall_s * 1000, 2),
            "floor_cpu_ms_per_commit": round(floor_cpu_s * 1000, 2),
            "floor_rows": args.floor_rows,
            "wall_over_floor": round(saving_s / args.plans / floor_wall_s, 2),
        },
        "repeat": args.repeat,
    }
    print(
        f"{args.plans} saved plans of {result['document_bytes'] / 1000:.0f} kB documents "
        f"(saved in {saving_s:.1f} s wall)\n"
        f"  GET /plans listing      {listing_s * 1000:8.1f} ms CPU\n"
        f"  GET /budget/{MONTH}    {budget_s * 1000:8.1f} ms CPU\n"
        f"  reference: documents parsed in Python  {reference_s * 1000:8.1f} ms CPU "
        f"= {result['reference_over_listing']}× the listing, {result['reference_over_budget']}× the budget\n"
        f"  saving, journal {mode}: {saving_s / args.plans * 1000:.1f} ms wall "
        f"({saving_cpu_s / args.plans * 1000:.1f} ms CPU) per plan; floor, one plain sqlite3 commit of the "
        f"document: {floor_wall_s * 1000:.1f} ms wall ({floor_cpu_s * 1000:.1f} ms CPU) = "
        f"{result['saving']['wall_over_floor']}×"  # type: ignore[index]
    )
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
