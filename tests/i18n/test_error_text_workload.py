"""Error lines of the workload layer (spec, durations, presets, LoRA/freezing, user code, HF configs),
the bounded readers and the currency rate: raised through the real code, English byte for byte as
before, and under zh no run of English words left outside the data they quote."""

from __future__ import annotations

import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from english_left import english_left

from gpuplan.bounded import load_json, load_yaml
from gpuplan.errors import GpuplanError
from gpuplan.i18n import Money, use_language
from gpuplan.i18n.error_text import error_text
from gpuplan.workload.durations import parse_duration_hours
from gpuplan.workload.presets.registry import get_preset
from gpuplan.workload.spec import Workload, load_workload

_BASE: dict[str, Any] = {"name": "job", "model": "gpt2", "inputs": {"batch_size": 1, "seq_len": 128}}


def _workload(**changes: Any) -> Callable[[], object]:
    return lambda: load_workload({**_BASE, **changes})


def _raised(call: Callable[[], object]) -> GpuplanError:
    with pytest.raises(GpuplanError) as info:
        call()
    return info.value


def _chinese(error: GpuplanError) -> str:
    with use_language("zh"):
        return error_text(error)


#: (what raises, the English line as gpuplan wrote it before the catalog, data the line quotes)
CASES: list[tuple[Callable[[], object], str, tuple[str, ...]]] = [
    (
        _workload(inputs={"batch_size": "x", "seq_len": 128}),
        "inputs.batch_size: input should be a valid integer, unable to parse string as an integer (got 'x')",
        (),
    ),
    (
        _workload(inputs={"batch_size": 1.5, "seq_len": 128}),
        "inputs.batch_size: Input should be a valid integer, got a number with a fractional part",
        (),
    ),
    # a section given as something else: it had named pydantic's class ("or instance of InputsSpec")
    (_workload(inputs=[1]), "inputs: should be a mapping of keys (key: value), not [1]", ()),
    (_workload(name="x" * 400), "name: String should have at most 300 characters", ()),
    (
        _workload(compile="maybe"),
        "compile: input should be a valid boolean, unable to interpret input (got 'maybe')",
        (),
    ),
    (_workload(data={"epochs": float("inf")}), "data.epochs: Input should be a finite number", ()),
    (
        _workload(constraints={"providers": {"a": 1}}),
        "constraints.providers: Input should be a valid tuple",
        (),
    ),
    (
        _workload(constraints={"providers": ["amzon"]}),
        "constraints.providers: unknown provider 'amzon'; did you mean 'aws'?",
        (),
    ),
    (
        _workload(constraints={"deadline": "soon"}),
        "constraints.deadline: expected a duration like 12h, 2d, 90m, 1h30m or 3 weeks (got 'soon')",
        (),
    ),
    (
        _workload(precision="bf61"),
        "precision: unknown precision 'bf61'; did you mean 'bf16' or 'amp-bf16'?",
        (),
    ),
    (
        _workload(model={"preset": "gpt2", "lora": {"rank": 4, "targets": []}}, task="finetune"),
        "model.lora.targets: list at least one target, e.g. [q, v]",
        (),
    ),
    (
        _workload(model={"preset": "gpt2", "python": "a:b"}),
        "model: give exactly one of preset, hf_config or python (got preset, python)",
        (),
    ),
    (_workload(model={}), "model: give exactly one of preset, hf_config or python (got none)", ()),
    (_workload(model={"python": "a b"}), "model.python: expected 'package.module:function' (got 'a b')", ()),
    (
        _workload(inputs={"batch_size": 1, "seq_len": 100_000}),
        "inputs.seq_len: 100000 is longer than the model allows (1024 positions in gpt2); "
        "use seq_len: 1024 or less",
        (),
    ),
    (
        _workload(inputs={"batch_size": 1, "seq_len": 8, "image_size": 3}),
        "inputs: give seq_len (text) or image_size (vision), not both",
        (),
    ),
    (_workload(model="resnet50"), "inputs: resnet50 takes images; give image_size, not seq_len", ()),
    (
        _workload(model="vit-b16", inputs={"batch_size": 1, "image_size": 100}),
        "inputs.image_size: must be a multiple of 16 for vit-b16 (got 100)",
        (),
    ),
    (
        _workload(serving={"requests_per_s": 1, "prompt_tokens": 1, "output_tokens": 1}),
        "serving: only applies to task: infer (remove it or set task: infer)",
        (),
    ),
    (
        _workload(model={"preset": "gpt2", "lora": {"rank": 4}}, task="infer"),
        "model.lora: adapters only matter for training; use task: finetune or drop lora",
        (),
    ),
    (
        _workload(optimizer_in_backward=True, gradient_accumulation=2),
        "optimizer_in_backward: steps during backward, so it cannot accumulate gradients; "
        "use gradient_accumulation: 1 or drop optimizer_in_backward",
        (),
    ),
    (
        _workload(task="infer", pipeline_parallel=2),
        "pipeline_parallel: modelled for training only; for task: infer use tensor_parallel "
        "(or one replica per GPU)",
        (),
    ),
    (
        _workload(sequence_parallel=True),
        "sequence_parallel: needs tensor_parallel of 2 or more (or remove it)",
        (),
    ),
    (_workload(task="infer", loss="chunked"), "loss: has no effect for task: infer; remove it", ()),
    (_workload(data={"samples": 1, "tokens": 3}), "data: give samples or tokens, not both", ()),
    (
        _workload(data={"location": "onprem"}),
        "data.location: expected provider/region like aws/us-east-1 (got 'onprem'); for data on your own "
        "site, leave location out: it is then uploaded from there",
        (),
    ),
    # no key near it, at the top or in a sub-section ("batchsize" is now inputs.batch_size's)
    (_workload(qqq=3), "unknown key 'qqq'; known keys: ", ()),
    (_workload(batchsize=3), "unknown key 'batchsize'; did you mean 'inputs.batch_size'?", ()),
    (
        _workload(inputs={"batch_size": 1, "seq_lem": 8}),
        "inputs: unknown key 'seq_lem'; did you mean 'seq_len'?",
        (),
    ),
    (lambda: Workload.from_dict([1], source="w.yaml"), "w.yaml: expected a mapping of fields (got list)", ()),  # type: ignore[arg-type]
    (lambda: Workload.from_dict([1]), "workload: expected a mapping of fields (got list)", ()),  # type: ignore[arg-type]
    (
        lambda: get_preset("bertt"),
        "unknown preset 'bertt'; did you mean 'bert-base' or 'bert-large'? (known presets: ",
        (),
    ),
    (lambda: load_json("[1e999]", source="f.json"), "f.json: number 1e999 is out of range", ()),
    (lambda: load_json("[NaN]", source="f.json"), "f.json: NaN is not a number gpuplan accepts", ()),
    (
        lambda: load_yaml("a:" + " [" * 80, source="w.yaml"),
        "w.yaml: line 1: nested more than 64 levels deep",
        (),
    ),
    (
        lambda: Money.from_rate("CNY", usd_per_unit=0.0, as_of="2026-01-01", source="test"),
        "exchange rate for CNY must be a positive number, got 0.0",
        (),
    ),
    (
        lambda: Money(currency="CNY", units_per_usd=-1.0),
        "exchange rate must be a positive number, got -1.0",
        (),
    ),
]


def _duration_error(value: object) -> Callable[[], object]:
    # The duration parser raises ValueError (pydantic places it); the workload shows it under its field.
    return _workload(constraints={"deadline": value})


CASES += [
    (_duration_error(0), "constraints.deadline: a duration must be > 0 (got 0)", ()),
    (
        _duration_error("1000000h"),
        "constraints.deadline: a duration must be at most 87660 h, ten years (got 1000000h)",
        (),
    ),
    (
        _duration_error(10**9),
        "constraints.deadline: a duration must be at most 87660 h, ten years (got 1000000000…)",
        (),
    ),
]


@pytest.mark.parametrize(("call", "english", "data"), CASES, ids=[c[1][:48] for c in CASES])
def test_each_line_is_the_old_english_and_reads_in_chinese(
    call: Callable[[], object], english: str, data: tuple[str, ...]
) -> None:
    e = _raised(call)
    if english.endswith(": "):  # a line cut where its list of names starts is compared up to there
        assert str(e).startswith(english)
    else:
        assert str(e) == english
    with use_language("en"):
        assert error_text(e) == str(e)
    chinese = _chinese(e)
    assert chinese != str(e)
    assert english_left(chinese, allow=data) == []


def test_a_validator_line_pins_its_chinese_with_field_and_value_kept() -> None:
    e = _raised(_workload(inputs={"batch_size": 1, "seq_len": 100_000}))
    assert _chinese(e) == (
        "inputs.seq_len：100000 超过了模型允许的长度（gpt2 中为 1024 个位置）；"
        "请使用 seq_len: 1024 或更小的值"
    )
    e = _raised(_workload(model={"preset": "gpt2", "python": "a:b"}))
    assert _chinese(e) == "model: preset、hf_config、python 须且只能给出其中一个（给出了 preset、python）"


def test_an_unknown_key_and_an_unknown_preset_join_their_names_in_chinese() -> None:
    e = _raised(_workload(inputs={"batch_size": 1, "seq_lem": 8}))
    assert _chinese(e) == "inputs: 键 'seq_lem' 无法识别；您是不是指 'seq_len'？"
    e = _raised(lambda: get_preset("bertt"))
    assert _chinese(e).startswith(
        "预设 'bertt' 无法识别；您是不是指 'bert-base' 或 'bert-large'？（已知预设：resnet50、"
    )


def test_a_duration_refused_by_the_parser_itself_carries_its_words() -> None:
    with pytest.raises(ValueError) as info:
        parse_duration_hours("soon")
    assert str(info.value) == "expected a duration like 12h, 2d, 90m, 1h30m or 3 weeks (got 'soon')"


def test_a_bad_hf_config_key_and_lora_targets_read_in_chinese(tmp_path: Path) -> None:
    from torch import nn

    from gpuplan.workload.adapt import apply_lora, freeze_prefixes
    from gpuplan.workload.hf import _check_size_keys
    from gpuplan.workload.spec import LoraSpec

    config_file = tmp_path / "config.json"
    config_file.write_text('{"model_type": "llama", "hidden_size": 64}', encoding="utf-8")
    config = types.SimpleNamespace(model_type="llama", hidden_size=64, num_hidden_layers=32, attribute_map={})
    raw = {"model_type": "llama", "hidden_size": 64}
    e = _raised(lambda: _check_size_keys(config, raw, config_file))
    assert str(e) == (
        f"model.hf_config: {config_file} has no 'num_hidden_layers', which llama needs (transformers would "
        "silently use its default, 32); copy it from the model's own config.json"
    )
    assert english_left(_chinese(e)) == []

    model = nn.Sequential(nn.Linear(2, 2))
    e = _raised(lambda: apply_lora(model, LoraSpec(rank=1, targets=("q",))))
    assert str(e) == (
        "model.lora.targets: no nn.Linear named q, q_lin, q_proj, query in this model; "
        "its linear layers are named: 0"
    )
    assert english_left(_chinese(e)) == []
    e = _raised(lambda: freeze_prefixes(model, ["1"]))
    assert str(e).startswith("model.frozen: no parameters under '1'")
    assert english_left(_chinese(e)) == []


def test_user_code_that_cannot_be_imported_or_returns_the_wrong_thing_reads_in_chinese(
    tmp_path: Path,
) -> None:
    from gpuplan.workload.user_code import build_user_bundle, user_project

    (tmp_path / "proj_a.py").write_text("def build():\n    return 3\n", encoding="utf-8")
    (tmp_path / "proj_b.py").write_text("def build():\n    raise RuntimeError('boom')\n", encoding="utf-8")
    (tmp_path / "proj_c.py").write_text(
        "def build():\n    raise RuntimeError('no cuda here')\n", encoding="utf-8"
    )
    base = {**_BASE, "model": {"python": "proj_a:build", "project_dir": str(tmp_path)}}
    missing = load_workload({**base, "model": {"python": "nowhere_mod:build", "project_dir": str(tmp_path)}})
    wrong = load_workload(base)
    failing = load_workload({**base, "model": {"python": "proj_b:build", "project_dir": str(tmp_path)}})
    no_function = load_workload({**base, "model": {"python": "proj_a:make", "project_dir": str(tmp_path)}})
    on_cuda = load_workload({**base, "model": {"python": "proj_c:build", "project_dir": str(tmp_path)}})
    for workload, english in (
        (
            missing,
            f"model.python: cannot import 'nowhere_mod': no module 'nowhere_mod' in {tmp_path} "
            "or the current directory",
        ),
        (wrong, "proj_a:build() must return an nn.Module or (model, make_inputs[, loss_fn]); got int"),
        (failing, "proj_b:build() failed (proj_b.py:2): RuntimeError: boom"),
        (no_function, "model.python: proj_a has no function 'make'"),
        (
            on_cuda,
            "proj_c:build() failed (proj_c.py:2): RuntimeError: no cuda here (gpuplan traces on a fake CPU "
            "device: create tensors and modules without device='cuda')",
        ),
    ):
        with user_project(tmp_path):
            e = _raised(lambda w=workload: build_user_bundle(w))
        assert str(e) == english
        assert english_left(_chinese(e), allow=["boom", "no cuda here"]) == []


def test_an_unknown_model_type_joins_its_near_spellings_and_examples_in_chinese(tmp_path: Path) -> None:
    # The names transformers knows were joined with " or " and ", " in every language.
    from gpuplan.workload.hf import _check_model_type

    names = {"llama": "LlamaConfig", "llava": "LlavaConfig", "gpt2": "GPT2Config", "bert": "BertConfig"}
    auto = types.SimpleNamespace(configuration_auto=types.SimpleNamespace(CONFIG_MAPPING_NAMES=names))
    tf = types.SimpleNamespace(models=types.SimpleNamespace(auto=auto), __version__="4.50.0")
    config = tmp_path / "config.json"
    e = _raised(lambda: _check_model_type(tf, {"model_type": "llamx"}, config))
    assert str(e) == (
        f"model.hf_config: {config}: model_type 'llamx' is not a model type transformers 4.50.0 knows; "
        "did you mean 'llama' or 'llava'?"
    )
    assert _chinese(e).endswith("您是不是想写 'llama' 或 'llava'？"), _chinese(e)
    e = _raised(lambda: _check_model_type(tf, {"model_type": "zzzz"}, config))
    assert str(e).endswith("(4 are, such as llama, gpt2, bert)")
    assert "llama、gpt2、bert" in _chinese(e) and "llama, gpt2" not in _chinese(e), _chinese(e)
