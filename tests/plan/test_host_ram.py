"""An inference option's host RAM against the model weights each instance loads through it: an
instance with less RAM than the weights is left out, and says so with its figures; one whose RAM the
catalog does not state is never recommended for that over one known to hold them. A 1.3B-parameter
service (5.3 GB of fp32 weights) had been recommended a GCP n1-standard-1 host (3.75 GiB) with a T4."""

from __future__ import annotations

from plan_helpers import aws_costs, offer

from gpuplan.plan import planner as gp
from gpuplan.plan.constraints import Constraints
from gpuplan.plan.host_memory import HOST_RAM_UNKNOWN_FLAG
from gpuplan.plan.input_types import EstimateKey, EstimateRow, JobFacts, OfferTable, PlanOffer
from gpuplan.plan.region_costs import CostFacts
from gpuplan.plan.result import Plan

MONTH_H = 730.0
#: A 1.3B-parameter model's weights at 4 bytes each, GB.
WEIGHTS_GB = 5.313
SERVICE = JobFacts(calendar_months=1.0, requests_per_s=1.0, task="infer", weights_gb=WEIGHTS_GB)


def _serve(key: EstimateKey) -> EstimateRow:
    """One T4 carries the load, whatever its host."""
    return EstimateRow(
        fits=True,
        replica_requests_per_s=2.0,
        job_time_h=MONTH_H,
        job_time_h_low=MONTH_H,
        job_time_h_high=MONTH_H,
        peak_memory_gib=12.0,
    )


def _t4(instance_type: str, price: float, memory_gib: float | None) -> PlanOffer:
    return offer(
        instance_type=instance_type,
        gpu="T4",
        gpu_count=1,
        gpu_memory_gib=16.0,
        price_usd=price,
        vcpus=4.0,
        memory_gib=memory_gib,
        interconnect="",
    )


def _plan(rows: list[PlanOffer], job: JobFacts = SERVICE) -> Plan:
    return gp.plan_offers(
        OfferTable.from_rows(rows),
        CostFacts([aws_costs()]),
        job,
        _serve,
        Constraints(max_gpus=1),
        top=10,
    )


def test_an_instance_with_less_ram_than_the_weights_is_left_out_with_its_figures() -> None:
    plan = _plan([_t4("tiny", 0.35, 3.75), _t4("roomy", 0.40, 7.5)])
    assert plan.recommended.instance_type == "roomy"
    assert [o.instance_type for o in plan.options] == ["roomy"]
    assert plan.excluded.get("host_ram_short") == 1
    note = next(n for n in plan.notes if n.startswith("host RAM:"))
    assert "tiny: 3.75 GiB of host RAM < 5.3 GB of weights to load" in note


def test_an_instance_that_holds_the_weights_is_not_left_out() -> None:
    # 5.313 GB is 4.95 GiB: a 5 GiB host holds it
    plan = _plan([_t4("tiny", 0.35, 5.0), _t4("roomy", 0.40, 7.5)])
    assert plan.recommended.instance_type == "tiny"
    assert "host_ram_short" not in plan.excluded
    assert not any(n.startswith("host RAM:") for n in plan.notes)


def test_no_option_left_says_host_ram() -> None:
    try:
        _plan([_t4("tiny", 0.35, 3.75)])
    except gp.PlanInfeasibleError as e:
        assert "too little host RAM for the weights" in str(e) and "more host RAM" in str(e)
    else:
        raise AssertionError("a plan with no instance that holds the weights was made")


def test_an_instance_of_unknown_ram_ranks_after_one_known_to_hold_the_weights() -> None:
    # the least RAM of any T4 offer (3.75 GiB) is its bound: it may not hold the weights
    plan = _plan([_t4("unknown", 0.30, None), _t4("roomy", 0.40, 7.5), _t4("tiny", 0.35, 3.75)])
    names = [o.instance_type for o in plan.options]
    assert names == ["roomy", "unknown"]
    unknown = plan.options[1]
    assert HOST_RAM_UNKNOWN_FLAG in unknown.flags
    assert HOST_RAM_UNKNOWN_FLAG not in plan.options[0].flags
    assert any("1 option is on an instance whose RAM the catalog does not state" in n for n in plan.notes)


def test_an_instance_of_unknown_ram_whose_bound_holds_the_weights_ranks_by_its_price() -> None:
    # every T4 offer that states its RAM has 7.5 GiB or more: the bound holds the weights
    plan = _plan([_t4("unknown", 0.30, None), _t4("roomy", 0.40, 7.5)])
    assert plan.recommended.instance_type == "unknown"
    assert HOST_RAM_UNKNOWN_FLAG not in plan.recommended.flags
