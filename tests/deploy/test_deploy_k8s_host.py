"""GPU pods request their share of the node's host CPU and memory (never a guessed one), and an
engine's model cache can live on a PersistentVolumeClaim of the user's."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from deploy_helpers import FIXTURES, by_path, serve_workload, stock_model, validate_k8s, yaml_docs

from gpuplan.deploy import GeneratedFile, GenerateOptions, LaunchSpec, generate
from gpuplan.errors import DeployError

#: Kubernetes quantities as the manifests write them: whole cores or millicores, Mi or Gi.
_CPU = re.compile(r"[1-9][0-9]*m?")
_MEMORY = re.compile(r"[1-9][0-9]*(Mi|Gi)")


def _containers(files: list[GeneratedFile]) -> list[dict[str, Any]]:
    """Every GPU container of the generated manifests (a PyTorchJob's Master and Worker both)."""
    out = []
    for doc in yaml_docs(files):
        validate_k8s(doc)
        if doc["kind"] == "PyTorchJob":
            templates = [r["template"] for r in doc["spec"]["pytorchReplicaSpecs"].values()]
        elif doc["kind"] in ("Job", "Deployment"):
            templates = [doc["spec"]["template"]]
        else:
            continue
        out += [c for t in templates for c in t["spec"]["containers"]]
    assert out
    return out


def _host(files: list[GeneratedFile]) -> tuple[str, str]:
    """The (cpu, memory) every GPU container requests, checked to be the same in each, to be valid
    quantities and to have a memory limit equal to the request."""
    seen = set()
    for c in _containers(files):
        requests, limits = c["resources"]["requests"], c["resources"]["limits"]
        assert set(requests) == {"cpu", "memory"} and "cpu" not in limits
        assert limits["memory"] == requests["memory"]
        assert _CPU.fullmatch(requests["cpu"]) and _MEMORY.fullmatch(requests["memory"])
        seen.add((requests["cpu"], requests["memory"]))
    (only,) = seen
    return only


def test_an_eight_gpu_training_pod_requests_the_whole_node_less_the_reservations(
    spot_plan: LaunchSpec,
) -> None:
    # p4d.24xlarge: 96 vCPUs, 1,152 GiB, 8 A100
    files = generate(spot_plan.with_host(96, 1152), "k8s")
    # CPU: 96 - (AKS's, the largest: 740m at 64 cores + 32 x 10m = 1.06; GKE's and EKS's 0.31)
    #      - 1 (DaemonSets) = 93.94 -> 93
    # memory: 1152 x 0.925 (the kubelet's capacity: 7.5 % below the advertised size) = 1065.6
    #         - (4 x 0.25 + 4 x 0.2 + 8 x 0.1 + 112 x 0.06 + 1024 x 0.02 = 29.8) - 100/1024
    #         - 2 (DaemonSets) = 1033.70 -> 1033Gi
    assert _host(files) == ("93", "1033Gi")
    header = by_path(files)["k8s/job.yaml"]
    assert "# Each GPU pod requests 93 CPU and 1033Gi memory" in header
    assert "8 of the 8 GPUs of p4d.24xlarge (96 vCPUs, 1152 GiB advertised)" in header
    assert "requests no CPU" not in by_path(files)["README.md"]


def test_the_memory_request_fits_what_the_kubelet_reports_not_the_advertised_size(
    spot_plan: LaunchSpec,
) -> None:
    # p5en.48xlarge: 192 vCPUs, 2,048 GiB advertised, 8 H200. The node's memory capacity is MemTotal,
    # below the advertised size: Karpenter takes 7.5 % off by default (1,894.4 GiB), and EKS's AMI
    # reserves 255 MiB + 11 MiB a pod for the kubelet (737 pods: 8.2 GiB) and evicts below 100 MiB.
    # A request of 1998Gi (the advertised size less GKE's tiers only) would never fit that node.
    files = generate(spot_plan.with_host(192, 2048), "k8s")
    _cpu, memory = _host(files)
    allocatable = 2048 * (1 - 0.075) - (255 + 11 * 737) / 1024 - 100 / 1024
    assert int(memory.removesuffix("Gi")) <= allocatable - 2  # room for the DaemonSets
    header = by_path(files)["k8s/job.yaml"]
    assert "7.5 %" in header and "kubectl describe node" in header
    assert "vmMemoryOverheadPercent" in header


def test_each_pod_of_a_pytorchjob_requests_its_nodes_share(multinode_plan: LaunchSpec) -> None:
    # a3-highgpu-8g: 208 vCPUs, 1,872 GiB, 8 H100 a node, two nodes
    files = generate(stock_model(multinode_plan).with_host(208, 1872), "k8s")
    # CPU: 208 - (740m + 144 x 10m = 2.18) - 1 = 204.82 -> 204
    # memory: 1872 x 0.925 - (9.32 + 1744 x 0.02 = 44.2) - 100/1024 - 2 = 1685.30 -> 1685Gi
    assert _host(files) == ("204", "1685Gi")
    assert len(_containers(files)) == 2  # the Master's and the Worker's


def test_one_gpu_of_eight_serving_pod_requests_an_eighth(tmp_path: Path) -> None:
    spec = LaunchSpec.from_workload(
        serve_workload(tmp_path),
        gpu="A100-SXM4-40GB",
        count=8,
        provider="aws",
        instance_type="p4d.24xlarge",
    )
    assert spec.tensor_parallel * spec.pipeline_parallel == 1  # a replica of one GPU
    files = generate(spec.with_host(96, 1152), "k8s")
    # (96 - 1.06 - 1) / 8 = 11.74 -> 11; (1152 x 0.925 - 29.8 - 0.1 - 2) / 8 = 129.21 -> 129Gi
    assert _host(files) == ("11", "129Gi")
    assert "the share of 1 of the 8 GPUs of p4d.24xlarge" in by_path(files)["k8s/deployment.yaml"]


def _llm_batch_plan() -> LaunchSpec:
    """The served Llama plan (4 x g6e.xlarge: 4 vCPUs, 32 GiB, one L40S) as a batch job."""
    doc = json.loads((FIXTURES / "plan_serve_llama_aws.json").read_text())
    doc["workload"]["serving"] = None
    return LaunchSpec.from_plan(doc)


def test_a_small_node_gives_millicores_and_a_batch_shard_its_share() -> None:
    files = generate(_llm_batch_plan().with_host(4, 32), "k8s")
    # CPU: 4 - (AKS's 140m at 4 cores; GKE's 0.08) - 1 = 2.86 -> 2.8 (100m steps below 8 cores) = 2800m
    # memory: 32 x 0.925 - (1 + 0.8 + 0.8 + 16 x 0.06 = 3.56) - 0.1 - 2 = 23.94 -> 23Gi
    assert _host(files) == ("2800m", "23Gi")


def test_a_time_sliced_or_mig_replica_requests_its_part_of_a_gpus_share(tmp_path: Path) -> None:
    spec = LaunchSpec.from_plan_json(FIXTURES / "plan_serve_llama_aws.json").with_host(4, 32)
    # a quarter of g6e.xlarge's one GPU: 2.86 / 4 = 0.715 -> 700m; 23.94 / 4 = 5.99 -> 5Gi
    assert _host(generate(spec.with_serving(share_gpu=4), "k8s")) == ("700m", "5Gi")
    h100 = LaunchSpec.from_workload(
        serve_workload(tmp_path), gpu="H100-SXM", count=8, provider="aws", instance_type="p5.48xlarge"
    ).with_host(192, 2048)
    # a 3g.40gb slice: 3 of an H100's 7 compute slices, of one of p5.48xlarge's 8 GPUs
    # CPU: (192 - (740m + 128 x 10m = 2.02) - 1) x 3 / 56 = 10.12 -> 10
    # memory: (2048 x 0.925 - (9.32 + 1920 x 0.02 = 47.72) - 0.1 - 2) x 3 / 56 = 98.82 -> 98Gi
    assert _host(generate(h100.with_serving(mig_profile="3g.40gb"), "k8s")) == ("10", "98Gi")


def test_without_the_instances_host_nothing_is_guessed_and_the_readme_says_what_to_fill(
    spot_plan: LaunchSpec, tmp_path: Path
) -> None:
    # the plan's instance, its host not known; a workload deployed on GPUs alone, no instance at all
    workload = LaunchSpec.from_workload(serve_workload(tmp_path), gpu="L4")
    for spec, manifest in ((spot_plan, "k8s/job.yaml"), (workload, "k8s/deployment.yaml")):
        files = generate(spec, "k8s")
        for c in _containers(files):
            assert set(c["resources"]) == {"limits"}
            assert not {"cpu", "memory"} & set(c["resources"]["limits"])
        assert "# NB: no CPU or memory requested" in by_path(files)[manifest]
        readme = by_path(files)["README.md"]
        assert "The GPU pods request no CPU or memory" in readme and manifest in readme
    batch = by_path(generate(_llm_batch_plan(), "k8s"))
    assert "The GPU pods request no CPU or memory: the vCPUs and memory of g6e.xlarge" in batch["README.md"]


def _volume(files: list[GeneratedFile], name: str) -> dict[str, Any]:
    (pod,) = [d["spec"]["template"]["spec"] for d in yaml_docs(files) if d["kind"] in ("Job", "Deployment")]
    (volume,) = [v for v in pod["volumes"] if v["name"] == name]
    (mount,) = [m for m in pod["containers"][0]["volumeMounts"] if m["name"] == name]
    assert mount["mountPath"] == "/root/.cache/huggingface"
    return volume


def test_the_model_cache_pvc_is_mounted_where_the_engine_keeps_its_weights() -> None:
    serving = LaunchSpec.from_plan_json(FIXTURES / "plan_serve_llama_aws.json")
    for spec in (serving, _llm_batch_plan()):
        files = generate(spec, "k8s", GenerateOptions(model_cache_pvc="llama-weights"))
        for doc in yaml_docs(files):
            validate_k8s(doc)
        assert _volume(files, "model-cache") == {
            "name": "model-cache",
            "persistentVolumeClaim": {"claimName": "llama-weights"},
        }
        readme = by_path(files)["README.md"]
        # four replicas (four shards) on four nodes share it
        assert "PersistentVolumeClaim `llama-weights`" in readme and "ReadWriteMany" in readme
        # without it, an emptyDir: the README says what each start costs and how to keep them
        files = generate(spec, "k8s")
        assert _volume(files, "model-cache") == {"name": "model-cache", "emptyDir": {}}
        readme = by_path(files)["README.md"]
        assert "downloads the model's weights again" in readme and "--model-cache-pvc NAME" in readme


@pytest.mark.parametrize(
    ("name", "suggestion"),
    [
        ("Model_Cache", "model-cache"),
        ("llama weights", "llama-weights"),
        ("-cache-", "cache"),
        ("a..b", "a.b"),
        ("___", None),
        ("x" * 254, "x" * 253),
    ],
)
def test_a_model_cache_pvc_that_is_no_kubernetes_name_is_refused_in_one_line(
    name: str, suggestion: str | None
) -> None:
    with pytest.raises(DeployError) as e:
        GenerateOptions(model_cache_pvc=name)
    message = str(e.value)
    assert "\n" not in message
    assert message.startswith(f"--model-cache-pvc {name[:60]!r} is not a Kubernetes object name")
    if suggestion is None:
        assert "did you mean" not in message
    else:
        assert message.endswith(f"did you mean {suggestion!r}?")


@pytest.mark.parametrize("name", ["weights", "llama-3.1-weights", "a", "0cache9"])
def test_a_dns_subdomain_is_a_model_cache_pvc(name: str) -> None:
    assert GenerateOptions(model_cache_pvc=name).model_cache_pvc == name
