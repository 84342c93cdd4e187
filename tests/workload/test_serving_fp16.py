"""``precision: fp16`` of a served model is fp16 weights, fp16-master's (its master copy is the
optimizer's, and serving has none); to train it names no one method and is refused naming the
four, and a served model's GPU without BF16 tensor cores is told ``fp16``, not training's word."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplan.vocab import Precision
from gpuplan.workload import Workload
from one_line import answered, refused

_SERVED = (
    "name: chat\ntask: infer\nmodel: {preset: gpt2}\ninputs: {batch_size: 8, seq_len: 256}\n"
    "precision: PRECISION\nserving: {requests_per_s: 1, prompt_tokens: 128, output_tokens: 64}\n"
)
_TRAINED = (
    "name: lm\ntask: train\nmodel: {preset: gpt2}\ninputs: {batch_size: 8, seq_len: 256}\n"
    "precision: fp16\noptimizer: adamw\n"
)


def _file(tmp_path: Path, text: str, precision: str = "fp16") -> str:
    path = tmp_path / "job.yaml"
    path.write_text(text.replace("PRECISION", precision))
    return str(path)


@pytest.mark.parametrize("spelled", ["fp16", "FP16"])
def test_fp16_to_serve_is_fp16_master(spelled: str) -> None:
    # was refused: "unknown precision 'fp16'; did you mean 'amp-fp16' or 'fp16-master'"
    doc = {
        "name": "chat",
        "task": "infer",
        "model": {"preset": "gpt2"},
        "inputs": {"batch_size": 8, "seq_len": 256},
        "precision": spelled,
    }
    assert Workload.model_validate(doc).precision is Precision.FP16_MASTER


def test_fp16_to_train_is_refused_in_one_line_naming_the_four(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = refused(["estimate", _file(tmp_path, _TRAINED), "--gpu", "A100-SXM4-80GB"], capsys)
    assert (
        "unknown precision 'fp16'; did you mean 'amp-fp16' or 'amp-bf16' or 'fp16-master' or 'bf16'?" in line
    )
    assert "fp16 (float16, half) is taken for inference only" in line


def test_a_served_bf16_model_on_a_t4_is_told_fp16_and_fp16_then_runs_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = refused(["estimate", _file(tmp_path, _SERVED, "bf16"), "--gpu", "T4"], capsys)
    # was "(use fp16-master: fp16 weights)": a training word for a served model
    assert line.endswith("T4 has no BF16 tensor cores (use fp16: fp16 weights)"), line
    out = answered(["estimate", _file(tmp_path, _SERVED, "fp16"), "--gpu", "T4"], capsys)
    assert "fp16-master" in out.splitlines()[0] and " T4 " in out


@pytest.mark.parametrize("spelled", ["float16", "half", "Half"])
def test_torchs_names_of_fp16_are_taken_where_fp16_is_and_refused_where_it_is(
    spelled: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # were refused even to serve: "did you mean 'amp-fp16' or 'fp16-master'?" (float16) and
    # "'fp16-master' or 'amp-fp16'" (half), while fp16 was taken as fp16-master
    out = answered(["estimate", _file(tmp_path, _SERVED, spelled), "--gpu", "T4"], capsys)
    assert "fp16-master" in out.splitlines()[0] and " T4 " in out
    trained = _file(tmp_path, _TRAINED.replace("precision: fp16", f"precision: {spelled}"))
    line = refused(["estimate", trained, "--gpu", "A100-SXM4-80GB"], capsys)
    assert (
        f"unknown precision '{spelled}'; did you mean 'amp-fp16' or 'amp-bf16' or 'fp16-master' or 'bf16'?"
        in line
    )
    assert "fp16 (float16, half) is taken for inference only" in line


@pytest.mark.parametrize("task", ["infer", "train"])
def test_bfloat16_is_bf16(task: str) -> None:
    # was refused: "unknown precision 'bfloat16'; did you mean 'bf16'?"
    doc = {
        "name": "lm",
        "task": task,
        "model": {"preset": "gpt2"},
        "inputs": {"batch_size": 8, "seq_len": 256},
        "precision": "bfloat16",
    }
    assert Workload.model_validate(doc).precision is Precision.BF16
