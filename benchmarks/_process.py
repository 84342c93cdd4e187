"""Whole-process measurements for the benchmarks: wall time, CPU time and peak memory of a command.

Each run goes through a small wrapper process, so that the peak resident memory reported
(``RUSAGE_CHILDREN`` of the wrapper) is the command's alone. On a shared machine wall time varies
with the load; CPU time (user + system) is the steadier figure, and the ratios against a reference
measured in the same run are what compare across machines.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

_WRAPPER = """
import json, resource, subprocess, sys, time
t0 = time.perf_counter()
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.perf_counter() - t0
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"rc": r.returncode, "wall": wall, "cpu": u.ru_utime + u.ru_stime,
                  "rss_mb": u.ru_maxrss / 1024, "err": r.stderr.decode()[-500:]}))
"""


@dataclass(frozen=True)
class Run:
    """The best of several runs of one command."""

    wall_s: float
    """Least wall-clock seconds."""
    cpu_s: float
    """Least CPU seconds (user + system)."""
    rss_mb: float
    """Largest peak resident memory, MiB."""

    def best_with(self, other: Run) -> Run:
        """The best of both: the least wall and CPU time, the largest peak memory."""
        return Run(
            wall_s=min(self.wall_s, other.wall_s),
            cpu_s=min(self.cpu_s, other.cpu_s),
            rss_mb=max(self.rss_mb, other.rss_mb),
        )


def measure(cmd: list[str], repeat: int, env: dict[str, str] | None = None) -> Run:
    """Run ``cmd`` ``repeat`` times (in ``env``, default this process's); fail with its stderr if
    it fails."""
    walls, cpus, rss = [], [], []
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-c", _WRAPPER, *cmd], capture_output=True, text=True, check=True, env=env
        )
        r = json.loads(out.stdout)
        if r["rc"] != 0:
            raise SystemExit(f"{' '.join(cmd)} failed ({r['rc']}): {r['err']}")
        walls.append(r["wall"])
        cpus.append(r["cpu"])
        rss.append(r["rss_mb"])
    return Run(wall_s=min(walls), cpu_s=min(cpus), rss_mb=max(rss))


def gpuplan(*args: str) -> list[str]:
    """The command line of ``gpuplan ARGS`` with this interpreter."""
    return [sys.executable, "-c", "from gpuplan.cli import main; main()", *args]


#: This checkout's source tree: what its benchmarks time, whichever tree the environment has
#: installed (a git worktree shares the virtual environment of another checkout).
CHECKOUT_SRC = Path(__file__).resolve().parents[1] / "src"


def child_env(src: Path | None = None) -> dict[str, str]:
    """A child's environment: bytecode cache on (as an installed package runs; with
    ``PYTHONDONTWRITEBYTECODE`` every start would compile every module), no ``GPUPLAN_DB``, and
    gpuplan imported from the source tree ``src`` (the folder holding ``gpuplan/``), by default
    this checkout's."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "GPUPLAN_DB")}
    env["PYTHONPATH"] = str(src if src is not None else CHECKOUT_SRC)
    return env


IMPORT_GPUPLAN = [sys.executable, "-c", "import gpuplan"]
"""The reference the targets are stated against."""


def header(command: str, repeat: int, note: str = "") -> list[str]:
    """The two lines above a table of :func:`line`: what was run, how, when and on what machine."""
    from datetime import date

    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return [
        f"{command}: whole processes, best of {repeat} (CPU = user + system), ratios to "
        f"python -c 'import gpuplan' of the same tree, measured together on {date.today()}",
        f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load}; "
        f"bytecode cache on, warmed{note}",
    ]


def line(label: str, run: Run, ref: Run, target_s: float | None = None) -> str:
    """One result line: wall and CPU seconds, both as ratios to ``ref``, and the target if any."""
    text = (
        f"{label:<44} wall {run.wall_s * 1e3:7.0f} ms ({run.wall_s / ref.wall_s:5.1f} x)  "
        f"CPU {run.cpu_s * 1e3:7.0f} ms ({run.cpu_s / ref.cpu_s:5.1f} x)  peak {run.rss_mb:5.0f} MiB"
    )
    if target_s is not None:
        text += f"  target < {target_s:g} s: {'met' if run.cpu_s < target_s else 'NOT met'} (CPU)"
    return text
