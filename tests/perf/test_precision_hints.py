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


def test_fp16_is_pointed_at_amp_fp16_first_saying_how_it_differs_from_fp16_master() -> None:
    # was "did you mean 'bf16' or 'amp-fp16' or 'fp8'?", then "did you mean 'fp16-master'?" alone:
    # fp16 most often means mixed precision (torch.autocast), amp-fp16
    with pytest.raises(UnknownChoiceError) as e:
        Precision.cast("fp16")
    assert str(e.value) == (
        "unknown precision 'fp16'; did you mean 'amp-fp16' or 'fp16-master'? (amp-fp16: fp32 weights "
        "under torch.autocast; fp16-master: fp16 weights with an fp32 master copy, as Megatron-LM --fp16 "
        "and DeepSpeed's fp16 train)"
    )
    # half precision weights (model.half()) are fp16-master's first; bf16 is a precision itself
    with pytest.raises(UnknownChoiceError, match="did you mean 'fp16-master' or 'amp-fp16'"):
        Precision.cast("half")
    assert Precision.cast("bf16") is Precision.BF16
