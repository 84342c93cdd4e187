"""Batch inference manifests: an Indexed batch/v1 Job whose pods each run batch.py over their shard
of the inputs, on a shared volume that holds the inputs and the outputs, and its README.

A batch job goes through its inputs once and exits. Each pod of the Job is one shard (the Job sets
``JOB_COMPLETION_INDEX`` in it); batch.py cuts the inputs into chunks, runs the chunks of its shard
and writes each one whole (temp file + rename), so a pod started again after a spot reclaim skips
the chunks already written. Kubernetes retries a failed index on its own (``backoffLimitPerIndex``,
GA in 1.33), and does not count a reclaim or a SIGTERM against it (``podFailurePolicy``).

A decoder LLM with Hub weights (:func:`gpuplan.deploy.engine.batch_engine_launch`) runs on vLLM's
image instead: vllm_batch.py shards, chunks and resumes the same way, sending the requests to one
vLLM server in the pod, which takes the token from the Secret a service of the model takes.
"""

from __future__ import annotations

from typing import Any

from gpuplan.deploy.base import GeneratedFile, GenerateOptions
from gpuplan.deploy.batch import (
    EXIT_NO_GPU,
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
from gpuplan.deploy.engine import EngineLaunch, batch_engine_launch
from gpuplan.deploy.images import FILES_IMAGE, side_image_note
from gpuplan.deploy.k8s.nodes import gpu_selection_words, placement, spot_pool_words
from gpuplan.deploy.k8s.pods import (
    CODE_DIR,
    code_configmap,
    container_image,
    gpu_resources,
    host_readme_words,
    host_words,
    labels,
    pod_spec,
    shared_storage_words,
)
from gpuplan.deploy.k8s.serving import (
    HF_CACHE_DIR,
    model_cache_volume,
    model_cache_words,
    token_ref,
)
from gpuplan.deploy.spec import LaunchSpec
from gpuplan.deploy.yamlout import dump_documents
from gpuplan.i18n.messages import _
from gpuplan.vocab import pricing_name

__all__ = ["DATA_DIR", "batch_manifests", "batch_readme"]

#: Where the data volume is mounted in every pod: inputs under inputs/, outputs under outputs/.
DATA_DIR = "/data"

#: Size the data volume is asked for: room for the inputs and the outputs of a common job; the
#: PVC's header says to size it for the user's own.
DATA_PVC_GIB = 100

#: Exit status of batch.py after SIGTERM (its EXIT_PREEMPTED): not a failure of the index.
EXIT_PREEMPTED = 143
#: Exit status of batch.py for bad inputs or arguments (its EXIT_BAD_INPUT): the index fails at
#: once, as running it again would fail the same way.
EXIT_BAD_INPUT = 2

#: Failed pods of one index (one shard) before the index fails; reclaims and SIGTERMs not counted.
BACKOFF_LIMIT_PER_INDEX = 3

#: The file of the pod that holds the data volume for ``kubectl cp`` (its image:
#: :data:`gpuplan.deploy.images.FILES_IMAGE`).
FILES_POD = "k8s/data-pod.yaml"


def _data_pvc(spec: LaunchSpec) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": f"{spec.name}-data", "labels": labels(spec, "data")},
        "spec": {
            # Every shard's pod reads the inputs and writes its chunks, on whichever node it runs.
            "accessModes": ["ReadWriteMany"],
            "resources": {"requests": {"storage": f"{DATA_PVC_GIB}Gi"}},
        },
    }


def _files_pod(spec: LaunchSpec) -> dict[str, Any]:
    """A pod with the data volume mounted and nothing else, for ``kubectl cp`` in and out."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"{spec.name}-data", "labels": labels(spec, "data")},
        "spec": {
            "containers": [
                {
                    "name": "files",
                    "image": FILES_IMAGE,
                    "command": [
                        "sh",
                        "-c",
                        f"mkdir -p {DATA_DIR}/inputs {DATA_DIR}/outputs && exec sleep 2147483647",
                    ],
                    "volumeMounts": [{"name": "data", "mountPath": DATA_DIR}],
                }
            ],
            "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": f"{spec.name}-data"}}],
        },
    }


def _container(spec: LaunchSpec, options: GenerateOptions, launch: EngineLaunch | None) -> dict[str, Any]:
    """batch.py on the PyTorch image, or vllm_batch.py on vLLM's, sending the inputs to vLLM's server."""
    env = [
        {"name": "INPUT_PATH", "value": f"{DATA_DIR}/inputs"},
        {"name": "OUTPUT_DIR", "value": f"{DATA_DIR}/outputs"},
        # The Job sets JOB_COMPLETION_INDEX (the shard) in each pod; the count is the Job's.
        {"name": "SHARD_COUNT", "value": str(shard_count(spec))},
    ]
    if launch is None:
        return {
            "name": "batch",
            "image": container_image(spec, options),
            "command": ["python", f"{CODE_DIR}/batch.py"],
            "env": [*env[:2], {"name": "CKPT_DIR", "value": f"{DATA_DIR}/checkpoints"}, env[2]],
        }
    return {
        "name": "batch",
        "image": options.image or launch.image,
        # exec form, no shell: each argument one word; vLLM's arguments after --
        "command": ["python3", f"{CODE_DIR}/{VLLM_RUNNER}", "--", *launch.batch_args],
        "env": [
            *env,
            {"name": "CHUNK_SIZE", "value": str(chunk_requests(spec))},
            {"name": "CONCURRENCY", "value": str(in_flight_requests(spec))},
            # the token as a service of the model takes it: from the Secret, never written here
            token_ref(spec),
        ],
    }


def _job(spec: LaunchSpec, options: GenerateOptions) -> dict[str, Any]:
    shards = shard_count(spec)
    per_pod = shard_gpus(spec)
    launch = batch_engine_launch(spec)
    container = {**_container(spec, options, launch), "resources": gpu_resources(spec, per_pod)}
    volumes = [{"name": "data", "persistentVolumeClaim": {"claimName": f"{spec.name}-data"}}]
    mounts = [{"name": "data", "mountPath": DATA_DIR}]
    if launch is not None:
        # the weights, downloaded once per pod and kept for its chunks (each starts the engine
        # anew); on --model-cache-pvc, once for every pod
        volumes.append(model_cache_volume(options))
        mounts.append({"name": "model-cache", "mountPath": HF_CACHE_DIR})
    pod = pod_spec(
        spec,
        options,
        placement(spec),
        container=container,
        code_files=True,
        volumes=volumes,
        mounts=mounts,
        shm_gib=8 * per_pod,
    )
    pod["restartPolicy"] = "Never"  # podFailurePolicy requires Never; the Job makes a new pod instead
    rule = {"containerName": "batch", "operator": "In"}
    # No GPU seen (batch.py's EXIT_NO_GPU) is the node's fault, not the inputs' (a broken device
    # plugin or driver, a driver older than the image's CUDA): counted against backoffLimitPerIndex
    # as any failure, since the new pod may land on a node whose GPUs it sees and a try costs
    # seconds (batch.py refuses before it loads anything); a cluster-wide cause fails the index
    # after the limit. vllm_batch.py has no such status: where vLLM finds no GPU its server fails.
    no_gpu = [{"action": "Count", "onExitCodes": {**rule, "values": [EXIT_NO_GPU]}}] if launch is None else []
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": spec.name, "labels": labels(spec, "batch")},
        "spec": {
            "completionMode": "Indexed",
            "completions": shards,
            "parallelism": shards,
            "backoffLimitPerIndex": BACKOFF_LIMIT_PER_INDEX,
            "podFailurePolicy": {
                "rules": [
                    # A reclaimed spot node (DisruptionTarget) or batch.py's SIGTERM exit is not a
                    # failure: the Job starts a new pod for the same index, which skips the chunks
                    # already written.
                    {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]},
                    {"action": "Ignore", "onExitCodes": {**rule, "values": [EXIT_PREEMPTED]}},
                    # Bad inputs fail the same way every time: no retry.
                    {"action": "FailIndex", "onExitCodes": {**rule, "values": [EXIT_BAD_INPUT]}},
                    *no_gpu,
                ]
            },
            "template": {"metadata": {"labels": labels(spec, "batch")}, "spec": pod},
        },
    }


def _storage_note(spec: LaunchSpec) -> str:
    shared = shared_storage_words(spec)
    if shared is not None:
        return _(
            "ReadWriteMany: the pods of every shard mount it on their own nodes; set storageClassName to a\n"
            "class that offers it: {shared}."
        ).format(shared=shared)
    return _(
        "ReadWriteMany: the pods of every shard mount it on their own nodes; set storageClassName to a\n"
        "class of your cluster that offers it."
    )


def _storage_first(spec: LaunchSpec) -> str:
    """The README's step before the volume is made: its class, which no default gives (a cluster's
    default class is usually a disk one node mounts, and the claim of several nodes stays Pending)."""
    shared = shared_storage_words(spec)
    if shared is not None:
        return _(
            "First set storageClassName in k8s/data-pvc.yaml to a ReadWriteMany class, {shared}: a "
            "cluster's default class is usually a disk one node mounts, and the claim would stay Pending."
        ).format(shared=shared)
    return _(
        "First set storageClassName in k8s/data-pvc.yaml to a ReadWriteMany class of your cluster: a "
        "cluster's default class is usually a disk one node mounts, and the claim would stay Pending."
    )


def batch_manifests(
    spec: LaunchSpec, options: GenerateOptions, code: list[GeneratedFile]
) -> list[GeneratedFile]:
    """k8s/*.yaml for a batch inference job; ``code`` are the files the ConfigMap carries."""
    files = []
    if not options.image:
        launch = batch_engine_launch(spec)
        said = (
            _("train.py and batch.py for the stock PyTorch image. After editing them, regenerate:")
            if launch is None
            else _("{runner} for vLLM's image. After editing it, regenerate:").format(runner=VLLM_RUNNER)
        )
        sources = " ".join(f"--from-file={f.path}" for f in code)
        files.append(
            GeneratedFile(
                path="k8s/code-configmap.yaml",
                content=dump_documents(
                    [code_configmap(spec, code)],
                    said + f"\nkubectl create configmap {spec.name}-code {sources} "
                    "--dry-run=client -o yaml > k8s/code-configmap.yaml",
                ),
            )
        )
    pvc_header = _(
        "The inputs (inputs/), the outputs (outputs/) and an optional checkpoint (checkpoints/) of the job.\n"
        "{size} GiB: size it for your inputs and outputs."
    ).format(size=DATA_PVC_GIB)
    files.append(
        GeneratedFile(
            path="k8s/data-pvc.yaml",
            content=dump_documents([_data_pvc(spec)], f"{pvc_header}\n{_storage_note(spec)}"),
        )
    )
    files.append(
        GeneratedFile(
            path=FILES_POD,
            content=dump_documents(
                [_files_pod(spec)],
                _(
                    "A pod that mounts the data volume, to copy the inputs in and the outputs out "
                    "(kubectl cp)."
                ),
            ),
        )
    )
    notes = "\n".join(_("NB: {note}").format(note=n) for n in placement(spec).notes)
    header = _(
        "{name}: batch/v1 Indexed Job (backoffLimitPerIndex: Kubernetes 1.33+), {shards} shard(s) of "
        "{per_pod} {gpu} each"
    ).format(name=spec.name, shards=shard_count(spec), per_pod=shard_gpus(spec), gpu=spec.gpu or "GPU")
    files.append(
        GeneratedFile(
            path="k8s/job.yaml",
            content=dump_documents(
                [_job(spec, options)],
                header + (f"\n{notes}" if notes else "") + "\n" + host_words(spec, shard_gpus(spec)),
            ),
        )
    )
    return files


def batch_readme(spec: LaunchSpec, options: GenerateOptions, image_note: str) -> str:
    """README.md of a batch job in the user's language; its commands the same in every language."""
    name = spec.name
    shards = shard_count(spec)
    code = "kubectl apply -f k8s/code-configmap.yaml\n" if not options.image else ""
    title = _("{name}: batch inference on Kubernetes").format(name=name)
    needs = _(
        "Needs a cluster with NVIDIA GPUs and the NVIDIA device plugin (or GPU Operator), Kubernetes 1.33 "
        "or later."
    )
    runs = _(
        "The job runs {shards} pod(s) at once, one shard of the inputs each (k8s/job.yaml), and ends when "
        "every shard has gone through its inputs."
    ).format(shards=shards)
    launch = batch_engine_launch(spec)
    host = host_readme_words(spec, shard_gpus(spec), "k8s/job.yaml")
    runs = sentences(
        runs,
        *([host] if host else []),
        *([model_cache_words(options, shards > 1)] if launch is not None else []),
    )
    copy_in = sentences(
        _storage_first(spec),
        _("They go on the volume of k8s/data-pvc.yaml: copy them in through the pod of k8s/data-pod.yaml:"),
    )
    if launch is None:
        inputs = sentences(input_contract(spec), copy_in)
    else:
        inputs = f"{vllm_inputs(spec, launch)}\n\n{copy_in}"
    watch = _("Each pod logs a line per chunk it writes, and `done` at the end of its shard.")
    if launch is None:
        watch = sentences(
            watch,
            _(
                "A pod of batch.py that exits with status {bad} (bad inputs or arguments) fails its "
                "shard's index at once, as it would fail the same way again; one that exits with status "
                "{no_gpu} (CUDA sees no GPU on its node) is counted as any other failure: the index is "
                "retried on a new pod, up to {tries} times (backoffLimitPerIndex)."
            ).format(bad=EXIT_BAD_INPUT, no_gpu=EXIT_NO_GPU, tries=BACKOFF_LIMIT_PER_INDEX),
        )
    if spec.spot:
        watch = sentences(
            watch,
            _(
                "Spot nodes: a reclaimed pod is replaced for its own shard, and skips the chunks it had "
                "written (a chunk cut short is run again)."
            ),
        )
    outputs = sentences(
        output_contract() if launch is None else vllm_output_contract(launch),
        _(
            "They are on the volume: copy them out when the job is complete, then delete the pod (the "
            "volume keeps the files until you delete it):"
        ),
    )
    selectors = (
        _(
            "Node selectors and tolerations follow the plan ({provider}, {pricing}); the header of "
            "k8s/job.yaml says which labels to check on your cluster (`kubectl get nodes --show-labels`)."
        )
        if spec.planned
        else _(
            "Node selectors and tolerations follow the provider and pricing given ({provider}, "
            "{pricing}); the header of k8s/job.yaml says which labels to check on your cluster "
            "(`kubectl get nodes --show-labels`)."
        )
    ).format(provider=spec.provider or _("no provider"), pricing=pricing_name(spec.pricing))
    # the node labels the job's pods select that the cluster may lack: before the job is applied
    labels = "".join(f"{words}\n\n" for words in (gpu_selection_words(spec), spot_pool_words(spec)) if words)
    heading = {
        "inputs": _("Inputs"),
        "run": _("Run and watch"),
        "outputs": _("Outputs"),
        "cost": _("Cost"),
    }
    # The data pod's busybox comes from Docker Hub as the job's image does: said beside it.
    files_note = side_image_note(spec.provider, spec.region, FILES_IMAGE, FILES_POD)
    return f"""# {title}

{needs}
{image_note}{f"{chr(10)}{files_note}" if files_note else ""}

{runs}

## {heading["inputs"]}

{inputs}

```bash
kubectl apply -f k8s/data-pvc.yaml
kubectl apply -f k8s/data-pod.yaml
kubectl wait --for=condition=Ready pod/{name}-data
kubectl cp inputs.jsonl {name}-data:{DATA_DIR}/inputs/inputs.jsonl
```

## {heading["run"]}

{labels}```bash
{code}kubectl apply -f k8s/job.yaml
kubectl get job {name} --watch
kubectl get pods -l batch.kubernetes.io/job-name={name} -L batch.kubernetes.io/job-completion-index
kubectl logs -f -l batch.kubernetes.io/job-name={name} --prefix --max-log-requests {max(shards, 5)}
```

{watch}

## {heading["outputs"]}

{outputs}

```bash
kubectl cp {name}-data:{DATA_DIR}/outputs ./outputs
cat outputs/chunk-*.jsonl > outputs.jsonl
kubectl delete pod {name}-data
```

## {heading["cost"]}

{cost_note(spec)}

{model_note(spec, f"`{DATA_DIR}/checkpoints`") if launch is None else engine_batch_note(spec, launch)}

{selectors}
"""
