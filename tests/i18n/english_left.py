"""Find English left in a line that should read in Chinese: for tests of translated error lines.

``english_left(line)`` returns the runs of three or more English words in a row that a Chinese line
still holds, so that a test can say ``assert english_left(error_text(e)) == []``. Data that stays as
the user or a provider wrote it is not counted: quoted names ('x', "x", `x`, “x”), URLs, paths,
flags (--lang, -n), numbers, and identifiers with _ . / digits in them (gpu_memory, bert-base.yaml,
H100-80GB). Data that is plain words (a provider's own error text, a list of names joined by
commas) can be passed as ``allow`` and is taken out first.

Use from a test in tests/i18n with ``from english_left import english_left``; from any other test
folder with ``from i18n.english_left import english_left`` (tests/ is on the path, as for
fault_helpers).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["english_left"]

#: How many English words in a row count as an untranslated phrase.
RUN_AT_LEAST = 3

# Spans whose content is data: quoted text, then URLs. A straight single quote opens a span only
# where no letter precedes it, so that "doesn't" stays a word.
_QUOTED = re.compile(r"""(?<![A-Za-z])'[^'\n]*'|"[^"\n]*"|`[^`\n]*`|“[^”\n]*”|‘[^’\n]*’|«[^»\n]*»""")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S+")
# A word: letters, maybe joined by an apostrophe or a hyphen (don't, up-to-date).
_WORD = re.compile(r"[A-Za-z]+(?:['-][A-Za-z]+)*")
# What may close a word without making it an identifier (end of a clause or sentence).
_CLOSING = ".,;:!?)]}"
_OPENING = "([{"
# Anything outside printable ASCII (CJK text, full-width punctuation) ends a run.
_NOT_ASCII = re.compile(r"[^\x21-\x7e\s]+")
_BREAK = "\x00"


def english_left(text: str, allow: Iterable[str] = ()) -> list[str]:
    """The runs of ``RUN_AT_LEAST`` or more English words in a row in ``text``, each as its words
    joined by one space, in order; ``[]`` when the line has none. ``allow`` holds data strings
    (field values) to ignore wherever they appear."""
    for data in sorted(allow, key=len, reverse=True):  # longest first: one may contain another
        if data:
            text = text.replace(data, f" {_BREAK} ")
    for span in (_QUOTED, _URL, _NOT_ASCII):
        text = span.sub(f" {_BREAK} ", text)
    runs: list[str] = []
    run: list[str] = []

    def end_run() -> None:
        if len(run) >= RUN_AT_LEAST:
            runs.append(" ".join(run))
        run.clear()

    for token in text.split():
        if token[0] in _OPENING:  # "(see the docs" starts a new run at "see"
            end_run()
            token = token.lstrip(_OPENING)
        core = token.rstrip(_CLOSING)
        if core and _WORD.fullmatch(core):
            run.append(core)
            if core != token:  # punctuation after the word ends the run with it
                end_run()
        else:  # a number, flag, path, identifier or a break mark
            end_run()
    end_run()
    return runs
