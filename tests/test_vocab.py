"""The shared vocabulary: one cast for every closed list; pricing models named and billed in one place."""

from __future__ import annotations

import pytest

from gpuplan import vocab
from gpuplan.errors import InputError, NotFoundError, UnknownChoiceError
from gpuplan.vocab import Choice, Currency, Names, Objective, Precision, PricingModel, Task


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
    with pytest.raises(UnknownChoiceError, match=r"'doge'.*use one of: USD, CNY"):
        Currency.cast("doge")
    # one gpuplan does not take is said to be one, still an UnknownChoiceError
    with pytest.raises(
        UnknownChoiceError, match=r"^EUR is not a currency gpuplan prices in .*: use USD or CNY$"
    ):
        Currency.cast("EUR")


def test_yearly_points_to_the_one_year_reservation() -> None:
    with pytest.raises(UnknownChoiceError, match="did you mean 'reserved_1y'"):
        PricingModel.cast("yearly")


def test_aliases_and_separators() -> None:
    assert Precision.cast("AMP_BF16") is Precision.AMP_BF16
    assert PricingModel.cast("on-demand") is PricingModel.ON_DEMAND
    assert Objective.cast(" Cost ") is Objective.COST


def test_members_are_their_strings() -> None:
    # Tables keyed by the enum are looked up by plain strings from the database and JSON.
    assert PricingModel.SPOT == "spot" and {PricingModel.SPOT: 1}["spot"] == 1
    assert f"{PricingModel.RESERVED_3Y}" == "reserved_3y"


def test_names_known_at_run_time_cast_like_a_choice() -> None:
    names = Names(kind="provider", values=("aws", "volcengine"), aliases={"volcano_engine": "volcengine"})
    assert names.cast("Volcano Engine") == "volcengine" and names.cast("VOLCANO-ENGINE") == "volcengine"
    assert names.cast(" AWS ") == "aws" and "aws" in names and list(names) == ["aws", "volcengine"]
    with pytest.raises(UnknownChoiceError, match=r"^unknown provider 'asw'; did you mean 'aws'\?$"):
        names.cast("asw")


def test_pydantic_cast_turns_the_error_into_a_value_error() -> None:
    cast = vocab.pydantic_cast(Names(kind="provider", values=("aws",)))
    with pytest.raises(ValueError, match="did you mean 'aws'"):
        cast("aws2")
    assert vocab.pydantic_cast(Task)("Train") is Task.TRAIN


def test_every_pricing_model_has_a_billing_rule_and_names() -> None:
    assert vocab.missing_members(PricingModel, vocab.PRICING_RULES) == []
    for code, rule in vocab.PRICING_RULES.items():
        # Tables show the code users type, translated; the words are the tco legend's.
        assert rule.name == code and rule.label
    assert [vocab.PRICING_RULES[p].term_months for p in PricingModel] == [0, 0, 1, 12, 36]  # 8760 / 730 = 12
    assert vocab.PRICING_RULES[PricingModel.RESERVED_1Y].term_hours == 8760.0  # 365 × 24
    assert vocab.COMMITTED_PRICING == (
        PricingModel.MONTHLY,
        PricingModel.RESERVED_1Y,
        PricingModel.RESERVED_3Y,
    )


def test_pricing_models_are_named_in_the_users_language() -> None:
    from gpuplan.i18n import use_language

    assert vocab.pricing_name("on_demand") == "on_demand"
    with use_language("zh"):
        assert vocab.pricing_name("on_demand") == "按量付费"
    assert vocab.pricing_name("barter") == "barter"  # an unknown code as it is


def test_price_confidences_are_named_in_the_users_language() -> None:
    from gpuplan.i18n import use_language
    from gpuplan.vocab import Confidence

    assert vocab.missing_members(Confidence, vocab.CONFIDENCE_NAMES) == []
    assert [vocab.confidence_name(c) for c in Confidence] == ["high", "secondary", "low"]
    with use_language("zh"):
        assert [vocab.confidence_name(c) for c in Confidence] == ["高", "转引来源", "低"]
    assert vocab.confidence_name("guess") == "guess"  # an unknown code as it is


def test_a_commitment_allows_the_committed_models_its_term_covers() -> None:
    from gpuplan.plan.constraints import Constraints

    def allowed(commitment: str | None) -> tuple[str, ...]:
        return Constraints(commitment=commitment).committed_allowed

    assert allowed(None) == allowed("monthly") == ("monthly",)
    assert allowed("none") == ()
    assert allowed("1y") == ("monthly", "reserved_1y")
    assert allowed("3y") == ("monthly", "reserved_1y", "reserved_3y")


@pytest.mark.parametrize(
    ("written", "term"),
    [
        ("12 months", "1y"),
        ("1 year", "1y"),
        ("1年", "1y"),
        ("36 months", "3y"),
        ("3 years", "3y"),
        ("包月", "monthly"),
        ("1个月", "monthly"),
    ],
)
def test_a_term_written_out_is_the_commitment_meant(written: str, term: str) -> None:
    # "--commitment '12 months'" had been answered "did you mean 'monthly'?": a monthly subscription
    from gpuplan.vocab import Commitment

    assert Commitment.cast(written).value == term


@pytest.mark.parametrize(
    ("written", "meant"), [("18 months", "1y"), ("2 years", "1y"), ("2y", "1y"), ("6 months", "monthly")]
)
def test_a_length_no_term_has_points_to_the_longest_term_within_it(written: str, meant: str) -> None:
    from gpuplan.errors import InputError
    from gpuplan.vocab import Commitment

    with pytest.raises(InputError, match=f"unknown commitment '{written}'; did you mean '{meant}'"):
        Commitment.cast(written)
