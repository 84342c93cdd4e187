"""An engine service on SkyPilot is a SkyServe service: the replicas the plan priced, held at the plan's
capacity of one replica × the utilisation plans size fleets for, probed on the engine's health path."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from deploy_helpers import (
    FIXTURES,
    by_path,
    serve_workload,
    spot_service_plan,
    validate_skypilot_task,
    yaml_docs,
)

from gpuplan.cli import main
from gpuplan.deploy import GenerateOptions, LaunchSpec, generate
from gpuplan.deploy.engine import ENGINE_HEALTH_PATH
from gpuplan.errors import DeployError
from gpuplan.perf.inference import TARGET_UTILISATION

SERVE_PLAN = FIXTURES / "plan_serve_llama_aws.json"
LAUNCH = GenerateOptions(out_dir="/srv/launch")


def _plan() -> dict[str, Any]:
    return json.loads(SERVE_PLAN.read_text())


def _files(spec: LaunchSpec) -> tuple[dict[str, Any], str]:
    """task.yaml, validated as SkyPilot 0.14.1 validates it (service section included), and README."""
    files = by_path(generate(spec, "skypilot", LAUNCH))
    task = yaml.safe_load(files["task.yaml"])
    validate_skypilot_task(task)
    return task, files["README.md"]


def test_a_planned_service_autoscales_from_the_replicas_priced_on_the_plans_capacity() -> None:
    figures = _plan()["recommended"]["service"]
    task, readme = _files(LaunchSpec.from_plan_json(SERVE_PLAN))
    policy = task["service"]["replica_policy"]
    # the plan priced 4 replicas (4 nodes of one L40S, one GPU each); room to double under load
    assert figures["replicas"] == 4
    assert (policy["min_replicas"], policy["max_replicas"]) == (figures["replicas"], 2 * figures["replicas"])
    # one replica carries ~10.09 requests/s: held at 80 % of it, to 4 significant figures
    expected = figures["replica_capacity_requests_per_s"] * TARGET_UTILISATION
    assert policy["target_qps_per_replica"] == pytest.approx(expected, rel=5e-4)
    # each SkyServe replica is one cluster of one replica's GPUs, on the instance priced
    resources = task["resources"]
    assert (resources["accelerators"], resources["instance_type"], task["num_nodes"]) == (
        "L40S:1",
        "g6e.xlarge",
        1,
    )
    said = " ".join(readme.split())
    assert f"its target, {policy['target_qps_per_replica']:g} requests/s" in said
    assert f"({figures['replica_capacity_requests_per_s']:.4g} requests/s) × 80 %" in said
    assert "keeps between 4 and 8 of them" in said
    # a training plan's task is still a task (`sky launch`, `sky jobs launch`), with no service
    training = by_path(
        generate(LaunchSpec.from_plan_json(FIXTURES / "plan_spot_aws.json"), "skypilot", LAUNCH)
    )
    assert "service" not in yaml.safe_load(training["task.yaml"])


def test_the_readiness_probe_is_the_engines_health_with_the_kubernetes_startup_budget() -> None:
    spec = LaunchSpec.from_plan_json(SERVE_PLAN)
    task, readme = _files(spec)
    probe = task["service"]["readiness_probe"]
    assert probe["path"] == ENGINE_HEALTH_PATH == "/health"
    # the k8s target's startup probe: periodSeconds × failureThreshold (10 s × 180 = 30 min); SkyServe's
    # default, 1200 s, could tear down a large model's replica while its weights still load
    docs = yaml_docs(generate(spec, "k8s"))
    container = next(d for d in docs if d["kind"] == "Deployment")["spec"]["template"]["spec"]["containers"][
        0
    ]
    startup = container["startupProbe"]
    assert probe["initial_delay_seconds"] == startup["periodSeconds"] * startup["failureThreshold"] == 1800
    assert task["resources"]["ports"] == container["ports"][0]["containerPort"]
    assert "`GET /health` on port 8000" in readme and "30 minutes" in readme


def test_the_readme_says_how_to_run_watch_reach_and_stop_the_service() -> None:
    _task, readme = _files(LaunchSpec.from_plan_json(SERVE_PLAN))
    name = "llama8b-chat-service"
    for line in (
        f"sky serve up task.yaml -n {name} --secret HF_TOKEN",
        f"sky serve status {name}",
        f'curl "$(sky serve status --endpoint {name})/v1/models"',
        f"sky serve down {name}",
    ):
        assert line in readme
    # the one-replica task's `sky launch` and the note to put it behind SkyServe are gone
    assert "sky launch" not in readme and "One replica" not in readme


def test_a_workload_files_service_runs_a_fixed_count_and_says_why(tmp_path: Path) -> None:
    spec = LaunchSpec.from_workload(
        serve_workload(tmp_path, model="llama-8b"), gpu="H100-SXM", count=2, provider="aws"
    )
    task, readme = _files(spec)
    policy = task["service"]["replica_policy"]
    # no capacity figure without a plan: SkyServe refuses min != max without a target, so the count
    # is the serving block's minimum (a replica per GPU: 2), fixed
    assert spec.serving is not None and spec.serving.min_replicas == 2
    assert policy == {"min_replicas": 2, "max_replicas": 2}
    said = " ".join(readme.split())
    assert "a fixed count (the serving block's min_replicas), without autoscaling" in said
    assert "These files come from a workload file" in said
    assert "`gpuplan plan WORKLOAD --json > plan.json`" in said


def test_a_replica_smaller_than_the_priced_node_gets_its_own_gpus_and_skypilot_picks_the_instance() -> None:
    doc = _plan()
    # one 4-GPU instance priced for four one-GPU replicas: four 4-GPU instances would be 4× the cost
    doc["recommended"].update(instance_type="g6e.12xlarge", gpu_count=4, gpus_per_node=4, nodes=1)
    # AWS sells the L40S 1, 4 and 8 to an instance (g6e.xlarge, g6e.12xlarge, g6e.48xlarge)
    sold = {("aws", "g6e.xlarge"): ("L40S", 1.0), ("aws", "g6e.12xlarge"): ("L40S", 4.0)}
    task, readme = _files(LaunchSpec.from_plan(doc).with_sold_gpu_counts(sold))
    assert task["resources"]["accelerators"] == "L40S:1" and "instance_type" not in task["resources"]
    assert task["service"]["replica_policy"]["min_replicas"] == 4
    said = " ".join(readme.split())
    assert "The plan priced g6e.12xlarge (4 GPUs); a replica takes L40S:1" in said


def _tp4_on_p4de() -> LaunchSpec:
    """Two tensor-parallel-4 replicas priced on one p4de.24xlarge (8 × A100 80GB)."""
    doc = _plan()
    doc["workload"]["tensor_parallel"] = 4
    doc["recommended"].update(
        gpu="A100-SXM4-80GB", instance_type="p4de.24xlarge", gpu_count=8, gpus_per_node=8, nodes=1
    )
    doc["recommended"]["service"].update(replicas=2, replica_gpus=4, replica_capacity_requests_per_s=15.0)
    return LaunchSpec.from_plan(doc)


def test_a_replica_of_a_size_the_provider_does_not_sell_takes_the_priced_instance() -> None:
    # was: `accelerators: A100-80GB:4` and no instance type, which AWS sells as no instance (its
    # A100 80GB comes only as p4de.24xlarge's 8): the service would never launch
    sold = {
        ("aws", "p4de.24xlarge"): ("A100-SXM4-80GB", 8.0),
        ("gcp", "a2-ultragpu-4g"): ("A100-SXM4-80GB", 4.0),
    }
    task, readme = _files(_tp4_on_p4de().with_sold_gpu_counts(sold))
    assert task["resources"]["instance_type"] == "p4de.24xlarge"
    assert task["resources"]["accelerators"] == "A100-80GB:8"
    assert "--tensor-parallel-size 4" in task["run"]  # the replica the plan priced, on half of it
    said = " ".join(readme.split())
    assert "Each replica takes a whole p4de.24xlarge (8 GPUs) and its engine uses 4 of them" in said
    assert "aws sells no instance of exactly 4 × NVIDIA A100 SXM4 80GB (the catalog lists 8)" in said
    assert "The plan priced 2 replicas to an instance: this service's instances cost 2× what" in said


def test_a_replica_smaller_than_the_instance_takes_it_whole_where_the_catalog_was_not_read() -> None:
    # unknown is never the best case: an instance that may not exist is not asked for
    task, readme = _files(_tp4_on_p4de())
    assert task["resources"]["instance_type"] == "p4de.24xlarge"
    assert task["resources"]["accelerators"] == "A100-80GB:8"
    assert "is not known (the catalog could not be read)" in " ".join(readme.split())


MALFORMED = "plan.json: recommended option is malformed: service.replica_capacity_requests_per_s: "
UNBUILT = "plan.json: cannot build a launch from it: replica_capacity_requests_per_s: "


HOSTILE = [
    (float("nan"), MALFORMED),  # as a parsed document holds it (the web API's deploy request)
    ("Infinity", MALFORMED + "must be a finite number, not NaN or infinity"),
    (-3.0, MALFORMED + "Input should be greater than or equal to 0"),
    (0.0, UNBUILT + "Input should be greater than 0"),
    (1e30, UNBUILT + "Input should be less than or equal to 1000000"),
]


def test_a_hostile_capacity_in_the_plan_is_refused_in_one_line(tmp_path: Path) -> None:
    # The plan document's reader refuses what is not a finite number ≥ 0; the launch's own field, what
    # is 0 or past any engine (1e30 had set SkyServe's target at 8e29 requests/s).
    for value, said in HOSTILE:
        doc = _plan()
        doc["recommended"]["service"]["replica_capacity_requests_per_s"] = value
        with pytest.raises(DeployError) as e:
            LaunchSpec.from_plan(doc, source="plan.json")
        line = str(e.value)
        assert line.startswith(said) and "\n" not in line, (value, line)
    doc = _plan()
    doc["recommended"]["service"]["replica_capacity_requests_per_s"] = float("nan")
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc))  # JSON's NaN literal, which strict JSON has not
    with pytest.raises(DeployError, match=r"^[^\n]*NaN is not a number gpuplan accepts[^\n]*$"):
        LaunchSpec.from_plan_json(path)


def test_the_cli_refuses_a_hostile_capacity_in_one_line_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = _plan()
    doc["recommended"]["service"]["replica_capacity_requests_per_s"] = 1e30
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc))
    out = tmp_path / "out"
    monkeypatch.setattr(sys, "argv", ["gpuplan", "deploy", str(path), "-t", "skypilot", "-o", str(out)])
    with pytest.raises(SystemExit) as e:
        main()
    err = capsys.readouterr().err
    assert e.value.code != 0 and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and "replica_capacity_requests_per_s" in err
    assert not out.exists()


def test_the_capacity_read_is_the_plans_own_figure() -> None:
    spec = LaunchSpec.from_plan_json(SERVE_PLAN)
    assert (
        spec.replica_capacity_requests_per_s
        == _plan()["recommended"]["service"]["replica_capacity_requests_per_s"]
    )


@pytest.mark.parametrize(
    ("serving", "said"),
    [
        (
            "share_gpu: 2",
            "so 2 replicas cannot time-share a GPU (serving.share_gpu: 2): deploy with --target k8s",
        ),
        ('mig_profile: "1g.10gb"', "not a MIG slice (1g.10gb): deploy with --target k8s"),
    ],
)
def test_replicas_sharing_a_gpu_are_refused_in_one_line(serving: str, said: str, tmp_path: Path) -> None:
    # every SkyServe replica is a cluster of whole GPUs: a time-sharing replica would cost a whole GPU
    spec = LaunchSpec.from_workload(
        serve_workload(tmp_path, serving, model="llama-8b"), gpu="A100-SXM4-80GB", provider="aws"
    )
    with pytest.raises(DeployError) as e:
        generate(spec, "skypilot", LAUNCH)
    assert said in str(e.value) and "\n" not in str(e.value)


def test_the_service_schema_refuses_what_skyserve_refuses() -> None:
    # the dumped schema is SkyServe's strict one: a key it does not know, or a negative target, fails
    task, _readme = _files(LaunchSpec.from_plan_json(SERVE_PLAN))
    for bad in ({"target_qps": 1.0}, {"target_qps_per_replica": -1.0}):
        broken = {**task, "service": {**task["service"], "replica_policy": {"min_replicas": 1, **bad}}}
        with pytest.raises(jsonschema.ValidationError):
            validate_skypilot_task(broken)


def test_a_service_planned_below_the_headroom_for_its_latency_target_is_held_there() -> None:
    # was: the planner added replicas to meet the TTFT target (6 at 50 % of their capacity, where
    # 4 at 74 % carried the load but missed it), and the autoscaler held each replica at 80 %: it
    # took the replicas for the latency away as soon as it ran.
    doc = _plan()
    service = doc["recommended"]["service"]
    service.update(replicas=6, utilisation=0.5, ttft_p95_s=0.9, ttft_target_s=1.5)
    spec = LaunchSpec.from_plan(doc)
    assert spec.latency_share == 0.5 and spec.replica_load_share() == 0.5
    task, readme = _files(spec)
    target = task["service"]["replica_policy"]["target_qps_per_replica"]
    assert target == pytest.approx(service["replica_capacity_requests_per_s"] * 0.5, rel=5e-4)
    said = " ".join(readme.split())
    assert f"({service['replica_capacity_requests_per_s']:.4g} requests/s) × 50 %" in said
    # (deploy raises the plan's share to the highest at which the estimate keeps the target:
    # test_deploy_latency_share.py; this spec holds the plan's)
    assert "latency target holds only up to 50 % of a replica's capacity, below the 80 %" in said
    # Without a latency target, the same low utilisation is the count's rounding: the headroom holds.
    del service["ttft_target_s"]
    assert LaunchSpec.from_plan(doc).replica_load_share() == TARGET_UTILISATION
    # A plan may come from someone else: a utilisation below 0 is refused, as its other figures are.
    service.update(ttft_target_s=1.5, utilisation=-0.5)
    with pytest.raises(DeployError, match="recommended option is malformed"):
        LaunchSpec.from_plan(doc)


@pytest.mark.parametrize("pricing", ["monthly", "reserved_1y"])
def test_a_service_on_committed_capacity_scales_no_further_than_the_plan_bought(pricing: str) -> None:
    # was: a plan of 4 monthly subscriptions deployed an autoscaler of 4 to 8 replicas; the other
    # 4 were capacity priced nowhere (on hourly nodes, or none to schedule on)
    doc = _plan()
    doc["recommended"]["pricing"] = pricing
    spec = LaunchSpec.from_plan(doc)
    assert spec.serving is not None
    assert (spec.serving.min_replicas, spec.serving.max_replicas) == (4, 4)
    files = by_path(generate(spec, "k8s", GenerateOptions()))
    hpa = next(
        d
        for d in yaml_docs(generate(spec, "k8s", GenerateOptions()))
        if d["kind"] == "HorizontalPodAutoscaler"
    )
    assert (hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]) == (4, 4)
    readme = " ".join(files["README.md"].split())
    assert "The plan's 4 replicas run on " in readme and "set serving.max_replicas" in readme
    # on demand, room to double as before; a max_replicas the workload gives is kept
    doc["recommended"]["pricing"] = "on_demand"
    assert LaunchSpec.from_plan(doc).serving.max_replicas == 8  # type: ignore[union-attr]
    doc["recommended"]["pricing"] = pricing
    doc["workload"]["serving"]["max_replicas"] = 6
    assert LaunchSpec.from_plan(doc).serving.max_replicas == 6  # type: ignore[union-attr]


@pytest.mark.parametrize("pricing", ["monthly", "reserved_1y"])
def test_a_floor_below_the_replicas_bought_for_the_term_is_raised_to_them(pricing: str) -> None:
    # was: a workload's min_replicas: 1 under 4 monthly replicas gave an HPA of 1 to 4; scaling
    # down saved nothing (bought for the term) and queued the next peak behind a replica's start
    doc = _plan()
    doc["recommended"]["pricing"] = pricing
    doc["workload"]["serving"]["min_replicas"] = 1
    spec = LaunchSpec.from_plan(doc)
    assert spec.serving is not None
    assert (spec.serving.min_replicas, spec.serving.max_replicas) == (4, 4)
    hpa = next(
        d
        for d in yaml_docs(generate(spec, "k8s", GenerateOptions()))
        if d["kind"] == "HorizontalPodAutoscaler"
    )
    assert hpa["spec"]["minReplicas"] == 4
    readme = " ".join(by_path(generate(spec, "k8s", GenerateOptions()))["README.md"].split())
    assert "The serving block's min_replicas, 1, is raised to the 4 replicas the plan bought" in readme
    # on hourly capacity the floor given stays the autoscaler's floor
    doc["recommended"]["pricing"] = "on_demand"
    assert LaunchSpec.from_plan(doc).serving.min_replicas == 1  # type: ignore[union-attr]


def test_a_spot_service_falls_back_to_on_demand_and_says_what_that_costs() -> None:
    # was: use_spot: true and no fallback; nothing said what an on-demand replica costs
    task, readme = _files(LaunchSpec.from_plan(spot_service_plan(1.861), source="plan.json"))
    assert task["resources"]["use_spot"] is True
    policy = task["service"]["replica_policy"]  # validated against SkyPilot 0.14.1's schema above
    assert policy["dynamic_ondemand_fallback"] is True
    assert policy["base_ondemand_fallback_replicas"] == 0
    said = " ".join(readme.split())
    assert "https://docs.skypilot.co/en/latest/serving/spot-policy.html" in said
    # (1.861 − 0.5261) × 730 h = 974.48
    assert "costs $1.861/h against $0.526/h on spot" in said and "$974.48 a month" in said
    assert "the plan priced its spare (1 replica) on spot, and num_overprovision: 1 runs it there" in said
    unknown = " ".join(_files(LaunchSpec.from_plan(spot_service_plan(None), source="plan.json"))[1].split())
    assert "what an on-demand replica costs is unknown" in unknown and "$0.00" not in unknown


def test_an_on_demand_service_has_no_spot_fallback() -> None:
    task, readme = _files(LaunchSpec.from_plan_json(SERVE_PLAN))
    assert "dynamic_ondemand_fallback" not in task["service"]["replica_policy"]
    assert "On-demand fallback" not in readme


def test_a_spot_service_of_a_plan_shown_in_yuan_says_the_fallbacks_cost_in_yuan() -> None:
    # was: a plan made with --currency CNY had its fallback priced "$1.861/h against $0.526/h"
    doc = spot_service_plan(1.861)
    doc["display_currency"] = "CNY"
    doc["exchange_rate"] = {"currency": "CNY", "usd_per_unit": 0.14315, "units_per_usd": 6.9858,
                            "as_of": "2026-01-27", "source": "CFETS"}  # fmt: skip
    said = " ".join(_files(LaunchSpec.from_plan(doc, source="plan.json"))[1].split())
    # 1.861 × 6.9858 = 13.001; 0.5261 × 6.9858 = 3.675; (1.861 − 0.5261) × 730 h × 6.9858 = 6,807.50
    assert "costs ¥13.001/h against ¥3.675/h on spot" in said
    assert "¥9.325 more an hour each, ¥6,807.50 a month" in said
    assert (
        "($1.861/h against $0.526/h), turned into yuan at the plan's 1 USD = 6.9858 CNY, 2026-01-27" in said
    )
    fallback = said[said.index("On-demand fallback") :]
    assert "$974" not in fallback
    # and where the catalog holds no on-demand price, the spot one in yuan, the dollars beside
    doc["recommended"]["spot"]["service"]["on_demand_usd_per_instance_hour"] = None
    unknown = " ".join(_files(LaunchSpec.from_plan(doc, source="plan.json"))[1].split())
    assert "is unknown (spot: ¥3.675/h)" in unknown and "($0.526/h)" in unknown
    # the Kubernetes README's spot pool says it in the same words
    k8s = " ".join(
        by_path(generate(LaunchSpec.from_plan(doc, source="plan.json"), "k8s"))["README.md"].split()
    )
    assert "is unknown (spot: ¥3.675/h)" in k8s


def test_the_kubernetes_readme_of_a_plan_in_yuan_says_its_money_in_yuan_in_chinese() -> None:
    # reported as "$4.985/h … 每月多 $2,505.02" in the Kubernetes README of a plan made with
    # --currency CNY: every amount is in yuan at the plan's rate, the catalog's dollars named once
    from gpuplan.i18n import use_language

    doc = spot_service_plan(1.861)
    doc["display_currency"] = "CNY"
    doc["exchange_rate"] = {"currency": "CNY", "usd_per_unit": 0.14315, "units_per_usd": 6.9858,
                            "as_of": "2026-01-27", "source": "CFETS"}  # fmt: skip
    with use_language("zh"):
        files = by_path(generate(LaunchSpec.from_plan(doc, source="plan.json"), "k8s"))
    said = files["README.md"]
    assert "每月多 ¥6,807.50" in said and "¥13.001/h" in said, said
    dollars = [line for line in said.splitlines() if "$" in line and "$HF_TOKEN" not in line]
    # the dollars only where the catalog's own prices are named, beside the yuan
    assert all("目录以美元标价" in line for line in dollars), dollars
