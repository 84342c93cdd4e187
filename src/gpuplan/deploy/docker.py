"""``--target docker``: a Dockerfile on the PyTorch CUDA image that fits the GPU, plus launch files."""

from __future__ import annotations

import json

from gpuplan.deploy.base import GeneratedFile, GenerateOptions, commented
from gpuplan.deploy.batch import (
    VLLM_RUNNER,
    chunk_requests,
    cost_note,
    engine_batch_note,
    in_flight_requests,
    input_contract,
    model_note,
    output_contract,
    sentences,
    shard_count,
    shard_gpus,
    vllm_inputs,
    vllm_output_contract,
)
from gpuplan.deploy.checkpoints import checkpoint_disk_note, host_disk_note, stop_grace_note, stop_grace_s
from gpuplan.deploy.engine import (
    ENGINE_PORT,
    EngineLaunch,
    batch_engine_launch,
    engine_launch,
    mainland_notes,
)
from gpuplan.deploy.fabric import fabric, fabric_note, given_rdma_env
from gpuplan.deploy.images import base_image_for, image_torch_words, registry_note
from gpuplan.deploy.nccl_topology import topology_readme_note
from gpuplan.deploy.preset_model import PRESET_MODULE, written_preset
from gpuplan.deploy.spec import LaunchSpec
from gpuplan.deploy.torchrun import MASTER_PORT, NEW_RUN, entry_point_files, serving_note, training_model_note
from gpuplan.deploy.user_package import (
    DOCKERFILE,
    PROJECT_DIR,
    TORCH_CONSTRAINTS,
    UserPackage,
    install_words,
    pin_torch,
    shipped_package,
    user_package,
)
from gpuplan.i18n.messages import _

__all__ = ["DOCKERIGNORE_PATTERNS", "DockerGenerator", "base_image", "dockerfile", "dockerignore"]

#: What the build context leaves out (the comment above them is written in the user's language).
DOCKERIGNORE_PATTERNS = (
    "checkpoints/",
    "*.pt",
    "*.pt.tmp",
    "__pycache__/",
    "*.pyc",
    ".git/",
    ".venv/",
    "k8s/",
)


def dockerignore() -> str:
    """.dockerignore: checkpoints, caches and VCS data, with the comment that says why."""
    why = _("Keep checkpoints, caches and VCS data out of the build context (they can be gigabytes).")
    return commented(why) + "".join(f"{p}\n" for p in DOCKERIGNORE_PATTERNS)


def base_image(spec: LaunchSpec, options: GenerateOptions) -> tuple[str, str]:
    """The image to build on and the comment explaining it."""
    if options.base_image:
        return options.base_image, commented(_("Base image chosen with --base-image.")).rstrip("\n")
    net = fabric(spec)
    if net is not None:
        # The stock PyTorch image lacks libfabric and AWS's NCCL plugin: NCCL would talk TCP.
        text = _(
            "Base image with the {fabric} libraries and NCCL plugin the plan's network between nodes "
            "needs: {source}."
        ).format(fabric=net.network.name, source=net.network.image_source)
        return net.network.image, commented(text).rstrip("\n")
    chosen = base_image_for(spec.gpu_info)
    gpu = spec.gpu_info
    what = (
        _("{gpu} (compute capability {capability})").format(gpu=gpu.id, capability=gpu.compute_capability)
        if gpu
        else _("an unspecified NVIDIA GPU")
    )
    text = _(
        "Base image for {what}: {reason}.\n"
        "Host needs: {driver}; and the NVIDIA Container Toolkit (`docker run --gpus`).\n"
        "Sources: PyTorch CUDA support matrix (pytorch/pytorch RELEASE.md, issue #172352); CUDA 12.9\n"
        "release notes (Volta removed in CUDA 13). The NGC image nvcr.io/nvidia/pytorch:YY.MM-py3 also\n"
        "works: choose a monthly tag whose CUDA version (NGC release notes) is the one above."
    ).format(what=what, reason=_(chosen.reason), driver=_(chosen.driver_note))
    # The image is on Docker Hub: where that is often unreachable, the line above FROM says so too,
    # not only the README.
    china = registry_note(spec.provider, spec.region)
    if china:
        text += "\n" + china
    return chosen.image, commented(text).rstrip("\n")


def _user_code(spec: LaunchSpec, package: UserPackage | None) -> str:
    """The Dockerfile lines that bring in the user's own model code (or say how to)."""
    if package is not None:
        # The installs run under a constraints file pinning the image's PyTorch (user_package.pin_torch).
        folder = f"/workspace/{PROJECT_DIR}"
        pin = f"-c {folder}/{TORCH_CONSTRAINTS}"
        requirements = (
            f"RUN pip install --no-cache-dir -r {folder}/requirements.txt {pin}\n"
            if package.requirements
            else ""
        )
        copied = _(
            "Your model's package `{package}` (model.python `{entry}`),\n"
            "copied by gpuplan deploy from {source} into {project}/;\n"
            "installed so that train.py imports it."
        ).format(
            package=package.top_level,
            entry=spec.model_entry_point,
            source=package.source,
            project=PROJECT_DIR,
        )
        return (
            commented(copied) + f"COPY {PROJECT_DIR}/ {folder}/\nRUN {pin_torch(folder)}\n{requirements}"
            f"RUN pip install --no-cache-dir {folder} {pin}\n"
        )
    if spec.model_entry_point:
        unknown = _(
            "Your model comes from `{entry}`, whose project folder is not known here\n"
            "(deploy the workload file, or a plan file saved in the project, to have it copied). Copy\n"
            "its package next to this Dockerfile and install it, e.g."
        ).format(entry=spec.model_entry_point)
        return (
            commented(unknown)
            + "# COPY mypkg/ /workspace/mypkg/\n# RUN pip install --no-cache-dir /workspace/mypkg\n"
        )
    return commented(_("Your own model and data code: COPY it here and pip install its requirements."))


def engine_dockerfile(spec: LaunchSpec, launch: EngineLaunch, target: str = "docker") -> str:
    """The serving engine's official image with the plan's settings as its command: the exec form,
    JSON-encoded, so that no argument passes through a shell. ``target``: the deploy target that
    writes it (its header names the command)."""
    title = commented(
        _(
            "{name}: serving image written by `gpuplan deploy --target {target}`: {engine}, the engine "
            "the plan priced."
        ).format(name=spec.name, target=target, engine=launch.words)
    )
    cache = commented(_("Downloaded weights: mount the host's Hugging Face cache here to keep them."))
    entry = "" if launch.image_runs_entrypoint else f"ENTRYPOINT {json.dumps(launch.entrypoint)}\n"
    return f"""# syntax=docker/dockerfile:1
{title}FROM {launch.image}

{cache}VOLUME ["/root/.cache/huggingface"]
EXPOSE {ENGINE_PORT}

{entry}CMD {json.dumps(launch.args)}
"""


def engine_batch_dockerfile(spec: LaunchSpec, launch: EngineLaunch, target: str = "docker") -> str:
    """vLLM's official image running vllm_batch.py, which starts vLLM's server once and sends it the inputs
    with the plan's settings (its command after ``--``): the exec form, JSON-encoded."""
    title = commented(
        _(
            "{name}: batch inference image written by `gpuplan deploy --target {target}`: {engine}'s "
            "server, sent the inputs and written a chunk at a time."
        ).format(name=spec.name, target=target, engine=launch.words)
    )
    cache = commented(_("Downloaded weights: mount the host's Hugging Face cache here to keep them."))
    return f"""# syntax=docker/dockerfile:1
{title}FROM {launch.image}

WORKDIR /workspace
COPY {VLLM_RUNNER} /workspace/
{cache}VOLUME ["/root/.cache/huggingface"]
ENV INPUT_PATH=/data/inputs OUTPUT_DIR=/data/outputs CHUNK_SIZE={chunk_requests(spec)} \\
    CONCURRENCY={in_flight_requests(spec)}

ENTRYPOINT {json.dumps(["python3", f"/workspace/{VLLM_RUNNER}"])}
CMD {json.dumps(["--", *launch.batch_args])}
"""


def dockerfile(
    spec: LaunchSpec, options: GenerateOptions, package: UserPackage | None, target: str = "docker"
) -> str:
    """The Dockerfile: base image, the job's code, checkpoint volume, entry point (train or serve);
    ``package`` is the user's package copied into the folder (``user_package(spec)``), ``target``
    the deploy target that writes it (its header names the command). Its comments are in the user's
    language, its instructions the same in every language. A decoder LLM's service: the serving
    engine's image (:func:`engine_dockerfile`)."""
    launch = engine_launch(spec)
    if launch is not None:
        return engine_dockerfile(spec, launch, target)
    batch_launch = batch_engine_launch(spec)
    if batch_launch is not None:
        return engine_batch_dockerfile(spec, batch_launch, target)
    image, why = base_image(spec, options)
    serve = spec.task == "infer"
    runner = "batch.py" if spec.batch_inference else "serve.py"
    code = f"train.py {runner}" if serve else "train.py launch.sh"
    if written_preset(spec):
        code = code.replace(
            "train.py", f"train.py {PRESET_MODULE}"
        )  # the preset's code, which train.py imports
    entry = f'["python", "/workspace/{runner}"]' if serve else '["/workspace/launch.sh"]'
    chmod = "" if serve else "RUN chmod +x /workspace/launch.sh\n"
    title, volume = _image_words(spec, target)
    return f"""# syntax=docker/dockerfile:1
{title}{why}
FROM {image}

WORKDIR /workspace
{_user_code(spec, package)}COPY {code} /workspace/
{chmod}
{volume}
ENTRYPOINT {entry}
"""


def _image_words(spec: LaunchSpec, target: str) -> tuple[str, str]:
    """The Dockerfile's title and its checkpoint and port lines, as the task uses them: a training
    image resumes from the /checkpoints volume and opens torchrun's rendezvous port; a service
    loads its weights from /checkpoints and listens on serve.py's port; a batch job reads the
    weights beside its inputs (``data/checkpoints``, mounted with them) and listens on none."""
    if spec.batch_inference:
        title = _("{name}: batch inference image written by `gpuplan deploy --target {target}`.")
        weights = _(
            "Weights: batch.py loads the newest checkpoint in CKPT_DIR where there is one, on the data "
            "volume."
        )
        volume = commented(weights) + "ENV CKPT_DIR=/data/checkpoints\n"
    elif spec.task == "infer":
        title = _("{name}: inference image written by `gpuplan deploy --target {target}`.")
        weights = _("Weights: mount the folder of your checkpoints here; the newest one is loaded.")
        port = commented(_("serve.py's HTTP port."))
        volume = (
            commented(weights) + f'ENV CKPT_DIR=/checkpoints\nVOLUME ["/checkpoints"]\n{port}EXPOSE 8000\n'
        )
    else:
        title = _("{name}: training image written by `gpuplan deploy --target {target}`.")
        checkpoints = _(
            "Checkpoints: mount durable storage here (a volume, a bucket mount or a PVC) so a restarted\n"
            "container resumes instead of starting over."
        )
        port = commented(_("Rendezvous port for multi-node runs (torchrun's default)."))
        volume = (
            commented(checkpoints)
            + f'ENV CKPT_DIR=/checkpoints\nVOLUME ["/checkpoints"]\n{port}EXPOSE {MASTER_PORT}\n'
        )
    return commented(title.format(name=spec.name, target=target)), volume


def _replicas_note(spec: LaunchSpec) -> str:
    """For a service the plan priced as several replicas: that one `docker run` is one of them (a
    README had shown one container for a plan of four time-sharing replicas: a quarter of the
    capacity priced); for one priced at spot rates, that its hosts must be spot instances."""
    serving = spec.serving
    spot = ""
    if spec.spot:
        # docker picks no host: a spot plan run on on-demand hosts is billed at their price
        spot = "\n\n" + _(
            "The plan is priced at spot rates ({where}): run these containers on spot (preemptible) "
            "instances; on on-demand hosts the same service is billed at the on-demand price, not the "
            "plan's. A reclaimed host takes its replica with it: start that one again on another."
        ).format(where=" ".join(w for w in (spec.provider, spec.region, spec.instance_type) if w))
    if serving is None or serving.launch_replicas <= 1:
        return spot
    per = spec.tensor_parallel * spec.pipeline_parallel
    gpus = -(-serving.launch_replicas * per // serving.share_gpu)
    said = (
        _(
            "The plan priced {n} replicas time-sharing {gpus} GPU(s), {share} to a GPU: the command below "
            "starts one. Start {n}, {share} on each GPU (`--gpus device=…` in place of `--gpus all`), "
            "each on its own port, behind a load balancer; Kubernetes (--target k8s) starts and scales "
            "them for you."
        )
        if serving.share_gpu > 1
        else _(
            "The plan priced {n} replicas on {gpus} GPU(s): the command below starts one. Start {n}, each "
            "on its own GPU(s) (`--gpus device=…` in place of `--gpus all`) and port, behind a load "
            "balancer; Kubernetes (--target k8s) starts and scales them for you."
        )
    ).format(n=serving.launch_replicas, gpus=gpus, share=serving.share_gpu)
    return f"\n\n{said}{spot}"


def _efa_run_options(spec: LaunchSpec) -> str:
    """``docker run`` lines that hand the container the node's RDMA network ("" without one)."""
    net = fabric(spec)
    if net is None:
        # an RDMA network the user gave (plan --network-kind rdma): the same devices and locked
        # memory for NCCL's IB verbs; launch.sh sets NCCL up for it
        return (
            "  --cap-add=IPC_LOCK --device=/dev/infiniband --ulimit memlock=-1:-1 \\\n"
            if given_rdma_env(spec)
            else ""
        )
    env = " ".join(f"-e {k}={v}" for k, v in net.env.items())
    return f"  --cap-add=IPC_LOCK --device=/dev/infiniband --ulimit memlock=-1:-1 {env} \\\n"


def _batch_runs(spec: LaunchSpec, tag: str, engine: bool = False) -> str:
    """The ``docker run`` lines of a batch job on one machine: a container per shard of this
    machine's GPUs (each its own GPUs, its own index), or one container for one shard. ``engine``:
    vLLM's, which takes the token and keeps the weights in the host's Hugging Face cache."""
    per, shards = shard_gpus(spec), spec.gpus_per_node // shard_gpus(spec)
    volume = '-v "$PWD/data:/data" -e INPUT_PATH=/data/inputs -e OUTPUT_DIR=/data/outputs'
    own = "-e CKPT_DIR=/data/checkpoints"
    if engine:
        own = '-v "$HOME/.cache/huggingface:/root/.cache/huggingface" -e HF_TOKEN'
    if shard_count(spec) == 1:
        return f"docker run --rm --gpus all --ipc=host {volume} \\\n  {own} {tag}"
    # One GPU each: device=$i; several: a list in quotes ('"device=0,1"'), as Docker reads a comma.
    listed = ",".join(f"$((i * {per} + {k}))" for k in range(per))
    devices = "device=$i" if per == 1 else f'\\"device={listed}\\"'
    index, machine = "$i", ""
    if spec.nodes > 1:
        # the shards of every machine together: this machine's are MACHINE x shards + i
        index = f"$((MACHINE * {shards} + i))"
        number = _("this machine's number, 0 to {last}").format(last=spec.nodes - 1)
        machine = f"MACHINE=0  # {number}\n"
    # every shard's status, not the last one's: a failed shard (status 2: bad inputs) is said
    return (
        f"{machine}pids=()\n"
        f"for i in $(seq 0 {shards - 1}); do\n"
        f'  docker run --rm --gpus "{devices}" --ipc=host {volume} \\\n'
        f"    {own} -e JOB_COMPLETION_INDEX={index} "
        f"-e SHARD_COUNT={shard_count(spec)} {tag} &\n"
        '  pids+=("$!")\n'
        "done\n"
        'failed=0; for pid in "${pids[@]}"; do wait "$pid" || failed=$((failed + 1)); done\n'
        'echo "shards failed: $failed"'
    )


def _china_notes(spec: LaunchSpec) -> str:
    """The README's paragraphs for mainland China: Docker Hub's images, and the Hugging Face Hub's
    weights for an engine ('' elsewhere), as the Kubernetes README gives them."""
    return "".join(f"\n{n}\n" for n in mainland_notes(spec))


def _batch_readme(spec: LaunchSpec, image: str, package: UserPackage | None) -> str:
    """README.md of a batch inference image: inputs in, one pass, outputs out; ``package``: the
    user's package copied beside the Dockerfile, which installs it."""
    tag = f"{spec.name}:latest"
    title = _("{name}: Docker (batch inference)").format(name=spec.name)
    launch = batch_engine_launch(spec)
    if launch is None:
        runs = _(
            "Builds on `{image}` and runs batch.py: one pass over the inputs in `data/inputs/`, the "
            "outputs in `data/outputs/`, then it exits."
        ).format(image=image)
        install = install_words(DOCKERFILE, package) if package else ""
        contract = sentences(runs, input_contract(spec), output_contract())
        contract += f"\n\n{install}" if install else ""
    else:
        runs = _(
            "Builds on `{image}` and runs {runner}, which starts vLLM's server once, sends it the inputs in "
            "`data/inputs/` and writes the answers a chunk at a time: one pass, the outputs in "
            "`data/outputs/`, then it exits."
        ).format(image=image, runner=VLLM_RUNNER)
        contract = f"{runs}\n\n{vllm_inputs(spec, launch)}\n\n{vllm_output_contract(launch)}"
    shards = spec.gpus_per_node // shard_gpus(spec)
    parts = []
    if shards > 1:
        parts.append(
            _(
                "A container per shard: {n} on this machine's {gpus} GPUs, each on its own GPU(s), each "
                "running the chunks of its index."
            ).format(n=shards, gpus=spec.gpus_per_node)
        )
    parts.append(
        _(
            "Stopped (`docker stop`, a spot reclaim), the same command skips the chunks already written and "
            "runs the rest."
        )
    )
    if spec.nodes > 1:
        parts.append(
            _(
                "The plan runs {nodes} machines: share `data/` between them (NFS) and run the loop on each "
                "with its own MACHINE ({k8s} does this for you)."
            ).format(nodes=spec.nodes, k8s="--target k8s")
        )
    resume = sentences(*parts)
    return f"""# {title}

{contract}

```bash
docker build -t {tag} .
mkdir -p data/inputs && cp inputs.jsonl data/inputs/
{_batch_runs(spec, tag, engine=launch is not None)}
cat data/outputs/chunk-*.jsonl > outputs.jsonl
```

{resume}

{cost_note(spec)}

{model_note(spec, "`data/checkpoints/`") if launch is None else engine_batch_note(spec, launch, "docker")}
{_china_notes(spec)}"""


def _smoke_request(launch: EngineLaunch) -> str:
    """The README's first request to the engine: a chat message where the model is known to have a
    chat template (an instruction-tuned model answers a bare prompt past its template), a plain
    completion where it has none or it is not known (every model answers one)."""
    import json

    said: dict[str, object]
    if launch.chat is not True:
        path, said = "/v1/completions", {"prompt": "Hello"}
    else:
        path, said = "/v1/chat/completions", {"messages": [{"role": "user", "content": "Hello"}]}
    body = json.dumps({"model": launch.model_id, **said, "max_tokens": 16})
    return f"curl localhost:{ENGINE_PORT}{path} -H 'Content-Type: application/json' \\\n  -d '{body}'"


def readme(
    spec: LaunchSpec, image: str, package: UserPackage | None = None, options: GenerateOptions | None = None
) -> str:
    """README.md in the user's language; the commands in it are the same in every language.
    ``package``: the user's package copied beside the Dockerfile, which installs it; ``options``:
    the deploy's (its --steps)."""
    tag = f"{spec.name}:latest"
    launch = engine_launch(spec)
    if launch is not None:
        title = _("{name}: Docker (inference)").format(name=spec.name)
        return f"""# {title}

{serving_note(spec)}{_replicas_note(spec)}
{_china_notes(spec)}
```bash
docker build -t {tag} .
docker run --rm --gpus all --ipc=host -p {ENGINE_PORT}:{ENGINE_PORT} \\
  -v "$HOME/.cache/huggingface:/root/.cache/huggingface" -e HF_TOKEN {tag}
{_smoke_request(launch)}
```
"""
    if spec.batch_inference:
        return _batch_readme(spec, image, package)
    if spec.task == "infer":
        title = _("{name}: Docker (inference)").format(name=spec.name)
        runs = _("Builds on `{image}` and runs serve.py (HTTP on port 8000; POST /v1/predict, GET /healthz).")
        return f"""# {title}

{runs.format(image=image)}
{serving_note(spec)}
{_china_notes(spec)}
```bash
docker build -t {tag} .
docker run --rm --gpus all -p 8000:8000 -v "$PWD/checkpoints:/checkpoints" {tag}
```
"""
    run = (
        f'docker run --rm --gpus all --ipc=host -v "$PWD/checkpoints:/checkpoints" {tag}'
        if spec.nodes == 1
        else (
            "# "
            + _("on every node, NODE_RANK 0..{last}, MASTER_ADDR = node 0's private IP:").format(
                last=spec.nodes - 1
            )
            + "\n"
            "docker run --rm --gpus all --ipc=host --network host \\\n"
            # The EFA devices and the locked memory libfabric registers, as SkyPilot runs a container
            # on an EFA instance (sky/clouds/aws.py _EFA_DOCKER_RUN_OPTIONS).
             + _efa_run_options(spec) + "  -e MASTER_ADDR=10.0.0.1 -e NODE_RANK=0 \\\n"
            f"  -v /mnt/shared/ckpt:/checkpoints {tag}"
        )
    )
    title = _("{name}: Docker").format(name=spec.name)
    runs = _(
        "Builds on `{image}` (why: see the comment at the top of the Dockerfile) and runs `launch.sh`, "
        "which\n"
        "starts torchrun on {per_node} GPU(s) per node, {nodes} node(s)."
    ).format(image=image, per_node=spec.gpus_per_node, nodes=spec.nodes)
    arguments = _("arguments after the image go to train.py")
    host = _(
        "`--ipc=host` (or a large `--shm-size`) gives DataLoader workers and NCCL the shared memory they "
        "need;\n"
        "Docker's default 64 MB /dev/shm makes them fail. The host needs an NVIDIA driver and the NVIDIA\n"
        "Container Toolkit. On SIGTERM (`docker stop`, a spot reclaim) train.py checkpoints and exits; the\n"
        "same `docker run` resumes from /checkpoints. Allow it time: `docker stop -t {grace}`."
    ).format(grace=stop_grace_s(spec))
    host = sentences(host, stop_grace_note(spec), _(NEW_RUN))
    host += "\n\n" + checkpoint_disk_note(spec)
    on_host = host_disk_note(spec, '"$PWD/checkpoints"' if spec.nodes == 1 else "/mnt/shared/ckpt")
    host += f"\n\n{on_host}" if on_host else ""
    china = registry_note(spec.provider, spec.region)
    china = f"\n{china}\n" if china else ""
    topology = topology_readme_note(spec)
    topology = f"\n{topology}\n" if topology else ""
    install = install_words(DOCKERFILE, package) if package else None
    return f"""# {title}

{runs}

{training_model_note(spec, "docker", options, install)}

{image_torch_words(image, spec.gpu_info)}
{topology}{china}
```bash
docker build -t {tag} .
{run}
docker run ... {tag} --steps 100      # {arguments}
```

{host}
{fabric_note(spec, "docker")}"""


class DockerGenerator:
    """A container image recipe for the job, on a CUDA build that has kernels for the GPU."""

    name = "docker"
    copies_user_package = True
    summary = "Dockerfile on the PyTorch CUDA image that fits the GPU, .dockerignore, train.py, launch.sh"

    def generate(self, spec: LaunchSpec, options: GenerateOptions) -> list[GeneratedFile]:
        launch = engine_launch(spec) or batch_engine_launch(spec)
        image = launch.image if launch is not None else base_image(spec, options)[0]
        # read once: the manifest the files below are built from (an engine runs no code of the user's)
        package = user_package(spec) if launch is not None else shipped_package(spec)
        return [
            *entry_point_files(spec, options),
            *(package.files if package else ()),
            GeneratedFile(path="Dockerfile", content=dockerfile(spec, options, package)),
            GeneratedFile(path=".dockerignore", content=dockerignore()),
            GeneratedFile(path="README.md", content=readme(spec, image, package, options)),
        ]
