"""pydantic's reasons for refusing a value, as catalog Phrases: the words in a one-line error.

``deploy`` and ``simulate`` read pydantic models from files the user gives (a plan, a services
file) and put the first problem's reason into their error. :func:`reason` turns that reason into a
:class:`~gpuplan.errors.Phrase` whose English is pydantic's text exactly, so the line reads in the
user's language; a reason not listed here (or worded otherwise by another pydantic version) stays
as pydantic wrote it. A validator of ours that raised ``ValueError(Phrase(...))`` gives its Phrase.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from gpuplan.errors import GpuplanError, Phrase
from gpuplan.i18n.messages import N_

__all__ = ["reason"]

#: pydantic's messages (pydantic-core 2.x), each ``{field}`` standing for the value in its place.
#: The number ones are the same catalog messages as the command line's (gpuplan.cli._click_words).
_TEMPLATES = (
    N_("Field required"),
    N_("Extra inputs are not permitted"),
    N_("Input should be a finite number"),
    N_("Input should be a valid string"),
    N_("Input should be a valid list"),
    N_("Input should be a valid dictionary"),
    N_("Input should be a valid dictionary or instance of {name}"),
    N_("Input should be a valid dictionary or object to extract fields from"),
    N_("Input should be a valid boolean"),
    N_("Input should be a valid boolean, unable to interpret input"),
    N_("Input should be a valid integer"),
    N_("Input should be a valid integer, unable to parse string as an integer"),
    N_("Input should be a valid integer, got a number with a fractional part"),
    N_("Input should be a valid number"),
    N_("Input should be a valid number, unable to parse string as a number"),
    N_("Input should be greater than or equal to {limit}"),
    N_("Input should be greater than {limit}"),
    N_("Input should be less than or equal to {limit}"),
    N_("Input should be less than {limit}"),
    N_("String should have at least 1 character"),
    N_("String should have at least {limit} characters"),
    N_("String should have at most {limit} characters"),
    N_("String should match pattern '{pattern}'"),
)

_VALUE_ERROR = "Value error, "


def reason(error: Mapping[str, Any]) -> str | Phrase | GpuplanError:
    """The reason of one of pydantic's ``ValidationError.errors()``, without its "Value error, "
    prefix: a Phrase where it is a known message, or what our own validator raised
    ``ValueError`` with (a Phrase, or a GpuplanError it wraps); else pydantic's text."""
    text = str(error.get("msg", "")).removeprefix(_VALUE_ERROR)
    cause = (error.get("ctx") or {}).get("error")
    said = cause.args[0] if isinstance(cause, Exception) and cause.args else None
    if isinstance(said, Phrase | GpuplanError) and str(said) == text:
        return said
    for template in _TEMPLATES:
        match = _pattern(template).fullmatch(text)
        if match:
            return Phrase(template, **match.groupdict())
    return text


@cache
def _pattern(template: str) -> re.Pattern[str]:
    """``template`` as a regular expression: each ``{name}`` captures the text in its place."""
    parts = re.split(r"\{(\w+)\}", template)
    body = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts))
    return re.compile(body, re.DOTALL)
