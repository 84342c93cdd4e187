"""Links, ring collectives, DDP overlap, and ZeRO/FSDP per-rank memory against DeepSpeed's closed forms."""

from __future__ import annotations

import pytest
from perf_helpers import GIB, SIMPLE_CAL, breakdown, make_profile, op

from gpuplan.errors import EstimateError
from gpuplan.hardware import get_gpu
from gpuplan.perf.estimate import estimate
from gpuplan.perf.links import Link, all_gather_s, all_reduce_s
from gpuplan.perf.stages.memory import DEEPSPEED_MIXED_ADAM, sharded_peak_bytes, zero_model_state_bytes
from gpuplan.profile.model import ModelShape

A100 = get_gpu("A100-SXM4-80GB")
CAL = SIMPLE_CAL


def test_link_from_sxm_gpu_uses_nvlink_one_direction() -> None:
    link = Link.for_gpus(A100, 8)
    assert (link.nodes, link.gpus_per_node, link.intra_node) == (1, 8, "nvlink")
    assert link.intra_node_gbps == 300.0  # 600 GB/s bidirectional / 2


def test_link_without_nvlink_uses_pcie_and_spans_nodes() -> None:
    link = Link.for_gpus(get_gpu("L4"), 16)
    assert (link.nodes, link.gpus_per_node, link.intra_node) == (2, 8, "pcie")
    assert link.intra_node_gbps == 32.0  # PCIe Gen4 x16: 64 GB/s bidirectional / 2
    assert not link.network_known
    with pytest.raises(EstimateError, match="no NVLink"):
        Link.for_gpus(get_gpu("L4"), 2, nvlink=True)


def test_ring_all_reduce_time() -> None:
    link = Link.for_gpus(A100, 8)
    # 2 × 7/8 × 1e9 B / (300e9 × 0.78) + 2 × 7 hops × 5 µs = 7.479 ms + 0.07 ms
    expected = 2 * 7 / 8 * 1e9 / (300e9 * 0.78) + 14 * 5e-6
    assert all_reduce_s(1e9, link) == pytest.approx(expected)
    # all-gather moves half the all-reduce volume
    assert all_gather_s(1e9, link) == pytest.approx(7 / 8 * 1e9 / (300e9 * 0.78) + 7 * 5e-6)
    assert all_reduce_s(1e9, Link.for_gpus(A100, 1)) == 0.0


def test_multi_node_all_reduce_is_hierarchical_and_limited_by_the_network() -> None:
    link = Link.for_gpus(A100, 16, network_gbit_s=100.0, network_kind="rdma")
    # 2 nodes × 8. Across nodes the node's NICs carry 2·(N−1)/N·bytes = 2·1/2·1e9 = 1e9 B at
    # 100 Gbit/s = 12.5 GB/s × 0.8 (RDMA) = 10 GB/s → 100 ms; inside the node NVLink moves
    # 2·7/8·1e9 B at 234 GB/s → 7.5 ms, pipelined with it, so the network sets the time.
    # Latency: 2·7 NVLink hops × 5 µs + 2·1 network hops × 15 µs = 0.1 ms.
    assert all_reduce_s(1e9, link) == pytest.approx(1e9 / 10e9 + 14 * 5e-6 + 2 * 15e-6)


def test_tcp_reaches_a_smaller_share_of_the_line_rate_than_rdma() -> None:
    rdma = Link.for_gpus(A100, 16, network_gbit_s=100.0, network_kind="rdma")
    tcp = Link.for_gpus(A100, 16, network_gbit_s=100.0, network_kind="tcp")
    # 1e9 B across 2 nodes: RDMA 1e9 / (12.5e9 × 0.8) = 100 ms; TCP 1e9 / (12.5e9 × 0.5) = 160 ms.
    assert all_gather_s(2e9, tcp) / all_gather_s(2e9, rdma) == pytest.approx(0.160 / 0.100, rel=1e-3)


def test_an_unknown_network_is_a_typical_point_spanning_2_5_to_3200_gbit() -> None:
    # The point is 100 Gbit/s TCP (Google Cloud A2/G2); the range's slow end the slowest GPU instance
    # network of the embedded catalog, 2.5 Gbit/s (Alibaba ecs.gn6v-c8g1.2xlarge), its fast end
    # 3,200 Gbit/s RDMA (A3 Ultra / A4, AWS p5).
    link = Link.for_gpus(A100, 16)
    assert (link.network_source, link.network_gbit_s, link.network_kind) == ("assumed", 100.0, "tcp")
    fast, slow = link.fast_end(), link.slow_end()
    assert (fast.network_gbit_s, fast.network_kind, fast.network_source) == (3200.0, "rdma", "assumed")
    assert (slow.network_gbit_s, slow.network_kind, slow.network_source) == (2.5, "tcp", "assumed")
    given = Link.for_gpus(A100, 16, network_gbit_s=400.0, network_source="catalog")
    assert given.fast_end() is given and given.slow_end() is given and given.network_source == "catalog"
    assert given.network_kind == "rdma"  # a stated rate of unstated kind
    efa = Link.for_gpus(A100, 16, network_kind="rdma", network_source="catalog")  # kind, no rate
    assert (efa.network_source, efa.network_gbit_s, efa.network_kind) == ("assumed", 100.0, "rdma")
    one_node = Link.for_gpus(A100, 8)
    assert one_node.fast_end() is one_node and one_node.slow_end() is one_node


def test_ddp_exposes_only_the_all_reduce_tail_beyond_backward() -> None:
    # 1e9 fp32 params: 4e9 B gradients. On 8×A100: 2·7/8·4e9/234e9 = 29.9 ms of all-reduce
    # against 2e12 / (312e12 × 0.7) = 9.16 ms of backward → 20.8 ms exposed.
    p = make_profile(ops=(op("forward", flops=1e12), op("backward", flops=2e12)))
    e1 = estimate(p, A100, calibration=CAL)
    e8 = estimate(p, A100, count=8, calibration=CAL)
    ar = all_reduce_s(4e9, Link.for_gpus(A100, 8))
    assert e8.comm_time_s == pytest.approx(ar - e1.phases.backward_s)
    assert e8.step_time_s == pytest.approx(e1.step_time_s + e8.comm_time_s)
    assert e8.throughput == pytest.approx(8 * p.batch_size / e8.step_time_s)


def test_ddp_fully_overlapped_still_pays_the_last_bucket() -> None:
    # 1e6 params = 4 MB of gradients < one 25 MiB bucket: the whole all-reduce is exposed
    p = make_profile(ops=(op("forward", flops=1e12), op("backward", flops=2e12)), params=1_000_000)
    e8 = estimate(p, A100, count=8, calibration=CAL)
    assert e8.comm_time_s == pytest.approx(all_reduce_s(4e6, Link.for_gpus(A100, 8)))


@pytest.mark.parametrize(
    ("params", "stage", "world", "lmax", "deepspeed_gib"),
    [
        # ESTIMATION_NOTES 2.3: GPT-2 124M ZeRO-2 on 1 GPU 2.32 GiB (= 20 B/param)
        (124_439_808, 2, 1, 0, 2.32),
        # Llama-7B (6.74e9 params) ZeRO-2 on 1 GPU: 4P + 16P = 125.5 GiB
        (6_738_415_616, 2, 1, 0, 125.5),
        # Llama-7B ZeRO-3 on 8 GPUs: 4·Lmax + 18P/8 with Lmax = 32000 × 4096 (embedding) = 14.6 GiB
        (6_738_415_616, 3, 8, 32000 * 4096, 14.6),
    ],
)
def test_zero_model_states_match_deepspeed_closed_forms(
    params: int, stage: int, world: int, lmax: int, deepspeed_gib: float
) -> None:
    got = zero_model_state_bytes(
        params, stage=stage, world=world, layout=DEEPSPEED_MIXED_ADAM, largest_layer_params=lmax
    )
    assert got / GIB == pytest.approx(deepspeed_gib, rel=0.01)


def test_sharded_peak_shards_state_by_stage() -> None:
    # torch AMP layout: fp32 params 4P, grads 4P, AdamW 8P; 2 GiB of activations stay per rank
    p = 1_000_000_000
    peak = breakdown(parameters=4.0 * p, gradients=4.0 * p, optimizer_state=8.0 * p, activations=2 * GIB)
    kw = {"world": 4, "params": p, "largest_layer_params": 100_000_000}
    # ZeRO-1: 4P + 4P + 8P/4 + act = 10e9 + 2 GiB
    assert sharded_peak_bytes(peak, parallelism="zero1", **kw) == pytest.approx(10e9 + 2 * GIB)
    # ZeRO-2: 4P + (4P + 8P)/4 = 7e9
    assert sharded_peak_bytes(peak, parallelism="zero2", **kw) == pytest.approx(7e9 + 2 * GIB)
    # ZeRO-3/FSDP: 16P/4 + Lmax × (4 + 4) = 4e9 + 0.8e9
    assert sharded_peak_bytes(peak, parallelism="fsdp", **kw) == pytest.approx(4.8e9 + 2 * GIB)
    assert sharded_peak_bytes(peak, parallelism="ddp", **kw) == peak.total_bytes


def test_fsdp_estimate_fits_where_ddp_does_not() -> None:
    p = 7_000_000_000
    prof = make_profile(
        ops=(op("forward", flops=1e14), op("backward", flops=2e14)),
        params=p,
        shape=ModelShape(family="decoder", largest_layer_params=131_072_000),
    )
    assert not estimate(prof, A100, calibration=CAL).fits
    e = estimate(prof, A100, count=8, parallelism="fsdp", calibration=CAL)
    assert e.fits
    assert e.comm_time_s > 0


def test_unknown_parallelism_is_an_error() -> None:
    p = make_profile(ops=(op(flops=1.0),))
    with pytest.raises(EstimateError, match="unknown parallelism"):
        estimate(p, A100, parallelism="tp", calibration=CAL)


def test_ddp_adds_one_gradient_bucket_copy_per_gpu() -> None:
    # 1e9 fp32 params: DDP's buckets hold another 4e9 B per rank
    p = make_profile(ops=(op("forward", flops=1e12), op("backward", flops=2e12)))
    one = estimate(p, A100, calibration=CAL)
    eight = estimate(p, A100, count=8, calibration=CAL)
    assert eight.memory.traced_peak_gib - one.memory.traced_peak_gib == pytest.approx(4e9 / GIB)


def test_pcie_cards_use_their_nvlink_bridge_only_in_pairs() -> None:
    a100_pcie = get_gpu("A100-PCIE-80GB")
    assert Link.for_gpus(a100_pcie, 2).intra_node == "nvlink"
    assert Link.for_gpus(a100_pcie, 4).intra_node == "pcie"  # bridges join pairs, not rings of four
    assert Link.for_gpus(A100, 8).intra_node == "nvlink"  # SXM: NVSwitch
