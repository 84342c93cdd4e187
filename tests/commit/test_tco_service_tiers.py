"""A 24/7 service with a mean below its peak is priced as the fleet its day needs, hour by hour
(the tiers an autoscaler keeps), not its peak fleet all month; its on-demand baseline is that
autoscaled fleet too."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from gpuplan.catalog import Store, open_store
from gpuplan.commit import Demand, load_usage, tco
from gpuplan.commit.adapters import demands_from_usage
from gpuplan.report.tco import summary_lines, tco_json

#: An outside CTO's chat service: Llama-3.1-8B, 15 requests/s at its peak, 6 on average.
SERVICE = """\
name: chat
task: infer
model: {preset: llama-8b}
inputs: {batch_size: 16, seq_len: 1050}
precision: bf16
serving: {requests_per_s: %s, prompt_tokens: 800, output_tokens: 250%s}
"""


@pytest.fixture(scope="module")
def store(seeded_copy: Callable[[str], Path]) -> Iterator[Store]:
    # its limit wide enough that the snapshot's reserved prices (2025-11-30) are current: a schedule
    # leaves stale commitment prices out, and these tests are about what it reserves
    st = open_store(str(seeded_copy("tiers")), stale_after_days=800)
    yield st
    st.close()


def _usage(folder: Path, serving_extra: str = "", peak: float = 15) -> object:
    (folder / "svc.yaml").write_text(SERVICE % (peak, serving_extra))
    return load_usage(
        {
            "horizon_months": 12,
            "start": "2027-01",
            "base_dir": str(folder),
            "demands": [{"name": "service", "workload": "svc.yaml", "runs_per_month": 1}],
            "constraints": {"providers": ["aws"], "pricing": ["on_demand", "reserved_1y"]},
        }
    )


def _served(tiers: tuple[float, ...], said: object) -> tuple[float, ...]:
    """The hours a month each tier serves: its billed hours less its start-ups and scale-down delays."""
    return tuple(t - u for t, u in zip(tiers, said.start_up_hours, strict=True))  # type: ignore[attr-defined]


def _reserved_gpus(report: object) -> float:
    s = report.schedule  # type: ignore[attr-defined]
    return sum(c.units * c.offer.gpus_per_unit for c in s.commitments)


def test_a_service_with_a_mean_below_its_peak_reserves_fewer_gpus_and_costs_less(
    store: Store, tmp_path: Path
) -> None:
    # was: the peak fleet (3 L40S) all 730 h of every month, 3 reserved for a year, whatever the mean
    peak_only = tco(_usage(tmp_path), store=store, currency="USD")  # type: ignore[arg-type]
    tiered = tco(_usage(tmp_path, ", mean_requests_per_s: 6, min_replicas: 1"), store=store, currency="USD")  # type: ignore[arg-type]
    (flat,) = peak_only.problem.demands
    (day,) = tiered.problem.demands
    peak_gpus = flat.gpus_at_once(0)
    assert peak_gpus >= 2  # a fleet that can scale
    assert day.gpus_at_once(0) == peak_gpus  # the peak hour still has the peak fleet
    assert sum(day.gpu_hours) < sum(flat.gpu_hours)
    assert _reserved_gpus(tiered) < _reserved_gpus(peak_only)
    assert tiered.schedule.total_usd < peak_only.schedule.total_usd


def test_a_peak_only_service_keeps_its_peak_fleet_all_month_and_says_so(store: Store, tmp_path: Path) -> None:
    (demand,), (source,) = demands_from_usage(_usage(tmp_path), store)  # type: ignore[arg-type]
    assert not demand.tiers and not source.tiers
    assert demand.levels(0) == ((demand.gpus_per_run, 730.0),)
    assert "no mean_requests_per_s" in source.how


def test_a_service_one_instance_carries_keeps_it_all_month_and_says_why(store: Store, tmp_path: Path) -> None:
    # 3 requests/s: one L40S at 80 % of its capacity carries the peak; nothing to scale down
    (demand,), (source,) = demands_from_usage(_usage(tmp_path, ", mean_requests_per_s: 1", peak=3), store)  # type: ignore[arg-type]
    assert not demand.tiers and demand.levels(0) == ((demand.gpus_per_run, 730.0),)
    assert "one instance carries the peak" in source.how and "no mean_requests_per_s" not in source.how


def test_the_all_on_demand_baseline_is_the_autoscaled_fleet(store: Store, tmp_path: Path) -> None:
    report = tco(_usage(tmp_path, ", mean_requests_per_s: 6, min_replicas: 1"), store=store, currency="USD")  # type: ignore[arg-type]
    peak_only = tco(_usage(tmp_path), store=store, currency="USD")  # type: ignore[arg-type]
    (demand,) = report.problem.demands
    (flat,) = peak_only.problem.demands
    s, base = report.schedule, peak_only.schedule
    assert s.all_on_demand_usd is not None and base.all_on_demand_usd is not None
    # the same on-demand price per GPU-hour over the tiers' GPU-hours, not the peak's
    ratio = sum(demand.gpu_hours) / sum(flat.gpu_hours)
    gpu_time = s.all_on_demand_usd - report.schedule.data_usd
    assert gpu_time == pytest.approx((base.all_on_demand_usd - base.data_usd) * ratio, rel=0.02)
    assert any("services autoscaled" in line for line in summary_lines(report))
    doc = tco_json(report)
    assert doc["autoscaled_baseline"] is True
    (said,) = doc["demands"]
    assert [t["gpus"] for t in said["tiers"]] == [demand.gpu_step] * len(demand.tiers)
    assert "diurnal" in said["day_assumed"] and "15" in said["day_assumed"]


def test_min_replicas_keeps_that_many_all_month(store: Store, tmp_path: Path) -> None:
    (one,), _ = demands_from_usage(_usage(tmp_path, ", mean_requests_per_s: 6, min_replicas: 1"), store)  # type: ignore[arg-type]
    (two,), _ = demands_from_usage(  # type: ignore[arg-type]
        _usage(tmp_path, ", mean_requests_per_s: 6, min_replicas: 2"), store
    )
    assert one.tiers[0] == pytest.approx(730) and one.tiers[1] < 730
    assert two.tiers[:2] == pytest.approx((730, 730))
    assert sum(two.gpu_hours) > sum(one.gpu_hours)


def test_the_tiers_follow_the_day_the_simulator_draws(store: Store, tmp_path: Path) -> None:
    # simulate's diurnal trace for the same mean and peak: its rate curve, minute by minute, and the
    # replicas it needs at the plan's capacity of one at 80 % (a peak of 15 cannot hold a mean of 6
    # under the cosine: the peak is kept, its mean 7.5)
    from gpuplan.simulate import Shape, diurnal_trace

    (demand,), (source,) = demands_from_usage(
        _usage(tmp_path, ", mean_requests_per_s: 6, min_replicas: 1"), store
    )  # type: ignore[arg-type]
    trace = diurnal_trace(Shape(mean_requests_per_s=6, peak_requests_per_s=15, duration_s=86_400))
    assert trace.rate is not None and trace.rate.mean_requests_per_s == pytest.approx(7.5)
    assert "mean 7.5" in source.day
    # the replica-hours of a day: the tiers' hours a month over 730 h, × 24
    per_day = sum(demand.tiers) / 730 * 24
    assert 24 < per_day < 3 * 24


def test_tier_levels_scale_by_whole_copies_of_the_day_and_keep_the_gpu_hours() -> None:
    d = Demand(name="s", gpu="G", gpu_hours=(1.5 * (730 + 400),), busy_hours=(730,), tiers=(730, 400))
    # 1.5 copies: one step in each tier, and one more for half of each tier's hours
    assert d.levels(0) == ((1.0, 730), (1.0, 365), (1.0, 400), (1.0, 200))
    assert sum(g * h for g, h in d.levels(0, scale=2 / 1.5)) == pytest.approx(2 * 1130)
    assert np.isclose(d.gpus_at_once(0), 4)


def test_without_min_replicas_the_fleet_its_launch_keeps_is_priced_and_the_day_is_said(
    store: Store, tmp_path: Path
) -> None:
    # deploy keeps a service's autoscaler floor at the plan's fleet unless min_replicas is set, and
    # plan prices that fleet all month: tco had priced a day its launch never scales down to
    (flat,), (said,) = demands_from_usage(_usage(tmp_path, ", mean_requests_per_s: 6"), store)  # type: ignore[arg-type]
    (tiered,), _ = demands_from_usage(_usage(tmp_path, ", mean_requests_per_s: 6, min_replicas: 1"), store)  # type: ignore[arg-type]
    assert not flat.tiers and sum(flat.gpu_hours) > sum(tiered.gpu_hours)
    assert "no serving.min_replicas" in said.how and "with serving.min_replicas set" in said.how


def test_the_demand_change_of_a_service_that_follows_its_day_is_said_as_its_load(
    store: Store, tmp_path: Path
) -> None:
    # was: "the change is more or fewer runs at once, of the same size and hours" for a 24/7 service,
    # whose ±30 % scales its load: its GPU-hours in each tier of its day (Demand._tier_levels)
    from dataclasses import replace

    report = tco(_usage(tmp_path, ", mean_requests_per_s: 6, min_replicas: 1"), store=store, currency="USD")  # type: ignore[arg-type]
    changes = [line for line in summary_lines(report) if line.startswith("Demand -30%")]
    assert len(changes) == 1 and "runs at once" not in changes[0]
    assert (
        "(commitments fixed; the change is the load: each service's GPU-hours in each part of its day "
        in changes[0]
    )
    assert changes[0].endswith("scale with it; the rest bought by the hour)")
    # beside a run-based demand, each is said for what it is
    run = Demand(name="burst", gpu="G", gpu_hours=(80.0,) * 12, busy_hours=(10.0,) * 12)
    mixed = replace(report, problem=replace(report.problem, demands=(*report.problem.demands, run)))
    (change,) = [line for line in summary_lines(mixed) if line.startswith("Demand +30%")]
    assert (
        "the change is more or fewer runs at once, of the same size and hours; for the demand(s) service, "
        in change
    )
    assert (
        "whose fleet follows its day, it is the load: their GPU-hours in each part of the day scale with it"
        in change
    )
    peak_only = tco(_usage(tmp_path), store=store, currency="USD")  # type: ignore[arg-type]
    (flat,) = [line for line in summary_lines(peak_only) if line.startswith("Demand +30%")]
    assert (
        "(commitments fixed; the change is more or fewer runs at once, of the same size and hours; the rest"
        in flat
    )


def test_a_mean_the_day_cannot_hold_is_said_as_the_mean_taken_and_why(store: Store, tmp_path: Path) -> None:
    # was: "a cosine of peak/trough 4 cannot average 6 under a peak of 15: the peak is kept and its
    # quietest time falls to 0": a cosine under a peak of 15 averages at least 15 / 2 = 7.5 (its
    # trough at 0), so 7.5 is the mean sized for, and the GPU-hours are if anything high
    _, (source,) = demands_from_usage(_usage(tmp_path, ", mean_requests_per_s: 6, min_replicas: 1"), store)  # type: ignore[arg-type]
    assert source.day.endswith(
        "; a mean of 6 requests/s is lower than a cosine day under a peak of 15 can average: the mean is "
        "taken as 7.5, the lowest such a day reaches (its quietest hour at 0 rather than at 1/4 of the "
        "peak), so the GPU-hours are if anything high"
    )
    assert "cannot average" not in source.day


def test_a_service_priced_by_its_day_pays_its_instances_disks_for_the_hours_they_run(
    store: Store, tmp_path: Path
) -> None:
    # was: the peak fleet's disks (3 L40S instances) for all 730 h of the month, though a replica scaled
    # down is deleted with its disk: the tiers' instance-hours (730 + 429 + 254) of 3 × 730
    (flat,), _ = demands_from_usage(_usage(tmp_path, ", mean_requests_per_s: 6"), store)  # type: ignore[arg-type]
    (day,), _ = demands_from_usage(_usage(tmp_path, ", mean_requests_per_s: 6, min_replicas: 1"), store)  # type: ignore[arg-type]
    nodes = len(day.tiers)
    assert nodes == flat.gpus_per_run / day.gpu_step >= 2
    share = sum(day.tiers) / (nodes * 730)
    assert share < 0.7
    for peak, tiered in zip(flat.run_data, day.run_data, strict=True):
        assert peak.storage_usd > 0
        assert tiered.storage_usd == pytest.approx(peak.storage_usd * share)
        assert tiered.licence_usd == pytest.approx(peak.licence_usd * share)
        # the answers sent back and the copy kept in object storage do not follow the fleet
        assert tiered.transfer_usd == pytest.approx(peak.transfer_usd)
        assert tiered.copy_storage_usd_per_month == pytest.approx(peak.copy_storage_usd_per_month)


def test_a_service_day_is_sized_at_the_load_its_launch_holds_a_replica_at(
    store: Store, tmp_path: Path
) -> None:
    # A loose p95 target (60 s) the plan meets with its 3 replicas at 73 % of their capacity, the
    # count's rounding (15 / (6.84 × 80 %) needs 3): by the estimate it holds at 80 % too, so deploy's
    # autoscaler holds each replica at 80 %, and tco sizes the day at the same share: tiers of 730,
    # 429 and 254 h a month, as without the target (was: at 73 %, 730, 444 and 286 h, the plan's load
    # over its replicas taken as the share the target holds at).
    from gpuplan.api import tco as launch_tco

    loose = tco(
        _usage(tmp_path, ", mean_requests_per_s: 6, min_replicas: 1, p95_latency_ms: 60000"),
        store=store,
        currency="USD",
    )  # type: ignore[arg-type]
    plain = launch_tco(
        _usage(tmp_path, ", mean_requests_per_s: 6, min_replicas: 1"), store=store, currency="USD"
    )  # type: ignore[arg-type]
    launched = launch_tco(
        _usage(tmp_path, ", mean_requests_per_s: 6, min_replicas: 1, p95_latency_ms: 60000"),
        store=store,
        currency="USD",
    )  # type: ignore[arg-type]
    (day,), (said,) = launched.problem.demands, launched.demands
    # without the model's latencies (no trace: gpuplan.commit.tco alone) the plan's share is kept, the
    # conservative one: more replica-hours, never fewer
    assert sum(loose.problem.demands[0].tiers) >= sum(day.tiers)
    # the hours served (each tier is billed its start-ups and scale-down delays beside them)
    plain_day, plain_said = plain.problem.demands[0], plain.demands[0]
    assert _served(plain_day.tiers, plain_said) == pytest.approx((730.0, 428.875, 254.486), abs=1e-2)
    assert _served(day.tiers, said) == pytest.approx(_served(plain_day.tiers, plain_said), abs=1e-2)
    assert "holds only" not in said.day, said.day


def test_the_day_is_sized_at_the_load_it_is_given_for_a_replica(store: Store, tmp_path: Path) -> None:
    # where the serving simulation's replica carries less than the plan's estimate, deploy's target is
    # the simulation's × 80 %: the day's fleet is sized at that load, not at the plan's capacity
    from gpuplan.day_load import diurnal_day_rate
    from gpuplan.perf.replica_load import replica_load

    seen: list[float | None] = []

    def smaller(
        workload: object, profile: object, gpu: str, tp: int, capacity: float, latency_share: float | None
    ) -> object:
        seen.append(latency_share)
        # the simulation's replica carries 4.0 where the estimate's carries 6.836 (on every GPU alike)
        return replica_load(
            estimate_capacity_requests_per_s=capacity,
            simulation_capacity_requests_per_s=capacity * 4.0 / 6.836,
        )

    usage = _usage(tmp_path, ", mean_requests_per_s: 6, min_replicas: 1")
    (day,), (said,) = demands_from_usage(usage, store, replica_load=smaller)  # type: ignore[arg-type]
    # the plan asks it for each GPU and split it prices a day on (no latency target: no share)
    assert seen and set(seen) == {None}
    # 4.0 × 80 % = 3.2 requests/s a replica, at most the plan's 3 replicas
    need = np.clip(np.ceil(diurnal_day_rate(6, 15).rate_per_minute / 3.2 - 1e-9), 1, 3)
    assert _served(day.tiers, said) == pytest.approx([730 * float(np.mean(need >= k)) for k in (1, 2, 3)])
    assert said.start_up_hours[0] == 0 and all(h > 0 for h in said.start_up_hours[1:])
    assert "3.2 requests/s a replica (as deploy's autoscaler targets it: " in said.day
    assert "the target takes the smaller, the simulation's, at 80 %" in said.day


def test_a_service_sized_on_a_3_year_term_says_why_the_term_still_never_pays_off(
    store: Store, tmp_path: Path
) -> None:
    # was: "planner's cheapest option …: … reserved_3y" beside "reserved 3 years: 130% of its hours
    # (never pays off …)", unexplained: the planner bills a service's reservation one month's share
    # of its term, as though the term were used whole, while the 12-month schedule pays it whole
    (tmp_path / "svc.yaml").write_text(SERVICE % (15, ", mean_requests_per_s: 6, min_replicas: 1"))
    usage = load_usage(
        {
            "horizon_months": 12,
            "start": "2027-01",
            "base_dir": str(tmp_path),
            "demands": [{"name": "service", "workload": "svc.yaml", "runs_per_month": 1}],
            "constraints": {"providers": ["aws"], "pricing": ["on_demand", "reserved_1y", "reserved_3y"]},
        }
    )
    report = tco(usage, store=store, currency="USD")
    (source,) = report.demands
    assert source.how.split(";")[0].endswith("reserved_3y)"), source.how
    assert (
        "one month's share of its 36-month term, as though the term were used whole" in source.how
        and "the schedule pays the 36-month term whole" in source.how
    ), source.how
    lines = summary_lines(report)
    assert any("reserved 3 years" in line and "never pays off" in line for line in lines), lines
    # over a horizon the term fits in, the term is not said to be paid whole
    longer = load_usage({**usage.model_dump(), "horizon_months": 36})
    _demands, (source_36,) = demands_from_usage(longer, store)
    assert "one month's share of its 36-month term" in source_36.how
    assert "pays the 36-month term whole" not in source_36.how
