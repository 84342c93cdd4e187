"""The catalog documents: ``gpuplan offers --json`` and ``gpuplan gpus --json``.

Prices keep the currency and unit they were published in (``price``, ``currency``, ``unit``), the
USD figures say so in their names (``price_usd_per_hour``), and the display-currency figures
(``price_per_hour``) sit next to the document's ``currency``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from gpuplan.documents.base import Document

__all__ = [
    "GPUS_SCHEMA_VERSION",
    "OFFERS_SCHEMA_VERSION",
    "CheapestPrice",
    "GpuItem",
    "GpusDocument",
    "OfferItem",
    "OffersDocument",
]

OFFERS_SCHEMA_VERSION = 1
GPUS_SCHEMA_VERSION = 1


class OfferItem(Document):
    """One offer under one pricing model with its current price."""

    provider: str
    region: str
    zone: str | None
    instance_type: str
    gpu: str
    """Canonical GPU id."""
    gpu_count: float = Field(gt=0)
    """GPUs per instance; fractional for partitions (Azure NV6ads A10 v5 = 1/6)."""
    vcpus: float | None
    memory_gib: float | None
    """Host memory, GiB."""
    network_gbps: float | None
    """Network bandwidth, Gbit/s."""
    interconnect: str | None
    pricing: str | None
    """A pricing model; None for an offer without any price."""
    price: float | None
    """The published amount in ``currency`` per ``unit``."""
    currency: str | None
    unit: str | None
    """``hour`` or ``month``."""
    price_usd_per_hour: float | None
    price_usd_per_gpu_hour: float | None
    as_of: str | None
    source: str | None
    confidence: str | None
    interruption_band: str | None
    billing_granularity_s: int | None
    min_billing_s: int | None
    term: dict[str, Any] | None
    compliance: list[str]
    stale: bool
    price_reason: str | None
    exchange_rate_usd_per_unit: float | None = None
    exchange_rate_as_of: str | None = None
    network_kind: str | None = None
    """``EFA``, ``InfiniBand``, ``RoCE`` or ``TCP``; None = not published."""
    local_nvme_gb: float | None = None
    fetched_at: str | None = None
    """When ``catalog refresh`` read the price (None: from a file)."""
    list_price_usd_per_hour: float | None = None
    """The provider's list price before the user's negotiated discount (None: no discount applies)."""
    discount_percent: float | None = None
    """The user's negotiated discount applied to ``price_usd_per_hour``."""
    display_currency: str
    """The currency of ``price_per_hour`` and ``price_per_gpu_hour`` (the document's ``currency``)."""
    price_per_hour: float | None
    """Per instance-hour in ``display_currency``; None when unknown or not convertible."""
    price_per_gpu_hour: float | None
    regions_compared: int = Field(ge=1)
    """How many regions/zones were compared to pick this one (1 with ``--all-regions``)."""


class OffersDocument(Document):
    """``gpuplan offers --json``."""

    schema_version: Literal[1] = 1
    currency: str
    """Display currency of ``price_per_hour`` (ISO code)."""
    offers: list[OfferItem]


class CheapestPrice(Document):
    """The cheapest known price of one GPU under one pricing model."""

    price_usd_per_gpu_hour: float | None
    provider: str
    region: str
    instance_type: str
    as_of: str | None
    source: str | None
    confidence: str | None


class GpuItem(Document):
    """One GPU's datasheet figures and its cheapest price under each pricing model."""

    id: str
    name: str
    vendor: str
    architecture: str
    memory_gib: float
    memory_bandwidth_gbps: float
    """GB/s."""
    fp32_tflops: float | None
    tf32_tflops: float | None
    bf16_tflops: float | None
    fp16_tflops: float | None
    fp8_tflops: float | None
    int8_tops: float | None
    interconnect: str
    nvlink_gen: int | None
    nvlink_gbps: float | None
    pcie_gen: int | None
    source: str
    cheapest: dict[str, CheapestPrice | None]
    """Keyed by pricing model; None where no price is known."""


class GpusDocument(Document):
    """``gpuplan gpus --json``."""

    schema_version: Literal[1] = 1
    gpus: list[GpuItem]
