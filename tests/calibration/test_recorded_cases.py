"""Steps measured on a real GPU as calibration rows: the shipped file is the recordings' own, and
a recording that did not run the workload as stated stays out."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from gpuplan.calibration.cases import load_cases
from gpuplan.calibration.published import read_data
from gpuplan.calibration.recorded_cases import RECORDED_PUBLISHER, recorded_cases

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

from recorded_rows import DEFAULT, host_overhead, rows  # noqa: E402


def _recordings() -> list[dict[str, Any]]:
    return [json.loads(t) for t in DEFAULT.read_text(encoding="utf-8").splitlines() if t.strip()]


def test_the_shipped_rows_are_the_committed_recordings_own() -> None:
    kept, left = rows(_recordings(), str(DEFAULT.relative_to(REPO)))
    shipped = json.loads(read_data("recorded_steps.json"))
    assert shipped["rows"] == json.loads(json.dumps(kept))
    assert len(kept) >= 25
    assert {r["gpu"] for r in kept} == {"H200-SXM"}
    # Every left-out recording says why.
    assert all(": " in why for why in left)


def _line(
    label: str, spec: dict[str, Any], *, notes: tuple[str, ...] = (), busy_s: float = 0.095
) -> dict[str, Any]:
    return {
        "kind": "case",
        "label": label,
        "workload": spec,
        "recording": {
            "device": {
                "gpu_id": "H200-SXM",
                "name": "NVIDIA H200",
                "driver_version": "580",
                "cuda_version": "13.0",
                "torch_version": "2.11.0",
                "host": "vm",
            },
            "run": {"timed_steps": 5, "measured_at": "2026-12-04T17:00:00+00:00"},
            "step_time": {"median_s": 0.1, "low_s": 0.09, "high_s": 0.11},
            "kernel_time_s": {"busy_s": busy_s},
            "notes": list(notes),
        },
    }


def _spec(name: str, **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "model": {"preset": "resnet50"},
        "task": "train",
        "precision": "amp-fp16",
        "inputs": {"batch_size": 64, "image_size": 224},
        **extra,
    }


def test_a_step_measure_did_not_run_as_stated_is_left_out() -> None:
    lines = [
        _line("plain", _spec("plain")),
        _line("same workload, another name", _spec("other name")),
        _line("compiled", _spec("c", compile=True)),
        _line("fused", _spec("f", stack={"fused_kernels": ["cross-entropy"]})),
        _line("tf32 before the switch", _spec("t", precision="tf32")),
        _line("tf32 after", _spec("t2", precision="tf32"), notes=("fp32 matmuls ran in TF32",)),
        _line("a sweep's middle batch", _spec("dle-rn50-infer-fp32-bs16")),
        _line("host-bound", _spec("h", inputs={"batch_size": 1, "image_size": 224}), busy_s=0.02),
        {"kind": "case", "label": "stopped", "workload": _spec("s"), "error": "boom"},
    ]
    kept, left = rows(lines, "x.jsonl")
    assert [r["label"] for r in kept] == ["plain", "tf32 after"]
    reasons = " ".join(left)
    for word in (
        "same workload",
        "compiled",
        "hand-fused",
        "full FP32",
        "sweep",
        "host-bound",
        "not recorded",
    ):
        assert word in reasons


def test_a_recorded_case_is_one_gpu_one_micro_batch_its_batch_over_the_step() -> None:
    cases, text = recorded_cases()
    assert text == read_data("recorded_steps.json")
    by_label = {c.label: c for c in cases}
    assert len(by_label) == len(cases)  # labels are the fit's keys: unique
    document = json.loads(text)
    for row, case in zip(document["rows"], cases, strict=True):
        assert case.publisher == RECORDED_PUBLISHER and not case.workload.get("compile")
        assert not (case.workload.get("stack") or {}).get("fused_kernels")
        assert case.gpu_count == 1 and case.grad_accum_steps == 1  # measure steps the optimizer each time
        assert case.published == pytest.approx(row["workload"]["inputs"]["batch_size"] / row["step_s"])
        # The machine's CPU as measured, not the fitted host overhead the published rows set.
        assert case.host_overhead_us == document["machine"]["host_overhead_us"]
    # A spec that accumulates (BERT pre-training phase 1, 32 micro-batches) is still one step.
    assert any(c.workload.get("gradient_accumulation", 1) > 1 for c in cases)
    # Both stack levels: plain PyTorch, and channels-last (a tuned layout) where the workload says so.
    assert {c.stack_level for c in cases} == {"stock", "tuned"}


def test_the_fit_reads_the_recorded_cases_under_labels_of_their_own() -> None:
    cases, _ = load_cases()
    recorded = [c for c in cases if c.publisher == RECORDED_PUBLISHER]
    assert len(recorded) == len(recorded_cases()[0])
    assert all(c.used_in_fit for c in recorded)
    labels = [c.label for c in cases]
    assert len(labels) == len(set(labels))


def test_the_machine_s_host_overhead_is_its_host_bound_steps_issue_time_per_kernel() -> None:
    lines = [
        _line("host-bound a", _spec("a"), busy_s=0.01),
        _line("host-bound b", _spec("b"), busy_s=0.02),
        _line("host-bound, compiled", _spec("c", compile=True), busy_s=0.01),
        _line("GPU-bound", _spec("g")),
    ]
    issue = {"a": 0.09, "b": 0.06, "c": 0.01, "g": 0.05}
    for line in lines:
        line["recording"]["step_time"]["issue_s"] = issue[line["workload"]["name"]]
    calls = {"a": 3000, "b": 1000, "c": 10, "g": 1000}
    us, used = host_overhead(lines, lambda spec: calls[spec["name"]])
    # a: 30 µs, b: 60 µs; the compiled step launches other kernels than its trace, the GPU-bound one
    # waits on the GPU.
    assert used == ["host-bound a", "host-bound b"] and us == pytest.approx(45.0)
    with pytest.raises(ValueError, match="no host-bound"):
        host_overhead(lines[3:], lambda spec: 1)


def test_a_recorded_case_does_not_pull_the_fitted_host_overhead() -> None:
    from dataclasses import replace

    from gpuplan.calibration.cases import predict
    from gpuplan.perf.calibration import load_calibration
    from gpuplan.profile.model import Profile

    profiles = REPO / "tests" / "calibration" / "fixtures" / "profiles"
    case = recorded_cases()[0][0]
    prof = Profile.from_json((profiles / case.profile_file).read_text(encoding="utf-8"))
    cal = load_calibration()
    assert predict(case, prof, cal) == predict(
        case, prof, replace(cal, host_overhead_us=5 * cal.host_overhead_us)
    )


def test_the_gpu_s_elementwise_share_is_its_rows_bytes_over_their_memory_class_time() -> None:
    from recorded_rows import elementwise_fraction

    lines = [_line(name, _spec(name)) for name in ("a", "b", "c", "whole-not", "not-kept")]
    memory = {"a": 0.01, "b": 0.02, "c": 0.04, "whole-not": 0.01, "not-kept": 0.01}
    for line in lines:
        line["recording"]["kernel_time_s"]["memory"] = memory[line["workload"]["name"]]
    # Recorded before measure left the optimizer's span out: its split is longer than the step.
    lines[3]["recording"]["kernel_time_s"]["busy_s"] = 0.2
    bw = 4800e9  # the H200's datasheet bandwidth
    nbytes = 0.5 * bw * 0.01  # half the datasheet rate over a's 10 ms
    median, per_row = elementwise_fraction(lines, {"a", "b", "c", "whole-not"}, lambda spec: nbytes)
    assert per_row == pytest.approx({"a": 0.5, "b": 0.25, "c": 0.125})
    assert median == pytest.approx(0.25)
    with pytest.raises(ValueError, match="no GPU-bound"):
        elementwise_fraction(lines, {"whole-not"}, lambda spec: nbytes)


def test_the_nchw_norm_share_is_what_is_left_of_the_memory_time_over_the_norms_elements() -> None:
    from recorded_rows import nchw_norm_fraction

    lines = [_line(name, _spec(name)) for name in ("a", "b", "no-norm", "whole-not")]
    for line in lines:
        line["recording"]["kernel_time_s"]["memory"] = 0.02
    lines[3]["recording"]["kernel_time_s"]["busy_s"] = 0.2
    bw = 4800e9
    # 10 ms of the 20 are the other elementwise bytes at the 0.5 share; the norms' elements (at 4
    # bytes) fill the other 10 ms at 0.25 (a) and 0.125 (b) of the bandwidth.
    other = 0.5 * bw * 0.01
    norms = {"a": 0.25 * bw * 0.01, "b": 0.125 * bw * 0.01, "no-norm": 0.0, "whole-not": 1.0}
    median, per_row = nchw_norm_fraction(
        lines, {"a", "b", "no-norm", "whole-not"}, lambda spec: (other, norms[spec["name"]]), 0.5
    )
    assert per_row == pytest.approx({"a": 0.25, "b": 0.125})
    assert median == pytest.approx(0.1875)
    with pytest.raises(ValueError, match="no GPU-bound"):
        nchw_norm_fraction(lines, {"no-norm"}, lambda spec: (other, 0.0), 0.5)


def test_the_misaligned_rate_is_the_eager_gemm_time_left_once_the_compiled_twin_s_rate_holds() -> None:
    from recorded_rows import misaligned_gemm_rate

    eager, compiled = _spec("gpt2", compile=False), _spec("gpt2 compiled", compile=True)
    aligned_only = _spec("aligned", batch=1)
    lines = [_line("eager", eager), _line("compiled", compiled), _line("no twin", aligned_only)]
    # The model: 10 ms of aligned shapes, 4 of misaligned ones, at one rate. The compiled twin ran
    # its GEMMs in 7 ms (0.5 measured s a modelled s); eager, 5 of its 22 are the aligned shapes',
    # so the misaligned shapes took 17 ms where 2 were modelled at the twin's rate: 2/17.
    lines[0]["recording"]["kernel_time_s"]["gemm"] = 0.022
    lines[1]["recording"]["kernel_time_s"]["gemm"] = 0.007
    for line in lines:
        line["recording"]["kernel_time_s"]["busy_s"] = 0.05
        line["recording"]["step_time"]["median_s"] = 0.06
    split = {False: (0.010, 0.004, 0.0), True: (0.010, 0.004, 0.0)}
    median, per_row = misaligned_gemm_rate(lines, lambda spec, gpu: split[bool(spec.get("compile"))])
    assert per_row == pytest.approx({"eager": 0.5 * 0.004 / (0.022 - 0.5 * 0.010)})
    assert median == pytest.approx(2 / 17)
    # Too few misaligned shapes to say anything, or convolutions in the class: no figure.
    with pytest.raises(ValueError, match="no eager recording"):
        misaligned_gemm_rate(lines, lambda spec, gpu: (0.010, 0.0005, 0.0))
    with pytest.raises(ValueError, match="no eager recording"):
        misaligned_gemm_rate(lines, lambda spec, gpu: (0.010, 0.004, 0.002))
    # A twin whose kernel split holds the optimizer's span (busy beyond the step) is not read.
    lines[1]["recording"]["kernel_time_s"]["busy_s"] = 0.2
    with pytest.raises(ValueError, match="no eager recording"):
        misaligned_gemm_rate(lines, lambda spec, gpu: split[bool(spec.get("compile"))])


def test_the_fit_starts_from_the_shipped_measurement_of_the_recording_gpu() -> None:
    from gpuplan.calibration.recorded_cases import measured_shares
    from gpuplan.perf.calibration import load_calibration

    machine = json.loads(read_data("recorded_steps.json"))["machine"]
    shares = measured_shares()
    assert shares == {
        "elementwise_fractions": (("H200-SXM", machine["elementwise_fraction"]),),
        "nchw_norm_fractions": (("H200-SXM", machine["nchw_norm_fraction"]),),
        "misaligned_gemm_rates": (("H200-SXM", machine["misaligned_gemm_rate"]),),
    }
    # Measured, not fitted: the shipped calibration carries the measured values unchanged.
    cal = load_calibration()
    assert (cal.elementwise_fractions, cal.nchw_norm_fractions, cal.misaligned_gemm_rates) == tuple(
        shares.values()
    )
    # GPT-2's output layer (vocabulary 50,257) on the H200: far below Ada's fallback rate.
    assert 0.05 < machine["misaligned_gemm_rate"] < 0.5
    assert 0.2 < machine["elementwise_fraction"] < 1.0
    # The norms' rows agree in 16-bit and fp32 once their elements count at 4 bytes, below the rest.
    by_row = machine["nchw_norm_by_row"]
    assert len(by_row) >= 3 and max(by_row.values()) < 1.2 * min(by_row.values())
    assert machine["nchw_norm_fraction"] < machine["elementwise_fraction"]


def test_a_machine_without_a_misaligned_pair_ships_no_rate_rather_than_a_made_up_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gpuplan.calibration.recorded_cases as rc

    document = json.loads(read_data("recorded_steps.json"))
    del document["machine"]["misaligned_gemm_rate"]
    monkeypatch.setattr(rc, "read_data", lambda name: json.dumps(document))
    shares = rc.measured_shares()
    assert shares["misaligned_gemm_rates"] == ()
    assert shares["elementwise_fractions"] == (("H200-SXM", document["machine"]["elementwise_fraction"]),)
