"""Numbers on the command line: every float option is a finite number.

Typer reads ``nan``, ``inf`` and ``1e999`` as floats, and none of them is an amount, a rate, a
size or a duration: ``--network-gbps nan`` was taken as infinite bandwidth. Every float option
names :func:`finite_float` as its parser (``tests/cli/test_finite_options.py`` walks the command
tree so that a new option cannot forget it), and a refused value is a usage error (exit 2) whose
words :mod:`gpuplan.cli._click_words` writes in the user's language.
"""

from __future__ import annotations

import math

__all__ = ["NOT_A_NUMBER", "NOT_FINITE", "finite_float"]

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
