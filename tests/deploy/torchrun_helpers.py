"""Running generated launch directories under torchrun from tests: start, signal, wait."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

#: A tiny stand-in transformer (width 16, one layer; seq 16, batch 4 from fixtures/train.yaml), on the
#: CPU on purpose (without --device cpu, train.py refuses a machine where CUDA sees no GPU).
TINY = ["--width", "16", "--depth", "1", "--num-workers", "0", "--log-every", "1", "--device", "cpu"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def launch(job_dir: Path, *args: str, **env_vars: str) -> subprocess.Popen[str]:
    """launch.sh as a user runs it, with this venv's Python (torch.distributed.run)."""
    # One intra-op thread everywhere: torchrun sets it only for several ranks per node, and a
    # different thread count changes float summation order (same loss, different last bits).
    env = {**os.environ, "PYTHON": sys.executable, "OMP_NUM_THREADS": "1", **env_vars}
    proc = subprocess.Popen(
        ["bash", str(job_dir / "launch.sh"), *TINY, *args],
        cwd=job_dir,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group, so the test can signal torchrun and ranks
    )
    _launched.append(proc)
    return proc


#: Every run `launch` started in this worker; `reap` ends and closes those a test left behind.
_launched: list[subprocess.Popen[str]] = []


def unreaped(proc: subprocess.Popen[str]) -> subprocess.Popen[str]:
    """``proc`` left out of `reap`: a run a module fixture started for several tests, which the
    fixture itself ends."""
    _launched.remove(proc)
    return proc


def reap() -> None:
    """Kill what is still running and close every pipe: a test that failed between `launch` and
    `finish` must not leave a live run, or an open pipe whose ResourceWarning fails a later test."""
    while _launched:
        proc = _launched.pop()
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()


def finish(proc: subprocess.Popen[str], timeout: float = 180) -> tuple[int, str]:
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, _ = proc.communicate()
        pytest.fail(f"training did not finish in {timeout} s:\n{out[-3000:]}")
    return proc.returncode, out


def latest_step(ckpt: Path) -> int:
    """The newest complete checkpoint's step: a full one's file, or a sharded one's folder."""
    saved = sorted(p.name for p in ckpt.glob("step_*") if not p.name.endswith(".tmp"))
    return int(saved[-1][5:13]) if saved else 0


def wait_for_checkpoint_after(ckpt: Path, step: int, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 120
    while latest_step(ckpt) <= step:
        assert proc.poll() is None, "the run ended before the checkpoint this test waits for"
        assert time.monotonic() < deadline, f"no checkpoint after step {step} within 120 s"
        time.sleep(0.05)


def _children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:  # field 4 of /proc/PID/stat: the parent pid
            out.append(int(stat.parent.name))
    return out


def one_rank(launcher_pid: int) -> int:
    """The pid of one worker process below launch.sh (bash -> torchrun agent -> ranks)."""
    pending = _children(launcher_pid)
    while pending:
        pid = pending.pop(0)
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"torch.distributed.run" in cmdline:
            pending.extend(_children(pid))
        elif b"train.py" in cmdline:
            return pid
    raise AssertionError("torchrun has no worker processes")
