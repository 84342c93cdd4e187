"""Where a GPU pod may run: node selectors and tolerations per provider's managed Kubernetes.

Only labels and taints that the providers document are emitted as YAML; the others appear as
comments for the user to confirm on their cluster (``kubectl get nodes --show-labels``).

* ``node.kubernetes.io/instance-type`` is a Kubernetes well-known label, set by every cloud
  controller manager from the VM type (kubernetes.io/docs/reference/labels-annotations-taints/).
* Each provider's own labels and taints (EKS capacity type, AKS spot and GPU taints, GKE spot and
  accelerator labels) are facts of its module: ``FACTS.node_labels``
  (:class:`gpuplan.catalog.providers.NodeLabels`), each with its source. Accelerator names follow
  the ``gke_accelerator`` column of ``hardware/data/gpus.csv``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpuplan.catalog.providers import PROVIDERS, facts, kubernetes_service
from gpuplan.deploy.grammar import vm_type
from gpuplan.deploy.spec import LaunchSpec
from gpuplan.hardware import get_gpu
from gpuplan.i18n.messages import _

__all__ = ["Placement", "placement"]


#: Tolerating the common GPU taint is harmless where nodes lack it and needed where they have it.
_GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


@dataclass
class Placement:
    node_selector: dict[str, str] = field(default_factory=dict)
    tolerations: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Comment lines, in the user's language: labels to check by hand, and why they are not emitted."""


def placement(spec: LaunchSpec) -> Placement:
    """Node selectors, tolerations and notes for ``spec``'s provider, GPU and pricing."""
    p = Placement(tolerations=[dict(_GPU_TOLERATION)])
    if spec.instance_type:
        label = vm_type(spec.instance_type)
        if label is not None:
            p.node_selector["node.kubernetes.io/instance-type"] = label
        else:
            p.notes.append(
                _(
                    "the plan's instance type {instance!r} is not a VM type name (not a valid label "
                    "value): select your GPU node pool with node.kubernetes.io/instance-type yourself"
                ).format(instance=spec.instance_type)
            )
    provider = spec.provider
    labels = facts(provider).node_labels if provider is not None and provider in PROVIDERS else None
    cluster = kubernetes_service(provider) if provider is not None else None
    if labels is not None:
        p.tolerations.extend(dict(t) for t in labels.gpu_tolerations)
        if labels.accelerator_label:
            value = get_gpu(spec.gpu).gke_accelerator if spec.gpu else None  # gpus.csv gke_accelerator
            if value:
                p.node_selector[labels.accelerator_label] = value
            elif spec.gpu:
                p.notes.append(
                    _("no {cluster} accelerator label known for {gpu}: add {label}").format(
                        cluster=cluster, gpu=spec.gpu, label=labels.accelerator_label
                    )
                )
        if spec.spot:
            p.node_selector.update(labels.spot_selector)
            if labels.spot_note:
                p.notes.append(_(labels.spot_note))
            p.tolerations.extend(dict(t) for t in labels.spot_tolerations)
    elif cluster:
        p.notes.append(
            _(
                "{cluster}: node.kubernetes.io/instance-type is set by the cloud controller; the labels and "
                "taints that mark spot (preemptible) nodes are cluster-specific: add yours, e.g. a label you "
                "put on the spot node pool"
            ).format(cluster=cluster)
            if spec.spot
            else _("{cluster}: node.kubernetes.io/instance-type is set by the cloud controller").format(
                cluster=cluster
            )
        )
    if spec.gpu and not (labels is not None and labels.accelerator_label):
        p.notes.append(
            _(
                "with NVIDIA GPU Feature Discovery you can also select nvidia.com/gpu.product (value as "
                "`kubectl get nodes -L nvidia.com/gpu.product` shows it)"
            )
        )
    return p
