"""The explicit registry of deploy targets: one entry per Generator, in the order ``--help`` shows."""

from __future__ import annotations

from gpuplan.deploy.base import Generator
from gpuplan.deploy.docker import DockerGenerator
from gpuplan.deploy.k8s import KubernetesGenerator
from gpuplan.deploy.skypilot import SkyPilotGenerator
from gpuplan.deploy.torchrun import TorchrunGenerator
from gpuplan.errors import NotFoundError

__all__ = ["GENERATORS", "get_generator", "target_names"]

GENERATORS: tuple[Generator, ...] = (
    TorchrunGenerator(),
    DockerGenerator(),
    KubernetesGenerator(),
    SkyPilotGenerator(),
)


def target_names() -> list[str]:
    return [g.name for g in GENERATORS]


def get_generator(name: str) -> Generator:
    """The generator for target ``name``; NotFoundError with "did you mean" otherwise."""
    key = name.strip().lower()
    for g in GENERATORS:
        if g.name == key:
            return g
    raise NotFoundError("deploy target", name, target_names(), hint=f"one of {', '.join(target_names())}")
