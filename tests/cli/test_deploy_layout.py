"""How `gpuplan deploy` lays a workload's GPUs on the catalog's instance shapes, and what it says."""

from __future__ import annotations

import pytest

from gpuplan.cli.deploy_checks import Network, node_layout

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
