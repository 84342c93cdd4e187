"""A Hugging Face config that leaves a size key to transformers' defaults is an error naming the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuplan.errors import WorkloadError
from gpuplan.workload import Workload

FIXTURES = Path(__file__).parent / "fixtures" / "hf"
pytest.importorskip("transformers", reason="HF configs need the hf extra")


def _workload(config: Path) -> Workload:
    return Workload.from_dict(
        {
            "name": "h",
            "task": "train",
            "model": {"hf_config": str(config)},
            "inputs": {"batch_size": 1, "seq_len": 8},
        }
    )


def test_a_config_with_only_hidden_size_names_the_missing_key(tmp_path: Path) -> None:
    # The failure: {"hidden_size": ...} became a 2.8 B-parameter model of default shape.
    from gpuplan.workload.hf import hf_bundle

    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "llama", "hidden_size": 1024}))
    with pytest.raises(WorkloadError, match="has no 'num_hidden_layers', which llama needs"):
        hf_bundle(_workload(path))


def test_architecture_specific_key_names_count(tmp_path: Path) -> None:
    # GPT-2 writes n_layer / n_head / n_embd; those satisfy the check.
    import transformers

    from gpuplan.workload.hf import _check_size_keys

    path = FIXTURES / "tiny_gpt2.json"
    config = transformers.AutoConfig.from_pretrained(str(path), local_files_only=True)
    raw = json.loads(path.read_text())
    _check_size_keys(config, raw, path)  # no error
    raw.pop("vocab_size", None)
    bad = tmp_path / "gpt2.json"
    bad.write_text(json.dumps(raw))
    config = transformers.AutoConfig.from_pretrained(str(bad), local_files_only=True)
    with pytest.raises(WorkloadError, match="'vocab_size'"):
        _check_size_keys(config, raw, bad)


def test_padding_the_vocabulary_of_a_config_without_one_is_one_line(tmp_path: Path) -> None:
    from gpuplan.workload.hf import hf_bundle

    path = tmp_path / "config.json"
    vit = {"model_type": "vit", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2,
           "intermediate_size": 128, "image_size": 32, "patch_size": 8}  # fmt: skip
    path.write_text(json.dumps(vit))
    w = Workload.from_dict(
        {
            "name": "v",
            "model": {"hf_config": str(path), "pad_vocab_multiple": 8},
            "inputs": {"batch_size": 1, "image_size": 32},
        }
    )
    with pytest.raises(
        WorkloadError, match=r"model.pad_vocab_multiple: .*config.json has no vocab_size to pad"
    ) as e:
        hf_bundle(w)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize(("model_type", "suggested"), [("lama", "'llama'"), ("qqqzzz", None)])
def test_an_unknown_model_type_is_one_line_naming_it(
    tmp_path: Path, model_type: str, suggested: str | None
) -> None:
    # transformers' own text spoke of a checkpoint and an out-of-date Transformers
    from gpuplan.workload.hf import hf_bundle

    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": model_type, "hidden_size": 64}))
    with pytest.raises(WorkloadError) as raised:
        hf_bundle(_workload(path))
    text = str(raised.value)
    assert "\n" not in text and "checkpoint" not in text and "out of date" not in text, text
    assert f"model_type {model_type!r} is not a model type" in text, text
    if suggested:
        assert f"did you mean {suggested}" in text, text
    else:
        assert "llama" in text and "bert" in text, text  # what is supported, by example


def test_a_config_transformers_refuses_says_why_in_its_one_line(tmp_path: Path) -> None:
    # transformers' first line only introduces the reason ("Class validation error for validator
    # 'validate_architecture':"); the line had stopped there
    from gpuplan.workload.hf import hf_config

    config = json.loads(
        (Path(__file__).resolve().parents[2] / "examples" / "hf-config" / "config.json").read_text()
    )
    config["num_attention_heads"] = 3
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    try:
        hf_config(_workload(path))
    except WorkloadError as e:
        said = str(e)
    else:  # a transformers that does not check it: nothing to say
        pytest.skip("this transformers takes 3 heads of a hidden size of 2048")
    assert "\n" not in said and "not a multiple of the number of attention heads" in said, said
