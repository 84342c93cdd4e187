"""Kubernetes configuration for GPUs shared between services: MIG layouts or time-slicing.

- **MIG** (GPU Operator, ``mig.strategy: mixed``): a mig-parted ConfigMap with one named layout per
  node (``nvidia.com/mig.config=<name>`` on the node applies it) and, per service, a Deployment
  that requests its slice as ``nvidia.com/mig-<profile>: 1``.
- **time-slicing**: the device plugin's sharing ConfigMap advertising each GPU as N
  ``nvidia.com/gpu`` (N = the most services one GPU carries) and Deployments requesting one each.
  The scheduler, not this file, decides which services share a card: the packing is a count.
- **mps**: the device plugin's MPS sharing ConfigMap (``sharing.mps``, k8s-device-plugin ≥ 0.15):
  each GPU is advertised as N ``nvidia.com/gpu``, each with 1/N of its memory and threads.
- **whole**: Deployments requesting ``nvidia.com/gpu: 1`` per replica.

Names and keys follow NVIDIA's GPU Operator docs ("GPU Operator with MIG", "Time-Slicing GPUs in
Kubernetes") and mig-parted's config format (``version: v1``, ``mig-configs``, ``devices``,
``mig-enabled``, ``mig-devices``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpuplan.deploy.base import GeneratedFile
from gpuplan.deploy.yamlout import dump_documents

__all__ = ["SharedDeployment", "SharingLayout", "dns_names", "sharing_manifests"]

_NAMESPACE = "gpu-operator"


@dataclass(frozen=True, kw_only=True)
class SharedDeployment:
    name: str
    resource: str
    """``nvidia.com/mig-3g.40gb`` or ``nvidia.com/gpu``."""
    replicas: int
    image: str = "vllm/vllm-openai:latest"


@dataclass(frozen=True, kw_only=True)
class SharingLayout:
    sharing: str
    """``mig``, ``time-slice``, ``mps`` or ``whole``."""
    mig_per_gpu: tuple[dict[str, int], ...] = ()
    """MIG: profile -> instances, for GPU 0, 1, … (GPUs in node order)."""
    gpus_per_node: int = 8
    time_slice_replicas: int = 1


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


def _deployment(d: SharedDeployment, name: str) -> dict[str, Any]:
    labels = {"app.kubernetes.io/name": name, "app.kubernetes.io/managed-by": "gpuplan"}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": labels},
        "spec": {
            "replicas": d.replicas,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "containers": [
                        {
                            "name": "serve",
                            "image": d.image,
                            "resources": {"limits": {d.resource: 1}},
                        }
                    ],
                },
            },
        },
    }


def _mig_parted(layout: SharingLayout) -> dict[str, Any]:
    lines = ["version: v1", "mig-configs:"]
    per_node = layout.gpus_per_node
    gpus = layout.mig_per_gpu
    for node in range((len(gpus) + per_node - 1) // per_node):
        lines.append(f"  gpuplan-node-{node}:")
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


def _time_slicing(replicas: int, key: str = "timeSlicing") -> dict[str, Any]:
    config = (
        f"version: v1\nsharing:\n  {key}:\n    resources:\n"
        f"      - name: nvidia.com/gpu\n        replicas: {replicas}\n"
    )
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "time-slicing-config", "namespace": _NAMESPACE},
        "data": {"any": config},
    }


def sharing_manifests(layout: SharingLayout, deployments: Sequence[SharedDeployment]) -> list[GeneratedFile]:
    """The files: ``k8s/sharing-config.yaml`` (MIG or time-slicing) and ``k8s/services.yaml``."""
    files = []
    if layout.sharing == "mig":
        nodes = (len(layout.mig_per_gpu) + layout.gpus_per_node - 1) // layout.gpus_per_node
        files.append(
            GeneratedFile(
                path="k8s/sharing-config.yaml",
                content=dump_documents(
                    [_mig_parted(layout)],
                    "mig-parted layouts, one per node. Install the GPU Operator with mig.strategy=mixed and\n"
                    "migManager.config.name=gpuplan-mig-parted-config, then label each node:\n"
                    + "\n".join(
                        f"  kubectl label node NODE_{n} nvidia.com/mig.config=gpuplan-node-{n} --overwrite"
                        for n in range(nodes)
                    ),
                ),
            )
        )
    elif layout.sharing == "mps":
        files.append(
            GeneratedFile(
                path="k8s/sharing-config.yaml",
                content=dump_documents(
                    [_time_slicing(layout.time_slice_replicas, key="mps")],
                    f"Device plugin MPS sharing: each GPU is advertised as {layout.time_slice_replicas} "
                    "nvidia.com/gpu, each limited to\n"
                    f"1/{layout.time_slice_replicas} of its memory and threads. Point the GPU Operator at it "
                    "as for time-slicing:\n"
                    "kubectl patch clusterpolicies.nvidia.com/cluster-policy -n gpu-operator "
                    "--type merge \\\n"
                    '  -p \'{"spec": {"devicePlugin": {"config": {"name": "time-slicing-config", '
                    '"default": "any"}}}}\'',
                ),
            )
        )
    elif layout.sharing == "time-slice":
        files.append(
            GeneratedFile(
                path="k8s/sharing-config.yaml",
                content=dump_documents(
                    [_time_slicing(layout.time_slice_replicas)],
                    f"Device plugin time-slicing: each GPU is advertised as {layout.time_slice_replicas} "
                    "nvidia.com/gpu.\nPoint the GPU Operator at it: kubectl patch clusterpolicies.nvidia.com/"
                    "cluster-policy -n gpu-operator --type merge \\\n"
                    '  -p \'{"spec": {"devicePlugin": {"config": {"name": "time-slicing-config", '
                    '"default": "any"}}}}\'\n'
                    "Time-sliced services share memory and faults: one OOM can stop its neighbours.",
                ),
            )
        )
    files.append(
        GeneratedFile(
            path="k8s/services.yaml",
            content=dump_documents(
                [
                    _deployment(d, n)
                    for d, n in zip(deployments, dns_names([d.name for d in deployments]), strict=True)
                ],
                "One Deployment per service; replace the image and add its command and model.",
            ),
        )
    )
    return files
