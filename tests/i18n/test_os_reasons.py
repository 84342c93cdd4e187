"""The operating system's reasons for refusing a path are said in the reader's language: a Chinese
error line had ended in the C library's English ("错误：无法写入报告 …：Not a directory")."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from gpuplan.cli._files import write_text_atomic
from gpuplan.errors import InputError, Phrase
from gpuplan.i18n import use_language
from gpuplan.i18n.error_text import error_text
from gpuplan.i18n.os_reasons import os_reason


def test_common_reasons_are_catalog_messages_and_others_keep_the_systems_text() -> None:
    for code in (errno.ENOENT, errno.ENOTDIR, errno.EACCES, errno.EROFS, errno.ENOSPC):
        assert isinstance(os_reason(OSError(code, "system words")), Phrase)
    assert os_reason(OSError(errno.EIO, "Input/output error")) == "Input/output error"
    assert os_reason(OSError()) == "OSError"


def test_a_report_under_a_file_is_refused_in_chinese_words(tmp_path: Path) -> None:
    afile = tmp_path / "afile.txt"
    afile.write_text("x", encoding="utf-8")
    with pytest.raises(InputError) as e:
        write_text_atomic(afile / "report.html", "<html></html>")
    with use_language("zh"):
        line = error_text(e.value)
    assert line.startswith("无法写入报告") and line.endswith("路径中有一段是文件而不是文件夹"), line
    assert not (afile / "report.html").exists()
