"""Shared rendering helpers: JSON documents from dataclasses, money and number cells, plain tables.

Renderers return data or Rich renderables; only the CLI prints them.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, is_dataclass
from typing import Any

from rich.table import Table

__all__ = ["fmt_money", "fmt_num", "plain_table", "to_json", "to_jsonable"]


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
    """A number with up to ``digits`` significant digits; ``unknown`` for None."""
    if value is None:
        return unknown
    if value == int(value) and abs(value) < 1e9:
        return f"{int(value):,}"
    return f"{value:,.{digits}g}" if abs(value) < 1000 else f"{value:,.0f}"


def fmt_money(value: float | None, currency: str, unknown: str = "unknown") -> str:
    """``12.34 USD``; four significant digits under 10 (spot prices of cents), 2 decimals above."""
    if value is None:
        return unknown
    text = f"{value:,.4g}" if abs(value) < 10 else f"{value:,.2f}"
    return f"{text} {currency}"


def plain_table(title: str | None, columns: list[str], *, right: tuple[str, ...] = ()) -> Table:
    """A Rich table in the house style (no box chrome when piped is Rich's own behaviour)."""
    table = Table(title=title, title_justify="left", header_style="bold", show_lines=False)
    for col in columns:
        table.add_column(col, justify="right" if col in right else "left", overflow="fold")
    return table
