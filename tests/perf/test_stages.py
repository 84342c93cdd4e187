"""run_estimate is its five stages (perf/stages/) run once each: the Estimate is their results."""

from __future__ import annotations

import pytest
from perf_helpers import GIB, breakdown, make_profile, op

from gpuplan.hardware import get_gpu
from gpuplan.perf.calibration import Calibration
from gpuplan.perf.estimate import EstimateRequest, run_estimate
from gpuplan.perf.stages.communication import communication
from gpuplan.perf.stages.compute import compute_time
from gpuplan.perf.stages.layout import ModelParallel, lay_out
from gpuplan.perf.stages.memory import gpu_memory
from gpuplan.perf.stages.spread import step_spread
from gpuplan.profile.model import ModelShape

A100 = get_gpu("A100-SXM4-80GB")
CAL = Calibration(
    tensor_matmul_efficiency=0.5,
    tensor_conv_efficiency=0.5,
    vector_efficiency=0.8,
    bandwidth_efficiency=0.8,
    min_kernel_time_us=0.0,
)
#: A 7B-class decoder (32 layers, 32 heads, h = 4096) at 4,096 tokens: 100 TFLOP per micro-batch.
SHAPE = ModelShape(family="decoder", num_layers=32, hidden_size=4096, num_attention_heads=32, num_kv_heads=32)
PEAK = breakdown(parameters=4.0 * 7e9, gradients=4.0 * 7e9, optimizer_state=8.0 * 7e9, activations=20 * GIB)


def _request() -> EstimateRequest:
    """TP=2 × PP=2 over 32 GPUs (4 nodes of 8 on an assumed network), 8 micro-batches per step."""
    profile = make_profile(
        ops=(
            op("forward", flops=100e12 / 3, count=320),
            op("backward", flops=200e12 / 3, count=640),
            op("forward", op_class="other", bytes_moved=10e9, count=1000),
        ),
        peak=PEAK,
        params=7_000_000_000,
        shape=SHAPE,
        batch_size=1,
        seq_len=4096,
    )
    return EstimateRequest(
        profile=profile,
        gpu=A100,
        count=32,
        model_parallel=ModelParallel(tensor=2, pipeline=2),
        calibration=CAL,
        grad_accum_steps=8,
    )


def test_the_estimate_is_the_five_stages_results() -> None:
    request = _request()
    layout = lay_out(request)
    compute = compute_time(layout)
    comm = communication(layout, compute)
    memory = gpu_memory(layout)
    spread = step_spread(layout, compute, comm)
    e = run_estimate(request)
    # d = 32 / (2 · 2) = 8 replicas; 8 micro-batches + (2 − 1) idle stage time per step.
    assert layout.data_parallel == e.data_parallel == 8
    assert compute.stage_times == 9.0
    assert e.compute_time_s == compute.compute_s
    assert e.step_time_s == spread.step_s == compute.compute_s + comm.exposed_s
    assert e.comm_exposed_s == comm.exposed_s and e.comm_total_s == comm.total_s
    assert e.pipeline_bubble_s == pytest.approx(
        1.0 * (compute.micro_batch_s + comm.tensor_parallel_s + comm.pipeline_send_s)
    )
    assert e.memory == memory.memory
    assert (e.step_time_s_low, e.step_time_s_high) == (spread.low_s, spread.high_s)
    # The point is costed on a typical network; the fast end of the plausible fabrics widens the low
    # end, the slow end (the slowest GPU instance network of the embedded catalog) the high end.
    assert comm.exposed_fast_s < comm.exposed_s < comm.exposed_slow_s
    assert spread.low_s < (compute.compute_s + comm.exposed_fast_s)
    assert spread.high_s > compute.compute_s + comm.exposed_slow_s


def test_notes_say_the_layout_then_the_memory_then_the_assumed_network() -> None:
    notes = run_estimate(_request()).notes
    assert notes[0].startswith("TP=2 PP=2 DP=8: each GPU runs 1/4 of the model")
    assert any(n.startswith("DDP gradient buckets") for n in notes[1:-1])
    assert notes[-1].startswith(
        "inter-node network unknown: the point assumes a typical instance network (100 Gbit/s TCP); the "
        "range runs from the slowest GPU instance network in the embedded catalog (2.5 Gbit/s TCP) to "
        "3,200 Gbit/s RDMA"
    )


def test_a_network_rate_without_its_kind_says_which_kind_it_was_taken_as() -> None:
    # was: `--network-gbps 400` alone was costed as RDMA (0.80 of line rate), the best case of an
    # unsaid fact; over TCP the same 400 Gbit/s moves at 0.50, and a 32-GPU step is a third longer.
    # Now any rate of unsaid kind is TCP at the point (as plan ranks it), RDMA at the fast end.
    from dataclasses import replace

    from gpuplan.perf.links import NetworkSpec

    def notes(spec: NetworkSpec) -> tuple[str, ...]:
        link = spec.link(A100, 32)
        return run_estimate(replace(_request(), link=link)).notes

    for rate in (400, 100):
        said = [n for n in notes(NetworkSpec(gbit_s=float(rate))) if "--network-kind" in n]
        assert said == [
            f"network {rate} Gbit/s of unstated kind: taken as tcp at the point, the conservative bound, "
            "and as rdma at the same rate at the range's fast end; --network-kind rdma if it is EFA, "
            "InfiniBand or RoCE, --network-kind tcp if it is plain Ethernet"
        ]
    assert not [n for n in notes(NetworkSpec(gbit_s=400.0, kind="tcp")) if "--network-kind" in n]


def test_a_network_rate_without_its_kind_is_tcp_at_the_point_and_spans_both_kinds() -> None:
    # was: a stated 400 Gbit/s of unstated kind was costed over RDMA at the point (its best case);
    # now at any rate the point is TCP (the conservative bound, as plan ranks such an offer), the
    # slow end the same, and the fast end the same rate over RDMA.
    from dataclasses import replace

    from gpuplan.perf.links import NetworkSpec

    def step(spec: NetworkSpec) -> tuple[float, float, float]:
        e = run_estimate(replace(_request(), link=spec.link(A100, 32)))
        return e.step_time_s_low, e.step_time_s, e.step_time_s_high

    for rate in (400.0, 100.0):
        unsaid = step(NetworkSpec(gbit_s=rate))
        tcp, rdma = step(NetworkSpec(gbit_s=rate, kind="tcp")), step(NetworkSpec(gbit_s=rate, kind="rdma"))
        assert tcp[1] > rdma[1]
        assert unsaid[1] == tcp[1]
        assert unsaid[0] == pytest.approx(rdma[0]) and unsaid[2] == pytest.approx(tcp[2])


def test_a_changed_job_size_keeps_an_unsaid_network_kind_unsaid() -> None:
    # was: advice on more GPUs rebuilt the link with the kind taken at the point as if stated, so
    # the advised configuration's range lost its RDMA fast end and its note.
    from dataclasses import replace

    from gpuplan.perf.advice_base import _link_for
    from gpuplan.perf.links import NetworkSpec

    request = replace(_request(), link=NetworkSpec(gbit_s=400.0).link(A100, 32))
    more = _link_for(request, A100, 64)
    assert more is not None and more.network_kind_assumed and more.network_kind == "tcp"
    assert more.fast_end().network_kind == "rdma"
    said = _link_for(replace(_request(), link=NetworkSpec(gbit_s=400.0, kind="tcp").link(A100, 32)), A100, 64)
    assert said is not None and not said.network_kind_assumed
