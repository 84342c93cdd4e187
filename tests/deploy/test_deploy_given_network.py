"""A multi-node plan timed over an RDMA network the user gave (``plan --network-kind rdma``) for an
instance the catalog gives none: its launch files hold NCCL to that fabric, on the user's word, and
say so; over the user's TCP, or on one node, they change nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from deploy_helpers import by_path, plan_doc

from gpuplan.deploy import GenerateOptions, LaunchSpec, generate

TARGETS = ("torchrun", "docker", "k8s", "skypilot")
LAUNCH = GenerateOptions(out_dir="/srv/launch")


def _spec(
    tmp_path: Path, *, kind: str | None = "RDMA", source: str | None = "given", nodes: int = 2
) -> LaunchSpec:
    """The fixture plan moved to 2 nodes of Nebius's 8 x H100 (no network in the catalog), timed
    over the network ``kind`` from ``source``."""
    fields: dict[str, Any] = {
        "provider": "nebius",
        "region": "eu-north1",
        "zone": None,
        "instance_type": "gpu-h100-sxm_8gpu-128vcpu-1600gb",
        "gpu": "H100-SXM",
        "gpu_count": 8 * nodes,
        "gpus_per_node": 8,
        "nodes": nodes,
        "pricing": "on_demand",
        "network_gbps": None,
        "network_kind": None,
        "network_timed_gbps": 3200.0 if source else None,
        "network_timed_kind": kind,
        "network_source": source,
    }
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan_doc(**fields)))
    return LaunchSpec.from_plan_json(path)


@pytest.mark.parametrize("target", TARGETS)
def test_a_given_rdma_network_holds_nccl_to_it_and_the_readme_says_whose_word_it_is(
    tmp_path: Path, target: str
) -> None:
    spec = _spec(tmp_path)
    assert spec.network_given_rdma
    files = by_path(generate(spec, target, LAUNCH))
    assert 'export NCCL_NET="${NCCL_NET:-IB}"' in files["launch.sh"]
    readme = files["README.md"]
    assert "`NCCL_NET=IB`" in readme and "follow your statement, not the catalog's" in readme, readme
    if target == "docker":
        assert "--device=/dev/infiniband" in readme


@pytest.mark.parametrize(
    ("kind", "source", "nodes"), [("TCP", "given", 2), ("RDMA", "given", 1), (None, None, 2)]
)
def test_tcp_one_node_or_no_network_given_changes_nothing(
    tmp_path: Path, kind: str | None, source: str | None, nodes: int
) -> None:
    spec = _spec(tmp_path, kind=kind, source=source, nodes=nodes)
    for target in TARGETS:
        files = by_path(generate(spec, target, LAUNCH))
        assert "NCCL_NET" not in files["launch.sh"] and "NCCL_NET" not in files["README.md"], target
