"""Shared rendering helpers: JSON documents from dataclasses, money and number cells, plain tables.

Renderers return data or Rich renderables; only the CLI prints them.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, is_dataclass, replace
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.table import Table
from rich.text import Text

from gpuplan.i18n import _
from gpuplan.i18n.numbers import format_age, format_amount, format_number

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult

__all__ = [
    "Widest",
    "fmt_money",
    "fmt_num",
    "house_table",
    "plain_table",
    "price_age_words",
    "to_json",
    "to_jsonable",
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


def price_age_words(age_days: int | None, staleness: str | None) -> str:
    """A price's age as plan and tco show it, in the words ``offers`` uses for its flags: ``5 mo
    old``, ``stale (2.7 y)``, ``age unknown (up to 18 mo)`` (a source without a date of its own,
    whose bounds straddle the staleness limit), ``date unknown``."""
    if age_days is None:
        return _("date unknown")
    if staleness == "stale":
        return _("stale ({age})").format(age=format_age(age_days))
    if staleness == "unknown":
        return _("age unknown (up to {age})").format(age=format_age(age_days))
    return _("{age} old").format(age=format_age(age_days))


def plain_table(title: str | None, columns: list[str], *, right: tuple[str, ...] = ()) -> Table:
    """A Rich table in the house style (no box chrome when piped is Rich's own behaviour)."""
    table = Table(title=title, title_justify="left", header_style="bold", show_lines=False)
    for col in columns:
        table.add_column(col, justify="right" if col in right else "left", overflow="fold")
    return table


def house_table(title: str | None = None) -> Table:
    """The compact table the layouts below are measured in: a rule under the header, no borders,
    two spaces between columns. Piped into a file or a pager it reads as plain columns."""
    from rich import box

    return Table(
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
        from rich.measure import Measurement

        # Measure without the console's limit (Measurement.get clamps to it).
        unbounded = options.update_width(10_000)
        for build in self.builders[:-1]:
            table = build()
            if Measurement.get(console, unbounded, widest_rows(console, table)).maximum <= options.max_width:
                yield table
                return
        last = self.builders[-1]()
        if self.last_resort is not None:
            narrowest = Measurement.get(console, unbounded, widest_rows(console, last)).minimum
            if narrowest > options.max_width:
                yield self.last_resort()
                return
        yield last


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
    rows = sorted(keep)
    probe = copy.copy(table)
    probe.columns = [replace(c, _cells=[c._cells[i] for i in rows]) for c in table.columns]
    probe.rows = [table.rows[i] for i in rows]
    return probe
