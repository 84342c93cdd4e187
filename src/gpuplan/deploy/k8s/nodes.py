"""Where a GPU pod may run: node selectors and tolerations per provider's managed Kubernetes.

Only labels and taints that the providers document are emitted as YAML; the others appear as
comments for the user to confirm on their cluster (``kubectl get nodes --show-labels``).

* ``node.kubernetes.io/instance-type`` is a Kubernetes well-known label, set by every cloud
  controller manager from the VM type (kubernetes.io/docs/reference/labels-annotations-taints/).
* Each provider's own labels and taints (EKS capacity type, AKS spot and GPU taints, GKE spot and
  accelerator labels) are facts of its module: ``FACTS.node_labels``
  (:class:`gpuplan.catalog.providers.NodeLabels`), each with its source. Accelerator names follow
  the ``gke_accelerator`` column of ``hardware/data/gpus.csv``.
* A spot plan on a provider whose managed Kubernetes documents no spot node label (ACK, TKE, CCE and
  VKE document none: VKE's list of its system labels, volcengine.com/docs/6460/1358690, has no
  capacity label, and ACK's "Schedule applications to specific node pools",
  help.aliyun.com/en/ack/ack-managed-and-ack-dedicated/user-guide/schedule-an-application-pod-to-a-specific-node-pool,
  read 2026-12-06, has the user label a node pool, which ACK copies to every node of it) selects
  :data:`SPOT_LABEL`, a label of gpuplan's own that the user puts on the spot pool. It fails closed:
  without the label the pods stay Pending, where the instance type alone would run them as well on
  an on-demand pool of that type, at the on-demand price (ecs.gn7e-c16g1.4xlarge in cn-beijing,
  gpuplan's catalog of December 2026: ¥34.83 an hour on demand against ¥10.85 spot, 3.2×).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpuplan.catalog.providers import PROVIDERS, facts, kubernetes_service
from gpuplan.deploy.grammar import vm_type
from gpuplan.deploy.spec import LaunchSpec, on_demand_cost_words
from gpuplan.hardware import get_gpu
from gpuplan.i18n.messages import _

__all__ = [
    "GPU_PRODUCT_LABEL",
    "SPOT_LABEL",
    "Placement",
    "gpu_selection_words",
    "node_affinity",
    "own_spot_label",
    "placement",
    "spot_fallback_words",
    "spot_pool_words",
]


#: Tolerating the common GPU taint is harmless where nodes lack it and needed where they have it.
_GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}

#: gpuplan's own node label (key, value) for spot capacity, selected where the provider documents
#: none. Prefixed, so that it names no label of Kubernetes' or a provider's: the prefix is the
#: single DNS label ``gpuplan`` (a label key's prefix "must be a DNS subdomain", Kubernetes docs,
#: "Labels and Selectors", Syntax and character set), not a domain name the project does not hold.
SPOT_LABEL = ("gpuplan/capacity", "spot")
#: The GPU model label of NVIDIA GPU Feature Discovery (NVIDIA, "GPU Feature Discovery", README,
#: https://github.com/NVIDIA/k8s-device-plugin/tree/main/docs/gpu-feature-discovery); its value, the
#: GPU's product name as the node reports it, is read from the cluster by the user, not guessed here.
GPU_PRODUCT_LABEL = "nvidia.com/gpu.product"


@dataclass
class Placement:
    node_selector: dict[str, str] = field(default_factory=dict)
    tolerations: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Comment lines, in the user's language: labels to check by hand, and why they are not emitted."""
    preferred: dict[str, str] = field(default_factory=dict)
    """Labels the pods prefer, not require (a preferred node affinity): a service's spot label."""


def node_affinity(p: Placement) -> dict[str, Any] | None:
    """The pod's ``affinity`` for :attr:`Placement.preferred`: each label a preference of the
    scheduler's (Kubernetes, "Assigning Pods to Nodes", node affinity,
    kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/); None without one."""
    if not p.preferred:
        return None
    terms = [
        {"weight": 100, "preference": {"matchExpressions": [{"key": k, "operator": "In", "values": [v]}]}}
        for k, v in sorted(p.preferred.items())
    ]
    return {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": terms}}


def placement(spec: LaunchSpec, *, service: bool = False) -> Placement:
    """Node selectors, tolerations and notes for ``spec``'s provider, GPU and pricing. A ``service``
    on spot prefers the provider's spot label and does not require it: its plan priced a spare and
    falls back to on-demand nodes while spot ones cannot be had, where a selector had left a
    replacement replica Pending (gpuplan's own label, which the cluster sets nowhere, stays a
    selector: :func:`own_spot_label`)."""
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
            (p.preferred if service else p.node_selector).update(labels.spot_selector)
            if labels.spot_note:
                p.notes.append(_(labels.spot_note))
            p.tolerations.extend(dict(t) for t in labels.spot_tolerations)
    elif cluster:
        p.notes.append(
            _("{cluster}: node.kubernetes.io/instance-type is set by the cloud controller").format(
                cluster=cluster
            )
        )
    if own_spot_label(spec):
        key, value = SPOT_LABEL
        p.node_selector[key] = value
        p.notes.append(
            _(
                "{where} documents no label that marks spot nodes: these pods select {key}={value}, a "
                "label of gpuplan's own; put it on your spot node pool (its node labels, so that new "
                "nodes carry it too, or `kubectl label nodes NODE {key}={value}`). Until then they stay "
                "Pending, rather than run on on-demand nodes of the same type at the on-demand price"
            ).format(where=cluster or _("the provider"), key=key, value=value)
        )
    if spec.gpu and not _selects_gpu(p, labels.accelerator_label if labels is not None else None):
        p.notes.append(
            _(
                "nothing here selects the {gpu}: a GPU node of any model can take these pods; add "
                "to this nodeSelector {label} with the value `kubectl get nodes -L {label}` shows for "
                "your {gpu} nodes (NVIDIA GPU Feature Discovery sets it)"
            ).format(gpu=spec.gpu, label=GPU_PRODUCT_LABEL)
        )
    elif spec.gpu and not (labels is not None and labels.accelerator_label):
        p.notes.append(
            _(
                "with NVIDIA GPU Feature Discovery you can also select nvidia.com/gpu.product (value as "
                "`kubectl get nodes -L nvidia.com/gpu.product` shows it)"
            )
        )
    return p


def _selects_gpu(p: Placement, accelerator_label: str | None) -> bool:
    """Whether ``p``'s node selector pins the GPU model: an instance type (whose GPU is fixed) or
    the provider's accelerator label. A workload deployed on a provider without one selects
    neither, and any GPU node would take its pods."""
    return "node.kubernetes.io/instance-type" in p.node_selector or (
        accelerator_label is not None and accelerator_label in p.node_selector
    )


def gpu_selection_words(spec: LaunchSpec) -> str | None:
    """The README's sentence where the pods select no GPU model (no instance type, no accelerator
    label known for the provider): which label to add, and its value from the cluster. None where
    they select one."""
    if not spec.gpu:
        return None
    provider = spec.provider
    labels = facts(provider).node_labels if provider is not None and provider in PROVIDERS else None
    if _selects_gpu(placement(spec), labels.accelerator_label if labels is not None else None):
        return None
    return _(
        "Nothing in these manifests selects the {gpu}: no instance type is known here, and no "
        "accelerator label of {where} that gpuplan knows names it, so any GPU node of the cluster, "
        "whatever its GPU, can take the pods, and the time and cost estimated for the {gpu} do not hold "
        "there. Before "
        "applying, add {label} to each nodeSelector, with the value `kubectl get nodes -L {label}` "
        "shows for your {gpu} nodes (NVIDIA GPU Feature Discovery, part of the GPU Operator, sets it)."
    ).format(
        gpu=spec.gpu,
        label=GPU_PRODUCT_LABEL,
        where=(kubernetes_service(provider) if provider is not None else None) or _("the provider"),
    )


def spot_fallback_words(spec: LaunchSpec) -> str | None:
    """The README's paragraph on giving a spot service's pods an on-demand node pool to fall back to:
    the spot selector the Deployment carries (the provider's documented label, else gpuplan's own)
    made a preference, and what an on-demand instance costs against the spot one. None off spot or
    where no spot label is selected."""
    if not spec.spot or spec.serving is None:
        return None
    spot_keys = {SPOT_LABEL[0]}
    provider = spec.provider
    labels = facts(provider).node_labels if provider is not None and provider in PROVIDERS else None
    if labels is not None:
        spot_keys |= set(labels.spot_selector)
    where = placement(spec, service=True)
    instance = spec.instance_type or spec.gpu or _("the same GPU")
    if where.preferred:
        key, value = sorted(where.preferred.items())[0]
        return _(
            "On-demand fallback: the Deployment's pods prefer spot nodes ({key}: {value}, a preferred "
            "node affinity), and do not require them: a replica the HorizontalPodAutoscaler adds, or "
            "one whose node was reclaimed, is placed on an on-demand node of {instance} where no spot "
            "node has room for it. Give the cluster an on-demand node pool of {instance} that its node "
            "autoscaler may grow (without one such a replica stays Pending until spot capacity comes "
            "back). A pod placed on the on-demand pool stays there until it is restarted (the "
            "scheduler does not move running pods). {cost}"
        ).format(key=key, value=value, instance=instance, cost=on_demand_cost_words(spec))
    selected = {k: v for k, v in where.node_selector.items() if k in spot_keys}
    if not selected:
        return None
    key, value = sorted(selected.items())[0]
    return _(
        "On-demand fallback: the Deployment's pods select spot nodes only ({key}: {value}), so a "
        "replica the HorizontalPodAutoscaler adds, or one whose node was reclaimed, stays Pending while "
        "no spot {instance} can be had. To let it fall back: add an on-demand node pool of {instance} "
        "that the cluster's node autoscaler may grow, and in k8s/deployment.yaml move "
        "{key} from the nodeSelector to a preferred node affinity "
        "(affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution, a matchExpressions "
        "entry {key} In [{value}]): the scheduler then places pods on spot nodes where it can and on "
        "the on-demand pool otherwise. A pod placed on the on-demand pool stays there until it is "
        "restarted (the scheduler does not move running pods). {cost}"
    ).format(key=key, value=value, instance=instance, cost=on_demand_cost_words(spec))


def own_spot_label(spec: LaunchSpec) -> bool:
    """Whether ``spec``'s pods select :data:`SPOT_LABEL`: spot capacity on a provider whose managed
    Kubernetes documents no spot node label (or no provider known)."""
    if not spec.spot:
        return False
    provider = spec.provider
    labels = facts(provider).node_labels if provider is not None and provider in PROVIDERS else None
    return labels is None or not labels.spot_selector


def spot_pool_words(spec: LaunchSpec) -> str | None:
    """The README's sentence on labelling the spot pool with :data:`SPOT_LABEL`; None where the pods
    select a label the provider documents (or the plan is on demand)."""
    if not own_spot_label(spec):
        return None
    key, value = SPOT_LABEL
    cluster = kubernetes_service(spec.provider) if spec.provider is not None else None
    if not spec.planned:
        # A workload deployed with --spot: no plan priced it, and no instance type is selected.
        return _(
            "These pods are for spot capacity, and {where} documents no node label that marks "
            "spot nodes, so they select one of gpuplan's own, {key}={value}: put it on your spot GPU "
            "node pool before applying (in the node pool's labels, so that the nodes it adds carry it "
            "too, or on each node: `kubectl label nodes NODE {key}={value}`). Without it the pods stay "
            "Pending; without that selector they could run on on-demand nodes as well, billed at the "
            "on-demand price and not the spot one."
        ).format(where=cluster or _("the provider"), key=key, value=value)
    return _(
        "The plan is priced at spot rates, and {where} documents no node label that marks spot nodes, "
        "so the pods select one of gpuplan's own, {key}={value}: put it on your spot GPU node pool "
        "before applying (in the node pool's labels, so that the nodes it adds carry it too, or on each "
        "node: `kubectl label nodes NODE {key}={value}`). Without it the pods stay Pending; the instance "
        "type alone would let them run on on-demand nodes of that type too, billed at the on-demand "
        "price and not at the plan's."
    ).format(where=cluster or _("the provider"), key=key, value=value)
