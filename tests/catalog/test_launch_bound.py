"""An undated price is no older than its GPU: the GPU's launch month bounds the price's earliest day."""

from __future__ import annotations

from datetime import date

import pytest

from gpuplan.catalog import Store
from gpuplan.catalog.dates import bound_by_launch, launch_bound, parse_as_of, price_age
from gpuplan.hardware import get_gpu
from gpuplan.i18n import format_age
from gpuplan.plan.options import price_date_words
from gpuplan.report.catalog import age_flags
from gpuplan.report.common import price_age_words

TODAY = date(2026, 12, 5)


def test_a_launch_inside_the_interval_bounds_the_age() -> None:
    # SkyPilot's Alibaba catalog bounds its L20 prices from 2020-11; the L20 launched in 2023-11
    age = price_age("2020-11/2026-12-03", TODAY, 180, launched="2023-11")
    assert age.age_days == (TODAY - date(2023, 11, 1)).days
    assert age.launched == "2023-11"
    assert age.age_min_days == 2  # the interval's last day is the source's
    assert age.staleness == "unknown"  # still possibly older than 180 days: never taken as fresh


def test_without_a_launch_the_source_bound_stands() -> None:
    age = price_age("2020-11/2026-12-03", TODAY, 180, launched=None)
    assert age.age_days == (TODAY - date(2020, 11, 1)).days
    assert age.launched is None


@pytest.mark.parametrize(
    ("as_of", "launched"),
    [
        ("2024-03/2026-12-03", "2023-11"),  # launched before the source's own bound: that bound is later
        ("2020-11/2022-06-30", "2023-11"),  # launched after the interval: contradicts the source, not used
        ("2020-11", "2023-11"),  # a dated price (month) keeps its own date
        ("2021-05-04", "2023-11"),  # a dated price (day) too
    ],
)
def test_a_launch_outside_an_undated_interval_changes_nothing(as_of: str, launched: str) -> None:
    parsed = parse_as_of(as_of)
    assert parsed is not None
    assert bound_by_launch(parsed, launched) == parsed
    assert launch_bound(as_of, launched) is None
    assert price_age(as_of, TODAY, 180, launched).age_days == price_age(as_of, TODAY, 180).age_days


def test_a_launch_within_the_limit_makes_an_undated_price_fresh() -> None:
    # launched 2026-09: whatever day the source saw it, it is at most 95 days old
    age = price_age("2020-11/2026-12-03", TODAY, 180, launched="2026-09")
    assert (age.age_days, age.staleness) == (95, "fresh")


def test_shipped_l20_prices_are_no_older_than_the_l20(store: Store) -> None:
    launched = get_gpu("L20").launched_on
    assert launched == date(2023, 11, 1)
    offers = [o for o in store.offers(gpu="L20") if o.as_of_precision == "bounded"]
    assert offers  # the shipped catalog's Alibaba L20 prices carry no date of their own
    for o in offers:
        parsed = parse_as_of(o.as_of)
        assert parsed is not None and parsed.earliest < launched  # the source's bound predates the L20
        assert o.priced_on is not None
        assert o.age_days == (o.priced_on - launched).days
        assert o.age_bound_launch == "2023-11"
        assert age_flags(o) == [f"age unknown (at most {format_age(o.age_days)}: the L20 launched 2023-11)"]


def test_a_gpu_without_a_launch_date_keeps_the_old_bound(store: Store) -> None:
    gpu = get_gpu("V100-SXM2-32GB")
    assert gpu.launched is None and gpu.launched_source  # no source read: the reason is said instead
    offers = [o for o in store.offers(gpu="V100-SXM2-32GB") if o.as_of_precision == "bounded"]
    assert offers
    for o in offers:
        parsed = parse_as_of(o.as_of)
        assert parsed is not None and o.priced_on is not None
        assert o.age_days == (o.priced_on - parsed.earliest).days
        assert o.age_bound_launch is None
        if o.staleness == "unknown":
            assert age_flags(o) == [f"age unknown (up to {format_age(o.age_days)})"]


def test_the_words_name_the_launch_in_english_and_chinese() -> None:
    from gpuplan.i18n import use_language

    days = (TODAY - date(2023, 11, 1)).days
    assert (
        price_age_words(days, "unknown", "L20", "2023-11")
        == "age unknown (at most 3.1 y: the L20 launched 2023-11)"
    )
    assert price_age_words(days, "unknown") == "age unknown (up to 3.1 y)"
    why = price_date_words("2020-11/2026-12-03", "unknown", 180, "L20")
    assert why.startswith(
        "observed at some time between 2020-11 and 2026-12-03, and not before the L20 launched (2023-11)"
    )
    with use_language("zh"):
        assert (
            price_age_words(days, "unknown", "L20", "2023-11")
            == "时效未知（最多 3.1 年：L20 于 2023-11 发布）"
        )
        assert "不早于 L20 发布之时（2023-11）" in price_date_words(
            "2020-11/2026-12-03", "unknown", 180, "L20"
        )
