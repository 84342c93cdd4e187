"""Per-operator roofline arithmetic, with the expected figures worked out in comments."""

from __future__ import annotations

from dataclasses import replace

import pytest
from perf_helpers import make_profile, op

from gpuplan.errors import DataError, EstimateError
from gpuplan.hardware import get_gpu
from gpuplan.perf.calibration import Calibration
from gpuplan.perf.estimate import estimate
from gpuplan.perf.roofline import dtype_path, op_time_s, phase_times

CAL = Calibration(
    tensor_matmul_efficiency=0.7,
    tensor_conv_efficiency=0.5,
    vector_efficiency=0.8,
    bandwidth_efficiency=0.9,
    min_kernel_time_us=5.0,
)
A100 = get_gpu("A100-SXM4-80GB")
V100 = get_gpu("V100-SXM2-16GB")


def test_compute_bound_matmul_uses_bf16_tensor_peak() -> None:
    # 1e12 FLOP / (312e12 × 0.7) = 4.579 ms
    t = op_time_s(op(flops=1e12), A100, "amp-bf16", CAL)
    assert t == pytest.approx(1e12 / (312e12 * 0.7))
    assert t == pytest.approx(4.579e-3, rel=1e-3)


def test_bandwidth_bound_elementwise_uses_memory_bandwidth() -> None:
    # 1e9 B / (2039e9 × 0.9) = 0.545 ms (the FP32 cap, 0 FLOP, does not bind)
    t = op_time_s(op(op_class="other", dtype="float32", bytes_moved=1e9), A100, "fp32", CAL)
    assert t == pytest.approx(1e9 / (2039e9 * 0.9))


def test_batch_norm_over_nchw_in_training_runs_its_elements_at_the_share_measured_for_it() -> None:
    # Measured on the H200 at 0.3 of 4,800 GB/s with elements at 4 bytes: 1e9 B of fp16 norm are
    # 2e9 B as fp32, 2e9 / (4800e9 × 0.3); fp32, its own bytes; plain elementwise ops at 0.5.
    h200 = replace(CAL, elementwise_fractions=(("H200-SXM", 0.5),), nchw_norm_fractions=(("H200-SXM", 0.3),))
    gpu = get_gpu("H200-SXM")
    norm16 = op(op_class="other", dtype="float16", bytes_moved=1e9, name="aten.native_batch_norm:nchw")
    norm32 = op(
        op_class="other", dtype="float32", bytes_moved=1e9, name="aten.native_batch_norm_backward:nchw"
    )
    plain = op(op_class="other", dtype="float16", bytes_moved=1e9, name="aten.native_batch_norm")
    assert op_time_s(norm16, gpu, "amp-fp16", h200) == pytest.approx(2e9 / (4800e9 * 0.3))
    assert op_time_s(norm32, gpu, "fp32", h200) == pytest.approx(1e9 / (4800e9 * 0.3))
    assert op_time_s(plain, gpu, "amp-fp16", h200) == pytest.approx(1e9 / (4800e9 * 0.5))
    # A sibling is held to the measured rate in bytes/s (1,440 GB/s of the H100's 3,350); an
    # architecture the fit saw keeps its fitted rate for them, as for every elementwise op.
    h100 = get_gpu("H100-SXM")
    assert op_time_s(norm16, h100, "amp-fp16", h200) == pytest.approx(2e9 / 1440e9)
    seen = replace(h200, seen_architectures=("Ampere", "Hopper"))
    assert seen.nchw_norm_efficiency("A100-SXM4-80GB") is None
    assert op_time_s(norm16, A100, "amp-fp16", seen) == pytest.approx(1e9 / (2039e9 * 0.9))
    # An architecture without rows is held to the measured rate in bytes/s (the kernels were bound
    # by the SMs, not the bandwidth): the B200's 7,700 GB/s at 1,440 / 7,700, not at 0.3.
    assert seen.nchw_norm_efficiency("B200") == pytest.approx(1440 / 7700)
    assert seen.elementwise_efficiency("B200") == 0.5  # its other eager kernels keep the share
    # Never faster than the GPU's other elementwise kernels, whatever share the table says.
    cheap = replace(h200, nchw_norm_fractions=(("H200-SXM", 0.9),))
    assert op_time_s(norm32, gpu, "fp32", cheap) == pytest.approx(1e9 / (4800e9 * 0.5))
    # Compiled, Inductor writes its own norm kernels: the measured shares do not apply.
    compiled = h200.for_compiled(True)
    assert compiled.nchw_norm_fractions == () and compiled.elementwise_fractions == ()
    assert Calibration.from_json(h200.to_json()).nchw_norm_fractions == h200.nchw_norm_fractions
    with pytest.raises(DataError, match=r"bands >= 1"):
        replace(CAL, nchw_norm_fractions=(("H200-SXM", 0.0),))


def test_pytorch_s_own_elementwise_kernels_run_at_the_share_measured_on_that_gpu() -> None:
    # Measured on the A100 at 0.5 of its 2,039 GB/s: an aten op moves 1e9 B in 1e9 / (2039e9 × 0.5);
    # cuDNN's layout transposes and the hand-fused kernels keep the fitted 0.9, and so does every
    # op on a GPU not measured.
    cal = replace(CAL, elementwise_fractions=(("A100-SXM4-80GB", 0.5),))
    aten = op(op_class="other", dtype="float16", bytes_moved=1e9, name="aten.add")
    assert op_time_s(aten, A100, "amp-fp16", cal) == pytest.approx(1e9 / (2039e9 * 0.5))
    for name in ("cudnn.nchw_nhwc_transpose", "gpuplan.dropout_add_norm"):
        other = op(op_class="other", dtype="float16", bytes_moved=1e9, name=name)
        assert op_time_s(other, A100, "amp-fp16", cal) == pytest.approx(1e9 / (2039e9 * 0.9))
    assert op_time_s(aten, V100, "amp-fp16", cal) == pytest.approx(1e9 / (900e9 * 0.9))
    # A matmul's operand traffic is cuBLAS's, not an elementwise kernel's.
    mm = op(flops=1.0, bytes_moved=1e9)
    assert op_time_s(mm, A100, "amp-bf16", cal) == pytest.approx(1e9 / (2039e9 * 0.9))
    # Another part of the measured chip (H200 NVL: the SXM's chip and memory at a lower power cap)
    # takes the measured share, not the fitted one its twin falls short of.
    h200 = replace(CAL, elementwise_fractions=(("H200-SXM", 0.5),))
    nvl, h100, pcie = get_gpu("H200-NVL"), get_gpu("H100-SXM"), get_gpu("H100-PCIE")
    assert h200.elementwise_measured_on("H200-NVL") == "H200-SXM"
    assert op_time_s(aten, nvl, "amp-fp16", h200) == pytest.approx(1e9 / (4800e9 * 0.5))
    # A sibling of the architecture is held to the measured part's 2,400 GB/s: the H100 SXM's 3,350
    # GB/s at 0.716, below the fitted 0.9; the H100 PCIe's 2,000 GB/s at 0.9 is under it already.
    assert h200.elementwise_measured_on("H100-SXM") == "H200-SXM"
    assert op_time_s(aten, h100, "amp-fp16", h200) == pytest.approx(1e9 / 2400e9)
    assert op_time_s(aten, pcie, "amp-fp16", h200) == pytest.approx(1e9 / (2000e9 * 0.9))
    # Another architecture with calibration rows keeps the fitted share; one without (Blackwell)
    # takes the lowest measured one: no measurement is not a faster kernel.
    assert h200.elementwise_measured_on("A100-SXM4-80GB") is None
    seen = replace(h200, seen_architectures=("Ampere", "Hopper"))
    assert seen.elementwise_efficiency("A100-SXM4-80GB") == 0.9
    assert seen.elementwise_efficiency("B200") == 0.5
    assert seen.elementwise_measured_on("B200") == "H200-SXM"  # (the estimate's note names it)
    # Compiled, Inductor's generated kernels replace PyTorch's own: the fitted share again.
    assert op_time_s(aten, A100, "amp-fp16", cal.for_compiled(True)) == pytest.approx(1e9 / (2039e9 * 0.9))
    assert cal.for_compiled(False) is cal
    # The table round-trips through calibration.json, and a share above 1 is refused.
    assert Calibration.from_json(cal.to_json()).elementwise_fractions == cal.elementwise_fractions
    with pytest.raises(DataError, match=r"bands >= 1"):
        replace(CAL, elementwise_fractions=(("A100-SXM4-80GB", 1.2),))


def test_roofline_takes_the_larger_of_compute_and_memory() -> None:
    # compute 1e10 / (312e12 × 0.7) = 45.8 µs; memory 1e9 / (2039e9 × 0.9) = 545 µs → memory wins
    t = op_time_s(op(flops=1e10, bytes_moved=1e9), A100, "amp-bf16", CAL)
    assert t == pytest.approx(1e9 / (2039e9 * 0.9))


def test_tiny_kernels_cost_at_least_the_minimum_kernel_time() -> None:
    # 1000 calls × 5 µs = 5 ms, far above their 1 MB of traffic
    t = op_time_s(op(op_class="other", bytes_moved=1e6, count=1000), A100, "amp-bf16", CAL)
    assert t == pytest.approx(5e-3)


def test_fp32_matmul_runs_on_vector_units_unless_precision_is_tf32() -> None:
    mm = op(dtype="float32", flops=1e12)
    assert dtype_path(mm, "fp32", A100) == "fp32"
    assert dtype_path(mm, "tf32", A100) == "tf32"
    # 1e12 / (19.5e12 × 0.8) = 64.1 ms vs 1e12 / (156e12 × 0.7) = 9.16 ms
    assert op_time_s(mm, A100, "fp32", CAL) == pytest.approx(1e12 / (19.5e12 * 0.8))
    assert op_time_s(mm, A100, "tf32", CAL) == pytest.approx(1e12 / (156e12 * 0.7))


def test_tf32_is_never_slower_than_fp32_where_the_gpu_has_as_many_fp32_flops() -> None:
    # An L40 has 90.5 TFLOPS of FP32 and as many of dense TF32: at a tensor efficiency below the
    # vector one, a TF32 matmul cost 1e12 / (90.5e12 × 0.7) = 15.8 ms against FP32's 13.8 ms (BERT
    # trained 2× slower in tf32 than in fp32). cuBLAS picks among FP32 and TF32 kernels alike.
    l40 = get_gpu("L40")
    mm = op(dtype="float32", flops=1e12)
    assert op_time_s(mm, l40, "tf32", CAL) == pytest.approx(1e12 / (90.5e12 * 0.8))
    assert op_time_s(mm, l40, "tf32", CAL) == op_time_s(mm, l40, "fp32", CAL)
    # Where TF32 is faster it is taken (A100: 9.16 ms, not FP32's 64.1 ms).
    assert op_time_s(mm, A100, "tf32", CAL) == pytest.approx(1e12 / (156e12 * 0.7))


def test_fp32_conv_uses_tf32_on_ampere_by_cudnn_default_but_not_on_volta() -> None:
    conv = op(op_class="conv", dtype="float32", flops=1e12, name="aten.convolution")
    assert dtype_path(conv, "fp32", A100) == "tf32"
    assert dtype_path(conv, "fp32", V100) == "fp32"
    # 1e12 / (156e12 × 0.5 conv efficiency) = 12.8 ms
    assert op_time_s(conv, A100, "fp32", CAL) == pytest.approx(1e12 / (156e12 * 0.5))


def test_tf32_request_on_volta_falls_back_to_fp32() -> None:
    assert dtype_path(op(dtype="float32", flops=1.0), "tf32", V100) == "fp32"


def test_fp8_on_a100_is_a_one_line_error() -> None:
    p = make_profile(ops=(op(dtype="float8_e4m3fn", flops=1e12),), precision="fp8")
    with pytest.raises(EstimateError, match="fp8 needs Ada, Hopper or Blackwell") as e:
        estimate(p, A100, calibration=CAL)
    assert "A100-SXM4-80GB has no FP8 tensor cores" in str(e.value)
    assert "\n" not in str(e.value)


def test_bf16_on_v100_is_a_one_line_error() -> None:
    p = make_profile(ops=(op(flops=1e12),))
    with pytest.raises(EstimateError, match="bf16 needs Ampere"):
        estimate(p, V100, calibration=CAL)


def test_fp8_runs_at_the_fp8_peak_on_h100() -> None:
    # 1e12 / (1979e12 × 0.7) = 0.722 ms
    t = op_time_s(op(dtype="float8_e4m3fn", flops=1e12), get_gpu("H100-SXM"), "fp8", CAL)
    assert t == pytest.approx(1e12 / (1979e12 * 0.7))


def test_phase_times_sum_by_phase_and_scale_with_batch() -> None:
    ops = (op("forward", flops=1e12), op("backward", flops=2e12), op("optimizer", "other", bytes_moved=1e9))
    ph = phase_times(ops, A100, "amp-bf16", CAL)
    assert ph.forward_s == pytest.approx(1e12 / (312e12 * 0.7))
    assert ph.backward_s == pytest.approx(2 * ph.forward_s)
    half = phase_times(ops, A100, "amp-bf16", CAL, batch_scale=0.5)
    assert half.forward_s == pytest.approx(ph.forward_s / 2)
    assert half.optimizer_s == pytest.approx(ph.optimizer_s)  # optimizer does not scale with batch


def test_ops_without_traffic_or_flops_launch_no_kernel() -> None:
    # views and prim.device: 700 calls, 0 bytes, 0 FLOPs → no time despite the per-kernel floor
    meta = op(op_class="other", count=700, name="prim.device")
    assert op_time_s(meta, A100, "amp-bf16", CAL) == 0.0
    assert phase_times((meta,), A100, "amp-bf16", CAL).kernel_calls == 0


def test_gpu_without_a_published_fp32_peak_borrows_the_a10_ratio() -> None:
    # A10G: no FP32 figure; 70 TFLOPS FP16 tensor × 31.2/125 = 17.5 TFLOPS assumed
    a10g = get_gpu("A10G")
    t = op_time_s(op(dtype="float32", flops=1e12), a10g, "amp-bf16", CAL)
    assert t == pytest.approx(1e12 / (70e12 * 31.2 / 125 * 0.8))
    e = estimate(make_profile(ops=(op(flops=1e12), op(dtype="float32", flops=1e9))), a10g, calibration=CAL)
    assert any("no published FP32 peak" in n for n in e.notes)


def test_each_matmul_call_pays_the_wave_quantization_tail_but_convs_do_not() -> None:
    cal = replace(CAL, tensor_tail_gflop_per_call=2.0)
    # 100 calls of 10 GFLOP: (1e12 + 100 × 2e9) / (312e12 × 0.7) = 5.495 ms, 20 % above the 4.579 ms without
    t = op_time_s(op(flops=1e12, count=100), A100, "amp-bf16", cal)
    assert t == pytest.approx((1e12 + 100 * 2e9) / (312e12 * 0.7))
    assert t / op_time_s(op(flops=1e12, count=100), A100, "amp-bf16", CAL) == pytest.approx(1.2)
    # the same work in one call loses only one tail: 1.002 × the tail-free time
    one = op_time_s(op(flops=1e12, count=1), A100, "amp-bf16", cal)
    assert one == pytest.approx((1e12 + 2e9) / (312e12 * 0.7))
    conv = op(op_class="conv", flops=1e12, count=100, name="aten.convolution")
    assert op_time_s(conv, A100, "amp-bf16", cal) == op_time_s(conv, A100, "amp-bf16", CAL)


def test_fp8_gemms_reach_the_fitted_share_of_their_peak() -> None:
    from dataclasses import replace

    from gpuplan.perf.calibration import PRIOR

    cal = replace(PRIOR, fp8_factor=0.6)
    assert cal.compute_efficiency("fp8", "matmul") == pytest.approx(0.6 * PRIOR.tensor_matmul_efficiency)
    assert cal.compute_efficiency("bf16", "matmul") == PRIOR.tensor_matmul_efficiency


def test_an_fp8_gemm_pays_for_casting_its_operands_once() -> None:
    # forward FP8 GEMM, 1e12 FLOP, 1e9 traced (16-bit) bytes = 5e8 elements of input, weight and
    # output (the backward's output gradient is that size): on Hopper each element costs 2 B read +
    # 1 B FP8 copy + 1 B transposed copy (FP8 GEMMs take only TN there) = 4 B → 2e9 B at 3350e9 × 0.9
    h100, b200 = get_gpu("H100-SXM"), get_gpu("B200")
    fwd = op(dtype="float8_e4m3fn", flops=1e12, bytes_moved=1e9)
    gemm = 1e12 / (1979e12 * 0.7)
    # a calibration that does not cost the casts (its FP8 factor carries them) leaves the GEMM alone
    assert op_time_s(fwd, h100, "fp8", CAL) == pytest.approx(gemm)
    cal = replace(CAL, fp8_casts=True)
    assert op_time_s(fwd, h100, "fp8", cal) == pytest.approx(gemm + 2e9 / (3350e9 * 0.9))
    # Blackwell's FP8 GEMMs take any layout: no transposed copy, 3 B an element (B200: 7700 GB/s)
    assert op_time_s(fwd, b200, "fp8", cal) == pytest.approx(1e12 / (4500e12 * 0.7) + 1.5e9 / (7700e9 * 0.9))
    # the backward GEMMs reuse the casts; a 16-bit GEMM casts nothing
    bwd = op(phase="backward", dtype="float8_e5m2", flops=1e12, bytes_moved=1e9)
    assert op_time_s(bwd, h100, "fp8", cal) == pytest.approx(gemm)
    assert op_time_s(op(flops=1e12, bytes_moved=1e9), h100, "amp-bf16", cal) == pytest.approx(
        1e12 / (989.5e12 * 0.7)
    )


def test_an_estimate_costs_eager_elementwise_ops_at_the_measured_share_and_compiled_ones_not() -> None:
    p = make_profile(
        ops=(op(flops=1e12), op(op_class="other", dtype="bfloat16", bytes_moved=20e9, name="aten.mul"))
    )
    measured = replace(CAL, elementwise_fractions=(("A100-SXM4-80GB", 0.45),))
    eager, plain = (estimate(p, A100, calibration=c).step_time_s for c in (measured, CAL))
    # 20 GB at 0.45 instead of 0.9 of 2,039 GB/s: 10.9 ms more.
    assert eager - plain == pytest.approx(20e9 / (2039e9 * 0.45) - 20e9 / (2039e9 * 0.9), rel=0.02)
    compiled = estimate(p, A100, calibration=measured, compiled=True).step_time_s
    assert compiled == pytest.approx(estimate(p, A100, calibration=CAL, compiled=True).step_time_s)


def test_an_elementwise_op_slowed_by_the_measured_share_is_not_called_compute_bound() -> None:
    # 1 GB at 0.5 of 2,039 GB/s: 0.981 ms; its 1.17e10 FLOP at 0.8 of 19.5 TFLOPS: 0.75 ms, longer
    # than the bytes at the fitted 0.9 (0.545 ms) but not than at the measured share.
    cal = replace(CAL, elementwise_fractions=(("A100-SXM4-80GB", 0.5),))
    mul = op(op_class="other", dtype="float32", flops=1.17e10, bytes_moved=1e9, name="aten.mul")
    phases = phase_times((mul,), A100, "fp32", cal)
    assert phases.total_s == pytest.approx(1e9 / (2039e9 * 0.5))
    assert phases.compute_bound_s == 0.0
