"""A GPU that lacks a precision's tensor cores is refused before the trace with the error its
estimate would end in — on every GPU, for every precision."""

from __future__ import annotations

import pytest
from perf_helpers import SIMPLE_CAL, make_profile, op

from gpuplan.errors import EstimateError
from gpuplan.hardware import all_gpus
from gpuplan.perf.estimate import estimate
from gpuplan.perf.roofline import precision_refusal
from gpuplan.vocab import Precision

#: The dtype the trace gives a precision's matmuls (what the estimate then reads).
MATMUL_DTYPE = {
    "fp32": "float32",
    "tf32": "float32",
    "amp-fp16": "float16",
    "amp-bf16": "bfloat16",
    "bf16": "bfloat16",
    "fp8": "float8_e4m3fn",
    "fp16-master": "float16",
    "bf16-master": "bfloat16",
}


@pytest.mark.parametrize("precision", [p.value for p in Precision])
def test_the_refusal_before_the_trace_is_the_estimates_own(precision: str) -> None:
    profile = make_profile(
        ops=(op(dtype=MATMUL_DTYPE[precision], flops=1e12, bytes_moved=1e9),), precision=precision
    )
    refused = 0
    for gpu in all_gpus():
        before = precision_refusal(precision, gpu)
        try:
            estimate(profile, gpu, calibration=SIMPLE_CAL)
            after = None
        except EstimateError as e:
            after = str(e)
        assert (str(before) if before else None) == after, (gpu.id, precision)
        refused += before is not None
    # fp8 and bf16 leave out the older GPUs; fp32 and tf32 leave out none that has a datasheet.
    if precision in ("fp8", "bf16", "amp-bf16", "bf16-master"):
        assert refused > 0


def test_fp8_hardware_without_a_published_rate_is_unknown_not_absent() -> None:
    from gpuplan.hardware import get_gpu
    from gpuplan.perf.roofline import has_fp8_tensor_cores

    # The RTX 5090 (Blackwell, compute capability 12.0) has FP8 tensor cores; NVIDIA publishes
    # no FP8 rate with FP32 accumulate for it, so the datasheet row leaves it unknown.
    rtx5090 = get_gpu("RTX-5090")
    assert rtx5090.peak_tflops("fp8") is None and has_fp8_tensor_cores(rtx5090)
    said = str(precision_refusal("fp8", rtx5090))
    assert "has FP8 tensor cores but no published FP8 rate" in said and "has no FP8" not in said
    for gpu in all_gpus():
        if gpu.architecture in ("Ada Lovelace", "Hopper", "Blackwell", "CDNA 3"):
            assert has_fp8_tensor_cores(gpu), gpu.id
        elif gpu.architecture in ("Pascal", "Volta", "Turing", "Ampere"):
            assert not has_fp8_tensor_cores(gpu), gpu.id
            assert gpu.peak_tflops("fp8") is None, gpu.id


@pytest.mark.parametrize(("precision", "word"), [("amp-bf16", "BF16"), ("amp-fp16", "FP16")])
def test_half_precision_hardware_without_a_published_rate_is_unknown_not_absent(
    precision: str, word: str
) -> None:
    import dataclasses

    from gpuplan.hardware import get_gpu

    # An Ada part has BF16 and FP16 tensor cores; a row that gives no rate for them (as the L20's
    # did before its rate was derived and measured) leaves them unknown: the refusal says so, not
    # that the hardware lacks them.
    unrated = dataclasses.replace(get_gpu("L20"), bf16_tflops=None, fp16_tflops=None)
    assert unrated.peak_tflops("bf16") is None and unrated.peak_tflops("fp16") is None
    said = str(precision_refusal(precision, unrated))
    assert f"has {word} tensor cores but no published {word} rate" in said, said
    assert "has no BF16" not in said and "use amp-fp16" not in said
    # A part without BF16 tensor cores (Volta) is still told it lacks them.
    assert "has no BF16 tensor cores" in str(precision_refusal("amp-bf16", get_gpu("V100-SXM2-16GB")))
