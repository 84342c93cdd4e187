"""Fit the calibration by robust least squares, and judge it on rows it was not fitted on.

- **Fit**: ``scipy.optimize.least_squares`` on the log-errors ``ln(predicted / published)`` with a
  soft-L1 loss (one outlying publication pulls less than in plain least squares), within physical
  bounds. Architecture factors on the tensor-core efficiencies are pooled toward 1 (the global
  value) by a normal prior of log-sd :data:`ARCH_PRIOR_SD`: with few rows they stay near 1.
- **Pooling thin parameters**: a parameter that fewer than :data:`MIN_ROWS` of the training rows
  are sensitive to (a change of a tenth of its range moves their prediction by more than 1 %) is
  pulled toward its start (literature) value by a prior of log-sd :data:`THIN_PRIOR_SD`; one that
  no row is sensitive to stays at it (frozen). One row alone must not set a parameter (the old
  fit let one row set the host overhead, and that row then came out +1015 % when held out).
- **Held-out error**: k-fold (rows dealt round-robin into folds after sorting by label, so the
  folds are reproducible) — each row is predicted by the fit on the other folds.
- **Band**: the split-conformal 80 % half-width on ln(time): the ⌈0.8·(n + 1)⌉-th smallest
  held-out |log-error|. For a GPU architecture the data never saw, the same from
  leave-one-architecture-out residuals (wider).

Generic over the row type: ``predict(row, cal)`` gives the model's figure, ``published(row)``
the measured one, ``architecture(row)`` the row's GPU architecture.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from gpuplan.perf.calibration import Calibration

__all__ = [
    "ARCH_PRIOR_SD",
    "BOUNDS",
    "MIN_ROWS",
    "THIN_PRIOR_SD",
    "CrossValidation",
    "conformal_halfwidth",
    "cross_validate",
    "fit",
]

R = TypeVar("R")

#: Physical bounds of each fitted scalar parameter. No kernel streams DRAM at its datasheet rate:
#: the best reach about 90 % of it (88 % measured on an A100 80GB SXM, "around 90 %" the best of a
#: GTC talk's kernels: NVIDIA developer forum, "Trouble to Reach Peak Bandwidth of A100", read
#: 2026-12-02), so the bandwidth efficiency stops at 0.92.
BOUNDS: dict[str, tuple[float, float]] = {
    "tensor_matmul_efficiency": (0.15, 1.0),
    "tensor_conv_efficiency": (0.15, 1.0),
    "vector_efficiency": (0.2, 1.0),
    "bandwidth_efficiency": (0.3, 0.92),
    "tf32_factor": (0.3, 1.0),
    "fp8_factor": (0.3, 1.0),
    "host_overhead_us": (2.0, 120.0),
    "tensor_tail_gflop_per_call": (0.0, 20.0),
    "attention_factor": (0.3, 1.5),
    "compile_speedup": (1.0, 2.0),
    "overlap_cost": (0.0, 1.0),
}
_ARCH_BOUNDS = (0.5, 1.6)
#: Log-sd of the prior that pools an architecture's factor toward 1. Under the soft-L1 loss a
#: residual counts about linearly, so the prior weighs as much as 1 / ARCH_PRIOR_SD = 2 rows: an
#: architecture's factor moves away from the global value only when more of its rows agree.
ARCH_PRIOR_SD = 0.5
#: Fewest training rows that must be sensitive to a parameter for it to be fitted freely.
MIN_ROWS = 3
#: Log-sd of the prior that holds a thinly determined parameter near its literature value: it
#: weighs as much as one row (soft-L1: linear in the residual), so one or two rows cannot drag it
#: far on their own.
THIN_PRIOR_SD = 1.0
_SENSITIVE = 0.01
#: Soft-L1 scale on ln-errors: quadratic below ~3 %, linear (robust) above.
_F_SCALE = 0.03
_SCAN_POINTS = 12
_COVERAGE = 0.8


@dataclass(frozen=True)
class Problem(Generic[R]):
    rows: Sequence[R]
    predict: Callable[[R, Calibration], float]
    published: Callable[[R], float]
    architecture: Callable[[R], str]


def _arch_name(param: str) -> str:
    return param.removeprefix("arch:")


def _set(cal: Calibration, values: dict[str, float]) -> Calibration:
    arch = dict(cal.arch_factors)
    scalars: dict[str, Any] = {}
    for name, v in values.items():
        if name.startswith("arch:"):
            arch[_arch_name(name)] = v
        else:
            scalars[name] = v
    return replace(cal, arch_factors=tuple(sorted(arch.items())), **scalars)


def _get(cal: Calibration, name: str) -> float:
    if name.startswith("arch:"):
        return cal.arch_factor(_arch_name(name))
    return float(getattr(cal, name))


def _bounds(name: str) -> tuple[float, float]:
    return _ARCH_BOUNDS if name.startswith("arch:") else BOUNDS[name]


def _log_errors(p: Problem[R], rows: Sequence[R], cal: Calibration) -> list[float]:
    return [math.log(p.predict(r, cal) / p.published(r)) for r in rows]


def sensitive_rows(p: Problem[R], rows: Sequence[R], cal: Calibration, name: str) -> int:
    """How many of ``rows`` a change of a tenth of ``name``'s range moves by more than 1 %."""
    lo, hi = _bounds(name)
    v = _get(cal, name)
    step = 0.1 * (hi - lo)
    moved = _set(cal, {name: v + step if v + step <= hi else v - step})
    base = _log_errors(p, rows, cal)
    new = _log_errors(p, rows, moved)
    return sum(abs(a - b) > _SENSITIVE for a, b in zip(base, new, strict=True))


def fit(p: Problem[R], rows: Sequence[R], start: Calibration, *, free: Sequence[str]) -> Calibration:
    """Robust least-squares fit of the ``free`` parameters (scalars by name, ``arch:<name>``
    factors) on ``rows``; thin ones pooled toward ``start``, ones no row is sensitive to frozen."""
    import numpy as np
    from scipy.optimize import least_squares

    counts = {n: sensitive_rows(p, rows, start, n) for n in free}
    names = [n for n in free if counts[n] > 0]
    if not names:
        return start
    thin = {i for i, n in enumerate(names) if counts[n] < MIN_ROWS and not n.startswith("arch:")}
    x0 = np.array([min(max(_get(start, n), _bounds(n)[0]), _bounds(n)[1]) for n in names])
    lo = np.array([_bounds(n)[0] for n in names])
    hi = np.array([_bounds(n)[1] for n in names])
    arch_idx = [i for i, n in enumerate(names) if n.startswith("arch:")]

    def residuals(x: Any) -> Any:
        cal = _set(start, dict(zip(names, map(float, x), strict=True)))
        r = _log_errors(p, rows, cal)
        prior = [math.log(float(x[i])) / ARCH_PRIOR_SD for i in arch_idx]
        # NB: a parameter at 0 (the GEMM tail) is pooled on its range instead of its log.
        pooled = [
            (math.log(float(x[i]) / x0[i]) if x0[i] > 0 else float(x[i]) / (hi[i] - lo[i])) / THIN_PRIOR_SD
            for i in sorted(thin)
        ]
        return np.array(r + prior + pooled)

    def cost(x: Any) -> float:
        z = (residuals(x) / _F_SCALE) ** 2
        return float(np.sum(2.0 * (np.sqrt(1.0 + z) - 1.0)))

    # The roofline's max() terms (host-bound floor, kernel minimum) make the cost flat in places
    # where a local method cannot see a better value: two rounds of a coarse scan per parameter
    # first, then the least-squares refinement.
    x = x0.copy()
    for _ in range(2):
        for i in range(len(names)):
            grid = np.unique(np.append(np.linspace(lo[i], hi[i], _SCAN_POINTS), x[i]))
            trials = []
            for v in grid:
                trial = x.copy()
                trial[i] = v
                trials.append(cost(trial))
            x[i] = grid[int(np.argmin(trials))]
    result = least_squares(
        residuals, x, bounds=(lo, hi), loss="soft_l1", f_scale=_F_SCALE, diff_step=1e-3, max_nfev=300
    )
    return _set(start, dict(zip(names, map(float, result.x), strict=True)))


def conformal_halfwidth(abs_log_errors: Sequence[float], coverage: float = _COVERAGE) -> float:
    """Split-conformal half-width: the ⌈coverage·(n + 1)⌉-th smallest |log-error| (the largest
    one when n is too small for that rank)."""
    errs = sorted(abs_log_errors)
    if not errs:
        return 0.0
    k = math.ceil(coverage * (len(errs) + 1))
    return errs[min(k, len(errs)) - 1]


@dataclass(frozen=True, kw_only=True)
class CrossValidation:
    """What the fit gets right on rows it did not see, next to the in-sample figures."""

    fitted: Calibration
    """The fit on all rows."""
    in_sample_log_errors: tuple[float, ...]
    heldout_log_errors: tuple[float, ...]
    """Row by row (in the order given), each predicted by the fit without its fold."""
    loao_log_errors: tuple[float, ...]
    """Row by row, each predicted by the fit without its whole architecture."""
    folds: int
    frozen: tuple[str, ...]
    """Parameters the full fit left at their start value (no row sensitive to them)."""
    thin: tuple[str, ...] = ()
    """Parameters fewer than MIN_ROWS rows determine: pooled toward their start value."""

    @staticmethod
    def _pct(errs: Sequence[float]) -> list[float]:
        return [100.0 * abs(math.exp(e) - 1.0) for e in errs]

    def summary(self) -> dict[str, float]:
        """Median and worst |error| % (in-sample, k-fold, leave-one-architecture-out) and the
        coverage of the conformal 80 % band on the k-fold residuals."""
        half = conformal_halfwidth([abs(e) for e in self.heldout_log_errors])
        covered = sum(abs(e) <= half + 1e-12 for e in self.heldout_log_errors)
        out = {
            "rows": float(len(self.heldout_log_errors)),
            "folds": float(self.folds),
            "band_halfwidth_log": half,
            "band_coverage": covered / max(len(self.heldout_log_errors), 1),
        }
        for name, errs in (
            ("in_sample", self.in_sample_log_errors),
            ("kfold", self.heldout_log_errors),
            ("loao", self.loao_log_errors),
        ):
            pct = self._pct(errs)
            out[f"{name}_median_abs_error_pct"] = statistics.median(pct) if pct else math.nan
            out[f"{name}_worst_abs_error_pct"] = max(pct) if pct else math.nan
        return out


def cross_validate(
    p: Problem[R],
    start: Calibration,
    *,
    free: Sequence[str],
    folds: int = 5,
    progress: Callable[[str], None] | None = None,
) -> CrossValidation:
    """Fit on all rows; k-fold and leave-one-architecture-out held-out errors; record the band."""
    say = progress or (lambda _msg: None)
    rows = list(p.rows)
    order = sorted(range(len(rows)), key=lambda i: str(rows[i]))
    fold_of = {i: n % folds for n, i in enumerate(order)}
    heldout = [0.0] * len(rows)
    for k in range(folds):
        train = [rows[i] for i in range(len(rows)) if fold_of[i] != k]
        test = [i for i in range(len(rows)) if fold_of[i] == k]
        say(f"fold {k + 1}/{folds}: fit on {len(train)} rows")
        cal = fit(p, train, start, free=free)
        for i in test:
            heldout[i] = math.log(p.predict(rows[i], cal) / p.published(rows[i]))
    loao = [0.0] * len(rows)
    for arch in sorted({p.architecture(r) for r in rows}):
        train = [r for r in rows if p.architecture(r) != arch]
        say(f"without {arch}: fit on {len(train)} rows")
        # The held-out architecture's own factor cannot be fitted: it stays at 1 (pooled).
        cal = fit(p, train, start, free=[n for n in free if n != f"arch:{arch}"])
        for i, r in enumerate(rows):
            if p.architecture(r) == arch:
                loao[i] = math.log(p.predict(r, cal) / p.published(r))
    say("fit on all rows")
    fitted = fit(p, rows, start, free=free)
    frozen = tuple(n for n in free if _get(fitted, n) == _get(start, n))
    thin = tuple(n for n in free if n not in frozen and sensitive_rows(p, rows, start, n) < MIN_ROWS)
    cv = CrossValidation(
        fitted=fitted,
        in_sample_log_errors=tuple(_log_errors(p, rows, fitted)),
        heldout_log_errors=tuple(heldout),
        loao_log_errors=tuple(loao),
        folds=folds,
        frozen=frozen,
        thin=thin,
    )
    s = cv.summary()
    unseen = conformal_halfwidth([abs(e) for e in loao])
    half = float(s["band_halfwidth_log"])
    return replace(
        cv,
        fitted=replace(
            fitted,
            time_log_halfwidth=round(half, 4),
            time_log_halfwidth_thin=round(max(unseen, half), 4),
            seen_architectures=tuple(sorted({p.architecture(r) for r in rows})),
            heldout=tuple(sorted((k, round(v, 4)) for k, v in s.items())),
        ),
    )
