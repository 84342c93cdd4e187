"""Files the user names (--out) are written whole or not at all: an interrupted or killed write
leaves the previous file, never half of one, and a link at the target is replaced, not followed."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fault_helpers import record
from gpuplan.cli._files import write_text_atomic
from gpuplan.errors import InputError


def test_an_interrupted_write_leaves_the_previous_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "report.html"
    out.write_text("previous report")

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt  # Ctrl-C after the bytes were handed to the OS, before the rename

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_text_atomic(out, "new report " * 1000)
    assert out.read_text() == "previous report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]


def test_a_link_at_the_target_is_replaced_not_written_through(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("not yours")
    out = tmp_path / "report.html"
    out.symlink_to(elsewhere)
    write_text_atomic(out, "<html>")
    assert elsewhere.read_text() == "not yours"
    assert not out.is_symlink() and out.read_text() == "<html>"


@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("missing/report.html", "folder is not there"),
        (".", "it is a folder"),
        ("/proc/x.html", "cannot write"),
    ],
)
def test_an_unwritable_target_is_one_line(target: str, words: str, tmp_path: Path) -> None:
    path = Path(target) if target.startswith("/") else tmp_path / target
    with pytest.raises(InputError) as e:
        write_text_atomic(path, "x")
    assert words in str(e.value) and "\n" not in str(e.value)


def test_kill_9_while_simulate_trace_writes_leaves_the_old_trace_or_the_whole_new_one(tmp_path: Path) -> None:
    from gpuplan.simulate import read_trace_csv

    out = tmp_path / "load.csv"
    cmd = [sys.executable, "-m", "gpuplan", "simulate", "trace", "bursty", "--rate", "40", "--hours", "2"]
    t0 = time.monotonic()
    subprocess.run([*cmd, "--out", str(out)], check=True, capture_output=True, timeout=300)
    took = time.monotonic() - t0
    whole = read_trace_csv(out).requests
    out.write_text("# SYNTHETIC previous trace\ntimestamp\n0\n1\n")
    rng = random.Random(5)
    tried = landed = lost = 0
    for _ in range(4):
        proc = subprocess.Popen([*cmd, "--seed", "0", "--out", str(out)], stderr=subprocess.DEVNULL)
        # The timed first run was cold (imports, caches); warm runs are quicker, so kill early
        # enough in each to land while it writes, even on a loaded machine.
        time.sleep(rng.uniform(0.15, 0.6) * took)
        landed += proc.poll() is None
        proc.send_signal(signal.SIGKILL)
        proc.wait(60)
        tried += 1
        requests = read_trace_csv(out).requests
        lost += requests not in (2, whole)
        assert requests in (2, whole)  # the previous file, or the new one whole
        out.write_text("# SYNTHETIC previous trace\ntimestamp\n0\n1\n")
    record("kill -9 during simulate trace --out", tried, tried - lost, lost, killed_mid_run=landed)
    assert landed >= 2
