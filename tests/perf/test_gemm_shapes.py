"""Efficiency from shapes (``perf/gemm.py``): tile and wave quantization, split-K, small k, narrow
tiles and short attention heads, worked by hand on the A100's 108 SMs."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpuplan.hardware import get_gpu
from gpuplan.perf.calibration import PRIOR, Calibration
from gpuplan.perf.gemm import (
    MISALIGNED_RATE,
    UNKNOWN_SM_COUNTS,
    alignment_elements,
    attention_multiplier,
    gemm_multiplier,
    misaligned_rate,
    scaled_shapes,
    split_shapes,
    tile_rate,
)
from gpuplan.perf.roofline import op_time_s
from gpuplan.profile.model import OpRecord

KW = {"k_overhead": 64.0, "tile_overhead": 32.0}


def _gemm(m: int, n: int, k: int, sms: int | None = 108, b: int = 1, **kw: float) -> float:
    return gemm_multiplier(((1, b, m, n, k),), sms, **(KW | kw))


def test_a_large_gemm_loses_only_its_tiles_fixed_cost() -> None:
    # 8192 × 4096 on 256×128 tiles: 32 × 32 = 1024 tiles = 9.48 waves of 108 → 10 waves (5.5 % idle);
    # k = 4096 + 64 → 1.6 %: (10 × 108 / 1024) × 4160 / 4096 = 1.0712
    assert _gemm(8192, 4096, 4096) == pytest.approx(10 * 108 / 1024 * 4160 / 4096)


def test_a_gemm_one_tile_over_a_wave_pays_a_second_wave() -> None:
    # 109 tiles of 256×128 (k large, no split): 2 waves for 109/108 of a wave's work
    exact = _gemm(256 * 108, 128, 65536, k_overhead=0.0)
    over = _gemm(256 * 109, 128, 65536, k_overhead=0.0)
    assert exact == pytest.approx(1.0)
    assert over > 1.5 * exact


def test_few_tiles_split_k_instead_of_idling_the_sms() -> None:
    # a weight gradient 1024 × 1024 with k = 32768 tokens: 32 tiles of 256×128 would fill 30 % of
    # the SMs; split-K (×4 → 128 tiles... or smaller tiles) keeps the multiplier near 1
    assert _gemm(1024, 1024, 32768) < 1.35
    # without split-K (k too short to split) the same 32 tiles leave the GPU mostly idle
    assert _gemm(1024, 1024, 128) > 2.0


def test_small_k_and_narrow_layers_are_less_efficient_than_large_ones() -> None:
    big = _gemm(16384, 4096, 4096)
    assert _gemm(16384, 4096, 256) > big * 1.2  # small k: the fixed 64 weighs 25 %
    assert _gemm(16384, 256, 4096) > big  # narrow: small tiles or idle SMs
    assert tile_rate(256, 128, 32.0) == 1.0
    assert tile_rate(64, 64, 32.0) == pytest.approx((1 + 32 * (1 / 256 + 1 / 128)) / (1 + 32 / 32))


def test_more_sms_waste_more_on_a_small_gemm() -> None:
    # 2048 × 768 × 768 (a BERT-base layer at 2k tokens): 96 tiles of 128×128 fill 108 SMs but not 132
    assert _gemm(2048, 768, 768, sms=132) >= _gemm(2048, 768, 768, sms=108)


def test_an_unknown_sm_count_is_costed_at_the_worst_plausible_one() -> None:
    shape = (2048, 768, 768)
    worst = max(_gemm(*shape, sms=s) for s in UNKNOWN_SM_COUNTS)
    assert _gemm(*shape, sms=None) == pytest.approx(worst)
    assert get_gpu("A10G").sm_count is None and get_gpu("A100-SXM4-80GB").sm_count == 108


def test_attention_short_heads_and_few_blocks_cost_more() -> None:
    long = attention_multiplier(((1, 8 * 32, 4096, 4096, 128),), 108, head_overhead=32.0, backward=False)
    # 256 (batch × heads) × 32 query blocks = 8192 blocks = 75.9 waves → 76; head 128 + 32
    assert long == pytest.approx(76 * 108 / 8192 * 160 / 128)
    short_head = attention_multiplier(((1, 8 * 32, 4096, 4096, 64),), 108, head_overhead=32.0, backward=False)
    assert short_head > long
    # one sequence of 512 with 12 heads: 48 blocks on 108 SMs — most of the GPU idles
    few = attention_multiplier(((1, 12, 512, 512, 64),), 108, head_overhead=32.0, backward=False)
    assert few > 2 * long


def test_matmul_time_on_the_roofline_carries_the_shape_multiplier() -> None:
    a100 = get_gpu("A100-SXM4-80GB")
    cal = replace(PRIOR, tensor_tail_gflop_per_call=5.0, gemm_shapes=True)
    flops = 2.0 * 2048 * 768 * 768
    shaped = OpRecord(op="aten.mm", op_class="matmul", phase="forward", dtype="bfloat16", count=1,
                      flops=flops, bytes_moved=0.0, shapes=((1, 1, 2048, 768, 768),))  # fmt: skip
    bare = replace(shaped, shapes=())
    peak = 312e12 * cal.tensor_matmul_efficiency
    assert op_time_s(shaped, a100, "amp-bf16", cal) == pytest.approx(
        flops * gemm_multiplier(shaped.shapes, 108, k_overhead=64.0, tile_overhead=32.0) / peak
    )
    # a record traced without shapes (older profile), or a calibration that does not cost shapes
    # (the shipped one), keeps the per-call tail
    assert op_time_s(bare, a100, "amp-bf16", cal) == pytest.approx((flops + 5e9) / peak)
    plain = replace(cal, gemm_shapes=False)
    assert op_time_s(shaped, a100, "amp-bf16", plain) == pytest.approx((flops + 5e9) / peak)


def test_each_shaped_matmul_call_pays_the_fixed_call_time_and_nothing_else_does() -> None:
    a100 = get_gpu("A100-SXM4-80GB")
    cal = replace(PRIOR, gemm_shapes=True, gemm_call_us=5.0)
    flops = 2.0 * 2048 * 768 * 768
    shaped = OpRecord(op="aten.mm", op_class="matmul", phase="forward", dtype="bfloat16", count=3,
                      flops=3 * flops, bytes_moved=0.0, shapes=((3, 1, 2048, 768, 768),))  # fmt: skip
    without = op_time_s(shaped, a100, "amp-bf16", replace(cal, gemm_call_us=0.0))
    assert op_time_s(shaped, a100, "amp-bf16", cal) == pytest.approx(without + 3 * 5e-6)
    # not a record without shapes, not with shapes off, not an attention call
    bare = replace(shaped, shapes=())
    assert op_time_s(bare, a100, "amp-bf16", cal) == op_time_s(
        bare, a100, "amp-bf16", replace(cal, gemm_call_us=0.0)
    )
    off = replace(cal, gemm_shapes=False)
    assert op_time_s(shaped, a100, "amp-bf16", off) == op_time_s(
        shaped, a100, "amp-bf16", replace(off, gemm_call_us=0.0)
    )
    attn = replace(shaped, op="aten._scaled_dot_product_flash_attention", op_class="attention",
                   shapes=((3, 32, 2048, 2048, 128),))  # fmt: skip
    assert op_time_s(attn, a100, "amp-bf16", cal) == op_time_s(
        attn, a100, "amp-bf16", replace(cal, gemm_call_us=0.0)
    )


def test_a_misaligned_gemm_runs_at_the_fallback_kernels_rate() -> None:
    # GPT-2's output layer, 8 × 1,024 tokens into a vocabulary of 50,257 (odd: no 16-byte loads).
    aligned = _gemm(8192, 50304, 768, alignment=8)
    odd = _gemm(8192, 50257, 768, alignment=8, misaligned_rate=MISALIGNED_RATE)
    unchecked = _gemm(8192, 50257, 768, misaligned_rate=MISALIGNED_RATE)  # alignment 0: not checked
    assert odd == pytest.approx(_gemm(8192, 50257, 768) / MISALIGNED_RATE)
    assert unchecked == pytest.approx(_gemm(8192, 50257, 768))
    assert odd / aligned == pytest.approx(1 / MISALIGNED_RATE, rel=0.01)  # the padding itself costs ~0.1 %
    # The forward's m is the tokens, a row count: 8,191 of them stay aligned; in the backward m is
    # the weight gradient's leading dimension, so it counts there.
    assert _gemm(8191, 4096, 768, alignment=8, misaligned_rate=0.5) == pytest.approx(_gemm(8191, 4096, 768))
    assert _gemm(50257, 768, 8192, alignment=8, misaligned_rate=0.5, backward=True) == pytest.approx(
        2 * _gemm(50257, 768, 8192)
    )


def test_alignment_is_16_bytes_of_the_operands_type() -> None:
    dtypes = ("bfloat16", "float16", "float32", "float8_e4m3fn")
    assert [alignment_elements(d) for d in dtypes] == [8, 8, 4, 16]


def test_misalignment_costs_ada_s_rate_on_ampere_the_measured_one_on_hopper_and_the_worst_unseen() -> None:
    cal = replace(PRIOR, gemm_shapes=True, gemm_call_us=0.0, misaligned_gemm_rates=(("H200-SXM", 0.2),))
    flops = 2.0 * 8192 * 50257 * 768
    head = OpRecord(op="aten.mm", op_class="matmul", phase="forward", dtype="bfloat16", count=1,
                    flops=flops, bytes_moved=0.0, shapes=((1, 1, 8192, 50257, 768),))  # fmt: skip
    padded = replace(head, flops=2.0 * 8192 * 50304 * 768, shapes=((1, 1, 8192, 50304, 768),))

    def ratio(gpu_id: str, c: Calibration = cal) -> float:
        gpu = get_gpu(gpu_id)
        return op_time_s(head, gpu, "amp-bf16", c) / op_time_s(padded, gpu, "amp-bf16", c)

    assert ratio("A100-SXM4-80GB") == pytest.approx(1 / MISALIGNED_RATE, rel=0.01)
    # Measured on an H200: every Hopper part takes it, an H100 as much as the H200 itself.
    assert ratio("H100-SXM") == pytest.approx(1 / 0.2, rel=0.01)
    assert ratio("H200-SXM") == pytest.approx(1 / 0.2, rel=0.01)
    # An architecture neither measured nor on Ada's kernels takes the worst rate known ...
    assert ratio("B200") == pytest.approx(1 / 0.2, rel=0.01)
    assert misaligned_rate("Blackwell", {"Hopper": 0.9}) == MISALIGNED_RATE
    # ... and with nothing measured, Hopper is not taken as free: Ada's rate, the only one known.
    assert ratio("H100-SXM", replace(cal, misaligned_gemm_rates=())) == pytest.approx(
        1 / MISALIGNED_RATE, rel=0.01
    )
    a100 = get_gpu("A100-SXM4-80GB")
    # FP32 on the CUDA cores (no TF32) has no tensor-core kernels to fall back from.
    fp32 = replace(head, dtype="float32")
    fp32_padded = replace(padded, dtype="float32")
    assert op_time_s(fp32, a100, "fp32", cal) / op_time_s(fp32_padded, a100, "fp32", cal) == pytest.approx(
        1.0, abs=0.01
    )


def test_batch_scaling_and_tensor_parallel_split_the_right_dimension() -> None:
    assert scaled_shapes(((2, 1, 4096, 1024, 1024),), 0.5) == ((2, 1, 2048, 1024, 1024),)
    assert scaled_shapes(((2, 96, 128, 128, 64),), 2.0) == ((2, 192, 128, 128, 64),)
    # column-parallel forward (tokens × hidden → 3·hidden): n split; row-parallel: k split
    assert split_shapes(((1, 1, 8192, 3072, 1024),), False, 4) == ((1, 1, 8192, 768, 1024),)
    assert split_shapes(((1, 1, 8192, 1024, 4096),), False, 4) == ((1, 1, 8192, 1024, 1024),)
    # weight gradient (in × out, k = tokens): the hidden dimension of the weight, not the tokens
    assert split_shapes(((1, 1, 1024, 3072, 8192),), False, 4) == ((1, 1, 1024, 768, 8192),)
    assert split_shapes(((1, 64, 2048, 2048, 128),), True, 8) == ((1, 8, 2048, 2048, 128),)


def test_a_measured_misaligned_rate_outside_0_to_1_is_refused() -> None:
    from gpuplan.errors import GpuplanError

    for bad in (0.0, 1.5):
        with pytest.raises(GpuplanError, match=r"refit calibration\.json"):
            replace(PRIOR, misaligned_gemm_rates=(("H200-SXM", bad),))
