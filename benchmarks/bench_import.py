"""How a price file's import scales with its rows: a generated file of new instance types imported at
two sizes, in the same run, into fresh copies of one catalog.

    .venv/bin/python benchmarks/bench_import.py [--small 2000] [--large 20000] [--repeat 1] [--out FILE]

Each file is in gpuplan's own price-file format, one on-demand price a row, each row a new instance
type of one region (the case of a provider's whole list imported for the first time: every row a new
offer and a new price). It is imported with ``gpuplan catalog import FILE --format gpuplan`` (in this
process), into a copy of a catalog built once with the shipped prices.

Printed, and written as JSON to ``--out`` (default ``benchmarks/results/import.json``): the CPU
seconds of each import (this process: user + system, the database's work included; best of
``--repeat``), its rows per CPU second, and the ratio of the large file's rows per second to the
small one's (1.0: the import's work grows with its rows, no faster; an import whose work grows
with the square of its rows falls towards small / large).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import tempfile
import time
from datetime import date
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

HEADER = (
    "provider,region,zone,instance_type,gpu,gpu_count,vcpus,memory_gib,pricing,price,currency,unit,"
    "as_of,source"
)


def price_file(path: Path, rows: int) -> Path:
    """``rows`` new instance types of one region, one on-demand price each."""
    with path.open("w", encoding="utf-8") as f:
        f.write(HEADER + "\n")
        for i in range(rows):
            f.write(
                f"alibaba,cn-hangzhou,,ecs.gn7i-b{i},A10,1,8,30,on_demand,1.5,USD,hour,2026-11-18,quote\n"
            )
    return path


def import_cpu_s(template: Path, file: Path, folder: Path, repeat: int) -> float:
    """The least CPU seconds of ``repeat`` imports of ``file``, each into a fresh copy of ``template``."""
    from typer.testing import CliRunner

    from gpuplan.cli import app

    best = float("inf")
    for i in range(repeat):
        db = folder / f"{file.stem}-{i}.sqlite"
        shutil.copyfile(template, db)
        start = time.process_time()
        r = CliRunner().invoke(app, ["--db", str(db), "catalog", "import", str(file), "--format", "gpuplan"])
        spent = time.process_time() - start
        assert r.exit_code == 0, r.output
        best = min(best, spent)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--small", type=int, default=2000, help="rows of the small file (default 2,000)")
    ap.add_argument("--large", type=int, default=20000, help="rows of the large file (default 20,000)")
    ap.add_argument("--repeat", type=int, default=1, help="imports of each file; the best is kept")
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "import.json")
    args = ap.parse_args()

    from gpuplan.catalog import open_store

    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        template = folder / "catalog.sqlite"
        open_store(str(template)).close()  # the shipped prices, seeded once
        cpu = {
            n: import_cpu_s(template, price_file(folder / f"prices-{n}.csv", n), folder, args.repeat)
            for n in (args.small, args.large)
        }
    per_s = {n: n / s for n, s in cpu.items()}
    ratio = per_s[args.large] / per_s[args.small]
    result = {
        "measured_on": date.today().isoformat(),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "cpu_s": {str(n): round(s, 3) for n, s in cpu.items()},
        "rows_per_cpu_s": {str(n): round(v) for n, v in per_s.items()},
        "large_over_small_rows_per_s": round(ratio, 2),
        "repeat": args.repeat,
    }
    print("catalog import of a price file of new instance types (CPU seconds, best of", args.repeat, ")")
    for n in cpu:
        print(f"  {n:>9,} rows  {cpu[n]:8.2f} s CPU  {per_s[n]:9,.0f} rows/s")
    print(f"  rows/s of the large file over the small one's: {ratio:.2f} (1.0: the time grows with the rows)")
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
