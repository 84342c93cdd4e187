"""The dated spot price per GPU-hour that a spot price of unknown age is held to.

Most spot prices in the catalog carry no date of their own (their source is a snapshot of a
provider's API without one: ``2022-03/2026-12-02``). Some instance types also carry the dated spot
prices of their region (instances.vantage.sh, AWS), and an undated price is held to those
(:meth:`~gpuplan.catalog.model.OfferPrice.dated_floor_usd_per_hour`). A provider without any dated
spot price — Azure in the shipped catalog — had nothing to hold it: an undated $0.45/GPU-h for an
A100 80GB, 89 % off its on-demand price and a third of every dated A100 80GB spot price, won a plan
at face value. Unknown is never the best case, so every undated spot price is also held to its
GPU's dated spot prices:

1. the lowest dated spot price per GPU-hour of the same GPU in its own region (any instance type),
   fresh ones (within the catalog's staleness limit) first;
2. else the lowest anywhere in the catalog, fresh ones first;
3. else — the catalog has no dated spot price of the GPU at all — the instance's own on-demand
   price, the bound a spot price does not exceed.

A spot price that is dated but not known to be fresh (older than the catalog's staleness limit,
``--stale-days``, even at its youngest, or dated by a month or a year that straddles it) is held
the same way to the fresh dated spot prices of its GPU only (1 and 2; never to the on-demand bound,
nor to another old figure): a price the provider may have repriced since is no more today's than an
undated one, and its own figure stays the best case.

The floor travels in the row's ``term`` (``gpu_spot_floor``), as the instance type's floors do, so
that ``offers``, ``plan``, ``simulate`` and ``tco`` all read it through the one method.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, TypeGuard

from gpuplan.catalog.dates import price_age
from gpuplan.catalog.model import FloorBasis, OfferPrice, trusted_offer_price

__all__ = ["DatedSpot", "dated_spot_prices", "needs_gpu_floor", "with_gpu_floors"]


@dataclass(frozen=True, kw_only=True)
class DatedSpot:
    """One dated spot price of a GPU, per GPU-hour."""

    usd_per_gpu_hour: float
    """List price (before any negotiated discount), USD per GPU-hour."""
    as_of: str
    provider: str
    region: str
    source: str
    fresh: bool
    """Within the catalog's staleness limit on the day it was opened."""


def needs_gpu_floor(row: OfferPrice) -> bool:
    """A spot price of unknown age, or dated but stale (:meth:`OfferPrice.spot_age_held`), in USD,
    of whole GPUs."""
    return row.gpu_count >= 1 and row.spot_age_held() is not None


def _observed(row: OfferPrice) -> Iterable[tuple[str, float, str, str]]:
    """(region, USD per instance-hour, day, source) of each dated spot price a spot row carries:
    its own where it is dated, and the dated prices of its instance type in its term."""
    if row.as_of_precision not in ("bounded", None) and row.as_of and row.confidence != "low":
        listed = row.list_price_usd_per_hour or row.price_usd_per_hour
        if listed is not None:
            yield row.region, listed, row.as_of, row.source or ""
    term = row.term or {}
    spread = term.get("region_spot_usd_per_hour")
    if isinstance(spread, dict):
        low = spread.get("min") if _positive(spread.get("min")) else spread.get("avg")
        if _positive(low) and isinstance(spread.get("as_of"), str):
            yield row.region, float(low), spread["as_of"], str(spread.get("source") or "")
    other = term.get("lowest_dated_spot_usd_per_hour")
    if isinstance(other, dict) and isinstance(other.get("region"), str):
        low = other.get("min")
        if _positive(low) and isinstance(other.get("as_of"), str):
            yield other["region"], float(low), other["as_of"], str(other.get("source") or "")


def _positive(value: object) -> TypeGuard[float]:
    return isinstance(value, int | float) and value > 0


def dated_spot_prices(
    spot_rows: Iterable[OfferPrice], today: date, stale_after_days: int
) -> dict[str, tuple[DatedSpot, ...]]:
    """Every dated spot price of the catalog, per GPU, from its spot rows (all providers)."""
    found: dict[str, dict[tuple[str, str, str], DatedSpot]] = {}
    for row in spot_rows:
        if row.pricing != "spot" or not row.gpu_count >= 1:
            continue
        for region, usd_per_hour, day, source in _observed(row):
            per_gpu = usd_per_hour / row.gpu_count
            key = (row.provider, region, day)
            mine = found.setdefault(row.gpu, {})
            if key in mine and mine[key].usd_per_gpu_hour <= per_gpu:
                continue
            mine[key] = DatedSpot(
                usd_per_gpu_hour=per_gpu,
                as_of=day,
                provider=row.provider,
                region=region,
                source=source,
                fresh=price_age(day, today, stale_after_days).staleness == "fresh",
            )
    return {gpu: tuple(by_key.values()) for gpu, by_key in found.items()}


def _lowest(prices: Sequence[DatedSpot], *, fresh_only: bool) -> DatedSpot | None:
    """The lowest of the fresh ones, else (unless ``fresh_only``) of all: a dated price, if old, is
    still a fact beside an undated one, but not beside another old one."""
    fresh = [p for p in prices if p.fresh]
    pool = fresh or ([] if fresh_only else list(prices))
    return min(pool, key=lambda p: p.usd_per_gpu_hour) if pool else None


def _floor_of(
    row: OfferPrice, dated: Sequence[DatedSpot], on_demand: OfferPrice | None
) -> dict[str, Any] | None:
    """The GPU floor of an undated price, or of a stale one (held to fresh dated prices only, and
    never to the on-demand bound: its own date is a fact where no fresher spot price is)."""
    stale = row.spot_age_held() == "stale"
    here = _lowest(
        [p for p in dated if p.provider == row.provider and p.region == row.region], fresh_only=stale
    )
    if here is not None:
        return {
            "usd_per_gpu_hour": here.usd_per_gpu_hour,
            "as_of": here.as_of,
            "basis": FloorBasis.GPU_REGION.value,
            "region": row.region,
            "source": here.source,
        }
    anywhere = _lowest(dated, fresh_only=stale)
    if anywhere is not None:
        return {
            "usd_per_gpu_hour": anywhere.usd_per_gpu_hour,
            "as_of": anywhere.as_of,
            "basis": FloorBasis.GPU_CATALOG.value,
            "region": f"{anywhere.provider}/{anywhere.region}",
            "source": anywhere.source,
        }
    if stale or on_demand is None or on_demand.price_usd_per_gpu_hour is None or not on_demand.as_of:
        return None
    return {  # the user's on-demand discount is in this figure already
        "usd_per_gpu_hour": on_demand.price_usd_per_gpu_hour,
        "as_of": on_demand.as_of,
        "basis": FloorBasis.ON_DEMAND.value,
        "region": row.region,
        "source": on_demand.source or "",
    }


def with_gpu_floors(
    rows: Sequence[OfferPrice],
    dated: Mapping[str, Sequence[DatedSpot]],
    on_demand: Mapping[tuple[str, str, str], OfferPrice],
) -> list[OfferPrice]:
    """``rows`` with each undated (or stale) spot price's GPU floor in its term (``gpu_spot_floor``).
    ``on_demand``: the on-demand row of each (provider, region, instance type)."""
    out = []
    for row in rows:
        if needs_gpu_floor(row):
            floor = _floor_of(
                row, dated.get(row.gpu, ()), on_demand.get((row.provider, row.region, row.instance_type))
            )
            if floor is not None:
                # the row's own fields, typed already: built as the store builds its rows (a
                # dataclass replace() per spot row had doubled the time of a whole-catalog listing)
                term = {**(row.term or {}), "gpu_spot_floor": floor}
                row = trusted_offer_price({**vars(row), "term": term})
        out.append(row)
    return out
