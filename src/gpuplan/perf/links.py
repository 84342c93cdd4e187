"""How the GPUs of one job talk, and what a collective costs on those links.

:class:`Link`: NVLink or PCIe inside a node, the network between nodes (RDMA or TCP, from the
user, the instance's catalog entry or assumed). Collectives are costed as NCCL rings (the
algorithm NCCL uses for large messages), hierarchical across nodes: all-reduce moves
``2(n−1)/n × bytes`` per GPU, reduce-scatter and all-gather ``(n−1)/n × bytes``; inside a node
over NVLink/PCIe, across nodes through the node's network (each with its own efficiency). Which
collectives a step runs, and how much of them compute hides, is the communication stage's job
(``perf/stages/communication.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal, NamedTuple

from gpuplan.errors import EstimateError, InputError, closest
from gpuplan.hardware import GPU
from gpuplan.hardware.gpus import MAX_NETWORK_GBIT_S, MIN_NETWORK_GBIT_S
from gpuplan.i18n import N_, _

__all__ = [
    "CATALOG_NETWORK_KINDS",
    "DEFAULT_NETWORK_GBIT_S",
    "DEFAULT_NETWORK_KIND",
    "FAST_NETWORK_GBIT_S",
    "GIVEN_NETWORK_KINDS",
    "LINK_NAMES",
    "MAX_NETWORK_GBIT_S",
    "SLOW_NETWORK_GBIT_S",
    "TYPICAL_NETWORK_GBIT_S",
    "GpuJoin",
    "Link",
    "NetworkSpec",
    "all_gather_s",
    "all_reduce_s",
    "bounded",
    "catalog_network_kind",
    "checked_network_kind",
    "gpu_join",
    "gpu_join_words",
    "host_copy_s",
    "link_name",
    "network_kind_of",
    "network_kind_words",
    "no_peer_access_words",
]

NetworkKind = Literal["rdma", "tcp"]
NetworkSource = Literal["user", "catalog", "assumed"]

#: When neither the user nor the instance says what joins the nodes, the plausible fabrics of GPU
#: instances span three orders of magnitude, Gbit/s per node. The point an estimate takes is a typical
#: instance NIC without RDMA: Google Cloud's "Networking and GPU machines" page
#: (cloud.google.com/compute/docs/gpus/gpu-network-bandwidth, read 2026-12-02) gives A2 and G2
#: instances (A100, L4) "up to 100 Gbps" over their virtual NICs (TCP). The fast end: A4 and A3 Ultra
#: (B200, H200) carry eight ConnectX-7 NICs with "a total network bandwidth of 3,200 Gbps" for
#: GPU-to-GPU traffic (RDMA, the same page); AWS p5.48xlarge's EFA reaches 3,200 Gbit/s too. The slow
#: end: the slowest network a GPU instance is sold with in the embedded catalog, Alibaba Cloud's
#: ecs.gn6v-c8g1.2xlarge (one V100) at 2.5 Gbit/s (Alibaba Cloud, "GPU-accelerated
#: compute-optimized instance families", https://www.alibabacloud.com/help/en/ecs/user-guide/gpu-accelerated-compute-optimized-and-vgpu-accelerated-instance-families-1).
#: An estimate of an unknown network takes the typical point with the range from the slow end to the
#: fast one (:meth:`Link.slow_end`, :meth:`Link.fast_end`); a plan ranks an offer whose network is
#: unknown at the slowest its catalog states (this slow end where it states none) and shows the fast
#: end as its best case (``plan/unknowns.py``): an unknown network is never the best case.
TYPICAL_NETWORK_GBIT_S = 100.0
TYPICAL_NETWORK_KIND: NetworkKind = "tcp"
SLOW_NETWORK_GBIT_S = 2.5
SLOW_NETWORK_KIND: NetworkKind = "tcp"
FAST_NETWORK_GBIT_S = 3200.0
FAST_NETWORK_KIND: NetworkKind = "rdma"
#: The rate an unknown network is taken at, and the kind :meth:`Link.for_gpus` gives a rate passed
#: without one (a caller that knows its fabric, e.g. a published run; what a user or an offer leaves
#: unsaid is TCP at the point, :meth:`NetworkSpec.link`).
DEFAULT_NETWORK_GBIT_S = TYPICAL_NETWORK_GBIT_S
DEFAULT_NETWORK_KIND: NetworkKind = "rdma"

#: Share of a link's one-direction bandwidth that NCCL reaches ("bus bandwidth"): nccl-tests
#: all_reduce on DGX A100 reports ≈230–240 GB/s of NVLink 3's 300 GB/s per direction; PCIe through
#: host bridges reaches somewhat less. Across nodes, RDMA (EFA, InfiniBand, RoCE: GPUDirect, no
#: host copies) reaches ≈80 % of line rate; NCCL's socket transport over TCP copies through host
#: memory and is CPU-bound per stream — taken as 50 % of line rate (an ASSUMPTION; the band's slow
#: end covers worse).
#:
#: ``pcie_host``: PCIe between GPUs without peer access (GeForce cards, :attr:`GPU.pcie_peer_access`),
#: where NCCL's SHM transport stages every ring step through host memory, so the CPU's memory and root
#: complex set the rate ("On PCI systems, the performance you get is usually determined by the
#: bandwidth your CPU and memory can deliver": NCCL's maintainer on eight RTX 5090s,
#: github.com/NVIDIA/nccl issue 1639, 2025-03-14). Measured nccl-tests ``all_reduce_perf`` bus
#: bandwidths read: 12.3–12.8 GB/s for 4–64 MB on RTX 4090s (Gen4 x16, 32 GB/s a direction:
#: 0.38–0.40; github.com/tinygrad/open-gpu-kernel-modules pull request 22, 2024-11-15, a thread
#: comparing that P2P driver fork with the stock driver: the excerpt read does not say which of the
#: two ran it, and with P2P the stock rate is lower still); at most 28 GB/s on eight RTX 5090s (Gen5,
#: 64 GB/s: 0.44; the nccl issue above). Taken at the lower end, 0.40 of the one-direction rate: an
#: 8× RTX 4090 box at 12.8 GB/s where P2P would give 22.4.
_NCCL_EFFICIENCY = {"nvlink": 0.78, "pcie": 0.70, "pcie_host": 0.40, "rdma": 0.80, "tcp": 0.50}
#: Per-hop latency of a ring step, seconds (NCCL's LL/simple protocols: a few µs on NVLink/PCIe,
#: ~10–15 µs over RDMA, tens of µs through the kernel's TCP stack). Through host memory, a copy
#: between two GPUs takes 12–21 µs where P2P is disabled (``p2pBandwidthLatencyTest`` "P2P=Disabled
#: Latency Matrix" on eight RTX 2080 Ti, github.com/NVIDIA/nccl-tests issue 117, 2022-10-26).
_HOP_LATENCY_S = {"nvlink": 5e-6, "pcie": 8e-6, "pcie_host": 15e-6, "rdma": 15e-6, "tcp": 40e-6}
#: Share of PCIe's one-direction rate a copy between host memory and a GPU reaches: 25 GB/s of a
#: Gen4 x16 link's 32, the measured peak the BaM authors give (Qureshi et al., "GPU-Initiated
#: On-Demand High-Throughput Storage Access in the BaM System Architecture", ASPLOS 2023,
#: arXiv:2203.04910; "it is measured peak", github.com/ZaidQureshi/bam issue 54, 2025-02-14). A
#: single-stream copy often reaches less (≈19.7 GB/s on an A10, Gen4 x16:
#: github.com/drkennetz/cuda_examples pull request 1, 2024-08-16), which the band's slow end covers.
HOST_COPY_EFFICIENCY = 25.0 / 32.0
#: Interconnect words in a catalog offer that mean RDMA between nodes.
_RDMA_WORDS = ("efa", "infiniband", "roce", "rdma", " ib", "ib ", "gpudirect")

#: NVSwitch joins the GPUs of NVIDIA's 8-GPU HGX baseboards only (NVIDIA AI Enterprise
#: documentation, "NVIDIA NVSwitch", platform support: HGX B300/B200/H200/H100/H800/A100 8-GPU
#: baseboards, https://docs.nvidia.com/ai-enterprise/release-8/8.0/infra-software/vgpu/features/nvswitch.html,
#: read 2026-12-02); the 4-GPU HGX boards join their GPUs directly (NVIDIA Technical Blog,
#: "Introducing NVIDIA HGX A100: The Most Powerful Accelerated Server Platform for AI and High
#: Performance Computing": "HGX A100 8-GPU connected with NVSwitch", "HGX A100 4-GPU connected with
#: NVLink", https://devblogs.nvidia.com/introducing-hgx-a100-most-powerful-accelerated-server-platform-for-ai-hpc/,
#: read 2026-12-02). So an SXM/OAM instance of fewer than eight GPUs whose catalog entry does not say
#: NVSwitch may be a 4-GPU board, or a slice of one, and is taken as one: the smallest such board
#: (a slice of two GPUs of it has a third of each GPU's links between them).
SMALLEST_NVLINK_BOARD = 4
#: GPUs per node from which an SXM/OAM node is taken as an NVSwitch board when its catalog entry
#: does not say (the 8-GPU HGX baseboards).
SWITCHED_FROM_GPUS = 8
#: Architectures whose 8-GPU SXM2 boards join the GPUs directly, with no NVSwitch: the HGX-1 / DGX-1 "hybrid
#: cube-mesh" of eight P100 or V100 ("a cube with GPUs at its corners and with all twelve edges connected
#: through NVLink (some edges have two NVLink connections), and with two of the six faces having their
#: diagonals connected as well … three interwoven rings of single NVLink connections": NVIDIA, "NVIDIA DGX-1
#: System Architecture" white paper, WP-08437-001, section 3.1 "DGX-1 NVLink Network Topology for Efficient
#: Application Scaling"; its V100 edition's text read at the reproduction https://www.iitr.ac.in/dgx,
#: 2026-12-03). AWS p3.16xlarge and p3dn.24xlarge are that board. NVSwitch came with the 16-GPU HGX-2 (V100)
#: and is on every 8-GPU board from the HGX A100 on (the NVIDIA AI Enterprise page above), so a node of
#: :data:`SWITCHED_FROM_GPUS` of these GPUs is a direct board of its GPUs unless its entry says NVSwitch, and
#: one of :data:`HGX2_GPUS` or more is switched.
MESH_ARCHITECTURES = frozenset({"Pascal", "Volta"})
HGX2_GPUS = 16
#: Architectures whose OAM platform joins eight GPUs in a full mesh, with no switch: "The GPUs are
#: using seven high-bandwidth, low-latency AMD Infinity Fabric links … to form a fully connected
#: 8-GPU system" (AMD, ROCm documentation, "AMD Instinct MI300 series microarchitecture", section
#: "Node-level architecture", docs/conceptual/gpu-arch/mi300.md in github.com/ROCm/ROCm @e396b48,
#: read 2026-12-03). Each GPU's link bandwidth is split evenly over its seven peers, so a collective
#: over fewer than eight uses only the links to the peers in it, whatever the instance says.
FULL_MESH_ARCHITECTURES = frozenset({"CDNA 3"})
FULL_MESH_GPUS = 8


#: The catalog's ``network_kind`` values (catalog/schema.py) and what NCCL runs over them: EFA
#: (libfabric, GPUDirect RDMA on p4d/p5), InfiniBand and RoCE are RDMA; TCP is the socket transport.
CATALOG_NETWORK_KINDS: dict[str, NetworkKind] = {
    "efa": "rdma",
    "infiniband": "rdma",
    "roce": "rdma",
    "tcp": "tcp",
    # not a catalog word: a fabric the user gave without naming it (plan --network-kind rdma)
    "rdma": "rdma",
}


def catalog_network_kind(value: str | None) -> NetworkKind | None:
    """``rdma`` or ``tcp`` for a catalog ``network_kind`` (``EFA``, ``InfiniBand``, ``RoCE``, ``TCP``);
    None when the catalog does not say (or says something else)."""
    return CATALOG_NETWORK_KINDS.get((value or "").strip().lower())


#: What ``--network-kind`` reads (any case): the two kinds, and the fabrics named in its help, each
#: of one kind only. "ethernet" is not one: RoCE runs RDMA over Ethernet, and plain Ethernet is TCP.
GIVEN_NETWORK_KINDS: dict[str, NetworkKind] = {**CATALOG_NETWORK_KINDS, "ib": "rdma"}


def checked_network_kind(value: str | None) -> NetworkKind | None:
    """``--network-kind`` read: ``rdma`` or ``tcp``, or a fabric of one of them (``infiniband``,
    ``ib``, ``efa``, ``roce``: rdma), any case; None where not given. Another word raises
    InputError naming the kind it is nearest (``gpuplan estimate`` and ``gpuplan plan`` read it
    alike)."""
    if value is None:
        return None
    kind = value.strip().lower()
    if kind in GIVEN_NETWORK_KINDS:
        return GIVEN_NETWORK_KINDS[kind]
    if kind == "ethernet":
        raise InputError.worded(
            N_(
                "--network-kind: Ethernet may be either: rdma for RoCE (RDMA over Ethernet), tcp for "
                "plain Ethernet"
            )
        )
    # 0.6: "fast" shares half the letters of "efa" and means neither
    near = closest(kind, GIVEN_NETWORK_KINDS, n=1, cutoff=0.6)
    if near:
        raise InputError.worded(
            N_("--network-kind: use rdma or tcp (got {value!r}); did you mean {kind}?"),
            value=value,
            kind=GIVEN_NETWORK_KINDS[near[0]],
        )
    raise InputError.worded(
        N_(
            "--network-kind: use rdma or tcp (got {value!r}): rdma for EFA, InfiniBand or RoCE, tcp for "
            "plain Ethernet"
        ),
        value=value,
    )


def network_kind_of(text: str) -> NetworkKind | None:
    """``rdma`` or ``tcp`` from an offer's interconnect/network description; None if it says neither."""
    t = f" {text.lower()} "
    if any(w in t for w in _RDMA_WORDS):
        return "rdma"
    if "tcp" in t or "ethernet" in t:
        return "tcp"
    return None


class GpuJoin(NamedTuple):
    """How the GPUs of one instance are joined, from its catalog entry (:func:`gpu_join`)."""

    nvlink: bool
    """Its GPUs talk over NVLink (else PCIe)."""
    board: int | None
    """:attr:`Link.nvlink_board`: the GPUs of a directly joined NVLink board; None: NVSwitch, or
    no board (PCIe, one GPU)."""
    known: bool
    """The catalog entry says it (False: the conservative bound of an entry that does not)."""


def gpu_join(gpu: GPU, gpus_per_node: int, interconnect: str | None) -> GpuJoin:
    """How an instance of ``gpus_per_node`` × ``gpu`` joins its GPUs, from what its catalog entry
    says of them (``interconnect``; "" or None: nothing). Words marked "unverified" count as
    nothing said. Unknown is never taken at its best case:

    - SXM/OAM parts: NVSwitch where the entry says so, and on nodes of :data:`SWITCHED_FROM_GPUS`
      or more (the 8-GPU HGX boards, as before), except a P100/V100 node of eight: the hybrid
      cube-mesh board, directly joined (:data:`MESH_ARCHITECTURES`); an entry saying NVLink
      without NVSwitch on a node of :data:`SMALLEST_NVLINK_BOARD` or more GPUs is a directly
      joined board of its GPUs; otherwise the board is unknown and taken as a directly joined one of at least
      :data:`SMALLEST_NVLINK_BOARD` GPUs (a node of two may be half of such a board). An AMD
      CDNA 3 (MI300X) node is always the fully connected 8-GPU board
      (:data:`FULL_MESH_ARCHITECTURES`).
    - PCIe parts with an NVLink bridge: bridges join pairs, so an entry saying NVLink gives NVLink
      up to two GPUs a node; one saying nothing gives PCIe (a bridge is an option the entry does
      not state), unknown only where a bridge could join them all (two GPUs).
    - An entry naming another link (PCIe, none) gives PCIe.
    """
    text = (interconnect or "").lower()
    if "unverified" in text or "not stated" in text:
        text = ""
    said_nvlink = "nvlink" in text or "nvswitch" in text
    if gpus_per_node <= 1:  # nothing to join: the datasheet's link, as the entry words it
        return GpuJoin(nvlink=bool(gpu.nvlink_gbps) and (said_nvlink or not text), board=None, known=True)
    if gpu.architecture in FULL_MESH_ARCHITECTURES and gpu.nvlink_gbps:
        return GpuJoin(nvlink=True, board=FULL_MESH_GPUS, known=True)  # whatever the entry calls it
    if not gpu.nvlink_gbps or (text and not said_nvlink):
        return GpuJoin(nvlink=False, board=None, known=True)
    if not gpu.form_factor.upper().startswith(("SXM", "OAM")):
        if said_nvlink:
            return GpuJoin(nvlink=gpus_per_node <= 2, board=None, known=True)
        return GpuJoin(nvlink=False, board=None, known=gpus_per_node > 2)
    switched_from = HGX2_GPUS if gpu.architecture in MESH_ARCHITECTURES else SWITCHED_FROM_GPUS
    if gpus_per_node >= switched_from or "nvswitch" in text:
        return GpuJoin(nvlink=True, board=None, known=True)
    if gpus_per_node >= SWITCHED_FROM_GPUS:
        # A P100/V100 SXM2 node of eight: the hybrid cube-mesh board, a fact of that generation
        # (each GPU's six links reach four of its seven peers; a collective over fewer than eight
        # is taken, as on any direct board, at the share of the links to the peers it uses).
        return GpuJoin(nvlink=True, board=gpus_per_node, known=True)
    board = max(gpus_per_node, SMALLEST_NVLINK_BOARD)
    return GpuJoin(nvlink=True, board=board, known=said_nvlink and board == gpus_per_node)


#: The links and fabrics as their makers write them: the codes (``nvlink``, ``tcp``) stay codes in the
#: JSON's fields, and a code left lower-case in a sentence read as a stray English word in Chinese.
LINK_NAMES = {"nvlink": "NVLink", "pcie": "PCIe", "pcie_host": "PCIe", "rdma": "RDMA", "tcp": "TCP"}


def link_name(code: str) -> str:
    """``NVLink``, ``PCIe``, ``RDMA``, ``TCP`` for a link or network kind code (others as given)."""
    return LINK_NAMES.get(code, code)


def network_kind_words(link: Link) -> str:
    """What an estimate took a network of stated rate and unstated kind as, and the flag that says
    otherwise: the kind moves the collectives' rate by 0.80 against 0.50 of line rate."""
    return _(
        "network {gbit_s:,g} Gbit/s of unstated kind: taken as tcp at the point, the conservative "
        "bound, and as rdma at the same rate at the range's fast end; --network-kind rdma if it is "
        "EFA, InfiniBand or RoCE, --network-kind tcp if it is plain Ethernet"
    ).format(gbit_s=link.network_gbit_s)


def no_peer_access_words(link: Link, gpu: GPU) -> str:
    """Why a node of GPUs without peer access (:attr:`Link.peer_access`) is costed below PCIe's rate."""
    return _(
        "no P2P between {gpu} cards (NVIDIA's driver disables peer access on GeForce cards): NCCL goes "
        "through host memory, taken at {bus:.3g} GB/s of all-reduce bus bandwidth, {share:.0%} of "
        "PCIe's {gbps:g} GB/s a direction (P2P would give {p2p:.3g}); `gpuplan doctor` on the machine "
        "shows whether its GPUs have P2P"
    ).format(
        gpu=gpu.id,
        bus=link.intra_bus_bytes_s() / 1e9,
        share=_NCCL_EFFICIENCY["pcie_host"],
        gbps=link.intra_node_gbps,
        p2p=link.intra_node_gbps * _NCCL_EFFICIENCY["pcie"],
    )


def gpu_join_words(nvlink: bool, board: int | None) -> str:
    """The conservative bound :func:`gpu_join` takes for an instance that does not say how its GPUs
    are joined, in words."""
    if nvlink and board:
        return _("a directly joined {board}-GPU NVLink board, no NVSwitch (the smallest HGX board)").format(
            board=board
        )
    return _("PCIe between the GPUs, no NVLink bridge")


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
    nvlink_board: int | None = None
    """GPUs of a node's NVLink board when they are joined directly, without NVSwitch (a 4-GPU HGX
    baseboard): each GPU's links are split evenly over the other ``nvlink_board − 1``, so a
    collective over fewer of them uses only their share (:meth:`nvlink_share`). None: NVSwitch,
    every GPU reaches any group of the node at its full NVLink bandwidth."""
    gpu_join_assumed: bool = False
    """How the node's GPUs are joined (``intra_node``, ``nvlink_board``) is the conservative bound
    taken for an instance whose catalog entry does not say it (:func:`gpu_join`), not a fact."""
    network_kind_assumed: bool = False
    """``network_kind`` was not given with a known ``network_gbit_s``: taken as TCP (the
    conservative bound) at the point and RDMA at the fast end, an assumption the estimate states."""
    full_mesh: bool = False
    """The board is AMD's fully connected Infinity Fabric one (:data:`FULL_MESH_ARCHITECTURES`):
    ``intra_node`` "nvlink" stands for its GPU-to-GPU links, and the words say Infinity Fabric."""
    gpus_used: int | None = None
    """The run's GPUs where its last node is not full (12 on two 8-GPU nodes); None: every GPU of
    its ``nodes × gpus_per_node``."""
    node_size_given: bool = False
    """``gpus_per_node`` is the instance's or the user's, not the default for the count (all of
    them in one node up to 8): a run of more GPUs keeps it."""
    peer_access: bool = True
    """The node's GPUs reach each other's memory directly (CUDA peer access, NCCL's P2P transport).
    False on PCIe between GeForce cards (:attr:`GPU.pcie_peer_access`): NCCL stages each ring step
    through host memory (:data:`_NCCL_EFFICIENCY` ``pcie_host``)."""

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
        nvlink_board: int | None = None,
        gpu_join_assumed: bool = False,
        network_kind_assumed: bool = False,
    ) -> Link:
        """A link from GPU datasheet facts and what the instance says.

        ``gpus_per_node`` defaults to ``min(count, 8)``; ``nvlink`` defaults to NVLink on SXM/OAM
        parts (NVSwitch) and, for PCIe parts with a bridge, only up to two GPUs per node. Without
        ``network_gbit_s`` the network is unknown (``network_source`` ``assumed``): a typical fabric,
        :data:`TYPICAL_NETWORK_GBIT_S` over ``network_kind`` or TCP (the range's ends:
        :meth:`slow_end`, :meth:`fast_end`). A stated rate without ``network_kind`` is taken as
        :data:`DEFAULT_NETWORK_KIND` (RDMA); :meth:`NetworkSpec.link` passes TCP and
        ``network_kind_assumed`` for one the user or offer left unsaid. ``nvlink_board``: the GPUs
        of a node's directly joined NVLink board (:attr:`Link.nvlink_board`); None: NVSwitch.
        ``gpu_join_assumed``: the link inside the node is a bound taken for an instance that does
        not say (:func:`gpu_join`).
        """
        if count < 1:
            raise EstimateError.worded(N_("GPU count must be at least 1, got {count}"), count=count)
        if network_gbit_s is not None and not MIN_NETWORK_GBIT_S <= network_gbit_s <= MAX_NETWORK_GBIT_S:
            raise EstimateError.worded(
                N_("network bandwidth must be between {low:g} and {high:,g} Gbit/s, got {gbit_s:g}"),
                low=MIN_NETWORK_GBIT_S,
                high=MAX_NETWORK_GBIT_S,
                gbit_s=network_gbit_s,
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
        full_mesh = has_nvlink and gpu.architecture in FULL_MESH_ARCHITECTURES
        if nvlink_board is None and full_mesh:
            nvlink_board = FULL_MESH_GPUS  # no switched board of these exists
        return cls(
            nodes=nodes,
            gpus_per_node=per_node,
            intra_node=intra,
            intra_node_gbps=bidir / 2.0,
            network_gbit_s=DEFAULT_NETWORK_GBIT_S if network_gbit_s is None else network_gbit_s,
            network_kind=network_kind or (TYPICAL_NETWORK_KIND if assumed else DEFAULT_NETWORK_KIND),
            network_source="assumed" if assumed else network_source,
            nvlink_board=nvlink_board if has_nvlink else None,
            gpu_join_assumed=gpu_join_assumed and per_node > 1,
            network_kind_assumed=network_kind_assumed and not assumed,
            full_mesh=full_mesh,
            node_size_given=gpus_per_node is not None,
            gpus_used=count if count < nodes * per_node else None,
            peer_access=has_nvlink or gpu.pcie_peer_access,
        )

    def slow_end(self) -> Link:
        """The link at the slow end of the range: an unknown network becomes the slowest GPU
        instance network of the embedded catalog (:data:`SLOW_NETWORK_GBIT_S` TCP); a stated rate
        of unstated kind (:attr:`network_kind_assumed`) becomes that rate over TCP; a known one
        stays as it is."""
        if self.nodes <= 1:
            return self
        if not self.network_known:
            return replace(self, network_gbit_s=SLOW_NETWORK_GBIT_S, network_kind=SLOW_NETWORK_KIND)
        if self.network_kind_assumed:
            return replace(self, network_kind="tcp")
        return self

    def fast_end(self) -> Link:
        """The link at the fast end of the range: an unknown network becomes the fastest plausible
        fabric (:data:`FAST_NETWORK_GBIT_S` RDMA); a stated rate of unstated kind becomes that rate
        over RDMA; a known one stays as it is."""
        if self.nodes <= 1:
            return self
        if not self.network_known:
            return replace(self, network_gbit_s=FAST_NETWORK_GBIT_S, network_kind=FAST_NETWORK_KIND)
        if self.network_kind_assumed:
            return replace(self, network_kind="rdma")
        return self

    def intra_bus_bytes_s(self, gpus: int | None = None) -> float:
        """Bytes/s one GPU moves inside its node for a collective over ``gpus`` of the node's GPUs
        (default: all of the job's on the node), NCCL's share of the link."""
        share = self.nvlink_share(self.gpus_per_node if gpus is None else gpus)
        return self.intra_node_gbps * 1e9 * _NCCL_EFFICIENCY[self.intra_path] * share

    @property
    def intra_path(self) -> Literal["nvlink", "pcie", "pcie_host"]:
        """The path of a collective inside a node: NVLink, PCIe peer to peer, or PCIe through host
        memory (no peer access)."""
        if self.intra_node == "pcie" and not self.peer_access:
            return "pcie_host"
        return self.intra_node

    def nvlink_share(self, gpus: int) -> float:
        """The share of each GPU's NVLink a collective over ``gpus`` GPUs of one node can use: 1
        under NVSwitch; on a directly joined board of ``b`` GPUs, the links to the other
        ``gpus − 1`` of the ``b − 1`` peers. E.g. 2 GPUs of a 4-GPU H200 board: 6 of 18 links."""
        board = self.nvlink_board
        if self.intra_node != "nvlink" or not board or gpus >= board:
            return 1.0
        return max(gpus - 1, 1) / (board - 1)

    def network_bus_bytes_s(self) -> float:
        """Bytes/s the node's NICs together carry for NCCL."""
        return self.network_gbit_s / 8.0 * 1e9 * _NCCL_EFFICIENCY[self.network_kind]

    def describe(self) -> str:
        link = (
            "Infinity Fabric"
            if self.full_mesh and self.intra_node == "nvlink"
            else link_name(self.intra_node)
        )
        if self.intra_path == "pcie_host" and self.gpus_per_node > 1:
            inside = _("{gpus}× GPU over PCIe via host memory, no P2P ({gbps:g} GB/s/dir)").format(
                gpus=self.gpus_per_node, gbps=self.intra_node_gbps
            )
        else:
            inside = _("{gpus}× GPU over {link} ({gbps:g} GB/s/dir)").format(
                gpus=self.gpus_per_node, link=link, gbps=self.intra_node_gbps
            )
        if self.full_mesh and self.nvlink_board:
            inside += _(" on a fully connected {board}-GPU board").format(board=self.nvlink_board)
        elif self.intra_node == "nvlink" and self.nvlink_board:
            inside += _(" on a {board}-GPU NVLink board without NVSwitch").format(board=self.nvlink_board)
        if self.gpu_join_assumed:
            inside += _(" (assumed: how the GPUs are joined is not known)")
        if self.nodes <= 1:
            return inside
        src = {"user": "", "catalog": _(", from the instance"), "assumed": _(", assumed")}[
            self.network_source
        ]
        if self.gpus_used is not None:  # "2 nodes × 8" would say 16
            return _(
                "{count} GPUs on {nodes} nodes × {inside}, network {gbit:g} Gbit/s {kind}{source}"
            ).format(
                count=self.gpus_used,
                nodes=self.nodes,
                inside=inside,
                gbit=self.network_gbit_s,
                kind=link_name(self.network_kind),
                source=src,
            )
        return _("{nodes} nodes × {inside}, network {gbit:g} Gbit/s {kind}{source}").format(
            nodes=self.nodes,
            inside=inside,
            gbit=self.network_gbit_s,
            kind=link_name(self.network_kind),
            source=src,
        )


@dataclass(frozen=True, kw_only=True)
class NetworkSpec:
    """What the user or the instance says about the machines' links, before the GPU count is known."""

    gbit_s: float | None = None
    """Inter-node network per node, Gbit/s; None: unknown, taken at a typical fabric
    (:data:`TYPICAL_NETWORK_GBIT_S`), labelled assumed, with the range from the slow end to the fast."""
    kind: NetworkKind | None = None
    source: NetworkSource = "user"
    gpus_per_node: int | None = None
    nvlink: bool | None = None
    interconnect: str | None = None
    """The GPU link as an instance's catalog entry words it ("" when it says nothing): with
    ``gpus_per_node`` (the instance's GPUs) it decides NVLink or PCIe and the NVLink board
    (:func:`gpu_join`), in place of ``nvlink``. None: no instance (``nvlink`` or the datasheet's
    default, an SXM/OAM node taken as NVSwitch)."""

    def link(self, gpu: GPU, count: int) -> Link:
        kind = self.kind
        kind_assumed = kind is None and self.gbit_s is not None
        if kind_assumed:
            # Not said: TCP, the conservative bound whatever the rate (a fast instance network may
            # still be plain Ethernet), as a plan ranks such an offer; the range's fast end takes
            # the same rate over RDMA (Link.fast_end). An assumption the estimate states.
            kind = "tcp"
        nvlink, board, known = self.nvlink, None, True
        if self.interconnect is not None:
            nvlink, board, known = gpu_join(gpu, self.gpus_per_node or min(count, 8), self.interconnect)
        return Link.for_gpus(
            gpu,
            count,
            gpus_per_node=self.gpus_per_node,
            nvlink=nvlink,
            network_gbit_s=self.gbit_s,
            network_kind=kind,
            network_source=self.source,
            nvlink_board=board,
            gpu_join_assumed=not known,
            network_kind_assumed=kind_assumed,
        )


def bounded(network: NetworkSpec | None) -> NetworkSpec:
    """The links as given, with the GPU link of a node nothing names taken at :func:`gpu_join`'s
    conservative bound: no instance (or one described by its network alone) says how its GPUs are
    joined, so NVSwitch is not assumed of a node of fewer than eight (and stated in the link)."""
    spec = network if network is not None else NetworkSpec()
    return spec if spec.interconnect is not None else replace(spec, interconnect="")


def _collective_s(nbytes: float, link: Link, world: int, passes: float) -> float:
    """A ring collective of ``passes`` × (n−1)/n × ``nbytes`` per GPU (1 for all-gather and
    reduce-scatter, 2 for all-reduce), hierarchical across nodes as NCCL runs it.

    Inside a node each GPU moves ``passes·(g−1)/g·bytes`` over its own link (on a directly joined
    board, over its links to the other ``g − 1``). Across N nodes the
    node's NICs together move ``passes·(N−1)/N·bytes`` (each of the g GPUs carries its 1/g share
    of the data over the node's network). NCCL pipelines the two, so the slower one sets the time.
    """
    if world <= 1 or nbytes <= 0:
        return 0.0
    g = min(link.gpus_per_node, world)
    nodes = -(-world // g)
    intra = passes * (g - 1) / g * nbytes / link.intra_bus_bytes_s(g) if g > 1 else 0.0
    latency = passes * (g - 1) * _HOP_LATENCY_S[link.intra_path]
    if nodes <= 1:
        return intra + latency
    inter = passes * (nodes - 1) / nodes * nbytes / link.network_bus_bytes_s()
    latency += passes * (nodes - 1) * _HOP_LATENCY_S[link.network_kind]
    return max(intra, inter) + latency


def host_copy_s(nbytes: float, gpu: GPU) -> float:
    """Seconds to move ``nbytes`` one way between host memory and ``gpu`` over its PCIe x16 link
    (:data:`HOST_COPY_EFFICIENCY` of the one-direction rate)."""
    return nbytes / (gpu.pcie_gbps / 2.0 * 1e9 * HOST_COPY_EFFICIENCY) if nbytes > 0 else 0.0


def all_reduce_s(nbytes: float, link: Link, *, world: int | None = None) -> float:
    """All-reduce of ``nbytes`` over ``world`` GPUs (default: all of ``link``'s)."""
    return _collective_s(nbytes, link, world or link.gpu_count, 2.0)


def all_gather_s(nbytes: float, link: Link, *, world: int | None = None) -> float:
    """All-gather (or reduce-scatter) of a ``nbytes`` tensor over ``world`` GPUs (default: all of
    ``link``'s)."""
    return _collective_s(nbytes, link, world or link.gpu_count, 1.0)
