"""Hand-made offers, regional prices and a toy estimator for the planner's tests."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

from gpuplan.perf.calibration import Calibration
from gpuplan.plan import EstimateKey, EstimateRow, PlanOffer, RegionCosts, UsdTransferTier
from gpuplan.profile.model import MemoryBreakdown, ModelShape, OpRecord, Profile
from gpuplan.workload import Workload

#: A flat calibration for estimator tests: fixed efficiencies, no kernel floor, a ±10 % band.
CAL = Calibration(
    tensor_matmul_efficiency=0.7,
    tensor_conv_efficiency=0.5,
    vector_efficiency=0.8,
    bandwidth_efficiency=0.9,
    min_kernel_time_us=0.0,
    time_band=1.1,
)

#: GPU speed in "job-hours on one GPU" and memory per GPU, for the toy estimator.
GPU_HOURS = {"A100-SXM4-40GB": 8.0, "H100-SXM5-80GB": 4.0, "T4": 40.0, "A10G": 24.0}
GPU_MEM = {"A100-SXM4-40GB": 40.0, "H100-SXM5-80GB": 80.0, "T4": 16.0, "A10G": 24.0}


def offer(**kw: object) -> PlanOffer:
    base = PlanOffer(
        provider="aws",
        region="us-east-1",
        instance_type="p4d.24xlarge",
        gpu="A100-SXM4-40GB",
        gpu_count=8,
        gpu_memory_gib=40.0,
        pricing="on_demand",
        price_usd=21.96,
        country="US",
        interconnect="NVLink",
        network_gbps=400.0,
        billing_granularity_s=1.0,
        min_billing_s=60.0,
        as_of="2026-11-09",
        source="test",
    )
    return replace(base, **kw)  # type: ignore[arg-type]


def toy_estimator(peak_gib: float = 20.0, scaling: float = 0.9) -> object:
    """Job time = GPU_HOURS[gpu] / gpus, with ``scaling`` efficiency per doubling across nodes;
    fits when the per-GPU peak fits in the GPU's memory."""

    def estimate(key: EstimateKey) -> EstimateRow:
        fits = peak_gib <= GPU_MEM[key.gpu]
        t = GPU_HOURS[key.gpu] / key.gpu_count / (scaling ** math.log2(key.nodes) if key.nodes > 1 else 1.0)
        return EstimateRow(
            fits=fits,
            job_time_h=t if fits else math.nan,
            job_time_h_low=0.9 * t if fits else math.nan,
            job_time_h_high=1.2 * t if fits else math.nan,
            peak_memory_gib=peak_gib,
        )

    return estimate


AWS_TIERS = (
    UsdTransferTier(upto_gb=100.0, usd_per_gb=0.0),
    UsdTransferTier(upto_gb=10_240.0, usd_per_gb=0.09),
    UsdTransferTier(upto_gb=51_200.0, usd_per_gb=0.085),
    UsdTransferTier(upto_gb=153_600.0, usd_per_gb=0.07),
    UsdTransferTier(upto_gb=math.inf, usd_per_gb=0.05),
)


def aws_costs() -> RegionCosts:
    return RegionCosts(
        provider="aws",
        region="us-east-1",
        internet_egress=AWS_TIERS,
        inter_region_usd_per_gb=0.02,
        object_storage_usd_per_gb_month=0.023,
        block_storage_usd_per_gb_month=0.08,
    )


def ddp_profile(workload_name: str) -> Profile:
    """1e9 fp32-master parameters (a 4 GB gradient all-reduce) and ~3 TFLOP per micro-batch, named
    ``workload_name``."""
    ops = tuple(
        OpRecord(
            op="aten.mm", op_class="matmul", phase=ph, dtype="bfloat16", count=1, flops=f, bytes_moved=0.0
        )
        for ph, f in (("forward", 1e12), ("backward", 2e12))
    )
    return Profile(
        key="test",
        workload_name=workload_name,
        task="train",
        precision="amp-fp16",
        batch_size=256,
        seq_len=None,
        params=1_000_000_000,
        trainable_params=1_000_000_000,
        flops_per_step=3e12,
        forward_flops=1e12,
        ops=ops,
        peak=MemoryBreakdown(
            parameters_bytes=4e9,
            buffers_bytes=0.0,
            gradients_bytes=4e9,
            optimizer_state_bytes=4e9,
            activations_bytes=4e9,
            temporaries_bytes=0.0,
        ),
        shape=ModelShape(family="custom"),
    )


#: The example LLM service, and a traced 7B decoder's profile to plan it with (no trace in the test).
SERVICE = Path(__file__).resolve().parents[2] / "examples" / "llm-inference-service.yaml"
LLAMA7B_INFER = (
    Path(__file__).resolve().parents[1] / "perf" / "fixtures" / "known" / "llama7b-infer-bf16.json"
)


def service_workload(**serving: object) -> Workload:
    """The example LLM service with its ``serving:`` fields replaced (unvalidated, as a test sets them)."""
    from gpuplan.workload import load_workload

    w = load_workload(SERVICE)
    assert w.serving is not None
    return w.model_copy(update={"serving": w.serving.model_copy(update=serving)})


def llama7b_profile() -> Profile:
    return Profile.from_json(LLAMA7B_INFER.read_text(encoding="utf-8"))
