"""Tensor and pipeline parallelism (perf/stages/): per-GPU share, comm, bubble, errors."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from perf_helpers import GIB, breakdown, make_profile, op

from gpuplan.errors import EstimateError, WorkloadError
from gpuplan.hardware import get_gpu
from gpuplan.perf.calibration import Calibration
from gpuplan.perf.estimate import Estimate, EstimateRequest, run_estimate
from gpuplan.perf.links import Link, all_reduce_s
from gpuplan.perf.stages.communication import column_parallel_inputs, tensor_parallel_comm_s
from gpuplan.perf.stages.compute import pipeline_bubble_fraction
from gpuplan.perf.stages.layout import ModelParallel, data_parallel_link, local_profile
from gpuplan.perf.sweep import EstimateOutcome
from gpuplan.perf.workload_request import request_for
from gpuplan.profile.model import ModelShape, OpRecord, Profile
from gpuplan.report.estimate import estimate_json
from gpuplan.vocab import TensorParallelPlan
from gpuplan.workload import Workload

A100 = get_gpu("A100-SXM4-80GB")
CAL = Calibration(
    tensor_matmul_efficiency=0.5,
    tensor_conv_efficiency=0.5,
    vector_efficiency=0.8,
    bandwidth_efficiency=0.8,
    min_kernel_time_us=0.0,
)
#: 32 layers, 32 heads, h = 4096: a 7B-class decoder.
SHAPE = ModelShape(
    family="decoder",
    num_layers=32,
    hidden_size=4096,
    num_attention_heads=32,
    num_kv_heads=32,
    largest_layer_params=200_000_000,
)
#: One micro-batch: 100 TFLOP of matmuls (forward 1/3, backward 2/3) and 10 GB of elementwise bytes.
OPS = (
    op("forward", flops=100e12 / 3, count=320),
    op("backward", flops=200e12 / 3, count=640),
    op("forward", op_class="other", bytes_moved=10e9, count=1000),
)
PEAK = breakdown(parameters=4.0 * 7e9, gradients=4.0 * 7e9, optimizer_state=8.0 * 7e9, activations=20 * GIB)


def _profile() -> Profile:
    return make_profile(
        ops=OPS, peak=PEAK, params=7_000_000_000, shape=SHAPE, batch_size=1, seq_len=4096, precision="bf16"
    )


def _run(count: int, mp: ModelParallel, accum: int = 1) -> Estimate:
    return run_estimate(
        EstimateRequest(
            profile=_profile(),
            gpu=A100,
            count=count,
            model_parallel=mp,
            calibration=CAL,
            grad_accum_steps=accum,
        )
    )


def test_tensor_parallel_divides_weights_gradients_and_optimizer_state_by_tp() -> None:
    local = local_profile(_profile(), ModelParallel(tensor=4), microbatches=1)
    assert local.peak.parameters_bytes == pytest.approx(PEAK.parameters_bytes / 4)
    assert local.peak.optimizer_state_bytes == pytest.approx(PEAK.optimizer_state_bytes / 4)
    assert local.params == 7_000_000_000 // 4
    # Activations: Korthikanti's (10 + 24/t)/34 without sequence parallelism, 1/t with it.
    assert local.peak.activations_bytes == pytest.approx(20 * GIB * (10 + 24 / 4) / 34)
    sp = local_profile(_profile(), ModelParallel(tensor=4, sequence_parallel=True), microbatches=1)
    assert sp.peak.activations_bytes == pytest.approx(20 * GIB / 4)


def test_pipeline_first_stage_keeps_p_microbatches_so_activations_do_not_shrink_with_pp() -> None:
    # 4 stages of 8 layers, 8 micro-batches: 4 in flight × 1/4 of the layers = one whole micro-batch.
    local = local_profile(_profile(), ModelParallel(pipeline=4), microbatches=8)
    assert local.peak.parameters_bytes == pytest.approx(PEAK.parameters_bytes / 4)
    assert local.peak.activations_bytes == pytest.approx(20 * GIB)
    assert local.shape.num_layers == 8
    # Fewer micro-batches than stages: only m are ever in flight.
    two = local_profile(_profile(), ModelParallel(pipeline=4), microbatches=2)
    assert two.peak.activations_bytes == pytest.approx(20 * GIB * 2 / 4)


def test_tensor_parallel_splits_matmul_flops_and_keeps_the_call_count() -> None:
    local = local_profile(_profile(), ModelParallel(tensor=8), microbatches=1)
    fwd = next(o for o in local.ops if o.phase == "forward" and o.op_class == "matmul")
    assert fwd.flops == pytest.approx(100e12 / 3 / 8) and fwd.count == 320
    pp = local_profile(_profile(), ModelParallel(pipeline=4), microbatches=4)
    fwd = next(o for o in pp.ops if o.phase == "forward" and o.op_class == "matmul")
    assert fwd.flops == pytest.approx(100e12 / 3 / 4) and fwd.count == 80


def _elementwise_bytes(profile: Profile) -> float:
    return sum(o.bytes_moved for o in profile.ops if o.op_class == "other")


@pytest.mark.parametrize("attention", ["eager", "fused-softmax"])
def test_materialised_attention_scores_split_with_the_heads(attention: str) -> None:
    # Korthikanti et al. §4.2.1: s·b·h·(10 + 24/t + 5·a·s/(h·t)) of s·b·h·(34 + 5·a·s/h) per layer.
    # 32 heads, s = h = 4096: 5·a·s/h = 160, so TP=8 keeps (10 + 184/8)/194 = 33/194 of the
    # elementwise bytes, not the (10 + 24/8)/34 of a fused kernel (which keeps no scores).
    scored = replace(_profile(), attention=attention)
    local = local_profile(scored, ModelParallel(tensor=8), microbatches=1)
    assert _elementwise_bytes(local) == pytest.approx(10e9 * 33 / 194)
    assert local.peak.activations_bytes == pytest.approx(PEAK.activations_bytes * 33 / 194)
    fused = local_profile(replace(_profile(), attention="fused"), ModelParallel(tensor=8), microbatches=1)
    assert _elementwise_bytes(fused) == pytest.approx(10e9 * 13 / 34)
    # Sequence parallelism splits everything t ways, scores or not.
    sp = local_profile(scored, ModelParallel(tensor=8, sequence_parallel=True), microbatches=1)
    assert _elementwise_bytes(sp) == pytest.approx(10e9 / 8)
    # Without tensor parallelism nothing changes.
    assert local_profile(scored, ModelParallel(pipeline=2), microbatches=2).ops[2].bytes_moved == 10e9 / 2


def test_bubble_fraction_is_p_minus_1_over_m_plus_p_minus_1() -> None:
    assert pipeline_bubble_fraction(ModelParallel(pipeline=4), 12) == pytest.approx(3 / 15)
    assert pipeline_bubble_fraction(ModelParallel(pipeline=1), 12) == 0.0
    # Interleaving v chunks per GPU divides the idle stage times by v (SC21 §2.2.2).
    assert pipeline_bubble_fraction(ModelParallel(pipeline=4, virtual_stages=3), 12) == pytest.approx(1 / 13)


def test_pipeline_step_is_m_plus_p_minus_1_stage_times() -> None:
    # One node of 4 GPUs, PP=4, 12 micro-batches: the step is (12 + 3) stage times plus the sends;
    # the whole model on one GPU would take 12 micro-batch times, a stage 1/4 of one.
    single = _run(1, ModelParallel(), accum=12)
    piped = _run(4, ModelParallel(pipeline=4), accum=12)
    stage_s = single.compute_time_s / 12 / 4
    assert piped.compute_time_s == pytest.approx(15 * stage_s, rel=0.01)
    assert piped.pipeline_bubble_fraction == pytest.approx(3 / 15)
    assert piped.pipeline_bubble_s / piped.step_time_s == pytest.approx(3 / 15, rel=0.02)
    assert piped.data_parallel == 1 and piped.samples_per_step == 12


def test_tensor_parallel_all_reduces_are_exposed_four_per_layer() -> None:
    link = Link.for_gpus(A100, 8)
    mp = ModelParallel(tensor=8)
    # b·s·h·2 B = 1·4096·4096·2 = 33.5 MB per all-reduce; 2 forward + 2 backward per layer, 32 layers.
    one = all_reduce_s(4096 * 4096 * 2.0, link, world=8)
    assert tensor_parallel_comm_s(_profile(), mp, link) == pytest.approx(32 * 4 * one)
    # Full recompute runs the forward (and its two all-reduces) again in backward: 6 per layer.
    full = replace(_profile(), activation_checkpointing="full")
    assert tensor_parallel_comm_s(full, mp, link) == pytest.approx(32 * 6 * one)
    e = _run(8, mp)
    assert e.tensor_parallel_comm_s == pytest.approx(32 * 4 * one)
    assert e.comm_exposed_s >= e.tensor_parallel_comm_s
    assert e.data_parallel == 1 and e.tensor_parallel == 8


def _gemm(calls: int, n: int, k: int) -> OpRecord:
    """``calls`` forward linear layers ``(b·s × k) · (k × n)`` at b·s = 4096."""
    return replace(op("forward", count=calls), shapes=((calls, 1, 4096, n, k),))


#: A Llama block's forward GEMMs over 32 layers (h = 4096, GQA k/v 1024 wide, FFN 14336): q and o,
#: k and v, gate and up (inner dimension h), down (inner dimension 14336), and the LM head.
LLAMA_GEMMS = (
    _gemm(64, 4096, 4096),
    _gemm(64, 1024, 4096),
    _gemm(64, 14336, 4096),
    _gemm(32, 4096, 14336),
    _gemm(1, 128256, 4096),
)


def test_column_parallel_inputs_are_the_layers_h_wide_gemms_less_the_output_projection() -> None:
    llama = replace(_profile(), ops=LLAMA_GEMMS)
    # (64 + 64 + 64 + 1) // 32 − 1 = 5: q, k, v, gate, up.
    assert column_parallel_inputs(llama) == 5
    # GPT-2's fused QKV: c_attn, attention c_proj and c_fc have inner dimension h, the MLP's
    # c_proj 4h: 3 − 1 = 2, as the shared plan.
    gpt = (_gemm(32, 3 * 4096, 4096), _gemm(32, 4096, 4096), _gemm(32, 16384, 4096), _gemm(32, 4096, 16384))
    gpt_profile = replace(_profile(), ops=gpt)
    assert column_parallel_inputs(gpt_profile) == 2
    # No GEMM shapes traced: a Llama block's five, not the fewest.
    assert column_parallel_inputs(_profile()) == 5


def test_a_per_projection_plan_adds_a_gather_and_a_reduction_per_extra_projection() -> None:
    link = Link.for_gpus(A100, 8)
    prof = replace(_profile(), ops=LLAMA_GEMMS)
    one = all_reduce_s(4096 * 4096 * 2.0, link, world=8)  # b·s·h·2 B = 33.5 MB
    half = one / 2  # an all-gather or reduce-scatter of the same tensor
    shared = ModelParallel(tensor=8, sequence_parallel=True)
    per = replace(shared, plan=TensorParallelPlan.PER_PROJECTION)
    assert tensor_parallel_comm_s(prof, shared, link) == pytest.approx(32 * 4 * one)
    # Eager: forward 5 gathers + 2 reduce-scatters, backward 5 reduce-scatters + 2 gathers = 14 halves.
    assert tensor_parallel_comm_s(prof, per, link) == pytest.approx(32 * 14 * half)
    # Compiled: the five gathers of one tensor are one (CSE); backward's five reductions stay: 11.
    assert tensor_parallel_comm_s(prof, per, link, compiled=True) == pytest.approx(32 * 11 * half)
    # Full recompute runs the forward again: eager 21 halves, compiled 4 + 7 + 4 = 15.
    full = replace(prof, activation_checkpointing="full")
    assert tensor_parallel_comm_s(full, per, link) == pytest.approx(32 * 21 * half)
    assert tensor_parallel_comm_s(full, per, link, compiled=True) == pytest.approx(32 * 15 * half)
    # Without sequence parallelism: the forward is Megatron's, backward all-reduces 5 input gradients.
    plain = replace(per, sequence_parallel=False)
    assert tensor_parallel_comm_s(prof, plain, link) == pytest.approx(32 * (2 + 5) * one)
    # Inference runs the forward only: 5 + 2 eager.
    infer = replace(prof, task="infer")
    assert tensor_parallel_comm_s(infer, per, link) == pytest.approx(32 * 7 * half)
    assert tensor_parallel_comm_s(infer, shared, link) == pytest.approx(32 * 2 * one)


def test_the_workload_stacks_tensor_parallel_plan_reaches_the_estimate() -> None:
    w = Workload.from_dict(
        _workload(tensor_parallel=4, sequence_parallel=True, stack={"tensor_parallel_plan": "per-projection"})
    )
    req = request_for(w, _profile(), A100, count=4)
    assert req.model_parallel.plan is TensorParallelPlan.PER_PROJECTION
    shared = run_estimate(
        req.changed(
            calibration=CAL, model_parallel=replace(req.model_parallel, plan=TensorParallelPlan.SHARED_INPUT)
        )
    )
    per = run_estimate(req.changed(calibration=CAL))
    assert per.tensor_parallel_comm_s > shared.tensor_parallel_comm_s
    assert per.step_time_s > shared.step_time_s


def test_tensor_parallel_makes_the_step_faster_but_not_tp_times_faster() -> None:
    one, tp8 = _run(1, ModelParallel()), _run(8, ModelParallel(tensor=8))
    assert one.step_time_s / 8 < tp8.step_time_s < one.step_time_s / 4
    assert tp8.peak_memory_gib < one.peak_memory_gib / 3


def test_data_parallel_groups_share_the_nodes_network() -> None:
    link = Link.for_gpus(A100, 64, network_gbit_s=1600.0)
    # TP=8 fills a node: each DP group has one GPU per node and 1/8 of its 1600 Gbit/s.
    dp = data_parallel_link(link, ModelParallel(tensor=8), 8)
    assert (dp.nodes, dp.gpus_per_node, dp.network_gbit_s) == (8, 1, 200.0)
    # TP=2: four ranks of a group in each node, two groups per node share the NICs.
    dp2 = data_parallel_link(link, ModelParallel(tensor=2), 32)
    assert (dp2.nodes, dp2.gpus_per_node, dp2.network_gbit_s) == (8, 4, 800.0)


@pytest.mark.parametrize(
    ("count", "mp", "message"),
    [
        (8, ModelParallel(tensor=3), "does not divide 8 GPUs"),
        (6, ModelParallel(tensor=3), "does not divide the model's 32 attention heads; use one of 1, 2, 4"),
        (32, ModelParallel(tensor=16), "spans nodes of 8 GPUs"),
        (64, ModelParallel(pipeline=64), "more stages than the model's 32 layers"),
        (12, ModelParallel(tensor=4, pipeline=2), "4 × pipeline_parallel 2 = 8 does not divide 12 GPUs"),
        (8, ModelParallel(tensor=0), "tensor_parallel must be at least 1"),
    ],
)
def test_impossible_splits_are_refused_in_one_line(count: int, mp: ModelParallel, message: str) -> None:
    with pytest.raises(EstimateError, match=message) as info:
        _run(count, mp)
    assert "\n" not in str(info.value)


def test_model_parallelism_needs_a_known_transformer() -> None:
    cnn = make_profile(ops=OPS, shape=ModelShape(family="cnn"))
    with pytest.raises(EstimateError, match="layers and attention heads are known"):
        run_estimate(EstimateRequest(profile=cnn, gpu=A100, count=2, model_parallel=ModelParallel(tensor=2)))


def test_without_model_parallelism_the_estimate_is_unchanged() -> None:
    plain = run_estimate(EstimateRequest(profile=_profile(), gpu=A100, count=8, calibration=CAL))
    same = _run(8, ModelParallel())
    assert same.step_time_s == plain.step_time_s and same.peak_memory_gib == plain.peak_memory_gib
    assert same.pipeline_bubble_s == 0.0 and same.tensor_parallel_comm_s == 0.0


def _workload(**extra: object) -> dict[str, object]:
    return {
        "name": "tp",
        "model": {"preset": "llama-7b"},
        "inputs": {"batch_size": 1, "seq_len": 4096},
        "precision": "amp-bf16",
        **extra,
    }


def test_the_workload_carries_the_degrees_into_the_estimate_request() -> None:
    w = Workload.from_dict(
        _workload(tensor_parallel=4, pipeline_parallel=2, sequence_parallel=True, gradient_accumulation=8)
    )
    req = request_for(w, _profile(), A100, count=16)
    assert req.model_parallel == ModelParallel(tensor=4, pipeline=2, sequence_parallel=True)
    assert req.grad_accum_steps == 8
    e = run_estimate(req.changed(calibration=CAL))
    assert (e.tensor_parallel, e.pipeline_parallel, e.data_parallel) == (4, 2, 2)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"sequence_parallel": True}, "sequence_parallel: needs tensor_parallel of 2 or more"),
        ({"pipeline_virtual_stages": 2}, "pipeline_virtual_stages: needs pipeline_parallel of 2 or more"),
        ({"task": "infer", "pipeline_parallel": 2}, "modelled for training only"),
        ({"tensor_parallel": 0}, "tensor_parallel"),
    ],
)
def test_workload_refuses_inconsistent_degrees_in_one_line(extra: dict[str, object], message: str) -> None:
    with pytest.raises(WorkloadError, match=message) as info:
        Workload.from_dict(_workload(**extra))
    assert "\n" not in str(info.value).strip()


def test_the_estimate_document_reports_the_split() -> None:
    req = EstimateRequest(
        profile=_profile(),
        gpu=A100,
        count=8,
        model_parallel=ModelParallel(tensor=2, pipeline=2),
        calibration=CAL,
        grad_accum_steps=4,
    )
    est = run_estimate(req)
    outcome = EstimateOutcome(gpu=A100.id, gpu_count=8, estimate=est)
    doc = estimate_json(_profile(), [outcome], CAL, tensor_parallel=2, pipeline_parallel=2)
    row = doc.estimates[0]
    assert (row.tensor_parallel, row.pipeline_parallel, row.data_parallel) == (2, 2, 2)
    assert row.pipeline_bubble_fraction == pytest.approx(1 / 5)
    assert row.tensor_parallel_comm_s is not None and row.tensor_parallel_comm_s > 0
    assert doc.workload.tensor_parallel == 2


LLAMA70B_INFER = Path(__file__).resolve().parent / "fixtures" / "known" / "llama70b-infer-bf16.json"


@pytest.mark.parametrize(
    ("gpu", "count", "said"),
    [
        # 3 GPUs (one replica of the workload's split) had offered "1, 2": neither holds the weights
        # of a 70B model, and 8 was never named
        ("H100-SXM", 3, "use one of 1, 2, 4, 8: the weights alone (141.1 GB) need 2 or more H100-SXM"),
        # -n 6 had offered "1, 2, 4"
        ("H100-SXM", 6, "use one of 1, 2, 4, 8: the weights alone (141.1 GB) need 2 or more H100-SXM"),
        (
            "A100-SXM4-40GB",
            3,
            "use one of 1, 2, 4, 8: the weights alone (141.1 GB) need 4 or more A100-SXM4-40GB",
        ),
        # one B200 (180 GB) holds them: the degrees alone
        ("B200", 3, "use one of 1, 2, 4, 8$"),
    ],
)
def test_a_split_of_uneven_heads_names_every_degree_up_to_an_instance_and_which_holds_the_model(
    gpu: str, count: int, said: str
) -> None:
    # Llama-3.1-70B: 64 attention heads, 8 key/value heads; 141.1 GB of bf16 weights
    profile = Profile.from_json(LLAMA70B_INFER.read_text(encoding="utf-8"))
    request = EstimateRequest(
        profile=profile, gpu=get_gpu(gpu), count=count, model_parallel=ModelParallel(tensor=3)
    )
    with pytest.raises(
        EstimateError, match="tensor_parallel 3 does not divide the model's 64 attention heads; "
    ) as e:
        run_estimate(request)
    assert re.search(re.escape(said.rstrip("$")) + ("$" if said.endswith("$") else ""), str(e.value)), str(
        e.value
    )
