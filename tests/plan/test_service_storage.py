"""A service's disks: every instance holds the model's weights on a volume, priced at the region's
storage price (its conservative bound where unknown), whether or not the workload names a dataset,
at the size ``gpuplan deploy`` launches it with (``gpuplan.launch_disk``), not the weights' bytes."""

from __future__ import annotations

from dataclasses import replace

import pytest
from plan_helpers import aws_costs, offer

from gpuplan.plan import Constraints, CostFacts, EstimateKey, EstimateRow, JobFacts, OfferTable, plan_offers
from gpuplan.plan.input_types import RegionCosts
from gpuplan.units import HOURS_PER_MONTH

#: An 8B model in bf16 served for a month, no dataset: 16 GB of weights a replica.
SERVICE = JobFacts(task="infer", calendar_months=1.0, weights_gb=16.0, served_tokens_per_hour=(9.2e6, 4.6e6))
#: Its launch disk: 16 GB × 1.15 + 64 GB = 82.4 GB, below SkyPilot's default 256 GB, the floor.
DISK_GB = 256


def _month(key: EstimateKey) -> EstimateRow:
    h = HOURS_PER_MONTH
    return EstimateRow(fits=True, job_time_h=h, job_time_h_low=h, job_time_h_high=h, peak_memory_gib=20.0)


def _plan(rows, facts, job=SERVICE):  # type: ignore[no-untyped-def]
    return plan_offers(OfferTable.from_rows(rows), facts, job, _month, Constraints(max_gpus=8))


def test_a_service_without_a_dataset_pays_for_its_weights_volume() -> None:
    # was: storage $0.00 (1 disk): the weights were stored nowhere; then $1.28, the 16 GB of weights
    # alone. The 256 GB launch disk × $0.08/GB-month for the month and the 10-minute set-up billed:
    # 256 × 0.08 / 730 × (730 + 1/6).
    plan = _plan([offer()], CostFacts([aws_costs()]), replace(SERVICE, setup_h=1 / 6))
    o = plan.recommended
    assert o.nodes == 1
    hours = HOURS_PER_MONTH + 1 / 6
    assert o.cost_breakdown.storage_usd == pytest.approx(DISK_GB * 0.08 / HOURS_PER_MONTH * hours)
    assert any("16.0 GB of model weights" in a for a in o.assumptions)


def test_the_weights_line_names_the_disk_size_it_prices() -> None:
    # was "16.0 GB of model weights on each instance's disk, at $0.080/GB-month", as if the 16 GB
    # were priced, while the storage is the 256 GB launch disk's
    o = _plan([offer()], CostFacts([aws_costs()])).recommended
    assert (
        "storage: 16.0 GB of model weights on each instance's disk; the disk is priced at its launch "
        f"size, {DISK_GB} GB, at $0.080/GB-month"
    ) in o.assumptions


def test_each_instance_of_a_service_holds_its_own_copy_of_the_weights() -> None:
    # Two 8-GPU instances (one replica of 16 GPUs over both): a 256 GB launch disk each.
    job = replace(SERVICE, pipeline_parallel=16)
    rows = OfferTable.from_rows([offer()])
    plan = plan_offers(rows, CostFacts([aws_costs()]), job, _month, Constraints(max_gpus=16))
    o = plan.recommended
    assert o.nodes == 2
    assert o.cost_breakdown.storage_usd == pytest.approx(2 * DISK_GB * 0.08)
    item = next(i for i in o.cost_breakdown.items if i.component == "storage")
    assert item.multiplier == 2 and item.per == "disk"


def test_an_unknown_storage_price_of_a_service_is_its_conservative_bound() -> None:
    # The region knows no block storage price: the weights' launch disk is costed at the highest one
    # known (0.12 here, another region's), flagged as an unknown fact; the best case is the cheapest
    # (0.05).
    costs = replace(aws_costs(), block_storage_usd_per_gb_month=None)
    dear = RegionCosts(provider="aws", region="eu-west-1", block_storage_usd_per_gb_month=0.12)
    cheap = RegionCosts(provider="aws", region="us-east-2", block_storage_usd_per_gb_month=0.05)
    plan = _plan([offer()], CostFacts([costs, dear, cheap]))
    o = plan.recommended
    assert o.cost_breakdown.storage_usd == pytest.approx(DISK_GB * 0.12)
    assert "storage_price" in {u.fact for u in o.unknown_facts}
    assert o.best_case_total_cost_usd == pytest.approx(o.total_cost_usd - DISK_GB * (0.12 - 0.05))


def test_the_spare_instance_of_a_service_on_spot_has_its_weights_volume_too() -> None:
    # One instance serving, one spare: two 256 GB launch disks (16 GB of weights each) at
    # $0.08/GB-month for the month.
    plan = _plan([offer(pricing="spot", price_usd=6.0, interruption_band="<5%")], CostFacts([aws_costs()]))
    o = plan.recommended
    assert o.spot is not None and o.spot.service is not None and o.spot.service.spare_instances == 1
    assert o.cost_breakdown.storage_usd == pytest.approx(2 * DISK_GB * 0.08)
    item = next(i for i in o.cost_breakdown.items if i.component == "storage")
    assert item.multiplier == 2
