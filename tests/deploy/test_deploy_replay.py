"""The ``gpuplan simulate autoscale`` commands deploy's READMEs print run on the planned workload as
written: a replica split over the GPUs the plan chose (``--tensor-parallel``), not one GPU."""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import pytest
import yaml
from deploy_helpers import plan_doc

from gpuplan.cli import main


def _run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> tuple[int, str]:
    monkeypatch.setattr(sys, "argv", ["gpuplan", *argv])
    with pytest.raises(SystemExit) as e:
        main()
    _, err = capsys.readouterr()
    return (e.value.code if isinstance(e.value.code, int) else 0), err


def _planned_32b(tmp_path: Path, **serving: int) -> tuple[Path, Path]:
    """A Qwen2.5-32B service (65 GB of weights: no room for a KV cache on one A100-40GB) that states
    no split, planned at two GPUs a replica on a p4d.24xlarge; the plan and its workload file."""
    doc = plan_doc(gpu_count=8, nodes=1, pricing="on_demand")
    doc["workload"] = {
        "name": "s",
        "task": "infer",
        "model": {"preset": "qwen2.5-32b"},
        "inputs": {"batch_size": 1, "seq_len": 128},
        "precision": "bf16",
        "serving": {
            "requests_per_s": 4,
            "prompt_tokens": 500,
            "output_tokens": 100,
            "engine": "vllm",
            **serving,
        },
    }
    doc["recommended"]["service"] = {
        "requests_per_s": 4,
        "replicas": 4,
        "replica_gpus": 2,
        "tensor_parallel": 2,
        "tensor_parallel_chosen": True,
        "replica_capacity_requests_per_s": 1.2,
    }
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(doc))
    workload = tmp_path / "chat.yaml"
    workload.write_text(yaml.safe_dump(doc["workload"]))
    return plan, workload


@pytest.mark.slow
@pytest.mark.parametrize(("target", "readme"), [("k8s", "README.md"), ("skypilot", "README.md")])
def test_the_printed_replay_runs_on_the_workload_the_plan_split(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    target: str,
    readme: str,
) -> None:
    plan, workload = _planned_32b(tmp_path)
    out = tmp_path / target
    code, err = _run(monkeypatch, capsys, ["deploy", str(plan), "-t", target, "-o", str(out)])
    assert code == 0, err
    found = re.search(r"`(gpuplan simulate autoscale WORKLOAD [^`]*)`", (out / readme).read_text())
    assert found is not None
    command = found.group(1)
    assert "--tensor-parallel 2" in command
    argv = [str(workload) if a == "WORKLOAD" else a for a in shlex.split(command)][1:]
    code, err = _run(monkeypatch, capsys, [*argv, "--shape", "step", "--hours", "0.5"])
    assert code == 0, err


def test_the_skyserve_readme_says_its_replay_is_the_k8s_autoscalers_not_skyserves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # SkyServe scales on requests/s with 5-minute and 20-minute delays; the queue policy is the HPA on
    # requests in flight: the README had said it "replays the service on your traffic"
    plan, _workload = _planned_32b(tmp_path, min_replicas=1)
    out = tmp_path / "sky"
    code, err = _run(monkeypatch, capsys, ["deploy", str(plan), "-t", "skypilot", "-o", str(out)])
    assert code == 0, err
    text = " ".join((out / "README.md").read_text().split())
    assert "replays the service" not in text
    assert "not under SkyServe's own rule" in text
    # one replica, said as one (it had read "SkyServe starts 1 replicas")
    assert "SkyServe starts 1 replica, a cluster of its own" in text


def test_the_split_given_is_checked_as_plan_checks_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _plan, workload = _planned_32b(tmp_path)
    base = ["simulate", "autoscale", str(workload), "--gpu", "A100-SXM4-40GB", "--shape", "step"]
    code, err = _run(
        monkeypatch, capsys, [*base, "--hours", "0.5", "--policy", "queue", "--tensor-parallel", "3"]
    )
    assert code == 1
    assert "tensor_parallel 3 does not divide the model's 40 attention heads" in err
    code, err = _run(monkeypatch, capsys, [*base, "--policy", "queue", "--tensor-parallel", "0"])
    assert code != 0 and "--tensor-parallel" in err
