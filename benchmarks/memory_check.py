"""Per-GPU memory of the calibration configurations against what their publishers measured.

    .venv/bin/python benchmarks/memory_check.py     # needs the profiles benchmarks/calibrate.py caches

For every calibration case (a run that happened): the memory verdict (*fits*, *may not fit*, *does
not fit* — read on the whole band of what must fit, ``required_gib_low``…``required_gib_high``; a run
that happened must never be called "does not fit"), and, where the
publisher printed a peak memory, the estimate's term that counts the same thing (``memory_what``:
``max_memory_allocated`` / torchtune "peak memory active" → ``peak_allocated_gib``; reserved →
``reserved_gib``; nvidia-smi → ``nvidia_smi_gib``) and its error. No constant of the memory model
is fitted on these rows (perf/memory.py cites each one's source), so every error is out of sample.

Then the memory band (``gpuplan.calibration.memory_band``): the publisher-weighted 80th percentile
of those errors, on the figures whose memory the case claims, with its coverage in sample and
leave-one-publisher-out; ``benchmarks/calibrate.py`` writes the same band into
``perf/calibration.json``. Figures whose case does not claim the run's memory are listed apart.

Measured 2026-12-03: 103 configurations that ran and whose memory is claimed, 0 called "does not
fit", 3 "may not fit" (near their GPU's edge). Claimed published peaks of two publishers now:
torchtune's (8; median |error| 6.2 %, worst 17.7 %; its 3B LoRA row, +31 %, is left out with its
unmodelled stack) and FlagPerf's four bf16 Megatron-core rows, traced as ``bf16-master`` (nvidia-smi;
median |error| 4.0 %, worst −8.1 %; −33 % in median when traced as ``bf16``, before that precision
existed): band ×/÷ 1.088, coverage 83 % in sample and 83 % with each publisher's band built without
it. Not claimed: ATorch's 8 (a process-lifetime peak: median −68 %), FlagPerf's 2 FP8 rows (FP8
weight copies; fp8 traced as amp-bf16: median −15 %).

2026-12-05, a later micro-batch's forward with the summed gradients live under gradient accumulation
(and pipeline micro-batches): the claimed figures unchanged (torchtune's and FlagPerf's bf16 rows hold
their gradients already), FlagPerf's two unclaimed FP8 rows 14.8 → 9.2 % in median, 137 configurations
that ran, none called "does not fit"; accumulating runs' estimates rise (Megatron-LM's GPT 18.4B on
256 A100s 43.0 → 63.1 GiB allocated, BERT-Large phase 1 with accumulation 58.0 → 59.2).
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from calibrate import _profiles
from gpuplan.calibration.memory_band import estimate_term, grouped_memory_band, memory_residuals


def main() -> None:
    from gpuplan.calibration.cases import case_request, load_cases
    from gpuplan.calibration.published import load_rows
    from gpuplan.perf.estimate import run_estimate

    cases, _ = load_cases()
    rows = [r for r in load_rows() if r.memory_gib is not None]
    seen: dict[tuple[str, str, int, str, int], tuple[str, str]] = {}
    unclaimed: dict[str, tuple[str, str]] = {}
    errors: dict[str, list[float]] = {}
    print(
        f"{'case':<78} {'verdict':>12} {'alloc':>6} {'req low–high':>13} {'smi':>6} {'cap':>5} "
        f"{'published':>18} {'err':>7}"
    )
    for case, prof in _profiles(cases, cached_only=True):
        e = run_estimate(case_request(case, prof))
        m = e.memory
        key = (prof.key, case.gpu, case.gpu_count, case.parallelism, case.tensor_parallel)
        first = key not in seen
        if case.memory_as_run:
            seen[key] = (e.memory_verdict.value, case.label)
        else:  # the case reproduces the run's time, not its memory (memory_why says what differs)
            unclaimed[case.label] = (e.memory_verdict.value, case.memory_why)
        match = next(
            (
                r
                for r in rows
                if r.model == case.workload["name"] and r.gpu == case.gpu and r.gpu_count == case.gpu_count
            ),
            None,
        )
        published, err = "", ""
        if match is not None and match.memory_gib is not None and first:
            term = estimate_term(match.memory_what)
            got = getattr(m, term)
            pct = 100.0 * (got / match.memory_gib - 1.0)
            source = match.source.split("@")[0].split(" ")[0]
            errors.setdefault(source + ("" if case.memory_as_run else " (not claimed)"), []).append(abs(pct))
            published, err = f"{match.memory_gib:.1f} {term.split('_')[0]}", f"{pct:+.1f}%"
        print(
            f"{case.label[:78]:<78} {e.memory_verdict.value:>12} {m.peak_allocated_gib:6.1f} "
            f"{m.required_gib_low:6.1f}–{m.required_gib_high:<6.1f} "
            f"{m.nvidia_smi_gib:6.1f} {m.capacity_gib:5.1f} {published:>18} {err:>7}"
        )
    print()
    verdicts = [v for v, _ in seen.values()]
    print(
        f"configurations that ran: {len(seen)}; fits: {verdicts.count('fits')}, may not fit: "
        f"{verdicts.count('may-not-fit')}, does not fit: {verdicts.count('does-not-fit')}"
    )
    for verdict, label in seen.values():
        if verdict == "does-not-fit":
            print(f"  ran, but called 'does not fit': {label}")
    print(f"cases whose memory is not claimed (the workload cannot say what the run did): {len(unclaimed)}")
    for label, (verdict, why) in unclaimed.items():
        print(f"  {verdict:>12}  {label[:70]} — {why[:120]}")
    for source, errs in errors.items():
        print(
            f"{source}: {len(errs)} published memory figures; median |error| "
            f"{statistics.median(errs):.1f} %, worst {max(errs):.1f} % (no fitted constant: held out)"
        )
    band = grouped_memory_band(
        memory_residuals(_profiles(cases, cached_only=True), lambda c, p: run_estimate(case_request(c, p)))
    )
    held = "n/a (one publisher)" if band.heldout_coverage is None else f"{band.heldout_coverage:.0%}"
    print(
        f"memory band (publisher-weighted 80th percentile of the claimed figures' |ln error|): "
        f"×/÷ {band.factor:.3f}; coverage {band.coverage:.0%} in sample, {held} with each "
        "publisher's band built without it"
    )
    for pub, n, median, without, inside in band.per_publisher:
        tail = (
            "no other publisher to build a band without it"
            if without is None or inside is None
            else f"the band without it ×/÷ {without:.3f} covers {inside:.0%}"
        )
        print(f"  {pub}: {n} figures, median |error| {median:.1f} %; {tail}")


if __name__ == "__main__":
    main()
