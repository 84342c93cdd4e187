"""Trace cost and traced figures for the reference workloads of ESTIMATION_NOTES.md.

    .venv/bin/python benchmarks/bench_trace.py                # every case
    .venv/bin/python benchmarks/bench_trace.py gpt2 llama-7b-lora

Each case runs in its own process so that its peak RSS (``resource.getrusage``) is its own and
includes importing torch. Targets (DESIGN.md): Llama-7B < 30 s and < 2 GB RSS; ResNet-50 < 5 s.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from typing import Any

GiB = 2**30

#: name → (workload, reference TFLOP, reference peak GiB) from ESTIMATION_NOTES.md §1.2 and §1.7.
CASES: dict[str, tuple[dict[str, Any], float | None, float | None]] = {
    "resnet50": (
        {
            "model": {"preset": "resnet50"},
            "inputs": {"batch_size": 256, "image_size": 224},
            "optimizer": "sgd",
        },
        6.221,
        20.87,
    ),
    "gpt2": (
        {"model": {"preset": "gpt2"}, "inputs": {"batch_size": 8, "seq_len": 1024}, "optimizer": "adamw"},
        7.154,
        10.55,
    ),
    "gpt2-amp-bf16": (
        {
            "model": {"preset": "gpt2"},
            "inputs": {"batch_size": 8, "seq_len": 1024},
            "precision": "amp-bf16",
            "optimizer": "adamw",
        },
        7.154,
        8.80,
    ),
    "llama-7b-lora": (
        {
            "task": "finetune",
            "model": {"preset": "llama-7b", "lora": {"rank": 16}},
            "inputs": {"batch_size": 1, "seq_len": 2048},
            "precision": "bf16",
        },
        61.7,
        22.9,
    ),
    "llama-7b-full-fused": (
        {
            "model": {"preset": "llama-7b"},
            "inputs": {"batch_size": 1, "seq_len": 2048},
            "precision": "amp-bf16",
            "optimizer": "adamw-fused",
        },
        88.9,
        102.3,
    ),
    # The same step under torch.compile: the block and loss partitions (profile/compiled.py) on top.
    "llama-7b-full-fused-compiled": (
        {
            "model": {"preset": "llama-7b"},
            "inputs": {"batch_size": 1, "seq_len": 2048},
            "precision": "amp-bf16",
            "optimizer": "adamw-fused",
            "compile": True,
        },
        88.9,
        None,
    ),
    "llama-8b-infer": (
        {
            "task": "infer",
            "model": {"preset": "llama-8b"},
            "inputs": {"batch_size": 8, "seq_len": 4096},
            "precision": "bf16",
        },
        None,
        None,
    ),
}


def run_one(name: str) -> dict[str, Any]:
    """Trace one case in this process; return its figures."""
    started = time.perf_counter()
    from gpuplan.profile import trace
    from gpuplan.workload import Workload

    spec, ref_tflop, ref_gib = CASES[name]
    imported = time.perf_counter()
    p = trace(Workload.from_dict({"name": name, **spec}))
    done = time.perf_counter()
    peak = p.peak
    return {
        "case": name,
        "trace_s": round(p.trace_seconds, 2),
        "wall_s": round(done - started, 2),
        "import_s": round(imported - started, 2),
        "rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "tflop": round(p.flops_per_step / 1e12, 3),
        "ref_tflop": ref_tflop,
        "peak_gib": round(peak.total_bytes / GiB, 2),
        "ref_gib": ref_gib,
        "breakdown_gib": {
            "param": round(peak.parameters_bytes / GiB, 3),
            "grad": round(peak.gradients_bytes / GiB, 3),
            "opt": round(peak.optimizer_state_bytes / GiB, 3),
            "act": round(peak.activations_bytes / GiB, 3),
            "temp": round(peak.temporaries_bytes / GiB, 3),
        },
    }


def main(argv: list[str]) -> None:
    if argv[:1] == ["--one"]:
        print(json.dumps(run_one(argv[1])))
        return
    names = argv or list(CASES)
    print(
        f"{'case':22s} {'trace s':>8s} {'wall s':>7s} {'RSS MB':>7s} {'TFLOP':>8s} {'ref':>6s} "
        f"{'peak GiB':>9s} {'ref':>6s}"
    )
    for name in names:
        out = subprocess.run(
            [sys.executable, __file__, "--one", name], capture_output=True, text=True, check=True
        )
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(
            f"{r['case']:22s} {r['trace_s']:8.2f} {r['wall_s']:7.2f} {r['rss_mb']:7d} {r['tflop']:8.3f} "
            f"{r['ref_tflop'] or '-':>6} {r['peak_gib']:9.2f} {r['ref_gib'] or '-':>6}  {r['breakdown_gib']}"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
