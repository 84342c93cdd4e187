"""The shipped calibration: fresh for its data, reproducible from the cached traces, judged held out.

2026-12-05: with batch norm over NCHW activations and misaligned GEMMs on Hopper at the rates
measured on the H200, and LLMs-from-scratch's padded-vocabulary step: 150 rows of 16 publishers,
in-sample 6.3 %, leave-one-publisher-out 8.7 %, leave-one-architecture-out 9.0 %, 5-fold 6.7 %,
band ×/÷ 1.19 (``benchmarks/results/calibration.txt``).

2026-12-04: with 26 steps measured on an H200 by ``gpuplan measure`` (calibration/recorded_cases.py,
one publisher group, costed at their machine's measured host overhead) and the refinement run from
both the scan's point and the start: 149 rows of 16 publishers, in-sample 6.5 %,
leave-one-publisher-out 8.7 % (7.6 % on the 123 published rows, 8.6 % before), the H200 group 19.9 %,
leave-one-architecture-out 13.7 % (12.3 % on the published rows, 10.7 % before: the lowest fitted
factor an unseen architecture takes is Hopper's, now 0.80), 5-fold 7.5 %, band ×/÷ 1.31.

``benchmarks/calibrate.py`` fits by robust least squares and records k-fold held-out figures in the
calibration (``heldout``). With each row run on the stack its launch script set (memory format,
fused kernels, dropout, CUDA graphs, optimizer), 18 MLPerf Training BERT runs from seven submitters,
10 more DeepLearningExamples ResNet-50 rows and an fp8 factor: 106 rows from 16 publishers,
in-sample 7.3 %, 5-fold 10.2 %, leave-one-architecture-out 23.2 %, band ×/÷ 1.24 covering 81 %
(``benchmarks/grouped_check.py`` prints the leave-one-publisher-out figures). Since the
calibration cases' sequence parallelism reaches the estimate
(``case_request`` dropped it, so the 19 TP cases with sequence parallelism, 15 of them fitted, were
costed without it): 69 rows, in-sample 5.4 %, 5-fold 7.4 %, leave-one-architecture-out 21.3 %, band
×/÷ 1.29 covering 81 % — the KempnerForge 8B TP rows now come out 14–34 % fast, the FlagPerf 70B row
+5.6 % (was −10.1 %). Before that fix, with three FlagPerf Megatron-core H100 rows (Llama-3 8B on 1
and 2 nodes, 70B TP=8 × PP=4 on 8 nodes) and two more multi-node KempnerForge H200 layouts: 69 rows,
in-sample 5.2 %, 5-fold 6.2 %, leave-one-architecture-out 16.2 %, band ×/÷ 1.27 covering 81 %. With
the four OLMo-core BF16 rows on 8× H100 (1B–13B, FSDP, no checkpointing): 64 rows, in-sample 5.5 %,
5-fold 6.5 %, leave-one-architecture-out 23.6 %, band ×/÷ 1.29 covering 81 %; before them (60 rows)
5.1 / 7.3 / 14.7 %, ×/÷ 1.30 covering 82 %. Earlier, on 48 fitted throughput rows over 5
architectures (Volta, Turing, Ampere, Ada, Hopper; 28 LLM-training rows, 12 multi-node, 8 with
tensor/pipeline parallelism): in-sample median |error| 6.2 %, 5-fold held out 9.3 % (worst 178.7 %:
ResNet-50 at batch 1, the one host-bound row), leave-one-architecture-out 12.2 %; the 80 %
split-conformal band (×/÷ 1.36) covers 83 % of held-out rows. Before, 8.5 / 9.8 / 15.5 % (×/÷ 1.45,
83 %): the Megatron-LM SC21 rows traced fused, causal attention, where Megatron 2021 ran 16-bit
GEMMs over the full s² around a fused masked softmax (now ``attention: fused-softmax``; 1.7B went
from +51 % to +14 %), and a causal fused kernel was costed at exactly half its counted FLOPs (now
the block geometry of ``perf/attention.py``, which alone moved 5-fold 9.8 → 9.7 %,
leave-one-architecture-out 15.5 → 15.6 %). Before the Megatron-LM SC21 and KempnerForge H200 rows
joined (35 rows, 4 architectures) the figures were 5.4 / 11.9 / 17.9 %. The nine multi-node
KempnerForge rows are compared, not fitted: at their real network (4 × 400 Gbit/s NDR per node, from
the publisher's launch script) the 70B rows come out 36–40 % fast, and fitting all nine moved 5-fold
to 15.3 % and leave-one-architecture-out to 25.6 %. Mapping the torchtune rows to what their recipes
run (chunked loss; paged 8-bit AdamW stepped in backward) fits one more row (the chunked-loss one):
47 rows, 8.8 / 10.8 / 13.0 % before. NB: the 8 ATorch rows are one workload at 8–64 GPUs, so a
k-fold split usually keeps a sibling of each in training. The thresholds below sit just above the
achieved figures so that a regression fails."""

from __future__ import annotations

import math
import statistics
from pathlib import Path

import pytest

from gpuplan.calibration.cases import CalibrationCase, load_cases, predict, with_band
from gpuplan.calibration.crossval import conformal_halfwidth, left_out_coverage, stored_residuals
from gpuplan.perf.calibration import PRIOR, Calibration, load_calibration
from gpuplan.profile.model import Profile

PROFILES = Path(__file__).parent / "fixtures" / "profiles"


def _pairs() -> list[tuple[CalibrationCase, Profile]]:
    cases, _ = load_cases()
    out = []
    for case in cases:
        out.append((case, Profile.from_json((PROFILES / case.profile_file).read_text(encoding="utf-8"))))
    return out


def test_shipped_calibration_is_fitted_on_the_shipped_data() -> None:
    cal = load_calibration()
    _, digest = load_cases()
    assert cal.fitted_on, "perf/calibration.json missing: run benchmarks/calibrate.py"
    assert cal.data_sha256 == digest, "calibration data changed since the fit: rerun benchmarks/calibrate.py"


def test_recorded_predictions_reproduce_from_cached_profiles() -> None:
    cal = load_calibration()
    rows = {r.label.split(" — ")[0]: r for r in cal.rows}
    for case, prof in _pairs():
        assert predict(case, prof, cal) == pytest.approx(rows[case.label].predicted, rel=1e-9)


def test_in_sample_errors_stay_within_the_fitted_bounds() -> None:
    cal = load_calibration()
    errors = [abs(r.error_pct) for r in cal.rows if r.used_in_fit and r.metric != "peak_mem_gib"]
    assert len(errors) >= 64
    # Achieved 7.3 on 106 rows from 16 publishers (5.5 on the 69 rows of 9 publishers before the MLPerf
    # submitters, the DeepLearningExamples ResNet-50 table and the rows' own stacks joined); in-sample
    # is not the accuracy figure.
    # 7.7 since attention_factor and compile_speedup are held at their literature values (fitting
    # them bought in-sample error and cost leave-one-publisher-out error: 14.4 → 12.4 % held).
    # 6.8 on 115 rows of 15 publishers (the MLPerf submitters one; nine rows of five more
    # publishers), the tensor efficiencies taken as fractions of each GPU's measured matmul rate.
    assert statistics.median(errors) <= 8.0


def test_held_out_figures_are_recorded_and_the_band_covers_80_percent() -> None:
    held = dict(load_calibration().heldout)
    assert held["rows"] >= 64 and held["folds"] >= 5
    # Achieved 10.2 on 106 rows (7.2 on the 69 rows before the MLPerf submitters, the
    # DeepLearningExamples ResNet-50 table and the stacks joined: more stacks, more spread); 6.2 before
    # the cases' sequence parallelism reached the estimate.
    assert held["kfold_median_abs_error_pct"] <= 10.5
    # Achieved 23.2 on 106 rows: a fit without Hopper cannot learn the fp8 factor, so the Hopper
    # MLPerf fp8 runs come out slow. 21.3 on 69 rows (16.2 before sequence parallelism reached the
    # cases, with the FlagPerf rows; 23.6 before those; 14.7 before the four OLMo-core H100 rows
    # joined; 12.2 before the overlap cost). Hopper holds 42 of the 106 rows at lower fractions of
    # peak than Ampere reaches, so a fit without Ampere puts the Ampere rows slow, and one without
    # Hopper puts the KempnerForge rows fast: each architecture's efficiency is its own.
    assert held["loao_median_abs_error_pct"] <= 25.0
    assert held["kfold_median_abs_error_pct"] >= held["in_sample_median_abs_error_pct"]
    assert held["band_coverage"] >= 0.8


def test_the_headline_is_leave_one_publisher_out_and_the_band_is_built_on_it() -> None:
    cal = load_calibration()
    held = dict(cal.heldout)
    # Achieved on 106 rows of 16 publishers: 12.4 % with attention_factor and compile_speedup held
    # at their literature values (14.4 % with every parameter fitted; the target is 12 %: not met).
    # Random k-fold says 8.3 % on the same fit: one publisher's stack on both sides of a split
    # flatters. Counted honestly the seven MLPerf Training submitters are one publisher (one
    # implementation, one source: published.publisher_group): on the same 106 rows, 10 publishers,
    # 13.9 %; with nine rows of five more publishers (115 rows, 15 publishers, 2026-12-02) 14.2 %.
    # With each GPU's measured matmul fraction and the FP8 casts costed (calibrate.py
    # --matmul-fractions) 9.9 %, leave-one-architecture-out 12.5 %: the targets are 12 and 15 %.
    assert held["publishers"] >= 15
    assert held["kfold_median_abs_error_pct"] < held["lopo_median_abs_error_pct"] <= 12.0
    assert held["loao_median_abs_error_pct"] <= 15.0
    # The band is the split-conformal half-width of the publisher-out residuals at the level whose
    # left-out publishers are 80 % inside the band of the others' residuals: 0.8475, ×/÷ 1.428,
    # 82.6 % of a left-out publisher's rows (at level 0.8 it was ×/÷ 1.384 and 77.4 %: it covered
    # 80 % of the residuals it was built on, not of a publisher it never saw).
    assert cal.time_log_halfwidth == pytest.approx(held["band_halfwidth_log"], abs=1e-4)
    assert held["band_coverage"] >= 0.8 and held["lopo_band_coverage"] >= 0.8


def test_the_shipped_bands_cover_80_percent_of_a_group_they_never_saw() -> None:
    # Judged on the held-out residuals stored with the rows, not on the figures the fit wrote: each
    # group's rows against the band (at the shipped level) of every other group's residuals.
    cal = load_calibration()
    held = dict(cal.heldout)
    stored = stored_residuals(cal)
    assert len(stored["lopo"]) == held["rows"]  # every fitted row carries its residuals
    assert cal.time_log_halfwidth is not None and cal.time_log_halfwidth_thin is not None
    # A publisher never seen: the shipped half-width is the conformal one at the shipped level of
    # every publisher-out residual, and that rule covers ≥ 80 % of a left-out publisher's rows.
    level = held["band_level"]
    lopo = [abs(e) for e in stored["lopo"]]
    assert cal.time_log_halfwidth == pytest.approx(conformal_halfwidth(lopo, level), abs=1e-4)
    assert left_out_coverage(stored["lopo"], stored["publishers"], level) >= 0.8
    # An architecture never seen: the same from the architecture-out residuals, by architecture
    # (never narrower than the publisher band).
    thin = held["thin_band_level"]
    loao = [abs(e) for e in stored["loao"]]
    unseen = max(conformal_halfwidth(loao, thin), cal.time_log_halfwidth)
    assert cal.time_log_halfwidth_thin == pytest.approx(unseen, abs=1e-4)
    assert left_out_coverage(stored["loao"], stored["architectures"], thin) >= 0.8


def test_fitted_memory_rows_within_ten_percent() -> None:
    mem = [r for r in load_calibration().rows if r.metric == "peak_mem_gib" and r.used_in_fit]
    assert mem
    assert all(abs(r.error_pct) <= 10.0 for r in mem)


def test_fit_beats_the_literature_prior() -> None:
    pairs = _pairs()
    fitted = load_calibration()
    prior = with_band(PRIOR, pairs, fitted_on="", data_sha256="")

    def med(c: Calibration) -> float:
        return statistics.median(
            abs(r.log_error) for r in c.rows if r.used_in_fit and r.metric != "peak_mem_gib"
        )

    assert med(fitted) < med(prior)


def test_estimate_ranges_are_the_conformal_band_and_cover_most_published_rows() -> None:
    cal = load_calibration()
    assert cal.time_log_halfwidth is not None
    band = math.exp(cal.time_log_halfwidth)
    # The rows the model claims to cover (the fitted ones). The rows compared but not fitted lie
    # outside their stated scope: of those, the nine multi-node KempnerForge rows come out 16–40 %
    # fast (the memory-bound 70B 8-GPU one +110 %) at their real 4 × 400 Gbit/s NDR per node.
    rows = [r for r in cal.rows if r.metric != "peak_mem_gib" and r.used_in_fit]
    inside = [r.predicted / band <= r.published <= r.predicted * band for r in rows]
    assert sum(inside) / len(inside) >= 0.8


def test_an_architecture_without_rows_gets_the_wider_band() -> None:
    cal = load_calibration()
    assert "Hopper" in cal.seen_architectures and "Blackwell" not in cal.seen_architectures
    narrow = cal.time_log_halfwidth_for("Ampere", "decoder")
    wide = cal.time_log_halfwidth_for("Blackwell", "decoder")
    assert narrow is not None and wide is not None and wide >= narrow


def test_long_context_rows_are_fitted_and_gain_from_the_causal_fused_kernel() -> None:
    # FlashAttention-2 Table 1 on 8× A100: 1.3B 196 → 220 and 2.7B 205 → 225 model TFLOPs/s per
    # GPU from 2k to 8k context: at 8k attention is ~40 % of the counted FLOPs and the causal kernel
    # skips half of its blocks (counted whole by the formula). In-sample figures (what the shipped
    # calibration predicts), not the held-out accuracy.
    rows = {r.label: r for r in load_calibration().rows if "FlashAttention-2" in r.label}
    assert len(rows) == 4 and all(r.used_in_fit for r in rows.values())
    for size in ("1.3B", "2.7B"):
        short = next(r for k, r in rows.items() if size in k and "seq2048" in k)
        long = next(r for k, r in rows.items() if size in k and "seq8192" in k)
        assert long.published > short.published and long.predicted > short.predicted
        # Within 5.4 % with the attention factor at its literature value (1.0: attention at the
        # matmul efficiency); within 5 % when it was fitted, at a cost to other publishers' rows.
        assert abs(long.error_pct) <= 6.0 and abs(short.error_pct) <= 6.0


def test_parameters_that_do_not_improve_the_grouped_error_stay_at_their_literature_value() -> None:
    # `calibrate.py --ablate` (MLPerf submitters as one publisher): leave-one-publisher-out median
    # 19.8 % with every parameter fitted, 16.1 % with the attention factor held, 15.5 % with the
    # compile speed-up held; the host overhead changes nothing measurable (19.8 %). The shipped fit
    # holds the two (`--hold attention_factor,compile_speedup`) and says so.
    cal = load_calibration()
    assert cal.attention_factor == 1.0 and cal.compile_speedup == 1.3
    assert "held at the literature value: attention_factor, compile_speedup" in cal.source
