"""The countries asked for are written as the user named them: ``EU`` for the European Union's 27
member states, in every line of the plan that names them, not the 27 codes ``EU`` stands for."""

from __future__ import annotations

import pytest
from plan_helpers import aws_costs, offer, toy_estimator

from gpuplan.i18n.countries import EU_MEMBERS
from gpuplan.plan import Constraints, CostFacts, JobFacts, OfferTable, PlanInfeasibleError, plan_offers

JOB = JobFacts(dataset_gb=10, checkpoint_gb=1, data_location=("aws", "us-east-1"))
EU = Constraints(countries=EU_MEMBERS)


def test_a_baseline_outside_the_eu_is_said_to_be_outside_eu_not_27_codes() -> None:
    # was: "it is outside your countries (AT, BE, BG, HR, CY, CZ, DK, EE, FI, FR, DE, GR, …, SE)"
    rows = [offer(), offer(region="eu-central-1", country="DE", price_usd=25.0)]
    plan = plan_offers(OfferTable.from_rows(rows), CostFacts([aws_costs()]), JOB, toy_estimator(), EU)
    assert plan.baseline is not None and plan.baseline.region == "us-east-1"
    assert "it is outside your countries (EU)" in plan.baseline_note, plan.baseline_note
    # a country of its own beside them is named too
    with_ch = Constraints(countries=(*EU_MEMBERS, "CH"))
    plan = plan_offers(OfferTable.from_rows(rows), CostFacts([aws_costs()]), JOB, toy_estimator(), with_ch)
    assert "it is outside your countries (EU, CH)" in plan.baseline_note, plan.baseline_note


def test_the_nearest_gpus_priced_in_the_eu_are_said_to_be_at_eu() -> None:
    rows = [offer(), offer(region="eu-central-1", country="DE", price_usd=25.0)]
    asked = Constraints(gpus=("H800",), countries=EU_MEMBERS)
    with pytest.raises(PlanInfeasibleError) as info:
        plan_offers(OfferTable.from_rows(rows), CostFacts([aws_costs()]), JOB, toy_estimator(), asked)
    said = str(info.value)
    assert "; the nearest GPUs the catalog prices at EU: A100-SXM4-40GB; " in said, said
