"""The workload spec: parsing, round-trips and one-line errors that name the field and the fix."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuplan.errors import NotFoundError, WorkloadError
from gpuplan.hardware.gpus import MAX_PLANNED_GPUS, MAX_PLANNED_NODES
from gpuplan.workload import (
    OptimizerName,
    Precision,
    Task,
    Workload,
    load_workload,
    parse_duration_hours,
)
from gpuplan.workload.spec import ConstraintsSpec

FIXTURES = Path(__file__).parent / "fixtures"


def _base(**over: Any) -> dict[str, Any]:
    d: dict[str, Any] = {
        "name": "w",
        "model": {"preset": "gpt2"},
        "inputs": {"batch_size": 8, "seq_len": 1024},
    }
    d.update(over)
    return d


def _error(d: dict[str, Any]) -> str:
    with pytest.raises(WorkloadError) as e:
        Workload.from_dict(d)
    msg = str(e.value)
    assert "\n" not in msg
    return msg


@pytest.mark.parametrize(
    "path", sorted(p.name for p in FIXTURES.glob("*.yaml") if p.name != "bad_syntax.yaml")
)
def test_every_fixture_workload_loads_and_round_trips(path: str) -> None:
    w = Workload.from_yaml(FIXTURES / path)
    assert Workload.from_dict(w.to_dict()) == w


def test_design_example_parses_into_typed_fields() -> None:
    w = load_workload(FIXTURES / "bert_squad.yaml")
    assert w.task is Task.FINETUNE
    assert w.precision is Precision.AMP_FP16
    assert w.optimizer is OptimizerName.ADAMW
    assert w.inputs.batch_size == 32 and w.inputs.seq_len == 384
    assert w.constraints.deadline_hours == 12.0
    assert w.constraints.pricing == ("on_demand", "spot")
    assert w.data is not None and w.data.samples == 88000
    # global batch = per-GPU batch × GPUs × accumulation
    assert w.global_batch_size(8) == 32 * 8 * 1


def test_workload_is_frozen() -> None:
    w = Workload.from_dict(_base())
    with pytest.raises(Exception, match="frozen"):
        w.name = "other"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        ("12h", 12.0),
        ("2d", 48.0),
        ("90m", 1.5),
        ("1h30m", 1.5),
        ("1w", 168.0),
        (6, 6.0),
        ("2.5", 2.5),
        # written out, as a user types it in English or Chinese
        ("3 weeks", 504.0),
        ("1 week", 168.0),
        ("2 days", 48.0),
        ("1 hour 30 minutes", 1.5),
        ("90 mins", 1.5),
        ("12 hrs", 12.0),
        ("3周", 504.0),
        ("2天", 48.0),
        ("12小时", 12.0),
        ("1小时30分钟", 1.5),
        ("3个小时", 3.0),
        ("1星期", 168.0),
    ],
)
def test_durations_parse_into_hours(text: object, hours: float) -> None:
    assert parse_duration_hours(text) == pytest.approx(hours)


def test_batch_size_zero_is_one_line_naming_the_field() -> None:
    assert (
        _error(_base(inputs={"batch_size": 0, "seq_len": 1024})) == "inputs.batch_size: must be ≥ 1 (got 0)"
    )


def test_unknown_key_is_rejected_with_did_you_mean() -> None:
    msg = _error(_base(inputs={"batch_sise": 8, "seq_len": 1024}))
    assert msg.startswith("inputs: unknown key 'batch_sise'; did you mean 'batch_size'")


def test_a_time_per_output_token_target_is_taken() -> None:
    serving = {"requests_per_s": 5, "prompt_tokens": 512, "output_tokens": 256, "tpot_p95_ms": 60}
    w = Workload.from_dict(_base(task="infer", serving=serving))
    assert w.serving is not None and w.serving.tpot_p95_ms == 60
    assert "must be > 0" in _error(_base(task="infer", serving={**serving, "tpot_p95_ms": 0}))


def test_another_spelling_of_the_tpot_target_is_pointed_to_tpot_p95_ms_not_to_ttft() -> None:
    # 'itl_p95_ms' must not be answered "did you mean 'ttft_p95_ms'?": a user taking the hint would
    # set a 60 ms first-token target instead
    serving = {"requests_per_s": 5, "prompt_tokens": 512, "output_tokens": 256, "itl_p95_ms": 60}
    msg = _error(_base(task="infer", serving=serving))
    assert msg.startswith("serving: unknown key 'itl_p95_ms': the time-per-output-token target is written")
    assert "tpot_p95_ms" in msg
    assert "did you mean" not in msg


def test_unknown_top_level_key_is_rejected() -> None:
    assert "did you mean 'precision'" in _error(_base(precison="fp32"))


def test_unknown_enum_value_suggests_the_nearest() -> None:
    msg = _error(_base(precision="bf61"))
    assert msg.startswith("precision: unknown precision 'bf61'; did you mean 'bf16'")


@pytest.mark.parametrize(("written", "meant"), [("bf16-amp", "amp-bf16"), ("fp16_amp", "amp-fp16")])
def test_a_precision_written_with_its_parts_the_other_way_round_is_pointed_to_it_first(
    written: str, meant: str
) -> None:
    # was: "unknown precision 'bf16-amp'; did you mean 'bf16' or 'bf16-master' or 'fp16-master'?":
    # bf16 keeps no fp32 master weights, which amp-bf16 does
    msg = _error(_base(precision=written))
    assert msg.startswith(f"precision: unknown precision {written!r}; did you mean {meant!r} or "), msg


@pytest.mark.parametrize(
    ("written", "meant"),
    [("4bit", "nf4"), ("4-bit", "nf4"), ("int4", "nf4"), ("Q4", "nf4"), ("8bit", "int8")],
)
def test_a_base_quantization_written_by_its_bits_is_pointed_to_the_one_of_that_width(
    written: str, meant: str
) -> None:
    # was: "unknown base quantization '4bit'; did you mean 'int8'?", twice the memory of the 4 bits meant
    lora = {"rank": 16, "targets": ["q", "v"], "quantization": written}
    msg = _error(_base(task="finetune", model={"preset": "llama-8b", "lora": lora}))
    assert f"unknown base quantization {written!r}; did you mean {meant!r}?" in msg, msg
    assert "int8 in 8, about twice nf4's memory" in msg


def test_fp16_master_is_a_precision_with_an_fp32_master_copy_and_a_misspelling_is_caught() -> None:
    w = Workload.from_dict(_base(precision="fp16_master"))
    assert w.precision is Precision.FP16_MASTER and w.precision.master_weights
    masters = {Precision.FP16_MASTER, Precision.BF16_MASTER}
    assert {p for p in Precision if p.master_weights} == masters
    # Only bf16-master keeps its gradients in a persistent fp32 buffer (Megatron-LM --bf16).
    assert {p for p in Precision if p.fp32_main_grads} == {Precision.BF16_MASTER}
    msg = _error(_base(precision="fp16-mastr"))
    assert msg.startswith("precision: unknown precision 'fp16-mastr'; did you mean 'fp16-master'")
    assert "\n" not in msg


def test_enum_values_are_forgiving_about_case_and_underscores() -> None:
    w = Workload.from_dict(_base(precision="AMP_BF16", optimizer="AdamW-Fused"))
    assert w.precision is Precision.AMP_BF16 and w.optimizer is OptimizerName.ADAMW_FUSED


def test_seq_len_longer_than_the_model_allows_is_refused() -> None:
    msg = _error(_base(inputs={"batch_size": 1, "seq_len": 2048}))
    assert msg == (
        "inputs.seq_len: 2048 is longer than the model allows (1024 positions in gpt2); "
        "use seq_len: 1024 or less"
    )


def test_seq_len_limit_comes_from_an_hf_config() -> None:
    d = {"name": "h", "model": {"hf_config": str(FIXTURES / "hf" / "tiny_gpt2.json")}}
    assert "128 positions" in _error({**d, "inputs": {"batch_size": 1, "seq_len": 129}})


def test_unknown_preset_raises_not_found_with_suggestions() -> None:
    with pytest.raises(NotFoundError) as e:
        Workload.from_dict(_base(model={"preset": "lama-7b"}))
    assert "llama-7b" in e.value.suggestions
    assert "did you mean 'llama-7b'" in str(e.value)


def test_exactly_one_model_source() -> None:
    msg = _error(_base(model={"preset": "gpt2", "python": "pkg.mod:build"}))
    assert msg == "model: give exactly one of preset, hf_config or python (got preset, python)"
    assert "got none" in _error(_base(model={}))


def test_a_key_of_a_section_given_outside_it_says_where_it_belongs() -> None:
    assert _error(_base(pad_vocab_multiple=8)) == (
        "unknown key 'pad_vocab_multiple' here; it belongs in model: (model.pad_vocab_multiple)"
    )
    assert "it belongs in inputs: (inputs.batch_size)" in _error(_base(batch_size=4))
    # a key no section has, nor anything near it, keeps the list of the known ones
    assert "known keys:" in _error(_base(qqq=4))
    # a misspelt one is matched against the sections' keys too, said with its section
    assert _error(_base(batchsize=4)) == "unknown key 'batchsize'; did you mean 'inputs.batch_size'?"


def test_pad_vocab_multiple_is_for_models_with_a_vocabulary_that_gpuplan_builds() -> None:
    w = Workload.from_dict(_base(model={"preset": "gpt2", "pad_vocab_multiple": 8}))
    assert w.model.pad_vocab_multiple == 8
    assert _error(_base(model={"python": "pkg.mod:build", "pad_vocab_multiple": 8})) == (
        "model: pad_vocab_multiple applies to a preset or an HF config, not to your own code"
    )
    image = {"batch_size": 8, "image_size": 224}
    no_vocab = _base(model={"preset": "resnet50", "pad_vocab_multiple": 8}, inputs=image)
    assert _error(no_vocab) == "model: pad_vocab_multiple: preset 'resnet50' has no vocabulary"
    assert "pad_vocab_multiple" in _error(_base(model={"preset": "gpt2", "pad_vocab_multiple": 0}))


def test_python_entry_point_must_name_a_function() -> None:
    assert "expected 'package.module:function'" in _error(_base(model={"python": "pkg.mod"}))


def test_image_model_requires_image_size_and_text_model_seq_len() -> None:
    assert _error(_base(model={"preset": "resnet50"}, inputs={"batch_size": 8})).startswith(
        "inputs.image_size:"
    )
    assert _error(_base(inputs={"batch_size": 8})).startswith("inputs.seq_len: required")
    assert "takes images" in _error(_base(model={"preset": "vit-b16"}))


def test_serving_is_only_for_inference() -> None:
    serving = {"requests_per_s": 5, "prompt_tokens": 100, "output_tokens": 100}
    assert _error(_base(serving=serving)).startswith("serving: only applies to task: infer")
    w = Workload.from_dict(_base(task="infer", serving=serving))
    assert w.serving is not None and w.serving.requests_per_s == 5


def test_bad_deadline_names_the_field() -> None:
    msg = _error(_base(constraints={"deadline": "soon"}))
    assert msg.startswith("constraints.deadline: expected a duration like 12h")


@pytest.mark.parametrize(
    ("constraints", "field", "amount"),
    [
        ("budget_cny: 30万", "budget_cny", 300_000.0),
        ("budget_cny: '¥1,200,000'", "budget_cny", 1_200_000.0),
        ("budget_cny: 1.2亿", "budget_cny", 120_000_000.0),
        ("budget_usd: 5k", "budget_usd", 5_000.0),
        ("budget_usd: '$5,000'", "budget_usd", 5_000.0),
        ("budget_usd: 300", "budget_usd", 300.0),
    ],
)
def test_a_budget_in_a_workload_file_is_read_as_the_command_line_reads_it(
    constraints: str, field: str, amount: float
) -> None:
    # As --budget-cny 30万 is: the file's field had refused "30万" as "input should be a valid number".
    text = "name: w\nmodel: {preset: gpt2}\ninputs: {batch_size: 8, seq_len: 1024}\n"
    w = Workload.from_dict(yaml.safe_load(f"{text}constraints: {{{constraints}}}\n"))
    assert getattr(w.constraints, field) == amount


def test_a_budget_that_is_no_amount_or_in_the_other_currency_names_the_field_that_takes_it() -> None:
    from gpuplan.i18n import use_language
    from gpuplan.i18n.error_text import error_text

    msg = _error(_base(constraints={"budget_cny": "30x"}))
    assert msg == "constraints.budget_cny: 30x is not an amount: write it as 1,200,000 or 120万"
    with pytest.raises(WorkloadError) as e:
        Workload.from_dict(_base(constraints={"budget_cny": "$5"}))
    assert str(e.value) == "constraints.budget_cny: $5 is in another currency: give it with budget_usd"
    with use_language("zh"):
        assert error_text(e.value) == "constraints.budget_cny: $5 是另一种货币的金额：请用 budget_usd 给出"
    assert "must be ≥ 0.01" in _error(_base(constraints={"budget_cny": "-5万"}))
    with pytest.raises(WorkloadError) as e:
        Workload.from_dict(_base(constraints={"budget_usd": "£60,000"}))
    assert str(e.value) == (
        "constraints.budget_usd: £60,000 is in GBP, which gpuplan does not price in (the catalog has no "
        "dated GBP rate): give the amount in USD or CNY"
    )
    with use_language("zh"):
        assert (
            error_text(e.value) == "constraints.budget_usd: £60,000 的货币是 GBP，gpuplan 不以它计价"
            "（目录中没有带日期的 GBP 汇率）：请以 USD 或 CNY 给出金额"
        )


def test_pricing_models_are_checked() -> None:
    assert "did you mean 'on_demand'" in _error(_base(constraints={"pricing": ["ondemand"]}))


def test_yearly_is_refused_with_the_reserved_term_it_means() -> None:
    # "yearly" used to pass the workload spec and then fail in the planner.
    msg = _error(_base(constraints={"pricing": ["yearly"]}))
    assert msg == "constraints.pricing: unknown pricing model 'yearly'; did you mean 'reserved_1y'?"


def test_providers_are_checked_at_the_spec() -> None:
    assert "did you mean 'alibaba'" in _error(_base(constraints={"providers": ["alibab"]}))
    w = Workload.from_dict(_base(constraints={"providers": ["AWS", "volcano"]}))
    assert w.constraints.providers == ("aws", "volcengine")


def test_max_gpus_and_max_nodes_stop_where_the_planner_stops(tmp_path: Path) -> None:
    # The schema took max_gpus up to 10^6 and max_nodes up to 10^5, while the planner searches at
    # most MAX_PLANNED_GPUS GPUs in all (one or more per node): the file loaded, and only `plan`
    # refused it, in other words.
    path = tmp_path / "w.yaml"
    path.write_text(
        "name: w\nmodel: {preset: gpt2}\ninputs: {batch_size: 8, seq_len: 64}\n"
        "constraints: {max_gpus: 100000}\n"
    )
    with pytest.raises(WorkloadError) as e:
        Workload.from_yaml(path)
    assert str(e.value) == f"{path}: constraints.max_gpus: must be ≤ {MAX_PLANNED_GPUS} (got 100000)"
    over = MAX_PLANNED_NODES + 1
    said = _error(_base(constraints={"max_nodes": over}))
    assert said == f"constraints.max_nodes: must be ≤ {MAX_PLANNED_NODES} (got {over})"
    w = Workload.from_dict(_base(constraints={"max_gpus": MAX_PLANNED_GPUS, "max_nodes": MAX_PLANNED_NODES}))
    assert (w.constraints.max_gpus, w.constraints.max_nodes) == (MAX_PLANNED_GPUS, MAX_PLANNED_NODES)
    # The schema says so too, for editors that check a workload against it.
    fields = ConstraintsSpec.model_json_schema()["properties"]
    assert fields["max_gpus"]["anyOf"][0]["maximum"] == MAX_PLANNED_GPUS
    assert fields["max_nodes"]["anyOf"][0]["maximum"] == MAX_PLANNED_NODES


def test_min_gpus_is_a_whole_count_within_the_search_and_at_most_max_gpus() -> None:
    from gpuplan.i18n import use_language
    from gpuplan.i18n.error_text import error_text

    # a recipe tuned for 8 GPUs had no way to say so: only max_gpus existed
    w = Workload.from_dict(_base(constraints={"min_gpus": 8, "max_gpus": 8}))
    assert (w.constraints.min_gpus, w.constraints.max_gpus) == (8, 8)
    msg = _error(_base(constraints={"min_gpus": 16, "max_gpus": 8}))
    assert msg == (
        "constraints: min_gpus 16 is more than max_gpus 8: give min_gpus at most max_gpus (the same "
        "number plans exactly that many GPUs)"
    )
    with pytest.raises(WorkloadError) as e:
        Workload.from_dict(_base(constraints={"min_gpus": 16, "max_gpus": 8}))
    with use_language("zh"):
        said = error_text(e.value)
    assert said.startswith("constraints: min_gpus 16 大于 max_gpus 8"), said
    over = MAX_PLANNED_GPUS + 1
    assert _error(_base(constraints={"min_gpus": over})) == (
        f"constraints.min_gpus: must be ≤ {MAX_PLANNED_GPUS} (got {over})"
    )
    assert "integer" in _error(_base(constraints={"min_gpus": 8.5}))
    assert "did you mean 'min_gpus'" in _error(_base(constraints={"min_gpu": 8}))


def test_a_gpu_memory_filter_stops_where_the_service_stops() -> None:
    # min_gpu_memory_gib took up to 10^6 GiB here and 4096 at the service: one bound for both.
    from gpuplan.hardware.gpus import MAX_GPU_MEMORY_GIB
    from gpuplan.web.requests import PlanRequest

    said = _error(_base(constraints={"min_gpu_memory_gib": 100_000}))
    assert said == f"constraints.min_gpu_memory_gib: must be ≤ {float(MAX_GPU_MEMORY_GIB)} (got 100000)"
    assert (
        Workload.from_dict(_base(constraints={"min_gpu_memory_gib": 80})).constraints.min_gpu_memory_gib == 80
    )
    fields = PlanRequest.model_json_schema()["properties"]
    assert fields["min_gpu_memory_gib"]["anyOf"][0]["maximum"] == MAX_GPU_MEMORY_GIB


def test_missing_file_is_one_line() -> None:
    with pytest.raises(WorkloadError, match=r"^cannot read workload file .*nope\.yaml.*: no such file$"):
        Workload.from_yaml(FIXTURES / "nope.yaml")


def test_yaml_syntax_error_is_one_line_with_position() -> None:
    with pytest.raises(WorkloadError) as e:
        Workload.from_yaml(FIXTURES / "bad_syntax.yaml")
    assert "\n" not in str(e.value)
    assert "bad_syntax.yaml:3:" in str(e.value) and "invalid YAML" in str(e.value)


def test_yaml_paths_resolve_from_the_file_folder() -> None:
    w = Workload.from_yaml(FIXTURES / "user_model.yaml")
    assert Path(w.model.project_dir or "") == (FIXTURES / "userproj").resolve()
    h = Workload.from_yaml(FIXTURES / "hf_tiny_gpt2.yaml")
    assert h.model.hf_config_path == (FIXTURES / "hf" / "tiny_gpt2.json").resolve()


def test_importing_the_workload_package_does_not_import_torch() -> None:
    code = "import sys, gpuplan.workload, gpuplan.profile; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_model_shorthand_names_a_preset() -> None:
    w = Workload.from_dict(_base(model="GPT2"))
    assert w.model.preset == "gpt2"


def test_settings_without_effect_are_listed_for_a_warning() -> None:
    w = Workload.from_dict(_base(task="infer", optimizer="sgd"))
    assert w.ignored_settings() == ("optimizer: ignored for task: infer",)
    assert Workload.from_dict(_base(task="infer")).ignored_settings() == ()


def test_activation_checkpointing_modes_and_the_older_spelling_of_full() -> None:
    from gpuplan.workload import ActivationCheckpointing

    assert Workload.from_dict(_base()).checkpointing is ActivationCheckpointing.NONE
    old = Workload.from_dict(_base(gradient_checkpointing=True))
    assert old.checkpointing is ActivationCheckpointing.FULL
    sel = Workload.from_dict(_base(activation_checkpointing="selective"))
    assert sel.checkpointing is ActivationCheckpointing.SELECTIVE
    assert "did you mean 'selective'" in _error(_base(activation_checkpointing="selectiv"))
    both = _error(_base(gradient_checkpointing=True, activation_checkpointing="selective"))
    assert "give only one of them" in both


def test_activation_checkpointing_true_is_full_and_a_boolean_for_a_name_lists_the_names() -> None:
    from gpuplan.workload import ActivationCheckpointing

    # was: "activation_checkpointing: true is not a name or text; write the value itself"
    on = Workload.from_dict(_base(activation_checkpointing=True))
    assert on.checkpointing is ActivationCheckpointing.FULL
    off = Workload.from_dict(_base(activation_checkpointing=False))
    assert off.checkpointing is ActivationCheckpointing.NONE
    # any other field of named choices says the names it takes
    msg = _error(_base(attention=True))
    assert "attention: true is not one of the names it takes: fused, eager, fused-softmax" in msg


def test_memory_saving_options_parse_with_their_published_spellings() -> None:
    w = Workload.from_dict(_base(optimizer="PagedAdamW8bit", optimizer_in_backward=True, loss="fused"))
    assert w.optimizer is OptimizerName.PAGED_ADAMW_8BIT and w.optimizer.paged
    assert w.optimizer_in_backward and w.loss.value == "fused-linear"
    assert Workload.from_dict(_base(optimizer="adamw_8bit")).optimizer is OptimizerName.ADAMW_8BIT


def test_optimizer_in_backward_refuses_gradient_accumulation_in_one_line() -> None:
    with pytest.raises(WorkloadError, match="use gradient_accumulation: 1 or drop optimizer_in_backward"):
        Workload.from_dict(_base(optimizer_in_backward=True, gradient_accumulation=4))


def test_loss_choice_has_no_effect_on_inference_and_says_so() -> None:
    with pytest.raises(WorkloadError, match="loss: has no effect for task: infer"):
        Workload.from_dict(_base(task="infer", loss="chunked"))
    with pytest.raises(WorkloadError, match="did you mean 'chunked'"):
        Workload.from_dict(_base(loss="chunkd"))


def test_data_location_names_its_provider_by_code() -> None:
    # An alias is stored as the provider's code, so egress compares "aws" with "aws" offers.
    w = Workload.from_dict(_base(data={"samples": 100, "location": "Amazon/us-east-1"}))
    assert w.data.location == "aws/us-east-1"
    with pytest.raises(WorkloadError, match=r"data.location: unknown provider 'amzon'; did you mean 'aws'\?"):
        Workload.from_dict(_base(data={"samples": 100, "location": "amzon/us-east-1"}))


def _qlora(**lora: Any) -> dict[str, Any]:
    return _base(task="finetune", model={"preset": "gpt2", "lora": {"rank": 8, **lora}})


def test_lora_base_quantization_reads_and_round_trips() -> None:
    w = Workload.from_dict(_qlora(quantization="NF4", double_quantization=True))
    assert w.model.lora is not None and w.model.lora.quantization.value == "nf4"
    assert Workload.from_dict(w.to_dict()) == w


def test_lora_base_quantization_is_refused_where_it_means_nothing() -> None:
    infer = _error({**_qlora(quantization="nf4"), "task": "infer"})
    assert infer.endswith(
        "model.lora.quantization: for task: infer, drop lora and set precision: fp8 "
        "(linear weights stored in 8 bits)"
    )
    assert "did you mean 'nf4'" in _error(_qlora(quantization="nf5"))
    assert "double_quantization: applies to quantization: nf4 only (got int8)" in _error(
        _qlora(quantization="int8", double_quantization=True)
    )
    assert "use precision: amp-bf16 or bf16" in _error({**_qlora(quantization="nf4"), "precision": "fp8"})
    # Without adapters there is no frozen base to quantize: the key lives under model.lora.
    misplaced = _error(_base(task="finetune", model={"preset": "gpt2", "quantization": "nf4"}))
    assert misplaced.endswith(
        "model: unknown key 'quantization' here; it belongs in lora: (lora.quantization)"
    )


@pytest.mark.parametrize("written", ["14", "14.5", "'14'"])
def test_a_deadline_without_a_unit_in_a_file_is_refused_as_on_the_command_line(
    tmp_path: Path, written: str
) -> None:
    # `deadline: 14` had planned for 14 hours (477 → 759 options left out) where --deadline 14 is
    # refused: a user who meant 14 days got a plan for 14 hours without a word
    path = tmp_path / "job.yaml"
    path.write_text(
        "name: x\ntask: train\nmodel: {preset: gpt2}\ninputs: {batch_size: 8, seq_len: 128}\n"
        f"constraints: {{deadline: {written}}}\n"
    )
    with pytest.raises(WorkloadError) as e:
        load_workload(path)
    n = written.strip("'")
    assert str(e.value) == (
        f"{path}: constraints.deadline {n} has no unit: write {n}h (hours), {n}d (days) or {n}m (minutes)"
    )
    # plain data (a plan's workload, written by to_dict) keeps its hours
    data = yaml.safe_load(path.read_text().replace(f"deadline: {written}", "deadline: 14d"))
    w = Workload.from_dict(data)
    assert w.constraints.deadline_hours == 336.0
    assert Workload.from_dict(w.to_dict()).constraints.deadline_hours == 336.0


def test_hub_id_names_the_weights_of_a_preset_or_hf_config_and_nothing_else() -> None:
    w = Workload.from_dict(_base(model={"preset": "llama-8b", "hub_id": " me/llama-tuned "}))
    assert w.model.hub_id == "me/llama-tuned"
    assert _error(_base(model={"python": "pkg.mod:build", "hub_id": "me/x"})) == (
        "model: hub_id names weights for a preset or an HF config, not for your own code"
    )
    for bad in ("llama", "me/x; rm -rf ~", "a--b/c", "../etc"):
        said = _error(_base(model={"preset": "gpt2", "hub_id": bad}))
        assert "expected a Hugging Face model id such as 'Qwen/Qwen2.5-7B-Instruct'" in said
        assert "\n" not in said


def test_hub_id_of_another_presets_checkpoint_is_refused() -> None:
    # an 8B plan had deployed the 70B checkpoint, on one GPU, at the 8B's settings
    said = _error(_base(model={"preset": "llama-8b", "hub_id": "meta-llama/Llama-3.1-70B-Instruct"}))
    assert said == (
        "model: hub_id meta-llama/Llama-3.1-70B-Instruct is the checkpoint of preset llama-70b, not of "
        "llama-8b's architecture: plan it as model: {preset: llama-70b}"
    )
    # the preset's own checkpoints, and any other id, are the user's to name
    for own in ("meta-llama/Llama-3.1-8B-Instruct", "META-LLAMA/Llama-3.1-8B", "acme/llama31-8b-chat"):
        assert Workload.from_dict(_base(model={"preset": "llama-8b", "hub_id": own})).model.hub_id == own


@pytest.mark.parametrize(
    ("written", "count"),
    [
        ("1.28M", 1_280_000),
        ("1,281,167", 1_281_167),
        ("1_281_167", 1_281_167),
        ("128万", 1_280_000),
        ("1.2亿", 120_000_000),
        ("50k", 50_000),
        ("1.1M", 1_100_000),  # Decimal: float's 1.1 × 10⁶ is 1,100,000.0000000002
        (1_281_167, 1_281_167),
    ],
)
def test_a_count_is_taken_as_people_write_it(written: object, count: int) -> None:
    # "data.samples: 1.28M" had been refused ("must be a valid integer") where "budget_usd: 5k" is taken.
    assert Workload.from_dict(_base(data={"samples": written})).data.samples == count
    assert Workload.from_dict(_base(data={"tokens": written})).data.tokens == count


def test_tokens_take_billions_and_a_count_that_is_not_whole_is_one_line() -> None:
    assert Workload.from_dict(_base(data={"tokens": "2B"})).data.tokens == 2_000_000_000
    # 1.2345K is 1,234.5 samples: not rounded silently
    said = _error(_base(data={"samples": "1.2345K"}))
    assert said == "data.samples: 1.2345K is 1,234.5, not a whole count: write the count itself, e.g. 1,234"
    said = _error(_base(data={"samples": "1,28"}))
    assert said == "data.samples: '1,28' is not a count: write it as 1281167, 1,281,167, 1.28M, 2B or 128万"
    assert _error(_base(data={"samples": "-5k"})) == "data.samples: must be ≥ 1 (got '-5k')"


@pytest.mark.parametrize(
    ("written", "forms"),
    [
        ("100 billion", "100B or 100,000,000,000"),
        ("1.5 billion", "1.5B or 1,500,000,000"),
        ("12 million", "12M or 12,000,000"),
        ("100 gazillion", "1281167, 1,281,167, 1.28M, 2B or 128万"),
    ],
)
def test_a_count_refused_shows_forms_that_fit_it_and_are_read(written: str, forms: str) -> None:
    # was: "100 billion" tokens got "write it as 1281167, 1,281,167, 1.28M or 128万", a sample
    # count's forms, where 100B is what is read
    said = _error(_base(data={"tokens": written}))
    assert said == f"data.tokens: {written!r} is not a count: write it as {forms}"
    read = [Workload.from_dict(_base(data={"tokens": form})).data.tokens for form in _forms(forms)]
    # each form shown is read; where the count named its scale, both forms are that count
    assert len(read) == 5 if "gazillion" in written else len(set(read)) == 1 and len(read) == 2, read


def _forms(words: str) -> list[str]:
    """The counts a refusal's list names ("a, b or c"), a grouped one (1,281,167) kept whole."""
    return re.findall(r"[0-9][0-9.]*(?:,[0-9]{3})*[A-Za-z万亿]?", words)


@pytest.mark.parametrize(
    ("written", "ms"),
    [("2s", 2000.0), ("80ms", 80.0), ("1.5 s", 1500.0), ("1min", 60_000.0), ("2000", 2000.0)],
)
def test_a_latency_target_is_read_with_its_unit(written: str, ms: float) -> None:
    # `ttft_p95_ms: 2s` was "input should be a valid number, unable to parse string as a number"
    serving = {"requests_per_s": 2, "prompt_tokens": 1000, "output_tokens": 200, "ttft_p95_ms": written}
    w = Workload.from_dict(_base(task="infer", serving=serving))
    assert w.serving is not None and w.serving.ttft_p95_ms == ms


def test_a_latency_in_a_unit_it_cannot_mean_is_one_line_naming_the_units() -> None:
    serving = {"requests_per_s": 2, "prompt_tokens": 1000, "output_tokens": 200, "p95_latency_ms": "2h"}
    assert _error(_base(task="infer", serving=serving)).startswith(
        "serving.p95_latency_ms: write a latency in ms, s or min, e.g. 2000, 2s or 80ms (got '2h')"
    )


@pytest.mark.parametrize(
    ("constraints", "given", "shown"),
    [
        # a job kept in mainland China is shown in yuan, its clouds' own figures (it had been dollars,
        # converted at the catalog's rate, unless a budget in yuan was given)
        ({"countries": ["CN"]}, {}, "CNY"),
        ({"countries": ["中国大陆"]}, {}, "CNY"),
        ({"countries": ["CN"]}, {"asked": "USD"}, "USD"),
        ({"countries": ["CN"], "budget_usd": 5000}, {}, "USD"),  # a budget in dollars is read in dollars
        ({"countries": ["CN"]}, {"budget_usd": 5000}, "USD"),
        ({"countries": ["CN", "SG"]}, {}, "USD"),
        ({"countries": ["CN", "HK"]}, {}, "USD"),
        ({}, {}, "USD"),
        ({"budget_cny": 5000}, {}, "CNY"),
    ],
)
def test_money_is_shown_in_yuan_for_a_yuan_budget_or_a_job_kept_in_mainland_china(
    constraints: dict[str, Any], given: dict[str, Any], shown: str
) -> None:
    w = Workload.from_dict(_base(constraints=constraints))
    assert w.shown_currency(given.pop("asked", None), **given) == shown
