"""An offer that does not say how its GPUs are joined is never costed at the best case.

NVSwitch joins the GPUs of the 8-GPU HGX boards only; the 4-GPU boards join them directly, so a
pair of them shares a third of each GPU's NVLink. An SXM instance of fewer than eight GPUs whose
catalog entry does not say NVSwitch is costed as a directly joined board of at least four GPUs,
and the plan names the GPU link as an unknown fact with the NVSwitch case beside it.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from plan_helpers import CAL, ddp_profile, offer

from gpuplan.hardware import get_gpu
from gpuplan.perf.links import Link, NetworkSpec, all_reduce_s, gpu_join
from gpuplan.plan import Constraints, CostFacts, JobFacts, OfferTable, RegionCosts, plan_offers
from gpuplan.plan.build_inputs import make_estimator
from gpuplan.workload import Workload

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
H100 = get_gpu("H100-SXM")


@pytest.mark.parametrize(
    ("gpus", "words", "expected"),
    [
        (4, "", (True, 4, False)),  # nothing said: a 4-GPU HGX board, assumed
        (2, "", (True, 4, False)),  # two GPUs may be half of one
        (4, "NVLink/NVSwitch", (True, None, True)),  # a slice of an NVSwitch board (GCP A2)
        (4, "NVSwitch (per family docs; unverified)", (True, 4, False)),
        (4, "NVLink", (True, 4, True)),  # NVLink without NVSwitch on a whole 4-GPU board
        (2, "NVLink", (True, 4, False)),  # ... but which board two of them are on is not said
        (8, "", (True, None, True)),  # the 8-GPU HGX boards: NVSwitch, as before
        (4, "PCIe", (False, None, True)),
    ],
)
def test_how_an_sxm_instance_joins_its_gpus(gpus: int, words: str, expected: tuple[object, ...]) -> None:
    assert tuple(gpu_join(H100, gpus, words)) == expected


def test_pcie_cards_are_bridged_only_where_the_entry_says_so() -> None:
    a100 = get_gpu("A100-PCIE-80GB")
    assert tuple(gpu_join(a100, 2, "")) == (False, None, False)  # a bridge is an option: not assumed
    assert tuple(gpu_join(a100, 2, "NVLink")) == (True, None, True)
    assert tuple(gpu_join(a100, 4, "")) == (False, None, True)  # bridges join pairs, never four
    assert tuple(gpu_join(a100, 4, "NVLink")) == (False, None, True)


def test_two_gpus_of_an_unsaid_four_gpu_offer_cost_more_than_on_nvswitch() -> None:
    unsaid = NetworkSpec(source="catalog", gpus_per_node=4, interconnect="").link(H100, 2)
    switch = NetworkSpec(source="catalog", gpus_per_node=4, interconnect="NVLink/NVSwitch").link(H100, 2)
    assert (unsaid.nvlink_board, unsaid.gpu_join_assumed) == (4, True)
    assert (switch.nvlink_board, switch.gpu_join_assumed) == (None, False)
    # A pair on a 4-GPU board has 6 of each GPU's 18 links between them: 3 × the time of a
    # bandwidth-bound all-reduce (4 GB, the hop latency is the same on both).
    slow, fast = all_reduce_s(4e9, unsaid), all_reduce_s(4e9, switch)
    assert slow == pytest.approx(3 * fast, rel=1e-3)
    assert "assumed: how the GPUs are joined is not known" in unsaid.describe()
    assert "4-GPU NVLink board without NVSwitch" in unsaid.describe()


def test_an_eight_gpu_sxm_node_is_unchanged() -> None:
    for words in ("", "NVLink/NVSwitch", "NVLink"):
        link = NetworkSpec(source="catalog", gpus_per_node=8, interconnect=words).link(H100, 8)
        assert link == Link.for_gpus(H100, 8, gpus_per_node=8, network_source="catalog")


def test_an_mi300x_node_is_the_fully_connected_eight_gpu_board_whatever_it_says() -> None:
    # Seven Infinity Fabric links per GPU, one to each peer (no switch): a collective over k of the
    # eight uses k − 1 of them. A node of eight is fully used, as NVSwitch would be.
    mi300x = get_gpu("MI300X")
    for words in ("", "Infinity Fabric", "NVSwitch"):
        assert tuple(gpu_join(mi300x, 4, words)) == (True, 8, True)
    pair = Link.for_gpus(mi300x, 2)
    whole = NetworkSpec(source="catalog", gpus_per_node=8, interconnect="").link(mi300x, 8)
    assert (pair.nvlink_board, pair.nvlink_share(2)) == (8, pytest.approx(1 / 7))
    assert (whole.nvlink_board, whole.nvlink_share(8)) == (8, 1.0)
    assert NetworkSpec(source="catalog", gpus_per_node=8, interconnect="").link(mi300x, 4).nvlink_share(
        4
    ) == (pytest.approx(3 / 7))
    assert all_reduce_s(4e9, pair) > 5 * all_reduce_s(4e9, Link.for_gpus(H100, 2))
    # Azure's entry names its link "Infinity Fabric": not NVLink by name, yet not PCIe (it was taken
    # as PCIe, 64 GB/s a direction, before).
    azure = NetworkSpec(
        source="catalog", gpus_per_node=8, interconnect="Infinity Fabric + 8x400 Gb NDR InfiniBand"
    ).link(mi300x, 8)
    assert (azure.intra_node, azure.intra_node_gbps, azure.nvlink_share(8)) == ("nvlink", 448.0, 1.0)
    assert azure.describe() == "8× GPU over Infinity Fabric (448 GB/s/dir) on a fully connected 8-GPU board"
    assert "NVLink" not in pair.describe() and "NVSwitch" not in pair.describe()


def test_the_offer_that_says_nvswitch_ranks_above_the_one_that_says_nothing() -> None:
    est, _ = make_estimator(
        Workload.from_yaml(EXAMPLES / "bert-large-squad.yaml"), ddp_profile("bert-large-squad"), CAL
    )
    common = {"gpu": "H100-SXM", "gpu_count": 2, "gpu_memory_gib": 80.0, "price_usd": 6.0, "vcpus": 52.0}
    rows = [
        offer(instance_type="unsaid-2x", interconnect="", **common),
        offer(instance_type="switched-2x", interconnect="NVLink/NVSwitch", **common),
    ]
    regions = [
        RegionCosts(
            provider="aws",
            region="us-east-1",
            internet_egress=(),
            inter_region_usd_per_gb=0.0,
            object_storage_usd_per_gb_month=0.0,
            block_storage_usd_per_gb_month=0.0,
        )
    ]
    plan = plan_offers(
        OfferTable.from_rows(rows),
        CostFacts(regions),
        JobFacts(dataset_gb=0.0, results_gb=0.0, task="train"),
        est,
        Constraints(max_gpus=2, max_nodes=1),
    )
    by_name = {o.instance_type: o for o in plan.options}
    unsaid, switched = by_name["unsaid-2x"], by_name["switched-2x"]
    assert plan.options[0].instance_type == "switched-2x"
    assert unsaid.job_time_h > switched.job_time_h
    facts = {u.fact: u.assumed for u in unsaid.unknown_facts}
    assert "directly joined 4-GPU NVLink board" in facts["gpu_link"]
    assert "gpu_link" not in {u.fact for u in switched.unknown_facts}
    # Its best case is the NVSwitch offer's time.
    assert math.isclose(unsaid.best_case_job_time_h, switched.job_time_h, rel_tol=1e-9)


def test_estimate_on_a_named_instance_takes_its_board(fresh_catalog: Path) -> None:
    from gpuplan.api import instance_links
    from gpuplan.catalog import open_store

    store = open_store(str(fresh_catalog))
    try:
        unsaid = instance_links(store, "gpu_4x_h100_sxm5").network  # Lambda's entry says nothing
        switched = instance_links(store, "a2-highgpu-4g").network  # GCP's A2: the 16-GPU NVSwitch board
    finally:
        store.close()
    assert unsaid is not None and switched is not None
    a100 = get_gpu("A100-SXM4-40GB")
    two_of_four = unsaid.link(H100, 2)
    assert (two_of_four.nvlink_board, two_of_four.gpu_join_assumed) == (4, True)
    assert (switched.link(a100, 2).nvlink_board, switched.link(a100, 2).gpu_join_assumed) == (None, False)


def test_a_named_instance_and_another_gpu_are_refused_together(fresh_catalog: Path) -> None:
    # p4d.24xlarge's host (12 vCPUs a GPU, 400 Gbit/s EFA) under a T4 is a machine no one rents.
    from gpuplan.api import instance_links
    from gpuplan.catalog import open_store
    from gpuplan.errors import InputError

    store = open_store(str(fresh_catalog))
    try:
        with pytest.raises(InputError) as e:
            instance_links(store, "p4d.24xlarge", gpus=["T4"])
        same = instance_links(store, "p4d.24xlarge", gpus=["a100-sxm4-40gb:8"])
    finally:
        store.close()
    said = "p4d.24xlarge carries A100-SXM4-40GB GPUs, not T4; drop --gpu, or name an instance of T4"
    assert str(e.value) == said
    assert same.gpus == ("a100-sxm4-40gb:8",)


def test_an_estimate_without_an_instance_takes_the_conservative_board() -> None:
    # No instance: two SXM GPUs may be half of a 4-GPU board, so NVSwitch is not assumed; eight are
    # an HGX 8-GPU node (NVSwitch); a stated network alone says nothing of the node's GPU link.
    from gpuplan.api import estimate
    from gpuplan.perf import NetworkSpec

    wl = Workload.model_validate(
        {
            "name": "t",
            "task": "train",
            "model": {"preset": "bert-large"},
            "inputs": {"batch_size": 8, "seq_len": 384},
        }
    )
    prof = ddp_profile("bert-large-squad")
    two, eight = estimate(wl, gpus=["H100-SXM:2", "H100-SXM:8"], profile=prof, levels=False).outcomes
    stated = estimate(
        wl, gpus=["H100-SXM:2"], profile=prof, levels=False, network=NetworkSpec(gbit_s=400.0)
    ).outcomes[0]
    for out in (two, stated):
        assert out.estimate is not None
        assert "4-GPU NVLink board" in out.estimate.link
        assert any("how the GPUs are joined is not known" in n for n in out.estimate.notes)
    assert eight.estimate is not None and "board" not in eight.estimate.link
    assert not any("joined is not known" in n for n in eight.estimate.notes)
    # The unknown board costs more than the NVSwitch best case.
    nvswitch = Link.for_gpus(H100, 2)
    board = Link.for_gpus(H100, 2, nvlink_board=4)
    assert all_reduce_s(4e9, board) > all_reduce_s(4e9, nvswitch)
