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
    assert str(precision_refusal(precision, get_gpu(gpu), "train")) == str(refusal)


@pytest.mark.parametrize(
    ("precision", "gpu", "instead"),
    [
        # was "(use fp16-master: fp16 weights)" for a served model too: a training word (the master
        # copy is the optimizer's), where the workload of a service writes precision: fp16
        ("bf16", "T4", "(use fp16: fp16 weights)"),
        ("bf16-master", "V100-SXM2-32GB", "(use fp16: fp16 weights)"),
        # was "(use fp16-master or amp-fp16)": 16-bit weights are what a served model runs
        ("fp8", "V100-SXM2-32GB", "(use fp16)"),
        ("fp8", "A100-SXM4-80GB", "(use bf16)"),
    ],
)
def test_a_served_model_is_told_the_serving_precision(precision: str, gpu: str, instead: str) -> None:
    refusal = precision_refusal(precision, get_gpu(gpu), "infer")
    assert refusal is not None and str(refusal).endswith(instead), str(refusal)


def test_fp16_is_pointed_at_the_four_training_methods_saying_how_they_differ() -> None:
    # was "did you mean 'amp-fp16' or 'fp16-master'?": to train, fp16 names no one method (bf16 and
    # amp-bf16 were not offered); to serve, it is taken (tests/workload/test_serving_fp16.py)
    with pytest.raises(UnknownChoiceError) as e:
        Precision.cast("fp16")
    assert str(e.value) == (
        "unknown precision 'fp16'; did you mean 'amp-fp16' or 'amp-bf16' or 'fp16-master' or 'bf16'? "
        "(fp16 (float16, half) is taken for inference only (fp16 weights, as fp16-master); to train, "
        "name the method: amp-fp16 or amp-bf16 (fp32 weights under torch.autocast), fp16-master (fp16 "
        "weights with an fp32 master copy, as Megatron-LM --fp16 and DeepSpeed's fp16 train) or bf16 "
        "(all-bf16 weights and state))"
    )
    # torch's names of fp16 are refused alike (to serve, all three are taken)
    for torch_name in ("float16", "half"):
        with pytest.raises(UnknownChoiceError) as named:
            Precision.cast(torch_name)
        assert str(named.value) == str(e.value).replace("'fp16'", f"'{torch_name}'", 1)
    assert Precision.cast("bf16") is Precision.BF16
