"""Workload files named by other files: a ``simulate share`` services file, a ``tco`` usage file, and
any future API request.

Such a file may come from someone else, so what it names is read under two rules:

* the workload file, and the files it names in turn, lie inside the folder the user named (the
  naming file's folder or ``--project DIR``; see ``gpuplan.confine``);
* a workload whose model is code (``model.python``) is refused in one line unless the user allowed
  code on the command line (``--allow-code``): tracing it would import and run that code. The check
  comes before anything is imported. A workload given directly on the command line is the user's own
  choice and needs no flag.
"""

from __future__ import annotations

from pathlib import Path

from gpuplan.confine import Folder
from gpuplan.errors import InputError
from gpuplan.i18n.messages import N_
from gpuplan.workload.spec import Workload

__all__ = ["named_workload"]


def named_workload(
    given: str, *, base: Path, folder: Folder, field: str, allow_code: bool
) -> tuple[Path, Workload]:
    """The workload file ``given`` names (relative to ``base``, the naming file's folder), checked
    against ``folder``, and the Workload read from it. ``field`` names where ``given`` was written
    (``demands[0].workload``) in the one-line errors."""
    path = folder.check(given, base=base, field=field)
    workload = Workload.read(path, folder)
    if workload.model.python is not None and not allow_code:
        raise InputError.worded(
            N_(
                "{field} {given!r} names a workload whose model is code ({entry}), which tracing would "
                "import and run: pass --allow-code if you trust that code"
            ),
            field=field,
            given=given[:200],
            entry=workload.model.python,
        )
    return path, workload
