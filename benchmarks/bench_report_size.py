"""How large the HTML plan report is, and what makes it so: a training and a service plan.

    .venv/bin/python benchmarks/bench_report_size.py [--baseline SRC] [--db CATALOG]

Runs ``gpuplan plan examples/resnet50-imagenet.yaml --out report.html`` (training) and ``gpuplan plan
examples/llm-inference-service.yaml --out report.html`` (a service) on this checkout's source, and
``--baseline SRC`` on another tree too (``git archive main src | tar -x -C /tmp/main``, then
``--baseline /tmp/main/src``), over the same catalog file (``--db``; by default a fresh one in a
temporary folder, seeded from the shipped snapshot). Prints each page's size split into its parts:
the embedded plotly.js, the three interactive figures, the static SVG charts, the ranked table and
the rest. Sizes are deterministic for a given catalog and source tree (no timing); the lines are
written to ``benchmarks/results/report_size.txt`` as well.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import tempfile
from datetime import date
from pathlib import Path

from _process import CHECKOUT_SRC, child_env, gpuplan

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "report_size.txt"
PLANS = (
    ("training", "examples/resnet50-imagenet.yaml"),
    ("service", "examples/llm-inference-service.yaml"),
)


def _parts(page: str) -> dict[str, int]:
    """The page's bytes by part (UTF-8): plotly.js, the figures' scripts, the SVG charts, the table."""

    def size(texts: list[str]) -> int:
        return sum(len(t.encode("utf-8")) for t in texts)

    scripts = re.findall(r"<script[^>]*>.*?</script>", page, flags=re.DOTALL)
    library = max(scripts, key=len)  # plotly.js, the page's one large script
    figures = [s for s in scripts if s is not library]
    # The SVG charts, outside the scripts (plotly.js holds "<svg" in its own code).
    rest = page.replace(library, "")
    svgs = re.findall(r"<svg.*?</svg>", rest, flags=re.DOTALL)
    tables = re.findall(r"<table.*?</table>", rest, flags=re.DOTALL)
    parts = {
        "plotly.js": size([library]),
        "figures": size(figures),
        "SVG charts": size(svgs),
        "table": size(tables),
    }
    parts["rest"] = len(page.encode("utf-8")) - sum(parts.values())
    return parts


def _report(src: Path, db: Path, workload: str, out: Path) -> str:
    cmd = gpuplan("--db", str(db), "plan", str(ROOT / workload), "--out", str(out))
    run = subprocess.run(cmd, env=child_env(src), capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({run.returncode}): {run.stderr[-500:]}")
    return out.read_text(encoding="utf-8")


def _lines(label: str, src: Path, db: Path, folder: Path) -> list[str]:
    lines = [f"{label} ({src}):"]
    for kind, workload in PLANS:
        page = _report(src, db, workload, folder / f"{kind}.html")
        total = len(page.encode("utf-8"))
        split = ", ".join(f"{name} {n:,}" for name, n in _parts(page).items())
        lines.append(f"  {kind:<9} {workload:<36} {total:>10,} bytes ({split})")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="another source tree to measure the same way")
    parser.add_argument("--db", type=Path, help="the catalog file (default: a fresh one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        db = args.db or folder / "catalog.db"
        lines = [f"gpuplan plan --out report.html: page sizes in bytes (UTF-8), measured on {date.today()}"]
        lines += _lines("this checkout", CHECKOUT_SRC, db, folder)
        if args.baseline is not None:
            lines += _lines("baseline", args.baseline, db, folder)
    print("\n".join(lines))
    RESULTS.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
