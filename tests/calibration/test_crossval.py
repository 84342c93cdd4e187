"""The fit and its held-out judgement on a toy problem whose answer is known (calibration/crossval.py)."""

from __future__ import annotations

import dataclasses
import math

import pytest

from gpuplan.calibration.crossval import (
    Problem,
    ablate,
    conformal_halfwidth,
    cross_validate,
    fit,
    grouped_band,
    grouped_log_errors,
    left_out_coverage,
    rebanded,
)
from gpuplan.perf.calibration import PRIOR, Calibration, CalibrationRow

# Row = (work, overhead weight, architecture, published time). Model: time = work / matmul_eff
# + weight × host_overhead_us, times an architecture factor on the efficiency.
ROWS = [
    (1.0, 0.0, "Ampere", 1.0 / 0.5),
    (2.0, 0.0, "Ampere", 2.0 / 0.5),
    (3.0, 0.0, "Volta", 3.0 / 0.5),
    (4.0, 0.0, "Volta", 4.0 / 0.5),
    (5.0, 0.0, "Ampere", 5.0 / 0.5),
    (1.0, 1.0, "Volta", 1.0 / 0.5 + 0.08),  # the only row the host overhead moves
]


def _predict(row: tuple[float, float, str, float], cal: Calibration) -> float:
    work, weight, arch, _ = row
    eff = cal.tensor_matmul_efficiency * cal.arch_factor(arch)
    return work / eff + weight * cal.host_overhead_us * 1e-3


PROBLEM = Problem(rows=ROWS, predict=_predict, published=lambda r: r[3], architecture=lambda r: r[2])


def test_fit_recovers_a_parameter_many_rows_determine() -> None:
    cal = fit(PROBLEM, ROWS, PRIOR, free=["tensor_matmul_efficiency", "vector_efficiency"])
    assert cal.tensor_matmul_efficiency == pytest.approx(0.5, rel=0.01)
    # No row depends on the vector efficiency: frozen at its start value.
    assert cal.vector_efficiency == PRIOR.vector_efficiency


def test_a_parameter_one_row_determines_is_pooled_toward_its_prior() -> None:
    # The last row alone "wants" 80 µs; the prior (20 µs) weighs as much as one row, so the fit
    # lands between, not on the one row's value.
    cal = fit(PROBLEM, ROWS, PRIOR, free=["tensor_matmul_efficiency", "host_overhead_us"])
    assert PRIOR.host_overhead_us <= cal.host_overhead_us < 80.0


def test_conformal_half_width_is_the_rank_ceil_08_n_plus_1() -> None:
    # n = 9: rank ⌈0.8 × 10⌉ = 8 → the 8th smallest.
    errs = [0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09]
    assert conformal_halfwidth(errs) == 0.08
    # n = 3: rank ⌈3.2⌉ = 4 > n → the largest.
    assert conformal_halfwidth([0.1, 0.3, 0.2]) == 0.3


def test_cross_validation_reports_held_out_next_to_in_sample() -> None:
    cv = cross_validate(PROBLEM, PRIOR, free=["tensor_matmul_efficiency", "arch:Volta"], folds=3)
    s = cv.summary()
    assert s["rows"] == len(ROWS) and s["folds"] == 3
    assert s["kfold_median_abs_error_pct"] >= s["in_sample_median_abs_error_pct"] - 1e-9
    assert cv.fitted.time_log_halfwidth is not None
    assert cv.fitted.seen_architectures == ("Ampere", "Volta")
    held = dict(cv.fitted.heldout)
    assert held["band_coverage"] == pytest.approx(s["band_coverage"], abs=1e-4)
    assert math.isfinite(held["loao_worst_abs_error_pct"])


# Two publishers: "A" measured times 20 % slower than the model (its stack), "B" exactly.
# Three rows each, so that neither alone is a thinly determined fit.
GROUPED = [
    *((w, 0.0, "Ampere", 1.2 * w / 0.5, "A") for w in (1.0, 2.0, 3.0)),
    *((w, 0.0, "Ampere", w / 0.5, "B") for w in (4.0, 5.0, 6.0)),
]
GROUPED_PROBLEM = Problem(
    rows=GROUPED,
    predict=lambda r, cal: r[0] / (cal.tensor_matmul_efficiency * cal.arch_factor(r[2])),
    published=lambda r: r[3],
    architecture=lambda r: r[2],
    publisher=lambda r: r[4],
)


def test_leaving_a_publisher_out_shows_the_stack_miss_random_folds_hide() -> None:
    # Fit on B alone: matmul 0.5, so A's rows come out 1/1.2 − 1 = −16.7 %; fit on A alone: 0.5/1.2,
    # so B's come out +20 %.
    lopo = grouped_log_errors(GROUPED_PROBLEM, PRIOR, free=["tensor_matmul_efficiency"], group=lambda r: r[4])
    pct = [100 * (math.exp(e) - 1) for e in lopo]
    assert pct == pytest.approx([-16.7] * 3 + [20.0] * 3, abs=0.3)
    cv = cross_validate(GROUPED_PROBLEM, PRIOR, free=["tensor_matmul_efficiency"], folds=2)
    s = cv.summary()
    assert s["publishers"] == 2 and s["lopo_median_abs_error_pct"] == pytest.approx(18.3, abs=0.3)
    assert s["lopo_median_abs_error_pct"] > s["in_sample_median_abs_error_pct"]
    # The band is calibrated on the grouped residuals: wide enough for +20 %.
    assert math.exp(cv.fitted.time_log_halfwidth or 0) == pytest.approx(1.2, abs=0.01)


def test_coverage_of_a_left_out_publisher_uses_only_the_others_residuals() -> None:
    # Publisher "A" misses by 0.1, "B" by 0.3: B's rows lie outside the band A's residuals give,
    # and A's inside B's — half the rows covered, though the pooled band covers them all.
    errs, groups = [0.1, -0.1, 0.3, -0.3], ["A", "A", "B", "B"]
    assert left_out_coverage(errs, groups) == 0.5
    assert conformal_halfwidth([abs(e) for e in errs]) == 0.3


# Five publishers of three rows: E misses by 0.5 on every row (one stack, one miss), D by 0.9 on one.
BAND_ERRS = [0.1, -0.11, 0.12, 0.2, 0.21, -0.22, 0.3, 0.31, 0.32, 0.45, -0.46, 0.9, 0.5, 0.5, -0.5]
BAND_GROUPS = [g for g in "ABCDE" for _ in range(3)]


def test_the_band_level_is_the_smallest_that_covers_80_percent_of_a_left_out_publisher() -> None:
    # At level 0.8 a left-out publisher's band is the ⌈0.8 × 13⌉ = 11th of the other 12 residuals:
    # without E that is D's 0.46, so E's three rows fall outside, and D's 0.9 outside the others'
    # 0.5: 11 of 15 inside, though the pooled band covers 80 % of the residuals it was built on.
    assert left_out_coverage(BAND_ERRS, BAND_GROUPS) == pytest.approx(11 / 15)
    b = grouped_band(BAND_ERRS, BAND_GROUPS)
    # The 12th of 12 needs ⌈level × 13⌉ = 12: level > 11/13 = 0.846, 0.8475 on the 0.0025 grid;
    # then only D's 0.9 is outside: 14 of 15.
    assert b.level == pytest.approx(0.8475)
    assert left_out_coverage(BAND_ERRS, BAND_GROUPS, 0.845) < 0.8 <= b.left_out_coverage
    assert b.left_out_coverage == pytest.approx(14 / 15)
    # The shipped half-width, from all 15: rank ⌈0.8475 × 16⌉ = 14 → 0.5, covering 14 of 15.
    assert b.halfwidth_log == 0.5 and b.coverage == pytest.approx(14 / 15)


def test_a_band_no_level_makes_cover_a_left_out_group_says_so() -> None:
    # Z's rows (0.8–1.0) all exceed every other residual: no band of the others reaches them, so
    # the level stops at 1 (the largest residual) and the left-out coverage stays at 7 of 10.
    errs = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    groups = ["a", "b", "c", "d", "e", "f", "g", "Z", "Z", "Z"]
    b = grouped_band(errs, groups)
    assert b.level == 1.0 and b.halfwidth_log == 1.0
    assert b.left_out_coverage == pytest.approx(0.7)


def test_the_bands_are_rebuilt_from_the_residuals_stored_with_the_rows() -> None:
    rows = tuple(
        CalibrationRow(
            label=f"row {i}",
            gpu="A100-SXM4-80GB",
            metric="tokens_per_s",
            published=1.0,
            predicted=1.0,
            publisher=g,
            architecture="Ampere" if i % 2 else "Hopper",
            lopo_log_error=e,
            loao_log_error=2 * e,
        )
        for i, (e, g) in enumerate(zip(BAND_ERRS, BAND_GROUPS, strict=True))
    )
    cal = rebanded(PRIOR.with_rows(rows))
    held = dict(cal.heldout)
    assert cal.time_log_halfwidth == 0.5 and held["band_level"] == pytest.approx(0.8475)
    assert held["lopo_band_coverage"] == pytest.approx(14 / 15, abs=1e-4)
    thin = grouped_band([2 * e for e in BAND_ERRS], [r.architecture for r in rows])
    assert cal.time_log_halfwidth_thin == pytest.approx(thin.halfwidth_log, abs=1e-4)
    assert held["loao_band_coverage"] >= 0.8
    # A file fitted before the residuals were stored cannot be rebanded: it says so.
    with pytest.raises(ValueError, match="no held-out residuals"):
        rebanded(PRIOR)


def test_ablation_keeps_a_parameter_only_if_it_improves_the_grouped_figure() -> None:
    rows = [(w, 1.0, "Ampere", w / 0.5 + 0.05, "A" if w < 3 else "B") for w in (1.0, 2.0, 3.0, 4.0)]
    problem = Problem(
        rows=rows,
        predict=lambda r, cal: _predict(r[:4], cal),
        published=lambda r: r[3],
        architecture=lambda r: r[2],
        publisher=lambda r: r[4],
    )
    result = ablate(
        problem,
        PRIOR,
        free=["tensor_matmul_efficiency", "vector_efficiency"],
        candidates=["tensor_matmul_efficiency", "vector_efficiency"],
    )
    # Holding the matmul efficiency at its prior worsens every left-out publisher: kept. No row
    # depends on the vector efficiency: holding it changes nothing, so it is dropped.
    assert result.dropped == ("vector_efficiency",)
    (matmul, _m, _w), (vector, v_median, _vw) = result.without
    assert (matmul, vector) == ("tensor_matmul_efficiency", "vector_efficiency")
    assert v_median == pytest.approx(result.baseline_median_pct)


def test_the_refinement_runs_from_the_scan_and_from_the_start_and_keeps_the_lower_cost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The coordinate scan never raises the cost, but the local refinement from its point can end in
    # a worse basin than the refinement from the start: both run, the lower cost is kept. A stand-in
    # refinement makes the two outcomes known — from the start it reaches the answer (0.5), from the
    # scan's point it stops at 0.7.
    import types

    import numpy as np
    import scipy.optimize

    begins: list[float] = []

    def refine(fun: object, x: np.ndarray, **kw: object) -> types.SimpleNamespace:
        begins.append(float(x[0]))
        return types.SimpleNamespace(x=np.array([0.5 if x[0] == 0.95 else 0.7]))

    monkeypatch.setattr(scipy.optimize, "least_squares", refine)
    start = dataclasses.replace(PRIOR, tensor_matmul_efficiency=0.95)
    cal = fit(PROBLEM, ROWS[:5], start, free=["tensor_matmul_efficiency"])
    assert len(begins) == 2 and begins[1] == 0.95 and begins[0] != 0.95
    assert cal.tensor_matmul_efficiency == 0.5
