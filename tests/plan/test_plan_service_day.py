"""One service, one monthly cost: ``plan`` prices a service whose fleet follows its day (a mean
below its peak, ``serving.min_replicas`` set, billed by the hour) as the fleet that day needs —
``tco``'s model, which tco takes from the plan — with its peak fleet all month beside it as the
bound; where the autoscaler cannot follow the day, or the workload gives no mean, at its peak."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gpuplan.catalog import Store, open_store
from gpuplan.commit import load_usage
from gpuplan.commit.adapters import demands_from_usage
from gpuplan.plan import plan_workload
from gpuplan.plan.result import Option
from gpuplan.plan.service_day import day_of, option_day_words
from gpuplan.profile import profile as trace_profile
from gpuplan.workload import load_workload

#: The chat service of tco's tier tests: Llama-3.1-8B, 15 requests/s at its peak.
SERVICE = """\
name: chat
task: infer
model: {preset: llama-8b}
inputs: {batch_size: 16, seq_len: 1050}
precision: bf16
serving: {requests_per_s: 15, prompt_tokens: 800, output_tokens: 250%s}
"""
OVERRIDES = {"providers": ["aws"], "pricing": ["on_demand"]}
#: The probe's 70B chat service on 4 p4de (8 replicas of 4 GPUs): its day, as ``day_of`` takes it.
PROBE_DAY = {
    "mean": 12.0,
    "peak": 20.0,
    "least": 1,
    "replicas": 8,
    "instances": 4,
    "gpus": 32,
    "per_replica": 2.5,
    "load_words": "given",
    "run_h": 730.0,
    "start_up_words": "assumed",
}


@pytest.fixture(scope="module")
def store(seeded_copy: Callable[[str], Path]) -> Iterator[Store]:
    st = open_store(str(seeded_copy("service-day")))
    yield st
    st.close()


def _plan(
    store: Store, folder: Path, extra: str, top: int = 3, overrides: dict[str, list[str]] = OVERRIDES
) -> object:
    path = folder / "svc.yaml"
    path.write_text(SERVICE % extra)
    workload = load_workload(path)
    return plan_workload(workload, trace_profile(workload, store.local), store, overrides=overrides, top=top)


#: The chat service on AWS spot, its fleet following its day (a mean of 6 requests/s under a peak
#: of 15, at least one replica).
SPOT = {"providers": ["aws"], "pricing": ["spot"]}
DAY = ", mean_requests_per_s: 6, min_replicas: 1"


@pytest.fixture(scope="module")
def planned(store: Store, tmp_path_factory: pytest.TempPathFactory) -> Callable[..., object]:
    """``planned(extra, top, overrides)``: ``_plan``'s plan of the chat service, made once per module.

    A plan of the service takes seconds and several tests read the same one; a plan is frozen, so
    each test that only reads it gets the one made first (whichever test asks first). A test that
    patches part of the planner plans its own with ``_plan``."""
    made: dict[str, object] = {}

    def get(extra: str, top: int = 3, overrides: dict[str, list[str]] = OVERRIDES) -> object:
        key = repr((extra, top, sorted(overrides.items())))
        if key not in made:
            made[key] = _plan(store, tmp_path_factory.mktemp("service-day-plan"), extra, top, overrides)
        return made[key]

    return get


def test_a_service_that_scales_down_is_priced_as_its_day_with_its_peak_fleet_the_bound(
    planned: Callable[..., object],
) -> None:
    # was: the peak fleet all month ($80,441 for the probe's 70B on p4de) while tco priced the
    # autoscaled day ($56,050), and the team budget counted the plan's figure
    day_plan = planned(DAY)
    rec = day_plan.recommended  # type: ignore[attr-defined]
    day = rec.service_day
    assert day is not None and day.follows and rec.nodes > 1
    assert rec.peak_fleet_cost_usd is not None and rec.total_cost_usd < rec.peak_fleet_cost_usd
    assert rec.total_cost_usd_high == pytest.approx(rec.peak_fleet_cost_usd)
    # the compute is the day's instance-hours at the option's price (set-up aside)
    hours = sum(day.hours)
    assert rec.cost_breakdown.compute_usd == pytest.approx(rec.price_usd_per_hour * hours, rel=0.01)
    assert "autoscaled with its day" in rec.service_day_words and "is the bound" in rec.service_day_words
    # the same option priced without the autoscaler's floor: its peak fleet all month, said
    peak_plan = planned(", mean_requests_per_s: 6", top=200)
    same = [
        o
        for o in peak_plan.options  # type: ignore[attr-defined]
        if (o.region, o.instance_type, o.nodes) == (rec.region, rec.instance_type, rec.nodes)
    ]
    assert same and same[0].peak_fleet_cost_usd is None
    assert same[0].total_cost_usd == pytest.approx(rec.peak_fleet_cost_usd)
    assert "no serving.min_replicas" in same[0].service_day_words
    assert any("priced at its peak" in n for n in peak_plan.notes)  # type: ignore[attr-defined]


def test_tco_prices_the_service_on_the_plans_own_day(
    store: Store, planned: Callable[..., object], tmp_path: Path
) -> None:
    (tmp_path / "svc.yaml").write_text(SERVICE % DAY)
    rec = planned(DAY).recommended  # type: ignore[attr-defined]
    usage = load_usage(
        {
            "horizon_months": 12,
            "start": "2027-01",
            "base_dir": str(tmp_path),
            "demands": [{"name": "service", "workload": "svc.yaml", "runs_per_month": 1}],
            "constraints": {"providers": ["aws"], "pricing": ["on_demand"]},
        }
    )
    (demand,), _sources = demands_from_usage(usage, store)
    assert demand.tiers == pytest.approx(rec.service_day.hours)
    assert demand.gpu_step == rec.service_day.step


def test_a_service_with_no_mean_is_priced_at_its_peak_and_says_so(planned: Callable[..., object]) -> None:
    plan = planned(", min_replicas: 1")
    assert all(o.service_day is None and o.peak_fleet_cost_usd is None for o in plan.options)  # type: ignore[attr-defined]
    assert any("priced at its peak" in n and "mean_requests_per_s" in n for n in plan.notes)  # type: ignore[attr-defined]


def test_where_a_new_instance_starts_too_slowly_for_the_day_it_is_priced_at_its_peak(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib

    service_day = importlib.import_module("gpuplan.plan.service_day")

    # a new instance that takes 30 h to serve (the plan's own start-up model, replaced here)
    monkeypatch.setattr(service_day, "start_up", lambda job, gpn, rg, scheduled=False: (30.0, "30 h"))
    plan = _plan(store, tmp_path, ", mean_requests_per_s: 6, min_replicas: 1")
    days = [o for o in plan.options if o.service_day is not None]  # type: ignore[attr-defined]
    assert days
    for o in days:
        assert not o.service_day.follows and o.peak_fleet_cost_usd is None
        assert o.total_cost_usd_high == pytest.approx(o.total_cost_usd)
        assert "cannot follow" in o.service_day_words and "peak fleet all month" in o.service_day_words


def test_the_day_follows_only_where_a_new_instance_serves_before_the_load_outgrows_the_fleet() -> None:
    kw = {**PROBE_DAY, "down_h": 0.0, "down_words": "none"}
    quick = day_of(start_up_h=46 / 60, **kw)  # type: ignore[arg-type]
    slow = day_of(start_up_h=4.0, **kw)  # type: ignore[arg-type]
    assert quick is not None and slow is not None
    # the probe's 70B on 4 p4de: one instance's 5 requests/s at the day's steepest rise, 143 min
    assert quick.rise_h * 60 == pytest.approx(143, abs=1)
    assert quick.follows and not slow.follows
    assert quick.serving_hours == pytest.approx((730, 612, 424, 276), abs=1)
    words = option_day_words(slow, "A100-SXM4-80GB", scales_down=True, pricing="on_demand", peak_usd=None)
    assert "cannot follow the day" in words and "about 240 min" in words
    # "can follow it" holds for the cosine day only: a team's evening ramp outran the autoscaler
    # deploy wrote, where the plan had said it keeps up, with no word of the condition
    follows = quick.follow_words
    assert "can follow it" in follows and "less than 46 min" in follows
    assert "gpuplan simulate autoscale --trace" in follows
    monthly = option_day_words(quick, "A100-SXM4-80GB", scales_down=True, pricing="monthly", peak_usd=None)
    assert "paid whether its instances run or not" in monthly
    # a fleet of one instance has nothing to scale down; no mean below the peak, no day
    assert day_of(start_up_h=0.1, **{**kw, "instances": 1}) is None  # type: ignore[arg-type]
    assert day_of(start_up_h=0.1, **{**kw, "mean": None}) is None  # type: ignore[arg-type]


def test_each_instance_the_day_adds_is_billed_from_its_start_to_its_removal() -> None:
    # was: the day's tiers were the minutes each instance serves, so the 46 min each of the three
    # instances added a day runs before it serves (boot, image pull, 2 × 141 GB of weights read)
    # and the delay before the autoscaler removes it were in neither plan nor tco
    kw = {**PROBE_DAY, "down_h": 20 / 60, "down_words": "SkyServe's"}
    day = day_of(start_up_h=46 / 60, **kw)  # type: ignore[arg-type]
    assert day is not None
    # the first instance runs all day; each of the other three is started once a day and billed
    # 46 + 20 min beyond the hours it serves: 3.3 instance-hours a day, 33.5 h a month each
    assert day.start_ups == 3
    assert day.start_up_day_h == pytest.approx(3 * 66 / 60, abs=0.05)
    each = 66 / 60 * 730 / 24
    expected = (730, 612 + each, 424 + each, 276 + each)
    assert day.hours == pytest.approx(expected, abs=1)
    assert day.share == pytest.approx(sum(day.hours) / (4 * 730))
    assert "+3.3 instance-hours a day of start-up" in day.said("A100-SXM4-80GB")
    # an instance the load leaves for less than its start-up and scale-down delay together is kept
    # running through the gap, billed all of it and not started again: the second instance is
    # needed 20.1 h a day, so a 4 h start-up keeps it all day
    slow = day_of(start_up_h=4.0, **kw)  # type: ignore[arg-type]
    assert slow is not None
    assert slow.hours[1] == pytest.approx(730)
    assert slow.start_ups == 2
    # the bound where the weights' size is not known: deploy's 30 min a replica is given to start
    from gpuplan.plan.input_types import JobFacts
    from gpuplan.plan.service_day import scale_down, start_up

    up_h, words = start_up(JobFacts(weights_gb=0.0), 8, 4)  # type: ignore[call-arg]
    assert up_h * 60 == pytest.approx(40) and "the bound" in words
    down_h, down_words = scale_down()
    assert down_h * 60 == pytest.approx(20) and "SkyServe" in down_words


def _spot_service_day(planned: Callable[..., object]) -> Option:
    """The recommended option of the chat service on aws spot, its fleet following its day."""
    rec = planned(DAY, top=1, overrides=SPOT).recommended  # type: ignore[attr-defined]
    assert rec is not None
    return rec  # type: ignore[no-any-return]


def test_a_service_on_spot_counts_its_reclaims_over_the_hours_its_autoscaled_day_bills(
    planned: Callable[..., object],
) -> None:
    # was: reclaims a month and replica-hours down counted the peak fleet all month (a Qwen 7B on 3
    # instances autoscaled to 1×730 + 1×394 + 1×122 h plus a spare: 120.58 reclaims, 19.50
    # replica-hours down, one every 6.0 h) while the price counted the day's instance-hours (81.60,
    # 11.10, one every 8.9 h)
    rec = _spot_service_day(planned)
    day = rec.service_day
    assert rec.pricing == "spot" and day is not None and day.follows and rec.nodes > 1
    assert rec.spot is not None and rec.spot.service is not None
    s = rec.spot.service
    billed = sum(day.hours)  # the fleet's instance-hours a month, as the price counts them
    rate = rec.spot.interruptions_per_instance_hour
    per_reclaim_h = s.down_min_per_reclaim / 60.0
    # each instance-hour billed is reclaimed at the rate, less the hours a unit spends down
    expected = billed / (1.0 / rate + per_reclaim_h)
    assert s.interruptions_per_month == pytest.approx(expected, rel=0.05)
    assert s.interruptions_per_month < rec.nodes * 730.0 * rate * 0.95
    assert s.replica_hours_down_per_month == pytest.approx(
        s.interruptions_per_month * s.replicas_per_reclaim * per_reclaim_h, rel=1e-6
    )
    both = s.interruptions_per_month + s.spare_interruptions_per_month
    assert rec.spot.mtbi_h == pytest.approx(730.0 / both, rel=1e-6)


def test_a_service_on_spot_is_below_its_target_over_the_hours_its_day_runs_each_fleet(
    planned: Callable[..., object],
) -> None:
    # was: the shares below target figured at the peak fleet all month (3 units: 1 − (1 − q)³),
    # while its reclaims counted the day's instance-hours; now each size of the fleet weighted by
    # the hours it runs at it
    rec = _spot_service_day(planned)
    day = rec.service_day
    assert rec.pricing == "spot" and day is not None and day.scales and len(day.hours) == rec.nodes == 3
    assert rec.spot is not None and rec.spot.service is not None
    s = rec.spot.service
    assert s.spare_instances == 1  # one instance a unit
    # one unit down a share q of the time: reclaimed at λ, down D each time
    lam, down_h = rec.spot.interruptions_per_instance_hour, s.down_min_per_reclaim / 60.0
    q = lam * down_h / (1.0 + lam * down_h)
    h1, h2, h3 = day.hours
    at = {1: h1 - h2, 2: h2 - h3, 3: h3}  # hours at exactly 1, 2 and 3 units
    below = sum(h * (1 - (1 - q) ** n) for n, h in at.items()) / h1
    with_spare = sum(h * (1 - (1 - q) ** (n + 1) - (n + 1) * q * (1 - q) ** n) for n, h in at.items()) / h1
    assert s.below_target_share == pytest.approx(below, rel=1e-6)
    assert s.below_target_share_with_spare == pytest.approx(with_spare, rel=1e-4)
    peak = 1 - (1 - q) ** 3
    assert s.below_target_share < 0.8 * peak


def test_a_spot_services_spare_pays_its_disk_and_licences_all_month_in_plan_as_in_tco(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # was: plan scaled the spare's disk and licence fees by its autoscaled fleet's share of the month
    # (a Llama 8B at 15 requests/s, mean 6, on 3 g6e.xlarge run 68 % of their peak fleet's hours:
    # storage $55.42 for 4 disks) while the spare's compute was paid all month, as it runs, and as
    # tco paid its disk ($62.04)
    from dataclasses import replace

    from gpuplan.commit import tco
    from gpuplan.plan.region_costs import CostFacts

    charges = CostFacts.charges

    def with_licence(self: CostFacts, provider: str, region: str, job: object, **kw: bool) -> object:
        # a licence fee of $0.50 an instance-hour in every region, in plan and tco alike
        return replace(charges(self, provider, region, job, **kw), licence_usd_per_instance_hour=0.5)  # type: ignore[arg-type]

    monkeypatch.setattr(CostFacts, "charges", with_licence)
    # its workload written to tmp_path (svc.yaml, for the usage file beside it)
    rec = _plan(store, tmp_path, DAY, top=1, overrides=SPOT).recommended  # type: ignore[attr-defined]
    day, b = rec.service_day, rec.cost_breakdown
    assert rec.pricing == "spot" and day is not None and day.follows and rec.peak_fleet_cost_usd is not None
    assert rec.spot is not None and rec.spot.service is not None
    spare = rec.spot.service.spare_instances
    assert spare >= 1 and sum(day.hours) < 0.8 * rec.nodes * 730.0
    # the serving instances for the day's instance-hours, the spare all month (the month and the
    # set-up: an instance is billed from its start)
    set_up = rec.job_time_h / 730.0
    assert b.licence_usd == pytest.approx(0.5 * (sum(day.hours) + spare * 730.0) * set_up, rel=1e-3)
    # and tco prices that service's month with the same charges besides GPU time: its disks and
    # licence fees (the spare's all month) and its answers out
    usage = load_usage(
        {
            "horizon_months": 1,
            "start": "2027-01",
            "base_dir": str(tmp_path),
            "demands": [{"name": "chat", "workload": "svc.yaml", "runs_per_month": 1, "interruptible": True}],
            "constraints": {"providers": ["aws"], "pricing": ["spot"]},
        }
    )
    report = tco(usage, store=store)
    (source,) = report.demands
    assert rec.label in source.how
    besides_gpu = b.storage_usd + b.egress_usd + b.licence_usd
    assert report.schedule.data_usd == pytest.approx(besides_gpu, rel=2e-3)


def test_a_spot_service_that_follows_its_day_says_it_is_below_the_replicas_the_hour_needs(
    planned: Callable[..., object],
) -> None:
    # was: "without a spare, below its 3 replicas 1.8% of the time" for a fleet that runs 1 to 3
    # replicas over its day, the share figured against each hour's fleet
    from dataclasses import replace

    from gpuplan.i18n import use_language
    from gpuplan.report.plan_view import service_spot_lines

    rec = _spot_service_day(planned)
    assert rec.peak_fleet_cost_usd is not None and rec.spot.service.replicas == 3
    (below,) = [line for line in service_spot_lines(rec) if "without a spare" in line]
    assert "below the replicas it needs at that hour (its fleet follows its day, up to 3 replicas)" in below
    assert "below its 3 replicas" not in below
    # priced at its peak fleet all month, its 3 replicas are the target every hour
    (peak,) = [
        line
        for line in service_spot_lines(replace(rec, peak_fleet_cost_usd=None))
        if "without a spare" in line
    ]
    assert "below its 3 replicas" in peak
    with use_language("zh"):
        (said,) = [line for line in service_spot_lines(rec) if "无备用时" in line]
    assert "低于当时所需的副本数" in said and "最多 3 个" in said


#: A chatbot's evening (``serving.day``): 3 requests/s at night, 40 from 20:00 (reached in 30 min)
#: to 23:00, back to 3 by 23:30.
EVENING = ((0, 3.0), (1170, 3.0), (1200, 40.0), (1380, 40.0), (1410, 3.0))


def test_a_workloads_own_evening_ramp_outruns_the_autoscaler_the_cosine_day_would_not() -> None:
    from gpuplan.day_load import LoadDay

    day = LoadDay(points=EVENING)
    kw = {
        "peak": 40.0,
        "least": 1,
        "replicas": 5,
        "instances": 5,
        "gpus": 5,
        "per_replica": 9.8,
        "load_words": "given",
        "run_h": 730.0,
        "start_up_h": 13 / 60,
        "start_up_words": "13 min",
        "down_h": 0.0,
        "down_words": "none",
    }
    own = day_of(mean=day.mean, load_day=day, **kw)  # type: ignore[arg-type]
    cosine = day_of(mean=15.0, **kw)  # type: ignore[arg-type]
    assert own is not None and cosine is not None
    # was: the cosine of the same peak and mean, one instance's load in 112 min, "can follow it"
    assert cosine.follows and cosine.rise_h * 60 == pytest.approx(112, abs=1)
    # the ramp adds 37 requests/s in 30 min: one replica's 9.8 in 8 min, under the 13 min start-up
    assert own.rise_h * 60 == pytest.approx(9.8 / (37 / 30), abs=0.1)
    assert not own.follows and own.mean_held == pytest.approx(3 + 37 * 3.5 / 24)
    words = option_day_words(own, "L4", scales_down=True, pricing="on_demand", peak_usd=None)
    assert "cannot follow the day" in words and "peak fleet all month" in words
    assert "serving.day" in own.day and "cosine" not in own.day


def test_a_plan_of_a_service_with_its_own_day_prices_that_day_and_says_so(
    planned: Callable[..., object],
) -> None:
    plan = planned(', min_replicas: 1, day: {"00:00": 1, "19:30": 1, "20:00": 15, "23:00": 15, "23:30": 1}')
    days = [o for o in plan.options if o.service_day is not None]  # type: ignore[attr-defined]
    assert days
    for o in days:
        assert o.service_day.load_day is not None
        # its evening ramp (1 -> 15 requests/s in 30 min) outruns a new instance's start-up
        assert not o.service_day.follows and o.peak_fleet_cost_usd is None
        assert "the workload's day (serving.day)" in o.service_day_words
        assert "a cosine busiest" not in o.service_day.day
    assert any("serving.day" in n for n in plan.notes)  # type: ignore[attr-defined]
