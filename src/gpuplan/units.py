"""Units shared by every layer: the billing month, and durations written for people."""

from __future__ import annotations

import math

__all__ = ["HOURS_PER_MONTH", "format_hours"]

#: Hours in a billing month, to turn monthly prices into hourly ones and back.
#: 730 = 8760 h / 12, the convention AWS, Azure and GCP price calculators use.
HOURS_PER_MONTH = 730.0


def format_hours(hours: float) -> str:
    """A duration in hours for people: seconds, minutes, hours or days, as fits (``?`` if unknown)."""
    if not math.isfinite(hours):
        return "?"
    if hours < 1 / 60:
        return f"{hours * 3600:.0f} s"
    if hours < 1:
        return f"{hours * 60:.0f} min"
    return f"{hours:.1f} h" if hours < 48 else f"{hours / 24:.1f} d"
