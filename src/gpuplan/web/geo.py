"""Where a country is on the dashboard's map: the principal city of its first time zone in the IANA
time zone database's ``zone.tab`` (public domain; https://www.iana.org/time-zones, the copy this
machine's tzdata installs, e.g. ``/usr/share/zoneinfo/zone.tab``), so the map needs no map data of
its own. A dot marks a country, not a region's data centre. Without that file the map says so and
the table stays.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

__all__ = ["ZONE_TAB", "country_points"]

#: Where Debian's tzdata (and most Linux images) keep zone.tab.
ZONE_TAB = (Path("/usr/share/zoneinfo/zone.tab"), Path("/usr/share/zoneinfo/tzdata.zi"))
_COORD = re.compile(r"^([+-])(\d{2})(\d{2})(\d{2})?([+-])(\d{3})(\d{2})(\d{2})?$")


def _degrees(sign: str, d: str, m: str, s: str | None) -> float:
    value = int(d) + int(m) / 60 + (int(s) / 3600 if s else 0)
    return value if sign == "+" else -value


@cache
def country_points(path: Path = ZONE_TAB[0]) -> dict[str, tuple[float, float]]:
    """ISO 3166 alpha-2 code → (latitude, longitude) of its first zone's city; {} without the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return {}
    points: dict[str, tuple[float, float]] = {}
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) < 3 or parts[0] in points:
            continue
        m = _COORD.match(parts[1])
        if m is None:
            continue
        lat = _degrees(m.group(1), m.group(2), m.group(3), m.group(4))
        lon = _degrees(m.group(5), m.group(6), m.group(7), m.group(8))
        points[parts[0]] = (round(lat, 3), round(lon, 3))
    return points
