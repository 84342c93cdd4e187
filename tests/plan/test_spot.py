"""The spot risk model, pinned with hand-computed numbers (see plan/spot.py for the formulas)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from gpuplan.plan.spot import (
    BATCH_CHUNK_BATCHES,
    DEFAULT_SPOT_RATE,
    band_rate_per_hour,
    deadline_miss_probability,
    restart_from_scratch,
    restart_miss_probability,
    spot_times,
)


def test_young_daly_interval_and_expected_time() -> None:
    # W = 10 h, λ = 1/24 /h (MTBI 24 h), C = 0.05 h (3 min), R = 0.2 h:
    # τ = sqrt(2 × 0.05 × 24) = sqrt(2.4) = 1.549193 h
    # W' = 10 × (1 + 0.05 / 1.549193) = 10.322749 h   (checkpoint overhead 0.322749 h)
    # δ = τ/2 + R = 0.774597 + 0.2 = 0.974597 h
    # T = W' / (1 − λδ) = 10.322749 / (1 − 0.040608) = 10.759680 h
    # N = λT = 0.448320 interruptions; lost work + restarts = T − W' = 0.436931 h
    st = spot_times(np.array([10.0]), np.array([1 / 24]), checkpoint_write_h=0.05, restart_h=0.2)
    assert float(st.interval_h[0]) == pytest.approx(1.549193, rel=1e-6)
    assert float(st.checkpoint_overhead_h[0]) == pytest.approx(0.322749, rel=1e-5)
    assert float(st.expected_h[0]) == pytest.approx(10.759680, rel=1e-6)
    assert float(st.interruptions[0]) == pytest.approx(0.448320, rel=1e-5)
    assert float(st.lost_h[0]) == pytest.approx(0.436931, rel=1e-5)
    assert bool(st.stable[0])


def test_interval_is_capped_at_the_job_length() -> None:
    # W = 0.5 h, MTBI 24 h, C = 0.05 h: sqrt(2 × 0.05 × 24) = 1.55 h > W, so τ = W = 0.5 h:
    # overhead = 0.5 × 0.05 / 0.5 = 0.05 h (one checkpoint).
    st = spot_times(np.array([0.5]), np.array([1 / 24]), checkpoint_write_h=0.05, restart_h=0.2)
    assert float(st.interval_h[0]) == pytest.approx(0.5)
    assert float(st.checkpoint_overhead_h[0]) == pytest.approx(0.05)


def test_no_checkpoint_costs_only_restarts() -> None:
    # Inference: C = 0, δ = R = 0.5 h, λ = 0.1 /h: T = 4 / (1 − 0.05) = 4.210526 h.
    st = spot_times(np.array([4.0]), np.array([0.1]), checkpoint_write_h=0.0, restart_h=0.5)
    assert math.isnan(float(st.interval_h[0]))
    assert float(st.expected_h[0]) == pytest.approx(4.210526, rel=1e-6)


def _simulate_restarts(work: float, rate: float, restart: float, jobs: int, seed: int) -> np.ndarray:
    """Completion times of ``jobs`` jobs restarted from scratch, drawn one interruption at a time."""
    rng = np.random.default_rng(seed)
    out = np.empty(jobs)
    for i in range(jobs):
        t = 0.0
        while (x := rng.exponential(1.0 / rate)) < work:
            t += x + restart
        out[i] = t + work
    return out


def test_without_checkpoints_an_interruption_restarts_the_job_from_the_beginning() -> None:
    # W = 11.5 h, r = 1/24 /h, R = 1/6 h: N = e^(11.5/24) − 1 = 0.614728,
    # T = N × (24 + 1/6) = 14.8559 h (not the 11.58 h of a job that resumes), lost T − W = 3.3559 h.
    st = spot_times(np.array([11.5]), np.array([1 / 24]), 0.0, 1 / 6, from_scratch=True)
    assert float(st.interruptions[0]) == pytest.approx(0.614728, rel=1e-5)
    assert float(st.expected_h[0]) == pytest.approx(14.8559, rel=1e-5)
    assert float(st.lost_h[0]) == pytest.approx(3.3559, rel=1e-4)
    assert math.isnan(float(st.interval_h[0])) and bool(st.stable[0])
    # the interruptions are r × the running time: T = N × (1/r + R)
    assert float(st.expected_h[0]) == pytest.approx(float(st.interruptions[0]) * (24 + 1 / 6), rel=1e-12)
    # checkpointed work keeps its model whatever the flag says
    ckpt = spot_times(np.array([10.0]), np.array([1 / 24]), 0.05, 0.2, from_scratch=True)
    assert float(ckpt.expected_h[0]) == pytest.approx(10.759680, rel=1e-6)


def test_restart_from_scratch_matches_a_simulation() -> None:
    # 20 000 simulated jobs, W = 6 h, r = 0.2 /h, R = 0.5 h: T = (e^1.2 − 1)(5 + 0.5) = 12.76 h;
    # the simulated mean's standard error is about 0.08 h.
    times = _simulate_restarts(6.0, 0.2, 0.5, 20_000, seed=7)
    st = restart_from_scratch(np.array([6.0]), np.array([0.2]), 0.5)
    assert float(st.expected_h[0]) == pytest.approx(math.expm1(1.2) * 5.5, rel=1e-12)
    assert float(st.expected_h[0]) == pytest.approx(times.mean(), abs=0.3)


def test_restart_deadline_miss_is_exact_and_matches_a_simulation() -> None:
    # W = 10, r = 1/24, R = 1, D = 12 (only k = 0 terms): e^(−10/24) × (1 + G₁(1) + G₂(0))
    # = 0.659241 × 1.040811 = 0.686145, so P(miss) = 0.313855 (a job that resumed: 0.014).
    assert restart_miss_probability(10.0, 1 / 24, 1.0, 12.0) == pytest.approx(0.313855, rel=1e-5)
    assert restart_miss_probability(13.0, 1 / 24, 1.0, 12.0) == 1.0
    assert restart_miss_probability(10.0, 0.0, 1.0, 12.0) == 0.0
    # a deadline past 2W brings in the alternating terms (k ≥ 1); against 20 000 simulated jobs
    # (standard error about 0.0035)
    for work, rate, restart, deadline in [(6.0, 0.2, 0.5, 15.0), (4.0, 0.3, 0.25, 13.0)]:
        times = _simulate_restarts(work, rate, restart, 20_000, seed=11)
        p = restart_miss_probability(work, rate, restart, deadline)
        assert p == pytest.approx(float((times > deadline).mean()), abs=0.015)
        assert 0.05 < p < 0.95


def test_restart_deadline_miss_far_past_the_work_is_simulated_not_lost_to_rounding() -> None:
    # W = 0.1 h, r = 1 /h, R = 0.01 h, D = 50 h: E[T] = (e^0.1 − 1)(1 + 0.01) = 0.106 h, so the job
    # all but never misses; the series' terms C(n, k) e^(−r(k+1)W) Gₙ grow to about 1e13 here and
    # summed they say 1.0. It is simulated instead (fixed seed): the same answer twice.
    p = restart_miss_probability(0.1, 1.0, 0.01, 50.0)
    assert p == restart_miss_probability(0.1, 1.0, 0.01, 50.0)
    assert 0.0 <= p < 0.01


def test_interruptions_faster_than_progress_are_unstable() -> None:
    # λ = 2 /h, R = 1 h: λδ ≥ 2 > 1, the job is expected never to finish.
    st = spot_times(np.array([4.0]), np.array([2.0]), checkpoint_write_h=0.0, restart_h=1.0)
    assert not bool(st.stable[0])
    assert math.isinf(float(st.expected_h[0]))


def test_band_upper_bound_converts_monthly_share_to_hourly_rate() -> None:
    # "5-10%": p = 0.11, the advisor feed's published max; λ = −ln(0.89) / 730 = 0.1165338 / 730
    # = 1.596354e-4 per hour.
    rate = band_rate_per_hour("5-10%")
    assert rate is not None and not rate.assumed
    assert rate.per_hour == pytest.approx(1.596354e-4, rel=1e-6)
    # "<5%": p = 0.05; λ = −ln(0.95) / 730 = 0.0512933 / 730 = 7.02648e-5.
    lt5 = band_rate_per_hour("<5%")
    assert lt5 is not None and lt5.per_hour == pytest.approx(7.02648e-5, rel=1e-5)


def test_open_band_is_an_explicit_assumption() -> None:
    # ">20%" publishes no upper bound: costed as an unknown rate, and said so
    rate = band_rate_per_hour(">20%")
    assert rate is not None and rate.assumed and "costed as an unknown rate" in rate.source
    assert rate.per_hour == pytest.approx(1 / 24)


def test_unreadable_band_falls_back_to_the_labelled_default() -> None:
    assert band_rate_per_hour("") is None
    assert DEFAULT_SPOT_RATE.assumed and DEFAULT_SPOT_RATE.source.startswith("assumed")


def test_deadline_miss_probability_poisson_tail() -> None:
    # W' = 10 h, δ = 1 h, λ = 1/24, D = 12 h: n = floor((12 − 10)/1) = 2 interruptions allowed;
    # μ = λD = 0.5; P(N ≥ 3) = 1 − e^−0.5 (1 + 0.5 + 0.125) = 1 − 0.985612 = 0.014388
    p = deadline_miss_probability(10.0, 1.0, 1 / 24, 12.0)
    assert p == pytest.approx(0.014388, rel=1e-4)


def test_deadline_miss_probability_edges() -> None:
    # Work alone beyond the deadline: certain miss. No slack for even one interruption (n = 0):
    # P(N ≥ 1) = 1 − e^−μ with μ = 0.1 × 10 = 1 -> 0.632121.
    assert deadline_miss_probability(11.0, 1.0, 0.1, 10.0) == 1.0
    assert deadline_miss_probability(9.5, 1.0, 0.1, 10.0) == pytest.approx(0.632121, rel=1e-5)
    # Huge slack: effectively never.
    assert deadline_miss_probability(1.0, 0.1, 0.01, 1000.0) == 0.0


def test_range_miss_probability_reads_the_estimate_range_as_triangular() -> None:
    from gpuplan.plan.spot import range_miss_probability

    # low 8, mode 10, high 14, D = 12: (14 − 12)² / ((14 − 8)(14 − 10)) = 4 / 24 = 0.166667
    assert range_miss_probability(8.0, 10.0, 14.0, 12.0) == pytest.approx(4 / 24)
    # D = 9 (below the mode): 1 − (9 − 8)² / ((14 − 8)(10 − 8)) = 1 − 1/12 = 0.916667
    assert range_miss_probability(8.0, 10.0, 14.0, 9.0) == pytest.approx(11 / 12)
    assert range_miss_probability(8.0, 10.0, 14.0, 14.0) == 0.0
    assert range_miss_probability(8.0, 10.0, 14.0, 7.0) == 1.0


def test_rates_come_from_the_band_else_the_providers_stated_default() -> None:
    from gpuplan.plan.spot import spot_default, spot_rates

    bands = np.array(["5-10%", "", ""])
    providers = np.array(["aws", "alibaba", "somecloud"])
    per_hour, ids, rates = spot_rates(bands, providers)
    assert per_hour[0] == pytest.approx(1.596354e-4, rel=1e-6)  # from the band (the feed's max, 11 %)
    assert per_hour[1] == per_hour[2] == pytest.approx(1 / 24)  # stated defaults, assumed
    assert rates[ids[1]] == spot_default("alibaba") and "protection period" in rates[ids[1]].source
    assert rates[ids[2]] is DEFAULT_SPOT_RATE


def test_a_providers_stated_default_reads_as_before_and_in_chinese() -> None:
    from gpuplan.i18n import use_language
    from gpuplan.plan.spot import spot_default

    # The English sentence the plan file carries, composed from the module's clause.
    assert spot_default("tencent").source == (
        "assumed: 1 interruption per 24 instance-hours (Tencent publishes no rate)"
    )
    with use_language("zh"):
        assert spot_default("tencent").shown() == "假设每 24 实例小时中断 1 次（腾讯云未公布中断率）"
        assert DEFAULT_SPOT_RATE.shown().startswith("假设每 24 实例小时中断 1 次")


def test_an_open_band_is_costed_as_an_unknown_rate_with_its_lower_edge_as_the_best_case() -> None:
    # ">20%" read as 40 % a month was one interruption per 59 days: 60× safer than no band at all
    r = band_rate_per_hour(">20%")
    assert r is not None and r.assumed
    assert r.per_hour == DEFAULT_SPOT_RATE.per_hour
    assert r.best_per_hour == pytest.approx(-math.log(0.8) / 730)
    closed = band_rate_per_hour("15-20%")
    # the feed's bands overlap: '15-20%' is published up to 22 %, above the open band's lower edge
    assert closed is not None and closed.per_hour == pytest.approx(-math.log(0.78) / 730)
    assert closed.per_hour > r.best_per_hour


def test_the_catalogs_bands_are_named_once_together_and_other_sources_each_once() -> None:
    from gpuplan.plan.spot import rates_shown

    rates = [band_rate_per_hour(b) for b in ("10-15%", "<5%", ">20%", "<5%")]
    shown = rates_shown([r for r in rates if r is not None] + [DEFAULT_SPOT_RATE, DEFAULT_SPOT_RATE])
    assert len(shown) == 3, shown
    assert "'10-15%', '<5%', '>20%'" in shown[0] and "'10-15%': 16%, '<5%': 5%" in shown[0]
    assert shown[1] == (
        "open band '>20%': no upper bound, costed as an unknown rate (1 interruption per 24 "
        "instance-hours), best case 20% a month"
    )
    assert shown[2].startswith("assumed: 1 interruption per 24")


def test_the_catalogs_bands_are_joined_in_the_users_language() -> None:
    from gpuplan.i18n import use_language
    from gpuplan.plan.spot import rates_shown

    rates = [band_rate_per_hour(b) for b in ("10-15%", "<5%")]
    with use_language("zh"):
        (shown,) = rates_shown([r for r in rates if r is not None])
    assert "'10-15%'、'<5%'" in shown, shown


def test_a_deadline_many_times_the_work_is_missed_at_most_by_the_failure_bound() -> None:
    # 24 h of work, one interruption a day, a 2,000 h deadline: missing it takes more than 80
    # failures of at most 24 h + 10 min each, each with probability 1 − e^(−1): the bound, at once
    from gpuplan.plan.spot import restart_miss_probability

    p = restart_miss_probability(24.0, 1 / 24, 1 / 6, 2000.0)
    assert p == pytest.approx((1 - math.exp(-1.0)) ** (math.floor(1976 / (24 + 1 / 6)) + 1))
    assert p < 1e-6


def test_work_resumed_by_chunks_loses_half_a_chunk_and_the_restart() -> None:
    # W = 48 h, λ = 1/24, R = 1/6 h, a chunk every 0.1 h: T = 48 / (1 − (0.05 + 1/6)/24) = 48.4373 h,
    # where starting over takes (e² − 1)(24 + 1/6) = 154.40 h
    chunk = np.array([0.1, math.inf])
    st = spot_times(np.full(2, 48.0), np.full(2, 1 / 24), 0.0, 1 / 6, from_scratch=True, resume_every_h=chunk)
    assert st.expected_h[0] == pytest.approx(48.0 / (1 - (0.05 + 1 / 6) / 24), rel=1e-12)
    assert st.expected_h[0] == pytest.approx(48.4373, abs=1e-4)
    assert st.interval_h[0] == 0.1 and st.checkpoint_overhead_h[0] == 0.0
    # a chunk of no known length: the work starts over, as without chunks
    scratch = restart_from_scratch(np.array([48.0]), np.array([1 / 24]), 1 / 6)
    assert st.expected_h[1] == pytest.approx(scratch.expected_h[0], rel=1e-12)
    assert st.expected_h[1] == pytest.approx(154.40, abs=0.01)


def test_the_planners_chunk_is_the_batch_jobs() -> None:
    # the chunk the planner prices a reclaim at is the one the batch job deploy writes keeps
    text = (Path(__file__).parents[2] / "src/gpuplan/deploy/templates/batch_entry.py").read_text()
    assert f"CHUNK_BATCHES = {BATCH_CHUNK_BATCHES}\n" in text


def test_the_bands_are_said_to_come_from_the_source_each_offer_names_with_its_date() -> None:
    # the shipped bands are instances.vantage.sh's pct_interrupt of 2025-11-30, which each offer's
    # term names; the words had said "AWS Spot Instance Advisor ... / Azure eviction rate"
    from gpuplan.plan.spot import band_source, rates_shown, spot_rates

    term = {
        "interruption_band_source": "instances.vantage.sh AWS list prices of 2025-11-30 (aws-gpu)",
        "interruption_band_as_of": "2025-11-30",
    }
    source = band_source(term, "SkyPilot catalog aws/vms.csv", "2025-06/2026-12-02")
    assert source == term["interruption_band_source"]
    assert band_source({}, "https://spot-price.s3.amazonaws.com/spot.js", "2026-12-01").endswith(
        ", 2026-12-01"
    )
    bands = np.array(["5-10%", "<5%"])
    _, _, rates = spot_rates(bands, np.array(["aws", "aws"]), np.array([source, source]))
    (shown,) = rates_shown(rates)
    assert "instances.vantage.sh" in shown and "2025-11-30" in shown
    # the band is the compilation's; the feed is named for the bound it publishes only
    assert "Azure" not in shown and "from the catalog (instances.vantage.sh" in shown


def test_a_plans_offer_table_carries_the_shipped_bands_source(fresh_catalog: Path) -> None:
    from gpuplan.catalog import open_store
    from gpuplan.plan.build_inputs import offer_table_from_prices

    store = open_store(str(fresh_catalog))
    try:
        spot = [
            o for o in store.offers(provider="aws", gpu="H100-SXM", pricing="spot") if o.interruption_band
        ]
    finally:
        store.close()
    table = offer_table_from_prices(spot)
    assert len(table) and all("instances.vantage.sh" in s for s in table.interruption_band_source)
    assert all("2025-11-30" in s for s in table.interruption_band_source)
