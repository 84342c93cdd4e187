"""FSDP (zero3) in the generated train.py, hard-preempted: one of its 2 CPU ranks is SIGKILLed after
a periodic checkpoint (nothing is saved at the kill), the run resumes from that checkpoint and ends
bit-identical to an uninterrupted DDP run. Under parallelism fsdp the checkpoints are sharded
(torch.distributed.checkpoint, a folder of every rank's parts) where every rank sees the folder, and
written whole where not. Marked slow: several torchrun launches each."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from deploy_helpers import FIXTURES
from torchrun_helpers import (
    finish,
    free_port,
    latest_step,
    launch,
    one_rank,
    unreaped,
    wait_for_checkpoint_after,
)

from gpuplan.deploy import GenerateOptions, LaunchSpec, generate, write_files

STEPS = 8
CKPT_EVERY = ["--ckpt-every-steps", "2"]


def _job(out: Path, parallelism: str) -> Path:
    spec = LaunchSpec.from_workload(FIXTURES / "train.yaml", count=2).model_copy(
        update={"parallelism": parallelism}
    )
    write_files(generate(spec, "torchrun", GenerateOptions(steps=STEPS)), out)
    return out


@pytest.fixture(scope="module")
def ddp_result(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[], Any]]:
    """The uninterrupted DDP run both resume tests compare with (the same job, the same arguments),
    launched once for the module when the first of them asks for it; calling the fixture's value
    waits for the run, checks that it succeeded and returns its result file. The run is kept out of
    the per-test reaping so that a test failing while it runs leaves it to the next test; it is
    killed here if still running when the module ends."""
    ddp = _job(tmp_path_factory.mktemp("fsdp-reference") / "ddp", "ddp")
    proc = unreaped(launch(ddp, "--ckpt-dir", "ck", *CKPT_EVERY, "--result-file", "r.json"))
    done: list[tuple[int, str]] = []

    def result() -> Any:
        if not done:
            done.append(finish(proc))
        rc, out = done[0]
        assert rc == 0, out[-3000:]
        return json.loads((ddp / "r.json").read_text())

    yield result
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.communicate(timeout=30)


@pytest.mark.slow
def test_fsdp_resumes_after_a_hard_kill_bit_identical_to_ddp(
    tmp_path: Path, ddp_result: Callable[[], Any]
) -> None:
    fsdp = _job(tmp_path / "fsdp", "zero3")
    assert 'PARALLELISM = "zero3"' in (fsdp / "train.py").read_text()
    ckpt = fsdp / "ck"
    proc = launch(fsdp, "--ckpt-dir", str(ckpt), *CKPT_EVERY, "--throttle-s", "0.3")
    wait_for_checkpoint_after(ckpt, 1, proc)
    os.kill(one_rank(proc.pid), signal.SIGKILL)  # no notice: the periodic checkpoint is all there is
    rc, out = finish(proc)
    assert rc != 0 and "SIGTERM: saved" not in out
    killed_at = latest_step(ckpt)
    assert 2 <= killed_at < STEPS

    rc, out = finish(launch(fsdp, "--ckpt-dir", str(ckpt), *CKPT_EVERY, "--result-file", "r.json"))
    assert rc == 0, out[-3000:]
    assert f"resumed from step {killed_at}" in out
    assert json.loads((fsdp / "r.json").read_text()) == ddp_result()


@pytest.mark.slow
def test_fsdp_checkpoints_sharded_and_resumes_them_bit_identical_and_on_another_rank_count(
    tmp_path: Path, ddp_result: Callable[[], Any]
) -> None:
    # parallelism fsdp: every rank writes its own part with torch.distributed.checkpoint, so no rank
    # holds the full state (which beyond ~10 B parameters no node's memory holds once per rank)
    fsdp = _job(tmp_path / "fsdp", "fsdp")
    ckpt = fsdp / "ck"
    proc = launch(fsdp, "--ckpt-dir", str(ckpt), *CKPT_EVERY, "--throttle-s", "0.3")
    wait_for_checkpoint_after(ckpt, 1, proc)
    os.kill(one_rank(proc.pid), signal.SIGKILL)
    rc, out = finish(proc)
    assert rc != 0
    killed_at = latest_step(ckpt)
    assert 2 <= killed_at < STEPS
    saved = ckpt / f"step_{killed_at:08d}"
    assert saved.is_dir() and not list(ckpt.glob("*.pt"))
    # one part per rank, DCP's index, and rank 0's progress and RNG states
    assert sorted(p.name for p in saved.iterdir()) == [
        ".metadata",
        "__0_0.distcp",
        "__1_0.distcp",
        "train_state.pt",
    ]
    shutil.copytree(ckpt, tmp_path / "ck_copy")

    rc, out = finish(launch(fsdp, "--ckpt-dir", str(ckpt), *CKPT_EVERY, "--result-file", "r.json"))
    assert rc == 0, out[-3000:]
    assert f"resumed from step {killed_at}" in out
    assert (ckpt / f"step_{STEPS:08d}" / ".metadata").is_file()
    assert json.loads((fsdp / "r.json").read_text()) == ddp_result()

    # the 2-rank checkpoint on 1 rank: DCP reshards it (the global batch kept by 2 accumulation steps)
    rc, out = finish(launch(fsdp, "--ckpt-dir", str(tmp_path / "ck_copy"), *CKPT_EVERY, NPROC_PER_NODE="1"))
    assert rc == 0, out[-3000:]
    assert f"resumed from step {killed_at}" in out
    assert (
        f"resuming step {killed_at} of a checkpoint written by 2 ranks on 1 rank: model and optimizer "
        "state are resharded from its parts" in out
    )
    assert f"done: step {STEPS}" in out


@pytest.mark.slow
def test_fsdp_on_nodes_with_a_folder_each_writes_its_checkpoints_whole_and_says_so(tmp_path: Path) -> None:
    # two "nodes" of one rank, each with its own local checkpoint folder: the parts could not be
    # read back together, so rank 0 writes the whole state, as it does under DDP, and says why
    spec = LaunchSpec.from_workload(FIXTURES / "train.yaml", count=1, nodes=2).model_copy(
        update={"parallelism": "fsdp"}
    )
    node_a, node_b = tmp_path / "A", tmp_path / "B"
    for node in (node_a, node_b):
        write_files(generate(spec, "torchrun", GenerateOptions(steps=4)), node)
    port, procs = str(free_port()), []
    for folder, rank in ((node_a, 0), (node_b, 1)):
        args = ["--ckpt-every-steps", "2", "--ckpt-dir", "ck"]
        procs.append(launch(folder, *args, MASTER_ADDR="127.0.0.1", MASTER_PORT=port, NODE_RANK=str(rank)))
        time.sleep(0.5)  # node A's torchrun starts first
    outs = []
    for proc in procs:
        rc, out = finish(proc)
        assert rc == 0, out[-3000:]
        outs.append(out)
    assert "WARNING: rank(s) 1 do not see ck as rank 0 does: the checkpoints are written whole" in outs[0]
    assert sorted(p.name for p in (node_a / "ck").iterdir()) == ["step_00000002.pt", "step_00000004.pt"]
    assert not (node_b / "ck").exists()
