"""How long the team's price check (``GET /price-changes``: each saved plan planned again on today's
catalog) takes, against the same check as it was, in the same run.

    .venv/bin/python benchmarks/bench_price_check.py [--plans 2] [--repeat 3] [--out FILE]

Builds a fresh SQLite catalog in a temporary folder (the shipped prices), traces the BERT-Large
example once into its profile cache (on the CPU, a minute or so), saves it as a team workload and
saves ``--plans`` plans of it, one per month, as ``POST /plans`` does (through the plan cache).

Printed, and written as JSON to ``--out`` (default ``benchmarks/results/price_check.json``), the
CPU seconds (this process: user + system, the database's work included; best of ``--repeat``) of

- the reference: the check as it was, every saved plan planned twice (its best option today and its
  own option today, ``plan_document``) with no plan cache;
- the check now (``web.work.price_changes``), each plan asked through the plan cache:
  - ``saved_today``: right after the plans were saved (their best plans are in the cache);
  - ``cold``: the plan cache emptied first (plans saved on another day, or before a new import):
    only what the saved plans share is planned once;
  - ``again``: a second check the same day, on the same catalog;

and each as a ratio to the reference. Both answer the same document (checked). What the check
saves depends on what the plans share: plans of one workload under the same constraints (a team
planning the same job month by month) share both plans; plans of different workloads share none
when the cache is cold.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "bert-large-squad.yaml"
SAVED = "bench-bert"


def best_cpu_s(fn: Callable[[], object], repeat: int, before: Callable[[], object] | None = None) -> float:
    """The least CPU seconds (this process) of ``repeat`` calls of ``fn``; ``before()`` untimed first."""
    best = float("inf")
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--plans", type=int, default=2, help="saved plans of the example (default 2)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each measurement; the best is kept")
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "price_check.json")
    args = ap.parse_args()

    from sqlalchemy import delete

    from gpuplan.catalog import open_store
    from gpuplan.catalog import schema as t
    from gpuplan.catalog.team_store import TeamStore
    from gpuplan.profile import profile
    from gpuplan.web.answers import AnswerCache
    from gpuplan.web.requests import PlanRequest, SavePlanRequest
    from gpuplan.web.service import materialize, plan_document
    from gpuplan.web.work import _change, price_changes, save_plan

    spec = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder) / "scratch"
        store = open_store(str(Path(folder) / "catalog.sqlite"))
        traced = time.perf_counter()
        profile(materialize(spec, None, scratch), store.local)  # into the cache, as a worker's trace
        traced = time.perf_counter() - traced
        team = TeamStore(store.engine)
        team.save_workload(SAVED, {"workload": spec, "hf_config_json": None}, actor="bench")
        answers = AnswerCache()
        for i in range(args.plans):
            request = SavePlanRequest(name=SAVED, month=f"2030-{i % 12 + 1:02d}")
            save_plan(store, request, scratch, actor="bench", lang="en", answers=answers)
        plans = [p for p in team.plans() if p.status == "planned"]

        def reference() -> dict[str, Any]:
            def plan(request: PlanRequest, workload: Any) -> dict[str, Any]:
                return plan_document(store, request, workload)

            return {"plans": [_change(p, store, scratch, plan) for p in plans]}

        def check() -> dict[str, Any]:
            return price_changes(store, scratch, lang="en", answers=answers)

        def emptied() -> None:
            nonlocal answers
            answers = AnswerCache()
            with store.engine.begin() as conn:
                conn.execute(delete(t.plan_cache))

        start = time.process_time()
        first = check()  # the first check after the saves: measured once (it fills the cache)
        saved_today_s = time.process_time() - start
        reference_s = best_cpu_s(reference, args.repeat)
        assert first["plans"] == reference()["plans"], "the check answers otherwise than the reference"
        cold_s = best_cpu_s(check, args.repeat, before=emptied)
        again_s = best_cpu_s(check, args.repeat)
        store.close()

    cpu = {"reference": reference_s, "saved_today": saved_today_s, "cold": cold_s, "again": again_s}
    result = {
        "measured_on": date.today().isoformat(),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "plans": args.plans,
        "trace_s": round(traced, 1),
        "cpu_s": {k: round(v, 3) for k, v in cpu.items()},
        "reference_over": {k: round(reference_s / v, 1) for k, v in cpu.items() if k != "reference"},
        "repeat": args.repeat,
    }
    lines = {
        "saved_today": "now, right after the plans were saved",
        "cold": "now, the plan cache empty",
        "again": "now, a second check the same day",
    }
    print(f"price check of {args.plans} saved plans of one workload (traced once in {traced:.0f} s wall)")
    print(f"  {'reference: each plan planned twice, no cache':46} {reference_s:7.3f} s CPU")
    for k, words in lines.items():
        print(f"  {words:46} {cpu[k]:7.3f} s CPU  reference / this = {result['reference_over'][k]}×")
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
