"""Countries under broad US or EU sanctions or export restrictions that bear on paying for compute
there: each option in one carries the official pages (``Option.sanctions``) and the plan says, once,
to check before paying and how to keep such places out (``--countries``). Nothing is excluded and
nothing is judged: whether a rental is allowed depends on who pays, what is sent and the licences
held, which gpuplan cannot know. A marketplace's region is its host's country, so its host may be
anywhere in it.

The pages, as read on 2026-12-07:

- US Department of the Treasury, Office of Foreign Assets Control (OFAC), "Where is OFAC's Country
  List? What countries do I need to worry about in terms of U.S. sanctions?",
  https://ofac.treasury.gov/sanctions-programs-and-country-information/where-is-ofacs-country-list-what-countries-do-i-need-to-worry-about-in-terms-of-us-sanctions
  (OFAC keeps no list of countries; some programs are "broad-based and oriented geographically
  (i.e. Cuba, Iran)"; each program is on its "Sanctions Programs and Country Information" page,
  https://ofac.treasury.gov/sanctions-programs-and-country-information);
- OFAC, "Russian Harmful Foreign Activities Sanctions",
  https://ofac.treasury.gov/sanctions-programs-and-country-information/russian-harmful-foreign-activities-sanctions;
- US Department of Commerce, Bureau of Industry and Security (BIS), 15 CFR part 746 "Embargoes and
  Other Special Controls", https://www.bis.gov/title-15/subtitle-b/chapter-vii/subchapter-c/part-746:
  § 746.1(a) (as amended 90 FR 42320, 2025-09-02) names the "countries subject to general embargoes
  or comprehensive sanctions, currently Cuba, Iran, and Syria"; § 746.4 North Korea; § 746.6 the
  temporarily occupied Crimea region of Ukraine; § 746.7 Iran; § 746.8 Russia and Belarus;
- European Commission, "Sanctions adopted following Russia's military aggression against Ukraine",
  https://finance.ec.europa.eu/eu-and-world/sanctions-restrictive-measures/sanctions-adopted-following-russias-military-aggression-against-ukraine_en
  (Russia; Belarus; Crimea and Sevastopol and the non-government controlled areas of the Donetsk and
  Luhansk oblasts of Ukraine), with every EU regime on the EU Sanctions Map, https://www.sanctionsmap.eu/.

Ukraine is listed for its occupied regions only: the catalog gives a host's country, not its city.
"""

from __future__ import annotations

from collections.abc import Sequence

from gpuplan.i18n import _
from gpuplan.i18n.countries import country_name
from gpuplan.i18n.phrases import item_list
from gpuplan.i18n.places import place
from gpuplan.plan.result import Option

__all__ = ["EU_MAP", "SANCTIONED", "sanctions_note", "sanctions_of"]

_OFAC = "OFAC, Sanctions Programs and Country Information, https://ofac.treasury.gov/sanctions-programs-and-country-information"
_OFAC_RU = (
    "OFAC, Russian Harmful Foreign Activities Sanctions, "
    "https://ofac.treasury.gov/sanctions-programs-and-country-information/russian-harmful-foreign-activities-sanctions"
)
_BIS = "BIS, 15 CFR part 746 {section}, https://www.bis.gov/title-15/subtitle-b/chapter-vii/subchapter-c/part-746"
_EU_RU = (
    "European Commission, Sanctions adopted following Russia's military aggression against Ukraine, "
    "https://finance.ec.europa.eu/eu-and-world/sanctions-restrictive-measures/"
    "sanctions-adopted-following-russias-military-aggression-against-ukraine_en"
)
#: Every EU regime, by country.
EU_MAP = "EU Sanctions Map, https://www.sanctionsmap.eu/"

#: ISO 3166 alpha-2 code -> the official pages that restrict it (read 2026-12-07; module docstring).
SANCTIONED: dict[str, tuple[str, ...]] = {
    "BY": (_BIS.format(section="§ 746.8"), _EU_RU),
    "CU": (_OFAC, _BIS.format(section="§ 746.1(a), § 746.2")),
    "IR": (_OFAC, _BIS.format(section="§ 746.1(a), § 746.7")),
    "KP": (_OFAC, _BIS.format(section="§ 746.4")),
    "RU": (_OFAC_RU, _BIS.format(section="§ 746.8"), _EU_RU),
    "SY": (_OFAC, _BIS.format(section="§ 746.1(a)")),
    # the occupied regions only (Crimea, Sevastopol, parts of Donetsk and Luhansk)
    "UA": (_BIS.format(section="§ 746.6"), _EU_RU),
}

#: Countries restricted in some regions only: the note says so.
_REGIONS_ONLY = frozenset({"UA"})


def sanctions_of(country: str) -> tuple[str, ...]:
    """The official pages that restrict ``country`` (ISO code), each with its publisher and URL;
    empty where none is known to gpuplan (an unknown country is not taken as clear: the plan's
    other notes say it is not known)."""
    return SANCTIONED.get(country.upper(), ()) if country else ()


def sanctions_note(options: Sequence[Option]) -> str:
    """One note naming the places among ``options`` (the recommended, the listed, the Pareto front)
    in a country under broad US or EU sanctions or export restrictions, with the pages to check and
    how to keep them out; "" where none is."""
    places: list[str] = []
    countries: list[str] = []
    pages: list[str] = []
    for o in options:
        if not o.sanctions:
            continue
        if (where := place(o.provider, o.region)) not in places:
            places.append(where)
        if o.country not in countries:
            countries.append(o.country)
        pages.extend(p for p in o.sanctions if p not in pages)
    if not places:
        return ""
    named = item_list(
        _(
            "{country} (only its occupied regions are restricted; the catalog does not say where in it the "
            "host is)"
        ).format(country=country_name(c))
        if c in _REGIONS_ONLY
        else country_name(c)
        for c in countries
    )
    return _(
        "check before paying: {places} ({countries}): in a country under broad US or EU sanctions or "
        "export restrictions; paying a provider or host there, or sending it your data, may be prohibited or "
        "need a licence, depending on who pays and what is sent. gpuplan does not judge this and this "
        "is not legal advice: ask whoever handles your export compliance. See {pages}; {eu_map}. To keep "
        "them out, plan with --countries (for example --countries US,EU)"
    ).format(places=item_list(places), countries=named, pages=_("; ").join(pages), eu_map=EU_MAP)
