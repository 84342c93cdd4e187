"""Units shared by every layer: the billing month, and durations written for people."""

from __future__ import annotations

from gpuplan.i18n.numbers import format_hours

__all__ = ["HOURS_PER_MONTH", "format_hours"]

#: Hours in a billing month, to turn monthly prices into hourly ones and back.
#: 730 = 8760 h / 12, the convention AWS, Azure and GCP price calculators use.
HOURS_PER_MONTH = 730.0
