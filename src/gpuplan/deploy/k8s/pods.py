"""Pieces shared by training and serving manifests: labels, code ConfigMap, pod spec."""

from __future__ import annotations

from typing import Any

from gpuplan.catalog.providers import PROVIDERS, facts
from gpuplan.deploy.base import GeneratedFile, GenerateOptions
from gpuplan.deploy.docker import base_image
from gpuplan.deploy.k8s.host import DAEMONSET_MEMORY_GIB, DAEMONSET_VCPUS, VM_MEMORY_OVERHEAD, host_share
from gpuplan.deploy.k8s.nodes import Placement, node_affinity
from gpuplan.deploy.spec import LaunchSpec
from gpuplan.i18n.messages import _

__all__ = [
    "CODE_DIR",
    "code_configmap",
    "container_image",
    "gpu_resources",
    "host_readme_words",
    "host_words",
    "labels",
    "pod_spec",
    "shared_storage_words",
]

#: Where train.py and launch.sh live in the container (the Dockerfile's WORKDIR too).
CODE_DIR = "/workspace"

#: Seconds between SIGTERM and SIGKILL. Must cover finishing one step plus writing a checkpoint;
#: spot notices give 30 s (GCP, Azure) to 2 min (AWS), so a longer grace buys nothing there.
TERMINATION_GRACE_S = 120


def labels(spec: LaunchSpec, component: str) -> dict[str, str]:
    return {
        "app.kubernetes.io/name": spec.name,
        "app.kubernetes.io/component": component,
        "app.kubernetes.io/managed-by": "gpuplan",
    }


def container_image(spec: LaunchSpec, options: GenerateOptions) -> str:
    """The user's image (``--image``) or the base image (the stock PyTorch image, or one with the
    plan's RDMA network's libraries), with code from a ConfigMap."""
    return options.image or base_image(spec, options)[0]


def code_configmap(spec: LaunchSpec, files: list[GeneratedFile]) -> dict[str, Any]:
    """train.py and friends as a ConfigMap, so the stock PyTorch image runs them without a build."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": f"{spec.name}-code", "labels": labels(spec, "code")},
        "data": {f.path: f.content for f in files},
    }


def gpu_resources(spec: LaunchSpec, per_pod: int) -> dict[str, Any]:
    """The GPUs of a pod of ``per_pod`` GPUs, and the host CPU and memory of their share of the
    node where the instance's are known (:func:`~gpuplan.deploy.k8s.host.host_share`: memory
    limited to its request, CPU not limited). Extended resources are requested through limits
    (requests default to them, resource by resource)."""
    serving = spec.serving
    if serving and serving.mig_profile:
        # One MIG slice per replica: the device plugin's "mixed" strategy names each profile.
        gpus: dict[str, Any] = {f"nvidia.com/mig-{serving.mig_profile}": 1}
    else:
        gpus = {"nvidia.com/gpu": per_pod}
    host = host_share(spec, per_pod)
    if host is None:
        return {"limits": gpus}
    return {
        "requests": {"cpu": host.cpu, "memory": host.memory},
        "limits": {**gpus, "memory": host.memory},
    }


def host_words(spec: LaunchSpec, per_pod: int) -> str:
    """The manifest header's line on the host CPU and memory each GPU pod requests, or on why it
    requests none and what to fill in, in the user's language."""
    host = host_share(spec, per_pod)
    instance = spec.instance_type or _("the node")
    if host is None:
        return _(
            "NB: no CPU or memory requested: the vCPUs and memory of {instance} are not known here. Add "
            "resources.requests cpu and memory (and a memory limit) to each GPU container: the node's "
            "allocatable (`kubectl describe node`) less its DaemonSets', times the pod's GPUs over the "
            "node's. Without them the pod is BestEffort, the first evicted when the node runs short of "
            "memory."
        ).format(instance=instance)
    return _(
        "Each GPU pod requests {cpu} CPU and {memory} memory (memory limited to it, CPU not): the share "
        "of {gpus} of the {n} GPUs of {instance} ({vcpus:g} vCPUs, {total:g} GiB advertised), of the "
        "memory its kubelet reports taken {overhead} % below the advertised size (the kernel's MemTotal "
        "is less: Karpenter's default vmMemoryOverheadPercent, karpenter.sh/docs/reference/settings), "
        "less the node's reservation for the kubelet and the system (the largest of GKE's, EKS's and "
        "AKS's published ones) and {ds_cpu:g} vCPU and {ds_mem:g} GiB for DaemonSets (an assumption). "
        "The node's real figure is Allocatable in `kubectl describe node NODE`, less its DaemonSets' "
        "requests there: where the share of that is less, lower cpu and memory to it, or the pod stays "
        "Pending."
    ).format(
        cpu=host.cpu,
        memory=host.memory,
        gpus=_fraction(host.share * spec.gpus_per_node),
        n=spec.gpus_per_node,
        instance=instance,
        vcpus=spec.host_vcpus,
        total=spec.host_memory_gib,
        overhead=f"{VM_MEMORY_OVERHEAD * 100:g}",
        ds_cpu=DAEMONSET_VCPUS,
        ds_mem=DAEMONSET_MEMORY_GIB,
    )


def host_readme_words(spec: LaunchSpec, per_pod: int, manifest: str) -> str | None:
    """The README's sentence where the pods request no host CPU or memory (the instance's not
    known): what to fill in, and where; None where they request their share."""
    if host_share(spec, per_pod) is not None:
        return None
    return _(
        "The GPU pods request no CPU or memory: the vCPUs and memory of {instance} are not known here "
        "(deploy a plan whose instance the catalog lists them for, or add them yourself as the header "
        "of {manifest} says). Without them a pod is BestEffort, the first evicted when its node runs "
        "short of memory, and may be placed on a node without the memory its model needs."
    ).format(instance=spec.instance_type or _("the node"), manifest=manifest)


def _fraction(gpus: float) -> str:
    """GPUs as the shortest fraction: 8, 1, 1/4 (a time-sliced share), 3/7 (a MIG slice)."""
    from fractions import Fraction

    f = Fraction(gpus).limit_denominator(64)
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def pod_spec(
    spec: LaunchSpec,
    options: GenerateOptions,
    placement: Placement,
    *,
    container: dict[str, Any],
    code_files: bool,
    volumes: list[dict[str, Any]],
    mounts: list[dict[str, Any]],
    shm_gib: int,
) -> dict[str, Any]:
    """A pod spec for one GPU container, with /dev/shm, the code volume and the placement."""
    mounts = [{"name": "dshm", "mountPath": "/dev/shm"}, *mounts]
    # Docker's default 64 MiB /dev/shm breaks DataLoader workers and NCCL's shared-memory transport;
    # a memory-backed emptyDir is the Kubernetes way to enlarge it.
    volumes = [{"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": f"{shm_gib}Gi"}}, *volumes]
    if code_files and not options.image:
        volumes.append({"name": "code", "configMap": {"name": f"{spec.name}-code", "defaultMode": 0o755}})
        mounts.append({"name": "code", "mountPath": CODE_DIR})
    out: dict[str, Any] = {
        "terminationGracePeriodSeconds": TERMINATION_GRACE_S,
        "containers": [{**container, "volumeMounts": mounts}],
        "volumes": volumes,
        "tolerations": placement.tolerations,
    }
    if placement.node_selector:
        out["nodeSelector"] = placement.node_selector
    if (affinity := node_affinity(placement)) is not None:
        out["affinity"] = affinity
    return out


def shared_storage_words(spec: LaunchSpec) -> str | None:
    """The plan's provider's ReadWriteMany storage, ``NAS (nasplugin.csi.alibabacloud.com)``; None
    where the provider is not known or names none."""
    provider = spec.provider
    shared = facts(provider).shared_storage if provider is not None and provider in PROVIDERS else None
    return None if shared is None else f"{shared.service} ({shared.csi_driver})"
