"""AWS facts beyond SkyPilot's catalog: dated list prices, reserved terms, spot bands and ranges.

Three public, dated compilations (see ``snapshot_manifest``'s docstring for where to download them):

- instances.vantage.sh's AWS data of 2025-11-30 (``reserved_prices/aws_gpu_instances_raw_vantage_
  2025-11-30.json``): on-demand, all 12 reserved terms, spot min/avg/max and the interruption band per
  instance type and region;
- its 2026-01-21 extract (``reserved_prices/aws_all_gpu_instances_2026-01-21.js``, "Last updated:
  2026-01-21"): on-demand and 1-year standard no-upfront reserved per type and region;
- AWS's Spot Instance Advisor feed as of 2025-06-28 (``aws_spot_advisor/spot-advisor-data.json``):
  interruption band and savings per type and region.

What they add to SkyPilot's AWS rows (:func:`aws_extras`):

- an on-demand price SkyPilot's copy shares with a dated compilation, or with the shared instance
  table's dated price (``instance_types.csv``: ``price_date``, ``price_source``), was observed on that
  day too, so it is dated ``<the latest such day>/<read_by>`` instead of SkyPilot's wider bounds, the
  source naming where the same figure was seen;
- reserved 1-year and 3-year prices (standard, no upfront; convertible where a type has no standard
  term), every other term kept in the price's ``term``;
- on every spot row the band (2025-11-30 compilation, else the advisor; the advisor's too where the two
  differ, under ``other_interruption_bands``) and the region's spot
  min/avg/max of 2025-11-30 (some regions: the average only); where the region has none, the lowest
  dated spot price of the type in any listed region (the floor an undated price is held to);
- the regions SkyPilot's copy lacks (sa-east-1, il-central-1 …), from the compilations alone.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from snapshot_manifest import READ_BY, check_copy

from gpuplan.catalog.model import OfferRow, PriceRow
from gpuplan.plan.spot import OTHER_BANDS_KEY

__all__ = ["SOURCES_TABLE", "AwsSources", "aws_extras", "read_aws_sources"]

VANTAGE_2025 = "reserved_prices/aws_gpu_instances_raw_vantage_2025-11-30.json"
VANTAGE_2026 = "reserved_prices/aws_all_gpu_instances_2026-01-21.js"
ADVISOR = "aws_spot_advisor/spot-advisor-data.json"
_SHA = {
    VANTAGE_2025: "307f1cb2707bddcbe621645cb59f379dd1bc102e4878062ef1ec7d37a96fb04a",
    VANTAGE_2026: "a0c59c330be6ed1ffe8a2b7bd3b95861d191c3c90e3daa0ace495a5c4d581952",
    ADVISOR: "06d25100fe665ce321f205bd210aceb00184034be46b9b204b9efa7d1bda481b",
}
#: The three compilations as price rows name them (sources.csv has the full citations).
SRC_2025 = (
    "instances.vantage.sh AWS list prices of 2025-11-30 (github.com/tsaol/aws-gpu "
    "data/gpu_instances_raw.json @2d0108c)"
)
SRC_2026 = (
    "instances.vantage.sh AWS list prices of 2026-01-21 (github.com/tsaol/aws-gpu data/all_gpu_instances.js "
    "@7412fd2)"
)
SRC_ADVISOR = (
    "AWS Spot Instance Advisor feed of 2025-06-28 (github.com/alexei-led/spotinfo "
    "internal/spot/data/spot-advisor-data.json @5bdc33c)"
)
#: The sources.csv rows of the three compilations.
SOURCES_TABLE: tuple[dict[str, str], ...] = (
    {
        "source": SRC_2025,
        "what": "AWS on-demand, all 12 reserved terms, spot min/avg/max and interruption band per type "
        "and region",
        "upstream": "https://instances.vantage.sh (from the AWS Price List API), as committed in "
        "https://github.com/tsaol/aws-gpu/blob/2d0108c7bd261c8e40493fbd35135437bd6c9099/data/gpu_instances_raw.json",
        "commit": "2d0108c7bd261c8e40493fbd35135437bd6c9099",
        "read_by": READ_BY,
        "prices_from": "2025-11-30",
        "evidence": "the commit's date (2025-11-30 13:30 UTC); the file carries no date of its own",
        "part": "every GPU instance type, 95 regions",
    },
    {
        "source": SRC_2026,
        "what": "AWS on-demand and 1-year standard no-upfront reserved per type and region",
        "upstream": "https://instances.vantage.sh, as committed in "
        "https://github.com/tsaol/aws-gpu/blob/7412fd256c5eda04a70a17742a68e8e44824b2cb/data/all_gpu_instances.js",
        "commit": "7412fd256c5eda04a70a17742a68e8e44824b2cb",
        "read_by": READ_BY,
        "prices_from": "2026-01-21",
        "evidence": "the file's header 'Last updated: 2026-01-21'",
        "part": "92 GPU instance types",
    },
    {
        "source": SRC_ADVISOR,
        "what": "AWS spot interruption band (0-4) and savings per type and region (Linux)",
        "upstream": "https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json, as committed in "
        "https://github.com/alexei-led/spotinfo/blob/5bdc33cee2e185c2f62df29dd9c4ad0ad7102a74/internal/spot/data/"
        "spot-advisor-data.json",
        "commit": "5bdc33cee2e185c2f62df29dd9c4ad0ad7102a74",
        "read_by": READ_BY,
        "prices_from": "2025-06-28",
        "evidence": "the commit's date (2025-06-28); the feed carries no timestamp",
        "part": "33 regions",
    },
)
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
#: Regions whose offers need a separate account or are not regions (Local and Wavelength Zones).
_GOVCLOUD = ("us-gov-",)


@dataclass(frozen=True)
class AwsSources:
    """The three compilations, read."""

    v2025: dict[tuple[str, str], dict[str, Any]]
    """(type, region) -> the Linux pricing block of 2025-11-30."""
    v2026: dict[tuple[str, str], dict[str, Any]]
    """(type, region) -> ``{"onDemand": …, "reserved": …}`` of 2026-01-21."""
    advisor: dict[tuple[str, str], tuple[str, int | None]]
    """(type, region) -> (band label, savings %) of 2025-06-28."""
    regions_2025: frozenset[str]
    listed: dict[tuple[str, str], tuple[float, str, str]] = field(default_factory=dict)
    """(type, region) -> (on-demand USD/h, day, source) of the shared instance table
    (``instance_types.csv``), where it gives the price a day."""


#: The shared instance table: a row's on-demand price with the day its source was read.
INSTANCE_TABLE = "instance_types.csv"


def _listed_on_demand(sources: Path) -> dict[tuple[str, str], tuple[float, str, str]]:
    """The instance table's AWS on-demand prices that carry a day (``price_date`` 2026-11-09; not
    "unknown (…)"), each with the source it names and its line in the table."""
    out: dict[tuple[str, str], tuple[float, str, str]] = {}
    with (sources / INSTANCE_TABLE).open(encoding="utf-8") as f:
        for line, r in enumerate(csv.DictReader(f), start=2):
            day, amount = r["price_date"].strip(), _f(r["price_usd_hour"].strip())
            if r["provider"].strip() != "aws" or amount is None or not _DAY.fullmatch(day):
                continue
            cite = (
                f"{r['price_source'].strip()} (gpuplan's shared instance table {INSTANCE_TABLE}, line {line})"
            )
            out[(r["instance_type"].strip(), r["price_region"].strip())] = (amount, day, cite)
    return out


def read_aws_sources(sources: Path) -> AwsSources:
    for rel, sha in _SHA.items():
        problem = check_copy(sources / rel, sha)
        if problem:
            raise SystemExit(f"error: {problem}")
    raw = json.loads((sources / VANTAGE_2025).read_text(encoding="utf-8"))
    v2025 = {
        (item["instance_type"], region): block["linux"]
        for item in raw
        for region, block in item.get("pricing", {}).items()
        if block.get("linux")
    }
    text = (sources / VANTAGE_2026).read_text(encoding="utf-8")
    js = json.loads(text[text.index("[") : text.rindex("]") + 1])  # a JS array literal in JSON syntax
    v2026 = {(item["apiName"], region): p for item in js for region, p in item.get("pricing", {}).items()}
    feed = json.loads((sources / ADVISOR).read_text(encoding="utf-8"))
    labels = {r["index"]: r["label"] for r in feed["ranges"]}
    advisor = {
        (itype, region): (labels[v["r"]], v.get("s"))
        for region, by_os in feed["spot_advisor"].items()
        for itype, v in by_os.get("Linux", {}).items()
        if v.get("r") in labels
    }
    return AwsSources(v2025, v2026, advisor, frozenset(r for _, r in v2025), _listed_on_demand(sources))


def _f(value: Any) -> float | None:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if x > 0 else None


def _od(src: AwsSources, itype: str, region: str) -> tuple[float | None, float | None]:
    return _f(src.v2026.get((itype, region), {}).get("onDemand")), _f(
        src.v2025.get((itype, region), {}).get("ondemand")
    )


def _dated_on_demand(p: PriceRow, src: AwsSources, itype: str, region: str, notes: list[str]) -> PriceRow:
    """SkyPilot's on-demand price, dated by the latest of the dated sources that saw the same figure
    (the instance table's day, the compilations of 2026-01-21 and 2025-11-30): it held on that day,
    so it was observed between then and the day SkyPilot's copy was read."""
    od26, od25 = _od(src, itype, region)
    listed = src.listed.get((itype, region))
    seen = [(listed[0], listed[1], listed[2])] if listed is not None else []
    for od, day, cite in (*seen, (od26, "2026-01-21", SRC_2026), (od25, "2025-11-30", SRC_2025)):
        if od is not None and abs(od - p.amount) < 1e-6 and day <= READ_BY:
            return replace(p, as_of=f"{day}/{READ_BY}", source=f"{p.source}; the same price in {cite}")
    for od, day in ((od26, "2026-01-21"), (od25, "2025-11-30")):
        if od is not None:
            notes.append(
                f"aws {itype} {region} on-demand: SkyPilot's {p.amount:g} differs from {od:g} of {day}; "
                "SkyPilot's kept with its own (undated) bounds"
            )
            break
    return p


def _reserved(src: AwsSources, itype: str, region: str) -> list[PriceRow]:
    """Reserved 1y and 3y (no upfront; standard, else convertible), every term kept in ``term``."""
    block = src.v2025.get((itype, region), {})
    terms = {k: float(v) for k, v in (block.get("reserved") or {}).items() if _f(v)}
    out: list[PriceRow] = []
    for years in (1, 3):
        amount, as_of, source, klass = None, "2025-11-30", SRC_2025, "standard"
        if years == 1 and _f(src.v2026.get((itype, region), {}).get("reserved")):
            amount, as_of, source = float(src.v2026[(itype, region)]["reserved"]), "2026-01-21", SRC_2026
        elif f"yrTerm{years}Standard.noUpfront" in terms:
            amount = terms[f"yrTerm{years}Standard.noUpfront"]
        elif f"yrTerm{years}Convertible.noUpfront" in terms:
            amount, klass = terms[f"yrTerm{years}Convertible.noUpfront"], "convertible"
        if amount is None:
            continue
        term: dict[str, Any] = {
            "years": years,
            "offering_class": klass,
            "purchase_option": "No Upfront",
            "billing": "hourly, for the whole term",
        }
        mine = {k: v for k, v in terms.items() if k.startswith(f"yrTerm{years}")}
        if mine:
            term["all_terms_usd_per_hour"] = dict(sorted(mine.items()))
            term["all_terms_as_of"] = "2025-11-30"
        out.append(
            PriceRow(
                pricing=f"reserved_{years}y",
                amount=amount,
                currency="USD",
                unit="hour",
                as_of=as_of,
                source=source,
                confidence="secondary",
                term=term,
            )
        )
    return out


def _spot_facts(p: PriceRow, src: AwsSources, itype: str, region: str) -> PriceRow:
    """A spot row with its interruption band and the region's spot range, where given."""
    block = src.v2025.get((itype, region), {})
    term: dict[str, Any] = dict(p.term or {})
    band = block.get("pct_interrupt")
    if band:
        term["interruption_band_source"] = SRC_2025
        term["interruption_band_as_of"] = "2025-11-30"
        if block.get("pct_savings_od") is not None:
            term["spot_savings_percent"] = block["pct_savings_od"]
        other = src.advisor.get((itype, region))
        if other is not None and other[0] != band:
            # The two sources disagree: the advisor's band is kept beside the newer one, and a plan
            # costs the worse of them, naming both (gpuplan.plan.spot.offer_band).
            term[OTHER_BANDS_KEY] = [{"band": other[0], "source": SRC_ADVISOR, "as_of": "2025-06-28"}]
    elif (itype, region) in src.advisor:
        band, savings = src.advisor[(itype, region)]
        term["interruption_band_source"] = SRC_ADVISOR
        term["interruption_band_as_of"] = "2025-06-28"
        if savings is not None:
            term["spot_savings_percent"] = savings
    spot = {k: v for k in ("min", "avg", "max") if (v := _f(block.get(f"spot_{k}"))) is not None}
    if spot:
        # The region's spread over its zones then (same source and date as the band's); some
        # regions have only the average.
        term["region_spot_usd_per_hour"] = {**spot, "as_of": "2025-11-30", "source": SRC_2025}
    return replace(p, interruption_band=band or None, term=term or None)


def _lowest_dated_spot(src: AwsSources, known_regions: set[str]) -> dict[str, tuple[float, str]]:
    """Instance type -> (the lowest spot price of 2025-11-30 in any listed region, that region):
    each region's lowest zone, or its average where only that is given."""
    out: dict[str, tuple[float, str]] = {}
    for (itype, region), block in sorted(src.v2025.items()):
        if region.startswith(_GOVCLOUD) or region not in known_regions:
            continue
        low = _f(block.get("spot_min")) or _f(block.get("spot_avg"))
        if low is not None and (itype not in out or low < out[itype][0]):
            out[itype] = (low, region)
    return out


def _other_region_floor(p: PriceRow, lowest: tuple[float, str] | None) -> PriceRow:
    """A spot row whose region has no dated spot price: the lowest dated one of its type anywhere,
    the floor its own figure is held to when that figure is of unknown age."""
    if lowest is None or (p.term or {}).get("region_spot_usd_per_hour") is not None:
        return p
    low, region = lowest
    term = {
        **(p.term or {}),
        "lowest_dated_spot_usd_per_hour": {
            "min": low,
            "region": region,
            "as_of": "2025-11-30",
            "source": SRC_2025,
        },
    }
    return replace(p, term=term)


def aws_extras(
    rows: Iterable[OfferRow], src: AwsSources, known_regions: set[str]
) -> tuple[list[OfferRow], list[str]]:
    """SkyPilot's AWS rows with the compilations' dates, reserved prices and spot facts, plus offers
    in the regions SkyPilot's copy lacks; and one note per disagreement or region left out."""
    notes: list[str] = []
    out: list[OfferRow] = []
    specs: dict[str, OfferRow] = {}
    covered: set[tuple[str, str]] = set()
    lowest = _lowest_dated_spot(src, known_regions)
    for row in rows:
        prices: list[PriceRow] = []
        for p in row.prices:
            if p.pricing == "on_demand":
                prices.append(_dated_on_demand(p, src, row.instance_type, row.region, notes))
            elif p.pricing == "spot":
                spot = _spot_facts(p, src, row.instance_type, row.region)
                prices.append(_other_region_floor(spot, lowest.get(row.instance_type)))
            else:
                prices.append(p)
        if row.zone is None:
            covered.add((row.instance_type, row.region))
            specs.setdefault(row.instance_type, row)
            prices.extend(_reserved(src, row.instance_type, row.region))
        out.append(replace(row, prices=tuple(prices)))
    # Regions SkyPilot's copy does not list: the compilations' prices alone, on SkyPilot's specs.
    left_out: dict[str, int] = {}
    for itype, spec in sorted(specs.items()):
        for region in sorted(src.regions_2025 | {r for t, r in src.v2026 if t == itype}):
            if (itype, region) in covered:
                continue
            od26, od25 = _od(src, itype, region)
            if od26 is None and od25 is None:
                continue
            if region.startswith(_GOVCLOUD) or region not in known_regions:
                left_out[region] = left_out.get(region, 0) + 1
                continue
            day, amount, cite = (
                ("2026-01-21", od26, SRC_2026) if od26 is not None else ("2025-11-30", od25, SRC_2025)
            )
            assert amount is not None
            od = PriceRow(
                pricing="on_demand",
                amount=amount,
                currency="USD",
                unit="hour",
                as_of=day,
                source=cite,
                confidence="secondary",
            )
            out.append(
                replace(
                    spec,
                    region=region,
                    zone=None,
                    source=f"{cite} (specs: {spec.source})",
                    prices=(od, *_reserved(src, itype, region)),
                    line=None,
                )
            )
    for region, n in sorted(left_out.items()):
        notes.append(
            f"aws {region}: {n} instance types priced by instances.vantage.sh left out: not a region gpuplan "
            "lists (a Local or Wavelength Zone, or GovCloud, which needs its own account)"
        )
    return out, notes
