"""One way to write numbers, durations, percentages and money, in both languages."""

from __future__ import annotations

import pytest

from gpuplan.errors import DataError, NotFoundError
from gpuplan.i18n import Money, format_amount, format_hours, format_number, format_percent, use_language


def test_usd_amounts_have_cents_and_separators() -> None:
    usd = Money.usd()
    assert usd.format(1234.5) == "$1,234.50"
    assert usd.format(2.5, per="h") == "$2.50/h"
    assert usd.format(123456.7) == "$123,457"
    assert usd.format(-5) == "-$5.00"
    assert usd.format(None) == "?"


def test_sub_cent_prices_keep_two_significant_digits() -> None:
    # Egress and storage are priced in fractions of a cent per GB.
    assert Money.usd().format(0.0123) == "$0.012"
    assert Money.usd().format(0.35) == "$0.35"


def test_a_unit_price_beside_its_total_has_the_digits_to_give_the_total_back() -> None:
    # was "31.93 GB … $3.93 ($0.12/GB)": 31.93 × 0.12 is 3.83; the rate charged is 0.123
    from gpuplan.i18n import money_per, use_money

    assert money_per(31.934 * 0.123, 31.934, per="GB") == "$0.123/GB"
    assert money_per(31.934 * 0.12, 31.934) == "$0.12"  # a rate the cents give back, as ever
    # 4,519.75 GB shown as 4,520: no rate gives $555.93 back; the rate to four digits
    assert money_per(4519.75 * 0.1234567, 4519.75, per="GB") == "$0.1235/GB"
    with use_money(Money.from_rate("CNY", usd_per_unit=0.125, as_of="2024-11-25", source="CFETS")):
        assert money_per(31.934 * 0.123, 31.934, per="GB") == "¥0.984/GB"  # 31.93 × 0.984 = ¥31.42


def test_a_unit_price_on_its_own_has_the_digits_it_has() -> None:
    # was "assumed $0.12/GB (the highest price in the catalog)" beside the answers line's $0.123/GB
    from gpuplan.i18n import money, money_rate, use_money

    assert money_rate(0.123, per="GB") == "$0.123/GB"
    assert money_rate(0.1234567, per="GB") == "$0.1235/GB"  # four significant digits
    assert money_rate(0.17, per="GB-month") == "$0.17/GB-month"
    assert money_rate(0.02) == money(0.02) == "$0.020"  # never fewer decimals than money()
    with use_money(Money.from_rate("CNY", usd_per_unit=0.125, as_of="2024-11-25", source="CFETS")):
        assert money_rate(0.123, per="GB") == "¥0.984/GB"


def test_cny_converts_at_the_dated_rate_and_says_so() -> None:
    # 1 CNY = 0.125 USD  ->  1 USD = 8 CNY; 100 USD = 800 CNY
    cny = Money.from_rate("CNY", usd_per_unit=0.125, as_of="2024-11-25", source="CFETS")
    assert cny.format(100) == "¥800.00"
    assert "2024-11-25" in cny.rate_note() and "8.0000" in cny.rate_note()
    assert Money.usd().rate_note() == ""


def test_a_rate_the_user_gave_is_named_in_the_user_s_language() -> None:
    from gpuplan.catalog.model import ExchangeRate
    from gpuplan.i18n.numbers import USER_RATE_SOURCE
    from gpuplan.report.catalog import rates_line

    given = Money.from_rate("CNY", usd_per_unit=1 / 7.1, as_of="2026-12-01", source=USER_RATE_SOURCE)
    rate = ExchangeRate(currency="CNY", usd_per_unit=1 / 7.1, as_of="2026-12-01", source=USER_RATE_SOURCE)
    assert "user setting (the rate you gave)" in given.rate_note()
    assert "user setting" in rates_line([rate], "CNY")
    with use_language("zh"):
        assert "user setting" not in given.rate_note()
        assert "user setting" not in rates_line([rate], "CNY")


def test_money_refuses_an_unknown_currency_or_a_bad_rate() -> None:
    with pytest.raises(NotFoundError):
        Money(currency="EUR")
    with pytest.raises(DataError):
        Money.from_rate("CNY", usd_per_unit=0, as_of="2024-11-25", source="x")


def test_a_range_shows_one_symbol_and_collapses_when_equal() -> None:
    usd = Money.usd()
    assert usd.format_range(27.61, 61.2) == "$27.61–61.20"
    assert usd.format_range(10, 10.001) == "$10.00"


def test_amounts_in_their_own_currency() -> None:
    assert format_amount(12, "CNY", per="h") == "¥12.00/h"
    assert format_amount(3, "EUR") == "3.00 EUR"


def test_numbers_and_percentages() -> None:
    assert format_number(12345.678) == "12,346"
    assert format_number(3.14159) == "3.142"
    assert format_number(None) == "—"
    assert format_percent(0.123) == "12%"
    assert format_percent(0.004) == "0.4%"
    assert format_percent(0.0000001) == "<0.1%"


def test_durations_in_both_languages() -> None:
    assert format_hours(0.6) == "36 min"
    assert format_hours(10.4 / 60) == "10.4 min"
    assert format_hours(30) == "30.0 h"
    assert format_hours(72) == "3.0 d"
    with use_language("zh"):
        assert format_hours(0.6) == "36 分钟"
        assert format_hours(30) == "30.0 小时"
        assert format_hours(72) == "3.0 天"


def test_chart_axis_amounts_are_compact_in_thousands_in_english_and_in_wan_in_chinese() -> None:
    from gpuplan.i18n.numbers import Money

    cny = Money.from_rate("CNY", usd_per_unit=0.139, as_of="2024-11-25", source="test")
    with use_language("en"):
        assert [cny.format_compact(v) for v in (12_000, 1_250_000)] == ["¥12k", "¥1,250k"]
    with use_language("zh"):
        assert [cny.format_compact(v) for v in (12_000, 120_000, 1_250_000)] == ["¥1.2万", "¥12万", "¥125万"]
        assert cny.format_compact(5_000) == cny.format_native(5_000)  # small amounts as everywhere


def test_notes_beside_a_stale_rate_note_lose_its_warning_and_keep_the_rest() -> None:
    old = Money.from_rate(
        "CNY", usd_per_unit=0.125, as_of="2024-11-25", source="test rate", age_days=31, stale_after_days=30
    )
    warning = old.rate_warning()
    assert "31 days old" in warning and old.rate_note().endswith(warning)
    notes = ["CNY prices converted at 1 USD = 8.0000 CNY (as of 2024-11-25) " + warning, "another note"]
    assert old.notes_with_rate(notes) == [
        "CNY prices converted at 1 USD = 8.0000 CNY (as of 2024-11-25)",
        "another note",
        old.rate_note(),
    ]
    # A fresh rate warns nowhere; dollars add no rate note and leave the notes as they are.
    fresh = Money.from_rate("CNY", usd_per_unit=0.125, as_of="2024-11-25", source="test rate", age_days=3)
    assert fresh.rate_warning() == ""
    assert fresh.notes_with_rate(notes[1:]) == ["another note", fresh.rate_note()]
    assert Money.usd().notes_with_rate(notes) == notes


def test_a_short_write_is_said_in_seconds_that_add_up() -> None:
    from gpuplan.i18n.numbers import format_minutes

    # a 0.36 GB checkpoint at 0.131 GB/s: 2.75 s a write; "6 × 0.0 min = 17 s" had read as an error
    assert format_minutes(2.75 / 60) == "2.8 s"
    assert format_minutes(0.636) == "38 s"
    assert format_minutes(2.29) == "2.3 min"
    with use_language("zh"):
        assert format_minutes(2.75 / 60) == "2.8 秒"
