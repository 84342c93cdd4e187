"""The planner's estimator anchored on the workload's measured step (``gpuplan measure``): every
offer's GPU gets the measured step moved to it, and the plan says so; a CPU recording anchors
nothing and the plan says that too."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from gpuplan.perf.anchor import StepMeasurement
from gpuplan.perf.calibration import Calibration
from gpuplan.plan import EstimateKey
from gpuplan.plan.build_inputs import make_estimator
from gpuplan.profile.model import MemoryBreakdown, ModelShape, OpRecord, Profile
from gpuplan.workload import Workload

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CAL = Calibration(
    tensor_matmul_efficiency=0.5,
    tensor_conv_efficiency=0.5,
    vector_efficiency=1.0,
    bandwidth_efficiency=1.0,
    min_kernel_time_us=0.0,
    host_overhead_us=0.0,
    time_band=1.1,
)
KEY = "ab" * 16


def _profile() -> Profile:
    """31.2 TFLOP of bf16 GEMM per step: 0.2 s on an A100 at 50 % of its 312 TFLOP/s."""
    ops = tuple(
        OpRecord(
            op="aten.mm", op_class="matmul", phase=ph, dtype="bfloat16", count=1, flops=f, bytes_moved=0.0
        )
        for ph, f in (("forward", 10.4e12), ("backward", 20.8e12))
    )
    return Profile(
        key=KEY,
        workload_name="resnet50-imagenet",
        task="train",
        precision="amp-bf16",
        batch_size=256,
        seq_len=None,
        params=25_000_000,
        trainable_params=25_000_000,
        flops_per_step=31.2e12,
        forward_flops=10.4e12,
        ops=ops,
        peak=MemoryBreakdown(
            parameters_bytes=1e8,
            buffers_bytes=0.0,
            gradients_bytes=1e8,
            optimizer_state_bytes=2e8,
            activations_bytes=4e9,
            temporaries_bytes=0.0,
        ),
        shape=ModelShape(family="custom"),
    )


# The user's step on the A100 took 0.4 s, all of it GEMM: twice the model's 0.2 s.
MEASURED = StepMeasurement(
    workload_key=KEY,
    workload_name="resnet50-imagenet",
    task="train",
    precision="amp-bf16",
    batch_size=256,
    seq_len=None,
    device="cuda",
    device_name="NVIDIA A100-SXM4-80GB",
    gpu_id="A100-SXM4-80GB",
    measured_at="2026-12-01T10:00:00+00:00",
    step_time_s=0.4,
    step_samples_s=(0.399, 0.4, 0.4, 0.401, 0.4),
    kernel_time_s=(
        ("gemm", 0.4),
        ("attention", 0.0),
        ("memory", 0.0),
        ("communication", 0.0),
        ("other", 0.0),
    ),
)


def _key(gpu: str) -> EstimateKey:
    return EstimateKey(gpu=gpu, gpus_per_node=1, nodes=1, interconnect="", network_gbps=None)


@pytest.fixture
def workload() -> Workload:
    return Workload.from_yaml(EXAMPLES / "resnet50-imagenet.yaml")


def test_every_offer_gpu_is_anchored_on_the_measured_step_and_the_plan_says_so(workload: Workload) -> None:
    plain, plain_notes = make_estimator(workload, _profile(), CAL)
    anchored, notes = make_estimator(workload, _profile(), CAL, measured_steps=(MEASURED,))
    assert not any("gpuplan measure" in n for n in plain_notes)
    assert any("anchored on your measured step on A100-SXM4-80GB" in n and "Habitat" in n for n in notes)
    # On the measured GPU the step is the measured one; on an H100 the GEMM class moves by the
    # roofline's A100 → H100 ratio, so the anchored step stays twice the model's there too.
    a100, h100 = anchored(_key("A100-SXM4-80GB")), anchored(_key("H100-SXM"))
    assert a100.step_time_s == pytest.approx(0.4, rel=0.01)
    assert plain(_key("A100-SXM4-80GB")).step_time_s == pytest.approx(0.2, rel=0.01)
    assert h100.step_time_s == pytest.approx(2 * plain(_key("H100-SXM")).step_time_s, rel=0.02)
    assert any("transferred to H100-SXM" in n for n in h100.notes)


def test_a_cpu_recording_anchors_no_offer_and_the_plan_says_why(workload: Workload) -> None:
    cpu = replace(MEASURED, device="cpu", device_name="AMD EPYC", gpu_id=None, step_time_s=20.0)
    plain, _n = make_estimator(workload, _profile(), CAL)
    est, notes = make_estimator(workload, _profile(), CAL, measured_steps=(cpu,))
    assert any("is a CPU recording: GPU estimates are not anchored on it" in n for n in notes)
    assert est(_key("H100-SXM")).step_time_s == pytest.approx(plain(_key("H100-SXM")).step_time_s)
