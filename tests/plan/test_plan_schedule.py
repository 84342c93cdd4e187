"""A service that runs on a schedule (``serving.schedule``: office hours in a time zone) is priced
for its hours, each day's start-up and scale-down delay added as the day model adds them, and tco
prices the same hours; outside a schedule nothing runs, so it costs less than a month of its fleet."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from llm_service import module_store

from gpuplan.catalog import Store
from gpuplan.commit import load_usage
from gpuplan.commit.adapters import demands_from_usage
from gpuplan.day_load import Schedule
from gpuplan.plan import plan_workload
from gpuplan.plan.service_day import day_of
from gpuplan.profile import profile as trace_profile
from gpuplan.units import HOURS_PER_MONTH
from gpuplan.workload import load_workload

#: A Qwen2.5-7B assistant used in Beijing office hours.
SERVICE = """\
name: assistant
task: infer
model: {preset: qwen2.5-7b}
inputs: {batch_size: 16, seq_len: 1100}
precision: bf16
serving:
  requests_per_s: 4
  prompt_tokens: 800
  output_tokens: 300
%s"""
OFFICE = """\
  schedule: {hours: "09:00-19:00", days: mon-fri, time_zone: Asia/Shanghai}
"""
OVERRIDES = {"providers": ["aws"], "pricing": ["on_demand"]}
#: 10 h × 5 days a week, as a month of 730 h holds weeks
OFFICE_MONTH_H = 50.0 * HOURS_PER_MONTH / 168.0


@pytest.fixture(scope="module")
def store(seeded_copy: Callable[[str], Path]) -> Iterator[Store]:
    yield from module_store(seeded_copy, "service-schedule")


def _plan(store: Store, folder: Path, extra: str, top: int = 3) -> object:
    (folder / "svc.yaml").write_text(SERVICE % extra)
    workload = load_workload(folder / "svc.yaml")
    return plan_workload(workload, trace_profile(workload, store.local), store, overrides=OVERRIDES, top=top)


@pytest.fixture(scope="module")
def office_plan(store: Store, tmp_path_factory: pytest.TempPathFactory) -> object:
    """The service's plan on its office hours, made once for the module's tests that read it (a plan
    of it takes seconds; a plan is frozen)."""
    return _plan(store, tmp_path_factory.mktemp("office-plan"), OFFICE)


def test_a_scheduled_service_is_priced_for_its_hours_and_each_days_start_up(
    store: Store, office_plan: object, tmp_path: Path
) -> None:
    # was: the fleet all month, 730 h, for a service used 50 h a week
    office = office_plan.recommended  # type: ignore[attr-defined]
    day = office.service_day
    assert day is not None and day.schedule is not None and day.scales
    # each instance serves the schedule's hours and is billed its start-up and scale-down each day
    assert all(h == pytest.approx(OFFICE_MONTH_H, rel=1e-3) for h in day.serving_hours)
    extra = (day.start_up_h + day.down_h) * 5 * HOURS_PER_MONTH / 168.0
    assert all(h == pytest.approx(OFFICE_MONTH_H + extra, rel=1e-3) for h in day.hours)
    assert day.start_ups == office.nodes
    # the schedule removes the fleet at its end, not the load: KEDA's 5 min cooldown after the cron
    # trigger's end (SkyPilot's launch is taken down by its cron line); it had billed SkyServe's
    # 20 min load scale-down delay each day, which simulate's scheduled fleet does not take
    assert day.down_h * 60 == pytest.approx(5.0)
    assert "cooldown" in day.down_words and "SkyServe" not in day.down_words
    assert office.cost_breakdown.compute_usd == pytest.approx(
        office.price_usd_per_hour * sum(day.hours), rel=0.01
    )
    assert office.peak_fleet_cost_usd is not None and office.total_cost_usd < office.peak_fleet_cost_usd
    assert "09:00-19:00 mon-fri (Asia/Shanghai)" in office.service_day_words
    assert office.service_day_words.startswith("on its schedule: priced as its fleet in its hours")
    # the same workload without the schedule: a month of the fleet
    always = _plan(store, tmp_path, "", top=200)
    same = [
        o
        for o in always.options  # type: ignore[attr-defined]
        if (o.region, o.instance_type, o.nodes) == (office.region, office.instance_type, office.nodes)
    ]
    assert same and same[0].service_day is None
    month = same[0].cost_breakdown
    assert month.compute_usd > 3 * office.cost_breakdown.compute_usd
    # the answers (their egress) and the tokens are those of its hours, not of a month
    assert office.cost_breakdown.egress_usd == pytest.approx(
        month.egress_usd * OFFICE_MONTH_H / HOURS_PER_MONTH, rel=1e-3
    )
    output_m = 4 * 300 * 3600 * OFFICE_MONTH_H / 1e6
    assert office.usd_per_million_output_tokens == pytest.approx(office.total_cost_usd / output_m, rel=1e-3)
    plan = office_plan
    assert any("09:00-19:00 mon-fri (Asia/Shanghai)" in n and "50 h a week" in n for n in plan.notes)  # type: ignore[attr-defined]


def test_tco_prices_the_scheduled_service_on_the_plans_hours(
    store: Store, office_plan: object, tmp_path: Path
) -> None:
    (tmp_path / "svc.yaml").write_text(SERVICE % OFFICE)  # the usage's workload
    rec = office_plan.recommended  # type: ignore[attr-defined]
    usage = load_usage(
        {
            "horizon_months": 12,
            "start": "2027-01",
            "base_dir": str(tmp_path),
            "demands": [{"name": "assistant", "workload": "svc.yaml", "runs_per_month": 1}],
            "constraints": {"providers": ["aws"], "pricing": ["on_demand"]},
        }
    )
    (demand,), (source,) = demands_from_usage(usage, store)
    assert demand.tiers == pytest.approx(rec.service_day.hours)
    assert demand.gpu_hours_per_run == pytest.approx(rec.service_day.step * sum(rec.service_day.hours))
    # its sizing sentence says the hours it is priced for, the month's beside them as its peak
    # fleet's (it had said "1 run(s)/month × 1 L40S × 730.0 h" before the schedule's 229 h)
    priced = f"priced for {demand.gpu_hours_per_run:,.1f} GPU-hours each"
    assert f"1 run(s)/month × up to {rec.gpu_count} {rec.gpu}, {priced}" in source.how
    assert f"(its peak fleet all month would be {rec.gpu_count} {rec.gpu} × 730.0 h)" in source.how
    assert demand.gpu_hours_per_run < 0.4 * HOURS_PER_MONTH * rec.gpu_count


def test_an_unknown_start_up_is_not_cheaper_on_a_schedule() -> None:
    # the start-up the plan takes where the weights' size is not known is its bound, not 0: a day
    # that starts slower is billed more, never less
    office = Schedule(start_min=9 * 60, end_min=19 * 60, weekdays=(0, 1, 2, 3, 4), zone="Asia/Shanghai")
    args = {
        "mean": None,
        "peak": 4.0,
        "least": 1,
        "replicas": 1,
        "instances": 1,
        "gpus": 1,
        "per_replica": 5.0,
        "load_words": "given",
        "run_h": HOURS_PER_MONTH,
        "start_up_words": "assumed",
        "down_h": 0.25,
        "down_words": "given",
        "schedule": office,
    }
    quick = day_of(start_up_h=0.2, **args)  # type: ignore[arg-type]
    slow = day_of(start_up_h=1.0, **args)  # type: ignore[arg-type]
    assert quick is not None and slow is not None
    assert sum(slow.hours) > sum(quick.hours) > OFFICE_MONTH_H
    # a start-up longer than the night is the whole night: kept running, not started again
    night = day_of(start_up_h=20.0, **args)  # type: ignore[arg-type]
    assert night is not None and night.start_ups == 0
