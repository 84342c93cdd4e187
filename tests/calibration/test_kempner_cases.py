"""KempnerForge H200 rows: what the publisher's scripts and code ran, on the board its nodes have."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplan.calibration.cases import CalibrationCase, case_request, load_cases
from gpuplan.perf.estimate import run_estimate
from gpuplan.perf.links import all_gather_s
from gpuplan.profile.model import Profile
from gpuplan.vocab import TensorParallelPlan

PROFILES = Path(__file__).parent / "fixtures" / "profiles"


def _kempner(label: str) -> CalibrationCase:
    (case,) = [c for c in load_cases()[0] if c.label.startswith(label)]
    return case


def test_the_single_gpu_and_fsdp_2_runs_are_the_scripts_two_by_four() -> None:
    # benchmarks/mfu_scaling/mfu_bench.sh runs experiments 01 and 02 at batch 2 × accumulation 4
    # (the report's batch table says 4 × 2 for every 7B run; the same tokens per step).
    for label in ("Llama-3 8B pretrain 1 GPU (KempnerForge)", "Llama-3 8B pretrain FSDP=2 (KempnerForge)"):
        case = _kempner(label)
        assert case.workload["inputs"]["batch_size"] == 2 and case.grad_accum_steps == 4
    tp2 = _kempner("Llama-3 8B pretrain TP=2 (KempnerForge)")
    assert tp2.workload["inputs"]["batch_size"] == 4 and tp2.grad_accum_steps == 2


def test_tensor_parallel_pairs_run_on_a_third_of_the_4_gpu_boards_nvlink() -> None:
    # Four H200 per node on one board, no NVSwitch: TP=2 talks over the pair's 6 of 18 links.
    tp2 = _kempner("Llama-3 8B pretrain TP=2 (KempnerForge)")
    assert tp2.nvlink_board == 4
    prof = Profile.from_json((PROFILES / tp2.profile_file).read_text(encoding="utf-8"))
    request = case_request(tp2, prof)
    link = request.link
    assert link is not None and link.nvlink_board == 4
    e = run_estimate(request)
    # KempnerForge's plan gathers q, k, v, gate and up's input each (kempnerforge/distributed/
    # tensor_parallel.py); compiled, the forward's five gathers of one tensor are one, backward
    # reduce-scatters the five input gradients each. Per layer, all-gathers and reduce-scatters of
    # b·s·h bf16: forward 2 + 2, the recomputed forward 2 + 2, backward 2 + 5 = 15; 32 layers,
    # 2 micro-batches: 2 · 32 · 15 of 4·4096·4096·2 B over the pair.
    assert request.model_parallel.plan is TensorParallelPlan.PER_PROJECTION and request.compiled
    one = all_gather_s(4 * 4096 * 4096 * 2, link, world=2)
    assert e.tensor_parallel_comm_s == pytest.approx(2 * 32 * 15 * one)
