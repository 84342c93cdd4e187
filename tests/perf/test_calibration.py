"""The shipped calibration: fresh for its data, reproducible from the cached traces, within bounds.

Targets (issue #3): median |throughput error| ≤ 10 %, none worse than 30 %, memory within 10 %.
The fit reaches a median of 9.4 % and a worst of 27.6 % (BERT pre-training phase 1, which runs
NVIDIA's fused kernels and scores the MLM head on masked positions only) over 16 fitted rows; the
thresholds below are the targets, which the fit meets, so that a regression fails. Two BERT SQuAD
inference rows are compared but not fitted: their timed loop includes per-sequence
device-to-host copies (``perf/fit.py`` says why).
"""

from __future__ import annotations

import hashlib
import json
import statistics
from pathlib import Path

import pytest

from gpuplan.perf.calibration import PRIOR, Calibration, load_calibration
from gpuplan.perf.estimate import time_spread
from gpuplan.perf.fit import CalibrationCase, load_cases, predict, with_band
from gpuplan.profile.model import Profile

PROFILES = Path(__file__).parent / "fixtures" / "profiles"


def _pairs() -> list[tuple[CalibrationCase, Profile]]:
    cases, _ = load_cases()
    out = []
    for case in cases:
        digest = hashlib.sha256(json.dumps(case.workload, sort_keys=True).encode()).hexdigest()[:16]
        name = f"{case.workload['name']}-{digest}.json".replace(" ", "_").replace("(", "").replace(")", "")
        out.append((case, Profile.from_json((PROFILES / name).read_text(encoding="utf-8"))))
    return out


def test_shipped_calibration_is_fitted_on_the_shipped_data() -> None:
    cal = load_calibration()
    _, digest = load_cases()
    assert cal.fitted_on, "perf/calibration.json missing: run benchmarks/calibrate.py"
    assert cal.data_sha256 == digest, "calibration data changed since the fit: rerun benchmarks/calibrate.py"


def test_recorded_predictions_reproduce_from_cached_profiles() -> None:
    cal = load_calibration()
    rows = {r.label.split(" — ")[0]: r for r in cal.rows}
    for case, prof in _pairs():
        assert predict(case, prof, cal) == pytest.approx(rows[case.label].predicted, rel=1e-9)


def test_throughput_errors_stay_within_the_fitted_bounds() -> None:
    cal = load_calibration()
    errors = [abs(r.error_pct) for r in cal.rows if r.used_in_fit and r.metric != "peak_mem_gib"]
    assert len(errors) >= 15
    assert statistics.median(errors) <= 10.0  # achieved 9.4
    assert max(errors) <= 30.0  # achieved 27.6


def test_fitted_memory_rows_within_ten_percent() -> None:
    mem = [r for r in load_calibration().rows if r.metric == "peak_mem_gib" and r.used_in_fit]
    assert mem
    assert all(abs(r.error_pct) <= 10.0 for r in mem)


def test_fit_beats_the_literature_prior() -> None:
    pairs = _pairs()
    fitted = load_calibration()
    prior = with_band(PRIOR, pairs, fitted_on="", data_sha256="")

    def med(c: Calibration) -> float:
        return statistics.median(
            abs(r.log_error) for r in c.rows if r.used_in_fit and r.metric != "peak_mem_gib"
        )

    assert med(fitted) < med(prior)


def test_ranges_cover_most_published_rows() -> None:
    # the band from residuals ⊕ software spread must contain the published figure for ≥ 80 % of rows
    cal = load_calibration()
    faster, slower = time_spread(cal)
    rows = [r for r in cal.rows if r.metric != "peak_mem_gib"]
    inside = [r.predicted / slower <= r.published <= r.predicted * faster for r in rows]
    assert sum(inside) / len(inside) >= 0.8
