"""A generated trace's rate given as a mean, a peak or both; a file's timestamps that are not seconds."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gpuplan.errors import InputError
from gpuplan.simulate import Shape, bursty_trace, diurnal_trace, read_trace_csv, step_trace
from gpuplan.simulate.trace import SLOW_GAP_S

DAY = 24 * 3600.0


@pytest.mark.parametrize("gen", [diurnal_trace, bursty_trace, step_trace])
def test_a_mean_and_a_peak_both_hold(gen) -> None:
    tr = gen(Shape(mean_requests_per_s=4.0, peak_requests_per_s=5.0, duration_s=DAY, seed=3))
    assert tr.rate is not None and tr.rate.mean_asked is None
    assert (tr.rate.mean_requests_per_s, tr.rate.peak_requests_per_s) == pytest.approx((4.0, 5.0))
    assert tr.requests / tr.duration_s == pytest.approx(4.0, rel=0.02)
    # the busiest 5 minutes of the drawn arrivals are near the peak, not 1.6× it (a 5-minute count
    # at 5/s is 1,500 ± 39: the largest of a day's 288 lies within 4 σ, +10 %)
    per_5min = np.bincount((tr.arrival_s // 300).astype(int)) / 300
    assert 0.9 * 5.0 < per_5min.max() < 1.15 * 5.0


def test_a_peak_alone_keeps_the_shapes_proportions() -> None:
    # step: base, then 3× base for the second half: peak 6 is base 2, mean (2 + 6) / 2 = 4
    tr = step_trace(Shape(peak_requests_per_s=6.0, duration_s=4000, seed=1))
    assert tr.rate is not None
    assert (tr.rate.mean_requests_per_s, tr.rate.peak_requests_per_s) == pytest.approx((4.0, 6.0))
    # diurnal, peak/trough 4: the mean is the peak × (1 + 1/4) / 2
    day = diurnal_trace(Shape(peak_requests_per_s=8.0, duration_s=DAY))
    assert day.rate is not None
    assert day.rate.mean_requests_per_s == pytest.approx(5.0, rel=1e-3)


def test_a_mean_below_what_the_shape_holds_keeps_the_peak_and_says_so() -> None:
    # the step's lower half at 0 is the least mean under a peak of 6: 3
    tr = step_trace(Shape(mean_requests_per_s=1.0, peak_requests_per_s=6.0, duration_s=4000))
    assert tr.rate is not None
    assert (tr.rate.mean_requests_per_s, tr.rate.peak_requests_per_s) == pytest.approx((3.0, 6.0))
    assert tr.rate.mean_asked == 1.0
    assert not np.any(tr.arrival_s < 1999)  # nothing in the quiet half


@pytest.mark.parametrize(
    ("mean", "peak", "message"),
    [
        (None, None, "give its mean rate, its peak rate or both"),
        (6.0, 5.0, "the mean rate (6) is above the peak rate (5)"),
        (None, -1.0, "must be a positive number, got -1"),
    ],
)
def test_a_rate_that_cannot_be_is_refused(mean: float | None, peak: float | None, message: str) -> None:
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        diurnal_trace(Shape(mean_requests_per_s=mean, peak_requests_per_s=peak, duration_s=3600))


def _ms_trace(path: Path, column: str, origin: int = 0) -> Path:
    # ten minutes of traffic, 3 requests a second, timestamps in milliseconds
    times = np.sort(np.random.default_rng(2).random(1800) * 600_000).round().astype(int) + origin
    path.write_text(f"{column},prompt_tokens,output_tokens\n" + "".join(f"{t},512,256\n" for t in times))
    return path


def test_a_column_named_in_milliseconds_is_read_as_milliseconds(tmp_path: Path) -> None:
    tr = read_trace_csv(_ms_trace(tmp_path / "t.csv", "timestamp_ms"))
    assert tr.duration_s == pytest.approx(600, rel=0.01)
    assert tr.slow_median_gap_s is None


def test_milliseconds_in_a_column_of_seconds_are_flagged_with_the_median_gap(tmp_path: Path) -> None:
    tr = read_trace_csv(_ms_trace(tmp_path / "t.csv", "timestamp"))
    assert tr.duration_s > 150 * 3600  # read as seconds, as the column says
    assert tr.slow_median_gap_s is not None and tr.slow_median_gap_s >= SLOW_GAP_S


def test_a_busy_trace_in_seconds_raises_no_doubt(tmp_path: Path) -> None:
    f = tmp_path / "t.csv"
    f.write_text("timestamp\n" + "".join(f"{i * 0.3:.3f}\n" for i in range(2000)))
    assert read_trace_csv(f).slow_median_gap_s is None


def test_epoch_milliseconds_in_a_column_of_seconds_are_refused_naming_the_column_to_write(
    tmp_path: Path,
) -> None:
    f = _ms_trace(tmp_path / "t.csv", "timestamp", origin=1_700_000_000_000)
    with pytest.raises(InputError, match=r"is not seconds .* name it timestamp_ms"):
        read_trace_csv(f)
    # named as milliseconds, the same numbers are 2023
    tr = read_trace_csv(_ms_trace(tmp_path / "m.csv", "timestamp_ms", origin=1_700_000_000_000))
    assert tr.duration_s == pytest.approx(600, rel=0.01)


def test_a_mean_not_held_is_said_as_the_mean_the_trace_is_drawn_at() -> None:
    # was: "… the peak is kept (the load the plan sizes for) and its quietest time falls to 0", not
    # the mean drawn: a cosine day under a peak of 15 averages at least 15 / 2 = 7.5 (its trough at 0)
    from gpuplan.report.autoscale import trace_rate_lines

    day = diurnal_trace(Shape(mean_requests_per_s=6, peak_requests_per_s=15, duration_s=86_400))
    assert day.rate is not None and day.rate.mean_held == pytest.approx(7.5)
    assert trace_rate_lines(day.name, day.rate, None)[1] == (
        "A diurnal load cannot average 6 requests/s under a peak of 15: the peak is kept (the load the "
        "plan sizes for), and the trace is drawn at a mean of 7.5 requests/s, the lowest such a load "
        "reaches (its quietest time at 0)."
    )
    # its first 4 hours (00:00-04:00, the quiet end of a day busiest at 14:00): the day's mean is
    # still 7.5, and the window drawn averages what its curve does, under a peak it never reaches
    night = diurnal_trace(Shape(mean_requests_per_s=6, peak_requests_per_s=15, duration_s=4 * 3600))
    assert night.rate is not None and night.rate.peak_requests_per_s < 1
    mean = f"{night.rate.mean_requests_per_s:.3g}"
    assert trace_rate_lines(night.name, night.rate, None)[1] == (
        "A diurnal load cannot average 6 requests/s under a peak of 15: the peak is kept (the load the "
        "plan sizes for), and its day is taken at a mean of 7.5 requests/s, the lowest such a day "
        f"reaches (its quietest time at 0); the window drawn averages {mean} requests/s."
    )
