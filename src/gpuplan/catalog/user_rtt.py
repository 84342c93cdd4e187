"""The network round trip between a provider region and a service's users (``serving.users_in``,
``plan --users-in``): what a time-to-first-token or p95 latency target measured at the user adds to
the server's own.

An estimate from distance, not a measurement:

- where: a region at the city its provider names (``data/places.csv``, from GeoNames); where it names
  none a city carries (a province, a country), at its country's most populous city; a country's users
  at that country's most populous city too, which for a large country (US, CN, RU) stands for users
  who may be thousands of km from it;
- distance: the great circle between the two points on a sphere of the IUGG mean Earth radius;
- round trip: twice the distance × :data:`PATH_INFLATION` (how much longer measured Internet paths
  are than the line of sight) at :data:`FIBRE_FRACTION` of the speed of light.

The user's own access network (home broadband, mobile) is not counted: the figure is a backbone
path's, which the user's last mile only lengthens. A region of unknown country or place has no
estimate (None, with the reason), never 0 ms.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources

from gpuplan.catalog.region_countries import region_country
from gpuplan.i18n import N_, _

__all__ = [
    "EARTH_RADIUS_KM",
    "FIBRE_FRACTION",
    "LIGHT_KM_S",
    "PATH_INFLATION",
    "Place",
    "UserRtt",
    "country_place",
    "great_circle_km",
    "method_words",
    "region_place",
    "rtt_ms",
    "user_rtt",
]

#: The speed of light in vacuum, km/s: exact by the SI's definition of the metre (BIPM, "The
#: International System of Units", 9th edition, 2019).
LIGHT_KM_S = 299_792.458
#: The share of that speed light keeps in optical fibre: "roughly 66%" (Stuart Cheshire, "It's the
#: Latency, Stupid", 1996, http://www.stuartcheshire.org/rants/latency.html); the slower end of the
#: 2/3 the networking literature takes, so the round trip is not understated.
FIBRE_FRACTION = 0.66
#: Measured Internet latency over the line-of-sight distance at the speed of light in fibre: "multiply
#: line-of-sight distance by 2.1, then divide by the speed of light in fiber", the rule of thumb
#: earlier measurement campaigns give (I. N. Bozkurt, W. Aqeel, D. Bhattacherjee, B. Chandrasekaran,
#: P. B. Godfrey, G. Laughlin, B. M. Maggs, A. Singla, "Dissecting Latency in the Internet's Fiber
#: Infrastructure", arXiv:1811.10737, 2018-11-26, https://arxiv.org/abs/1811.10737). A median: half
#: the paths measured were slower still.
PATH_INFLATION = 2.1
#: The IUGG mean Earth radius R1, km (H. Moritz, "Geodetic Reference System 1980", Journal of
#: Geodesy 74 (2000) 128-133).
EARTH_RADIUS_KM = 6371.0088

#: How a place was found (``data/places.csv``'s basis column), in words.
_BASIS = {
    "city": N_("the city its provider names"),
    "state_largest_city": N_("the most populous city of the US state its provider names"),
    "largest_city": N_("its country's most populous city"),
}


@dataclass(frozen=True)
class Place:
    """A point a region or a country's users are taken to be at."""

    name: str
    latitude: float
    longitude: float
    basis: str
    """``city``, ``state_largest_city`` or ``largest_city`` (see ``data/places.csv``)."""
    source: str

    @property
    def basis_words(self) -> str:
        return _(_BASIS[self.basis])


@dataclass(frozen=True)
class UserRtt:
    """The round trip from one region to the farthest of the users' countries."""

    rtt_ms: float | None
    """None: not estimated (``unknown`` says why)."""
    country: str = ""
    """The farthest users' country (ISO 3166 alpha-2)."""
    distance_km: float | None = None
    region_at: Place | None = None
    users_at: Place | None = None
    unknown: str = ""


@cache
def _places() -> dict[str, Place]:
    text = resources.files("gpuplan.catalog").joinpath("data/places.csv").read_text(encoding="utf-8")
    rows = csv.DictReader(line for line in text.splitlines() if not line.startswith("#"))
    return {
        r["key"]: Place(r["place"], float(r["latitude"]), float(r["longitude"]), r["basis"], r["source"])
        for r in rows
    }


def country_place(code: str) -> Place | None:
    """Where a country's users are taken to be: its most populous city (None: not in the table)."""
    return _places().get(code.upper())


def region_place(provider: str, region: str, country: str = "") -> Place | None:
    """Where a region is taken to be: the city its provider names, else its country's most populous
    city (``country``: the offer's, where the catalog carries one); None where neither is known (no
    country, or one not in the table)."""
    found = _places().get(f"{provider}/{region}")
    if found is not None:
        return found
    country = country or region_country(provider, region)
    return country_place(country) if country else None


def great_circle_km(a: Place, b: Place) -> float:
    """The great-circle distance between two places (haversine), km."""
    la1, lo1, la2, lo2 = map(math.radians, (a.latitude, a.longitude, b.latitude, b.longitude))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(h)))


def rtt_ms(distance_km: float) -> float:
    """The round trip over ``distance_km`` of line of sight: there and back, × the measured path
    inflation, at the speed of light in fibre, ms."""
    return 2 * distance_km * PATH_INFLATION / (FIBRE_FRACTION * LIGHT_KM_S) * 1000.0


def user_rtt(provider: str, region: str, countries: tuple[str, ...], country: str = "") -> UserRtt:
    """The round trip from ``provider``'s ``region`` (in ``country`` where the catalog says so) to the
    farthest of ``countries`` (ISO codes)."""
    at = region_place(provider, region, country)
    if at is None:
        return UserRtt(None, unknown=_("where region {region} is, is not known").format(region=region))
    far: UserRtt | None = None
    for code in countries:
        users = country_place(code)
        if users is None:
            return UserRtt(
                None, unknown=_("where the users in {country} are, is not known").format(country=code)
            )
        km = great_circle_km(at, users)
        if far is None or far.distance_km is None or km > far.distance_km:
            far = UserRtt(rtt_ms(km), country=code, distance_km=km, region_at=at, users_at=users)
    return far if far is not None else UserRtt(None, unknown=_("no users' country given"))


def method_words() -> str:
    """How the round trip is estimated, in one clause."""
    return _(
        "great-circle distance × {inflation:g} (measured Internet paths over the line of sight, Bozkurt "
        "et al. 2018) at {fibre:.0%} of the speed of light (in fibre), there and back; the users' own "
        "access network not counted"
    ).format(inflation=PATH_INFLATION, fibre=FIBRE_FRACTION)
