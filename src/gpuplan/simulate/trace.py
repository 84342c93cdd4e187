"""Load traces: the request arrivals a simulation replays — read from CSV, or generated in a shape.

A trace is a sorted array of arrival times (seconds from the trace's start) with, for LLM
requests, the prompt and output tokens of each request. CSV columns (header required, names
case-insensitive):

Lines starting with ``#`` before the header are comments (provenance, licence). Every row has the
header's number of cells: a row with one more or one fewer is refused, naming its line.

- ``timestamp``: seconds from any origin (``12.5``) or an ISO date-time (``2023-11-16 18:15:46.68``);
  ``timestamp_ms``: milliseconds from any origin. A number above :data:`MAX_SECONDS_TIMESTAMP` in a
  column of seconds is refused (it is milliseconds or finer), and a file whose median time between
  requests is :data:`SLOW_GAP_S` or more is read as seconds with a word in the report;
- ``prompt_tokens`` / ``output_tokens`` (aliases ``ContextTokens`` / ``GeneratedTokens``, the Azure
  LLM inference trace's names; ``tokens_in`` / ``tokens_out``): optional, the workload's
  ``serving:`` figures are used where absent.

Generated shapes (diurnal, bursty, step) are Poisson arrivals whose rate follows the shape, drawn
from a seeded generator, so the same arguments give the same trace. Their rate is given as a mean,
a peak or both (:class:`Shape`).
"""

from __future__ import annotations

import csv
import difflib
import itertools
import math
from array import array
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from gpuplan.bounded import csv_problem, decimal_number, other_separator, printable, separator_words
from gpuplan.day_load import (
    DAY_S,
    DIURNAL_PEAK_HOUR,
    DIURNAL_PEAK_TO_TROUGH,
    cosine_level,
    fit_level,
)
from gpuplan.errors import InputError, Phrase
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import either, listed
from gpuplan.simulate.trace_arrow import Columns

if TYPE_CHECKING:
    from gpuplan.perf.request_tail import LengthDistribution

__all__ = [
    "MAX_SECONDS_TIMESTAMP",
    "MAX_TRACE_BYTES",
    "MAX_TRACE_ROWS",
    "MAX_WINDOW_S",
    "RETIMED_MARK",
    "SLOW_GAP_S",
    "LengthCap",
    "Shape",
    "ShapeRate",
    "Trace",
    "bursty_trace",
    "check_shape",
    "diurnal_trace",
    "read_trace_csv",
    "retime",
    "step_trace",
]

#: A trace bigger than this is refused with a one-line error (a day at 50 requests/s is 4.3 M rows,
#: about 100 MB of CSV; twice that leaves room without letting a stray file exhaust memory).
MAX_TRACE_ROWS = 10_000_000
MAX_TRACE_BYTES = 512 * 1024 * 1024
#: The longest window a simulation replays: 31 days. The autoscaler keeps its utilisation signal per
#: second of the window (8 bytes each) and decides every period, so the work grows with the span,
#: not with the rows: a 2-row trace spanning 10^8 s would need an 800 MB array.
MAX_WINDOW_S = 31 * 86_400.0

_TIME = ("timestamp", "time", "time_s", "arrival_s")
#: A time column whose name says milliseconds: its numbers are divided by 1,000.
_TIME_MS = ("timestamp_ms", "time_ms", "arrival_ms")
#: Numeric timestamps are seconds. One above this (about 3,200 years after any origin) is not: it is
#: milliseconds or finer since 1970 (1.7e12 ms is 2023), which read as seconds would be a window of
#: centuries; refused, naming the column to write.
MAX_SECONDS_TIMESTAMP = 1e11
#: A file of numeric timestamps whose median time between requests is at least this (one request
#: a minute: 1,440 a day) is read as seconds, but the report says so and names the column to write
#: if they are milliseconds: ten minutes of traffic in milliseconds read as seconds is a week of
#: requests minutes apart, no error of its own. A real trace this quiet is told, not refused.
SLOW_GAP_S = 60.0
_PROMPT = ("prompt_tokens", "contexttokens", "tokens_in", "input_tokens")
_OUTPUT = ("output_tokens", "generatedtokens", "tokens_out")


@dataclass(frozen=True, kw_only=True)
class LengthCap:
    """A generated trace's lengths cut at the longest request one replica holds (:meth:`Trace.within`)."""

    kv_tokens: int
    """One replica's KV cache, tokens: the longest request (prompt + output) its engine takes, as
    deploy starts it (vLLM's ``max_model_len``)."""
    lengths: tuple[LengthDistribution, LengthDistribution]
    """The prompt and output lengths drawn instead: the trace's, each cut at its share of
    :attr:`kv_tokens`."""
    cut: tuple[int, int]
    """The prompts and the answers drawn longer, cut at those lengths' longest."""


@dataclass(frozen=True, kw_only=True)
class Trace:
    """Requests in arrival order."""

    arrival_s: np.ndarray
    """Arrival times, seconds from the trace's start (first arrival at or after 0), non-decreasing."""
    prompt_tokens: np.ndarray | None
    """Per request; None when the trace has no token counts (the workload's are used)."""
    output_tokens: np.ndarray | None
    duration_s: float
    """Length of the simulated window; at least the last arrival."""
    name: str
    synthetic: bool
    """True for a generated trace (the report says so)."""
    start_of_day_s: float = 0.0
    """Time of day at the trace's origin, seconds after midnight (scheduled policies use it)."""
    note: str = ""
    """How the trace was derived from a recorded one (re-timed), for the report; "" as read."""
    out_of_order: int = 0
    """Rows of the file that came before a row above them (earlier than the latest time read so
    far): the reader takes the requests in time order, and the report says how many were not."""
    default_prompt_tokens: int | None = None
    """The prompt tokens every request took because the trace has none (``with_tokens``)."""
    default_output_tokens: int | None = None
    """The output tokens every request took because the trace has none (``with_tokens``)."""
    rate: ShapeRate | None = None
    """A generated trace's rate curve: its mean and peak (None for a trace read from a file)."""
    slow_median_gap_s: float | None = None
    """The median time between arrivals of a file with numeric timestamps, where it is
    :data:`SLOW_GAP_S` or more: the report asks whether its timestamps are milliseconds."""
    seconds_column: bool = False
    """Its times are a file's numbers in a column read as seconds (``timestamp``, not
    ``timestamp_ms`` nor date-times): a window too long by about 1,000× may be milliseconds."""
    lengths: tuple[LengthDistribution, LengthDistribution] | None = None
    """A generated trace's prompt and output lengths, what they were drawn from (:func:`lengths`);
    None for a trace read from a file."""
    length_cap: LengthCap | None = None
    """Where a generated trace's lengths were cut at what one replica holds (:meth:`within`)."""

    def __post_init__(self) -> None:
        n = len(self.arrival_s)
        for col in (self.prompt_tokens, self.output_tokens):
            if col is not None and len(col) != n:
                raise InputError.worded(N_("trace: token columns must have one value per request"))

    @property
    def requests(self) -> int:
        return len(self.arrival_s)

    def with_tokens(self, prompt_tokens: int, output_tokens: int) -> Trace:
        """This trace with constant token counts where it has none."""
        n = self.requests
        return Trace(
            arrival_s=self.arrival_s,
            prompt_tokens=self.prompt_tokens
            if self.prompt_tokens is not None
            else np.full(n, prompt_tokens, dtype=np.int64),
            output_tokens=self.output_tokens
            if self.output_tokens is not None
            else np.full(n, output_tokens, dtype=np.int64),
            duration_s=self.duration_s,
            name=self.name,
            synthetic=self.synthetic,
            start_of_day_s=self.start_of_day_s,
            note=self.note,
            out_of_order=self.out_of_order,
            default_prompt_tokens=prompt_tokens if self.prompt_tokens is None else self.default_prompt_tokens,
            default_output_tokens=output_tokens if self.output_tokens is None else self.default_output_tokens,
            lengths=self.lengths,
            length_cap=self.length_cap,
            rate=self.rate,
            slow_median_gap_s=self.slow_median_gap_s,
            seconds_column=self.seconds_column,
        )

    def within(self, kv_tokens: int) -> Trace:
        """A generated trace with requests longer than ``kv_tokens`` (prompt + output: one replica's
        KV cache, the longest request its engine takes, vLLM's ``max_model_len``) drawn again no
        longer: each length cut at its share of ``kv_tokens`` (the two 99.9th-percentile cuts scaled
        down alike), the spread narrowed so that the means and the p95 lengths plan checks its
        targets at stay (:meth:`LengthDistribution.capped`), and the same draws taken at the same
        quantiles. Itself where every request fits, for a trace file (a server refuses its longer
        requests, and the simulation does too), and where a cut would fall below a p95 (the plan's
        own p95 request does not fit: the simulation refuses it)."""
        if self.lengths is None or self.prompt_tokens is None or self.output_tokens is None:
            return self
        need = self.prompt_tokens.astype(np.int64) + self.output_tokens.astype(np.int64)
        if kv_tokens <= 0 or not bool((need > kv_tokens).any()):
            return self
        prompt, output = self.lengths
        share = kv_tokens / (prompt.longest + output.longest)
        capped_prompt = prompt.capped(math.floor(prompt.longest * share))
        capped_output = output.capped(math.floor(output.longest * share))
        if capped_prompt is None or capped_output is None:
            return self
        p, prompt_cut = prompt.redrawn(self.prompt_tokens, capped_prompt)
        o, output_cut = output.redrawn(self.output_tokens, capped_output)
        cap = LengthCap(
            kv_tokens=kv_tokens, lengths=(capped_prompt, capped_output), cut=(prompt_cut, output_cut)
        )
        return replace(self, prompt_tokens=p, output_tokens=o, length_cap=cap)


#: How close a column's name must be to a token column's (difflib's ratio) to be taken as a typo of
#: it: ``GeneratedTokns`` (0.97) is, ``output_len`` (0.61 against ``output_tokens``) is not.
_TYPO_RATIO = 0.8
#: The token columns' names as messages spell them (the Azure traces' own capitals).
_PROMPT_SHOWN = ("prompt_tokens", "ContextTokens", "tokens_in", "input_tokens")
_OUTPUT_SHOWN = ("output_tokens", "GeneratedTokens", "tokens_out")
#: Every column name the reader takes, lower case.
_READ = frozenset((*_TIME, *_TIME_MS, *_PROMPT, *_OUTPUT))


def _refuse_misspelt_tokens(name: str, header: list[str], pi: int | None, oi: int | None) -> None:
    """Refuse a column named almost as a token column the header lacks: read as no token counts,
    every request would take the workload's lengths and the simulation would answer another
    question (a ``GeneratedTokns`` header had moved an SLO miss from 0 % to 18.6 % without a word)."""
    for found, shown in ((pi, _PROMPT_SHOWN), (oi, _OUTPUT_SHOWN)):
        if found is not None:
            continue
        for column in header:
            key = column.strip().lower()
            if key in _READ:
                continue  # a column read as what it names (output_tokens is not a typo of input_tokens)
            near = [n for n in shown if difflib.SequenceMatcher(None, key, n.lower()).ratio() >= _TYPO_RATIO]
            if near:
                raise InputError.worded(
                    N_(
                        "trace {name}: column {column!r} is not one gpuplan reads; did you mean {names}? "
                        "(without it every request would take the workload's token counts)"
                    ),
                    name=name,
                    column=printable(column.strip()),
                    names=either(repr(n) for n in near),
                )


def _column(header: list[str], names: tuple[str, ...]) -> int | None:
    low = [h.strip().lower() for h in header]
    for n in names:
        if n in low:
            return low.index(n)
    return None


def _refuse_other_separator(name: str, header: str) -> None:
    """A trace whose one-column header is its columns joined by tabs or semicolons (a spreadsheet's
    "text" or a semicolon "CSV"): said for what it is, rather than as a file with no timestamp
    column."""
    sep = other_separator(header, lambda parts: _column(parts, (*_TIME, *_TIME_MS)) is not None)
    if sep is not None:
        raise InputError.worded(
            N_(
                "trace {name}: its columns are separated by {separator}, not commas: save it as CSV "
                "(comma-separated)"
            ),
            name=name,
            separator=separator_words(sep),
        )


def _parse_time(text: str) -> tuple[float, bool]:
    """(seconds, is_datetime)."""
    try:
        # ASCII decimals only: float() reads "1_5" as 15 and a full-width "１.5" as 1.5.
        return decimal_number(text), False
    except ValueError:
        pass
    t = text.strip().replace("T", " ")
    # Python's fromisoformat takes at most 6 fractional digits; the Azure trace has 7.
    if "." in t:
        head, frac = t.split(".", 1)
        digits = "".join(ch for ch in frac if ch.isdigit())
        t = f"{head}.{digits[:6]}" + frac[len(digits) :]
    try:
        dt = datetime.fromisoformat(t)
    except ValueError:
        raise ValueError(
            Phrase(N_("timestamp {text!r} is neither a number nor a date-time"), text=text.strip()[:40])
        ) from None
    # Seconds of the wall clock as written (an offset, if any, is not applied): the trace's own
    # time of day, whatever the zone of the machine reading it.
    return dt.replace(tzinfo=timezone.utc).timestamp(), True


#: More tokens than any model's context holds: a count above it is a corrupt line, not a request.
MAX_TOKENS = 10_000_000


def _count(text: str) -> int:
    """A token count: a whole number (``512`` or ``512.0``), finite, at most MAX_TOKENS."""
    try:
        x = decimal_number(text)  # not float(): it reads "1_5" as 15 and "１０" as 10
    except ValueError:
        x = math.nan  # refused below, in the words of a token count
    if not math.isfinite(x) or x != int(x) or abs(x) > MAX_TOKENS:
        # A Phrase, so that the line naming the bad row is written in the user's language too.
        raise ValueError(
            Phrase(
                N_("{text!r} is not a token count (a whole number up to {limit:,})"),
                text=text.strip(),
                limit=MAX_TOKENS,
            )
        )
    return int(x)


def _why(e: Exception) -> object:
    """Why a row could not be read: this module's own Phrase (a bad token count), else Python's
    own words (an unparsable date-time), which stay as they are."""
    reason = e.args[0] if e.args else None
    return reason if isinstance(reason, Phrase) else e


def read_trace_csv(path: str | Path, *, max_rows: int = MAX_TRACE_ROWS) -> Trace:
    """Read and validate a trace CSV; any problem is one :class:`InputError` naming the line."""
    p = Path(path)
    if p.exists() and not p.is_file():
        raise InputError.worded(
            N_("trace {path!r} is not a regular file; give a CSV with a 'timestamp' column"), path=str(p)
        )
    if not p.is_file():
        raise InputError.worded(
            N_("trace file {path!r} not found; give a CSV with a 'timestamp' column"), path=str(p)
        )
    if p.stat().st_size > MAX_TRACE_BYTES:
        raise InputError.worded(
            N_(
                "trace {name}: {size_mib:.0f} MiB is over the {limit_mib} MiB limit; cut it to the window "
                "you want to simulate"
            ),
            name=p.name,
            size_mib=p.stat().st_size / 2**20,
            limit_mib=MAX_TRACE_BYTES // 2**20,
        )
    try:
        return _read_checked(p, max_rows)
    except csv.Error as e:  # e.g. a field over the csv module's 128 KiB limit
        raise InputError.worded(
            N_("trace {name}: not readable as CSV ({why}); give a CSV with a 'timestamp' column"),
            name=p.name,
            why=csv_problem(e),  # in the user's language; the csv module's own line is English
        ) from e


def _read_checked(p: Path, max_rows: int) -> Trace:
    """:func:`read_trace_csv` of a regular file of an acceptable size."""
    # errors="replace": a byte that is not UTF-8 becomes U+FFFD, so a number holding one is refused
    # naming its line (a column gpuplan does not read may hold anything), never a UnicodeDecodeError.
    with p.open(newline="", encoding="utf-8-sig", errors="replace") as f:
        # Comment lines (``# …``) may come before the header: a trace's provenance or licence.
        comments = 0
        synthetic = False
        note = ""
        first = f.readline()
        while first.lstrip().startswith("#"):
            comments += 1
            # gpuplan's own generator marks its files; a recorded trace must not be mistaken for one.
            synthetic = synthetic or "synthetic" in first.lower()
            if first.lstrip("# ").startswith(RETIMED_MARK) and not note:
                note = printable(first.lstrip("# ").strip()[:300])
            first = f.readline()
        reader = csv.reader(itertools.chain([first], f))
        header = next(reader, None)
        if not header:
            raise InputError.worded(
                N_("trace {name}: empty file; expected a header line with 'timestamp'"), name=p.name
            )
        ti = _column(header, _TIME)
        ms = ti is None and _column(header, _TIME_MS) is not None
        if ms:
            ti = _column(header, _TIME_MS)
        if ti is None and len(header) == 1:
            _refuse_other_separator(p.name, header[0])
        if ti is None:
            raise InputError.worded(
                N_(
                    "trace {name}: no timestamp column (header is {header}); "
                    "name it 'timestamp' (seconds or ISO date-time) or 'timestamp_ms' (milliseconds)"
                ),
                name=p.name,
                header=listed(header),
            )
        pi, oi = _column(header, _PROMPT), _column(header, _OUTPUT)
        _refuse_misspelt_tokens(p.name, header, pi, oi)
        first_row = next((r for r in reader if r and any(c.strip() for c in r)), None)
        fast = (
            _read_fast(p, comments, header, (ti, pi, oi), first_row[ti])
            if first_row is not None and len(first_row) > ti
            else None
        )
        if fast is not None:
            return _finish_read(p, fast, synthetic, max_rows, note, ms=ms, names=_names(header, pi, oi))
        f.seek(0)
        reader = csv.reader(itertools.islice(f, comments, None))
        next(reader)  # the header again: the line-by-line reader names the first bad line
        # Typed arrays, 8 bytes a value: a Python float or int in a list is about 32, and a file
        # at the row cap whose last line is bad would hold gigabytes before its refusal.
        times = array("d")
        prompts = array("q")
        outputs = array("q")
        kind: bool | None = None
        for line, row in enumerate(reader, start=comments + 2):
            if not row or all(not c.strip() for c in row):
                continue
            if len(times) >= max_rows:
                raise InputError.worded(
                    N_("trace {name}: more than {limit:,} requests; cut the trace"),
                    name=p.name,
                    limit=max_rows,
                )
            # A cut line, or one with a column more (a comma in an unquoted cell, a field left
            # over from an edit): its cells are not under the header's names, so no cell of it is
            # read as if they were.
            if len(row) != len(header):
                raise InputError.worded(
                    N_("trace {name} line {line} has {fields} fields, expected {expected}"),
                    name=p.name,
                    line=line,
                    fields=len(row),
                    expected=len(header),
                )
            try:
                t, is_dt = _parse_time(row[ti])
                if pi is not None:
                    prompts.append(_count(row[pi]))
                if oi is not None:
                    outputs.append(_count(row[oi]))
            except (ValueError, OverflowError) as e:
                if any("\ufffd" in cell for cell in row):
                    # The file was opened with errors="replace": say what is wrong with the bytes
                    # rather than quoting the replacement characters.
                    raise InputError.worded(
                        N_("trace {name} line {line}: not UTF-8 text; save the trace as UTF-8"),
                        name=p.name,
                        line=line,
                    ) from e
                raise InputError.worded(
                    N_("trace {name} line {line}: cannot read {row!r} ({why})"),
                    name=p.name,
                    line=line,
                    row=row,
                    why=_why(e),
                ) from e
            if kind is not None and kind != is_dt:
                raise InputError.worded(
                    N_("trace {name} line {line}: mixes numbers and date-times in timestamp"),
                    name=p.name,
                    line=line,
                )
            kind = is_dt
            if not math.isfinite(t):
                raise InputError.worded(
                    N_("trace {name} line {line}: timestamp is not a finite number"), name=p.name, line=line
                )
            times.append(t)
    cols = Columns(
        time_s=np.frombuffer(times, dtype=np.float64),
        is_datetime=bool(kind),
        prompt_tokens=np.frombuffer(prompts, dtype=np.int64) if pi is not None else None,
        output_tokens=np.frombuffer(outputs, dtype=np.int64) if oi is not None else None,
    )
    return _finish_read(p, cols, synthetic, max_rows, note, ms=ms, names=_names(header, pi, oi))


def _names(header: list[str], pi: int | None, oi: int | None) -> tuple[str, str]:
    """The prompt and output token columns as the file names them (its header's words), which its
    errors quote so that the user finds the column they mean."""
    return (
        header[pi].strip() if pi is not None else "prompt_tokens",
        header[oi].strip() if oi is not None else "output_tokens",
    )


def _read_fast(
    p: Path, comments: int, header: list[str], cols: tuple[int, int | None, int | None], first_time: str
) -> Columns | None:
    from gpuplan.simulate.trace_arrow import read_columns

    ti, pi, oi = cols
    read = read_columns(
        p,
        skip_lines=comments,
        header=header,
        time_col=ti,
        prompt_col=pi,
        output_col=oi,
        first_time=first_time,
        max_tokens=MAX_TOKENS,
    )
    if read is None:
        import pyarrow as pa

        # Arrow's allocator keeps what the failed parse freed (its table gone with read_columns),
        # and the line-by-line reader that comes next would hold its columns on top of it: 9 million
        # rows with a bad last line peaked at 520 MB so, 310 MB (Arrow's parse alone) with it handed
        # back.
        pa.default_memory_pool().release_unused()
    return read


def _finish_read(
    p: Path,
    read: Columns,
    synthetic: bool,
    max_rows: int,
    note: str = "",
    *,
    ms: bool = False,
    names: tuple[str, str] = ("prompt_tokens", "output_tokens"),
) -> Trace:
    """Sorted arrivals from the first one, the checks every reader shares, and the time of day.

    ``ms``: the time column's name says milliseconds (numbers are divided by 1,000). ``names``: the
    prompt and output token columns as the file's header names them."""
    if not len(read.time_s):
        raise InputError.worded(N_("trace {name}: no requests after the header"), name=p.name)
    if len(read.time_s) > max_rows:
        raise InputError.worded(
            N_("trace {name}: more than {limit:,} requests; cut the trace"), name=p.name, limit=max_rows
        )
    arr = read.time_s
    if not read.is_datetime:
        if ms:
            arr = arr / 1000.0
        biggest = float(np.abs(arr).max())
        if biggest > MAX_SECONDS_TIMESTAMP:
            raise InputError.worded(
                N_(
                    "trace {name}: timestamp {value:.6g} is not seconds (as seconds it is more than 3,000 "
                    "years after its origin); if the column is milliseconds, name it timestamp_ms"
                ),
                name=p.name,
                value=biggest,
            )
    # Traces are usually sorted (checking costs one pass; sorting four million rows, a second).
    order = None if bool(np.all(arr[1:] >= arr[:-1])) else np.argsort(arr, kind="stable")
    late = 0
    if order is not None:
        late = int(np.count_nonzero(arr[1:] < np.maximum.accumulate(arr)[:-1]))
        arr = arr[order]
    origin = float(arr[0])
    # Date-times are seconds of their own wall clock (no time zone applied): the time of day is
    # the trace's, whatever the zone of the machine reading it.
    start_of_day = origin % 86_400.0 if read.is_datetime else 0.0
    arr = arr - origin
    gap = float(np.median(np.diff(arr))) if len(arr) > 1 and not read.is_datetime and not ms else 0.0
    cols: list[np.ndarray | None] = []
    for vals, name, least in ((read.prompt_tokens, names[0], 0), (read.output_tokens, names[1], 1)):
        if vals is None:
            cols.append(None)
            continue
        a = vals if order is None else vals[order]
        if (a < least).any():
            first = int(np.argmax(vals < least))  # in the file's own order
            raise InputError.worded(
                N_(
                    "trace {name}: {column} must be ≥ {least} on every line; request {row} (counted from "
                    "the first after the header) has {value:g}"
                ),
                name=p.name,
                column=name,
                least=least,
                row=first + 1,
                value=float(vals[first]),
            )
        cols.append(a)
    return Trace(
        arrival_s=arr,
        prompt_tokens=cols[0],
        output_tokens=cols[1],
        # A trace without a span (one request, or all of them at one instant) lasts one second, the
        # simulation's resolution: a span of 0 has no period to repeat it by, nor a rate.
        duration_s=float(arr[-1]) if arr[-1] > 0 else 1.0,
        name=printable(p.stem),  # shown in reports and written into re-timed traces' comments
        synthetic=synthetic,
        start_of_day_s=start_of_day,
        note=note,
        out_of_order=late,
        slow_median_gap_s=gap if gap >= SLOW_GAP_S else None,
        seconds_column=not read.is_datetime and not ms,
    )


def _poisson_from_rate(rate: np.ndarray, dt_s: float, rng: np.random.Generator) -> np.ndarray:
    """Arrival times of a Poisson process whose rate is piecewise constant over bins of ``dt_s``."""
    counts = rng.poisson(rate * dt_s)
    starts = np.repeat(np.arange(len(rate)) * dt_s, counts)
    return np.sort(starts + rng.random(len(starts)) * dt_s)


def lengths(shape: Shape) -> tuple[LengthDistribution, LengthDistribution]:
    """The prompt and output lengths a shape's requests are drawn from: log-normals of the
    workload's means and of the p95 lengths ``plan`` checks its p95 targets at (the stated
    ``*_tokens_p95``, else each mean × the published trace's ratio, :mod:`gpuplan.perf.request_tail`);
    refused where no such log-normal exists."""
    # the perf layer's package loads the estimator (pydantic): only a generated trace needs it
    from gpuplan.perf.request_tail import MOST_P95_OVER_MEAN, length_distribution, request_tail

    assert shape.prompt_tokens and shape.output_tokens
    tail = request_tail(
        prompt_tokens=shape.prompt_tokens,
        output_tokens=shape.output_tokens,
        prompt_tokens_p95=shape.prompt_tokens_p95,
        output_tokens_p95=shape.output_tokens_p95,
    )
    out: list[LengthDistribution] = []
    for key, mean, p95, stated in (
        ("prompt_tokens", shape.prompt_tokens, tail.prompt_tokens, tail.prompt_stated),
        ("output_tokens", shape.output_tokens, tail.output_tokens, tail.output_stated),
    ):
        found = length_distribution(mean, p95, stated=stated)
        if found is None:
            raise InputError.worded(
                N_(
                    "trace shape: serving.{key}_p95 of {p95:,} with a mean {key} of {mean:,} cannot be "
                    "drawn: a generated trace draws log-normal lengths, whose p95 is from 1 to {most:.2f} "
                    "× the mean; give --trace FILE.csv with your traffic's own lengths"
                ),
                key=key,
                p95=p95,
                mean=mean,
                most=MOST_P95_OVER_MEAN,
            )
        out.append(found)
    return out[0], out[1]


@dataclass(frozen=True, kw_only=True)
class Shape:
    """A generated load: its rate (mean, peak or both), length and seed; each generator reads what
    it needs.

    With only a mean, the shape keeps its own proportions (a diurnal day's peak is 1.6× its mean);
    with only a peak, too, scaled so that its highest rate is the peak; with both, its floor and
    height are set so that both hold (see :class:`ShapeRate`).
    """

    mean_requests_per_s: float | None = None
    """The rate averaged over the window (a diurnal trace's: over its day)."""
    peak_requests_per_s: float | None = None
    """The highest rate of the shape: a diurnal day's busiest minute, a burst's rate, a step's
    upper level (arrivals are Poisson around it)."""
    duration_s: float = 86_400.0
    seed: int = 0
    prompt_tokens: int | None = None
    """Mean tokens; None leaves the workload's constant figures to be used."""
    output_tokens: int | None = None
    prompt_tokens_p95: int | None = None
    """The 95th-percentile prompt the lengths are drawn to (the workload's
    ``serving.prompt_tokens_p95``); None: the mean × the published ratio the plan takes too."""
    output_tokens_p95: int | None = None
    """The 95th-percentile answer, as :attr:`prompt_tokens_p95` (``serving.output_tokens_p95``)."""
    hours: tuple[float, float] | None = None
    """The hours of each day, (start, end) from the trace's 00:00, in which requests arrive (a
    service's ``serving.schedule``): the shape's rate in them, none outside; None: every hour."""


@dataclass(frozen=True, kw_only=True)
class ShapeRate:
    """The rate curve a generated trace was drawn from, for the report."""

    mean_requests_per_s: float
    """Averaged over the window drawn."""
    peak_requests_per_s: float
    """Its highest value in the window drawn (the shape's peak, :attr:`Shape.peak_requests_per_s`,
    unless a diurnal window of a few hours stops before the day's busiest minute)."""
    mean_asked: float | None = None
    """A mean the shape could not hold under the peak asked (the peak is kept, and the mean is the
    lowest the shape reaches: its quietest time at zero); None when what was asked holds."""
    mean_held: float | None = None
    """Where :attr:`mean_asked` is set: the mean the whole shape holds instead under the peak (a
    diurnal trace's day), the lowest it reaches. A window that is not whole days of it averages
    :attr:`mean_requests_per_s`, more or less than this."""
    peak_asked: float | None = None
    """Where :attr:`mean_asked` is set: the peak asked, which is kept (a window of a few hours may
    stop before it, and :attr:`peak_requests_per_s` is then lower)."""


def _fit(level: np.ndarray, shape: Shape, basis: np.ndarray | None = None) -> tuple[np.ndarray, ShapeRate]:
    """The rate per bin: ``level`` (the shape's proportions) fitted to the shape's mean and peak
    (:func:`gpuplan.day_load.fit_level`, which ``tco`` sizes a service's day with too).

    The mean and peak are those of ``basis``, the whole shape (a diurnal trace's day, of which a
    shorter window shows its first hours), else of ``level``. A mean below what the shape reaches
    under the peak keeps the peak (the load the plan sizes for), its floor at 0.
    """
    mean, peak = shape.mean_requests_per_s, shape.peak_requests_per_s
    rate, held = fit_level(level, mean, peak, basis)
    asked = mean if mean is not None and not math.isclose(held, mean) else None
    fitted = ShapeRate(
        mean_requests_per_s=float(rate.mean()),
        peak_requests_per_s=float(rate.max()),
        mean_asked=asked,
        mean_held=None if asked is None else held,
        peak_asked=None if asked is None else peak,
    )
    return rate, fitted


def _in_hours(
    rate: np.ndarray, fitted: ShapeRate, *, dt_s: float, shape: Shape
) -> tuple[np.ndarray, ShapeRate]:
    """The rate per bin of ``dt_s`` with none outside the shape's :attr:`Shape.hours` (the shape as
    fitted in them), and its mean and peak over the window so."""
    if shape.hours is None:
        return rate, fitted
    hour = ((np.arange(len(rate)) + 0.5) * dt_s % DAY_S) / 3600.0
    rate = np.where((hour >= shape.hours[0]) & (hour < shape.hours[1]), rate, 0.0)
    return rate, replace(
        fitted, mean_requests_per_s=float(rate.mean()), peak_requests_per_s=float(rate.max(initial=0.0))
    )


def _finish(arr: np.ndarray, shape: Shape, name: str, rng: np.random.Generator, rate: ShapeRate) -> Trace:
    p = o = drawn = None
    if shape.prompt_tokens and shape.output_tokens:
        drawn = lengths(shape)
        p, o = drawn[0].draw(len(arr), rng), drawn[1].draw(len(arr), rng)
    return Trace(
        arrival_s=arr,
        prompt_tokens=p,
        output_tokens=o,
        duration_s=shape.duration_s,
        name=name,
        synthetic=True,
        rate=rate,
        lengths=drawn,
    )


def check_shape(shape: Shape) -> None:
    """Refuse a generated trace's shape beyond the bounds on work, before anything is drawn."""
    _check(shape)


def _check(shape: Shape) -> None:
    given = [r for r in (shape.mean_requests_per_s, shape.peak_requests_per_s) if r is not None]
    if not given:
        raise InputError.worded(N_("trace shape: give its mean rate, its peak rate or both"))
    for r in given:
        if not (math.isfinite(r) and r > 0):
            raise InputError.worded(
                N_("trace shape: the rate must be a positive number, got {rate:g}"), rate=r
            )
    if len(given) == 2 and given[0] > given[1]:
        raise InputError.worded(
            N_("trace shape: the mean rate ({mean:g}) is above the peak rate ({peak:g})"),
            mean=given[0],
            peak=given[1],
        )
    if not (math.isfinite(shape.duration_s) and shape.duration_s > 0):
        raise InputError.worded(
            N_("trace shape: the duration must be a positive number, got {duration_s:g} s"),
            duration_s=shape.duration_s,
        )
    if shape.duration_s > MAX_WINDOW_S:
        raise InputError.worded(
            N_(
                "trace shape: {hours:,.0f} hours is longer than the {limit_h:,.0f} hours a simulation replays"
            ),
            hours=shape.duration_s / 3600,
            limit_h=MAX_WINDOW_S / 3600,
        )
    # Rate × duration is the number of requests drawn (and held): the bound a CSV trace has. With
    # only a peak given, the peak bounds the mean.
    rate = given[0]
    if rate * shape.duration_s > MAX_TRACE_ROWS:
        raise InputError.worded(
            N_(
                "trace shape: {rate:g} requests/s for {hours:g} hours is {requests:,.0f} requests, "
                "more than the {limit:,} a trace may hold"
            ),
            rate=rate,
            hours=shape.duration_s / 3600,
            requests=rate * shape.duration_s,
            limit=MAX_TRACE_ROWS,
        )
    if shape.prompt_tokens and shape.output_tokens:
        lengths(shape)  # drawable (refused before any work where not)


def diurnal_trace(
    shape: Shape, *, peak_to_trough: float = DIURNAL_PEAK_TO_TROUGH, peak_hour: float = DIURNAL_PEAK_HOUR
) -> Trace:
    """A day-shaped load: a cosine over 24 h, peak at ``peak_hour``, peak/trough = ``peak_to_trough``
    (with a mean and a peak both given, these two set the proportions instead).

    The mean and the peak (its busiest minute) are the day's: a window shorter than a day is its
    first hours, a longer one repeats it."""
    _check(shape)
    if peak_to_trough < 1:
        raise InputError.worded(N_("diurnal trace: peak_to_trough must be ≥ 1"))
    rng = np.random.default_rng(shape.seed)
    dt = 60.0
    t = np.arange(0.0, shape.duration_s, dt) + dt / 2
    day = np.arange(0.0, DAY_S, dt) + dt / 2
    rate, fitted = _in_hours(
        *_fit(
            cosine_level(t, peak_to_trough, peak_hour),
            shape,
            basis=cosine_level(day, peak_to_trough, peak_hour),
        ),
        dt_s=dt,
        shape=shape,
    )
    return _finish(_poisson_from_rate(rate, dt, rng), shape, "diurnal", rng, fitted)


def bursty_trace(
    shape: Shape, *, burst_factor: float = 5.0, burst_s: float = 120.0, bursts_per_hour: float = 2.0
) -> Trace:
    """Steady load with bursts of ``burst_factor`` × the base rate, ``burst_s`` long, at random times.

    The peak is a burst's rate; with a mean and a peak both given, they set the base rate instead of
    ``burst_factor``.
    """
    _check(shape)
    rng = np.random.default_rng(shape.seed)
    dt = 1.0
    bins = math.ceil(shape.duration_s / dt)
    starts = rng.random(rng.poisson(bursts_per_hour * shape.duration_s / 3600)) * shape.duration_s
    level = np.ones(bins)
    for s in starts:
        level[int(s / dt) : int((s + burst_s) / dt)] = burst_factor
    rate, fitted = _in_hours(*_fit(level, shape), dt_s=dt, shape=shape)
    return _finish(_poisson_from_rate(rate, dt, rng), shape, "bursty", rng, fitted)


def step_trace(shape: Shape, *, factor: float = 3.0, at_fraction: float = 0.5) -> Trace:
    """A load that jumps from a base rate to ``factor`` × base at ``at_fraction`` of the trace.

    The peak is the upper level; with a mean and a peak both given, they set the base instead of
    ``factor``.
    """
    _check(shape)
    rng = np.random.default_rng(shape.seed)
    dt = 1.0
    bins = math.ceil(shape.duration_s / dt)
    level = np.ones(bins)
    level[int(bins * at_fraction) :] = factor
    rate, fitted = _in_hours(*_fit(level, shape), dt_s=dt, shape=shape)
    return _finish(_poisson_from_rate(rate, dt, rng), shape, "step", rng, fitted)


#: The first words of the comment line a re-timed trace carries (and the reader keeps as its note).
RETIMED_MARK = "re-timed from"


def retime(trace: Trace, *, rate_scale: float = 1.0, tile_to_s: float | None = None) -> Trace:
    """A recorded trace at another load: "what if our load were k× Azure's".

    ``rate_scale`` k divides every time between arrivals by k: the same requests, in the same order
    and with the same bursts, k times as fast (so one hour at k = 5 lasts 12 minutes). ``tile_to_s``
    then repeats that back to back — each copy starts one mean inter-arrival time after the previous
    one's span — until the window is filled (a day of the hour's pattern). Token counts go with
    their requests.
    """
    for what, value in (("rate scale", rate_scale), ("tile length", tile_to_s)):
        if value is not None and not (math.isfinite(value) and value > 0):
            raise InputError.worded(
                N_("re-timing a trace: the {what} must be a positive number, got {value:g}"),
                what=Phrase(_RETIME_WORDS[what]),
                value=value,
            )
    n = trace.requests
    span = trace.duration_s / rate_scale
    if not math.isfinite(span):
        # 1e-308× makes seconds into more than a float holds: the trace would be written as "inf"
        raise InputError.worded(
            N_(
                "re-timing {name}: at {scale:g}× its arrivals would come later than any time a trace "
                "can hold; raise the scale"
            ),
            name=trace.name,
            scale=rate_scale,
        )
    arr = trace.arrival_s / rate_scale
    if tile_to_s is None:
        out_arr, idx, duration = arr, np.arange(n), span
    else:
        period = span + span / max(1, n - 1)
        # copies as a float first: 3600 s over a period of 1e-308 s is infinitely many, which no
        # int holds (an OverflowError)
        copies_needed = tile_to_s / period
        if not math.isfinite(copies_needed) or math.ceil(copies_needed) * n > MAX_TRACE_ROWS:
            raise InputError.worded(
                N_(
                    "re-timing {name} to {hours:g} h at {scale:g}× makes more than {limit:,} requests; "
                    "shorten the window or lower the scale"
                ),
                name=trace.name,
                hours=tile_to_s / 3600,
                scale=rate_scale,
                limit=MAX_TRACE_ROWS,
            )
        copies = math.ceil(copies_needed)
        out_arr = (arr[None, :] + period * np.arange(copies)[:, None]).ravel()
        idx = np.tile(np.arange(n), copies)
        keep = out_arr < tile_to_s
        out_arr, idx, duration = out_arr[keep], idx[keep], tile_to_s
    words = f"{RETIMED_MARK} {trace.name}: {rate_scale:g}× its rate"
    if tile_to_s is not None:
        words += f", repeated to fill {tile_to_s / 3600:g} h"
    return Trace(
        arrival_s=out_arr,
        prompt_tokens=trace.prompt_tokens[idx] if trace.prompt_tokens is not None else None,
        output_tokens=trace.output_tokens[idx] if trace.output_tokens is not None else None,
        duration_s=max(duration, float(out_arr[-1]) if len(out_arr) else 0.0, 1e-9),
        name=trace.name,
        synthetic=trace.synthetic,
        start_of_day_s=trace.start_of_day_s,
        note=words if not trace.note else f"{trace.note}; {words}",
        out_of_order=trace.out_of_order,
        default_prompt_tokens=trace.default_prompt_tokens,
        default_output_tokens=trace.default_output_tokens,
        # the file's own unit is what is in doubt, whatever its speed now
        slow_median_gap_s=trace.slow_median_gap_s,
        seconds_column=trace.seconds_column,
    )


_RETIME_WORDS = {"rate scale": N_("rate scale"), "tile length": N_("tile length")}
