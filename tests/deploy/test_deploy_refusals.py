"""A target's refusal names only targets that write the same launch: ``--target skypilot`` on a
serving plan of a provider SkyPilot has no cloud for named torchrun, which refuses a service in turn."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from deploy_helpers import FIXTURES, plan_doc

from gpuplan.deploy import LaunchSpec, generate, target_names
from gpuplan.deploy.base import GenerateOptions
from gpuplan.errors import DeployError

#: What the command gives every target: the folder the files go to (SkyPilot's workdir needs it).
AS_THE_COMMAND = GenerateOptions(out_dir="/launch")


def _serving(provider: str) -> LaunchSpec:
    doc = json.loads((FIXTURES / "plan_serve_llama_aws.json").read_text())
    doc["recommended"].update(provider=provider, region="unspecified", kubernetes=None)
    return LaunchSpec.from_plan(doc)


def _batch(provider: str) -> LaunchSpec:
    doc = json.loads((FIXTURES / "plan_serve_llama_aws.json").read_text())
    doc["recommended"].update(provider=provider, region="unspecified", kubernetes=None)
    doc["workload"]["serving"] = None
    return LaunchSpec.from_plan(doc)


SPECS = {
    "training on aws": lambda: LaunchSpec.from_plan(plan_doc()),
    "training on alibaba": lambda: LaunchSpec.from_plan(plan_doc(provider="alibaba", region="cn-beijing")),
    "engine service on aws": lambda: _serving("aws"),
    "engine service on alibaba": lambda: _serving("alibaba"),
    "serve.py service": lambda: LaunchSpec.from_workload(FIXTURES / "serve.yaml", gpu="T4", provider="gcp"),
    "serve.py service on alibaba": lambda: LaunchSpec.from_workload(
        FIXTURES / "serve.yaml", gpu="T4", provider="alibaba"
    ),
    "batch job on aws": lambda: _batch("aws"),
    "batch job on alibaba": lambda: _batch("alibaba"),
}


@pytest.mark.parametrize("target", target_names())
@pytest.mark.parametrize("case", sorted(SPECS))
def test_every_target_a_refusal_names_writes_the_launch(case: str, target: str, tmp_path: Path) -> None:
    spec = SPECS[case]()
    try:
        generate(spec, target)
    except DeployError as e:
        named = set(re.findall(r"--target (\w+)", str(e))) - {target}
        for other in named:
            generate(spec, other, AS_THE_COMMAND)  # refuses nothing: the refusal of `target` named it
        if "use --target" not in str(e):
            return
        assert named, str(e)


def test_skypilot_refusing_a_service_on_alibaba_names_k8s_and_docker_not_torchrun() -> None:
    with pytest.raises(DeployError) as e:
        generate(_serving("alibaba"), "skypilot")
    assert str(e.value).endswith("use --target docker or --target k8s"), str(e.value)


def test_a_refusal_that_no_other_target_would_write_says_so() -> None:
    from gpuplan.deploy.instead import instead

    spec = _serving("alibaba")
    assert "--target docker" in str(instead(spec, "torchrun"))


def test_a_service_on_a_provider_you_declared_is_offered_docker_not_torchrun(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # torchrun writes no service: the refusal named it beside docker
    import gpuplan.deploy.spec as spec_module

    monkeypatch.setattr(spec_module, "declared_provider", lambda provider: True)
    for spec, offered in ((_serving("aws"), "use --target docker on"), (SPECS["training on aws"](), None)):
        with pytest.raises(DeployError) as e:
            spec_module.refuse_declared_provider(spec.provider, "skypilot", spec)
        named = set(re.findall(r"--target (\w+)", str(e.value))) - {"skypilot"}
        for other in named:
            generate(spec, other, AS_THE_COMMAND)
        if offered:
            assert offered in str(e.value), str(e.value)
        else:
            assert named == {"torchrun", "docker"}, str(e.value)


@pytest.mark.parametrize("serving", [True, False])
def test_a_plan_on_no_managed_kubernetes_names_the_targets_that_write_it(serving: bool) -> None:
    # was: "use --target skypilot, docker or torchrun" whatever the plan, torchrun for a service too
    if serving:
        doc = json.loads((FIXTURES / "plan_serve_llama_aws.json").read_text())
        doc["recommended"].update(provider="runpod", kubernetes=None)
    else:
        doc = plan_doc(provider="runpod")
    doc.pop("options", None)
    doc.pop("personas", None)
    with pytest.raises(DeployError) as e:
        LaunchSpec.from_plan(doc, managed_kubernetes=True)
    line = str(e.value)
    named = set(re.findall(r"--target (\w+)", line)) - {"k8s"}
    assert named and ("torchrun" in named) != serving, line
    spec = LaunchSpec.from_plan(doc)
    for other in named:
        generate(spec, other, AS_THE_COMMAND)
