"""What a target's refusal offers instead: the other targets that write this launch.

A refusal that names targets by hand goes stale as the targets change: ``--target skypilot`` on a
serving plan of a provider SkyPilot has no cloud for named torchrun, which refuses a service in turn.
So a refusal asks :func:`instead`, which tries every other target on the same spec and names only
those that write it (a probe's own refusals are not worded with targets: no probe runs inside one).
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING

from gpuplan.errors import GpuplanError, Phrase
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import either

if TYPE_CHECKING:
    from gpuplan.deploy.base import GenerateOptions
    from gpuplan.deploy.spec import LaunchSpec

__all__ = ["accepting_targets", "instead"]

#: Set while :func:`accepting_targets` tries the targets: a refusal inside a try is not shown, so it
#: tries none of its own (which would try the first one's again, without end).
_TRYING: ContextVar[bool] = ContextVar("gpuplan_deploy_trying_targets", default=False)


def accepting_targets(spec: LaunchSpec, but: str, options: GenerateOptions | None = None) -> list[str]:
    """The targets other than ``but`` that write ``spec`` (their ``generate`` refuses nothing), in
    the registry's order; [] inside such a try."""
    if _TRYING.get():
        return []
    from dataclasses import replace

    from gpuplan.deploy import GENERATORS, generate
    from gpuplan.deploy.base import GenerateOptions

    # A folder the files would be written to, where the caller gave none (a library call): the
    # targets that need one (SkyPilot's workdir) refuse for its lack, not for the launch; nothing is
    # written in a try.
    tried = options or GenerateOptions()
    if tried.out_dir is None:
        tried = replace(tried, out_dir="/launch")
    token = _TRYING.set(True)
    try:
        found = []
        for generator in GENERATORS:
            if generator.name == but:
                continue
            try:
                generate(spec, generator.name, tried)
            except GpuplanError:
                continue  # that target refuses this launch too (in one line of its own)
            found.append(generator.name)
        return found
    finally:
        _TRYING.reset(token)


def instead(spec: LaunchSpec, but: str, options: GenerateOptions | None = None) -> Phrase:
    """The end of ``but``'s refusal of ``spec``: "use --target k8s or --target docker", the targets
    that write it, or that none does."""
    targets = accepting_targets(spec, but, options)
    if not targets:
        return Phrase(N_("no other deploy target writes it either"))
    return Phrase(N_("use {targets}"), targets=either([f"--target {t}" for t in targets]))
