"""Turn steps ``gpuplan measure`` recorded on a real GPU into calibration rows.

    python benchmarks/recorded_rows.py [RECORDINGS.jsonl] [--out FILE]

Reads a file of ``benchmarks/device_recordings.py`` (default: the H200 run of 2026-12-04) and writes
``src/gpuplan/calibration/data/recorded_steps.json``: one row per distinct workload whose step
``measure`` ran as the workload states it — plain PyTorch (no hand-fused kernels, which ``measure``
runs as gpuplan's reference operators; no ``torch.compile``, whose speed-up the fit holds at its
literature value), and no ``tf32`` step recorded before ``measure`` switched TF32 on for FP32 matmuls.
A host-bound step (the GPU idle a fifth of it or more: small batches, LoRA's many small kernels) is
left out too: it times the rented machine's CPU issuing eager PyTorch's kernels, and that CPU is no
offer's; the rows are for what the GPU does. Those steps measure the CPU instead: the file's
``machine.host_overhead_us`` is the median of their issue time per kernel launch, and the cases of the
rows are costed at it (a fact of the machine measured, not a parameter the rows pull).
The GPU-bound rows measure one more fact of the GPU: ``machine.elementwise_fraction``, the share of
its datasheet bandwidth PyTorch's own bandwidth-bound kernels reached (median over the rows of the
traced bytes of their ``aten`` elementwise, normalisation, reduction and optimizer ops over the
``memory`` class of the kernel split). The fit costs those ops on that GPU at it
(``Calibration.elementwise_fractions``) instead of letting the rows pull the architecture's factor on
its matmuls and convolutions, which the same kernel split times at well under the model's. The
median is over the rows without batch norm in training over NCHW activations; those rows give
``machine.nchw_norm_fraction``: what is left of their memory-class seconds once their other
elementwise bytes are costed at that median, over those norms' elements at 4 bytes each
(``Calibration.nchw_norm_fractions``) — their kernels are not the ``channels_last`` ones.
A workload recorded both eagerly and under ``torch.compile`` whose matmuls include GEMMs with leading
dimensions not 16-byte aligned (GPT-2's output layer, vocabulary 50,257) gives
``machine.misaligned_gemm_rate``: Inductor pads such a matmul when its own benchmark finds the padded
one faster, so the compiled step's ``gemm`` class over its modelled GEMM time (every shape at the
aligned rate) is the GPU's rate on aligned shapes, and the eager step's ``gemm`` seconds left once
its aligned shapes take that rate are its misaligned shapes' (``Calibration.misaligned_gemm_rates``).
A workload recorded twice (a calibration case and a transfer pair, named apart) is kept once, and of
the transfer pairs' batch sweeps (DeepLearningExamples' ResNet-50 inference at nine batches) the
batches the calibration takes from the same tables, 1, 64 and 256: six more flat, host-bound steps
of one model would weigh the fit toward one machine's CPU.

Each row keeps the workload spec, the GPU, the median of the timed steps and their spread, and the
machine and software it ran on; ``gpuplan.calibration.recorded_cases`` maps them to calibration
cases, one publisher group (one machine, one stack).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

from gpuplan.perf.anchor import HOST_BOUND_IDLE  # the share of a step idle from which the CPU set it

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "benchmarks" / "results" / "h200-2026-12-04" / "recordings.jsonl"
OUT = ROOT / "src" / "gpuplan" / "calibration" / "data" / "recorded_steps.json"


#: The batches of a batch sweep kept (the ones ``calibration.csv`` takes from DeepLearningExamples' tables).
SWEEP_BATCHES = (1, 64, 256)
_SWEEP = re.compile(r"^dle-rn50-infer-.*-bs(\d+)$")


def _not_as_stated(spec: dict[str, Any], doc: dict[str, Any]) -> str | None:
    """Why the recorded step is not the workload's step as its trace and the fit count it (None: it
    is): compiled, hand-fused kernels run as reference operators, tf32 timed before the fix."""
    if spec.get("compile"):
        return "compiled: the fit holds torch.compile's speed-up at its literature value"
    if (spec.get("stack") or {}).get("fused_kernels"):
        return "names hand-fused kernels, which measure runs as the unfused reference operators"
    if spec.get("precision") == "tf32" and not any("TF32" in n for n in doc.get("notes", ())):
        return "tf32 recorded before measure switched TF32 on: its matmuls ran in full FP32"
    return None


def _why_not(spec: dict[str, Any], doc: dict[str, Any]) -> str | None:
    """Why a recording is not a calibration row (None: it is one)."""
    if (m := _SWEEP.search(str(spec.get("name", "")))) and int(m.group(1)) not in SWEEP_BATCHES:
        return f"one batch of a sweep (the calibration takes batches {', '.join(map(str, SWEEP_BATCHES))})"
    if why := _not_as_stated(spec, doc):
        return why
    if _host_bound(doc):
        step, busy = doc["step_time"]["median_s"], doc["kernel_time_s"]["busy_s"]
        return (
            f"host-bound (the GPU idled {100 * (1 - busy / step):.0f} % of the step): "
            "it times the rented machine's CPU, not the GPU"
        )
    return None


def rows(lines: list[dict[str, Any]], source: str) -> tuple[list[dict[str, Any]], list[str]]:
    """(rows, one line per recording left out and why)."""
    from gpuplan.profile.key import measurement_key

    out: list[dict[str, Any]] = []
    left: list[str] = []
    seen: set[str] = set()
    for line in lines:
        doc = line.get("recording")
        spec = line["workload"]
        if doc is None:
            left.append(f"{line['label']}: not recorded")
            continue
        if not isinstance(spec, dict):
            left.append(f"{line['label']}: a project file, not a spec")
            continue
        if why := _why_not(spec, doc):
            left.append(f"{line['label']}: {why}")
            continue
        key = measurement_key(spec)  # what was measured, whatever the spec's name
        if key in seen:
            left.append(f"{line['label']}: the same workload as a row already kept")
            continue
        seen.add(key)
        dev, run, step = doc["device"], doc["run"], doc["step_time"]
        out.append(
            {
                "label": line["label"],
                "workload": spec,
                "gpu": dev["gpu_id"],
                "step_s": step["median_s"],
                "step_s_low": step["low_s"],
                "step_s_high": step["high_s"],
                "timed_steps": run["timed_steps"],
                "measured_at": run["measured_at"],
                "device": f"{dev['name']}, driver {dev['driver_version']}, CUDA {dev['cuda_version']}, "
                f"PyTorch {dev['torch_version']}, {dev['host']}",
                "source": source,
            }
        )
    return out, left


def _host_bound(doc: dict[str, Any]) -> bool:
    """The GPU idled a fifth of the step or more. (A busy time above the step was recorded before
    ``measure`` left the optimizer's annotated span out of its kernel split: not judged.)"""
    step, busy = doc["step_time"]["median_s"], (doc.get("kernel_time_s") or {}).get("busy_s")
    return busy is not None and busy <= step and step - busy >= HOST_BOUND_IDLE * step


def host_overhead(
    lines: list[dict[str, Any]], kernel_calls: Callable[[dict[str, Any]], int]
) -> tuple[float, list[str]]:
    """The recording machine's CPU time to issue one kernel of an eager step, µs: over the
    host-bound steps (where the CPU set the pace), the median of the measured issue time over the
    step's kernel launches (``kernel_calls(spec)``, from its trace); and the labels it came from.
    A step not run as stated (:func:`_not_as_stated`) launches other kernels than its trace counts:
    not used."""
    per_call: list[float] = []
    used: list[str] = []
    for line in lines:
        doc, spec = line.get("recording"), line["workload"]
        if doc is None or not isinstance(spec, dict) or _not_as_stated(spec, doc) or not _host_bound(doc):
            continue
        issue = doc["step_time"].get("issue_s")
        calls = kernel_calls(spec)
        if issue and calls:
            per_call.append(issue / calls * 1e6)
            used.append(line["label"])
    if not per_call:
        raise ValueError("no host-bound recording with an issue time")
    return statistics.median(per_call), used


def _whole_splits(
    lines: list[dict[str, Any]], labels: set[str]
) -> Iterator[tuple[dict[str, Any], float, float]]:
    """(line, memory-class seconds, datasheet bandwidth in B/s) of the recordings named in
    ``labels`` whose kernel split is whole (busy time within the step: recorded after ``measure``
    left the optimizer's annotated span out)."""
    from gpuplan.hardware import get_gpu

    for line in lines:
        doc = line.get("recording")
        if doc is None or line["label"] not in labels:
            continue
        split = doc.get("kernel_time_s") or {}
        memory_s, busy_s = split.get("memory"), split.get("busy_s")
        if not memory_s or busy_s is None or busy_s > doc["step_time"]["median_s"]:
            continue
        yield line, memory_s, get_gpu(doc["device"]["gpu_id"]).memory_bandwidth_gbps * 1e9


def elementwise_fraction(
    lines: list[dict[str, Any]], labels: set[str], elementwise_bytes: Callable[[dict[str, Any]], float]
) -> tuple[float, dict[str, float]]:
    """The share of the datasheet bandwidth PyTorch's own bandwidth-bound kernels reached on the
    recording GPU: over the recordings named in ``labels`` (the rows kept) whose kernel split is
    whole (busy time within the step: recorded after ``measure`` left the optimizer's annotated span
    out), ``elementwise_bytes(spec)`` (the trace's, per step) over the ``memory`` class's seconds and
    the datasheet bandwidth; the median, and each row's figure."""
    per_row = {
        line["label"]: elementwise_bytes(line["workload"]) / memory_s / bandwidth
        for line, memory_s, bandwidth in _whole_splits(lines, labels)
    }
    if not per_row:
        raise ValueError("no GPU-bound recording with a whole kernel split")
    return statistics.median(per_row.values()), per_row


def nchw_norm_fraction(
    lines: list[dict[str, Any]],
    labels: set[str],
    split_bytes: Callable[[dict[str, Any]], tuple[float, float]],
    elementwise: float,
) -> tuple[float, dict[str, float]]:
    """The share of the datasheet bandwidth batch norm in training over NCHW activations reached on
    the recording GPU, its elements counted at 4 bytes: over the recordings named in ``labels`` with
    a whole kernel split, ``split_bytes(spec)`` = (the other elementwise bytes, those norms' elements
    × 4) of the trace; the memory class's seconds less the other bytes at ``elementwise`` (the
    share of the rows without such norms) are the norms' seconds. The median, and each row's."""
    per_row: dict[str, float] = {}
    for line, memory_s, bandwidth in _whole_splits(lines, labels):
        other, norm = split_bytes(line["workload"])
        if not norm:
            continue
        norm_s = memory_s - other / (elementwise * bandwidth)
        if norm_s > 0:
            per_row[line["label"]] = norm / norm_s / bandwidth
    if not per_row:
        raise ValueError("no GPU-bound recording with batch norm over NCHW activations in training")
    return statistics.median(per_row.values()), per_row


def misaligned_gemm_rate(
    lines: list[dict[str, Any]], gemm_split: Callable[[dict[str, Any], str], tuple[float, float, float]]
) -> tuple[float, dict[str, float]]:
    """The rate the recording GPU's tensor-core GEMMs with misaligned leading dimensions ran at, over
    the aligned rate: over the eager recordings with a compiled twin (the same spec but ``compile``
    and ``name``) on the same GPU, both with a whole kernel split, whose misaligned shapes are a
    tenth or more of their modelled GEMM time. ``gemm_split(spec, gpu)`` = (modelled seconds of the
    aligned matmul shapes, of the misaligned ones, of the ``gemm`` class's other ops) with every shape
    at the aligned rate. The median, and each eager row's figure."""

    def key(spec: dict[str, Any]) -> str:
        return json.dumps({k: v for k, v in spec.items() if k not in ("compile", "name")}, sort_keys=True)

    def whole(line: dict[str, Any]) -> dict[str, Any] | None:
        doc = line.get("recording")
        split = (doc or {}).get("kernel_time_s") or {}
        busy = split.get("busy_s")
        if doc is None or busy is None or busy > doc["step_time"]["median_s"] or not split.get("gemm"):
            return None
        return doc

    compiled = {
        (key(line["workload"]), doc["device"]["gpu_id"]): doc
        for line in lines
        if isinstance(line.get("workload"), dict) and line["workload"].get("compile") and (doc := whole(line))
    }
    per_row: dict[str, float] = {}
    for line in lines:
        spec = line.get("workload")
        if not isinstance(spec, dict) or spec.get("compile") or (doc := whole(line)) is None:
            continue
        gpu = doc["device"]["gpu_id"]
        twin = compiled.get((key(spec), gpu))
        if twin is None:
            continue
        aligned, misaligned, other = gemm_split(spec, gpu)
        if misaligned < 0.1 * (aligned + misaligned) or other > 0.01 * (aligned + misaligned):
            continue
        c_aligned, c_misaligned, c_other = gemm_split(spec | {"compile": True}, gpu)
        if c_other > 0.01 * (c_aligned + c_misaligned):
            continue
        aligned_rate = twin["kernel_time_s"]["gemm"] / (c_aligned + c_misaligned)  # measured s per modelled s
        left = doc["kernel_time_s"]["gemm"] - aligned_rate * aligned
        if left > aligned_rate * misaligned:
            per_row[line["label"]] = aligned_rate * misaligned / left
    if not per_row:
        raise ValueError("no eager recording with misaligned GEMMs and a compiled twin")
    return statistics.median(per_row.values()), per_row


@cache
def _traced_gemm_split(key: str, gpu_id: str) -> tuple[float, float, float]:
    from dataclasses import replace

    from gpuplan.hardware import get_gpu
    from gpuplan.perf.anchor import trace_class
    from gpuplan.perf.calibration import PRIOR
    from gpuplan.perf.gemm import alignment_elements, gemm_multiplier, misaligned_dimension
    from gpuplan.perf.roofline import is_causal, op_seconds
    from gpuplan.profile.key import trace

    prof = trace(json.loads(key))
    gpu = get_gpu(gpu_id)
    cal = replace(PRIOR, gemm_shapes=True, misaligned_gemm_rates=((gpu_id, 1.0),)).for_gpu(
        gpu.id, gpu.architecture
    )
    shape_losses = {"k_overhead": cal.gemm_k_overhead, "tile_overhead": cal.gemm_tile_overhead}
    aligned = misaligned = other = 0.0
    for op, seconds in op_seconds(
        prof.ops, gpu, prof.precision, cal, causal=is_causal(prof), seq_len=prof.seq_len
    ):
        if trace_class(op) != "gemm":
            continue
        if op.op_class != "matmul" or not op.shapes:
            other += seconds
            continue
        elements = alignment_elements(op.dtype)
        weights = [  # (the shape's modelled time at the aligned rate, in FLOP units; misaligned?)
            (
                c * b * m * n * k * gemm_multiplier(((1, b, m, n, k),), gpu.sm_count, **shape_losses),
                misaligned_dimension(m, n, k, elements, op.phase == "backward") is not None,
            )
            for c, b, m, n, k in op.shapes
        ]
        total = sum(w for w, _ in weights)
        share = sum(w for w, bad in weights if bad) / total if total else 0.0
        misaligned += seconds * share
        aligned += seconds * (1 - share)
    return aligned, misaligned, other


def _traced_gemm_seconds(spec: dict[str, Any], gpu_id: str) -> tuple[float, float, float]:
    """(modelled seconds of one step of ``spec``'s aligned matmul shapes on ``gpu_id``, of its
    misaligned ones, of its other ``gemm``-class ops), every shape at the aligned rate: the literature
    prior's efficiencies with ``perf/gemm.py``'s shape losses (the rate cancels in
    :func:`misaligned_gemm_rate`, which takes ratios of these on one GPU)."""
    return _traced_gemm_split(json.dumps(spec, sort_keys=True), gpu_id)


@cache
def _traced_split(key: str) -> tuple[float, float]:
    from gpuplan.perf.gemm import element_bytes
    from gpuplan.perf.roofline import is_pytorch_elementwise
    from gpuplan.profile.key import trace
    from gpuplan.profile.model import is_nchw_norm

    other = norm = 0.0
    for op in trace(json.loads(key)).ops:
        if is_nchw_norm(op):
            norm += op.bytes_moved * 4 / element_bytes(op.dtype)
        elif is_pytorch_elementwise(op):
            other += op.bytes_moved
    return other, norm


def _traced_elementwise_split(spec: dict[str, Any]) -> tuple[float, float]:
    """(bytes one step of ``spec`` moves through PyTorch's own bandwidth-bound kernels but batch
    norm in training over NCHW activations, that norm's elements × 4), as traced
    (``perf.roofline.is_pytorch_elementwise`` and ``is_nchw_norm``: the ops the measured shares are
    applied to)."""
    return _traced_split(json.dumps(spec, sort_keys=True))


def _traced_elementwise_bytes(spec: dict[str, Any]) -> float:
    """The first of :func:`_traced_elementwise_split`: the bytes the elementwise share covers."""
    return _traced_elementwise_split(spec)[0]


def _traced_kernel_calls(spec: dict[str, Any]) -> int:
    """Kernel launches of one step of ``spec`` as the roofline counts them (ops that move bytes or
    do FLOPs; cuDNN's layout transposes run inside their convolution's call)."""
    from gpuplan.hardware import get_gpu
    from gpuplan.perf.calibration import PRIOR
    from gpuplan.perf.roofline import is_causal, phase_times
    from gpuplan.profile.key import trace

    prof = trace(spec)
    gpu = get_gpu("H200-SXM")
    cal = PRIOR.for_gpu(gpu.id, gpu.architecture)
    return phase_times(
        prof.ops, gpu, prof.precision, cal, causal=is_causal(prof), seq_len=prof.seq_len
    ).kernel_calls


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("recordings", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    if not args.recordings.is_file():
        sys.exit(f"error: no such recordings file: {args.recordings}")
    text = args.recordings.read_text(encoding="utf-8")
    lines = []
    for number, t in enumerate(text.splitlines(), 1):
        if not t.strip():
            continue
        try:
            lines.append(json.loads(t))
        except json.JSONDecodeError as e:
            sys.exit(f"error: {args.recordings}:{number}: not a JSON line ({e.msg})")
    try:
        source = str(args.recordings.resolve().relative_to(ROOT))
    except ValueError:
        source = args.recordings.name
    kept, left = rows(lines, source)
    for why in left:
        print(f"left out: {why}")
    print("tracing the host-bound steps' workloads to count their kernels …", flush=True)
    host_us, used = host_overhead(lines, _traced_kernel_calls)
    print("tracing the kept rows' workloads for their elementwise bytes …", flush=True)
    labels = {r["label"] for r in kept}
    with_norms = {
        line["label"]
        for line in lines
        if line["label"] in labels and _traced_elementwise_split(line["workload"])[1]
    }
    fraction, per_row = elementwise_fraction(lines, labels - with_norms, _traced_elementwise_bytes)
    norm_fraction, norm_rows = nchw_norm_fraction(lines, with_norms, _traced_elementwise_split, fraction)
    print("tracing the eager steps with compiled twins for their misaligned GEMMs …", flush=True)
    try:
        misaligned: tuple[float, dict[str, float]] | None = misaligned_gemm_rate(lines, _traced_gemm_seconds)
    except ValueError as e:  # a recordings file without such a pair: the rate is not measured, not 0
        print(f"misaligned GEMMs: {e}; machine.misaligned_gemm_rate left out")
        misaligned = None
    gpus = sorted({r["gpu"] for r in kept})
    if len(gpus) != 1:
        sys.exit(f"error: the rows ran on {len(gpus)} GPUs ({', '.join(gpus)}); one file is one machine")
    machine = {
        "gpu": gpus[0],
        "elementwise_fraction": round(fraction, 4),
        "elementwise_how": "median over the GPU-bound rows of the traced bytes of PyTorch's own (aten) "
        "bandwidth-bound ops over the kernel split's memory-class seconds and the datasheet bandwidth",
        "elementwise_by_row": {k: round(v, 4) for k, v in sorted(per_row.items())},
        "nchw_norm_fraction": round(norm_fraction, 4),
        "nchw_norm_how": "median over the GPU-bound rows with batch norm in training over NCHW "
        "activations of those norms' elements at 4 bytes over what is left of the memory-class seconds "
        "once the other elementwise bytes are costed at elementwise_fraction, and the datasheet bandwidth",
        "nchw_norm_by_row": {k: round(v, 4) for k, v in sorted(norm_rows.items())},
        "host_overhead_us": round(host_us, 2),
        "host_overhead_how": "median over the host-bound recordings (the GPU idle a fifth of the step or "
        "more) of the measured issue time over the step's kernel launches as traced",
        "host_overhead_from": used,
        "source": source,
    }
    if misaligned is not None:
        machine |= {
            "misaligned_gemm_rate": round(misaligned[0], 4),
            "misaligned_gemm_how": "median over the eager recordings with a compiled twin (Inductor pads "
            "misaligned matmuls) of their misaligned GEMM shapes' modelled seconds at the twin's measured "
            "rate on aligned shapes over the eager gemm-class seconds left once the aligned shapes take it",
            "misaligned_gemm_by_row": {k: round(v, 4) for k, v in sorted(misaligned[1].items())},
        }
    document = {"machine": machine, "rows": kept}
    args.out.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(
        f"wrote {len(kept)} rows to {args.out}; the machine's host overhead {host_us:.1f} µs a kernel; "
        f"PyTorch's elementwise kernels at {fraction:.3f} of the datasheet bandwidth "
        f"({min(per_row.values()):.3f}–{max(per_row.values()):.3f} over {len(per_row)} rows); batch norm "
        f"in training over NCHW activations at {norm_fraction:.3f} ({len(norm_rows)} rows)"
        + (
            f"; misaligned GEMMs at {misaligned[0]:.3f} of the aligned rate ({len(misaligned[1])} rows)"
            if misaligned is not None
            else ""
        )
    )


if __name__ == "__main__":
    main()
