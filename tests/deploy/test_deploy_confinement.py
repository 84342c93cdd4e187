"""`deploy` copies the user's package only from inside the folder the user named, by an explicit
manifest of regular files shown before anything is written — the attacks of a hostile plan or
workload, reproduced, and the legitimate deploy of one's own model."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
import yaml
from deploy_helpers import FIXTURES

from gpuplan.cli import main
from gpuplan.deploy import GenerateOptions, LaunchSpec, generate
from gpuplan.errors import DeployError, GpuplanError

PLAN = FIXTURES / "plan_spot_aws.json"
OWN_MODEL = Path(__file__).parents[2] / "examples" / "own-model" / "text-classifier.yaml"
SECRET = "OUTSIDE-SECRET-7f3a"


def _run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["gpuplan", *args])
    with pytest.raises(SystemExit) as e:
        main()
    out, err = capsys.readouterr()
    return (e.value.code if isinstance(e.value.code, int) else 1), out, err


def _someone(tmp_path: Path) -> Path:
    """Another person's files: a Documents folder that even looks like a package."""
    home = tmp_path / "someone"
    (home / "Documents").mkdir(parents=True)
    (home / "Documents" / "__init__.py").write_text("def build():\n    pass\n")
    (home / "Documents" / "taxes.txt").write_text(SECRET)
    return home


def _plan(folder: Path, model: dict[str, str]) -> Path:
    doc = json.loads(PLAN.read_text())
    doc["workload"]["model"] = model
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "plan.json"
    path.write_text(json.dumps(doc))
    return path


def _no_secret(files: list) -> None:
    assert not any(SECRET in f.content for f in files)
    assert not any(f.source and "someone" in f.source for f in files)


def test_a_link_beside_the_plan_is_never_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The case: `src -> /home/someone` beside the plan, model Documents:build, project_dir the
    # plan's own folder. deploy --target docker copied ~someone/Documents and COPYed it into the image.
    home = _someone(tmp_path)
    folder = tmp_path / "plans"
    plan = _plan(folder, {"python": "Documents:build", "project_dir": str(folder)})
    (folder / "src").symlink_to(home)
    with pytest.raises(
        DeployError, match=r"^model\.python Documents:build: neither Documents\.py nor .*links"
    ):
        generate(LaunchSpec.from_plan_json(plan), "docker")
    out = tmp_path / "out"
    code, _out, err = _run(monkeypatch, capsys, "deploy", str(plan), "-t", "docker", "-o", str(out))
    assert code == 1 and err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists()


def test_a_plan_in_a_home_folder_cannot_take_a_plain_folder_for_a_package(tmp_path: Path) -> None:
    # A plan saved in a home folder that names Documents:build copied ~/Documents.
    home = tmp_path / "home"
    (home / "Documents").mkdir(parents=True)
    (home / "Documents" / "taxes.txt").write_text(SECRET)
    plan = _plan(home, {"python": "Documents:build", "project_dir": str(home)})
    with pytest.raises(
        DeployError, match=r"neither Documents\.py nor Documents/__init__\.py is a regular file"
    ):
        generate(LaunchSpec.from_plan_json(plan), "docker")


@pytest.mark.parametrize("where", ["absolute", "parent"])
def test_a_workload_cannot_name_a_project_outside_its_folder(tmp_path: Path, where: str) -> None:
    # `project_dir: /abs/elsewhere` or `../elsewhere` deployed to SkyPilot copied that folder.
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "pkg").mkdir(parents=True)
    (elsewhere / "pkg" / "__init__.py").write_text(f"# {SECRET}\ndef build():\n    pass\n")
    given = str(elsewhere) if where == "absolute" else "../elsewhere"
    job = tmp_path / "job" / "w.yaml"
    job.parent.mkdir()
    job.write_text(
        f"name: w\nmodel: {{python: 'pkg:build', project_dir: {given!r}}}\ninputs: {{batch_size: 2}}\n"
    )
    with pytest.raises(GpuplanError) as e:
        LaunchSpec.from_workload(job, gpu="A100-SXM4-80GB", provider="aws")
    message = str(e.value)
    assert message.startswith(f"model.project_dir {given!r} is {elsewhere}, outside {job.parent}")
    assert "--project DIR" in message and "\n" not in message
    # Named on the command line, the same folder is the user's own choice.
    spec = LaunchSpec.from_workload(job, gpu="A100-SXM4-80GB", provider="aws", project=tmp_path)
    files = generate(spec, "skypilot", GenerateOptions(out_dir=str(tmp_path / "launch")))
    assert [f.source for f in files if f.source] == [str(elsewhere / "pkg" / "__init__.py")]


def test_skypilot_uploads_the_launch_folder_by_its_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # `workdir: .` is resolved by SkyPilot against the folder `sky` runs in: run from a home folder,
    # it uploads the home folder.
    out = tmp_path / "launch"
    code, _out, err = _run(monkeypatch, capsys, "deploy", str(PLAN), "-t", "skypilot", "-o", str(out))
    assert code == 0, err
    task = yaml.safe_load((out / "task.yaml").read_text())
    assert task["workdir"] == str(out.resolve())


def test_links_inside_the_package_are_skipped_and_a_linked_package_is_refused(tmp_path: Path) -> None:
    home = _someone(tmp_path)
    project = tmp_path / "proj"
    (project / "pkg" / "sub").mkdir(parents=True)
    (project / "pkg" / "__init__.py").write_text("def build():\n    pass\n")
    (project / "pkg" / "notes.py").symlink_to(home / "Documents" / "taxes.txt")
    (project / "pkg" / "sub" / "docs").symlink_to(home / "Documents", target_is_directory=True)
    (project / "pkg" / "dangling.py").symlink_to(tmp_path / "nowhere")
    job = project / "w.yaml"
    job.write_text("name: w\nmodel: {python: 'pkg:build'}\ninputs: {batch_size: 2}\n")
    files = generate(LaunchSpec.from_workload(job, gpu="T4"), "docker")
    _no_secret(files)
    assert sorted(f.path for f in files if f.source) == ["project/pkg/__init__.py"]
    # The package folder itself a link to someone else's: refused, nothing copied.
    (project / "pkg2").symlink_to(home / "Documents", target_is_directory=True)
    job.write_text("name: w\nmodel: {python: 'pkg2:build'}\ninputs: {batch_size: 2}\n")
    with pytest.raises(DeployError, match="links are not followed"):
        generate(LaunchSpec.from_workload(job, gpu="T4"), "docker")


def test_imports_bring_only_regular_modules_beside_the_entry_point_and_never_follow_a_link(
    tmp_path: Path,
) -> None:
    # The model's imports are read, never run: a name imported counts only when a package folder
    # (with __init__.py) or a .py file of that name lies beside the entry point, no link followed.
    home = _someone(tmp_path)
    project = tmp_path / "proj"
    (project / "src" / "pkg").mkdir(parents=True)
    (project / "src" / "data").mkdir()  # a folder without __init__.py: not a package
    (project / "src" / "helpers").mkdir()
    (project / "src" / "helpers" / "__init__.py").write_text("from .x import y\n")
    (project / "src" / "helpers" / "x.py").write_text("import util\ny = 1\n")
    (project / "src" / "util.py").write_text("U = 1\n")
    (project / "src" / "json.py").write_text("shadows the standard library\n")
    (project / "src" / "plugin.py").write_text("imported by a computed name only\n")
    (project / "src" / "Documents").symlink_to(home / "Documents", target_is_directory=True)
    (project / "src" / "taxes.py").symlink_to(home / "Documents" / "taxes.txt")
    (project / "src" / "pkg" / "__init__.py").write_text(
        "import importlib, json\nimport data\nimport Documents, taxes\nfrom . import model\n"
        "from helpers.x import y\n\ndef build():\n    importlib.import_module('plugin')\n"
    )
    (project / "src" / "pkg" / "model.py").write_text("from .. import nothing\n")
    job = project / "w.yaml"
    job.write_text("name: w\nmodel: {python: 'pkg:build'}\ninputs: {batch_size: 2}\n")
    files = generate(LaunchSpec.from_workload(job, gpu="T4"), "docker")
    _no_secret(files)
    assert [f.path for f in files if f.source] == [
        "project/src/pkg/__init__.py",
        "project/src/pkg/model.py",
        "project/src/helpers/__init__.py",
        "project/src/helpers/x.py",
        "project/src/util.py",
    ]
    pyproject = next(f.content for f in files if f.path == "project/pyproject.toml")
    assert 'py-modules = ["util"]' in pyproject
    assert 'include = ["pkg", "pkg.*", "helpers", "helpers.*"]' in pyproject


def test_a_plan_from_elsewhere_copies_from_the_project_the_user_names(tmp_path: Path) -> None:
    # The plan's project_dir is a path on its author's machine: without --project nothing is copied
    # (and an image without the model's package is not written); with --project DIR, DIR is the
    # project.
    downloads = tmp_path / "downloads"
    plan = _plan(downloads, {"python": "mytransformer.model:build", "project_dir": "/home/a/p"})
    for target in ("docker", "skypilot"):
        with pytest.raises(DeployError, match=f"package mytransformer is not in {downloads}") as e:
            generate(LaunchSpec.from_plan_json(plan), target, GenerateOptions(out_dir=str(tmp_path / "o")))
        assert "--project DIR" in str(e.value)
    spec = LaunchSpec.from_plan_json(plan, project=OWN_MODEL.parent)
    copied = sorted(Path(f.source).name for f in generate(spec, "docker") if f.source)
    assert copied == ["__init__.py", "model.py"]


@pytest.mark.parametrize("target", ["skypilot", "docker"])
def test_a_plan_kept_in_another_folder_than_the_models_code_is_refused_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], target: str
) -> None:
    # `cp plan.json sub/; deploy sub/plan.json --target skypilot` printed a note, exited 0 and wrote
    # a launch that fails with ModuleNotFoundError on the rented nodes.
    project = tmp_path / "proj"
    shutil.copytree(OWN_MODEL.parent, project)
    plan = _plan(project / "sub", {"python": "mytransformer.model:build", "project_dir": str(project)})
    out = tmp_path / "launch"
    code, _out, err = _run(monkeypatch, capsys, "deploy", str(plan), "-t", target, "-o", str(out))
    assert code == 1 and err.count("\n") == 1 and "Traceback" not in err
    assert f"its package mytransformer is not in {project / 'sub'}" in err
    assert "pass --project DIR" in err
    assert not out.exists()
    # The folder that holds the code, named: its package is copied, and nothing from elsewhere (the
    # plan's fit is not checked: its model was never traced on this machine).
    args = ("deploy", str(plan), "-t", target, "-o", str(out), "--project", str(project), "--force-fit")
    code, _out, err = _run(monkeypatch, capsys, *args)
    assert code == 0, err
    assert "warning: not checked that the job fits" in err
    assert (out / "project" / "mytransformer" / "model.py").is_file()


def test_the_user_sees_the_copies_before_the_first_write_and_dry_run_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "d"
    # deploy runs none of the model's code, so its fit is not checked without a cached trace: --force-fit
    args = (
        "deploy",
        str(OWN_MODEL),
        "--gpu",
        "A100-SXM4-80GB",
        "-t",
        "docker",
        "-o",
        str(out),
        "--force-fit",
    )
    code, stdout, err = _run(monkeypatch, capsys, *args, "--dry-run", "--json")
    assert code == 0, err
    assert not out.exists()
    doc = json.loads(stdout)
    assert doc["dry_run"] is True and "Dockerfile" in doc["files"]
    model = OWN_MODEL.parent / "mytransformer"
    assert doc["copied"] == [
        {"path": "project/mytransformer/__init__.py", "source": str(model / "__init__.py")},
        {"path": "project/mytransformer/model.py", "source": str(model / "model.py")},
    ]
    assert f"{model / 'model.py'} -> project/mytransformer/model.py" in err
    code, stdout, err = _run(monkeypatch, capsys, *args)
    assert code == 0, err
    assert "copying 2 of your files" in err and "-> project/mytransformer/__init__.py" in err
    assert (out / "project" / "mytransformer" / "model.py").read_text() == (model / "model.py").read_text()
    assert "COPY project/ /workspace/project/" in (out / "Dockerfile").read_text()


def test_the_torchrun_target_says_it_copies_no_model_code_and_does_not_offer_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The torchrun target copies nothing, --project or not: its note says what works instead.
    args = ("deploy", str(OWN_MODEL), "--gpu", "A100-SXM4-80GB", "-t", "torchrun", "-o", str(tmp_path / "d"))
    args = (*args, "--force-fit")  # no cached trace of the model, whose code deploy does not run
    for extra in ((), ("--project", str(OWN_MODEL.parent))):
        code, _, err = _run(monkeypatch, capsys, *args, *extra, "--dry-run")
        assert code == 0, err
        assert "--target torchrun copies no model code" in err
        # examples/own-model holds no pyproject.toml or setup.py, which `pip install -e` needs
        assert (
            f"(`PYTHONPATH=DIR`, DIR being that machine's copy of your folder `{OWN_MODEL.parent.name}`)"
            in err
        )
        assert "pip install -e" not in err, err
        assert "pass --project" not in err
