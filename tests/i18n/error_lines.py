"""Helpers for the tests of error lines in Chinese (deploy/ and simulate/): raise through the real
code, write the line under ``zh``, and check that no English phrase is left in it (english_left).

Imported by the tests beside it as ``from error_lines import …`` (pytest puts this folder on the
path, as for english_left).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from english_left import english_left

from gpuplan.errors import GpuplanError
from gpuplan.i18n.error_text import error_text
from gpuplan.i18n.messages import use_language

__all__ = ["check_line", "raised", "write", "zh"]


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


def check_line(error: GpuplanError, english: str) -> None:
    """``error`` still says ``english``, and under ``zh`` is Chinese with no English phrase left."""
    assert english in str(error)
    line = zh(error)
    assert line != str(error)
    assert re.search(r"[\u4e00-\u9fff]", line), line
    assert english_left(line) == [], line
