"""A multi-node plan's network between nodes (AWS EFA) is what its launch files ask for, and a spot
PyTorchJob survives the reclaims its plan expects."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from deploy_helpers import by_path, plan_doc, skypilot_validator, stock_model, validate_k8s, yaml_docs

from gpuplan.catalog.providers import PROVIDERS, facts
from gpuplan.catalog.providers.aws import INSTANCES
from gpuplan.deploy import GenerateOptions, LaunchSpec, generate
from gpuplan.deploy.fabric import fabric_warning
from gpuplan.deploy.k8s.training import pytorchjob_backoff_limit
from gpuplan.i18n import use_language

#: Where the launch files go: SkyPilot's workdir names it (an absolute path).
LAUNCH = GenerateOptions(out_dir="/srv/launch")

DLC = "public.ecr.aws/deep-learning-containers/pytorch-training:2.7.1-gpu-py312-cu128-ubuntu22.04-ec2"


def _plan(tmp_path: Path, **recommended: Any) -> LaunchSpec:
    """The AWS fixture plan on 2 x p5.48xlarge (16 x H100-SXM), on demand, with ``recommended``."""
    fields: dict[str, Any] = {
        "instance_type": "p5.48xlarge",
        "gpu": "H100-SXM",
        "gpu_count": 16,
        "gpus_per_node": 8,
        "nodes": 2,
        "pricing": "on_demand",
        "job_time_h": 9.8,
        **recommended,
    }
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan_doc(**fields)))
    return stock_model(LaunchSpec.from_plan_json(path))


def _task(spec: LaunchSpec) -> dict[str, Any]:
    task = yaml.safe_load(by_path(generate(spec, "skypilot", LAUNCH))["task.yaml"])
    skypilot_validator("skypilot-0.14.1-task.schema.json").validate(task)
    skypilot_validator("skypilot-0.14.1-resources.schema.json").validate(task["resources"])
    return task


def _pytorchjob(spec: LaunchSpec, options: GenerateOptions | None = None) -> dict[str, Any]:
    docs = yaml_docs(generate(spec, "k8s", options or GenerateOptions()))
    for d in docs:
        validate_k8s(d)
    return docs[-1]


def test_every_efa_interface_count_is_of_an_efa_instance_of_the_catalog() -> None:
    network = facts("aws").rdma
    assert network is not None
    for instance in network.interfaces:
        assert INSTANCES[instance].network_kind == "EFA", instance
    assert network.gpudirect_rdma <= set(network.interfaces)
    # The instances a multi-node plan lays 8 GPUs a node on, with the network the estimate uses.
    assert {"p4d.24xlarge", "p5.48xlarge", "p5en.48xlarge"} <= set(network.interfaces)


def _fabric_envs(task: dict[str, Any]) -> dict[str, Any]:
    """The task's libfabric variables (its envs also name the dataset's bucket where it is in S3)."""
    return {k: v for k, v in (task.get("envs") or {}).items() if k.startswith("FI_")}


def test_skypilot_asks_for_efa_on_an_aws_multinode_plan(tmp_path: Path) -> None:
    task = _task(_plan(tmp_path))
    # SkyPilot's `network_tier: best` attaches EFA on AWS (examples/aws_efa, "Using EFA on AWS VM").
    assert task["resources"]["network_tier"] == "best"
    assert _fabric_envs(task) == {"FI_PROVIDER": "efa", "FI_EFA_USE_DEVICE_RDMA": "1"}
    # One node: no network between nodes to ask for, nothing to warn of.
    one = _plan(tmp_path, gpu_count=8, nodes=1)
    assert "network_tier" not in _task(one)["resources"] and _fabric_envs(_task(one)) == {}
    assert fabric_warning(one, "torchrun") is None


def test_skypilot_readme_says_how_to_get_all_32_efa_interfaces_of_a_p5(tmp_path: Path) -> None:
    readme = by_path(generate(_plan(tmp_path), "skypilot", LAUNCH))["README.md"]
    assert "use_internal_ips: true" in readme
    assert "32 EFA interfaces" in readme
    assert "NET/Socket" in readme  # how to see NCCL fell back to TCP


def test_a_g5_has_efa_without_gpudirect_rdma(tmp_path: Path) -> None:
    spec = _plan(tmp_path, instance_type="g5.48xlarge", gpu="A10G")
    assert _fabric_envs(_task(spec)) == {"FI_PROVIDER": "efa"}
    env = _pytorchjob(spec)["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0][
        "env"
    ]
    assert {"name": "FI_PROVIDER", "value": "efa"} in env
    assert "FI_EFA_USE_DEVICE_RDMA" not in {e["name"] for e in env}


def test_the_pytorchjob_requests_every_efa_interface_and_runs_an_image_with_the_nccl_plugin(
    tmp_path: Path,
) -> None:
    job = _pytorchjob(_plan(tmp_path))
    for replica in job["spec"]["pytorchReplicaSpecs"].values():
        c = replica["template"]["spec"]["containers"][0]
        # p5.48xlarge: 32 EFA interfaces (EC2 user guide, network cards)
        assert c["resources"]["limits"] == {"nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 32}
        assert {"name": "FI_PROVIDER", "value": "efa"} in c["env"]
        assert {"name": "FI_EFA_USE_DEVICE_RDMA", "value": "1"} in c["env"]
        assert c["image"] == DLC


def test_the_k8s_readme_and_dockerfile_name_the_efa_plugin_and_image(tmp_path: Path) -> None:
    files = by_path(generate(_plan(tmp_path, instance_type="p4d.24xlarge", gpu="A100-SXM4-40GB"), "k8s"))
    assert "aws-efa-k8s-device-plugin" in files["README.md"]
    assert "all 4 EFA interfaces" in files["README.md"]
    assert f"FROM {DLC}" in files["Dockerfile"]


def test_your_own_image_is_kept_and_still_gets_the_efa_interfaces(tmp_path: Path) -> None:
    job = _pytorchjob(_plan(tmp_path), GenerateOptions(image="registry.example/mine:1"))
    c = job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]
    assert c["image"] == "registry.example/mine:1"
    assert c["resources"]["limits"]["vpc.amazonaws.com/efa"] == 32


def test_targets_that_cannot_turn_on_efa_warn_with_the_plans_time(tmp_path: Path) -> None:
    spec = _plan(tmp_path)
    for target in ("torchrun", "docker"):
        line = fabric_warning(spec, target)
        assert line is not None
        assert "9.8 h" in line and "EFA" in line and "--network-kind tcp" in line
    # the PyTorchJob requests the interfaces, but the cluster must offer them: said on stderr as the
    # README says it (was: no warning for k8s at all)
    k8s = fabric_warning(spec, "k8s")
    assert k8s is not None and "9.8 h" in k8s and "--network-kind tcp" in k8s
    assert "all 32 EFA interfaces" in k8s and "vpc.amazonaws.com/efa" in k8s
    assert "aws-efa-k8s-device-plugin" in k8s and "efaEnabled: true" in k8s
    assert f"Note: {k8s}." in by_path(generate(spec, "k8s"))["README.md"]
    # SkyPilot attaches one of several interfaces unless told to use internal IPs.
    sky = fabric_warning(spec, "skypilot")
    assert sky is not None and "use_internal_ips" in sky and "1/32" in sky
    assert fabric_warning(_plan(tmp_path, instance_type="g5.48xlarge", gpu="A10G"), "skypilot") is None


def test_a_service_of_one_node_replicas_needs_no_network_between_its_nodes(tmp_path: Path) -> None:
    # was: "the plan's time (730.2 h) assumes EFA between the p4d.24xlarge nodes … use_internal_ips"
    # for two replicas of tensor parallel 8, each on its own node: they never talk to each other
    doc = json.loads((Path(__file__).parent / "fixtures" / "plan_serve_llama_aws.json").read_text())
    doc["workload"]["tensor_parallel"] = 8
    doc["recommended"].update(
        instance_type="p4d.24xlarge", gpu="A100-SXM4-40GB", gpu_count=16, gpus_per_node=8, nodes=2
    )
    doc["recommended"]["service"].update(replicas=2, replica_gpus=8)
    spec = LaunchSpec.from_plan(doc)
    assert spec.nodes == 2 and spec.tensor_parallel == 8
    for target in ("skypilot", "torchrun", "docker", "k8s"):
        assert fabric_warning(spec, target) is None, target
    files = by_path(generate(spec, "skypilot", LAUNCH))
    assert "network_tier" not in yaml.safe_load(files["task.yaml"])["resources"]
    assert "EFA" not in files["README.md"]
    # a training job on the same two nodes still talks across them
    training = _plan(tmp_path, instance_type="p4d.24xlarge", gpu="A100-SXM4-40GB")
    assert fabric_warning(training, "skypilot") is not None


def test_a_spot_pytorchjob_makes_room_for_the_reclaims_the_plan_expects(tmp_path: Path) -> None:
    spec = _plan(tmp_path, pricing="spot", expected_interruptions=6.0)
    job = _pytorchjob(spec)
    # ceil(6 + 3 * sqrt(6)) = ceil(13.35) = 14 reclaims x 1 surviving pod x 2 restarts + 3 = 31
    assert math.ceil(6 + 3 * math.sqrt(6)) == 14
    assert job["spec"]["runPolicy"]["backoffLimit"] == 31
    # The operator counts restarts of OnFailure replicas only; ExitCode would fail on torchrun's 1.
    assert {r["restartPolicy"] for r in job["spec"]["pytorchReplicaSpecs"].values()} == {"OnFailure"}
    header = by_path(generate(spec, "k8s"))["k8s/pytorchjob.yaml"]
    assert "# backoffLimit 31:" in header and "6.0" in header


def test_a_spot_pytorchjob_on_four_nodes_counts_three_survivors(tmp_path: Path) -> None:
    spec = _plan(tmp_path, pricing="spot", expected_interruptions=1.0, gpu_count=32, nodes=4)
    # ceil(1 + 3 * 1) = 4 reclaims x 3 surviving pods x 2 restarts + 3 = 27
    assert pytorchjob_backoff_limit(spec)[0] == 27


def test_on_demand_keeps_the_failure_budget(tmp_path: Path) -> None:
    assert pytorchjob_backoff_limit(_plan(tmp_path))[0] == 3


def test_a_spot_pytorchjob_without_a_plan_says_what_it_is_sized_for(tmp_path: Path) -> None:
    spec = _plan(tmp_path, pricing="spot").model_copy(update={"expected_interruptions": None})
    limit, line = pytorchjob_backoff_limit(spec)
    assert limit == 3 + 10 * 1 * 2  # 10 reclaims x 1 survivor x 2 restarts + 3
    assert "no plan" in line


@pytest.mark.parametrize(
    ("provider", "service"), [("aws", "Amazon EFS"), ("gcp", "Filestore"), ("azure", "Azure Files")]
)
def test_a_spot_checkpoint_volume_names_the_providers_readwritemany_storage(
    tmp_path: Path, provider: str, service: str
) -> None:
    spec = _plan(tmp_path, pricing="spot").model_copy(update={"provider": provider})
    pvc = by_path(generate(spec, "k8s"))["k8s/checkpoints-pvc.yaml"]
    assert "ReadWriteMany" in pvc and service in pvc


def test_the_hyperscalers_and_chinese_clouds_managed_kubernetes_name_their_shared_storage() -> None:
    known = {p for p in PROVIDERS if facts(p).kubernetes and facts(p).shared_storage}
    assert {"aws", "gcp", "azure", "alibaba", "tencent", "huawei"} <= known


def test_the_efa_notes_read_in_chinese(tmp_path: Path) -> None:
    spec = _plan(tmp_path, pricing="spot", expected_interruptions=6.0)
    with use_language("zh"):
        sky = by_path(generate(spec, "skypilot", LAUNCH))["README.md"]
        k8s = by_path(generate(spec, "k8s"))
    assert "32 个 EFA 接口" in sky
    assert "全部 32 个 EFA 接口" in k8s["README.md"]
    assert "次抢占式回收" in k8s["k8s/pytorchjob.yaml"]


def test_the_torchrun_and_docker_readmes_say_what_the_plan_assumed_and_docker_hands_over_the_devices(
    tmp_path: Path,
) -> None:
    spec = _plan(tmp_path)
    torchrun = by_path(generate(spec, "torchrun"))["README.md"]
    assert "Note: the plan's time (9.8 h) assumes EFA between the p5.48xlarge nodes" in torchrun
    docker = by_path(generate(spec, "docker"))
    # the devices and locked memory libfabric needs, as SkyPilot runs a container on an EFA instance
    assert "--cap-add=IPC_LOCK --device=/dev/infiniband --ulimit memlock=-1:-1" in docker["README.md"]
    assert "-e FI_PROVIDER=efa" in docker["README.md"]
    assert "must be launched with EFA interfaces" in docker["README.md"]
    assert f"FROM {DLC}" in docker["Dockerfile"]


def test_a_workload_deployed_without_a_plan_says_the_estimate_assumed_efa_not_a_plan(tmp_path: Path) -> None:
    # `deploy job.yaml --gpu H100-SXM --count 16 --provider aws` lays the job on 2 x p5.48xlarge:
    # there is no plan, so no line may speak of the plan's time or of what was planned.
    job = Path(__file__).parents[2] / "examples" / "llama7b-lora.yaml"
    spec = LaunchSpec.from_workload(
        job, gpu="H100-SXM", count=8, nodes=2, provider="aws", instance_type="p5.48xlarge"
    )
    lines = [fabric_warning(spec, t) for t in ("torchrun", "docker", "skypilot", "k8s")]
    readmes = [
        by_path(generate(spec, t, LAUNCH))["README.md"] for t in ("torchrun", "docker", "skypilot", "k8s")
    ]
    for text in [*lines, *readmes]:
        assert text is not None
        for planned in ("plan's time", "than planned", "the plan assumed"):
            assert planned not in text, text
    assert all("gpuplan's estimate of this job assumes EFA" in str(line) for line in lines)
    assert "gpuplan's estimate of this job assumes it" in readmes[2]
    assert "gpuplan's estimate of this job assumes EFA between the p5.48xlarge nodes" in readmes[3]
    # The plan's own words stay where there is a plan.
    assert "the plan's time (9.8 h) assumes EFA" in str(fabric_warning(_plan(tmp_path), "docker"))


def test_the_torchrun_readme_gives_a_default_checkpoint_folder_only_where_launch_sh_has_one(
    tmp_path: Path,
) -> None:
    # launch.sh defaults CKPT_DIR to ./checkpoints on one node and refuses several nodes without it.
    several = by_path(generate(_plan(tmp_path), "torchrun"))
    assert "refuses to start without CKPT_DIR" in several["README.md"]
    assert 'if [ -z "${CKPT_DIR:-}" ]' in several["launch.sh"]
    assert "default `./checkpoints`" not in several["README.md"]
    one = by_path(generate(_plan(tmp_path, gpu_count=8, nodes=1), "torchrun"))
    assert "default `./checkpoints`" in one["README.md"]
    assert 'CKPT_DIR="${CKPT_DIR:-checkpoints}"' in one["launch.sh"]
