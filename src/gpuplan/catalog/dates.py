"""When a price holds: a date at the precision its source has, or the bounds of an undated one.

A price's ``as_of`` is ISO 8601 at the precision the source states — a day (``2026-01-21``), a
month (``2023-06``) or a year (``2024``) — or, for a source that carries no date of its own, the
interval ISO 8601 writes with a slash: ``2025-06/2026-12-02`` says "observed at some time between
June 2025 and 2 December 2026" (SkyPilot's catalog files carry no date; what bounds them is named
in the price's source). Nothing is given a precision it does not have.

A price's *age* is counted from the earliest day its ``as_of`` allows (``2023-06`` from 1 June
2023, ``2025-06/2026-12-02`` from 1 June 2025): an old price is never made to look new. A price is
*stale* when that age passes the staleness limit the catalog is opened with.

An undated price cannot be older than its GPU: where the GPU's launch month
(:attr:`gpuplan.hardware.GPU.launched`) falls inside the interval, the price's earliest day is the
first day of that month (an L20 price bounded ``2020-11/2026-12-03`` is at most as old as the L20,
launched 2023-11). A GPU without a sourced launch month leaves the interval as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date
from functools import lru_cache

from gpuplan.vocab import Choice

__all__ = [
    "DEFAULT_STALE_AFTER_DAYS",
    "MAX_STALE_DAYS",
    "AsOf",
    "AsOfPrecision",
    "PriceAge",
    "bound_by_launch",
    "launch_bound",
    "parse_as_of",
    "price_age",
]

#: A price older than this many days is flagged ``stale``: the one limit the catalog, ``plan`` and
#: ``tco`` judge prices by (``--stale-days`` sets another for a catalog opened with it).
DEFAULT_STALE_AFTER_DAYS = 180
#: The longest limit a user may set: a century (every dated price is younger; a larger figure is a
#: typo).
MAX_STALE_DAYS = 36_500

_PART = r"\d{4}(?:-(?:0[1-9]|1[0-2])(?:-(?:0[1-9]|[12]\d|3[01]))?)?"
_AS_OF = re.compile(rf"^({_PART})(?:/({_PART}))?$")


class AsOfPrecision(Choice):
    """How precisely ``as_of`` dates a price."""

    DAY = "day"
    MONTH = "month"
    YEAR = "year"
    BOUNDED = "bounded"
    """Only bounds are known (``2025-06/2026-12-02``): the source carries no date."""


def _first_day(part: str) -> date:
    bits = [int(b) for b in part.split("-")]
    return date(bits[0], bits[1] if len(bits) > 1 else 1, bits[2] if len(bits) > 2 else 1)


def _last_day(part: str) -> date:
    bits = [int(b) for b in part.split("-")]
    if len(bits) == 3:
        return date(*bits)
    if len(bits) == 2:
        year, month = bits
        nxt = date(year + (month == 12), month % 12 + 1, 1)
        return date.fromordinal(nxt.toordinal() - 1)
    return date(bits[0], 12, 31)


@dataclass(frozen=True)
class AsOf:
    """A parsed ``as_of``: the earliest and latest day it allows, and its precision."""

    text: str
    earliest: date
    """The first day the price may date from: ages are counted from here."""
    latest: date
    """The last day it may date from (the same day for a day-precise date)."""
    precision: AsOfPrecision
    launched: str | None = None
    """The GPU's launch month (``YYYY-MM``) where it, not the source, gave ``earliest``
    (:func:`bound_by_launch`); None otherwise."""

    def age_days(self, today: date) -> int:
        """Days from the earliest day it allows to ``today`` (never negative)."""
        return max(0, (today - self.earliest).days)

    def label(self) -> str:
        """How tables show it: the text itself, an interval with an en dash (``2025-06–2026-12-02``)."""
        return self.text.replace("/", "–")


@lru_cache(maxsize=4096)  # a catalog has a few hundred distinct dates over ~20,000 prices
def parse_as_of(text: str | None) -> AsOf | None:
    """The parsed ``as_of`` (ISO date at day, month or year precision, or an ``earliest/latest``
    interval whose ends are such dates in order), or None when ``text`` is not one."""
    if not text:
        return None
    m = _AS_OF.match(text.strip())
    if m is None:
        return None
    start, end = m[1], m[2]
    try:
        earliest = _first_day(start)
        latest = _last_day(end or start)
    except ValueError:  # 2026-02-30
        return None
    if latest < earliest:
        return None
    if end is not None:
        precision = AsOfPrecision.BOUNDED
    else:
        precision = {1: AsOfPrecision.YEAR, 2: AsOfPrecision.MONTH}.get(
            start.count("-") + 1, AsOfPrecision.DAY
        )
    return AsOf(text=text.strip(), earliest=earliest, latest=latest, precision=precision)


def bound_by_launch(parsed: AsOf, launched: str | None) -> AsOf:
    """``parsed`` with its earliest day raised to the first day of ``launched`` (the GPU's launch
    month, ``YYYY-MM``) where that falls inside an undated price's interval: no price of a GPU is
    older than the GPU. A dated price (a day, a month, a year) keeps its own date; a launch after
    the interval's last day contradicts the source and is not used (the source's bound stands)."""
    if launched is None or parsed.precision is not AsOfPrecision.BOUNDED:
        return parsed
    launch = parse_as_of(launched)
    if launch is None or not parsed.earliest < launch.earliest <= parsed.latest:
        return parsed
    return replace(parsed, earliest=launch.earliest, launched=launched)


def launch_bound(as_of: str | None, launched: str | None) -> str | None:
    """``launched`` where it bounds the age of a price dated ``as_of`` (:func:`bound_by_launch`);
    None where ``as_of`` does itself, or is not readable."""
    parsed = parse_as_of(as_of)
    return None if parsed is None else bound_by_launch(parsed, launched).launched


@dataclass(frozen=True, kw_only=True)
class PriceAge:
    """How old a price dated ``as_of`` is on a day, judged against a staleness limit."""

    precision: AsOfPrecision | None
    """None when ``as_of`` is missing or unreadable."""
    age_days: int | None
    """The oldest the price can be (from the earliest day ``as_of`` allows): the age to judge it by."""
    age_min_days: int | None
    """The youngest it can be (from the latest day ``as_of`` allows)."""
    staleness: str
    """``fresh`` (within the limit even at its oldest), ``stale`` (beyond it even at its youngest) or
    ``unknown`` (the bounds straddle the limit, or there is no readable date)."""
    stale_after_days: int
    launched: str | None = None
    """The GPU's launch month where it bounds ``age_days`` (the source's own interval reaching
    further back); None otherwise."""

    @property
    def stale(self) -> bool:
        """Not known to be within the limit: an unknown age is never taken as fresh."""
        return self.staleness != "fresh"


def price_age(as_of: str | None, today: date, limit_days: int, launched: str | None = None) -> PriceAge:
    """The age of a price dated ``as_of`` on ``today`` against ``limit_days`` (the one computation
    the catalog, plan and tco share); ``launched``: the launch month of the price's GPU, which
    bounds an undated price's earliest day (:func:`bound_by_launch`)."""
    parsed = parse_as_of(as_of)
    if parsed is not None:
        parsed = bound_by_launch(parsed, launched)
    if parsed is None:
        return PriceAge(
            precision=None, age_days=None, age_min_days=None, staleness="unknown", stale_after_days=limit_days
        )
    oldest, youngest = parsed.age_days(today), max(0, (today - parsed.latest).days)
    staleness = "fresh" if oldest <= limit_days else "stale" if youngest > limit_days else "unknown"
    return PriceAge(
        precision=parsed.precision,
        age_days=oldest,
        age_min_days=youngest,
        staleness=staleness,
        stale_after_days=limit_days,
        launched=parsed.launched,
    )
