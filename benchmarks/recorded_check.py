"""Real recordings against the model: steps ``gpuplan measure`` timed on a GPU, read back.

    python benchmarks/recorded_check.py [RECORDINGS.jsonl ...]

Default: ``benchmarks/results/h200-2026-12-04/recordings.jsonl`` (``benchmarks/device_recordings.py``
on one NVIDIA H200 SXM, PyTorch 2.11.0+cu130, driver 580.159.04; random weights, a synthetic batch,
2 warm-up, 5 timed and 1 profiled steps each). For each recording:

1. **The model alone on the GPU it ran on**: the estimate's step (no anchor) against the measured
   median step, under the shipped calibration and under the literature prior (no fit); and the
   traced peak memory against ``torch.cuda.max_memory_allocated``. Since 2026-12-04 the shipped fit
   holds the plain, GPU-bound steps of the default file as calibration rows
   (``calibration/data/recorded_steps.json``, ``benchmarks/recorded_rows.py``): for those the shipped
   figure is in sample, and their out-of-sample figure is ``benchmarks/calibrate.py``'s
   leave-one-publisher-out one (the fit on the published rows alone); the examples, compiled,
   fused-kernel and host-bound steps were never fitted on.
2. **Moved to the published rows' GPUs** (``gpuplan measure`` then ``estimate``): the recording
   anchors the estimate (``perf/anchor.py``, op class by op class) and is moved to the GPU, count
   and parallelism of every calibration row and transfer pair of the same workload; the moved
   figure against the published one, beside the model alone. A published row ran another stack
   (NGC containers of 2020-21, fused kernels the workload states, a publisher's own loop) than
   the recording (stock PyTorch 2.11 eager): the moved figure carries that difference, which is
   what a user whose code differs from a publisher's sees.
3. Memory rows (``peak_mem_gib``): the published peak against the measured one.

Printed: one line per comparison, then medians of |error| by kind. Traces of the pairs' and the
examples' workloads are made on the first run (a minute or two) and kept in
``/tmp/gpuplan-recorded-check``.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
DEFAULT = ROOT / "benchmarks" / "results" / "h200-2026-12-04" / "recordings.jsonl"
#: The traces of the pairs' and examples' workloads, kept between runs (a catalog database's profile cache).
CACHE = "/tmp/gpuplan-recorded-check.sqlite"
GIB = 1024.0**3


def _read(paths: list[Path]) -> list[dict[str, Any]]:
    out = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.append(json.loads(line))
    return out


def _stack(workload: Any) -> str:
    """``stock``: a stack ``gpuplan measure`` runs as stated; ``fused kernels``: the workload names
    hand-fused kernels, which a measured step runs as gpuplan's reference code (the unfused ops);
    ``compiled``: under torch.compile."""
    stack = workload.software_stack
    if stack.fused_kernels:
        return "fused kernels"
    return "compiled" if workload.compile else "stock"


def _pct(x: float) -> str:
    return f"{x * 100:+6.1f} %"


def main() -> None:
    from calibrate import PROFILES
    from gpuplan.calibration.cases import load_cases, predict
    from gpuplan.calibration.recorded_cases import RECORDED_PUBLISHER
    from gpuplan.catalog import open_store
    from gpuplan.documents.measure import MeasurementDocument
    from gpuplan.hardware import get_gpu
    from gpuplan.perf import EstimateRequest, run_estimate
    from gpuplan.perf.anchor import StepMeasurement, class_times
    from gpuplan.perf.calibration import PRIOR, load_calibration
    from gpuplan.perf.roofline import is_causal
    from gpuplan.profile import profile
    from gpuplan.profile.key import is_recording_of
    from gpuplan.profile.model import Profile
    from gpuplan.workload import load_workload
    from transfer_check import pair_workload, read_pairs

    paths = [Path(p) for p in sys.argv[1:]] or [DEFAULT]
    if missing := [str(p) for p in paths if not p.is_file()]:
        sys.exit(f"error: no such recordings file: {', '.join(missing)}")
    shipped = load_calibration()
    store = open_store(CACHE, seed=False)
    cache = store.local
    cases, _digest = load_cases()
    by_spec: dict[str, list[Any]] = defaultdict(list)
    for c in cases:
        if c.publisher != RECORDED_PUBLISHER:  # (a recording moved onto its own row says nothing)
            by_spec[json.dumps(c.workload, sort_keys=True)].append(c)
    pairs = read_pairs()
    errors: dict[str, list[float]] = defaultdict(list)

    inside: dict[str, list[bool]] = defaultdict(list)
    by_class: dict[str, list[float]] = defaultdict(list)
    in_range: dict[str, list[bool]] = defaultdict(list)

    def spans_of(doc: MeasurementDocument) -> bool:
        """Recorded before measure left out the profiler's annotated spans (the optimizer's), which
        its kernel split counted as kernels: the split is off (the step time is not)."""
        return doc.kernel_time_s.busy_s > 1.5 * doc.step_time.median_s

    def note(kind: str, err: float) -> None:
        errors[kind].append(err)

    for line in _read(paths):
        if "recording" not in line:
            first = str(line.get("error")).splitlines()[0]  # dynamo's messages run on for lines
            print(f"not recorded: {line['kind']} {line['label']}: {first}")
            continue
        doc = MeasurementDocument.model_validate(line["recording"])
        spec = line["workload"]
        if doc.workload.precision == "tf32" and not any("TF32" in n for n in doc.notes):
            # Recorded before measure switched TF32 on for fp32 matmuls: those ran in full FP32.
            print(f"left out: {line['label']}: tf32 recorded with fp32 matmuls in full FP32")
            continue
        workload = load_workload(ROOT / spec if line["kind"] == "example" else spec)
        if not is_recording_of(workload, doc.workload.profile_key, doc.device.torch_version):
            print(f"skipped: {line['label']}: the recording is not of this workload any more")
            continue
        key = json.dumps(spec, sort_keys=True) if isinstance(spec, dict) else None
        matched = by_spec.get(key, []) if key else []
        cached = PROFILES / matched[0].profile_file if matched else None
        if cached is not None and cached.exists():
            prof = Profile.from_json(cached.read_text(encoding="utf-8"))
        else:
            prof = profile(workload, cache)
        m = replace(StepMeasurement.from_document(doc), workload_key=prof.key)
        assert doc.device.gpu_id is not None
        gpu = get_gpu(doc.device.gpu_id)
        group = f"{line['kind']} ({_stack(workload)})"
        if group.endswith("(stock)") and not spans_of(doc):
            model_classes = class_times(
                prof.ops,
                gpu,
                prof.precision,
                shipped.for_gpu(gpu.id, gpu.architecture),
                causal=is_causal(prof),
                seq_len=prof.seq_len,
            )
            for cls in ("gemm", "attention", "memory"):
                took = getattr(doc.kernel_time_s, cls)
                if model_classes[cls] > 1e-4 and took > 1e-4:
                    by_class[cls].append(took / model_classes[cls])
        compiled = workload.compile  # the estimate of a compiled step is its own (compile_speedup, ...)
        est = run_estimate(EstimateRequest(profile=prof, gpu=gpu, calibration=shipped, compiled=compiled))
        alone = est.step_time_s
        prior = run_estimate(
            EstimateRequest(profile=prof, gpu=gpu, calibration=PRIOR, compiled=compiled)
        ).step_time_s
        measured = doc.step_time.median_s
        mem = doc.memory.peak_allocated_gib
        traced = prof.peak.total_bytes / GIB
        note(f"{group}: model alone on {gpu.id}, shipped fit", alone / measured - 1)
        note(f"{group}: model alone on {gpu.id}, literature prior", prior / measured - 1)
        if mem:
            note(f"{group}: traced peak vs measured allocated", traced / mem - 1)
        in_range[group].append(est.step_time_s_low <= measured <= est.step_time_s_high)
        est_mem = est.memory
        if doc.memory.peak_reserved_gib:
            note(
                f"{group}: estimated reserved vs measured",
                est_mem.reserved_gib / doc.memory.peak_reserved_gib - 1,
            )
        if (smi := doc.memory.nvidia_smi_gib) is not None:
            note(f"{group}: estimated nvidia-smi vs measured", est_mem.peak_memory_gib / smi - 1)
            inside[group].append(est_mem.peak_memory_gib_low <= smi <= est_mem.peak_memory_gib_high)
        print(
            f"{line['label'][:78]:78s} measured {measured * 1e3:8.1f} ms  model {_pct(alone / measured - 1)}"
            f" (prior {_pct(prior / measured - 1)})  memory {mem or 0:6.2f} GiB"
            f" traced {_pct(traced / mem - 1) if mem else '—'}"
        )
        spans = spans_of(doc)  # the split, and so the moved figures, are off
        if spans:
            print("    (kernel split holds the optimizer's annotated span: not moved)")
            matched = [c for c in matched if c.metric == "peak_mem_gib"]
        for case in matched:
            if case.metric == "peak_mem_gib":
                if mem:
                    note("published peak memory vs measured allocated", mem / case.published - 1)
                    print(
                        f"    {case.label[:90]:90s} published {case.published:.1f} GiB,"
                        f" measured {_pct(mem / case.published - 1)}"
                    )
                continue
            if case.metric not in ("images_per_s", "sequences_per_s", "tokens_per_s"):
                continue
            moved = predict(case, prof, shipped, (m,))
            model = predict(case, prof, shipped)
            # Figures are throughputs: a step's error is published / predicted − 1.
            e_moved, e_model = case.published / moved - 1, case.published / model - 1
            where = "one GPU" if case.gpu_count == 1 else "several GPUs"
            note(f"{group} moved to the published GPU ({where})", e_moved)
            note(f"{group} model alone on the published GPU ({where})", e_model)
            print(
                f"    {case.label[:90]:90s} moved {_pct(e_moved)}  model alone {_pct(e_model)}"
                f"  [{case.publisher[:28]}]"
            )
        if line["kind"] == "pair" and not spans:
            rows = pairs[line["label"]]
            for r in rows if pair_workload(rows[0]) == spec else ():
                target = get_gpu(r.gpu)
                req = EstimateRequest(profile=prof, gpu=target, calibration=shipped)
                moved_s = run_estimate(replace(req, measured_steps=(m,))).step_time_s
                model_s = run_estimate(req).step_time_s
                e_moved, e_model = moved_s / r.step_s - 1, model_s / r.step_s - 1
                note(f"{group} moved to the published GPU", e_moved)
                note(f"{group} model alone on the published GPU", e_model)
                print(
                    f"    {r.gpu:16s} published {r.step_s * 1e3:8.2f} ms  moved {_pct(e_moved)}"
                    f"  model alone {_pct(e_model)}"
                )

    print()
    for cls, ratios in by_class.items():
        q = statistics.quantiles(ratios, n=4)
        print(
            f"stock recordings, measured / modelled {cls} kernel time on the GPU measured: median "
            f"{statistics.median(ratios):.2f} (quartiles {q[0]:.2f}-{q[2]:.2f}), {len(ratios)} workloads"
        )
    for group, flags in in_range.items():
        print(f"{group}: measured step inside the estimate's range (10th-90th): {sum(flags)} of {len(flags)}")
    for group, flags in inside.items():
        print(f"{group}: measured nvidia-smi inside the estimate's range: {sum(flags)} of {len(flags)}")
    for kind, errs in errors.items():
        med = statistics.median(abs(e) for e in errs)
        bias = math.expm1(statistics.median(math.log1p(e) for e in errs))
        print(
            f"{kind:70s} n {len(errs):3d}  median |error| {med * 100:5.1f} %"
            f"  median bias {bias * 100:+6.1f} %"
        )

    store.close()


if __name__ == "__main__":
    main()
