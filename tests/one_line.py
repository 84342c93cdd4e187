"""Run ``gpuplan …`` in this process through its console entry point (``main``), as a user would:
what it writes on stderr and its exit code, for tests that a refusal is one line, not a traceback."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence

import pytest

from gpuplan.cli import main


def _run(args: Sequence[str], capsys: pytest.CaptureFixture[str]) -> tuple[object, str, str]:
    """``gpuplan ARGS``: its exit status (``SystemExit``'s code; 0 where ``main`` returns), stdout
    and stderr."""
    capsys.readouterr()
    old = sys.argv
    sys.argv = ["gpuplan", *args]
    code: object = 0
    try:
        main()
    except SystemExit as e:
        code = e.code
    finally:
        sys.argv = old
    said = capsys.readouterr()
    return code, said.out, said.err


def ran(args: Sequence[str], capsys: pytest.CaptureFixture[str]) -> subprocess.CompletedProcess[str]:
    """``gpuplan ARGS`` as ``subprocess.run(..., capture_output=True, text=True)`` gives it: its exit
    status (0 where ``main`` returns or exits with none), stdout and stderr, for tests written
    against a process's answer that need no process of their own."""
    status, out, err = _run(args, capsys)
    return subprocess.CompletedProcess(["gpuplan", *args], 0 if status is None else int(status), out, err)  # type: ignore[call-overload]


def refused(args: Sequence[str], capsys: pytest.CaptureFixture[str], *, code: int = 1) -> str:
    """The one line ``gpuplan ARGS`` writes on stderr when it exits with ``code`` (asserted)."""
    status, _, err = _run(args, capsys)
    assert status == code, (status, err[-2000:])
    assert err.count("\n") == 1 and "Traceback" not in err, err[-2000:]
    return err.rstrip("\n")


def answered(args: Sequence[str], capsys: pytest.CaptureFixture[str]) -> str:
    """What ``gpuplan ARGS`` writes on stdout, where it succeeds (exit status 0, asserted), for tests
    of a command's output rather than of the process it runs in."""
    status, out, err = _run(args, capsys)
    assert status in (0, None), (status, err[-2000:])
    return out
