"""A multi-node plan on Google Cloud's A3 (GPUDirect-TCPXO/TCPX) or Azure's ND sizes (InfiniBand) is
warned, as an AWS one is of EFA, that its time assumes a network the launch files do not set up,
with what it needs and where that is documented."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from deploy_helpers import by_path, plan_doc, skypilot_validator, stock_model

from gpuplan.catalog.providers import facts
from gpuplan.catalog.providers.azure import INSTANCES as AZURE
from gpuplan.catalog.providers.gcp import MACHINES as GCP
from gpuplan.deploy import GenerateOptions, LaunchSpec, generate
from gpuplan.deploy.fabric import fabric_warning

TARGETS = ("torchrun", "docker", "k8s", "skypilot")


def _spec(tmp_path: Path, provider: str, region: str, instance: str, nodes: int = 4) -> LaunchSpec:
    fields: dict[str, Any] = {
        "provider": provider,
        "region": region,
        "zone": None,
        "instance_type": instance,
        "gpu": "H100-SXM",
        "gpu_count": 8 * nodes,
        "gpus_per_node": 8,
        "nodes": nodes,
        "pricing": "on_demand",
        "job_time_h": 5.8,
    }
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan_doc(**fields)))
    return LaunchSpec.from_plan_json(path)


@pytest.mark.parametrize(
    ("provider", "region", "instance", "words"),
    [
        ("gcp", "us-central1", "a3-megagpu-8g", ("GPUDirect-TCPXO", "eight extra VPC networks")),
        ("gcp", "us-central1", "a3-highgpu-8g", ("GPUDirect-TCPX ", "four extra VPC", "tcpgpudmarxd")),
        (
            "azure",
            "eastus",
            "Standard_ND96isr_H100_v5",
            ("InfiniBand between", "OFED", "InfiniBandDriverLinux"),
        ),
    ],
)
def test_gcp_a3_and_azure_nd_multi_node_plans_are_warned_of_their_network(
    tmp_path: Path, provider: str, region: str, instance: str, words: tuple[str, ...]
) -> None:
    spec = _spec(tmp_path, provider, region, instance)
    for target in TARGETS:
        if target == "skypilot" and instance == "a3-highgpu-8g":
            continue  # `network_tier: best` sets it up: below
        line = fabric_warning(spec, target)
        assert line is not None, target
        assert "5.8 h" in line and "do not set up" in line and "--network-kind tcp" in line
        assert all(w in line for w in words), line
        assert "https://" in line  # where the needs are documented


def test_one_node_needs_no_network(tmp_path: Path) -> None:
    assert all(
        fabric_warning(_spec(tmp_path, "gcp", "us-central1", "a3-megagpu-8g", 1), t) is None for t in TARGETS
    )


def test_the_setups_name_instances_of_the_catalog_and_every_azure_infiniband_size() -> None:
    (ib,) = facts("azure").network_setups
    assert ib.instances == {name for name, f in AZURE.items() if f.network_kind == "InfiniBand"}
    for setup in facts("gcp").network_setups:
        assert setup.instances <= set(GCP)


def _sky(spec: LaunchSpec) -> tuple[dict[str, Any], str]:
    files = by_path(generate(stock_model(spec), "skypilot", GenerateOptions(out_dir="/srv/launch")))
    task = yaml.safe_load(files["task.yaml"])
    skypilot_validator("skypilot-0.14.1-resources.schema.json").validate(task["resources"])
    return task, files["README.md"]


def test_skypilot_asks_for_gpudirect_tcpx_on_a3_high_and_says_so(tmp_path: Path) -> None:
    # was: no network_tier on GCP, and "… assumes GPUDirect-TCPX … which these files do not set up"
    spec = _spec(tmp_path, "gcp", "us-central1", "a3-highgpu-8g")
    task, readme = _sky(spec)
    assert task["resources"]["network_tier"] == "best"
    assert fabric_warning(spec, "skypilot") is None
    assert "`network_tier: best` asks SkyPilot for GPUDirect-TCPX between the a3-highgpu-8g nodes" in readme
    assert "Container-Optimized OS" in readme and "GPUDirectTCPX plugin" in readme
    assert "Deep Learning Base GPU AMI" not in readme  # the AWS paragraph is EFA's
    # the other targets still leave it to the user
    assert all(fabric_warning(spec, t) is not None for t in ("torchrun", "docker", "k8s"))


def test_skypilot_leaves_a3_mega_alone_and_says_why(tmp_path: Path) -> None:
    # SkyPilot's network_tier: best refuses a3-megagpu-8g VMs (GPUDirect-TCPX machine types only)
    spec = _spec(tmp_path, "gcp", "us-central1", "a3-megagpu-8g")
    task, readme = _sky(spec)
    assert "network_tier" not in task["resources"]
    line = fabric_warning(spec, "skypilot")
    assert line is not None
    assert "SkyPilot's `network_tier: best` does not set it up on a3-megagpu-8g VMs" in line
    assert "eight extra VPC networks" in line
    assert f"Note: {line}." in readme


def test_a_plan_timed_at_the_slowest_network_is_warned_of_it(tmp_path: Path) -> None:
    # was: only a note that the network is not listed, no word of the rate the time takes
    path = tmp_path / "plan.json"
    fields: dict[str, Any] = {
        "provider": "lambda",
        "region": "us-east-1",
        "zone": None,
        "instance_type": "gpu_8x_h100_sxm5",
        "gpu": "H100-SXM",
        "gpu_count": 16,
        "gpus_per_node": 8,
        "nodes": 2,
        "pricing": "on_demand",
        "job_time_h": 7536.0,
        "network_timed_gbps": 2.5,
        "network_timed_kind": "TCP",
        "network_source": "slowest-assumed",
    }
    path.write_text(json.dumps(plan_doc(**fields)))
    spec = LaunchSpec.from_plan_json(path)
    for target in TARGETS:
        line = fabric_warning(spec, target)
        assert line is not None, target
        assert line.startswith(
            "the plan's time (7536.0 h) takes the network between the gpu_8x_h100_sxm5 nodes at 2.5 "
            "Gbit/s TCP"
        )
        assert "gpuplan plan --network-gbps N" in line
        assert "NCCL_DEBUG=INFO" in line and "all_reduce_perf" in line and "busbw" in line
    # a network the catalog lists is no such warning
    fields.update(network_source="catalog", network_timed_gbps=3200.0)
    path.write_text(json.dumps(plan_doc(**fields)))
    assert fabric_warning(LaunchSpec.from_plan_json(path), "skypilot") is None
