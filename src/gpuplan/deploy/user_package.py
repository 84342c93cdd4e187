"""The user's own model package (``model: {python: pkg.module:build}``), copied into the launch folder.

A container or a cloud node has only what the launch folder holds, so train.py could not import the
user's model there. For a workload whose ``project_dir`` is known on this machine (see
``LaunchSpec.project_dir``), the top-level package of the entry point is copied under ``project/``
with its packaging files, and the Dockerfile (or SkyPilot's setup) runs ``pip install ./project``.
A project without ``pyproject.toml`` or ``setup.py`` gets a minimal generated ``pyproject.toml`` that
declares just that package, so the install works either way.

What is copied is bounded and plain: UTF-8 text files only, no links (a link could point anywhere),
no caches or VCS folders, at most :data:`MAX_FILES` files and :data:`MAX_BYTES` bytes.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from gpuplan.deploy.base import GeneratedFile
from gpuplan.deploy.spec import LaunchSpec
from gpuplan.errors import DeployError
from gpuplan.i18n.messages import N_

__all__ = ["PROJECT_DIR", "UserPackage", "user_package"]

#: Folder of the launch directory (and of the image, under /workspace) holding the package.
PROJECT_DIR = "project"
MAX_FILES = 2000
MAX_BYTES = 50 * 1024 * 1024
#: Packaging files copied from the project root when present.
_PACKAGING = (
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "requirements.txt",
    "README.md",
    "README.rst",
    "LICENSE",
)
_SKIP_DIRS = {
    "__pycache__",
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    "node_modules",
    ".mypy_cache",
    ".pytest_cache",
}


@dataclass(frozen=True, kw_only=True)
class UserPackage:
    """The copied package: its files (paths under ``project/``) and how to describe it."""

    top_level: str
    """The importable top-level name (``mytransformer``)."""
    source: Path
    """The project folder it was copied from."""
    files: tuple[GeneratedFile, ...]
    skipped: tuple[str, ...]
    """Relative paths not copied (links, binary files), for the README."""
    requirements: bool
    """True when the project has a requirements.txt (installed before the package)."""


def _regular_text(path: Path, budget: list[int]) -> str | None:
    info = path.lstat()
    if not stat.S_ISREG(info.st_mode):
        return None
    budget[0] -= info.st_size
    if budget[0] < 0:
        raise DeployError.worded(
            N_(
                "model package in {folder} is larger than {limit_mb} MB: "
                "build the image yourself (COPY your package into it) and pass --image"
            ),
            folder=path.parent,
            limit_mb=MAX_BYTES // 2**20,
        )
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return None


def _walk(root: Path, top: Path) -> list[Path]:
    """Files under ``top`` (a package folder or a module file), links and caches left out."""
    if top.is_file():
        return [top]
    out: list[Path] = []
    for folder, dirs, names in os.walk(top, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        out.extend(Path(folder) / n for n in sorted(names) if not n.endswith((".pyc", ".pyo")))
        if len(out) > MAX_FILES:
            raise DeployError.worded(
                N_(
                    "model package {package} has more than {limit} files: build the image yourself "
                    "(COPY your package into it) and pass --image"
                ),
                package=top,
                limit=MAX_FILES,
            )
    return out


def _generated_pyproject(top_level: str, is_module: bool, where: str) -> str:
    if is_module:
        kind = f'package-dir = {{"" = "{where}"}}\npy-modules = ["{top_level}"]'
    else:
        kind = f'packages = {{find = {{where = ["{where}"], include = ["{top_level}*"]}}}}'
    return f"""# Written by `gpuplan deploy`: your project has no pyproject.toml or setup.py, so this
# minimal one makes `pip install ./project` install the package your model.python names.
[build-system]
requires = ["setuptools>=69"]
build-backend = "setuptools.build_meta"

[project]
name = "{top_level.replace("_", "-")}"
version = "0.0.0"

[tool.setuptools]
{kind}
"""


def _readme(top_level: str, root: Path) -> str:
    return f"""# {top_level}: your model's package

Copied by `gpuplan deploy` from `{root}` so that the image (or the cloud node) can import your model.
The Dockerfile one folder up installs it (`pip install ./{PROJECT_DIR}`); to try it here:

```bash
pip install ./{PROJECT_DIR}
```

Edit your project, not this copy: re-run `gpuplan deploy` to refresh it.
"""


def user_package(spec: LaunchSpec) -> UserPackage | None:
    """The user's package to ship with the launch, or None when the spec has none to copy (a preset,
    or a project folder that is unknown here or does not hold the entry point's module)."""
    if not spec.model_entry_point or not spec.project_dir:
        return None
    root = Path(spec.project_dir)
    top_level = spec.model_entry_point.split(":", 1)[0].split(".", 1)[0]
    for base in (root, root / "src"):
        for candidate in (base / top_level, base / f"{top_level}.py"):
            if candidate.exists() and not candidate.is_symlink():
                break
        else:
            continue
        break
    else:
        return None
    budget = [MAX_BYTES]
    files: list[GeneratedFile] = []
    skipped: list[str] = []
    paths = _walk(root, candidate)
    packaging = [root / n for n in _PACKAGING if (root / n).is_file() and not (root / n).is_symlink()]
    for path in [*packaging, *paths]:
        rel = path.relative_to(root).as_posix()
        text = None if path.is_symlink() else _regular_text(path, budget)
        if text is None:
            skipped.append(rel)
            continue
        files.append(GeneratedFile(path=f"{PROJECT_DIR}/{rel}", content=text))
    names = {p.name for p in packaging}
    if "README.md" not in names:
        files.append(GeneratedFile(path=f"{PROJECT_DIR}/README.md", content=_readme(top_level, root)))
    if not names & {"pyproject.toml", "setup.py"}:
        files.append(
            GeneratedFile(
                path=f"{PROJECT_DIR}/pyproject.toml",
                content=_generated_pyproject(
                    top_level, candidate.is_file(), candidate.parent.relative_to(root).as_posix()
                ),
            )
        )
    return UserPackage(
        top_level=top_level,
        source=root,
        files=tuple(files),
        skipped=tuple(skipped),
        requirements="requirements.txt" in names,
    )
