"""Read SkyPilot's GCP catalog layout: a VM costs its host row plus the GPU row of its zone.

Host VM rows carry the VM-only price; GPU rows (empty ``InstanceType``) carry the price of N GPUs
of one model in one zone. Two kinds of VM have GPUs:

- machine types that come with them (a2, a3, a4, g2): the host row plus the GPU row of the same
  zone with the family's GPU model and count. SkyPilot gives A4 (B200) hosts the price 0.0 and the
  whole machine's price in the GPU row: the offer is priced from the GPU row, with a caveat;
- N1 VMs with attachable GPUs (T4, V100, P100, P4): every N1 host of the zone that GCP allows for
  that GPU model and count (``gcp.N1_GPUS``), named ``n1-standard-8 + 1x nvidia-tesla-t4``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

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
    rejected,
)
from gpuplan.catalog.model import OfferRow, PriceRow, RejectedRow
from gpuplan.catalog.providers.gcp import N1_GPUS, n1_gpu_fits, n1_offer_name
from gpuplan.errors import Phrase
from gpuplan.i18n.messages import N_
from gpuplan.i18n.sources import HOST_AND_GPU_LINES

__all__ = ["GCP_BUNDLED_FAMILIES", "GCP_G2_L4_COUNT", "parse_gcp"]

#: GCP machine families that come with GPUs, and the SkyPilot accelerator name of those GPUs.
GCP_BUNDLED_FAMILIES: dict[str, str] = {
    "a2-highgpu": "A100",
    "a2-megagpu": "A100",
    "a2-ultragpu": "A100-80GB",
    "a3-highgpu": "H100",
    "a3-edgegpu": "H100",
    "a3-megagpu": "H100-MEGA",
    "a3-ultragpu": "H200",
    "a4-highgpu": "B200",
    "g2-standard": "L4",
}
#: GPUs per G2 machine type (GCP G2 machine-series table); a2/a3/a4 names end in the count (``-8g``).
GCP_G2_L4_COUNT: dict[str, int] = {
    "g2-standard-4": 1,
    "g2-standard-8": 1,
    "g2-standard-12": 1,
    "g2-standard-16": 1,
    "g2-standard-24": 2,
    "g2-standard-32": 1,
    "g2-standard-48": 4,
    "g2-standard-96": 8,
}

# TRANSLATORS: a column of a GCP host VM row ("host Price is not a number")
_HOST_COLUMN = N_("host {column}")

#: (zone, SkyPilot accelerator name, GPU count) -> the GPU row.
_GpuRows = dict[tuple[str, str, float], Row]


def _bundle(instance_type: str) -> tuple[str, int] | None:
    """(SkyPilot accelerator name, count) a GCP machine type comes with; None if none."""
    for family, accelerator in GCP_BUNDLED_FAMILIES.items():
        if instance_type.startswith(family + "-"):
            if family == "g2-standard":
                n = GCP_G2_L4_COUNT.get(instance_type)
                return (accelerator, n) if n else None
            m = re.search(r"-(\d+)g(-nolssd)?$", instance_type)  # -nolssd: without local SSD
            return (accelerator, int(m[1])) if m else None
    return None


def parse_gcp(rows: Iterable[Row], *, as_of: str, source: str, known: Known, width: int) -> ParsedFile:
    hosts: list[Row] = []
    gpu_rows: _GpuRows = {}
    refused: list[RejectedRow] = []
    caveats: list[RejectedRow] = []
    for line, r in rows:
        try:
            check_width(r, width)
            if r["InstanceType"].strip():
                hosts.append((line, r))
            else:
                key = (
                    r["AvailabilityZone"].strip(),
                    r["AcceleratorName"].strip(),
                    number(r["AcceleratorCount"], "AcceleratorCount"),
                )
                gpu_rows[key] = (line, r)
        except LineError as e:
            refused.append(rejected(e, line, r))
    used: set[tuple[str, str, float]] = set()
    out: list[OfferRow] = []
    for line, h in hosts:
        itype = h["InstanceType"].strip()
        try:
            if itype.startswith("n1-"):
                offers = _n1_offers((line, h), gpu_rows, used, as_of=as_of, source=source)
                if not offers:
                    raise LineError(
                        N_("N1 host {instance_type} has no attachable GPU row in zone {zone} that fits it"),
                        instance_type=itype,
                        zone=h["AvailabilityZone"].strip(),
                    )
                out.extend(offers)
            else:
                out.append(_bundled_offer((line, h), gpu_rows, used, caveats, as_of=as_of, source=source))
        except LineError as e:
            refused.append(rejected(e, line, h))
    for key, (gline, g) in sorted(gpu_rows.items(), key=lambda kv: kv[1][0]):
        if key not in used:
            zone, accelerator, n = key
            refused.append(
                rejected(
                    Phrase(
                        N_(
                            "GPU row with no host row in zone {zone} in this file "
                            "(attachable GPUs are priced only with a host)"
                        ),
                        zone=zone,
                    ),
                    gline,
                    g,
                    instance_type=f"{accelerator} x{n:g} (GPU row)",
                )
            )
    refused.sort(key=lambda r: r.line or 0)
    return ParsedFile(rows=tuple(out), rejected=tuple(refused), caveats=tuple(caveats))


def _prices(host: Row, gpu: Row, *, as_of: str, source: str) -> tuple[PriceRow, ...]:
    """On-demand (and spot, where both rows have one) = host + GPU row."""
    (line, h), (gline, g) = host, gpu
    row_source = source + HOST_AND_GPU_LINES.format(host=line, gpu=gline)
    host_od = optional_number(h["Price"], Phrase(_HOST_COLUMN, column="Price"))
    gpu_od = optional_number(g["Price"], Phrase(N_("GPU row (line {line}) Price"), line=gline))
    if host_od is None or gpu_od is None:
        raise LineError(N_("no on-demand price on the host or GPU row"))
    prices = [price("on_demand", round(host_od + gpu_od, 6), as_of=as_of, source=row_source)]
    host_spot = optional_number(h["SpotPrice"], Phrase(_HOST_COLUMN, column="SpotPrice"))
    gpu_spot = optional_number(g["SpotPrice"], Phrase(N_("GPU row {column}"), column="SpotPrice"))
    if host_spot is not None and gpu_spot is not None:
        prices.append(price("spot", round(host_spot + gpu_spot, 6), as_of=as_of, source=row_source))
    return tuple(prices)


def _bundled_offer(
    host: Row,
    gpu_rows: _GpuRows,
    used: set[tuple[str, str, float]],
    caveats: list[RejectedRow],
    *,
    as_of: str,
    source: str,
) -> OfferRow:
    line, h = host
    itype, zone = h["InstanceType"].strip(), h["AvailabilityZone"].strip()
    bundle = _bundle(itype)
    if bundle is None:
        raise LineError(
            N_("host type {instance_type} has no bundled GPUs (and is not an N1 host)"),
            instance_type=itype,
        )
    accelerator, count = bundle
    key = (zone, accelerator, float(count))
    if key not in gpu_rows:
        raise LineError(
            N_(
                "no {accelerator} x{count} GPU row in zone {zone} to add to the host price "
                "(GCP prices a VM as host + GPUs)"
            ),
            accelerator=accelerator,
            count=count,
            zone=zone,
        )
    used.add(key)
    _, mem_mib, _ = gpu_info(gpu_rows[key][1]["GpuInfo"])
    gpu = gpu_id("gcp", itype, accelerator, mem_mib, {})
    if optional_number(h["Price"], "Price") == 0.0:
        caveats.append(
            rejected(
                Phrase(
                    N_(
                        "host price 0.0: SkyPilot carries the whole {instance_type} price in the GPU "
                        "row (line {gpu_line}), so the offer is priced from that row alone"
                    ),
                    instance_type=itype,
                    gpu_line=gpu_rows[key][0],
                ),
                line,
                h,
            )
        )
    return OfferRow(
        provider="gcp",
        region=h["Region"].strip(),
        zone=zone or None,
        instance_type=itype,
        gpu=gpu,
        gpu_count=float(count),
        vcpus=optional_number(h["vCPUs"], "vCPUs"),
        memory_gib=optional_number(h["MemoryGiB"], "MemoryGiB"),
        network_gbps=None,
        interconnect=None,
        source=source + HOST_AND_GPU_LINES.format(host=line, gpu=gpu_rows[key][0]),
        prices=_prices(host, gpu_rows[key], as_of=as_of, source=source),
        line=line,
    )


def _n1_offers(
    host: Row, gpu_rows: _GpuRows, used: set[tuple[str, str, float]], *, as_of: str, source: str
) -> list[OfferRow]:
    """Every attachable-GPU offer an N1 host makes in its zone, under GCP's pairing rules."""
    line, h = host
    itype, zone = h["InstanceType"].strip(), h["AvailabilityZone"].strip()
    vcpus = number(h["vCPUs"], "vCPUs")
    memory = number(h["MemoryGiB"], "MemoryGiB")
    out: list[OfferRow] = []
    for (gzone, model, count), grow in gpu_rows.items():
        if gzone != zone or model not in N1_GPUS or not count.is_integer():
            continue
        if not n1_gpu_fits(model, int(count), zone, vcpus, memory):
            continue
        rule = N1_GPUS[model]
        used.add((gzone, model, count))
        out.append(
            OfferRow(
                provider="gcp",
                region=h["Region"].strip(),
                zone=zone or None,
                instance_type=n1_offer_name(itype, count, model),
                gpu=rule.gpu,
                gpu_count=count,
                vcpus=vcpus,
                memory_gib=memory,
                network_gbps=None,
                interconnect=None,
                source=source + HOST_AND_GPU_LINES.format(host=line, gpu=grow[0]),
                prices=_prices(host, grow, as_of=as_of, source=source),
                line=line,
            )
        )
    return out
