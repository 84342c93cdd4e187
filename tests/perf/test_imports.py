"""The perf layer is arithmetic: importing it (and estimating) must not import torch."""

from __future__ import annotations

import subprocess
import sys


def test_import_perf_does_not_import_torch() -> None:
    code = (
        "import sys, gpuplan.perf, gpuplan.report.estimate, gpuplan.cli.estimate_cmds\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr


def test_estimating_does_not_import_the_offline_calibration_room() -> None:
    code = (
        "import sys\n"
        "from gpuplan.hardware import get_gpu\n"
        "from gpuplan.perf import estimate, load_calibration\n"
        "from gpuplan.profile.model import MemoryBreakdown, ModelShape, OpRecord, Profile\n"
        "ops = (OpRecord(op='aten.mm', op_class='matmul', phase='forward', dtype='bfloat16', count=1,"
        " flops=1e12, bytes_moved=1e9),)\n"
        "peak = MemoryBreakdown(parameters_bytes=4e9, buffers_bytes=0.0, gradients_bytes=4e9,"
        " optimizer_state_bytes=8e9, activations_bytes=1e9, temporaries_bytes=0.0)\n"
        "p = Profile(key='k', workload_name='w', task='train', precision='amp-bf16', batch_size=8,"
        " seq_len=None, params=10**9, trainable_params=10**9, flops_per_step=1e12, forward_flops=1e12,"
        " ops=ops, peak=peak, shape=ModelShape(family='custom'))\n"
        "assert estimate(p, get_gpu('A100-SXM4-80GB'), count=16, parallelism='fsdp').step_time_s > 0\n"
        "load_calibration()\n"
        "assert not [m for m in sys.modules if m.startswith('gpuplan.calibration')], 'calibration imported'\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr


def test_every_room_above_the_fit_is_forbidden_to_import_it() -> None:
    # The layers contract lets a room import any room below it, and the offline fit sits above
    # perf; only the forbidden contract keeps the run-time rooms (the faces included) out of it.
    from pathlib import Path

    import pytest

    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    config = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text("utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (layers,) = (c["layers"] for c in contracts if c["type"] == "layers")
    above = layers[: layers.index("calibration")]
    rooms = {f"gpuplan.{name.strip(' ()')}" for layer in above for name in layer.split("|")}
    (forbidden,) = (c for c in contracts if c.get("forbidden_modules") == ["gpuplan.calibration"])
    assert sorted(rooms - set(forbidden["source_modules"])) == []
