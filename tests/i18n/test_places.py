"""An offer's place as a user reads it: the catalog's ``unspecified`` region in the language."""

from __future__ import annotations

from gpuplan.i18n import use_language
from gpuplan.i18n.places import place, region_name


def test_an_unnamed_region_is_written_in_the_language_and_named_regions_stay_as_they_are() -> None:
    with use_language("en"):
        assert place("lambda", "unspecified") == "lambda/unspecified"
    with use_language("zh"):
        assert place("lambda", "unspecified") == "lambda/未注明地域"
        assert place("aws", "us-east-1") == "aws/us-east-1"
        assert region_name("cn-shanghai") == "cn-shanghai"


def test_a_country_is_named_in_the_language_by_iso_3166s_names() -> None:
    from gpuplan.i18n.countries import country_code, country_name

    with use_language("en"):
        assert [country_name(c) for c in ("DE", "JP", "US")] == ["Germany", "Japan", "United States"]
    with use_language("zh"):
        assert [country_name(c) for c in ("DE", "JP", "US")] == ["德国", "日本", "美国"]
        # each name reads back as its code, as a user's country constraint is read
        assert all(country_code(country_name(c)) == c for c in ("DE", "JP", "US", "KR", "SG"))
        assert country_name("XX") == "XX"  # no such country: the code as given
