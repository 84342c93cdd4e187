"""Volumes of a training job: the StorageClass its claims name, and the dataset's volume.

* A claim that names no ``storageClassName`` takes the cluster's default class, and stays Pending
  where the cluster has none: a new EKS cluster from 1.30 has none (AWS, "Review release notes for
  Kubernetes versions on extended support", Kubernetes 1.30,
  https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions-extended.html, read
  2026-12-07). Where the provider's block storage is known (:attr:`ProviderFacts.block_storage`),
  the claims name a class of gpuplan's own, written as ``k8s/storageclass.yaml``; elsewhere the
  README's first step says to check that the cluster has a default class, with the command.
* The plan prices the dataset (``data.size_gb``) on each node's disk and a copy onto it at set-up.
  A pod's own filesystem is not that disk: the Job gives each training pod a volume of the
  dataset's size (a generic ephemeral volume: one claim per pod, made with it and deleted with it),
  mounted at :data:`DATA_DIR`, and an init container that copies the dataset into it with the
  object-storage command line of the provider where it is kept (:data:`FETCH_IMAGES`), before the
  training container starts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from gpuplan.catalog.providers import PROVIDERS, facts
from gpuplan.catalog.providers.base import BlockStorage
from gpuplan.deploy.checkpoints import DATASET_DIR, copy_source, copy_time_words, dataset_copy_commands
from gpuplan.deploy.spec import DISK_HEADROOM, LaunchSpec
from gpuplan.i18n.messages import N_, _
from gpuplan.i18n.numbers import format_gb
from gpuplan.i18n.phrases import item_list, sentences

__all__ = [
    "DATA_DIR",
    "FETCH_IMAGES",
    "block_storage",
    "data_volume",
    "data_volume_gib",
    "dataset_words",
    "fetch_container",
    "storage_class_manifest",
    "storage_first_words",
    "with_storage_class",
]

#: Where the training container reads the dataset (train.py's ``DATA_DIR`` environment variable):
#: where a SkyPilot task puts it too.
DATA_DIR = DATASET_DIR

#: The placeholder of the dataset's address in the init container, which the user replaces.
_PLACEHOLDER = "YOUR-BUCKET/PREFIX"


@dataclass(frozen=True, kw_only=True)
class FetchImage:
    """An object-storage command line's official container image, and how it copies a prefix."""

    image: str
    url: str
    """The dataset's address, with :data:`_PLACEHOLDER` for the user to replace."""
    command: str
    """A shell command that copies ``$DATA_URL`` into :data:`DATA_DIR`."""
    access: str
    """How a pod of the provider's own managed Kubernetes is given read access to the storage (marked
    for translation)."""
    source: str


#: The official images of the object-storage command lines, by the provider where the data is kept:
#: - AWS CLI v2, ``amazon/aws-cli`` ("Using the official AWS CLI version 2 Docker image",
#:   https://docs.aws.amazon.com/cli/latest/userguide/getting-started-docker.html), ``aws s3 sync``;
#: - Google Cloud CLI, ``gcr.io/google.com/cloudsdktool/google-cloud-cli`` ("Install the Google
#:   Cloud CLI Docker image", https://cloud.google.com/sdk/docs/downloads-docker), its ``slim`` tag,
#:   ``gcloud storage rsync -r``.
#: Read 2026-12-07. The other providers' tools (``checkpoints.DATASET_COPY_COMMANDS``) have no
#: official image gpuplan knows: their README says to add the init container.
FETCH_IMAGES: dict[str, FetchImage] = {
    "aws": FetchImage(
        image="amazon/aws-cli:2.15.0",
        url=f"s3://{_PLACEHOLDER}",
        command=f'aws s3 sync "$DATA_URL" {DATA_DIR}',
        access=N_("EKS Pod Identity, or IAM roles for service accounts"),
        source="https://docs.aws.amazon.com/cli/latest/userguide/getting-started-docker.html",
    ),
    "gcp": FetchImage(
        image="gcr.io/google.com/cloudsdktool/google-cloud-cli:slim",
        url=f"gs://{_PLACEHOLDER}",
        command=f'gcloud storage rsync -r "$DATA_URL" {DATA_DIR}',
        access=N_("GKE Workload Identity Federation"),
        source="https://cloud.google.com/sdk/docs/downloads-docker",
    ),
}

_GIB = 2**30


def block_storage(spec: LaunchSpec) -> BlockStorage | None:
    """The StorageClass ``spec``'s claims name, where its provider's is known; None: the default."""
    provider = spec.provider
    return facts(provider).block_storage if provider is not None and provider in PROVIDERS else None


def with_storage_class(claim_spec: dict[str, Any], spec: LaunchSpec) -> dict[str, Any]:
    """A claim's spec naming the provider's class (:func:`block_storage`), else as it is."""
    storage = block_storage(spec)
    return claim_spec if storage is None else {"storageClassName": storage.class_name, **claim_spec}


def storage_class_manifest(spec: LaunchSpec) -> dict[str, Any] | None:
    """``k8s/storageclass.yaml``'s class: volumes made when their pod is placed (in its zone), deleted
    with their claim; None where the provider's block storage is not known."""
    storage = block_storage(spec)
    if storage is None:
        return None
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": storage.class_name, "labels": {"app.kubernetes.io/managed-by": "gpuplan"}},
        "provisioner": storage.provisioner,
        "parameters": dict(storage.parameters),
        "reclaimPolicy": "Delete",
        "volumeBindingMode": "WaitForFirstConsumer",
        "allowVolumeExpansion": True,
    }


def storage_first_words(spec: LaunchSpec) -> str:
    """The README's step before the claims are made: the driver the written class needs, or a
    default class the cluster must have."""
    storage = block_storage(spec)
    if storage is None:
        return _(
            "The volumes' claims name no StorageClass: they take the cluster's default class, and stay "
            "Pending where it has none (new clusters of some providers have none). First check that "
            "`kubectl get storageclass` marks one (default); if none is, set storageClassName in "
            "k8s/checkpoints-pvc.yaml (and in the data volume of the job's manifest) to a class it lists."
        )
    return _(
        "New clusters of this provider's managed Kubernetes may have no default StorageClass ({source}), "
        "so the volumes' claims name `{name}`, a class of gpuplan's own that `k8s/storageclass.yaml` "
        "creates ({parameters} volumes of the {driver} CSI driver). First check the cluster has that "
        "driver: `{check}`; if not, install it: `{install}` (the role is the driver's IAM role, as the "
        "documentation above says)."
    ).format(
        source=storage.source,
        name=storage.class_name,
        parameters=item_list(f"{k}: {v}" for k, v in storage.parameters.items()),
        driver=storage.provisioner,
        check=storage.driver_check,
        install=storage.driver_install,
    )


def data_volume_gib(spec: LaunchSpec) -> int | None:
    """The dataset's volume, GiB: ``data.size_gb`` plus :data:`DISK_HEADROOM` for the filesystem,
    up to a multiple of 10; None where the workload gives no dataset size."""
    if not spec.dataset_gb:
        return None
    return 10 * math.ceil(spec.dataset_gb * 1e9 * (1 + DISK_HEADROOM) / _GIB / 10)


def data_volume(spec: LaunchSpec, labels: dict[str, str]) -> dict[str, Any] | None:
    """The pod's dataset volume: a generic ephemeral volume of :func:`data_volume_gib`; None
    without a dataset size."""
    gib = data_volume_gib(spec)
    if gib is None:
        return None
    claim = with_storage_class(
        {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": f"{gib}Gi"}}}, spec
    )
    return {
        "name": "data",
        "ephemeral": {"volumeClaimTemplate": {"metadata": {"labels": labels}, "spec": claim}},
    }


def _copy_example(spec: LaunchSpec) -> str:
    """The command line that copies the dataset from where it is kept, as the README's example."""
    commands = [f"`{c}`" for c in dataset_copy_commands(copy_source(spec))]
    return commands[0] if len(commands) == 1 else _("{a} or {b}").format(a=commands[0], b=commands[1])


def _fetch(spec: LaunchSpec) -> FetchImage | None:
    return FETCH_IMAGES.get(copy_source(spec) or "")


def fetch_container(spec: LaunchSpec) -> dict[str, Any] | None:
    """The init container that copies the dataset into the data volume before training, where the
    dataset's provider's command line has an official image; None elsewhere, or without a dataset
    volume. Left with the address's placeholder, it stops at once with a line saying what to set."""
    fetch = _fetch(spec)
    if fetch is None or data_volume_gib(spec) is None:
        return None
    script = (
        f'case "$DATA_URL" in *{_PLACEHOLDER}*) '
        'echo "set DATA_URL of the fetch-data init container to where your dataset is kept" >&2; '
        f"exit 2;; esac; exec {fetch.command}"
    )
    return {
        "name": "fetch-data",
        "image": fetch.image,
        "command": ["/bin/sh", "-c", script],
        "env": [{"name": "DATA_URL", "value": fetch.url}],
        "volumeMounts": [{"name": "data", "mountPath": DATA_DIR}],
    }


def dataset_words(spec: LaunchSpec, manifest: str) -> str | None:
    """The README's paragraph on the dataset's volume and how it is filled; None without a dataset
    size."""
    gib = data_volume_gib(spec)
    if gib is None:
        return None
    assert spec.dataset_gb is not None
    fetch = _fetch(spec)
    volume = _(
        "Each training pod gets a {gib} GiB volume at {dir} (DATA_DIR) for the {gb} GB dataset: a generic "
        "ephemeral volume, made and deleted with the pod, so a replacement pod (after a spot reclaim) "
        "copies the dataset again. Read it in `build_dataset()` in train.py."
    ).format(gib=f"{gib:,}", gb=format_gb(spec.dataset_gb), dir=DATA_DIR)
    if fetch is None:
        fill = _(
            "These files copy no data into it: gpuplan knows no official image of the command line of "
            "the storage the dataset is kept in. Add an init container to the pod in {manifest} that "
            "mounts the volume `data` at {dir} and copies the dataset into it (for example {example}), "
            "so that it is there before training starts."
        ).format(manifest=manifest, dir=DATA_DIR, example=_copy_example(spec))
        return sentences(volume, fill, copy_time_words(spec))
    fill = _(
        "Before training starts, the init container `fetch-data` ({image}) copies the dataset into it "
        "(`{command}`): set its DATA_URL in {manifest} to where the dataset is kept (left as {url}, the "
        "pod stops at once and its log says so)."
    ).format(image=fetch.image, command=fetch.command, manifest=manifest, url=fetch.url)
    source = copy_source(spec)
    access = (
        _(
            "Give the pod's service account read access to it ({how}), or the copy fails with an "
            "access error."
        ).format(how=_(fetch.access))
        if source == spec.provider
        else _(
            "The dataset is kept in {location}, outside this cluster's provider: give the init "
            "container credentials that read it (a Secret in its env, as its command line reads them), "
            "or the copy fails with an access error."
        ).format(location=spec.data_location or source)
    )
    fill = sentences(fill, access)
    return sentences(volume, fill, copy_time_words(spec))
