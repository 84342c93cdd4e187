"""The day a service's load is taken to follow where only its mean and peak are known: one cosine
over 24 h, fitted to the mean and the peak.

``gpuplan simulate`` draws its generated diurnal traces from this curve, and ``gpuplan tco`` prices a
service as the replicas this curve needs at each minute of its day, so that the two see the same day.

The curve is ``1 + amp × cos(2π (t − peak_hour) / 24 h)``, peak/trough ``peak_to_trough`` (4 unless
given: a day whose quietest hour carries a quarter of its busiest). With a mean and a peak both
given, its floor and height are set so that both hold; a mean below what the curve can reach under
the peak (its quietest time at 0) keeps the peak, the load the plan sizes for, and raises the mean
(:func:`fit_level`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gpuplan.i18n import N_, _

#: The days of the week as a schedule writes them, Monday first (``datetime.weekday``'s order).
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
#: The same days said in a sentence, marked for translation: the schedule's own words in English
#: (``mon``), the reader's in Chinese (周一).
_DAY_WORDS = (N_("mon"), N_("tue"), N_("wed"), N_("thu"), N_("fri"), N_("sat"), N_("sun"))
# TRANSLATORS: a schedule's run of days, "mon-fri"; Chinese "{first}至{last}" (周一至周五)
_DAY_RANGE = N_("{first}-{last}")
# TRANSLATORS: between the days of a schedule listed one by one, "mon,wed,fri"; Chinese 、
_DAY_SEPARATOR = N_("{days},{day}")
# TRANSLATORS: a service's schedule, "09:00-19:00 mon-fri (Asia/Shanghai)"; the zone in brackets
_SCHEDULE_SAID = N_("{hours} {days} ({zone})")

__all__ = [
    "DAY_S",
    "DIURNAL_PEAK_HOUR",
    "DIURNAL_PEAK_TO_TROUGH",
    "WEEKDAYS",
    "DayRate",
    "LoadDay",
    "Schedule",
    "cosine_level",
    "diurnal_day_rate",
    "fit_level",
]

#: Seconds in a day.
DAY_S = 86_400.0
#: The generated day's busiest hour (14:00) and its peak over its quietest hour: the shape
#: ``simulate``'s diurnal trace draws unless told otherwise.
DIURNAL_PEAK_HOUR = 14.0
DIURNAL_PEAK_TO_TROUGH = 4.0


def cosine_level(t_s: np.ndarray, peak_to_trough: float, peak_hour: float) -> np.ndarray:
    """The day's proportions at ``t_s`` seconds from midnight (any scale: :func:`fit_level` fits it)."""
    amp = (peak_to_trough - 1) / (peak_to_trough + 1)
    return 1 + amp * np.cos(2 * math.pi * (t_s / 3600 - peak_hour) / 24)


def fit_level(
    level: np.ndarray, mean: float | None, peak: float | None, basis: np.ndarray | None = None
) -> tuple[np.ndarray, float]:
    """The rate per bin: ``level`` (the shape's proportions) fitted to a mean and a peak, and the mean
    the fitted shape holds (``basis``'s, the whole shape, where ``level`` is a window of it).

    With only a mean, the shape keeps its proportions; with only a peak (or a flat shape), too, its
    highest point at the peak. With both, the rate is ``floor + height × g``, g the level rescaled
    to [0, 1]: the floor and height are the two unknowns the mean and the peak fix. A mean below
    ``peak × mean(g)`` would need a floor below zero: the peak wins (it is the load the plan sizes
    for), the floor is 0 and the mean held is higher than the one asked.
    """
    whole = level if basis is None else basis
    lo, hi = float(whole.min()), float(whole.max())
    if peak is None:
        if mean is None:
            raise ValueError("a mean, a peak or both")
        return mean * level / whole.mean(), mean
    if mean is None or hi - lo <= 1e-12 * hi:
        return peak * level / hi, peak * float(whole.mean()) / hi
    g_mean = (float(whole.mean()) - lo) / (hi - lo)
    floor = max(0.0, peak - (peak - mean) / (1 - g_mean))
    return floor + (peak - floor) * (level - lo) / (hi - lo), floor + (peak - floor) * g_mean


@dataclass(frozen=True, kw_only=True)
class DayRate:
    """A day's request rate, minute by minute, fitted to a mean and a peak."""

    rate_per_minute: np.ndarray
    """Requests/s in each minute of the day (1,440 of them)."""
    mean_held: float
    """The mean of that day, requests/s."""
    mean_asked: float | None
    """A mean asked for that the shape cannot hold under the peak (the peak kept, the mean raised
    to ``mean_held``); None where it holds."""


def diurnal_day_rate(mean: float | None, peak: float | None) -> DayRate:
    """The generated diurnal day (:data:`DIURNAL_PEAK_HOUR`, :data:`DIURNAL_PEAK_TO_TROUGH`) fitted
    to ``mean`` and ``peak``, minute by minute: the rate ``simulate``'s diurnal trace draws from."""
    dt = 60.0
    day = np.arange(0.0, DAY_S, dt) + dt / 2
    level = cosine_level(day, DIURNAL_PEAK_TO_TROUGH, DIURNAL_PEAK_HOUR)
    rate, held = fit_level(level, mean, peak)
    asked = mean if mean is not None and not math.isclose(held, mean) else None
    return DayRate(rate_per_minute=rate, mean_held=held, mean_asked=asked)


@dataclass(frozen=True, kw_only=True)
class LoadDay:
    """A service's day as its team knows it (``serving.day``): requests/s at times of day, linear
    between consecutive points, the last leading to the first at midnight."""

    points: tuple[tuple[int, float], ...]
    """(minutes after midnight, requests/s), sorted by time, at least two, the times distinct."""

    def rate(self) -> DayRate:
        """The day minute by minute: the rate at each minute's middle, which for a line between whole
        minutes is the minute's own mean, so the minutes' mean is the day's."""
        t = np.array([m for m, _r in self.points], dtype=float)
        r = np.array([r for _m, r in self.points], dtype=float)
        minute = np.arange(1440) + 0.5
        rate = np.interp(minute, t, r, period=1440.0)
        return DayRate(rate_per_minute=rate, mean_held=float(rate.mean()), mean_asked=None)

    @property
    def mean(self) -> float:
        """The day's mean, requests/s."""
        return self.rate().mean_held

    @property
    def highest(self) -> float:
        """Its highest rate, requests/s (a point's: the day is linear between them)."""
        return max(r for _m, r in self.points)

    def scaled(self, scale: float) -> LoadDay:
        """The same day with every rate × ``scale``."""
        return LoadDay(points=tuple((m, r * scale) for m, r in self.points))

    @property
    def said(self) -> str:
        """``00:00 3, 19:30 3, 20:00 40``: its points, requests/s at each time, listed as the current
        language lists (Chinese: 00:00 3、19:30 3、20:00 40)."""
        from gpuplan.i18n.phrases import item_list

        return item_list(f"{m // 60:02d}:{m % 60:02d} {r:g}" for m, r in self.points)


@dataclass(frozen=True, kw_only=True)
class Schedule:
    """The hours a service runs (``serving.schedule``): from ``start_min`` to ``end_min`` minutes
    after midnight, on ``weekdays`` (0 Monday … 6 Sunday), in the IANA time zone ``zone``; no replica
    runs outside them."""

    start_min: int
    end_min: int
    weekdays: tuple[int, ...]
    zone: str

    def week_minutes(self) -> np.ndarray:
        """Each minute of a week, Monday 00:00 first, local time: True where the schedule runs."""
        on = np.zeros(7 * 1440, dtype=bool)
        for d in self.weekdays:
            on[d * 1440 + self.start_min : d * 1440 + self.end_min] = True
        return on

    @property
    def hours_per_week(self) -> float:
        """The hours a week it runs."""
        return len(self.weekdays) * (self.end_min - self.start_min) / 60.0

    @property
    def hours_text(self) -> str:
        """``09:00-19:00``."""
        (h0, m0), (h1, m1) = divmod(self.start_min, 60), divmod(self.end_min, 60)
        return f"{h0:02d}:{m0:02d}-{h1:02d}:{m1:02d}"

    @property
    def days_text(self) -> str:
        """``mon-fri``, or the days one by one (``mon,wed,fri``), as a file writes them (the JSON's
        ``days``)."""
        return self._days(WEEKDAYS, "{first}-{last}", ",")

    @property
    def days_said(self) -> str:
        """The days in a sentence, in the current language: :attr:`days_text` in English, 周一至周五
        or 周一、周三、周五 in Chinese (a Chinese sentence had said "mon-fri")."""
        return self._days(
            tuple(_(d) for d in _DAY_WORDS), _(_DAY_RANGE), _(_DAY_SEPARATOR).format(days="", day="")
        )

    def _days(self, names: tuple[str, ...], run: str, separator: str) -> str:
        days = sorted(self.weekdays)
        if len(days) > 2 and days == list(range(days[0], days[-1] + 1)):
            return run.format(first=names[days[0]], last=names[days[-1]])
        return separator.join(names[d] for d in days)

    @property
    def said(self) -> str:
        """``09:00-19:00 mon-fri (Asia/Shanghai)``, in the current language (Chinese:
        ``09:00-19:00 周一至周五（Asia/Shanghai）``)."""
        return _(_SCHEDULE_SAID).format(hours=self.hours_text, days=self.days_said, zone=self.zone)
