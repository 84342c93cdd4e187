"""The overlap model: how much of each scheme's communication compute hides (perf/stages/communication.py)."""

from __future__ import annotations

import pytest
from perf_helpers import make_profile, op

from gpuplan.hardware import get_gpu
from gpuplan.perf.calibration import Calibration
from gpuplan.perf.estimate import estimate
from gpuplan.perf.links import Link, all_gather_s
from gpuplan.perf.roofline import PhaseTimes
from gpuplan.perf.stages.communication import comm_time
from gpuplan.profile.model import ModelShape

A100 = get_gpu("A100-SXM4-80GB")
CAL = Calibration(
    tensor_matmul_efficiency=0.5,
    tensor_conv_efficiency=0.5,
    vector_efficiency=0.8,
    bandwidth_efficiency=0.8,
    min_kernel_time_us=0.0,
)
#: 1e9 params in 10 equal layers of 1e8, amp-bf16 (fp32 master weights: 4 B each as traced).
SHAPE = ModelShape(family="decoder", num_layers=10, hidden_size=4096, largest_layer_params=100_000_000)


def _phases(forward_s: float, backward_s: float) -> PhaseTimes:
    return PhaseTimes(forward_s=forward_s, backward_s=backward_s, optimizer_s=0.0, compute_bound_s=0.0)


def test_fsdp_hides_its_gathers_behind_compute_except_the_first_layer_and_last_reduce() -> None:
    prof = make_profile(ops=(op(flops=1.0),), shape=SHAPE)
    # 2 nodes × 8 A100 on 400 Gbit/s RDMA: the node's network carries 400/8·0.8 = 40 GB/s.
    link = Link.for_gpus(A100, 16, network_gbit_s=400.0)
    # Gather of 1e9 params in bf16 (2e9 B): across 2 nodes 1/2·2e9 / 40e9 = 25 ms (+ latency);
    # reduce-scatter of fp32 gradients (4e9 B): 50 ms.
    gather = all_gather_s(2e9, link)
    reduce = all_gather_s(4e9, link)
    assert gather == pytest.approx(0.025, rel=0.01) and reduce == pytest.approx(0.050, rel=0.01)
    # Compute of 1 s forward and 2 s backward dwarfs them: exposed is the first layer's gather
    # (1e8 params × 2 B = 2e8 B: 2.5 ms) plus the last layer's reduce-scatter (50 ms / 10 = 5 ms).
    c = comm_time(prof, _phases(1.0, 2.0), "fsdp", link, world=16)
    assert c.total_s == pytest.approx(2 * gather + reduce)
    assert c.exposed_s == pytest.approx(all_gather_s(2e8, link) + reduce / 10)
    # With 10 ms of forward and 20 ms of backward compute, the phases outlast it:
    # forward exposes 25 − 10 = 15 ms, backward 25 + 50 − 20 = 55 ms.
    short = comm_time(prof, _phases(0.010, 0.020), "fsdp", link, world=16)
    assert short.exposed_s == pytest.approx((gather - 0.010) + (gather + reduce - 0.020))


def test_zero2_exposes_the_parameter_all_gather_after_the_step() -> None:
    prof = make_profile(ops=(op(flops=1.0),), shape=SHAPE)
    link = Link.for_gpus(A100, 16, network_gbit_s=400.0)
    c = comm_time(prof, _phases(1.0, 2.0), "zero2", link, world=16)
    # reduce-scatter of 4e9 B gradients (50 ms) hides in 2 s of backward but its last 25 MiB
    # bucket does not; the bf16 parameter all-gather (2e9 B, 25 ms) follows the step, exposed.
    last = all_gather_s(25 * 1024**2, link)
    assert c.exposed_s == pytest.approx(last + all_gather_s(2e9, link))


def test_multi_node_fsdp_step_is_close_to_compute_when_overlapped() -> None:
    # 1 TFLOP forward + 2 TFLOP backward bf16 per micro-batch: 3e12 / (312e12 × 0.5) = 19.2 ms.
    prof = make_profile(ops=(op("forward", flops=1e12), op("backward", flops=2e12)), shape=SHAPE)
    one = estimate(prof, A100, calibration=CAL)
    link = Link.for_gpus(A100, 16, network_gbit_s=400.0)
    many = estimate(prof, A100, count=16, parallelism="fsdp", calibration=CAL, link=link)
    assert many.comm_total_s > many.comm_exposed_s > 0
    # Exposed = (25 − 6.4) ms forward + (25 + 50 − 12.8) ms backward: 80.8 ms, far less than the
    # 100 ms a model with no overlap would add.
    assert many.comm_exposed_s == pytest.approx(0.0808, rel=0.03)
    assert many.step_time_s == pytest.approx(one.compute_time_s + many.comm_exposed_s, rel=0.01)
    assert many.network_source == "user" and many.network_gbps == 400.0


def test_overlap_cost_adds_its_share_of_the_hidden_time_to_what_is_exposed() -> None:
    prof = make_profile(ops=(op(flops=1.0),), shape=SHAPE)
    link = Link.for_gpus(A100, 16, network_gbit_s=400.0)
    free = comm_time(prof, _phases(1.0, 2.0), "fsdp", link, world=16)
    # Total 2 × 25 + 50 = 100 ms, of which 7.5 ms is exposed with perfect overlap (first gather,
    # last reduce-scatter): 92.5 ms hidden. At overlap_cost 0.5 half of it lengthens the step:
    # 7.5 + 46.25 = 53.75 ms.
    costly = comm_time(prof, _phases(1.0, 2.0), "fsdp", link, world=16, overlap_cost=0.5)
    assert costly.total_s == free.total_s
    assert costly.exposed_s == pytest.approx(free.exposed_s + 0.5 * (free.total_s - free.exposed_s))
    assert costly.exposed_s == pytest.approx(0.05375, rel=0.02)
    # Nothing hidden (compute shorter than the collectives' excess): the cost changes nothing more
    # than what is hidden; all of a collective that outlasts compute is exposed either way.
    whole = comm_time(prof, _phases(0.0, 0.0), "fsdp", link, world=16, overlap_cost=0.5)
    assert whole.exposed_s == pytest.approx(whole.total_s)


def test_the_fitted_calibration_charges_overlapped_communication() -> None:
    from gpuplan.perf.calibration import load_calibration

    # Fitted on the multi-node FSDP rows (KempnerForge H200 at 400 Gbit/s per GPU): with perfect
    # overlap they came out 16–40 % fast. A fit that left it at 0 would have learnt nothing from them.
    assert 0.1 < load_calibration().overlap_cost < 0.9


def test_a_pair_of_a_directly_joined_4_gpu_board_runs_on_a_third_of_the_nvlink() -> None:
    # A 4-GPU H200 board without NVSwitch: each GPU's 18 links are split 6/6/6 over its three
    # peers, so a collective over two of them moves its bytes over 6 links, one over all four
    # over all 18. Under NVSwitch (no board given) any pair has the GPU's whole NVLink.
    h200 = get_gpu("H200-SXM")
    switched = Link.for_gpus(h200, 4, gpus_per_node=4)
    board = Link.for_gpus(h200, 4, gpus_per_node=4, nvlink_board=4)
    assert board.nvlink_share(2) == pytest.approx(1 / 3) and board.nvlink_share(4) == 1.0
    assert switched.nvlink_share(2) == 1.0
    nbytes = 1e9
    latency = 5e-6  # one NVLink ring hop of two GPUs
    pair = all_gather_s(nbytes, board, world=2) - latency
    assert pair == pytest.approx(3 * (all_gather_s(nbytes, switched, world=2) - latency))
    assert all_gather_s(nbytes, board, world=4) == pytest.approx(all_gather_s(nbytes, switched, world=4))
    # PCIe has no board to split: the setting is dropped.
    assert Link.for_gpus(h200, 4, gpus_per_node=4, nvlink=False, nvlink_board=4).nvlink_board is None
