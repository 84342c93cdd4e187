"""An image workload on an offer with too few vCPUs per GPU: flagged, and its time bounded by the CPUs."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from plan_helpers import CAL, aws_costs, offer

from gpuplan.plan import Constraints, CostFacts, EstimateKey, EstimateRow, JobFacts, OfferTable, plan_offers
from gpuplan.plan.build_inputs import make_estimator
from gpuplan.report.plan import plan_json
from gpuplan.workload import Workload
from stand_in_profiles import resnet50_profile

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_planner_bounds_an_image_job_by_each_offers_vcpus() -> None:
    workload = Workload.from_yaml(EXAMPLES / "resnet50-imagenet.yaml")
    est, notes = make_estimator(workload, resnet50_profile("test", activations_bytes=20e9), CAL)
    assert any(n.startswith("image job: each offer's images/s is bounded by its vCPUs") for n in notes)
    # a generation job decodes nothing: the note says how to say so
    assert any(n.endswith("sets stack: {input_pipeline: synthetic}") for n in notes)
    key = EstimateKey(gpu="H100-SXM", gpus_per_node=8, nodes=1, interconnect="NVSwitch", network_gbps=3200)
    unknown = est(key)
    few = est(EstimateKey(**{**key.__dict__, "vcpus": 96.0}))
    assert not unknown.input_bound  # vCPUs unknown: not bounded (unknown is not zero)
    assert few.input_bound
    # 96 vCPUs × 100 images/s = 9,600 images/s; 1,281,167 images × 90 epochs ÷ 9,600 = 3.336 h.
    assert few.job_time_h == pytest.approx(1_281_167 * 90 / 9600 / 3600)
    assert few.job_time_h > unknown.job_time_h
    assert any(n.startswith("input-bound") for n in few.notes)


def _cpu_bound_estimator(key: EstimateKey) -> EstimateRow:
    """1 h on 8 GPUs when fed; an instance of fewer than 100 vCPUs feeds half as fast (2 h)."""
    bound = key.vcpus is not None and key.vcpus < 100
    t = 2.0 if bound else 1.0
    return EstimateRow(
        fits=True, job_time_h=t, job_time_h_low=t, job_time_h_high=t, peak_memory_gib=10.0, input_bound=bound
    )


def test_plan_options_carry_the_input_bound_flag_per_offer() -> None:
    rows = [
        offer(instance_type="many-vcpus", vcpus=192.0),
        offer(instance_type="few-vcpus", vcpus=48.0, price_usd=20.0),
    ]
    plan = plan_offers(
        OfferTable.from_rows(rows),
        CostFacts([aws_costs()]),
        JobFacts(),
        _cpu_bound_estimator,
        Constraints(max_gpus=8),
    )
    by_type = {o.instance_type: o for o in plan.options}
    assert not by_type["many-vcpus"].input_bound
    assert by_type["few-vcpus"].input_bound
    assert math.isclose(by_type["few-vcpus"].compute_time_h, 2.0)
    doc = plan_json(plan, {"name": "resnet50-imagenet", "task": "train"})
    flags = {o.instance_type: o.input_bound for o in doc.options}
    assert flags == {"many-vcpus": False, "few-vcpus": True}


def test_an_image_job_on_an_instance_of_unknown_vcpus_is_flagged_not_taken_as_fed() -> None:
    workload = Workload.from_yaml(EXAMPLES / "resnet50-imagenet.yaml")
    est, notes = make_estimator(workload, resnet50_profile("test", activations_bytes=20e9), CAL)
    assert any("fewest vCPUs per GPU" in n for n in notes)
    key = EstimateKey(gpu="H100-SXM", gpus_per_node=8, nodes=1, interconnect="NVSwitch", network_gbps=3200)
    assert est(key).input_unknown
    assert not est(EstimateKey(**{**key.__dict__, "vcpus": 192.0})).input_unknown


def _vcpu_bound_estimator(key: EstimateKey) -> EstimateRow:
    """1 h on 8 GPUs when fed; the CPUs of an instance of fewer than 100 vCPUs feed half as fast."""
    t = 2.0 if key.vcpus is not None and key.vcpus < 100 else 1.0
    return EstimateRow(
        fits=True,
        job_time_h=t,
        job_time_h_low=t,
        job_time_h_high=t,
        peak_memory_gib=10.0,
        input_unknown=key.vcpus is None,
    )


def test_an_offer_of_unknown_vcpus_is_timed_at_the_fewest_vcpus_known_and_says_so() -> None:
    # The catalog's fewest vCPUs per A100: 48 / 8 = 6; the unknown offer is timed at 6 × 8 = 48
    # vCPUs (2 h), its best case (not bounded, 1 h) beside it, and it is flagged.
    rows = [
        offer(instance_type="few-vcpus", vcpus=48.0, price_usd=22.0),
        offer(instance_type="no-vcpus", vcpus=None, price_usd=20.0),
    ]
    plan = plan_offers(
        OfferTable.from_rows(rows),
        CostFacts([aws_costs()]),
        JobFacts(image_job=True),
        _vcpu_bound_estimator,
        Constraints(max_gpus=8),
    )
    by_type = {o.instance_type: o for o in plan.options}
    unknown = by_type["no-vcpus"]
    assert unknown.compute_time_h == pytest.approx(2.0)
    assert [u.fact for u in unknown.unknown_facts] == ["vcpus"]
    assert "48 vCPUs" in unknown.unknown_facts[0].assumed
    assert unknown.best_case_job_time_h is not None and unknown.best_case_job_time_h < unknown.job_time_h
    assert by_type["few-vcpus"].unknown_facts == () and by_type["few-vcpus"].best_case_total_cost_usd is None
