"""Read SkyPilot's public catalog CSVs (github.com/skypilot-org/skypilot-catalog) into offer rows.

Layouts (SkyPilot catalog v8 for AWS and GCP, v6 for Azure, v8/v6 for the marketplaces):

- AWS v8: one row per instance type and zone; ``Price`` is on-demand (the same in every zone of a
  region, stored once on a region-wide offer), ``SpotPrice`` is per zone (stored on a zone offer).
  ``GpuInfo`` is a Python-repr dict whose GPU count is checked against ``AcceleratorCount``.
- GCP v8: host VM rows carry the VM-only price; GPU rows (empty ``InstanceType``) carry the attached
  GPUs' price (:mod:`~gpuplan.catalog.importers.skypilot_gcp`).
- Azure v6: one row per instance type and region, on-demand and spot.
- The GPU marketplaces (Lambda, RunPod, Vast.ai, Nebius, …): one row per instance type and region
  (:mod:`~gpuplan.catalog.importers.skypilot_markets`).

A file unusable as a whole (unreadable, wrong header, more than ``MAX_CSV_ROWS`` rows) raises
CatalogImportError before anything is written; the file is read as a stream, one line at a time
(:func:`~gpuplan.catalog.importers.skypilot_common.read_rows`). A bad line becomes a RejectedRow
with its line number; a line taken other than as written (a GPU count the source gets wrong)
becomes a caveat; the store's gates judge the rest.
"""

from __future__ import annotations

from pathlib import Path

from gpuplan.catalog.importers.skypilot_common import (
    Known,
    LineError,
    ParsedFile,
    Row,
    check_width,
    gpu_id,
    gpu_info,
    number,
    optional_number,
    price,
    read_rows,
    rejected,
)
from gpuplan.catalog.importers.skypilot_gcp import parse_gcp
from gpuplan.catalog.importers.skypilot_markets import MARKET_LAYOUTS, parse_market
from gpuplan.catalog.model import NOT_A_GPU_INSTANCE, OfferRow, PriceRow, RejectedRow
from gpuplan.catalog.providers import PROVIDERS
from gpuplan.errors import CatalogImportError, Phrase
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import listed

__all__ = ["COUNT_FIXES", "HEADERS", "ParsedFile", "gpu_id", "parse_skypilot"]

#: The header each hyperscaler's layout must have, exactly (SkyPilot catalog v8 / v6).
HEADERS: dict[str, tuple[str, ...]] = {
    "aws": (
        "InstanceType",
        "AcceleratorName",
        "AcceleratorCount",
        "vCPUs",
        "MemoryGiB",
        "GpuInfo",
        "Price",
        "SpotPrice",
        "Region",
        "AvailabilityZone",
        "Arch",
    ),
    "gcp": (
        "InstanceType",
        "vCPUs",
        "MemoryGiB",
        "AcceleratorName",
        "AcceleratorCount",
        "GpuInfo",
        "Region",
        "AvailabilityZone",
        "Price",
        "SpotPrice",
    ),
    "azure": (
        "InstanceType",
        "AcceleratorName",
        "AcceleratorCount",
        "vCPUs",
        "MemoryGiB",
        "GpuInfo",
        "Price",
        "SpotPrice",
        "Region",
        "Generation",
    ),
}

#: GPU counts SkyPilot's catalog gets wrong, with the provider's own figure and where it says so.
COUNT_FIXES: dict[tuple[str, str], tuple[float, str]] = {
    ("azure", "Standard_ND96isr_H100_v5"): (
        8,
        "Microsoft Learn 'ND H100 v5 sizes series' (8 NVIDIA H100 GPUs per VM), https://learn.microsoft.com/"
        "azure/virtual-machines/sizes/gpu-accelerated/ndh100v5-series, read 2026-12-02",
    ),
}


#: Why an NCads A10 v4 row is left out. NC8ads and NC16ads A10 v4 carry a fraction of an A10;
#: Microsoft's size pages have no NCads A10 v4 series, and the other sources disagree on NC32ads (1 A10,
#: or 2 with 48 GB): costed as a whole GPU, or as two, its price per GPU could be wrong either way.
_A10_V4 = N_(
    "GPU not stated by the source nor by Microsoft's size pages (NCads A10 v4 sizes carry a fraction "
    "of an A10 or, by other sources, one or two A10): not costed"
)
#: Why an NGads V620 row is left out: "1/4 - 1 GPUs, AMD Radeon PRO V620 32 GiB" (Microsoft Learn,
#: NGads V620-series specs, MicrosoftDocs/azure-docs articles/virtual-machines/sizes/gpu-accelerated/
#: includes/ngads-v620-series-specs.md, ms.date 2024-04-18, read 2026-12-06).
_V620 = N_(
    "a quarter to one AMD Radeon PRO V620 (Microsoft's NGads V620 sizes), a GPU gpuplan has no datasheet of"
)

#: Instance types whose AcceleratorName SkyPilot's catalog leaves blank though they are GPU VMs: the
#: provider's own GPU and count, and where it says so; or why the row is left out.
BLANK_ACCELERATOR: dict[tuple[str, str], tuple[str, float, str] | str] = {
    ("azure", "Standard_NCC40ads_H100_v5"): (
        "H100-NVL",
        1,
        "Microsoft Learn 'NCCads_H100_v5 series' (Accelerators: 1 GPU, Nvidia H100 GPU (94GB): the "
        "H100 NVL), MicrosoftDocs/azure-docs articles/virtual-machines/sizes/gpu-accelerated/includes/"
        "nccadsh100v5-series-specs.md, ms.date 2024-08-06, read 2026-12-06",
    ),
    ("azure", "Standard_NC8ads_A10_v4"): _A10_V4,
    ("azure", "Standard_NC16ads_A10_v4"): _A10_V4,
    ("azure", "Standard_NC32ads_A10_v4"): _A10_V4,
    ("azure", "Standard_NG8ads_V620_v1"): _V620,
    ("azure", "Standard_NG16ads_V620_v1"): _V620,
    ("azure", "Standard_NG32ads_V620_v1"): _V620,
    ("azure", "Standard_NG32adms_V620_v1"): _V620,
}


def parse_skypilot(
    path: Path | str,
    provider: str,
    *,
    as_of: str,
    source: str | None = None,
    known_instances: Known | None = None,
) -> ParsedFile:
    """Offer rows of a SkyPilot catalog file for ``provider`` (``aws``, ``gcp``, ``azure`` or a
    marketplace with a layout in :data:`~gpuplan.catalog.importers.skypilot_markets.MARKET_LAYOUTS`).

    ``as_of`` dates every price (the files carry no date: a day, or the bounds
    ``2025-06/2026-12-02``); ``known_instances`` (from the store) decides the GPU of instance types
    the catalog already knows. Every price's source names the file line it comes from.
    """
    prov = PROVIDERS.cast(provider)
    if prov not in HEADERS and prov not in MARKET_LAYOUTS:
        raise CatalogImportError.worded(
            N_("no SkyPilot layout for {provider}; SkyPilot catalogs exist for {known}"),
            provider=prov,
            known=listed([*HEADERS, *MARKET_LAYOUTS]),
        )
    src = source or f"SkyPilot catalog file {Path(path).name} ({prov} layout), imported as of {as_of}"
    known = known_instances or {}
    if prov in MARKET_LAYOUTS:
        return parse_market(path, prov, as_of=as_of, source=src)
    rows = read_rows(path, lambda header: _check_header(path, prov, header))
    if prov == "gcp":
        return parse_gcp(rows, as_of=as_of, source=src, known=known, width=len(HEADERS["gcp"]))
    out: list[OfferRow] = []
    refused: list[RejectedRow] = []
    caveats: list[RejectedRow] = []
    for line, r in rows:
        try:
            out.extend(_parse_aws_azure_line(prov, (line, r), caveats, as_of=as_of, source=src, known=known))
        except LineError as e:
            refused.append(rejected(e, line, r))
    return ParsedFile(rows=tuple(out), rejected=tuple(refused), caveats=tuple(caveats))


def _check_header(path: Path | str, provider: str, header: tuple[str, ...]) -> None:
    expected = HEADERS[provider]
    if header != expected:
        raise CatalogImportError.worded(
            N_(
                "{path} does not have the SkyPilot {provider} header ({expected}); "
                "check --provider; nothing was imported"
            ),
            path=path,
            provider=provider,
            expected=listed(expected),
        )


def _parse_aws_azure_line(
    prov: str, row: Row, caveats: list[RejectedRow], *, as_of: str, source: str, known: Known
) -> list[OfferRow]:
    line, r = row
    check_width(r, len(HEADERS[prov]))
    itype, region = r["InstanceType"].strip(), r["Region"].strip()
    blank = BLANK_ACCELERATOR.get((prov, itype)) if not r["AcceleratorName"].strip() else None
    if isinstance(blank, str):
        raise LineError(blank, skipped=True)
    if not r["AcceleratorName"].strip() and blank is None:
        raise LineError(NOT_A_GPU_INSTANCE, skipped=True)
    count = number(r["AcceleratorCount"], "AcceleratorCount") if blank is None else blank[1]
    if blank is not None:
        caveats.append(
            rejected(
                Phrase(N_("AcceleratorName empty in the source; {count:g} {gpu}, as {where}"),
                       count=blank[1], gpu=blank[0], where=blank[2]),
                line,
                r,
            )
        )  # fmt: skip
    fix = COUNT_FIXES.get((prov, itype))
    if fix is not None and fix[0] != count:
        caveats.append(
            rejected(
                Phrase(
                    N_("AcceleratorCount {count:g} in the source; {fixed:g}, as {where}"),
                    count=count,
                    fixed=fix[0],
                    where=fix[1],
                ),
                line,
                r,
            )
        )
        count = fix[0]
    info_count, mem_mib, _ = gpu_info(r["GpuInfo"]) if prov == "aws" else (None, None, None)
    gpu = blank[0] if blank is not None else gpu_id(prov, itype, r["AcceleratorName"].strip(), mem_mib, known)
    od = optional_number(r["Price"], "Price")
    spot = optional_number(r["SpotPrice"], "SpotPrice")
    vcpus = optional_number(r["vCPUs"], "vCPUs")
    memory_gib = optional_number(r["MemoryGiB"], "MemoryGiB")
    line_source = f"{source}, line {line}"

    def offer(zone: str | None, prices: tuple[PriceRow, ...]) -> OfferRow:
        return OfferRow(
            provider=prov,
            region=region,
            zone=zone,
            instance_type=itype,
            gpu=gpu,
            gpu_count=count,
            vcpus=vcpus,
            memory_gib=memory_gib,
            network_gbps=None,
            interconnect=None,
            source=line_source,
            prices=prices,
            line=line,
            accelerator_count_reported=float(info_count) if info_count is not None else None,
        )

    spot_price = price("spot", spot, as_of=as_of, source=line_source) if spot is not None else None
    if od is None:
        if prov == "aws" and spot_price is not None:
            # The zone's spot price stands on its own; the region's on-demand is unknown here.
            caveats.append(rejected(Phrase(N_("no on-demand price (Price is empty); spot kept")), line, r))
            return [offer(r["AvailabilityZone"].strip() or None, (spot_price,))]
        # a row the source lists with no price at all (AWS's p5e outside its capacity blocks) holds
        # nothing to import: skipped, not lost; a spot price without its on-demand one is lost
        raise LineError(N_("no on-demand price"), skipped=spot_price is None)
    on_demand = price("on_demand", od, as_of=as_of, source=line_source)
    if prov == "aws":
        # On-demand is region-wide (the same in every zone); spot is per zone.
        out = [offer(None, (on_demand,))]
        if spot_price is not None:
            out.append(offer(r["AvailabilityZone"].strip() or None, (spot_price,)))
        return out
    return [offer(None, (on_demand, spot_price) if spot_price is not None else (on_demand,))]
