"""A GPU that lacks the tensor cores of a workload's precision names the precision to use instead:
the one that keeps the weights as wide as the workload wrote them."""

from __future__ import annotations

import pytest

from gpuplan.errors import UnknownChoiceError
from gpuplan.hardware import get_gpu
from gpuplan.perf.roofline import precision_refusal
from gpuplan.vocab import Precision


@pytest.mark.parametrize(
    ("precision", "gpu", "instead"),
    [
        # was "(use amp-fp16)": fp32 weights under autocast, which put an 8B model served in bf16
        # (16.9-21.8 GiB on an A10G) at 31.8-40.3 GiB on a T4's neighbours and 3 A100s for one
        ("bf16", "T4", "(use fp16-master: fp16 weights)"),
        ("bf16-master", "V100-SXM2-32GB", "(use fp16-master: fp16 weights)"),
        ("amp-bf16", "T4", "(use amp-fp16)"),
        ("fp8", "A100-SXM4-80GB", "(use bf16 or amp-bf16)"),
        ("fp8", "V100-SXM2-32GB", "(use fp16-master or amp-fp16)"),
    ],
)
def test_the_precision_named_instead_keeps_the_weights_width(precision: str, gpu: str, instead: str) -> None:
    refusal = precision_refusal(precision, get_gpu(gpu))
    assert refusal is not None and str(refusal).endswith(instead), str(refusal)


def test_half_precision_weights_are_pointed_at_fp16_master() -> None:
    # was: "did you mean 'bf16' or 'amp-fp16' or 'fp8'?" for precision: fp16
    with pytest.raises(UnknownChoiceError, match="did you mean 'fp16-master'"):
        Precision.cast("fp16")
