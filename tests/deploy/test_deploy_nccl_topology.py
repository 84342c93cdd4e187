"""A plan on an AWS g5.48xlarge names AWS's NCCL topology file in launch.sh (a commented
``export NCCL_TOPO_FILE=…``) and in every target's README, where NCCL's own detection of the
instance's PCIe layout makes all-reduce slower (NVIDIA/nccl issue #1298); other instances, the
single-socket G5 sizes among them, need none and get none."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from deploy_helpers import by_path, k8s_options, plan_doc

from gpuplan.deploy import GenerateOptions, LaunchSpec, generate

TARGETS = ("torchrun", "docker", "k8s", "skypilot")
OPTIONS = GenerateOptions(out_dir="/srv/launch")
EXPORT = "# export NCCL_TOPO_FILE=/path/to/g5.48xl-topo.xml\n"
URL = "https://github.com/aws/aws-ofi-nccl/blob/master/topology/g5.48xl-topo.xml"


def _plan(tmp_path: Path, instance: str, gpu: str, per_node: int) -> LaunchSpec:
    fields: dict[str, Any] = {
        "provider": "aws",
        "region": "us-east-1",
        "zone": None,
        "instance_type": instance,
        "gpu": gpu,
        "gpu_count": per_node,
        "gpus_per_node": per_node,
        "nodes": 1,
        "pricing": "on_demand",
        "job_time_h": 5.0,
    }
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan_doc(**fields)))
    return LaunchSpec.from_plan_json(path)


def _files(spec: LaunchSpec, target: str) -> dict[str, str]:
    options = k8s_options(spec, OPTIONS) if target == "k8s" else OPTIONS
    return by_path(generate(spec, target, options))


@pytest.mark.parametrize("target", TARGETS)
def test_a_g5_48xlarge_launch_names_the_topology_file_and_the_issue(tmp_path: Path, target: str) -> None:
    files = _files(_plan(tmp_path, "g5.48xlarge", "A10G", 8), target)
    launch = files["launch.sh"]
    assert EXPORT in launch  # commented out: the user points it at their copy
    assert URL in launch and "https://github.com/NVIDIA/nccl/issues/1298" in launch
    readme = " ".join(files["README.md"].split())
    assert "NCCL_TOPO_FILE" in readme and URL in readme
    assert "https://github.com/NVIDIA/nccl/issues/1298" in readme and "4.5 h instead of 7" in readme


@pytest.mark.parametrize(
    ("instance", "gpu", "per_node"),
    [("g5.12xlarge", "A10G", 4), ("g6.48xlarge", "L4", 8), ("p4d.24xlarge", "A100-SXM4-40GB", 8)],
)
def test_other_instances_get_no_topology_file(tmp_path: Path, instance: str, gpu: str, per_node: int) -> None:
    for target in TARGETS:
        files = _files(_plan(tmp_path, instance, gpu, per_node), target)
        assert "NCCL_TOPO_FILE" not in files["launch.sh"], target
        assert "NCCL_TOPO_FILE" not in files["README.md"], target


def test_a_workload_on_eight_a10g_without_an_instance_type_gets_the_line(tmp_path: Path) -> None:
    # `deploy WORKLOAD --gpu A10G -n 8`: eight A10G on one node are a g5.48xlarge, the only such
    # instance; one A10G is not.
    workload = Path(__file__).parents[2] / "examples" / "bert-large-squad.yaml"
    eight = LaunchSpec.from_workload(workload, gpu="A10G", count=8)
    assert EXPORT in _files(eight, "torchrun")["launch.sh"]
    one = LaunchSpec.from_workload(workload, gpu="A10G", count=1)
    assert "NCCL_TOPO_FILE" not in _files(one, "torchrun")["launch.sh"]


def test_the_nic_note_names_aws_nitros_ens5_on_an_aws_plan_only() -> None:
    # was: "ens5 on AWS Nitro" beside NCCL_SOCKET_IFNAME in an Alibaba plan's launch.sh
    options = GenerateOptions(out_dir="/tmp/launch")
    aws = by_path(generate(LaunchSpec.from_plan(plan_doc()), "torchrun", options))["launch.sh"]
    assert "(ens5 on AWS\n#" in aws and "Nitro; `ip -br addr` lists them)" in aws
    alibaba = LaunchSpec.from_plan(
        plan_doc(provider="alibaba", region="cn-shanghai", instance_type="ecs.gn7-c13g1.26xlarge")
    )
    script = by_path(generate(alibaba, "torchrun", options))["launch.sh"]
    assert "the NIC between nodes when the default is wrong (`ip -br addr`" in script
    assert "ens5" not in script and "AWS" not in script and "Nitro" not in script
