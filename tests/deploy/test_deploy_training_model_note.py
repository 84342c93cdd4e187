"""Every target that runs train.py says what it trains: the workload's own model, or a stand-in
said as such (the torchrun README had said it; the k8s, docker and skypilot ones of the same plan
had not, and their train.py trained a small random model of the same kind without a word)."""

from __future__ import annotations

import pytest
from deploy_helpers import by_path, k8s_options, plan_doc

from gpuplan.deploy import GenerateOptions, LaunchSpec, generate
from gpuplan.i18n import use_language

STAND_IN = "trains a small stand-in of the same kind on seeded synthetic data"


@pytest.mark.parametrize("target", ["torchrun", "docker", "k8s", "skypilot"])
def test_the_readme_says_train_py_trains_a_stand_in_of_a_preset(target: str) -> None:
    spec = LaunchSpec.from_plan(plan_doc())
    assert spec.model_entry_point is None  # a preset: train.py cannot rebuild it
    options = k8s_options(spec, GenerateOptions(out_dir="/srv/launch"))
    readme = " ".join(by_path(generate(spec, target, options))["README.md"].split())
    assert STAND_IN in readme and spec.model_source in readme, readme
    with use_language("zh"):
        zh = by_path(generate(spec, target, options))["README.md"]
    assert STAND_IN not in zh and "合成数据" in zh
