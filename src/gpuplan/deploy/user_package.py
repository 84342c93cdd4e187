"""The user's own model package (``model: {python: pkg.module:build}``), copied into the launch folder.

A container or a cloud node has only what the launch folder holds, so train.py could not import the
user's model there. For a workload whose ``project_dir`` is known on this machine (see
``LaunchSpec.project_dir``: inside the folder the user named, ``gpuplan.confine``), the top-level
package of the entry point is copied under ``project/`` with its packaging files, and the Dockerfile
(or SkyPilot's setup) runs ``pip install -r project/requirements.txt`` where the project has one,
then ``pip install ./project``, both under a pip constraints file that pins the PyTorch already
installed (:func:`pin_torch`): a requirement such as ``torchvision==0.28.0`` (which needs another
torch) then fails the build with pip's resolver error instead of silently replacing the planned
PyTorch with another version and another CUDA build. A project without ``pyproject.toml`` or
``setup.py`` gets a minimal generated ``pyproject.toml`` that declares just that package, so the
install works either way.

What is copied is an explicit manifest of regular files found below the project folder, and only
there: every folder and file is opened relative to its parent with ``O_NOFOLLOW``, so a link
(``src -> /home/someone``, a file linked to ``~/.ssh/id_rsa``) is never followed, not even one
swapped in while deploy runs. The package must be one: ``Documents:build`` needs a
``Documents/__init__.py`` (or ``Documents.py``), so an ordinary folder is never taken for it. Only
UTF-8 text files are copied, no caches or VCS folders, at most :data:`MAX_FILES` files and
:data:`MAX_BYTES` bytes. Each copy carries its source path (``GeneratedFile.source``), which the
command line shows before it writes anything.

The modules and packages beside it that the copied code imports come too (``net.py`` doing
``from layers import block`` with ``layers.py`` next to it), and theirs, transitively: ``estimate``
imports the model with its folder on ``sys.path``, where those resolve, and the launch must find
them as well. Nothing is imported to find them: each copied ``.py`` file is parsed with ``ast`` and
its ``import X`` and ``from X import ...`` statements are read, at any depth (inside a function or a
``try`` too); a name counts when a package folder (with ``__init__.py``) or a ``.py`` file of that
name lies beside the entry point, found as the entry point is (no link followed, within the same
limits). A relative import (``from . import x``) needs nothing more: it resolves inside a package,
which is copied whole. A module imported by a computed name (``importlib.import_module(name)``,
``__import__``) cannot be seen this way and is not copied.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from gpuplan.deploy.base import GeneratedFile
from gpuplan.deploy.project_imports import (
    NO_IMPORTS,
    Dependency,
    ProjectImports,
    imported_names,
    project_imports,
)
from gpuplan.deploy.spec import LaunchSpec
from gpuplan.errors import DeployError
from gpuplan.i18n.messages import N_, _
from gpuplan.i18n.phrases import bracketed, item_list, sentences

__all__ = [
    "DOCKERFILE",
    "PROJECT_DIR",
    "TASK_YAML",
    "TORCH_CONSTRAINTS",
    "UserPackage",
    "install_hint",
    "install_words",
    "package_notes",
    "pin_torch",
    "shipped_package",
    "user_package",
]

#: Folder of the launch directory (and of the image, under /workspace) holding the package.
PROJECT_DIR = "project"
#: The files that install the copied package: a Dockerfile (``docker``, ``k8s``), or SkyPilot's
#: task.yaml, whose ``setup`` runs on every node (``skypilot``).
DOCKERFILE = "Dockerfile"
TASK_YAML = "task.yaml"
#: The pip constraints file that the install writes beside the copied package (:func:`pin_torch`);
#: not ``constraints.txt``, which a project of the user's may hold itself.
TORCH_CONSTRAINTS = "torch-constraints.txt"
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
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW
_FILE = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _NOFOLLOW


@dataclass(frozen=True, kw_only=True)
class UserPackage:
    """The copied package: its files (paths under ``project/``) and how to describe it."""

    top_level: str
    """The importable top-level name (``mytransformer``)."""
    source: Path
    """The project folder it was copied from."""
    files: tuple[GeneratedFile, ...]
    """The copies (each with its ``source``) and the generated README/pyproject when needed."""
    skipped: tuple[str, ...]
    """Relative paths not copied (links, binary files, odd names), for the user to see."""
    requirements: bool
    """True when the project has a requirements.txt (installed before the package)."""
    imports: ProjectImports = NO_IMPORTS
    """The third-party packages the copied code imports (:mod:`gpuplan.deploy.project_imports`)."""
    installer_file: str | None = None
    """The project's own file that installs its requirements (``pyproject.toml``, ``setup.py``,
    ``requirements.txt``), installed as it is; None: the generated pyproject.toml requires them."""
    beside: tuple[str, ...] = ()
    """Files (not ``.py``) in the folder the package was copied from, beside it: not copied."""


@contextmanager
def _opened(fd: int) -> Iterator[int]:
    try:
        yield fd
    finally:
        os.close(fd)


def _sub(parent: int, name: str) -> int | None:
    """The folder ``name`` inside ``parent`` opened without following a link, or None."""
    try:
        return os.open(name, _DIR, dir_fd=parent)
    except OSError:
        return None


def _kind(parent: int, name: str) -> str:
    """The kind of ``name`` in ``parent``, without following a link: "dir", "file" or "" (missing,
    a link, anything else)."""
    try:
        mode = os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode
    except OSError:
        return ""
    return "dir" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else ""


def _plain_name(name: str) -> bool:
    """A name that can be written back and shown on one line: printable (no control character, no
    undecodable byte, which ``os`` hands over as a lone surrogate) and no backslash."""
    return name.isprintable() and "\\" not in name


class _Manifest:
    """The copies being collected, within the file and byte limits."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files: list[GeneratedFile] = []
        self.skipped: list[str] = []
        self.budget = MAX_BYTES

    def add(self, parent: int, name: str, rel: str) -> None:
        """Copy ``name`` from the folder ``parent`` (``rel`` is its path below the project)."""
        if not _plain_name(rel):
            self.skipped.append(ascii(rel)[1:-1])
            return
        try:
            fd = os.open(name, _FILE, dir_fd=parent)
        except OSError:  # a link (ELOOP), gone, unreadable
            self.skipped.append(rel)
            return
        with _opened(fd):
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                self.skipped.append(rel)
                return
            self._spend(info.st_size)
            os.set_blocking(fd, True)
            with os.fdopen(fd, "rb", closefd=False) as fh:
                data = fh.read(self.budget + 1)
        self._spend(len(data) - info.st_size)  # a file that grew while read
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            self.skipped.append(rel)
            return
        self.files.append(
            GeneratedFile(path=f"{PROJECT_DIR}/{rel}", content=text, source=str(self.root / rel))
        )
        if len(self.files) > MAX_FILES:
            raise DeployError.worded(
                N_(
                    "model package in {folder} has more than {limit} files: build the image yourself "
                    "(COPY your package into it) and pass --image"
                ),
                folder=self.root,
                limit=MAX_FILES,
            )

    def _spend(self, size: int) -> None:
        self.budget -= size
        if self.budget < 0:
            raise DeployError.worded(
                N_(
                    "model package in {folder} is larger than {limit_mb} MB: "
                    "build the image yourself (COPY your package into it) and pass --image"
                ),
                folder=self.root,
                limit_mb=MAX_BYTES // 2**20,
            )

    def tree(self, top: int, rel: str) -> None:
        """Every file below the folder ``top`` (``rel`` below the project), links never followed."""
        for folder, dirs, names, fd in os.fwalk(".", dir_fd=top, follow_symlinks=False):
            # fwalk opens each subfolder itself and descends only when it is the folder it listed,
            # never a link to one.
            dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
            here = rel if folder == "." else f"{rel}/{folder[2:]}"
            for name in sorted(names):
                if not name.endswith((".pyc", ".pyo")):
                    self.add(fd, name, f"{here}/{name}")


def _generated_pyproject(
    name: str, modules: list[str], packages: list[str], where: str, requirements: list[str]
) -> str:
    """A pyproject.toml that installs the modules and packages copied from the folder ``where``,
    and the ``requirements`` their code imports (:func:`gpuplan.deploy.project_imports.project_imports`)."""
    listed = ", ".join(f'"{m}"' for m in modules)
    found = ", ".join(f'"{p}", "{p}.*"' for p in packages)
    # With py-modules or packages given, setuptools discovers nothing else: exactly what was copied.
    kind = f'package-dir = {{"" = "{where}"}}'
    if modules:
        kind += f"\npy-modules = [{listed}]"
    if packages:
        kind += f'\npackages = {{find = {{where = ["{where}"], include = [{found}]}}}}'
    needs = "".join(f'\n    "{r}",' for r in requirements)
    dependencies = f"dependencies = [{needs}\n]\n" if requirements else ""
    return f"""# Written by `gpuplan deploy`: your project has no pyproject.toml or setup.py, so this
# minimal one makes `pip install ./project` install the package your model.python names
# (and the modules beside it that its code imports), and the third-party packages its code
# imports, pinned to the versions installed where deploy ran (unpinned where not installed there).
[build-system]
requires = ["setuptools>=69"]
build-backend = "setuptools.build_meta"

[project]
name = "{name.replace("_", "-")}"
version = "0.0.0"
{dependencies}
[tool.setuptools]
{kind}
"""


def pin_torch(folder: str) -> str:
    """The shell command that writes ``folder``/:data:`TORCH_CONSTRAINTS`: ``torch==`` the version of
    the PyTorch installed (the image's, or the one the setup installed), without its local label
    (``+cu128``), which PEP 440 ignores when the constraint has none. Passed to ``pip install -c``, it
    makes pip keep that torch or fail with its resolver error; a constraints file only controls which
    version of a package is installed, never whether it is (pip documentation, "User Guide:
    Constraints Files", https://pip.pypa.io/en/stable/user_guide/#constraints-files). Read from the
    installed torch rather than written here, so it is right for a ``--base-image`` too."""
    return (
        "python3 -c \"import torch; print('torch==' + torch.__version__.split('+')[0])\" "
        f"> {folder}/{TORCH_CONSTRAINTS}"
    )


def install_words(installer: str, package: UserPackage) -> str:
    """How the launch folder installs the copied package, in the user's language: ``installer`` is
    the file that does it (:data:`DOCKERFILE`, or :data:`TASK_YAML`, whose setup runs on every
    node); the project's requirements.txt is installed first where it has one; then what the
    package's code imports from outside it (:func:`dependency_words`)."""
    requirements = package.requirements
    if installer == TASK_YAML:
        installs = (
            _(
                "The setup of task.yaml installs your project's requirements and then the package on "
                "every node (`pip install -r {project}/requirements.txt`, then `pip install ./{project}`)."
            )
            if requirements
            else _("The setup of task.yaml installs the package on every node (`pip install ./{project}`).")
        )
    else:
        installs = (
            _(
                "The Dockerfile installs your project's requirements and then the package (`pip install -r "
                "{project}/requirements.txt`, then `pip install ./{project}`)."
            )
            if requirements
            else _("The Dockerfile installs the package (`pip install ./{project}`).")
        )
    said = sentences(installs, _torch_kept()).format(project=PROJECT_DIR, constraints=TORCH_CONSTRAINTS)
    return sentences(said, *dependency_words(package))


def _requirement_words(dependency: Dependency) -> str:
    """A requirement as the user reads it: pinned as is, an unpinned one with why."""
    assert dependency.requirement is not None
    if dependency.how == "not_installed":
        return bracketed(dependency.requirement, _("not installed where deploy ran: unpinned"))
    if dependency.how == "follows_torch":
        return bracketed(
            dependency.requirement, _("unpinned: pip takes the release made for the torch installed")
        )
    return dependency.requirement


def _unresolved_words(dependency: Dependency) -> str:
    """An import no requirement is written for, with why."""
    if dependency.how == "local":
        why = _("installed where deploy ran from a folder or a VCS, not from a package index")
    elif dependency.how == "ambiguous":
        why = _("provided there by several distributions: {names}").format(
            names=item_list(dependency.distributions)
        )
    else:
        why = _("no distribution installed where deploy ran provides it")
    return bracketed(dependency.module, why)


def dependency_words(package: UserPackage) -> list[str]:
    """Sentences (one a line on deploy's output; a paragraph in a README) on the third-party
    packages the copied code imports: the requirements the generated pyproject.toml writes, the
    imports none is known for (to add by hand), or, where the project installs itself with a file of
    its own, that it must name them. Empty where the code imports nothing outside the standard
    library, PyTorch and itself."""
    imports = package.imports
    if not imports.dependencies:
        return []
    if package.installer_file is not None:
        return [
            _(
                "Your code imports {modules} (besides the standard library and PyTorch): your {file} is "
                "installed as it is, so it must name them."
            ).format(modules=item_list(d.module for d in imports.dependencies), file=package.installer_file)
        ]
    said = []
    if written := [_requirement_words(d) for d in imports.dependencies if d.requirement]:
        said.append(
            _(
                "{project}/pyproject.toml requires what your code imports (besides the standard library "
                "and PyTorch), pinned to the versions installed where deploy ran: {requirements}."
            ).format(project=PROJECT_DIR, requirements=item_list(written))
        )
    if unresolved := imports.unresolved:
        said.append(
            _(
                "Your code also imports {modules}, for which no requirement is written: add them to a "
                "requirements.txt in your project folder (copied, and installed before the package), or "
                "the launch fails to import them."
            ).format(modules=item_list(_unresolved_words(d) for d in unresolved))
        )
    return said


def _torch_kept() -> str:
    """Why the installs run under a constraints file, and how to change PyTorch on purpose."""
    return _(
        "Both run with `-c {project}/{constraints}`, a pip constraints file pinning the PyTorch "
        "already installed: a requirement that needs another torch (`torchvision==0.28.0` needs "
        "torch 2.13.0) fails the install with pip's resolver error instead of replacing the planned "
        "PyTorch and its CUDA build. To use another PyTorch on purpose, change the one installed "
        "first (the base image, or the torch line of the setup), not your requirements."
    )


#: Names listed on one line of deploy's output before "and N more".
_SHOWN_NAMES = 8


def _some(names: tuple[str, ...]) -> str:
    """Up to :data:`_SHOWN_NAMES` names, and how many more."""
    shown = item_list(names[:_SHOWN_NAMES])
    more = len(names) - _SHOWN_NAMES
    return shown if more <= 0 else _("{names} and {n} more").format(names=shown, n=more)


def package_notes(package: UserPackage, copied: bool = True) -> list[str]:
    """deploy's output lines, one sentence each, on what the launch needs besides the copies:
    the packages the code imports (:func:`dependency_words`; where the target copies nothing, the
    requirements to install beside the package), and the files of the project that are not copied
    (in the folder the package came from, beside it; in the package, a link or a file that is not
    UTF-8 text), with how to bring one the code reads."""
    if copied:
        lines = dependency_words(package)
    else:
        lines = []
        if needs := [_requirement_words(d) for d in package.imports.dependencies if d.requirement]:
            lines.append(
                _(
                    "Your code imports {requirements} (besides the standard library and PyTorch; pinned to "
                    "the versions installed here): install them on every machine that runs train.py too."
                ).format(requirements=item_list(needs))
            )
        if unresolved := package.imports.unresolved:
            lines.append(
                _("Your code also imports {modules}: install them there too.").format(
                    modules=item_list(_unresolved_words(d) for d in unresolved)
                )
            )
        return lines
    if package.beside:
        lines.append(
            _(
                "not copied: {files} beside your package in {folder} (deploy copies your package's folder "
                "and the modules its code imports, nothing else; it has no option to add other files). "
                "If your code reads one, move it into the package folder `{package}/`, which is copied "
                "whole, and read it relative to `__file__`."
            ).format(files=_some(package.beside), folder=package.source, package=package.top_level)
        )
    if package.skipped:
        lines.append(
            _(
                "not copied from your package: {files} (links, and files that are not UTF-8 text, are "
                "never copied): put them on storage the job mounts, or in an image of your own."
            ).format(files=_some(package.skipped))
        )
    return lines


def _readme(package: UserPackage, installer: str) -> str:
    top_level, root, requirements = package.top_level, package.source, package.requirements
    title = _("{package}: your model's package").format(package=top_level)
    copied = _(
        "Copied by `gpuplan deploy` from `{root}` so that the image (or the cloud node) can import "
        "your model. {install} `{installer}` is in the folder one level up; to install the package here, "
        "from that folder:"
    ).format(root=root, install=install_words(installer, package), installer=installer)
    edit = _("Edit your project, not this copy: re-run `gpuplan deploy` to refresh it.")
    pin = f"-c {PROJECT_DIR}/{TORCH_CONSTRAINTS}"
    steps = f"pip install -r {PROJECT_DIR}/requirements.txt {pin}\n" if requirements else ""
    return f"""# {title}

{copied}

```bash
{pin_torch(PROJECT_DIR)}
{steps}pip install ./{PROJECT_DIR} {pin}
```

{edit}
"""


def _module_file(base: int, parts: list[str]) -> bool:
    """True when the module ``parts`` (``["pkg", "model"]``) is a regular file below ``base``:
    ``pkg/model.py`` or ``pkg/model/__init__.py``, no link on the way."""
    *folders, last = parts
    fds: list[int] = []
    try:
        here = base
        for name in folders:
            sub = _sub(here, name)
            if sub is None:
                return False
            fds.append(sub)
            here = sub
        if _kind(here, f"{last}.py") == "file":
            return True
        sub = _sub(here, last)
        if sub is None:
            return False
        fds.append(sub)
        return _kind(sub, "__init__.py") == "file"
    finally:
        for fd in fds:
            os.close(fd)


def user_package(spec: LaunchSpec, installer: str = DOCKERFILE) -> UserPackage | None:
    """The user's package to ship with the launch, or None when the spec has none to copy (a preset,
    or no project folder known here). Raises DeployError when the project folder does not hold the
    entry point's module as a package (or module) of regular files. ``installer``: the file of the
    launch folder that installs it (:data:`DOCKERFILE` or :data:`TASK_YAML`), which the README
    written into ``project/`` names."""
    if not spec.model_entry_point or not spec.project_dir:
        return None
    root = Path(spec.project_dir)
    module = spec.model_entry_point.split(":", 1)[0].split(".")
    top_level = module[0]
    try:
        project = os.open(root, _DIR)
    except OSError:
        return None  # the project folder is not on this machine
    with _opened(project):
        manifest = _Manifest(root)
        for where in ("", "src"):
            base = project if not where else _sub(project, where)
            if base is None:
                continue
            try:
                kind = "dir" if _kind(base, top_level) == "dir" else _kind(base, f"{top_level}.py")
                if kind and _module_file(base, module):
                    prefix = f"{where}/" if where else ""
                    modules, packages = _collect_with_imports(manifest, base, top_level, kind, prefix)
                    # and, for a package under src/, the project root's files (a config.json there)
                    beside = _beside(base, prefix) + (_beside(project, "") if where else ())
                    break
            finally:
                if base != project:
                    os.close(base)
        else:
            path = "/".join(module)
            raise DeployError.worded(
                N_(
                    "model.python {entry}: neither {module} nor {package} is a regular file in {folder} "
                    "or its src/ (links are not followed): nothing is copied"
                ),
                entry=spec.model_entry_point,
                module=f"{path}.py",
                package=f"{path}/__init__.py",
                folder=root,
            )
        packaging = [n for n in _PACKAGING if _kind(project, n) == "file"]
        copies = list(manifest.files)
        manifest.files.clear()
        for name in packaging:
            manifest.add(project, name, name)
        files = [*manifest.files, *copies]
    names = set(packaging)
    # the project's own file that installs its requirements, first found as pip reads them
    own = next((n for n in ("requirements.txt", "pyproject.toml", "setup.py") if n in names), None)
    package = UserPackage(
        top_level=top_level,
        source=root,
        files=(),
        skipped=tuple(manifest.skipped),
        requirements="requirements.txt" in names,
        imports=project_imports([f.content for f in copies if f.path.endswith(".py")], [*modules, *packages]),
        installer_file=own,
        beside=beside,
    )
    if "README.md" not in names:
        files.append(GeneratedFile(path=f"{PROJECT_DIR}/README.md", content=_readme(package, installer)))
    if not names & {"pyproject.toml", "setup.py"}:
        where = prefix.rstrip("/") or "."
        needs = package.imports.requirements if own is None else []
        pyproject = _generated_pyproject(top_level, modules, packages, where, needs)
        files.append(GeneratedFile(path=f"{PROJECT_DIR}/pyproject.toml", content=pyproject))
    return replace(package, files=tuple(files))


def _beside(base: int, prefix: str) -> tuple[str, ...]:
    """The regular files other than Python modules in the folder ``base`` (``prefix`` below the
    project) that the package was copied from, beside it: config files, data the code may read,
    which are not copied. The packaging files copied from the project root, hidden files and
    links are left out; nothing is opened."""
    names = []
    with os.scandir(base) as entries:
        for entry in entries:
            name = entry.name
            if name.startswith(".") or name.endswith((".py", ".pyc", ".pyo")) or not _plain_name(name):
                continue
            if not prefix and name in _PACKAGING:
                continue
            if entry.is_file(follow_symlinks=False):
                names.append(f"{prefix}{name}")
    return tuple(sorted(names))


def install_hint(spec: LaunchSpec) -> str:
    """How to make the user's package importable where train.py runs, for a target that copies no
    code (torchrun): ``pip install -e DIR`` only where DIR is a project pip can install, one with a
    ``pyproject.toml`` or ``setup.py`` (pip refuses any other folder: "does not appear to be a
    Python project: neither 'setup.py' nor 'pyproject.toml' found"; pip documentation, "pip
    install", https://pip.pypa.io/en/stable/cli/pip_install/); ``PYTHONPATH=DIR`` (or ``DIR/src``,
    where the package lies there) for a flat folder of modules. Both, each with its condition, where
    the folder is not known on this machine. Nothing is followed through a link. The folder is
    named by DIR and its name, never by its path here: that path exists on this machine only, and
    the machine that runs train.py has the copy the user put there."""
    generic = _(
        "`pip install -e DIR` for a folder with a pyproject.toml or setup.py, or `PYTHONPATH=DIR` for a "
        "plain folder of modules"
    )
    if not spec.model_entry_point or not spec.project_dir:
        return generic
    root = Path(spec.project_dir)
    top_level = spec.model_entry_point.split(":", 1)[0].split(".")[0]
    folder = os.path.basename(os.path.abspath(root))
    try:
        project = os.open(root, _DIR)
    except OSError:
        return generic  # the project folder is not on this machine
    with _opened(project):
        if any(_kind(project, name) == "file" for name in ("pyproject.toml", "setup.py")):
            return _("`pip install -e DIR`, DIR being that machine's copy of your folder `{folder}`").format(
                folder=folder
            )
        here = _kind(project, top_level) == "dir" or _kind(project, f"{top_level}.py") == "file"
        src = _sub(project, "src")
        if src is not None:
            with _opened(src):
                in_src = _kind(src, top_level) == "dir" or _kind(src, f"{top_level}.py") == "file"
        else:
            in_src = False
    if in_src and not here:
        return _("`PYTHONPATH=DIR/src`, DIR being that machine's copy of your folder `{folder}`").format(
            folder=folder
        )
    return _("`PYTHONPATH=DIR`, DIR being that machine's copy of your folder `{folder}`").format(
        folder=folder
    )


def shipped_package(spec: LaunchSpec, installer: str = DOCKERFILE) -> UserPackage | None:
    """The user's package for a target that ships the launch folder to machines of its own (a
    container image, SkyPilot's nodes): :func:`user_package`, and where the model is the user's
    code but no package of it could be copied (a plan kept in another folder than the code, a
    project folder that is not on this machine), a DeployError in one line naming the package,
    the folder looked in and ``--project DIR``. Files whose launch fails with ModuleNotFoundError
    on the rented nodes are not written. Nothing is read from outside the folder the user named."""
    package = user_package(spec, installer)
    if package is not None or not spec.model_entry_point:
        return package
    top_level = spec.model_entry_point.split(":", 1)[0].split(".")[0]
    folder = spec.project_folder or spec.project_dir
    if folder is None:
        raise DeployError.worded(
            N_(
                "model.python {entry}: no folder was named to copy its package {package} from, and the "
                "launch would fail to import it: pass --project DIR, the folder that holds {package}"
            ),
            entry=spec.model_entry_point,
            package=top_level,
        )
    raise DeployError.worded(
        N_(
            "model.python {entry}: its package {package} is not in {folder}, the folder deploy copies "
            "your code from, and the launch would fail to import it: pass --project DIR, the folder "
            "that holds {package}"
        ),
        entry=spec.model_entry_point,
        package=top_level,
        folder=folder,
    )


def _collect(manifest: _Manifest, base: int, top_level: str, kind: str, prefix: str) -> None:
    """Copy the package folder ``top_level`` (or the module ``top_level.py``) found in ``base``."""
    if kind == "file":
        manifest.add(base, f"{top_level}.py", f"{prefix}{top_level}.py")
        return
    sub = _sub(base, top_level)
    if sub is not None:
        with _opened(sub):
            manifest.tree(sub, f"{prefix}{top_level}")


def _collect_with_imports(
    manifest: _Manifest, base: int, top_level: str, kind: str, prefix: str
) -> tuple[list[str], list[str]]:
    """Copy the entry point's package (or module) ``top_level`` found in ``base``, then every module
    and package beside it that the copied code imports, transitively. Returns the top-level names
    copied: (modules, packages), the entry point's first."""
    modules: list[str] = []
    packages: list[str] = []
    pending = [(top_level, kind)]
    seen = {top_level}
    while pending:
        name, kind = pending.pop(0)
        start = len(manifest.files)
        _collect(manifest, base, name, kind, prefix)
        (modules if kind == "file" else packages).append(name)
        for copy in manifest.files[start:]:
            if not copy.path.endswith(".py"):
                continue
            for imported in sorted(imported_names(copy.content)[0] - seen):
                sibling = _sibling(base, imported)
                if sibling:
                    seen.add(imported)
                    pending.append((imported, sibling))
    return modules, packages


def _sibling(base: int, name: str) -> str:
    """What ``name`` is beside the entry point in ``base``, as Python's path finder looks for it: a
    package folder with ``__init__.py`` ("dir") before a ``name.py`` file ("file"), or "" (neither,
    a link, a folder without ``__init__.py``, a name the generated files cannot carry). A name of
    the standard library is never one: in the image, the standard library comes before the
    installed project on ``sys.path``, so a file beside the model that shadows it is not what runs."""
    if not (name.isascii() and name.isidentifier()) or name in sys.stdlib_module_names:
        return ""
    if _kind(base, name) == "dir":
        sub = _sub(base, name)
        if sub is not None:
            with _opened(sub):
                if _kind(sub, "__init__.py") == "file":
                    return "dir"
    return "file" if _kind(base, f"{name}.py") == "file" else ""
