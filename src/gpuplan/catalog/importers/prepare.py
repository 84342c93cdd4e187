"""What a bulk import does to offer rows between the reader and the store's gates.

The snapshot builder (``tools/build_snapshot.py``) and ``gpuplan catalog import --skypilot DIR`` /
``--gpuhunt DIR`` run the same steps, so that a catalog refreshed from a newer checkout holds the
same offers as the shipped snapshot (the same provider, region, zone and instance type, so new
prices are appended to them) with the same prices taken out, each with its reason:

1. the prices of a source whose figures are not prices an offer can be costed with
   (:data:`UNRELIABLE`) are taken out; the offers stay, unpriced, with the reason;
2. GCP's zone rows become one offer per region where every zone has the same prices (GCP prices a
   machine per region; the zones are kept in the offer's notes), zone rows priced differently stay
   per zone;
3. the traps of :mod:`~gpuplan.catalog.importers.skypilot_traps`: a spot price not below the
   on-demand one, and the same hyperscaler SKU far apart between regions;
4. a row left without any price says why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from gpuplan.catalog.importers.skypilot_traps import far_apart, spot_not_below_on_demand
from gpuplan.catalog.model import OfferRow

__all__ = ["ALL_TAKEN_OUT", "HYPERSCALERS", "UNRELIABLE", "Prepared", "prepare"]

#: Providers whose catalog figures are not prices an offer can be costed with, and why.
UNRELIABLE: dict[str, str] = {
    "mithril": "Price equals SpotPrice on every row, 1.00 USD per GPU-hour for H100 and H200 alike: "
    "Mithril sells capacity by auction, and the figure is not said to be an on-demand price",
}
#: Providers whose SKUs are compared across regions (a marketplace's hosts set their own prices).
HYPERSCALERS = ("aws", "azure", "gcp")
#: The reason an offer whose every price was taken out carries.
ALL_TAKEN_OUT = "every price of this row in the source is taken out (see the import's notes)"


@dataclass(frozen=True)
class Prepared:
    """The rows ready for the gates, and each price or row taken out, as ``(what, why)`` in English
    (the builder writes them to ``skipped.csv``; an import counts them in its line)."""

    rows: tuple[OfferRow, ...]
    taken_out: tuple[tuple[str, str], ...]


def _unreliable(rows: Sequence[OfferRow], out: list[tuple[str, str]]) -> list[OfferRow]:
    kept: list[OfferRow] = []
    for r in rows:
        why = UNRELIABLE.get(r.provider)
        if why is None or not r.prices:
            kept.append(r)
            continue
        for p in r.prices:
            out.append((f"{r.provider} {r.instance_type} {r.region} {p.pricing} {p.amount:g}", why))
        kept.append(replace(r, prices=(), price_reason=why))
    return kept


def _regional_gcp(rows: Sequence[OfferRow], out: list[tuple[str, str]]) -> list[OfferRow]:
    groups: dict[tuple[str, str], list[OfferRow]] = {}
    kept: list[OfferRow] = []
    for r in rows:
        if r.provider == "gcp" and r.zone is not None:
            groups.setdefault((r.region, r.instance_type), []).append(r)
        else:
            kept.append(r)
    for (region, itype), zone_rows in groups.items():
        shapes = {tuple((p.pricing, p.amount) for p in z.prices) for z in zone_rows}
        if len(shapes) > 1:
            out.append((f"gcp {itype} {region}", "zones priced differently: kept per zone"))
            kept.extend(zone_rows)
            continue
        note = "zones: " + ", ".join(sorted(z.zone or "" for z in zone_rows))
        first = zone_rows[0]
        kept.append(replace(first, zone=None, notes="; ".join(x for x in (first.notes, note) if x)))
    return kept


def prepare(rows: Sequence[OfferRow], *, all_taken_out: str = ALL_TAKEN_OUT) -> Prepared:
    """``rows`` (of any providers) through the steps of the module docstring; ``all_taken_out`` is
    the reason a row left without a price carries."""
    out: list[tuple[str, str]] = []
    shaped = _regional_gcp(_unreliable(rows, out), out)
    shaped, traps = spot_not_below_on_demand(shaped)
    hyper = [r for r in shaped if r.provider in HYPERSCALERS]
    hyper, far = far_apart(hyper)
    shaped = hyper + [r for r in shaped if r.provider not in HYPERSCALERS]
    out.extend((t.what(), t.reason) for t in (*traps, *far))
    ready = [r if r.prices or r.price_reason else replace(r, price_reason=all_taken_out) for r in shaped]
    return Prepared(rows=tuple(ready), taken_out=tuple(out))
