"""Training manifests: a batch/v1 Job on one node, a Kubeflow PyTorchJob across nodes."""

from __future__ import annotations

import math
from textwrap import fill
from typing import Any

from gpuplan.catalog.providers import PROVIDERS, facts
from gpuplan.deploy.base import GeneratedFile, GenerateOptions
from gpuplan.deploy.checkpoints import (
    checkpoint_disk_gib,
    checkpoint_disk_note,
    stop_grace_comment,
    stop_grace_s,
)
from gpuplan.deploy.fabric import fabric
from gpuplan.deploy.k8s.nodes import placement
from gpuplan.deploy.k8s.pods import (
    CODE_DIR,
    code_configmap,
    container_image,
    gpu_resources,
    host_words,
    labels,
    pod_spec,
    shared_storage_words,
)
from gpuplan.deploy.k8s.storage import (
    DATA_DIR,
    data_volume,
    fetch_container,
    storage_class_manifest,
    with_storage_class,
)
from gpuplan.deploy.spec import LaunchSpec
from gpuplan.deploy.torchrun import MASTER_PORT
from gpuplan.deploy.yamlout import dump_documents
from gpuplan.i18n.messages import _
from gpuplan.i18n.phrases import sentences

__all__ = [
    "checkpoint_claim",
    "checkpoint_storage_first",
    "pytorchjob_backoff_limit",
    "shared_checkpoints",
    "training_manifests",
]

#: Exit status of train.py after a SIGTERM checkpoint (train.py's EXIT_PREEMPTED).
EXIT_PREEMPTED = 143

#: Restarts after genuine failures (preemptions are not counted, see pod_failure_policy).
BACKOFF_LIMIT = 3

#: Container restarts one spot reclaim costs each surviving pod of a PyTorchJob: its NCCL call fails
#: when the peer goes (one restart), and its torchrun may time out once more waiting at the c10d
#: rendezvous (600 s join timeout, torch.distributed.elastic) while the replacement node boots (a
#: second): the plan's spot model assumes 10 minutes to get and boot a replacement. A replacement
#: that takes much longer costs one more restart per 10 minutes.
RESTARTS_PER_RECLAIM = 2

#: Reclaims a spot PyTorchJob is sized for without a plan (a workload file: the job's length unknown).
RECLAIMS_WITHOUT_PLAN = 10


def pytorchjob_backoff_limit(spec: LaunchSpec) -> tuple[int, str]:
    """``runPolicy.backoffLimit`` of a PyTorchJob, and the comment line saying how it is sized.

    The training operator (kubeflow/training-operator, ``PastBackoffLimit`` in
    pkg/controller.v1/common/job.go) fails the job once the container restarts of its running pods
    add up to backoffLimit, counting the replicas whose restartPolicy is OnFailure or Always only.
    ``restartPolicy: ExitCode`` is not counted, but it fails the job at once on an exit code of 1-127
    (kubeflow.org/v1 ``RestartPolicyExitCode``: 128-255 retryable), which torchrun returns on the
    surviving node when a peer is reclaimed. So the replicas stay OnFailure and, on spot, the limit
    makes room for the reclaims: every reclaim restarts each surviving pod (``RESTARTS_PER_RECLAIM``).
    The reclaims are the plan's expected count plus three standard deviations of a Poisson count
    (about the 99.9th percentile), rounded up."""
    if not spec.spot:
        return BACKOFF_LIMIT, _("backoffLimit {limit}: restarts after failures before the job fails.").format(
            limit=BACKOFF_LIMIT
        )
    if spec.expected_interruptions is None:
        reclaims = RECLAIMS_WITHOUT_PLAN
        why = _("{reclaims} spot reclaims (no plan: the job's length is unknown; raise it for a long run)")
    else:
        expected = spec.expected_interruptions
        reclaims = math.ceil(expected + 3 * math.sqrt(expected))
        why = _("{reclaims} spot reclaims (the plan expects {expected:.1f}; margin of 3 standard deviations)")
    survivors = spec.nodes - 1
    limit = BACKOFF_LIMIT + reclaims * survivors * RESTARTS_PER_RECLAIM
    line = _(
        "backoffLimit {limit}: the training operator counts every container restart, a spot reclaim's "
        "too ({per} for each pod that outlives it: {survivors}); sized for {why} plus {genuine} "
        "restarts after failures."
    ).format(
        limit=limit,
        per=RESTARTS_PER_RECLAIM,
        survivors=survivors,
        why=why.format(reclaims=reclaims, expected=spec.expected_interruptions or 0.0),
        genuine=BACKOFF_LIMIT,
    )
    return limit, line


def checkpoint_claim(spec: LaunchSpec, options: GenerateOptions) -> str:
    """The run's checkpoint PVC: the job's name and the deploy's run id. ``kubectl apply`` keeps a
    claim whose name exists, data and all, so a name of the workload alone would make the next run
    resume this one's last checkpoint (:mod:`gpuplan.deploy.runs`)."""
    return f"{spec.name}-{options.run_id}-checkpoints"


def shared_checkpoints(spec: LaunchSpec) -> bool:
    """Whether every node's pod writes into the checkpoint folder: FSDP across nodes, whose train.py
    saves each rank's part with torch.distributed.checkpoint into one folder (``SHARDED_CHECKPOINTS``,
    where ``folder_shared`` finds every rank sees it; else rank 0 writes the whole state). The claim
    is then ReadWriteMany and every pod mounts it; elsewhere only rank 0 writes and reads."""
    return spec.nodes > 1 and spec.parallelism == "fsdp"


def checkpoint_storage_first(spec: LaunchSpec) -> str | None:
    """The README's step before the checkpoint claim is made where every node writes into it
    (:func:`shared_checkpoints`): its class, which no default gives; None elsewhere."""
    if not shared_checkpoints(spec):
        return None
    shared = shared_storage_words(spec)
    why = _(
        "every node's pod writes its part of FSDP's sharded checkpoints into it (a cluster's default "
        "class is usually a disk one node mounts, and the claim would stay Pending; with a folder on "
        "each node instead train.py would write whole checkpoints on rank 0 and hold the full state "
        "in every rank's memory to resume)"
    )
    if shared is not None:
        return _(
            "First set storageClassName in k8s/checkpoints-pvc.yaml to a ReadWriteMany class, "
            "{shared}: {why}."
        ).format(shared=shared, why=why)
    return _(
        "First set storageClassName in k8s/checkpoints-pvc.yaml to a ReadWriteMany class of your "
        "cluster: {why}."
    ).format(why=why)


def _checkpoint_pvc(spec: LaunchSpec, options: GenerateOptions) -> dict[str, Any]:
    claim: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": checkpoint_claim(spec, options), "labels": labels(spec, "checkpoints")},
        "spec": {
            # ReadWriteOnce is enough where only rank 0 (the Job's pod, or the PyTorchJob's Master)
            # reads and writes checkpoints (train.py broadcasts the state to the other ranks); FSDP
            # across nodes writes each rank's part from every pod.
            "accessModes": ["ReadWriteMany" if shared_checkpoints(spec) else "ReadWriteOnce"],
            "resources": {"requests": {"storage": f"{checkpoint_disk_gib(spec)}Gi"}},
        },
    }
    if not shared_checkpoints(spec):  # a ReadWriteMany claim's class is the user's to set
        claim["spec"] = with_storage_class(claim["spec"], spec)
    return claim


def _container(spec: LaunchSpec, options: GenerateOptions, command: list[str]) -> dict[str, Any]:
    resources = gpu_resources(spec, spec.gpus_per_node)
    env = [
        {"name": "CKPT_DIR", "value": "/checkpoints"},
        {"name": "NPROC_PER_NODE", "value": str(spec.gpus_per_node)},
        # Uncomment-level NCCL switches live in launch.sh; INFO here would flood pod logs.
        {"name": "NCCL_DEBUG", "value": "WARN"},
    ]
    if data_volume(spec, {}) is not None:
        env.append({"name": "DATA_DIR", "value": DATA_DIR})
    net = fabric(spec)
    if net is not None:
        # The plan's time assumes the instance's RDMA network between nodes: every interface of the
        # node (the device plugin's extended resource; requests default to limits), and libfabric
        # told to use it.
        resources["limits"][net.network.k8s_resource] = net.interfaces
        env.extend({"name": k, "value": v} for k, v in net.env.items())
    return {
        "name": "train",
        "image": container_image(spec, options),
        "command": command,
        "env": env,
        "resources": resources,
    }


def _with_data(spec: LaunchSpec, pod: dict[str, Any]) -> dict[str, Any]:
    """``pod`` with the dataset's volume mounted at DATA_DIR in its container, and the init container
    that fills it, where the workload gives the dataset's size (:mod:`gpuplan.deploy.k8s.storage`)."""
    volume = data_volume(spec, labels(spec, "data"))
    if volume is None:
        return pod
    (container,) = pod["containers"]
    pod["containers"] = [
        {**container, "volumeMounts": [*container["volumeMounts"], {"name": "data", "mountPath": DATA_DIR}]}
    ]
    pod["volumes"] = [*pod["volumes"], volume]
    if (fetch := fetch_container(spec)) is not None:
        pod["initContainers"] = [fetch]
    return pod


def _shm_gib(spec: LaunchSpec) -> int:
    # 8 GiB per GPU covers DataLoader workers' batches and NCCL buffers for common jobs.
    return 8 * spec.gpus_per_node


def _job(spec: LaunchSpec, options: GenerateOptions) -> dict[str, Any]:
    where = placement(spec)
    ckpt = [{"name": "checkpoints", "persistentVolumeClaim": {"claimName": checkpoint_claim(spec, options)}}]
    pod = pod_spec(
        spec,
        options,
        where,
        container=_container(spec, options, ["bash", f"{CODE_DIR}/launch.sh"]),
        code_files=True,
        volumes=ckpt,
        mounts=[{"name": "checkpoints", "mountPath": "/checkpoints"}],
        shm_gib=_shm_gib(spec),
    )
    pod = _with_data(spec, pod)
    pod["restartPolicy"] = "Never"  # podFailurePolicy requires Never; the Job makes a new pod instead
    # SIGTERM to SIGKILL: long enough for train.py to save the plan's checkpoint
    pod["terminationGracePeriodSeconds"] = stop_grace_s(spec)
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": spec.name, "labels": labels(spec, "train")},
        "spec": {
            "completions": 1,
            "parallelism": 1,
            "backoffLimit": BACKOFF_LIMIT,
            # A reclaimed spot node (DisruptionTarget) or train.py's own "checkpointed after SIGTERM"
            # exit is not a failure: the Job starts a new pod, which resumes from the checkpoint.
            "podFailurePolicy": {
                "rules": [
                    {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]},
                    {
                        "action": "Ignore",
                        "onExitCodes": {
                            "containerName": "train",
                            "operator": "In",
                            "values": [EXIT_PREEMPTED],
                        },
                    },
                ]
            },
            "template": {"metadata": {"labels": labels(spec, "train")}, "spec": pod},
        },
    }


def _pytorchjob(spec: LaunchSpec, options: GenerateOptions) -> dict[str, Any]:
    where = placement(spec)
    # The training operator sets MASTER_ADDR, MASTER_PORT and RANK (the pod's index) in every pod;
    # launch.sh wants the node's rank as NODE_RANK.
    command = ["bash", "-c", f'NODE_RANK="$RANK" exec bash {CODE_DIR}/launch.sh']

    def replica(role: str, replicas: int) -> dict[str, Any]:
        master = role == "Master"
        volumes = (
            [{"name": "checkpoints", "persistentVolumeClaim": {"claimName": checkpoint_claim(spec, options)}}]
            if master or shared_checkpoints(spec)
            # Outside FSDP, Workers never read or write checkpoints (rank 0 does, then broadcasts), so
            # a scratch directory satisfies CKPT_DIR there.
            else [{"name": "checkpoints", "emptyDir": {}}]
        )
        container = _container(spec, options, command)
        if master:
            container["ports"] = [{"name": "rendezvous", "containerPort": MASTER_PORT}]
        pod = pod_spec(
            spec,
            options,
            where,
            container={**container, "name": "pytorch"},  # the operator looks for a container named pytorch
            code_files=True,
            volumes=volumes,
            mounts=[{"name": "checkpoints", "mountPath": "/checkpoints"}],
            shm_gib=_shm_gib(spec),
        )
        pod = _with_data(spec, pod)
        # SIGTERM to SIGKILL: long enough for rank 0 to save the plan's checkpoint (the others wait)
        pod["terminationGracePeriodSeconds"] = stop_grace_s(spec)
        return {
            "replicas": replicas,
            # OnFailure: a pod that fails (a lost peer makes NCCL time out; a preempted node) is
            # restarted and resumes from the newest checkpoint.
            "restartPolicy": "OnFailure",
            "template": {"metadata": {"labels": labels(spec, "train")}, "spec": pod},
        }

    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": spec.name, "labels": labels(spec, "train")},
        "spec": {
            "runPolicy": {"backoffLimit": pytorchjob_backoff_limit(spec)[0], "cleanPodPolicy": "None"},
            "pytorchReplicaSpecs": {
                "Master": replica("Master", 1),
                "Worker": replica("Worker", spec.nodes - 1),
            },
        },
    }


def _disk_words(spec: LaunchSpec) -> str:
    """The PVC header's lines on its size: the plan's checkpoints, or the size assumed without them."""
    said = checkpoint_disk_note(spec)
    if spec.checkpoint_gb is None:
        said = sentences(said, _("{gib} GiB is assumed.").format(gib=checkpoint_disk_gib(spec)))
    return said


def _zone_note(spec: LaunchSpec) -> str:
    """The PVC header's lines on zones, for spot capacity: "" on demand."""
    if not spec.spot:
        return ""
    provider = spec.provider
    shared = facts(provider).shared_storage if provider is not None and provider in PROVIDERS else None
    # A block volume (the usual default class) lives in one zone: the pod that replaces a reclaimed
    # one can start only on a node of that zone, and waits Pending while that zone has no spot capacity.
    return "\n" + (
        _(
            "Spot: a ReadWriteOnce block volume stays in the zone of its first pod, so a replacement waits\n"
            "for a node in that zone; a ReadWriteMany class lets it start in any zone: {shared}."
        ).format(shared=f"{shared.service} ({shared.csi_driver})")
        if shared
        else _(
            "Spot: a ReadWriteOnce block volume stays in the zone of its first pod, so a replacement waits\n"
            "for a node in that zone; a ReadWriteMany class of your cluster lets it start in any zone."
        )
    )


def training_manifests(
    spec: LaunchSpec, options: GenerateOptions, code: list[GeneratedFile]
) -> list[GeneratedFile]:
    """k8s/*.yaml for a training job; ``code`` are the files the ConfigMap carries."""
    where = placement(spec)
    notes = "\n".join(_("NB: {note}").format(note=n) for n in where.notes)
    files = []
    if not options.image:
        files.append(
            GeneratedFile(
                path="k8s/code-configmap.yaml",
                content=dump_documents(
                    [code_configmap(spec, code)],
                    _("train.py and launch.sh for the stock PyTorch image. After editing them, regenerate:")
                    + f"\nkubectl create configmap {spec.name}-code --from-file=train.py "
                    "--from-file=launch.sh --dry-run=client -o yaml > k8s/code-configmap.yaml",
                ),
            )
        )
    if (storage_class := storage_class_manifest(spec)) is not None:
        files.insert(
            0,
            GeneratedFile(
                path="k8s/storageclass.yaml",
                content=dump_documents(
                    [storage_class],
                    _(
                        "The StorageClass the checkpoint and data volumes name: made once a pod is placed,\n"
                        "in its zone; deleted with their claim. Applying it again changes nothing."
                    ),
                ),
            ),
        )
    files.append(
        GeneratedFile(
            path="k8s/checkpoints-pvc.yaml",
            content=dump_documents(
                [_checkpoint_pvc(spec, options)],
                (
                    _(
                        "Durable checkpoints: a replacement pod (after a spot reclaim) resumes from here.\n"
                        "Uses the cluster's default StorageClass (check that `kubectl get storageclass`\n"
                        "marks one (default); if none, the claim stays Pending): set storageClassName\n"
                        "to one it lists."
                    )
                    if storage_class is None
                    else _("Durable checkpoints: a replacement pod (after a spot reclaim) resumes from here.")
                )
                + "\n"
                + fill(_disk_words(spec), width=98)
                + _zone_note(spec)
                if (first := checkpoint_storage_first(spec)) is None
                else _("Durable checkpoints: a replacement pod (after a spot reclaim) resumes from here.")
                + "\n"
                + fill(first, width=98)
                + "\n"
                + fill(_disk_words(spec), width=98),
            ),
        )
    )
    if spec.nodes == 1:
        job, path, what = (
            _job(spec, options),
            "k8s/job.yaml",
            _("batch/v1 Job (podFailurePolicy: Kubernetes 1.26+)"),
        )
    else:
        job, path, what = (
            _pytorchjob(spec, options),
            "k8s/pytorchjob.yaml",
            _("Kubeflow PyTorchJob (needs the training operator)"),
        )
    header = _("{name}: {what}, {nodes} x {per_node} {gpu}").format(
        name=spec.name, what=what, nodes=spec.nodes, per_node=spec.gpus_per_node, gpu=spec.gpu or "GPU"
    ) + (f"\n{notes}" if notes else "")
    header += "\n" + host_words(spec, spec.gpus_per_node)
    header += "\n" + stop_grace_comment(spec)
    if spec.nodes > 1:
        header += "\n" + pytorchjob_backoff_limit(spec)[1]
    files.append(GeneratedFile(path=path, content=dump_documents([job], header)))
    return files
