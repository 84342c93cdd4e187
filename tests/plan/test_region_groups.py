"""The UN's geographic regions as groups of countries (M49, https://unstats.un.org/unsd/methodology/m49/):
``--countries Asia`` (``亚洲``) keeps a plan to Asia's countries, as ``EU`` keeps it to the EU's 27.

``--countries Asia`` had answered "did you mean 'austria' or 'syria' or 'malaysia'?": the EU was the
only group of countries read."""

from __future__ import annotations

import json
from pathlib import Path

import pycountry
import pytest

from gpuplan.i18n.countries import (
    EU_MEMBERS,
    M49_AFRICA,
    M49_AMERICAS,
    M49_ASIA,
    M49_EUROPE,
    M49_OCEANIA,
    country_codes,
    grouped_codes,
)
from gpuplan.plan.build_inputs import constraints_from_spec
from gpuplan.workload.spec import ConstraintsSpec
from one_line import answered

ROOT = Path(__file__).resolve().parents[2]
REGIONS = (M49_AFRICA, M49_AMERICAS, M49_ASIA, M49_EUROPE, M49_OCEANIA)


@pytest.mark.parametrize(
    ("names", "members"),
    [
        (("Asia", "asia", "亚洲", "亞洲"), M49_ASIA),
        (("Europe", "欧洲"), M49_EUROPE),
        (("Africa", "非洲"), M49_AFRICA),
        (("Americas", "The Americas", "美洲"), M49_AMERICAS),
        (("Oceania", "大洋洲"), M49_OCEANIA),
    ],
)
def test_each_un_region_is_read_in_english_and_chinese(
    names: tuple[str, ...], members: tuple[str, ...]
) -> None:
    for name in names:
        assert country_codes(name) == members
        assert constraints_from_spec(ConstraintsSpec(), countries=(name,)).countries == members
        assert (
            constraints_from_spec(ConstraintsSpec.model_validate({"countries": [name]})).countries == members
        )


def test_the_regions_hold_every_country_once_as_m49_lists_them() -> None:
    # every ISO 3166 country but Antarctica, which M49 places in no region; Taiwan in Asia
    every = [code for region in REGIONS for code in region]
    assert len(every) == len(set(every))
    assert set(every) == {c.alpha_2 for c in pycountry.countries} - {"AQ"}
    assert {"SG", "JP", "KR", "IN", "CN", "HK", "TW", "AE", "IL", "CY"} <= set(M49_ASIA)
    assert {"GB", "CH", "NO", "RU", "UA"} <= set(M49_EUROPE) and "CY" not in M49_EUROPE
    assert {"US", "CA", "BR", "MX"} <= set(M49_AMERICAS) and {"AU", "NZ"} <= set(M49_OCEANIA)
    assert "EG" in M49_AFRICA and "ZA" in M49_AFRICA


def test_a_line_names_a_region_by_its_name() -> None:
    assert grouped_codes(M49_ASIA) == ["Asia"]
    assert grouped_codes((*M49_ASIA, "AU")) == ["Asia", "AU"]
    assert grouped_codes(M49_EUROPE) == ["Europe"]  # the EU's 27 among them are not named apart
    assert grouped_codes((*EU_MEMBERS, "CH")) == ["EU", "CH"]


def test_a_near_spelling_is_pointed_to_the_region() -> None:
    from gpuplan.errors import NotFoundError

    with pytest.raises(NotFoundError, match="did you mean 'Asia'"):
        country_codes("Aisa")


def test_plan_countries_asia_keeps_every_option_in_asia(capsys: pytest.CaptureFixture[str]) -> None:
    workload = str(ROOT / "examples" / "bert-large-squad.yaml")
    doc = json.loads(answered(["plan", workload, "--countries", "Asia", "--json"], capsys))
    countries = {o["country"] for o in doc["options"]}
    assert countries and countries <= set(M49_ASIA), countries
    # without it, the cheapest options are elsewhere: the check above can fail
    plain = json.loads(answered(["plan", workload, "--json"], capsys))
    assert not {o["country"] for o in plain["options"]} <= set(M49_ASIA)
