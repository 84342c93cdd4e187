"""Files the user names (--out) are written whole or not at all: an interrupted or killed write
leaves the previous file, never half of one; a link, a device or a pipe at the target is refused."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import stat
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


def test_a_link_a_device_or_a_pipe_at_the_target_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    # The rename put a plain file in their place: --out /dev/null run as root replaced the
    # system's /dev/null, and a link was swapped for a file. Nothing is written through either.
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("not yours")
    link = tmp_path / "report.html"
    link.symlink_to(elsewhere)
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    targets = [(link, "a link"), (pipe, "a pipe")]
    null = tmp_path / "null"  # a /dev/null of the test's own (never the system's)
    with contextlib.suppress(PermissionError):
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        targets.append((null, "a device"))
    for target, kind in targets:
        with pytest.raises(InputError) as e:
            write_text_atomic(target, "<html>")
        assert f"it is {kind}" in str(e.value) and "\n" not in str(e.value)
    assert link.is_symlink() and elsewhere.read_text() == "not yours" and pipe.is_fifo()
    assert all(not t.is_file() or t.is_symlink() for t, _kind in targets)
    assert {p.name for p in tmp_path.iterdir()} <= {"elsewhere.txt", "pipe", "report.html", "null"}


def test_a_file_written_again_keeps_its_permissions(tmp_path: Path) -> None:
    private = tmp_path / "prices.csv"
    private.write_text("old")
    private.chmod(0o600)
    write_text_atomic(private, "new")
    assert private.read_text() == "new" and (private.stat().st_mode & 0o777) == 0o600
    fresh = tmp_path / "new.csv"
    write_text_atomic(fresh, "x")
    assert (fresh.stat().st_mode & 0o777) == 0o666 & ~_umask()


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


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
    while tried < 4 or (landed < 2 and tried < 10):
        proc = subprocess.Popen([*cmd, "--seed", "0", "--out", str(out)], stderr=subprocess.DEVNULL)
        # The timed first run was cold (imports, caches); warm runs are quicker, so kill early
        # enough in each to land while it writes, even on a loaded machine; a run that finished
        # first (the machine's load fell) halves the wait of the next.
        time.sleep(rng.uniform(0.15, 0.6) * took)
        running = proc.poll() is None
        landed += running
        took *= 1.0 if running else 0.5
        proc.send_signal(signal.SIGKILL)
        proc.wait(60)
        tried += 1
        requests = read_trace_csv(out).requests
        lost += requests not in (2, whole)
        assert requests in (2, whole)  # the previous file, or the new one whole
        out.write_text("# SYNTHETIC previous trace\ntimestamp\n0\n1\n")
    record("kill -9 during simulate trace --out", tried, tried - lost, lost, killed_mid_run=landed)
    assert landed >= 2


_EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
_MEASURED = Path(__file__).resolve().parents[1] / "machine" / "fixtures" / "measure" / "gpt2-lora.yaml"


@pytest.mark.parametrize(
    ("args", "out"),
    [
        (["plan", str(_EXAMPLES / "llm-inference-service.yaml")], "newdir/rep.md"),
        (["plan", str(_EXAMPLES / "llm-inference-service.yaml")], "newdir/rep.html"),
        (["tco", str(_EXAMPLES / "tco" / "reserved-plus-spot.yaml")], "newdir/tco.html"),
        (
            ["simulate", "autoscale", str(_EXAMPLES / "llm-inference-service.yaml"), "--gpu", "L4"],
            "newdir/day.html",
        ),
        (
            ["simulate", "share", str(_EXAMPLES / "simulate" / "notebooks.yaml"), "--price", "2"],
            "newdir/s.html",
        ),
        (["measure", str(_MEASURED), "--device", "cpu"], "newdir/rec.json"),
    ],
)
def test_an_out_in_a_missing_folder_is_refused_before_any_work_naming_the_path_given(
    args: list[str],
    out: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # was: `plan W.yaml --out newdir/rep.md` planned, then failed on "newdir/rep.svg", a path the
    # user never typed; tco and the simulations solved the whole problem before failing
    import gpuplan.catalog
    import gpuplan.cli.measure_cmds
    from one_line import refused

    def no_work(*_args: object, **_kw: object) -> None:
        raise AssertionError("the work began before --out was checked")

    monkeypatch.setattr(gpuplan.catalog, "open_store", no_work)
    monkeypatch.setattr(gpuplan.cli.measure_cmds, "_measure", no_work)
    path = tmp_path / out
    line = refused([*args, "--out", str(path)], capsys)
    assert line.endswith(f"{path}: its folder is not there"), line
    assert not (tmp_path / "newdir").exists()
