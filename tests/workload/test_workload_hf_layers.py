"""A Hugging Face config that describes more layers than gpuplan traces (a few bytes of JSON, an hour
of tracing) is one line when the workload is read, before torch or transformers is imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpuplan.errors import WorkloadError
from gpuplan.workload import Workload
from gpuplan.workload.hf_size import MAX_LAYERS, layers

ROOT = Path(__file__).resolve().parents[2]
GPT2 = {"model_type": "gpt2", "n_embd": 64, "n_head": 2, "vocab_size": 100, "n_positions": 64}


def _workload_file(tmp_path: Path, config: dict[str, object]) -> Path:
    (tmp_path / "config.json").write_text(json.dumps(config))
    w = tmp_path / "job.yaml"
    w.write_text("name: j\nmodel: {hf_config: config.json}\ninputs: {batch_size: 1, seq_len: 16}\n")
    return w


def test_a_20000_layer_config_is_refused_as_the_workload_is_read_without_torch(tmp_path: Path) -> None:
    w = _workload_file(tmp_path, {**GPT2, "n_layer": 20000})
    code = (
        "import sys\n"
        "from gpuplan.errors import WorkloadError\n"
        "from gpuplan.workload import Workload\n"
        "try:\n    Workload.from_yaml(sys.argv[1])\n"
        "except WorkloadError as e:\n    print(e)\n"
        "print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))\n"
    )
    r = subprocess.run([sys.executable, "-c", code, str(w)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr[-2000:]
    said, imported = r.stdout.splitlines()
    assert said == (
        f"{w}: model.hf_config: {tmp_path / 'config.json'} describes 20,000 layers, more than the 512 "
        "gpuplan traces (0.1-0.2 s each; the deepest published models have 126)"
    )
    assert imported == "[]"


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({"num_hidden_layers": 16}, 16),  # Llama-style
        ({"n_layer": 48, "num_hidden_layers": 48}, 48),  # one stack named twice (GPT-2 + alias)
        ({"num_layers": 24, "num_decoder_layers": 24}, 48),  # T5: encoder + decoder
        ({"num_hidden_layers": 12, "encoder_layers": 12, "decoder_layers": 12}, 36),  # BART: counted high
        ({"text_config": {"num_hidden_layers": 40}, "vision_config": {"num_hidden_layers": 32}}, 72),
        ({"n_layer": True}, 0),  # a boolean is not a count
        ({"n_layer": "20000"}, 0),  # a string is transformers' to refuse
    ],
)
def test_layers_count_every_stack_of_a_config(config: dict[str, object], expected: float) -> None:
    assert layers(config) == expected


@pytest.mark.parametrize("value", [MAX_LAYERS + 1, 1e999, float("nan")])
def test_a_count_past_the_budget_or_not_finite_is_refused(tmp_path: Path, value: float) -> None:
    (tmp_path / "config.json").write_text(
        json.dumps({**GPT2, "n_layer": value})
    )  # NaN, Infinity as Python writes them
    with pytest.raises(WorkloadError) as e:
        Workload.from_dict(
            {
                "name": "j",
                "model": {"hf_config": str(tmp_path / "config.json")},
                "inputs": {"batch_size": 1, "seq_len": 8},
            }
        )
    assert "\n" not in str(e.value)
    assert "layers, more than the 512" in str(e.value) or "is not a number gpuplan accepts" in str(e.value)


def test_the_shipped_hf_example_is_within_the_budget() -> None:
    raw = json.loads((ROOT / "examples" / "hf-config" / "config.json").read_text())
    assert 0 < layers(raw) <= MAX_LAYERS
    Workload.from_yaml(ROOT / "examples" / "hf-config" / "llama32-1b-finetune.yaml")


@pytest.mark.parametrize(
    ("key", "value"),
    [("n_head", 0), ("vocab_size", 0), ("n_layer", -3), ("n_embd", 64.5), ("n_positions", True)],
)
def test_a_size_that_is_not_a_whole_number_of_at_least_1_is_refused_as_read(
    tmp_path: Path, key: str, value: object
) -> None:
    # Before: 0 heads, a vocabulary of 0 or -3 layers failed 20 s later, deep inside the trace.
    w = _workload_file(tmp_path, {**GPT2, "n_layer": 2, key: value})
    with pytest.raises(WorkloadError) as e:
        Workload.from_yaml(w)
    assert str(e.value).endswith(f"{key} is {value!r}; a model's sizes are whole numbers of at least 1")
