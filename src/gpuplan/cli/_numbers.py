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

__all__ = [
    "NOT_AN_AMOUNT",
    "NOT_A_NUMBER",
    "NOT_FINITE",
    "WRONG_CURRENCY",
    "finite_float",
    "finite_in",
    "money_in",
    "whole_number",
]

#: Pydantic's own words for a value that is no number (Typer's, before this parser), kept as they were.
NOT_A_NUMBER = "Input should be a valid number, unable to parse string as a number"
#: The words for a number that is not finite (``{value}``: as given).
NOT_FINITE = "{value} is not a finite number"
#: An amount of money that is no number in any of the ways people write one (``{value}``: as given).
NOT_AN_AMOUNT = "{value} is not an amount: write it as {one} or {two}"
#: An amount written in the other currency (``{value}``: as given, ``{option}``: the option it suits).
WRONG_CURRENCY = "{value} is in another currency: give it with {option}"

#: How an amount of yuan or dollars is written beside the number: the currency's signs and codes.
_SIGNS = {"cny": ("¥", "￥", "cny", "rmb", "元"), "usd": ("$", "us$", "usd")}
#: Chinese units of count: 万 (10⁴), 亿 (10⁸); ``k``/``m`` as English writes thousands and millions.
_UNITS = {"万": 1e4, "亿": 1e8, "k": 1e3, "m": 1e6}
#: Two ways to write an amount of each currency, for the refusal.
_EXAMPLES = {"cny": ("1,200,000", "120万"), "usd": ("5,000", "5k")}


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


def whole_number(least: int, most: int | None = None) -> Callable[[object], int]:
    """The parser of an int option from ``least`` to ``most``: as Typer's ``min=``/``max=`` refuse,
    in pydantic's own words (which the catalog translates), without widening the help screen's type
    column to ``<int range> [x>=0]`` (a help text beside it would be cut at 80 columns)."""

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


def money_in(least: float, most: float, currency: str, other: str) -> Callable[[object], float]:
    """The parser of an amount of ``currency`` (``cny``, ``usd``) from ``least`` to ``most``, as people
    write one: ``1200000``, ``1,200,000``, ``1_200_000``, ``120万``, ``1.2亿``, ``¥1,200,000``,
    ``1200000元``, ``$5k``; an amount signed in the other currency is refused, naming ``other`` (the
    option that takes it). Then :func:`finite_in`'s checks."""
    bounded = finite_in(least, most)

    def parse(value: object) -> float:
        from pydantic_core import PydanticCustomError

        if isinstance(value, float | int) and not isinstance(value, bool):
            return bounded(value)
        given = str(value).strip()
        one, two = _EXAMPLES[currency]
        refused = {"value": given[:40], "one": one, "two": two}
        text = given.lower().replace(" ", "")
        for code, signs in _SIGNS.items():
            for sign in sorted(signs, key=len, reverse=True):
                if text.startswith(sign) or text.endswith(sign):
                    if code != currency:
                        raise PydanticCustomError(
                            "wrong_currency", WRONG_CURRENCY, {"value": given[:40], "option": other}
                        )
                    text = text.removeprefix(sign).removesuffix(sign)
        scale = 1.0
        if text[-1:] in _UNITS:
            scale, text = _UNITS[text[-1]], text[:-1]
        text = text.replace("_", "")
        if "," in text:
            whole, _dot, fraction = text.partition(".")
            groups = whole.split(",")
            if not (1 <= len(groups[0]) <= 3 and all(len(g) == 3 for g in groups[1:])):
                raise PydanticCustomError("amount_parsing", NOT_AN_AMOUNT, refused)
            text = "".join(groups) + (f".{fraction}" if _dot else "")
        try:
            number = float(text)
        except ValueError:
            raise PydanticCustomError("amount_parsing", NOT_AN_AMOUNT, refused) from None
        return bounded(number * scale)

    parse.finite = True  # type: ignore[attr-defined]
    return parse
