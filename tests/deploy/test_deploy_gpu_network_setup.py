"""A multi-node plan on Google Cloud's A3 (GPUDirect-TCPXO/TCPX) or Azure's ND sizes (InfiniBand) is
warned, as an AWS one is of EFA, that its time assumes a network the launch files do not set up,
with what it needs and where that is documented."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from deploy_helpers import plan_doc

from gpuplan.catalog.providers import facts
from gpuplan.catalog.providers.azure import INSTANCES as AZURE
from gpuplan.catalog.providers.gcp import MACHINES as GCP
from gpuplan.deploy import LaunchSpec
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
