"""Where a GPU pod may run: node selectors and tolerations per provider's managed Kubernetes.

Only labels and taints that the providers document are emitted as YAML; the others appear as
comments for the user to confirm on their cluster (``kubectl get nodes --show-labels``).

* ``node.kubernetes.io/instance-type`` is a Kubernetes well-known label, set by every cloud
  controller manager from the VM type (kubernetes.io/docs/reference/labels-annotations-taints/).
* EKS managed node groups label capacity ``eks.amazonaws.com/capacityType: SPOT|ON_DEMAND``.
* AKS spot node pools carry the label and the taint ``kubernetes.azure.com/scalesetpriority=spot``
  (NoSchedule); AKS's GPU guide taints GPU pools ``sku=gpu:NoSchedule``.
* GKE labels ``cloud.google.com/gke-spot: "true"`` and ``cloud.google.com/gke-accelerator``, and
  taints GPU nodes ``nvidia.com/gpu=present:NoSchedule``. Accelerator names follow GCP's GPU list
  (the ``gke_accelerator`` column of ``hardware/data/gpus.csv``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpuplan.catalog.providers import kubernetes_service
from gpuplan.deploy.grammar import vm_type
from gpuplan.deploy.spec import LaunchSpec
from gpuplan.hardware import get_gpu

__all__ = ["Placement", "placement"]


#: Tolerating the common GPU taint is harmless where nodes lack it and needed where they have it.
_GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


@dataclass
class Placement:
    node_selector: dict[str, str] = field(default_factory=dict)
    tolerations: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Comment lines: labels to check by hand, and why they are not emitted."""


def placement(spec: LaunchSpec) -> Placement:
    """Node selectors, tolerations and notes for ``spec``'s provider, GPU and pricing."""
    p = Placement(tolerations=[dict(_GPU_TOLERATION)])
    if spec.instance_type:
        label = vm_type(spec.instance_type)
        if label is not None:
            p.node_selector["node.kubernetes.io/instance-type"] = label
        else:
            p.notes.append(
                f"the plan's instance type {spec.instance_type!r} is not a VM type name (not a valid label "
                "value): select your GPU node pool with node.kubernetes.io/instance-type yourself"
            )
    provider = spec.provider
    if provider == "aws":
        if spec.spot:
            p.node_selector["eks.amazonaws.com/capacityType"] = "SPOT"
            p.notes.append(
                "EKS with Karpenter instead of managed node groups: karpenter.sh/capacity-type: spot"
            )
    elif provider == "azure":
        p.tolerations.append({"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"})
        if spec.spot:
            p.node_selector["kubernetes.azure.com/scalesetpriority"] = "spot"
            p.tolerations.append(
                {
                    "key": "kubernetes.azure.com/scalesetpriority",
                    "operator": "Equal",
                    "value": "spot",
                    "effect": "NoSchedule",
                }
            )
    elif provider == "gcp":
        label = get_gpu(spec.gpu).gke_accelerator if spec.gpu else None  # gpus.csv gke_accelerator
        if label:
            p.node_selector["cloud.google.com/gke-accelerator"] = label
        elif spec.gpu:
            p.notes.append(
                f"no GKE accelerator label known for {spec.gpu}: add cloud.google.com/gke-accelerator"
            )
        if spec.spot:
            p.node_selector["cloud.google.com/gke-spot"] = "true"
            p.tolerations.append(
                {
                    "key": "cloud.google.com/gke-spot",
                    "operator": "Equal",
                    "value": "true",
                    "effect": "NoSchedule",
                }
            )
    elif provider and (cluster := kubernetes_service(provider)):
        p.notes.append(
            f"{cluster}: node.kubernetes.io/instance-type is set by the cloud controller; the labels and "
            "taints that mark spot (preemptible) nodes are cluster-specific: add yours, e.g. a label you "
            "put on the spot node pool"
            if spec.spot
            else f"{cluster}: node.kubernetes.io/instance-type is set by the cloud controller"
        )
    if spec.gpu and provider != "gcp":
        p.notes.append(
            "with NVIDIA GPU Feature Discovery you can also select nvidia.com/gpu.product (value as "
            "`kubectl get nodes -L nvidia.com/gpu.product` shows it)"
        )
    return p
