"""train.py trains the user's own model through gpuplan's entry-point protocol, without gpuplan."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from deploy_helpers import FIXTURES

from gpuplan.deploy import GenerateOptions, LaunchSpec, generate, write_files


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_python_entry_point_model_trains_with_its_own_inputs_and_loss(tmp_path: Path) -> None:
    spec = LaunchSpec.from_workload(FIXTURES / "userproj" / "job.yaml")
    assert spec.model_entry_point == "tinyuser.model:build"
    write_files(generate(spec, "torchrun", GenerateOptions(steps=4)), tmp_path)
    # As a user runs it on one machine without torchrun: a process group of one.
    env = {
        **os.environ,
        "PYTHONPATH": str(FIXTURES / "userproj"),
        "MASTER_PORT": str(_free_port()),
        "OMP_NUM_THREADS": "1",
        "TINYUSER_ATEXIT_FILE": str(tmp_path / "atexit.txt"),
    }
    r = subprocess.run(
        [
            sys.executable,
            "train.py",
            "--num-workers",
            "0",
            "--ckpt-every-steps",
            "2",
            "--result-file",
            "r.json",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    # The user's exit handler still runs before train.py leaves without gloo's teardown.
    assert (tmp_path / "atexit.txt").read_text() == "flushed\n"
    result = json.loads((tmp_path / "r.json").read_text())
    # The user's loss_fn on a 64-token vocabulary starts near ln(64) = 4.16.
    assert result["step"] == 4 and 3.0 < result["loss"] < 5.0
    assert sorted(p.name for p in (tmp_path / "checkpoints").glob("step_*.pt")) == [
        "step_00000002.pt",
        "step_00000004.pt",
    ]
