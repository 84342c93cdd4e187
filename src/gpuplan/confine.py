"""Files that other files name stay inside the folder the user named.

A plan, a workload, a services file or a usage file may come from someone else, and each can name
further files: a project folder whose package ``deploy`` copies into a launch folder, a Hugging Face
``config.json``, workload files. gpuplan reads or copies such a file on the user's behalf only when
its path, with every link resolved, lies inside one folder the user named:

* the folder of the file given on the command line (a plan's or a workload's own folder), or
* ``--project DIR``, when the user gives it on the command line.

A path written in a file (``model.project_dir``, ``hf_config``, ``workload:``, a usage file's
``base_dir``) is a hint checked against that rule, never an authority: ``../elsewhere``,
``/abs/elsewhere`` and a link such as ``src -> /home/someone`` are refused in one line that names
``--project``.

This module is the bottom layer (stdlib and the message catalog's ``N_`` marker).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from gpuplan.errors import GpuplanError, InputError, Phrase
from gpuplan.i18n.messages import N_
from gpuplan.i18n.os_reasons import os_reason

__all__ = ["Folder"]

ErrorClass = type[GpuplanError]

_OUTSIDE = N_(
    "{field} {given!r} is {resolved}, outside {folder} (the folder of {source}): "
    "files named by a file must lie in its folder; pass --project DIR to name a folder that holds it"
)
_OUTSIDE_PROJECT = N_(
    "{field} {given!r} is {resolved}, outside --project {folder}: name a folder that holds it"
)
_UNRESOLVABLE = N_("{field} {given!r} cannot be resolved: {why}")
_NOT_A_FOLDER = N_("--project {path}: {why}")


def _real(path: Path) -> Path:
    """``path`` made absolute with every link resolved (it need not exist)."""
    return path.expanduser().resolve()


@dataclass(frozen=True)
class Folder:
    """The one folder the user named: files that other files name must resolve inside it."""

    path: Path
    """Absolute, links resolved."""
    source: str
    """The file given on the command line whose folder this is, or "" for ``--project DIR``."""

    @classmethod
    def of(cls, file: str | Path, project: str | Path | None = None) -> Folder:
        """``--project DIR`` when the user gave it, else the folder of ``file`` (the plan, workload,
        services or usage file named on the command line). A ``project`` that is not a folder is an
        InputError in one line."""
        if project is not None:
            return cls.project(project)
        try:
            return cls(_real(Path(file)).parent, str(file))
        except (OSError, RuntimeError, ValueError):
            # A path that cannot be resolved (a NUL byte, a loop) is refused when it is read, in
            # the reader's own words; its folder as written is the one nothing may leave.
            return cls(Path(os.path.abspath(Path(file).parent)), str(file))

    @classmethod
    def project(cls, project: str | Path) -> Folder:
        """The folder of ``--project DIR``; it must exist."""
        try:
            real = _real(Path(project))
            is_dir = real.is_dir()
        except (OSError, RuntimeError, ValueError) as e:
            raise InputError.worded(_NOT_A_FOLDER, path=str(project)[:200], why=_why(e)) from None
        if not is_dir:
            raise InputError.worded(_NOT_A_FOLDER, path=str(project)[:200], why=Phrase(N_("not a folder")))
        return cls(real, "")

    def contains(self, path: Path) -> bool:
        """True when ``path`` (already resolved) is this folder or lies below it."""
        return path == self.path or path.is_relative_to(self.path)

    def check(self, given: str | Path, *, base: Path, field: str, error: ErrorClass = InputError) -> Path:
        """``given`` (relative to ``base``, ``~`` expanded) with every link resolved, when it lies in
        this folder; else ``error`` in one line naming ``field`` and ``--project``."""
        shown = str(given)[:200]
        try:
            resolved = _real(base / Path(given).expanduser())
        except (OSError, RuntimeError, ValueError) as e:
            raise error.worded(_UNRESOLVABLE, field=field, given=shown, why=_why(e)) from None
        if self.contains(resolved):
            return resolved
        if self.source:
            raise error.worded(
                _OUTSIDE,
                field=field,
                given=shown,
                resolved=str(resolved)[:200],
                folder=self.path,
                source=self.source,
            )
        raise error.worded(
            _OUTSIDE_PROJECT, field=field, given=shown, resolved=str(resolved)[:200], folder=self.path
        )


def _why(e: BaseException) -> str | Phrase:
    if isinstance(e, RuntimeError) and "loop" in str(e).lower():
        return Phrase(N_("a loop of links"))
    if isinstance(e, RuntimeError):
        return str(e).splitlines()[0] if str(e) else type(e).__name__
    if isinstance(e, ValueError):
        return Phrase(N_("the path contains a NUL byte"))
    return os_reason(e)
