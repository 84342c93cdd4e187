"""The deploy-target registry is explicit, complete and unique."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import gpuplan.deploy
from gpuplan.deploy import GENERATORS, GenerateOptions, LaunchSpec, generate, get_generator, target_names
from gpuplan.errors import NotFoundError


def _generator_classes() -> set[type]:
    """Every class in gpuplan.deploy that looks like a Generator (name, summary, generate)."""
    found = set()
    for info in pkgutil.walk_packages(gpuplan.deploy.__path__, "gpuplan.deploy."):
        if info.name.startswith("gpuplan.deploy.templates"):
            continue  # the templates need torch and are never imported
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__ and all(
                hasattr(cls, a) for a in ("name", "summary", "generate")
            ):
                found.add(cls)
    return found


def test_registry_holds_every_generator_class_once() -> None:
    registered = [type(g) for g in GENERATORS]
    assert len(registered) == len(set(registered))
    assert set(registered) == _generator_classes()


def test_target_names_are_unique_and_the_documented_four() -> None:
    assert target_names() == ["torchrun", "docker", "k8s", "skypilot"]
    assert len(set(target_names())) == len(GENERATORS)
    for g in GENERATORS:
        assert g.summary and get_generator(g.name) is g


def test_unknown_target_suggests_the_nearest() -> None:
    with pytest.raises(NotFoundError, match=r"unknown deploy target 'kubernets'.*did you mean"):
        get_generator("kubernets")
    with pytest.raises(NotFoundError, match="did you mean 'skypilot'"):
        get_generator("skypiolt")


def test_a_near_alias_is_suggested_as_the_target_the_list_names() -> None:
    # was: "did you mean 'skypilot' or 'sky'? (one of torchrun, docker, k8s, skypilot)"
    with pytest.raises(NotFoundError) as info:
        get_generator("skypiot")
    said = str(info.value)
    listed = "(one of torchrun, docker, k8s, skypilot)"
    assert said == f"unknown deploy target 'skypiot'; did you mean 'skypilot'? {listed}", said
    with pytest.raises(NotFoundError) as info:
        get_generator("kubernets")
    assert info.value.suggestions == ["k8s"], str(info.value)
    assert get_generator("sky") is get_generator("skypilot")  # the alias is still accepted


def test_every_target_writes_a_readme(spot_plan: LaunchSpec) -> None:
    for name in target_names():
        paths = [f.path for f in generate(spot_plan, name, GenerateOptions(out_dir="/srv/launch"))]
        assert "README.md" in paths and len(paths) == len(set(paths)), name
