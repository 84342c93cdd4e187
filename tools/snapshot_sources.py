"""Extra inputs of tools/build_snapshot.py: dated marketplace quotes from public pages, a SkyPilot
catalog directory, and a gpuhunt-format CSV.

The marketplace quotes are transcribed from pages found with the search tool; each carries its URL
and the date the page states. A SkyPilot catalog or gpuhunt CSV carries no date of its own, so the
caller gives one (``--as-of``); without it they are not read.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpuplan.catalog.importers import parse_skypilot
from gpuplan.catalog.model import OfferRow, PriceRow
from gpuplan.catalog.providers.marketplace import marketplace_gpu

__all__ = [
    "MARKETPLACE_QUOTES",
    "MARKETPLACE_SPECS",
    "MARKETPLACE_SPECS_MISSING",
    "Quote",
    "gpuhunt_rows",
    "skypilot_rows",
]


@dataclass(frozen=True)
class Quote:
    provider: str
    region: str
    instance_type: str
    gpu: str
    gpu_count: float
    pricing: str
    usd_per_hour: float
    as_of: str
    source: str


_LAMBDA = (
    "techbytes.app 'Serverless GPU Pricing Matrix [2026 Developer Cheat Sheet]' "
    "(https://techbytes.app/posts/serverless-gpu-pricing-matrix-modal-replicate-lambda-2026/: "
    "'Prices verified on May 7, 2026 from official vendor pricing'; secondary)"
)
_RUNPOD = (
    "spheron.network 'RunPod H100 Pricing 2026' (https://www.spheron.network/blog/runpod-h100-pricing-2026/, "
    "2026-05-22: Secure Cloud 'around'/'approximately'; secondary)"
)
_VAST = (
    "usagepricing.com 'Vast.ai pricing' (https://www.usagepricing.com/blueprint/vast-ai: 'representative "
    "on-demand rates captured June 2026 ... live market rates, not list prices'; secondary)"
)

#: Single dated figures only; ranges on the same pages are skipped (see build_snapshot's skips).
MARKETPLACE_QUOTES: tuple[Quote, ...] = (
    Quote(
        "lambda", "unspecified", "gpu_1x_h100_pcie", "H100-PCIE", 1, "on_demand", 2.86, "2026-05-07", _LAMBDA
    ),
    Quote(
        "lambda", "unspecified", "gpu_1x_h100_sxm5", "H100-SXM", 1, "on_demand", 3.78, "2026-05-07", _LAMBDA
    ),
    Quote(
        "lambda", "unspecified", "gpu_1x_a100", "A100-SXM4-40GB", 1, "on_demand", 1.48, "2026-05-07", _LAMBDA
    ),
    Quote("lambda", "unspecified", "gpu_1x_a10", "A10", 1, "on_demand", 0.86, "2026-05-07", _LAMBDA),
    Quote("runpod", "secure", "1x H100 PCIe", "H100-PCIE", 1, "on_demand", 2.79, "2026-05-22", _RUNPOD),
    Quote("runpod", "secure", "1x H100 SXM5", "H100-SXM", 1, "on_demand", 2.69, "2026-05-22", _RUNPOD),
    Quote("vast", "unspecified", "1x H100-NVL", "H100-NVL", 1, "on_demand", 2.525, "2026-06", _VAST),
    Quote("vast", "unspecified", "1x B200", "B200", 1, "on_demand", 4.492, "2026-06", _VAST),
)
_LAMBDA_SPECS = (
    "lambda.ai/instances (Lambda's instance table: vCPUs, RAM per instance), as transcribed on 2026-09-20 "
    "in api-evangelist/lambda-labs plans/lambda-labs-plans-pricing.yml ('numbers are quoted, not "
    "derived'; secondary; read 2026-12-01)"
)
#: Host specs of marketplace instances, (provider, instance type) -> (vCPUs, RAM GiB, source). Only
#: where a dated public source gives them; the others stay unknown (see MARKETPLACE_SPECS_MISSING).
MARKETPLACE_SPECS: dict[tuple[str, str], tuple[float, float, str]] = {
    ("lambda", "gpu_1x_h100_pcie"): (26, 225, _LAMBDA_SPECS),
    ("lambda", "gpu_1x_h100_sxm5"): (26, 225, _LAMBDA_SPECS),
    ("lambda", "gpu_1x_a10"): (30, 226, _LAMBDA_SPECS),
}
#: Why the other marketplace offers have no vCPU count (plans flag them "input pipeline unknown").
MARKETPLACE_SPECS_MISSING: dict[str, str] = {
    "lambda": "vCPUs unknown: the dated transcription of lambda.ai/instances lists no 1x A100 40 GB",
    "runpod": "vCPUs unknown: RunPod sizes a pod's vCPUs per machine; its price page gives none per GPU type",
    "vast": "vCPUs unknown: each Vast.ai host offers its own CPU count (`catalog refresh` reads it)",
}

#: What those pages also say that is not shipped, and why.
MARKETPLACE_SKIPPED: tuple[tuple[str, str], ...] = (
    ("usagepricing.com Vast.ai RTX 4090 0.682-0.875, RTX 5090, A100 80GB 1.166-1.205", "ranges, not prices"),
    (
        "deploybase.ai 'RunPod GPU Pricing' 2026-03-10 table (spot / on-demand per GPU)",
        "contradicts spheron.network: H100 SXM 2.69 is 'spot' there and Secure Cloud on-demand here; "
        "the cloud (secure/community) is not named",
    ),
)

#: SkyPilot catalog files per provider inside a catalog directory (catalogs/v8 layout; Azure v6).
SKYPILOT_FILES = {"aws": "aws/vms.csv", "gcp": "gcp/vms.csv", "azure": "azure/vms.csv"}
#: Marketplace folders of the same catalog (columns InstanceType, AcceleratorName, AcceleratorCount,
#: vCPUs, MemoryGiB, Price, Region, GpuInfo, SpotPrice).
SKYPILOT_MARKETPLACES = {"lambda": "lambda/vms.csv", "runpod": "runpod/vms.csv", "vast": "vast/vms.csv"}


def skypilot_rows(root: Path, as_of: str) -> Iterator[tuple[str, list[OfferRow], int]]:
    """(provider, offer rows, rejected count) for each cloud file found under a SkyPilot catalog dir."""
    for provider, rel in SKYPILOT_FILES.items():
        path = root / rel
        if not path.is_file():
            continue
        parsed = parse_skypilot(path, provider, as_of=as_of, source=f"SkyPilot catalog {rel} (as of {as_of})")
        yield provider, list(parsed.rows), len(parsed.rejected)
    for provider, rel in SKYPILOT_MARKETPLACES.items():
        path = root / rel
        if path.is_file():
            rows, rejected = _marketplace_rows(path, provider, rel, as_of)
            yield provider, rows, rejected


def _memory_gb(gpu_info: str) -> float | None:
    import re

    m = re.search(r"'SizeInMiB':\s*(\d+)", gpu_info or "")
    return int(m[1]) / 1024 if m else None


def _marketplace_rows(path: Path, provider: str, rel: str, as_of: str) -> tuple[list[OfferRow], int]:
    rows: list[OfferRow] = []
    rejected = 0
    source = f"SkyPilot catalog {rel} (as of {as_of})"
    with path.open(encoding="utf-8") as f:
        for line, r in enumerate(csv.DictReader(f), start=2):
            name, count = (r.get("AcceleratorName") or "").strip(), float(r.get("AcceleratorCount") or 0)
            price = float(r["Price"]) if (r.get("Price") or "").strip() else 0.0
            if not name or count <= 0:
                continue  # CPU-only rows
            itype = r["InstanceType"]
            memory = _memory_gb(r.get("GpuInfo", ""))
            form = "sxm" if "sxm" in itype.lower() else "pcie" if "pcie" in itype.lower() else ""
            gpu = marketplace_gpu(f"{name} {form}".strip(), memory) or marketplace_gpu(name, memory)
            if gpu is None or price <= 0:
                rejected += 1
                continue
            kw: dict[str, Any] = {
                "currency": "USD",
                "unit": "hour",
                "as_of": as_of,
                "source": source,
                "confidence": "secondary",
            }
            prices = [PriceRow(pricing="on_demand", amount=price, **kw)]
            spot = float(r["SpotPrice"]) if (r.get("SpotPrice") or "").strip() else None
            if spot and 0 < spot < price:
                prices.append(PriceRow(pricing="spot", amount=spot, **kw))
            rows.append(
                OfferRow(
                    provider=provider,
                    region=r.get("Region") or "unspecified",
                    zone=None,
                    instance_type=itype,
                    gpu=gpu,
                    gpu_count=count,
                    vcpus=float(r["vCPUs"]) if r.get("vCPUs") else None,
                    memory_gib=float(r["MemoryGiB"]) if r.get("MemoryGiB") else None,
                    network_gbps=None,
                    interconnect=None,
                    source=source,
                    prices=tuple(prices),
                    line=line,
                )
            )
    return rows, rejected


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
