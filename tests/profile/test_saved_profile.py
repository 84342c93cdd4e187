"""A profile file given back (``plan --profile``): a file from anywhere, refused in one line when it
is not a profile an estimate can rest on, or a profile of another workload."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpuplan.errors import InputError
from gpuplan.profile.saved import read_saved_profile
from gpuplan.workload import load_workload
from stand_in_profiles import bert_large_profile

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def bert() -> Any:
    return load_workload(EXAMPLES / "bert-large-squad.yaml")


def _saved(tmp_path: Path, change: Any = None) -> Path:
    doc = json.loads(bert_large_profile("k").to_json())
    if change is not None:
        change(doc)
    path = tmp_path / "profile.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_a_profile_of_the_workload_reads_as_it_was_written(tmp_path: Path, bert: Any) -> None:
    assert read_saved_profile(_saved(tmp_path), bert) == bert_large_profile("k")


def _set(*keys: Any, value: Any) -> Any:
    def change(doc: Any) -> None:
        for k in keys[:-1]:
            doc = doc[k]
        doc[keys[-1]] = value

    return change


@pytest.mark.parametrize(
    ("change", "said"),
    [
        # a negative activation peak had been "fits" at -1,020 GiB; a batch of 0 or no ops a traceback
        (_set("peak", "activations_bytes", value=-1e12), "peak.activations_bytes is -1000000000000.0"),
        (_set("params", value=-5), "params is -5; a profile's figures are finite and not negative"),
        (_set("ops", 0, "flops", value=-1.0), "ops[0].flops is -1.0"),
        (_set("ops", 0, "count", value=0), "ops[0] (aten.mm) is called 0 times"),
        (_set("batch_size", value=0), "a profile of 0 samples and 2 ops"),
        (_set("ops", value=[]), "a profile of 32 samples and 0 ops"),
        (_set("ops", 0, "op_class", value="evil"), "ops[0].op_class is 'evil', not a value a profile holds"),
        (_set("params", value="5"), "params is '5', not a value a profile holds there"),
        (_set("schema_version", value=99), "a profile of schema 99, and this gpuplan reads schema"),
        (_set("evil", value=1), "not a gpuplan profile JSON (Profile.__init__() got an unexpected keyword"),
        (lambda doc: doc.pop("shape"), "not a gpuplan profile JSON (it has no 'shape' key)"),
        # a profile of a batch of 1 had priced a job of batch 32 without a word
        (_set("batch_size", value=1), "traced with batch per GPU 1; this workload has 32: trace it"),
        (_set("precision", value="amp-fp61"), "traced with precision amp-fp61; this workload has amp-fp16"),
        (_set("attention", value="eager"), "traced with attention eager; this workload has fused"),
    ],
)
def test_a_profile_no_estimate_can_rest_on_is_one_line(
    tmp_path: Path, bert: Any, change: Any, said: str
) -> None:
    with pytest.raises(InputError) as refused:
        read_saved_profile(_saved(tmp_path, change), bert)
    assert said in str(refused.value) and "\n" not in str(refused.value)


def test_a_file_that_is_no_json_profile_at_all_is_one_line(tmp_path: Path, bert: Any) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(InputError, match="nested too deeply"):
        read_saved_profile(deep, bert)
    nan = tmp_path / "nan.json"
    text = _saved(tmp_path).read_text()
    nan.write_text(text.replace('"flops_per_step": 9', '"flops_per_step": NaN, "x": 9'), encoding="utf-8")
    with pytest.raises(InputError, match="NaN is not a number"):
        read_saved_profile(nan, bert)
    plan = tmp_path / "plan.json"
    plan.write_text('{"schema_version": 2, "options": []}', encoding="utf-8")
    with pytest.raises(InputError, match="not a gpuplan profile JSON"):
        read_saved_profile(plan, bert)
