"""Read dstack's gpuhunt catalog files (github.com/dstackai/gpuhunt, MPL-2.0) into offer rows.

gpuhunt publishes one CSV per provider, ``<provider>.csv`` inside
``<base>/v3/<provider>/<version>/catalog.zip`` (``.github/scripts/publish_catalog.sh``), where the
version is the collection day and run (``20261130-123``). Its columns are gpuhunt's
``CATALOG_V2_FIELDS`` (``src/gpuhunt/_internal/storage.py``, read 2026-12-02 at commit 3584151):

``instance_name, location, price, cpu, memory, gpu_count, gpu_name, gpu_memory, spot, disk_size,
gpu_vendor, flags, cpu_arch, provider_data``

of which ``instance_name``, ``location``, ``price``, ``cpu``, ``memory``, ``gpu_count`` and ``spot``
are required (``item_from_row``) and the rest may be empty; catalogs published before
``gpu_vendor``/``cpu_arch`` existed lack those columns. ``price`` is USD per hour, ``memory`` and
``gpu_memory`` (per GPU) are GB, ``spot`` is ``True``/``False``, and ``location`` is a region — for
GCP a zone (``GCPProvider``'s ``location: str  # zone``), so the region is the zone without its
last ``-x``. One row per instance type, location and spot flag: a type's on-demand and spot rows
become one offer with both prices.

GPUs: an instance type the catalog already knows keeps its GPU; GCP's N1 rows (``n1-standard-4``
with ``T4`` × 1) become the catalog's ``n1-standard-4 + 1x nvidia-tesla-t4`` offers
(:data:`gpuplan.catalog.providers.gcp.N1_GPUS`); a hyperscaler's GPU name goes through its SkyPilot
name table (both read the provider's own API names); the other names go through the marketplace
table (:func:`gpuplan.catalog.gpu_names.market_gpu`), which assumes the slower part where a row
does not say the form factor, and says so.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from gpuplan.catalog.gpu_names import SKYPILOT_ACCELERATORS, market_gpu
from gpuplan.catalog.importers.skypilot_common import (
    Known,
    LineError,
    ParsedFile,
    Row,
    check_width,
    gpu_id,
    number,
    optional_number,
    price,
    read_rows,
)
from gpuplan.catalog.model import NOT_A_GPU_INSTANCE, OfferRow, RejectedRow
from gpuplan.errors import CatalogImportError, Phrase
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import listed

__all__ = ["GPUHUNT_COLUMNS", "GPUHUNT_REQUIRED", "parse_gpuhunt"]

#: gpuhunt's CATALOG_V2_FIELDS, in its order.
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
    "disk_size",
    "gpu_vendor",
    "flags",
    "cpu_arch",
    "provider_data",
)
#: The columns every gpuhunt catalog file has had (``item_from_row``'s required fields, and the
#: GPU's name and memory, present since its first catalogs).
GPUHUNT_REQUIRED = (
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
#: Providers whose gpuhunt ``location`` is a zone, not a region.
_ZONE_LOCATIONS = frozenset({"gcp"})


def _where(provider: str, location: str) -> tuple[str, str | None]:
    if provider in _ZONE_LOCATIONS:
        region, _, _ = location.rpartition("-")
        return (region or location), location
    return location, None


def _gpu(provider: str, r: dict[str, str], count: float, known: Known) -> tuple[str, str, str]:
    """(instance type, GPU id, note) of a GPU row."""
    itype, name = r["instance_name"].strip(), (r.get("gpu_name") or "").strip()
    hit = known.get((provider, itype))
    if hit is not None:
        return itype, hit[0], ""
    if provider == "gcp" and itype.startswith("n1-"):
        from gpuplan.catalog.providers.gcp import N1_GPUS, n1_offer_name

        rule = N1_GPUS.get(name)
        if rule is None:
            raise LineError(N_("GPU {name} does not attach to N1 hosts"), name=repr(name))
        return n1_offer_name(itype, count, name), rule.gpu, ""
    gb = optional_number(r.get("gpu_memory"), "gpu_memory")
    mib = round(gb * 1024) if gb else None
    if provider in SKYPILOT_ACCELERATORS:
        # A hyperscaler's GPU as its own API names it, which SkyPilot's name tables read too.
        try:
            return itype, gpu_id(provider, itype, name, mib, known), ""
        except LineError:
            pass
    gpu, note = market_gpu(name, itype, mib, count)
    if gpu is None:
        raise LineError(
            N_("GPU {name} is not in gpuplan's hardware catalog: {why}"),
            name=repr(name),
            why=note,
            skipped=True,
        )
    return itype, gpu, note


def _spot(value: str) -> bool:
    text = value.strip().lower()
    if text not in ("true", "false"):
        raise LineError(N_("spot {value} is not True or False"), value=repr(value))
    return text == "true"


def parse_gpuhunt(
    path: Path | str,
    provider: str,
    *,
    as_of: str,
    source: str | None = None,
    known_instances: Known | None = None,
) -> ParsedFile:
    """Offer rows of gpuhunt's catalog file for ``provider`` (a provider code of the registry)."""
    known = known_instances or {}
    widths: dict[str, int] = {}

    def check(header: tuple[str, ...]) -> None:
        missing = [c for c in GPUHUNT_REQUIRED if c not in header]
        if missing:
            raise CatalogImportError.worded(
                N_("{path} lacks the gpuhunt columns {missing}; nothing was imported"),
                path=path,
                missing=listed(missing),
            )
        widths["n"] = len(header)

    rows = read_rows(path, check)
    src = source or f"gpuhunt catalog {Path(path).name} ({provider}), imported as of {as_of}"
    merged: dict[tuple[str, str | None, str], OfferRow] = {}
    refused: list[RejectedRow] = []
    caveats: list[RejectedRow] = []
    for line, r in rows:
        try:
            key, row, note = _row(provider, (line, r), widths["n"], known, as_of=as_of, source=src)
        except LineError as e:
            refused.append(_refused(e, line, r))
            continue
        if note:
            name = repr((r.get("gpu_name") or "").strip())
            caveats.append(_refused(Phrase(N_("GPU {name}: {note}"), name=name, note=note), line, r))
        first = merged.get(key)
        if first is None:
            merged[key] = row
        elif any(p.pricing == row.prices[0].pricing for p in first.prices):
            twice = Phrase(N_("a second {pricing} price of the same offer (line {first})"),
                           pricing=row.prices[0].pricing, first=first.line)  # fmt: skip
            refused.append(_refused(twice, line, r))
        else:
            merged[key] = replace(first, prices=first.prices + row.prices)
    return ParsedFile(rows=tuple(merged.values()), rejected=tuple(refused), caveats=tuple(caveats))


def _refused(e: LineError | Phrase, line: int, r: dict[str, str]) -> RejectedRow:
    return RejectedRow.because(
        e.phrase if isinstance(e, LineError) else e,
        line=line,
        instance_type=r.get("instance_name", ""),
        region=r.get("location", ""),
        skipped=isinstance(e, LineError) and e.skipped,
    )


def _row(
    provider: str, row: Row, width: int, known: Known, *, as_of: str, source: str
) -> tuple[tuple[str, str | None, str], OfferRow, str]:
    line, r = row
    check_width(r, width)
    count = optional_number(r["gpu_count"], "gpu_count")
    if not count:
        raise LineError(NOT_A_GPU_INSTANCE, skipped=True)
    location = r["location"].strip()
    if not location:
        raise LineError(N_("no region in the source"))
    region, zone = _where(provider, location)
    itype, gpu, note = _gpu(provider, r, count, known)
    amount = number(r["price"], "price")
    line_source = f"{source}, line {line}"
    pricing = "spot" if _spot(r["spot"]) else "on_demand"
    offer = OfferRow(
        provider=provider,
        region=region,
        zone=zone,
        instance_type=itype,
        gpu=gpu,
        gpu_count=count,
        vcpus=optional_number(r["cpu"], "cpu"),
        memory_gib=optional_number(r["memory"], "memory"),
        network_gbps=None,
        interconnect=None,
        source=line_source,
        prices=(price(pricing, amount, as_of=as_of, source=line_source),),
        notes=note,
        line=line,
    )
    return (region, zone, itype), offer, note
