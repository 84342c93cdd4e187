"""LLM decode and prefill: what gpuplan's inference model predicts for each published row, and the error.

    .venv/bin/python benchmarks/inference_check.py            # trace what is not cached, then score
    .venv/bin/python benchmarks/inference_check.py --cached   # use only cached profiles (no torch work)

Reads the ``task: decode`` / ``task: prefill`` rows of ``src/gpuplan/calibration/data/calibration_v2.csv``
that ran a PyTorch stack (``gpuplan.calibration.inference_cases``), traces each as a ``task: infer``
workload (profiles cached under ``tests/calibration/fixtures/profiles/``, which the tests reuse) and
estimates it through the normal path (``perf.sweep.estimate_all`` → ``perf.inference.decode_estimate``)
with the shipped calibration. No constant is fitted on these rows — the efficiencies come from the
training fit of ``benchmarks/calibrate.py``, which leaves them out — so every error is out of sample.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from calibrate import _profiles


def report(cached_only: bool) -> float:
    """Print every decode/prefill row's prediction and error; return the median |error|, percent."""
    from gpuplan.calibration.inference_cases import inference_cases, predict_inference
    from gpuplan.perf.calibration import load_calibration

    cal = load_calibration()
    cases = inference_cases()
    pairs = _profiles(cases, cached_only)
    head = f"{'row':<84} {'launch':<8} {'ctx':>5} {'fits':>5}"
    print(f"{head} {'published':>10} {'predicted':>10} {'error':>8}")
    errors: dict[str, list[float]] = {}
    for case, prof in pairs:
        p = predict_inference(case, prof, cal)
        pct = 100.0 * (p.value / case.published - 1.0)
        errors.setdefault(f"{case.phase}, {case.launch}", []).append(abs(pct))
        print(
            f"{case.label[:84]:<84} {case.launch:<8} {case.context_tokens:>5} {p.fits!s:>5} "
            f"{case.published:>10.2f} {p.value:>10.2f} {pct:>+7.1f}%"
        )
    every = [e for errs in errors.values() for e in errs]
    print()
    print(
        f"decode/prefill rows: {len(every)}; median |error| {statistics.median(every):.1f} %, "
        f"worst {max(every):.1f} % (held out: no constant is fitted on these rows)"
    )
    for group, errs in sorted(errors.items()):
        print(f"  {group:<20} {len(errs):>2} rows, median |error| {statistics.median(errs):5.1f} %")
    print(
        "units: itl_ms = one decode step of the whole batch; ttft_ms = one prefill forward of the batch; "
        "output_tokens_per_s = generated tokens per second over the batch (TP rows: the whole replica)"
    )
    return statistics.median(every)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cached", action="store_true", help="use only cached profiles")
    report(parser.parse_args().cached)


if __name__ == "__main__":
    main()
