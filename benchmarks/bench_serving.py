"""Whole-process speed of ``gpuplan simulate autoscale`` on a day of traffic and on the Azure trace.

    .venv/bin/python benchmarks/bench_serving.py [--rate 50] [--hours 24]

Prints, each as the command a user runs (a fresh process: imports, the trace CSV read by pyarrow,
the estimator's replica from a cached profile, the simulation, the JSON written):

- a day at ``rate`` requests/s (a seeded diurnal trace written by ``gpuplan simulate trace``), one
  target-utilisation policy on an A100 (the issue's target: < 5 s);
- the one-hour Azure LLM conversation trace (``../shared/data/traces``) with three policies
  (target: < 3 s);

each as wall time and CPU time (user + system of the process), and as a ratio to a reference
measured in the same run: one ``heapq.heapreplace`` per request of the day in a bare Python loop
(the least any exact per-request engine in Python does). The machine may be shared: the CPU time
and the ratio move less than the wall time when it is. A warm-up run traces the model once and
fills the profile cache of a temporary catalog; it is not timed.
"""

from __future__ import annotations

import argparse
import heapq
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
WORKLOAD = ROOT / "examples" / "llm-inference-service.yaml"
CONV = ROOT.parent / "shared" / "data" / "traces" / "AzureLLMInferenceTrace_conv.csv"


def _reference(n: int, slots: int) -> tuple[float, float]:
    """(wall, CPU) seconds of the bare loop."""
    heap = [(0.0, i) for i in range(slots)]
    arrival = np.sort(np.random.default_rng(0).random(n) * 86_400).tolist()
    t, c = time.perf_counter(), time.process_time()
    for a in arrival:
        tf, s = heap[0]
        heapq.heapreplace(heap, ((a if a > tf else tf) + 5.0, s))
    return time.perf_counter() - t, time.process_time() - c


def _timed(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one ``gpuplan`` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "gpuplan", *args], env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rate", type=float, default=50.0)
    ap.add_argument("--hours", type=float, default=24.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "GPUPLAN_DB": str(Path(tmp) / "catalog.sqlite")}
        day = Path(tmp) / "day.csv"
        subprocess.run(
            [sys.executable, "-m", "gpuplan", "simulate", "trace", "diurnal", "--rate", f"{args.rate:g}",
             "--hours", f"{args.hours:g}", "--seed", "1", "--out", str(day)],
            env=env, check=True, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        n = sum(1 for _ in day.open()) - 2
        common = ["simulate", "autoscale", str(WORKLOAD), "--gpu", "A100-SXM4-80GB", "--json"]
        print("warm-up (traces llama-8b once, not timed) …", file=sys.stderr, flush=True)
        _timed([*common, "--trace", str(CONV), "--policy", "fixed:replicas=1"], env)
        ref_wall, ref_cpu = _reference(n, 24 * 256)
        print(
            f"reference: bare heapreplace loop over {n:,} requests: "
            f"{ref_wall:.2f} s wall, {ref_cpu:.2f} s CPU"
        )
        wall, cpu = _timed([*common, "--trace", str(day), "--policy", "target:target=0.7,max=40"], env)
        print(
            f"a day at {args.rate:g} req/s ({n:,} requests), target policy, whole process: "
            f"{wall:.2f} s wall ({wall / ref_wall:.2f}× reference), {cpu:.2f} s CPU "
            f"({cpu / ref_cpu:.2f}× reference); target < 5 s"
        )
        policies = [
            "--policy", "fixed:replicas=2", "--policy", "target:target=0.7,max=10",
            "--policy", "queue:per_replica=48,max=10",
        ]  # fmt: skip
        wall, cpu = _timed([*common, "--trace", str(CONV), *policies], env)
        print(
            f"Azure conversation trace (19,366 requests, 1 h), three policies, whole process: "
            f"{wall:.2f} s wall, {cpu:.2f} s CPU (target < 3 s)"
        )


if __name__ == "__main__":
    main()
