"""Run ``gpuplan …`` in this process through its console entry point (``main``), as a user would:
what it writes on stderr and its exit code, for tests that a refusal is one line, not a traceback."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import pytest

from gpuplan.cli import main


def refused(args: Sequence[str], capsys: pytest.CaptureFixture[str], *, code: int = 1) -> str:
    """The one line ``gpuplan ARGS`` writes on stderr when it exits with ``code`` (asserted)."""
    capsys.readouterr()
    old = sys.argv
    sys.argv = ["gpuplan", *args]
    try:
        with pytest.raises(SystemExit) as info:
            main()
    finally:
        sys.argv = old
    err = capsys.readouterr().err
    assert info.value.code == code, (info.value.code, err[-2000:])
    assert err.count("\n") == 1 and "Traceback" not in err, err[-2000:]
    return err.rstrip("\n")
