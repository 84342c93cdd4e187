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
    # 1.58×: the bandwidth ratio 5,300 / 3,350, because CDNA 3 (no calibration rows) was taken at
    # full efficiency where Hopper fits 0.82: its convolutions at 1.61× the H100's, where the FP16
    # peak ratio is 1.32 (1,307 / 989.5). The step-wide band (1.32-1.58×) hid that; op by op, with
    # the 502 kernels at the launch floor no faster on either, the datasheets allow 1.57×.
    assert p.reference_gpu == "H100-SXM" and p.ratio == pytest.approx(1.58, abs=0.01)
    assert any("credited with better kernels than H100-SXM" in f for f in p.flags)
    assert p.datasheet_high == pytest.approx(1.572, abs=0.001)
    assert any("more than its datasheets allow (1.32–1.57×" in f for f in p.flags)
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
    # Each op is allowed the larger, 2.30, but the 502 kernels at the launch floor (0.5 ms of the
    # H100's 46.9) none: 46.9 / (46.3 / 2.2985 + 0.5) = 2.27.
    assert p.ratio == pytest.approx(2.41, abs=0.02)
    assert p.datasheet_high == pytest.approx(2.266, abs=0.001) and p.datasheet_high < 7700 / 3350
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


A10, A100 = get_gpu("A10"), get_gpu("A100-SXM4-80GB")
#: The A10's datasheet ratios to the A100-SXM4-80GB (NVIDIA A10 and A100 datasheets): BF16 tensor
#: 125 / 312, FP32 CUDA cores 31.2 / 19.5, memory bandwidth 600 / 2,039 GB/s.
_BF16, _FP32, _BANDWIDTH = 125 / 312, 31.2 / 19.5, 600 / 2039


def _reference_op_seconds(profile: Profile) -> list[float]:
    """Each op's seconds on the A100 at its fitted efficiencies (what the ratio is taken against)."""
    from gpuplan.perf.roofline import op_time_s

    cal = replace(load_calibration(), measured=()).for_gpu(A100.id, A100.architecture)
    return [op_time_s(o, A100, profile.precision, cal) for o in profile.ops]


def test_a_step_with_fp32_matmuls_is_bounded_by_its_own_mix_of_paths() -> None:
    # An SDXL-shaped LoRA step with its adapters in FP32: the A100 has 19.5 TFLOPS of FP32 against the
    # A10's 31.2, so those matmuls run 1.6× faster on the A10, and the step lands above the BF16 and
    # bandwidth ratios (0.29-0.40×) without breaking any datasheet. Each op is bounded at its own
    # path's ratio or the bandwidth ratio, whichever is larger.
    from stand_in_profiles import lora_fp32_adapters_profile

    prof = lora_fp32_adapters_profile(fp32_adapter_flops=10e12)
    p = estimate(prof, A10).plausibility
    assert p is not None and p.reference_gpu == A100.id and p.ratio is not None
    assert p.ratio > max(_BF16, _BANDWIDTH) * 1.005
    bf16_s, fp32_s, copy_s = _reference_op_seconds(prof)
    # The copy's traffic is allowed the step-wide band's larger ratio (BF16's), but no more than
    # its 100 GB at the A10's full 600 GB/s.
    copy_a10_s = max(copy_s / _BF16, 100e9 / 600e9)
    high = (bf16_s + fp32_s + copy_s) / (bf16_s / _BF16 + fp32_s / _FP32 + copy_a10_s)
    low = (bf16_s + fp32_s + copy_s) / (bf16_s / _BANDWIDTH + fp32_s / _BANDWIDTH + copy_s / _BANDWIDTH)
    assert p.datasheet_high == pytest.approx(high, rel=1e-9)
    assert p.datasheet_low == pytest.approx(low, rel=1e-9)
    assert p.ratio <= p.datasheet_high
    assert p.flags == ()


def test_a_step_faster_than_its_own_mix_allows_is_flagged_in_those_words() -> None:
    # The same step claimed 1.5× faster on the A10 than its roofline: beyond the FP32 ratio's
    # allowance too, and the flag names the mix its range comes from.
    from stand_in_profiles import lora_fp32_adapters_profile

    prof = lora_fp32_adapters_profile(fp32_adapter_flops=10e12)
    cal = load_calibration()
    step_s = phase_times(prof.ops, A10, prof.precision, cal.for_gpu(A10.id, A10.architecture)).total_s
    p = check(prof, A10, cal, step_s / 1.5)
    assert p.ratio is not None and p.datasheet_high is not None and p.ratio > p.datasheet_high
    beyond = [f for f in p.flags if "more than its datasheets allow" in f]
    assert beyond == [
        f"A10 estimated at {p.ratio:.2f}× A100-SXM4-80GB: more than its datasheets allow "
        f"({p.datasheet_low:.2f}–{p.datasheet_high:.2f}×: the step's own mix of BF16, FP32 and "
        "memory-bound work at the datasheet ratios)"
    ]


def test_a_step_of_one_path_keeps_that_paths_band() -> None:
    # All bf16 matmuls, one call, no shapes: the band is the BF16 peak ratio and the bandwidth ratio,
    # and the flag still names them.
    from perf_helpers import make_profile, op

    prof = make_profile(ops=(op(flops=100e12, bytes_moved=1e9),), task="infer")
    cal = load_calibration()
    step_s = phase_times(prof.ops, A10, prof.precision, cal.for_gpu(A10.id, A10.architecture)).total_s
    p = check(prof, A10, cal, step_s / 1.5)
    assert p.datasheet_high == pytest.approx(_BF16, rel=1e-9)
    assert p.datasheet_low == pytest.approx(_BANDWIDTH, rel=1e-9)
    assert any("(0.29–0.40×: the BF16 peak and memory bandwidth ratios)" in f for f in p.flags)


@pytest.mark.parametrize(
    ("fixture", "gpu_id", "step_band_high"),
    [
        # ResNet-50 inference on one image: 286 kernels, every one at the 3 µs launch floor on both
        # GPUs, so the PCIe part runs it as fast as the SXM one (1.00×), where the step-wide band
        # ended at its FP16 ratio, 756 / 989.5 = 0.76.
        ("resnet50-v1.5-00d833e81a1d79bb.json", "H100-PCIE", 756 / 989.5),
        # A Llama-7B decode step: its GEMMs lose more to tile and wave quantization on the A100's
        # 108 SMs than on the A10's 72 (perf/gemm.py), so the A10 runs them at 0.46× the A100
        # where the BF16 peak ratio is 125 / 312 = 0.40 — the step at 0.43×.
        ("Llama-7B_decode_step,_eager_foundation-model-stack-ef396897f954a9f1.json", "A10", 125 / 312),
    ],
)
def test_launch_floors_and_wave_losses_widen_the_range(
    fixture: str, gpu_id: str, step_band_high: float
) -> None:
    prof = Profile.from_json((PROFILES / fixture).read_text(encoding="utf-8"))
    p = estimate(prof, get_gpu(gpu_id)).plausibility
    assert p is not None and p.ratio is not None and p.datasheet_high is not None
    assert p.ratio > step_band_high * 1.005
    assert p.ratio <= p.datasheet_high
    assert not any("more than its datasheets allow" in f for f in p.flags)


def test_a_flag_is_written_in_the_language_asked_in_after_another_asked() -> None:
    # The check is kept for the next question about the same step; a server answering a Chinese
    # reader first must not hand its words to the English one after.
    from gpuplan.i18n import use_language
    from stand_in_profiles import lora_fp32_adapters_profile

    prof = lora_fp32_adapters_profile(fp32_adapter_flops=10e12)
    cal = load_calibration()
    step_s = phase_times(prof.ops, A10, prof.precision, cal.for_gpu(A10.id, A10.architecture)).total_s
    with use_language("zh"):
        zh = check(prof, A10, cal, step_s / 1.5).flags
    en = check(prof, A10, cal, step_s / 1.5).flags
    assert any("超出规格表所允许的范围" in f for f in zh)
    assert any("more than its datasheets allow" in f for f in en)


def test_an_fp32_convnet_is_not_said_to_move_bytes_past_the_bandwidth() -> None:
    # cuDNN runs FP32 and TF32 convolutions on NCHW tensors without the layout transposes it runs
    # around 16-bit ones; the roofline leaves them out, and the bytes a second must too: with their
    # 11.3 of the step's 32.2 GB counted, an FP32 ResNet-50 step on an L40S "moved its bytes at 138 %
    # of the datasheet's bandwidth".
    prof = Profile.from_json((PROFILES / "resnet50-v1.5-465860fce3e14402.json").read_text(encoding="utf-8"))
    assert prof.precision == "fp32"
    p = estimate(prof, get_gpu("L40S")).plausibility
    assert p is not None and p.bandwidth_fraction <= 1.0
    assert not any("of the datasheet's bandwidth" in f for f in p.flags)


def test_a_causal_models_attention_counts_at_the_causal_share_in_the_peak_fraction() -> None:
    # The roofline times a decoder's fused causal attention at its causal share of the traced FLOPs
    # ((n + 1) / 2n blocks); the "share of the datasheet's peak" had counted them in full.
    from gpuplan.perf.attention import causal_work_fraction
    from gpuplan.perf.plausibility import _dominant_path, _peak
    from gpuplan.perf.roofline import runs_on

    name = "GPT3-1.3B_pretrain_FlashAttention-2-35a02dbc4c12b7ca.json"
    prof = Profile.from_json((PROFILES / name).read_text(encoding="utf-8"))
    assert is_causal(prof) and any(op.op_class == "attention" and op.flops > 0 for op in prof.ops)
    share = causal_work_fraction(prof.seq_len)
    assert share < 1.0
    ran = [op for op in prof.ops if runs_on(op, prof.precision, H100)]
    tensor = sum(
        op.flops * (share if op.op_class == "attention" else 1.0)
        for op in ran
        if op.op_class in ("matmul", "attention", "conv")
    )
    whole = sum(op.flops for op in ran if op.op_class in ("matmul", "attention", "conv"))
    assert tensor < whole
    step_s = 1.0
    p = check(prof, H100, load_calibration(), step_s)
    peak = _peak(H100, _dominant_path(prof, H100))
    assert p.peak_fraction == pytest.approx(tensor / step_s / (peak * 1e12))
