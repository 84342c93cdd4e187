"""A price's or an exchange rate's source line in the reader's language.

A source line is stored in English, as gpuplan cites it: publishers' titles, file paths and URLs,
joined by gpuplan's own words ("CFETS central parity 6.9858 CNY per USD on 2026-01-27, as reported
by Xinhua '…'", "…/vms.csv @00148f2, line 202; the same price in …"). :func:`source_words` puts
those words of ours into the current language and leaves the rest as it is: a Chinese output had
shown every source as an English sentence. English is returned unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from gpuplan.i18n.messages import N_, Language, _, current_language

__all__ = ["source_words"]

#: A SkyPilot-format file's dollars undone to the yuan charged: its rate is no second one in use.
_UNUSED_FILE_RATE = N_(
    " (the rate in the file, USD = CNY × {rate}, is not used: kept in CNY and converted at the "
    "dated rate of the catalog)"
)

#: gpuplan's own wording inside a source line, each with the message that says it; a group of the
#: pattern fills the placeholder of its name. In order: a longer form before a shorter one.
_OWN_WORDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"^CFETS central parity (?P<rate>[\d.]+) CNY per USD(?P<aside> \([^)]*\))? on (?P<date>[\d-]+)"
        ),
        N_("CFETS central parity {rate} CNY per USD{aside} on {date}"),
    ),
    (
        re.compile(
            r"^ECB euro foreign exchange reference rates of (?P<day>[\d-]+) "
            r"\((?P<url>\S+), fetched (?P<at>[^)]+)\): "
            r"1 EUR = (?P<usd>[\d.]+) USD = (?P<cny>[\d.]+) CNY, so 1 USD = (?P<rate>[\d.]+) CNY "
            r"\(cross rate, not the CFETS central parity\)$"
        ),
        N_(
            "ECB euro foreign exchange reference rates of {day} ({url}, fetched {at}): 1 EUR = {usd} USD "
            "= {cny} CNY, so 1 USD = {rate} CNY (cross rate, not the CFETS central parity)"
        ),
    ),
    (re.compile(r", as reported by (?P<by>[^,;(]+?)(?= \x00| \(|$)"), N_(", as reported by {by}")),
    (re.compile(r", read (?P<date>[\d-]+) at (?P<url>\S+)"), N_(", read {date} at {url}")),
    (re.compile(r" \(a copy of the (?P<who>\w+) English page\)"), N_(" (a copy of the {who} English page)")),
    (
        re.compile(r" \(gpuplan's shared instance table (?P<file>\S+), line (?P<line>\d+)\)"),
        N_(" (gpuplan's shared instance table {file}, line {line})"),
    ),
    (
        re.compile(r", host line (?P<host>\d+) \+ GPU line (?P<gpu>\d+)"),
        N_(", host line {host} + GPU line {gpu}"),
    ),
    (re.compile(r", line (?P<line>\d+)"), N_(", line {line}")),
    (re.compile(r"; the same price in "), N_("; the same price in ")),
    (re.compile(r"; same (?:value )?in "), N_("; also in ")),
    (re.compile(r", retrieved (?P<date>[\d-]+)"), N_(", retrieved {date}")),
    (re.compile(r", rows copied to (?P<file>\S+)"), N_(", rows copied to {file}")),
    (
        re.compile(
            r" \(the rate in the file, USD = CNY × (?P<rate>[\d.]+), is not used: kept in CNY and "
            r"converted at the dated rate of the catalog\)"
        ),
        _UNUSED_FILE_RATE,
    ),
    # the same said of a store seeded before the wording said plainly that the rate is unused
    (re.compile(r" \(USD = CNY × (?P<rate>[\d.]+) in the file; kept in CNY\)"), _UNUSED_FILE_RATE),
    (re.compile(r" in the SkyPilot-format catalog "), N_(" in the SkyPilot-format catalog ")),
    (
        re.compile(r" \(undated Chinese web article\), section "),
        N_(" (undated Chinese web article), section "),
    ),
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
