"""An estimate anchored on a measured step (``perf/anchor.py``), with the arithmetic in view.

The calibration here is round (tensor cores at 50 % of peak, bandwidth at 100 %, no kernel floor,
no host time, no architecture factors), so that each class's time can be worked out by hand on the
datasheets: A100-SXM4-80GB bf16 312 TFLOP/s, 2,039 GB/s; H100-SXM bf16 989.5 TFLOP/s, 3,350 GB/s.
The measurements are built here for the arithmetic; the replay of a real recording is in
``tests/cli/test_measure_cli.py``.
"""

from __future__ import annotations

import math

import pytest
from perf_helpers import make_profile, op

from gpuplan.hardware import get_gpu
from gpuplan.perf import EstimateRequest, run_estimate
from gpuplan.perf.anchor import (
    OP_CLASSES,
    SAME_GPU_LOG_HALFWIDTH,
    TRANSFER_LOG_HALFWIDTH,
    StepMeasurement,
    choose_measurement,
    profiler_class,
)
from gpuplan.perf.calibration import Calibration
from gpuplan.profile.model import Profile

CAL = Calibration(
    tensor_matmul_efficiency=0.5,
    tensor_conv_efficiency=0.5,
    vector_efficiency=1.0,
    bandwidth_efficiency=1.0,
    min_kernel_time_us=0.0,
    host_overhead_us=0.0,
    time_log_halfwidth=0.25,
    seen_architectures=("Ampere", "Hopper"),
)
A100, H100 = (
    get_gpu("A100-SXM4-80GB"),
    get_gpu("H100-SXM"),
)


def _profile() -> Profile:
    # On the A100 at 50 %: 31.2 TFLOP / 156e12 = 0.2 s of GEMM (forward 0.0667, backward 0.1333);
    # memory-bound 2 × 2.039 GB / 2,039 GB/s = 2 ms (1 ms in forward, 1 ms in the optimizer).
    # Kernel calls: 12 in forward and backward (1 + 10 + 1), 10 in the optimizer.
    return make_profile(
        ops=(
            op("forward", flops=10.4e12),
            op("backward", flops=20.8e12),
            op("forward", "other", bytes_moved=2.039e9, count=10, name="aten.add"),
            op(
                "optimizer", "other", dtype="float32", bytes_moved=2.039e9, count=10, name="aten._foreach_add"
            ),
        )
    )


def _measured(profile: Profile, **kw: object) -> StepMeasurement:
    fields: dict[str, object] = {
        "workload_key": profile.key,
        "workload_name": "test",
        "task": "train",
        "precision": "amp-bf16",
        "batch_size": 8,
        "seq_len": None,
        "device": "cuda",
        "device_name": "NVIDIA A100-SXM4-80GB",
        "gpu_id": "A100-SXM4-80GB",
        "measured_at": "2026-12-01T10:00:00+00:00",
        # The user's code is slower than the model: GEMM 0.3 s (model 0.2), memory-bound 8 ms
        # (model 2 ms), and 50 ms of the step is the CPU (not covered by kernels): 0.358 s step.
        "step_time_s": 0.358,
        "step_samples_s": (0.357, 0.358, 0.358, 0.359, 0.358),
        "kernel_time_s": (("gemm", 0.3), ("attention", 0.0), ("memory", 0.008), ("communication", 0.0),
                          ("other", 0.0)),
    }  # fmt: skip
    fields.update(kw)
    return StepMeasurement(**fields)  # type: ignore[arg-type]


def _estimate(profile: Profile, gpu_id: str, *measured: StepMeasurement, count: int = 1):
    return run_estimate(
        EstimateRequest(
            profile=profile, gpu=get_gpu(gpu_id), count=count, calibration=CAL, measured_steps=measured
        )
    )


def test_on_the_measured_gpu_the_step_is_the_measured_one() -> None:
    p = _profile()
    est = _estimate(p, "A100-SXM4-80GB", _measured(p))
    # 0.3 (GEMM ×1.5) + 0.008 (memory ×4) + 0.05 (CPU) = 0.358 s: the measurement itself.
    assert est.step_time_s == pytest.approx(0.358, rel=1e-9)
    assert est.anchored is not None and not est.anchored.transferred
    # The range is the measured steps' own (floored at SAME_GPU_LOG_HALFWIDTH), not the model's ±0.25.
    assert est.step_time_s_high / est.step_time_s == pytest.approx(math.exp(SAME_GPU_LOG_HALFWIDTH))
    # The model alone says 0.2 + 0.002 = 0.202 s: the anchor replaced it.
    assert est.anchored.model_compute_s == pytest.approx(0.202, rel=1e-9)
    assert "anchored on your measured step" in est.notes[0]


def test_another_gpu_gets_each_class_moved_by_its_own_resource() -> None:
    p = _profile()
    est = _estimate(p, "H100-SXM", _measured(p))
    gemm = 0.3 * 312 / 989.5  # compute-bound: by (achieved) FLOP/s
    memory = 0.008 * 2039 / 3350  # bandwidth-bound: by bandwidth
    cpu = 0.05  # the CPU's time stays
    assert est.step_time_s == pytest.approx(gemm + memory + cpu, rel=1e-9)
    a = est.anchored
    assert a is not None and a.transferred and a.measured_on == "A100-SXM4-80GB"
    assert dict(a.hardware_ratio) == pytest.approx({"gemm": 312 / 989.5, "memory": 2039 / 3350})
    assert dict(a.class_s)["gemm"] == pytest.approx(gemm)
    # The transfer's own out-of-sample 80 % range, with the measured steps' spread: not narrower
    # than the model's held-out range (a moved step is no surer than the model, only closer to the
    # user's stack).
    half = math.log(est.step_time_s_high / est.step_time_s)
    assert half == pytest.approx(math.hypot(TRANSFER_LOG_HALFWIDTH, _measured(p).run_log_halfwidth))


def test_a_measured_cpu_issue_time_is_the_floor_on_a_faster_gpu() -> None:
    # The A100's step is GPU-bound (0.308 s of kernels in 0.358 s), and its CPU took 0.2 s to issue
    # it — hidden under the kernels there, the floor on the H100, whose kernels take 0.097 s.
    p = _profile()
    est = _estimate(p, "H100-SXM", _measured(p, issue_s=0.2))
    fs = 12 / 22  # forward/backward's share of the kernel calls carries that share of the CPU time
    fwd_bwd = 0.3 * 312 / 989.5 + 0.004 * 2039 / 3350 + 0.05 * fs
    optimizer = 0.004 * 2039 / 3350 + 0.05 * (1 - fs)
    assert est.step_time_s == pytest.approx(max(fwd_bwd, 0.2 * fs) + max(optimizer, 0.2 * (1 - fs)), rel=1e-9)
    assert est.step_time_s > 0.2
    # Without the issue time the model's (0 here) stands in: the step shrinks with the kernels.
    assert _estimate(p, "H100-SXM", _measured(p)).step_time_s < 0.16


def test_gradient_accumulation_repeats_the_micro_batch_not_the_optimizer() -> None:
    p = _profile()
    measured = _measured(p)
    one = _estimate(p, "A100-SXM4-80GB", measured)
    four = run_estimate(
        EstimateRequest(profile=p, gpu=A100, calibration=CAL, measured_steps=(measured,), grad_accum_steps=4)
    )
    # The optimizer, once per step: its 1 ms × 4 = 4 ms and the CPU's share by kernel calls,
    # 0.05 × 10/22; the rest of the measured 0.358 s repeats per micro-batch.
    assert one.phases.kernel_calls == 22
    optimizer = 0.004 + 0.05 * 10 / 22
    assert four.compute_time_s == pytest.approx(4 * (0.358 - optimizer) + optimizer, rel=1e-9)


def test_a_cpu_recording_never_anchors_a_gpu_estimate() -> None:
    p = _profile()
    cpu = _measured(p, device="cpu", gpu_id=None, device_name="AMD EPYC")
    est = _estimate(p, "H100-SXM", cpu)
    assert est.anchored is None
    assert any("CPU recording" in n for n in est.notes)
    assert est.step_time_s == pytest.approx(_estimate(p, "H100-SXM").step_time_s)


def test_a_recording_of_another_workload_is_ignored() -> None:
    p = _profile()
    other = _measured(p, workload_key="another")
    est = _estimate(p, "H100-SXM", other)
    assert est.anchored is None and not any("measured" in n for n in est.notes)


def test_the_same_gpu_recording_wins_then_the_newest() -> None:
    p = _profile()
    old_h100 = _measured(p, gpu_id="H100-SXM", measured_at="2026-01-01T00:00:00+00:00")
    new_a100 = _measured(p, measured_at="2026-06-01T00:00:00+00:00")
    assert choose_measurement([old_h100, new_a100], "H100-SXM") is old_h100
    assert choose_measurement([old_h100, new_a100], "L4") is new_a100
    assert choose_measurement([_measured(p, device="cpu", gpu_id=None)], "L4") is None


def test_data_parallel_adds_the_modelled_communication_to_the_anchored_compute() -> None:
    p = _profile()
    one = _estimate(p, "H100-SXM", _measured(p))
    eight = _estimate(p, "H100-SXM", _measured(p), count=8)
    assert eight.compute_time_s == pytest.approx(one.compute_time_s)
    assert eight.comm_total_s > 0 and eight.step_time_s >= one.step_time_s


@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("aten::addmm", "gemm"),
        ("aten::cudnn_convolution", "gemm"),
        ("aten::convolution_backward", "gemm"),
        ("aten::_scaled_dot_product_flash_attention", "attention"),
        ("aten::_efficient_attention_backward", "attention"),
        ("aten::add_", "memory"),
        ("aten::_foreach_mul_", "memory"),
        ("ncclDevKernel_AllReduce_Sum_f32_RING_LL", "communication"),
        ("c10d::allreduce_", "communication"),
        ("sm90_xmma_gemm_bf16bf16_bf16f32", "gemm"),
        ("flash_fwd_kernel", "attention"),
        ("Memset (Device)", "other"),
    ],
)
def test_profiler_events_fall_in_their_class(name: str, cls: str) -> None:
    assert profiler_class(name) == cls
    assert cls in OP_CLASSES


def test_cudnn_layout_transposes_are_measured_with_their_convolution() -> None:
    # The profiler gives aten::convolution's own kernels (the NCHW<->NHWC transposes included) its
    # self device time, so the trace's transpose records are costed in the same class: an anchor
    # that put them under memory would scale them by the elementwise ops' ratio and the convolutions
    # by a ratio that holds their time without their cost.
    from gpuplan.perf.anchor import class_times
    from gpuplan.profile.model import LAYOUT_TRANSPOSE_OP

    ops = (
        op("forward", "conv", dtype="float16", flops=1e12, name="aten.convolution"),
        op("forward", "other", dtype="float16", bytes_moved=2.039e9, name=LAYOUT_TRANSPOSE_OP),
        op("forward", "other", dtype="float16", bytes_moved=2.039e9, name="aten.relu"),
    )
    times = class_times(ops, A100, "amp-fp16", CAL)
    conv_s = 1e12 / (312e12 * 0.5)
    assert times["gemm"] == pytest.approx(conv_s + 1e-3)
    assert times["memory"] == pytest.approx(1e-3)


def test_the_profiler_and_the_tracer_agree_on_what_a_matmul_is() -> None:
    from gpuplan.profile.recorder import _MATMUL

    for packet in _MATMUL:
        assert profiler_class(f"aten::{packet.__name__}") == "gemm", packet


def test_the_anchored_range_is_called_narrower_only_where_it_is() -> None:
    from dataclasses import replace

    from gpuplan.perf.anchor import TRANSFER_LOG_HALFWIDTH
    from gpuplan.perf.sweep import EstimateOutcome
    from gpuplan.report.estimate import _anchor_line

    p = _profile()
    # A model whose own range (±0.16) is narrower than a transfer's (±0.17 and the steps' spread).
    cal = replace(CAL, time_log_halfwidth=0.16)
    assert TRANSFER_LOG_HALFWIDTH > 0.16

    def est(gpu_id: str):  # type: ignore[no-untyped-def]
        request = EstimateRequest(
            profile=p, gpu=get_gpu(gpu_id), calibration=cal, measured_steps=(_measured(p),)
        )
        return run_estimate(request)

    own, moved = est("A100-SXM4-80GB"), est("H100-SXM")
    assert own.anchored is not None and moved.anchored is not None
    # On the measured GPU the anchor's range is 0.05, narrower; moved to the H100 it is
    # hypot(TRANSFER_LOG_HALFWIDTH, the steps' spread) > 0.16: no narrower than the model's.
    assert own.anchored.model_log_halfwidth == moved.anchored.model_log_halfwidth == 0.16
    assert own.anchored.narrower is True and moved.anchored.narrower is False
    assert any("the model's own: ×/÷ 1.17" in n for n in moved.notes)  # e^0.16 = 1.174

    def line(*estimates: object) -> str:
        outcomes = [EstimateOutcome(gpu="x", gpu_count=1, estimate=e) for e in estimates]  # type: ignore[arg-type]
        text = _anchor_line(outcomes)
        assert text is not None
        return text.plain

    assert "with a narrower range" in line(own)
    assert "with a narrower range" not in line(own, moved)
    assert "not narrower than the model's" in line(own, moved)


def test_of_two_recordings_of_one_time_the_one_stored_last_wins() -> None:
    # was: the first stored, while `measure --from` said the second one was now anchored on
    p = _profile()
    first = _measured(p, gpu_id="H100-SXM", measured_at="2026-01-01T00:00:00+00:00")
    again = _measured(p, gpu_id="H100-SXM", measured_at="2026-01-01T00:00:00+00:00")
    assert choose_measurement([first, again], "H100-SXM") is again


# The memory of an anchored estimate (perf/anchor_memory.py). A recording on the A100 80 GB of
# 60 GiB allocated, 66 GiB reserved and 66.8 GiB in nvidia-smi: 0.8 GiB outside PyTorch's allocator.
_MEMORY = {"peak_allocated_gib": 60.0, "peak_reserved_gib": 66.0, "nvidia_smi_gib": 66.8}


def test_on_the_measured_gpu_the_memory_is_the_recordings() -> None:
    from gpuplan.perf.memory import HARD_FRAGMENTATION

    p = _profile()
    mem = _estimate(p, "A100-SXM4-80GB", _measured(p, **_MEMORY)).memory
    assert mem.measured_on == "A100-SXM4-80GB"
    assert (mem.peak_allocated_gib, mem.reserved_gib, mem.nvidia_smi_gib) == pytest.approx((60.0, 66.0, 66.8))
    # nothing moved on the GPU measured: the figure is the recording's, no band of its own
    assert mem.peak_memory_gib_low == mem.peak_memory_gib_high == pytest.approx(66.8)
    # what must fit: 60 × (1 + 0.00 / 0.02 / 0.05) + 0.8 measured outside the allocator
    assert mem.required_gib_low == pytest.approx(60.0 * (1 + HARD_FRAGMENTATION[0]) + 0.8)
    assert mem.required_gib == pytest.approx(60.0 * (1 + HARD_FRAGMENTATION[1]) + 0.8)
    assert mem.required_gib_high == pytest.approx(60.0 * (1 + HARD_FRAGMENTATION[2]) + 0.8)
    # the model alone (16 GB of state + 4 GiB of activations) says something else
    model = _estimate(p, "A100-SXM4-80GB").memory
    assert model.measured_on is None and model.nvidia_smi_gib < 30


def test_another_architecture_moves_only_the_cuda_context() -> None:
    from gpuplan.perf.memory import CONTEXT_GIB

    p = _profile()
    est = _estimate(p, "H100-SXM", _measured(p, **_MEMORY))
    mem = est.memory
    # the tensors and the allocator's cache as measured; the 0.8 GiB outside moved by the
    # contexts' difference: Hopper's point 0.50 − Ampere's 0.40 = +0.10, Hopper's range 0.40–1.20
    hopper, ampere = CONTEXT_GIB["Hopper"], CONTEXT_GIB["Ampere"][1]
    assert (mem.peak_allocated_gib, mem.reserved_gib) == pytest.approx((60.0, 66.0))
    assert mem.nvidia_smi_gib == pytest.approx(66.8 + hopper[1] - ampere)
    assert mem.peak_memory_gib_low == pytest.approx(66.8 + hopper[0] - ampere)
    assert mem.peak_memory_gib_high == pytest.approx(66.8 + hopper[2] - ampere)
    assert mem.measured_on == "A100-SXM4-80GB"
    # narrower than the model's band, which widens the allocation by the calibration's residuals
    model = _estimate(p, "H100-SXM").memory
    assert mem.required_gib_high - mem.required_gib_low < model.required_gib_high - model.required_gib_low
    assert any("memory as measured on A100-SXM4-80GB" in n and "+0.10 GiB" in n for n in est.notes)


def test_the_fit_verdict_reads_the_measured_memory() -> None:
    from gpuplan.vocab import MemoryVerdict

    p = _profile()
    # 70 GiB allocated on the 80 GB A100: 70 + 0.8 > the 40 GB A100's 39.4 usable, at the low end
    big = _measured(p, peak_allocated_gib=70.0, peak_reserved_gib=72.0, nvidia_smi_gib=72.8)
    assert _estimate(p, "A100-SXM4-40GB").memory_verdict is MemoryVerdict.FITS  # the model's ~19 GiB
    est = _estimate(p, "A100-SXM4-40GB", big)
    assert est.memory_verdict is MemoryVerdict.DOES_NOT_FIT and not est.fits
    assert _estimate(p, "A100-SXM4-80GB", big).memory_verdict is MemoryVerdict.FITS


def test_data_parallel_adds_the_modelled_buckets_and_nccl_to_the_measured_memory() -> None:
    from gpuplan.perf.memory import GIB

    p = _profile()
    one, two = (_estimate(p, "A100-SXM4-80GB", count=n).memory for n in (1, 2))
    added = two.peak_allocated_gib - one.peak_allocated_gib  # DDP's buckets: one gradient copy
    assert added == pytest.approx(p.trainable_params * p.bytes_per_param / GIB)
    mem = _estimate(p, "A100-SXM4-80GB", _measured(p, **_MEMORY), count=2).memory
    assert mem.peak_allocated_gib == pytest.approx(60.0 + added)
    assert mem.nccl_buffers_gib == two.nccl_buffers_gib > 0
    assert mem.nvidia_smi_gib == pytest.approx(66.0 + added * 1.10 + 0.8 + two.nccl_buffers_gib)


@pytest.mark.parametrize(
    ("parallelism", "count", "says"),
    [
        ("fsdp", 2, "this layout splits them over the GPUs"),
        ("ddp", 1, "no PyTorch memory figures"),
    ],
)
def test_memory_the_recording_cannot_give_stays_the_models_and_says_why(
    parallelism: str, count: int, says: str
) -> None:
    p = _profile()
    measured = _measured(p, **_MEMORY) if parallelism == "fsdp" else _measured(p)
    request = EstimateRequest(
        profile=p, gpu=A100, count=count, parallelism=parallelism, calibration=CAL, measured_steps=(measured,)
    )
    est = run_estimate(request)
    model = run_estimate(
        EstimateRequest(profile=p, gpu=A100, count=count, parallelism=parallelism, calibration=CAL)
    )
    assert est.anchored is not None  # the step is still anchored
    assert est.memory == model.memory and est.memory.measured_on is None
    assert any(n.startswith("memory is the model's") and says in n for n in est.notes)
