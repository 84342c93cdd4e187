"""A new price held to the catalog's prices of the same instance type: yuan typed as dollars (or
dollars as yuan), a monthly figure typed as hourly, the wrong instance type.

A figure read in the wrong currency stands about seven times off (6.99-7.19 CNY per USD at the
catalog's dated rates), which the GPU-wide range of :func:`~gpuplan.catalog.importers.own.out_of_line`
(ten times the highest or lowest price of the GPU) lets pass: 3800 "USD" a month for Alibaba's A10
instance is 5.2 USD per GPU-hour, under ten times the A10's dearest monthly price. Only the same
instance type's price shows the slip. The price is compared, per instance-hour in USD at the
catalog's rate (a month is 730 h), with the first of these the catalog holds:

1. the same pricing model in the same region: the same offer's (its zone, or region-wide) price, else
   the nearest of the region's zones;
2. the same pricing model in any region of the provider: the nearest;
3. for a committed price (monthly, reserved) or a spot price: the on-demand price of the instance
   type, in the same region first, then the nearest of any region, hour for hour of the term.

Spot prices skip the first two: a spot market moves on its own, and one region's zones differ by up to
8.8x in the shipped catalog (AWS g6e.48xlarge in eu-south-2); their relation to on-demand is steadier.
Each band below is set from the shipped catalog (every price held to the others as if imported,
``tests/catalog/test_catalog_instance_prices.py``: none refused) and the seven-fold slip it must catch.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gpuplan.catalog.model import OfferPrice, OfferRow, PriceRow
from gpuplan.errors import Phrase
from gpuplan.i18n.messages import N_
from gpuplan.units import HOURS_PER_MONTH
from gpuplan.vocab import Currency, PriceUnit, PricingModel, price_words

__all__ = [
    "COMMITTED_TO_ON_DEMAND",
    "SAME_MODEL_BAND",
    "SPOT_TO_ON_DEMAND",
    "HeldPrice",
    "held_prices",
    "off_the_instance",
]

#: How far, either way, a price may stand from the catalog's price of the same instance type under
#: the same pricing model: 2.6x, just under √7 ≈ 2.65, the geometric middle between the held figure
#: (1x) and the same figure read in the other currency (~7x) — a price further off is nearer the
#: slip than the price. The shipped catalog's widest spread between the regions of one instance type
#: is 1.72x (Alibaba on demand, cn-hongkong against the mainland; AWS reserved 3 years: 1.56x), and a
#: price cut of 60 % (0.4x) passes; a deeper one is refused with the figure it was compared with, for
#: the user to confirm.
SAME_MODEL_BAND = 2.6
#: A committed price (monthly, reserved), hour for hour, against the instance type's on-demand price:
#: (lowest, highest). A commitment is a discount: 21-67 % under on demand in the shipped catalog
#: (0.33-0.79x of the same region's on-demand price, 1,136 monthly and reserved prices; AWS p3dn
#: reserved 3 years the deepest). The floor, 0.2x (80 % off), leaves room under the deepest and lies
#: over the shallowest discount read in the other currency (1/7 ≈ 0.14x); the ceiling, 1.8x, lies over
#: the widest regional spread (1.72x, when only another region's on-demand price is held) and under
#: the deepest discount read as yuan (0.33 x 7 ≈ 2.3).
COMMITTED_TO_ON_DEMAND = (0.2, 1.8)
#: A spot price against the instance type's on-demand price: (lowest, highest). The shipped catalog's
#: spot prices stand 0.09-1.0x their on-demand (GCP P100 in asia-east1: 91 % off); the floor is half
#: the deepest, the ceiling the committed one's (a spot price not below the same region's on-demand
#: price is refused by the gates as well).
SPOT_TO_ON_DEMAND = (0.05, 1.8)

#: What a figure read in the other currency stands at, about (CNY per USD at the catalog's rates:
#: 6.99-7.19), and how far either way a ratio may lie from it to be named as that slip.
_CURRENCY_FACTOR = 7.0
_SLIP_BAND = 2.0
#: Ratios past this are named as a month for an hour (730x) or an hour for a month.
_UNIT_SLIP = 100.0
#: How far either way a ratio may lie from 0.1x or 10x to be named as a digit lost or added (25000
#: typed 2500). Tighter than the currency band, which holds 0.1 (1/7 ÷ 2 to 1/7 × 2), and short of
#: one GPU's price of an 8-GPU instance (0.125x) and of a currency slip (1/7 = 0.14x), each then
#: named alone. A user told only "dollars in a CNY row?" had retyped 2500 CNY as 2500 USD, which
#: passed as ¥17,465: 30 % under the real ¥25,000, and the cheapest offer in the catalog.
_DIGIT_BAND = 1.2


@dataclass(frozen=True, kw_only=True)
class HeldPrice:
    """A price the catalog holds for an instance type: what a new one is compared with."""

    region: str
    zone: str
    """``""`` for a region-wide offer."""
    pricing: str
    amount: float
    """As the catalog holds it, in ``currency`` per ``unit``."""
    currency: str
    unit: str
    as_of: str
    usd_per_hour: float
    """The list price per instance-hour in USD (a month is 730 h; yuan at the catalog's rate)."""
    rate_as_of: str | None
    """The date of the CNY rate ``usd_per_hour`` was converted at (None for a dollar price)."""


def held_prices(offers: Iterable[OfferPrice]) -> dict[tuple[str, str], list[HeldPrice]]:
    """The catalog's prices by (provider, instance type): every priced offer's current price under
    each pricing model that is not of low confidence (a price the catalog itself doubts vouches for
    no other) and has a dollar figure."""
    out: dict[tuple[str, str], list[HeldPrice]] = {}
    for o in offers:
        usd = o.list_price_usd_per_hour if o.list_price_usd_per_hour is not None else o.price_usd_per_hour
        if o.pricing is None or o.price is None or o.currency is None or o.unit is None or o.as_of is None:
            continue
        if usd is None or not (math.isfinite(usd) and usd > 0) or o.confidence == "low":
            continue
        out.setdefault((o.provider, o.instance_type), []).append(
            HeldPrice(
                region=o.region,
                zone=o.zone or "",
                pricing=o.pricing,
                amount=o.price,
                currency=o.currency,
                unit=o.unit,
                as_of=o.as_of,
                usd_per_hour=usd,
                rate_as_of=o.exchange_rate_as_of if o.currency != Currency.USD.code else None,
            )
        )
    return out


def off_the_instance(
    row: OfferRow, p: PriceRow, usd_per_unit: float, held: Sequence[HeldPrice], written: str | None
) -> Phrase | None:
    """Why ``p`` of ``row`` (its currency worth ``usd_per_unit`` dollars) is out of line with the
    first of ``held`` (the catalog's prices of the same instance type) it is compared with, or None:
    within its band, or nothing to compare with. ``written``: the figure as its file writes it."""
    if not (math.isfinite(p.amount) and p.amount > 0):
        return None  # the gates refuse it
    hours = HOURS_PER_MONTH if p.unit == PriceUnit.MONTH.value else 1.0
    usd = p.amount * usd_per_unit / hours
    found = _compared(row, p, usd, held)
    if found is None:
        return None
    ref, (low, high) = found
    ratio = usd / ref.usd_per_hour
    if low <= ratio <= high:
        return None
    fields: dict[str, object] = {
        "pricing": Phrase(p.pricing),  # the pricing model's name, in the user's language
        "price": written or f"{p.amount:g}",
        **price_words(p.currency, p.unit),
        "instance": row.instance_type[:100],
        "region": row.region,
        "ratio": _times(ratio),
        "where": f"{row.provider} {ref.region}" + (f" {ref.zone}" if ref.zone else ""),
        "held": _held_words(ref),
        "hint": _hint(p, ratio, row.gpu_count),
    }
    if ref.pricing == p.pricing:
        return Phrase(_SAME_MODEL, band=SAME_MODEL_BAND, **fields)
    return Phrase(_ON_DEMAND, low=low, high=high, on_demand=Phrase(PricingModel.ON_DEMAND.value), **fields)


def _compared(
    row: OfferRow, p: PriceRow, usd: float, held: Sequence[HeldPrice]
) -> tuple[HeldPrice, tuple[float, float]] | None:
    """The held price ``p`` is compared with, and the band of ratios it may stand at, or None."""
    zone = row.zone or ""

    from gpuplan.catalog.region_countries import region_country

    country = region_country(row.provider, row.region)

    def nearest(found: list[HeldPrice]) -> HeldPrice | None:
        # the same offer's own price where held, else the region's, else a region's of the same
        # country (a cn-beijing row against cn-hangzhou, not cn-hongkong), else any region's: the
        # nearest figure of them, so that a spread between zones or regions is never taken for a slip
        for group in (
            [h for h in found if h.region == row.region and h.zone == zone],
            [h for h in found if h.region == row.region],
            [h for h in found if country and region_country(row.provider, h.region) == country],
            found,
        ):
            if group:
                return min(group, key=lambda h: abs(math.log(usd / h.usd_per_hour)))
        return None

    if p.pricing != PricingModel.SPOT.value:
        same = nearest([h for h in held if h.pricing == p.pricing])
        if same is not None:
            return same, (1 / SAME_MODEL_BAND, SAME_MODEL_BAND)
    if p.pricing == PricingModel.ON_DEMAND.value:
        return None
    on_demand = nearest([h for h in held if h.pricing == PricingModel.ON_DEMAND.value])
    if on_demand is None:
        return None
    band = SPOT_TO_ON_DEMAND if p.pricing == PricingModel.SPOT.value else COMMITTED_TO_ON_DEMAND
    return on_demand, band


def _held_words(ref: HeldPrice) -> Phrase:
    if ref.rate_as_of is None:
        return Phrase(
            N_("{amount:,.6g} {currency}/{unit} as of {as_of}"),
            amount=ref.amount,
            **price_words(ref.currency, ref.unit),
            as_of=ref.as_of,
        )
    hours = HOURS_PER_MONTH if ref.unit == PriceUnit.MONTH.value else 1.0
    usd = ref.usd_per_hour * hours
    return Phrase(
        N_("{amount:,.6g} {currency}/{unit} as of {as_of}, {usd} USD at the CNY rate of {rate_day}"),
        amount=ref.amount,
        **price_words(ref.currency, ref.unit),
        as_of=ref.as_of,
        usd=f"{usd:,.0f}" if usd >= 100 else f"{usd:.4g}",  # 655, 22,904, 1.377 (never 2.29e+04)
        rate_day=ref.rate_as_of,
    )


def _hint(p: PriceRow, ratio: float, gpu_count: float) -> Phrase:
    """What the ratio most likely is (:func:`_slip`), and beside it a digit lost or added where the
    ratio is also near 0.1x or 10x: a figure that is right once a zero is put back must not be
    "fixed" by changing its currency."""
    hint = _slip(p, ratio, gpu_count)
    fallback = hint.template == _ANY_SLIP
    if 1 / _DIGIT_BAND <= ratio * 10 <= _DIGIT_BAND:
        if fallback:
            return Phrase(
                N_("a digit lost ({price:g} for {tenfold:g})?"), price=p.amount, tenfold=p.amount * 10
            )
        return Phrase(
            N_("{hint}; or a digit lost ({price:g} for {tenfold:g})?"),
            hint=hint,
            price=p.amount,
            tenfold=p.amount * 10,
        )
    if 1 / _DIGIT_BAND <= ratio / 10 <= _DIGIT_BAND:
        if fallback:
            return Phrase(
                N_("a digit too many ({price:g} for {tenth:g})?"), price=p.amount, tenth=p.amount / 10
            )
        return Phrase(
            N_("{hint}; or a digit too many ({price:g} for {tenth:g})?"),
            hint=hint,
            price=p.amount,
            tenth=p.amount / 10,
        )
    return hint


_ANY_SLIP = N_("the wrong currency, unit or instance type?")


def _slip(p: PriceRow, ratio: float, gpu_count: float) -> Phrase:
    """What the ratio most likely is: one GPU's price for an instance of several, the other currency,
    the other unit, or either.

    A price per GPU typed for an instance of ``gpu_count`` GPUs stands at about 1/gpu_count. On an
    8-GPU instance that is 0.125x, too near a dollar figure in a yuan row (1/7 ≈ 0.143x) to tell apart
    within the slip band, so both are named there: naming only the currency had a user retype 13500
    CNY (one A100's monthly price) as 13500 USD, which passed as the whole instance's."""
    per_gpu = gpu_count > 1 and _near(ratio, 1 / gpu_count)
    as_dollars = p.currency == Currency.CNY.code and _near(ratio, 1 / _CURRENCY_FACTOR)
    if per_gpu and as_dollars:
        return Phrase(
            N_(
                "a price per GPU for the whole instance? Write the price of all {n:g} GPUs (or, if it is "
                "in dollars, currency USD)"
            ),
            n=gpu_count,
        )
    if per_gpu:
        return Phrase(
            N_("a price per GPU for the whole instance? Write the price of all {n:g} GPUs"), n=gpu_count
        )
    if p.currency == Currency.USD.code and _near(ratio, _CURRENCY_FACTOR):
        return Phrase(N_("yuan in a USD row? Write currency CNY"))
    if as_dollars:
        return Phrase(N_("dollars in a CNY row? Write currency USD"))
    if p.unit == PriceUnit.HOUR.value and ratio > _UNIT_SLIP:
        return Phrase(N_("a monthly price typed as hourly?"))
    if p.unit == PriceUnit.MONTH.value and ratio < 1 / _UNIT_SLIP:
        return Phrase(N_("an hourly price typed as monthly?"))
    return Phrase(_ANY_SLIP)


def _times(ratio: float) -> str:
    """A ratio as a refusal writes it: 5.8, 0.14, 395, 2,600 (never 4e+02)."""
    return f"{ratio:,.0f}" if ratio >= 100 else f"{ratio:.2g}"


def _near(ratio: float, factor: float) -> bool:
    return factor / _SLIP_BAND <= ratio <= factor * _SLIP_BAND


_SAME_MODEL = N_(
    "{pricing} price {price} {currency}/{unit} of {instance} in {region} is {ratio}x the {pricing} "
    "price the catalog holds for it in {where} ({held}), more than {band:g}x off: {hint}"
)
_ON_DEMAND = N_(
    "{pricing} price {price} {currency}/{unit} of {instance} in {region} is, hour for hour, {ratio}x "
    "the {on_demand} price the catalog holds for it in {where} ({held}), outside the {low:g}-{high:g}x "
    "a {pricing} price stands at: {hint}"
)
