"""The generated train.py survives a spot interruption: 2 CPU processes (gloo) under torchrun are
sent SIGTERM after a checkpoint exists, checkpoint at the next step and exit, resume with the same
command, and finish with bit-identical weights and the same loss as a run never interrupted.

The uninterrupted reference run goes through the *multi-node* launch.sh (2 nodes x 1 process on
localhost, c10d rendezvous), so the same test also proves that path and that it computes exactly
what the single-node path does. (A hard kill, SIGKILL of one rank, is rehearsed in
test_deploy_fsdp.py.)"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from deploy_helpers import FIXTURES
from torchrun_helpers import finish, free_port, latest_step, launch, wait_for_checkpoint_after

from gpuplan.deploy import GenerateOptions, LaunchSpec, generate, write_files

STEPS = 18
# 64 synthetic samples, 2 ranks x batch 4: 8 micro-batches per rank per epoch, so the 18 steps
# cross two epoch boundaries and the sampler's epoch and position both have to be restored.
CKPT_EVERY = ["--ckpt-every-steps", "3"]


@pytest.fixture(scope="module")
def job_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One node x 2 ranks in job_dir, 2 nodes x 1 rank in job_dir/multinode: the same job."""
    out = tmp_path_factory.mktemp("torchrun")
    spec = LaunchSpec.from_workload(FIXTURES / "train.yaml", count=2)
    write_files(generate(spec, "torchrun", GenerateOptions(steps=STEPS)), out)
    two_nodes = spec.model_copy(update={"nodes": 2, "gpus_per_node": 1})
    write_files(generate(two_nodes, "torchrun", GenerateOptions(steps=STEPS)), out / "multinode")
    return out


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


def test_sigterm_checkpoint_and_resume_match_an_uninterrupted_run(job_dir: Path) -> None:
    t0 = time.monotonic()
    ckpt = job_dir / "ck-spot"
    # 1. Reference, never interrupted: two "nodes" on localhost (node 0 hosts the rendezvous and
    #    writes the checkpoints and the result), side by side with the run to interrupt.
    multinode, port = job_dir / "multinode", str(free_port())
    reference_nodes = [
        launch(multinode, "--ckpt-dir", "ck-ref", *CKPT_EVERY, "--result-file", "ref.json",
               MASTER_ADDR="127.0.0.1", MASTER_PORT=port, NODE_RANK=str(rank))
        for rank in (0, 1)
    ]  # fmt: skip

    # 2. Spot notice: once the step-3 checkpoint exists, SIGTERM goes to launch.sh's process group;
    #    launch.sh forwards it to torchrun (its own group), which signals the ranks. --throttle-s
    #    keeps the run from finishing first.
    proc = launch(job_dir, "--ckpt-dir", str(ckpt), *CKPT_EVERY, "--throttle-s", "0.25", NPROC_PER_NODE="2")
    wait_for_checkpoint_after(ckpt, 2, proc)
    os.killpg(proc.pid, signal.SIGTERM)
    rc, out = finish(proc)
    assert "SIGTERM: saved" in out, out[-3000:]
    assert rc == 143  # launch.sh's own status: an interrupted run, to be resumed (not torchrun's 1)
    stopped_at = latest_step(ckpt)
    assert 3 <= stopped_at < STEPS
    assert not list(ckpt.glob("*.tmp"))  # the atomic write left no partial file

    for node in reference_nodes:
        rc, out = finish(node)
        assert rc == 0, out[-3000:]
    reference = json.loads((multinode / "ref.json").read_text())
    assert reference["step"] == STEPS

    # 3. Resume with the same command: it picks up the newest checkpoint and finishes.
    rc, out = finish(
        launch(
            job_dir, "--ckpt-dir", str(ckpt), *CKPT_EVERY, "--result-file", "resumed.json", NPROC_PER_NODE="2"
        )
    )
    assert rc == 0, out[-3000:]
    assert f"resumed from step {stopped_at}" in out
    resumed = json.loads((job_dir / "resumed.json").read_text())
    assert resumed == reference  # same final loss, bit-identical weights (SHA-256 of every tensor)
    elapsed = time.monotonic() - t0
    assert elapsed < 180, f"kill-and-resume took {elapsed:.0f} s"
