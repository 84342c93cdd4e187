"""`gpuplan deploy` of a workload file runs the estimator's memory verdict before writing anything."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gpuplan.cli import main

#: GPT-2 (124 M params) trained in fp32, 16 × 1024 tokens: about 22 GiB by the estimate, which is
#: "no" on a T4 (15 GiB usable), "may not" on an L4 (22.5) and "yes" on an A100 80GB.
_WORKLOAD = (
    "name: big-lm\ntask: train\nmodel: {preset: gpt2}\ninputs: {batch_size: 16, seq_len: 1024}\n"
    "precision: fp32\noptimizer: adamw\nparallelism: ddp\ndata: {samples: 640, epochs: 1}\n"
)


def _deploy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str]:
    job = tmp_path / "job.yaml"
    job.write_text(_WORKLOAD)
    argv = ["gpuplan", "deploy", str(job), "-t", "torchrun", "-o", str(tmp_path / "o"), *args]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as e:
        main()
    _, err = capsys.readouterr()
    return (e.value.code if isinstance(e.value.code, int) else 1), err


def test_a_job_that_does_not_fit_the_gpu_is_refused_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _deploy(tmp_path, monkeypatch, capsys, "--gpu", "T4")
    assert code == 1
    assert err.count("\n") == 1 and err.startswith("error: the job does not fit T4: it needs ")
    assert "] per GPU, 15 GiB usable; it fits with: micro-batch 8" in err and "--force-fit" in err
    assert not (tmp_path / "o").exists()


def test_force_fit_writes_the_files_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _deploy(tmp_path, monkeypatch, capsys, "--gpu", "T4", "--force-fit")
    assert code == 0, err
    assert "warning: the job does not fit T4" in err and "written anyway (--force-fit)" in err
    assert (tmp_path / "o" / "launch.sh").is_file()


def test_a_job_that_may_not_fit_is_written_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _deploy(tmp_path, monkeypatch, capsys, "--gpu", "L4")
    assert code == 0, err
    assert "warning: the job may not fit L4: it needs " in err and "22.5 GiB usable" in err
    assert (tmp_path / "o" / "launch.sh").is_file()


def test_a_job_that_fits_says_nothing_of_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _deploy(tmp_path, monkeypatch, capsys, "--gpu", "A100-SXM4-80GB")
    assert code == 0, err
    assert "fit" not in err
