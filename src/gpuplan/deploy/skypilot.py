"""``--target skypilot``: a SkyPilot task YAML (``sky launch`` / ``sky jobs launch`` for managed spot;
``sky serve up`` for a serving engine's service, :mod:`gpuplan.deploy.skyserve`).

Field names and values follow SkyPilot 0.14.1's own JSON schema (``sky.utils.schemas``:
``get_task_schema``, ``get_resources_schema`` and, for a service, ``get_service_schema``), which the
tests validate against for every cloud of the provider registry. Where the job runs is
``resources.infra: <cloud>[/<region>]``, the form SkyPilot's YAML reference documents
("``resources.infra``: ``<cloud>/<region>/<zone>`` (region and zone are optional)",
docs/source/reference/yaml-spec.rst); ``cloud`` is the provider module's ``skypilot_cloud``, one of
SkyPilot's ``ALL_CLOUDS`` (``sky/skylet/constants.py``). A batch inference plan is a managed job
of batch.py shards over a bucket, vllm_batch.py's on vLLM's image for an LLM with Hub weights
(:mod:`gpuplan.deploy.skypilot_batch`). In 0.14.1 spot recovery is
``resources.job_recovery`` (``strategy``, ``max_restarts_on_errors``, ``recover_on_exit_codes``);
the older ``spot_recovery`` is no longer in the schema. SkyPilot sets ``SKYPILOT_NODE_RANK``,
``SKYPILOT_NODE_IPS`` (one IP per line, head node first) and ``SKYPILOT_NUM_GPUS_PER_NODE`` on every
node (``sky/skylet/constants.py``).
"""

from __future__ import annotations

import shlex
from typing import Any

from gpuplan.catalog.providers import PROVIDERS, facts
from gpuplan.deploy.base import GeneratedFile, GenerateOptions
from gpuplan.deploy.checkpoints import DATASET_DIR, DATASET_ENV, dataset_example, skypilot_dataset_source
from gpuplan.deploy.engine import ENGINE_PORT, EngineLaunch, batch_engine_launch, engine_launch
from gpuplan.deploy.fabric import (
    fabric,
    fabric_warning,
    fallback,
    given_rdma_note,
    rdma_network,
    skypilot_network_tier,
)
from gpuplan.deploy.grammar import vm_type
from gpuplan.deploy.images import ESTIMATOR_TORCH, base_image_for, setup_torch_words
from gpuplan.deploy.instead import instead
from gpuplan.deploy.nccl_topology import topology_readme_note
from gpuplan.deploy.runs import bucket_name
from gpuplan.deploy.skypilot_batch import batch_readme, batch_task, skyignore
from gpuplan.deploy.skypilot_names import catalog_names, skypilot_accelerator
from gpuplan.deploy.skyserve import (
    fallback_words,
    policy_words,
    refuse_shared_gpus,
    replica_gpus,
    replica_policy,
    schedule_words,
    service_section,
)
from gpuplan.deploy.spec import LaunchSpec, max_replicas_words, weights_dtype_words
from gpuplan.deploy.torchrun import entry_point_files, serving_note, training_model_note
from gpuplan.deploy.user_package import (
    PROJECT_DIR,
    TASK_YAML,
    TORCH_CONSTRAINTS,
    UserPackage,
    install_words,
    pin_torch,
    shipped_package,
    user_package,
)
from gpuplan.deploy.yamlout import dump_documents
from gpuplan.errors import DeployError
from gpuplan.hardware import get_gpu
from gpuplan.i18n.messages import N_, _
from gpuplan.i18n.phrases import item_list, listed, sentences

__all__ = ["SkyPilotGenerator", "checkpoint_bucket", "infra", "skypilot_clouds", "task_yaml"]


def skypilot_clouds() -> dict[str, str]:
    """gpuplan providers that are SkyPilot clouds -> SkyPilot's name, from each provider module's
    ``FACTS.skypilot_cloud`` (None where SkyPilot 0.14.1 has no cloud for the provider: Alibaba,
    Tencent, Huawei, Volcano Engine)."""
    return {p: c for p in PROVIDERS if (c := facts(p).skypilot_cloud)}


#: The SkyPilot clouds whose object store SkyPilot creates a bucket in (its ``StoreType``: S3, GCS,
#: AZURE, R2, IBM, OCI, NEBIUS; skypilot-org/skypilot, sky/data/storage.py, read 2026-12-08; R2 and
#: IBM are stores of no cloud gpuplan plans on). A bucket named with no ``store:`` goes to the store
#: of an enabled cloud; a task on another cloud (Lambda, RunPod, Vast.ai …) needs one enabled.
_CLOUDS_WITH_A_STORE = frozenset({"aws", "gcp", "azure", "oci", "nebius"})


def bucket_store_words(spec: LaunchSpec) -> str:
    """The README's sentence on where a run's bucket is made, for a task on a cloud SkyPilot manages
    no object store of; "" on one it does (or with no provider: SkyPilot picks the cloud)."""
    cloud = skypilot_clouds().get(spec.provider or "")
    if cloud is None or cloud in _CLOUDS_WITH_A_STORE:
        return ""
    return _(
        "{provider} has no object store SkyPilot makes buckets in, so the checkpoints' bucket is made "
        "in the store of another cloud that `sky check` enables (S3, GCS, Azure Blob, Cloudflare R2, "
        'OCI or Nebius): enable one too (e.g. `pip install "skypilot[{cloud},aws]"` with your AWS '
        "credentials), or `sky jobs launch` fails to create it. That store's storage, and the "
        "checkpoints written to it across clouds, are billed by that cloud: the plan did not price them."
    ).format(provider=spec.provider, cloud=cloud)


def infra(spec: LaunchSpec) -> str | None:
    """``resources.infra`` for ``spec``: ``<cloud>/<region>`` (``<cloud>`` alone without a region),
    None when the spec names no provider (SkyPilot then picks the cheapest cloud). A provider SkyPilot
    has no cloud for is refused in one line naming the clouds and the targets that work."""
    if spec.provider is None:
        return None
    clouds = skypilot_clouds()
    cloud = clouds.get(spec.provider)
    if cloud is None:
        raise DeployError.worded(
            N_("SkyPilot has no {provider} cloud (of ours it supports {clouds}): {instead}"),
            provider=spec.provider,
            clouds=listed(clouds),
            instead=instead(spec, "skypilot"),
        )
    if not spec.region or not facts(spec.provider).skypilot_regions:
        return cloud  # SkyPilot picks the region (and, on Vast.ai, the host)
    if "/" in spec.region:
        # infra is <cloud>/<region>/<zone>: a slash inside the region would name another zone.
        raise DeployError.worded(
            N_("region {region!r} contains '/', which SkyPilot's infra field cannot carry"),
            region=spec.region,
        )
    return f"{cloud}/{spec.region}"


#: train.py exits with this after checkpointing on SIGTERM; recovering on it is not an error.
EXIT_PREEMPTED = 143

#: Genuine failures (a bug, an OOM) retried before the managed job gives up.
MAX_RESTARTS_ON_ERRORS = 3


def accelerator(spec: LaunchSpec) -> str:
    if spec.gpu is None:
        raise DeployError.worded(
            N_("SkyPilot needs a GPU type: pass --gpu (e.g. --gpu A100-80GB) or deploy a plan file")
        )
    # The name the catalog line of the priced offer gives the GPU on its cloud, else the name
    # common to every cloud (gpus.csv skypilot_name): gpuplan.deploy.skypilot_names.
    name = skypilot_accelerator(spec.gpu, spec.provider, spec.instance_type)
    if name is not None:
        return name
    named = catalog_names(spec.gpu)
    if spec.provider is None and named:
        raise DeployError.worded(
            N_(
                "SkyPilot's clouds name {gpu} differently ({names}): name the provider (--provider) or "
                "deploy a plan file"
            ),
            gpu=spec.gpu,
            names=listed([_("{name} on {provider}").format(name=n, provider=p) for p, n in named.items()]),
        )
    raise DeployError.worded(
        N_("no SkyPilot accelerator name is known for {gpu}: {instead}"),
        gpu=spec.gpu,
        instead=instead(spec, "skypilot"),
    )


def whole_instance(spec: LaunchSpec, gpus: int) -> bool:
    """Whether a replica of ``gpus`` GPUs, fewer than the priced instance has, takes that whole
    instance: the provider sells none of exactly ``gpus`` of the GPU (:attr:`LaunchSpec.
    sold_gpu_counts`; AWS sells the A100 80GB only as p4de.24xlarge's 8), or the catalog was not read
    — SkyPilot asked for ``A100-80GB:4`` on AWS finds no instance to launch. Every SkyServe replica
    is a cluster of its own (:mod:`gpuplan.deploy.skyserve`), so the instance is not shared."""
    if gpus >= spec.gpus_per_node or not spec.instance_type or spec.provider is None:
        return False
    sold = spec.sold_gpu_counts
    return sold is None or gpus not in sold


def _placed(spec: LaunchSpec, gpus: int | None = None) -> dict[str, Any]:
    """``resources``' where and what: infra, the priced instance, the accelerators, spot, disk.
    ``gpus``: the accelerators of one node, where not the plan's node (an engine replica); the
    priced instance is named where it carries that many, or where the provider sells no smaller
    one (:func:`whole_instance`: then with all its GPUs, of which the replica uses ``gpus``)."""
    gpus = spec.gpus_per_node if gpus is None else gpus
    if whole_instance(spec, gpus):
        gpus = spec.gpus_per_node
    resources: dict[str, Any] = {}
    where = infra(spec)
    if where is not None:
        resources["infra"] = where
        vm = vm_type(spec.instance_type) if spec.instance_type else None
        if vm and gpus == spec.gpus_per_node:
            # The instance the plan priced; SkyPilot checks it carries the accelerators below.
            resources["instance_type"] = vm
    resources["accelerators"] = f"{accelerator(spec)}:{gpus}"
    resources["use_spot"] = spec.spot
    resources["disk_size"] = spec.disk_size_gb
    return resources


def engine_task(spec: LaunchSpec, launch: EngineLaunch) -> dict[str, Any]:
    """The serving engine the plan priced as a SkyServe service (``sky serve up``): each replica a
    cluster of the replica's GPUs running the engine's official image as the VM's runtime
    (SkyPilot's ``image_id: docker:<image>``), its server started with the plan's settings; the
    ``service:`` section probes it and holds the replicas the plan priced (:mod:`.skyserve`)."""
    refuse_shared_gpus(spec)
    resources = _placed(spec, replica_gpus(spec))
    resources["ports"] = ENGINE_PORT
    resources["image_id"] = f"docker:{launch.image}"
    return {
        "name": spec.name,
        "service": service_section(replica_policy(spec), spot=spec.spot),
        "resources": resources,
        "num_nodes": 1,
        # given at launch (`sky serve up --secret HF_TOKEN`), never written here
        "secrets": {"HF_TOKEN": None},
        # shlex-quoted: every argument is one word whatever it holds
        "run": shlex.join(launch.argv) + "\n",
    }


def task_yaml(spec: LaunchSpec, options: GenerateOptions, package: UserPackage | None) -> dict[str, Any]:
    """The task as a dict, in the order SkyPilot's docs present the fields; ``package`` is the user's
    package copied into the folder (``user_package(spec)``). A decoder LLM's service: the serving
    engine (:func:`engine_task`)."""
    launch = engine_launch(spec)
    if launch is not None:
        return engine_task(spec, launch)
    if spec.task == "infer" and not spec.batch_inference:
        raise DeployError.worded(
            N_(
                "the skypilot target writes training tasks and the services of serving engines, not "
                "serve.py's service of this model: {instead}"
            ),
            instead=instead(spec, "skypilot", options),
        )
    resources = _placed(spec)
    if spec.batch_inference:
        # A managed job whether spot or not: it ends, and its nodes go, once every shard is done;
        # a shard that fails is run again (the chunks written are kept). No network_tier: the
        # shards never talk to each other.
        resources["job_recovery"] = _job_recovery(spec)
        batch_launch = batch_engine_launch(spec)
        if batch_launch is not None:
            # An LLM with Hub weights: vLLM's image as the nodes' runtime (setup and run happen in
            # it), as the service of the model gets it; vllm_batch.py needs nothing more.
            resources["image_id"] = f"docker:{batch_launch.image}"
            return batch_task(spec, resources, None, _workdir(options), batch_launch, run_id=options.run_id)
        return batch_task(
            spec,
            resources,
            "set -e\n" + _torch_setup(spec) + _package_setup(package),
            _workdir(options),
            run_id=options.run_id,
        )
    if rdma_network(spec) is not None:
        # The plan's time assumes the instance's RDMA network (EFA) between nodes. SkyPilot's
        # `network_tier: best` attaches EFA where the instance has it and boots AWS's Deep Learning
        # Base GPU AMI, which holds the EFA drivers and NCCL plugin (SkyPilot examples/aws_efa,
        # "Using EFA on AWS VM"; sky/clouds/aws.py make_deploy_resources_variables). A string in
        # 0.14.1's resources schema.
        resources["network_tier"] = "best"
    elif skypilot_network_tier(spec) is not None:
        # Google Cloud's GPUDirect-TCPX on a3-highgpu-8g, which the plan's time assumes: SkyPilot's
        # `network_tier: best` sets it up on GCP VMs as its `gcp: enable_gpu_direct` does (see
        # GpuNetworkSetup.skypilot_best in catalog/providers/gcp.py: the extra VPCs, the COS image
        # with the TCPX plugin, compact placement; sky/clouds/gcp.py at
        # 005261080a6b8102f3d95ff2147a855250f40272, since SkyPilot 0.10.0).
        resources["network_tier"] = "best"
    if spec.spot:
        resources["job_recovery"] = _job_recovery(spec)
    workdir = _workdir(options)
    run = (
        "set -euo pipefail\n"
        "export CKPT_DIR=/checkpoints\n"
        "export NPROC_PER_NODE=$SKYPILOT_NUM_GPUS_PER_NODE\n"
        "export NODE_RANK=$SKYPILOT_NODE_RANK\n"
        "# SKYPILOT_NODE_IPS lists one IP per line, head node first: it hosts the rendezvous.\n"
        # assigned, then exported: `export X=$(…)` would hide the command's status (shellcheck SC2155)
        'MASTER_ADDR=$(echo "$SKYPILOT_NODE_IPS" | head -n1)\n'
        "export MASTER_ADDR\n"
        "bash launch.sh\n"
    )
    net = fabric(spec)
    env: dict[str, str | None] = dict(net.env) if net is not None else {}  # libfabric settings on every node
    mounts: dict[str, Any] = {}
    if (source := skypilot_dataset_source(spec)) is not None:
        # The dataset, from the bucket it is kept in, onto every node's disk each time SkyPilot
        # starts the nodes (a managed job's recovery on new nodes too): the set-up copy the plan
        # priced. The bucket is the user's, required at launch (a null value: SkyPilot refuses to
        # launch without it).
        env[DATASET_ENV] = None
        mounts[DATASET_DIR] = {"source": source, "mode": "COPY"}
    envs = {"envs": env} if env else {}
    return {
        "name": spec.name,
        "resources": resources,
        "num_nodes": spec.nodes,
        **envs,
        # Absolute: SkyPilot resolves a relative workdir against the folder `sky` runs in, so
        # `workdir: .` would upload whatever folder that is (a home folder …), not this one.
        "workdir": workdir,
        "file_mounts": {
            # Checkpoints in a bucket survive the preempted VM; a recovered job resumes from here.
            # The bucket is this run's (its id made by this deploy): SkyPilot reuses a bucket of
            # the name it made before, so a name of the workload alone would make the next run
            # resume this one's last checkpoint (gpuplan.deploy.runs).
            "/checkpoints": {"name": checkpoint_bucket(spec, options), "mode": "MOUNT"},
            **mounts,
        },
        "setup": "set -e\n" + _torch_setup(spec) + _package_setup(package),
        "run": run,
    }


def checkpoint_bucket(spec: LaunchSpec, options: GenerateOptions) -> str:
    """The bucket a training run checkpoints to: the job's name and the deploy's run id."""
    return bucket_name(spec.name, options.run_id, "checkpoints")


def _job_recovery(spec: LaunchSpec) -> dict[str, Any]:
    """A managed job's ``resources.job_recovery``: recovered after a preemption (and after the
    entry point's own SIGTERM exit), run again a few times after a failure."""
    return {
        # FAILOVER retries in the planned region first; EAGER_NEXT_REGION (SkyPilot's default)
        # would move at once to regions the plan did not price.
        "strategy": "FAILOVER" if spec.region else "EAGER_NEXT_REGION",
        "max_restarts_on_errors": MAX_RESTARTS_ON_ERRORS,
        "recover_on_exit_codes": [EXIT_PREEMPTED],
    }


def _workdir(options: GenerateOptions) -> str:
    if options.out_dir is None:
        raise DeployError.worded(
            N_(
                "the skypilot target needs the absolute path of the folder its files will be in: SkyPilot "
                "reads a relative workdir from the folder `sky` is run in"
            )
        )
    return options.out_dir


def _package_setup(package: UserPackage | None) -> str:
    """The setup lines that install the user's package copied into the folder: its requirements.txt
    first where the project has one (then the package, whose generated pyproject.toml requires what
    its code imports), as the Docker image does."""
    if package is None:
        return ""
    pin = f"-c {PROJECT_DIR}/{TORCH_CONSTRAINTS}"
    requirements = f"pip install -r {PROJECT_DIR}/requirements.txt {pin}\n" if package.requirements else ""
    return (
        f"# Your model's package {package.top_level}, copied into {PROJECT_DIR}/ by gpuplan deploy.\n"
        "# Installed under a pip constraints file that pins the PyTorch installed above.\n"
        f"{pin_torch(PROJECT_DIR)}\n{requirements}pip install ./{PROJECT_DIR} {pin}\n"
    )


def _torch_setup(spec: LaunchSpec) -> str:
    """The setup lines that install PyTorch where the VM's image has none: the build the Docker and
    Kubernetes images carry for the plan's GPU (CUDA 12.4 for a V100, whose sm_70 kernels the newer
    builds dropped)."""
    gpu = get_gpu(spec.gpu) if spec.gpu else None
    if gpu is not None and gpu.vendor != "nvidia":
        return (
            "# "
            + _("{gpu} is not an NVIDIA GPU: install PyTorch's ROCm build if the image has none.").format(
                gpu=gpu.id
            )
            + '\npython3 -c "import torch"\n'
        )
    image = base_image_for(gpu)
    return (
        "# "
        + _(
            "SkyPilot's GPU images have the NVIDIA driver and CUDA; PyTorch is installed if missing: {why}."
        ).format(why=_(image.reason))
        + "\n# "
        + _(
            "gpuplan's estimate was traced under torch {traced}, not {version}: README.md says what that "
            "changes and how to install {traced} instead."
        ).format(traced=ESTIMATOR_TORCH, version=image.torch)
        + f'\npython3 -c "import torch" 2>/dev/null || pip install {image.pip_torch}\n'
        # the release that runs (the image's own, or the one above), beside gpuplan's traced one
        + "python3 -c \"import torch; print('torch', torch.__version__, 'CUDA', torch.version.cuda)\"\n"
    )


def _engine_readme(spec: LaunchSpec, task: dict[str, Any]) -> str:
    """README.md of an engine service (``task``: its task.yaml), in the user's language; the commands
    are the same in every language, their comments prose."""
    cloud = skypilot_clouds().get(spec.provider or "", "aws")
    title = _("{name}: SkyServe (inference)").format(name=spec.name)
    resources = task["resources"]
    policy = replica_policy(spec)
    words = policy_words(policy, resources["accelerators"])
    if (held := max_replicas_words(spec)) is not None:
        words += f"\n\n{held}"
    if spec.instance_type and "instance_type" not in resources:
        picked = _(
            "The plan priced {instance} ({gpus} GPUs); a replica takes {replica}, so SkyPilot picks "
            "each replica's instance: check the price `sky serve up` shows before you confirm."
        ).format(instance=spec.instance_type, gpus=spec.gpus_per_node, replica=resources["accelerators"])
        words += f"\n\n{picked}"
    elif whole_instance(spec, replica_gpus(spec)):
        words += "\n\n" + _whole_instance_words(spec)
    if (fallback := fallback_words(spec)) is not None:
        words += f"\n\n{fallback}"
    if (
        hours := schedule_words(
            spec,
            f"sky serve up task.yaml -n {spec.name} --secret HF_TOKEN -y",
            f"sky serve down {spec.name} -y",
        )
    ) is not None:
        words += f"\n\n{hours}"
    if spec.weights_gb is not None:
        disk = _(
            "Each replica's disk is {disk} GB (`disk_size`): the {gb} GB of weights the engine "
            "downloads onto it before it serves, with room for the OS and the image."
        ).format(disk=f"{spec.disk_size_gb:,}", gb=f"{spec.weights_gb:,.1f}")
        words += "\n\n" + sentences(disk, weights_dtype_words(spec))
    name = spec.name
    status = _("the replicas and their state: READY once one passes its probe")
    endpoint = _("the endpoint (the load balancer's URL) and the model it serves")
    down = _("when done: every replica and the load balancer")
    return f"""# {title}

{serving_note(spec)}

```bash
pip install "skypilot[{cloud}]" && sky check
sky serve up task.yaml -n {name} --secret HF_TOKEN
sky serve status {name}   # {status}
curl "$(sky serve status --endpoint {name})/v1/models"   # {endpoint}
sky serve down {name}   # {down}
```

{words}
"""


def _whole_instance_words(spec: LaunchSpec) -> str:
    """The README's paragraph on replicas that each take a whole instance of more GPUs than they
    use, and what that costs against the plan, which priced them packed."""
    gpu = get_gpu(spec.gpu).name if spec.gpu else _("GPU")
    n, per = replica_gpus(spec), spec.gpus_per_node
    why = (
        _("{provider} sells no instance of exactly {n} × {gpu} (the catalog lists {counts})").format(
            provider=spec.provider,
            n=n,
            gpu=gpu,
            counts=item_list(f"{c:g}" for c in spec.sold_gpu_counts),
        )
        if spec.sold_gpu_counts
        else _(
            "whether {provider} sells an instance of exactly {n} × {gpu} is not known (the catalog "
            "could not be read)"
        ).format(provider=spec.provider, n=n, gpu=gpu)
    )
    return _(
        "Each replica takes a whole {instance} ({per} GPUs) and its engine uses {n} of them: {why}, "
        "and SkyServe runs every replica as a cluster of its own, so two replicas never share an "
        "instance. The plan priced {packed} replicas to an instance: this service's instances cost "
        "{ratio:g}× what the plan priced for the same replicas. To use every GPU you pay for, plan "
        "the service with tensor_parallel: {per}, or deploy it with --target k8s, where replicas "
        "share a node."
    ).format(
        instance=spec.instance_type,
        per=per,
        n=n,
        why=why,
        packed=per // n,
        ratio=per / n if per // n >= 1 else 1.0,
    )


def _readme(spec: LaunchSpec, package: UserPackage | None, bucket: str, options: GenerateOptions) -> str:
    """README.md in the user's language; the commands in it are the same in every language.
    ``bucket``: the run's checkpoint bucket, as task.yaml names it; ``options``: the deploy's."""
    dataset = (
        f" --env {DATASET_ENV}={dataset_example(spec)}" if skypilot_dataset_source(spec) is not None else ""
    )
    launch = (
        f"sky jobs launch task.yaml{dataset}   # " + _("managed job: recovers from spot preemption")
        if spec.spot
        else (f"sky launch -c {spec.name} task.yaml{dataset}\nsky down {spec.name}   # " + _("when done"))
    )
    extra = (
        _(", {project}/ with your package {package}").format(project=PROJECT_DIR, package=package.top_level)
        if package
        else ""
    )
    where = _region_note(spec)
    where = f"\n{where}\n" if where else ""
    topology = topology_readme_note(spec)
    topology = f"\n{topology}\n" if topology else ""
    # The extra is SkyPilot's cloud name (``do``, ``lambda``); without a provider SkyPilot picks
    # among the clouds `sky check` enables, AWS's extra being the usual first one.
    cloud = skypilot_clouds().get(spec.provider or "", "aws")
    store = bucket_store_words(spec)
    if store:
        cloud = f"{cloud},aws"  # a cloud whose store the checkpoints' bucket is made in (said below)
    network = _network_readme(spec)
    resumes = _(", so a recovered job resumes where the preempted one stopped") if spec.spot else ""
    title = _("{name}: SkyPilot").format(name=spec.name)
    delete = _("when the run is done and you have its weights: the checkpoints' bucket")
    uploads = _(
        "`workdir:` names this folder by its absolute path, so SkyPilot uploads exactly it (train.py,\n"
        "launch.sh{extra}) to every node wherever `sky` is run; if you move the folder, "
        "run `gpuplan deploy`\n"
        "again. `run` starts torchrun through launch.sh with SkyPilot's node rank and head-node IP.\n"
        "Checkpoints go to the bucket mounted at /checkpoints{resumes}."
    ).format(extra=extra, resumes=resumes)
    if store:
        uploads = sentences(uploads, store)  # joined as the reader's language joins sentences
    run = _(
        "Each `gpuplan deploy` is a new run with a new bucket: this one's checkpoints go to `{bucket}`, "
        "named once in task.yaml. To resume this run (after a failure, or `sky down`), launch this "
        "task.yaml again; to start a new run, deploy again. Delete the bucket when the run is done: it "
        "is billed as storage."
    ).format(bucket=bucket)
    install = install_words(TASK_YAML, package) if package else None
    hours = schedule_words(spec, f"sky launch -c {spec.name} task.yaml -y", f"sky down {spec.name} -y")
    hours = f"\n{hours}\n" if hours else ""
    return f"""# {title}

```bash
pip install "skypilot[{cloud}]" && sky check
{launch}
sky storage delete {bucket}   # {delete}
```

{uploads}

{run}

{training_model_note(spec, "skypilot", options, install)}
{_torch_words(spec)}{topology}{where}{network}{hours}"""


def _torch_words(spec: LaunchSpec) -> str:
    """The README's paragraph on the PyTorch the setup installs, between blank lines; "" where it
    installs none."""
    words = setup_torch_words(spec.gpu_info)
    return f"\n{words}\n" if words else ""


def _region_note(spec: LaunchSpec) -> str:
    """What the README says where SkyPilot cannot be told the plan's region ("" where it can)."""
    if not (spec.provider and spec.region and not facts(spec.provider).skypilot_regions):
        return ""
    return _(
        "The plan priced an offer in {region}; SkyPilot names {provider}'s regions "
        "differently, so `infra:` names the cloud only and SkyPilot picks the host: check the price "
        "`sky launch` shows before you confirm."
    ).format(region=spec.region, provider=spec.provider)


def _network_readme(spec: LaunchSpec) -> str:
    """The README's section on the RDMA network between nodes ("" for one node or none)."""
    network = rdma_network(spec)
    if given := given_rdma_note(spec):
        return f"\n{given}\n"
    if network is None:
        return _gcp_network_readme(spec)
    net = fabric(spec)
    text = _(
        "`network_tier: best` asks SkyPilot for {fabric} between the nodes where the instance has it; "
        "SkyPilot then boots AWS's `Deep Learning Base GPU AMI`, which holds the {fabric} drivers and "
        "AWS's NCCL plugin."
    ).format(fabric=network.name)
    if net is not None:
        assumes = (
            _("The plan's time assumes it: {fallback}.")
            if spec.planned
            else _("gpuplan's estimate of this job assumes it: {fallback}.")
        )
        text = sentences(text, assumes.format(fallback=fallback(spec, net)))
    if net is not None and net.interfaces > 1:
        text = sentences(
            text,
            _(
                "{instance} has {n} {fabric} interfaces; SkyPilot attaches all of them only when it reaches "
                "the nodes by their internal IPs, else one (a fraction of that bandwidth). "
                "Add to ~/.sky/config.yaml:"
            ).format(instance=net.instance, n=net.interfaces, fabric=network.name),
        )
        text += "\n\n```yaml\naws:\n  use_internal_ips: true\n  use_ssm: true\n```\n"
    check = _(
        "Check the transport on the first run: with NCCL_DEBUG=INFO in launch.sh, the log names the "
        "OFI plugin and the efa provider; `NET/Socket` means NCCL is on TCP."
    )
    return f"\n{text}\n\n{check}\n"


def _gcp_network_readme(spec: LaunchSpec) -> str:
    """The README's section on a GPU network between nodes other than an RDMA one (Google Cloud's
    GPUDirect-TCPX/TCPXO): what `network_tier: best` sets up, or why these files leave it to the
    user, and the check; "" where there is none (one node, or a network the catalog gives none)."""
    setup = skypilot_network_tier(spec)
    if setup is None:
        line = fabric_warning(spec, "skypilot")
        return "\n" + _("Note: {line}.").format(line=line) + "\n" if line else ""
    text = _(
        "`network_tier: best` asks SkyPilot for {fabric} between the {instance} nodes: SkyPilot then "
        "creates a VPC network for each GPU NIC, boots Google's `Container-Optimized OS` with the {fabric} "
        "NCCL plugin and its receive-data-path manager, runs the task in Google's "
        "`nccl-plugin-gpudirecttcpx` image and places the VMs close together (SkyPilot 0.10 or later)."
    ).format(fabric=setup.network.name, instance=setup.instance)
    assumes = (
        _("The plan's time assumes it: {fallback}.")
        if spec.planned
        else _("gpuplan's estimate of this job assumes it: {fallback}.")
    )
    check = _(
        "Check the transport on the first run: with NCCL_DEBUG=INFO in launch.sh, the log names the "
        "GPUDirectTCPX plugin; `NET/Socket` means NCCL is on TCP."
    )
    return f"\n{sentences(text, assumes.format(fallback=fallback(spec, setup)))}\n\n{check}\n"


class SkyPilotGenerator:
    """A SkyPilot task for every provider SkyPilot has a cloud for (managed spot recovery included)."""

    name = "skypilot"
    copies_user_package = True
    summary = (
        "SkyPilot task.yaml (managed spot job recovery; SkyServe for an LLM; a managed job of batch.py "
        "shards, or vllm_batch.py's on vLLM's image for an LLM, for batch inference), train.py, launch.sh"
    )

    def generate(self, spec: LaunchSpec, options: GenerateOptions) -> list[GeneratedFile]:
        # read once: the manifest the files below are built from (an engine runs no code of the user's)
        ship = user_package if engine_launch(spec) is not None else shipped_package
        package = ship(spec, TASK_YAML)
        task = task_yaml(spec, options, package)
        header = _("{name}: SkyPilot task written by `gpuplan deploy` (SkyPilot 0.14 schema).")
        text = dump_documents([task], header.format(name=spec.name))
        if engine_launch(spec) is not None:
            return [
                GeneratedFile(path="task.yaml", content=text),
                GeneratedFile(path="README.md", content=_engine_readme(spec, task)),
            ]
        if spec.batch_inference:
            cloud = skypilot_clouds().get(spec.provider or "")
            readme = batch_readme(
                spec,
                cloud,
                _region_note(spec),
                MAX_RESTARTS_ON_ERRORS,
                batch_engine_launch(spec),
                run_id=options.run_id,
            )
            return [
                *entry_point_files(spec, options),
                *(package.files if package else ()),
                GeneratedFile(path="task.yaml", content=text),
                skyignore(),
                GeneratedFile(path="README.md", content=readme),
            ]
        return [
            *entry_point_files(spec, options),
            *(package.files if package else ()),
            GeneratedFile(path="task.yaml", content=text),
            GeneratedFile(
                path="README.md",
                content=_readme(spec, package, task["file_mounts"]["/checkpoints"]["name"], options),
            ),
        ]
