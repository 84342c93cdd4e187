"""Read SkyPilot's public catalog CSVs (AWS v8, GCP v8, Azure v6) into offer rows.

Layouts (shared/data/README.md):

- AWS v8: one row per instance type and zone; ``Price`` is on-demand (the same in every zone of a
  region, stored once on a region-wide offer), ``SpotPrice`` is per zone (stored on a zone offer).
  ``GpuInfo`` is a Python-repr dict whose GPU count is checked against ``AcceleratorCount``.
- GCP v8: host VM rows carry the VM-only price; GPU rows (empty ``InstanceType``) carry the attached
  GPUs' price. A bundled machine type (a2, a3, g2) costs its host row plus the GPU row of the same
  zone with its accelerator and count; n1 + attachable GPU combinations are not offers by themselves.
- Azure v6: one row per instance type and region, on-demand and spot.

A file unusable as a whole (unreadable, wrong header, more than ``MAX_CSV_ROWS`` rows) raises
CatalogImportError before anything is written. The file is read as a stream, one row at a time: only
GPU rows (and GCP's bundled host rows) are kept. A bad line becomes a RejectedRow with its line
number; the store's gates judge the rest.
"""

from __future__ import annotations

import ast
import csv
import functools
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from gpuplan.bounded import MAX_CSV_BYTES, MAX_CSV_LINE_BYTES, MAX_CSV_ROWS, read_lines
from gpuplan.catalog.gpu_names import SKYPILOT_ACCELERATORS
from gpuplan.catalog.model import OfferRow, PriceRow, RejectedRow
from gpuplan.catalog.providers import PROVIDERS
from gpuplan.errors import CatalogImportError, Phrase
from gpuplan.i18n.messages import N_

__all__ = ["HEADERS", "ParsedFile", "parse_skypilot"]

#: The header each provider's layout must have, exactly (SkyPilot catalog v8 / v6).
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

#: GCP machine families that come with GPUs, and the SkyPilot accelerator name of those GPUs.
GCP_BUNDLED_FAMILIES: dict[str, str] = {
    "a2-highgpu": "A100",
    "a2-megagpu": "A100",
    "a2-ultragpu": "A100-80GB",
    "a3-highgpu": "H100",
    "a3-megagpu": "H100-MEGA",
    "a3-ultragpu": "H200",
    "g2-standard": "L4",
}
#: GPUs per G2 machine type (GCP G2 machine-series table); a2/a3 names end in the count (``-8g``).
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


@dataclass(frozen=True, kw_only=True)
class ParsedFile:
    """The offer rows of a file and the lines refused while reading it."""

    rows: tuple[OfferRow, ...]
    rejected: tuple[RejectedRow, ...]


# TRANSLATORS: a column of a GCP host VM row ("host Price is not a number")
_HOST_COLUMN = N_("host {column}")


class _LineError(ValueError):
    """A line that cannot become an offer row; ``phrase`` says why (in the user's language too)."""

    def __init__(self, template: str, /, **fields: object) -> None:
        self.phrase = Phrase(template, **fields)
        super().__init__(str(self.phrase))


def _float(value: str, what: str | Phrase) -> float:
    try:
        x = float(value)
    except ValueError:
        raise _LineError(N_("{what} {value} is not a number"), what=what, value=repr(value)) from None
    if not math.isfinite(x):
        raise _LineError(N_("{what} {value} is not a finite number"), what=what, value=repr(value))
    return x


def _opt_float(value: str, what: str | Phrase) -> float | None:
    return _float(value, what) if value.strip() else None


@functools.lru_cache(maxsize=4096)  # every zone of an instance type repeats its GpuInfo
def _gpu_info(text: str) -> tuple[int | None, int | None]:
    """(GPU count, memory MiB per GPU) from a SkyPilot ``GpuInfo`` Python-repr dict."""
    if not text.strip() or not text.strip().startswith("{"):
        return None, None
    if len(text) > 4096:  # SkyPilot's GpuInfo reprs are ~150 characters
        raise _LineError(N_("GpuInfo of {n} characters is not a SkyPilot GPU description"), n=len(text))
    try:
        info = ast.literal_eval(text)  # literal_eval: a repr, never code
        gpus = info.get("Gpus") or [{}]
        count = gpus[0].get("Count")
        mem = gpus[0].get("MemoryInfo", {}).get("SizeInMiB")
    except (ValueError, SyntaxError, AttributeError, TypeError, IndexError, RecursionError, MemoryError):
        raise _LineError(N_("GpuInfo {start}… is not a readable dict"), start=repr(text[:40])) from None
    return _whole(count, "GpuInfo Count", _MAX_GPU_INFO_COUNT), _whole(mem, "GpuInfo SizeInMiB", _MAX_GPU_MIB)


#: Sanity ranges of the GpuInfo figures (a cross-check of AcceleratorCount and the GPU's memory;
#: the store's gates judge the count itself): no instance has 1,024 GPUs or a GPU of 10 TiB.
_MAX_GPU_INFO_COUNT = 1024
_MAX_GPU_MIB = 10 * 1024 * 1024


def _whole(value: object, what: str, most: int) -> int | None:
    """A count from a GpuInfo dict: a whole number from 1 to ``most`` (``1e999``, ``True``, ``2.5``
    or ``-1`` are refused), or None when absent."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        number: float = math.nan
    else:  # an int of 400 digits is compared as it is (float() of it would overflow)
        number = (
            value if isinstance(value, int) or (math.isfinite(value) and value == int(value)) else math.nan
        )
    if not 1 <= number <= most:  # False for NaN
        raise _LineError(
            N_("{what} {value} is not a whole number from 1 to {most:,}"),
            what=what,
            value=repr(value)[:40],
            most=most,
        )
    return int(number)


def _gpu_id(
    provider: str,
    instance_type: str,
    accelerator: str,
    mem_mib: int | None,
    known: Mapping[tuple[str, str], tuple[str, float]],
) -> str:
    hit = known.get((provider, instance_type))
    if hit is not None:
        return hit[0]  # the catalog already knows this instance type's GPU; the gates check the count
    table = SKYPILOT_ACCELERATORS[provider]
    gpu = table.get(f"{accelerator}@{mem_mib}") if mem_mib is not None else None
    gpu = gpu or table.get(accelerator)
    if gpu is None:
        raise _LineError(
            N_("unknown GPU {name} (no mapping from SkyPilot's name to a hardware id)"),
            name=repr(accelerator),
        )
    return gpu


def _rows(path: Path | str, provider: str) -> Iterator[tuple[int, dict[str, str]]]:
    """(line, fields by column) of each row, read as a stream: one row is held at a time, and a file
    of more than MAX_CSV_ROWS rows stops there, before the rest is read."""
    lines = read_lines(
        path,
        what=N_("price file"),
        max_bytes=MAX_CSV_BYTES,
        max_line_bytes=MAX_CSV_LINE_BYTES,
        error=CatalogImportError,
    )
    try:
        reader = csv.reader(lines)
        try:
            header = tuple(next(reader))
        except StopIteration:
            raise CatalogImportError.worded(N_("{path} is empty; nothing was imported"), path=path) from None
        except csv.Error as e:
            raise CatalogImportError.worded(
                N_("{path} is not CSV ({why}); nothing was imported"), path=path, why=e
            ) from e
        expected = HEADERS[provider]
        if header != expected:
            raise CatalogImportError.worded(
                N_(
                    "{path} does not have the SkyPilot {provider} header ({expected}); "
                    "check --provider; nothing was imported"
                ),
                path=path,
                provider=provider,
                expected=", ".join(expected),
            )
        count = 0
        try:
            for fields in reader:
                if not fields:
                    continue
                count += 1
                if count > MAX_CSV_ROWS:
                    raise CatalogImportError.worded(
                        N_(
                            "{path} has more than {limit:,} rows, the limit of a price file; "
                            "split it by region; nothing was imported"
                        ),
                        path=path,
                        limit=MAX_CSV_ROWS,
                    )
                yield reader.line_num, dict(zip(header, fields, strict=False)) | {"__n": str(len(fields))}
        except csv.Error as e:
            raise CatalogImportError.worded(
                N_("{path} line {line}: {why}; nothing was imported"), path=path, line=reader.line_num, why=e
            ) from e
    except CatalogImportError as e:
        if e.template.endswith("nothing was imported"):
            raise
        # read_lines' own line (not a regular file, too big, a line too long or not UTF-8)
        raise CatalogImportError.worded(N_("{problem}; nothing was imported"), problem=e) from None
    finally:
        lines.close()


#: Characters of a rejected row's instance type or region kept for the report.
_SHOWN_CHARS = 100


def _rejected(reason: object, line: int, r: Mapping[str, str]) -> RejectedRow:
    return RejectedRow.because(
        reason,
        line=line,
        instance_type=r.get("InstanceType", "")[:_SHOWN_CHARS],
        region=r.get("Region", "")[:_SHOWN_CHARS],
    )


def _price(pricing: str, amount: float, *, as_of: str, source: str) -> PriceRow:
    return PriceRow(
        pricing=pricing,
        amount=amount,
        currency="USD",
        unit="hour",
        as_of=as_of,
        source=source,
        confidence="secondary",  # SkyPilot compiles the providers' price APIs
    )


def parse_skypilot(
    path: Path | str,
    provider: str,
    *,
    as_of: str,
    source: str | None = None,
    known_instances: Mapping[tuple[str, str], tuple[str, float]] | None = None,
) -> ParsedFile:
    """Offer rows of a SkyPilot catalog file for ``provider`` (``aws``, ``gcp`` or ``azure``).

    ``as_of`` dates every price (the files carry no date); ``known_instances`` (from the store)
    decides the GPU of instance types the catalog already knows.
    """
    prov = PROVIDERS.cast(provider)
    if prov not in HEADERS:
        raise CatalogImportError.worded(
            N_("no SkyPilot layout for {provider}; SkyPilot catalogs exist for aws, gcp, azure"),
            provider=prov,
        )
    src = source or f"SkyPilot catalog file {Path(path).name} ({prov} layout), imported as of {as_of}"
    rows = _rows(path, prov)
    known = known_instances or {}
    if prov == "gcp":
        return _parse_gcp(rows, as_of=as_of, source=src, known=known)
    out: list[OfferRow] = []
    rejected: list[RejectedRow] = []
    for line, r in rows:
        try:
            out.extend(_parse_aws_azure_line(prov, r, line, as_of=as_of, source=src, known=known))
        except _LineError as e:
            rejected.append(_rejected(e.phrase, line, r))
    return ParsedFile(rows=tuple(out), rejected=tuple(rejected))


def _check_width(r: dict[str, str], width: int) -> None:
    n = int(r["__n"])
    if n != width:
        raise _LineError(N_("truncated or malformed line: {n} of {width} fields"), n=n, width=width)


def _parse_aws_azure_line(
    prov: str,
    r: dict[str, str],
    line: int,
    *,
    as_of: str,
    source: str,
    known: Mapping[tuple[str, str], tuple[str, float]],
) -> list[OfferRow]:
    _check_width(r, len(HEADERS[prov]))
    itype, region = r["InstanceType"].strip(), r["Region"].strip()
    if not r["AcceleratorName"].strip():
        raise _LineError(N_("no accelerator (not a GPU instance)"))
    count = _float(r["AcceleratorCount"], "AcceleratorCount")
    info_count, mem_mib = _gpu_info(r["GpuInfo"]) if prov == "aws" else (None, None)
    gpu = _gpu_id(prov, itype, r["AcceleratorName"].strip(), mem_mib, known)
    od = _opt_float(r["Price"], "Price")
    spot = _opt_float(r["SpotPrice"], "SpotPrice")
    vcpus = _opt_float(r["vCPUs"], "vCPUs")
    memory_gib = _opt_float(r["MemoryGiB"], "MemoryGiB")
    if od is None:
        raise _LineError(N_("no on-demand price"))

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
            source=source,
            prices=prices,
            line=line,
            accelerator_count_reported=float(info_count) if info_count is not None else None,
        )

    on_demand = _price("on_demand", od, as_of=as_of, source=source)
    if prov == "aws":
        # On-demand is region-wide (the same in every zone); spot is per zone.
        out = [offer(None, (on_demand,))]
        if spot is not None:
            zone = r["AvailabilityZone"].strip() or None
            out.append(offer(zone, (_price("spot", spot, as_of=as_of, source=source),)))
        return out
    if spot is not None:
        return [offer(None, (on_demand, _price("spot", spot, as_of=as_of, source=source)))]
    return [offer(None, (on_demand,))]


def _gcp_bundle(instance_type: str) -> tuple[str, int] | None:
    """(SkyPilot accelerator name, count) a bundled GCP machine type comes with; None if none."""
    for family, accelerator in GCP_BUNDLED_FAMILIES.items():
        if instance_type.startswith(family + "-"):
            if family == "g2-standard":
                n = GCP_G2_L4_COUNT.get(instance_type)
                return (accelerator, n) if n else None
            m = re.search(r"-(\d+)g$", instance_type)
            return (accelerator, int(m[1])) if m else None
    return None


def _no_bundled_gpus(instance_type: str) -> _LineError:
    return _LineError(
        N_("host type {instance_type} has no bundled GPUs (n1 + attachable GPUs are not imported)"),
        instance_type=instance_type[:_SHOWN_CHARS],
    )


def _parse_gcp(
    rows: Iterable[tuple[int, dict[str, str]]],
    *,
    as_of: str,
    source: str,
    known: Mapping[tuple[str, str], tuple[str, float]],
) -> ParsedFile:
    width = len(HEADERS["gcp"])
    hosts: list[tuple[int, dict[str, str]]] = []
    gpu_rows: dict[tuple[str, str, float], tuple[int, dict[str, str]]] = {}
    rejected: list[RejectedRow] = []
    for line, r in rows:
        try:
            _check_width(r, width)
            if r["InstanceType"].strip():
                if _gcp_bundle(r["InstanceType"].strip()) is None:
                    raise _no_bundled_gpus(r["InstanceType"].strip())
                hosts.append((line, r))  # kept for the second pass: bundled hosts only
            else:
                key = (
                    r["AvailabilityZone"].strip(),
                    r["AcceleratorName"].strip(),
                    _float(r["AcceleratorCount"], "AcceleratorCount"),
                )
                gpu_rows[key] = (line, r)
        except _LineError as e:
            rejected.append(_rejected(e.phrase, line, r))
    used: set[tuple[str, str, float]] = set()
    out: list[OfferRow] = []
    for line, h in hosts:
        itype, zone, region = h["InstanceType"].strip(), h["AvailabilityZone"].strip(), h["Region"].strip()
        try:
            bundle = _gcp_bundle(itype)
            if bundle is None:  # pragma: no cover - hosts without GPUs were refused in the first pass
                raise _no_bundled_gpus(itype)
            accelerator, count = bundle
            key = (zone, accelerator, float(count))
            if key not in gpu_rows:
                raise _LineError(
                    N_(
                        "no {accelerator} x{count} GPU row in zone {zone} to add to the host price "
                        "(GCP prices a VM as host + GPUs)"
                    ),
                    accelerator=accelerator,
                    count=count,
                    zone=zone,
                )
            used.add(key)
            gline, g = gpu_rows[key]
            host_od = _opt_float(h["Price"], Phrase(_HOST_COLUMN, column="Price"))
            gpu_od = _opt_float(g["Price"], Phrase(N_("GPU row (line {line}) Price"), line=gline))
            if host_od is None or gpu_od is None:
                raise _LineError(N_("no on-demand price on the host or GPU row"))
            _, mem_mib = _gpu_info(g["GpuInfo"])
            gpu = _gpu_id("gcp", itype, accelerator, mem_mib, known)
            row_source = f"{source}: host line {line} + GPU line {gline}"
            prices = [_price("on_demand", host_od + gpu_od, as_of=as_of, source=row_source)]
            host_spot = _opt_float(h["SpotPrice"], Phrase(_HOST_COLUMN, column="SpotPrice"))
            gpu_spot = _opt_float(g["SpotPrice"], Phrase(N_("GPU row {column}"), column="SpotPrice"))
            if host_spot is not None and gpu_spot is not None:
                prices.append(_price("spot", host_spot + gpu_spot, as_of=as_of, source=row_source))
            out.append(
                OfferRow(
                    provider="gcp",
                    region=region,
                    zone=zone or None,
                    instance_type=itype,
                    gpu=gpu,
                    gpu_count=float(count),
                    vcpus=_opt_float(h["vCPUs"], "vCPUs"),
                    memory_gib=_opt_float(h["MemoryGiB"], "MemoryGiB"),
                    network_gbps=None,
                    interconnect=None,
                    source=row_source,
                    prices=tuple(prices),
                    line=line,
                )
            )
        except _LineError as e:
            rejected.append(_rejected(e.phrase, line, h))
    for key, (gline, g) in sorted(gpu_rows.items(), key=lambda kv: kv[1][0]):
        if key not in used:
            zone, accelerator, n = key
            rejected.append(
                RejectedRow.because(
                    Phrase(
                        N_(
                            "GPU row with no bundled host row in zone {zone} in this file "
                            "(attachable GPUs are priced only with a host)"
                        ),
                        zone=zone,
                    ),
                    line=gline,
                    instance_type=f"{accelerator} x{n:g} (GPU row)",
                    region=g["Region"].strip(),
                )
            )
    rejected.sort(key=lambda r: r.line or 0)
    return ParsedFile(rows=tuple(out), rejected=tuple(rejected))
