"""One replica has one start-up in plan, deploy and ``simulate autoscale`` (``gpuplan.start_up``), and a
service on a schedule one lead before its hours: the minutes plan bills, deploy's cron lines start it
at and simulate runs it from.

The first tests here compared one replica's start-up as each command's function counts it, so they
passed while the commands disagreed on the lead (an 11.6 min start-up: plan billed "about 12 min",
simulate ran from 08:45, deploy's KEDA cron from 08:20): deploy rounded up to 5 min, ignored
``data.copy_gbps`` and, for a service serve.py runs, did not know the weights (its 40 min bound);
simulate counted one replica of an instance's several. The last ones compare the figures each command
prints and writes, for the same workload and offer.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from gpuplan.deploy.engine import cold_start, cold_start_s, schedule_lead_min
from gpuplan.plan.input_types import JobFacts
from gpuplan.plan.service_day import start_up
from gpuplan.simulate.autoscale import FleetPrices
from gpuplan.simulate.policy import parse_policy
from gpuplan.simulate.replica import cold_start as simulated_cold_start
from one_line import answered

WEIGHTS_GB = 16.06  # llama-8b in bfloat16, examples/llm-inference-service.yaml


def test_plan_deploy_and_simulate_count_the_same_start_up_for_one_replica() -> None:
    # 10 min boot and image pull + 60 s engine start + 16.06 GB at EBS gp3's 0.131 GB/s
    expected = 600 + 60 + WEIGHTS_GB / 0.131
    plan_h, plan_words = start_up(JobFacts(weights_gb=WEIGHTS_GB), 1, 1)  # type: ignore[call-arg]
    sim_s, sim_words = simulated_cold_start(WEIGHTS_GB * 1e9, None)
    assert plan_h * 3600 == pytest.approx(expected)
    assert sim_s == pytest.approx(expected)
    # deploy's probes count from the container's start: the same start-up less the boot, said
    assert cold_start_s(WEIGHTS_GB, 1) == pytest.approx(expected - 600)
    assert cold_start(WEIGHTS_GB).with_boot().seconds(1) == pytest.approx(expected)
    assert "not counted" in cold_start(WEIGHTS_GB).parts_words(1)
    assert plan_words in sim_words  # the same parts, in the same words


def test_a_given_copy_rate_reads_the_weights_in_all_three() -> None:
    # data.copy_gbps: 1 GB/s, the user's measured rate, in place of the assumed 0.131
    expected = 600 + 60 + 16.0 / 1.0
    job = JobFacts(weights_gb=16.0, dataset_copy_gbps=1.0, copy_gbps_stated=True)  # type: ignore[call-arg]
    plan_h, words = start_up(job, 8, 4)  # two replicas on an 8-GPU instance read through one disk
    assert plan_h * 3600 == pytest.approx(600 + 60 + 2 * 16.0) and "data.copy_gbps" in words
    assert simulated_cold_start(16e9, None, 1.0)[0] == pytest.approx(expected)
    assert cold_start(16.0, 1.0).with_boot().seconds(1) == pytest.approx(expected)
    # --storage-gbps, where given, is the simulation's own
    assert simulated_cold_start(16e9, 2e9, 1.0)[0] == pytest.approx(600 + 60 + 8.0)


def test_a_replica_of_unknown_size_starts_at_the_bound_not_a_short_guess() -> None:
    # simulate --replica: the weights are not known; the bound deploy gives a replica, after the boot
    seconds, words = simulated_cold_start(None, None)
    assert seconds == pytest.approx(600 + 30 * 60) and "not known" in words
    plan_h, _ = start_up(JobFacts(weights_gb=0.0), 8, 4)  # type: ignore[call-arg]
    assert plan_h * 3600 == pytest.approx(seconds)


@pytest.mark.parametrize(
    ("weights_gb", "copy_gbps", "gpus_per_node", "lead"),
    [
        (4.9, None, 1, 12),  # 600 + 60 + 37.4 s = 11.6 min: whole minutes, not 5 (deploy had 15)
        (16.06, None, 8, 28),  # eight replicas read through one disk: 27.3 min (simulate had one's 15)
        (16.06, 1.0, 8, 14),  # data.copy_gbps: 1 GB/s (deploy had read at the assumed 0.131 GB/s: 30)
        (0.0, None, 1, 40),  # the weights not known: the boot and deploy's 30 min bound, in all three
    ],
)
def test_a_scheduled_service_has_one_lead_in_plan_deploy_and_simulate(
    weights_gb: float, copy_gbps: float | None, gpus_per_node: int, lead: int
) -> None:
    from gpuplan.simulate.autoscale import _scheduled_lead
    from gpuplan.simulate.replica import new_instance_start_up

    given = {"dataset_copy_gbps": copy_gbps, "copy_gbps_stated": True} if copy_gbps else {}
    job = JobFacts(weights_gb=weights_gb, **given)  # type: ignore[call-arg]
    plan_h, plan_words = start_up(job, gpus_per_node, 1, scheduled=True)
    assert plan_h * 60 == lead
    assert schedule_lead_min(weights_gb or None, gpus_per_node, copy_gbps) == lead
    up = new_instance_start_up(weights_gb * 1e9 or None, None, copy_gbps)
    on_instance = FleetPrices(
        usd_per_hour={"on_demand": 1.0}, source="", replicas_per_instance={"on_demand": gpus_per_node}
    )
    policy = _scheduled_lead(parse_policy("fixed:replicas=1"), on_instance, up)
    assert policy.schedule_lead_s() == lead * 60
    assert policy.lead_words == plan_words  # the same parts, in the same words
    assert f"{lead} min: " in plan_words and "rounded up to the whole minute" in plan_words


OFFICE_CHAT = """name: office-1b-chat
task: infer
model: {hf_config: config.json}
inputs: {batch_size: 16, seq_len: 768}
precision: bf16
serving:
  requests_per_s: 5
  prompt_tokens: 512
  output_tokens: 256
  min_replicas: 0
  schedule: {hours: "09:00-18:00", days: mon-fri, time_zone: Asia/Singapore}
constraints: {providers: [gcp], regions: [asia-southeast1], gpus: [L4], max_gpus: 1, pricing: [on_demand]}
"""


def _office_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """``gpuplan plan --json`` of :data:`OFFICE_CHAT` (Llama 3.2 1B from its config), written beside
    the workload and its config: the plan file."""
    tmp_path.mkdir(exist_ok=True)
    shutil.copy(
        Path(__file__).parents[1] / "examples" / "hf-config" / "config.json", tmp_path / "config.json"
    )
    (tmp_path / "svc.yaml").write_text(OFFICE_CHAT, encoding="utf-8")
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(
        answered(
            ["--db", str(tmp_path / "catalog.db"), "plan", str(tmp_path / "svc.yaml"), "--json"], capsys
        ),
        encoding="utf-8",
    )
    return plan_file


def _keda_start_min(keda: str) -> int:
    """The minute of the day a KEDA ScaledObject's (one) cron trigger starts the service at."""
    start = re.search(r"start: (\d+) (\d+) \* \* ", keda)
    assert start is not None, keda
    return int(start[2]) * 60 + int(start[1])


def test_plan_deploy_and_simulate_print_one_lead_for_an_office_hours_service(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Llama 3.2 1B from its config (no Hub weights: deploy runs serve.py) on one L4, 09:00-18:00: plan
    # billed 11.6 min, simulate ran from 08:45 and deploy's KEDA cron started at 08:20 (its 40 min
    # bound, the weights not known to it); now 12 min in all three
    db = ["--db", str(tmp_path / "catalog.db")]
    plan_file = _office_plan(tmp_path, capsys)
    option = json.loads(plan_file.read_text("utf-8"))["options"][0]
    assert option["instance_type"] == "g2-standard-4"
    billed_min = option["service_day"]["start_up_min"]
    assert billed_min == 12
    answered([*db, "deploy", str(plan_file), "--target", "k8s", "--out", str(tmp_path / "k8s")], capsys)
    keda = (tmp_path / "k8s" / "k8s" / "keda-scaledobject.yaml").read_text("utf-8")
    assert 9 * 60 - _keda_start_min(keda) == billed_min
    assert "from 12 min before its hours" in keda and "4.9 GB of weights" in keda
    doc = json.loads(
        answered(
            [*db, "simulate", "autoscale", str(tmp_path / "svc.yaml"), "--shape", "diurnal", "--hours", "24",
             "--instance", "g2-standard-4", "--policy", "fixed:replicas=1", "--json"],
            capsys,
        )
    )  # fmt: skip
    assert doc["policies"][0]["behaviour"]["schedule_lead_s"] == billed_min * 60


def test_deploy_of_a_plan_file_starts_its_cron_at_the_plans_start_up_where_it_cannot_read_the_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The plan file alone, handed to someone else (its model's config.json not beside it): deploy does
    # not know the weights, and had started the KEDA cron at 08:20 (its 40 min bound) and called that
    # "the start-up the plan bills each day", where the plan billed 12 min (08:48)
    plan_file = _office_plan(tmp_path / "made", capsys)
    doc = json.loads(plan_file.read_text("utf-8"))
    billed_min = doc["recommended"]["service_day"]["start_up_min"]
    assert billed_min == 12
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    handed = elsewhere / "plan.json"
    handed.write_text(plan_file.read_text("utf-8"), encoding="utf-8")
    db = ["--db", str(tmp_path / "catalog.db")]
    answered([*db, "deploy", str(handed), "--target", "k8s", "--out", str(elsewhere / "k8s")], capsys)
    keda = (elsewhere / "k8s" / "k8s" / "keda-scaledobject.yaml").read_text("utf-8")
    assert 9 * 60 - _keda_start_min(keda) == billed_min
    assert "from 12 min before its hours" in keda
    assert "The lead is the start-up the plan bills each day, 12 min (its service_day.start_up_min" in keda
    assert "30 min deploy gives" not in keda
    # a plan that states no start-up before its hours: deploy's own count, not called the plan's
    for option in (doc["recommended"], *doc["options"]):
        option["service_day"] = None
    handed.write_text(json.dumps(doc), encoding="utf-8")
    answered([*db, "deploy", str(handed), "--target", "k8s", "--out", str(elsewhere / "own")], capsys)
    keda = (elsewhere / "own" / "k8s" / "keda-scaledobject.yaml").read_text("utf-8")
    assert 9 * 60 - _keda_start_min(keda) == 40
    assert (
        "The lead is deploy's own count, as the plan file states no start-up before its hours: 40 min" in keda
    )
    assert "the plan bills" not in keda


@pytest.mark.parametrize(
    ("weights_gb", "on_gpus", "lead"),
    [
        (WEIGHTS_GB, [0], 14),  # one instance: 600 + 60 + 122.6 s = 13.0 min (share had 40: the bound)
        (WEIGHTS_GB, [0, 0], 16),  # two instances packed on the node read through its one disk
        (None, [0], 40),  # a service given by hand: its weights not known, the bound in both
    ],
)
def test_simulate_share_starts_a_scheduled_packing_at_plans_lead(
    weights_gb: float | None, on_gpus: list[int], lead: int
) -> None:
    from types import SimpleNamespace

    from gpuplan.perf.memory import GIB
    from gpuplan.simulate.share import Placement, fleet_hours, packing_start_up
    from gpuplan.workload.spec import ScheduleSpec

    decode = None if weights_gb is None else SimpleNamespace(weights_gib=weights_gb * 1e9 / GIB)
    demand = SimpleNamespace(name="chat", serving=None if decode is None else SimpleNamespace(decode=decode))
    packing = SimpleNamespace(
        services=[SimpleNamespace(name="chat")],
        placements=[Placement(gpu_index=g, service="chat", slice="time-slice") for g in on_gpus],
    )
    up = packing_start_up(packing, [demand], 8)  # type: ignore[arg-type]
    week = ScheduleSpec(hours="09:00-18:00", days=("mon", "tue"), time_zone="UTC")  # type: ignore[call-arg]
    hours = fleet_hours(week, up)
    # plan's lead for the same replicas on one instance (replicas_per_gpu: the instances packed)
    job = JobFacts(weights_gb=weights_gb or 0.0, replicas_per_gpu=len(on_gpus))  # type: ignore[call-arg]
    plan_h, plan_words = start_up(job, 1, 1, scheduled=True)
    assert hours.start_up_s == plan_h * 3600 == lead * 60
    if len(on_gpus) == 1:
        assert hours.start_up_words == plan_words  # the same parts, in the same words
