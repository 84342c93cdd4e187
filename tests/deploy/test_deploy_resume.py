"""The generated train.py survives a spot interruption: 2 CPU processes (gloo) under torchrun are
hard-killed (SIGKILL of one rank) after a periodic checkpoint, resumed, then sent SIGTERM (checkpoint
at the next step and exit), resumed again, and finish with bit-identical weights and the same loss
as a run that was never interrupted.

The uninterrupted reference run goes through the *multi-node* launch.sh (2 nodes x 1 process on
localhost, c10d rendezvous), so the same test also proves that path and that it computes exactly
what the single-node path does."""

from __future__ import annotations

import json
import os
import signal
import socket
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
    """One node x 2 ranks in job_dir, 2 nodes x 1 rank in job_dir/multinode: the same job."""
    out = tmp_path_factory.mktemp("torchrun")
    spec = LaunchSpec.from_workload(FIXTURES / "train.yaml", count=2)
    write_files(generate(spec, "torchrun", GenerateOptions(steps=STEPS)), out)
    two_nodes = spec.model_copy(update={"nodes": 2, "gpus_per_node": 1})
    write_files(generate(two_nodes, "torchrun", GenerateOptions(steps=STEPS)), out / "multinode")
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _launch(job_dir: Path, ckpt: str, *extra: str, **env_vars: str) -> subprocess.Popen[str]:
    """launch.sh as a user runs it, with this venv's Python (torch.distributed.run)."""
    # One intra-op thread everywhere: torchrun sets it only for several ranks per node, and a
    # different thread count changes float summation order (same loss, different last bits).
    env = {**os.environ, "PYTHON": sys.executable, "OMP_NUM_THREADS": "1", **env_vars}
    return subprocess.Popen(
        ["bash", str(job_dir / "launch.sh"), "--ckpt-dir", str(ckpt), *TRAIN_ARGS, *extra],
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


def test_launch_scripts_are_valid_bash(job_dir: Path) -> None:
    for d in (job_dir, job_dir / "multinode"):
        subprocess.run(["bash", "-n", str(d / "launch.sh")], check=True)
    single = (job_dir / "launch.sh").read_text()
    assert "--standalone" in single and 'NPROC_PER_NODE="${NPROC_PER_NODE:-2}"' in single
    multi = (job_dir / "multinode" / "launch.sh").read_text()
    for flag in (
        "--nnodes",
        "--node-rank",
        "--rdzv-backend c10d",
        '--rdzv-endpoint "$MASTER_ADDR:$MASTER_PORT"',
    ):
        assert flag in multi


def test_multinode_launch_refuses_to_start_without_master_addr(job_dir: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("MASTER_ADDR", "NODE_RANK")}
    r = subprocess.run(
        ["bash", str(job_dir / "multinode" / "launch.sh")], env=env, capture_output=True, text=True
    )
    assert r.returncode != 0 and "set MASTER_ADDR" in r.stderr


def _latest_step(ckpt: Path) -> int:
    saved = sorted(p.name for p in ckpt.glob("step_*.pt"))
    return int(saved[-1][5:13]) if saved else 0


def _wait_for_checkpoint_after(ckpt: Path, step: int, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 90
    while _latest_step(ckpt) <= step:
        assert proc.poll() is None, "the run ended before the checkpoint this test waits for"
        assert time.monotonic() < deadline, f"no checkpoint after step {step} within 90 s"
        time.sleep(0.05)


def _one_rank(torchrun_pid: int) -> int:
    """The pid of one worker process of the torchrun agent (its children)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == torchrun_pid:  # field 4 of /proc/PID/stat: the parent pid
            return int(stat.parent.name)
    raise AssertionError("torchrun has no worker processes")


def test_preempted_runs_resume_to_the_same_weights_as_an_uninterrupted_run(job_dir: Path) -> None:
    t0 = time.monotonic()
    ckpt = job_dir / "ck-spot"
    # 1. Reference, never interrupted: two "nodes" on localhost (node 0 hosts the rendezvous and
    #    writes the checkpoints and the result), side by side with the runs to interrupt.
    multinode, port = job_dir / "multinode", str(_free_port())
    reference_nodes = [
        _launch(multinode, "ck-ref", "--result-file", "ref.json", MASTER_ADDR="127.0.0.1", MASTER_PORT=port,
                NODE_RANK=str(rank))
        for rank in (0, 1)
    ]  # fmt: skip

    # 2. Hard preemption: SIGKILL one rank once the step-3 checkpoint exists. Nothing is saved;
    #    the periodic checkpoint is all that survives. --throttle-s keeps each interrupted run
    #    from finishing before its signal arrives.
    proc = _launch(job_dir, "ck-spot", "--throttle-s", "0.25", NPROC_PER_NODE="2")
    _wait_for_checkpoint_after(ckpt, 2, proc)
    os.kill(_one_rank(proc.pid), signal.SIGKILL)
    rc, out = _finish(proc)
    assert rc != 0 and "SIGTERM: saved" not in out
    killed_at = _latest_step(ckpt)

    # 3. Spot notice: the same command resumes; once it has written a newer checkpoint, SIGTERM
    #    goes to torchrun and both ranks at once, as a node shutdown does.
    proc = _launch(job_dir, "ck-spot", "--throttle-s", "0.25", NPROC_PER_NODE="2")
    _wait_for_checkpoint_after(ckpt, killed_at, proc)
    os.killpg(proc.pid, signal.SIGTERM)
    rc, out = _finish(proc)
    assert f"resumed from step {killed_at}" in out, out[-3000:]
    assert "SIGTERM: saved" in out, out[-3000:]
    assert rc != 0  # an interrupted run must not look finished to a scheduler
    stopped_at = _latest_step(ckpt)
    assert killed_at < stopped_at < STEPS
    assert not list(ckpt.glob("*.tmp"))  # the atomic write left no partial file

    for node in reference_nodes:
        rc, out = _finish(node)
        assert rc == 0, out[-3000:]
    reference = json.loads((multinode / "ref.json").read_text())
    assert reference["step"] == STEPS

    # 4. Resume once more with the same command: it finishes from the SIGTERM checkpoint.
    rc, out = _finish(_launch(job_dir, "ck-spot", "--result-file", "resumed.json", NPROC_PER_NODE="2"))
    assert rc == 0, out[-3000:]
    assert f"resumed from step {stopped_at}" in out
    resumed = json.loads((job_dir / "resumed.json").read_text())
    assert resumed == reference  # same final loss, bit-identical weights (SHA-256 of every tensor)
    elapsed = time.monotonic() - t0
    assert elapsed < 120, f"kill-and-resume took {elapsed:.0f} s"
