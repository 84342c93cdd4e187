"""deploy of a workload whose model is the user's own code: the third-party packages that code imports
are installed with it, the files beside it that are not copied are said, and a batch job's files
are worded and written for a batch job."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
import tomllib

from gpuplan.deploy import GenerateOptions, LaunchSpec, generate, write_files
from one_line import ran


def _speech(folder: Path, task: str = "finetune", pyproject: str | None = None) -> Path:
    """A speech team's project: a package whose model imports transformers (installed here), yaml
    (PyYAML), sklearn (not installed here), a module no distribution provides and, optionally, one
    under `except ImportError`; a config.json beside the package that the code reads."""
    pkg = folder / "speechpkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "model.py").write_text(
        "import os, json\n"
        "import torch\n"
        "from torch import nn\n"
        "import yaml\n"
        "from transformers import PretrainedConfig\n"
        "from speechpkg import helpers\n"
        "try:\n"
        "    import flash_attn\n"
        "except ImportError:\n"
        "    flash_attn = None\n"
        "def _later():\n"
        "    import sklearn.linear_model\n"
        "    import nosuchfeaturizer\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.l = nn.Linear(4, 3)\n"
        "    def forward(self, x):\n"
        "        return self.l(x.float())\n"
        "def make_inputs(batch_size, **kw):\n"
        "    return torch.randn(batch_size, 4)\n"
        "def build():\n"
        "    return Net(), make_inputs\n"
        "def preprocess(inputs):\n"
        "    return torch.tensor([[float(len(s))] * 4 for s in inputs])\n"
    )
    (pkg / "helpers.py").write_text("import numpy\n")
    (folder / "config.json").write_text("{}\n")
    if pyproject is not None:
        (folder / "pyproject.toml").write_text(pyproject)
    job = folder / "job.yaml"
    data = "data: {samples: 1000, size_gb: 1}\n" if task == "infer" else ""
    job.write_text(
        f"name: speech\ntask: {task}\nmodel: {{python: 'speechpkg.model:build'}}\n"
        f"inputs: {{batch_size: 2, seq_len: 4}}\n{data}"
    )
    return job


def _files(job: Path, target: str = "docker") -> dict[str, str]:
    spec = LaunchSpec.from_workload(job, gpu="L4")
    options = GenerateOptions(image="registry.example.com/s:1", out_dir="/tmp/launch")
    return {f.path: f.content for f in generate(spec, target, options)}


def _deployed(tmp_path: Path, capsys: pytest.CaptureFixture[str], *more: str) -> Any:
    """`gpuplan deploy` of the speech project's job for docker on an L4, into ``tmp_path/out``."""
    job = _speech(tmp_path / "lab")
    command = ["deploy", str(job), "--target", "docker", "--gpu", "L4", "--out", str(tmp_path / "out")]
    return ran([*command, "--force-fit", *more], capsys)


def test_imports_are_read_without_running_the_code_and_optional_ones_are_told_apart() -> None:
    from gpuplan.deploy.project_imports import imported_names

    names, optional = imported_names(
        "import a.b\nfrom c import d\nfrom . import e\n"
        "try:\n    import f\nexcept (ImportError, OSError):\n    pass\n"
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import g\n"
        "try:\n    import h\nexcept KeyError:\n    pass\n"
        "raise SystemExit('never run')\n"
    )
    assert names == {"a", "c", "f", "typing", "g", "h"}
    assert optional == {"f", "g"}


@pytest.mark.parametrize("target", ["docker", "skypilot"])
def test_the_generated_pyproject_requires_what_the_code_imports_pinned_as_installed_here(
    tmp_path: Path, target: str
) -> None:
    # The image has PyTorch and nothing else: `from transformers import ...` failed at import,
    # the generated pyproject.toml having no dependencies.
    files = _files(_speech(tmp_path / "lab"), target)
    project = tomllib.loads(files["project/pyproject.toml"])["project"]
    assert project["dependencies"] == [
        f"numpy=={metadata.version('numpy')}",
        "scikit-learn",  # not installed here: the well-known name, unpinned
        f"transformers=={metadata.version('transformers')}",
        f"PyYAML=={metadata.version('PyYAML')}",
    ]
    # what installs them: `pip install ./project` in the image or on every node
    installer = files["Dockerfile"] if target == "docker" else files["task.yaml"]
    assert (
        "pip install --no-cache-dir /workspace/project -c" in installer
        or "pip install ./project -c" in installer
    )
    readme = files["README.md"] + files["project/README.md"]
    assert "transformers==" in readme and "nosuchfeaturizer" in readme


def test_deploy_says_what_it_adds_what_to_add_by_hand_and_the_files_it_leaves_behind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _deployed(tmp_path, capsys).stderr
    notes = [line for line in err.splitlines() if line.startswith("note:")]
    assert any("pyproject.toml requires" in n and "transformers==" in n for n in notes), err
    assert any("nosuchfeaturizer" in n and "requirements.txt" in n for n in notes), err
    # the data file beside the package: not copied, and said how to bring it
    (beside,) = [n for n in notes if "config.json" in n]
    assert "speechpkg/" in beside and "job.yaml" in beside
    assert not (tmp_path / "out" / "project" / "config.json").exists()


def test_the_torchrun_readme_names_what_to_install_beside_the_package(tmp_path: Path) -> None:
    # torchrun copies no code: deploy's output said what the code imports, the README (what the
    # person at the machines reads) did not
    readme = _files(_speech(tmp_path / "lab"), "torchrun")["README.md"]
    assert f"transformers=={metadata.version('transformers')}" in readme, readme
    assert "install them on every machine that runs train.py too" in readme
    assert "nosuchfeaturizer" in readme and "flash_attn" not in readme


def test_deploy_json_lists_the_dependencies_it_requires_and_the_optional_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _deployed(tmp_path, capsys, "--json").stdout
    dependencies = json.loads(out)["dependencies"]
    required = {d["module"]: d for d in dependencies["required"]}
    assert required["transformers"] == {
        "module": "transformers",
        "requirement": f"transformers=={metadata.version('transformers')}",
        "how": "pinned",
    }
    assert required["sklearn"]["requirement"] == "scikit-learn"
    assert required["nosuchfeaturizer"] == {
        "module": "nosuchfeaturizer",
        "requirement": None,
        "how": "unknown",
    }
    assert dependencies["optional"] == ["flash_attn"]


def test_a_project_with_its_own_pyproject_is_installed_as_it_is_and_told_to_name_the_imports(
    tmp_path: Path,
) -> None:
    own = '[project]\nname = "speech"\nversion = "1"\n'
    files = _files(_speech(tmp_path / "lab", pyproject=own))
    assert files["project/pyproject.toml"] == own
    assert "your pyproject.toml is installed as it is" in files["README.md"]


def test_a_batch_image_is_worded_as_one_and_opens_no_rendezvous_port_or_checkpoint_volume(
    tmp_path: Path,
) -> None:
    batch = _files(_speech(tmp_path / "b", task="infer"))["Dockerfile"]
    assert "batch inference image" in batch and "training image" not in batch
    assert "EXPOSE" not in batch and "VOLUME" not in batch
    assert "ENV CKPT_DIR=/data/checkpoints" in batch
    training = _files(_speech(tmp_path / "t"))["Dockerfile"]
    assert (
        "training image" in training and "EXPOSE 29500" in training and 'VOLUME ["/checkpoints"]' in training
    )


def test_the_batch_readme_says_inputs_are_model_tensors_and_where_decoding_goes(tmp_path: Path) -> None:
    readme = _files(_speech(tmp_path / "b", task="infer"))["README.md"]
    assert "decoding files" in readme
    assert "`preprocess(inputs)`" in readme and "`speechpkg.model`" in readme
    # the dataset the plan copies, a sample's share of it, against JSON text of the model's input
    assert "1 GB (`data.size_gb`), 1.00 MB a sample" in readme


def test_batch_py_runs_the_users_preprocess_on_inputs_that_are_not_arrays(tmp_path: Path) -> None:
    job = _speech(tmp_path / "lab", task="infer")
    out = tmp_path / "out"
    write_files(generate(LaunchSpec.from_workload(job, gpu="L4"), "docker"), out)
    (out / "in.jsonl").write_text(
        "".join(json.dumps({"id": n, "input": f"audio/{n}.flac"}) + "\n" for n in ("a", "bb", "ccc"))
    )
    # the package as `pip install ./project` puts it on the path (its imports are installed here)
    path = str(out / "project")
    done = subprocess.run(
        [
            sys.executable,
            "batch.py",
            "--input",
            "in.jsonl",
            "--output",
            "o",
            "--device",
            "cpu",
            "--batch-size",
            "2",
        ],
        cwd=out,
        env={**os.environ, "PYTHONPATH": path, "OMP_NUM_THREADS": "1"},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    chunks = sorted((out / "o").glob("chunk-*.jsonl"))
    rows = [json.loads(line) for f in chunks for line in f.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["a", "bb", "ccc"]
