"""The host CPU and memory a GPU pod requests: its GPUs' share of the instance the plan chose.

A pod that requests only GPUs has the ``BestEffort`` QoS class, the first the kubelet evicts when
its node runs short of memory, and the scheduler may place it on a node without the host memory a
model load needs (Kubernetes docs, "Pod Quality of Service Classes",
https://kubernetes.io/docs/concepts/workloads/pods/pod-qos/, and "Resource Management for Pods and
Containers", https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/, read
2026-12-06). So each GPU pod requests the CPU and memory of its GPUs' share of the node:

    (instance's vCPUs or memory − what the node keeps for itself − DaemonSets) × pod GPUs / node GPUs

  with the memory not the advertised size but what the node's kubelet reports as its capacity:
* A node's memory capacity is the kernel's ``MemTotal``, below the instance's advertised memory
  (firmware, the kernel's own and its page tables take the difference). Karpenter, which must know
  a node's capacity before it launches it, subtracts :data:`VM_MEMORY_OVERHEAD` of the advertised
  size by default (Karpenter docs, "Settings", ``VM_MEMORY_OVERHEAD_PERCENT``, "The VM memory
  overhead as a percent that will be subtracted from the total memory for all instance types",
  default 0.075, https://karpenter.sh/docs/reference/settings/, read 2026-12-07; its issue
  aws/karpenter-provider-aws#5161 on measuring "the difference between the EC2-reported memory
  capacity and the actual capacity of the instance as reported by kubelet" instead). The same
  share is taken off every provider's advertised memory: a request computed from the advertised
  size, with the reservations below the only margin (2 % of a 2 TiB node), asks for more than the
  node has and stays Pending. The real figure is the node's ``Allocatable`` memory in
  ``kubectl describe node``.

* The instance's vCPUs and memory are the catalog's (:attr:`LaunchSpec.host_vcpus`,
  :attr:`LaunchSpec.host_memory_gib`). Where they are not known, nothing is requested and the
  manifest and README say what to fill in: a guessed figure is a pod that never schedules, or one
  that asks for less than it needs.
* What the node keeps: GKE's documented reservation for the kubelet and the system, plus the
  kubelet's 100 MiB hard-eviction threshold (Google Cloud, "Plan GKE Standard node sizes", "Memory
  and CPU reservations",
  https://cloud.google.com/kubernetes-engine/docs/concepts/plan-node-sizes#memory_and_cpu_reservations,
  read 2026-12-06). EKS's AMI reserves CPU on the same tiers (awslabs/amazon-eks-ami,
  ``get_cpu_millicores_to_reserve``, "We are using these CPU ranges from GKE") and memory of
  255 MiB + 11 MiB per pod the node may hold (its ``get_memory_mebibytes_to_reserve``): less than
  GKE's tiers on a node of 128 GiB or more unless it may hold over 800 pods (9.3 GiB there), and
  further below them on larger ones (1,152 GiB: 29.8 GiB). AKS reserves more CPU than those tiers
  (Microsoft Learn, "Node resource reservations in Azure Kubernetes Service (AKS)",
  https://learn.microsoft.com/azure/aks/node-resource-reservations, read 2026-12-06: 60, 100, 140,
  180, 260, 420 and 740 millicores for 1, 2, 4, 8, 16, 32 and 64 cores; between them taken on a
  straight line, above 64 cores at the table's own 10 millicores a core from 8 cores on, an
  assumption) and, from 1.29, memory of 20 MB per pod the node may hold + 50 MB (at most 25 %),
  below GKE's tiers at its default 30 pods. The largest of these reservations is taken, CPU and
  memory each, so that the request fits the allocatable of each.
* DaemonSets (kube-proxy, the CNI's, the GPU Operator's, logging) request their share of the node
  too; :data:`DAEMONSET_VCPUS` and :data:`DAEMONSET_MEMORY_GIB` stand for them: an assumption, said
  in the manifest's header.

Memory gets a limit equal to its request, CPU none. A container above its memory limit is
OOM-killed alone, where one without a limit grows into its neighbours' share and, under node
pressure, has pods evicted (only pods above their requests are evicted for memory pressure: a pod
held at its request is among the last). A CPU limit would throttle the data loaders and
tokenizers of a GPU job while cores sit idle, so the pod may use spare CPU. The pods are therefore
``Burstable``, not ``Guaranteed`` (which needs a CPU limit equal to the request). A memory-backed
``/dev/shm`` (an emptyDir of medium Memory) counts against the memory limit, and holds at most the
smaller of its ``sizeLimit`` and the pod's memory limits (Kubernetes API reference,
``EmptyDirVolumeSource.sizeLimit``): a time-sliced replica's 8 GiB ``/dev/shm`` on a small node is
held to the replica's memory.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpuplan.deploy.spec import LaunchSpec
from gpuplan.hardware.mig import COMPUTE_SLICES, mig_gpus

if TYPE_CHECKING:
    from gpuplan.catalog import Store

__all__ = [
    "DAEMONSET_MEMORY_GIB",
    "DAEMONSET_VCPUS",
    "VM_MEMORY_OVERHEAD",
    "HostShare",
    "catalog_host",
    "host_share",
    "pod_gpu_share",
]

#: GKE's CPU reservation: (cores up to which a tier runs, share of each core in it) — 6 % of the
#: first core, 1 % of the next, 0.5 % of the next 2, 0.25 % of every core above 4.
_CPU_TIERS: tuple[tuple[float, float], ...] = ((1, 0.06), (2, 0.01), (4, 0.005), (math.inf, 0.0025))
#: GKE's memory reservation, GiB: 25 % of the first 4 GiB, 20 % of the next 4, 10 % of the next 8,
#: 6 % of the next 112, 2 % of all above 128 GiB.
_MEMORY_TIERS: tuple[tuple[float, float], ...] = (
    (4, 0.25),
    (8, 0.20),
    (16, 0.10),
    (128, 0.06),
    (math.inf, 0.02),
)
#: AKS's CPU reservation, (cores, millicores) as its table gives it; above 64 cores the table's
#: own step, 10 millicores a core (an assumption: the table stops at 64).
_AKS_CPU_MILLICORES: tuple[tuple[float, float], ...] = (
    (0, 0),
    (1, 60),
    (2, 100),
    (4, 140),
    (8, 180),
    (16, 260),
    (32, 420),
    (64, 740),
)
_AKS_MILLICORES_PER_CORE_ABOVE = 10


def _aks_cpu(cores: float) -> float:
    """AKS's CPU reservation of a node of ``cores``, cores: its table, on a straight line between
    its points, and its 10 millicores a core above 64."""
    points = _AKS_CPU_MILLICORES
    for (low, at_low), (high, at_high) in itertools.pairwise(points):
        if cores <= high:
            return (at_low + (at_high - at_low) * (cores - low) / (high - low)) / 1000
    last, at_last = points[-1]
    return (at_last + _AKS_MILLICORES_PER_CORE_ABOVE * (cores - last)) / 1000


#: The share of an instance's advertised memory its kernel does not report (``MemTotal`` below it):
#: Karpenter's default ``vmMemoryOverheadPercent``, 7.5 % (see the module's docstring).
VM_MEMORY_OVERHEAD = 0.075

#: The kubelet's default hard-eviction threshold (``memory.available<100Mi``), GiB.
_EVICTION_GIB = 100 / 1024

#: vCPUs and memory (GiB) of a node taken by DaemonSet pods' requests: an assumption (kube-proxy
#: asks 100m, a CNI agent tens of millicores, the GPU Operator's and logging agents a few hundred
#: millicores and MiB together); ``kubectl describe node`` lists the real ones.
DAEMONSET_VCPUS = 1.0
DAEMONSET_MEMORY_GIB = 2.0


def _tiered(total: float, tiers: tuple[tuple[float, float], ...]) -> float:
    """The reservation of ``total`` on ``tiers``: each tier's share of the part of ``total`` in it."""
    reserved, low = 0.0, 0.0
    for high, share in tiers:
        if total <= low:
            break
        reserved += (min(total, high) - low) * share
        low = high
    return reserved


@dataclass(frozen=True, kw_only=True)
class HostShare:
    """What one pod requests of its node's host, as Kubernetes quantities and as numbers."""

    cpu: str
    """``"11"`` (cores) or ``"500m"`` (millicores)."""
    memory: str
    """``"140Gi"`` or ``"768Mi"``."""
    vcpus: float
    memory_gib: float
    share: float
    """The pod's GPUs over the node's: 1/8 for one GPU of eight."""


def pod_gpu_share(spec: LaunchSpec, per_pod: int) -> float:
    """The GPUs a pod holds, in whole GPUs: ``per_pod``, or a fraction of one for a MIG slice (its
    compute slices of the 7) or a time-sliced share (1/``share_gpu``). A MIG slice's compute slices
    bound how many share a GPU (they add up to at most 7), so slices of mixed sizes never ask for
    more than the GPU's share of the host."""
    serving = spec.serving
    if serving and serving.mig_profile:
        table = next((t for t in mig_gpus() if spec.gpu in t.gpu_ids), None)
        slices = (
            table.profile(serving.mig_profile).compute_slices
            if table is not None
            # the device plugin's ``Ng.Mgb``: N compute slices (MIG_PROFILE grammar: 1-7)
            else int(serving.mig_profile.split("g", 1)[0])
        )
        return slices / COMPUTE_SLICES
    if serving and serving.share_gpu > 1:
        return 1 / serving.share_gpu
    return float(per_pod)


def host_share(spec: LaunchSpec, per_pod: int) -> HostShare | None:
    """The CPU and memory a pod of ``per_pod`` GPUs requests (see the module's docstring); None
    where the instance's vCPUs or memory are not known, or its share left after the reservations
    is not positive."""
    vcpus, memory = spec.host_vcpus, spec.host_memory_gib
    if vcpus is None or memory is None:
        return None
    share = pod_gpu_share(spec, per_pod) / spec.gpus_per_node
    reserved_cpu = max(_tiered(vcpus, _CPU_TIERS), _aks_cpu(vcpus))
    cpu = (vcpus - reserved_cpu - DAEMONSET_VCPUS) * share
    # the reservation on the advertised size: larger than on the capacity, so never less reserved
    capacity = memory * (1 - VM_MEMORY_OVERHEAD)
    mem = (capacity - _tiered(memory, _MEMORY_TIERS) - _EVICTION_GIB - DAEMONSET_MEMORY_GIB) * share
    # rounded down: whole cores and GiB where there are several, else steps of 100m and 256Mi
    cpu = math.floor(cpu) if cpu >= 8 else math.floor(cpu * 10) / 10
    mem = math.floor(mem) if mem >= 4 else math.floor(mem * 4) / 4
    if cpu <= 0 or mem <= 0:
        return None
    return HostShare(
        cpu=f"{cpu:.0f}" if cpu == int(cpu) else f"{round(cpu * 1000)}m",
        memory=f"{mem:.0f}Gi" if mem == int(mem) else f"{round(mem * 1024)}Mi",
        vcpus=cpu,
        memory_gib=mem,
        share=share,
    )


def reads_catalog_host(spec: LaunchSpec, target: str) -> bool:
    """Whether deploy reads ``spec``'s instance's vCPUs and memory from the catalog
    (:func:`catalog_host`) for ``target``: k8s pods request their GPUs' share of them, an image job's
    DataLoader workers are those its vCPUs give (as the plan's time assumes), and a training job's
    resume must fit the instance's memory; only where the spec names an instance."""
    wanted = target == "k8s" or spec.decodes_images or spec.task != "infer"
    return wanted and spec.provider is not None and spec.instance_type is not None


def catalog_host(spec: LaunchSpec, store: Store) -> LaunchSpec:
    """``spec`` with the vCPUs and memory of one instance of its ``instance_type`` as ``store``
    lists them (:meth:`~gpuplan.catalog.Store.instance_host`); unchanged where it names no instance,
    the catalog does not list it, or lists it with another GPU count than the spec's (a plan edited
    by hand: its GPUs' share of the host is not known)."""
    if spec.provider is None or spec.instance_type is None:
        return spec
    host = store.instance_host(spec.provider, spec.instance_type)
    if host is None or host[0] != spec.gpus_per_node:
        return spec
    return spec.with_host(host[1], host[2])
