"""Launch files are written inside --out only, all or nothing, and never through a planted link."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from deploy_helpers import FIXTURES

from gpuplan.cli import main
from gpuplan.deploy import GeneratedFile, LaunchSpec, generate, write_files
from gpuplan.errors import DeployError

PLAN = FIXTURES / "plan_spot_aws.json"


def _leftovers(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.endswith(".gpuplan-tmp")]


def test_a_planted_temp_file_link_is_never_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    victim.chmod(0o600)
    out = tmp_path / "o"
    out.mkdir()
    (out / "train.py.gpuplan-tmp").symlink_to(victim)
    (out / "launch.sh").symlink_to(victim)  # a link at a target's own name is replaced, not written through
    write_files(generate(LaunchSpec.from_plan_json(PLAN), "torchrun"), out, force=True)
    assert victim.read_text() == "precious\n" and (victim.stat().st_mode & 0o777) == 0o600
    assert not (out / "launch.sh").is_symlink() and (out / "launch.sh").read_text().startswith("#!")
    assert (out / "train.py").is_file() and not (out / "train.py").is_symlink()


def test_a_linked_subfolder_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "o2"
    out.mkdir()
    (out / "k8s").symlink_to(elsewhere)
    with pytest.raises(DeployError, match="symbolic link") as e:
        write_files(generate(LaunchSpec.from_plan_json(PLAN), "k8s"), out, force=True)
    assert "\n" not in str(e.value)
    assert list(elsewhere.iterdir()) == []
    assert sorted(p.name for p in out.iterdir()) == ["k8s"]  # all or nothing: not even train.py


def test_paths_that_leave_the_output_folder_are_refused(tmp_path: Path) -> None:
    for bad in ("../x", "/etc/x", "a/../../x", "a\x00b"):
        with pytest.raises(DeployError):
            write_files([GeneratedFile(path=bad, content="")], tmp_path / "o")
    assert not (tmp_path / "o").exists() and not (tmp_path / "x").exists()


def test_a_failed_write_removes_what_it_made(tmp_path: Path) -> None:
    out = tmp_path / "o"
    files = [GeneratedFile(path="a/b.txt", content="1"), GeneratedFile(path="a/b.txt/c", content="2")]
    with pytest.raises(DeployError):
        write_files(files, out)
    assert not out.exists()


@dataclass
class _Result:
    returncode: int
    stderr: str


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Callable[..., _Result]:
    """`gpuplan deploy PLAN ARGS` in this process (the CLI's own error handling, exit code and stderr)."""

    def go(*args: str) -> _Result:
        monkeypatch.setattr(sys, "argv", ["gpuplan", "deploy", str(PLAN), *args])
        code = 0
        try:
            main()
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
        return _Result(code, capsys.readouterr().err)

    return go


@contextlib.contextmanager
def _full_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs (root only); skips where mounting is not allowed."""
    mount = tmp_path / "full"
    mount.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True)
    if r.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (needs root): the full-disk case is not exercised")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _out_cases(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "missing")
    clash = tmp_path / "clash"
    clash.mkdir()
    (clash / "k8s").write_text("a file where deploy needs the folder k8s/\n")
    return {
        "/proc/x": (Path("/proc/x/out"), "torchrun"),
        "a file as parent": (a_file / "out", "torchrun"),
        "a dangling link": (dangling, "torchrun"),
        "a file named like the target folder": (clash, "k8s"),
    }


def test_the_out_cases_are_one_line_each(tmp_path: Path, run: Callable[..., _Result]) -> None:
    for case, (out, target) in _out_cases(tmp_path).items():
        r = run("-t", target, "-o", str(out), "--force")
        assert r.returncode == 1, (case, r.stderr)
        assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, (case, r.stderr)
        assert "Traceback" not in r.stderr
    assert (tmp_path / "clash" / "k8s").read_text().startswith("a file")
    assert not (tmp_path / "missing").exists()


def test_a_full_disk_is_one_line_and_leaves_nothing(tmp_path: Path, run: Callable[..., _Result]) -> None:
    with _full_disk(tmp_path) as mount:
        out = mount / "o"
        r = run("-t", "k8s", "-o", str(out))
        assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
        assert "no space left" in r.stderr
        assert not out.exists() and not _leftovers(mount)
        # --force into an existing folder: the files already there are untouched, no partial file.
        out.mkdir()
        (out / "notes.txt").write_text("keep\n")
        r = run("-t", "k8s", "-o", str(out), "--force")
        assert r.returncode == 1 and "no space left" in r.stderr
        assert sorted(os.listdir(out)) == ["notes.txt"]


def test_a_folder_holding_only_what_a_killed_write_left_counts_as_empty(tmp_path: Path) -> None:
    files = generate(LaunchSpec.from_plan_json(PLAN), "k8s")
    out = tmp_path / "o"
    (out / "k8s").mkdir(parents=True)
    # What kill -9 between stage() and commit() leaves: temporary names only, in the folders made.
    for stale in (
        out / ".train.py.0123456789abcdef.gpuplan-tmp",
        out / "k8s" / ".job.yaml.fedcba9876543210.gpuplan-tmp",
    ):
        stale.write_text("half")
    written = write_files(files, out)  # no --force needed: nothing of the user's is there
    assert all(p.is_file() for p in written) and _leftovers(out) == []


def test_a_user_file_beside_leftovers_still_needs_force(tmp_path: Path) -> None:
    out = tmp_path / "o"
    out.mkdir()
    (out / ".train.py.0123456789abcdef.gpuplan-tmp").write_text("half")
    (out / "notes.txt").write_text("mine\n")
    with pytest.raises(DeployError, match="not empty"):
        write_files(generate(LaunchSpec.from_plan_json(PLAN), "torchrun"), out)
    link_out = tmp_path / "o2"
    link_out.mkdir()
    (link_out / "sub").symlink_to(tmp_path)  # a link is never a leftover of ours
    with pytest.raises(DeployError, match="not empty"):
        write_files(generate(LaunchSpec.from_plan_json(PLAN), "torchrun"), link_out)
    assert (out / "notes.txt").read_text() == "mine\n"
