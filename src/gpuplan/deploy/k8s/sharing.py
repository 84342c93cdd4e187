"""Kubernetes configuration for GPUs shared between services: MIG layouts or time-slicing.

- **MIG** (GPU Operator, ``mig.strategy: mixed``): a mig-parted ConfigMap with one named layout per
  node (``nvidia.com/mig.config=gpuplan-node-<n>`` on the node applies it) and, per service and
  node, a Deployment that requests its slice as ``nvidia.com/mig-<profile>: 1``.
- **time-slicing**: the device plugin's sharing ConfigMap with one entry per node
  (``nvidia.com/device-plugin.config=gpuplan-node-<n>`` on the node selects it), advertising each
  of its GPUs as N ``nvidia.com/gpu`` (N = the most services one GPU of that node carries), and per
  service and node a Deployment requesting one each. Which GPU of a node a replica lands on is the
  scheduler's choice; which node, the packing's.
- **mps**: the device plugin's MPS sharing ConfigMap (``sharing.mps``, k8s-device-plugin ≥ 0.15),
  per node as for time-slicing: each GPU is advertised as N ``nvidia.com/gpu``, each with 1/N of
  its memory and threads.
- **whole**: Deployments requesting ``nvidia.com/gpu: 1`` per replica, on any node.

A service whose workload names its model runs deploy's engine container for it (the engine's
pinned image, the model and settings as arguments: :func:`gpuplan.deploy.k8s.serving.
engine_container`) with its slice or share as the resource; one given by numbers alone runs the
default engine's pinned image, for the user to give its model.

GPU ``i`` of a packing is on node ``i // gpus_per_node`` (the instance's GPUs per node). Node
``n`` is named ``gpuplan-node-<n>`` in the one GPU Operator label that configures its sharing
(``nvidia.com/mig.config`` or ``nvidia.com/device-plugin.config``), and the Deployments of the
replicas packed onto it select that label.

The device plugin cannot say which GPU of a node a time-sliced replica runs on: its time-slicing
config applies one ``replicas`` count to every GPU of a node and "indiscriminately hands them out"
("With both time-slicing and MPS, the same sharing method is applied to all GPUs on a node. You
cannot configure sharing on a per-GPU basis": NVIDIA/k8s-device-plugin README, "Shared Access to
GPUs"; its ``devices`` and ``rename`` keys are parsed but ignored, "not yet supported":
``api/config/v1/replicas.go`` ``disableResoureRenaming``, read 2026-12-04). So where a node holds
several GPUs packed differently, any ``replicas`` of its pods may land on one GPU:
:func:`time_slice_risks` finds the nodes where that can overfill a GPU's memory, and
:func:`placement_note` says so in ``k8s/PLACEMENT.md``.

Names and keys follow NVIDIA's GPU Operator docs ("GPU Operator with MIG", "Time-Slicing GPUs in
Kubernetes") and mig-parted's config format (``version: v1``, ``mig-configs``, ``devices``,
``mig-enabled``, ``mig-devices``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpuplan.deploy.base import GeneratedFile
from gpuplan.deploy.yamlout import dump_documents
from gpuplan.i18n.messages import _
from gpuplan.i18n.phrases import item_list
from gpuplan.perf.engines import NEWEST_KNOWN

__all__ = [
    "NODE_LABEL",
    "PLACEHOLDER_IMAGE",
    "NodeRisk",
    "SharedDeployment",
    "SharingLayout",
    "dns_names",
    "node_name",
    "placement_note",
    "schedule_note",
    "sharing_manifests",
    "time_slice_risks",
]

_NAMESPACE = "gpu-operator"


#: The image of a service given by numbers alone (no workload, so no model known): the default
#: engine's, pinned as deploy pins it, for the user to add the model.
PLACEHOLDER_IMAGE = f"vllm/vllm-openai:v{NEWEST_KNOWN['vllm']}"


@dataclass(frozen=True, kw_only=True)
class SharedDeployment:
    name: str
    resource: str
    """``nvidia.com/mig-3g.40gb`` or ``nvidia.com/gpu``."""
    replicas: int
    container: Mapping[str, Any] | None = None
    """deploy's engine container for the service's workload (its ``resources`` replaced by one of
    :attr:`resource`); None: a service given by numbers alone, which runs :data:`PLACEHOLDER_IMAGE`."""
    node: int | None = None
    """The node (``gpuplan-node-<node>``) its replicas are packed onto; None: any node (whole GPUs)."""


@dataclass(frozen=True, kw_only=True)
class SharingLayout:
    sharing: str
    """``mig``, ``time-slice``, ``mps`` or ``whole``."""
    mig_per_gpu: tuple[dict[str, int], ...] = ()
    """MIG: profile -> instances, for GPU 0, 1, … (GPUs in node order)."""
    gpus_per_node: int | None = None
    """GPUs one node (instance) holds; GPU ``i`` is on node ``i // gpus_per_node``. Needed by every
    sharing but ``whole``."""
    time_slice_replicas: tuple[int, ...] = ()
    """time-slice / mps: ``nvidia.com/gpu`` advertised per GPU, for node 0, 1, …"""

    def __post_init__(self) -> None:
        if self.sharing != "whole" and (self.gpus_per_node is None or self.gpus_per_node < 1):
            raise ValueError(f"{self.sharing} sharing needs gpus_per_node ≥ 1")

    @property
    def nodes(self) -> int:
        """Nodes the layout spans."""
        if self.sharing == "mig":
            per_node = self.gpus_per_node or 1
            return (len(self.mig_per_gpu) + per_node - 1) // per_node
        return len(self.time_slice_replicas)


#: The GPU Operator node label that names a node's sharing configuration, per sharing.
NODE_LABEL = {"mig": "nvidia.com/mig.config", "time-slice": "nvidia.com/device-plugin.config"}
NODE_LABEL["mps"] = NODE_LABEL["time-slice"]


def node_name(node: int) -> str:
    """Node ``node``'s name in its sharing label, and the key of its configuration."""
    return f"gpuplan-node-{node}"


#: A DNS-1123 label (a Deployment's name, a label value) holds at most 63 characters.
_LABEL_CHARS = 63


def _dns(name: str, room: int = _LABEL_CHARS) -> str:
    """``name`` as a DNS-1123 label of at most ``room`` characters: lower-case ASCII letters and
    digits, other characters (``_``, ``.``, ``é``, ``中``) as one ``-``, none at either end."""
    out = re.sub(r"[^a-z0-9]+", "-", name.lower().encode("ascii", "replace").decode())
    return out.strip("-")[:room].rstrip("-") or "service"


def dns_names(names: Sequence[str]) -> list[str]:
    """One DNS-1123 label per name, unique: names that clean to the same label (``chat.8b``,
    ``chat_8b``, ``Chat 8B``) get ``-2``, ``-3`` … in their order, shortened to keep 63 characters."""
    out: list[str] = []
    taken: set[str] = set()
    for name in names:
        label = _dns(name)
        n = 1
        while label in taken:
            n += 1
            suffix = f"-{n}"
            label = _dns(name, _LABEL_CHARS - len(suffix)) + suffix
        taken.add(label)
        out.append(label)
    return out


def _deployment(d: SharedDeployment, name: str, label: str | None) -> dict[str, Any]:
    labels = {"app.kubernetes.io/name": name, "app.kubernetes.io/managed-by": "gpuplan"}
    container: dict[str, Any] = (
        dict(d.container) if d.container is not None else {"name": "serve", "image": PLACEHOLDER_IMAGE}
    )
    container["resources"] = {"limits": {d.resource: 1}}
    pod: dict[str, Any] = {"containers": [container]}
    if d.node is not None and label is not None:
        # The node the packing put these replicas on: its GPUs hold their slices / time shares.
        pod["nodeSelector"] = {label: node_name(d.node)}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": labels},
        "spec": {
            "replicas": d.replicas,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": pod,
            },
        },
    }


def _mig_parted(layout: SharingLayout) -> dict[str, Any]:
    lines = ["version: v1", "mig-configs:"]
    per_node = layout.gpus_per_node or 1
    gpus = layout.mig_per_gpu
    for node in range(layout.nodes):
        lines.append(f"  {node_name(node)}:")
        for i, devices in enumerate(gpus[node * per_node : (node + 1) * per_node]):
            lines.append(f"    - devices: [{i}]")
            lines.append("      mig-enabled: true")
            lines.append("      mig-devices:")
            lines.extend(f'        "{p}": {n}' for p, n in sorted(devices.items()))
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "gpuplan-mig-parted-config", "namespace": _NAMESPACE},
        "data": {"config.yaml": "\n".join(lines) + "\n"},
    }


def _time_slicing(replicas: Sequence[int], key: str = "timeSlicing") -> dict[str, Any]:
    def config(n: int) -> str:
        return (
            f"version: v1\nsharing:\n  {key}:\n    resources:\n"
            f"      - name: nvidia.com/gpu\n        replicas: {n}\n"
        )

    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "time-slicing-config", "namespace": _NAMESPACE},
        "data": {node_name(node): config(n) for node, n in enumerate(replicas)},
    }


def _label_commands(label: str, nodes: int) -> str:
    return "\n".join(
        f"  kubectl label node NODE_{n} {label}={node_name(n)} --overwrite" for n in range(nodes)
    )


def sharing_manifests(
    layout: SharingLayout, deployments: Sequence[SharedDeployment], notes: Sequence[str] = ()
) -> list[GeneratedFile]:
    """The files: ``k8s/sharing-config.yaml`` (MIG or time-slicing) and ``k8s/services.yaml``, their
    comments in the user's language; ``notes``: sentences for the head of ``k8s/services.yaml``
    (where the images and weights come from)."""
    files = []
    label = NODE_LABEL.get(layout.sharing)
    patch = (
        "kubectl patch clusterpolicies.nvidia.com/cluster-policy -n gpu-operator --type merge \\\n"
        '  -p \'{"spec": {"devicePlugin": {"config": {"name": "time-slicing-config"}}}}\'\n'
        + _("then label each node with its configuration:")
        + "\n"
    )
    if layout.sharing == "mig":
        files.append(
            GeneratedFile(
                path="k8s/sharing-config.yaml",
                content=dump_documents(
                    [_mig_parted(layout)],
                    _(
                        "mig-parted layouts, one per node (GPUs per node: {n}). Install the GPU Operator "
                        "with mig.strategy=mixed and\nmigManager.config.name=gpuplan-mig-parted-config, "
                        "then label each node:"
                    ).format(n=layout.gpus_per_node)
                    + "\n"
                    + _label_commands(NODE_LABEL["mig"], layout.nodes),
                ),
            )
        )
    elif layout.sharing == "mps":
        files.append(
            GeneratedFile(
                path="k8s/sharing-config.yaml",
                content=dump_documents(
                    [_time_slicing(layout.time_slice_replicas, key="mps")],
                    _(
                        "Device plugin MPS sharing, one entry per node (GPUs per node: {n}): each GPU is "
                        "advertised as N nvidia.com/gpu,\neach limited to 1/N of its memory and threads. "
                        "Point the GPU Operator at it as for time-slicing:"
                    ).format(n=layout.gpus_per_node)
                    + "\n"
                    + patch
                    + _label_commands(NODE_LABEL["mps"], layout.nodes),
                ),
            )
        )
    elif layout.sharing == "time-slice":
        files.append(
            GeneratedFile(
                path="k8s/sharing-config.yaml",
                content=dump_documents(
                    [_time_slicing(layout.time_slice_replicas)],
                    _(
                        "Device plugin time-slicing, one entry per node (GPUs per node: {n}): each GPU is "
                        "advertised as N nvidia.com/gpu.\nPoint the GPU Operator at it:"
                    ).format(n=layout.gpus_per_node)
                    + "\n"
                    + patch
                    + _label_commands(NODE_LABEL["time-slice"], layout.nodes)
                    + "\n"
                    + _("Time-sliced services share memory and faults: one OOM can stop its neighbours."),
                ),
            )
        )
    names = dns_names([d.name for d in deployments])
    head = (
        _("One Deployment per service.")
        if label is None
        else _("One Deployment per service and node (nodeSelector {label}).").format(label=label)
    )
    bare = [n for d, n in zip(deployments, names, strict=True) if d.container is None]
    if bare:
        head += "\n" + _(
            "{services}: given by numbers alone (no workload), so no model is known: each runs "
            "{image}; add its model and settings as the container's args."
        ).format(services=item_list(bare), image=PLACEHOLDER_IMAGE)
    if bare and len(bare) < len(deployments):
        head += "\n" + _(
            "The others run their workload's model on its engine, as `gpuplan deploy WORKLOAD --target "
            "k8s` writes it, with their slice or share of a GPU as the resource."
        )
    elif not bare:
        head += "\n" + _(
            "Each runs its workload's model on its engine, as `gpuplan deploy WORKLOAD --target k8s` "
            "writes it, with its slice or share of a GPU as the resource."
        )
    files.append(
        GeneratedFile(
            path="k8s/services.yaml",
            content=dump_documents(
                [_deployment(d, n, label) for d, n in zip(deployments, names, strict=True)],
                "\n".join([head, *notes]),
            ),
        )
    )
    return files


@dataclass(frozen=True, kw_only=True)
class NodeRisk:
    """A node whose time-sliced GPUs the device plugin may fill otherwise than the packing did."""

    node: int
    slots_per_gpu: int
    """``replicas`` of its time-slicing entry: pods the device plugin may put on one GPU."""
    packed: tuple[tuple[str, ...], ...]
    """The services the packing put on each of its GPUs."""
    worst: tuple[str, ...]
    """The heaviest ``slots_per_gpu`` of its pods, which the device plugin may put on one GPU."""
    worst_memory_gib: float
    memory_gib: float
    """What one GPU holds for time-sliced services."""


def time_slice_risks(
    gpus: Sequence[Sequence[tuple[str, float]]], gpus_per_node: int, slots: Sequence[int], memory_gib: float
) -> list[NodeRisk]:
    """The nodes where some ``slots[node]`` of the pods on the node, landed on one GPU, need more
    than ``memory_gib``. ``gpus``: per GPU (in node order), its services and the memory each needs."""
    out = []
    for node, n in enumerate(slots):
        on = gpus[node * gpus_per_node : (node + 1) * gpus_per_node]
        pods = sorted((pod for gpu in on for pod in gpu), key=lambda pod: -pod[1])
        worst = pods[:n]
        need = sum(m for _name, m in worst)
        if len(on) > 1 and need > memory_gib + 1e-9:
            out.append(
                NodeRisk(
                    node=node,
                    slots_per_gpu=n,
                    packed=tuple(tuple(name for name, _m in gpu) for gpu in on),
                    worst=tuple(name for name, _m in worst),
                    worst_memory_gib=need,
                    memory_gib=memory_gib,
                )
            )
    return out


def placement_note(risks: Sequence[NodeRisk], gpu: str) -> GeneratedFile:
    """``k8s/PLACEMENT.md``: what the cluster may do that the packing did not, node by node."""
    lines = [
        _("# Where the cluster may place services otherwise than the packing"),
        "",
        _(
            "NVIDIA's device plugin applies one time-slicing replica count to every GPU of a node and "
            "hands the shares out to any pod on the node: it cannot keep a service on the GPU the "
            'packing gave it (NVIDIA/k8s-device-plugin README, "Shared Access to GPUs": "You '
            'cannot configure sharing on a per-GPU basis").'
        ),
        "",
    ]
    for r in risks:
        packed = _("; ").join(
            _("GPU {i}: {services}").format(i=i, services=item_list(names) or "—")
            for i, names in enumerate(r.packed)
        )
        lines += [
            _("## Node {name}").format(name=node_name(r.node)),
            "",
            _("Packed: {packed}.").format(packed=packed),
            _(
                "The device plugin may put any {n} of these pods on one {gpu}: {services} would need "
                "{need:.0f} GiB where a GPU holds {cap:.0f} GiB, and a replica that cannot allocate "
                "its memory fails or stops its neighbours."
            ).format(
                n=r.slots_per_gpu,
                gpu=gpu,
                services=item_list(r.worst),
                need=r.worst_memory_gib,
                cap=r.memory_gib,
            ),
            "",
        ]
    lines.append(
        _(
            "To keep the packing: run these services on nodes of one GPU (--gpus-per-node 1), or share "
            "with MIG or MPS, whose slices and parts each hold their own memory."
        )
    )
    return GeneratedFile(path="k8s/PLACEMENT.md", content="\n".join(lines) + "\n")


def schedule_note(hours: str, start_up_min: float, layout: SharingLayout) -> GeneratedFile:
    """``k8s/SCHEDULE.md``: the GPUs are priced only in ``hours`` (``08:00-12:00 mon-fri
    (Asia/Shanghai)``) and the ``start_up_min`` before them; what runs them so, which these files
    do not: the node group's size, set on a schedule by the cloud or the user."""
    lines = [
        _("# Running the GPUs only in their hours"),
        "",
        _(
            "The cost is for the GPUs' nodes running {hours} and about {start:.0f} min before them each "
            "day (a new instance's start), and stopped outside them."
        ).format(hours=hours, start=start_up_min),
        "",
        _(
            "Nothing in these files stops or starts nodes. Scale the node group (node pool) that holds "
            "these GPUs to 0 at the end of the hours and back to its size {start:.0f} min before they "
            "begin: with your cloud's scheduled scaling of the group, or a scheduled job that sets its "
            "size with the cloud's command-line tool."
        ).format(start=start_up_min),
        "",
        _(
            "KEDA's cron scaler scales workloads (Deployments), not nodes: scaling these Deployments to "
            "0 outside the hours leaves the nodes running, billed, until a cluster autoscaler removes "
            "them as unneeded (after its scale-down delay, 10 min by default)."
        ),
    ]
    if layout.sharing != "whole":
        lines += [
            "",
            _(
                "A node started again is a new node: give it its sharing label again (the kubectl "
                "label commands in k8s/sharing-config.yaml), or set the label in the node group's own "
                "node labels, or the Deployments pinned to it stay pending."
            ),
        ]
    return GeneratedFile(path="k8s/SCHEDULE.md", content="\n".join(lines) + "\n")
