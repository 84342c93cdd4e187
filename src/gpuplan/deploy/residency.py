"""Where a launch may run for the data it reads: never into a region the plan left out for its
countries, and not into one outside mainland China for data in it without a word.

A plan made under ``constraints.countries`` (``--countries CN``: the data stays in mainland China)
recommends only regions in those countries, and a workload file's ``constraints.countries`` are the
plan's: a plan edited by hand to another region, or ``deploy --region`` outside them, is refused
before anything is written. Without a countries constraint, a launch outside mainland China for data
in it (``data.location``) is written with a warning, as the plan's note says it (its rules, their
official texts and how to keep the data in are the plan's note).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpuplan.catalog.region_countries import country_codes_of, region_country
from gpuplan.errors import DeployError
from gpuplan.i18n.messages import N_, _
from gpuplan.i18n.places import place

__all__ = ["MAINLAND_CHINA", "border_warning", "refuse_outside_countries"]

#: ISO 3166 alpha-2 code of mainland China (Hong Kong, Macao and Taiwan have codes of their own).
MAINLAND_CHINA = "CN"


def refuse_outside_countries(
    provider: str | None, region: str | None, doc: Mapping[str, Any], *, source: str, plan: bool
) -> None:
    """DeployError where ``provider/region`` is outside the ``constraints.countries`` of ``doc`` (a
    plan document's ISO codes, or a workload file's names), which the plan leaves out; a region whose
    country is not known is left out too, as the plan leaves it. Nothing where no countries are asked
    for or no region named."""
    constraints = doc.get("constraints")
    countries = constraints.get("countries") if isinstance(constraints, Mapping) else None
    if not isinstance(countries, list) or not countries or not provider or not region:
        return
    codes = list(dict.fromkeys(code for c in countries for code in country_codes_of(str(c))))
    country = region_country(provider, region)
    if country in codes:
        return
    fields = {
        "source": source,
        "where": place(provider, region),
        "country": country or "?",
        "countries": ", ".join(codes),
        "first": codes[0],
    }
    if plan:
        raise DeployError.worded(
            N_(
                "{source}: the recommended option runs in {where} (country {country}), outside the "
                "plan's countries ({countries}), which leave that region out: re-run `gpuplan plan`"
            ),
            **fields,
        )
    raise DeployError.worded(
        N_(
            "--region: {where} (country {country}) is outside the workload's constraints.countries "
            "({countries}), which the plan leaves out; choose a region in them (`gpuplan offers "
            "--countries {first}` lists them) or change constraints.countries"
        ),
        **fields,
    )


def border_warning(provider: str | None, region: str | None, data_location: str | None) -> str:
    """Words for a launch that takes data in mainland China (``data.location``) out of it: the
    region's country is known and is not ``CN``; "" otherwise (an unknown country is not "outside")."""
    if not provider or not region or not data_location or "/" not in data_location:
        return ""
    if region_country(*data_location.split("/", 1)) != MAINLAND_CHINA:
        return ""
    country = region_country(provider, region)
    if not country or country == MAINLAND_CHINA:
        return ""
    return _(
        "the data in {data} leaves mainland China for {where} (country {country}): exporting it is "
        "governed by China's rules on outbound data (a security assessment, and for important data "
        "such as road-camera images of faces or licence plates, storage in China), which `gpuplan plan` "
        "notes with their official texts; to keep it in, plan with constraints.countries: [CN] "
        "(--countries CN)"
    ).format(data=data_location, where=place(provider, region), country=country)
