"""Validation gates as properties: positive, sane, dated, spot below on-demand."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gpuplan.catalog import OfferRow, PriceRow
from gpuplan.catalog.gates import MAX_USD_PER_GPU_HOUR, MIN_USD_PER_GPU_HOUR, check_offer, parse_as_of


def _row(*prices: PriceRow, count: float = 1.0) -> OfferRow:
    return OfferRow(
        provider="aws",
        region="us-east-1",
        zone=None,
        instance_type="x.large",
        gpu="T4",
        gpu_count=count,
        vcpus=4,
        memory_gib=16,
        network_gbps=None,
        interconnect=None,
        source="test",
        prices=prices,
    )


def _price(amount: float, pricing: str = "on_demand", unit: str = "hour") -> PriceRow:
    return PriceRow(
        pricing=pricing,
        amount=amount,
        currency="USD",
        unit=unit,
        as_of="2026-11-01",
        source="t",
        confidence="high",
    )


def _check(row: OfferRow, od: float | None = None) -> list[str]:
    return check_offer(row, provider="aws", known_instances={}, on_demand_hourly=lambda _r: od)


@given(st.floats(min_value=MIN_USD_PER_GPU_HOUR, max_value=MAX_USD_PER_GPU_HOUR, allow_nan=False))
def test_any_positive_sane_hourly_price_passes(amount: float) -> None:
    assert _check(_row(_price(amount))) == []


@given(st.one_of(st.floats(max_value=0.0), st.just(float("nan")), st.just(float("inf"))))
def test_zero_negative_or_non_finite_prices_fail(amount: float) -> None:
    assert _check(_row(_price(amount)))


@given(
    st.floats(min_value=0.01, max_value=300, allow_nan=False),  # x3 stays under the sanity ceiling
    st.floats(min_value=1.0, max_value=3.0, allow_nan=False),
)
def test_spot_at_or_above_on_demand_fails(od: float, factor: float) -> None:
    reasons = _check(_row(_price(od * factor, "spot")), od=od)
    assert any("not below the on-demand" in r for r in reasons)


def test_monthly_price_must_be_per_month_and_hourly_per_hour() -> None:
    assert any("unit" in r for r in _check(_row(_price(1000.0, "monthly", "hour"))))
    assert any("unit" in r for r in _check(_row(_price(1.0, "spot", "month"))))
    assert _check(_row(_price(1000.0, "monthly", "month"))) == []
    assert _check(_row(_price(500.0, "reserved_3y", "month"))) == []


def test_gpu_count_bounds() -> None:
    assert _check(_row(_price(1.0), count=1 / 6)) == []
    assert _check(_row(_price(1.0), count=0))
    assert _check(_row(_price(1.0), count=64))


def test_as_of_formats() -> None:
    assert parse_as_of("2026-11-30") and parse_as_of("2023-06") and parse_as_of("2024")
    assert parse_as_of("unknown (skypilot snapshot)") is None
    assert parse_as_of("2026-13-01") is None


def test_offer_without_price_needs_a_reason() -> None:
    assert any("no price and no reason" in r for r in _check(_row()))


@given(st.floats(min_value=0.0, max_value=MIN_USD_PER_GPU_HOUR, exclude_min=True, exclude_max=True))
def test_a_price_below_the_sanity_floor_fails(amount: float) -> None:
    # 5e-324 (the smallest float) was once recommended at $0.0004 all-in.
    assert any("below the sanity floor" in r for r in _check(_row(_price(amount))))
    assert any("below the sanity floor" in r for r in _check(_row(_price(5e-324))))


def test_gpu_counts_are_whole_numbers_or_a_real_fraction() -> None:
    assert _check(_row(_price(0.5), count=0.167)) == []  # Azure NV6ads_A10_v5: 1/6 of an A10
    for count in (1e-300, 0.05, 2.5, 17.0):
        assert any("GPU count" in r for r in _check(_row(_price(5.0), count=count))), count


def test_names_with_control_characters_fail() -> None:
    for region in ("us-east-1\nINJECT", "us-east-1\r", "us\x00east", "us-east-1\u2028x", "'quoted'"):
        row = _row(_price(1.0))
        row = OfferRow(**{**row.__dict__, "region": region})
        assert any("is not a name" in r for r in _check(row)), region
