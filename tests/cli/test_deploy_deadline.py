"""deploy of a workload file on GPUs the user chose: where the estimate's steps alone outlast the
workload's deadline, it says so before the files run (no plan held those GPUs to the deadline)."""

from __future__ import annotations

from pathlib import Path

import pytest

from one_line import ran


def _job(folder: Path, deadline: str) -> Path:
    folder.mkdir(parents=True)
    job = folder / "job.yaml"
    job.write_text(
        "name: tiny\ntask: train\nmodel: {preset: gpt2}\ninputs: {batch_size: 2, seq_len: 128}\n"
        f"data: {{tokens: 1000000000000}}\nconstraints: {{deadline: {deadline}}}\n"
    )
    return job


@pytest.mark.parametrize(("deadline", "warned"), [("1h", True), ("100000h", False)])
def test_a_deadline_the_chosen_gpus_cannot_meet_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], deadline: str, warned: bool
) -> None:
    # a fine-tune deployed on one L4 took 5.6 days by the estimate against its 2-day deadline, unsaid
    job = _job(tmp_path / "lab", deadline)
    args = ["deploy", str(job), "--target", "torchrun", "--gpu", "L4", "--out", str(tmp_path / "out")]
    err = ran(args, capsys).stderr
    said = " ".join(err.split())
    assert ("past its deadline of 1.0 h (constraints.deadline)" in said) is warned, said
    if warned:
        assert "on 1 × L4" in said and "`gpuplan plan` sizes GPUs that meet it" in said
