"""The generated train.py survives a spot interruption: 2 CPU processes (gloo) under torchrun are
sent SIGTERM after a checkpoint exists, checkpoint and exit, resume, and finish with bit-identical
weights and the same loss as a run that was never interrupted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import FIXTURES
from gpuplan.deploy import GenerateOptions, LaunchSpec, generate, write_files

STEPS = 12
# A tiny stand-in transformer (width 16, one layer, seq 16, batch 4) on a 64-sample synthetic set:
# 8 micro-batches per rank per epoch, so the 12 steps cross an epoch boundary and the sampler's
# epoch and position both have to be restored.
TRAIN_ARGS = [
    "--width",
    "16",
    "--depth",
    "1",
    "--num-workers",
    "0",
    "--log-every",
    "1",
    "--ckpt-every-steps",
    "3",
]


@pytest.fixture(scope="module")
def job_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("torchrun")
    spec = LaunchSpec.from_workload(FIXTURES / "train.yaml", count=2)
    write_files(generate(spec, "torchrun", GenerateOptions(steps=STEPS)), out)
    return out


def _launch(job_dir: Path, ckpt: str, *extra: str) -> subprocess.Popen[str]:
    """launch.sh as a user runs it, with this venv's Python (torch.distributed.run) and 2 ranks."""
    env = {**os.environ, "PYTHON": sys.executable, "NPROC_PER_NODE": "2"}
    return subprocess.Popen(
        ["bash", str(job_dir / "launch.sh"), "--ckpt-dir", ckpt, *TRAIN_ARGS, *extra],
        cwd=job_dir,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group, so the test can signal torchrun and ranks
    )


def _finish(proc: subprocess.Popen[str], timeout: float = 120) -> tuple[int, str]:
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        pytest.fail(f"training did not finish in {timeout} s:\n{out[-3000:]}")
    return proc.returncode, out


def test_launch_script_is_valid_bash(job_dir: Path) -> None:
    subprocess.run(["bash", "-n", str(job_dir / "launch.sh")], check=True)
    text = (job_dir / "launch.sh").read_text()
    assert "--standalone" in text and '--nproc-per-node "$NPROC_PER_NODE"' in text


def test_sigterm_checkpoint_and_resume_match_an_uninterrupted_run(job_dir: Path) -> None:
    t0 = time.monotonic()
    # 1. Reference, never interrupted, and 2. the run to interrupt, side by side to save time.
    reference_run = _launch(job_dir, "ck-ref", "--result-file", "ref.json")
    # --throttle-s keeps the interrupted run from finishing before the signal arrives.
    ckpt = job_dir / "ck-spot"
    proc = _launch(job_dir, "ck-spot", "--throttle-s", "0.25")
    deadline = time.monotonic() + 90
    while not (ckpt / "step_00000003.pt").exists():
        assert proc.poll() is None, "the run ended before its first checkpoint"
        assert time.monotonic() < deadline, "no checkpoint after 90 s"
        time.sleep(0.05)
    # SIGTERM to torchrun and both ranks at once, as a node shutdown does.
    os.killpg(proc.pid, signal.SIGTERM)
    rc, out = _finish(proc)
    assert "SIGTERM: saved" in out, out[-3000:]
    assert rc != 0  # an interrupted run must not look finished to a scheduler
    saved = sorted(p.name for p in ckpt.glob("step_*.pt"))
    stopped_at = int(saved[-1][5:13])
    assert 3 <= stopped_at < STEPS, saved
    assert not list(ckpt.glob("*.tmp"))  # the atomic write left no partial file

    rc, out = _finish(reference_run)
    assert rc == 0, out[-3000:]
    reference = json.loads((job_dir / "ref.json").read_text())
    assert reference["step"] == STEPS

    # 3. Resume with the same command: it picks up the newest checkpoint and finishes.
    rc, out = _finish(_launch(job_dir, "ck-spot", "--result-file", "resumed.json"))
    assert rc == 0, out[-3000:]
    assert f"resumed from step {stopped_at}" in out
    resumed = json.loads((job_dir / "resumed.json").read_text())
    assert resumed == reference  # same final loss, bit-identical weights (SHA-256 of every tensor)
    elapsed = time.monotonic() - t0
    assert elapsed < 120, f"kill-and-resume took {elapsed:.0f} s"
