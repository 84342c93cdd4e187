"""A stand-in model (a preset or a Hugging Face config, which train.py cannot rebuild) runs a short
check of the launch by default, not the plan's full step count on synthetic data; `--steps full`
or the user's own model trains the full run, and the README and launch.sh say which."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest
import yaml
from deploy_helpers import FIXTURES, by_path

from gpuplan.cli import main
from gpuplan.deploy import GenerateOptions, LaunchSpec, generate, write_files
from gpuplan.deploy.base import parse_steps
from gpuplan.deploy.torchrun import STAND_IN_CHECK_CKPT_EVERY, STAND_IN_CHECK_STEPS
from gpuplan.documents.plan import workload_digest
from gpuplan.errors import DeployError
from gpuplan.workload import Workload

#: ViT-B/16 on ImageNet, 300 epochs: 1,281,167 × 300 / (256 × 8) = 187,671 steps (rounded up).
_VIT = (
    "name: vit\ntask: train\nmodel: {preset: vit-b16}\ninputs: {batch_size: 256, image_size: 224}\n"
    "precision: amp-bf16\noptimizer: adamw\nparallelism: ddp\n"
    "data: {samples: 1281167, epochs: 300, size_gb: 140}\n"
)
_FULL = 187_671


def _setting(train_py: str, name: str) -> str:
    match = re.search(rf"^{name}(?:: [^=]+)? = (.*?)(?:  #.*)?$", train_py, re.M)
    assert match, name
    return match.group(1)


def _plan(tmp_path: Path, workload: str) -> Path:
    doc = json.loads((FIXTURES / "plan_spot_aws.json").read_text())
    doc["workload"] = Workload.from_dict(yaml.safe_load(workload)).to_dict()
    doc["workload_sha256"] = workload_digest(doc["workload"])
    doc["recommended"] |= {
        "instance_type": "p5en.48xlarge",
        "gpu": "H200-SXM",
        "gpu_count": 8,
        "gpus_per_node": 8,
        "nodes": 1,
        "pricing": "spot",
    }
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(doc))
    return plan


@pytest.mark.parametrize("target", ["torchrun", "skypilot", "docker", "k8s"])
def test_a_stand_in_runs_a_short_check_by_default_and_says_so(tmp_path: Path, target: str) -> None:
    spec = LaunchSpec.from_plan_json(_plan(tmp_path, _VIT))
    files = by_path(generate(spec, target, GenerateOptions(out_dir=str(tmp_path / "o"))))
    train_py = files["train.py"]
    assert _setting(train_py, "TOTAL_STEPS") == str(STAND_IN_CHECK_STEPS)
    assert _setting(train_py, "CKPT_EVERY_STEPS") == str(STAND_IN_CHECK_CKPT_EVERY)
    assert f"the full run is {_FULL} steps" in train_py
    readme = files["README.md"]
    assert f"short check of the launch, {STAND_IN_CHECK_STEPS} steps" in readme
    assert f"`--steps {_FULL}`" in readme and "`--steps full`" in readme
    assert f"--steps {_FULL} trains the full run" in files["launch.sh"]


def test_a_run_given_more_steps_than_the_check_drops_the_checks_step_checkpoints(tmp_path: Path) -> None:
    # The README's first way to the full run, `--steps 187671` to train.py, kept the check's
    # checkpoint every 100 steps: 1,876 writes of the full model's state, longer than the training.
    import importlib.util

    spec = LaunchSpec.from_plan_json(_plan(tmp_path, _VIT))
    out = tmp_path / "o"
    write_files(generate(spec, "torchrun", GenerateOptions()), out)  # train.py and preset_model.py
    loader = importlib.util.spec_from_file_location("generated_train_check", out / "train.py")
    assert loader is not None and loader.loader is not None
    module = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(module)
    assert module.parse_args([]).ckpt_every_steps == STAND_IN_CHECK_CKPT_EVERY
    assert module.parse_args(["--steps", str(_FULL)]).ckpt_every_steps == 0
    # still the user's to set
    assert module.parse_args(["--steps", str(_FULL), "--ckpt-every-steps", "500"]).ckpt_every_steps == 500


def test_steps_full_trains_the_stand_in_for_the_plans_whole_run(tmp_path: Path) -> None:
    spec = LaunchSpec.from_plan_json(_plan(tmp_path, _VIT))
    files = by_path(generate(spec, "torchrun", GenerateOptions(steps="full")))
    assert _setting(files["train.py"], "TOTAL_STEPS") == str(_FULL)
    assert _setting(files["train.py"], "CKPT_EVERY_STEPS") == "0"
    assert "short check" not in files["README.md"] + files["launch.sh"]


def test_a_given_step_count_is_taken_as_given(tmp_path: Path) -> None:
    spec = LaunchSpec.from_plan_json(_plan(tmp_path, _VIT))
    files = by_path(generate(spec, "torchrun", GenerateOptions(steps=5000)))
    assert _setting(files["train.py"], "TOTAL_STEPS") == "5000"
    assert "short check" not in files["README.md"]


def test_your_own_model_trains_the_full_run(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    shutil.copytree(FIXTURES / "userproj", project)
    job = project / "job.yaml"
    job.write_text(
        job.read_text().replace("data: {samples: 64, epochs: 1}", "data: {samples: 64000, epochs: 10}")
    )
    spec = LaunchSpec.from_workload(job)
    files = by_path(generate(spec, "torchrun"))
    # 64,000 × 10 / (4 per GPU × 1 GPU) = 160,000 steps
    assert _setting(files["train.py"], "TOTAL_STEPS") == "160000"
    assert "short check" not in files["README.md"]


def test_a_stand_in_whose_full_run_is_shorter_than_the_check_runs_it_whole() -> None:
    spec = LaunchSpec.from_workload(FIXTURES / "train.yaml")
    files = by_path(generate(spec, "torchrun"))
    # 64 samples × 1 epoch / (4 per GPU × 1 GPU) = 16 steps, below the check's
    assert _setting(files["train.py"], "TOTAL_STEPS") == "16"
    assert _setting(files["train.py"], "CKPT_EVERY_STEPS") == "0"
    assert "short check" not in files["README.md"]


@pytest.mark.parametrize("typed", ["full", "FULL", " 300 "])
def test_steps_reads_a_count_or_full(typed: str) -> None:
    assert parse_steps(typed) == ("full" if typed.strip().lower() == "full" else 300)


@pytest.mark.parametrize("typed", ["0", "-3", "1.5", "all", "1x", "١٢"])
def test_steps_refuses_anything_else_in_one_line(typed: str) -> None:
    with pytest.raises(DeployError, match=r"--steps must be a whole number from 1 to .*, or full"):
        parse_steps(typed)


def test_deploy_steps_full_on_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = _plan(tmp_path, _VIT)
    out = tmp_path / "o"
    argv = ["gpuplan", "deploy", str(plan), "-t", "torchrun", "-o", str(out), "--steps", "full"]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as e:
        main()
    assert e.value.code in (0, None), capsys.readouterr().err
    assert _setting((out / "train.py").read_text(), "TOTAL_STEPS") == str(_FULL)


def test_the_services_deploy_request_takes_full_too() -> None:
    from pydantic import ValidationError

    from gpuplan.web.requests import DeployRequest

    assert DeployRequest.model_validate({"plan": {}, "target": "torchrun", "steps": "full"}).steps == "full"
    assert DeployRequest.model_validate({"plan": {}, "target": "torchrun", "steps": 30}).steps == 30
    for bad in (0, "all"):
        with pytest.raises(ValidationError):
            DeployRequest.model_validate({"plan": {}, "target": "torchrun", "steps": bad})


def _deploy_err(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[str, str]:
    monkeypatch.setattr(sys, "argv", ["gpuplan", "deploy", *args])
    with pytest.raises(SystemExit) as e:
        main()
    out, err = capsys.readouterr()
    assert e.value.code in (0, None), err
    return out, err


@pytest.mark.parametrize("target", ["skypilot", "k8s"])
def test_deploy_warns_where_it_is_run_that_train_py_trains_a_stand_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], target: str
) -> None:
    # deploy had said only "wrote 4 files …": that train.py trains a stand-in on synthetic data for
    # 200 of the run's steps was in the README alone, and `sky jobs launch` rented the GPUs for it.
    plan = _plan(tmp_path, _VIT)
    out, err = _deploy_err(monkeypatch, capsys, str(plan), "-t", target, "-o", str(tmp_path / "o"))
    warned = [line for line in err.splitlines() if "synthetic data" in line]
    # a preset train.py builds (its own code, beside it): the check of the launch is said, no stand-in
    assert warned == [
        "warning: train.py trains preset vit-b16 on synthetic data: by default it runs 200 steps, a check "
        f"of the launch, where the full run is {_FULL:,} (--steps full); put your data in build_dataset() "
        "first"
    ]
    assert "synthetic data" not in out  # stdout stays the list of files
    _, err = _deploy_err(
        monkeypatch, capsys, str(plan), "-t", target, "-o", str(tmp_path / "f"), "--steps", "full"
    )
    assert "synthetic data" not in err  # the full run: nothing to warn of


def test_a_fine_tunes_stand_in_warning_names_the_hub_weights_to_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lora = (
        "name: lora8b\ntask: finetune\nmodel: {preset: llama-8b, lora: {rank: 16, targets: [q, v]}}\n"
        "inputs: {batch_size: 8, seq_len: 2048}\nprecision: bf16\ndata: {samples: 50000, epochs: 1}\n"
    )
    plan = _plan(tmp_path, lora)
    _, err = _deploy_err(monkeypatch, capsys, str(plan), "-t", "skypilot", "-o", str(tmp_path / "o"))
    assert (
        "not preset llama-8b, LoRA rank 16 on q, v: put your model in build_model() (this fine-tune's "
        "weights: `meta-llama/Llama-3.1-8B-Instruct` from the Hugging Face Hub)"
    ) in err
    # 50,000 samples / (8 a GPU × 8 GPUs) = 782 steps
    assert "where the full run is 782 (--steps full)" in err


def test_your_own_model_is_not_called_a_stand_in_where_deploy_is_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "proj"
    shutil.copytree(FIXTURES / "userproj", project)
    _, err = _deploy_err(
        monkeypatch,
        capsys,
        str(project / "job.yaml"),
        *("-t", "torchrun", "--gpu", "T4", "--force-fit", "-o", str(tmp_path / "o")),
    )
    assert "stand-in" not in err
