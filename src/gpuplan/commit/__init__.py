"""A year or three of work: the cheapest mix of reserved, monthly, on-demand and spot capacity.

The core (``optimise``) works on its own small types (``TcoProblem``: demands in GPU-hours per
month with their GPUs at once, priced offers), so it is testable with hand-made data;
``gpuplan.commit.adapters`` builds them from a usage file, the catalog store and the planner.
"""

from gpuplan.commit.api import TcoReport, tco
from gpuplan.commit.model import (
    COMMITMENT_PRICING,
    HOURLY_PRICING,
    PAST_HORIZON_RULES,
    Commitment,
    Demand,
    MissingPrice,
    MonthCost,
    Peak,
    PricedOffer,
    Schedule,
    TcoProblem,
)
from gpuplan.commit.optimise import optimise
from gpuplan.commit.usage import Usage, load_usage

__all__ = [
    "COMMITMENT_PRICING",
    "HOURLY_PRICING",
    "PAST_HORIZON_RULES",
    "Commitment",
    "Demand",
    "MissingPrice",
    "MonthCost",
    "Peak",
    "PricedOffer",
    "Schedule",
    "TcoProblem",
    "TcoReport",
    "Usage",
    "load_usage",
    "optimise",
    "tco",
]
