"""The memory band from grouped residuals (``gpuplan.calibration.memory_band``), with the arithmetic
in view: each publisher weighs as much as any other, and coverage is judged publisher by publisher."""

from __future__ import annotations

import math

import pytest

from gpuplan.calibration.memory_band import MIN_BAND, MemoryResidual, estimate_term, grouped_memory_band
from gpuplan.calibration.publisher_cases import v2_cases


def _r(publisher: str, error: float) -> MemoryResidual:
    """A figure ``error`` (relative) off: estimated (1 + error) × 10 GiB against 10 published."""
    return MemoryResidual(
        publisher=publisher,
        label=f"{publisher} {error:+.2f}",
        term="peak_allocated_gib",
        estimated_gib=10.0 * (1.0 + error),
        published_gib=10.0,
        verdict="fits",
    )


def test_each_publisher_weighs_alike_however_many_rows_it_published() -> None:
    # Eight close rows from A, two 30 % off from B. Pooled, B's rows are 2 of 10 and the 80th
    # percentile stays in A's range (the 1.05 floor); weighted, B holds half the weight and sets it.
    rows = [_r("A", 0.02)] * 8 + [_r("B", 0.30)] * 2
    band = grouped_memory_band(rows)
    assert band.factor == pytest.approx(1.30)
    assert band.coverage == 1.0


def test_coverage_is_judged_with_each_publishers_band_built_without_it() -> None:
    rows = [_r("A", 0.02)] * 4 + [_r("B", -0.10)] * 4
    band = grouped_memory_band(rows)
    per = {p: (n, without, inside) for p, n, _median, without, inside in band.per_publisher}
    # A's rows alone give the floor (1.05): B's -10 % rows fall outside it; B's band (×1.111)
    # covers A's +2 %.
    assert per["A"][1] == pytest.approx(1.0 / 0.9) and per["A"][2] == 1.0
    assert per["B"][1] == MIN_BAND and per["B"][2] == 0.0
    assert band.heldout_coverage == pytest.approx(0.5)


def test_one_publisher_has_no_held_out_coverage_to_give() -> None:
    band = grouped_memory_band([_r("A", 0.05), _r("A", -0.15), _r("A", 0.01)])
    assert band.heldout_coverage is None
    assert band.per_publisher[0][3] is None and band.per_publisher[0][4] is None
    assert band.factor == pytest.approx(math.exp(abs(math.log(0.85))))


def test_the_published_term_is_the_estimates_same_quantity() -> None:
    assert estimate_term("nvidia-smi (FlagPerf's monitor)") == "nvidia_smi_gib"
    assert estimate_term("torch.cuda.max_memory_reserved") == "reserved_gib"
    assert estimate_term("Mem Max allocated (torch.cuda.max_memory_allocated)") == "peak_allocated_gib"


def test_atorch_memory_is_not_claimed_a_process_lifetime_peak() -> None:
    cases, _skipped, _digest = v2_cases()
    atorch = [c for c in cases if "ATorch" in c.label]
    assert len(atorch) == 8
    assert all(not c.memory_as_run and "since start" in c.memory_why for c in atorch)
