"""Fit the performance model's few parameters on published measurements; print each row's error.

    .venv/bin/python benchmarks/calibrate.py            # trace what is not cached, fit, write
    .venv/bin/python benchmarks/calibrate.py --cached   # use only cached profiles (no torch work)
    .venv/bin/python benchmarks/calibrate.py --check    # do not fit: score the shipped calibration
    .venv/bin/python benchmarks/calibrate.py --retrace  # re-trace every case (after tracer changes)

Reads ``src/gpuplan/perf/data/calibration.csv`` (a copy of the shared data) and
``calibration_extra.csv``; traces each case's workload with the profile layer (profiles cached as
JSON under ``tests/perf/fixtures/profiles/``, which the tests reuse); fits by coordinate descent
(``gpuplan.perf.fit``); writes ``src/gpuplan/perf/calibration.json`` with the fit date, the data's
hash and every row's prediction.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpuplan.perf.calibration import Calibration
    from gpuplan.perf.fit import CalibrationCase
    from gpuplan.profile.model import Profile

ROOT = Path(__file__).resolve().parent.parent
PROFILES = ROOT / "tests" / "perf" / "fixtures" / "profiles"
OUTPUT = ROOT / "src" / "gpuplan" / "perf" / "calibration.json"


def _profile_path(workload: dict[str, object]) -> Path:
    digest = hashlib.sha256(json.dumps(workload, sort_keys=True).encode()).hexdigest()[:16]
    return PROFILES / f"{workload['name']}-{digest}.json".replace(" ", "_").replace("(", "").replace(")", "")


def _profiles(
    cases: Sequence[CalibrationCase], cached_only: bool, retrace: bool = False
) -> list[tuple[CalibrationCase, Profile]]:
    from gpuplan.profile.model import Profile

    out = []
    started = time.time()
    PROFILES.mkdir(parents=True, exist_ok=True)
    for case in cases:
        path = _profile_path(case.workload)
        if path.exists() and not (retrace and path.stat().st_mtime < started):
            prof = Profile.from_json(path.read_text(encoding="utf-8"))
        elif cached_only:
            sys.exit(f"error: no cached profile for {case.label} ({path.name}); run without --cached")
        else:
            from gpuplan.profile.key import trace

            t0 = time.perf_counter()
            print(f"tracing {case.label} …", file=sys.stderr, flush=True)
            prof = trace(case.workload)
            path.write_text(prof.to_json() + "\n", encoding="utf-8")
            print(f"  {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        out.append((case, prof))
    return out


def _print_table(cal: Calibration) -> None:
    print(f"{'case':<96} {'published':>10} {'predicted':>10} {'error':>8}")
    for r in cal.rows:
        mark = "" if r.used_in_fit else "  (not fitted)"
        print(f"{r.label[:96]:<96} {r.published:>10.1f} {r.predicted:>10.1f} {r.error_pct:>+7.1f}%{mark}")
    thr = [abs(r.error_pct) for r in cal.rows if r.used_in_fit and r.metric != "peak_mem_gib"]
    mem = [r for r in cal.rows if r.metric == "peak_mem_gib"]
    print()
    print(
        f"throughput rows fitted: {len(thr)}; "
        f"median |error| {statistics.median(thr):.1f} %, worst {max(thr):.1f} %"
    )
    for r in mem:
        print(f"memory: {r.label[:70]}: {r.error_pct:+.1f} %{'' if r.used_in_fit else ' (not fitted)'}")
    print(
        "memory rows compare the traced allocated peak with torchtune's 'peak memory active' "
        "(torch.cuda max active bytes), like with like: no CUDA context, workspaces or allocator slack"
    )
    from gpuplan.perf.fit import GPU_NAMES

    print("GPU names mapped: " + "; ".join(f"{k!r} → {v}" for k, v in GPU_NAMES.items()))
    print(
        "parameters: "
        f"tensor matmul eff {cal.tensor_matmul_efficiency:.3f}, "
        f"tensor conv eff {cal.tensor_conv_efficiency:.3f}, "
        f"fp32 vector eff {cal.vector_efficiency:.3f}, bandwidth eff {cal.bandwidth_efficiency:.3f}, "
        f"tf32 factor {cal.tf32_factor:.3f}, host overhead {cal.host_overhead_us:.1f} µs/op, "
        f"matmul/attention tail {cal.tensor_tail_gflop_per_call:.1f} GFLOP/call, "
        f"min kernel time {cal.min_kernel_time_us:.1f} µs; "
        f"bands: time ×{cal.time_band}, memory ×{cal.memory_band}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cached", action="store_true", help="use only cached profiles")
    parser.add_argument("--check", action="store_true", help="score the shipped calibration; do not fit")
    parser.add_argument("--retrace", action="store_true", help="re-trace every case (after tracer changes)")
    args = parser.parse_args()

    from gpuplan.perf.calibration import PRIOR, load_calibration
    from gpuplan.perf.fit import fit_calibration, load_cases, with_band

    cases, digest = load_cases()
    pairs = _profiles(cases, args.cached, args.retrace)
    if args.check:
        shipped = load_calibration()
        cal = with_band(shipped, pairs, fitted_on=shipped.fitted_on, data_sha256=digest)
        _print_table(cal)
        return
    t0 = time.perf_counter()
    fitted = fit_calibration(pairs, PRIOR, progress=lambda r: print(f"round {r + 1}", file=sys.stderr))
    cal = with_band(fitted, pairs, fitted_on=date.today().isoformat(), data_sha256=digest)
    print(f"fit: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    OUTPUT.write_text(cal.to_json(), encoding="utf-8")
    _print_table(cal)
    print(f"\nwrote {OUTPUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
