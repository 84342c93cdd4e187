"""Fit the GEMM shape parameters (``perf/gemm.py``) on measured matmuls; print the fit and its residuals.

    .venv/bin/python benchmarks/gemm_fit.py        # the fit, per-GPU and held-out errors, residuals by shape

Data: ``src/gpuplan/calibration/data/gemm_shapes.csv`` (OpenXLA's measured BF16 matmul table, H100 SXM
and B200; ``gpuplan.calibration.gemm_fit`` says where each figure comes from). The values the
estimator takes (``benchmarks/calibrate.py --shapes --gemm-fit``) are the fit on the H100 rows alone:
the hardware catalog gives the H100's SM count (132) and none for the B200, whose multiplier is
therefore the worst over a few plausible counts — fine for checking, not for fitting wave sizes. The
B200 is the held-out GPU: predicted with the H100's shape parameters and per-call time and the
catalog's large-GEMM rate of the B200 (datasheet BF16 peak × measured matmul fraction). The reverse
check, fitted on the B200 and predicting the H100, and the joint fit are printed beside it; the
prior (``k_overhead`` 64, ``tile_overhead`` 32, no per-call time) is scored on the same rows.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from functools import lru_cache

from gpuplan.calibration.gemm_fit import (
    GemmFit,
    GemmRow,
    fit_gemm,
    heldout_errors,
    load_gemm_rows,
    median_abs_pct,
)

#: The GPU whose fit the estimator takes (its SM count is in the hardware catalog).
FIT_GPU = "H100-SXM"


@lru_cache(maxsize=1)
def shipped_gemm_fit() -> GemmFit:
    """The fit the estimator's ``--gemm-fit`` holds: on the :data:`FIT_GPU` rows."""
    return fit_gemm([r for r in load_gemm_rows() if r.gpu == FIT_GPU])


def _line(name: str, errs: list[float]) -> str:
    pct = [abs(math.expm1(e)) * 100 for e in errs]
    bias = math.expm1(statistics.median(errs)) * 100
    p90 = sorted(pct)[int(0.9 * len(pct))]
    return (
        f"  {name:<44} rows {len(errs):>3}  median |error| {median_abs_pct(errs):5.1f} %  "
        f"90th {p90:5.1f} %  worst {max(pct):6.1f} %  median bias {bias:+5.1f} %"
    )


def _params(f: GemmFit) -> str:
    rates = ", ".join(f"{g} {r / 1e12:.0f} TFLOPS" for g, r in f.rates)
    return (
        f"k_overhead {f.k_overhead:.1f} elements, tile_overhead {f.tile_overhead:.1f} elements, "
        f"per call {f.per_call_us:.2f} µs; large-GEMM rate {rates}"
    )


def _by_size(rows: list[GemmRow], errs: list[float]) -> None:
    """Residuals grouped by FLOPs decade: where the model is off, small or large."""
    groups: dict[str, list[float]] = defaultdict(list)
    for r, e in zip(rows, errs, strict=True):
        groups[f"1e{math.floor(math.log10(r.flops))} FLOP"].append(e)
    for name in sorted(groups, key=lambda s: int(s[2:].split()[0])):
        print(_line(name, groups[name]))


def main() -> None:
    rows = load_gemm_rows()
    gpus = sorted({r.gpu for r in rows})
    counts = ", ".join(f"{g} {sum(r.gpu == g for r in rows)}" for g in gpus)
    print(f"measured GEMMs: {len(rows)} rows, {counts}")
    shipped = shipped_gemm_fit()
    print(f"\nfit on {FIT_GPU} (what the estimator takes): {_params(shipped)}")
    own = [r for r in rows if r.gpu == FIT_GPU]
    print(_line(f"in-sample {FIT_GPU}", list(shipped.log_errors)))
    _by_size(own, list(shipped.log_errors))
    for g in gpus:
        if g == FIT_GPU:
            continue
        held = heldout_errors(rows, shipped, g)
        if held is None:
            print(f"  held out {g}: the catalog has no large-GEMM rate for it")
            continue
        print(_line(f"held out {g} (catalog rate, SMs per catalog)", held))
        _by_size([r for r in rows if r.gpu == g], held)
    for g in gpus:
        if g == FIT_GPU:
            continue
        other = fit_gemm([r for r in rows if r.gpu == g])
        print(f"\nfit on {g}: {_params(other)}")
        print(_line(f"in-sample {g}", list(other.log_errors)))
        back = heldout_errors(rows, other, FIT_GPU)
        if back is not None:
            print(_line(f"held out {FIT_GPU}", back))
    joint = fit_gemm(rows)
    print(f"\njoint fit on {', '.join(gpus)}: {_params(joint)}")
    print(_line("in-sample, all", list(joint.log_errors)))
    prior = GemmFit(k_overhead=64.0, tile_overhead=32.0, per_call_us=0.0, rates=(), log_errors=())
    print("\nprior (k_overhead 64, tile_overhead 32, no per-call time), each GPU at its catalog rate:")
    for g in gpus:
        errs = heldout_errors(rows, prior, g)
        if errs is not None:
            print(_line(f"{g}", errs))


if __name__ == "__main__":
    main()
