"""Durations as users write them: a run's (``12h``, ``2d``, ``90m``, ``1h30m``, ``1.5``, ``3 weeks``,
``2天``, ``三天``, ``１２ｈ``) → hours;
a latency target's (``2s``, ``80ms``, ``1.5 s``, ``1min``, ``2000``) → milliseconds."""

from __future__ import annotations

import re

from gpuplan.errors import Phrase
from gpuplan.i18n.messages import N_
from gpuplan.units import as_typed, with_digits

__all__ = ["parse_duration_hours", "parse_milliseconds"]

#: Hours per unit letter. ``w`` is a 7-day week.
_UNIT_HOURS = {"s": 1 / 3600, "m": 1 / 60, "min": 1 / 60, "h": 1.0, "d": 24.0, "w": 168.0}
#: Longest duration accepted: ten years, in hours (no plan runs longer; inf is not a deadline).
MAX_HOURS = 87_660.0
_TOO_LONG = N_("a duration must be at most {most:g} h, ten years (got {value})")
_FORMS = N_("expected a duration like 12h, 2d, 90m, 1h30m or 3 weeks (got {value!r})")
_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(min|[smhdw])")
#: Units written out, in English (singular or plural) and in Chinese, to their letter: "3 weeks",
#: "2 days", "12小时", "3周". Longest first, so that "minutes" is not read as "m" + "inutes".
_WORDS = {
    "seconds": "s",
    "second": "s",
    "secs": "s",
    "sec": "s",
    "minutes": "min",
    "minute": "min",
    "mins": "min",
    "hours": "h",
    "hour": "h",
    "hrs": "h",
    "hr": "h",
    "days": "d",
    "day": "d",
    "weeks": "w",
    "week": "w",
    "wks": "w",
    "wk": "w",
    "个小时": "h",
    "小时": "h",
    "分钟": "min",
    "星期": "w",
    "秒": "s",
    "天": "d",
    "日": "d",
    "周": "w",
}
_WORD = re.compile("|".join(sorted(_WORDS, key=len, reverse=True)))


def parse_duration_hours(value: object) -> float:
    """Hours in ``value``: a number (already hours) or a string of ``<number><unit>`` parts, its
    digits full-width or ASCII, or a count in Chinese numerals (``两周``).

    Raises ValueError with the accepted forms when the text is not a positive duration; its one
    argument is a :class:`~gpuplan.errors.Phrase`, so that the line can be shown in the user's language.
    """
    if isinstance(value, bool):
        raise ValueError(Phrase(N_("expected a duration like 12h, 2d or 90m (got {value!r})"), value=value))
    if isinstance(value, int) and abs(value) > MAX_HOURS:
        raise ValueError(Phrase(_TOO_LONG, most=MAX_HOURS, value=f"{str(value)[:40]}…"))
    if isinstance(value, int | float):
        hours = float(value)
    else:
        # full-width as typed (１２ｈ) and Chinese numerals (三天, 两周, 十二小时) read as digits
        text = with_digits(as_typed(str(value)[:200])).strip().lower().replace(" ", "")
        text = _WORD.sub(lambda m: _WORDS[m.group(0)], text)
        if re.fullmatch(r"\d+(?:\.\d+)?", text):
            hours = float(text)
        elif text and re.fullmatch(rf"(?:{_PART.pattern})+", text):
            hours = sum(float(n) * _UNIT_HOURS[u] for n, u in _PART.findall(text))
        else:
            raise ValueError(Phrase(_FORMS, value=value))
    if not hours > 0:
        raise ValueError(Phrase(N_("a duration must be > 0 (got {value!r})"), value=value))
    if not hours <= MAX_HOURS:
        raise ValueError(Phrase(_TOO_LONG, most=MAX_HOURS, value=str(value)[:40]))
    return hours


#: Milliseconds per unit of a latency target.
_UNIT_MS = {"ms": 1.0, "s": 1000.0, "sec": 1000.0, "min": 60_000.0}


def parse_milliseconds(value: object) -> object:
    """A latency target in milliseconds: a number as it is (the field's unit), or a string of one
    number and a unit (``2s``, ``80ms``, ``1.5 s``, ``1min``); other text is refused, saying the units
    it takes. The field's own bounds then check the value (``-2s`` is not > 0)."""
    if not isinstance(value, str):
        return value
    text = value.strip().lower()[:100]
    m = re.fullmatch(r"([-+]?[0-9]*\.?[0-9]+(?:e[-+]?[0-9]+)?)\s*([a-z]*)", text)
    if m is not None and not m.group(2):
        return value  # a number written as text: the field reads it
    if m is None or m.group(2) not in _UNIT_MS:
        raise ValueError(
            Phrase(N_("write a latency in ms, s or min, e.g. 2000, 2s or 80ms (got {value!r})"), value=value)
        )
    return float(m.group(1)) * _UNIT_MS[m.group(2)]
