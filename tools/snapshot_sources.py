"""An extra input of tools/build_snapshot.py: a gpuhunt-format CSV (dstack's gpuhunt catalog files).

A gpuhunt CSV carries no date of its own, so the caller gives one (``--as-of``); without it it is not
read. SkyPilot's catalog files are read by the catalog's own importer (``snapshot_skypilot``).
"""

from __future__ import annotations

import csv
from pathlib import Path

from gpuplan.catalog.model import OfferRow, PriceRow
from gpuplan.catalog.providers.marketplace import marketplace_gpu

__all__ = ["gpuhunt_rows"]


#: gpuhunt CSV columns (gpuhunt's per-provider catalog files).
GPUHUNT_COLUMNS = (
    "instance_name",
    "location",
    "price",
    "cpu",
    "memory",
    "gpu_count",
    "gpu_name",
    "gpu_memory",
    "spot",
)


def gpuhunt_rows(path: Path, provider: str, as_of: str) -> tuple[list[OfferRow], list[str]]:
    """Offer rows of a gpuhunt-format CSV for ``provider`` (one row per instance, location, spot flag)."""
    rows: list[OfferRow] = []
    skipped: list[str] = []
    with path.open(encoding="utf-8") as f:
        reader = csv.DictReader(f)
        missing = set(GPUHUNT_COLUMNS) - set(reader.fieldnames or ())
        if missing:
            raise SystemExit(f"{path}: not a gpuhunt CSV (missing columns {sorted(missing)})")
        for line, r in enumerate(reader, start=2):
            count = float(r["gpu_count"] or 0)
            if count <= 0:
                continue
            gpu = marketplace_gpu(r["gpu_name"], float(r["gpu_memory"] or 0) or None)
            if gpu is None:
                skipped.append(f"{path.name}:{line} GPU {r['gpu_name']!r} not in the hardware catalog")
                continue
            spot = r["spot"].strip().lower() in ("true", "1")
            price = PriceRow(
                pricing="spot" if spot else "on_demand",
                amount=float(r["price"]),
                currency="USD",
                unit="hour",
                as_of=as_of,
                source=f"gpuhunt CSV {path.name} (as of {as_of})",
                confidence="secondary",
            )
            rows.append(
                OfferRow(
                    provider=provider,
                    region=r["location"],
                    zone=None,
                    instance_type=r["instance_name"],
                    gpu=gpu,
                    gpu_count=count,
                    vcpus=float(r["cpu"]) if r["cpu"] else None,
                    memory_gib=float(r["memory"]) if r["memory"] else None,
                    network_gbps=None,
                    interconnect=None,
                    source=f"gpuhunt CSV {path.name}",
                    prices=(price,),
                    line=line,
                )
            )
    return rows, skipped
