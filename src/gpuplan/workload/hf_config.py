"""Reading a Hugging Face ``config.json`` as data: within bounds, and never as a request to run code.

A config's ``auto_map`` names Python files (of its folder, or of a Hub repository as
``repo--module.Class``) that transformers imports when ``trust_remote_code`` is true, and about
which it asks ``Do you wish to run the custom code? [y/N]`` on stdin when the argument is left
unset. gpuplan never runs such code: a config with an ``auto_map`` anywhere in it is refused in one
line when the workload is read, before transformers (or torch) is imported. So is a config that
describes more layers than gpuplan traces, or a size that is not a whole number of at least 1
(:mod:`gpuplan.workload.hf_size`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from gpuplan.bounded import MAX_CONFIG_BYTES, load_json, read_text
from gpuplan.errors import Phrase, WorkloadError
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import item_list
from gpuplan.workload.hf_size import layers_problem

__all__ = ["HF_REPO_ID", "hf_repo_id", "read_hf_config"]

_HUB_PART = r"[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,94}[A-Za-z0-9])?"
#: A Hugging Face Hub model id, ``owner/name`` of the Hub's letters (it reaches an engine's command
#: line and manifests: nothing else passes).
HF_REPO_ID = re.compile(rf"{_HUB_PART}/{_HUB_PART}")


def hf_repo_id(value: str) -> str | None:
    """``value`` if it is a Hugging Face Hub model id (``meta-llama/Llama-3.1-8B``), else None."""
    ok = value.isascii() and HF_REPO_ID.fullmatch(value) and "--" not in value and ".." not in value
    return value if ok else None


def read_hf_config(path: Path) -> dict[str, Any]:
    """The JSON object of the config at ``path`` (a file, or a folder holding ``config.json``), read
    once within bounds; WorkloadError in one line if it is not one, or if it asks for code."""
    file = path / "config.json" if path.is_dir() else path
    text = read_text(file, what="model.hf_config", max_bytes=MAX_CONFIG_BYTES, error=WorkloadError)
    try:
        raw = load_json(text, source=str(file), error=WorkloadError)
    except WorkloadError as e:  # "model.hf_config: config.json is not valid JSON (…)", the file named apart
        raise WorkloadError.worded(N_("model.hf_config: {problem}"), problem=e).about(
            "model.hf_config", e
        ) from None
    if not isinstance(raw, dict):
        raise WorkloadError.worded(N_("model.hf_config: {file} is not a JSON object"), file=file)
    if "_diffusers_version" in raw or "_class_name" in raw:
        # diffusers writes these two keys into every config it saves, transformers neither: without
        # a model_type, transformers would say only "Should have a `model_type` key"
        raise WorkloadError.worded(
            N_(
                "model.hf_config: {file} is a diffusers config ({name}), which transformers cannot "
                "build: describe a diffusers model as your own code (model.python; "
                "README.md#diffusion-models)"
            ),
            file=file,
            name=str(raw.get("_class_name") or "diffusers")[:80],
        )
    found = _auto_maps(raw)
    if found:
        raise WorkloadError.worded(
            N_(
                "model.hf_config: {file} has an auto_map ({names}), which names Python code to run; "
                "gpuplan never runs code from a config: remove auto_map and give a model_type that "
                "transformers knows"
            ),
            file=file,
            names=item_list(sorted(found))[:200],
        ).about(
            "model.hf_config",
            Phrase(
                N_(
                    "an auto_map ({names}) names Python code to run; gpuplan never runs code from a "
                    "config: remove auto_map and give a model_type that transformers knows"
                ),
                names=item_list(sorted(found))[:200],
            ),
        )
    too_big = layers_problem(raw, file)  # more layers than a trace's budget, or a size below 1
    if too_big is not None:
        raise WorkloadError.worded(N_("model.hf_config: {problem}"), problem=too_big).about(
            "model.hf_config", too_big
        )
    return raw


def _auto_maps(value: Any) -> set[str]:
    """The classes named by every ``auto_map`` inside ``value`` (its depth is bounded by load_json)."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "auto_map":
                found |= {str(k) for k in item} if isinstance(item, dict | list) else {str(item)}
            else:
                found |= _auto_maps(item)
    elif isinstance(value, list):
        for item in value:
            found |= _auto_maps(item)
    return found
