"""An extra input of tools/build_snapshot.py: gpuhunt's catalog CSVs (dstack's gpuhunt catalog files).

A gpuhunt CSV carries no date of its own, so the caller gives one (``--as-of``); without it it is not
read. Both layouts are read by the catalog's own readers, the ones ``gpuplan catalog import
--gpuhunt DIR`` / ``--skypilot DIR`` use: gpuhunt's here through
:func:`gpuplan.catalog.importers.gpuhunt.parse_gpuhunt`, SkyPilot's in ``snapshot_skypilot``.
"""

from __future__ import annotations

from pathlib import Path

from gpuplan.catalog.importers.gpuhunt import parse_gpuhunt
from gpuplan.catalog.model import OfferRow

__all__ = ["gpuhunt_rows"]


def gpuhunt_rows(path: Path, provider: str, as_of: str) -> tuple[list[OfferRow], list[str]]:
    """Offer rows of a gpuhunt-format CSV for ``provider`` (a type's on-demand and spot rows of one
    location make one offer), and each line not read, with its reason."""
    parsed = parse_gpuhunt(path, provider, as_of=as_of, source=f"gpuhunt CSV {path.name} (as of {as_of})")
    return list(parsed.rows), [f"{path.name}:{r.line} {r.reason}" for r in parsed.rejected]
