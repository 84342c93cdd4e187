"""A workload file's split is checked first in plan's words, and ``--gpu NAME:COUNT`` gives the count
as estimate reads it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml
from deploy_helpers import serve_workload

from gpuplan.cli import main


def _deploy(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], workload: Path, out: Path, *args: str
) -> tuple[int, str]:
    argv = ["gpuplan", "deploy", str(workload), "-t", "k8s", "-o", str(out), *args]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as e:
        main()
    _, err = capsys.readouterr()
    return (e.value.code if isinstance(e.value.code, int) else 0), err


@pytest.mark.parametrize("gpus", [[], ["-n", "4"], ["-n", "3"]])
def test_a_split_the_heads_do_not_divide_is_refused_at_once_for_the_heads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], gpus: list[str]
) -> None:
    # It had been "a node has 1" (no -n), then "does not divide 4 GPUs" (-n 4): two wrong fixes
    # before the heads, which plan names at once.
    workload = serve_workload(tmp_path, model="llama-8b", top="tensor_parallel: 3\n")
    code, err = _deploy(monkeypatch, capsys, workload, tmp_path / "o", "--gpu", "L40S", *gpus)
    assert code == 1
    assert "tensor_parallel 3 does not divide the model's 32 attention heads; use one of 1, 2, 4, 8" in err
    assert "a node has" not in err and "does not divide 4 GPUs" not in err
    assert not (tmp_path / "o").exists()


def test_a_count_after_the_gpu_is_the_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    workload = serve_workload(tmp_path, model="llama-8b", top="tensor_parallel: 2\n")
    out = tmp_path / "o"
    code, err = _deploy(monkeypatch, capsys, workload, out, "--gpu", "L40S:2")
    assert code == 0, err
    docs = yaml.safe_load_all((out / "k8s" / "deployment.yaml").read_text())
    deployment = next(d for d in docs if d["kind"] == "Deployment")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == 2
    # the same count twice is the count; two counts are refused, not one of them taken
    code, err = _deploy(monkeypatch, capsys, workload, tmp_path / "o2", "--gpu", "L40S:2", "-n", "2")
    assert code == 0, err
    code, err = _deploy(monkeypatch, capsys, workload, tmp_path / "o3", "--gpu", "L40S:2", "-n", "4")
    assert code == 1
    assert "--gpu L40S:2 and --count 4 give two GPU counts; give one of them" in err
    assert not (tmp_path / "o3").exists()
