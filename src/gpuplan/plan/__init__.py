"""Decide where to run a job: candidates, all-in cost, spot risk, constraints, ranking.

The core (``plan_offers``) works on the planner's own input types, so its arithmetic is testable
with hand-made data; ``gpuplan.plan.adapters`` builds those from the catalog store, the workload and
the estimator.
"""

from gpuplan.plan.api import plan_workload
from gpuplan.plan.constraints import Constraints, Objective, Reason, parse_duration_h
from gpuplan.plan.inputs import (
    EstimateKey,
    EstimateRow,
    JobFacts,
    OfferRow,
    OfferTable,
    RegionCosts,
    TransferTier,
)
from gpuplan.plan.planner import BaselineSpec, PlanInfeasibleError, plan_offers
from gpuplan.plan.regional import CostFacts
from gpuplan.plan.result import CostBreakdown, Option, PersonaPick, Plan, SpotRisk

__all__ = [
    "BaselineSpec",
    "Constraints",
    "CostBreakdown",
    "CostFacts",
    "EstimateKey",
    "EstimateRow",
    "JobFacts",
    "Objective",
    "OfferRow",
    "OfferTable",
    "Option",
    "PersonaPick",
    "Plan",
    "PlanInfeasibleError",
    "Reason",
    "RegionCosts",
    "SpotRisk",
    "TransferTier",
    "parse_duration_h",
    "plan_offers",
    "plan_workload",
]
