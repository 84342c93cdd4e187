"""The files a workload names (model.project_dir, model.hf_config) lie inside the folder the user
named: the workload's own, or --project DIR given on the command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gpuplan.confine import Folder
from gpuplan.errors import InputError, WorkloadError
from gpuplan.workload import Workload, load_workload

CONFIG = {"model_type": "gpt2", "n_layer": 1, "n_head": 1, "n_embd": 8, "vocab_size": 16, "n_positions": 64}


def _job(folder: Path, model: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    job = folder / "w.yaml"
    job.write_text(f"name: j\nmodel: {model}\ninputs: {{batch_size: 1, seq_len: 8}}\n")
    return job


def test_an_hf_config_outside_the_workloads_folder_needs_project(tmp_path: Path) -> None:
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "config.json").write_text(json.dumps(CONFIG))
    job = _job(tmp_path / "jobs", "{hf_config: ../models/config.json}")
    with pytest.raises(WorkloadError) as e:
        Workload.from_yaml(job)
    assert str(e.value) == (
        f"model.hf_config '../models/config.json' is {tmp_path / 'models' / 'config.json'}, outside "
        f"{tmp_path / 'jobs'} (the folder of {job}): files named by a file must lie in its folder; pass "
        "--project DIR to name a folder that holds it"
    )
    w = Workload.from_yaml(job, project=tmp_path)
    assert w.model.hf_config == str(tmp_path / "models" / "config.json")
    assert w.model.project_dir == str(tmp_path / "jobs")  # the file's own folder lies inside DIR


def test_a_hub_id_as_hf_config_says_to_save_its_config_json(tmp_path: Path) -> None:
    # gpuplan never downloads: a Hub id read as a path was "No such file or directory", with no word
    # of what to do instead.
    job = _job(tmp_path, "{hf_config: Qwen/Qwen2.5-7B-Instruct}")
    with pytest.raises(WorkloadError) as e:
        Workload.from_yaml(job)
    assert str(e.value) == (
        "model.hf_config 'Qwen/Qwen2.5-7B-Instruct' is no file or folder beside the workload; it reads "
        "like a Hugging Face model id, and gpuplan never downloads: save the model's config.json "
        "(https://huggingface.co/Qwen/Qwen2.5-7B-Instruct/blob/main/config.json) next to the workload "
        "and write hf_config: config.json"
    )
    # a folder of that name beside the workload is read as the folder it is
    (tmp_path / "Qwen" / "Qwen2.5-7B-Instruct").mkdir(parents=True)
    (tmp_path / "Qwen" / "Qwen2.5-7B-Instruct" / "config.json").write_text(json.dumps(CONFIG))
    w = Workload.from_yaml(job)
    assert w.model.hf_config == str(tmp_path / "Qwen" / "Qwen2.5-7B-Instruct" / "config.json")


def test_a_config_folder_whose_config_json_links_out_is_refused(tmp_path: Path) -> None:
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "config.json").write_text(json.dumps(CONFIG))
    (tmp_path / "job" / "cfg").mkdir(parents=True)
    (tmp_path / "job" / "cfg" / "config.json").symlink_to(tmp_path / "secret" / "config.json")
    (tmp_path / "job" / "link").symlink_to(tmp_path / "secret", target_is_directory=True)
    refused = r"^model\.hf_config '.*' is .*/secret(/config\.json)?, outside"
    for given in ("cfg", "cfg/config.json", "link", "link/config.json", str(tmp_path / "secret")):
        with pytest.raises(WorkloadError, match=refused):
            Workload.from_yaml(_job(tmp_path / "job", f"{{hf_config: {given!r}}}"))


def test_a_project_dir_is_a_hint_inside_the_folder(tmp_path: Path) -> None:
    job = _job(tmp_path / "repo" / "configs", "{python: 'pkg.m:build', project_dir: ..}")
    with pytest.raises(
        WorkloadError, match=r"^model\.project_dir '\.\.' is .*/repo, outside .*/repo/configs"
    ):
        load_workload(job)
    assert load_workload(job, project=tmp_path / "repo").model.project_dir == str(tmp_path / "repo")
    # --project DIR that does not hold the workload file: DIR is the project.
    elsewhere = _job(tmp_path / "x", "{python: 'pkg.m:build'}")
    assert load_workload(elsewhere, project=tmp_path / "repo").model.project_dir == str(tmp_path / "repo")
    with pytest.raises(WorkloadError, match=r"outside --project .*/repo: name a folder that holds it"):
        load_workload(
            _job(tmp_path / "y", "{python: 'pkg.m:build', project_dir: /}"), project=tmp_path / "repo"
        )


def test_project_must_be_a_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"--project .*: not a folder"):
        Folder.project(tmp_path / "missing")


def test_estimate_names_the_flag_and_takes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from gpuplan.cli import main

    job = _job(tmp_path / "a", "{hf_config: ../b/config.json}")

    def run(*args: str) -> tuple[int, str]:
        monkeypatch.setattr(sys, "argv", ["gpuplan", "estimate", str(job), "-g", "T4", *args])
        with pytest.raises(SystemExit) as e:
            main()
        return (e.value.code if isinstance(e.value.code, int) else 1), capsys.readouterr().err

    code, err = run()
    assert code == 1 and "outside" in err and "--project DIR" in err and err.count("\n") == 1
    (tmp_path / "c").mkdir()
    code, err = run("--project", str(tmp_path / "c"))
    assert code == 1 and f"outside --project {tmp_path / 'c'}" in err
