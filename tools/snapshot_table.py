"""The snapshot being built: rows per output file (columns declared by gpuplan.catalog.snapshot),
the skip report, and the CSV rendering. Shared by the builder's modules."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field

from gpuplan.catalog.snapshot import COLUMNS

#: Region of rows whose source names none (spec-only offers, the articles' tables).
UNSPECIFIED_REGION = "unspecified"
#: Files shipped beside the store's files, for readers: the skip report and the sources table.
READER_FILES: dict[str, tuple[str, ...]] = {
    "skipped.csv": ("what", "reason"),
    "sources.csv": ("source", "what", "upstream", "commit", "read_by", "prices_from", "evidence", "part"),
}


@dataclass
class Snapshot:
    """The rows being built, per output file, and what was skipped."""

    rows: dict[str, list[dict[str, str]]] = field(default_factory=lambda: {name: [] for name in COLUMNS})
    skipped: list[dict[str, str]] = field(default_factory=list)
    sources: list[dict[str, str]] = field(default_factory=list)
    offer_keys: set[tuple[str, str, str, str]] = field(default_factory=set)
    _seen_skips: list[dict[str, str]] = field(default_factory=list)

    def add(self, name: str, **values: object) -> None:
        if name == "offers.csv":
            self.offer_keys.add(
                (
                    str(values["provider"]),
                    str(values["region"]),
                    str(values["zone"] or ""),
                    str(values["instance_type"]),
                )
            )
        missing = set(COLUMNS[name]) - set(values)
        extra = set(values) - set(COLUMNS[name])
        if missing or extra:
            raise ValueError(f"{name}: missing {missing}, unexpected {extra}")
        self.rows[name].append({k: cell(values[k]) for k in COLUMNS[name]})

    def skip(self, what: str, reason: str) -> None:
        entry = {"what": what, "reason": reason}
        if entry not in self._seen_skips:  # an AWS region's rows come once per zone line
            self._seen_skips.append(entry)
            self.skipped.append(entry)


def cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
    return str(value)


def num(text: str) -> float | None:
    text = text.strip()
    try:
        return float(text)
    except ValueError:
        return None


def add_price(snap: Snapshot, provider: str, region: str, itype: str, p: dict[str, object]) -> None:
    term = p.get("term")
    snap.add(
        "prices.csv",
        provider=provider,
        region=region,
        zone=None,
        instance_type=itype,
        pricing=p["pricing"],
        amount=p["amount"],
        currency=p["currency"],
        unit=p["unit"],
        as_of=p["as_of"],
        source=p["source"],
        confidence=p["confidence"],
        interruption_band=None,
        term_json=json.dumps(term, sort_keys=True, ensure_ascii=False) if term else None,
    )


def render(snap: Snapshot) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, cols in COLUMNS.items():
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        w.writerows(snap.rows[name])
        out[name] = buf.getvalue()
    for name, rows in (("skipped.csv", snap.skipped), ("sources.csv", snap.sources)):
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=READER_FILES[name], lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
        out[name] = buf.getvalue()
    return out
