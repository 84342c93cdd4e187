"""``precision: fp16-master`` in an estimate: gradients on the wire, model state per GPU under
ZeRO, and the exposed data-parallel communication of a Megatron-style run against ``amp-fp16``."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from perf_helpers import breakdown, make_profile, op

from gpuplan.hardware import get_gpu
from gpuplan.perf.estimate import estimate
from gpuplan.perf.links import Link, all_gather_s, all_reduce_s
from gpuplan.perf.roofline import PhaseTimes
from gpuplan.perf.stages.communication import comm_time
from gpuplan.perf.stages.memory import sharded_peak_bytes
from gpuplan.profile.model import ModelShape, Profile
from gpuplan.workload import Workload

A100 = get_gpu("A100-SXM4-80GB")
GIB = 2**30
N = 1_000_000_000
SHAPE = ModelShape(family="decoder", num_layers=10, hidden_size=4096, largest_layer_params=100_000_000)
#: fp16-master at its optimizer-step peak: fp16 weights (2 B), master + AdamW moments (12 B),
#: fp32 gradient copies (4 B).
MASTER_PEAK = breakdown(parameters=2.0 * N, optimizer_state=12.0 * N, temporaries=4.0 * N)

Traced = Callable[..., Profile]


def _phases(backward_s: float) -> PhaseTimes:
    return PhaseTimes(forward_s=backward_s / 2, backward_s=backward_s, optimizer_s=0.0, compute_bound_s=0.0)


def test_ddp_all_reduces_two_bytes_per_parameter_under_fp16_master() -> None:
    link = Link.for_gpus(A100, 16, network_gbit_s=400.0)
    amp = make_profile(ops=(op(flops=1.0),), precision="amp-fp16", shape=SHAPE)
    master = make_profile(ops=(op(flops=1.0),), precision="fp16-master", peak=MASTER_PEAK, shape=SHAPE)
    a = comm_time(amp, _phases(1.0), "ddp", link, world=16)
    m = comm_time(master, _phases(1.0), "ddp", link, world=16)
    # fp32 gradients of 1e9 parameters: 4e9 B on the ring; fp16: 2e9 B.
    assert a.total_s == pytest.approx(all_reduce_s(4e9, link, world=16))
    assert m.total_s == pytest.approx(all_reduce_s(2e9, link, world=16))


def test_zero3_reduces_fp16_gradients_and_gathers_fp16_weights_under_fp16_master() -> None:
    link = Link.for_gpus(A100, 16, network_gbit_s=400.0)
    amp = make_profile(ops=(op(flops=1.0),), precision="amp-fp16", shape=SHAPE)
    master = make_profile(ops=(op(flops=1.0),), precision="fp16-master", peak=MASTER_PEAK, shape=SHAPE)
    gather = all_gather_s(2e9, link)
    # Per step: two gathers of 2 B/param; the reduce-scatter moves 4 B/param under autocast
    # (reduce_dtype fp32), 2 B under fp16-master (DeepSpeed reduces in the model's fp16).
    assert comm_time(amp, _phases(1.0), "zero3", link, world=16).total_s == pytest.approx(
        2 * gather + all_gather_s(4e9, link)
    )
    assert comm_time(master, _phases(1.0), "zero3", link, world=16).total_s == pytest.approx(3 * gather)


def test_zero1_shards_the_fp32_master_copy_with_the_optimizer_state() -> None:
    # 8 GPUs: the 12 B/param of master + moments and the 4 B/param of fp32 gradient copies are
    # sharded (1/8 each: 2 B/param), the fp16 weights (2 B) stay whole: 4 B/param of the 18.
    per_gpu = sharded_peak_bytes(
        MASTER_PEAK, parallelism="zero1", world=8, params=N, largest_layer_params=None
    )
    assert per_gpu == pytest.approx(2.0 * N + (12.0 + 4.0) * N / 8)


def _gpt2(precision: str) -> Workload:
    return Workload.from_dict(
        {
            "name": "gpt2-megatron-style",
            "model": {"preset": "gpt2"},
            "inputs": {"batch_size": 2, "seq_len": 128},
            "precision": precision,
            "optimizer": "adamw-fused",
        }
    )


def test_a_megatron_style_fp16_run_on_two_nodes_exposes_less_data_parallel_comm_than_amp(
    trace_once: Traced,
) -> None:
    # 2 nodes × 8 A100 on 100 Gbit/s per node, DDP: the gradient all-reduce (124M parameters:
    # 497 MB in fp32, 248 MB in fp16) outlasts the short backward of bs2 × 128, so halving its
    # bytes shortens what is exposed.
    link = Link.for_gpus(A100, 16, network_gbit_s=100.0)
    amp = estimate(trace_once(_gpt2("amp-fp16")), A100, count=16, parallelism="ddp", link=link)
    master = estimate(trace_once(_gpt2("fp16-master")), A100, count=16, parallelism="ddp", link=link)
    assert master.comm_total_s == pytest.approx(amp.comm_total_s / 2, rel=0.05)
    assert 0 < master.comm_exposed_s < 0.7 * amp.comm_exposed_s
    assert master.step_time_s < amp.step_time_s


#: bf16-master (Megatron-LM --bf16) at a forward-end peak: bf16 weights (2 B), the persistent fp32
#: main gradients (4 B), master + AdamW moments (12 B), and the activations.
BF16_MASTER_PEAK = breakdown(
    parameters=2.0 * N, gradients=4.0 * N, optimizer_state=12.0 * N, activations=10.0 * N
)


def test_bf16_master_reduces_its_fp32_main_gradients_four_bytes_a_parameter() -> None:
    # Megatron-LM forces accumulate_allreduce_grads_in_fp32 on for --bf16: 4 B/param on the wire,
    # though the weights are 2 B (a plain bf16 run reduces its 2-byte gradients).
    link = Link.for_gpus(A100, 16, network_gbit_s=400.0)
    plain_peak = breakdown(parameters=2.0 * N, gradients=2.0 * N, optimizer_state=4.0 * N)
    plain = make_profile(ops=(op(flops=1.0),), precision="bf16", peak=plain_peak, shape=SHAPE)
    master = make_profile(ops=(op(flops=1.0),), precision="bf16-master", peak=BF16_MASTER_PEAK, shape=SHAPE)
    assert plain.bytes_per_param == master.bytes_per_param == pytest.approx(2.0)
    assert comm_time(master, _phases(1.0), "ddp", link, world=16).total_s == pytest.approx(
        all_reduce_s(4e9, link, world=16)
    )
    assert comm_time(plain, _phases(1.0), "ddp", link, world=16).total_s == pytest.approx(
        all_reduce_s(2e9, link, world=16)
    )
    gather = all_gather_s(2e9, link)
    assert comm_time(master, _phases(1.0), "zero3", link, world=16).total_s == pytest.approx(
        2 * gather + all_gather_s(4e9, link)
    )


def test_bf16_master_under_ddp_adds_no_bucket_copy_and_zero1_shards_only_the_optimizer_state() -> None:
    # Megatron's DDP buckets are views of the main-gradient buffer: no extra gradient copy, unlike
    # PyTorch DDP's default. Its distributed optimizer (zero1) shards the 12 B of the optimizer
    # alone: 2 + 4 + 12/8 B/param on 8 GPUs (Megatron's "6 + 12/d"), and the activations of this peak.
    master = make_profile(ops=(op(flops=1.0),), precision="bf16-master", peak=BF16_MASTER_PEAK, shape=SHAPE)
    plain = make_profile(ops=(op(flops=1.0),), precision="fp16-master", peak=MASTER_PEAK, shape=SHAPE)
    assert any("DDP gradient buckets" in n for n in estimate(plain, A100, count=8, parallelism="ddp").notes)
    assert not any(
        "DDP gradient buckets" in n for n in estimate(master, A100, count=8, parallelism="ddp").notes
    )
    per_gpu = sharded_peak_bytes(
        BF16_MASTER_PEAK, parallelism="zero1", world=8, params=N, largest_layer_params=None
    )
    assert per_gpu == pytest.approx((2.0 + 4.0 + 12.0 / 8 + 10.0) * N)
