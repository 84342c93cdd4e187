"""Numbers on the command line: every float option is a finite number.

Typer reads ``nan``, ``inf`` and ``1e999`` as floats, and none of them is an amount, a rate, a
size or a duration: ``--network-gbps nan`` was taken as infinite bandwidth. Every float option
names :func:`finite_float` as its parser (``tests/cli/test_finite_options.py`` walks the command
tree so that a new option cannot forget it), and a refused value is a usage error (exit 2) whose
words :mod:`gpuplan.cli._click_words` writes in the user's language.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Annotated

import typer

from gpuplan.catalog.dates import MAX_STALE_DAYS
from gpuplan.units import read_amount

__all__ = [
    "GPUS_PER_INSTANCE_RANGE",
    "NOT_A_NUMBER",
    "NOT_FINITE",
    "finite_float",
    "finite_in",
    "money_in",
    "percent_number",
    "whole_number",
]

#: Pydantic's own words for a value that is no number (Typer's, before this parser), kept as they were.
NOT_A_NUMBER = "Input should be a valid number, unable to parse string as a number"
#: The words for a number that is not finite (``{value}``: as given).
NOT_FINITE = "{value} is not a finite number"


def finite_float(value: object) -> float:
    """``value`` (the option's text, or its default) as a finite float; else a validation error
    that Typer reports as ``Invalid value for '--option': …``."""
    from pydantic_core import PydanticCustomError  # Typer validates with pydantic already

    if isinstance(value, float | int) and not isinstance(value, bool):
        number = float(value)
    else:
        try:
            number = float(str(value))
        except ValueError:
            raise PydanticCustomError("float_parsing", NOT_A_NUMBER) from None
    if not math.isfinite(number):
        raise PydanticCustomError("finite_number", NOT_FINITE, {"value": str(value).strip()[:40]})
    return number


def finite_in(least: float, most: float) -> Callable[[object], float]:
    """The parser of a float option from ``least`` to ``most``: :func:`finite_float`, then the
    range, in pydantic's words as Typer's ``min=``/``max=`` (which a parser replaces) would say it.
    The parser is marked ``finite`` so that the test walking the commands knows it."""

    def parse(value: object) -> float:
        from pydantic_core import PydanticCustomError

        number = finite_float(value)
        if number < least:
            raise PydanticCustomError(
                "greater_than_equal", "Input should be greater than or equal to {ge}", {"ge": least}
            )
        if number > most:
            raise PydanticCustomError(
                "less_than_equal", "Input should be less than or equal to {le}", {"le": most}
            )
        return number

    parse.finite = True  # type: ignore[attr-defined]
    return parse


def percent_number(value: object) -> float:
    """A percentage as people write it: ``12``, ``12%``, ``12 %`` or the full-width ``12％`` (a
    Chinese input method's), as :func:`finite_float`; the range is the command's to check."""
    if isinstance(value, str):
        value = value.strip().removesuffix("%").removesuffix("％").rstrip()
    return finite_float(value)


percent_number.finite = True  # type: ignore[attr-defined]


def whole_number(
    least: int, most: int | None = None, *, outside: str | None = None
) -> Callable[[object], int]:
    """The parser of an int option from ``least`` to ``most``: as Typer's ``min=``/``max=`` refuse,
    in pydantic's own words (which the catalog translates), without widening the help screen's type
    column to ``<int range> [x>=0]`` (a help text beside it would be cut at 80 columns).
    ``outside``: the option's own words for a number out of the range instead (``{value}``,
    ``{least}``, ``{most}``; one of :data:`gpuplan.cli._click_words.REASONS`, translated there)."""

    def parse(value: object) -> int:
        from pydantic_core import PydanticCustomError

        try:
            number = (
                value if isinstance(value, int) and not isinstance(value, bool) else int(str(value).strip())
            )
        except ValueError:
            raise PydanticCustomError(
                "int_parsing", "Input should be a valid integer, unable to parse string as an integer"
            ) from None
        if outside is not None and (number < least or (most is not None and number > most)):
            raise PydanticCustomError(
                "out_of_range", outside, {"value": number, "least": least, "most": most}
            )
        if number < least:
            raise PydanticCustomError(
                "greater_than_equal", "Input should be greater than or equal to {ge}", {"ge": least}
            )
        if most is not None and number > most:
            raise PydanticCustomError(
                "less_than_equal", "Input should be less than or equal to {le}", {"le": most}
            )
        return number

    return parse


#: ``offers --count`` out of its range: said of what it counts, not in pydantic's words.
GPUS_PER_INSTANCE_RANGE = "{value} GPUs per instance: give a whole number from {least} to {most}"


def money_in(least: float, most: float, currency: str, other: str) -> Callable[[object], float]:
    """The parser of an amount of ``currency`` (``cny``, ``usd``) from ``least`` to ``most``, as people
    write one (:func:`gpuplan.units.read_amount`, which a workload's budget reads too: ``120万``,
    ``¥1,200,000``, ``$5k`` …); an amount signed in the other currency is refused, naming ``other``
    (the option that takes it). Then :func:`finite_in`'s checks."""
    bounded = finite_in(least, most)

    def parse(value: object) -> float:
        return bounded(read_amount(value, currency, other))

    parse.finite = True  # type: ignore[attr-defined]
    return parse


#: ``--stale-days``, as ``offers`` and ``tco`` take it: the catalog's staleness limit for this run.
StaleDaysOption = Annotated[
    int | None,
    typer.Option(
        "--stale-days",
        help="Flag prices older than this many days as stale (default 180).",
        parser=whole_number(0, MAX_STALE_DAYS),
    ),
]
