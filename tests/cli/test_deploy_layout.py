"""How `gpuplan deploy` lays a workload's GPUs on the catalog's instance shapes, and what it says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from gpuplan.cli.deploy_checks import Network, node_layout
from one_line import answered

#: (provider, instance type) -> (GPU, GPUs per instance), as Store.known_instances gives it.
INSTANCES = {
    ("aws", "p5.4xlarge"): ("H100-SXM", 1.0),
    ("aws", "p5.48xlarge"): ("H100-SXM", 8.0),
    ("solo", "one-x"): ("H100-SXM", 1.0),
    ("solo", "one-y"): ("H100-SXM", 1.0),
}


def _networks(gpu: str) -> dict[tuple[str, str], Network]:
    assert gpu == "H100-SXM"
    return {
        ("aws", "p5.4xlarge"): Network(gbps=100.0, kind="EFA"),
        ("aws", "p5.48xlarge"): Network(gbps=3200.0, kind="EFA"),
        ("solo", "one-x"): Network(gbps=25.0, kind="TCP"),
        ("solo", "one-y"): Network(gbps=None, kind=None),
    }


def _layout(count: int, provider: str | None, capsys: pytest.CaptureFixture[str]) -> tuple[int, int, str]:
    per_node, nodes = node_layout(INSTANCES, "H100-SXM", count, provider, networks=_networks)
    return per_node, nodes, capsys.readouterr().err


def test_nodes_of_one_gpu_name_the_network_of_that_instance(capsys: pytest.CaptureFixture[str]) -> None:
    # AWS's 1-GPU H100 instance lists 100 Gbit/s EFA; 12 is no whole number of its 8-GPU ones.
    per_node, nodes, err = _layout(12, "aws", capsys)
    assert (per_node, nodes) == (1, 12)
    assert err.splitlines() == [
        "note: 12 x H100-SXM laid out as 12 nodes of 1 GPU (aws's largest H100-SXM instance has 8): GPUs "
        "on different nodes exchange data over the network between instances, 100 Gbit/s EFA (p5.4xlarge)",
        "note: aws lists H100-SXM instances of 8 GPUs: --count 8 or 16 fills whole ones",
    ]


def test_a_network_listed_for_some_instance_types_only_is_not_taken_as_known(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # One of solo's two 1-GPU types lists 25 Gbit/s, the other nothing: neither is said to be all.
    per_node, nodes, err = _layout(3, "solo", capsys)
    assert (per_node, nodes) == (1, 3)
    first, second = err.splitlines()
    assert first.endswith(
        "over the network between instances, 25 Gbit/s TCP (one-x); the catalog does not list it for one-y"
    ), first
    assert second == "note: aws lists H100-SXM instances of 8 GPUs: --provider aws --count 8 fills whole ones"


def test_whole_instances_of_the_largest_shape_say_nothing_more(capsys: pytest.CaptureFixture[str]) -> None:
    per_node, nodes, err = _layout(16, "aws", capsys)
    assert (per_node, nodes) == (8, 2)
    (line,) = err.splitlines()
    assert line == (
        "note: 16 x H100-SXM laid out as 2 nodes of 8 GPUs (aws's largest H100-SXM instance has 8): GPUs "
        "on different nodes exchange data over the network between instances, 3,200 Gbit/s EFA (p5.48xlarge)"
    )
    assert _layout(8, "aws", capsys) == (8, 1, "")


def test_the_providers_one_shape_of_a_node_is_the_instance_deployed() -> None:
    from gpuplan.cli.deploy_checks import only_shape

    assert only_shape(INSTANCES, "H100-SXM", 8, "aws") == "p5.48xlarge"
    assert only_shape(INSTANCES, "H100-SXM", 1, "solo") is None  # two shapes of one GPU: not chosen
    assert only_shape(INSTANCES, "H100-SXM", 8, None) is None  # no provider named: not chosen


def test_a_multi_node_aws_workload_deploys_on_its_efa_instance(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # 16 H100s on AWS: two p5.48xlarge, the one 8-GPU shape; the PyTorchJob had requested no EFA
    # and selected no instance type, though the layout's own note named it
    import sys
    from pathlib import Path

    import yaml

    from gpuplan.cli import main

    root = Path(str(tmp_path))
    job = root / "job.yaml"
    job.write_text(
        "name: big\ntask: train\nmodel: {preset: gpt2}\ninputs: {batch_size: 8, seq_len: 512}\n"
        "precision: amp-bf16\nparallelism: ddp\ndata: {samples: 10000, epochs: 1}\n"
    )
    argv = ["gpuplan", "deploy", str(job), "-t", "k8s", "--gpu", "H100-SXM", "--count", "16"]
    monkeypatch.setattr(sys, "argv", [*argv, "--provider", "aws", "-o", str(root / "o")])
    with pytest.raises(SystemExit) as e:
        main()
    assert e.value.code in (0, None), capsys.readouterr().err
    docs = list(yaml.safe_load_all((root / "o" / "k8s" / "pytorchjob.yaml").read_text()))
    spec = next(d for d in docs if d and d["kind"] == "PyTorchJob")["spec"]["pytorchReplicaSpecs"]
    for replica in spec.values():
        pod = replica["template"]["spec"]
        assert pod["nodeSelector"]["node.kubernetes.io/instance-type"] == "p5.48xlarge"
        assert pod["containers"][0]["resources"]["limits"]["vpc.amazonaws.com/efa"] == 32


def test_a_services_gpus_lie_one_replica_to_the_smallest_shape_that_holds_it() -> None:
    from gpuplan.cli.deploy_checks import replica_layout

    # 16 independent 1-GPU replicas: 16 nodes of 1, where a training job's 16 lie on 2 nodes of 8
    assert replica_layout(INSTANCES, "H100-SXM", 16, "aws", 1) == (1, 16)
    # a replica of 8 GPUs needs them in one node: the 8-GPU shape
    assert replica_layout(INSTANCES, "H100-SXM", 16, "aws", 8) == (8, 2)
    # no listed shape holds a replica of 2: laid out as a job is (node_layout)
    assert replica_layout(INSTANCES, "H100-SXM", 4, "solo", 2) is None


def test_the_smallest_host_that_holds_a_replicas_weights_is_chosen() -> None:
    from gpuplan.cli.deploy_checks import Shape, smallest_shape

    shapes = [
        Shape("big", 32, 188.0),
        Shape("small", 8, 30.0),
        Shape("tiny", 4, 8.0),
        Shape("odd", None, None),
    ]
    assert smallest_shape(shapes, 15.2) == "small"  # tiny's 8 GiB does not hold 15.2 GB of weights
    assert smallest_shape(shapes, None) == "tiny"
    assert smallest_shape([Shape("tiny", 4, 8.0)], 15.2) is None


def test_a_service_from_its_workload_file_is_laid_out_as_its_plan_is(
    tmp_path: Path, fresh_catalog: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # 16 independent 1-GPU vLLM replicas on alibaba's A10s had been laid out as a training job, on
    # 2 bare-metal nodes of 8 (ecs.ebmgn7ix.32xlarge), held to maxReplicaCount 16, where the plan
    # of the same workload writes 16 × ecs.gn7i-c8g1.2xlarge, scaling to 32
    monkeypatch.setenv("GPUPLAN_DB", str(fresh_catalog))
    job = tmp_path / "job.yaml"
    job.write_text(
        "name: cs-bot\ntask: infer\nmodel: {preset: qwen2.5-7b}\ninputs: {batch_size: 16, seq_len: 1050}\n"
        "precision: bf16\nserving: {requests_per_s: 40, min_replicas: 1, prompt_tokens: 800, "
        'output_tokens: 250, engine: "vllm==0.8.5"}\n'
    )
    plan = tmp_path / "plan.json"
    plan.write_text(
        answered(
            ["plan", str(job), "--gpus", "A10", "--providers", "alibaba", "--pricing", "on_demand", "--json"],
            capsys,
        )
    )
    placed = {"--provider": "alibaba", "--region": json.loads(plan.read_text())["recommended"]["region"]}
    bounds = {}
    for route, args in (
        ("plan", [str(plan)]),
        ("wl", [str(job), "--gpu", "A10", "--count", "16", *(x for kv in placed.items() for x in kv)]),
    ):
        out = tmp_path / route
        answered(
            ["deploy", *args, "-t", "k8s", "--autoscaler", "keda", "--image", "r/x:1", "-o", str(out)], capsys
        )
        deployment = yaml.safe_load_all((out / "k8s" / "deployment.yaml").read_text())
        pod = next(d for d in deployment if d and d["kind"] == "Deployment")
        scaled = yaml.safe_load((out / "k8s" / "keda-scaledobject.yaml").read_text())["spec"]
        bounds[route] = (
            pod["spec"]["replicas"],
            pod["spec"]["template"]["spec"]["nodeSelector"]["node.kubernetes.io/instance-type"],
            scaled["minReplicaCount"],
            scaled["maxReplicaCount"],
        )
    assert bounds["wl"] == bounds["plan"] == (16, "ecs.gn7i-c8g1.2xlarge", 1, 32), bounds
