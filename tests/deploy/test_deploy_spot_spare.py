"""A spot service's spare, which its plan priced against reclaims, is in the launch files: SkyServe
runs it above its autoscaler's count, the Kubernetes autoscaler never goes below it, and the pods
prefer spot nodes without requiring them (the on-demand fallback the plan's spare rests on)."""

from __future__ import annotations

from typing import Any

import yaml
from deploy_helpers import by_path, spot_service_plan, validate_k8s, validate_skypilot_task, yaml_docs

from gpuplan.deploy import GenerateOptions, LaunchSpec, generate


def _spot_plan(min_replicas: int | None) -> dict[str, Any]:
    """The served plan on spot: 4 replicas for the load and a spare; the serving block's own floor."""
    doc = spot_service_plan(1.861)
    if min_replicas is not None:
        doc["workload"]["serving"]["min_replicas"] = min_replicas
    return doc


def _sky(doc: dict[str, Any]) -> tuple[dict[str, Any], str]:
    files = by_path(generate(LaunchSpec.from_plan(doc, source="plan.json"), "skypilot", GenerateOptions()))
    task = yaml.safe_load(files["task.yaml"])
    validate_skypilot_task(task)  # SkyPilot 0.14.1's service schema, num_overprovision included
    return task, " ".join(files["README.md"].split())


def _k8s(doc: dict[str, Any]) -> tuple[dict[str, dict[str, Any]], str]:
    files = generate(LaunchSpec.from_plan(doc, source="plan.json"), "k8s", GenerateOptions())
    kinds = {}
    for d in yaml_docs(files):
        validate_k8s(d)  # Kubernetes' own schema, strict
        kinds[d["kind"]] = d
    return kinds, " ".join(by_path(files)["README.md"].split())


def test_skyserve_runs_the_spare_above_its_autoscalers_count() -> None:
    # was: min_replicas 1, no num_overprovision: the spare the plan priced was started nowhere,
    # while the README said "the plan priced its spare (1 replica) on spot"
    task, readme = _sky(_spot_plan(1))
    policy = task["service"]["replica_policy"]
    assert policy["num_overprovision"] == 1
    assert policy["min_replicas"] == 1
    assert policy["base_ondemand_fallback_replicas"] == 0
    assert "SkyServe starts 2 replicas" in readme
    assert "num_overprovision: 1 runs the spare the plan priced against spot reclaims (1 replica)" in readme
    assert "https://docs.skypilot.co/en/latest/serving/spot-hedge.html" not in readme  # a code citation


def test_skyserve_takes_a_floor_from_the_plan_as_the_load_and_the_spare() -> None:
    # no floor given: the plan's 4 for the load and the spare, the spare run as num_overprovision
    task, readme = _sky(_spot_plan(None))
    policy = task["service"]["replica_policy"]
    assert (policy["min_replicas"], policy["num_overprovision"]) == (4, 1)
    assert "SkyServe starts 5 replicas" in readme


def test_the_kubernetes_autoscaler_keeps_the_spare_above_the_floor_given() -> None:
    # was: replicas: 5 and minReplicas: 1, so the HPA removed the spare at the first quiet hour
    kinds, readme = _k8s(_spot_plan(1))
    assert kinds["HorizontalPodAutoscaler"]["spec"]["minReplicas"] == 2
    assert kinds["Deployment"]["spec"]["replicas"] == 5
    assert "The autoscaler's minReplicas, 2, is the serving block's min_replicas, 1, and the spare" in readme
    assert "keep min replicas above 1" not in readme


def test_a_spot_services_pods_prefer_spot_nodes_and_fall_back_to_on_demand() -> None:
    # was: eks.amazonaws.com/capacityType: SPOT in the nodeSelector, so a replacement replica stayed
    # Pending while no spot instance could be had, though the plan's spare rests on the fallback
    kinds, readme = _k8s(_spot_plan(1))
    pod = kinds["Deployment"]["spec"]["template"]["spec"]
    assert "eks.amazonaws.com/capacityType" not in pod["nodeSelector"]
    (term,) = pod["affinity"]["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
    assert term["preference"]["matchExpressions"] == [
        {"key": "eks.amazonaws.com/capacityType", "operator": "In", "values": ["SPOT"]}
    ]
    assert "the Deployment's pods prefer spot nodes (eks.amazonaws.com/capacityType: SPOT" in readme
    assert "select spot nodes only" not in readme
