"""Time ``offers`` over the whole catalog, against references measured in the same run.

    python benchmarks/bench_offers.py [--repeat 20]

Prints: the in-process ``Store.offers`` (every offer x pricing model, unpriced included) and
``list_offers`` (cheapest region, sorted) against a raw sqlite3 SELECT of the same price rows; and the
end-to-end ``gpuplan offers --json`` process against a bare ``python -c pass`` start. Ratios, not
absolute seconds, are what compares across machines. Not a test: it asserts nothing.

Then the targets of the full snapshot, each a whole process against ``python -c "import gpuplan"``
measured in the same run (wall, CPU and peak memory; ``_process.py``): first use (create and seed a
new database, ``catalog info --json``) under 3 s, and ``offers --json --all-regions`` under 0.5 s;
with them ``gpuplan --help``, ``offers --gpu H100`` (the table) and ``offers --all-regions`` (the
whole market as a table, at the 120 columns of piped output). The commands run with Python's
bytecode cache on, warmed once, as an installed package runs (``PYTHONDONTWRITEBYTECODE`` would
compile every module at every start). ``--baseline SRC`` runs the same commands on another source
tree too (``git archive main src | tar -x -C /tmp/main``, then ``--baseline /tmp/main/src``),
interleaved with this one, for a before/after in one run. The lines are written to
``benchmarks/results/offers.txt`` as well.
"""

from __future__ import annotations

import argparse
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _process import IMPORT_GPUPLAN, Run, child_env, gpuplan, header, line, measure


def _best(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(min, median) seconds of ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times)


def _scale(store: object, target: int) -> None:
    """Copy every shipped offer (with its prices) into synthetic regions ``bench-rK`` until ``target``."""
    from dataclasses import replace

    from gpuplan.catalog.snapshot import _offer_rows

    by_provider = _offer_rows()
    base = sum(len(v) for v in by_provider.values())
    copies = max(0, target // max(base, 1) - 1)
    for provider, rows in by_provider.items():
        batch = [replace(r, region=f"bench-r{k}", line=None) for k in range(copies) for r in rows]
        if batch:
            store.import_offers(batch, provider=provider, source="bench_offers --scale (synthetic)")  # type: ignore[attr-defined]


ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "offers.txt"
REFERENCE = "python -c 'import gpuplan' (reference)"
FIRST_USE = "first use: create + seed, catalog info"


def _targets(db: str, tmp: Path, repeat: int, baseline: Path | None) -> str:
    """The whole-process lines: each command's best of ``repeat``, the trees interleaved run by run."""
    trees = {"this checkout": None, **({f"baseline {baseline}": baseline} if baseline else {})}
    dbs = {tree: db if src is None else str(tmp / "baseline.sqlite") for tree, src in trees.items()}
    cases: dict[str, Callable[[str, str], list[str]]] = {
        REFERENCE: lambda _db, _fresh: IMPORT_GPUPLAN,
        "gpuplan --help": lambda _db, _fresh: gpuplan("--help"),
        FIRST_USE: lambda _db, fresh: gpuplan("--db", fresh, "catalog", "info", "--json"),
        "offers --json --all-regions": lambda db, _fresh: gpuplan(
            "--db", db, "offers", "--json", "--all-regions"
        ),
        "offers --gpu H100 (table)": lambda db, _fresh: gpuplan("--db", db, "offers", "--gpu", "H100"),
        "offers --all-regions (table)": lambda db, _fresh: gpuplan("--db", db, "offers", "--all-regions"),
    }
    limits = {FIRST_USE: 3.0, "offers --json --all-regions": 0.5}
    for tree, src in trees.items():  # warm: the database, then every command's bytecode
        for label, make in cases.items():
            if label != FIRST_USE:
                measure(make(dbs[tree], ""), 1, child_env(src))
    best: dict[tuple[str, str], Run] = {}
    for k in range(repeat):
        for label, make in cases.items():
            for n, (tree, src) in enumerate(trees.items()):
                run = measure(make(dbs[tree], str(tmp / f"first-{n}-{k}.sqlite")), 1, child_env(src))
                best[(tree, label)] = best.get((tree, label), run).best_with(run)
    out = header("gpuplan offers", repeat)
    for tree in trees:
        out.append(f"{tree}:")
        ref = best[(tree, REFERENCE)]
        out += ["  " + line(label, best[(tree, label)], ref, limits.get(label)) for label in cases]
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument(
        "--scale",
        type=int,
        default=0,
        help="also copy the shipped offers into synthetic regions until the catalog holds about this many "
        "offers (the size a full refresh reaches), then time the same queries over it",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        default=None,
        help="another gpuplan source tree (the folder holding gpuplan/) to time the same commands on, "
        "interleaved with this checkout's",
    )
    args = parser.parse_args()

    from gpuplan.catalog import open_store
    from gpuplan.catalog.query import OfferQuery, list_offers

    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "bench.sqlite")
        t0 = time.perf_counter()
        store = open_store(db)
        first_open = time.perf_counter() - t0
        if args.scale:
            _scale(store, args.scale)
        n = len(store.offers(include_unpriced=True))

        def raw() -> object:
            with sqlite3.connect(db) as conn:
                return conn.execute(
                    "SELECT o.*, p.* FROM offers o LEFT JOIN prices p ON p.offer_id = o.id"
                ).fetchall()

        raw_min, raw_med = _best(raw, args.repeat)
        off_min, off_med = _best(lambda: store.offers(include_unpriced=True), args.repeat)
        list_min, list_med = _best(lambda: list_offers(store, OfferQuery()), args.repeat)
        reopen_min, _ = _best(lambda: open_store(db).offers(include_unpriced=True), max(3, args.repeat // 4))

        def run(cmd: list[str]) -> Callable[[], object]:
            return lambda: subprocess.run(cmd, check=True, capture_output=True)

        def cpu(cmd: list[str], repeat: int) -> float:
            """Least CPU seconds (user + system) of the child: steadier than wall time on a shared machine."""
            best = float("inf")
            for _ in range(repeat):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                subprocess.run(cmd, check=True, capture_output=True)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                best = min(best, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            return best

        cli_repeat = max(3, args.repeat // 4)
        bare = [sys.executable, "-c", "pass"]
        cli = [sys.executable, "-c", "from gpuplan.cli import main; main()", "--db", db, "offers", "--json"]
        helpcmd = [sys.executable, "-c", "from gpuplan.cli import main; main()", "--help"]
        py_min, _ = _best(run(bare), cli_repeat)
        cli_min, cli_med = _best(run(cli), cli_repeat)
        help_min, _ = _best(run(helpcmd), cli_repeat)
        py_cpu, cli_cpu, help_cpu = cpu(bare, cli_repeat), cpu(cli, cli_repeat), cpu(helpcmd, cli_repeat)

        targets = _targets(db, Path(tmp), cli_repeat, args.baseline)

    print(f"catalog: {n} offer x pricing rows (unpriced included)")
    print(f"first open (migrate + seed snapshot): {first_open * 1e3:8.1f} ms")
    print(f"raw sqlite3 SELECT (reference):       {raw_min * 1e3:8.2f} ms (median {raw_med * 1e3:.2f})")
    print(
        f"Store.offers(all):                    {off_min * 1e3:8.2f} ms (median {off_med * 1e3:.2f})"
        f"  = {off_min / raw_min:5.1f} x raw SELECT"
    )
    print(
        f"list_offers (cheapest region, sorted):{list_min * 1e3:8.2f} ms (median {list_med * 1e3:.2f})"
        f"  = {list_min / raw_min:5.1f} x raw SELECT"
    )
    print(f"open_store + offers (warm DB):        {reopen_min * 1e3:8.2f} ms")
    print(f"python -c pass (reference):           {py_min * 1e3:8.1f} ms")
    print(
        f"gpuplan offers --json (process):      {cli_min * 1e3:8.1f} ms (median {cli_med * 1e3:.1f})"
        f"  = {cli_min / py_min:5.1f} x bare python start"
    )
    print(f"gpuplan --help (process):             {help_min * 1e3:8.1f} ms  = {help_min / py_min:5.1f} x")
    print(
        f"CPU time: python -c pass {py_cpu * 1e3:.0f} ms, gpuplan offers --json {cli_cpu * 1e3:.0f} ms "
        f"({cli_cpu / py_cpu:.1f} x), gpuplan --help {help_cpu * 1e3:.0f} ms ({help_cpu / py_cpu:.1f} x)"
    )
    print(targets)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(targets + "\n", encoding="utf-8")
    print(f"(written to {RESULTS.relative_to(ROOT)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
