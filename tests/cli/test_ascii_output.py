"""A terminal or pipe that cannot encode every character (``PYTHONIOENCODING=ascii``, a latin-1
locale): the command writes what it cannot encode escaped, as ``\\uXXXX``; it had stopped with a
UnicodeEncodeError traceback. A ``--json`` document stays JSON and reads to the same text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def _gpuplan(db: Path, encoding: str, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI on ``db``, a seeded copy: each test had seeded a catalog of its own first, seconds
    of its time, and seeding writes nothing to the streams these tests read."""
    env = {**os.environ, "PYTHONIOENCODING": encoding, "GPUPLAN_DB": str(db)}
    cmd = [sys.executable, "-c", "from gpuplan.cli import main; main()", *args]
    # read as the stream wrote it: latin-1 writes × and ¥ as their own bytes
    return subprocess.run(cmd, capture_output=True, env=env, timeout=120, check=False, encoding=encoding)


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_a_json_document_on_a_narrow_stream_is_the_same_document(fresh_catalog: Path, encoding: str) -> None:
    args = ("gpus", "--json", "--lang", "zh")
    wide = _gpuplan(fresh_catalog, "utf-8", *args)
    narrow = _gpuplan(fresh_catalog, encoding, *args)
    assert wide.returncode == narrow.returncode == 0, narrow.stderr[-2000:]
    assert narrow.stdout.isascii() if encoding == "ascii" else True
    assert json.loads(narrow.stdout) == json.loads(wide.stdout)


def test_a_table_on_an_ascii_stream_is_written_escaped(fresh_catalog: Path) -> None:
    run = _gpuplan(fresh_catalog, "ascii", "gpus", "--lang", "zh")
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr[-2000:]
    assert "\\u663e\\u5b58" in run.stdout  # 显存, the memory column's header
