"""The shared vocabulary: one cast for every closed list, and per-provider tables that cover it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from gpuplan import vocab
from gpuplan.errors import InputError, NotFoundError, UnknownChoiceError
from gpuplan.vocab import Choice, Currency, Objective, Precision, PricingModel, Provider, Task


def _choices() -> list[type[Choice]]:
    return [
        c for c in vars(vocab).values() if isinstance(c, type) and issubclass(c, Choice) and c is not Choice
    ]


@pytest.mark.parametrize("cls", _choices(), ids=lambda c: c.__name__)
def test_every_member_casts_back_from_any_spelling(cls: type[Choice]) -> None:
    for m in cls:
        for spelling in (m.value, m.value.upper(), m.value.replace("_", "-"), m.value.replace("-", "_")):
            assert cls.cast(spelling) is m
        assert cls.cast(m) is m and str(m) == m.value


def test_unknown_names_say_did_you_mean_and_are_input_errors() -> None:
    with pytest.raises(UnknownChoiceError, match=r"^unknown pricing model 'spto'; did you mean 'spot'\?$"):
        PricingModel.cast("spto")
    with pytest.raises(NotFoundError) as caught:
        Task.cast("trian")
    assert isinstance(caught.value, InputError) and caught.value.suggestions == ["train"]
    # Currencies are shown by their ISO code.
    with pytest.raises(UnknownChoiceError, match=r"'EUR'.*use one of: USD, CNY"):
        Currency.cast("EUR")


def test_yearly_points_to_the_one_year_reservation() -> None:
    with pytest.raises(UnknownChoiceError, match="did you mean 'reserved_1y'"):
        PricingModel.cast("yearly")


def test_aliases_and_separators() -> None:
    assert Provider.cast("Volcano Engine") is Provider.VOLCENGINE
    assert Provider.cast("aliyun") is Provider.ALIBABA
    assert Precision.cast("AMP_BF16") is Precision.AMP_BF16
    assert PricingModel.cast("on-demand") is PricingModel.ON_DEMAND
    assert Objective.cast(" Cost ") is Objective.COST


def test_members_are_their_strings() -> None:
    # Tables keyed by the enum are looked up by plain strings from the database and JSON.
    assert Provider.AWS == "aws" and {Provider.AWS: 1}["aws"] == 1
    assert f"{PricingModel.RESERVED_3Y}" == "reserved_3y"


def _provider_tables() -> dict[str, Mapping[str, Any]]:
    from gpuplan.catalog.providers import REGISTRY
    from gpuplan.plan.spot import SPOT_DEFAULTS

    return {"catalog.providers.REGISTRY": REGISTRY, "plan.spot.SPOT_DEFAULTS": SPOT_DEFAULTS}


@pytest.mark.parametrize("name", list(_provider_tables()))
def test_every_per_provider_table_covers_every_provider(name: str) -> None:
    table = _provider_tables()[name]
    assert vocab.missing_members(Provider, table) == []
    assert set(table) <= set(Provider.values()), "a table names a provider the vocabulary lacks"


def test_every_pricing_model_has_a_billing_rule() -> None:
    assert vocab.missing_members(PricingModel, vocab.PRICING_RULES) == []
    assert vocab.PRICING_RULES[PricingModel.RESERVED_1Y].term_hours == 8760.0  # 365 × 24
    assert vocab.COMMITTED_PRICING == (
        PricingModel.MONTHLY,
        PricingModel.RESERVED_1Y,
        PricingModel.RESERVED_3Y,
    )
