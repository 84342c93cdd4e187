"""FlagPerf's Megatron-core rows become the layouts their launch script runs."""

from __future__ import annotations

from gpuplan.calibration.case import CalibrationCase
from gpuplan.calibration.publisher_cases import v2_cases


def _flagperf() -> dict[str, CalibrationCase]:
    cases, _, _ = v2_cases()
    return {c.label: c for c in cases if "(FlagPerf Megatron-core)" in c.label}


def _one(fragment: str) -> CalibrationCase:
    (case,) = [c for label, c in _flagperf().items() if fragment in label]
    return case


def test_two_node_8b_row_is_tp2_by_dp8_with_64_micro_batches_over_3200_gbit() -> None:
    # Global batch 512 sequences, micro-batch 1, DP = 16 / (TP 2 × PP 1) = 8: 512 / 8 = 64.
    case = _one("8B pretrain (FlagPerf Megatron-core) train bs1×16gpu")
    assert (case.tensor_parallel, case.pipeline_parallel, case.gpus_per_node) == (2, 1, 8)
    assert case.grad_accum_steps == 64 and case.parallelism == "zero1" and case.sequence_parallel
    # 8 NICs × 400 Gbit/s per node (the per-GPU reading of "InfiniBand, 400Gb/s").
    assert case.network_gbit_s == 3200.0 and case.network_kind == "rdma"
    # Megatron's --bf16 runs the step in bf16 over fp32 main gradients and masters; no recompute.
    assert case.workload["precision"] == "bf16-master"
    assert case.workload["activation_checkpointing"] == "none"
    assert case.used_in_fit


def test_70b_row_runs_tp8_pp4_dp2_with_256_micro_batches() -> None:
    # 512 / (1 × DP 2) = 256 micro-batches: the 1F1B bubble is 3 / (256 + 3) of the pipeline.
    case = _one("70B")
    assert (case.tensor_parallel, case.pipeline_parallel, case.gpu_count) == (8, 4, 64)
    assert case.grad_accum_steps == 256 and case.virtual_stages == 1
    assert case.used_in_fit


def test_fp8_rows_are_fitted_and_the_55_node_row_compared_with_its_reason() -> None:
    # The FP8 rows share the fitted fp8 factor with MLPerf's and OLMo-core's fp8 runs.
    assert all(c.used_in_fit for label, c in _flagperf().items() if "FP8" in label)
    compared = [c for c in _flagperf().values() if not c.used_in_fit]
    wide = _one("55 nodes")
    assert compared == [wide]
    # fix_hp gbs=1760 at DP=220: 8 micro-batches; its run files are not in the repository.
    assert wide.grad_accum_steps == 8 and "not in the repository" in wide.why


def test_transformer_engines_fusions_are_the_stack() -> None:
    # TE's norm inside the next GEMM and Megatron-core's bias-SwiGLU fusion (the launch script).
    case = _one("8B pretrain (FlagPerf Megatron-core) train bs1×8gpu")
    assert case.workload["stack"]["fused_kernels"] == ["dense-activation", "dropout-add-norm"]
    assert case.publisher == "BAAI FlagPerf"


def test_megatrons_bf16_rows_run_bf16_master_and_claim_their_memory_the_fp8_rows_do_not() -> None:
    # --bf16: bf16 weights + fp32 main gradients + a DP-sharded fp32 master copy, which bf16-master
    # traces; TE's FP8 keeps FP8 weight copies besides, and fp8 is traced as amp-bf16.
    for label, c in _flagperf().items():
        fp8 = "FP8" in label
        assert c.workload["precision"] == ("fp8" if fp8 else "bf16-master"), label
        assert c.memory_as_run is not fp8, label
        assert ("FP8 weight copies" in c.memory_why) is fp8, label


def test_the_estimate_of_a_case_keeps_its_sequence_parallelism() -> None:
    # Megatron's --sequence-parallel (and KempnerForge's DTensor TP, whose run logs print
    # sequence_parallel=True) split the norms, dropouts and their activations t ways too.
    from pathlib import Path

    from gpuplan.calibration.cases import case_request
    from gpuplan.profile.model import Profile

    case = _one("70B")
    path = Path(__file__).parent / "fixtures" / "profiles" / case.profile_file
    request = case_request(case, Profile.from_json(path.read_text(encoding="utf-8")))
    assert request.model_parallel.sequence_parallel
    assert request.model_parallel.elementwise_share() == 1 / 8
