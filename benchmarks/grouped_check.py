"""Grouped cross-validation of the calibration: leave one publisher out, leave one architecture out.

    .venv/bin/python benchmarks/grouped_check.py            # cached case traces only (run calibrate.py first)

Random k-fold puts rows of one publisher (one software stack) on both sides of a split; these
folds do not. Each fitted row is predicted by a fit (``gpuplan.calibration.crossval.fit``, the same robust
least squares and free parameters as ``benchmarks/calibrate.py``) on the rows of every *other*
publisher (architecture); the held-out architecture's own factor stays at 1. Prints the median and
worst |error| overall, per GPU architecture, per stack level (stock: plain PyTorch; tuned: any
hand-fused kernel, NHWC, CUDA graphs, torch.compile or fused AdamW) and per publisher, and the
coverage of the 80 % split-conformal band built on these grouped residuals. Writes nothing.

A publisher is one source and software stack (``gpuplan.calibration.published.publisher_group``):
the MLPerf Training submitters all ran NVIDIA's implementation and MLCommons publishes their
results, so they are one group — holding out one submitter would leave the same code in the fit.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from calibrate import _free_parameters, _profiles
from gpuplan.calibration.cases import load_cases, predict
from gpuplan.calibration.crossval import Problem, conformal_halfwidth, grouped_log_errors, left_out_coverage
from gpuplan.perf.calibration import PRIOR, Calibration


def _grouped(
    problem: Problem,
    start: Calibration,
    free: Sequence[str],
    group: Callable[[object], str],
    say: Callable[[str], None],
) -> list[float]:
    return grouped_log_errors(problem, start, free=free, group=group, say=say)


def _shipped_setup() -> tuple[Calibration, set[str]]:
    """The fit's starting point and held parameters as the shipped calibration was fitted
    (``calibrate.py --shapes --matmul-fractions --gemm-fit --hold …``, its ``source`` says which):
    the literature values with the shipped model switches (GEMM shapes, measured matmul fractions,
    FP8 casts), its fitted GEMM shape parameters, and the GPUs' measured elementwise shares; a scalar
    the shipped fit left at its literature value is held there. It had started from the bare
    literature values — another model than the one shipped, whose held-out figures it then printed."""
    from dataclasses import replace

    from gpuplan.calibration.crossval import BOUNDS
    from gpuplan.calibration.recorded_cases import measured_shares
    from gpuplan.perf.calibration import load_calibration

    shipped = load_calibration()
    start = replace(
        PRIOR,
        gemm_shapes=shipped.gemm_shapes,
        matmul_fractions=shipped.matmul_fractions,
        fp8_casts=shipped.fp8_casts,
        gemm_k_overhead=shipped.gemm_k_overhead,
        gemm_tile_overhead=shipped.gemm_tile_overhead,
        gemm_call_us=shipped.gemm_call_us,
        **measured_shares(),
    )
    held = {"gemm_k_overhead", "gemm_tile_overhead"} if shipped.gemm_shapes else set()
    held |= {n for n in BOUNDS if getattr(shipped, n, None) == getattr(PRIOR, n, None)}
    return start, held


def _pct(e: float) -> float:
    return 100.0 * abs(math.exp(e) - 1.0)


def _line(name: str, errs: Sequence[float]) -> str:
    pct = [_pct(e) for e in errs]
    return f"  {name:<44} rows {len(pct):>3}  median {statistics.median(pct):5.1f} %  worst {max(pct):6.1f} %"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.parse_args()
    cases, _ = load_cases()
    pairs = [
        (c, p) for c, p in _profiles(cases, cached_only=True) if c.used_in_fit and c.metric != "peak_mem_gib"
    ]
    problem = Problem(
        rows=pairs,
        predict=lambda cp, cal: predict(cp[0], cp[1], cal),
        published=lambda cp: cp[0].published,
        architecture=lambda cp: cp[0].architecture,
    )
    start, held = _shipped_setup()
    free = [n for n in _free_parameters(pairs) if n not in held]

    def publisher(cp: object) -> str:
        return str(cp[0].publisher)  # type: ignore[index]

    def say(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    lopo = _grouped(problem, start, free, publisher, say)
    loao = _grouped(problem, start, free, lambda cp: cp[0].architecture, say)  # type: ignore[index]
    levels = {c.label: c.stack_level for c, _ in pairs}
    for title, errs in (("leave-one-publisher-out", lopo), ("leave-one-architecture-out", loao)):
        half = conformal_halfwidth([abs(e) for e in errs])
        print(f"{title}: {len(errs)} rows, {len({publisher(p) for p in pairs})} publishers")
        groups = [publisher(p) for p in pairs]
        print(
            _line("all", errs) + f"  80 % band ×/÷ {math.exp(half):.3f}; left-out publishers inside the "
            f"others' band: {100 * left_out_coverage(errs, groups):.0f} %"
        )
        by: dict[str, dict[str, list[float]]] = {
            "arch": defaultdict(list),
            "stack": defaultdict(list),
            "pub": defaultdict(list),
        }
        for (case, prof), e in zip(pairs, errs, strict=True):
            by["arch"][case.architecture].append(e)
            by["stack"][levels[case.label]].append(e)
            by["pub"][publisher((case, prof))].append(e)
        for kind in ("arch", "stack", "pub"):
            for name in sorted(by[kind]):
                print(_line(f"{kind}: {name}", by[kind][name]))
        print()
    print(
        "row                                                                              pub-out  arch-out"
    )
    for (case, _), a, b in zip(pairs, lopo, loao, strict=True):
        print(f"{case.label[:80]:<80} {100 * (math.exp(a) - 1):+7.1f}% {100 * (math.exp(b) - 1):+7.1f}%")


if __name__ == "__main__":
    main()
