"""Helpers for the tests of error lines in Chinese (deploy/ and simulate/): raise through the real
code, write the line under ``zh``, and find English words left in it.

Imported by the tests beside it as ``from error_lines import …`` (pytest puts this folder on the
path, as for english_left).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from gpuplan.errors import GpuplanError
from gpuplan.i18n.error_text import error_text
from gpuplan.i18n.messages import use_language

__all__ = ["check_line", "english_runs", "raised", "write", "zh"]


def raised(call: Callable[[], object]) -> GpuplanError:
    """The GpuplanError ``call`` raises (the test fails when it raises none)."""
    with pytest.raises(GpuplanError) as info:
        call()
    return info.value


def zh(error: GpuplanError) -> str:
    """``error``'s line as a user with ``--lang zh`` reads it."""
    with use_language("zh"):
        return error_text(error)


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


# Spans that are data, not words: quoted text, paths, flags, identifiers (with _ . / - = or digits);
# and Chinese text and punctuation, which end a run of English words.
_DATA = re.compile(r"""'[^']*'|"[^"]*"|`[^`]*`|[^\x00-\x7f]+|\S*[/_.=@\d-]\S*""")
_WORD = re.compile(r"[A-Za-z]+")


def english_runs(line: str) -> list[str]:
    """Runs of three or more English words in a row in ``line`` (data spans taken out first); a
    comma, semicolon, colon or closing parenthesis after a word ends its run."""
    runs: list[str] = []
    run: list[str] = []

    def end() -> None:
        if len(run) >= 3:
            runs.append(" ".join(run))
        run.clear()

    for token in _DATA.sub(" \0 ", line).split():
        core = token.strip("(),;:")
        if not _WORD.fullmatch(core):
            end()
            continue
        run.append(core)
        if token.endswith((",", ";", ":", ")")):
            end()
    end()
    return runs


def check_line(error: GpuplanError, english: str) -> None:
    """``error`` still says ``english``, and under ``zh`` is Chinese with no English phrase left."""
    assert english in str(error)
    line = zh(error)
    assert line != str(error)
    assert re.search(r"[\u4e00-\u9fff]", line), line
    assert english_runs(line) == [], line
