"""Pieces shared by training and serving manifests: labels, code ConfigMap, pod spec."""

from __future__ import annotations

from typing import Any

from gpuplan.deploy.base import GeneratedFile, GenerateOptions
from gpuplan.deploy.docker import base_image
from gpuplan.deploy.k8s.nodes import Placement
from gpuplan.deploy.spec import LaunchSpec

__all__ = ["CODE_DIR", "code_configmap", "container_image", "gpu_resources", "labels", "pod_spec"]

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
    """Extended resources are requested through limits (requests default to them)."""
    serving = spec.serving
    if serving and serving.mig_profile:
        # One MIG slice per replica: the device plugin's "mixed" strategy names each profile.
        return {"limits": {f"nvidia.com/mig-{serving.mig_profile}": 1}}
    return {"limits": {"nvidia.com/gpu": per_pod}}


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
    return out
