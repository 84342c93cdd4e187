"""What ``gpuplan plan`` changes in its own process for speed is put back: the cycle collector, and
the OpenBLAS thread count numpy is imported with (a process the command starts sees the
environment as it was; a count the user set is kept)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys

from gpuplan.cli.plan_cmds import _cycle_collection_paused

_IMPORT = (
    "import os, sys\n"
    "from gpuplan.cli.plan_cmds import _import_numpy_single_threaded\n"
    "_import_numpy_single_threaded()\n"
    "print('numpy' in sys.modules, os.environ.get('OPENBLAS_NUM_THREADS'))\n"
)


def _numpy_import(env: dict[str, str]) -> str:
    cmd = [sys.executable, "-c", _IMPORT]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    return proc.stdout.strip()


def test_numpy_is_imported_and_the_environment_put_back() -> None:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    assert _numpy_import(env) == "True None"


def test_a_thread_count_the_user_set_is_kept() -> None:
    # numpy is then left to its usual import, with the user's count.
    assert _numpy_import({**os.environ, "OPENBLAS_NUM_THREADS": "3"}) == "False 3"


def test_the_cycle_collector_is_back_on_after_a_plan_even_a_failed_one() -> None:
    assert gc.isenabled()
    try:
        with _cycle_collection_paused():
            assert not gc.isenabled()
            raise RuntimeError("the plan failed")
    except RuntimeError:
        pass
    assert gc.isenabled()
    gc.disable()
    try:
        with _cycle_collection_paused():
            pass
        assert not gc.isenabled()  # off before, off after
    finally:
        gc.enable()
