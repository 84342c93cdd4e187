"""Plausibility guards on the known cases: each is flagged where it was estimated so, and its cause
is fixed (the shipped estimate is within bounds).

The step is the traced ResNet-50 v1.5 AMP training step at 256 images per GPU (the calibration
fixture; the README's main example).
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest

from gpuplan.hardware import get_gpu
from gpuplan.perf import estimate, load_calibration
from gpuplan.perf.plausibility import check, power_floor
from gpuplan.perf.roofline import is_causal, phase_times
from gpuplan.profile.model import Profile

PROFILES = Path(__file__).resolve().parents[1] / "calibration" / "fixtures" / "profiles"
H100 = get_gpu("H100-SXM")


@pytest.fixture(scope="module")
def resnet50() -> Profile:
    prof = Profile.from_json((PROFILES / "resnet50-v1.5-554630c7d30796ec.json").read_text(encoding="utf-8"))
    assert (prof.precision, prof.batch_size, prof.task) == ("amp-fp16", 256, "train")
    return prof


def _step_s(profile: Profile, gpu_id: str, cal) -> float:  # type: ignore[no-untyped-def]
    gpu = get_gpu(gpu_id)
    c = cal.for_gpu(gpu.id, gpu.architecture)
    return phase_times(profile.ops, gpu, profile.precision, c, causal=is_causal(profile)).total_s


#: The shipped fit under which the cases were reported (fitted 2026-12-01 on 69 published rows):
#: Hopper's tensor cores at 0.82 of the shared efficiencies, bandwidth at 0.735. The refit on 106
#: rows moves Hopper to 0.97 and narrows every gap (MI300X 1.48×, B200 2.28×, H100-NVL 0.5 % ahead,
#: within the check's slack), so the cases are pinned to the fit they were seen with.
_REPORTED = {
    "arch_factors": (
        ("Ada Lovelace", 1.0072520657211914),
        ("Ampere", 1.0117559007904602),
        ("Hopper", 0.8190954957653832),
        ("Turing", 0.9976770925654942),
        ("Volta", 1.0015677721447687),
    ),
    "attention_factor": 0.5750040604090723,
    "bandwidth_efficiency": 0.735063046194698,
    "tensor_conv_efficiency": 0.4649068892925912,
    "tensor_matmul_efficiency": 0.85693229472192,
    "tensor_tail_gflop_per_call": 16.04242587981834,
    "tf32_factor": 0.5532838562078756,
    "vector_efficiency": 0.9999982370270059,
    "min_kernel_time_us": 3.0,
    "fp8_factor": 1.0,
    # (before the efficiencies were fractions of each GPU's measured achievable matmul rate)
    "matmul_fractions": False,
    # (before the H200's elementwise kernels were measured)
    "elementwise_fractions": (),
    "nchw_norm_fractions": (),
}


def _as_reported():  # type: ignore[no-untyped-def]
    """The calibration of the fit the cases were reported with."""
    return replace(load_calibration(), **_REPORTED)  # type: ignore[arg-type]


def _at_full_efficiency(architecture: str):  # type: ignore[no-untyped-def]
    """That calibration as it was before the fix: an architecture without rows at factor 1."""
    cal = _as_reported()
    return replace(cal, arch_factors=(*cal.arch_factors, (architecture, 1.0)))


def test_mi300x_at_1_58x_an_h100_on_resnet50_is_flagged_and_its_cause_fixed(resnet50: Profile) -> None:
    before = _at_full_efficiency("CDNA 3")
    mi300x = get_gpu("MI300X")
    p = check(resnet50, mi300x, before, _step_s(resnet50, "MI300X", before))
    # 1.58×: exactly the bandwidth ratio 5,300 / 3,350 — at the edge of the datasheets, but only
    # because CDNA 3 (no calibration rows) was taken at full efficiency where Hopper fits 0.82.
    assert p.reference_gpu == "H100-SXM" and p.ratio == pytest.approx(1.58, abs=0.01)
    assert any("credited with better kernels than H100-SXM" in f for f in p.flags)
    fixed = estimate(resnet50, mi300x).plausibility
    assert fixed is not None and fixed.flags == ()
    assert fixed.ratio is not None and fixed.parity_high is not None
    assert fixed.ratio <= fixed.parity_high * 1.005 and fixed.ratio < 1.5


def test_h100_nvl_faster_than_h100_sxm_is_flagged_and_bounded_by_it(resnet50: Profile) -> None:
    cal = _as_reported()
    nvl = get_gpu("H100-NVL")
    raw = _step_s(resnet50, "H100-NVL", cal)
    # The roofline alone puts the 400-W NVL ahead: 16 % more bandwidth on a step 65 % bandwidth-bound.
    assert raw < _step_s(resnet50, "H100-SXM", cal)
    p = check(resnet50, nvl, cal, raw)
    assert any("estimated faster than H100-SXM (700 W), the same chip with more power" in f for f in p.flags)
    fixed = estimate(resnet50, nvl, calibration=cal)
    assert fixed.plausibility is not None and fixed.plausibility.flags == ()
    assert fixed.step_time_s >= estimate(resnet50, H100, calibration=cal).step_time_s
    assert any("bounded by H100-SXM (700 W)" in n for n in fixed.notes)
    # The shipped fit costs the unmeasured NVL at the lowest measured matmul fraction of a Hopper
    # part (the H100 PCIe's), below the SXM part's own: it comes out slower without the bound.
    shipped = estimate(resnet50, nvl)
    assert shipped.step_time_s > estimate(resnet50, H100).step_time_s
    assert not any("bounded by H100-SXM" in n for n in shipped.notes)


def test_b200_at_2_4x_an_h100_on_a_convnet_is_flagged_and_its_cause_fixed(resnet50: Profile) -> None:
    before = _at_full_efficiency("Blackwell")
    b200 = get_gpu("B200")
    p = check(resnet50, b200, before, _step_s(resnet50, "B200", before))
    # 2.4×: above both datasheet ratios (FP16 2,250 / 989.5 = 2.27; bandwidth 7,700 / 3,350 = 2.30).
    assert p.ratio == pytest.approx(2.41, abs=0.02)
    assert p.datasheet_high == pytest.approx(7700 / 3350)
    assert any("more than its datasheets allow" in f for f in p.flags)
    fixed = estimate(resnet50, b200)
    assert fixed.plausibility is not None and fixed.plausibility.flags == ()
    assert fixed.plausibility.ratio is not None and fixed.plausibility.ratio <= 7700 / 3350
    assert any("Blackwell has no calibration rows" in n for n in fixed.notes)


def test_a_step_faster_than_the_datasheet_peak_is_flagged(resnet50: Profile) -> None:
    # A step time 40× shorter than the roofline's (a wrong datasheet figure, a bad fit) runs the
    # tensor work and the traffic past the datasheet's peak and bandwidth.
    cal = load_calibration()
    p = check(resnet50, H100, cal, _step_s(resnet50, "H100-SXM", cal) / 40)
    assert p.peak_fraction > 1 and p.bandwidth_fraction > 1
    assert any("of the datasheet's peak" in f for f in p.flags)
    assert any("of the datasheet's bandwidth" in f for f in p.flags)


def test_the_power_floor_leaves_a_part_without_a_stronger_twin_alone(resnet50: Profile) -> None:
    cal = load_calibration()
    phases = phase_times(resnet50.ops, H100, resnet50.precision, cal.for_gpu(H100.id, H100.architecture))
    assert power_floor(resnet50, H100, cal, phases) == (phases, "")
    # H200 NVL (600 W)'s twin is H200 SXM (700 W, HBM3e), not the H100; it is already slower, so no floor.
    from gpuplan.perf.plausibility import _power_reference

    h200_nvl = get_gpu("H200-NVL")
    twin = _power_reference(h200_nvl)
    assert twin is not None and twin.id == "H200-SXM"
    c = cal.for_gpu(h200_nvl.id, h200_nvl.architecture)
    phases = phase_times(resnet50.ops, h200_nvl, resnet50.precision, c)
    assert power_floor(resnet50, h200_nvl, cal, phases) == (phases, "")


def test_estimate_json_carries_the_check(resnet50: Profile) -> None:
    from gpuplan.perf.sweep import EstimateOutcome
    from gpuplan.report.estimate import estimate_json

    e = estimate(resnet50, get_gpu("B200"))
    doc = estimate_json(resnet50, [EstimateOutcome(gpu="B200", gpu_count=1, estimate=e)], load_calibration())
    row = doc.model_dump(mode="json")["estimates"][0]
    assert row["plausibility"]["reference_gpu"] == "H100-SXM"
    assert row["plausibility"]["flags"] == []
    # Blackwell has no rows: its tensor cores at the lowest fitted factor, its eager elementwise
    # kernels at the lowest measured share (the H100's held to the H200's measured rate).
    assert 1.5 < row["plausibility"]["ratio_to_reference"] <= row["plausibility"]["datasheet_high"]


def test_the_range_never_claims_more_than_the_datasheet() -> None:
    # One bf16 matmul of 71 TFLOP on an RTX 3090 (71 TFLOPS dense, FP32 accumulate) takes at least
    # 1 s. At a fitted efficiency of 1.0 the point is that second; the residual band (×/÷ 1.5)
    # reached down to 0.67 s, 1.5× the datasheet. Its fast end is held to the second.
    from perf_helpers import SIMPLE_CAL, make_profile, op

    from gpuplan.perf.plausibility import datasheet_floor_s

    rtx = get_gpu("RTX-3090")
    prof = make_profile(ops=(op(flops=71e12),), task="infer")
    assert datasheet_floor_s(prof, rtx) == pytest.approx(1.0)
    cal = replace(SIMPLE_CAL, tensor_matmul_efficiency=1.0, time_log_halfwidth=math.log(1.5))
    e = estimate(prof, rtx, calibration=cal)
    assert e.step_time_s == pytest.approx(1.0, rel=0.01)
    assert e.step_time_s_low == pytest.approx(1.0, rel=0.01) and e.step_time_s_high > 1.4


@pytest.mark.parametrize(("gpu_id", "ref_id"), [("RTX-4090", "L40S"), ("RTX-5090", "H100-SXM")])
def test_a_gpu_measured_above_its_reference_is_not_flagged_for_better_kernels(
    resnet50: Profile, gpu_id: str, ref_id: str
) -> None:
    # The GeForce cards' published matmul measurements reach 100-114 % of their rated peaks, the
    # L40S's and H100's 74-80 %: that is evidence about the parts, not kernels credited without it.
    cal = load_calibration()
    assert cal.matmul_fractions
    e = estimate(resnet50, get_gpu(gpu_id))
    p = e.plausibility
    assert p is not None and p.reference_gpu == ref_id and p.ratio is not None and p.parity_high is not None
    assert p.ratio == pytest.approx(p.parity_high, rel=1e-6)
    assert not any("credited with better kernels" in f for f in p.flags)
    # At the reference's own measured fraction instead, the same step would have been flagged.
    gpu, ref = get_gpu(gpu_id), get_gpu(ref_id)
    assert (gpu.matmul_fraction or 0.0) > (ref.matmul_fraction or 1.0) * 1.005


def test_an_unmeasured_part_says_where_its_matmul_fraction_comes_from(resnet50: Profile) -> None:
    notes = " ".join(estimate(resnet50, get_gpu("P100-PCIE-16GB")).notes)
    # No Pascal part is measured: the lowest of NVIDIA's measured parts, said so.
    assert "lowest measured among its vendor's GPUs (none of Pascal is measured)" in notes
    # The unseen architecture's range is said where it is the wider one: with the Ada rows of
    # xFusion's MLPerf runs a left-out publisher's band (×/÷ 1.28) is as wide as a left-out
    # architecture's, and then the publisher one stands without the note.
    cal = load_calibration()
    wider = (cal.time_log_halfwidth_thin or 0.0) > (cal.time_log_halfwidth or 0.0)
    said = "no calibration rows of Pascal: the range is the leave-one-architecture-out one" in notes
    assert said is wider
    notes = " ".join(estimate(resnet50, get_gpu("A10")).notes)
    assert "lowest measured among Ampere GPUs" in notes


def test_a_ratio_over_its_limit_is_written_with_the_digits_that_tell_them_apart() -> None:
    # "0.40× A100 …: more than its datasheets allow (0.29–0.40×)" had called 0.40 out of a range
    # ending at 0.40: the ratio was 0.402 against 0.400.
    from gpuplan.perf.plausibility import _places

    assert _places(0.4021, 0.4003) == 3  # 0.402 against 0.400
    assert _places(2.41, 2.2985) == 2
    assert _places(0.40001, 0.4) == 5
