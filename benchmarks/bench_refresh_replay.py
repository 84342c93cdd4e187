"""Peak memory and time of ``catalog refresh --from DIR --provider aws`` with a bulk CSV of AWS's size.

    python benchmarks/bench_refresh_replay.py [--mb 300] [--repeat 1] [--baseline SRC]

AWS's per-region bulk price-list CSV is about 300 MB for us-east-1. This records the test suite's
AWS answers with ``--save`` (no network: they are served from ``tests/catalog/fixtures/refresh``),
then grows the saved CSV to ``--mb`` MB with rows of a CPU instance type (which the reader skips, as
it skips most rows of the real file), and replays it in a whole process: wall, CPU and peak memory
(``_process.py``). A replay that read the file whole would peak at a multiple of its size; read
line by line, the peak stays near a plain refresh's whatever the size. ``--baseline SRC`` replays
the same folder with another source tree too (``git archive main src | tar -x -C /tmp/main``, then
``--baseline /tmp/main/src``). Not a test: it asserts nothing. The lines are written to
``benchmarks/results/refresh_replay.txt`` as well.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from _process import IMPORT_GPUPLAN, Run, child_env, gpuplan, header, line, measure

REPO = Path(__file__).resolve().parents[1]
REC = REPO / "tests" / "catalog" / "fixtures" / "refresh"
NOW = "2026-11-30T12:00:00+00:00"


def _recorded(name: str) -> object:
    doc = json.loads((REC / name).read_text(encoding="utf-8"))
    return doc.get("response", doc)


def _record(folder: Path, db: Path) -> Path:
    """AWS's recorded answers saved into ``folder`` (as ``--save`` writes them); the bulk CSV's path."""
    import httpx
    import respx

    from gpuplan.catalog import open_store
    from gpuplan.catalog.providers import aws
    from gpuplan.catalog.refresh import RefreshOptions, refresh

    csv_url = f"{aws.PRICING_HOST}/offers/v1.0/aws/AmazonEC2/20261120000000/us-east-1/index.csv"
    with respx.mock(assert_all_mocked=True) as m:
        m.get(aws.REGION_INDEX_URL).mock(
            return_value=httpx.Response(200, json=_recorded("aws_region_index.json"))
        )
        m.get(csv_url).mock(
            return_value=httpx.Response(200, text=(REC / "aws_us-east-1_index.csv").read_text())
        )
        m.get(aws.SPOT_FEED_URL).mock(return_value=httpx.Response(200, json=_recorded("aws_spot_feed.json")))
        m.get(aws.SPOT_ADVISOR_URL).mock(
            return_value=httpx.Response(200, json=_recorded("aws_spot_advisor.json"))
        )
        [done] = refresh(open_store(str(db)), ["aws"], RefreshOptions(now=NOW, save_dir=folder))
    if done.status != "ok":
        raise SystemExit(f"recording failed: {done.line()}")
    index = json.loads((folder / "aws" / "index.json").read_text())
    [name] = [e["file"] for k, e in index.items() if k != "_fetched" and e["url"] == csv_url]
    return folder / "aws" / name


def _grow(csv_path: Path, mb: int) -> None:
    """Append rows of a CPU instance type until the file is ``mb`` MB."""
    lines = csv_path.read_text(encoding="utf-8").splitlines()
    row = next(ln for ln in lines if '"p5.48xlarge"' in ln and '"OnDemand","",' in ln)
    filler = "\n".join(row.replace('"p5.48xlarge"', f'"m5.{i}xlarge"') for i in range(1000)) + "\n"
    block = filler.encode("utf-8")
    with csv_path.open("ab") as f:
        while f.tell() < mb * 1_000_000:
            f.write(block)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=300, help="size of the replayed bulk CSV, MB")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--baseline", type=Path, help="another source tree to replay with")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        seeded = work / "seeded.sqlite"
        from gpuplan.catalog import open_store

        open_store(str(seeded)).close()
        shutil.copy(seeded, work / "recording.sqlite")
        csv_path = _record(work / "replay", work / "recording.sqlite")
        _grow(csv_path, args.mb)
        size = csv_path.stat().st_size
        trees = [("this checkout", None)] + ([("baseline", args.baseline)] if args.baseline else [])
        out = header(
            "catalog refresh --from DIR --provider aws", args.repeat, f"; bulk CSV of {size:,} bytes"
        )
        for label, src in trees:
            env = child_env(src)
            ref = measure(IMPORT_GPUPLAN, args.repeat, env)
            runs: list[Run] = []
            for i in range(args.repeat):  # each replay on a fresh catalog: its prices are new
                db = work / f"{label.replace(' ', '-')}-{i}.sqlite"
                shutil.copy(seeded, db)
                replay = ["catalog", "refresh", "--from", str(work / "replay"), "--provider", "aws"]
                runs.append(measure(gpuplan("--db", str(db), *replay), 1, env))
            best = runs[0]
            for r in runs[1:]:
                best = best.best_with(r)
            out.append(line(f"{label}: replay {size / 1e6:.0f} MB", best, ref))
    text = "\n".join(out)
    print(text)
    (REPO / "benchmarks" / "results" / "refresh_replay.txt").write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
