"""A 24/7 service with a mean below its peak is priced as the fleet its day needs, hour by hour
(the tiers an autoscaler keeps), not its peak fleet all month; its on-demand baseline is that
autoscaled fleet too."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

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


#: The outside user's office hours: 08:00-18:00 on weekdays, Berlin time.
OFFICE_HOURS = 'schedule: {hours: "08:00-18:00", days: mon-fri, time_zone: Europe/Berlin}'


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


#: The service's day: a mean of 6 requests/s under its peak, at least one replica.
DAY = ", mean_requests_per_s: 6, min_replicas: 1"


@pytest.fixture(scope="module")
def priced(store: Store, tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Any]:
    """``priced(serving_extra, peak)``: ``tco`` of ``_usage``'s year, once per module for each service.

    Each report plans the service (seconds) and several tests read the same one; a report is frozen,
    so each test that only reads it gets the one made first, whichever test asks first."""
    made: dict[tuple[str, float], Any] = {}

    def get(serving_extra: str = "", peak: float = 15) -> object:
        if (serving_extra, peak) not in made:
            usage = _usage(tmp_path_factory.mktemp("tiers-tco"), serving_extra, peak)
            made[serving_extra, peak] = tco(usage, store=store, currency="USD")  # type: ignore[arg-type]
        return made[serving_extra, peak]

    return get


@pytest.fixture(scope="module")
def demanded(store: Store, tmp_path_factory: pytest.TempPathFactory) -> Callable[..., tuple[Any, Any]]:
    """``demanded(serving_extra, peak)``: ``demands_from_usage`` of ``_usage``'s year, once per module
    for each service (a plan each, seconds), as :func:`priced`."""
    made: dict[tuple[str, float], tuple[Any, Any]] = {}

    def get(serving_extra: str = "", peak: float = 15) -> tuple[Any, Any]:
        if (serving_extra, peak) not in made:
            usage = _usage(tmp_path_factory.mktemp("tiers-demands"), serving_extra, peak)
            made[serving_extra, peak] = demands_from_usage(usage, store)  # type: ignore[arg-type]
        return made[serving_extra, peak]

    return get


def _served(tiers: tuple[float, ...], said: object) -> tuple[float, ...]:
    """The hours a month each tier serves: its billed hours less its start-ups and scale-down delays."""
    return tuple(t - u for t, u in zip(tiers, said.start_up_hours, strict=True))  # type: ignore[attr-defined]


def _reserved_gpus(report: object) -> float:
    s = report.schedule  # type: ignore[attr-defined]
    return sum(c.units * c.offer.gpus_per_unit for c in s.commitments)


def test_a_service_with_a_mean_below_its_peak_reserves_fewer_gpus_and_costs_less(
    priced: Callable[..., Any],
) -> None:
    # was: the peak fleet (3 L40S) all 730 h of every month, 3 reserved for a year, whatever the mean
    peak_only = priced()
    tiered = priced(DAY)
    (flat,) = peak_only.problem.demands
    (day,) = tiered.problem.demands
    peak_gpus = flat.gpus_at_once(0)
    assert peak_gpus >= 2  # a fleet that can scale
    assert day.gpus_at_once(0) == peak_gpus  # the peak hour still has the peak fleet
    assert sum(day.gpu_hours) < sum(flat.gpu_hours)
    assert _reserved_gpus(tiered) < _reserved_gpus(peak_only)
    assert tiered.schedule.total_usd < peak_only.schedule.total_usd


def test_a_peak_only_service_keeps_its_peak_fleet_all_month_and_says_so(
    demanded: Callable[..., tuple[Any, Any]],
) -> None:
    (demand,), (source,) = demanded()
    assert not demand.tiers and not source.tiers
    assert demand.levels(0) == ((demand.gpus_per_run, 730.0),)
    assert "no mean_requests_per_s" in source.how


def test_a_service_one_instance_carries_keeps_it_all_month_and_says_why(
    demanded: Callable[..., tuple[Any, Any]],
) -> None:
    # 3 requests/s: one L40S at 80 % of its capacity carries the peak; nothing to scale down
    (demand,), (source,) = demanded(", mean_requests_per_s: 1", peak=3)
    assert not demand.tiers and demand.levels(0) == ((demand.gpus_per_run, 730.0),)
    assert "one instance carries the peak" in source.how and "no mean_requests_per_s" not in source.how


def test_the_all_on_demand_baseline_is_the_autoscaled_fleet(priced: Callable[..., Any]) -> None:
    report = priced(DAY)
    peak_only = priced()
    (demand,) = report.problem.demands
    (flat,) = peak_only.problem.demands
    s, base = report.schedule, peak_only.schedule
    assert s.all_on_demand_usd is not None and base.all_on_demand_usd is not None
    # the same on-demand price per GPU-hour over the tiers' GPU-hours, not the peak's. Each baseline
    # also pays what its runs pay besides GPU time where its on-demand offer is (launch disks,
    # bucket, egress: the data rate of that region), which is not in proportion to the GPU-hours
    # (a fleet at its peak all month serves more requests), so it is taken out at that region's
    # rate. (Not the schedule's data_usd: its committed hours pay the dearest region of the
    # commitment offers, an unknown egress bounded at the catalog's highest.) Priced at the peak's
    # hours, as before the tiers, it would be 1 / 0.66 = 1.5 times this.
    doc = tco_json(report)
    (offer,) = [p for p in doc["hourly_prices"] if p["pricing"] == "on_demand"]

    def gpu_time(r: object, d: Demand) -> float:
        rate = d.data_rate(offer["provider"], offer["region"])
        assert rate is not None
        return r.schedule.all_on_demand_usd - sum(d.gpu_hours) * rate.usd_per_gpu_hour  # type: ignore[attr-defined]

    ratio = sum(demand.gpu_hours) / sum(flat.gpu_hours)
    assert gpu_time(report, demand) == pytest.approx(gpu_time(peak_only, flat) * ratio, rel=1e-9)
    assert gpu_time(report, demand) == pytest.approx(sum(demand.gpu_hours) * offer["price_usd_per_gpu_hour"])
    assert any("services autoscaled" in line for line in summary_lines(report))
    assert doc["autoscaled_baseline"] is True
    (said,) = doc["demands"]
    assert [t["gpus"] for t in said["tiers"]] == [demand.gpu_step] * len(demand.tiers)
    assert "diurnal" in said["day_assumed"] and "15" in said["day_assumed"]


def test_min_replicas_keeps_that_many_all_month(demanded: Callable[..., tuple[Any, Any]]) -> None:
    (one,), _ = demanded(DAY)
    (two,), _ = demanded(", mean_requests_per_s: 6, min_replicas: 2")
    assert one.tiers[0] == pytest.approx(730) and one.tiers[1] < 730
    assert two.tiers[:2] == pytest.approx((730, 730))
    assert sum(two.gpu_hours) > sum(one.gpu_hours)


def test_the_tiers_follow_the_day_the_simulator_draws(demanded: Callable[..., tuple[Any, Any]]) -> None:
    # simulate's diurnal trace for the same mean and peak: its rate curve, minute by minute, and the
    # replicas it needs at the plan's capacity of one at 80 % (a peak of 15 cannot hold a mean of 6
    # under the cosine: the peak is kept, its mean 7.5)
    from gpuplan.simulate import Shape, diurnal_trace

    (demand,), (source,) = demanded(DAY)
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
    demanded: Callable[..., tuple[Any, Any]],
) -> None:
    # deploy keeps a service's autoscaler floor at the plan's fleet unless min_replicas is set, and
    # plan prices that fleet all month: tco had priced a day its launch never scales down to
    (flat,), (said,) = demanded(", mean_requests_per_s: 6")
    (tiered,), _ = demanded(DAY)
    assert not flat.tiers and sum(flat.gpu_hours) > sum(tiered.gpu_hours)
    assert "no serving.min_replicas" in said.how and "with serving.min_replicas set" in said.how


def test_the_demand_change_of_a_service_that_follows_its_day_is_said_as_its_load(
    priced: Callable[..., Any],
) -> None:
    # was: "the change is the load: each service's GPU-hours in each part of its day scale with it"
    # (fractional replicas); now its fleet in whole replicas at that load, with its peak said
    from dataclasses import replace

    report = priced(DAY)
    changes = [line for line in summary_lines(report) if line.startswith("Demand -30%")]
    assert len(changes) == 1 and "runs at once" not in changes[0]
    assert (
        "(commitments fixed; the change is each service's load: its fleet resized in whole replicas in "
        "each part of its day, as the plan sizes it (the load over the load a replica is held at, rounded "
        "up, at least serving.min_replicas or 1): service up to " in changes[0]
    )
    assert changes[0].endswith("at its own load); the rest bought by the hour)")
    # beside a run-based demand, each is said for what it is
    run = Demand(name="burst", gpu="G", gpu_hours=(80.0,) * 12, busy_hours=(10.0,) * 12)
    mixed = replace(report, problem=replace(report.problem, demands=(*report.problem.demands, run)))
    (change,) = [line for line in summary_lines(mixed) if line.startswith("Demand +30%")]
    assert "for the service(s) service the change is the load: its fleet resized in whole replicas" in change
    assert (
        "; for the rest, more or fewer runs at once, of the same size and hours (their GPU-hours scale "
        "with it): service up to " in change
    )


def test_a_one_replica_office_hours_service_costs_the_same_at_30_percent_more_or_less_load(
    store: Store, tmp_path: Path
) -> None:
    # was: -30 % and +30 % at 0.7 and 1.3 × the total, as if the one replica were fractional; it
    # carries 0.5 requests/s at a small share of its capacity, so 0.35 or 0.65 need the same replica
    report = tco(_usage(tmp_path, ", " + OFFICE_HOURS, peak=0.5), store=store, currency="USD")  # type: ignore[arg-type]
    s = report.schedule
    low, mid, high = (total for _pct, total in s.sensitivity)
    assert low == pytest.approx(s.total_usd) and mid == pytest.approx(s.total_usd)
    assert high == pytest.approx(s.total_usd)
    (change,) = [line for line in summary_lines(report) if line.startswith("Demand +30%")]
    (demand,) = report.problem.demands
    assert f"service up to 1 × {demand.gpu} at once (1 at its own load)" in change


def test_a_service_of_several_replicas_changes_by_whole_replicas(store: Store, tmp_path: Path) -> None:
    # 15 requests/s in office hours: three L40S; 10.5 needs two, 19.5 four (at 80 % of a replica's
    # capacity, the plan's sizing), not 2.1 and 3.9 of them
    report = tco(_usage(tmp_path, ", " + OFFICE_HOURS), store=store, currency="USD")  # type: ignore[arg-type]
    (demand,) = report.problem.demands
    assert demand.gpus_at_once(0) == 3
    assert demand.gpus_at_once(0, 0.7) == 2 and demand.gpus_at_once(0, 1.3) == 4
    # the same hours each, in whole replicas
    assert {h for _g, h in demand.levels(0, 0.7)} == {h for _g, h in demand.levels(0)}
    low, _mid, high = (total for _pct, total in report.schedule.sensitivity)
    gpu_time = report.schedule.total_usd - report.schedule.data_usd
    assert low is not None and high is not None
    assert low < report.schedule.total_usd < high
    assert low == pytest.approx(report.schedule.data_usd + gpu_time * 2 / 3, rel=0.05)
    (change,) = [line for line in summary_lines(report) if line.startswith("Demand -30%")]
    assert "service up to 2 × L40S at once (3 at its own load)" in change


def test_a_service_without_a_day_changes_its_fleet_all_month_by_whole_instances(
    demanded: Callable[..., tuple[Any, Any]],
) -> None:
    # no schedule and no mean: its peak fleet all month, resized in whole replicas (was: the fleet
    # for 0.7 or 1.3 of its hours)
    (demand,), _ = demanded()
    assert demand.levels(0) == ((3.0, 730.0),)
    assert demand.levels(0, 0.7) == ((2.0, 730.0),) and demand.levels(0, 1.3) == ((4.0, 730.0),)


def test_a_job_keeps_scaling_its_gpu_hours_with_the_change() -> None:
    job = Demand(name="train", gpu="G", gpu_hours=(100.0,), gpus_per_run=1.0, gpu_step=1.0)
    assert sum(g * h for g, h in job.levels(0, 0.7)) == pytest.approx(70.0)


def test_the_fleet_at_a_load_is_the_plans_sizing_in_whole_instances() -> None:
    from gpuplan.plan.service_day import fleet_at_load

    # a replica held at 4.33 requests/s, one to an instance, a planned fleet of 2 for 6 requests/s
    assert fleet_at_load(6 * 0.7, 4.33, 1, 1, 2, 0.7) == 1
    assert fleet_at_load(6 * 1.3, 4.33, 1, 1, 2, 1.3) == 2
    assert fleet_at_load(8 * 1.3, 4.33, 1, 1, 2, 1.3) == 3
    # at least min_replicas; two replicas to an instance round up to whole instances
    assert fleet_at_load(0.1, 4.33, 3, 1, 3, 0.7) == 3
    assert fleet_at_load(3 * 4.33, 4.33, 1, 2, 2, 1.3) == 2
    # less load never more than the planned fleet, more load never fewer
    assert fleet_at_load(0.35, 0.1, 1, 1, 1, 0.7) == 1
    assert fleet_at_load(0.65, 100.0, 1, 1, 2, 1.3) == 2


def test_a_mean_the_day_cannot_hold_is_said_as_the_mean_taken_and_why(
    demanded: Callable[..., tuple[Any, Any]],
) -> None:
    # was: "a cosine of peak/trough 4 cannot average 6 under a peak of 15: the peak is kept and its
    # quietest time falls to 0": a cosine under a peak of 15 averages at least 15 / 2 = 7.5 (its
    # trough at 0), so 7.5 is the mean sized for, and the GPU-hours are if anything high
    _, (source,) = demanded(DAY)
    assert (
        "; a mean of 6 requests/s is lower than a cosine day under a peak of 15 can average: the mean is "
        "taken as 7.5, the lowest such a day reaches (its quietest hour at 0 rather than at 1/4 of the "
        "peak), so the GPU-hours are if anything high; the answers stay at the 6 requests/s given"
    ) in source.day
    assert "cannot average" not in source.day


def test_a_service_priced_by_its_day_pays_its_instances_disks_for_the_hours_they_run(
    demanded: Callable[..., tuple[Any, Any]],
) -> None:
    # was: the peak fleet's disks (3 L40S instances) for all 730 h of the month, though a replica scaled
    # down is deleted with its disk: the tiers' instance-hours (730 + 429 + 254) of 3 × 730
    (flat,), _ = demanded(", mean_requests_per_s: 6")
    (day,), _ = demanded(DAY)
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


def test_a_growing_service_runs_one_fleet_at_its_grown_load(store: Store, tmp_path: Path) -> None:
    # was: 1.03 "runs" a month after 3 % growth were two overlapping fleets, its peak at once twice
    # its plan's (6 × L40S where 3 carry 15 requests/s); now one fleet at 1.03 × its load, resized
    # in whole replicas as the plan sizes it, its GPU-hours that fleet's
    (tmp_path / "svc.yaml").write_text(SERVICE % (15, ""))
    usage = load_usage(
        {
            "horizon_months": 12,
            "start": "2027-01",
            "base_dir": str(tmp_path),
            "demands": [
                {"name": "service", "workload": "svc.yaml", "runs_per_month": 1, "growth_pct_per_month": 3}
            ],
            "constraints": {"providers": ["aws"], "pricing": ["on_demand", "reserved_1y"]},
        }
    )
    report = tco(usage, store=store, currency="USD")  # type: ignore[arg-type]
    (demand,) = report.problem.demands
    # 15 requests/s on three L40S; from the fifth month, 15 × 1.03⁴ = 16.9 requests/s, on four
    assert [demand.gpus_at_once(m) for m in range(12)] == [3.0] * 4 + [4.0] * 8
    # its GPU-hours are that fleet's, all month (no day: its peak fleet all its hours)
    assert demand.gpu_hours == pytest.approx([3 * 730.0] * 4 + [4 * 730.0] * 8)
    lines = summary_lines(report)
    assert any(line.startswith("Peak 4 × L40S at once in 2027-05") for line in lines), lines
    # the sensitivity's base is that peak, and its change each month's grown load × 1.3
    (change,) = [line for line in lines if line.startswith("Demand +30%")]
    assert "service up to 5 × L40S at once (4 at its own load)" in change
