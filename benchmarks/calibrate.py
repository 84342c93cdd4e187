"""Fit the performance model's few parameters on published measurements; print each row's error.

    .venv/bin/python benchmarks/calibrate.py            # trace what is not cached, fit, write
    .venv/bin/python benchmarks/calibrate.py --cached   # use only cached profiles (no torch work)
    .venv/bin/python benchmarks/calibrate.py --check    # do not fit: score the shipped calibration
    .venv/bin/python benchmarks/calibrate.py --retrace  # re-trace every case (after tracer changes)
    .venv/bin/python benchmarks/calibrate.py --folds 5  # k for the k-fold held-out error (default 5)
    .venv/bin/python benchmarks/calibrate.py --band-only  # rebuild the bands from the stored residuals
    .venv/bin/python benchmarks/calibrate.py --shapes --gemm-fit  # shapes, GEMM parameters fitted on GEMMs

The offline path (``gpuplan.calibration``): reads the published rows of
``src/gpuplan/calibration/data/`` and maps each to the workload that reproduces it
(``gpuplan.calibration.cases``); traces each case's workload with the profile layer (profiles cached as
JSON under ``tests/calibration/fixtures/profiles/``, which the tests reuse); fits
(``gpuplan.calibration.crossval``); writes ``src/gpuplan/perf/calibration.json`` — the one file the
run-time estimator reads — with the fit date, the data's hash and every row's prediction.

The ``task: decode`` / ``task: prefill`` rows are not fitted: after the fit the script prints the
inference model's error on each (``benchmarks/inference_check.py``), out of sample. Nor are the
QLoRA rows (``gpuplan.calibration.qlora_cases``): their time and memory errors, and the published
LoRA/QLoRA time ratio against the model's, follow the table (with ``--check`` too).

Accuracy is judged held out: ``gpuplan.calibration.crossval`` fits by robust least squares (scipy) and
predicts every row from a fit without its fold (k-fold) and without its GPU architecture; the
table prints in-sample and held-out errors side by side, the summary the medians, worst cases and
the bands, and ``benchmarks/results/calibration_heldout.svg`` plots published against held-out
predicted figures. The bands are split-conformal on the leave-one-publisher-out residuals (and, for
an unseen architecture, the leave-one-architecture-out ones) at the smallest level that covers 80 %
of a left-out publisher's (architecture's) rows; the residuals are stored with the rows, so that
``--band-only`` rebuilds the bands without a refit.

A publisher is one source and one software stack
(``gpuplan.calibration.published.publisher_group``): the MLPerf Training submitters (ASUSTeK, Azure,
Dell, Fujitsu, NVIDIA, QCT, Supermicro) all ran NVIDIA's implementation and MLCommons publishes their
results, so leave-one-publisher-out, the band's coverage of a left-out publisher and ``--ablate``
hold them out together as "MLCommons MLPerf Training"; each row's label keeps its submitter.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpuplan.calibration.cases import CalibrationCase
    from gpuplan.calibration.crossval import CrossValidation
    from gpuplan.perf.calibration import Calibration
    from gpuplan.profile.model import Profile

ROOT = Path(__file__).resolve().parent.parent
PROFILES = ROOT / "tests" / "calibration" / "fixtures" / "profiles"
OUTPUT = ROOT / "src" / "gpuplan" / "perf" / "calibration.json"
CHART = ROOT / "benchmarks" / "results" / "calibration_heldout.svg"


def _profiles(
    cases: Sequence[CalibrationCase], cached_only: bool, retrace: bool = False
) -> list[tuple[CalibrationCase, Profile]]:
    from gpuplan.profile.model import Profile

    out = []
    started = time.time()
    PROFILES.mkdir(parents=True, exist_ok=True)
    for case in cases:
        path = PROFILES / case.profile_file
        if path.exists() and not (retrace and path.stat().st_mtime < started):
            prof = Profile.from_json(path.read_text(encoding="utf-8"))
        elif cached_only:
            sys.exit(f"error: no cached profile for {case.label} ({path.name}); run without --cached")
        else:
            from gpuplan.profile.key import trace

            t0 = time.perf_counter()
            print(f"tracing {case.label} …", file=sys.stderr, flush=True)
            prof = trace(case.workload)
            path.write_text(prof.to_json() + "\n", encoding="utf-8")
            print(f"  {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        out.append((case, prof))
    return out


def _qlora_report(
    pairs: Sequence[tuple[CalibrationCase, Profile]], cached_only: bool, retrace: bool = False
) -> None:
    """The QLoRA rows (``gpuplan.calibration.qlora_cases``), evaluated with the shipped calibration
    and never fitted: each published time and peak memory against the model's, and each published
    LoRA/QLoRA time ratio against the model's (each 4-bit weight's dequantization costed per matmul,
    ``profile.model.DEQUANTIZE_OP``)."""
    from gpuplan.calibration.cases import predict
    from gpuplan.calibration.qlora_cases import QLORA_PAIRS, evaluate, qlora_cases
    from gpuplan.perf.calibration import load_calibration

    cal = load_calibration()
    cases, left = qlora_cases()
    evaluated = _profiles(cases, cached_only, retrace)
    print("\nQLoRA rows (evaluated, not fitted; nf4 dequantization costed per weight and matmul):")
    for case, prof in evaluated:
        for e in evaluate(case, prof, cal):
            figures = f"{e.published:>9.2f} {e.predicted:>9.2f} {e.error_pct:>+7.1f}%"
            print(f"  {e.label[:88]:<88} {e.quantity:<6} {figures}")
    for label, why in left:
        print(f"  left out: {label}: {why}")
    by_name = {c.workload["name"]: (c, p) for c, p in [*pairs, *evaluated]}
    for qlora, lora in QLORA_PAIRS:
        (qc, qp), (lc, lp) = by_name[qlora], by_name[lora]
        predicted = predict(lc, lp, cal) / predict(qc, qp, cal)
        published = lc.published / qc.published
        print(f"  LoRA/QLoRA time, {qlora}: published {published:.3f}, predicted {predicted:.3f}")


def _print_table(cal: Calibration) -> None:
    print(f"{'case':<96} {'published':>10} {'predicted':>10} {'error':>8}")
    for r in cal.rows:
        mark = "" if r.used_in_fit else "  (not fitted)"
        print(f"{r.label[:96]:<96} {r.published:>10.1f} {r.predicted:>10.1f} {r.error_pct:>+7.1f}%{mark}")
    thr = [abs(r.error_pct) for r in cal.rows if r.used_in_fit and r.metric != "peak_mem_gib"]
    mem = [r for r in cal.rows if r.metric == "peak_mem_gib"]
    print()
    print(
        f"throughput rows fitted: {len(thr)}; "
        f"median |error| {statistics.median(thr):.1f} %, worst {max(thr):.1f} %"
    )
    for r in mem:
        print(f"memory: {r.label[:70]}: {r.error_pct:+.1f} %{'' if r.used_in_fit else ' (not fitted)'}")
    print(
        "memory rows compare the traced allocated peak with torchtune's 'peak memory active' "
        "(torch.cuda max active bytes), like with like: no CUDA context, workspaces or allocator slack"
    )
    from gpuplan.calibration.cases import gpu_names_used

    print("GPU names mapped: " + "; ".join(f"{k!r} → {v}" for k, v in gpu_names_used().items()))
    print(
        "parameters: "
        f"tensor matmul eff {cal.tensor_matmul_efficiency:.3f}, "
        f"tensor conv eff {cal.tensor_conv_efficiency:.3f}, "
        f"fp32 vector eff {cal.vector_efficiency:.3f}, bandwidth eff {cal.bandwidth_efficiency:.3f}, "
        f"tf32 factor {cal.tf32_factor:.3f}, fp8 factor {cal.fp8_factor:.3f}, "
        f"overlap cost {cal.overlap_cost:.2f}, "
        f"host overhead {cal.host_overhead_us:.1f} µs/op, "
        f"matmul/attention tail {cal.tensor_tail_gflop_per_call:.1f} GFLOP/call (shapeless records), "
        f"GEMM tile fixed cost {cal.gemm_k_overhead:.0f} k, tile traffic {cal.gemm_tile_overhead:.0f}, "
        f"attention softmax {cal.attention_head_overhead:.0f} head columns, "
        f"min kernel time {cal.min_kernel_time_us:.1f} µs; "
        f"architecture factors {_factors(cal.arch_factors)}; "
        f"bands: time ×{cal.time_band}, memory ×{cal.memory_band}"
    )


def _factors(pairs: Sequence[tuple[str, float]]) -> str:
    return ", ".join(f"{a} {f:.3f}" for a, f in pairs) or "none"


def _free_parameters(pairs: Sequence[tuple[CalibrationCase, Profile]]) -> list[str]:
    from gpuplan.calibration.crossval import BOUNDS

    archs = sorted({c.architecture for c, _ in pairs})
    return [*BOUNDS, *(f"arch:{a}" for a in archs)]


def _figures(errs: Sequence[float]) -> str:
    import math

    pct = [100.0 * abs(math.exp(e) - 1.0) for e in errs]
    return f"rows {len(pct):>3}  median |error| {statistics.median(pct):5.1f} %  worst {max(pct):6.1f} %"


def _heldout_table(cv: CrossValidation, pairs: Sequence[tuple[CalibrationCase, Profile]]) -> None:
    """Row by row, then the three held-out figures in the order that cannot flatter: leave one
    publisher out (the headline), leave one architecture out, random k-fold — each overall, per
    architecture and per stack level, with the 80 % band's coverage."""
    import math

    from gpuplan.calibration.crossval import conformal_halfwidth, left_out_coverage

    print(f"{'row':<72} {'arch':<13} {'in-sample':>10} {'w/o pub':>8} {'w/o arch':>9} {'k-fold':>8}")
    for (case, _), a, b, c, d in zip(
        pairs,
        cv.in_sample_log_errors,
        cv.lopo_log_errors or cv.heldout_log_errors,
        cv.loao_log_errors,
        cv.heldout_log_errors,
        strict=True,
    ):
        pct = [100.0 * (math.exp(x) - 1.0) for x in (a, b, c, d)]
        cols = f"{pct[0]:>+9.1f}% {pct[1]:>+7.1f}% {pct[2]:>+8.1f}% {pct[3]:>+7.1f}%"
        print(f"{case.label[:72]:<72} {case.architecture:<13} {cols}")
    s = cv.summary()
    archs = sorted({c.architecture for c, _ in pairs})
    levels = [c.stack_level for c, _ in pairs]
    publishers = [c.publisher for c, _ in pairs]
    print()
    print(
        f"throughput rows: {int(s['rows'])} from {len(set(publishers))} publishers over {len(archs)} "
        f"architectures ({', '.join(archs)}); stacks: "
        + ", ".join(f"{lv} {levels.count(lv)}" for lv in sorted(set(levels)))
    )
    print(f"  in-sample                       {_figures(cv.in_sample_log_errors)}")
    for title, errs in (
        ("leave-one-publisher-out (headline)", cv.lopo_log_errors),
        ("leave-one-architecture-out", cv.loao_log_errors),
        (f"random {cv.folds}-fold (flatters: one stack on both sides)", cv.heldout_log_errors),
    ):
        if not errs:
            continue
        half = conformal_halfwidth([abs(e) for e in errs])
        inside = sum(abs(e) <= half + 1e-12 for e in errs) / len(errs)
        print(f"{title}:")
        print(
            f"  {'all':<30}  {_figures(errs)}  80 % band ×/÷ {math.exp(half):.3f} on these residuals "
            f"(covers {100 * inside:.0f} %; left-out publishers inside the others' band: "
            f"{100 * left_out_coverage(errs, publishers):.0f} %)"
        )
        for kind, keys in (("arch", [c.architecture for c, _ in pairs]), ("stack", levels)):
            for name in sorted(set(keys)):
                sub = [e for e, k in zip(errs, keys, strict=True) if k == name]
                print(f"  {kind + ': ' + name:<30}  {_figures(sub)}")
    _print_bands(
        lopo=cv.lopo_log_errors,
        publishers=publishers,
        loao=cv.loao_log_errors,
        architectures=cv.architectures,
    )
    print(f"  frozen (no row sensitive to them): {', '.join(cv.frozen) or 'none'}")
    print(f"  pooled toward the literature value (1–2 rows sensitive): {', '.join(cv.thin) or 'none'}")


def _print_bands(
    *, lopo: Sequence[float], publishers: Sequence[str], loao: Sequence[float], architectures: Sequence[str]
) -> None:
    """The shipped bands (``crossval.band_figures``) next to the plain 80 % level."""
    import math

    from gpuplan.calibration.crossval import band_figures, conformal_halfwidth, left_out_coverage

    s = band_figures(lopo=lopo, publishers=publishers, loao=loao, architectures=architectures)
    print("bands: split-conformal, at the smallest level that covers ≥ 80 % of a left-out group's rows")
    for title, prefix, errs, groups, left_out in (
        ("unseen publisher", "band", lopo, publishers, "lopo_band_coverage"),
        ("unseen architecture", "thin_band", loao, architectures, "loao_band_coverage"),
    ):
        plain = conformal_halfwidth([abs(e) for e in errs])
        half = s[f"{prefix}_halfwidth_log"]
        print(
            f"  {title:<20} level {s[f'{prefix}_level']:.4f}: ×/÷ {math.exp(half):.3f}, "
            f"covers {100 * s[f'{prefix}_coverage']:.1f} % of its residuals and "
            f"{100 * s[left_out]:.1f} % of left-out groups' rows "
            f"(at level 0.8: ×/÷ {math.exp(plain):.3f}, {100 * left_out_coverage(errs, groups):.1f} %)"
        )


def _chart(cv: CrossValidation, pairs: Sequence[tuple[CalibrationCase, Profile]]) -> None:
    """Published vs held-out predicted (ratio to published), one dot per row, by architecture."""
    import math

    width, height, pad = 720, 420, 60
    grouped = bool(cv.lopo_log_errors)
    errs = [100.0 * (math.exp(e) - 1.0) for e in cv.band_log_errors]
    ins = [100.0 * (math.exp(e) - 1.0) for e in cv.in_sample_log_errors]
    top = max(50.0, *map(abs, errs), *map(abs, ins))
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf"]
    archs = sorted({c.architecture for c, _ in pairs})

    def y(v: float) -> float:
        return height / 2 - v / top * (height / 2 - pad)

    step = (width - 2 * pad) / max(len(errs), 1)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
        'font-size="11">',
        f'<text x="{pad}" y="20" font-size="13">Throughput error per calibration row: held out '
        f"({'publisher left out' if grouped else f'{cv.folds}-fold'}, filled) vs in-sample (hollow)</text>",
        f'<line x1="{pad}" x2="{width - pad}" y1="{y(0)}" y2="{y(0)}" stroke="#888"/>',
    ]
    half = 100.0 * (math.exp(cv.summary()["band_halfwidth_log"]) - 1.0)
    for v in (half, -half):
        line = f'<line x1="{pad}" x2="{width - pad}" y1="{y(v):.1f}" y2="{y(v):.1f}"'
        parts.append(line + ' stroke="#bbb" stroke-dasharray="4"/>')
    parts.append(f'<text x="{width - pad + 4}" y="{y(half):.1f}">80 % band</text>')
    for v in (-top, -top / 2, top / 2, top):
        parts.append(f'<text x="{pad - 8}" y="{y(v) + 4:.1f}" text-anchor="end">{v:+.0f} %</text>')
    for i, ((case, _), e, f) in enumerate(zip(pairs, errs, ins, strict=True)):
        x = pad + (i + 0.5) * step
        c = colours[archs.index(case.architecture) % len(colours)]
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y(e):.1f}" r="4" fill="{c}"><title>{case.label}</title></circle>'
        )
        parts.append(f'<circle cx="{x:.1f}" cy="{y(f):.1f}" r="4" fill="none" stroke="{c}"/>')
    for j, a in enumerate(archs):
        parts.append(
            f'<text x="{pad + j * 110}" y="{height - 15}" fill="{colours[j % len(colours)]}">● {a}</text>'
        )
    parts.append("</svg>")
    CHART.parent.mkdir(parents=True, exist_ok=True)
    CHART.write_text("\n".join(parts) + "\n", encoding="utf-8")


def _band_only() -> None:
    from gpuplan.calibration.crossval import rebanded, stored_residuals
    from gpuplan.perf.calibration import Calibration

    shipped = Calibration.from_json(OUTPUT.read_text(encoding="utf-8"))
    try:
        cal = rebanded(shipped)
    except ValueError as e:
        sys.exit(f"error: {OUTPUT.relative_to(ROOT)}: {e}")
    OUTPUT.write_text(cal.to_json(), encoding="utf-8")
    _print_bands(**stored_residuals(cal))
    print(f"wrote {OUTPUT.relative_to(ROOT)} (bands only; the fit of {cal.fitted_on} unchanged)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cached", action="store_true", help="use only cached profiles")
    parser.add_argument("--check", action="store_true", help="score the shipped calibration; do not fit")
    parser.add_argument("--retrace", action="store_true", help="re-trace every case (after tracer changes)")
    parser.add_argument("--folds", type=int, default=5, help="k of the k-fold held-out error")
    parser.add_argument(
        "--band-only",
        action="store_true",
        help="rebuild the bands of the shipped calibration from its stored held-out residuals (no fit)",
    )
    parser.add_argument(
        "--ablate",
        action="store_true",
        help="test each fitted parameter by leave-one-publisher-out (slow: one grouped fit per parameter)",
    )
    parser.add_argument(
        "--candidates", default="", help="with --ablate: only these parameters (comma-separated)"
    )
    parser.add_argument(
        "--shapes",
        action="store_true",
        help="cost matmul and attention calls by their traced shapes (perf/gemm.py) and fit its parameters",
    )
    parser.add_argument(
        "--gemm-fit",
        action="store_true",
        help="with --shapes: hold the GEMM tile parameters and per-call time at their fit on the measured "
        "GEMMs of calibration/data/gemm_shapes.csv (benchmarks/gemm_fit.py), not fitted on these rows",
    )
    parser.add_argument(
        "--matmul-fractions",
        action="store_true",
        help="fit the tensor efficiencies as fractions of each GPU's measured achievable matmul rate "
        "(gpus.csv matmul_fraction, matmul_fraction_fp8) and cost FP8 GEMMs' operand casts by their bytes",
    )
    parser.add_argument(
        "--hold",
        default="",
        help="comma-separated parameters held at their literature value (those --ablate found do not help)",
    )
    args = parser.parse_args()

    from dataclasses import replace

    if args.band_only:
        _band_only()
        return
    from gpuplan.calibration.cases import load_cases, with_band
    from gpuplan.calibration.recorded_cases import measured_shares
    from gpuplan.perf.calibration import PRIOR, load_calibration

    cases, digest = load_cases()
    pairs = _profiles(cases, args.cached, args.retrace)
    # The fit starts from the literature values; with --shapes, costing the traced shapes; with
    # --matmul-fractions, each GPU's measured achievable matmul rate and the FP8 casts.
    physical = args.matmul_fractions
    # The recording GPU's elementwise kernels as measured (a fact, not a free parameter).
    start = replace(
        PRIOR,
        gemm_shapes=args.shapes,
        matmul_fractions=physical,
        fp8_casts=physical,
        **measured_shares(),
    )
    if args.check:
        shipped = load_calibration()
        cal = with_band(shipped, pairs, fitted_on=shipped.fitted_on, data_sha256=digest)
        _print_table(cal)
        _qlora_report(pairs, args.cached, args.retrace)
        return
    from gpuplan.calibration.cases import predict
    from gpuplan.calibration.crossval import Problem, cross_validate

    t0 = time.perf_counter()
    fit_pairs = [(c, p) for c, p in pairs if c.used_in_fit and c.metric != "peak_mem_gib"]
    problem = Problem(
        rows=fit_pairs,
        predict=lambda cp, cal: predict(cp[0], cp[1], cal),
        published=lambda cp: cp[0].published,
        architecture=lambda cp: cp[0].architecture,
        publisher=lambda cp: cp[0].publisher,
    )
    hold = [h for h in args.hold.split(",") if h]
    if args.gemm_fit:
        if not args.shapes:
            sys.exit("error: --gemm-fit needs --shapes (it sets the shape parameters)")
        from gemm_fit import shipped_gemm_fit

        gemm = shipped_gemm_fit()
        start = replace(
            start,
            gemm_k_overhead=gemm.k_overhead,
            gemm_tile_overhead=gemm.tile_overhead,
            gemm_call_us=gemm.per_call_us,
        )
        hold += ["gemm_k_overhead", "gemm_tile_overhead"]
    free = [
        n
        for n in _free_parameters(fit_pairs)
        if n not in hold and not ("arch:*" in hold and n.startswith("arch:"))
    ]
    if args.ablate:
        from gpuplan.calibration.crossval import ablate

        scalars = [n for n in free if not n.startswith("arch:")]
        wanted = [c for c in args.candidates.split(",") if c] or [*scalars, "arch:*"]

        result = ablate(
            problem,
            start,
            free=free,
            candidates=wanted,
            say=lambda m: print(m, file=sys.stderr, flush=True),
        )
        print(
            f"leave-one-publisher-out median with every parameter fitted: {result.baseline_median_pct:.1f} %"
        )
        for name, median, worst in result.without:
            verdict = "drop (fitting it does not help)" if name in result.dropped else "keep"
            print(f"  without {name:<28} median {median:5.1f} %  worst {worst:6.1f} %  {verdict}")
        print(f"hold at the literature value: --hold {','.join(result.dropped)}")
        return
    cv = cross_validate(
        problem,
        start,
        free=free,
        folds=args.folds,
        progress=lambda m: print(m, file=sys.stderr, flush=True),
    )
    fitted = replace(cv.fitted, seen_families=tuple(sorted({p.shape.family for _, p in fit_pairs})))
    residuals = zip(fit_pairs, cv.lopo_log_errors, cv.loao_log_errors, strict=True)
    heldout = {c.label: (lopo, loao) for (c, _), lopo, loao in residuals}
    cal = with_band(fitted, pairs, fitted_on=date.today().isoformat(), data_sha256=digest, heldout=heldout)
    if physical:
        cal = replace(cal, source=f"{cal.source}; --matmul-fractions")
    if args.gemm_fit:
        cal = replace(cal, source=f"{cal.source}; GEMM shape parameters fitted on measured GEMMs")
        hold = [h for h in hold if h not in ("gemm_k_overhead", "gemm_tile_overhead")]
    if hold:
        # Said in the file: these stay at their literature value (fitting them did not improve the
        # leave-one-publisher-out error, `--ablate`).
        cal = replace(cal, source=f"{cal.source}; held at the literature value: {', '.join(hold)}")
    print(f"fit and cross-validation: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    OUTPUT.write_text(cal.to_json(), encoding="utf-8")
    _print_table(cal)
    print()
    _heldout_table(cv, fit_pairs)
    _chart(cv, fit_pairs)
    print(f"\nwrote {OUTPUT.relative_to(ROOT)} and {CHART.relative_to(ROOT)}")
    # The decode/prefill rows are scored against the calibration just written, never fitted on.
    from gpuplan.perf.calibration import load_calibration
    from inference_check import report

    load_calibration.cache_clear()  # read the file just written, not the fit this process started with
    print("\nLLM decode and prefill with the calibration just written (benchmarks/inference_check.py):")
    report(args.cached)
    _qlora_report(pairs, args.cached, args.retrace)


if __name__ == "__main__":
    main()
