"""train.py builds a built-in preset's own architecture from preset_model.py, the preset's code as
gpuplan traces it, written beside it (train.py had trained a small stand-in of the same kind, and
deploy had warned "train.py trains a small stand-in model on synthetic data, not preset gpt3-1.3b")."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from deploy_helpers import by_path
from torchrun_helpers import free_port

from gpuplan.deploy import GenerateOptions, LaunchSpec, generate, write_files
from gpuplan.deploy.preset_model import PRESET_MODULE, preset_model_py
from gpuplan.workload.presets.registry import PRESETS
from one_line import answered

#: Runs a script as `python SCRIPT ARGS` does, on a Python where gpuplan cannot be imported: the
#: machine the launch folder goes to has PyTorch only.
_NO_GPUPLAN = """import os, runpy, sys
sys.modules["gpuplan"] = None
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[0])))
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def _workload(tmp_path: Path, preset: str, inputs: str, task: str = "train") -> Path:
    p = tmp_path / "job.yaml"
    p.write_text(
        f"name: pre\ntask: {task}\nmodel: {{preset: {preset}}}\ninputs: {{{inputs}}}\n"
        "precision: fp32\noptimizer: adamw\nparallelism: ddp\ndata: {samples: 64, epochs: 1}\n"
    )
    return p


def _train(folder: Path, *args: str) -> dict[str, float]:
    """train.py for 2 steps on the CPU without gpuplan importable; its result file."""
    runner = folder.parent / "no_gpuplan.py"
    runner.write_text(_NO_GPUPLAN)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(OMP_NUM_THREADS="1", MASTER_PORT=str(free_port()))
    argv = [sys.executable, str(runner), "train.py", "--device", "cpu", "--num-workers", "0"]
    argv += ["--steps", "2", "--result-file", "r.json", *args]
    r = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    result: dict[str, float] = json.loads((folder / "r.json").read_text())
    return result


@pytest.mark.parametrize(
    ("preset", "inputs", "model_class"),
    [("gpt3-1.3b", "batch_size: 2, seq_len: 8", "GPT2"), ("llama-1b", "batch_size: 2, seq_len: 8", "Llama")],
)
def test_train_py_trains_the_presets_own_model_without_gpuplan(
    tmp_path: Path, preset: str, inputs: str, model_class: str
) -> None:
    spec = LaunchSpec.from_workload(_workload(tmp_path, preset, inputs))
    out = tmp_path / "launch"
    write_files(generate(spec, "torchrun", GenerateOptions(steps=2)), out)
    module = (out / PRESET_MODULE).read_text()
    # the preset's classes, from the module the planner traces (one definition, not a copy kept by hand)
    assert f"class {model_class}(nn.Module)" in module and f"PRESET = {preset!r}" in module
    assert "import gpuplan" not in module and "from gpuplan" not in module
    # shrunk (--width/--depth) so that two steps run on a small CPU; the vocabulary is the preset's
    result = _train(out, "--width", "16", "--depth", "1")
    assert result["step"] == 2
    vocab = PRESETS[preset].arch.vocab
    assert "preset_model.ARCH.vocab or VOCAB_SIZE" in (out / "train.py").read_text()
    assert vocab > 1024  # the stand-in's vocabulary was 1,024 tokens


def test_an_image_preset_trains_its_own_model(tmp_path: Path) -> None:
    spec = LaunchSpec.from_workload(_workload(tmp_path, "resnet50", "batch_size: 2, image_size: 32"))
    out = tmp_path / "launch"
    write_files(generate(spec, "torchrun", GenerateOptions(steps=2)), out)
    assert "class ResNet(nn.Module)" in (out / PRESET_MODULE).read_text()
    assert _train(out, "--depth", "1")["step"] == 2


def test_every_buildable_preset_module_is_python_that_names_its_architecture(tmp_path: Path) -> None:
    for name in PRESETS:
        inputs = "image_size: 224" if PRESETS[name].modality == "image" else "seq_len: 8"
        spec = LaunchSpec.from_workload(_workload(tmp_path, name, f"batch_size: 1, {inputs}"))
        module = preset_model_py(spec)
        if module is None:  # BERT and T5: their objectives are not train.py's synthetic batches
            assert PRESETS[name].family in ("encoder", "encoder-decoder"), name
            continue
        tree = ast.parse(module)
        assert not [
            n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and "gpuplan" in (n.module or "")
        ]
        assert f"ARCH = {PRESETS[name].arch!r}" in module


def test_deploy_no_longer_warns_of_a_stand_in_for_a_preset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    job = _workload(tmp_path, "gpt3-1.3b", "batch_size: 4, seq_len: 1024")
    out = tmp_path / "o"
    answered(
        ["deploy", str(job), "-t", "torchrun", "-o", str(out), "--gpu", "H100-SXM", "--force-fit"], capsys
    )
    err = capsys.readouterr().err
    assert "stand-in" not in err
    readme = " ".join((out / "README.md").read_text().split())
    assert "train.py trains the workload's preset gpt3-1.3b" in readme


def test_a_presets_batch_job_runs_the_presets_model(tmp_path: Path) -> None:
    spec = LaunchSpec.from_workload(
        _workload(tmp_path, "resnet50", "batch_size: 1, image_size: 224", "infer")
    )
    files = by_path(generate(spec, "docker", GenerateOptions()))
    assert PRESET_MODULE in files and f"train.py {PRESET_MODULE} batch.py" in files["Dockerfile"]
    assert "stand-in" not in " ".join(files["README.md"].split())
