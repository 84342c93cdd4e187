"""A project's requirements.txt is installed wherever its package is copied (the Dockerfile, and
SkyPilot's setup on every node), under a pip constraints file that pins the PyTorch installed, and
each README names only files that its folder holds."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml
from deploy_helpers import FIXTURES, by_path

from gpuplan.deploy import GenerateOptions, LaunchSpec, generate


def _project(tmp_path: Path, requirements: bool) -> Path:
    project = tmp_path / "proj"
    shutil.copytree(FIXTURES / "userproj", project)
    if requirements:
        (project / "requirements.txt").write_text("einops==0.8.0\n")
    return project / "job.yaml"


def _files(job: Path, target: str, tmp_path: Path) -> dict[str, str]:
    spec = LaunchSpec.from_workload(job, gpu="A100-SXM4-80GB", provider="aws")
    return by_path(generate(spec, target, GenerateOptions(out_dir=str(tmp_path / "out"))))


#: Files a README may name that are not in the launch folder: the user's own, or made by a command.
_ELSEWHERE = {
    "requirements.txt",  # as `pip install -r requirements.txt` in the user's own project
    "project/torch-constraints.txt",  # written by the install, from the torch it finds
    "torch-constraints.txt",
}


def _named_files(text: str) -> set[str]:
    """The launch-folder files a README names: Dockerfile, task.yaml, *.py, *.sh, project/…"""
    names = set(re.findall(r"\b(Dockerfile|task\.yaml|[\w./-]+\.(?:py|sh|txt|toml))\b", text))
    return {n.removeprefix("./") for n in names if not n.startswith(("/", "http"))}


@pytest.mark.parametrize("requirements", [True, False])
def test_skypilots_setup_installs_the_requirements_before_the_package(
    tmp_path: Path, requirements: bool
) -> None:
    files = _files(_project(tmp_path, requirements), "skypilot", tmp_path)
    setup = yaml.safe_load(files["task.yaml"])["setup"]
    if requirements:
        assert "project/requirements.txt" in files
        assert setup.index("pip install -r project/requirements.txt -c project/torch-constraints.txt\n") < (
            setup.index("pip install ./project -c project/torch-constraints.txt\n")
        )
    else:
        assert "requirements" not in setup
    assert "pip install ./project -c project/torch-constraints.txt\n" in setup


@pytest.mark.parametrize("target", ["skypilot", "docker"])
def test_every_readme_names_only_files_its_folder_holds(tmp_path: Path, target: str) -> None:
    files = _files(_project(tmp_path, True), target, tmp_path)
    for readme in ("README.md", "project/README.md"):
        text = files[readme]
        base = "project/" if readme.startswith("project/") else ""
        for name in _named_files(text):
            # project/README.md names files beside it and (run "from that folder") one level up
            held = name in files or f"{base}{name}" in files or name in _ELSEWHERE
            assert held, f"{target} {readme} names {name}, which is not written: {sorted(files)}"
    installer = "task.yaml" if target == "skypilot" else "Dockerfile"
    assert f"`{installer}` is in the folder one level up" in files["project/README.md"]
    assert "pip install -r project/requirements.txt" in files["README.md"]
    assert "-c project/torch-constraints.txt" in files["README.md"]
    if target == "skypilot":
        assert "Dockerfile" not in files["project/README.md"] + files["README.md"]


_PIN = "python3 -c \"import torch; print('torch==' + torch.__version__.split('+')[0])\" > "


@pytest.mark.parametrize("target", ["skypilot", "docker"])
def test_no_install_of_the_users_project_can_replace_the_planned_torch(tmp_path: Path, target: str) -> None:
    """A requirement such as torchvision==0.28.0 (which needs torch 2.13.0) or an unpinned one that
    pulls the newest torch must not swap the image's PyTorch and CUDA build: every pip install of the
    project runs with ``-c`` a constraints file written, before them, from the torch installed."""
    files = _files(_project(tmp_path, True), target, tmp_path)
    script = yaml.safe_load(files["task.yaml"])["setup"] if target == "skypilot" else files["Dockerfile"]
    folder = "project" if target == "skypilot" else "/workspace/project"
    constraints = f"{folder}/torch-constraints.txt"
    installs = [line for line in script.splitlines() if "pip install" in line and "project" in line]
    assert len(installs) == 2, installs
    for line in installs:
        assert line.endswith(f" -c {constraints}"), line
    pinned = script.index(f"{_PIN}{constraints}")
    assert all(pinned < script.index(line) for line in installs)
    if target == "skypilot":  # after the setup's own torch install, whose version it pins
        assert script.index('import torch" 2>/dev/null || pip install') < pinned
    for readme in ("README.md", "project/README.md"):
        assert "torch-constraints.txt" in files[readme]
        assert "on purpose" in files[readme]


def test_torchruns_readme_installs_the_requirements_under_the_torch_constraint(tmp_path: Path) -> None:
    """torchrun copies nothing: its README tells the user how to install, with the same constraint."""
    files = _files(_project(tmp_path, True), "torchrun", tmp_path)
    readme = files["README.md"]
    assert f"{_PIN}./torch-constraints.txt" in readme
    assert "pip install -r requirements.txt -c torch-constraints.txt" in readme
