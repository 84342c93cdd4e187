"""The explicit registry of deploy targets: one entry per Generator, in the order ``--help`` shows."""

from __future__ import annotations

from gpuplan.deploy.base import Generator
from gpuplan.deploy.docker import DockerGenerator
from gpuplan.deploy.k8s import KubernetesGenerator
from gpuplan.deploy.skypilot import SkyPilotGenerator
from gpuplan.deploy.torchrun import TorchrunGenerator
from gpuplan.errors import NotFoundError, Phrase, closest
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import listed

__all__ = ["ALIASES", "GENERATORS", "get_generator", "target_names"]

GENERATORS: tuple[Generator, ...] = (
    TorchrunGenerator(),
    DockerGenerator(),
    KubernetesGenerator(),
    SkyPilotGenerator(),
)


#: Other names people type for a target; accepted, and near misses of them answered with the
#: target's own name in "did you mean" (the one the list after it names).
ALIASES = {"kubernetes": "k8s", "kube": "k8s", "sky": "skypilot", "container": "docker"}


def target_names() -> list[str]:
    return [g.name for g in GENERATORS]


def get_generator(name: str) -> Generator:
    """The generator for target ``name``; NotFoundError with "did you mean" otherwise."""
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    for g in GENERATORS:
        if g.name == key:
            return g
    known = [*target_names(), *ALIASES]
    # each near name as the target it is, once: "skypiot" had been asked "did you mean 'skypilot' or
    # 'sky'?" and then told the targets are "torchrun, docker, k8s, skypilot"
    near = list(dict.fromkeys(ALIASES.get(n, n) for n in closest(name, known)))
    if near:
        hint = Phrase(N_("one of {targets}"), targets=listed(target_names()))
        raise NotFoundError("deploy target", name, known, hint=hint, suggestions=near)
    raise NotFoundError("deploy target", name, target_names())  # lists the targets itself
