"""Multi-GPU: the links between GPUs, collective times, and per-rank memory under ZeRO/FSDP.

Collectives are costed as NCCL rings (the algorithm NCCL uses for large messages), hierarchical
across nodes: all-reduce moves ``2(n−1)/n × bytes`` per GPU, reduce-scatter and all-gather
``(n−1)/n × bytes``; inside a node over NVLink/PCIe, across nodes through the node's network
(RDMA or TCP, each with its own efficiency). How much of it hides behind compute is
``perf/comm.py``'s job.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from gpuplan.errors import EstimateError
from gpuplan.hardware import GPU
from gpuplan.i18n import N_, _
from gpuplan.i18n.phrases import listed
from gpuplan.profile.model import MemoryBreakdown
from gpuplan.vocab import Parallelism

__all__ = [
    "CATALOG_NETWORK_KINDS",
    "DEEPSPEED_MIXED_ADAM",
    "DEFAULT_NETWORK_GBIT_S",
    "DEFAULT_NETWORK_KIND",
    "PARALLELISMS",
    "Link",
    "NetworkSpec",
    "StateLayout",
    "all_gather_s",
    "all_reduce_s",
    "catalog_network_kind",
    "check_parallelism",
    "network_kind_of",
    "sharded_peak_bytes",
    "zero_model_state_bytes",
]

PARALLELISMS: tuple[str, ...] = Parallelism.values()

#: Inter-node network assumed when neither the user nor the instance says, Gbit/s per node, and
#: its kind: 400 Gbit/s RDMA is the common multi-node training instance (AWS p4d.24xlarge: 4×100
#: Gbit/s EFA; Azure ND A100 v4 and GCP a3 have more, 1,600–3,200). The slow end of the range is
#: 100 Gbit/s over TCP (mid-range instances without RDMA: AWS g5.48xlarge, p3dn 100 Gbit/s).
NetworkKind = Literal["rdma", "tcp"]
NetworkSource = Literal["user", "catalog", "assumed"]

DEFAULT_NETWORK_GBIT_S = 400.0
DEFAULT_NETWORK_KIND: NetworkKind = "rdma"
SLOW_NETWORK_GBIT_S = 100.0
SLOW_NETWORK_KIND: NetworkKind = "tcp"

#: Share of a link's one-direction bandwidth that NCCL reaches ("bus bandwidth"): nccl-tests
#: all_reduce on DGX A100 reports ≈230–240 GB/s of NVLink 3's 300 GB/s per direction; PCIe through
#: host bridges reaches somewhat less. Across nodes, RDMA (EFA, InfiniBand, RoCE: GPUDirect, no
#: host copies) reaches ≈80 % of line rate; NCCL's socket transport over TCP copies through host
#: memory and is CPU-bound per stream — taken as 50 % of line rate (an ASSUMPTION; the band's slow
#: end covers worse).
_NCCL_EFFICIENCY = {"nvlink": 0.78, "pcie": 0.70, "rdma": 0.80, "tcp": 0.50}
#: Per-hop latency of a ring step, seconds (NCCL's LL/simple protocols: a few µs on NVLink/PCIe,
#: ~10–15 µs over RDMA, tens of µs through the kernel's TCP stack).
_HOP_LATENCY_S = {"nvlink": 5e-6, "pcie": 8e-6, "rdma": 15e-6, "tcp": 40e-6}
#: Per-node network from which an instance whose kind is not stated is taken as RDMA.
_RDMA_AT_LEAST_GBIT_S = 200.0
#: Interconnect words in a catalog offer that mean RDMA between nodes.
_RDMA_WORDS = ("efa", "infiniband", "roce", "rdma", " ib", "ib ", "gpudirect")


#: The catalog's ``network_kind`` values (catalog/schema.py) and what NCCL runs over them: EFA
#: (libfabric, GPUDirect RDMA on p4d/p5), InfiniBand and RoCE are RDMA; TCP is the socket transport.
CATALOG_NETWORK_KINDS: dict[str, NetworkKind] = {
    "efa": "rdma",
    "infiniband": "rdma",
    "roce": "rdma",
    "tcp": "tcp",
}


def catalog_network_kind(value: str | None) -> NetworkKind | None:
    """``rdma`` or ``tcp`` for a catalog ``network_kind`` (``EFA``, ``InfiniBand``, ``RoCE``, ``TCP``);
    None when the catalog does not say (or says something else)."""
    return CATALOG_NETWORK_KINDS.get((value or "").strip().lower())


def network_kind_of(text: str) -> NetworkKind | None:
    """``rdma`` or ``tcp`` from an offer's interconnect/network description; None if it says neither."""
    t = f" {text.lower()} "
    if any(w in t for w in _RDMA_WORDS):
        return "rdma"
    if "tcp" in t or "ethernet" in t:
        return "tcp"
    return None


@dataclass(frozen=True, kw_only=True)
class Link:
    """How the GPUs of one job talk: inside a node and between nodes."""

    nodes: int
    gpus_per_node: int
    intra_node: Literal["nvlink", "pcie"]
    intra_node_gbps: float
    """One-direction bandwidth per GPU inside a node, GB/s (half the datasheet's bidirectional sum)."""
    network_gbit_s: float
    """Inter-node network per node (all its NICs together), Gbit/s (ignored on one node)."""
    network_kind: NetworkKind = DEFAULT_NETWORK_KIND
    network_source: NetworkSource = "user"
    """Where ``network_gbit_s`` came from: the user, the instance's catalog entry, or assumed."""

    @property
    def network_known(self) -> bool:
        return self.network_source != "assumed"

    @property
    def gpu_count(self) -> int:
        return self.nodes * self.gpus_per_node

    @classmethod
    def for_gpus(
        cls,
        gpu: GPU,
        count: int,
        *,
        gpus_per_node: int | None = None,
        nvlink: bool | None = None,
        network_gbit_s: float | None = None,
        network_kind: NetworkKind | None = None,
        network_source: NetworkSource = "user",
    ) -> Link:
        """A link from GPU datasheet facts and what the instance says.

        ``gpus_per_node`` defaults to ``min(count, 8)``; ``nvlink`` defaults to NVLink on SXM/OAM
        parts (NVSwitch) and, for PCIe parts with a bridge, only up to two GPUs per node;
        ``network_gbit_s`` defaults to :data:`DEFAULT_NETWORK_GBIT_S` (then ``network_source`` is
        ``assumed``), ``network_kind`` to RDMA.
        """
        if count < 1:
            raise EstimateError.worded(N_("GPU count must be at least 1, got {count}"), count=count)
        if network_gbit_s is not None and network_gbit_s <= 0:
            raise EstimateError.worded(
                N_("network bandwidth must be positive, got {gbit_s:g} Gbit/s"), gbit_s=network_gbit_s
            )
        per_node = min(gpus_per_node, count) if gpus_per_node else min(count, 8)
        nodes = -(-count // per_node)
        if nvlink is None:
            # SXM/OAM boards join all GPUs of a node through NVSwitch (or Infinity Fabric); PCIe
            # cards only through bridges between pairs, so a ring of more than two falls to PCIe.
            switched = gpu.form_factor.upper().startswith(("SXM", "OAM"))
            nvlink = bool(gpu.nvlink_gbps) and (switched or per_node <= 2)
        has_nvlink = nvlink
        if has_nvlink and not gpu.nvlink_gbps:
            raise EstimateError.worded(N_("{gpu} has no NVLink; drop the NVLink setting"), gpu=gpu.id)
        intra: Literal["nvlink", "pcie"] = "nvlink" if has_nvlink else "pcie"
        bidir = gpu.nvlink_gbps if has_nvlink and gpu.nvlink_gbps else gpu.pcie_gbps
        assumed = network_gbit_s is None
        return cls(
            nodes=nodes,
            gpus_per_node=per_node,
            intra_node=intra,
            intra_node_gbps=bidir / 2.0,
            network_gbit_s=DEFAULT_NETWORK_GBIT_S if network_gbit_s is None else network_gbit_s,
            network_kind=network_kind or DEFAULT_NETWORK_KIND,
            network_source="assumed" if assumed else network_source,
        )

    def slow_end(self) -> Link:
        """The link at the slow end of the range: an assumed network becomes 100 Gbit/s TCP."""
        if self.network_known or self.nodes <= 1:
            return self
        return replace(self, network_gbit_s=SLOW_NETWORK_GBIT_S, network_kind=SLOW_NETWORK_KIND)

    def intra_bus_bytes_s(self) -> float:
        return self.intra_node_gbps * 1e9 * _NCCL_EFFICIENCY[self.intra_node]

    def network_bus_bytes_s(self) -> float:
        """Bytes/s the node's NICs together carry for NCCL."""
        return self.network_gbit_s / 8.0 * 1e9 * _NCCL_EFFICIENCY[self.network_kind]

    def describe(self) -> str:
        inside = _("{gpus}× GPU over {link} ({gbps:g} GB/s/dir)").format(
            gpus=self.gpus_per_node, link=self.intra_node, gbps=self.intra_node_gbps
        )
        if self.nodes <= 1:
            return inside
        src = {"user": "", "catalog": _(", from the instance"), "assumed": _(", assumed")}[
            self.network_source
        ]
        return _("{nodes} nodes × {inside}, network {gbit:g} Gbit/s {kind}{source}").format(
            nodes=self.nodes, inside=inside, gbit=self.network_gbit_s, kind=self.network_kind, source=src
        )


@dataclass(frozen=True, kw_only=True)
class NetworkSpec:
    """What the user or the instance says about the machines' links, before the GPU count is known."""

    gbit_s: float | None = None
    """Inter-node network per node, Gbit/s; None → :data:`DEFAULT_NETWORK_GBIT_S`, labelled assumed."""
    kind: NetworkKind | None = None
    source: NetworkSource = "user"
    gpus_per_node: int | None = None
    nvlink: bool | None = None

    def link(self, gpu: GPU, count: int) -> Link:
        kind = self.kind
        if kind is None and self.gbit_s is not None:
            # Not said: cloud fabrics of 200 Gbit/s and more per node are RDMA (EFA, InfiniBand);
            # slower instance networks are plain Ethernet (TCP). An assumption, per offer.
            kind = "rdma" if self.gbit_s >= _RDMA_AT_LEAST_GBIT_S else "tcp"
        return Link.for_gpus(
            gpu,
            count,
            gpus_per_node=self.gpus_per_node,
            nvlink=self.nvlink,
            network_gbit_s=self.gbit_s,
            network_kind=kind,
            network_source=self.source,
        )


def _collective_s(nbytes: float, link: Link, world: int, passes: float) -> float:
    """A ring collective of ``passes`` × (n−1)/n × ``nbytes`` per GPU (1 for all-gather and
    reduce-scatter, 2 for all-reduce), hierarchical across nodes as NCCL runs it.

    Inside a node each GPU moves ``passes·(g−1)/g·bytes`` over its own link. Across N nodes the
    node's NICs together move ``passes·(N−1)/N·bytes`` (each of the g GPUs carries its 1/g share
    of the data over the node's network). NCCL pipelines the two, so the slower one sets the time.
    """
    if world <= 1 or nbytes <= 0:
        return 0.0
    g = min(link.gpus_per_node, world)
    nodes = -(-world // g)
    intra = passes * (g - 1) / g * nbytes / link.intra_bus_bytes_s() if g > 1 else 0.0
    latency = passes * (g - 1) * _HOP_LATENCY_S[link.intra_node]
    if nodes <= 1:
        return intra + latency
    inter = passes * (nodes - 1) / nodes * nbytes / link.network_bus_bytes_s()
    latency += passes * (nodes - 1) * _HOP_LATENCY_S[link.network_kind]
    return max(intra, inter) + latency


def all_reduce_s(nbytes: float, link: Link, *, world: int | None = None) -> float:
    """All-reduce of ``nbytes`` over ``world`` GPUs (default: all of ``link``'s)."""
    return _collective_s(nbytes, link, world or link.gpu_count, 2.0)


def all_gather_s(nbytes: float, link: Link, *, world: int | None = None) -> float:
    """All-gather (or reduce-scatter) of a ``nbytes`` tensor over ``world`` GPUs (default: all of
    ``link``'s)."""
    return _collective_s(nbytes, link, world or link.gpu_count, 1.0)


def check_parallelism(parallelism: str) -> str:
    if parallelism not in PARALLELISMS:
        raise EstimateError.worded(
            N_("unknown parallelism {name!r}; use one of {names}"),
            name=parallelism,
            names=listed(PARALLELISMS),
        )
    return parallelism


def _stage(parallelism: str) -> int:
    return {"ddp": 0, "zero1": 1, "zero2": 2, "zero3": 3, "fsdp": 3}[check_parallelism(parallelism)]


@dataclass(frozen=True, kw_only=True)
class StateLayout:
    """Bytes per parameter of each piece of model state, as a ZeRO implementation keeps them."""

    param_bytes: float
    """Working (forward/backward) copy of a parameter."""
    grad_bytes: float
    """Working gradient."""
    optimizer_bytes: float
    """Optimizer state, including an fp32 master copy where one is kept."""
    grad_partition_bytes: float = 0.0
    """An extra, sharded, gradient copy (DeepSpeed's fp32 gradient partition)."""


#: DeepSpeed mixed-precision Adam: fp16 params and grads, fp32 master + exp_avg + exp_avg_sq
#: (4 + 4 + 4 = 12) and an fp32 gradient partition (deepspeed/runtime/zero/stage_1_and_2.py, stage3.py).
DEEPSPEED_MIXED_ADAM = StateLayout(param_bytes=2, grad_bytes=2, optimizer_bytes=12, grad_partition_bytes=4)


def zero_model_state_bytes(
    params: float, *, stage: int, world: int, layout: StateLayout, largest_layer_params: float = 0.0
) -> float:
    """Model-state bytes per GPU under ZeRO ``stage`` on ``world`` GPUs (no offload).

    Stages 1 and 2 keep working params and grads whole and shard optimizer state and the gradient
    partition (DeepSpeed's estimator treats both alike: ``4P + 16P/G``); stage 3 also shards the
    working params and gathers the largest layer's params and grads (``4·Lmax + 18P/G``).
    """
    if world < 1:
        raise EstimateError.worded(N_("world size must be at least 1"))
    working = layout.param_bytes + layout.grad_bytes
    sharded = layout.optimizer_bytes + layout.grad_partition_bytes
    if stage == 0:
        return params * (working + sharded)
    if stage in (1, 2):
        return params * working + params * sharded / world
    if stage == 3:
        return largest_layer_params * working + params * (layout.param_bytes + sharded) / world
    raise EstimateError.worded(N_("ZeRO stage must be 0–3, got {stage}"), stage=stage)


def sharded_peak_bytes(
    peak: MemoryBreakdown,
    *,
    parallelism: str,
    world: int,
    params: int,
    largest_layer_params: int | None,
) -> float:
    """Per-rank bytes at the traced peak when ``parallelism`` shards it over ``world`` GPUs.

    ZeRO-1 shards optimizer state (and, at an optimizer-step peak, the optimizer's temporaries);
    ZeRO-2 also gradients; ZeRO-3/FSDP also parameters, and gathers the largest layer's parameters
    and gradients (``ModelShape.largest_layer_params``; without it, 1/world of the params is
    assumed as the gathered unit — a note says so). Activations are per rank and unchanged.
    """
    stage = _stage(parallelism)
    total = peak.total_bytes
    if world <= 1 or stage == 0:
        return total
    keep = 1.0 - 1.0 / world
    saved = peak.optimizer_state_bytes * keep
    if peak.activations_bytes < 0.01 * total:  # optimizer-step peak: foreach temporaries are per shard
        saved += peak.temporaries_bytes * keep
    if stage >= 2:
        saved += peak.gradients_bytes * keep
    if stage == 3:
        saved += peak.parameters_bytes * keep
        bytes_per_param = peak.parameters_bytes / params if params else 0.0
        unit = largest_layer_params if largest_layer_params else params / world
        grad_per_param = bytes_per_param if peak.gradients_bytes > 0 else 0.0
        saved -= unit * (bytes_per_param + grad_per_param)
    return total - saved
