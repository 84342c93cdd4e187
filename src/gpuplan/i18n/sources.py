"""A price's or an exchange rate's source line in the reader's language.

A source line is stored in English, as gpuplan cites it: publishers' titles, file paths and URLs,
joined by gpuplan's own words ("CFETS central parity 6.9858 CNY per USD on 2026-01-27, as reported
by Xinhua '…'", "…/vms.csv @00148f2, line 202; the same price in …"). :func:`source_words` puts
those words of ours into the current language and leaves the rest as it is: a Chinese output had
shown every source as an English sentence. English is returned unchanged.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable

from gpuplan.i18n.messages import N_, Language, _, current_language

__all__ = ["ECB_RATE_SOURCE", "HOST_AND_GPU_LINES", "UNUSED_FILE_RATE", "source_words"]

#: The source line of a CNY rate ``catalog refresh --rates`` reads from the ECB
#: (:func:`gpuplan.catalog.rates.cny_rate` writes it, in English, with these words).
ECB_RATE_SOURCE = N_(
    "ECB euro foreign exchange reference rates of {day} ({url}, fetched {at}): 1 EUR = {usd} USD "
    "= {cny} CNY, so 1 USD = {rate} CNY (cross rate, not the CFETS central parity)"
)
#: A SkyPilot-format file's dollars undone to the yuan charged: its rate is no second one in use
#: (:mod:`gpuplan.catalog.importers.skypilot_markets` adds it to a row's source line).
UNUSED_FILE_RATE = N_(
    " (the rate in the file, USD = CNY × {rate}, is not used: kept in CNY and converted at the "
    "dated rate of the catalog)"
)
#: A GCP row's two lines, its host's and its GPU's (:mod:`gpuplan.catalog.importers.skypilot_gcp`).
HOST_AND_GPU_LINES = N_(", host line {host} + GPU line {gpu}")

#: What each placeholder of :data:`_OWN_WORDS`' messages stands for in a source line.
_FILLS = {
    "rate": r"[\d.]+",
    "usd": r"[\d.]+",
    "cny": r"[\d.]+",
    "date": r"[\d-]+",
    "day": r"[\d-]+",
    "at": r"[^)]+",
    "url": r"\S+",
    "file": r"\S+",
    "line": r"\d+",
    "host": r"\d+",
    "gpu": r"\d+",
    "who": r"\w+",
    "aside": r"(?: \([^)]*\))?",  # the rate as the publisher gives it, where it is said
    "by": r"[^,;(]+?(?= \x00| \(|$)",  # the publisher, up to its title or an aside
}


def _said_as(message: str, *, start: bool = False, end: bool = False) -> tuple[re.Pattern[str], str]:
    """``message`` and the pattern of its English words in a source line, each placeholder a group
    of its name (:data:`_FILLS`); ``start``/``end``: only at the line's start, end."""
    parts = ["^" if start else ""]
    for literal, field, _spec, _conversion in string.Formatter().parse(message):
        parts.append(re.escape(literal))
        if field is not None:
            parts.append(f"(?P<{field}>{_FILLS[field]})")
    return re.compile("".join(parts) + ("$" if end else "")), message


#: gpuplan's own wording inside a source line, each with the message that says it; a group of the
#: pattern fills the placeholder of its name. In order: a longer form before a shorter one.
_OWN_WORDS: tuple[tuple[re.Pattern[str], str], ...] = (
    _said_as(N_("CFETS central parity {rate} CNY per USD{aside} on {date}"), start=True),
    _said_as(ECB_RATE_SOURCE, start=True, end=True),
    _said_as(N_(", as reported by {by}")),
    _said_as(N_(", read {date} at {url}")),
    _said_as(N_(" (a copy of the {who} English page)")),
    _said_as(N_(" (gpuplan's shared instance table {file}, line {line})")),
    _said_as(HOST_AND_GPU_LINES),
    _said_as(N_(", line {line}")),
    _said_as(N_("; the same price in ")),
    (re.compile(r"; same (?:value )?in "), N_("; also in ")),
    _said_as(N_(", retrieved {date}")),
    _said_as(N_(", rows copied to {file}")),
    _said_as(UNUSED_FILE_RATE),
    # the same said of a store seeded before the wording said plainly that the rate is unused
    (re.compile(r" \(USD = CNY × (?P<rate>[\d.]+) in the file; kept in CNY\)"), UNUSED_FILE_RATE),
    _said_as(N_(" in the SkyPilot-format catalog ")),
    _said_as(N_(" (undated Chinese web article), section ")),
)
#: Quoted titles and URLs: a publisher's words, never reworded.
_KEPT = re.compile(r"'[^']*'|「[^」]*」|\w+://\S+")


def source_words(source: str) -> str:
    """``source`` with gpuplan's own words in the current language (titles, names, paths and URLs
    as they are); ``source`` itself in English."""
    if current_language() is Language.EN:
        return source
    # titles are set aside first, so that no pattern rewords a publisher's words
    kept: list[str] = []

    def keep(m: re.Match[str]) -> str:
        kept.append(m.group(0))
        return f"\x00{len(kept) - 1}\x00"

    text = _KEPT.sub(keep, source)
    for pattern, message in _OWN_WORDS:
        text = pattern.sub(_said(_(message)), text)
    return re.sub("\x00(\\d+)\x00", lambda m: kept[int(m.group(1))], text)


def _said(message: str) -> Callable[[re.Match[str]], str]:
    """What a match of one of :data:`_OWN_WORDS` is replaced by: ``message`` with its groups."""
    return lambda m: message.format(**{k: v or "" for k, v in m.groupdict().items()})
