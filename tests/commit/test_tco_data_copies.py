"""Away from its data, a workload demand's dataset is moved in for every run or kept in the region
(moved in once, stored to the horizon's end), whichever costs less for the runs placed there; the
copy is a fixed cost, paid whole, never scaled by demand or by spot overhead."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from tco_helpers import priced_offer

from gpuplan.commit import Demand, Schedule, TcoProblem, optimise
from gpuplan.commit.model import RunData
from gpuplan.plan.input_types import RegionCosts
from gpuplan.plan.region_costs import FALLBACK_OBJECT_USD_PER_GB_MONTH, CatalogRanges, CostFacts

#: ImageNet's 150 GB moved in at $0.09/GB ($13.50) for a run in "far", $0.50 of results back, $1
#: of disks a run; or one copy kept in the region at $0.02/GB-month ($3.00 a month).
FAR = RunData(
    provider="p",
    region="far",
    transfer_usd=14.0,
    storage_usd=1.0,
    dataset_in_usd=13.5,
    copy_in_usd=13.5,
    copy_storage_usd_per_month=3.0,
)


def _retrain(runs_by_month: tuple[float, ...], **kw: object) -> Demand:
    # a run: 4 GPUs × 25 h = 100 GPU-hours
    return Demand(
        name="retrain",
        gpu="G",
        gpu_hours=tuple(100.0 * r for r in runs_by_month),
        run_hours=25.0,
        gpus_per_run=4.0,
        gpu_step=4.0,
        run_data=(FAR,),
        gpu_hours_per_run=100.0,
        **kw,  # type: ignore[arg-type]
    )


def test_a_year_of_72_runs_away_from_the_data_keeps_a_copy_and_costs_less() -> None:
    s = optimise(TcoProblem(horizon_months=12, demands=(_retrain((6.0,) * 12),), offers=(priced_offer(),)))
    (copy,) = s.data_copies
    # moved in for each run: 72 × $13.50 = $972; kept: $13.50 once + 12 × $3 = $49.50
    assert copy.kept and copy.runs == pytest.approx(72.0)
    assert copy.per_run_usd == pytest.approx(972.0) and copy.kept_usd == pytest.approx(49.5)
    # 7,200 GPU-hours × $1 + 72 runs × ($0.50 back + $1 disks) + $49.50 = $7,357.50, against
    # $8,280 when every run paid its $15 of transfer and disks
    assert s.total_usd == pytest.approx(7357.5)
    assert s.data_usd == pytest.approx(72 * 1.5 + 49.5)
    # the copy's transfer in its first month, its storage in every month
    assert s.monthly[0].data_usd == pytest.approx(6 * 1.5 + 13.5 + 3.0)
    assert s.monthly[11].data_usd == pytest.approx(6 * 1.5 + 3.0)
    assert s.all_on_demand_usd == pytest.approx(7357.5)


def test_a_single_run_a_year_moves_its_data_in_for_that_run() -> None:
    runs = (0.0,) * 5 + (1.0,) + (0.0,) * 6
    s = optimise(TcoProblem(horizon_months=12, demands=(_retrain(runs),), offers=(priced_offer(),)))
    (copy,) = s.data_copies
    # once: $13.50, against $13.50 + 7 months (June to December) × $3 of a copy kept
    assert not copy.kept and copy.first_month == 5
    assert copy.per_run_usd == pytest.approx(13.5) and copy.kept_usd == pytest.approx(13.5 + 7 * 3.0)
    assert s.total_usd == pytest.approx(100.0 + 15.0)
    assert s.monthly[5].data_usd == pytest.approx(15.0)


def test_the_copy_is_a_fixed_cost_whatever_the_demand_does() -> None:
    s = optimise(TcoProblem(horizon_months=12, demands=(_retrain((6.0,) * 12),), offers=(priced_offer(),)))
    # 30 % fewer runs at once: GPU time and the runs' own charges fall, the copy stays whole
    low = dict(s.sensitivity)[-30.0]
    assert low == pytest.approx(0.7 * 7200.0 + 0.7 * 72 * 1.5 + 49.5)


def test_spot_overhead_does_not_multiply_the_one_off_transfer() -> None:
    spot = priced_offer(pricing="spot", interruptions_per_hour=1 / 24)
    demand = _retrain((6.0,) * 12, interruptible=True, checkpoint_write_h=0.05)
    s = optimise(TcoProblem(horizon_months=12, demands=(demand,), offers=(spot,)))
    f = s.spot_overhead["retrain"]
    assert f > 1.0
    (copy,) = s.data_copies
    assert copy.kept and copy.kept_usd == pytest.approx(49.5)
    # the disks are paid for the run's longer hours; the results go back once a run; the copy once
    assert s.data_usd == pytest.approx(72 * (0.5 + 1.0 * f) + 49.5)


def test_data_in_its_own_region_has_no_copy_to_keep() -> None:
    home = RunData(provider="p", region="home", transfer_usd=0.5, storage_usd=1.0)
    demand = replace(_retrain((6.0,) * 12), run_data=(home,))
    s = optimise(TcoProblem(horizon_months=12, demands=(demand,), offers=(priced_offer("home"),)))
    assert s.data_copies == ()
    assert s.total_usd == pytest.approx(7200.0 + 72 * 1.5)


def test_a_demand_split_over_two_regions_pays_a_whole_copy_in_each_that_keeps_one() -> None:
    # 219 runs of 5 GPU-hours a month (1,095: 1.5 GPUs at once all month): a committed GPU in
    # "far" ($146 a month) serves 730 of them; the 365 above it are cheaper on demand in "near"
    # ($110). Each region keeps a copy of its own, paid whole, not the share of its hours.
    near = replace(FAR, region="near")
    demand = Demand(
        name="tagger",
        gpu="G",
        gpu_hours=(1095.0,) * 3,
        run_hours=5.0,
        run_data=(FAR, near),
        gpu_hours_per_run=5.0,
    )
    committed = priced_offer(usd_per_hour=0.2, pricing="monthly", term_months=1)
    s = optimise(
        TcoProblem(horizon_months=3, demands=(demand,), offers=(committed, priced_offer("near", 0.3)))
    )
    assert {c.region: c.kept for c in s.data_copies} == {"far": True, "near": True}
    runs = 3 * 1095.0 / 5.0
    assert s.data_usd == pytest.approx(runs * 1.5 + 2 * (13.5 + 3 * 3.0))


def test_an_unknown_object_storage_price_is_bounded_never_free() -> None:
    known = RegionCosts(provider="p", region="a", object_storage_usd_per_gb_month=0.02)
    facts = CostFacts([known, RegionCosts(provider="p", region="b")])
    assert facts.object_storage("p", "a") == (0.02, "")
    price, said = facts.object_storage("p", "b")
    assert price == 0.02 and "unknown; assumed $0.020/GB-month (highest known)" in said  # the highest known
    # bounded by the whole catalog where it is given, else by the cited constant
    ranged = CostFacts(
        [known, RegionCosts(provider="p", region="b")], catalog_ranges=CatalogRanges(object=(0.01, 0.05))
    )
    assert ranged.object_storage("p", "b")[0] == 0.05
    assert CostFacts([]).object_storage("p", "b")[0] == FALLBACK_OBJECT_USD_PER_GB_MONTH > 0
    assert math.isfinite(price)


def _reclaims(demand: Demand, rate: float) -> float:
    """A run's expected reclaims on one GPU of spot at ``rate`` per hour (the planner's model)."""
    import numpy as np

    from gpuplan.plan.spot import spot_times

    nodes = 4  # a run of 4 GPUs on 1-GPU instances: any of the 4 stops it
    t = spot_times(
        np.array([demand.run_hours]), np.array([rate * nodes]), demand.checkpoint_write_h, demand.restart_h
    )
    return float(t.interruptions[0])


def test_a_spot_restart_moves_the_dataset_in_again_unless_a_copy_is_kept() -> None:
    # A reclaim may lose the disks that hold the dataset (the planner's conservative bound): each
    # restart moves it in again, $13.50, as ``plan`` pays egress in × interruptions. Was: once a run.
    far = replace(FAR, recopy_usd=13.5)
    once = (0.0,) * 5 + (1.0,) + (0.0,) * 6
    demand = replace(_retrain(once, interruptible=True, checkpoint_write_h=0.05), run_data=(far,))

    def year(rate: float, d: Demand = demand) -> tuple[Schedule, float, float]:
        spot = priced_offer(pricing="spot", interruptions_per_hour=rate)
        s = optimise(TcoProblem(horizon_months=12, demands=(d,), offers=(spot,)))
        return s, _reclaims(d, rate), s.spot_overhead["retrain"]

    # one run, 0.45 restarts: moved in for the run and for each restart, cheaper than a copy kept
    # seven months ($13.50 + 7 × $3)
    s, n, f = year(1 / 240)
    assert 0.3 < n < 1
    (copy,) = s.data_copies
    assert not copy.kept and copy.recopies == pytest.approx(n)
    assert copy.per_run_usd == pytest.approx(13.5 * (1 + n))
    assert s.data_usd == pytest.approx(0.5 + 1.0 * f + 13.5 * (1 + n))
    # at 1/24 per h, 4.9 restarts: a copy kept in the region is cheaper, and it refills the
    # restarts' disks for free (was: the run moved it in once, and no copy was kept)
    s, n, f = year(1 / 24)
    (copy,) = s.data_copies
    assert n > 4 and copy.kept and copy.per_run_usd == pytest.approx(13.5 * (1 + n))
    assert s.data_usd == pytest.approx(0.5 + 1.0 * f + 13.5 + 7 * 3.0)
    # where no copy can be kept (dataset_in_usd 0: a marketplace's host), every restart pays it again
    market = replace(
        FAR, dataset_in_usd=0.0, copy_in_usd=0.0, copy_storage_usd_per_month=0.0, recopy_usd=13.5
    )
    s, n, f = year(1 / 24, replace(demand, run_data=(market,)))
    assert s.data_copies == ()
    assert s.data_usd == pytest.approx(14.0 + 1.0 * f + 13.5 * n)
