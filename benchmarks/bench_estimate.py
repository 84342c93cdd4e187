"""How long estimating takes: cached-profile sweeps over every GPU, and end-to-end traces.

    .venv/bin/python benchmarks/bench_estimate.py            # sweeps + ResNet-50 + Llama-7B traces
    .venv/bin/python benchmarks/bench_estimate.py --no-trace # sweeps only (cached profiles)

Prints figures; asserts nothing (benchmarks are never timed unit tests). The reference in the same
run is the time to parse the profile JSON, so the sweep's ratio does not depend on the machine.
DESIGN.md budget: planning over the whole catalog in under one second once the profile is known.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROFILES = ROOT / "tests" / "calibration" / "fixtures" / "profiles"


def _best_of(fn: Callable[[], object], n: int = 5) -> float:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def _sweeps() -> None:
    from gpuplan.hardware import all_gpus
    from gpuplan.perf import EstimateRequest, estimate_all, load_calibration
    from gpuplan.profile.model import Profile

    cal = load_calibration()
    files = sorted(PROFILES.glob("*.json"))
    if not files:
        print("no cached profiles: run benchmarks/calibrate.py first")
        return
    gpus = all_gpus()
    print(f"{'profile':<60} {'ops':>4} {'parse ms':>9} {'sweep ms':>9} {'ratio':>6} {'per GPU ms':>10}")
    ratios = []
    for f in files:
        text = f.read_text(encoding="utf-8")
        prof = Profile.from_json(text)
        parse = _best_of(partial(Profile.from_json, text))
        requests = [EstimateRequest(profile=prof, gpu=g, calibration=cal) for g in gpus]
        sweep = _best_of(partial(estimate_all, requests))
        ratios.append(sweep / parse)
        print(
            f"{f.stem[:60]:<60} {len(prof.ops):>4} {parse * 1e3:>9.2f} {sweep * 1e3:>9.1f} "
            f"{sweep / parse:>6.0f} {sweep / len(gpus) * 1e3:>10.2f}"
        )
    print(f"median sweep/parse ratio: {statistics.median(ratios):.0f} ({len(gpus)} GPUs, advice included)")


def _end_to_end() -> None:
    from gpuplan.hardware import all_gpus
    from gpuplan.perf import EstimateRequest, estimate_all
    from gpuplan.profile.key import trace

    cases = {
        "resnet50 bs256 amp-fp16 train": {
            "name": "r50",
            "model": {"preset": "resnet50"},
            "inputs": {"batch_size": 256, "image_size": 224},
            "precision": "amp-fp16",
            "optimizer": "sgd",
        },
        "llama-7b bs1×2048 amp-bf16 full fine-tune": {
            "name": "llama7b",
            "task": "finetune",
            "model": {"preset": "llama-7b"},
            "inputs": {"batch_size": 1, "seq_len": 2048},
            "precision": "amp-bf16",
            "optimizer": "adamw",
        },
    }
    for label, spec in cases.items():
        t0 = time.perf_counter()
        prof = trace(spec)
        t1 = time.perf_counter()
        outcomes = estimate_all(EstimateRequest(profile=prof, gpu=g) for g in all_gpus())
        t2 = time.perf_counter()
        fits = sum(1 for o in outcomes if o.estimate is not None and o.estimate.fits)
        print(
            f"{label}: trace {t1 - t0:.1f} s, estimate over {len(outcomes)} GPUs {(t2 - t1) * 1e3:.0f} ms; "
            f"fits {fits} GPUs; {prof.flops_per_step / 1e12:.1f} TFLOP/micro-batch, "
            f"peak {prof.peak.total_bytes / 1024**3:.1f} GiB traced"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--no-trace", action="store_true", help="skip the end-to-end traces")
    args = parser.parse_args()
    _sweeps()
    if not args.no_trace:
        _end_to_end()


if __name__ == "__main__":
    main()
