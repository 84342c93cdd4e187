"""``--target skypilot`` for batch inference: a SkyPilot managed job (``sky jobs launch``) that runs
batch.py once per GPU group on each of the plan's nodes, over inputs in a bucket, and its README. A
decoder LLM with Hub weights (:func:`gpuplan.deploy.engine.batch_engine_launch`) runs vllm_batch.py
instead, on vLLM's image as the nodes' runtime (``image_id: docker:…``, where SkyPilot runs setup
and run inside the container and mounts buckets there too), each shard one vLLM server on its GPUs.

The job's nodes mount one bucket at ``/data`` (SkyPilot storage: ``file_mounts`` with a ``name``, a
local ``source`` and ``mode: MOUNT``, docs.skypilot.co "Cloud Buckets"): ``sky jobs launch``
uploads the folder ``data/`` beside task.yaml to it (the inputs, and a checkpoint where the user
has one), and every shard writes its output chunks to ``/data/outputs``. batch.py writes a chunk
to a temporary name and renames it when whole; on a bucket mount a rename is a copy of the whole
object then a delete, so a chunk's name still appears only once the chunk is complete. When a
spot node is reclaimed the managed job is recovered on new nodes (``resources.job_recovery``,
set by :mod:`gpuplan.deploy.skypilot`), and each shard skips the chunks already in the bucket.

Which shard runs where: a node runs ``gpus_per_node // shard_gpus`` shards, shard ``i`` of node
``SKYPILOT_NODE_RANK`` being number ``SKYPILOT_NODE_RANK x shards_per_node + i`` of
``SHARD_COUNT``. SkyPilot sets ``SKYPILOT_NODE_RANK`` (0 to num_nodes - 1) in the ``run`` of every
node ("SkyPilot environment variables",
https://docs.skypilot.co/en/stable/running-jobs/environment-variables.html; the name is
``sky/skylet/constants.py`` ``SKYPILOT_NODE_RANK`` in 0.14.1).

Nothing of the plan but numbers reaches the ``run`` script, but for vLLM's arguments, each
shell-quoted as one word: the job's name is a DNS label, and the paths are gpuplan's own.
"""

from __future__ import annotations

import shlex
from typing import Any

from gpuplan.deploy.base import GeneratedFile, double_quoted
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
from gpuplan.deploy.checkpoints import DATASET_ENV, dataset_example, skypilot_dataset_source
from gpuplan.deploy.engine import EngineLaunch
from gpuplan.deploy.images import setup_torch_words
from gpuplan.deploy.runs import bucket_name as run_bucket
from gpuplan.deploy.spec import LaunchSpec, weights_dtype_words
from gpuplan.i18n.messages import _

__all__ = ["BUCKET_ENV", "DATA_DIR", "batch_readme", "batch_task", "bucket_name", "run_script", "skyignore"]

#: Where the bucket is mounted on every node: inputs/, outputs/ and checkpoints/ in it.
DATA_DIR = "/data"

#: The task's variable that names the bucket: ``sky jobs launch --env DATA_BUCKET=…`` picks another.
BUCKET_ENV = "DATA_BUCKET"

#: The local folder, beside task.yaml, that ``sky jobs launch`` uploads to the bucket.
LOCAL_DATA = "data"

#: Where the inputs are on every node when they are read from the bucket they are kept in.
INPUTS_DIR = "/inputs"


def bucket_name(spec: LaunchSpec, run_id: str) -> str:
    """The bucket's default name: the job's name, the deploy's run id and ``-data``, as the
    training task's checkpoint bucket is named (:func:`gpuplan.deploy.runs.bucket_name`): bucket
    names are global, and the job's name alone is taken by the first user of an example."""
    return run_bucket(spec.name, run_id, "data")


def shards_per_node(spec: LaunchSpec) -> int:
    return spec.gpus_per_node // shard_gpus(spec)


def run_script(spec: LaunchSpec, launch: EngineLaunch | None = None) -> str:
    """The task's ``run``: on each node, a batch.py (vllm_batch.py where ``launch``) per GPU group
    in the background, each with its shard's index and its own GPUs; then it waits for all of them
    and exits with a failed shard's status (0 when every shard finished). The settings every shard
    shares are the task's ``envs``."""
    command = (
        "python3 batch.py"
        if launch is None
        else shlex.join(["python3", VLLM_RUNNER, "--", *launch.batch_args])
    )
    per, local = shard_gpus(spec), shards_per_node(spec)
    # in the deploy's language, as launch.sh's messages are (batch.py's own log stays English)
    failed = double_quoted(
        _("node {node}: a shard exited with status {status}"), node="$SKYPILOT_NODE_RANK", status="$code"
    )
    lines = [
        "set -uo pipefail",
        "# SkyPilot sets SKYPILOT_NODE_RANK (0 to num_nodes - 1) on every node:",
        "# https://docs.skypilot.co/en/stable/running-jobs/environment-variables.html",
        "pids=()",
        f"for i in $(seq 0 {local - 1}); do",
    ]
    if local > 1:
        # This shard's GPUs only: batch.py runs on the first GPU it sees.
        gpus = ",".join(f"$((i * {per} + {k}))" if per > 1 else "$i" for k in range(per))
        lines.append(f"  export CUDA_VISIBLE_DEVICES={gpus}")
    lines += [
        f"  JOB_COMPLETION_INDEX=$((SKYPILOT_NODE_RANK * {local} + i)) {command} &",
        '  pids+=("$!")',
        "done",
        "status=0",
        'for pid in "${pids[@]}"; do',
        '  wait "$pid" && continue',
        "  code=$?",
        f'  echo "{failed}" >&2',
        # A failure other than a SIGTERM (batch.py's 143) is what the job reports.
        '  if [ "$status" -eq 0 ] || [ "$status" -eq 143 ]; then status=$code; fi',
        "done",
        'exit "$status"',
    ]
    return "\n".join(lines) + "\n"


def batch_task(
    spec: LaunchSpec,
    resources: dict[str, Any],
    setup: str | None,
    workdir: str,
    launch: EngineLaunch | None = None,
    *,
    run_id: str,
) -> dict[str, Any]:
    """The managed job's task: ``resources`` the plan's (with its job recovery), ``setup`` the
    lines that install what batch.py needs (None: nothing to install), ``workdir`` the absolute
    folder of the files; ``launch``: vLLM's, where the shards run vllm_batch.py; ``run_id``: the
    deploy's, in the bucket's name. Inputs kept in a bucket SkyPilot reads (the workload's
    ``data.location``) are read from there, mounted at :data:`INPUTS_DIR`, not uploaded."""
    kept = skypilot_dataset_source(spec)
    envs: dict[str, str | None] = {
        # Bucket names are global: `sky jobs launch --env DATA_BUCKET=<yours>` to pick another.
        BUCKET_ENV: bucket_name(spec, run_id),
        # the bucket (and prefix) the inputs are kept in: required at launch
        **({DATASET_ENV: None} if kept else {}),
        "INPUT_PATH": INPUTS_DIR if kept else f"{DATA_DIR}/inputs",
        "OUTPUT_DIR": f"{DATA_DIR}/outputs",
        **({"CKPT_DIR": f"{DATA_DIR}/checkpoints"} if launch is None else {}),
        "SHARD_COUNT": str(shard_count(spec)),
    }
    if launch is not None:
        envs["CHUNK_SIZE"] = str(chunk_requests(spec))
        envs["CONCURRENCY"] = str(in_flight_requests(spec))
    task: dict[str, Any] = {
        "name": spec.name,
        "resources": resources,
        "num_nodes": spec.nodes,
        "envs": envs,
        # Absolute, as the training task's: SkyPilot reads a relative path from the folder `sky` is
        # run in. .skyignore keeps data/ out of it: the bucket carries that.
        "workdir": workdir,
        "file_mounts": {
            DATA_DIR: {
                "name": f"${{{BUCKET_ENV}}}",
                # Uploaded to the bucket at launch; the outputs stay in the bucket after the job.
                "source": f"{workdir.rstrip('/')}/{LOCAL_DATA}",
                "mode": "MOUNT",
                "persistent": True,
            },
            # the inputs where they are kept, read as each shard goes through them
            **({INPUTS_DIR: {"source": kept, "mode": "MOUNT"}} if kept else {}),
        },
    }
    if launch is not None:
        # given at launch (`sky jobs launch --secret HF_TOKEN`), never written here
        task["secrets"] = {"HF_TOKEN": None}
    if setup is not None:
        task["setup"] = setup
    task["run"] = run_script(spec, launch)
    return task


def skyignore() -> GeneratedFile:
    """``.skyignore``: what SkyPilot leaves out of the workdir it copies to every node (the
    inputs go to the bucket once, not to every node; fetched outputs go nowhere)."""
    return GeneratedFile(path=".skyignore", content=f"/{LOCAL_DATA}\n/outputs\n")


#: On Azure, SkyPilot keeps a bucket as a Blob container of that name in a storage account it makes
#: (``sky{region_hash}{user_hash}{subscription_hash}``, in the resource group ``sky{user_hash}``),
#: unless ``azure.storage_account`` in ~/.sky/config.yaml names one, and gives the signed-in user
#: the Storage Blob Data Owner role on an account it makes (skypilot-org/skypilot,
#: sky/data/storage.py ``AzureBlobStore``: DEFAULT_STORAGE_ACCOUNT_NAME, _create_storage_account;
#: sky/adaptors/azure.py ``assign_storage_account_iam_role``). The account's name is not in
#: ``sky storage ls``: the first line finds the ``sky…`` account that holds the container
#: (``az storage container exists --account-name A --name C --auth-mode login --query exists``),
#: the second copies outputs/ out of it, blob names kept as paths (``az storage blob download-batch
#: --source CONTAINER --pattern 'dir/*' --destination .``, the Azure CLI's own example of one folder;
#: ``--auth-mode login``: the user's Microsoft Entra sign-in). Microsoft Learn, Azure CLI reference:
#: https://learn.microsoft.com/en-us/cli/azure/storage/blob#az-storage-blob-download-batch and
#: https://learn.microsoft.com/en-us/cli/azure/storage/container#az-storage-container-exists.
_AZURE_FETCH = (
    "AZ_ACCOUNT=$(for a in $(az storage account list --query \"[?starts_with(name, 'sky')].name\" -o tsv); "
    'do [ "$(az storage container exists --account-name "$a" --name "$DATA_BUCKET" --auth-mode login '
    '--query exists -o tsv)" = true ] && echo "$a"; done | head -n 1)\n'
    'az storage blob download-batch --account-name "$AZ_ACCOUNT" --auth-mode login --source "$DATA_BUCKET" '
    '--pattern "outputs/*" --destination .'
)

#: SkyPilot's cloud -> the commands that copy the outputs from the bucket it makes there (the store
#: of the task's cloud: sky/task.py _get_preferred_store).
_FETCH = {
    "aws": 'aws s3 sync "s3://$DATA_BUCKET/outputs" outputs/',
    "gcp": 'gcloud storage rsync --recursive "gs://$DATA_BUCKET/outputs" outputs/',
    "azure": _AZURE_FETCH,
}

#: The stores a README without a cloud gives the commands of, by SkyPilot's cloud.
_STORES = (("S3", "aws"), ("GCS", "gcp"), ("Azure Blob", "azure"))


def batch_readme(
    spec: LaunchSpec,
    cloud: str | None,
    where: str,
    max_restarts: int,
    launch: EngineLaunch | None = None,
    *,
    run_id: str,
) -> str:
    """README.md of the batch job in the user's language, its commands the same in every language;
    ``cloud``: SkyPilot's name of the plan's cloud (None: SkyPilot picks), ``where``: a note on the
    instance SkyPilot may pick instead of the plan's ("" for none), ``max_restarts``: the task's
    ``job_recovery.max_restarts_on_errors``; ``launch``: vLLM's, where the shards run vllm_batch.py."""
    name, shards, local = spec.name, shard_count(spec), shards_per_node(spec)
    title = _("{name}: batch inference on SkyPilot").format(name=name)
    runs = _(
        "A managed job (`sky jobs launch`) on {nodes} node(s): {shards} shard(s) at once, {local} on each "
        "node, each on its own {per} GPU(s) and running {runner} over its part of the inputs. The job "
        "ends when every shard has gone through its inputs, and SkyPilot then takes its nodes down."
    ).format(
        nodes=spec.nodes,
        shards=shards,
        local=local,
        per=shard_gpus(spec),
        runner="batch.py" if launch is None else VLLM_RUNNER,
    )
    kept = skypilot_dataset_source(spec)
    if kept is None:
        bucket_words = _(
            "Put them in `data/inputs/` beside task.yaml: `sky jobs launch` uploads `data/` to the bucket "
            "DATA_BUCKET names, which every node mounts at {data}. Bucket names are global: this one "
            "carries the deploy's run id; pick one of your own if it is taken all the same."
        ).format(data=DATA_DIR)
        prepare = "mkdir -p data/inputs && cp inputs.jsonl data/inputs/"
        env = ""
    else:
        bucket_words = _(
            "They are kept in {location} (data.location): every node mounts `{source}` at {inputs} and "
            "reads them from there, so nothing is uploaded; give the bucket and prefix they are in at "
            "launch (`--env {env}={example}`). The outputs go to the bucket DATA_BUCKET names, which "
            "every node mounts at {data}, made at launch from the empty `data/` beside task.yaml. "
            "Bucket names are global: this one carries the deploy's run id; pick one of your own if it "
            "is taken all the same."
        ).format(
            location=spec.data_location,
            source=kept,
            inputs=INPUTS_DIR,
            env=DATASET_ENV,
            example=dataset_example(spec),
            data=DATA_DIR,
        )
        prepare = "mkdir -p data"
        env = f" --env {DATASET_ENV}={dataset_example(spec)}"
    if launch is None:
        inputs = sentences(input_contract(spec), bucket_words)
    else:
        inputs = f"{vllm_inputs(spec, launch)}\n\n{bucket_words}"
    bucket = _("the bucket of the inputs and the outputs") if kept is None else _("the bucket of the outputs")
    queue = _("the job's state: RUNNING, RECOVERING after a spot reclaim, SUCCEEDED at the end")
    logs = _("every node's shards: a line per chunk written, `done` at the end of a shard")
    watch = _(
        "A shard that fails fails the job with its exit status; SkyPilot runs the job again up to {n} "
        "times, and each shard skips the chunks already in the bucket."
    ).format(n=max_restarts)
    # SkyPilot's max_restarts_on_errors counts every failure alike: batch.py's bad input (status 2)
    # is run again too, and fails the same way.
    watch = sentences(
        watch,
        _(
            "Bad inputs (`error:` in the log, status 2) fail every time: `sky jobs cancel -n {name}`, fix "
            "them in `data/inputs/` and launch again (where a fix adds or removes a line, empty the "
            "bucket's outputs/ first: the chunks after it were cut from other lines)."
        ).format(name=name),
    )
    if spec.spot:
        watch = sentences(
            watch,
            _(
                "Spot nodes: when one is reclaimed, SkyPilot recovers the job on new nodes "
                "(`job_recovery` in task.yaml), which skip the chunks written (a chunk cut short is run "
                "again)."
            ),
        )
    fetch = _FETCH.get(cloud or "")
    if fetch is None:
        fetch = "\n".join(
            f"{_FETCH[c]}   # {store}" if "\n" not in _FETCH[c] else f"# {store}:\n{_FETCH[c]}"
            for store, c in _STORES
        )
        stores = _(
            "SkyPilot makes the bucket in the object store of the cloud the job runs on, or of the first "
            "cloud `sky check` enables that has one: `sky storage ls` names it. Copy the outputs from "
            "there with that store's tool (S3, GCS and Azure Blob below)."
        )
    else:
        stores = ""
    azure = (
        _(
            "On Azure the bucket is a Blob container in a storage account SkyPilot made (its name starts "
            "with sky; `sky storage ls` does not show it): the first command finds it, the second copies "
            "outputs/ with your `az login`, which SkyPilot gave the Storage Blob Data Owner role on it. "
            "Where `azure.storage_account` in ~/.sky/config.yaml names your own account, set AZ_ACCOUNT "
            "to its name instead of the first command."
        )
        if _AZURE_FETCH in fetch
        else ""
    )
    outputs = sentences(
        output_contract() if launch is None else vllm_output_contract(launch),
        _("They are in the bucket, under outputs/: copy them out once the job has SUCCEEDED."),
        *([stores] if stores else []),
        *([azure] if azure else []),
    )
    delete = _("when done: the bucket and every file in it")
    if launch is None:
        model, secret = model_note(spec, "`data/checkpoints/`"), ""
    else:
        # the token as the service of the model takes it: given at launch from the environment
        model, secret = engine_batch_note(spec, launch, "skypilot"), " --secret HF_TOKEN"
        if spec.weights_gb is not None:
            model = sentences(
                model,
                _(
                    "Each node's disk is {disk} GB (`disk_size`): the {gb} GB of weights vLLM downloads "
                    "onto it before its shards start, with room for the OS and the image."
                ).format(disk=f"{spec.disk_size_gb:,}", gb=f"{spec.weights_gb:,.1f}"),
                weights_dtype_words(spec),
            )
    # the PyTorch batch.py's setup installs (none under vLLM's image, which carries its own)
    torch = setup_torch_words(spec.gpu_info) if launch is None else ""
    torch = f"\n{torch}\n" if torch else ""
    heading = {"inputs": _("Inputs"), "run": _("Run and watch"), "outputs": _("Outputs"), "cost": _("Cost")}
    where = f"\n{where}\n" if where else ""
    return f"""# {title}

{runs}
{where}
## {heading["inputs"]}

{inputs}

```bash
pip install "skypilot[{cloud or "aws"}]" && sky check
export DATA_BUCKET={bucket_name(spec, run_id)}   # {bucket}
{prepare}
```

## {heading["run"]}

```bash
sky jobs launch -n {name} task.yaml --env DATA_BUCKET{env}{secret}
sky jobs queue   # {queue}
sky jobs logs -n {name}   # {logs}
```

{watch}

## {heading["outputs"]}

{outputs}

```bash
{fetch}
cat outputs/chunk-*.jsonl > outputs.jsonl
sky storage delete "$DATA_BUCKET"   # {delete}
```

## {heading["cost"]}

{cost_note(spec)}

{model}
{torch}"""
