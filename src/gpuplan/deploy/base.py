"""The one interface every launch-file generator implements, and the files it returns.

A generator is a pure function of a :class:`~gpuplan.deploy.spec.LaunchSpec` and a few options: it
returns the files (relative path, text, executable bit) and never touches the disk itself, so tests
can inspect its output and :func:`gpuplan.deploy.write_files` owns the one place that writes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal, Protocol

from gpuplan.deploy.grammar import check_image, check_object_name
from gpuplan.deploy.runs import RUN_ID, new_run_id
from gpuplan.errors import DeployError, Phrase
from gpuplan.i18n.messages import N_, _

if TYPE_CHECKING:
    from gpuplan.deploy.spec import LaunchSpec

__all__ = [
    "FULL_STEPS",
    "OPTION_FIELDS",
    "OPTION_FLAGS",
    "GenerateOptions",
    "GeneratedFile",
    "Generator",
    "bullets",
    "check_out_dir",
    "commented",
    "double_quoted",
    "headed",
    "parse_steps",
]

#: Most optimizer steps a launch may ask for (a year of 1-ms steps is 3 x 10^10; no job gets near).
MAX_STEPS = 10**10
#: ``--steps full``: the workload's whole run, also for a stand-in model.
FULL_STEPS: Literal["full"] = "full"


def _step_count(steps: object) -> bool:
    """A step count a launch may ask for (not a bool: JSON's true is not 1 step)."""
    return isinstance(steps, int) and not isinstance(steps, bool) and 1 <= steps <= MAX_STEPS


def parse_steps(text: str, option: str = "--steps") -> int | Literal["full"]:
    """``--steps`` as typed: a whole number of steps, or ``full``; else DeployError in one line."""
    word = text.strip().lower()
    if word == FULL_STEPS:
        return FULL_STEPS
    if word.isascii() and word.isdigit() and _step_count(int(word)):
        return int(word)
    raise DeployError.worded(
        N_("{option} must be a whole number from 1 to {limit:,}, or full (got {steps!r})"),
        option=option,
        limit=MAX_STEPS,
        steps=text[:40],
    )


@dataclass(frozen=True, kw_only=True)
class GeneratedFile:
    """One file of a generated launch directory."""

    path: str
    """Path relative to the output directory, with ``/`` separators (``k8s/job.yaml``)."""
    content: str
    executable: bool = False
    """Set the executable bits (shell launchers)."""
    source: str | None = None
    """The user's file this one is a copy of (absolute path), None for generated text: the manifest
    of what deploy copies, shown before anything is written."""


def commented(text: str) -> str:
    """Each line of ``text`` as a ``#`` comment line (shell, Dockerfile and YAML write them alike):
    a translated comment of several lines stays a comment on every line."""
    return "".join(f"# {line}\n".replace("# \n", "#\n") for line in text.splitlines())


def double_quoted(message: str, **shell: str) -> str:
    """``message`` (translated: a generated script's messages are in the deploy's language, as its
    comments are) inside a double-quoted shell string: its own ``$ ` \\ "`` escaped, then each
    ``{name}`` replaced by the shell expression ``shell[name]`` (expanded when it prints)."""
    escaped = "".join(f"\\{c}" if c in '$`\\"' else c for c in message)
    return escaped.format(**shell)


def headed(heading: str, text: str) -> str:
    """A README point: ``text`` after its ``heading`` in bold (both translated); "" where ``text`` is
    "" (a point that does not apply)."""
    return _("**{heading}:** {text}").format(heading=heading, text=text) if text else ""


def bullets(points: list[str]) -> str:
    """README points as a Markdown list, one point an item (an empty point left out): a README's
    notes read as short points, not one paragraph of a dozen sentences."""
    return "\n".join(f"- {p}" for p in points if p)


def check_out_dir(out_dir: str, what: str | Phrase | None = None) -> None:
    """The folder the files go to (SkyPilot's ``workdir``, which it uploads whole): absolute and
    written in its shortest form, so that what the task names is what the user sees — not "/" (the
    whole file system), not ``/a/../../etc`` (``/etc``: a ``..`` climbs out of the folder it names).
    A trailing "/" is allowed. ``what`` names it in the message (the service's field ``workdir``)."""
    what = Phrase(N_("the output folder")) if what is None else what
    path = Path(out_dir)
    shown = out_dir[:200]
    if not path.is_absolute():
        raise DeployError.worded(N_("{what} must be an absolute path (got {path!r})"), what=what, path=shown)
    if path.parent == path:
        raise DeployError.worded(
            N_("{what} {path!r} is the root of the file system; name a folder for the files"),
            what=what,
            path=shown,
        )
    normal = os.path.normpath(out_dir)
    # POSIX keeps a leading "//" (implementation-defined): refused as a repeated "/" too.
    if ".." in path.parts or out_dir.startswith("//") or normal != out_dir.rstrip("/"):
        raise DeployError.worded(
            N_("{what} {path!r} must be written without '.', '..' or repeated '/' (as {normal!r})"),
            what=what,
            path=shown,
            normal=normal[:200],
        )


#: The options of :class:`GenerateOptions` as ``gpuplan deploy`` names them (the output folder is
#: named in words: ``--out`` may be relative, the folder it names is what the message is about).
OPTION_FLAGS: Mapping[str, str] = MappingProxyType(
    {
        "image": "--image",
        "base_image": "--base-image",
        "steps": "--steps",
        "model_cache_pvc": "--model-cache-pvc",
    }
)
#: The same options as the service's deploy request names them (``POST /api/v1/deploy``).
OPTION_FIELDS: Mapping[str, str] = MappingProxyType(
    {"image": "image", "base_image": "base_image", "steps": "steps", "out_dir": "workdir"}
)


@dataclass(frozen=True, kw_only=True)
class GenerateOptions:
    """Choices that are not in the plan: how the user wants the job packaged."""

    autoscaler: Literal["hpa", "keda"] = "hpa"
    """Kubernetes inference autoscaling: an HPA on a prometheus-adapter metric, or a KEDA ScaledObject."""
    image: str | None = None
    """A container image the user built (``docker`` target) for Kubernetes to run; None = the stock
    PyTorch image with train.py mounted from a ConfigMap."""
    base_image: str | None = None
    """Container base image instead of the one chosen for the GPU (``docker``, ``k8s``)."""
    steps: int | Literal["full"] | None = None
    """Optimizer steps to train for: a count; ``"full"``, the workload's samples x epochs ÷ global
    batch (else 1000); None, that for the user's own model, and for a stand-in model a short check
    (``gpuplan.deploy.torchrun.STAND_IN_CHECK_STEPS``): a stand-in trained for the plan's whole
    run on synthetic data buys nothing."""
    out_dir: str | None = None
    """The absolute path the files will be written to. SkyPilot needs it: it reads a relative
    ``workdir`` from the folder ``sky`` is run in (its docs, "Syncing Code, Git, and Files"), so
    ``workdir: .`` would upload whatever folder that is."""

    model_cache_pvc: str | None = None
    """Kubernetes: an existing PersistentVolumeClaim that holds a serving or batch engine's model
    cache (ReadWriteMany where pods on several nodes mount it), so a pod that starts again finds the
    weights downloaded; None = an emptyDir, downloaded again by every pod that starts."""

    run_id: str = field(default_factory=new_run_id)
    """This deploy's run (:mod:`gpuplan.deploy.runs`): the storage the run checkpoints to and resumes
    from is named with it (SkyPilot's bucket, the Kubernetes PVC), so that a new deploy never
    resumes an older run's checkpoints. Made when the options are; give one to write a run's
    files again."""

    names: Mapping[str, str] = field(default_factory=lambda: OPTION_FLAGS)
    """What the messages call each option: the CLI's flags (:data:`OPTION_FLAGS`), or the service's
    request fields (:data:`OPTION_FIELDS`)."""

    def __post_init__(self) -> None:
        # Both images reach a Dockerfile FROM line and manifests: a strict reference grammar.
        check_image(self.image, self.names["image"])
        check_image(self.base_image, self.names["base_image"])
        check_object_name(self.model_cache_pvc, self.names.get("model_cache_pvc", "model_cache_pvc"))
        if self.out_dir is not None:
            check_out_dir(self.out_dir, self.names.get("out_dir"))
        if not (isinstance(self.run_id, str) and RUN_ID.fullmatch(self.run_id)):
            raise DeployError.worded(
                N_("run id {run_id!r} is not a date and 6 hex digits (20261206-3fa9c1)"),
                run_id=str(self.run_id)[:40],
            )
        if self.steps is not None and self.steps != FULL_STEPS and not _step_count(self.steps):
            raise DeployError.worded(
                N_("{option} must be a whole number from 1 to {limit:,}, or full (got {steps!r})"),
                option=self.names["steps"],
                limit=MAX_STEPS,
                steps=self.steps,
            )


class Generator(Protocol):
    """A deploy target: ``gpuplan deploy --target <name>``."""

    name: str
    """The target name users type (``torchrun``, ``k8s`` …); unique in the registry."""
    summary: str
    """One line for ``--help``: what the target writes."""
    copies_user_package: bool
    """Whether the target copies the package of a workload's ``model.python`` into its folder
    (``--project DIR``); one that does not leaves it to the user to install on the machines."""

    def generate(self, spec: LaunchSpec, options: GenerateOptions) -> list[GeneratedFile]:
        """The files of a runnable launch directory, README.md included. Raises DeployError when the
        spec cannot be launched this way (a provider the target does not support …)."""
        ...
