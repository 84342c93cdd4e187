"""The software stack in a trace: layout transposes, fused kernels, dropout, and the cache key."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gpuplan.hardware import get_gpu
from gpuplan.perf.calibration import PRIOR
from gpuplan.perf.roofline import op_time_s, phase_times
from gpuplan.profile.key import key_fields, profile_key, trace
from gpuplan.profile.model import LAYOUT_TRANSPOSE_OP, NCHW_NORM_SUFFIX, Profile
from gpuplan.workload import Workload

Traced = Callable[..., Profile]


def _resnet(**over: Any) -> dict[str, Any]:
    return {
        "name": "r",
        "model": {"preset": "resnet50"},
        "inputs": {"batch_size": 2, "image_size": 64},
        "precision": "amp-fp16",
        "optimizer": "sgd",
        **over,
    }


def _gpt2(**over: Any) -> dict[str, Any]:
    return {
        "name": "g",
        "model": {"preset": "gpt2"},
        "inputs": {"batch_size": 2, "seq_len": 512},
        "precision": "amp-bf16",
        # Fused AdamW: the peak is at the end of forward, where the activations are.
        "optimizer": "adamw-fused",
        **over,
    }


@pytest.fixture(scope="module")
def resnets(trace_once: Traced) -> dict[str, Profile]:
    return {
        "nchw": trace_once(_resnet()),
        "nhwc": trace_once(_resnet(stack={"memory_format": "channels-last"})),
    }


@pytest.fixture(scope="module")
def gpts(trace_once: Traced) -> dict[str, Profile]:
    return {"stock": trace_once(_gpt2()), "fused": trace_once(_gpt2(stack={"fused_kernels": "all"}))}


def _bytes(p: Profile, op: str, phase: str) -> float:
    return sum(r.bytes_moved for r in p.ops if r.op == op and r.phase == phase)


def test_batch_norm_in_training_over_nchw_activations_is_named_apart(
    trace_once: Traced, resnets: dict[str, Profile]
) -> None:
    nchw, nhwc = resnets["nchw"], resnets["nhwc"]
    norms = {r.op for r in nchw.ops if "batch_norm" in r.op}
    assert norms == {
        "aten.native_batch_norm" + NCHW_NORM_SUFFIX,
        "aten.native_batch_norm_backward" + NCHW_NORM_SUFFIX,
    }
    # channels_last runs other kernels: the plain names, the same bytes.
    assert {r.op for r in nhwc.ops if "batch_norm" in r.op} == {
        "aten.native_batch_norm",
        "aten.native_batch_norm_backward",
    }
    assert _bytes(nchw, "aten.native_batch_norm" + NCHW_NORM_SUFFIX, "forward") == _bytes(
        nhwc, "aten.native_batch_norm", "forward"
    )
    # In inference (eval mode) the norm normalises with its running statistics: no reduction, its own name.
    infer = trace_once(_resnet(task="infer"))
    assert {r.op for r in infer.ops if "batch_norm" in r.op} == {"aten.native_batch_norm"}


def test_an_nchw_convolution_pays_a_transpose_of_each_operand_and_nhwc_none(
    resnets: dict[str, Profile],
) -> None:
    nchw, nhwc = resnets["nchw"], resnets["nhwc"]
    # Forward, each convolution (no bias in a ResNet) transposes its input, weight and output once,
    # each a read and a write: exactly twice the bytes the convolution itself moves.
    conv_fwd = _bytes(nchw, "aten.convolution", "forward")
    assert _bytes(nchw, LAYOUT_TRANSPOSE_OP, "forward") == 2 * conv_fwd
    # Backward: the output gradient twice (data and weight gradients), the input, weight and both
    # gradients: more than twice what the convolution backward moves.
    assert _bytes(nchw, LAYOUT_TRANSPOSE_OP, "backward") > 2 * _bytes(
        nchw, "aten.convolution_backward", "backward"
    )
    assert not any(r.op == LAYOUT_TRANSPOSE_OP for r in nhwc.ops)
    # The layout changes no FLOP and no byte of the convolutions themselves.
    assert nchw.flops_per_step == nhwc.flops_per_step
    assert conv_fwd == _bytes(nhwc, "aten.convolution", "forward")


def test_the_transposes_cost_only_where_convolutions_run_on_tensor_cores(resnets: dict[str, Profile]) -> None:
    nchw, nhwc = resnets["nchw"], resnets["nhwc"]
    a100, v100 = get_gpu("A100-SXM4-80GB"), get_gpu("V100-SXM2-16GB")
    # fp16 on tensor cores (V100 and A100): NCHW is slower than NHWC by the transposes' time.
    layout = [r for r in nchw.ops if r.op == LAYOUT_TRANSPOSE_OP]
    for gpu in (a100, v100):
        slow = phase_times(nchw.ops, gpu, "amp-fp16", PRIOR).total_s
        fast = phase_times(nhwc.ops, gpu, "amp-fp16", PRIOR).total_s
        layout_s = sum(op_time_s(r, gpu, "amp-fp16", PRIOR) for r in layout)
        assert slow - fast == pytest.approx(layout_s, rel=0.05)
        assert slow > fast

    # An fp32 convolution reads NCHW as it is: on a V100's FP32 units, and on an A100 as TF32 (the
    # H200's kernel split timed no transposes around FP32 convolutions); bf16 pays them.
    def relabel(dtype: str) -> list:  # type: ignore[type-arg]
        layout = [r for r in nchw.ops if r.op == LAYOUT_TRANSPOSE_OP]
        return [r.__class__(**{**r.__dict__, "dtype": dtype}) for r in layout]

    assert phase_times(relabel("float32"), v100, "fp32", PRIOR).total_s == 0
    assert phase_times(relabel("float32"), a100, "fp32", PRIOR).total_s == 0
    assert phase_times(relabel("float32"), a100, "tf32", PRIOR).total_s == 0
    assert phase_times(relabel("bfloat16"), a100, "amp-bf16", PRIOR).total_s > 0


def test_fused_kernels_keep_the_flops_and_move_fewer_bytes(gpts: dict[str, Profile]) -> None:
    stock, fused = gpts["stock"], gpts["fused"]
    assert fused.flops_per_step == pytest.approx(stock.flops_per_step, rel=1e-9)
    # Forward and backward (AdamW's step is the same in both): each fused kernel reads and writes
    # its tensors once where PyTorch's separate kernels pass over them several times.
    moved = {k: sum(r.bytes_moved for r in p.ops if r.phase != "optimizer") for k, p in gpts.items()}
    assert moved["fused"] < 0.85 * moved["stock"]
    ops = {r.op for r in fused.ops}
    assert {"gpuplan.dropout_add_norm", "gpuplan.linear_act", "gpuplan.cross_entropy"} <= ops
    # The GEMM with the GeLU in its epilogue is costed as a matmul.
    assert {r.op_class for r in fused.ops if r.op.startswith("gpuplan.linear_act")} == {"matmul"}
    # The fused cross-entropy keeps no fp32 copy of the logits: the peak is lower.
    assert fused.peak.total_bytes < stock.peak.total_bytes
    assert any("fused kernels: dense-activation, dropout-add-norm" in n for n in fused.notes)


def test_dropout_is_traced_as_cudas_kernel_with_a_one_byte_mask(gpts: dict[str, Profile]) -> None:
    stock = gpts["stock"]
    drops = [r for r in stock.ops if r.op == "aten.native_dropout"]
    assert drops and all(r.phase == "forward" for r in drops)
    assert not any(r.op == "aten.bernoulli_" for r in stock.ops)  # the CPU's noise-tensor path
    assert any("calls traced as CUDA's native_dropout" in n for n in stock.notes)


def test_the_stack_settings_that_change_the_trace_enter_the_key() -> None:
    stock = Workload.from_dict(_resnet())
    assert "stack" not in key_fields(stock)  # plain PyTorch: the key names no stack
    assert profile_key(_resnet(stack={"memory_format": "nhwc"})) != profile_key(stock)
    assert profile_key(_gpt2(stack={"dropout": False})) != profile_key(_gpt2())
    assert profile_key(_gpt2(stack={"fused_kernels": "all"})) != profile_key(_gpt2())
    # The input pipeline and CUDA graphs do not change one traced step.
    assert profile_key(_resnet(stack={"input_pipeline": "dali"}, cuda_graphs=True)) == profile_key(stock)


def test_an_hf_config_runs_without_dropout_when_the_stack_says_so(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    fixture = Path(__file__).parents[1] / "workload" / "fixtures" / "hf" / "gpt2.json"
    config = tmp_path / "config.json"
    config.write_text(fixture.read_text().replace('"resid_pdrop": 0.0', '"resid_pdrop": 0.1'))
    common = {
        "name": "h",
        "model": {"hf_config": str(config)},
        "inputs": {"batch_size": 1, "seq_len": 256},
        "optimizer": "adamw-fused",
    }
    with_dropout = trace(common)
    without = trace({**common, "stack": {"dropout": False}})
    assert any(r.op == "aten.native_dropout" for r in with_dropout.ops)
    assert not any(r.op == "aten.native_dropout" for r in without.ops)

    def forward_bytes(p: Profile) -> float:
        return sum(r.bytes_moved for r in p.ops if r.phase == "forward")

    assert forward_bytes(without) < forward_bytes(with_dropout)


def test_torchs_own_attention_layer_is_traced_as_the_fused_kernel_a_gpu_runs() -> None:
    """nn.TransformerEncoderLayer in training calls SDPA with its dropout from inside
    F.multi_head_attention_forward, which the tracer's function mode saw as one call: the CPU's math
    path was traced (s×s scores, their softmax and dropout kept), and the example's own model traced
    at 14.7 GiB where an H200 measured 5.3 GiB allocated."""
    ex = Path(__file__).resolve().parents[2] / "examples" / "own-model" / "text-classifier.yaml"
    p = trace(ex)
    ops = {r.op for r in p.ops}
    assert "aten._safe_softmax" not in ops and "aten.bmm" not in ops, sorted(ops)
    assert p.peak.total_bytes < 7 * 1024**3


@pytest.mark.parametrize("layout", ["channels-first", "channels-last"])
def test_an_image_model_in_pure_bf16_takes_bf16_images(trace_once: Traced, layout: str) -> None:
    # The fp32 images met bf16 weights: "Input type (float) and bias type (BFloat16) should be the
    # same" — every image model with precision bf16 failed to trace, in estimate, plan and deploy.
    p = trace_once(Workload.model_validate(_resnet(precision="bf16", stack={"memory_format": layout})))
    convs = [op for op in p.ops if op.op_class == "conv" and op.phase == "forward"]
    assert convs and {op.dtype for op in convs} == {"bfloat16"}
    vit = trace_once(Workload.model_validate(_resnet(precision="bf16", model={"preset": "vit-b16"})))
    assert vit.params > 8e7
