"""Published serving benchmarks against gpuplan's iteration-level replica, held out.

    .venv/bin/python benchmarks/serving_check.py            # trace what is not cached, then score
    .venv/bin/python benchmarks/serving_check.py --cached   # cached profiles only (no torch work)

Reads ``src/gpuplan/simulate/data/serving_published.csv`` (each row cited: publisher, title, URL,
table, dates), runs each published serving run through ``gpuplan.simulate.batching.run_replica``
on the estimator's iteration model (profiles cached under ``tests/simulate/fixtures/profiles/``,
which the tests reuse) and prints every figure's error, then per source: the median |error| of the
throughput figures, and whether the order of TTFT and of TPOT across the source's runs is right.
No constant is fitted on these rows.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

PROFILES = Path(__file__).resolve().parent.parent / "tests" / "simulate" / "fixtures" / "profiles"


def _profile(case, cached_only: bool):  # type: ignore[no-untyped-def]
    from gpuplan.profile.model import Profile

    path = PROFILES / case.profile_file
    if path.exists():
        return Profile.from_json(path.read_text(encoding="utf-8"))
    if cached_only:
        sys.exit(f"error: no cached profile {path.name}; run without --cached")
    from gpuplan.profile.key import trace

    t0 = time.perf_counter()
    print(f"tracing {case.preset} at {case.input_tokens} tokens …", file=sys.stderr, flush=True)
    prof = trace(case.workload)
    PROFILES.mkdir(parents=True, exist_ok=True)
    path.write_text(prof.to_json() + "\n", encoding="utf-8")
    print(f"  {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return prof


def main() -> None:
    from gpuplan.simulate.published import predict, published_cases, scoring

    ap = argparse.ArgumentParser()
    ap.add_argument("--cached", action="store_true")
    args = ap.parse_args()
    cases = published_cases()
    predictions = [(c, predict(c, _profile(c, args.cached))) for c in cases]
    print(f"{'run':<78} {'metric':<20} {'published':>11} {'predicted':>11} {'error':>8}")
    for case, pred in predictions:
        for metric, value in case.figures.items():
            mark = "" if case.scored(metric) else "  (offered rate: not scored)"
            err = 100.0 * (pred[metric] / value - 1.0)
            print(
                f"{case.label[:78]:<78} {metric:<20} {value:>11.2f} {pred[metric]:>11.2f} {err:>+7.1f}%{mark}"
            )
    print()
    report = scoring(predictions)
    for source, s in report.sources.items():
        tput = "—" if s.throughput_median_pct is None else f"{s.throughput_median_pct:.1f} %"
        print(
            f"{source:<32} throughput figures {s.throughput_n:>2}, median |error| {tput:>7}; "
            f"TTFT order {'right' if s.ttft_order else 'WRONG'}, "
            f"TPOT order {'right' if s.tpot_order else 'WRONG'}"
        )
    print(
        f"all sources: {report.throughput_n} throughput figures, median |error| "
        f"{report.throughput_median_pct:.1f} % (target ≤ 15 %); TTFT/TPOT order right in "
        f"{report.orders_right} of {report.orders} cases (held out: nothing fitted on these rows)"
    )
    for s in report.sources.values():
        print(f"  {s.citation}")


if __name__ == "__main__":
    main()
