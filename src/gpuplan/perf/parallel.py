"""Multi-GPU: the links between GPUs, collective times, and per-rank memory under ZeRO/FSDP.

Collectives are costed as NCCL rings (the algorithm NCCL uses for large messages):
all-reduce moves ``2(n−1)/n × bytes`` through each GPU's slowest link; reduce-scatter and
all-gather move ``(n−1)/n × bytes`` each. A ring spanning nodes is limited by the network per node.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gpuplan.errors import EstimateError
from gpuplan.hardware import GPU
from gpuplan.profile.model import MemoryBreakdown
from gpuplan.vocab import Parallelism

__all__ = [
    "DEEPSPEED_MIXED_ADAM",
    "DEFAULT_NETWORK_GBIT_S",
    "PARALLELISMS",
    "Link",
    "StateLayout",
    "all_gather_s",
    "all_reduce_s",
    "check_parallelism",
    "sharded_peak_bytes",
    "zero_model_state_bytes",
]

PARALLELISMS: tuple[str, ...] = Parallelism.values()

#: Inter-node network assumed when the instance does not say, Gbit/s per node. 100 Gbit/s is what
#: mid-range cloud GPU instances offer (AWS g5.48xlarge, p3dn 100; p4d 400; g4dn 25–100 —
#: shared/data/instance_types.csv); the range uses 25 Gbit/s as its slow end.
DEFAULT_NETWORK_GBIT_S = 100.0
SLOW_NETWORK_GBIT_S = 25.0

#: Share of a link's one-direction bandwidth that NCCL's ring reaches ("bus bandwidth"):
#: nccl-tests all_reduce on DGX A100 reports ≈230–240 GB/s of NVLink 3's 300 GB/s per direction;
#: PCIe through host bridges and TCP/RDMA networks reach somewhat less of their line rate.
_NCCL_EFFICIENCY = {"nvlink": 0.78, "pcie": 0.70, "network": 0.80}
#: Per-hop latency of a ring step, seconds (NCCL's LL/simple protocols: a few µs on NVLink/PCIe,
#: ~10 µs across a network).
_HOP_LATENCY_S = {"nvlink": 5e-6, "pcie": 8e-6, "network": 15e-6}


@dataclass(frozen=True, kw_only=True)
class Link:
    """How the GPUs of one job talk: inside a node and between nodes."""

    nodes: int
    gpus_per_node: int
    intra_node: Literal["nvlink", "pcie"]
    intra_node_gbps: float
    """One-direction bandwidth per GPU inside a node, GB/s (half the datasheet's bidirectional sum)."""
    network_gbit_s: float
    """Inter-node network per node, Gbit/s (ignored on one node)."""
    network_known: bool = True
    """False when ``network_gbit_s`` is :data:`DEFAULT_NETWORK_GBIT_S` because nothing said otherwise."""

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
    ) -> Link:
        """A link from GPU datasheet facts and what the instance says.

        ``gpus_per_node`` defaults to ``min(count, 8)``; ``nvlink`` defaults to NVLink on SXM/OAM
        parts (NVSwitch) and, for PCIe parts with a bridge, only up to two GPUs per node;
        ``network_gbit_s`` defaults to
        :data:`DEFAULT_NETWORK_GBIT_S`.
        """
        if count < 1:
            raise EstimateError(f"GPU count must be at least 1, got {count}")
        per_node = gpus_per_node or min(count, 8)
        nodes = -(-count // per_node)
        if nvlink is None:
            # SXM/OAM boards join all GPUs of a node through NVSwitch (or Infinity Fabric); PCIe
            # cards only through bridges between pairs, so a ring of more than two falls to PCIe.
            switched = gpu.form_factor.upper().startswith(("SXM", "OAM"))
            nvlink = bool(gpu.nvlink_gbps) and (switched or per_node <= 2)
        has_nvlink = nvlink
        if has_nvlink and not gpu.nvlink_gbps:
            raise EstimateError(f"{gpu.id} has no NVLink; drop the NVLink setting")
        intra: Literal["nvlink", "pcie"] = "nvlink" if has_nvlink else "pcie"
        bidir = gpu.nvlink_gbps if has_nvlink and gpu.nvlink_gbps else gpu.pcie_gbps
        return cls(
            nodes=nodes,
            gpus_per_node=per_node,
            intra_node=intra,
            intra_node_gbps=bidir / 2.0,
            network_gbit_s=network_gbit_s if network_gbit_s is not None else DEFAULT_NETWORK_GBIT_S,
            network_known=network_gbit_s is not None,
        )

    def _ring(self, *, slow_network: bool = False) -> tuple[float, float]:
        """(bus bandwidth in bytes/s, per-hop latency in s) of the ring's slowest hop."""
        intra = self.intra_node_gbps * 1e9 * _NCCL_EFFICIENCY[self.intra_node]
        if self.nodes <= 1:
            return intra, _HOP_LATENCY_S[self.intra_node]
        gbit = SLOW_NETWORK_GBIT_S if slow_network and not self.network_known else self.network_gbit_s
        network = gbit / 8.0 * 1e9 * _NCCL_EFFICIENCY["network"]
        return min(intra, network), _HOP_LATENCY_S["network"]

    def describe(self) -> str:
        inside = f"{self.gpus_per_node}× GPU over {self.intra_node} ({self.intra_node_gbps:g} GB/s/dir)"
        if self.nodes <= 1:
            return inside
        known = "" if self.network_known else ", assumed"
        return f"{self.nodes} nodes × {inside}, network {self.network_gbit_s:g} Gbit/s{known}"


def all_reduce_s(nbytes: float, link: Link, *, slow_network: bool = False, world: int | None = None) -> float:
    """Ring all-reduce of ``nbytes`` over ``world`` GPUs (default: all of ``link``'s):
    2(n−1)/n × bytes / bus bandwidth."""
    n = world or link.gpu_count
    if n <= 1 or nbytes <= 0:
        return 0.0
    bw, hop = link._ring(slow_network=slow_network)
    return 2.0 * (n - 1) / n * nbytes / bw + 2.0 * (n - 1) * hop


def all_gather_s(nbytes: float, link: Link, *, slow_network: bool = False, world: int | None = None) -> float:
    """Ring all-gather (or reduce-scatter) of a ``nbytes`` tensor over ``world`` GPUs (default: all
    of ``link``'s): (n−1)/n × bytes / bus bandwidth."""
    n = world or link.gpu_count
    if n <= 1 or nbytes <= 0:
        return 0.0
    bw, hop = link._ring(slow_network=slow_network)
    return (n - 1) / n * nbytes / bw + (n - 1) * hop


def check_parallelism(parallelism: str) -> str:
    if parallelism not in PARALLELISMS:
        raise EstimateError(f"unknown parallelism {parallelism!r}; use one of {', '.join(PARALLELISMS)}")
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
        raise EstimateError("world size must be at least 1")
    working = layout.param_bytes + layout.grad_bytes
    sharded = layout.optimizer_bytes + layout.grad_partition_bytes
    if stage == 0:
        return params * (working + sharded)
    if stage in (1, 2):
        return params * working + params * sharded / world
    if stage == 3:
        return largest_layer_params * working + params * (layout.param_bytes + sharded) / world
    raise EstimateError(f"ZeRO stage must be 0–3, got {stage}")


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
