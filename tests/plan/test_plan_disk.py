"""A plan states what one node's disk holds as it prices it: ``gpuplan deploy`` sizes the launch
disk from it."""

from __future__ import annotations

from plan_helpers import aws_costs, offer

from gpuplan.plan import Constraints, CostFacts, EstimateKey, EstimateRow, JobFacts, OfferTable, plan_offers
from gpuplan.plan.result import Plan


def _estimate(key: EstimateKey) -> EstimateRow:
    return EstimateRow(fits=True, job_time_h=10.0, job_time_h_low=9.0, job_time_h_high=11.0)


def _plan(storage: str) -> Plan:
    job = JobFacts(
        dataset_gb=1200.0, checkpoint_gb=17.27, data_location=("aws", "us-east-1"), storage_kind=storage
    )
    return plan_offers(
        OfferTable.from_rows([offer(instance_type="p5en.48xlarge")]),
        CostFacts([aws_costs()]),
        job,
        _estimate,
        Constraints(max_nodes=1),
    )


def test_a_block_storage_plan_states_its_disk_per_node_and_the_document_carries_it() -> None:
    from gpuplan.report.plan import plan_json

    plan = _plan("block")
    # 1,200 GB of dataset + 2 checkpoints × 17.27 GB = 1,234.54 GB
    assert plan.disk_gb == 1234.54
    assert plan_json(plan, workload={"name": "w", "task": "train"}).disk_gb == 1234.54


def test_a_bucket_plan_states_no_disk() -> None:
    assert _plan("object").disk_gb is None
