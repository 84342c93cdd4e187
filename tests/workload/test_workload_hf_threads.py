"""Hugging Face configs read from several threads at once, in a process that has not imported
transformers yet (the service's first requests): every one is read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("transformers", reason="HF configs need the hf extra")

_SCRIPT = """
import json, sys, threading
from gpuplan.workload import load_workload
from gpuplan.workload.hf import hf_config

w = load_workload({"name": "x", "task": "train", "model": {"hf_config": sys.argv[1]},
                   "inputs": {"batch_size": 2, "seq_len": 128}, "precision": "bf16"})
errors, start = [], threading.Barrier(6)

def read():
    start.wait()
    try:
        hf_config(w)
    except Exception as e:
        errors.append(str(e))

threads = [threading.Thread(target=read) for _ in range(6)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps(errors))
"""


def test_six_threads_read_a_config_while_transformers_is_first_imported(tmp_path: Path) -> None:
    # Without a lock, 1 to 5 of the 6 got "module 'transformers' has no attribute 'AutoConfig'"
    # (three runs of three, torch 2.13, transformers' lazy module).
    config = tmp_path / "config.json"
    shape = {"hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 30522}
    config.write_text(json.dumps({"model_type": "bert", "intermediate_size": 1024, **shape}))
    for _ in range(2):
        argv = [sys.executable, "-c", _SCRIPT, str(config)]
        run = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=True)
        assert json.loads(run.stdout.strip().splitlines()[-1]) == [], run.stdout
