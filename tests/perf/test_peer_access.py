"""GPUs without peer access (GeForce cards under NVIDIA's driver): NCCL's collectives go through host
memory, slower than PCIe peer to peer (perf/links.py, ``GPU.pcie_peer_access``)."""

from __future__ import annotations

import pytest
from perf_helpers import make_profile, op

from gpuplan.hardware import get_gpu
from gpuplan.perf.calibration import Calibration
from gpuplan.perf.estimate import estimate
from gpuplan.perf.links import Link, NetworkSpec, all_reduce_s

RTX4090 = get_gpu("RTX-4090")
CAL = Calibration(
    tensor_matmul_efficiency=0.5,
    tensor_conv_efficiency=0.5,
    vector_efficiency=0.8,
    bandwidth_efficiency=0.8,
    min_kernel_time_us=0.0,
)
#: The fp32 gradients of a 130 M-parameter DiT-B/2: 130.5e6 × 4 B.
GRADIENT_BYTES = 522e6


def test_eight_rtx_4090s_all_reduce_through_host_memory() -> None:
    link = Link.for_gpus(RTX4090, 8)
    assert not link.peer_access and link.intra_path == "pcie_host"
    # Ring all-reduce: 2·7/8·522e6 B over 0.40 × 32 GB/s = 12.8 GB/s, plus 2·7 hops of 15 µs:
    # 913.5e6 / 12.8e9 = 71.4 ms + 0.21 ms. Peer to peer (0.70 × 32 = 22.4 GB/s) it was 40.8 ms.
    assert all_reduce_s(GRADIENT_BYTES, link) == pytest.approx(913.5e6 / 12.8e9 + 14 * 15e-6)
    assert all_reduce_s(GRADIENT_BYTES, link) > 1.7 * (913.5e6 / 22.4e9)
    assert "via host memory, no P2P" in link.describe()


def test_a_rented_node_of_4090s_is_the_same_card() -> None:
    # A marketplace offer (vast.ai, lium) of eight RTX 4090s that says nothing of its link: the plan's
    # path (NetworkSpec with the offer's GPUs and words) takes the same no-P2P rate.
    link = NetworkSpec(source="catalog", gpus_per_node=8, interconnect="").link(RTX4090, 8)
    assert link.intra_path == "pcie_host"
    same = all_reduce_s(GRADIENT_BYTES, Link.for_gpus(RTX4090, 8))
    assert all_reduce_s(GRADIENT_BYTES, link) == pytest.approx(same)


@pytest.mark.parametrize("gpu_id", ["H100-PCIE", "L40S", "A40", "RTX-A6000"])
def test_data_centre_and_workstation_pcie_cards_keep_p2p(gpu_id: str) -> None:
    gpu = get_gpu(gpu_id)
    link = Link.for_gpus(gpu, 8)  # eight cards: a bridge joins pairs only, so PCIe
    assert link.peer_access and link.intra_path == "pcie"
    n = gpu.pcie_gbps / 2
    assert all_reduce_s(GRADIENT_BYTES, link) == pytest.approx(913.5e6 / (0.70 * n * 1e9) + 14 * 8e-6)
    assert "no P2P" not in link.describe()


def test_a_bridged_pair_of_3090s_talks_over_nvlink_four_through_host_memory() -> None:
    rtx3090 = get_gpu("RTX-3090")
    pair = Link.for_gpus(rtx3090, 2)
    assert pair.intra_path == "nvlink" and pair.peer_access
    assert Link.for_gpus(rtx3090, 4).intra_path == "pcie_host"
    assert Link.for_gpus(get_gpu("RTX-5090"), 4).intra_path == "pcie_host"


def test_the_estimate_of_a_4090_node_says_there_is_no_p2p() -> None:
    prof = make_profile(ops=(op("forward", flops=1e12), op("backward", flops=2e12)))
    e = estimate(prof, RTX4090, count=8, parallelism="ddp", calibration=CAL)
    assert "via host memory, no P2P" in e.link
    assert any("no P2P between RTX-4090 cards" in n and "12.8 GB/s" in n for n in e.notes)
    # One GPU has nothing to join: no such note.
    assert not any("P2P" in n for n in estimate(prof, RTX4090, calibration=CAL).notes)
