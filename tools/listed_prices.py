"""List prices of the Chinese clouds transcribed from public pages (tools/cn_list_prices.csv), read by
tools/build_snapshot.py.

Each row carries the page URL, what the page says (``quote``, in which the amount must appear as
published), its date and a confidence. A row the page dates (``as_of`` an ISO date) becomes a price of
the instance type it names; a row whose page states no date (``as_of`` = ``undated``, confidence
``low``) is kept out of the prices and listed in skipped.csv with its figure, so a reviewer who can
date the page promotes it by editing one cell. A row without source, URL, quote, date or confidence
is refused: the build stops and names the line.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["LISTED_PRICES_CSV", "NO_PUBLIC_PRICE", "UNDATED", "ListedPrice", "read_listed_prices"]

LISTED_PRICES_CSV = Path(__file__).resolve().parent / "cn_list_prices.csv"
#: ``as_of`` of a row whose page states no date.
UNDATED = "undated"
_COLUMNS = (
    "provider",
    "instance_type",
    "region",
    "pricing",
    "amount",
    "currency",
    "unit",
    "as_of",
    "confidence",
    "source_url",
    "source",
    "quote",
)
#: Units each pricing model of this file may be published in.
_UNITS = {"on_demand": "hour", "monthly": "month"}
_ISO_DATE = re.compile(r"\d{4}-\d{2}(-\d{2})?")


@dataclass(frozen=True)
class ListedPrice:
    """One transcribed list price and where it was read."""

    provider: str
    instance_type: str
    region: str
    pricing: str
    amount: float
    currency: str
    unit: str
    as_of: str
    confidence: str
    source_url: str
    source: str
    quote: str
    line: int

    @property
    def dated(self) -> bool:
        return self.as_of != UNDATED

    @property
    def cited_source(self) -> str:
        """The source text shipped with the price: the description, the URL and the quoted line."""
        return f"{self.source} ({self.source_url}; the page: {self.quote!r})"


def _row(line: int, r: dict[str, str]) -> ListedPrice:
    where = f"{LISTED_PRICES_CSV.name}:{line}"
    missing = [c for c in _COLUMNS if not (r.get(c) or "").strip()]
    if missing:
        raise SystemExit(f"{where}: {', '.join(missing)} missing; every listed price needs all of {_COLUMNS}")
    as_of, confidence = r["as_of"].strip(), r["confidence"].strip()
    if as_of != UNDATED and not _ISO_DATE.fullmatch(as_of):
        raise SystemExit(f"{where}: as_of {as_of!r} is neither a date (YYYY-MM[-DD]) nor {UNDATED!r}")
    if as_of == UNDATED and confidence != "low":
        raise SystemExit(f"{where}: an undated price must have confidence 'low', not {confidence!r}")
    if confidence not in ("high", "secondary", "low"):
        raise SystemExit(f"{where}: unknown confidence {confidence!r} (high, secondary or low)")
    pricing, unit = r["pricing"].strip(), r["unit"].strip()
    if _UNITS.get(pricing) != unit:
        raise SystemExit(f"{where}: pricing {pricing!r} in unit {unit!r}; expected one of {_UNITS}")
    if r["currency"].strip() not in ("CNY", "USD"):
        raise SystemExit(f"{where}: currency {r['currency']!r}; keep the page's CNY or USD")
    try:
        amount = float(r["amount"])
    except ValueError:
        raise SystemExit(f"{where}: amount {r['amount']!r} is not a number") from None
    if not amount > 0:
        raise SystemExit(f"{where}: amount {amount:g} is not positive")
    # The figure must appear in the quoted page text as published, so the row cannot drift from it.
    if f"{amount:g}" not in r["quote"]:
        raise SystemExit(f"{where}: amount {amount:g} does not appear in the quote {r['quote']!r}")
    return ListedPrice(
        provider=r["provider"].strip(),
        instance_type=r["instance_type"].strip(),
        region=r["region"].strip(),
        pricing=pricing,
        amount=amount,
        currency=r["currency"].strip(),
        unit=unit,
        as_of=as_of,
        confidence=confidence,
        source_url=r["source_url"].strip(),
        source=r["source"].strip(),
        quote=r["quote"].strip(),
        line=line,
    )


def read_listed_prices(path: Path = LISTED_PRICES_CSV) -> list[ListedPrice]:
    """Every row of the transcribed list-price file, checked; stops the build at the first bad row."""
    with path.open(encoding="utf-8") as f:
        reader = csv.DictReader(f)
        if tuple(reader.fieldnames or ()) != _COLUMNS:
            raise SystemExit(f"{path.name}: columns {reader.fieldnames}; expected {_COLUMNS}")
        rows = [_row(line, r) for line, r in enumerate(reader, start=2)]
    keys = [(p.provider, p.region, p.instance_type, p.pricing, p.as_of) for p in rows]
    dupes = {k for k in keys if keys.count(k) > 1}
    if dupes:
        raise SystemExit(f"{path.name}: the same price twice: {sorted(dupes)}")
    return rows


_SEARCHED = (
    "looked for on 2026-12-01 in the provider's own price and billing pages, its documentation "
    "repositories and open-source cost tools; none states a dated figure"
)
#: Providers with no public, dated list price for any instance in the snapshot: the reason carried by
#: their spec-only offers (instead of a price).
NO_PUBLIC_PRICE = {
    "huawei": (
        "specs only: no public dated list price found for Huawei Cloud GPU flavors (p2v, p2s, pi2, p3, "
        "g6): the billing pages found describe billing modes and point to the price calculator, which "
        "none of the pages read holds; " + _SEARCHED + "; `gpuplan catalog refresh --provider "
        "huawei` prices them with keys (BSS ListOnDemandResourceRatings)"
    ),
    "volcengine": (
        "specs only: no public dated list price found for Volcano Engine GPU types (ecs.gni2 and the "
        "ini2/g1v families): public repositories name the types but no price, and no Volcano Engine "
        "price page was found; " + _SEARCHED + "; `gpuplan catalog refresh "
        "--provider volcengine` prices them with keys"
    ),
    "tencent": (
        "specs only: no Tencent Cloud list price found for this type: " + _SEARCHED + "; "
        "`gpuplan catalog refresh --provider tencent` prices it with keys"
    ),
}
