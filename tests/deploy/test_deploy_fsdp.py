"""FSDP (zero3) in the generated train.py, hard-preempted: one of its 2 CPU ranks is SIGKILLed after
a periodic checkpoint (nothing is saved at the kill), the run resumes from that checkpoint and ends
bit-identical to an uninterrupted DDP run. Marked slow: three torchrun launches."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from deploy_helpers import FIXTURES
from torchrun_helpers import finish, latest_step, launch, one_rank, wait_for_checkpoint_after

from gpuplan.deploy import GenerateOptions, LaunchSpec, generate, write_files

STEPS = 8
CKPT_EVERY = ["--ckpt-every-steps", "2"]


def _job(out: Path, parallelism: str) -> Path:
    spec = LaunchSpec.from_workload(FIXTURES / "train.yaml", count=2).model_copy(
        update={"parallelism": parallelism}
    )
    write_files(generate(spec, "torchrun", GenerateOptions(steps=STEPS)), out)
    return out


@pytest.mark.slow
def test_fsdp_resumes_after_a_hard_kill_bit_identical_to_ddp(tmp_path: Path) -> None:
    ddp, fsdp = _job(tmp_path / "ddp", "ddp"), _job(tmp_path / "fsdp", "zero3")
    assert 'PARALLELISM = "zero3"' in (fsdp / "train.py").read_text()
    reference = launch(ddp, "--ckpt-dir", "ck", *CKPT_EVERY, "--result-file", "r.json")
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
    rc, out = finish(reference)
    assert rc == 0, out[-3000:]
    assert json.loads((fsdp / "r.json").read_text()) == json.loads((ddp / "r.json").read_text())
