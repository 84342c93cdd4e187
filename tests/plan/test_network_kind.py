"""The planner costs each offer's collectives on the fabric the catalog names (network_kind)."""

from __future__ import annotations

from pathlib import Path

from plan_helpers import CAL, ddp_profile

from gpuplan.catalog import open_store
from gpuplan.perf.parallel import catalog_network_kind
from gpuplan.plan import EstimateKey
from gpuplan.plan.build_inputs import make_estimator, offer_table_from_prices
from gpuplan.workload import Workload

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_catalog_kinds_map_to_rdma_or_tcp() -> None:
    assert [catalog_network_kind(k) for k in ("EFA", "InfiniBand", "RoCE", "TCP")] == [
        "rdma",
        "rdma",
        "rdma",
        "tcp",
    ]
    assert catalog_network_kind(None) is None and catalog_network_kind("") is None


def test_the_catalog_network_kind_decides_rdma_or_tcp_not_the_bandwidth() -> None:
    est, _ = make_estimator(
        Workload.from_yaml(EXAMPLES / "resnet50-imagenet.yaml"), ddp_profile("resnet50-imagenet"), CAL
    )

    def key(gbps: float, kind: str) -> EstimateKey:
        return EstimateKey(
            gpu="A100-SXM4-80GB",
            gpus_per_node=8,
            nodes=2,
            interconnect="NVSwitch",
            network_gbps=gbps,
            network_kind=kind,
        )

    # 100 Gbit/s: below 200 the old rule said TCP; an EFA offer runs NCCL over RDMA (80 % of the
    # line rate against 50 %): its exposed all-reduce, and so its step, is shorter.
    efa, unsaid = est(key(100, "EFA")), est(key(100, ""))
    assert efa.step_time_s < unsaid.step_time_s
    assert any("network kind not in the catalog: taken as tcp" in n for n in unsaid.notes)
    assert not any("network kind not in the catalog" in n for n in efa.notes)
    # 400 Gbit/s: ≥ 200 was taken as RDMA, so an offer that does not say its fabric ranked ahead of
    # one that says TCP; unsaid is now ranked as TCP, the conservative bound, and said so.
    tcp, unsaid_fast = est(key(400, "TCP")), est(key(400, ""))
    assert tcp.step_time_s == unsaid_fast.step_time_s
    assert any("network kind not in the catalog: taken as tcp" in n for n in unsaid_fast.notes)


def test_offer_table_carries_each_offers_network_kind(fresh_catalog: Path) -> None:
    store = open_store(str(fresh_catalog))
    try:
        prices = store.offers(include_unpriced=True)
    finally:
        store.close()
    table = offer_table_from_prices(prices)
    kinds = {str(k) for k in table.network_kind}
    assert {"EFA", "TCP"} <= kinds  # the seeded catalog names AWS's EFA instances and TCP ones
    by_type = {str(t): str(k) for t, k in zip(table.instance_type, table.network_kind, strict=True)}
    assert by_type.get("p4d.24xlarge") == "EFA"
