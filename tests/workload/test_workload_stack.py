"""The software stack block: levels, settings, what a level fills in, and one-line errors."""

from __future__ import annotations

from typing import Any

import pytest

from gpuplan.errors import WorkloadError
from gpuplan.vocab import (
    FusedKernel,
    InputPipelineKind,
    MemoryFormat,
    OptimizerName,
    StackLevel,
    TensorParallelPlan,
)
from gpuplan.workload import Workload


def _w(**over: Any) -> Workload:
    d: dict[str, Any] = {
        "name": "w",
        "model": {"preset": "gpt2"},
        "inputs": {"batch_size": 2, "seq_len": 128},
    }
    d.update(over)
    return Workload.from_dict(d)


def _resnet(**over: Any) -> Workload:
    d: dict[str, Any] = {
        "name": "r",
        "model": {"preset": "resnet50"},
        "inputs": {"batch_size": 8, "image_size": 224},
        "optimizer": "sgd",
    }
    d.update(over)
    return Workload.from_dict(d)


def _error(**over: Any) -> str:
    with pytest.raises(WorkloadError) as e:
        _w(**over)
    msg = str(e.value)
    assert "\n" not in msg
    return msg


def test_a_workload_without_a_stack_runs_what_plain_pytorch_does() -> None:
    s = _w().software_stack
    assert s.level is StackLevel.STOCK and s.as_level() is StackLevel.STOCK
    assert s.memory_format is MemoryFormat.CHANNELS_FIRST
    assert s.input_pipeline is InputPipelineKind.DATALOADER
    assert s.fused_kernels == () and s.dropout is True
    assert s.optimizer is OptimizerName.ADAMW  # torch.optim.AdamW: foreach on CUDA
    assert (s.compile, s.cuda_graphs) == (False, False)


def test_the_tuned_level_fills_what_the_workload_leaves_out() -> None:
    w = _w(stack="tuned")
    s = w.software_stack
    assert s.as_level() is StackLevel.TUNED
    assert s.memory_format is MemoryFormat.CHANNELS_LAST and s.input_pipeline is InputPipelineKind.DALI
    assert s.fused_kernels == tuple(FusedKernel)
    assert w.optimizer is OptimizerName.ADAMW_FUSED and w.uses_cuda_graphs
    # What the workload states wins over the level's default.
    w = _w(stack={"level": "tuned", "fused_kernels": ["cross-entropy"]}, optimizer="adamw", cuda_graphs=False)
    s = w.software_stack
    assert s.fused_kernels == (FusedKernel.CROSS_ENTROPY,) and s.as_level() is None
    assert w.optimizer is OptimizerName.ADAMW and not w.uses_cuda_graphs


_SERVED = {"serving": {"requests_per_s": 2, "prompt_tokens": 64, "output_tokens": 64, "p95_latency_ms": 5000}}


def test_cuda_graphs_default_to_yes_for_engine_decoding_and_to_the_level_for_training() -> None:
    # A serving engine replays its decode steps: a service of a decoder LLM, a batch generation job.
    assert _w(task="infer", **_SERVED).uses_cuda_graphs
    assert _w(task="infer", inputs={"batch_size": 2, "seq_len": 128, "output_tokens": 32}).uses_cuda_graphs
    # was: yes for every inference workload, so a forward pass (an own-code model's included) was
    # said to replay graphs while its step was costed eager, host-bound flag and all
    forward = _w(task="infer")
    assert not forward.uses_cuda_graphs and not forward.software_stack.cuda_graphs
    assert _w(task="infer", cuda_graphs=True).uses_cuda_graphs
    assert not _w().uses_cuda_graphs
    assert _w(stack="tuned").uses_cuda_graphs
    assert not _w(task="infer", cuda_graphs=False).uses_cuda_graphs


def test_fused_kernels_take_all_none_one_name_or_a_list_and_keep_one_order() -> None:
    assert _w(stack={"fused_kernels": "all"}).software_stack.fused_kernels == tuple(FusedKernel)
    assert _w(stack={"fused_kernels": "none"}).software_stack.fused_kernels == ()
    one = _w(stack={"fused_kernels": "xentropy"}).software_stack.fused_kernels
    assert one == (FusedKernel.CROSS_ENTROPY,)
    both = _w(stack={"fused_kernels": ["cross-entropy", "fused-mlp", "cross-entropy"]}).software_stack
    assert both.fused_kernels == (FusedKernel.DENSE_ACTIVATION, FusedKernel.CROSS_ENTROPY)


def test_aliases_read_as_the_names_people_use() -> None:
    assert _resnet(stack={"memory_format": "NHWC"}).software_stack.channels_last
    assert (
        _resnet(stack={"input_pipeline": "torchvision"}).software_stack.input_pipeline.value == "dataloader"
    )
    assert _w(stack="NGC").stack.level is StackLevel.TUNED


@pytest.mark.parametrize(
    ("over", "words"),
    [
        ({"stack": "tunde"}, "did you mean 'tuned'"),
        ({"stack": {"memory_format": "nhcw"}}, "memory format"),
        ({"stack": {"fused_kernels": ["dropout-add-nrom"]}}, "did you mean 'dropout-add-norm'"),
        ({"stack": {"loader_workers": -1}}, "loader_workers"),
        ({"stack": {"levle": "tuned"}}, "did you mean 'level'"),
    ],
)
def test_a_wrong_stack_setting_is_one_line_naming_the_fix(over: dict[str, Any], words: str) -> None:
    assert words in _error(**over)


def test_at_level_changes_the_stack_only() -> None:
    w = _w(compile=True, stack={"dropout": False, "loader_workers": 4}, gradient_accumulation=4)
    tuned = w.at_level(StackLevel.TUNED)
    assert tuned.software_stack.as_level() is StackLevel.TUNED
    assert tuned.optimizer is OptimizerName.ADAMW_FUSED and not tuned.compile
    # the tuned level reads with DALI: DataLoader workers do not apply to it (the stock one keeps them)
    assert tuned.stack.dropout is False and tuned.stack.loader_workers is None
    assert w.at_level(StackLevel.STOCK).stack.loader_workers == 4
    assert (tuned.inputs, tuned.gradient_accumulation) == (w.inputs, 4)
    assert tuned.model == w.model.model_copy(update={"pad_vocab_multiple": 8})  # GPT-2's 50,257
    stock = tuned.at_level(StackLevel.STOCK)
    assert stock.optimizer is OptimizerName.ADAMW and stock.software_stack.as_level() is StackLevel.STOCK
    # An optimizer with no fused variant a workload can name stays as it is.
    assert _resnet().at_level(StackLevel.TUNED).optimizer is OptimizerName.SGD


def test_the_tuned_level_pads_a_preset_s_vocabulary_as_its_scripts_do_and_nothing_else() -> None:
    # GPT-2's 50,257 and BERT's 30,522 are not multiples of 8: the tuned scripts pad them.
    for preset in ("gpt2", "bert-large"):
        tuned = _w(model={"preset": preset}).at_level(StackLevel.TUNED)
        assert tuned.model.pad_vocab_multiple == 8
        assert _w(model={"preset": preset}).at_level(StackLevel.STOCK).model.pad_vocab_multiple is None
    # A vocabulary that is a multiple already (Llama 3's 128,256), no vocabulary, a padding the
    # workload states, or a model from code: left as it is.
    assert _w(model={"preset": "llama-8b"}).at_level(StackLevel.TUNED).model.pad_vocab_multiple is None
    assert _resnet().at_level(StackLevel.TUNED).model == _resnet().model
    padded = _w(model={"preset": "gpt2", "pad_vocab_multiple": 64})
    assert padded.at_level(StackLevel.TUNED).model.pad_vocab_multiple == 64


def test_at_level_keeps_the_tensor_parallel_plan_of_the_code() -> None:
    # The plan is how the user's code splits its layers, not a level setting: the stock and tuned
    # figures an estimate shows next to the user's own take the same collectives.
    w = _w(stack={"tensor_parallel_plan": "per-projection"})
    for level in StackLevel:
        assert w.at_level(level).software_stack.tensor_parallel_plan is TensorParallelPlan.PER_PROJECTION


def test_masked_tokens_apply_to_masked_lm_pretraining_of_a_bert_preset_only() -> None:
    bert = {"name": "b", "model": {"preset": "bert-large"}, "inputs": {"batch_size": 2, "seq_len": 128}}
    ok = Workload.from_dict({**bert, "inputs": {"batch_size": 2, "seq_len": 128, "masked_tokens": 20}})
    assert ok.inputs.masked_tokens == 20
    with pytest.raises(WorkloadError, match="applies to masked-LM pre-training"):
        Workload.from_dict(
            {**bert, "task": "finetune", "inputs": {"batch_size": 2, "seq_len": 128, "masked_tokens": 20}}
        )
    with pytest.raises(WorkloadError, match="more than the sequence's 128 tokens"):
        Workload.from_dict({**bert, "inputs": {"batch_size": 2, "seq_len": 128, "masked_tokens": 200}})
    with pytest.raises(WorkloadError, match="applies to masked-LM pre-training"):
        _w(inputs={"batch_size": 2, "seq_len": 128, "masked_tokens": 20})


def test_a_stack_round_trips_through_to_dict() -> None:
    w = _resnet(stack={"level": "tuned", "memory_format": "channels-first", "input_pipeline": "dataloader",
                       "loader_workers": 0})  # fmt: skip
    assert Workload.from_dict(w.to_dict()) == w
    assert w.software_stack.loader_workers == 0 and not w.software_stack.channels_last
    # Workers with no DataLoader to run them were ignored without a word: refused, naming the fix.
    with pytest.raises(WorkloadError, match="input pipeline is dali; set input_pipeline: dataloader"):
        _resnet(stack={"level": "tuned", "loader_workers": 0})


def test_the_stack_in_words_says_which_adamw_and_whether_a_host_bounded_the_decode() -> None:
    from gpuplan.report.stack import stack_words

    # adamw is torch.optim.AdamW's default, the foreach kernel; the name alone does not say so.
    assert "optimizer adamw (foreach" in stack_words(_w(optimizer="adamw").software_stack, images=False)
    assert "optimizer adamw-fused" in stack_words(_w(optimizer="adamw-fused").software_stack, images=False)
    # A DataLoader's workers decode on the host: without an instance nothing bounded the step.
    stack = _resnet().software_stack
    assert "one worker per vCPU;" in stack_words(stack, images=True)
    unchecked = stack_words(stack, images=True, decode_checked=False)
    assert "decode rate not checked" in unchecked and "--instance" in unchecked
    four = _resnet(stack={"loader_workers": 4}).software_stack
    assert "4 workers per GPU" in stack_words(four, images=True)
    # a service steps no optimizer: its stack line does not name one (nor dropout)
    served = stack_words(_w(optimizer="adamw").software_stack, images=False, training=False)
    assert "optimizer" not in served and "dropout" not in served


def test_the_tensor_parallel_plan_defaults_to_one_shared_gather_and_names_the_other() -> None:
    from gpuplan.report.stack import stack_json, stack_words
    from gpuplan.vocab import TensorParallelPlan

    # Megatron-core and PyTorch's documented Llama plan gather a block's input once: the default.
    assert _w().software_stack.tensor_parallel_plan is TensorParallelPlan.SHARED_INPUT
    per = _w(tensor_parallel=2, stack={"tensor_parallel_plan": "per-projection"}).software_stack
    assert per.tensor_parallel_plan is TensorParallelPlan.PER_PROJECTION
    assert (
        _w(stack={"tensor_parallel_plan": "fused-input"}).stack.tensor_parallel_plan.value == "shared-input"
    )
    # The plan is no part of a level: stating it keeps the level.
    assert per.as_level() is StackLevel.STOCK
    assert stack_json(per).tensor_parallel_plan == "per-projection"
    assert "each projection gathers its own input" in stack_words(per, images=False, tensor_parallel=True)
    # Said only where the estimate splits layers over GPUs.
    assert "tensor parallel" not in stack_words(per, images=False)


def test_a_misspelt_tensor_parallel_plan_is_one_line_with_did_you_mean() -> None:
    msg = _error(stack={"tensor_parallel_plan": "per-projektion"})
    assert "tensor-parallel plan" in msg and "did you mean 'per-projection'" in msg


def test_a_served_model_with_no_stack_settings_is_on_the_stock_stack() -> None:
    # was: "Assumes a custom stack" and a "yours" column equal to "stock": inference replays CUDA
    # graphs by default, which the stock level's training steps do not, but at_level keeps an
    # inference workload's own graphs on either level
    from gpuplan.report.stack import stack_json, stack_words

    served = _w(task="infer", **_SERVED).software_stack
    assert served.cuda_graphs and served.as_level() is None  # as a training stack would be read
    assert stack_words(served, images=False, training=False).startswith("stock PyTorch;")
    assert stack_json(served, training=False).level == "stock"


def test_the_stack_in_words_says_whether_cuda_graphs_are_used_in_either_language() -> None:
    # A Chinese line had said "…；eager 模式；CUDA 图" for a stack with graphs (and "无 CUDA 图" for
    # one without): a bare noun among "无…" read as neither "with" nor "without"
    from gpuplan.i18n import use_language
    from gpuplan.report.stack import stack_words

    served = _w(task="infer", **_SERVED).software_stack
    trained = _w().software_stack
    assert served.cuda_graphs and not trained.cuda_graphs
    assert stack_words(served, images=False, training=False).endswith("; eager; with CUDA graphs")
    assert stack_words(trained, images=False).endswith("; eager; no CUDA graphs")
    with use_language("zh"):
        assert stack_words(served, images=False, training=False).endswith("；eager 模式；使用 CUDA 图")
        assert stack_words(trained, images=False).endswith("；eager 模式；不使用 CUDA 图")
