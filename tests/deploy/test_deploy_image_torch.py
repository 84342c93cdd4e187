"""A training deploy's Docker and Kubernetes READMEs say which torch the job's image holds beside
the one gpuplan's estimate was traced under, as SkyPilot's says it of its setup."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from deploy_helpers import by_path, plan_doc

from gpuplan.deploy import GenerateOptions, LaunchSpec, generate
from gpuplan.deploy.images import ESTIMATOR_TORCH, base_image_for


def _spec(tmp_path: Path) -> LaunchSpec:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan_doc()))
    return LaunchSpec.from_plan_json(path)


@pytest.mark.parametrize("target", ["docker", "k8s"])
def test_the_readme_names_the_image_torch_and_the_traced_one(tmp_path: Path, target: str) -> None:
    spec = _spec(tmp_path)
    assert spec.task == "train"
    own = base_image_for(spec.gpu_info)
    readme = by_path(generate(spec, target, GenerateOptions(out_dir="/srv/launch")))["README.md"]
    assert f"PyTorch: the image (`{own.image}`) holds torch {own.torch}" in readme
    assert f"traced under torch {ESTIMATOR_TORCH}" in readme


@pytest.mark.parametrize(("target", "option"), [("docker", "base_image"), ("k8s", "image")])
def test_an_image_of_the_users_is_one_whose_release_gpuplan_does_not_read(
    tmp_path: Path, target: str, option: str
) -> None:
    options = GenerateOptions(out_dir="/srv/launch", **{option: "me/torch:mine"})
    readme = by_path(generate(_spec(tmp_path), target, options))["README.md"]
    assert "the torch that `me/torch:mine` holds, a release gpuplan does not read" in readme
    assert f"traced under torch {ESTIMATOR_TORCH}" in readme
