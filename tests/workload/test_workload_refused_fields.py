"""A refusal of a workload says which value it refuses as data, not only in its words: a misspelt
key carries the key (``UnknownKey.key``), and a check of the whole workload or of a plan option
that refuses one value carries its name and the problem apart (``InputError.field`` and
``problem``), so a reader that names fields its own way (the service's requests) can name it. The
command line's one line reads as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError

from gpuplan.errors import InputError
from gpuplan.workload import Workload
from gpuplan.workload._validation import UnknownKey, one_line_error, refuse_unknown_keys, refused_value


def _base(**over: Any) -> dict[str, Any]:
    return {"name": "w", "model": {"preset": "gpt2"}, "inputs": {"batch_size": 8, "seq_len": 1024}, **over}


def _refused(data: dict[str, Any]) -> tuple[str, str, str]:
    """The field path and the problem the service names, and the command line's one line."""
    with pytest.raises(ValidationError) as e:
        Workload.model_validate(data)
    path, problem = refused_value(e.value)
    return path, str(problem), str(one_line_error(e.value))


def test_a_misspelt_key_is_named_by_its_own_path_with_the_nearest_key() -> None:
    path, problem, line = _refused(_base(constraints={"deadlin": "6h"}))
    assert path == "constraints.deadlin"
    assert problem == "unknown key 'deadlin'; did you mean 'deadline' or 'deadline_hours'?"
    assert line == "constraints: " + problem  # the command line's, as before
    path, problem, _line = _refused(_base(deadlin="6h"))
    assert path == "deadlin" and problem.startswith("unknown key 'deadlin'; did you mean"), problem


def test_the_did_you_mean_is_one_for_any_model() -> None:
    class Options(BaseModel):
        model_config = ConfigDict(extra="forbid")
        deadline: str | None = None
        budget_usd: float | None = None

    with pytest.raises(UnknownKey) as e:
        refuse_unknown_keys(Options, {"deadlin": "6h"})
    assert e.value.key == "deadlin"
    assert str(e.value.problem) == "unknown key 'deadlin'; did you mean 'deadline'?"
    with pytest.raises(UnknownKey) as e:
        refuse_unknown_keys(Options, {"zzz": 1})
    assert str(e.value.problem) == "unknown key 'zzz'; known keys: budget_usd, deadline"
    refuse_unknown_keys(Options, {"deadline": "6h"})  # a known key passes


def test_a_config_that_asks_for_code_names_model_hf_config_with_the_problem_apart(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"model_type": "bert", "auto_map": {"AutoModel": "x.Y"}}), encoding="utf-8")
    path, problem, line = _refused(_base(model={"hf_config": str(config)}))
    assert path == "model.hf_config"
    assert problem.startswith("an auto_map (AutoModel) names Python code to run"), problem
    assert line.startswith(f"model.hf_config: {config} has an auto_map (AutoModel)"), line


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("6 fortnights", "expected a duration like 12h, 2d, 90m, 1h30m or 3 weeks (got '6 fortnights')"),
        ("6", "'6' has no unit: write 6h (hours), 6d (days) or 6m (minutes)"),
    ],
)
def test_a_deadline_refused_says_it_is_the_deadline_with_the_problem_apart(text: str, problem: str) -> None:
    from gpuplan.plan.constraints import parse_duration_h

    with pytest.raises(InputError) as e:
        parse_duration_h(text)
    assert (e.value.field, str(e.value.problem)) == ("deadline", problem)
    assert str(e.value).startswith("deadline") and str(e.value).endswith(problem.split(": ", 1)[-1])


@pytest.mark.parametrize(
    ("key", "problem"),
    [
        # a key of a sub-section, misspelt at the top: the sub-section's key, said with its section
        # (the top's own keys had been the only ones looked at: "did you mean 'model'?")
        ("deadlin", "unknown key 'deadlin'; did you mean 'constraints.deadline'?"),
        ("batchsize", "unknown key 'batchsize'; did you mean 'inputs.batch_size'?"),
        ("epoch", "unknown key 'epoch'; did you mean 'data.epochs'?"),
        ("region", "unknown key 'region'; did you mean 'constraints.regions'?"),
        ("presets", "unknown key 'presets'; did you mean 'model.preset'?"),
        # a sub-section's key as it is still says where it belongs
        ("deadline", "unknown key 'deadline' here; it belongs in constraints: (constraints.deadline)"),
    ],
)
def test_a_misspelt_key_at_the_top_is_matched_against_the_sub_sections_keys(key: str, problem: str) -> None:
    path, said, line = _refused(_base(**{key: "6h"}))
    assert (path, said) == (key, problem)
    assert line == problem  # the command line's one line: the same words


def test_the_tops_own_close_keys_come_first_and_a_sub_sections_suggestions_are_as_before() -> None:
    # a key that is a sub-section's, misspelt: said with its section
    assert _refused(_base(deadlin="6h"))[1] == "unknown key 'deadlin'; did you mean 'constraints.deadline'?"
    # the top's own close key first, no sub-section's key as near beside it
    assert _refused(_base(modle="x"))[1] == "unknown key 'modle'; did you mean 'model' or 'compile'?"
    assert _refused(_base(serve="x"))[1] == "unknown key 'serve'; did you mean 'serving'?"
    # inside a sub-section, its own keys as before
    path, problem, _line = _refused(_base(constraints={"deadlin": "6h"}))
    assert problem == "unknown key 'deadlin'; did you mean 'deadline' or 'deadline_hours'?"
    path, problem, _line = _refused(_base(inputs={"batch_size": 8, "seq_len": 1024, "batchsize": 1}))
    assert (path, problem) == (
        "inputs.batchsize",
        "unknown key 'batchsize'; did you mean 'batch_size' or 'image_size'?",
    )


def test_the_sub_sections_are_given_to_the_one_did_you_mean() -> None:
    class Options(BaseModel):
        model_config = ConfigDict(extra="forbid")
        top: int | None = None

    with pytest.raises(UnknownKey) as e:
        refuse_unknown_keys(Options, {"deadlin": "6h"}, {"limits": {"deadline", "budget"}})
    assert str(e.value.problem) == "unknown key 'deadlin'; did you mean 'limits.deadline'?"
    with pytest.raises(UnknownKey) as e:
        refuse_unknown_keys(Options, {"tpo": 1}, {"limits": {"top_k"}})
    assert str(e.value.problem) == "unknown key 'tpo'; did you mean 'top'?"  # its own, the nearer


@pytest.mark.parametrize(
    ("config", "problem"),
    [
        ({"hidden_size": 0}, "{file}: hidden_size is 0; a model's sizes are whole numbers of at least 1"),
        ({"num_hidden_layers": 100_000}, "{file} describes 100,000 layers, more than the 512 gpuplan traces"),
    ],
)
def test_a_config_refused_for_its_sizes_names_model_hf_config_with_the_problem_apart(
    tmp_path: Path, config: dict[str, Any], problem: str
) -> None:
    file = tmp_path / "config.json"
    sizes = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100}
    file.write_text(json.dumps({"model_type": "llama", **sizes, **config}), encoding="utf-8")
    path, said, line = _refused(_base(model={"hf_config": str(file)}))
    assert path == "model.hf_config"
    assert said.startswith(problem.format(file=file)), said
    assert line == f"model.hf_config: {said}"  # the command line's, as before


def test_a_config_that_is_not_json_names_model_hf_config_with_the_problem_apart(tmp_path: Path) -> None:
    file = tmp_path / "config.json"
    file.write_text('{"model_type": "llama",', encoding="utf-8")
    path, said, line = _refused(_base(model={"hf_config": str(file)}))
    assert path == "model.hf_config"
    assert said == f"{file} is not valid JSON (Expecting property name enclosed in double quotes at line 1)"
    assert line == f"model.hf_config: {said}"  # the command line's, as before


@pytest.mark.parametrize(
    ("doc", "words"),
    [
        (
            {"schema_version": 2, "workload": {"name": "w"}, "recommended": {}},
            "is a plan (gpuplan plan --json's output)",
        ),
        ({"schema_version": 2, "rows": []}, "is a JSON document gpuplan wrote (it has a schema_version)"),
    ],
)
def test_a_document_gpuplan_wrote_is_not_read_as_a_workload_with_an_unknown_key(
    tmp_path: Path, doc: dict[str, Any], words: str
) -> None:
    from gpuplan.errors import WorkloadError

    path = tmp_path / "doc.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(WorkloadError) as e:
        Workload.from_yaml(path)
    assert words in str(e.value) and "unknown key" not in str(e.value)
