"""Candidates a tensor × pipeline split cannot run on are left out, counted and said in the plan."""

from __future__ import annotations

import pytest
from plan_helpers import aws_costs, offer, toy_estimator

from gpuplan.plan import Constraints, CostFacts, EstimateKey, EstimateRow, JobFacts, OfferTable, plan_offers
from gpuplan.plan.constraints import Reason

SPLIT_JOB = JobFacts(
    dataset_gb=200,
    checkpoint_gb=5,
    data_location=("aws", "us-east-1"),
    tensor_parallel=4,
    pipeline_parallel=2,
)
ROWS = [
    offer(),  # 8 GPUs per node
    offer(instance_type="p4-half", gpu_count=4, price_usd=11.0),
    offer(instance_type="a2", gpu_count=1, price_usd=3.67),
]


def _plan(job: JobFacts, asked: list[EstimateKey]):  # type: ignore[no-untyped-def]
    toy = toy_estimator()

    def estimate(key: EstimateKey) -> EstimateRow:
        asked.append(key)
        return toy(key)  # type: ignore[operator]

    return plan_offers(OfferTable.from_rows(ROWS), CostFacts([aws_costs()]), job, estimate, Constraints())


def test_split_misfits_are_counted_by_reason_and_never_estimated() -> None:
    # Up to 8 nodes each (DEFAULT_MAX_NODES); tp 4 × pp 2 = 8 GPUs per replica:
    #   8-GPU instance: 8, 16, … 64 GPUs, all multiples of 8                  -> 0 left out
    #   4-GPU instance: 4, 8, … 32 GPUs; 1, 3, 5, 7 nodes are not multiples   -> 4 left out
    #   1-GPU instance: 1 … 8 GPUs; 7 counts are not multiples, and 8 GPUs
    #   on 1-GPU nodes would put the tensor-parallel group across nodes       -> 7 + 1 left out
    asked: list[EstimateKey] = []
    plan = _plan(SPLIT_JOB, asked)
    assert plan.excluded[Reason.MODEL_SPLIT.value] == 12
    assert all(k.gpu_count % 8 == 0 and k.gpus_per_node >= 4 for k in asked)
    note = next(n for n in plan.notes if n.startswith("tensor_parallel 4 × pipeline_parallel 2"))
    assert "12 candidates left out (11 whose GPU count is not a multiple of 8, 1 on instances" in note
    assert "fewer than 4 GPUs" in note


def test_no_split_no_note_and_nothing_left_out() -> None:
    plan = _plan(JobFacts(dataset_gb=200, checkpoint_gb=5, data_location=("aws", "us-east-1")), [])
    assert Reason.MODEL_SPLIT.value not in plan.excluded
    assert not any(n.startswith("tensor_parallel") for n in plan.notes)


def test_a_split_no_offer_can_hold_is_named_in_the_infeasible_message() -> None:
    from gpuplan.plan import PlanInfeasibleError

    job = JobFacts(tensor_parallel=16)  # no instance has 16 GPUs: no count of them runs it
    with pytest.raises(
        PlanInfeasibleError,
        match=r"not splitting the model so .*tensor_parallel 16 is more GPUs than any instance in the "
        r"catalog joins \(8\): use at most 8$",
    ):
        _plan(job, [])
