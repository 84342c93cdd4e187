"""Ties of cost and time broken by nearness (the users' round trip, the data's distance); each option's
host kind and, for a country under broad sanctions, a check-before-paying note with its sources."""

from __future__ import annotations

import numpy as np
from plan_helpers import aws_costs, offer, toy_estimator

from gpuplan.plan import Constraints, CostFacts, JobFacts, Objective, OfferTable, plan_offers
from gpuplan.plan.hosts import host_kind
from gpuplan.plan.rank import objective_order
from gpuplan.plan.sanctions import sanctions_of
from gpuplan.report.plan import option_json

JOB = JobFacts(dataset_gb=200, checkpoint_gb=5, data_location=("aws", "us-east-1"))
#: No data to move: the price alone tells the offers apart.
NO_DATA = JobFacts(checkpoint_gb=5)


def _plan(rows, job=JOB):  # type: ignore[no-untyped-def]
    return plan_offers(
        OfferTable.from_rows(rows), CostFacts([aws_costs()]), job, toy_estimator(), Constraints()
    )


def test_equal_cost_and_time_rank_the_nearer_first_unknown_last() -> None:
    cost, time = np.array([10.0, 10.0, 10.0]), np.array([2.0, 2.0, 2.0])
    near = np.array([230.0, np.nan, 145.0])  # Tokyo, a place not known, us-east-1
    assert objective_order(cost, time, Objective.COST, near=near).tolist() == [2, 0, 1]
    assert objective_order(cost, time, Objective.TIME, near=near).tolist() == [2, 0, 1]
    # fewer unknown facts still come before nearness: an unknown never wins a tie
    assert objective_order(cost, time, Objective.COST, np.array([1, 0, 1]), near=near).tolist() == [1, 2, 0]


def test_costs_a_rounding_apart_are_the_same_cost() -> None:
    # $10.001 and $10.004 are both $10.00: the faster one first, not the one cheaper by a tenth of a cent
    order = objective_order(np.array([10.001, 10.004]), np.array([3.0, 2.0]), Objective.COST)
    assert order.tolist() == [1, 0]


def _lambda(region: str, country: str):  # type: ignore[no-untyped-def]
    return offer(
        provider="lambda", region=region, country=country, instance_type="gpu_8x_a100", price_usd=10.0
    )


def test_a_job_of_equal_cost_runs_nearest_its_data_and_says_why() -> None:
    plan = _plan([_lambda("asia-northeast-1", "JP"), _lambda("us-east-1", "US")])
    tokyo, virginia = (
        next(o for o in plan.options if o.region == r) for r in ("asia-northeast-1", "us-east-1")
    )
    assert tokyo.total_cost_usd == virginia.total_cost_usd and tokyo.job_time_h == virginia.job_time_h
    assert plan.recommended.region == "us-east-1"
    assert virginia.data_km is not None and tokyo.data_km is not None and virginia.data_km < tokyo.data_km
    assert "nearer the data" in plan.why[0]
    assert option_json(virginia).data_distance_km == virginia.data_km


def test_a_community_host_in_a_sanctioned_country_is_flagged_not_left_out() -> None:
    lium = offer(provider="lium", region="RU", country="RU", instance_type="H100-SXM_8x", price_usd=1.0)
    plan = _plan([lium, offer()], NO_DATA)
    rec = plan.recommended
    assert (rec.provider, rec.host_kind) == ("lium", "community_host")  # cheapest still, not excluded
    assert rec.sanctions and any("ofac.treasury.gov" in s for s in rec.sanctions)
    assert any("bis.gov" in s for s in rec.sanctions) and any("europa.eu" in s for s in rec.sanctions)
    note = next(n for n in plan.notes if n.startswith("check before paying"))
    assert "lium/RU" in note and "--countries" in note and "not legal advice" in note
    # beside it: what it rents, where, and the best option on a provider-run machine
    assert "community host" in plan.host and "(RU)" in plan.host
    assert "aws/us-east-1 p4d.24xlarge" in plan.host
    assert option_json(rec).host_kind == "community_host"
    aws = next(o for o in plan.options if o.provider == "aws")
    assert aws.host_kind == "cloud_vm" and not aws.sanctions
    assert not any(n.startswith("check before paying") for n in _plan([offer()], NO_DATA).notes)


def test_an_unknown_host_kind_is_said_and_not_taken_as_provider_run() -> None:
    # a provider no module states terms for (a price file's own provider, imported by a user)
    assert host_kind("acme_gpu", "x", "cn-beijing") is None
    cheap = offer(provider="acme_gpu", region="cn-beijing", country="CN", instance_type="x", price_usd=1.0)
    plan = _plan([cheap, offer()], NO_DATA)
    assert plan.recommended.host_kind is None
    assert "unknown kind" in plan.host and "aws/us-east-1 p4d.24xlarge" in plan.host
    assert option_json(plan.recommended).host_kind is None


def test_sanctions_sources_are_official_pages_and_cover_the_broad_programs() -> None:
    for code in ("RU", "BY", "IR", "KP", "CU", "SY", "UA"):
        assert sanctions_of(code), code
    assert sanctions_of("DE") == () and sanctions_of("") == ()
    pages = {p.split(", ")[-1] for c in ("RU", "IR", "UA") for p in sanctions_of(c)}
    assert all(p.startswith("https://") and (".gov/" in p or "europa.eu/" in p) for p in pages)
