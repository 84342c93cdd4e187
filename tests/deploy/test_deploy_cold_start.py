"""A serving engine's pods are given the time its replicas need to start, by the plan's own model of a
replacement (the weights of the replicas that share a node read through its one disk), and request
the disk their copies of the weights take."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from deploy_helpers import by_path, plan_doc, serve_workload, validate_k8s, yaml_docs

from gpuplan.cli import main
from gpuplan.deploy import GenerateOptions, LaunchSpec, generate
from gpuplan.deploy.k8s.serving import disk_rate_words, slow_start_warning
from gpuplan.units import ASSUMED_DISK_GBPS
from service_plans import llama1b_two_to_a_node

#: Llama-3.1-70B in bf16, as the plan counts one replica's weights (its storage line and its spot
#: replacement: "2 × 141.1 GB of weights read at 0.131 GB/s").
WEIGHTS_70B_GB = 141.1


def _service_70b(tmp_path: Path) -> LaunchSpec:
    """A 70B service at four GPUs a replica on eight-GPU nodes: two replicas to a node."""
    workload = serve_workload(tmp_path, model="llama-70b", top="tensor_parallel: 4\n")
    spec = LaunchSpec.from_workload(workload, gpu="A100-SXM4-80GB", count=8, provider="azure")
    return spec.with_weights_gb(WEIGHTS_70B_GB)


def _pod(files: list[Any]) -> dict[str, Any]:
    docs = yaml_docs(files)
    for d in docs:
        validate_k8s(d)
    deployment = next(d for d in docs if d["kind"] == "Deployment")
    pod: dict[str, Any] = deployment["spec"]["template"]["spec"]
    return pod


def _startup_s(container: dict[str, Any]) -> int:
    probe = container["startupProbe"]
    return int(probe["periodSeconds"] * probe["failureThreshold"])


def test_a_70b_services_pods_get_the_time_two_replicas_on_a_node_take_to_start(tmp_path: Path) -> None:
    # Two pods to a node each downloaded 141 GB into their own emptyDir with 30 min to do it, while
    # the plan's own replacement of that node's replicas takes 46 min (10 min for the instance, then
    # 2 × 141.1 GB at 0.131 GB/s): the kubelet restarted them before they served.
    files = generate(_service_70b(tmp_path), "k8s")
    container = _pod(files)["containers"][0]
    plan_replacement_s = 10 * 60 + 2 * WEIGHTS_70B_GB / ASSUMED_DISK_GBPS
    cold_s = 60 + 2 * WEIGHTS_70B_GB / ASSUMED_DISK_GBPS
    assert _startup_s(container) >= 1.5 * cold_s > plan_replacement_s
    assert _startup_s(container) < 1.5 * cold_s + 10  # a whole number of periods, no more
    # each pod's own copy, with the filesystem's headroom: 141.1 GB × 1.15 = 151.1 GiB
    assert container["resources"]["requests"]["ephemeral-storage"] == "152Gi"
    readme = by_path(files)["README.md"]
    assert "2 replicas run on each" in readme and "serve about 37 min after their containers start" in readme
    # the node's boot, which the probe does not wait for, said with the start-up plan counts
    assert "10 min before that to boot" in readme and "47 min in all" in readme
    assert "startup probe waits 56 min" in readme
    assert "needs 325 GB free for its 2 copies" in readme


def test_weights_on_a_claim_are_one_copy_and_no_pod_asks_for_local_disk(tmp_path: Path) -> None:
    files = generate(_service_70b(tmp_path), "k8s", GenerateOptions(model_cache_pvc="weights"))
    container = _pod(files)["containers"][0]
    assert "ephemeral-storage" not in container["resources"].get("requests", {})
    # the two replicas still read through one volume when a node starts
    assert _startup_s(container) >= 1.5 * (60 + 2 * WEIGHTS_70B_GB / ASSUMED_DISK_GBPS)
    assert "`weights` holds one copy: give it at least 163 GB" in by_path(files)["README.md"]


def test_weights_not_known_keep_the_floor_and_say_so(tmp_path: Path) -> None:
    workload = serve_workload(tmp_path, model="llama-70b", top="tensor_parallel: 4\n")
    spec = LaunchSpec.from_workload(workload, gpu="A100-SXM4-80GB", count=8, provider="azure")
    files = generate(spec, "k8s")
    container = _pod(files)["containers"][0]
    assert _startup_s(container) == 30 * 60
    assert "ephemeral-storage" not in container["resources"].get("requests", {})
    assert "the model's size is not known here" in by_path(files)["README.md"]


def _deploy_llama1b(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], out: Path
) -> str:
    """``gpuplan deploy -t k8s`` of a Llama-3.2-1B service planned at 4 GPUs a replica on an 8-GPU
    p4d.24xlarge (two to a node), into ``out``; its stderr."""
    doc = llama1b_two_to_a_node(plan_doc(gpu_count=8, nodes=1, pricing="on_demand"))
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(doc))
    monkeypatch.setattr(sys, "argv", ["gpuplan", "deploy", str(plan), "-t", "k8s", "-o", str(out)])
    with pytest.raises(SystemExit) as e:
        main()
    _, err = capsys.readouterr()
    assert e.value.code in (0, None), err
    return err


def test_deploy_sizes_the_start_from_the_traced_weights(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "o"
    _deploy_llama1b(tmp_path, monkeypatch, capsys, out)
    docs = yaml.safe_load_all((out / "k8s" / "deployment.yaml").read_text())
    deployment = next(d for d in docs if d["kind"] == "Deployment")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    # 1.24 B parameters in bf16: some 2.5 GB a copy, 3 GiB with the headroom
    assert container["resources"]["requests"]["ephemeral-storage"] == "3Gi"
    assert _startup_s(container) == 30 * 60  # far below the floor
    assert (
        "A replica loads 2.5 GB of weights. 2 replicas run on each p4d.24xlarge"
        in (out / "README.md").read_text()
    )


@pytest.mark.parametrize(("weights_gb", "minutes"), [(WEIGHTS_70B_GB, 30), (810.0, 156)])
def test_skyserve_gives_a_replica_the_time_its_weights_take_on_a_cluster_of_its_own(
    tmp_path: Path, weights_gb: float, minutes: int
) -> None:
    # one replica to a cluster: a 70B's 18 min × 1.5 stays within the 30-minute floor; a 405B's 810 GB
    # (103 min at 0.131 GB/s) had been torn down after 30 minutes, and started again without end
    spec = _service_70b(tmp_path).with_weights_gb(weights_gb)
    files = by_path(generate(spec, "skypilot"))
    probe = yaml.safe_load(files["task.yaml"])["service"]["readiness_probe"]
    cold_s = 60 + weights_gb / ASSUMED_DISK_GBPS
    assert probe["initial_delay_seconds"] == max(1800, 10 * math.ceil(1.5 * cold_s / 10))
    assert probe["initial_delay_seconds"] // 60 == minutes
    assert f"SkyServe gives it {minutes} minutes to download and load the weights" in files["README.md"]


def test_a_start_longer_than_a_quarter_hour_is_said_with_the_claim_that_holds_one_copy(
    tmp_path: Path,
) -> None:
    # The README alone had said a new node's replicas serve after 145 min; deploy proposed nothing,
    # and an autoscaler down to one replica was written for a daily cycle it cannot follow.
    spec = _service_70b(tmp_path)
    line = slow_start_warning(spec, GenerateOptions())
    assert line is not None
    # what it holds against the limit is named, the containers' start, and the new node's boot beside
    # it, the whole start-up the README, plan and simulate autoscale count (it had said "serve after
    # about 37 min" against a README that says 47 min for a new node)
    assert line.startswith(
        "the 2 replicas on a new node serve about 37 min after their containers start (60 s engine start "
        "+ 2 × 141.1 GB read at 0.131 GB/s, AWS EBS gp3's baseline, assumed for this azure node, whose "
        "disk's read rate gpuplan does not know), and the node takes 10 min before that to boot and pull "
        "the image (assumed), 47 min in all, the start-up plan and simulate autoscale count: an autoscaler "
        "whose added replicas take more than 15 min from their containers' start to serve cannot follow a "
        "daily cycle of load"
    )
    readme = by_path(generate(spec, "k8s"))["README.md"]
    assert "about 37 min after their containers start" in readme and "47 min in all" in readme
    # the claim's effect in the README's own figures: one copy (163 GB) against two (325 GB)
    assert (
        "`--model-cache-pvc NAME` keeps one copy of the weights on an existing PersistentVolumeClaim (of at "
        "least 163 GB)"
        in line
        and "(2 copies, 325 GB of the node's disk)" in line
    )
    # with the claim given, the start is still said, the claim not proposed again
    given = slow_start_warning(spec, GenerateOptions(model_cache_pvc="weights"))
    assert given is not None and "daily cycle" in given and "--model-cache-pvc" not in given
    # a 1B model's start is minutes: nothing to say; nor where the weights are not known
    assert slow_start_warning(spec.with_weights_gb(2.5), GenerateOptions()) is None
    unknown = LaunchSpec.from_workload(
        serve_workload(tmp_path, model="llama-70b", top="tensor_parallel: 4\n"),
        gpu="A100-SXM4-80GB",
        count=8,
        provider="azure",
    )
    assert slow_start_warning(unknown, GenerateOptions()) is None


def test_the_disk_rate_is_said_to_be_assumed_where_the_node_is_not_awss(tmp_path: Path) -> None:
    # 0.131 GB/s is an EBS gp3 volume's baseline: it had been "the disk rate the plan assumes" on a
    # Nebius or Azure node too, as if that node's disk were known to read at it.
    readme = by_path(generate(_service_70b(tmp_path), "k8s"))["README.md"]
    assert (
        "2 × 141.1 GB read at 0.131 GB/s, AWS EBS gp3's baseline, assumed for this azure node, whose disk's "
        "read rate gpuplan does not know)" in readme
    )
    workload = serve_workload(tmp_path, model="llama-70b", top="tensor_parallel: 4\n")
    aws = LaunchSpec.from_workload(workload, gpu="A100-SXM4-80GB", count=8, provider="aws")
    assert (
        disk_rate_words(aws)
        == "0.131 GB/s, the baseline of an EBS gp3 volume, the disk rate the plan assumes"
    )
    nowhere = LaunchSpec.from_workload(workload, gpu="A100-SXM4-80GB", count=8)
    assert "assumed: gpuplan does not know the node's disk's read rate" in disk_rate_words(nowhere)


def test_deploy_says_a_slow_start_where_it_is_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # the Llama-3.2-1B service starts in about a minute; with the limit at 0 s the same command says it
    assert "daily cycle" not in _deploy_llama1b(tmp_path, monkeypatch, capsys, tmp_path / "quick")
    monkeypatch.setattr("gpuplan.deploy.k8s.serving.SLOW_START_S", 0)
    err = _deploy_llama1b(tmp_path, monkeypatch, capsys, tmp_path / "slow")
    said = [line for line in err.splitlines() if "daily cycle" in line]
    assert len(said) == 1 and said[0].startswith(
        "warning: the 2 replicas on a new p4d.24xlarge serve about 2 min after their containers start"
    )
    assert "the baseline of an EBS gp3 volume, the disk rate the plan assumes" in said[0]
