"""Record real steps and matmuls on a CUDA GPU, for the checks that need one.

    python benchmarks/device_recordings.py --out DIR [--deadline-s 420] [--device cuda]

Writes, as it goes (a run stopped at any point keeps what it finished):

- ``DIR/recordings.jsonl``: one line per workload — ``kind`` (``case``: a one-GPU calibration
  row's workload; ``pair``: a transfer pair's workload; ``example``: a file of ``examples/``),
  ``label``, the workload spec, and the recording ``gpuplan measure`` makes of it
  (``machine/measure.py``'s document, as ``measure --out`` writes it) or the error that stopped it.
- ``DIR/gemm.csv``: BF16 matmuls timed through ``torch.matmul`` (cuBLAS) on this GPU,
  ``b,m,n,k,layout,median_s,flop_per_s``: first GPT-2's output layer at its vocabulary of 50,257
  (leading dimensions not a multiple of 8) and padded to 50,304, in the three GEMMs of a training
  step (``layout`` ``nt`` the forward ``x · Wᵀ``, ``nn`` the data gradient ``dY · W``, ``tn`` the
  weight gradient ``dYᵀ · X``) — what a misaligned GEMM costs on this GPU, which ``perf/gemm.py``
  takes from one Ada measurement and one H100 one; then the shapes of
  ``calibration/data/gemm_shapes.csv``'s H100 rows (``nn``).

Workloads run one at a time in one process, most informative first (the one-GPU calibration rows,
then the transfer pairs, then the examples), each with the sizes given; none starts once
``--deadline-s`` has passed. Each workload's weights are random (speed does not depend on them)
and its batch synthetic, as ``gpuplan measure`` does.

``benchmarks/recorded_check.py`` reads the files back: each recording against the estimate for
the GPU it ran on, and moved to the GPUs the published rows ran on.
"""

from __future__ import annotations

import argparse
import csv
import gc
import json
import sys
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))


def _case_workloads() -> Iterator[tuple[str, str, dict[str, Any]]]:
    from gpuplan.calibration.cases import load_cases

    cases, _digest = load_cases()
    seen: set[str] = set()
    for c in cases:
        if c.gpu_count != 1:
            continue
        key = json.dumps(c.workload, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        yield "case", c.label, c.workload


def _pair_workloads() -> Iterator[tuple[str, str, dict[str, Any]]]:
    from transfer_check import pair_workload, read_pairs

    seen: set[str] = set()
    for pair, rows in read_pairs().items():
        spec = pair_workload(rows[0])
        key = json.dumps(spec, sort_keys=True)
        if key not in seen:
            seen.add(key)
            yield "pair", pair, spec


def _example_workloads() -> Iterator[tuple[str, str, Path]]:
    for path in (
        "examples/resnet50-imagenet.yaml",
        "examples/bert-large-squad.yaml",
        "examples/own-model/text-classifier.yaml",
        "examples/hf-config/llama32-1b-finetune.yaml",
        "examples/llama7b-lora.yaml",
        "examples/llm-inference-service.yaml",
    ):
        yield "example", path, ROOT / path


def _order(case: tuple[str, str, Any]) -> tuple[int, str]:
    """A row on the GPU this runs on first (a direct check), compile last (minutes to compile)."""
    _kind, label, spec = case
    compiled = isinstance(spec, dict) and bool(spec.get("compile"))
    direct = "H200" in label or "H100" in label
    return (2 if compiled else 0 if direct else 1), label


def record_steps(
    out: Path,
    *,
    device: str,
    deadline_s: float,
    sizes: tuple[int, int, int],
    limit: int | None,
    match: list[str],
) -> None:
    import torch

    from gpuplan.machine.measure import MeasureSizes, run_measure
    from gpuplan.workload import load_workload

    warmup, steps, profiled = sizes
    todo: list[tuple[str, str, Any]] = sorted(_case_workloads(), key=_order)
    todo += list(_pair_workloads()) + list(_example_workloads())
    if match:
        todo = [t for t in todo if any(m in t[1] for m in match)]
    if limit is not None:
        todo = todo[:limit]
    start = time.monotonic()
    with (out / "recordings.jsonl").open("a", encoding="utf-8") as f:
        for i, (kind, label, spec) in enumerate(todo):
            if time.monotonic() - start > deadline_s:
                print(f"deadline: {len(todo) - i} of {len(todo)} workloads not started", flush=True)
                break
            t0 = time.monotonic()
            line: dict[str, Any] = {"kind": kind, "label": label}
            try:
                workload = load_workload(spec)
                line["workload"] = spec if isinstance(spec, dict) else str(spec)
                doc = run_measure(
                    workload, device=device, sizes=MeasureSizes(warmup=warmup, steps=steps, profiled=profiled)
                )
                line["recording"] = json.loads(doc.to_json())
            except Exception as e:  # recorded, and the next workload runs
                line["error"] = f"{type(e).__name__}: {e}"
                line["traceback"] = traceback.format_exc(limit=6)
            line["elapsed_s"] = round(time.monotonic() - t0, 2)
            f.write(json.dumps(line) + "\n")
            f.flush()
            step = line.get("recording", {}).get("step_time", {}).get("median_s")
            print(
                f"[{i + 1}/{len(todo)}] {kind} {label}: {step or line.get('error')} ({line['elapsed_s']} s)",
                flush=True,
            )
            gc.collect()
            if device == "cuda":
                torch.cuda.empty_cache()


def record_gemms(out: Path, *, deadline_s: float) -> None:
    import torch

    shapes = []
    with (ROOT / "src/gpuplan/calibration/data/gemm_shapes.csv").open(encoding="utf-8") as f:
        for r in csv.DictReader(f):
            if r["gpu"] == "H100-SXM" and r["dtype"] == "bf16":
                shapes.append((int(r["b"]), int(r["m"]), int(r["n"]), int(r["k"])))
    tokens, hidden = 8192, 768  # GPT-2 124M at batch 8 × 1,024 tokens
    head = [
        (1, m, n, k, layout)
        for vocab in (50257, 50304)
        for m, n, k, layout in (
            (tokens, vocab, hidden, "nt"),
            (tokens, hidden, vocab, "nn"),
            (vocab, hidden, tokens, "tn"),
        )
    ]
    start = time.monotonic()
    with (out / "gemm.csv").open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["gpu_name", "torch", "dtype", "b", "m", "n", "k", "layout", "median_s", "flop_per_s"])
        name = torch.cuda.get_device_name(0)
        for b, m, n, k, layout in [*head, *((b, m, n, k, "nn") for b, m, n, k in shapes)]:
            if time.monotonic() - start > deadline_s:
                print("gemm deadline reached", flush=True)
                break
            x, y = _operands(torch, b, m, n, k, layout)
            for _ in range(3):
                torch.matmul(x, y)
            torch.cuda.synchronize()
            times = []
            for _ in range(20):
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                torch.matmul(x, y)
                e.record()
                e.synchronize()
                times.append(s.elapsed_time(e) / 1e3)
            med = sorted(times)[len(times) // 2]
            flop_per_s = 2 * b * m * n * k / med
            w.writerow(
                [name, torch.__version__, "bf16", b, m, n, k, layout, f"{med:.9g}", f"{flop_per_s:.6g}"]
            )
        f.flush()


def _operands(torch: Any, b: int, m: int, n: int, k: int, layout: str) -> tuple[Any, Any]:
    """The two operands of a ``(b×) m × k · k × n`` BF16 matmul, each stored as ``layout`` says
    (``n``: as used, ``t``: the transpose of a contiguous tensor, as autograd passes a weight or a
    gradient), squeezed to 2-D when ``b`` is 1."""
    shape = (b,) if b > 1 else ()

    def make(rows: int, cols: int, transposed: bool) -> Any:
        if transposed:
            return torch.randn(*shape, cols, rows, device="cuda", dtype=torch.bfloat16).transpose(-1, -2)
        return torch.randn(*shape, rows, cols, device="cuda", dtype=torch.bfloat16)

    return make(m, k, layout[0] == "t"), make(k, n, layout[1] == "t")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--device", default="cuda")
    p.add_argument("--deadline-s", type=float, default=420.0)
    p.add_argument("--gemm-deadline-s", type=float, default=40.0)
    p.add_argument("--sizes", default="2,5,1", help="warm-up, timed and profiled steps")
    p.add_argument("--limit", type=int, default=None, help="only the first N workloads")
    p.add_argument("--match", action="append", default=[], help="only workloads whose label holds this")
    p.add_argument("--no-gemm", action="store_true")
    a = p.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    warmup, steps, profiled = (int(x) for x in a.sizes.split(","))
    import torch

    if a.device == "cuda" and not torch.cuda.is_available():
        sys.exit(
            "error: no CUDA GPU here (torch.cuda.is_available() is False); --device cpu records on the CPU"
        )
    if a.device == "cuda" and not a.no_gemm:
        record_gemms(a.out, deadline_s=a.gemm_deadline_s)
    record_steps(
        a.out,
        device=a.device,
        deadline_s=a.deadline_s,
        sizes=(warmup, steps, profiled),
        limit=a.limit,
        match=a.match,
    )


if __name__ == "__main__":
    main()
