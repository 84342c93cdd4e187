"""A training plan says the recommended option's global batch (batch_size is per GPU), that options
on other GPU counts train with other ones, and how to hold it with gradient_accumulation."""

from __future__ import annotations

from pathlib import Path

from plan_helpers import GPU_HOURS, aws_costs, offer

from gpuplan.plan import Constraints, CostFacts, EstimateKey, EstimateRow, JobFacts, OfferTable, plan_offers
from gpuplan.plan.result import Plan

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _estimate(key: EstimateKey) -> EstimateRow:
    """GPU-hours over the GPUs, a tenth longer for each node past the first."""
    t = GPU_HOURS[key.gpu] / (key.gpus_per_node * key.nodes) * (1.0 + 0.1 * (key.nodes - 1))
    return EstimateRow(fits=True, job_time_h=t, job_time_h_low=0.9 * t, job_time_h_high=1.1 * t)


def _plan(job: JobFacts, deadline_h: float | None = 0.4) -> Plan:
    return plan_offers(
        OfferTable.from_rows([offer()]),
        CostFacts([aws_costs()]),
        job,
        _estimate,
        Constraints(deadline_h=deadline_h, max_nodes=8),
    )


def _batch_notes(plan: Plan) -> list[str]:
    return [n for n in plan.notes if n.startswith("global batch")]


def test_the_global_batch_of_the_recommended_option_and_the_others_are_said() -> None:
    job = JobFacts(dataset_gb=0, checkpoint_gb=0, batch_size=8, seq_len=2048, gradient_accumulation=1)
    plan = _plan(job)
    rec = plan.recommended
    assert rec.nodes == 4  # 0.325 h (0.358 h at the range's end): the fewest nodes within 0.4 h
    (note,) = _batch_notes(plan)
    # 8 per GPU × 32 GPUs × 1 = 256 sequences of 2,048 tokens = 524,288 tokens a step
    assert "8 per GPU × 32 GPUs × gradient_accumulation 1 = 256 samples per optimizer step" in note
    assert "(524,288 tokens)" in note
    # the Pareto front runs 5 to 8 nodes too: 40 GPUs train with 320 a step, 64 with 512
    assert "40 GPUs: 320" in note and "64 GPUs: 512" in note
    # how each count holds 256: no GPUs × gradient_accumulation product meets it on more GPUs; a
    # smaller per-GPU batch does (it fits where 8 did), or no whole split exists
    assert "keep batch_size × GPUs × gradient_accumulation = 256" in note
    assert "64 GPUs: batch_size 4 × gradient_accumulation 1" in note
    assert "24, 40, 48, 56 GPUs: none, 256 is not a multiple of any of them" in note  # said once


def test_fewer_gpus_hold_the_batch_with_accumulation_within_the_per_gpu_batch() -> None:
    from gpuplan.plan.notes import _hold

    # the Beijing team's 64 per GPU × 2 GPUs = 128: "GPUs × gradient_accumulation = 2" on 8 GPUs
    assert _hold(128, 8, 64) == "8 GPUs: batch_size 16 × gradient_accumulation 1"
    assert _hold(128, 1, 64) == "1 GPU: batch_size 64 × gradient_accumulation 2"
    # 64 a GPU on 2 GPUs where 48 was the batch: two micro-batches of 32, never one of 64
    assert _hold(128, 2, 48) == "2 GPUs: batch_size 32 × gradient_accumulation 2"
    assert _hold(128, 256, 64) == "256 GPUs: none, 128 is not a multiple of 256"


def test_a_service_or_inference_job_has_no_batch_note() -> None:
    assert _batch_notes(_plan(JobFacts(dataset_gb=0, checkpoint_gb=0, task="infer"))) == []


def test_the_workload_gives_the_planner_its_batch() -> None:
    from gpuplan.plan.build_inputs import job_facts_from
    from gpuplan.workload import Workload

    w = Workload.from_yaml(EXAMPLES / "hf-config" / "llama32-1b-finetune.yaml")
    job, _ = job_facts_from(w, None)
    assert (job.batch_size, job.seq_len, job.gradient_accumulation) == (4, 2048, 1)
