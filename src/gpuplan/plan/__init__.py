"""Decide where to run a job: candidates, all-in cost, spot risk, constraints, ranking.

The core (``plan_offers``) works on the planner's own input types, so its arithmetic is testable
with hand-made data; ``gpuplan.plan.build_inputs`` builds those from the catalog store, the workload and
the estimator.
"""

from gpuplan.plan.api import plan_workload
from gpuplan.plan.constraints import Constraints, Objective, Reason, parse_duration_h
from gpuplan.plan.input_types import (
    EstimateKey,
    EstimateRow,
    JobFacts,
    OfferTable,
    PlanOffer,
    RegionCosts,
    UsdTransferTier,
)
from gpuplan.plan.planner import BaselineSpec, PlanInfeasibleError, plan_offers
from gpuplan.plan.region_costs import CostFacts
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
    "OfferTable",
    "Option",
    "PersonaPick",
    "Plan",
    "PlanInfeasibleError",
    "PlanOffer",
    "Reason",
    "RegionCosts",
    "SpotRisk",
    "UsdTransferTier",
    "parse_duration_h",
    "plan_offers",
    "plan_workload",
]
