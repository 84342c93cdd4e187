"""Inputs that cannot silently mislead: the rate the wrong way round, countries by any name, data
locations that are not regions."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplan.catalog import ExchangeRate, open_store
from gpuplan.catalog.open_catalog import check_rate
from gpuplan.errors import InputError, NotFoundError
from gpuplan.i18n.countries import country_code
from gpuplan.plan.api import _check_location
from gpuplan.plan.build_inputs import constraints_from_spec
from gpuplan.workload.spec import ConstraintsSpec

SHIPPED = ExchangeRate(currency="CNY", usd_per_unit=0.1390, as_of="2024-11-25", source="CFETS")


def test_a_rate_quoted_as_cny_per_usd_is_recognised_as_the_wrong_way_round() -> None:
    # 7.2 as USD per CNY is 52× the shipped 0.139; 1/7.2 = 0.1389 is within 3× of it.
    with pytest.raises(InputError, match=r"wrong way round.*--cny-per-usd 7\.2"):
        check_rate(7.2, SHIPPED)


def test_a_rate_far_from_the_shipped_one_needs_force() -> None:
    with pytest.raises(InputError, match="--force-rate"):
        check_rate(0.5, SHIPPED)  # 3.6× the shipped rate, and not its inverse either
    check_rate(0.14, SHIPPED)  # a fresh, plausible rate passes
    check_rate(0.3, SHIPPED)  # 2.2×: within the tolerance


def test_open_store_refuses_the_wrong_way_round_unless_forced(tmp_path: Path) -> None:
    db = str(tmp_path / "c.sqlite")
    with pytest.raises(InputError, match="wrong way round"):
        open_store(db, usd_per_cny=7.2)
    store = open_store(db, usd_per_cny=7.2, force_rate=True)
    try:
        assert store.exchange_rate("CNY").usd_per_unit == 7.2
    finally:
        store.close()
    # forced, a rate is still a number a figure can be printed at (1e-300 gave 300-digit yuan)
    for absurd in (1e-300, 1e308):
        with pytest.raises(
            InputError, match=r"1 USD = .* CNY, is outside 0\.001–1000 CNY \(even with --force-rate\)"
        ):
            open_store(db, usd_per_cny=absurd, force_rate=True)


@pytest.mark.parametrize("name", ["China", "中国", "CN", "cn", "CHN", "People's Republic of China"])
def test_countries_by_code_or_name_in_either_language(name: str) -> None:
    assert country_code(name) == "CN"


def test_everyday_country_names() -> None:
    assert [country_code(n) for n in ("South Korea", "韩国", "UK", "美国", "香港", "Japan")] == [
        "KR",
        "KR",
        "GB",
        "US",
        "HK",
        "JP",
    ]
    with pytest.raises(NotFoundError, match="did you mean 'china'"):
        country_code("Chna")


def test_a_country_written_in_its_own_or_a_neighbours_language_is_read() -> None:
    # "--countries Deutschland" had been answered "did you mean 'netherlands' or 'thailand' or 'bouvet
    # island'?": only English and Chinese names were read.
    for name, code in (
        ("Deutschland", "DE"), ("Allemagne", "DE"), ("ドイツ", "DE"), ("Österreich", "AT"),
        ("Niederlande", "NL"), ("Polska", "PL"), ("Schweiz", "CH"), ("Espagne", "ES"),
    ):  # fmt: skip
        assert country_code(name) == code, name
    assert constraints_from_spec(ConstraintsSpec(), countries=("Deutschland",)).countries == ("DE",)
    # one slip from such a name: pointed to it first; English typos still get English names
    with pytest.raises(NotFoundError, match="did you mean 'deutschland'"):
        country_code("Deutchland")
    with pytest.raises(NotFoundError, match="did you mean 'germany'"):
        country_code("Germny")


def test_constraints_take_country_names_from_the_yaml_and_the_command_line() -> None:
    spec = ConstraintsSpec.model_validate({"countries": ["China", "美国"]})
    assert constraints_from_spec(spec).countries == ("CN", "US")
    assert constraints_from_spec(spec, countries=("中国",)).countries == ("CN",)


def test_the_european_union_is_named_as_one_for_its_27_member_states() -> None:
    # a team whose data must stay in the EU had typed twelve codes, one forgettable; "EU" had answered
    # "unknown country 'EU'; did you mean 'peru'?"
    from gpuplan.i18n.countries import EU_MEMBERS, country_codes

    assert len(EU_MEMBERS) == 27 and "GB" not in EU_MEMBERS and {"DE", "GR", "SE", "IE"} <= set(EU_MEMBERS)
    assert country_codes("EU") == country_codes("European Union") == country_codes("欧盟") == EU_MEMBERS
    assert country_codes("Germany") == ("DE",)
    spec = ConstraintsSpec.model_validate({"countries": ["eu", "Switzerland", "DE"]})
    assert constraints_from_spec(spec).countries == (*EU_MEMBERS, "CH")
    # a year's usage reads it the same way
    from gpuplan.commit import load_usage

    usage = load_usage(
        {
            "horizon_months": 12,
            "start": "2027-01",
            "demands": [{"name": "d", "gpu": "A100-SXM4-40GB", "gpus": 1, "hours_per_month": 730}],
            "constraints": {"countries": ["EU"]},
        }
    )
    assert usage.constraints.countries == EU_MEMBERS


@pytest.mark.parametrize(
    ("written", "suggested"),
    [
        ("EUR", "'EU' or 'Europe' or 'ecuador'"),  # Europe, the UN's region, is read as one
        ("eu-west", "'EU'"),
        ("EU27", "'EU' or"),
        ("欧盟国家", "'欧盟'"),
    ],
)
def test_a_name_near_the_eu_is_pointed_to_the_eu_not_to_peru(written: str, suggested: str) -> None:
    # "--countries EUR" had answered "did you mean 'ecuador' or 'peru' or 'niger'?", though 'EU' is read
    from gpuplan.i18n import use_language
    from gpuplan.i18n.countries import country_codes
    from gpuplan.i18n.error_text import error_text

    # as --countries gives it
    with pytest.raises(NotFoundError, match=f"unknown country '{written}'; did you mean {suggested}") as info:
        constraints_from_spec(ConstraintsSpec(), countries=(written,))
    with use_language("zh"):
        assert f"您是不是指 {suggested.replace(' or', ' 或')}" in error_text(info.value)
    # only names that are read are offered, one name for the group
    assert all(country_codes(s) for s in info.value.suggestions)
    assert sum(s in ("EU", "European Union", "欧盟", "歐盟") for s in info.value.suggestions) == 1
    # as a workload's constraints give it (lower-cased as the workload reads it)
    with pytest.raises(NotFoundError, match=f"did you mean {suggested}"):
        constraints_from_spec(ConstraintsSpec.model_validate({"countries": [written]}))


def test_no_group_is_offered_where_none_is_near() -> None:
    with pytest.raises(NotFoundError, match=r"did you mean 'china' or 'chad' or 'ghana'\?$"):
        constraints_from_spec(ConstraintsSpec(), countries=("Chna",))
    with pytest.raises(NotFoundError, match="did you mean 'senegal'"):  # the EEA is not the EU
        constraints_from_spec(ConstraintsSpec(), countries=("EEA",))


def test_a_data_location_must_be_a_region_of_its_provider(fresh_catalog: Path) -> None:
    store = open_store(str(fresh_catalog))
    try:
        _check_location(("aws", "us-east-1"), store)
        with pytest.raises(NotFoundError, match="unknown region 'us-east-9'; did you mean"):
            _check_location(("aws", "us-east-9"), store)
        with pytest.raises(NotFoundError, match="unknown provider 'ibm'"):
            _check_location(("ibm", "us-east-1"), store)
    finally:
        store.close()


def test_constraints_take_gpus_from_the_yaml_and_the_command_line_and_refuse_a_typo() -> None:
    from pydantic import ValidationError

    spec = ConstraintsSpec.model_validate({"gpus": ["T4", "A100"]})
    assert constraints_from_spec(spec).gpus == ("T4", "A100")
    assert constraints_from_spec(spec).gpu_ids == (
        "T4",
        "A100-PCIE-40GB",
        "A100-PCIE-80GB",
        "A100-SXM4-40GB",
        "A100-SXM4-80GB",
    )
    assert constraints_from_spec(spec, gpus=("L4",)).gpus == ("L4",)
    with pytest.raises(ValidationError, match="unknown GPU 'A10x'; did you mean"):
        ConstraintsSpec.model_validate({"gpus": ["A10x"]})


def test_the_team_services_plan_request_takes_a_gpu_filter() -> None:
    from gpuplan.web.requests import PlanRequest

    assert PlanRequest(workload={}, gpus=["T4", "L4"]).overrides()["gpus"] == ["T4", "L4"]
    assert PlanRequest(workload={}).overrides()["gpus"] is None


@pytest.mark.parametrize(
    ("written", "region", "code"),
    [("singapore", "aws/ap-southeast-1", "SG"), ("EU", "gcp/europe-west3", "EU")],
)
def test_a_country_written_as_a_region_points_to_its_regions(
    fresh_catalog: Path, written: str, region: str, code: str
) -> None:
    # "--region singapore" had been answered "did you mean 'cn-qingdao'?"
    from gpuplan.errors import InputError
    from gpuplan.plan.contradictions import check_regions

    store = open_store(str(fresh_catalog))
    try:
        with pytest.raises(InputError) as info:
            check_regions(constraints_from_spec(ConstraintsSpec(), regions=(written,)), store)
    finally:
        store.close()
    said = str(info.value)
    assert region in said and f"`--countries {code}`" in said and "did you mean" not in said
