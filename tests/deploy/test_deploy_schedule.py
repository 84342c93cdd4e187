"""A service on a schedule (``serving.schedule``) scales to zero outside its hours: on Kubernetes a
KEDA ScaledObject whose cron trigger (keda.sh/docs/latest/scalers/cron) holds the fleet from just
before its hours to their end, valid against KEDA's own CRD; on SkyPilot, which has no schedule,
the README says so and gives the crontab that brings it up and down."""

from __future__ import annotations

import re
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np
import pytest
from deploy_helpers import by_path, serve_workload, validate_k8s, validate_skypilot_task, yaml_docs

from gpuplan.day_load import Schedule
from gpuplan.deploy import GenerateOptions, LaunchSpec, generate
from gpuplan.deploy.engine import cron_lines
from gpuplan.errors import WorkloadError

OFFICE = 'schedule: {hours: "09:00-19:00", days: mon-fri, time_zone: Asia/Shanghai}'
#: KEDA's cron scaler's metadata (keda.sh/docs/2.16/scalers/cron): all four are required.
CRON_KEYS = {"timezone", "start", "end", "desiredReplicas"}
_CRON = re.compile(r"(\d{1,2}) (\d{1,2}) \* \* ([0-6](?:,[0-6])*)")


def _events(line: str) -> set[int]:
    """The minutes of a week (Monday 00:00 is 0) a cron line of the form KEDA's are written in fires."""
    m = _CRON.fullmatch(line)
    assert m is not None, line
    minute, hour = int(m[1]), int(m[2])
    assert minute < 60 and hour < 24
    return {((int(d) - 1) % 7) * 1440 + hour * 60 + minute for d in m[3].split(",")}


def _active(start: str, end: str) -> np.ndarray:
    """Each minute of a week: whether the cron scaler holds its replicas (after a start, before an end)."""
    starts, ends = _events(start), _events(end)
    on, state = np.zeros(7 * 1440, dtype=bool), False
    for _lap in range(2):  # the second lap starts in the state the week ends in
        for t in range(7 * 1440):
            state = True if t in starts else False if t in ends else state
            on[t] = state
    return on


@pytest.mark.parametrize(
    ("hours", "days", "lead"),
    [("09:00-19:00", (0, 1, 2, 3, 4), 40), ("00:10-24:00", (5, 6), 40), ("08:00-12:00", (0, 2, 4), 5)],
)
def test_the_cron_lines_hold_the_fleet_for_the_hours_and_the_lead_only(
    hours: str, days: tuple[int, ...], lead: int
) -> None:
    a, b = ((int(t[:2]) * 60 + int(t[3:])) for t in hours.split("-"))
    schedule = Schedule(start_min=a, end_min=b, weekdays=days, zone="UTC")
    want = np.roll(schedule.week_minutes(), -lead) | schedule.week_minutes()
    active = np.zeros_like(want)
    for start, end in cron_lines(schedule, lead):  # one KEDA cron trigger each, active together
        active |= _active(start, end)
    assert np.array_equal(active, want)


def test_kubernetes_scales_a_scheduled_service_to_zero_with_kedas_cron_trigger(tmp_path: Path) -> None:
    spec = LaunchSpec.from_workload(serve_workload(tmp_path, f"{OFFICE}, min_replicas: 0"), gpu="L4", count=2)
    # the default autoscaler is the HPA, which cannot go to zero: the schedule is KEDA's
    files = generate(spec, "k8s", GenerateOptions(autoscaler="hpa"))
    docs = yaml_docs(files)
    for d in docs:
        validate_k8s(d)  # the ScaledObject against KEDA's CRD
    assert not any(d["kind"] == "HorizontalPodAutoscaler" for d in docs)
    scaled = next(d for d in docs if d["kind"] == "ScaledObject")["spec"]
    assert scaled["minReplicaCount"] == 0
    (cron,) = (t for t in scaled["triggers"] if t["type"] == "cron")  # one time of day
    meta = cron["metadata"]
    assert set(meta) == CRON_KEYS
    ZoneInfo(meta["timezone"])
    assert meta["timezone"] == "Asia/Shanghai" and meta["desiredReplicas"] == "2"
    # started before 09:00 by its start-up (a new node, then the weights' 30 min bound), ended at 19:00
    assert (meta["start"], meta["end"]) == ("20 8 * * 1,2,3,4,5", "0 19 * * 1,2,3,4,5")
    assert "09:00-19:00 mon-fri (Asia/Shanghai)" in by_path(files)["k8s/keda-scaledobject.yaml"]
    # the README does not tell a scheduled service to set min_replicas to scale down at night
    planned = LaunchSpec.from_workload(serve_workload(tmp_path, OFFICE), gpu="L4", count=2)
    readme = by_path(generate(planned, "k8s"))["README.md"]
    assert "at night" not in readme and "runs 09:00-19:00 mon-fri (Asia/Shanghai) only" in readme


def test_an_unscheduled_service_keeps_its_floor(tmp_path: Path) -> None:
    spec = LaunchSpec.from_workload(serve_workload(tmp_path, "min_replicas: 1"), gpu="L4", count=2)
    docs = yaml_docs(generate(spec, "k8s", GenerateOptions(autoscaler="keda")))
    scaled = next(d for d in docs if d["kind"] == "ScaledObject")["spec"]
    assert scaled["minReplicaCount"] == 1 and [t["type"] for t in scaled["triggers"]] == ["prometheus"]


@pytest.mark.parametrize("model", ["gpt2", "llama-8b"])
def test_skypilot_says_it_has_no_schedule_and_gives_the_crontab(tmp_path: Path, model: str) -> None:
    spec = LaunchSpec.from_workload(
        serve_workload(tmp_path, f"{OFFICE}, min_replicas: 0", model=model), gpu="L4", count=2, provider="aws"
    )
    files = by_path(generate(spec, "skypilot"))
    import yaml

    task = yaml.safe_load(files["task.yaml"])
    validate_skypilot_task(task)
    if "service" in task:  # in its hours at least one replica: SkyServe's own 0 waits for a request
        assert task["service"]["replica_policy"]["min_replicas"] >= 1
    readme = files["README.md"]
    assert "SkyPilot has no schedule" in readme
    assert "CRON_TZ=Asia/Shanghai\n20 8 * * 1,2,3,4,5  cd " in readme
    assert "\n0 19 * * 1,2,3,4,5  sky " in readme and " down s -y" in readme


def test_min_replicas_zero_needs_a_schedule(tmp_path: Path) -> None:
    with pytest.raises(WorkloadError, match="min_replicas 0 needs a schedule"):
        LaunchSpec.from_workload(serve_workload(tmp_path, "min_replicas: 0"), gpu="L4")


def test_the_lead_is_called_the_plans_only_where_it_is_the_plans_figure(tmp_path: Path) -> None:
    from gpuplan.deploy.engine import schedule_lead

    spec = LaunchSpec.from_workload(serve_workload(tmp_path, OFFICE), gpu="L4", count=1).with_weights_gb(2.0)
    planned = spec.model_copy(update={"planned": True, "planned_lead_min": 12})
    # deploy counts the plan's 12 min (10 boot + 1 engine + 2 GB at 0.131 GB/s: 11.3): its parts said
    assert schedule_lead(planned, 1) == (12, schedule_lead(spec, 1)[1])
    assert schedule_lead(planned, 1)[1].startswith("the start-up the plan bills each day, 12 min: ")
    # four replicas on an instance (--share-gpu 4) read four copies, 12.0 min: deploy's own, the plan's said
    lead, words = schedule_lead(planned, 4)
    assert lead == 13 and words.startswith("deploy's count for 4 replica(s) on a new instance, 13 min: ")
    assert words.endswith("the plan bills 12 min before each day's hours")
    # a plan file that states none: deploy's count, never called the plan's
    lead, words = schedule_lead(planned.model_copy(update={"planned_lead_min": None}), 1)
    assert lead == 12 and words.startswith("deploy's own count") and "the plan bills" not in words
