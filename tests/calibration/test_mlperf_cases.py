"""MLPerf Training BERT rows: each submitter's run mapped to the stack its log printed, and fitted."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from gpuplan.calibration.cases import CalibrationCase, load_cases, predict
from gpuplan.calibration.mlperf_cases import mlperf_training_case
from gpuplan.calibration.published import MLPERF_TRAINING, publisher_group
from gpuplan.perf.calibration import load_calibration
from gpuplan.profile.model import Profile

PROFILES = Path(__file__).parent / "fixtures" / "profiles"


def _mlperf_cases() -> list[CalibrationCase]:
    cases, _ = load_cases()
    return [c for c in cases if "MLPerf Training" in c.label]


def test_mlperf_bert_rows_come_from_many_submitters_and_are_fitted() -> None:
    cases = _mlperf_cases()
    assert len(cases) == 23 and all(c.used_in_fit for c in cases)
    # One source and one stack (NVIDIA's implementation, published by MLCommons): one group of
    # leave-one-publisher-out; the submitter stays in the label.
    assert {c.publisher for c in cases} == {MLPERF_TRAINING}
    submitters = Counter(c.label.split("MLPerf Training v")[1].split()[1] for c in cases)
    assert len(submitters) == 8, submitters
    assert {c.architecture for c in cases} == {"Ada Lovelace", "Ampere", "Hopper"}


def test_a_packed_hopper_run_is_its_logged_stack() -> None:
    # Dell 4× H100 (v4.0): global batch 576 sequences = 4 GPUs × 72 packed rows × 2 sequences per
    # row, traced as 2 sequences of 256 tokens; the log's use_transformer_engine2 → fp8 GEMMs, its
    # use_cuda_graph → CUDA graphs, dense_seq_output → 38 masked positions scored per sequence.
    (h100,) = [c for c in _mlperf_cases() if "Dell XE8640" in c.label]
    assert h100.workload["inputs"] == {"batch_size": 144, "seq_len": 256, "masked_tokens": 38}
    assert h100.workload["precision"] == "fp8" and h100.workload["cuda_graphs"] is True
    assert h100.workload["stack"]["fused_kernels"] == ["dense-activation", "dropout-add-norm"]
    assert h100.parallelism == "zero1" and h100.gpus_per_node == 4


def test_an_unpadded_ada_run_has_no_fp8_and_no_cuda_graphs() -> None:
    (l40s,) = [c for c in _mlperf_cases() if "R760xax4L40S" in c.label]
    assert l40s.workload["inputs"] == {"batch_size": 44, "seq_len": 256, "masked_tokens": 38}
    assert l40s.workload["precision"] == "amp-fp16" and l40s.workload["cuda_graphs"] is False
    assert "unpadded" in l40s.why and "fp8" not in l40s.why


def test_a_run_that_accumulates_gradients_is_traced_per_micro_batch() -> None:
    # xFusion 6× L4 (v3.1): train_batch_size=20 and gradient_accumulation_steps 2 in its log,
    # global batch 240 = 6 GPUs × 20 × 2: two micro-batches of 20 sequences per optimizer step, not
    # one of 40 (a 24 GB L4 ran 20 at a time).
    (l4,) = [c for c in _mlperf_cases() if "2288H_V7x6xL4" in c.label]
    assert l4.workload["inputs"] == {"batch_size": 20, "seq_len": 256, "masked_tokens": 38}
    assert l4.grad_accum_steps == 2 and l4.workload["gradient_accumulation"] == 2
    # A run without accumulation keeps the workload it had (and so its cached trace).
    (l40s,) = [c for c in _mlperf_cases() if "R760xax4L40S" in c.label]
    assert l40s.grad_accum_steps == 1 and "gradient_accumulation" not in l40s.workload


def test_an_mlperf_training_row_other_than_bert_is_left_out_with_its_reason() -> None:
    case, why = mlperf_training_case({"preset": "resnet50"})
    assert case is None and "not mapped" in why


def test_the_tuned_stack_brings_the_hopper_runs_into_the_band() -> None:
    # Traced as stock steps these runs came out 30–40 % slow; with the stack their logs print
    # (fused kernels, CUDA graphs, fp8, the MLM head on masked positions) and the fitted fp8 factor,
    # the Hopper SXM runs are predicted within the calibration's 80 % band.
    cal = load_calibration()
    band = cal.time_band
    for case in _mlperf_cases():
        if case.gpu not in ("H100-SXM", "H200-SXM"):
            continue
        prof = Profile.from_json((PROFILES / case.profile_file).read_text(encoding="utf-8"))
        ratio = predict(case, prof, cal) / case.published
        assert 1 / band < ratio < band, case.label


def test_only_the_mlperf_training_submitters_are_grouped() -> None:
    assert publisher_group("MLPerf Training: Dell") == MLPERF_TRAINING
    assert publisher_group("NVIDIA DeepLearningExamples") == "NVIDIA DeepLearningExamples"
    assert publisher_group("MLPerf Inference: NVIDIA") == "MLPerf Inference: NVIDIA"


def test_the_evaluations_a_log_marks_are_taken_out_of_the_timed_run() -> None:
    # run_pretraining.py's final tracked_stats divides the samples by the whole run, evaluations
    # included. Dell XE8640 (v4.0): 15 evaluations, 41.4 s of the 567.3 s between run_start and
    # run_stop (eval_start/eval_stop in its result_0.txt): the training steps are 92.7 % of it.
    cases = _mlperf_cases()
    (dell,) = [c for c in cases if "Dell XE8640" in c.label]
    assert dell.training_share == pytest.approx(1 - 41.4 / 567.3)
    # The v3.0 logs, Azure's v3.1 one and three of xFusion's v3.1 ones mark no evaluations: their
    # share is not known.
    unmarked = [c for c in cases if c.training_share == 1.0]
    unmarked_xfusion = ("G5500V7x10xL40", "G5500V7x8L40", "G5500V7x8xL40S")
    assert len(unmarked) == 10
    assert all(
        "v3.0" in c.label or "Azure" in c.label or any(f"xFusion {s})" in c.label for s in unmarked_xfusion)
        for c in unmarked
    )
    assert all(0.92 < c.training_share < 0.99 for c in cases if c not in unmarked)
    # The model's throughput is of training steps: compared, it is scaled by the share.
    cal = load_calibration()
    prof = Profile.from_json((PROFILES / dell.profile_file).read_text(encoding="utf-8"))
    whole = predict(replace(dell, training_share=1.0), prof, cal)
    assert predict(dell, prof, cal) == pytest.approx(whole * dell.training_share)
