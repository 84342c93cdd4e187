"""When a price holds: a date at the precision its source has, or the bounds of an undated one.

A price's ``as_of`` is ISO 8601 at the precision the source states — a day (``2026-01-21``), a
month (``2023-06``) or a year (``2024``) — or, for a source that carries no date of its own, the
interval ISO 8601 writes with a slash: ``2025-06/2026-12-02`` says "observed at some time between
June 2025 and 2 December 2026" (SkyPilot's catalog files carry no date; what bounds them is named
in the price's source). Nothing is given a precision it does not have.

A price's *age* is counted from the earliest day its ``as_of`` allows (``2023-06`` from 1 June
2023, ``2025-06/2026-12-02`` from 1 June 2025): an old price is never made to look new. A price is
*stale* when that age passes the staleness limit the catalog is opened with.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from gpuplan.vocab import Choice

__all__ = [
    "DEFAULT_STALE_AFTER_DAYS",
    "MAX_STALE_DAYS",
    "AsOf",
    "AsOfPrecision",
    "PriceAge",
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

    @property
    def stale(self) -> bool:
        """Not known to be within the limit: an unknown age is never taken as fresh."""
        return self.staleness != "fresh"


def price_age(as_of: str | None, today: date, limit_days: int) -> PriceAge:
    """The age of a price dated ``as_of`` on ``today`` against ``limit_days`` (the one computation
    the catalog, plan and tco share)."""
    parsed = parse_as_of(as_of)
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
    )
