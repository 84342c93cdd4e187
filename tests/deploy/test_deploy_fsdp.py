"""FSDP (zero3) in the generated train.py: sharded, checkpointed as full state, resumed, and
bit-identical to DDP, on 2 CPU processes under torchrun (gloo)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES
from gpuplan.deploy import GenerateOptions, LaunchSpec, generate, write_files

STEPS = 4
ARGS = ["--width", "16", "--depth", "1", "--num-workers", "0", "--log-every", "1"]


def _job(out: Path, parallelism: str) -> Path:
    spec = LaunchSpec.from_workload(FIXTURES / "train.yaml", count=2).model_copy(
        update={"parallelism": parallelism}
    )
    write_files(generate(spec, "torchrun", GenerateOptions(steps=STEPS)), out)
    return out


def _run(job: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            "--nproc-per-node",
            "2",
            "train.py",
            *ARGS,
            *args,
        ],
        cwd=job,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _ok(proc: subprocess.Popen[str]) -> str:
    out, _ = proc.communicate(timeout=180)
    assert proc.returncode == 0, out[-3000:]
    return out


@pytest.mark.slow
def test_fsdp_checkpoint_resume_matches_ddp(tmp_path: Path) -> None:
    ddp, fsdp = _job(tmp_path / "ddp", "ddp"), _job(tmp_path / "fsdp", "zero3")
    assert 'PARALLELISM = "zero3"' in (fsdp / "train.py").read_text()
    reference = _run(ddp, "--result-file", "r.json")
    # FSDP stops after half the steps (a full-state checkpoint at the end), then resumes.
    _ok(_run(fsdp, "--steps", str(STEPS // 2)))
    out = _ok(_run(fsdp, "--result-file", "r.json"))
    assert f"resumed from step {STEPS // 2}" in out
    _ok(reference)
    assert json.loads((fsdp / "r.json").read_text()) == json.loads((ddp / "r.json").read_text())
