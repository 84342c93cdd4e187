"""Launch files from a plan: torchrun, Docker, Kubernetes and SkyPilot.

spec = LaunchSpec.from_plan_json("plan.json")           # or LaunchSpec.from_workload("job.yaml", gpu="A100")
files = generate(spec, "k8s", GenerateOptions())        # pure: a list of GeneratedFile
write_files(files, "deploy/", force=False)              # the only step that writes
"""

from __future__ import annotations

from gpuplan.catalog.providers import PROVIDERS
from gpuplan.deploy.base import GeneratedFile, GenerateOptions, Generator
from gpuplan.deploy.instead import instead
from gpuplan.deploy.output import write_files
from gpuplan.deploy.registry import GENERATORS, get_generator, target_names
from gpuplan.deploy.spec import PLAN_SCHEMA_VERSION, LaunchSpec, ServingDeployment, refuse_without_kubernetes
from gpuplan.errors import DeployError
from gpuplan.i18n.messages import N_

#: The targets that write a batch inference job (the others refuse one).
BATCH_TARGETS = ("docker", "k8s", "skypilot")

__all__ = [
    "BATCH_TARGETS",
    "GENERATORS",
    "PLAN_SCHEMA_VERSION",
    "GenerateOptions",
    "GeneratedFile",
    "Generator",
    "LaunchSpec",
    "ServingDeployment",
    "generate",
    "get_generator",
    "load_spec",
    "target_names",
    "write_files",
]


def generate(spec: LaunchSpec, target: str, options: GenerateOptions | None = None) -> list[GeneratedFile]:
    """The files of ``target`` for ``spec`` (nothing is written).

    A batch inference workload (``task: infer`` without a ``serving:`` block) is a job that goes
    through its inputs once and exits: the targets of :data:`BATCH_TARGETS` write one, the others
    refuse it (a service target would write replicas that run until someone deletes them, a
    training target a training loop)."""
    generator = get_generator(target)
    if spec.batch_inference and generator.name not in BATCH_TARGETS:
        raise DeployError.worded(
            N_(
                "{name} is batch inference (task: infer without a serving: block): --target {target} "
                "writes training jobs and always-on services, not a job that runs once and exits: "
                "{instead}; or add a serving: block to the workload for a service"
            ),
            name=spec.name,
            target=generator.name,
            instead=instead(spec, generator.name, options),
        )
    options = options or GenerateOptions()
    if options.steps is not None and spec.task == "infer":
        # Nothing of an inference deploy counts training steps: the option would be dropped unsaid.
        raise DeployError.worded(
            N_(
                "{option} sets how long train.py trains; {name} is inference, which it does not change: "
                "leave it out"
            ),
            option=options.names["steps"],
            name=spec.name,
        )
    return generator.generate(spec, options)


def load_spec(
    path: str,
    *,
    gpu: str | None = None,
    count: int = 1,
    nodes: int = 1,
    provider: str | None = None,
    region: str | None = None,
    pricing: str = "on_demand",
    instance_type: str | None = None,
    project: str | None = None,
    managed_kubernetes: bool = False,
) -> LaunchSpec:
    """A LaunchSpec from a plan file (``.json``) or a workload file (anything else: YAML).

    The GPU options apply to a workload file only (``count`` GPUs per node on ``nodes`` nodes, of
    ``instance_type`` where the caller knows it); a plan already says where to run. ``project``
    (``--project DIR``) is the folder the user's package may be copied from; without it, the
    file's own folder (see ``gpuplan.confine``). ``managed_kubernetes`` (``--target k8s`` without
    a cluster of the user's own): a plan's best option on a provider with a managed Kubernetes
    service; a workload's ``provider`` without one is refused.
    """
    if path.endswith(".json"):
        return LaunchSpec.from_plan_json(path, project=project, managed_kubernetes=managed_kubernetes)
    if managed_kubernetes and provider is not None:
        refuse_without_kubernetes(PROVIDERS.cast(provider))
    return LaunchSpec.from_workload(
        path,
        gpu=gpu,
        count=count,
        nodes=nodes,
        provider=provider,
        region=region,
        pricing=pricing,
        instance_type=instance_type,
        project=project,
    )
