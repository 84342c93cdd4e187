"""Property tests of the two rules for files from others, on generated trees of files and links
(inside and outside the allowed folder, chains, loops, dangling, ``..``) and generated plan, workload,
services and usage documents:

* nothing outside the allowed folder is read or copied (every copy's source lies inside it and no
  byte of the outside files reaches a generated file), and nothing outside ``--out`` is written;
* no workload named by another file imports its code without --allow-code (a test package whose
  import creates a marker file: the marker never appears).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from deploy_helpers import FIXTURES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuplan.confine import Folder
from gpuplan.deploy import GenerateOptions, LaunchSpec, generate, write_files
from gpuplan.errors import GpuplanError

SECRET = "OUTSIDE-SECRET-d41c"
_SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)

# ---- generated trees ------------------------------------------------------------------------------

_NAMES = st.sampled_from(["pkg", "src", "sub", "mod.py", "__init__.py", "a", "b", "config.json"])
#: Where a link points: inside the allowed folder, outside it, nowhere, through `..`, at another link.
_TARGETS = st.one_of(
    st.sampled_from(
        [
            "{root}/pkg",
            "{root}/sub",
            "{outside}",
            "{outside}/pkg",
            "{outside}/secret.txt",
            "{root}/missing",
            "..",
            "../..",
            "../outside",
            "../../outside/pkg",
            "pkg/../..",
            "a",
            "b",
            ".",
        ]
    ),
    st.lists(_NAMES, min_size=1, max_size=3).map("/".join),
)
_ENTRIES = st.lists(
    st.tuples(
        st.sampled_from(["file", "dir", "link"]),
        st.lists(_NAMES, min_size=1, max_size=3).map("/".join),
        _TARGETS,
    ),
    max_size=12,
)


def _tree(base: Path, entries: list[tuple[str, str, str]]) -> tuple[Path, Path]:
    """``base/root`` (the allowed folder, with a package) and ``base/outside`` (someone else's files,
    each holding SECRET), plus the generated files, folders and links inside root."""
    root, outside = base / "root", base / "outside"
    for folder in (root / "pkg", outside / "pkg"):
        folder.mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("def build():\n    pass\n")
    (root / "pkg" / "mod.py").write_text("def build():\n    pass\n")
    (outside / "secret.txt").write_text(SECRET)
    (outside / "pkg" / "__init__.py").write_text(f"# {SECRET}\ndef build():\n    pass\n")
    (outside / "pkg" / "mod.py").write_text(f"# {SECRET}\n")
    for kind, rel, target in entries:
        path = root / rel
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if kind == "file":
                path.write_text("x = 1\n")
            elif kind == "dir":
                path.mkdir(exist_ok=True)
            else:
                path.symlink_to(target.format(root=root, outside=outside))
        except OSError:
            continue  # a name already taken by a file or a link: the tree is what it is
    return root, outside


def _snapshot(base: Path, skip: Path) -> dict[str, str]:
    """Every entry below ``base`` but ``skip``: a link's target, a file's content hash."""
    seen: dict[str, str] = {}
    for folder, dirs, names in os.walk(base):
        dirs[:] = [d for d in dirs if Path(folder, d) != skip]
        for name in [*dirs, *names]:
            p = Path(folder, name)
            if p.is_symlink():
                seen[str(p)] = "-> " + os.readlink(p)
            elif p.is_file():
                seen[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest()
            else:
                seen[str(p)] = "dir"
    return seen


@contextmanager
def _sandbox() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as d:
        yield Path(d).resolve()


def _one_line(e: GpuplanError) -> None:
    assert "\n" not in str(e) and "Traceback" not in str(e), str(e)


def _copies_stay_inside(files: list, root: Path) -> None:
    for f in files:
        assert SECRET not in f.content, f.path
        if f.source is not None:
            source = Path(f.source)
            # Its path is its real path (no link on the way) and lies inside the allowed folder.
            assert os.path.realpath(source) == str(source) and source.is_relative_to(root), f.source
            assert source.is_file() and not source.is_symlink()


# ---- the folder rule ------------------------------------------------------------------------------

#: A path as a file writes it: a link target of the tree, or segments through its names and links.
_GIVEN = st.one_of(
    _TARGETS,
    st.lists(
        st.sampled_from(["pkg", "sub", "a", "b", "..", "..", ".", "src", "config.json"]),
        min_size=1,
        max_size=4,
    ).map("/".join),
)


@_SETTINGS
@given(entries=_ENTRIES, path=_GIVEN, start=st.sampled_from(["", "sub", "pkg"]))
def test_a_checked_path_is_its_real_path_inside_the_folder_or_one_line(
    entries: list[tuple[str, str, str]], path: str, start: str
) -> None:
    with _sandbox() as base:
        root, outside = _tree(base, entries)
        given_path = path.format(root=root, outside=outside)
        folder = Folder.of(root / "w.yaml")
        try:
            resolved = folder.check(given_path, base=root / start, field="f")
        except GpuplanError as e:
            _one_line(e)
            real = os.path.realpath(root / start / given_path)
            assert not Path(real).is_relative_to(root) or "cannot be resolved" in str(e)
            return
        assert str(resolved) == os.path.realpath(root / start / given_path)
        assert resolved.is_relative_to(root)


@settings(_SETTINGS, max_examples=30)  # each example writes a launch folder (fsync per file)
@given(
    entries=_ENTRIES,
    project=st.one_of(st.none(), _GIVEN),
    entry=st.sampled_from(["pkg:build", "pkg.mod:build", "mod:build", "sub.pkg:build", "a:build"]),
    target=st.sampled_from(["docker", "k8s", "skypilot"]),
)
def test_a_workload_copies_nothing_from_outside_and_writes_only_in_out(
    entries: list[tuple[str, str, str]], project: str | None, entry: str, target: str
) -> None:
    with _sandbox() as base:
        root, outside = _tree(base, entries)
        model: dict[str, str] = {"python": entry}
        if project is not None:
            model["project_dir"] = project.format(root=root, outside=outside)
        job = root / "job.yaml"
        job.write_text(json.dumps({"name": "j", "model": model, "inputs": {"batch_size": 2}}))
        out = base / "out"
        before = _snapshot(base, out)
        try:
            spec = LaunchSpec.from_workload(job, gpu="A100-80GB", provider="aws")
            files = generate(spec, target, GenerateOptions(out_dir=str(out)))
            _copies_stay_inside(files, root)
            write_files(files, out)
        except GpuplanError as e:
            _one_line(e)
        assert _snapshot(base, out) == before
        if out.exists():
            assert SECRET not in "".join(p.read_text() for p in out.rglob("*") if p.is_file())


@_SETTINGS
@given(entries=_ENTRIES, project=st.one_of(st.none(), _GIVEN), use_flag=st.booleans())
def test_a_plan_copies_nothing_from_outside(
    entries: list[tuple[str, str, str]], project: str | None, use_flag: bool
) -> None:
    with _sandbox() as base:
        root, outside = _tree(base, entries)
        doc = json.loads((FIXTURES / "plan_spot_aws.json").read_text())
        doc["workload"]["model"] = {"python": "pkg.mod:build"}
        if project is not None:
            doc["workload"]["model"]["project_dir"] = str(root / project.format(root=root, outside=outside))
        plan = root / "plan.json"
        plan.write_text(json.dumps(doc))
        try:
            spec = LaunchSpec.from_plan_json(plan, project=root if use_flag else None)
            _copies_stay_inside(generate(spec, "docker"), root)
        except GpuplanError as e:
            _one_line(e)


# ---- code named by data ---------------------------------------------------------------------------

_WORKLOAD_REFS = st.sampled_from(
    ["code.yaml", "sub/code.yaml", "link-code.yaml", "../outside/code.yaml", "{outside}/code.yaml",
     "missing.yaml", "loop.yaml", "code.yaml/..", "outside-link/code.yaml"]
)  # fmt: skip


def _code_tree(base: Path) -> tuple[Path, Path]:
    """Workloads whose model is a package that, imported, creates ``base/PWNED``; inside the allowed
    folder, in a subfolder, behind links, and outside it."""
    root, outside = base / "root", base / "outside"
    marker = base / "PWNED"
    for folder in (root, root / "sub", outside):
        (folder / "evilpkg").mkdir(parents=True)
        (folder / "evilpkg" / "__init__.py").write_text(
            f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\ndef build():\n    pass\n"
        )
        (folder / "code.yaml").write_text(
            "name: s\ntask: infer\nmodel: {python: 'evilpkg:build'}\ninputs: {batch_size: 1, seq_len: 8}\n"
            "serving: {requests_per_s: 1, prompt_tokens: 8, output_tokens: 8}\n"
        )
    (root / "link-code.yaml").symlink_to(root / "code.yaml")
    (root / "outside-link").symlink_to(outside, target_is_directory=True)
    (root / "loop.yaml").symlink_to(root / "loop.yaml")
    return root, outside


@_SETTINGS
@given(refs=st.lists(_WORKLOAD_REFS, min_size=1, max_size=3), kind=st.sampled_from(["services", "usage"]))
def test_no_named_workload_imports_its_code_without_the_flag(refs: list[str], kind: str) -> None:
    from gpuplan.cli._services import estimate_services
    from gpuplan.commit.adapters import demands_from_usage
    from gpuplan.commit.usage import load_usage
    from gpuplan.simulate.inputs import load_services

    with _sandbox() as base:
        root, outside = _code_tree(base)
        named = [r.format(outside=outside) for r in refs]
        file = root / f"{kind}.yaml"
        try:
            if kind == "services":
                services = [
                    {"name": f"s{i}", "requests_per_s": 1, "workload": r} for i, r in enumerate(named)
                ]
                file.write_text(json.dumps({"services": services}))
                estimate_services(None, load_services(file), file, "L4", (Folder.of(file), False))
            else:
                demands = [{"name": f"d{i}", "workload": r, "runs_per_month": 1} for i, r in enumerate(named)]
                file.write_text(json.dumps({"horizon_months": 2, "demands": demands}))
                demands_from_usage(load_usage(file), store=None, allow_code=False)  # type: ignore[arg-type]
            raise AssertionError("a workload was accepted")  # every reference here is code or bad
        except GpuplanError as e:
            _one_line(e)
        assert not (base / "PWNED").exists()
