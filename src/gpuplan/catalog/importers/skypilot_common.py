"""What the readers of SkyPilot's catalog layouts share: bounded reading, numbers, GPU info, prices.

The readers are :mod:`~gpuplan.catalog.importers.skypilot` (AWS, Azure, and the entry point),
:mod:`~gpuplan.catalog.importers.skypilot_gcp` (GCP hosts + GPUs) and
:mod:`~gpuplan.catalog.importers.skypilot_markets` (the GPU marketplaces' files).
"""

from __future__ import annotations

import ast
import contextlib
import csv
import functools
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from gpuplan.bounded import (
    MAX_CSV_BYTES,
    MAX_CSV_LINE_BYTES,
    MAX_CSV_ROWS,
    csv_problem,
    decimal_number,
    read_lines,
)
from gpuplan.catalog.gpu_names import SKYPILOT_ACCELERATORS
from gpuplan.catalog.model import OfferRow, PriceRow, RejectedRow
from gpuplan.errors import CatalogImportError, Phrase, closest
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import either

__all__ = [
    "Known",
    "LineError",
    "ParsedFile",
    "Row",
    "gpu_id",
    "gpu_info",
    "number",
    "optional_number",
    "price",
    "read_rows",
    "rejected",
    "too_many_rows",
]

#: (provider, instance type) -> (GPU id, GPUs) the catalog already holds.
Known = Mapping[tuple[str, str], tuple[str, float]]
#: A file line: its number and its fields by column name (``__n``: how many fields it had).
Row = tuple[int, dict[str, str]]


@dataclass(frozen=True, kw_only=True)
class ParsedFile:
    """The offer rows of a file, the lines refused while reading it, and what was read with a caveat."""

    rows: tuple[OfferRow, ...]
    rejected: tuple[RejectedRow, ...]
    caveats: tuple[RejectedRow, ...] = ()
    """Lines taken, but not as written (a count the source gets wrong, a host price of 0.0 that
    means "in the GPU row", a spot column without a price): each says what was done and why."""


class LineError(ValueError):
    """A line that cannot become an offer row; ``phrase`` says why (in the user's language too).
    ``skipped``: a row of what gpuplan does not price (a machine without a GPU, an accelerator the
    hardware catalog has no datasheet of), left out by design rather than lost
    (:attr:`~gpuplan.catalog.model.RejectedRow.skipped`)."""

    def __init__(self, template: str, /, *, skipped: bool = False, **fields: object) -> None:
        self.phrase = Phrase(template, **fields)
        self.skipped = skipped
        super().__init__(str(self.phrase))


#: Characters of a rejected row's instance type or region kept for the report (a field may hold
#: up to 128 KiB; the report needs the start of it).
_SHOWN_CHARS = 100


def rejected(e: LineError | Phrase, line: int, r: dict[str, str], instance_type: str = "") -> RejectedRow:
    """The refusal of line ``line`` (its instance type and region as the line has them)."""
    return RejectedRow.because(
        e.phrase if isinstance(e, LineError) else e,
        line=line,
        instance_type=(instance_type or r.get("InstanceType", ""))[:_SHOWN_CHARS],
        region=r.get("Region", "")[:_SHOWN_CHARS],
        skipped=isinstance(e, LineError) and e.skipped,
    )


def number(value: str, what: str | Phrase) -> float:
    try:
        # ASCII decimals only: float() reads "1_5" as 15 and a full-width "１.5" as 1.5.
        x = decimal_number(value)
    except ValueError:
        raise LineError(N_("{what} {value} is not a number"), what=what, value=repr(value)) from None
    if not math.isfinite(x):
        raise LineError(N_("{what} {value} is not a finite number"), what=what, value=repr(value))
    return x


def optional_number(value: str | None, what: str | Phrase) -> float | None:
    return number(value, what) if value and value.strip() else None


#: Sanity ranges of the GpuInfo figures (a cross-check of AcceleratorCount and the GPU's memory;
#: the store's gates judge the count itself): no instance has 1,024 GPUs or a GPU of 10 TiB.
_MAX_GPU_INFO_COUNT = 1024
_MAX_GPU_MIB = 10 * 1024 * 1024


def _figure(value: object, what: str, least: float, most: float) -> float | None:
    """A figure of a GpuInfo dict from ``least`` to ``most``, or None when absent. Some files write
    figures as strings (Cudo's ``'1.0'``); ``1e999``, ``True``, ``'x'`` or one out of range are
    refused: the line is rejected."""
    if value is None:
        return None
    x: object = value
    if isinstance(value, str) and len(value) <= 40:
        with contextlib.suppress(ValueError):  # not a number: refused below
            x = decimal_number(value)
    ok = not isinstance(x, bool) and isinstance(x, int | float)
    # An int of 400 digits is compared as it is (float() of it would overflow); NaN compares False.
    if not ok or not least <= x <= most:  # type: ignore[operator]
        raise LineError(
            N_("{what} {value} is not a number from {least:g} to {most:,}"),
            what=what,
            value=repr(value)[:40],
            least=least,
            most=most,
        )
    return float(x)  # type: ignore[arg-type]


def _whole(value: object, what: str, least: int, most: int) -> float | None:
    x = _figure(value, what, least, most)
    if x is not None and x != int(x):
        raise LineError(N_("{what} {value} is not a whole number"), what=what, value=repr(value)[:40])
    return x


@functools.lru_cache(maxsize=4096)  # every zone of an instance type repeats its GpuInfo
def gpu_info(text: str) -> tuple[float | None, int | None, str | None]:
    """(GPU count, memory MiB per GPU, GPU name) from a SkyPilot ``GpuInfo`` dict (Python repr or
    JSON; some files write lower-case keys). A figure out of its sanity range rejects the line."""
    text = (text or "").strip()
    if not text.startswith("{"):
        return None, None, None
    if len(text) > 4096:  # SkyPilot's GpuInfo reprs are ~150-300 characters
        raise LineError(N_("GpuInfo of {n} characters is not a SkyPilot GPU description"), n=len(text))
    try:
        # literal_eval reads a repr, never code; JSON's null/true/false are spelled for it first.
        info = ast.literal_eval(
            text.replace("null", "None").replace("true", "True").replace("false", "False")
        )
        info = {str(k).lower(): v for k, v in info.items()}
        first = {str(k).lower(): v for k, v in (info.get("gpus") or [{}])[0].items()}
        memory = {str(k).lower(): v for k, v in (first.get("memoryinfo") or {}).items()}
        count, mem, name = first.get("count"), memory.get("sizeinmib"), first.get("name")
        share = first.get("gpupartitionsize")
        logical = first.get("logicalgpucount")
        total = info.get("totalgpumemoryinmib") or first.get("totalgpumemoryinmib")
    except (ValueError, SyntaxError, AttributeError, TypeError, IndexError, RecursionError, MemoryError):
        raise LineError(N_("GpuInfo {start}… is not a readable dict"), start=repr(text[:40])) from None
    gpus = _whole(count, "GpuInfo Count", 0, _MAX_GPU_INFO_COUNT)
    if not gpus and share is not None:  # AWS g6f: Count 0, one logical GPU of partition size 0.125
        part = _figure(share, "GpuInfo GpuPartitionSize", 0, 1) or 0.0
        gpus = (_whole(logical, "GpuInfo LogicalGpuCount", 1, _MAX_GPU_INFO_COUNT) or 1.0) * part
    # Per GPU: the total over the count where both are given (some files put the total in
    # SizeInMiB too), else SizeInMiB.
    mib = _whole(mem, "GpuInfo SizeInMiB", 1, _MAX_GPU_MIB)
    total_mib = _whole(total or None, "GpuInfo TotalGpuMemoryInMiB", 1, _MAX_GPU_MIB * _MAX_GPU_INFO_COUNT)
    per_gpu = total_mib / gpus if total_mib and gpus else mib
    return (
        gpus,
        (round(per_gpu) if per_gpu is not None else None),
        str(name)[:100] if name is not None else None,
    )


def gpu_id(provider: str, instance_type: str, accelerator: str, mem_mib: int | None, known: Known) -> str:
    """Hardware id of a hyperscaler row's GPU: the catalog's own for an instance type it knows, else
    the provider's SkyPilot name table (the memory-qualified key first).

    The row's name is read either way: a name the table does not have is refused — for an instance
    type the catalog knows, with the names SkyPilot gives its GPU (``A1OG``: did you mean ``A10G``) —
    and so is a name of another chip than the catalog's GPU of the instance type
    (``g5.8xlarge,H100``). Another part of the same chip is no contradiction: the table's default
    for a name (Azure's ``H100``: the NVL card) is not every instance type's part (ND H100 v5: SXM).
    """
    table = SKYPILOT_ACCELERATORS[provider]
    exact = table.get(f"{accelerator}@{mem_mib}") if mem_mib is not None else None
    named = {exact} if exact else {gpu for key, gpu in table.items() if key.split("@")[0] == accelerator}
    hit = known.get((provider, instance_type))
    if not named and hit is not None:
        # Only the names of the GPU the instance type has: a GPU gpuplan has no row for (B300 beside
        # B200) is no slip, and "did you mean" would say it is.
        names = sorted({key.split("@")[0] for key, gpu in table.items() if chip(gpu) == chip(hit[0])})
        if names:
            raise LineError(
                N_(
                    "unknown GPU {name} (no mapping from SkyPilot's name to a hardware id); "
                    "did you mean {names}?"
                ),
                name=repr(accelerator),
                names=either(repr(n) for n in closest(accelerator, names, n=len(names)) or names),
            )
    if not named:
        # an accelerator gpuplan has no datasheet of (an FPGA, a new GPU): out of its scope
        raise LineError(
            N_("unknown GPU {name} (no mapping from SkyPilot's name to a hardware id)"),
            name=repr(accelerator),
            skipped=True,
        )
    if hit is not None:
        if chip(hit[0]) not in {chip(gpu) for gpu in named}:
            raise LineError(
                N_(
                    "GPU {name} is {gpu} in SkyPilot's {provider} names, but instance type "
                    "{instance_type} has {known_gpu} in the catalog"
                ),
                name=repr(accelerator),
                gpu=either(sorted(named)),
                provider=provider,
                instance_type=instance_type,
                known_gpu=hit[0],
            )
        return hit[0]  # the catalog's part of that chip for this instance type; the gates check the count
    gpu = exact or table.get(accelerator)
    if gpu is None:  # the name is known, with another memory size than this row's
        raise LineError(
            N_("unknown GPU {name} (no mapping from SkyPilot's name to a hardware id)"),
            name=repr(accelerator),
        )
    return gpu


def chip(gpu: str) -> str:
    """The chip of a hardware id, its parts (form factor, memory) left off: ``A100-SXM4-80GB`` ->
    ``A100``, ``H100-NVL`` -> ``H100``, ``RTX-4090`` -> ``RTX-4090``, ``A10G`` -> ``A10G``."""
    parts = gpu.split("-")
    for i, part in enumerate(parts):
        if any(ch.isdigit() for ch in part):
            return "-".join(parts[: i + 1])
    return gpu


def price(pricing: str, amount: float, *, as_of: str, source: str) -> PriceRow:
    return PriceRow(
        pricing=pricing,
        amount=amount,
        currency="USD",
        unit="hour",
        as_of=as_of,
        source=source,
        confidence="secondary",  # SkyPilot compiles the providers' price APIs
    )


def too_many_rows(path: Path | str) -> CatalogImportError:
    """The refusal of a price file past :data:`MAX_CSV_ROWS` (any layout)."""
    return CatalogImportError.worded(
        N_(
            "{path} has more than {limit:,} rows, the limit of a price file; "
            "split it by region; nothing was imported"
        ),
        path=path,
        limit=MAX_CSV_ROWS,
    )


def read_rows(path: Path | str, check_header: Callable[[tuple[str, ...]], None]) -> Iterator[Row]:
    """The lines of a catalog CSV after its header passed ``check_header`` (which raises
    CatalogImportError), read as a stream: one line is held at a time, and a file of more than
    :data:`~gpuplan.bounded.MAX_CSV_ROWS` rows stops there, before the rest is read. A file unusable
    as a whole raises CatalogImportError (its callers build nothing until the stream is done)."""
    lines = read_lines(
        path,
        what=N_("price file"),
        max_bytes=MAX_CSV_BYTES,
        max_line_bytes=MAX_CSV_LINE_BYTES,
        error=CatalogImportError,
    )
    try:
        # strict: a quote left open would otherwise swallow every later line into one field, and the
        # import would go on with the lines before it; here the file fails as a whole.
        reader = csv.reader(lines, strict=True)
        try:
            header = tuple(next(reader))
        except StopIteration:
            raise CatalogImportError.worded(N_("{path} is empty; nothing was imported"), path=path) from None
        except csv.Error as e:
            raise CatalogImportError.worded(
                N_("{path} is not CSV ({why}); nothing was imported"), path=path, why=csv_problem(e)
            ) from e
        check_header(header)
        count = 0
        try:
            for fields in reader:
                if not fields:
                    continue
                count += 1
                if count > MAX_CSV_ROWS:
                    raise too_many_rows(path)
                yield reader.line_num, dict(zip(header, fields, strict=False)) | {"__n": str(len(fields))}
        except csv.Error as e:
            raise CatalogImportError.worded(
                N_("{path} line {line}: {why}; nothing was imported"),
                path=path,
                line=reader.line_num,
                why=csv_problem(e),
            ) from e
    except CatalogImportError as e:
        if e.template.endswith("nothing was imported"):
            raise
        # read_lines' own line (not a regular file, too big, a line too long or not UTF-8)
        raise CatalogImportError.worded(N_("{problem}; nothing was imported"), problem=e) from None
    finally:
        lines.close()


def check_width(r: dict[str, str], width: int) -> None:
    n = int(r["__n"])
    if n != width:
        raise LineError(N_("truncated or malformed line: {n} of {width} fields"), n=n, width=width)
