"""What a Chinese reader meets where gpuplan had left its own identifiers or English typography: a
schedule's days ("mon-fri"), a pricing model's code in a refusal, "USD/hour" in a price file's
error, Typer's type names in --help, two names for Hong Kong, "。 " and "学生 (笔记本)", and a
--sharing that took no Chinese word."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from gpuplan.day_load import Schedule
from gpuplan.errors import InputError, NotFoundError, Phrase
from gpuplan.i18n import N_, use_language
from gpuplan.i18n.countries import country_codes, country_name
from gpuplan.i18n.error_text import error_text, phrase_text
from one_line import answered, refused

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def gpuplan(fresh_catalog: Path, capsys: pytest.CaptureFixture[str]) -> Callable[..., str]:
    """``gpuplan("zh", *args)``: what the command writes on stdout in that language (on a copy of the
    seeded catalog), where it succeeds."""
    return lambda lang, *args: answered(["--lang", lang, "--db", str(fresh_catalog), *args], capsys)


@pytest.fixture
def refusal(fresh_catalog: Path, capsys: pytest.CaptureFixture[str]) -> Callable[..., str]:
    """``refusal("zh", *args)``: the one line the command refuses with in that language."""
    return lambda lang, *args: refused(["--lang", lang, "--db", str(fresh_catalog), *args], capsys)


def test_a_schedule_says_its_days_in_chinese_and_keeps_its_words_in_english() -> None:
    weekdays = Schedule(start_min=540, end_min=1140, weekdays=(0, 1, 2, 3, 4), zone="Asia/Shanghai")
    some = Schedule(start_min=540, end_min=1140, weekdays=(0, 2, 4), zone="Asia/Shanghai")
    assert weekdays.said == "09:00-19:00 mon-fri (Asia/Shanghai)"
    assert some.said == "09:00-19:00 mon,wed,fri (Asia/Shanghai)"
    with use_language("zh"):
        assert weekdays.said == "09:00-19:00 周一至周五（Asia/Shanghai）"
        assert some.days_said == "周一、周三、周五"
        assert weekdays.days_text == "mon-fri"  # the JSON's words stay the file's


def test_a_chinese_refusal_names_pricing_models_not_their_codes(refusal: Callable[..., str]) -> None:
    args = (
        "plan",
        str(EXAMPLES / "llama7b-lora.yaml"),
        "--pricing",
        "reserved_1y",
        "--commitment",
        "monthly",
    )
    zh = refusal("zh", *args)
    assert "1 年预留" in zh and "按量付费、抢占式" in zh, zh
    assert "reserved_1y" not in zh and "on_demand" not in zh, zh
    en = refusal("en", *args)
    assert "pricing reserved_1y contradicts commitment monthly" in en, en
    assert "(on_demand, spot)" in en, en


def test_a_price_files_amount_is_said_in_chinese_words() -> None:
    from gpuplan.vocab import price_words

    error = InputError.worded(
        N_("price {price} {currency}/{unit} is not a positive amount"),
        price="-32.5",
        **price_words("USD", "hour"),
    )
    assert str(error) == "price -32.5 USD/hour is not a positive amount"
    with use_language("zh"):
        assert error_text(error) == "价格 -32.5 美元/小时不是正数"
        # a currency gpuplan does not know is said as the file wrote it
        typo = Phrase(
            N_("price {price} {currency}/{unit} is not a positive amount"),
            price="1",
            **price_words("EUR", "month"),
        )
        assert phrase_text(typo) == "价格 1 EUR/月不是正数"


def test_the_chinese_help_says_the_types_of_options_in_chinese(gpuplan: Callable[..., str]) -> None:
    said = gpuplan("zh", "plan", "--help")
    assert "<整数>" in said and "<数值>" in said and "<文本>" in said, said
    assert "<int" not in said and "<float>" not in said and "<str>" not in said, said
    assert "<int range>" in gpuplan("en", "plan", "--help")


def test_hong_kong_has_one_chinese_name() -> None:
    with use_language("zh"):
        assert country_name("HK") == "中国香港"
        with pytest.raises(NotFoundError) as e:
            country_codes("香港岛")
        assert "中国香港" in error_text(e.value) and "'香港'" not in error_text(e.value)
    assert country_name("HK") == "Hong Kong"
    assert country_codes("香港") == country_codes("中国香港") == ("HK",)


@pytest.mark.parametrize(
    "args",
    [
        ("plan", str(EXAMPLES / "llm-inference-service.yaml")),
        ("tco", str(EXAMPLES / "tco" / "alibaba-3y-subscription.yaml")),
        ("simulate", "share", str(EXAMPLES / "simulate" / "notebooks.yaml"), "--sharing", "best"),
    ],
)
def test_chinese_output_has_no_space_after_a_full_stop_nor_half_width_brackets(
    gpuplan: Callable[..., str], args: tuple[str, ...]
) -> None:
    said = gpuplan("zh", *args)
    text = said.replace("\n", "")
    assert "。 " not in text
    assert " (笔记本)" not in text and " (实验)" not in text and " 年)" not in text, text


def test_a_notebook_group_is_named_with_full_width_brackets(gpuplan: Callable[..., str]) -> None:
    said = gpuplan(
        "zh", "simulate", "share", str(EXAMPLES / "simulate" / "notebooks.yaml"), "--sharing", "time-slice"
    )
    assert "students（笔记本）" in said, said
    assert "students (notebook)" in gpuplan(
        "en", "simulate", "share", str(EXAMPLES / "simulate" / "notebooks.yaml")
    )


@pytest.mark.parametrize("word", ["时间片", "ＴＩＭＥ－ＳＬＩＣＥ", "Time-Slice"])
def test_sharing_takes_the_chinese_name_and_full_width_letters(
    gpuplan: Callable[..., str], word: str
) -> None:
    said = gpuplan(
        "zh", "simulate", "share", str(EXAMPLES / "simulate" / "notebooks.yaml"), "--sharing", word
    )
    # read as time-slice, and shown by its Chinese name
    assert "（时间片）" in said and "time-slice" not in said, said
