"""The catalog documents: ``gpuplan offers --json`` and ``gpuplan gpus --json``.

Every amount names its currency and unit (``price_usd_per_hour``, ``price_cny_per_month``), and the
names do not change with ``--currency``: the USD figures are always there, the CNY ones wherever
the catalog has a CNY rate (stated once, in the document's ``exchange_rate``). A price published in
CNY keeps its exact amount in its ``_cny_`` field (``published_currency`` and ``published_unit`` say
which field that is); the other currency's figure is converted at the stated rate.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from gpuplan.documents.base import Count, Document, ExchangeRateDoc, HostKind, PositiveCount
from gpuplan.documents.plan import SpotBandDoc

__all__ = [
    "GPUS_SCHEMA_VERSION",
    "OFFERS_SCHEMA_VERSION",
    "CheapestPrice",
    "GpuItem",
    "GpusDocument",
    "OfferFloor",
    "OfferItem",
    "OffersDocument",
]

#: 2: money fields name their currency (``price_cny_per_hour`` replaces the display-currency
#: ``price_per_hour``; ``price``/``currency``/``unit`` became the ``_per_month`` fields and
#: ``published_currency``/``published_unit``); the rate is stated once per document.
#: 3: the ``price_`` fields of a spot price held to a dated one (undated, or older than the
#: staleness limit, and below it) are what plans cost it at, the dated floor, as the table shows
#: it; ``floor`` says which dated price that is and carries the offer's own figure (its best case).
#: It replaces ``costed_usd_per_hour`` and ``costed_basis``.
OFFERS_SCHEMA_VERSION = 3
#: 2: ``cheapest`` carries ``price_cny_per_gpu_hour`` and the document its ``exchange_rate``.
GPUS_SCHEMA_VERSION = 2


class OfferFloor(Document):
    """The dated spot price an offer's spot price is held to, and the offer's own figure."""

    held: Literal["undated", "stale"]
    """Why the offer's own price is held to a dated one: ``undated`` (its source gives no day, only
    bounds), or ``stale`` (dated, but older than ``stale_after_days``: held to fresh dated prices only)."""
    basis: Literal["region-low", "region-average", "other-region", "gpu-region", "gpu-catalog", "on-demand"]
    """Which dated price: the lowest zone of the instance type's own region on a day
    (``region-low``), that region's average (``region-average``), the instance type's lowest in any
    region (``other-region``), the lowest per GPU-hour of the same GPU in the offer's region
    (``gpu-region``) or in the catalog (``gpu-catalog``), or — no dated spot price of the GPU at
    all — the instance's own on-demand price (``on-demand``)."""
    what: str
    """``basis``, worded (in the language asked for)."""
    region: str
    """The region whose dated price it is (``provider/region`` where another provider's)."""
    as_of: str
    """The dated price's date."""
    age_days: Count | None
    """Its age on ``priced_on``, days."""
    staleness: Literal["fresh", "stale", "unknown"]
    """Its own age against ``stale_after_days``."""
    source: str | None
    """Where the dated price was read (null where the catalog does not say)."""
    best_case_usd_per_hour: float
    """The offer's own price per instance-hour, USD (after the user's discount): its best case."""
    best_case_usd_per_gpu_hour: float
    best_case_cny_per_hour: float | None
    """The offer's own price per instance-hour, CNY (the published amount where published in CNY,
    else at ``exchange_rate``); null without a rate."""
    best_case_cny_per_gpu_hour: float | None


class OfferItem(Document):
    """One offer under one pricing model with its current price."""

    provider: str
    region: str
    zone: str | None
    instance_type: str
    host_kind: HostKind | None = None
    """What the price rents, as the provider's terms state it (as a plan's option says it):
    ``cloud_vm`` (a VM in the provider's own data centre), ``bare_metal`` (a whole server of the
    provider's), ``secure_cloud`` (a marketplace's own or vetted data centre), ``community_host`` (a
    machine an independent host lists), ``resold`` (another cloud's machine sold through an
    aggregator); null where the provider's terms do not say. ``--hosts provider`` keeps the first
    four kinds."""
    gpu: str
    """Canonical GPU id."""
    gpu_count: PositiveCount
    """GPUs per instance; fractional only for partitions (Azure NV6ads A10 v5 = 1/6)."""
    vcpus: Count | None
    memory_gib: float | None
    """Host memory, GiB."""
    network_gbps: float | None
    """Network bandwidth, Gbit/s."""
    interconnect: str | None
    pricing: str | None
    """A pricing model; None for an offer without any price."""
    published_currency: str | None
    """The currency the provider publishes this price in (``USD`` or ``CNY``); None when unknown."""
    published_unit: str | None
    """What the published amount pays for: ``hour`` or ``month``."""
    price_usd_per_hour: float | None
    """Per instance-hour, USD (a monthly price ÷ 730 h; CNY at ``exchange_rate``); after the user's
    negotiated discount; None when unknown or not convertible (``price_reason``). What plans cost
    the offer at: for a spot price held to a dated one above it (``floor``), that dated price, as
    the table shows it (the offer's own figure is ``floor.best_case_usd_per_hour``); so are the other
    ``price_`` fields."""
    price_usd_per_gpu_hour: float | None
    price_cny_per_hour: float | None
    """Per instance-hour, CNY: the published amount (÷ 730 h for a month) when published in CNY,
    else ``price_usd_per_hour`` at ``exchange_rate`` (a dated floor always at the rate); None
    without a rate."""
    price_cny_per_gpu_hour: float | None
    price_usd_per_month: float | None
    """Per instance-month, USD, for a price published per month (None for hourly prices)."""
    price_cny_per_month: float | None
    """Per instance-month, CNY, for a price published per month: the published amount when
    published in CNY (less the user's discount)."""
    list_price_usd_per_hour: float | None = None
    """The provider's list price before the user's negotiated discount (None: no discount applies)."""
    discount_percent: float | None = None
    """The user's negotiated discount applied to the ``price_`` fields."""
    as_of: str | None
    source: str | None
    confidence: str | None
    interruption_band: str | None
    """Spot only: the published share of instances interrupted a month (an AWS Spot Instance
    Advisor band such as ``10-15%``) that ``plan`` costs the offer at: where the catalog's sources
    disagree, the worst of them (``interruption_bands`` lists each); null where the catalog holds none."""
    interruption_reason: str | None = None
    """Spot only, where ``interruption_band`` is null: why the rate is unknown (what the provider
    publishes about it); null for a band, or a price that is not spot."""
    interruption_bands: list[SpotBandDoc] = Field(default_factory=list)
    """Spot only, where the catalog's sources disagree on the band: each source's band with its date,
    the one ``interruption_band`` gives (the worst, ``costed``) first; empty where they agree."""
    billing_granularity_s: int | None
    min_billing_s: int | None
    term: dict[str, Any] | None
    """The provider's terms as published (``years``, ``prepaid_total_usd`` or ``prepaid_total_cny``,
    ``kind`` …)."""
    compliance: list[str]
    """Compliance labels from a source that can be relied on (the provider's list of certificates,
    or a dated compilation of it)."""
    compliance_claimed: list[str] = Field(default_factory=list)
    """Compliance labels only a low-confidence source claims (an article, not the certificate): a
    plan counts them only with ``allow_low_confidence``."""
    stale: bool
    """Not known to be within ``stale_after_days``: older, or of unknown age (``staleness``)."""
    price_reason: str | None
    as_of_precision: Literal["day", "month", "year", "bounded"] | None = None
    """How precisely ``as_of`` dates the price; ``bounded``: ``as_of`` is ``earliest/latest``
    (``2025-06/2026-12-02``), the source carrying no date."""
    age_days: Count | None = None
    """Days since the earliest day ``as_of`` allows (the oldest the price can be), or since
    ``age_bound_launch`` where that is later."""
    age_min_days: Count | None = None
    """Days since the latest day ``as_of`` allows (the youngest the price can be)."""
    age_bound_launch: str | None = None
    """``YYYY-MM``: the launch month of the offer's GPU where it, not ``as_of``, bounds the price's
    age (a source without a date of its own whose interval begins before the GPU launched; no price
    is older than its GPU). Null where ``as_of`` bounds it, or the GPU's launch is not known."""
    staleness: Literal["fresh", "stale", "unknown"] | None = None
    """Against ``stale_after_days``: fresh even at its oldest, stale even at its youngest, or unknown."""
    stale_after_days: Count | None = None
    """The staleness limit used (``--stale-days``, default 180)."""
    priced_on: str | None = None
    """The day the ages are counted to (the day the catalog was read), ``YYYY-MM-DD``."""
    network_kind: str | None = None
    """``EFA``, ``InfiniBand``, ``RoCE`` or ``TCP``; None = not published."""
    local_nvme_gb: float | None = None
    fetched_at: str | None = None
    """When ``catalog refresh`` read the price (None: from a file)."""
    floor: OfferFloor | None = None
    """For a spot price of unknown age, or older than ``stale_after_days``, below a dated spot price
    it is held to (the higher of its instance type's and its GPU's; a stale one to fresh ones only):
    that dated price, which the ``price_`` fields carry, and the offer's own figure. The listing
    picks the cheapest region and sorts by it. Null: the ``price_`` fields are the offer's own."""
    regions_compared: int = Field(ge=1)
    """How many regions/zones were compared to pick this one (1 with ``--all-regions``)."""


class OffersDocument(Document):
    """``gpuplan offers --json``."""

    schema_version: Literal[3] = 3
    display_currency: Literal["USD", "CNY"]
    """The currency the table would show (``--currency``); the fields below do not depend on it."""
    exchange_rate: ExchangeRateDoc | None
    """The CNY rate of every ``_cny_`` figure; None when the catalog has none (``_cny_`` fields null)."""
    offers: list[OfferItem]
    empty_reason: str | None = None
    """Why no offer has the pricing model asked for (what the catalog's sources lack); null when
    there are offers, or no pricing model was asked."""
    country_unknown: list[str] = Field(default_factory=list)
    """``provider/region`` of the offers ``--countries`` left out because their region's country is
    unknown (in none of the countries asked for); empty without ``--countries``."""
    low_confidence_left_out: int = 0
    """Prices labelled low-confidence (the source articles' 2024 tables) left out, as plans leave
    them out by default; ``--allow-low-confidence`` lists them."""
    hosts_left_out: int = 0
    """Prices on a community host or a host of unknown kind (``host_kind`` null) left out by
    ``--hosts provider``, as a plan's ``hosts: provider`` leaves them out; 0 without it."""


class CheapestPrice(Document):
    """The cheapest known price of one GPU under one pricing model."""

    price_usd_per_gpu_hour: float | None
    """What a plan costs it at: a spot price undated or older than the staleness limit, below the
    dated floor it is held to, is that floor (``best_case_usd_per_gpu_hour`` its own figure). The
    floor is the higher of its instance type's lowest dated spot price and its GPU's: the lowest
    dated spot price per GPU-hour of the same GPU in its region, else in the catalog (fresh ones
    first; a stale price is held to fresh ones only), else, for an undated one, the instance's
    on-demand price. The cheapest is picked at these figures."""
    price_cny_per_gpu_hour: float | None
    """At the document's ``exchange_rate`` (the published amount for a price published in CNY)."""
    best_case_usd_per_gpu_hour: float | None = None
    """The price's own figure where ``price_usd_per_gpu_hour`` is a dated floor above it; null otherwise."""
    provider: str
    region: str
    instance_type: str
    as_of: str | None
    stale: bool = False
    """Not known to be within the catalog's staleness limit: older, or of unknown age."""
    source: str | None
    confidence: str | None
    discount_percent: float | None = None
    """Your negotiated discount, taken off the list price in ``price_usd_per_gpu_hour`` (null: none)."""
    list_price_usd_per_gpu_hour: float | None = None
    """The list price before ``discount_percent`` (null: no discount applies)."""


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
    peak_basis: str | None = None
    """How the tensor-core peaks were had where no source publishes them (derived, and from what);
    None where they are published figures."""
    cheapest: dict[str, CheapestPrice | None]
    """Keyed by pricing model; None where no price is known."""


class GpusDocument(Document):
    """``gpuplan gpus --json``."""

    schema_version: Literal[2] = 2
    display_currency: Literal["USD", "CNY"]
    exchange_rate: ExchangeRateDoc | None
    """The CNY rate of every ``_cny_`` figure; None when the catalog has none."""
    gpus: list[GpuItem]
