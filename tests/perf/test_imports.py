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
