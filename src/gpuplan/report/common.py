"""Shared rendering helpers: JSON documents from dataclasses, money and number cells, plain tables.

Renderers return data or Rich renderables; only the CLI prints them.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, is_dataclass, replace
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

# A price's age in words lives beside the catalog (the estimator's advice says it too); the
# renderers import it from here as before.
from gpuplan.catalog.age_words import price_age_words, unknown_age_words
from gpuplan.i18n import _
from gpuplan.i18n.numbers import format_amount, format_number
from gpuplan.report.cjk import CjkCell, cjk_text, has_wide, pieces

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult
    from rich.segment import Segment
    from rich.table import Column, _Cell

__all__ = [
    "Widest",
    "fmt_money",
    "fmt_num",
    "house_table",
    "plain_table",
    "price_age_words",
    "rate_label",
    "to_json",
    "to_jsonable",
    "unknown_age_words",
]


def to_jsonable(value: Any) -> Any:
    """Dataclasses, tuples and enums as plain JSON values (NaN/inf become null)."""
    if is_dataclass(value) and not isinstance(value, type):
        return {k: to_jsonable(v) for k, v in asdict(value).items()}
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if hasattr(value, "value") and isinstance(getattr(value, "value", None), str):
        return value.value
    return value


def to_json(value: Any) -> str:
    """A stable, indented JSON text of ``value`` (keys in declaration order)."""
    return json.dumps(to_jsonable(value), indent=2, ensure_ascii=False)


def fmt_num(value: float | None, digits: int = 4, unknown: str = "—") -> str:
    """A number with up to ``digits`` significant digits; ``unknown`` for None (see gpuplan.i18n)."""
    return format_number(value, digits, unknown)


def fmt_money(value: float | None, currency: str, unknown: str = "unknown") -> str:
    """An amount in its own currency, ``$12.34`` or ``¥12.34`` (see gpuplan.i18n.Money for USD amounts)."""
    if value is None:
        return unknown
    return format_amount(value, currency)


def plain_table(title: str | None, columns: list[str], *, right: tuple[str, ...] = ()) -> Table:
    """A Rich table in the house style (no box chrome when piped is Rich's own behaviour)."""
    table = Table(title=title, title_justify="left", header_style="bold", show_lines=False)
    for col in columns:
        table.add_column(col, justify="right" if col in right else "left", overflow="fold")
    return table


class _HouseTable(Table):
    """A Rich table whose text cells holding Chinese break between its characters (Rich breaks a
    line only at spaces: a run of Chinese was one word). Cells without Chinese are Rich's own."""

    def _get_cells(self, console: Console, column_index: int, column: Column) -> Iterable[_Cell]:
        cells = column._cells
        header = column.header
        wide = [isinstance(c, str) and has_wide(c) for c in cells]
        head_wide = isinstance(header, str) and has_wide(header)
        if any(wide) or head_wide:
            column = replace(
                column,
                header=CjkCell(header) if head_wide else header,  # type: ignore[arg-type]  # a str, checked
                _cells=[CjkCell(c) if w else c for c, w in zip(cells, wide, strict=True)],  # type: ignore[arg-type]
            )
        return super()._get_cells(console, column_index, column)

    def _measure_column(self, console: Console, options: ConsoleOptions, column: Column) -> Measurement:
        # A column that does not wrap is as wide as its widest line at the least: Rich gives the
        # least width of its words, and a layout that could not fit was taken for one that does.
        measured = super()._measure_column(console, options, column)
        if column.no_wrap and column.width is None:
            return Measurement(measured.maximum, measured.maximum)
        return measured

    def _calculate_column_widths(self, console: Console, options: ConsoleOptions) -> list[int]:
        """Rich's widths, then, when they come out wider than the console, the wrapping columns
        narrowed (most room to spare first) down to their least width. Rich shares the excess out
        before a column's ``min_width`` takes its width back: the table came out wider than the
        console and the terminal cut the last column (``age unknown (up`` for ``… (up to 2.8 y)``).
        """
        widths = super()._calculate_column_widths(console, options)
        excess = sum(widths) - options.max_width
        if excess <= 0:
            return widths
        unbounded = options.update_width(10_000)
        least = [
            widths[i]
            if column.no_wrap or column.width is not None
            else self._measure_column(console, unbounded, column).minimum
            for i, column in enumerate(self.columns)
        ]
        excess = _narrow(widths, least, excess)
        if excess > 0:
            # Still too wide: a column that folds breaks inside its longest words, every character
            # kept, rather than be cut at the console's edge.
            folding = [
                min(m, _FOLD_LEAST + self._get_padding_width(i))
                if c.overflow == "fold" and not c.no_wrap
                else m
                for i, (c, m) in enumerate(zip(self.columns, least, strict=True))
            ]
            _narrow(widths, folding, excess)
        return widths


#: The narrowest a folding column is made when the table does not fit otherwise.
_FOLD_LEAST = 8


def _narrow(widths: list[int], least: list[int], excess: int) -> int:
    """Takes ``excess`` cells off ``widths``, from the column with the most room above its
    ``least`` first; what could not be taken off."""
    while excess > 0:
        spare = [w - m for w, m in zip(widths, least, strict=True)]
        i = max(range(len(widths)), key=lambda k: spare[k])
        if spare[i] <= 0:
            break
        cut = min(excess, spare[i])
        widths[i] -= cut
        excess -= cut
    return excess


def house_table(title: str | None = None) -> Table:
    """The compact table the layouts below are measured in: a rule under the header, no borders,
    two spaces between columns. Piped into a file or a pager it reads as plain columns. A cell
    holding Chinese wraps between its characters (:mod:`gpuplan.report.cjk`)."""
    from rich import box

    return _HouseTable(
        title=title,
        title_justify="left",
        header_style="bold",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        padding=(0, 1),
        collapse_padding=True,
        show_edge=False,
        show_lines=False,
    )


class Widest:
    """Renders the first of ``builders`` (widest first) whose table fits the console width; the
    last one when none does (its cells fold), or ``last_resort`` when even the last one's narrowest
    form is wider than the console (Rich would drop the columns that do not fit)."""

    def __init__(
        self, builders: Sequence[Callable[[], Table]], last_resort: Callable[[], Table] | None = None
    ) -> None:
        self.builders = builders
        self.last_resort = last_resort

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # Measure without the console's limit (Measurement.get clamps to it).
        unbounded = options.update_width(10_000)
        for k, build in enumerate(self.builders):
            table = build()
            probe = widest_rows(console, table)
            measured = Measurement.get(console, unbounded, probe)
            if measured.maximum <= options.max_width:
                fast = fast_rows(console, options, table, probe)
                yield table if fast is None else fast
                return
            if k == len(self.builders) - 1:
                if self.last_resort is not None and measured.minimum > options.max_width:
                    yield self.last_resort()
                    return
                yield table


#: Below this many rows a table is left to Rich: the line-by-line path saves nothing worth its checks.
_FAST_ROWS = 200


_NO_STYLE = (None, "", "none")


def _is_house_layout(table: Table) -> bool:
    from rich import box

    return (
        table.box is box.SIMPLE_HEAD
        and not (table.show_edge or table.pad_edge or table.show_lines or table.show_footer or table.expand)
        and table.collapse_padding
        and table.padding == (0, 1, 0, 1)
        and not table.row_styles
        and table.style in _NO_STYLE
        and table.leading == 0
        # a row's own style or a section line under it is what the rows written here would lose
        and all(row.style in _NO_STYLE and not row.end_section for row in table.rows)
        and all(
            c.style in _NO_STYLE
            and c.width is None
            and c.ratio is None
            and c.justify in ("left", "right")
            and c.vertical == "top"
            for c in table.columns
        )
    )


class _RowWriter:
    """Writes a house table's rows as Rich does, given its column widths: a cell on one line that
    fits is padded on the side its column's justification leaves; any other cell (several lines,
    or wider than its column) is laid out by Rich itself at its column's width; columns stand two
    spaces apart, a row is as tall as its tallest cell (the others padded below)."""

    def __init__(self, console: Console, options: ConsoleOptions, table: Table, widths: list[int]) -> None:
        self.console, self.options, self.widths = console, options, widths
        self.columns = table.columns
        self.cell_options = [
            options.update(width=w, justify=c.justify, no_wrap=c.no_wrap, overflow=c.overflow, height=None)
            for c, w in zip(table.columns, widths, strict=True)
        ]

    def _cell(self, i: int, cell: str) -> list[list[Segment]]:
        from rich.segment import Segment

        console, width, right = self.console, self.widths[i], self.columns[i].justify == "right"
        texts = [console.render_str(x, highlight=False, markup=self.options.markup) for x in cell.split("\n")]
        if right:
            for t in texts:
                t.rstrip()  # Rich right-justifies a line without its trailing spaces
        if "\t" in cell or any(t.cell_len > width for t in texts):
            # as Rich's tables: a cell is not highlighted; Chinese breaks as the house table breaks it
            text = cjk_text(console.render_str(cell, highlight=False, markup=self.options.markup))
            return console.render_lines(text, self.cell_options[i], pad=True)
        out = []
        for text in texts:
            pad = Segment(" " * (width - text.cell_len))
            segments = list(text.render(console, end=""))
            out.append([pad, *segments] if right else [*segments, pad])
        return out

    def lines(self, cells: list[str]) -> list[list[Segment]]:
        from rich.segment import Segment

        laid = [self._cell(i, c) for i, c in enumerate(cells)]
        height = max(len(x) for x in laid)
        gap, out = Segment("  "), []
        for k in range(height):
            line: list[Segment] = []
            for i, cell_lines in enumerate(laid):
                if i:
                    line.append(gap)
                line.extend(cell_lines[k] if k < len(cell_lines) else [Segment(" " * self.widths[i])])
            out.append(line)
        return out


def _styled(lines: list[list[Segment]]) -> list[list[tuple[str, str]]]:
    """Each line's characters with their style, whatever the segments they came in."""
    return [[(ch, str(seg.style or "")) for seg in line for ch in seg.text] for line in lines]


class _Lines:
    """Lines of segments already laid out (a table's header) followed by rows laid out on demand."""

    def __init__(self, head: list[list[Segment]], rows: Iterable[list[list[Segment]]]) -> None:
        self.head, self.rows = head, rows

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.segment import Segment

        for line in self.head:
            yield from line
            yield Segment.line()
        for row in self.rows:
            for line in row:
                yield from line
                yield Segment.line()


def fast_rows(console: Console, options: ConsoleOptions, table: Table, probe: Table) -> _Lines | None:
    """A long house table that fits the console at its natural widths, its rows written here: Rich
    renders the header, the rows are text cells padded to their columns' widths (Rich lays out
    only the cells that wrap or hold several lines). Rich lays out every cell through its
    wrapping machinery — 5,700 offers took 8 s. ``probe`` is ``table`` cut to the rows that hold
    each column's widest cell (``widest_rows``): Rich renders it whole, and the rows written here
    must read exactly as Rich's, or None is returned and Rich renders the table. None too for a
    table not in the house layout or with a cell that is not text."""
    n = len(table.rows)
    if n < _FAST_ROWS or probe is table or not _is_house_layout(table):
        return None
    columns = [list(c.cells) for c in table.columns]
    heads = [c.header for c in table.columns]
    if not all(isinstance(x, str) for x in heads) or not all(isinstance(x, str) for c in columns for x in c):
        return None
    by_column: list[list[str]] = columns  # type: ignore[assignment]  # every cell is a str, checked above
    widths = []
    for column, cells, head in zip(table.columns, by_column, heads, strict=True):
        widest = max((_text_width(console, x) or 0 for x in [*cells, head]), default=0)
        widths.append(widest if column.max_width is None else min(widest, column.max_width))
    if sum(widths) + 2 * (len(widths) - 1) > options.max_width:
        return None
    writer = _RowWriter(console, options, table, widths)
    rendered = console.render_lines(probe, options, pad=False)
    probe_rows = [[str(c._cells[i]) for c in probe.columns] for i in range(len(probe.rows))]
    mine = [line for row in probe_rows for line in writer.lines(row)]
    head_lines = len(rendered) - len(mine)
    if head_lines < 1 or _styled(mine) != _styled(rendered[head_lines:]):
        return None
    return _Lines(rendered[:head_lines], (writer.lines([c[i] for c in by_column]) for i in range(n)))


def _text_width(console: Console, cell: object) -> int | None:
    """The widest line of a text cell as Rich measures it; None for any other renderable."""
    if isinstance(cell, str):
        # A console that reads markup or emoji codes measures what they become.
        plain = console.render_str(cell).plain if ("[" in cell or ":" in cell) else cell
    elif isinstance(cell, Text):
        plain = cell.plain
    else:
        return None
    return max((cell_len(line) for line in plain.splitlines()), default=0)


def _least_width(console: Console, cell: object) -> int:
    """The longest piece a text cell's lines break into (a word; a Chinese character)."""
    plain = cell.plain if isinstance(cell, Text) else str(cell)
    if isinstance(cell, str) and ("[" in cell or ":" in cell):
        plain = console.render_str(cell).plain
    return max((cell_len(p) for p in pieces(plain) if not p.isspace()), default=0)


def widest_rows(console: Console, table: Table) -> Table:
    """``table`` cut to the rows that hold each column's widest cell: the same widest measurement
    (a column is as wide as its widest cell, its padding and limits do not depend on the row) for
    a few rows instead of thousands (Rich measures every cell; 8,000 offers took seconds per
    layout tried). A table with a cell that is not text is returned whole."""
    n = len(table.rows)
    if n <= 2 * len(table.columns):
        return table
    keep: set[int] = set()
    for column in table.columns:
        cells = list(column.cells)
        if len(cells) != n:
            return table
        widths = [_text_width(console, c) for c in cells]
        if any(w is None for w in widths):
            return table
        keep.add(max(range(n), key=lambda i: widths[i] or 0))
        # and the row with its longest unbreakable piece: the least width the column wraps to,
        # which decides whether a layout fits at all (a narrow note with a long price in it)
        keep.add(max(range(n), key=lambda i: _least_width(console, cells[i])))
    rows = sorted(keep)
    probe = copy.copy(table)
    probe.columns = [replace(c, _cells=[c._cells[i] for i in rows]) for c in table.columns]
    probe.rows = [table.rows[i] for i in rows]
    return probe


def rate_label(unit: str) -> str:
    """A throughput column's unit: ``tok/s`` for a text workload (``tokens_per_s``), ``images/s``
    for one whose samples are images (``images_per_s``: ``inputs.image_size`` given), else
    ``samples/s``."""
    if unit == "tokens_per_s":
        return _("tok/s")
    return _("images/s") if unit == "images_per_s" else _("samples/s")
