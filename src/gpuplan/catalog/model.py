"""The offer catalog's typed records: what the store returns and what importers hand it.

Every amount carries its currency, unit, ``as_of`` date and source. Unknown is ``None`` with a
reason, never 0. Monthly prices convert to an hourly figure at :data:`HOURS_PER_MONTH`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields, replace
from datetime import date
from enum import Enum
from types import MappingProxyType
from typing import Any, TypeGuard

from gpuplan.catalog.dates import price_age
from gpuplan.i18n import N_, _
from gpuplan.units import HOURS_PER_MONTH

# The catalog's closed lists are the shared vocabulary's; re-exported here for the catalog's users.
from gpuplan.vocab import Confidence, Currency, PriceUnit, PricingModel

__all__ = [
    "ANY_REGION",
    "CERTAIN_COMPLIANCE",
    "FRAMEWORK_LICENCE",
    "HOURS_PER_MONTH",
    "LICENCE_ITEMS",
    "LINUX_OS_LICENCE",
    "LOW_CONFIDENCE_TRANSFER",
    "NOT_A_GPU_INSTANCE",
    "NO_PRICE",
    "RATE_STALE_AFTER_DAYS",
    "BenchResult",
    "BillingPolicy",
    "CatalogInfo",
    "ComplianceLabel",
    "Confidence",
    "Currency",
    "DatedFloor",
    "ExchangeRate",
    "FloorBasis",
    "ImportReport",
    "LicenceFee",
    "OfferPrice",
    "OfferRow",
    "PriceRow",
    "PriceUnit",
    "PricingModel",
    "RejectedRow",
    "StoragePrice",
    "StoredMeasurement",
    "TransferTier",
    "floor_what",
    "trusted_offer_price",
]

#: The region of a provider-wide fact row (billing, compliance, generic transfer prices).
ANY_REGION = "*"


class FloorBasis(Enum):
    """Which dated spot price an undated one is held to (:meth:`OfferPrice.dated_floor_usd_per_hour`)."""

    REGION_LOW = "region-low"
    """The lowest zone of its own region on that day."""
    REGION_AVERAGE = "region-average"
    """Its own region's average on that day (the source gives no lowest zone there)."""
    OTHER_REGION = "other-region"
    """The lowest of the instance type in any region (its own region has no dated spot price)."""
    GPU_REGION = "gpu-region"
    """The lowest dated spot price per GPU-hour of the same GPU in its own region (any instance type)."""
    GPU_CATALOG = "gpu-catalog"
    """The lowest dated spot price per GPU-hour of the same GPU anywhere in the catalog (none dated in
    its own region)."""
    ON_DEMAND = "on-demand"
    """The instance's own on-demand price: the catalog has no dated spot price of its GPU at all."""

    @property
    def names_region(self) -> bool:
        """Whether the floor is another region's price, which its words name."""
        return self in (FloorBasis.OTHER_REGION, FloorBasis.GPU_CATALOG)


@dataclass(frozen=True, kw_only=True)
class DatedFloor:
    """The dated spot price an undated (or stale) one undercuts: what that one is costed at."""

    usd_per_hour: float
    """Per instance-hour, after the user's discount."""
    as_of: str
    basis: FloorBasis
    region: str
    """The region whose dated price it is (another one for ``OTHER_REGION``)."""
    source: str = ""
    """Where the dated price was read ("" in a catalog built before the snapshot named it)."""
    age_days: int | None = None
    """Its age on the day the catalog was opened (None: that day not known)."""
    staleness: str = "unknown"
    """``fresh`` or ``stale`` against the catalog's limit, as an offer's own price's."""
    held: str = "undated"
    """Why the offer's own price is held to it (:meth:`OfferPrice.spot_age_held`): ``undated`` or
    ``stale`` (dated, but not known to be within the limit)."""

    def what(self) -> str:
        """The dated price, worded: "... below {what}: costed at it"."""
        return floor_what(self.basis, self.region)


def floor_what(basis: FloorBasis, region: str) -> str:
    """A dated floor's price, worded (:meth:`DatedFloor.what`) so that it reads after one offer's
    figure and after a count of them alike."""
    if basis is FloorBasis.REGION_AVERAGE:
        return _("the region's dated average spot price (no lowest zone published)")
    if basis is FloorBasis.OTHER_REGION:
        return _(
            "the lowest dated spot price of the instance type in any region ({region}; none dated in the "
            "offer's own)"
        ).format(region=region)
    if basis is FloorBasis.GPU_REGION:
        return _("the lowest dated spot price per GPU-hour of the same GPU in the region")
    if basis is FloorBasis.GPU_CATALOG:
        return _(
            "the lowest dated spot price per GPU-hour of the same GPU in the catalog ({region}; none "
            "dated in the offer's own region)"
        ).format(region=region)
    if basis is FloorBasis.ON_DEMAND:
        return _("the instance's on-demand price (the catalog has no dated spot price of its GPU)")
    return _("the lowest dated spot price of the region")


def _positive(value: object) -> TypeGuard[float]:
    return isinstance(value, int | float) and value > 0


@dataclass(frozen=True, kw_only=True)
class PriceRow:
    """One published price of one offer, as an importer hands it to the store."""

    pricing: str
    """A :class:`PricingModel` value."""
    amount: float
    """The published amount, in ``currency`` per ``unit``."""
    currency: str
    """ISO code as published: ``USD`` or ``CNY``."""
    unit: str
    """``hour`` or ``month``."""
    as_of: str
    """Date the price was published or observed: ISO ``YYYY-MM-DD``, or ``YYYY-MM`` / ``YYYY`` when
    only the month or year is known, or an ISO interval ``earliest/latest`` (``2025-06/2026-12-02``)
    for a source without a date of its own (:mod:`gpuplan.catalog.dates`)."""
    source: str
    """Where the figure comes from, precise enough to look it up again."""
    confidence: str
    """A :class:`Confidence` value."""
    interruption_band: str | None = None
    """Spot only: the provider's interruption-frequency band (e.g. ``<5%``), where known."""
    term: dict[str, Any] | None = None
    """Commitment terms kept as data (``{"years": 3, "billing": "monthly"}``), or notes on the figure."""
    fetched_at: str | None = None
    """ISO timestamp at which ``catalog refresh`` read the figure from ``source``; None for prices
    that came from a file (the shipped snapshot, an import)."""


@dataclass(frozen=True, kw_only=True)
class OfferRow:
    """One instance type in one region (and zone) with its prices, as an importer produces it."""

    provider: str
    region: str
    zone: str | None
    """Availability zone where it matters (spot prices are per zone); None = region-wide."""
    instance_type: str
    gpu: str
    """Canonical GPU id from :mod:`gpuplan.hardware` (``A100-SXM4-40GB``)."""
    gpu_count: float
    """GPUs per instance; fractional for partitions (Azure NV6ads A10 v5 = 1/6)."""
    vcpus: float | None
    memory_gib: float | None
    """Host memory, GiB."""
    network_gbps: float | None
    """Peak network bandwidth, Gbit/s (the higher figure where a range or "up to" is published)."""
    interconnect: str | None
    """GPU-to-GPU link as the provider describes it (``NVLink/NVSwitch``, ``PCIe``)."""
    source: str
    """Where the instance specification comes from."""
    network_kind: str | None = None
    """``EFA``, ``InfiniBand``, ``RoCE`` or ``TCP``; None = not published."""
    local_nvme_gb: float | None = None
    """Local NVMe instance storage in total, GB; None = unknown, 0 = the source says none."""
    prices: tuple[PriceRow, ...] = ()
    price_reason: str | None = None
    """Why the offer has no price, when ``prices`` is empty."""
    notes: str = ""
    line: int | None = None
    """Line of the imported file this row came from, for rejection reports."""
    accelerator_count_reported: float | None = None
    """The count a second field of the same source reports (AWS GpuInfo), checked against gpu_count."""

    def spec_columns(self) -> dict[str, Any]:
        """What the offers table holds of this instance type beside its key (provider, region, zone,
        instance type): written alike by an import and by the shipped snapshot."""
        return {
            "gpu": self.gpu,
            "gpu_count": self.gpu_count,
            "vcpus": self.vcpus,
            "memory_gib": self.memory_gib,
            "network_gbps": self.network_gbps,
            "interconnect": self.interconnect,
            "source": self.source,
            "price_reason": self.price_reason,
            "notes": self.notes,
            "network_kind": self.network_kind,
            "local_nvme_gb": self.local_nvme_gb,
        }


#: The fields of an offer's price as an offer without one has them (:meth:`OfferPrice.without_price`,
#: the store's unpriced rows).
NO_PRICE: Mapping[str, Any] = MappingProxyType(
    {
        "price": None,
        "currency": None,
        "unit": None,
        "price_usd_per_hour": None,
        "price_usd_per_gpu_hour": None,
        "as_of": None,
        "confidence": None,
        "interruption_band": None,
        "term": None,
        "stale": False,
        "exchange_rate_usd_per_unit": None,
        "exchange_rate_as_of": None,
        "fetched_at": None,
        "list_price_usd_per_hour": None,
        "discount_percent": None,
        "as_of_precision": None,
        "age_days": None,
        "age_min_days": None,
        "staleness": None,
        "age_bound_launch": None,
    }
)


@dataclass(frozen=True, kw_only=True)
class OfferPrice:
    """One offer under one pricing model with its current price (the JSON contract of ``offers``)."""

    provider: str
    region: str
    zone: str | None
    instance_type: str
    gpu: str
    """Canonical GPU id."""
    gpu_count: float
    vcpus: float | None
    memory_gib: float | None
    network_gbps: float | None
    interconnect: str | None
    pricing: str | None
    """A :class:`PricingModel` value; None for an offer without any price."""
    price: float | None
    """The published amount in ``currency`` per ``unit``; None when unknown (see ``price_reason``)."""
    currency: str | None
    unit: str | None
    """``hour`` or ``month``."""
    price_usd_per_hour: float | None
    """Price per instance-hour in USD (monthly / 730 h; CNY at the dated rate); None if not convertible."""
    price_usd_per_gpu_hour: float | None
    as_of: str | None
    source: str | None
    """Source of the price (of the offer's specification when unpriced)."""
    confidence: str | None
    interruption_band: str | None
    billing_granularity_s: int | None
    """Billing increment, seconds; None when unknown (consumers assume hourly)."""
    min_billing_s: int | None
    """Minimum billed duration, seconds; None when unknown."""
    term: dict[str, Any] | None
    compliance: tuple[str, ...]
    """Compliance labels of the provider/region from a source that can be relied on (confidence
    ``high`` or ``secondary``, e.g. ``MLPS 2.0 level 3``); see ``compliance_claimed``."""
    stale: bool
    """The price is not known to be within the staleness limit (``stale_after_days``): either it is
    older (``staleness == "stale"``) or its date is only bounded and the bounds straddle the limit
    (``"unknown"``). An unknown age is never taken as fresh."""
    price_reason: str | None
    """Why ``price`` or ``price_usd_per_hour`` is unknown, when it is."""
    exchange_rate_usd_per_unit: float | None = None
    """USD per unit of ``currency`` used for the conversion (1.0 for USD)."""
    exchange_rate_as_of: str | None = None
    network_kind: str | None = None
    """``EFA``, ``InfiniBand``, ``RoCE`` or ``TCP``; None = not published."""
    local_nvme_gb: float | None = None
    fetched_at: str | None = None
    """When ``catalog refresh`` read the price (None: from a file)."""
    list_price_usd_per_hour: float | None = None
    """The provider's list price before the user's negotiated discount (None: no discount applies,
    ``price_usd_per_hour`` is the list price)."""
    discount_percent: float | None = None
    """The user's negotiated discount applied to ``price_usd_per_hour`` (``catalog discount set``)."""
    as_of_precision: str | None = None
    """How precisely ``as_of`` dates the price (:class:`gpuplan.catalog.dates.AsOfPrecision`):
    ``day``, ``month``, ``year`` or ``bounded`` (``2025-06/2026-12-02``: observed at some time between
    the two dates, the source carrying no date); None for an offer without a price."""
    compliance_claimed: tuple[str, ...] = ()
    """Compliance labels the provider/region is only claimed to hold: the source is of low
    confidence (an article's claim, not the certificate), so a plan counts them only when asked to
    (``allow_low_confidence``); a label also in ``compliance`` is not repeated here."""
    age_days: int | None = None
    """Days since the earliest day ``as_of`` allows: the oldest the price can be (the age to judge
    it by); None without a price or a readable date."""
    age_min_days: int | None = None
    """Days since the latest day ``as_of`` allows: the youngest the price can be (equal to
    ``age_days`` for a day-precise date)."""
    staleness: str | None = None
    """``fresh`` (within ``stale_after_days`` even at its oldest), ``stale`` (beyond it even at its
    youngest) or ``unknown`` (the bounds straddle the limit); None without a price."""
    stale_after_days: int | None = None
    """The staleness limit the catalog was opened with (``--stale-days``, default 180)."""
    priced_on: date | None = None
    """The day the catalog was opened: the day the ages are counted to (None: not from a catalog)."""
    age_bound_launch: str | None = None
    """The launch month (``YYYY-MM``) of the offer's GPU where it, not ``as_of``, gives the earliest
    day the price may date from (an undated price cannot be older than its GPU): ``age_days`` is
    counted from it. None where ``as_of`` itself bounds the age (or the GPU's launch is not known)."""

    def without_price(self, pricing: str | None, reason: str) -> OfferPrice:
        """This offer under ``pricing`` with no price, and ``reason`` why: every field of its price
        (amount, currency, dates and ages, rate, discount, band, term) as an offer without one has
        it, as the store lists an unpriced offer."""
        return replace(self, pricing=pricing, price_reason=reason, **NO_PRICE)

    def discount_said(self) -> str:
        """Said after the price's source wherever it is costed (plan, tco): the user's negotiated
        discount is in the price, and the list price it was taken off ('' without one)."""
        if self.discount_percent is None or self.list_price_usd_per_hour is None:
            return ""
        from gpuplan.i18n import _, format_number, money
        from gpuplan.vocab import pricing_name

        listed = money(self.list_price_usd_per_hour, per="h")
        # the pricing model named: a discount is taken off the models it names only
        said = _("your {percent} % {pricing} discount applied; list {listed}").format(
            percent=format_number(self.discount_percent),
            pricing=pricing_name(self.pricing or ""),
            listed=listed,
        )
        return f" [{said}]"

    def dated_floor_usd_per_hour(self) -> DatedFloor | None:
        """For a spot price of unknown age (its date only bounded, or none), or dated but stale, below
        a dated price it is held to (:meth:`spot_age_held`; a stale one to fresh ones only): the
        highest such dated price, in USD per hour after the user's discount — the
        conservative figure for a price that undercuts the dated ones and may be a passing dip, an
        error or years old. Unknown is never the best case: the offer's own figure stays its best
        case. None otherwise.

        Two floors hold it, the higher wins:

        - the instance type's own: its region's lowest zone as instances.vantage.sh listed them on a
          day (``term["region_spot_usd_per_hour"]``), its average where only that is given, and for
          a region with neither the lowest dated spot price of the instance type in any region
          (``term["lowest_dated_spot_usd_per_hour"]``);
        - its GPU's (``term["gpu_spot_floor"]``, :mod:`gpuplan.catalog.spot_floors`): the lowest
          dated spot price per GPU-hour of the same GPU, fresh ones first, in its region, else in
          the catalog; where the catalog has no dated spot price of the GPU at all, the instance's
          own on-demand price, the bound a spot price never exceeds."""
        held = self.spot_age_held()
        if held is None or self.price_usd_per_hour is None:
            return None
        above = [
            f
            for f in (self._instance_floor(), self._gpu_floor())
            if f is not None
            and f.usd_per_hour > self.price_usd_per_hour
            and (held == "undated" or f.staleness == "fresh")  # a stale price: to fresher ones only
        ]
        return replace(max(above, key=lambda f: f.usd_per_hour), held=held) if above else None

    def spot_age_held(self) -> str | None:
        """Why this spot price is held to the dated spot prices above it
        (:meth:`dated_floor_usd_per_hour`): ``undated`` (its date only bounded, or none: held to
        every dated one) or ``stale`` (dated, but not known to be within the catalog's staleness
        limit: older than it even at its youngest, or dated by a month or a year that straddles it —
        held to the fresh ones only; a figure the provider may have repriced since is no more a fact
        of today than an undated one, and a date that may be past the limit is never taken as
        fresher than one that is). None: a dated price known to be fresh, or no spot price."""
        if self.pricing != "spot" or self.price_usd_per_hour is None:
            return None
        if self.as_of_precision in ("bounded", None):
            return "undated"
        return None if self.staleness == "fresh" else "stale"

    def _dated(
        self, usd_per_hour: float, day: str, basis: FloorBasis, region: str, source: object
    ) -> DatedFloor:
        age = (
            price_age(day, self.priced_on, self.stale_after_days)
            if self.priced_on is not None and self.stale_after_days is not None
            else None
        )
        return DatedFloor(
            usd_per_hour=usd_per_hour,
            as_of=day,
            basis=basis,
            region=region,
            source=source if isinstance(source, str) else "",
            age_days=age.age_days if age else None,
            staleness=age.staleness if age else "unknown",
        )

    def _instance_floor(self) -> DatedFloor | None:
        """The dated spot price of the instance type itself (its region's, else any region's)."""
        term = self.term or {}
        spread, basis, region = term.get("region_spot_usd_per_hour"), FloorBasis.REGION_LOW, self.region
        if not isinstance(spread, dict):
            spread, basis = term.get("lowest_dated_spot_usd_per_hour"), FloorBasis.OTHER_REGION
            if not isinstance(spread, dict) or not isinstance(spread.get("region"), str):
                return None
            region = spread["region"]
        low, day = spread.get("min"), spread.get("as_of")
        if not _positive(low) and basis is FloorBasis.REGION_LOW:
            low, basis = spread.get("avg"), FloorBasis.REGION_AVERAGE
        if not _positive(low) or not isinstance(day, str):
            return None
        floor = float(low) * (1.0 - (self.discount_percent or 0.0) / 100.0)
        return self._dated(floor, day, basis, region, spread.get("source"))

    def _gpu_floor(self) -> DatedFloor | None:
        """The floor of the offer's GPU (``term["gpu_spot_floor"]``), per instance-hour."""
        held = (self.term or {}).get("gpu_spot_floor")
        if not isinstance(held, dict) or not self.gpu_count > 0:
            return None
        per_gpu, day, basis = held.get("usd_per_gpu_hour"), held.get("as_of"), held.get("basis")
        if not _positive(per_gpu) or not isinstance(day, str) or basis not in {b.value for b in FloorBasis}:
            return None
        floor = float(per_gpu) * self.gpu_count
        if basis != FloorBasis.ON_DEMAND.value:  # the on-demand figure carries its own discount already
            floor *= 1.0 - (self.discount_percent or 0.0) / 100.0
        region = held.get("region")
        return self._dated(
            floor,
            day,
            FloorBasis(basis),
            region if isinstance(region, str) else self.region,
            held.get("source"),
        )

    def conservative_usd_per_gpu_hour(self) -> float | None:
        """``price_usd_per_gpu_hour``, or the dated floor's per GPU where one stands above it
        (:meth:`dated_floor_usd_per_hour`): what a fleet is costed at."""
        floor = self.dated_floor_usd_per_hour()
        if floor is None or not self.gpu_count > 0:
            return self.price_usd_per_gpu_hour
        return floor.usd_per_hour / self.gpu_count


def _offer_price_defaults() -> dict[str, Any]:
    found = {}
    for f in fields(OfferPrice):
        if f.default_factory is not MISSING:
            raise TypeError(f"OfferPrice.{f.name}: trusted_offer_price cannot build a default factory")
        if f.default is not MISSING:
            found[f.name] = f.default
    return found


_OFFER_PRICE_DEFAULTS = _offer_price_defaults()
_OFFER_PRICE_FIELD_COUNT = len(fields(OfferPrice))


def trusted_offer_price(values: dict[str, Any]) -> OfferPrice:
    """``OfferPrice(**values)`` for values the store has read and typed itself, built without the
    frozen dataclass's ``__init__``: at catalog size (8,000 rows) its one ``object.__setattr__`` per
    field (38 fields) cost more than the SQL query. OfferPrice has no ``__post_init__`` and no
    slots; ``tests/catalog/test_listing_speedups.py`` holds every row of the shipped catalog equal
    to the one ``OfferPrice(**values)`` builds.

    The caller hands ``values`` over: when it names every field it becomes the row's ``__dict__``
    as it is (copying 38 keys into a new dict, growing it, cost more than the rest of the row and
    twice its memory); otherwise the fields it leaves out take their defaults in a new dict."""
    offer = object.__new__(OfferPrice)
    if len(values) != _OFFER_PRICE_FIELD_COUNT:
        values = {**_OFFER_PRICE_DEFAULTS, **values}
    object.__setattr__(offer, "__dict__", values)
    return offer


@dataclass(frozen=True, kw_only=True)
class TransferTier:
    """One tier of a data-transfer price (internet egress or inter-region)."""

    provider: str
    region: str
    """The region the row was published for (``*`` = a generic, not region-specific row)."""
    kind: str
    """``internet_egress`` or ``inter_region``."""
    start_gb: float
    """Tier start, in ``quantity_unit`` per month."""
    end_gb: float | None
    """Tier end, in ``quantity_unit`` per month; None = unbounded."""
    price_per_gb: float | None
    """Price per ``quantity_unit``; None when unknown (see ``reason``). 0 only for a published free tier."""
    currency: str
    quantity_unit: str
    """``GB`` or ``GiB`` as published (TB = 1024 GB, as the AWS price list counts)."""
    as_of: str | None
    source: str
    confidence: str
    description: str
    fallback: bool = False
    """True when the asked region had no rows and these are the provider's generic/default-region rows."""
    reason: str | None = None
    """Why the price is unknown, or why a fallback was used."""


@dataclass(frozen=True, kw_only=True)
class StoragePrice:
    """An object or block storage price."""

    provider: str
    region: str
    kind: str
    """``object`` or ``block``."""
    storage_class: str
    """The provider's class name (``S3 Standard``, ``EBS gp3``)."""
    price: float | None
    """Published amount per GB per ``unit``; None when unknown."""
    currency: str
    unit: str
    """``GB-month`` or ``GB-hour`` as published."""
    price_per_gb_month: float | None
    """The same per GB-month (GB-hour x 730); None when unknown."""
    as_of: str | None
    source: str
    confidence: str
    notes: str = ""
    fallback: bool = False
    """True when these rows are another region's (the provider's default region) for lack of data."""
    reason: str | None = None


#: The licence items the shipped snapshot names (``tools/build_snapshot.py`` writes them from here):
#: catalog messages, so that a plan's "licence fee unknown (…)" note names them in the user's
#: language. An item a team adds itself is shown as written.
#: PyTorch itself is free to use (its LICENSE, BSD-style: github.com/pytorch/pytorch/blob/main/LICENSE);
#: the fee no source gives is the paid "PyTorch enterprise edition" an undated Chinese guide says some
#: providers sell, which the item's name says is optional (it had read as PyTorch's own licence).
FRAMEWORK_LICENCE = N_("optional paid PyTorch edition; PyTorch itself is free")
LINUX_OS_LICENCE = N_("OS licence (Linux, on-demand)")
LICENCE_ITEMS = (FRAMEWORK_LICENCE, LINUX_OS_LICENCE)
#: Descriptions of the shipped transfer prices of low confidence (``transfer.csv``): a plan says one
#: as why it bounds the figure, so each is a catalog message, shown in the reader's language. A
#: description a team's own rows give is shown as written.
LOW_CONFIDENCE_TRANSFER = (
    N_(
        "internet egress (vm_flow_out, pay-by-traffic): usagePrice STEP_ARRIVE of an example answer of "
        "the price API, which names no region; an example figure, not a published price of any region"
    ),
    N_("object storage OBS / internet egress"),
    N_("object storage TOS / internet egress"),
    N_("object storage COS / internet egress"),
)


@dataclass(frozen=True, kw_only=True)
class LicenceFee:
    """A licence fee (or the known absence of one) for a provider/region."""

    provider: str
    region: str
    item: str
    """What the fee is for (``OS image``, ``PyTorch enterprise support`` …)."""
    applies: bool | None
    """True: a fee is charged; False: the source says none is; None: unknown (see ``reason``)."""
    price: float | None
    currency: str | None
    unit: str | None
    as_of: str | None
    source: str
    reason: str | None = None


@dataclass(frozen=True, kw_only=True)
class BillingPolicy:
    """How a provider bills compute time."""

    provider: str
    region: str
    granularity_s: int | None
    """Billing increment, seconds; None = unknown."""
    min_billing_s: int | None
    as_of: str | None
    source: str | None
    reason: str | None = None


#: The confidences of a compliance label that a plan relies on unasked: the provider's own list of
#: certificates (``high``) or a dated compilation of them (``secondary``). A ``low`` one is a claim (an
#: undated article saying so), which satisfies a required label only with ``allow_low_confidence``.
CERTAIN_COMPLIANCE = frozenset({Confidence.HIGH.value, Confidence.SECONDARY.value})


@dataclass(frozen=True, kw_only=True)
class ComplianceLabel:
    """A certification a provider/region holds, with the source that says so."""

    provider: str
    region: str
    label: str
    as_of: str | None
    source: str
    confidence: str

    @property
    def certain(self) -> bool:
        """The source can be relied on (:data:`CERTAIN_COMPLIANCE`); else the label is only a claim."""
        return self.confidence in CERTAIN_COMPLIANCE


#: An exchange rate older than this many days is flagged wherever it converts an amount: a rate moves
#: a few percent in a month (USD/CNY moved 2.8 % between 2024-11-25 and 2026-01-27), more than the
#: rounding any table shows.
RATE_STALE_AFTER_DAYS = 30


@dataclass(frozen=True, kw_only=True)
class ExchangeRate:
    """A dated conversion rate to USD."""

    currency: str
    usd_per_unit: float
    """US dollars per one unit of ``currency``."""
    as_of: str
    """The day the rate was fixed (``YYYY-MM-DD``), ``-`` for USD itself."""
    source: str
    age_days: int | None = None
    """Days from ``as_of`` to the day the catalog was opened; None when ``as_of`` is not a date."""

    @property
    def stale(self) -> bool:
        """Older than :data:`RATE_STALE_AFTER_DAYS` (an undated rate is not known to be fresh)."""
        if self.currency == "USD":
            return False
        return self.age_days is None or self.age_days > RATE_STALE_AFTER_DAYS


@dataclass(frozen=True, kw_only=True)
class BenchResult:
    """One measurement of a real machine (written by ``gpuplan bench``)."""

    gpu_id: str | None
    """Canonical GPU id, None if the device could not be matched."""
    device_name: str
    """The name the driver reports."""
    host: str
    measured_at: str
    """ISO timestamp."""
    metric: str
    """E.g. ``matmul_tflops``, ``memory_bandwidth_gbps``."""
    dtype: str | None
    value: float
    unit: str
    datasheet_value: float | None
    details: dict[str, Any] = field(default_factory=dict)


#: Why a catalog file's row of a machine without an accelerator is not imported: out of scope (a
#: SkyPilot or gpuhunt file lists every instance type), not an error in the file.
NOT_A_GPU_INSTANCE = N_("no accelerator (not a GPU instance)")


@dataclass(frozen=True, kw_only=True)
class RejectedRow:
    """A row an import did not take, and why.

    ``reason`` is the English line (what ``--json`` and the import's record say); a row made with
    :meth:`because` also keeps it as Phrases, written in the user's language by :meth:`reason_text`.
    """

    line: int | None
    instance_type: str
    region: str
    reason: str
    skipped: bool = False
    """A row of what gpuplan does not price, left out by design rather than lost: a machine without a
    GPU, or an accelerator the hardware catalog has no datasheet of, named by an upstream catalog
    (SkyPilot's, gpuhunt's list every instance type, FPGAs and new chips among them). An import that
    left out only such rows imported all it could: it exits 0, and a nightly script is told of the
    rows it lost only when it lost some."""

    @classmethod
    def because(
        cls,
        reason: object,
        *,
        line: int | None,
        instance_type: str,
        region: str,
        check: object = None,
        skipped: bool = False,
    ) -> RejectedRow:
        """The row refused for ``reason`` (a Phrase, an error, or the joined Phrases of several);
        ``check`` names, in a few plain words, the check that refused it, the same for every row it
        refused (a reason names its row and value), so that refusals can be counted by it."""
        row = cls(line=line, instance_type=instance_type, region=region, reason=str(reason), skipped=skipped)
        # Not fields: documents and JSON are made from the fields, and a Phrase is no JSON value.
        object.__setattr__(row, "_worded", reason)
        object.__setattr__(row, "_check", check)
        return row

    def named_check(self) -> object | None:
        """The check that refused the row when one was named (see :meth:`because`), else None."""
        return self.__dict__.get("_check")

    def check_text(self) -> str:
        """The check that refused the row, in the current language; its reason where none is named."""
        from gpuplan.i18n.error_text import phrase_text

        check = self.__dict__.get("_check")
        return phrase_text(check) if check is not None else self.reason_text()

    def worded_reason(self) -> object:
        """The reason as Phrases when it was made from them (and is still their text), else ``reason``."""
        worded = self.__dict__.get("_worded")
        if worded is not None and str(worded) == self.reason:
            return worded
        return self.reason

    def reason_text(self) -> str:
        """The reason in the current language."""
        from gpuplan.i18n.error_text import phrase_text

        return phrase_text(self.worded_reason())


@dataclass(frozen=True, kw_only=True)
class ImportReport:
    """What an import did."""

    provider: str
    source: str
    offers_imported: int
    prices_imported: int
    rejected: tuple[RejectedRow, ...]
    import_id: int | None
    """Id of the import in the store; None when nothing was written."""
    prices_already_recorded: int = 0
    """Prices the store held already for the same offer, pricing model, date, amount, currency, unit
    and term: not recorded again (a file imported twice adds nothing)."""
    dated: tuple[str, ...] = ()
    """The dates (``as_of``) of the prices imported, earliest first: what the import took them to
    have been read on (a SkyPilot file carries none; the user's ``--as-of`` gives it)."""


@dataclass(frozen=True, kw_only=True)
class CatalogInfo:
    """What the store holds."""

    location: str
    """Database URL, password masked."""
    schema_revision: str
    providers: tuple[str, ...]
    offers: int
    prices: int
    offers_by_provider: dict[str, int]
    prices_by_pricing: dict[str, int]
    oldest_as_of: str | None
    newest_as_of: str | None
    imports: int
    exchange_rates: tuple[ExchangeRate, ...]
    stale_after_days: int
    coverage: tuple[Any, ...] = ()
    """Per provider (:class:`gpuplan.catalog.coverage.ProviderCoverage`): offers, regions, pricing
    models, oldest/newest ``as_of`` and what its last ``catalog refresh`` did."""


@dataclass(frozen=True, kw_only=True)
class StoredMeasurement:
    """One ``gpuplan measure`` recording as the store keeps it: a few columns to find it by, and
    the whole recording as JSON (its format is ``gpuplan.documents.measure``, read by ``perf``)."""

    profile_key: str
    """The measured workload's trace key (it names the Profile schema and torch version too)."""
    workload_name: str
    device: str
    """``cuda`` or ``cpu``."""
    gpu_id: str | None
    device_name: str
    measured_at: str
    schema_version: int
    """The recording's ``schema_version``."""
    payload: str
    measurement_key: str | None = None
    """What was measured (``gpuplan.profile.measurement_key``: the trace key without the schema
    and torch versions); None for a recording stored before catalog revision 0005."""
    id: int | None = None
    """The store's id of the recording (``catalog recordings list``, ``delete``); None before it is
    stored."""
