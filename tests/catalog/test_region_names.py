"""A region or country written as a city, a provider's region the catalog holds no offer in, and a
provider the registry lacks: each refused saying what it is and what the catalog has, where "did you
mean" had offered a country code ('NO' for "london"), country names ('congo') or regions of another
name ('us-south1' for Azure's "uksouth")."""

from __future__ import annotations

import pytest

from gpuplan.catalog import Store
from gpuplan.catalog.query import OfferQuery, list_offers
from gpuplan.catalog.region_countries import country_codes_of, region_suggestions
from gpuplan.errors import InputError, NotFoundError
from gpuplan.plan.constraints import Constraints
from gpuplan.plan.contradictions import check_regions


def _refusals(store: Store, region: str) -> list[str]:
    """What ``plan --region`` and ``offers --region`` say of ``region``."""
    said = []
    for refuse in (
        lambda: check_regions(Constraints(regions=(region,)), store),
        lambda: list_offers(store, OfferQuery(region=region)),
    ):
        with pytest.raises(InputError) as e:
            refuse()
        said.append(str(e.value))
    return said


def test_a_city_is_refused_with_the_regions_there(store: Store) -> None:
    for said in _refusals(store, "london"):
        assert said.startswith("'london' is a city, not a region: the catalog's regions there are ")
        assert "aws/eu-west-2" in said and "gcp/europe-west2" in said and "`--countries GB`" in said
        # Azure's London region is a region the catalog holds no offer in: said as such
        assert "none of its offers is in azure/uksouth" in said
        assert "'NO'" not in said


def test_a_providers_region_without_offers_names_the_regions_it_has(store: Store) -> None:
    held = sorted(r for r in store.regions("azure") if r != "unspecified")
    assert held and "uksouth" not in held
    for said in _refusals(store, "uksouth"):
        assert said.startswith("region uksouth of azure has no offer in the catalog, which holds azure's in ")
        assert all(r in said for r in held) and "unspecified" not in said
        assert "us-south" not in said


def test_a_city_given_as_a_country_names_its_country() -> None:
    with pytest.raises(InputError) as e:
        country_codes_of("London")
    assert str(e.value) == "'London' is a city, not a country: it is in GB; write that (`--countries GB`)"
    assert country_codes_of("UK") == ("GB",)
    with pytest.raises(NotFoundError):
        country_codes_of("Lodnon")


@pytest.mark.parametrize("city", ["深圳", "深圳市", "北京"])
def test_a_city_given_in_chinese_as_a_country_names_its_country(city: str) -> None:
    # "unknown country '深圳'" (and for 北京 "did you mean '北韓'?"), where Shenzhen was known
    with pytest.raises(InputError) as e:
        country_codes_of(city, "constraints.countries")
    assert (
        str(e.value)
        == f"'{city}' is a city, not a country: it is in CN; write that (`constraints.countries: [CN]`)"
    )


def test_a_country_code_is_not_suggested_for_a_mistyped_region() -> None:
    assert region_suggestions(["NO", "us-east-1", "SG", "eu-west-2"]) == ["us-east-1", "eu-west-2"]


def test_an_unknown_provider_lists_the_providers_known() -> None:
    from gpuplan.catalog.providers import PROVIDERS

    with pytest.raises(NotFoundError) as e:
        PROVIDERS.cast("coreweave")
    said = str(e.value)
    assert said.startswith("unknown provider 'coreweave' (the providers gpuplan knows: alibaba, aws, azure,")
    assert all(p in said for p in PROVIDERS)
    with pytest.raises(NotFoundError) as e:
        PROVIDERS.cast("lamda")
    assert str(e.value) == "unknown provider 'lamda'; did you mean 'lambda'?"
