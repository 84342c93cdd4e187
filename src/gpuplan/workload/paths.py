"""The files a workload file names, checked against the folder the user named (``gpuplan.confine``).

A workload file names at most two: ``model.project_dir`` (where ``model.python`` is imported from,
and the package ``deploy`` copies) and ``model.hf_config`` (a ``config.json``, or a folder holding
one). Both are hints: each is resolved relative to the file (``hf_config`` relative to the project
folder, as before), every link followed, and refused in one line unless it lies inside the folder
the user named — the workload's own folder, or ``--project DIR``. The resolved paths replace the
written ones, so that later reads use the path that was checked.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from gpuplan.confine import ErrorClass, Folder
from gpuplan.errors import WorkloadError
from gpuplan.i18n.messages import N_

__all__ = ["PLAN_ONLY_MODEL_KEYS", "confine_model", "plan_workload_document", "unread_project_dir"]

#: What a plan writes of its ``hf_config`` model beside the workload's own keys (what deploy needs of
#: it where the config does not travel with the plan): not a workload's keys.
PLAN_ONLY_MODEL_KEYS = ("family", "max_positions")

#: A Hugging Face Hub model id, ``owner/name`` (the Hub's own rule: letters, digits, ``-``, ``_``,
#: ``.``; no leading dot, so ``./x`` and ``../x`` are paths).
_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*")


def confine_model(
    data: dict[str, Any], *, file: Path, folder: Folder, error: ErrorClass = WorkloadError
) -> dict[str, Any]:
    """``data`` (a workload document read from ``file``) with ``model.project_dir`` and
    ``model.hf_config`` resolved and checked against ``folder``.

    Without a ``project_dir``, the project is the file's own folder when that lies inside ``folder``,
    else ``folder`` itself (``--project DIR`` names the project). Values of the wrong type are left
    for the schema to refuse."""
    model = data.get("model")
    if not isinstance(model, dict):
        return data
    here = Path(file).resolve().parent
    given = model.get("project_dir")
    if given is not None and not isinstance(given, str):
        return data
    if given is not None:
        project = folder.check(given, base=here, field="model.project_dir", error=error)
    else:
        project = here if folder.contains(here) else folder.path
    model = {**model, "project_dir": str(project)}
    config = model.get("hf_config")
    if isinstance(config, str):
        path = folder.check(config, base=project, field="model.hf_config", error=error)
        if not path.exists() and _HUB_ID.fullmatch(config) and not config.endswith(".json"):
            raise error.worded(
                N_(
                    "model.hf_config {given!r} is no file or folder beside the workload; it reads like "
                    "a Hugging Face model id, and gpuplan never downloads: save the model's config.json "
                    "({url}) next to the workload and write hf_config: config.json"
                ),
                given=config,
                url=f"https://huggingface.co/{config}/blob/main/config.json",
            )
        if path.is_dir():
            # transformers would read the folder's config.json: the link check covers that file too.
            path = folder.check("config.json", base=path, field="model.hf_config", error=error)
        model["hf_config"] = str(path)
    return {**data, "model": model}


def plan_workload_document(data: dict[str, Any]) -> dict[str, Any]:
    """A plan's ``workload`` as a workload document: without the keys a plan records of its model
    (:data:`PLAN_ONLY_MODEL_KEYS`, which a workload refuses as unknown) and without a
    ``model.project_dir`` nothing is read from (:func:`unread_project_dir`)."""
    model = data.get("model")
    if isinstance(model, dict):
        data = {**data, "model": {k: v for k, v in model.items() if k not in PLAN_ONLY_MODEL_KEYS}}
    return unread_project_dir(data)


def unread_project_dir(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (a workload document) without ``model.project_dir`` where nothing is read from that
    folder: a preset, or a Hugging Face config named by an absolute path. Only ``model.python``
    (imported from it) and a relative ``model.hf_config`` (resolved from it) read it; those keep it,
    to be checked against the folder the user named as before.

    A plan written by ``gpuplan plan`` carries the folder it was planned in; a copy of it elsewhere
    (or sent to the service) names a folder nothing needs, which had been refused, and the plan then
    deployed without its engine sized."""
    model = data.get("model")
    if not isinstance(model, dict) or "project_dir" not in model or model.get("python") is not None:
        return data
    config = model.get("hf_config")
    if config is not None and not (isinstance(config, str) and Path(config).expanduser().is_absolute()):
        return data
    return {**data, "model": {k: v for k, v in model.items() if k != "project_dir"}}
