"""How old a price is, and whether it is past the staleness limit — for every price a plan or a
tco schedule uses.

A price's ``as_of`` may be a whole date (``2026-11-09``), a month (``2026-06``) or a year; it is
read as the *first* day it can mean (``2026-06`` -> 2026-06-01), so the age is never understated.
A price without a date is of unknown age and counts as stale: unknown is never the best case.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from gpuplan.catalog.open_catalog import DEFAULT_STALE_AFTER_DAYS
from gpuplan.i18n import N_, _

__all__ = ["DEFAULT_STALE_AFTER_DAYS", "PriceAge", "age_words", "as_of_date", "price_age"]


def as_of_date(as_of: str | None) -> date | None:
    """The first day an ISO (partial) date stands for; None when there is none or it is unreadable."""
    if not as_of:
        return None
    try:
        parts = [int(p) for p in as_of.strip().split("-")[:3]]
        while len(parts) < 3:
            parts.append(1)
        return date(parts[0], parts[1], parts[2])
    except (ValueError, IndexError):
        return None


@dataclass(frozen=True, kw_only=True)
class PriceAge:
    """The age of one price on the day of the plan."""

    as_of: str
    """As the catalog states it ("" when it states none)."""
    age_days: int | None
    """Days from ``as_of`` (its first possible day) to today; None when the date is unknown."""
    stale: bool
    """Older than ``stale_after_days``, or of unknown date."""
    stale_after_days: int

    def words(self) -> str:
        """``as of 2026-06 (5 months old)``, or ``date unknown``, in the current language."""
        if self.age_days is None:
            return _("date unknown")
        return _("as of {as_of} ({age})").format(as_of=self.as_of, age=age_words(self.age_days))


def age_words(days: int) -> str:
    """``12 days old``, ``5 months old``, ``2.5 years old`` (a month is 30.44 days)."""
    if days < 60:
        return _(_DAYS).format(n=max(days, 0))
    if days < 730:
        return _(_MONTHS).format(n=round(days / 30.44))
    return _(_YEARS).format(n=f"{days / 365.25:.1f}")


_DAYS = N_("{n} days old")
_MONTHS = N_("{n} months old")
_YEARS = N_("{n} years old")


def price_age(as_of: str | None, today: date, stale_after_days: int = DEFAULT_STALE_AFTER_DAYS) -> PriceAge:
    """The age of a price dated ``as_of`` on ``today``.

    e.g. ``2026-06`` on 2026-12-01: 183 days (from 2026-06-01), stale past a 180-day limit.
    """
    day = as_of_date(as_of)
    if day is None:
        return PriceAge(as_of=as_of or "", age_days=None, stale=True, stale_after_days=stale_after_days)
    age = (today - day).days
    return PriceAge(
        as_of=as_of or "", age_days=age, stale=age > stale_after_days, stale_after_days=stale_after_days
    )
