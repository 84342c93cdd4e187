"""Billing arithmetic, pinned with hand-computed numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from plan_helpers import AWS_TIERS

from gpuplan.plan.billing import billed_hours, compute_cost_usd, tiered_cost_usd

NAN = math.nan


def _one(x: np.ndarray) -> float:
    return float(x[0])


def test_per_second_billing_bills_exact_seconds_above_the_minimum() -> None:
    # 1.01 h = 3636 s; per-second steps -> 3636 s = 1.01 h; the 60 s minimum does not bind.
    assert _one(billed_hours(np.array([1.01]), np.array([1.0]), np.array([60.0]))) == pytest.approx(1.01)


def test_per_second_billing_applies_the_minimum_to_short_jobs() -> None:
    # 30 s of use with a 60 s minimum -> 60 s = 1/60 h.
    h = 30.0 / 3600.0
    assert _one(billed_hours(np.array([h]), np.array([1.0]), np.array([60.0]))) == pytest.approx(1 / 60)


def test_hourly_billing_rounds_up_to_whole_hours() -> None:
    # 1.01 h at 3600 s steps -> ceil(1.01) = 2 h; exactly 3 h stays 3 h.
    out = billed_hours(np.array([1.01, 3.0]), np.array([3600.0, 3600.0]), np.array([NAN, NAN]))
    assert out.tolist() == pytest.approx([2.0, 3.0])


def test_per_minute_billing_rounds_up_to_the_minute() -> None:
    # 61.5 s -> 2 minutes = 120 s = 0.0333 h.
    out = billed_hours(np.array([61.5 / 3600]), np.array([60.0]), np.array([NAN]))
    assert _one(out) == pytest.approx(120 / 3600)


def test_unknown_granularity_bills_by_the_hour() -> None:
    # nan granularity -> hourly: 0.2 h -> 1 h.
    assert _one(billed_hours(np.array([0.2]), np.array([NAN]), np.array([NAN]))) == pytest.approx(1.0)


def test_on_demand_cost_is_price_times_billed_hours_times_instances() -> None:
    # $21.96/h, 2.5 h billed per second, 3 instances -> 21.96 × 2.5 × 3 = 164.70
    cost = compute_cost_usd(
        np.array([2.5]), np.array([21.96]), np.array([1.0]), np.array([NAN]),
        np.array([1.0]), np.array([60.0]), np.array([3.0]),
    )  # fmt: skip
    assert _one(cost) == pytest.approx(164.70)


def test_monthly_subscription_rounds_up_to_whole_months() -> None:
    # 800 h at CNY-converted $2,000/month: ceil(800/730) = 2 months -> $4,000 per instance;
    # 730 h exactly -> 1 month -> $2,000.
    cost = compute_cost_usd(
        np.array([800.0, 730.0]), np.array([2000.0, 2000.0]), np.array([730.0, 730.0]),
        np.array([NAN, NAN]), np.array([NAN, NAN]), np.array([NAN, NAN]), np.array([1.0, 1.0]),
    )  # fmt: skip
    assert cost.tolist() == pytest.approx([4000.0, 2000.0])


def test_reserved_is_priced_as_the_whole_commitment() -> None:
    # 1-year reservation at $13/h effective: a 10 h job still pays 13 × 8760 = $113,880 per instance.
    cost = compute_cost_usd(
        np.array([10.0]), np.array([13.0]), np.array([1.0]), np.array([8760.0]),
        np.array([1.0]), np.array([NAN]), np.array([2.0]),
    )  # fmt: skip
    assert _one(cost) == pytest.approx(13.0 * 8760 * 2)


def test_a_services_reservation_is_billed_its_months_share_of_the_term() -> None:
    # A service planned for one month on a 1-year reservation at $13.92/h: 13.92 × 730 × 2 instances
    # ($20,323), not the whole term ($243,878, which never beat on-demand's 21.96 × 730 × 2 = $32,062);
    # a job of 10 h still pays the whole term, and a monthly price one month.
    cost = compute_cost_usd(
        np.array([730.2, 730.2, 730.2]), np.array([13.92, 13.92, 2000.0]), np.array([1.0, 1.0, 730.0]),
        np.array([8760.0, 26280.0, NAN]), np.array([1.0, 1.0, NAN]), np.array([NAN, NAN, NAN]),
        np.array([2.0, 2.0, 1.0]), calendar_months=1.0,
    )  # fmt: skip
    assert cost.tolist() == pytest.approx([13.92 * 730 * 2, 13.92 * 730 * 2, 2000.0])


def test_egress_below_the_free_tier_costs_nothing() -> None:
    assert _one(tiered_cost_usd(np.array([80.0]), AWS_TIERS)) == 0.0


def test_egress_crossing_one_tier_boundary() -> None:
    # 150 GB: 100 GB free + 50 GB × $0.09 = $4.50
    assert _one(tiered_cost_usd(np.array([150.0]), AWS_TIERS)) == pytest.approx(4.50)


def test_egress_crossing_several_tier_boundaries() -> None:
    # 60,000 GB: 100 × 0 + (10,240 − 100) × 0.09 + (51,200 − 10,240) × 0.085 + (60,000 − 51,200) × 0.07
    #          = 0 + 912.60 + 3,481.60 + 616.00 = 5,010.20
    assert _one(tiered_cost_usd(np.array([60_000.0]), AWS_TIERS)) == pytest.approx(5010.20)
