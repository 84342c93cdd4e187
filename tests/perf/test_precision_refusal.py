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
