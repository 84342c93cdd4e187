"""The generated serve.py answers its readiness probe and predictions on a CPU (stand-in model)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from deploy_helpers import refused_without_gpu, serve_workload

from gpuplan.deploy import LaunchSpec, generate, write_files


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_py_answers_healthz_and_predict(tmp_path: Path) -> None:
    # bert-base: an encoder, which no LLM engine serves: serve.py
    spec = LaunchSpec.from_workload(serve_workload(tmp_path, model="bert-base"), gpu="L4")
    out = tmp_path / "deploy"
    write_files(generate(spec, "docker"), out)  # the inference image: train.py + serve.py
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "serve.py",
            "--port",
            str(port),
            "--width",
            "16",
            "--depth",
            "1",
            "--ckpt-dir",
            "none",
            "--device",
            "cpu",  # on purpose: without it, serve.py refuses a machine where CUDA sees no GPU
        ],
        cwd=out,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=2) as r:
                    assert r.status == 200
                    break
            except (urllib.error.URLError, ConnectionError):
                assert proc.poll() is None, proc.communicate()[0]
                assert time.monotonic() < deadline, "serve.py not ready after 60 s"
                time.sleep(0.2)
        req = urllib.request.Request(
            f"{base}/v1/predict",
            data=json.dumps({"inputs": [[1, 2, 3, 4], [5, 6, 7, 8]]}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=10) as r:
            outputs = json.loads(r.read())["outputs"]
        assert len(outputs) == 2 and len(outputs[0]) == 4  # a next-token id per position
        bad = urllib.request.Request(f"{base}/v1/predict", data=b'{"nope": 1}')
        try:
            urllib.request.urlopen(bad, timeout=10)
            raise AssertionError("a malformed request must fail")
        except urllib.error.HTTPError as e:
            assert e.code == 400
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stdout:
            proc.stdout.close()


def test_serve_py_refuses_a_machine_without_a_visible_gpu_unless_asked_for_the_cpu(tmp_path: Path) -> None:
    # serve.py took the CPU silently where CUDA saw no GPU (a GPU node whose container cannot see
    # its GPUs): the service answered at CPU speed, billed at the GPU's price. It now exits before
    # the model loads or the port opens; test_serve_py_answers_healthz_and_predict serves with
    # --device cpu.
    spec = LaunchSpec.from_workload(serve_workload(tmp_path, model="bert-base"), gpu="L4")
    out = tmp_path / "deploy"
    write_files(generate(spec, "docker"), out)
    args = ["--port", str(_free_port()), "--width", "16", "--depth", "1", "--ckpt-dir", "none"]
    refused_without_gpu(out, "serve.py", *args, doing="serve")
