"""What the readers of SkyPilot's catalog layouts share: bounded reading, numbers, GPU info, prices.

The readers are :mod:`~gpuplan.catalog.importers.skypilot` (AWS, Azure, and the entry point),
:mod:`~gpuplan.catalog.importers.skypilot_gcp` (GCP hosts + GPUs) and
:mod:`~gpuplan.catalog.importers.skypilot_markets` (the GPU marketplaces' files).
"""

from __future__ import annotations

import ast
import csv
import io
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from gpuplan.bounded import MAX_CSV_BYTES, read_text
from gpuplan.catalog.gpu_names import SKYPILOT_ACCELERATORS
from gpuplan.catalog.model import OfferRow, PriceRow, RejectedRow
from gpuplan.errors import CatalogImportError, Phrase
from gpuplan.i18n.messages import N_

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
    """A line that cannot become an offer row; ``phrase`` says why (in the user's language too)."""

    def __init__(self, template: str, /, **fields: object) -> None:
        self.phrase = Phrase(template, **fields)
        super().__init__(str(self.phrase))


def rejected(e: LineError | Phrase, line: int, r: dict[str, str], instance_type: str = "") -> RejectedRow:
    """The refusal of line ``line`` (its instance type and region as the line has them)."""
    return RejectedRow.because(
        e.phrase if isinstance(e, LineError) else e,
        line=line,
        instance_type=instance_type or r.get("InstanceType", ""),
        region=r.get("Region", ""),
    )


def number(value: str, what: str | Phrase) -> float:
    try:
        x = float(value)
    except ValueError:
        raise LineError(N_("{what} {value} is not a number"), what=what, value=repr(value)) from None
    if not math.isfinite(x):
        raise LineError(N_("{what} {value} is not a finite number"), what=what, value=repr(value))
    return x


def optional_number(value: str | None, what: str | Phrase) -> float | None:
    return number(value, what) if value and value.strip() else None


def gpu_info(text: str) -> tuple[float | None, int | None, str | None]:
    """(GPU count, memory MiB per GPU, GPU name) from a SkyPilot ``GpuInfo`` dict (Python repr or
    JSON; some files write lower-case keys)."""
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
        gpus = float(count) if count is not None else None
        share = first.get("gpupartitionsize")
        if not gpus and share:  # AWS g6f: Count 0, one logical GPU of partition size 0.125
            gpus = float(first.get("logicalgpucount") or 1) * float(share)
        # Per GPU: the total over the count where both are given (some files put the total in
        # SizeInMiB too), else SizeInMiB.
        total = info.get("totalgpumemoryinmib") or first.get("totalgpumemoryinmib")
        per_gpu = float(total) / gpus if total and gpus else (float(mem) if mem is not None else None)
        return (
            gpus,
            (round(per_gpu) if per_gpu is not None else None),
            str(name) if name is not None else None,
        )
    except (ValueError, SyntaxError, AttributeError, TypeError, IndexError, RecursionError, MemoryError):
        raise LineError(N_("GpuInfo {start}… is not a readable dict"), start=repr(text[:40])) from None


def gpu_id(provider: str, instance_type: str, accelerator: str, mem_mib: int | None, known: Known) -> str:
    """Hardware id of a hyperscaler row's GPU: the catalog's own for an instance type it knows, else
    the provider's SkyPilot name table (the memory-qualified key first)."""
    hit = known.get((provider, instance_type))
    if hit is not None:
        return hit[0]  # the catalog already knows this instance type's GPU; the gates check the count
    table = SKYPILOT_ACCELERATORS[provider]
    gpu = table.get(f"{accelerator}@{mem_mib}") if mem_mib is not None else None
    gpu = gpu or table.get(accelerator)
    if gpu is None:
        raise LineError(
            N_("unknown GPU {name} (no mapping from SkyPilot's name to a hardware id)"),
            name=repr(accelerator),
        )
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


def read_rows(path: Path | str, check_header: Callable[[tuple[str, ...]], None]) -> list[Row]:
    """The lines of a catalog CSV after its header passed ``check_header`` (which raises
    CatalogImportError); a file unusable as a whole raises CatalogImportError, nothing read."""
    try:
        text = read_text(path, what=N_("price file"), max_bytes=MAX_CSV_BYTES, error=CatalogImportError)
    except CatalogImportError as e:
        raise CatalogImportError.worded(N_("{problem}; nothing was imported"), problem=e) from None
    # strict: a quote left open would otherwise swallow every later line into one field, and the
    # import would go on with the lines before it; here the file fails as a whole.
    reader = csv.reader(io.StringIO(text), strict=True)
    try:
        header = tuple(next(reader))
    except StopIteration:
        raise CatalogImportError.worded(N_("{path} is empty; nothing was imported"), path=path) from None
    except csv.Error as e:
        raise CatalogImportError.worded(
            N_("{path} is not CSV ({why}); nothing was imported"), path=path, why=e
        ) from e
    check_header(header)
    rows: list[Row] = []
    try:
        for fields in reader:
            if not fields:
                continue
            rows.append(
                (reader.line_num, dict(zip(header, fields, strict=False)) | {"__n": str(len(fields))})
            )
    except csv.Error as e:
        raise CatalogImportError.worded(
            N_("{path} line {line}: {why}; nothing was imported"), path=path, line=reader.line_num, why=e
        ) from e
    return rows


def check_width(r: dict[str, str], width: int) -> None:
    n = int(r["__n"])
    if n != width:
        raise LineError(N_("truncated or malformed line: {n} of {width} fields"), n=n, width=width)
