"""Prices a SkyPilot catalog gets wrong, found across rows, and taken out with the reason.

The store's gates judge one row at a time and refuse a whole row. These two traps need to see more
than one row, and take out only the wrong price:

- a spot price at or above the on-demand price of the same instance type in the same region (AWS
  lists spot per zone, on-demand per region), or within :data:`SAME_AS_ON_DEMAND` of it: the spot
  price goes, the on-demand price stays. Within that share either side it is the on-demand figure
  repeated, rounded (30.0978 beside 30.09784), where no spot price is published; further above it
  is dearer than on demand, not a spot discount. The reason says which;
- the same SKU far apart between regions: when the on-demand prices of one instance type, sorted,
  jump by more than :data:`FAR_APART` between neighbours, the prices below the jump are taken out.
  A provider's regional prices for one SKU differ gradually (AWS's dearest regions are about 1.6x
  its cheapest, in many steps); a jump of 1.7-2.3x between two clusters of identical figures, as
  SkyPilot's GCP rows for H100, H200 and A100 GPUs show, is another price list (a discounted or
  flex-start SKU) filed as on-demand. Of the two sides the lower is dropped: an unknown price must
  never make an option look cheaper than it is.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace

from gpuplan.catalog.model import OfferRow

__all__ = [
    "FAR_APART",
    "SAME_AS_ON_DEMAND",
    "Trap",
    "far_apart",
    "repeats_on_demand",
    "spot_not_below_on_demand",
]

#: A spot price at least this share of the on-demand price is the on-demand figure repeated (SkyPilot
#: rounds it to four decimals where a zone has no spot price); AWS caps spot at on-demand.
SAME_AS_ON_DEMAND = 0.999

#: Ratio between neighbouring sorted regional on-demand prices of one SKU above which the lower side
#: is not the same price list (see the module docstring). AWS and Azure in SkyPilot's copy stay below
#: it for every SKU; GCP's H100/H200/A100/B200 GPU rows jump by 1.40-2.33.
FAR_APART = 1.35


@dataclass(frozen=True)
class Trap:
    """A price taken out: which, and why (English, for the skip report)."""

    provider: str
    region: str
    zone: str | None
    instance_type: str
    pricing: str
    amount: float
    reason: str
    line: int | None = None
    """The file line the price was read from, where known."""
    compared: float | None = None
    """What the price was compared with (a spot price: its region's on-demand price)."""

    def what(self) -> str:
        where = f"{self.region}/{self.zone}" if self.zone else self.region
        return f"{self.provider} {self.instance_type} {where} {self.pricing} {self.amount:g} USD/h"


def repeats_on_demand(spot: float, on_demand: float) -> bool:
    """Whether a spot price at or above :data:`SAME_AS_ON_DEMAND` of the on-demand one is that
    figure repeated (within the same share above it too: rounding goes either way) rather than a
    price dearer than on demand."""
    return spot * SAME_AS_ON_DEMAND <= on_demand


def _spot_reason(spot: float, on_demand: float) -> str:
    if repeats_on_demand(spot, on_demand):
        return f"spot {spot:g} repeats its on-demand price {on_demand:g} (no spot price published)"
    return f"spot {spot:g} above on-demand {on_demand:g}: not a spot discount, dropped"


def _without(row: OfferRow, pricing: str) -> OfferRow:
    return replace(row, prices=tuple(p for p in row.prices if p.pricing != pricing))


def spot_not_below_on_demand(rows: Sequence[OfferRow]) -> tuple[list[OfferRow], list[Trap]]:
    """Rows with every spot price at or above its region's on-demand price taken out."""
    on_demand: dict[tuple[str, str, str], float] = {}
    for r in rows:
        for p in r.prices:
            if p.pricing == "on_demand" and p.unit == "hour" and p.amount > 0:  # else refused by the gates
                key = (r.provider, r.region, r.instance_type)
                on_demand[key] = min(on_demand.get(key, math.inf), p.amount)
    out: list[OfferRow] = []
    traps: list[Trap] = []
    for r in rows:
        od = on_demand.get((r.provider, r.region, r.instance_type))
        if od is None:
            out.append(r)
            continue
        bad = [p for p in r.prices if p.pricing == "spot" and p.amount >= SAME_AS_ON_DEMAND * od]
        for p in bad:
            traps.append(
                Trap(
                    r.provider,
                    r.region,
                    r.zone,
                    r.instance_type,
                    "spot",
                    p.amount,
                    _spot_reason(p.amount, od),
                    line=r.line,
                    compared=od,
                )
            )
        out.append(_without(r, "spot") if bad else r)
    return out, traps


def far_apart(rows: Sequence[OfferRow], ratio: float = FAR_APART) -> tuple[list[OfferRow], list[Trap]]:
    """Rows with the on-demand prices far below the same SKU's in other regions taken out."""
    by_sku: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for r in rows:
        for p in r.prices:
            if p.pricing == "on_demand" and p.unit == "hour" and p.currency == "USD":
                by_sku[(r.provider, r.instance_type)][r.region] = p.amount
    low: dict[tuple[str, str, str], str] = {}
    for (provider, itype), by_region in by_sku.items():
        values = sorted(set(by_region.values()))
        jumps = [(values[i + 1] / values[i], i) for i in range(len(values) - 1) if values[i] > 0]
        if not jumps:
            continue
        worst, at = max(jumps)
        if worst <= ratio:
            continue
        cut = values[at]
        above = sorted((v, reg) for reg, v in by_region.items() if v > cut)
        example = f"{above[0][0]:g} in {above[0][1]}" + (
            f" … {above[-1][0]:g} in {above[-1][1]}" if len(above) > 1 else ""
        )
        for region, v in by_region.items():
            if v <= cut:
                low[(provider, itype, region)] = (
                    f"{v:g} USD/h is {worst:.2f}x below the next price of the same SKU elsewhere "
                    f"({example}): another price list filed as on-demand, not taken"
                )
    out: list[OfferRow] = []
    traps: list[Trap] = []
    for r in rows:
        reason = low.get((r.provider, r.instance_type, r.region))
        if reason is None:
            out.append(r)
            continue
        for p in r.prices:
            if p.pricing == "on_demand":
                traps.append(
                    Trap(r.provider, r.region, r.zone, r.instance_type, "on_demand", p.amount, reason)
                )
        out.append(_without(r, "on_demand"))
    return out, traps
