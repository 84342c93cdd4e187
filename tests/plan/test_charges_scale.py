"""Every charge scales with what is really rented: each node's dataset copy (or one, fanned out),
a disk per node, licences and the set-up per instance — each with its multiplier."""

from __future__ import annotations

import pytest
from plan_helpers import aws_costs, offer

from gpuplan.catalog.model import FRAMEWORK_LICENCE
from gpuplan.plan import (
    Constraints,
    CostFacts,
    EstimateKey,
    EstimateRow,
    JobFacts,
    OfferTable,
    Option,
    plan_offers,
)
from gpuplan.plan.input_types import RegionCosts
from gpuplan.report.plan import option_json
from gpuplan.workload import Workload


def _seven_hours(key: EstimateKey) -> EstimateRow:
    """7 h on any one instance, 1 h on seven: perfect scaling, so node counts are easy to read."""
    t = 7.0 / key.nodes
    return EstimateRow(fits=True, job_time_h=t, job_time_h_low=t, job_time_h_high=t, peak_memory_gib=10.0)


def _on_seven_nodes(job: JobFacts, licence: float = 0.0) -> Option:
    # One 8-GPU instance at $10/h; a 1.6-h deadline (1 h of work + the set-up) needs all seven nodes.
    costs = RegionCosts(**{**aws_costs().__dict__, "licence_usd_per_instance_hour": licence})
    plan = plan_offers(
        OfferTable.from_rows([offer(price_usd=10.0, billing_granularity_s=1.0, min_billing_s=0.0)]),
        CostFacts([costs]),
        job,
        _seven_hours,
        Constraints(deadline_h=1.6, max_nodes=7, max_gpus=56),
    )
    assert plan.recommended.nodes == 7
    return plan.recommended


DATA = dict(dataset_gb=150.0, checkpoint_gb=0.0, results_gb=0.0, data_location=("gcp", "us-central1"))


def _gcp() -> RegionCosts:
    # GCP's internet egress at a flat $0.12/GB for the test (its first tier), the dataset's source.
    from gpuplan.plan import UsdTransferTier

    tiers = (UsdTransferTier(upto_gb=float("inf"), usd_per_gb=0.12),)
    return RegionCosts(provider="gcp", region="us-central1", internet_egress=tiers)


def _plan_with(job: JobFacts) -> Option:
    plan = plan_offers(
        OfferTable.from_rows([offer(price_usd=10.0, billing_granularity_s=1.0, min_billing_s=0.0)]),
        CostFacts([aws_costs(), _gcp()]),
        job,
        _seven_hours,
        Constraints(deadline_h=1.1, max_nodes=7, max_gpus=56),
    )
    return plan.recommended


def _item(o: Option, component: str):  # type: ignore[no-untyped-def]
    return next(i for i in o.cost_breakdown.items if i.component == component)


def test_each_node_pays_for_its_own_copy_of_the_dataset_by_default() -> None:
    # 150 GB leave GCP at $0.12: $18.00 a copy; seven nodes download seven copies: $126.00.
    o = _plan_with(JobFacts(**DATA))  # type: ignore[arg-type]
    item = _item(o, "egress_in")
    assert item.multiplier == 7 and item.per == "copy"
    assert item.cost_usd == pytest.approx(7 * 18.0)
    assert o.cost_breakdown.egress_usd == pytest.approx(126.0)


def test_fan_out_pays_one_copy_into_the_region() -> None:
    o = _plan_with(JobFacts(**DATA, data_transfer="fan_out"))  # type: ignore[arg-type]
    item = _item(o, "egress_in")
    assert item.multiplier == 1 and item.cost_usd == pytest.approx(18.0)


def test_one_shared_bucket_is_one_copy_and_one_bucket() -> None:
    o = _plan_with(JobFacts(**DATA, storage_kind="object"))  # type: ignore[arg-type]
    assert _item(o, "egress_in").multiplier == 1
    # the bucket once, by its 150 GB; and each of the seven instances still boots with a disk of its
    # own, SkyPilot's default 256 GB as deploy asks for it (was: the bucket alone, no disk priced)
    disks, bucket = (i for i in o.cost_breakdown.items if i.component == "storage")
    assert (bucket.multiplier, bucket.per) == (1, "bucket")
    assert (disks.multiplier, disks.per) == (7, "disk")
    hours = o.job_time_h
    assert bucket.cost_usd == pytest.approx(150 * 0.023 / 730 * hours)
    assert disks.cost_usd == pytest.approx(7 * 256 * 0.08 / 730 * hours)
    assert o.cost_breakdown.storage_usd == pytest.approx(bucket.cost_usd + disks.cost_usd)


def test_disks_licences_set_up_and_compute_are_paid_per_instance() -> None:
    # Set-up 0.5 h on each of seven instances at $10/h: $35.00, inside compute (7 × (1 + 0.5) × 10).
    job = JobFacts(dataset_gb=100.0, checkpoint_gb=0.0, results_gb=0.0, setup_h=0.5)
    o = _on_seven_nodes(job, licence=0.5)
    compute, setup = _item(o, "compute"), _item(o, "setup")
    assert (compute.multiplier, setup.multiplier, setup.included_in) == (7, 7, "compute")
    assert compute.cost_usd == pytest.approx(7 * 1.5 * 10.0)
    assert setup.cost_usd == pytest.approx(7 * 0.5 * 10.0)
    # 100 GB on each of the seven nodes' disks, launched (and priced) as 256 GB (100 × 1.15 + 64 =
    # 179 GB, below the default disk), for 1.5 h at $0.08/GB-month (730 h); was the 100 GB alone.
    storage = _item(o, "storage")
    assert (storage.multiplier, storage.per) == (7, "disk")
    assert storage.cost_usd == pytest.approx(7 * 256 * 0.08 / 730 * 1.5)
    licences = _item(o, "licences")
    assert licences.multiplier == 7 and licences.cost_usd == pytest.approx(7 * 1.5 * 0.5)
    # The items that add up (not the set-up, part of compute) are the total.
    assert sum(i.cost_usd for i in o.cost_breakdown.items if i.included_in is None) == pytest.approx(
        o.total_cost_usd
    )


def test_the_json_carries_every_multiplier() -> None:
    o = _plan_with(JobFacts(**DATA))  # type: ignore[arg-type]
    doc = option_json(o).model_dump(mode="json")
    items = {i["component"]: (i["multiplier"], i["per"]) for i in doc["cost_breakdown"]["items"]}
    assert items["compute"] == (7, "instance") and items["egress_in"] == (7, "copy")
    assert items["storage"] == (7, "disk") and items["egress_out"] == (1, "copy")


def test_the_workload_chooses_how_the_dataset_reaches_the_nodes() -> None:
    base = {"name": "w", "model": {"preset": "resnet50"}, "inputs": {"batch_size": 8, "image_size": 224}}
    assert Workload.model_validate({**base, "data": {"samples": 10}}).data.transfer == "per_node"  # type: ignore[union-attr]
    fan = Workload.model_validate({**base, "data": {"samples": 10, "transfer": "fan-out"}})
    assert fan.data is not None and fan.data.transfer == "fan_out"


def _recommended_in(costs: RegionCosts, job: JobFacts) -> Option:
    """The recommended option of one $10/h 8-GPU instance in ``costs``' region, a 1.6-h deadline."""
    return plan_offers(
        OfferTable.from_rows([offer(price_usd=10.0, billing_granularity_s=1.0, min_billing_s=0.0)]),
        CostFacts([costs]),
        job,
        _seven_hours,
        Constraints(deadline_h=1.6, max_nodes=7, max_gpus=56),
    ).recommended


def test_a_licence_fee_the_catalog_does_not_know_is_unknown_not_zero() -> None:
    from gpuplan.report.plan import option_json
    from gpuplan.report.plan_view import breakdown_words

    job = JobFacts(**DATA)  # type: ignore[arg-type]
    costs = RegionCosts(**{**aws_costs().__dict__, "licence_unknown": (FRAMEWORK_LICENCE,)})
    o = _recommended_in(costs, job)
    assert o.cost_breakdown.licence_unknown == (FRAMEWORK_LICENCE,)
    assert f"licences unknown ({o.nodes} instances)" in breakdown_words(o)
    doc = option_json(o).cost_breakdown
    assert doc.licence_usd is None and doc.licence_unknown == [FRAMEWORK_LICENCE]
    assert next(i for i in doc.items if i.component == "licences").cost_usd is None
    # A known part stays beside the unknown one.
    o = _recommended_in(RegionCosts(**{**costs.__dict__, "licence_usd_per_instance_hour": 0.5}), job)
    assert o.cost_breakdown.licence_usd > 0
    amount = f"${o.cost_breakdown.licence_usd:.2f}"
    assert f"licences {amount} + unknown ({o.nodes} instances)" in breakdown_words(o)
