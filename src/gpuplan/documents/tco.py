"""The tco document: what ``gpuplan tco --json`` writes (the writer is ``report/tco.py``).

Amounts are in the document's ``currency`` (USD, or CNY at ``exchange_rate``), rounded to the cent.
"""

from __future__ import annotations

from typing import Literal

from gpuplan.documents.base import Document
from gpuplan.vocab import PricingModel

__all__ = [
    "TCO_SCHEMA_VERSION",
    "TcoCommitment",
    "TcoDemand",
    "TcoDocument",
    "TcoExchangeRate",
    "TcoHourlyPrice",
    "TcoMonth",
    "TcoSensitivity",
]

#: The tco document's schema version.
TCO_SCHEMA_VERSION = 1


class TcoExchangeRate(Document):
    """The dated rate amounts were converted at (when ``currency`` is not USD)."""

    usd_per_unit: float
    as_of: str | None
    source: str | None


class TcoMonth(Document):
    """One month of the horizon."""

    month: str
    """Calendar month, ``YYYY-MM``."""
    cost: float
    by_pricing: dict[PricingModel, float]
    """The month's cost by pricing model."""


class TcoCommitment(Document):
    """Units of one offer bought under one term at one start month."""

    provider: str
    region: str
    instance_type: str
    gpu: str
    gpus_per_unit: float
    pricing: PricingModel
    units: int
    start_month: str
    """``YYYY-MM``."""
    term_months: int
    cost: float
    """What these units cost over their term (as billed under ``past_horizon``)."""


class TcoSensitivity(Document):
    """The total with demand scaled, commitments fixed."""

    demand_change_pct: float
    total_cost: float | None
    """None when the changed demand cannot be met (no on-demand price)."""


class TcoDemand(Document):
    """How one demand was sized."""

    name: str
    gpu: str
    gpu_hours_total: float
    how: str


class TcoHourlyPrice(Document):
    """An hourly offer the schedule buys for what commitments leave uncovered."""

    use: str
    """``GPU/on_demand`` or ``GPU/spot/<demand>``."""
    provider: str
    region: str
    instance_type: str
    pricing: PricingModel
    price_per_gpu_hour: float
    spot_overhead: float | None
    """Paid spot hours per useful hour (checkpoints, lost work, restarts)."""


class TcoDocument(Document):
    """The cheapest commitment schedule for a usage description, with its baseline and risks."""

    schema_version: Literal[1] = 1
    """:data:`TCO_SCHEMA_VERSION`."""
    horizon_months: int
    start: str
    """First month of the horizon, ``YYYY-MM``."""
    currency: Literal["USD", "CNY"]
    exchange_rate: TcoExchangeRate | None
    past_horizon: Literal["full", "remaining_value"]
    total_cost: float
    all_on_demand_cost: float | None
    """Every GPU-hour at the cheapest on-demand price; None where a GPU has none."""
    savings_pct: float | None
    past_horizon_cost: float
    """Term months after the horizon that are still paid (included in ``total_cost``)."""
    monthly: list[TcoMonth]
    commitments: list[TcoCommitment]
    break_even_utilisation: dict[PricingModel, float]
    """Per commitment pricing model: the share of a unit's hours it must be busy to beat on-demand."""
    sensitivity: list[TcoSensitivity]
    demands: list[TcoDemand]
    hourly_prices: list[TcoHourlyPrice]
    notes: list[str]
