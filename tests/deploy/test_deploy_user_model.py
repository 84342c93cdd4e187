"""train.py trains the user's own model through gpuplan's entry-point protocol, without gpuplan."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib
import torch
from deploy_helpers import FIXTURES

from gpuplan.deploy import GenerateOptions, LaunchSpec, generate, write_files


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _train(folder: Path, python_path: Path, *args: str, runner: Path | None = None, **env: str) -> str:
    """Run ``folder``'s train.py as a user runs it on one machine without torchrun (a process
    group of one, on the CPU), with ``python_path`` holding the model's code; ``runner``: a script
    that runs train.py (its path, then train.py's arguments). Returns stdout and stderr."""
    environ = {
        **os.environ,
        "PYTHONPATH": str(python_path),
        "MASTER_PORT": str(_free_port()),
        "OMP_NUM_THREADS": "1",
        **env,
    }
    argv = [
        sys.executable,
        *([str(runner)] if runner else []),
        "train.py",
        "--device",
        "cpu",
        "--num-workers",
        "0",
        "--result-file",
        "r.json",
        *args,
    ]
    r = subprocess.run(argv, cwd=folder, env=environ, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout + r.stderr


def test_python_entry_point_model_trains_with_its_own_inputs_and_loss(tmp_path: Path) -> None:
    spec = LaunchSpec.from_workload(FIXTURES / "userproj" / "job.yaml")
    assert spec.model_entry_point == "tinyuser.model:build"
    write_files(generate(spec, "torchrun", GenerateOptions(steps=4)), tmp_path)
    _train(
        tmp_path,
        FIXTURES / "userproj",
        "--ckpt-every-steps",
        "2",
        TINYUSER_ATEXIT_FILE=str(tmp_path / "atexit.txt"),
    )
    # The user's exit handler still runs before train.py leaves without gloo's teardown.
    assert (tmp_path / "atexit.txt").read_text() == "flushed\n"
    result = json.loads((tmp_path / "r.json").read_text())
    # The user's loss_fn on a 64-token vocabulary starts near ln(64) = 4.16.
    assert result["step"] == 4 and 3.0 < result["loss"] < 5.0
    assert sorted(p.name for p in (tmp_path / "checkpoints").glob("step_*.pt")) == [
        "step_00000002.pt",
        "step_00000004.pt",
    ]


def _lab(folder: Path) -> Path:
    """A vision lab's own code as it is often kept: flat modules in one folder, no package, no
    pyproject.toml; net.py imports layers.py beside it, which imports ops.py (inside a function)."""
    folder.mkdir()
    (folder / "net.py").write_text(
        "import torch\n"
        "from torch import nn\n"
        "from layers import block\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.b = block(3, 8)\n"
        "        self.h = nn.Conv2d(8, 2, 1)\n"
        "    def forward(self, img):\n"
        "        return self.h(self.b(img))\n"
        "def make_inputs(batch_size, image_size=16, **kw):\n"
        "    return torch.randn(batch_size, 3, image_size, image_size)\n"
        "def build():\n"
        "    return Net(), make_inputs\n"
    )
    (folder / "layers.py").write_text(
        "from torch import nn\n"
        "def block(ci, co):\n"
        "    import ops\n"
        "    return nn.Sequential(nn.Conv2d(ci, co, 3, padding=1), ops.act())\n"
    )
    (folder / "ops.py").write_text("from torch import nn\ndef act():\n    return nn.ReLU()\n")
    (folder / "notes.py").write_text("raise SystemExit('never imported')\n")
    job = folder / "net.yaml"
    job.write_text(
        "name: net2\ntask: train\nmodel: {python: 'net:build'}\ninputs: {batch_size: 2, image_size: 16}\n"
    )
    return job


@pytest.mark.parametrize("target", ["docker", "k8s", "torchrun"])
def test_a_flat_model_module_ships_with_the_modules_beside_it_that_it_imports(
    tmp_path: Path, target: str
) -> None:
    # `from layers import block` in net.py: estimate imported it, but the image held net.py alone
    # and train.py failed with ModuleNotFoundError: No module named 'layers'.
    job = _lab(tmp_path / "lab")
    out = tmp_path / "out"
    spec = LaunchSpec.from_workload(job, gpu="RTX-4090")
    files = generate(spec, target, GenerateOptions(image="registry.example.com/lab/net:1"))
    write_files(files, out)
    if target == "torchrun":
        # torchrun copies no code: its note says to put the user's folder on PYTHONPATH, which
        # holds the siblings as estimate saw them.
        assert not any(f.source for f in files)
        path = tmp_path / "lab"
    else:
        assert [f.path for f in files if f.source] == [
            "project/net.py",
            "project/layers.py",
            "project/ops.py",
        ]
        pyproject = tomllib.loads((out / "project" / "pyproject.toml").read_text())
        assert pyproject["tool"]["setuptools"]["py-modules"] == ["net", "layers", "ops"]
        # What `pip install ./project` puts on the image's path: the copied folder, nothing else.
        path = out / "project"
    _train(out, path, "--steps", "1")
    assert json.loads((out / "r.json").read_text())["step"] == 1


def test_train_help_offers_the_stand_ins_size_options_only_when_it_trains_the_stand_in(
    tmp_path: Path,
) -> None:
    # --help for the user's own model listed `--width WIDTH  stand-in model width`, which would
    # have changed nothing.
    for job, offered in ((FIXTURES / "userproj" / "job.yaml", False), (FIXTURES / "train.yaml", True)):
        out = tmp_path / job.stem
        write_files(generate(LaunchSpec.from_workload(job, gpu="T4"), "torchrun"), out)
        r = subprocess.run(
            [sys.executable, "train.py", "--help"], cwd=out, capture_output=True, text=True, timeout=120
        )
        assert r.returncode == 0, r.stderr
        assert [option in r.stdout for option in ("--width", "--depth")] == [offered, offered], r.stdout
        assert "--steps" in r.stdout


#: Runs train.py with every non-reentrant activation checkpoint counted, whoever calls
#: torch.utils.checkpoint (PyTorch's checkpoint wrapper, transformers' own checkpointing).
_COUNT_CHECKPOINTS = """
import runpy, sys
from torch.utils import checkpoint
original = checkpoint._checkpoint_without_reentrant_generator
def counted(*args, **kwargs):
    print("CHECKPOINT CALL", file=sys.stderr, flush=True)
    return original(*args, **kwargs)
checkpoint._checkpoint_without_reentrant_generator = counted
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


@pytest.mark.parametrize("parallelism", ["ddp", "zero2"])
def test_the_users_model_is_checkpointed_as_the_plan_priced_it(tmp_path: Path, parallelism: str) -> None:
    # GRADIENT_CHECKPOINTING = True was read only by the stand-in's forward: the user's model
    # trained without checkpointing, on the memory the plan had fitted with it.
    spec = LaunchSpec.from_workload(FIXTURES / "userproj" / "job.yaml").model_copy(
        update={"gradient_checkpointing": True, "parallelism": parallelism}
    )
    write_files(generate(spec, "torchrun", GenerateOptions(steps=2)), tmp_path)
    readme = " ".join((tmp_path / "README.md").read_text().split())
    assert "train.py checkpoints your model as gpuplan's estimate did" in readme, readme
    runner = tmp_path / "count.py"
    runner.write_text(_COUNT_CHECKPOINTS)
    said = _train(tmp_path, FIXTURES / "userproj", "--log-every", "1", runner=runner)
    # The elements of TinyLM.blocks, gpuplan's estimate's repeated blocks: each recomputed once per
    # micro-batch, 2 blocks x 2 steps.
    assert "the 2 Linear modules of TinyLM.blocks, recomputed in backward" in said, said
    assert said.count("CHECKPOINT CALL") == 4, said
    # The wrapper leaves the state dict's names as they were: checkpoints load into an unwrapped model.
    ckpt = torch.load(tmp_path / "checkpoints" / "step_00000002.pt", weights_only=False)
    blocks = {f"blocks.{i}.{w}" for i in (0, 1) for w in ("weight", "bias")}
    assert set(ckpt["model"]) == {"embed.weight", "head.weight", "head.bias", *blocks}


def test_a_model_with_no_repeated_blocks_to_checkpoint_says_it_trains_without(tmp_path: Path) -> None:
    job = _lab(tmp_path / "lab")  # Net: a Sequential block and a head, no nn.ModuleList
    out = tmp_path / "out"
    spec = LaunchSpec.from_workload(job, gpu="RTX-4090").model_copy(update={"gradient_checkpointing": True})
    write_files(generate(spec, "torchrun"), out)
    said = _train(out, tmp_path / "lab", "--steps", "1")
    warnings = [line for line in said.splitlines() if "WARNING" in line]
    assert warnings == [
        "[net2] WARNING: gpuplan's memory estimate assumed activation checkpointing, but Net has no repeated "
        "blocks (an nn.ModuleList of layers) to checkpoint: it trains without, on more GPU memory than "
        "planned. Checkpoint its layers in your code (torch.utils.checkpoint), or plan the job without "
        "activation checkpointing"
    ], said
    assert json.loads((out / "r.json").read_text())["step"] == 1


def test_a_step_line_gives_a_rate_under_one_sample_a_second_not_zero(tmp_path: Path) -> None:
    # A CPU dry run of a large model logged `0 samples/s` on every step line: whole numbers only.
    write_files(generate(LaunchSpec.from_workload(FIXTURES / "userproj" / "job.yaml"), "torchrun"), tmp_path)
    # One sample a step, and 2.5 s asleep after step 1: step 2's rate is about 0.4 samples/s.
    said = _train(
        tmp_path,
        FIXTURES / "userproj",
        *("--steps", "2", "--log-every", "1", "--batch-size", "1", "--throttle-s", "2.5"),
    )
    rates = re.findall(r"step (\d)/2 loss \S+ (\S+) samples/s", said)
    assert [step for step, _ in rates] == ["1", "2"], said
    assert 0.01 < float(rates[1][1]) < 0.5, said


@pytest.mark.parametrize("enabled_by_build", [False, True])
def test_a_transformers_model_of_the_users_is_checkpointed_by_transformers_own_switch(
    tmp_path: Path, enabled_by_build: bool
) -> None:
    # gpuplan's estimate checkpoints a transformers model with its gradient_checkpointing_enable():
    # train.py does the same, once (not again where build() turned it on), and without the
    # deprecated flag's FutureWarning.
    pytest.importorskip("transformers")
    project = tmp_path / "proj"
    (project / "hfuser").mkdir(parents=True)
    (project / "hfuser" / "__init__.py").write_text("")
    (project / "hfuser" / "model.py").write_text(
        "import torch\n"
        "from transformers import LlamaConfig, LlamaForCausalLM\n"
        "def build():\n"
        "    config = LlamaConfig(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=2,\n"
        "                         num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=32)\n"
        "    def make_inputs(batch_size, seq_len=8):\n"
        "        ids = torch.randint(0, 64, (batch_size, seq_len))\n"
        "        return {'input_ids': ids, 'labels': ids}\n"
        "    model = LlamaForCausalLM(config)\n"
        f"    if {enabled_by_build}:\n"
        "        model.gradient_checkpointing_enable(\n"
        "            gradient_checkpointing_kwargs={'use_reentrant': False})\n"
        "    return model, make_inputs\n"
    )
    job = project / "job.yaml"
    job.write_text(
        "name: hf-user\ntask: train\nmodel: {python: 'hfuser.model:build'}\n"
        "inputs: {batch_size: 2, seq_len: 8}\ngradient_checkpointing: true\n"
    )
    out = tmp_path / "out"
    write_files(generate(LaunchSpec.from_workload(job, gpu="T4"), "torchrun", GenerateOptions(steps=2)), out)
    runner = out / "count.py"
    runner.write_text(_COUNT_CHECKPOINTS)
    said = _train(out, project, "--log-every", "1", runner=runner)
    wrapped = "LlamaForCausalLM checkpoints its layers itself" if enabled_by_build else "transformers' own"
    assert f"activation checkpointing (gpuplan's memory estimate assumes it): {wrapped}" in said, said
    assert said.count("CHECKPOINT CALL") == 4, said  # 2 decoder layers x 2 steps
    assert "`is_gradient_checkpointing` is deprecated" not in said, said


@pytest.mark.parametrize("kind", ["image", "mlp"])
def test_the_image_and_mlp_stand_ins_checkpoint_their_blocks_as_the_plan_priced_them(
    tmp_path: Path, kind: str
) -> None:
    # GRADIENT_CHECKPOINTING = True was read by the transformer stand-in only: the CNN and the MLP
    # trained without checkpointing, on the memory gpuplan's estimate had fitted with it.
    job = tmp_path / "job.yaml"
    job.write_text(
        "name: img\ntask: train\nmodel: {preset: vit-b16}\ninputs: {batch_size: 2, image_size: 32}\n"
        "data: {samples: 64}\n"
    )
    spec = LaunchSpec.from_workload(job, gpu="L4").model_copy(update={"gradient_checkpointing": True})
    out = tmp_path / "out"
    write_files(generate(spec, "torchrun"), out)
    train_py = out / "train.py"
    assert "\nIMAGE_SIZE: int | None = 32\n" in train_py.read_text()
    # the stand-ins train where train.py builds no preset (BERT, T5, a Hugging Face config)
    train_py.write_text(
        train_py.read_text().replace('PRESET: str | None = "vit-b16"', "PRESET: str | None = None")
    )
    if kind == "mlp":  # neither a sequence nor an image: the MLP stand-in
        train_py.write_text(train_py.read_text().replace("IMAGE_SIZE: int | None = 32", "IMAGE_SIZE = None"))
    runner = tmp_path / "count.py"
    runner.write_text(_COUNT_CHECKPOINTS)
    args = ("--width", "8", "--depth", "3", "--steps", "2", "--log-every", "1")
    said = _train(out, tmp_path, *args, runner=runner)
    # each of the 3 blocks recomputed once per micro-batch: 3 blocks x 2 steps
    assert said.count("CHECKPOINT CALL") == 6, said
    assert json.loads((out / "r.json").read_text())["step"] == 2
    # without it, as planned without: no block is recomputed
    train_py.write_text(
        train_py.read_text().replace("GRADIENT_CHECKPOINTING = True", "GRADIENT_CHECKPOINTING = False")
    )
    assert _train(out, tmp_path, *args, "--ckpt-dir", "fresh", runner=runner).count("CHECKPOINT CALL") == 0
