"""The fast path of reading a trace CSV: Arrow's columnar CSV reader (``pyarrow.csv``).

A day of requests at 50/s is 4.3 M rows; Python's ``csv`` module and one ``float()`` per cell took
13 of the 16 CPU-seconds of such a simulation. Arrow parses the columns in C++ into typed arrays.

Only a well-formed file goes through here. On anything Arrow refuses or a value the trace does not
accept (a non-finite time, a token count that is not a whole number within bounds), this returns
``None`` and :func:`gpuplan.simulate.trace.read_trace_csv` reads the file line by line, which names
the first bad line in its one-line error (Arrow's own messages do not give the row).

pyarrow is imported here only, when a trace is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gpuplan.bounded import decimal_number

__all__ = ["Columns", "read_columns"]


@dataclass(frozen=True, kw_only=True)
class Columns:
    """The three columns of a trace as read, unsorted."""

    time_s: np.ndarray
    """Seconds (numbers as written, or date-times as seconds since 1970 of their wall clock)."""
    is_datetime: bool
    prompt_tokens: np.ndarray | None
    output_tokens: np.ndarray | None


def _whole_counts(values: np.ndarray, limit: int) -> np.ndarray | None:
    """int64 counts, or None when any value is not a whole number within ``±limit``."""
    if values.dtype.kind == "i":
        return values if bool(np.all(np.abs(values) <= limit)) else None
    ok = np.isfinite(values) & (np.abs(values) <= limit)
    if not ok.all():
        return None
    counts = values.astype(np.int64)
    return counts if np.array_equal(counts, values) else None


def read_columns(
    path: Path,
    *,
    skip_lines: int,
    header: list[str],
    time_col: int,
    prompt_col: int | None,
    output_col: int | None,
    first_time: str,
    max_tokens: int,
) -> Columns | None:
    """The trace's columns through Arrow; None where the line-by-line reader must say what is wrong.

    ``skip_lines``: comment lines before the header. ``first_time``: the first data row's timestamp
    cell, which decides whether the column holds numbers or date-times (mixing them is an error the
    line-by-line reader reports).
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    try:
        decimal_number(first_time)  # the line-by-line reader's grammar of a number
        is_datetime = False
    except ValueError:
        is_datetime = True
    names = [h.strip() for h in header]
    if len(set(names)) != len(names):
        return None  # duplicate column names: Arrow would not know which one is meant
    table = None
    # Token counts are whole numbers: read as integers (a cell such as "512.0" makes that fail, and
    # the columns are read again as floats, checked below). One thread: on two shared cores the
    # parser's threads cost more CPU and time than they save.
    for token_type in (pa.int64(), pa.float64()):
        wanted = {time_col: pa.timestamp("ns") if is_datetime else pa.float64()}
        for col in (prompt_col, output_col):
            if col is not None:
                wanted[col] = token_type
        try:
            table = pacsv.read_csv(
                path,
                read_options=pacsv.ReadOptions(
                    skip_rows=skip_lines + 1, column_names=names, use_threads=False
                ),
                convert_options=pacsv.ConvertOptions(
                    include_columns=[names[c] for c in wanted],
                    column_types={names[c]: t for c, t in wanted.items()},
                    strings_can_be_null=False,
                    quoted_strings_can_be_null=False,
                ),
            )
            break
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError):
            continue
    if table is None:
        return None
    cols: dict[int, np.ndarray] = {}
    for c in wanted:
        chunked = table.column(names[c])
        if chunked.null_count:
            return None  # an empty cell: the line-by-line reader names it
        arr = chunked.to_numpy()
        if c == time_col and is_datetime:
            # Wall-clock seconds: the trace's own clock, whatever the time zone of this machine.
            arr = arr.astype("datetime64[ns]").astype(np.int64) / 1e9
        cols[c] = arr if arr.dtype.kind == "i" else np.asarray(arr, dtype=np.float64)
    times = cols[time_col]
    if not np.isfinite(times).all():
        return None
    counts: list[np.ndarray | None] = []
    for col in (prompt_col, output_col):
        if col is None:
            counts.append(None)
            continue
        whole = _whole_counts(cols[col], max_tokens)
        if whole is None:
            return None
        counts.append(whole)
    return Columns(time_s=times, is_datetime=is_datetime, prompt_tokens=counts[0], output_tokens=counts[1])
