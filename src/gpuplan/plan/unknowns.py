"""Facts an option's time or cost rests on that the catalog may not know, and the bounds an unknown
one is taken at.

No option may rank first *because* a fact about it is missing. So every unknown fact is costed at
its conservative bound, which is what the ranking, the deadline and the budget see; the option also
carries its best case (every unknown at its most favourable), and the plan says which unknown facts
moved each option and whether they decided the winner. The facts and their bounds:

==============  =================================  ===========================================
fact            conservative bound (ranked)        best case (shown beside it)
==============  =================================  ===========================================
vCPUs           the fewest vCPUs per GPU of any    not bounded (the GPUs' own time)
                offer of that GPU in the catalog
                (of any GPU when none is known)
RAM             the least RAM per GPU, likewise    the dataset fits the page cache
network         the slowest inter-node network     the fastest plausible fabric, 3,200 Gbit/s
                in the catalog, over TCP (where    RDMA (``perf.links.FAST_NETWORK_GBIT_S``)
                it states none, the embedded
                catalog's slowest,
                ``perf.links.SLOW_NETWORK_GBIT_S``)
egress price    the highest internet egress price  the lowest the catalog knows
                the catalog knows
storage price   the highest of its kind            the lowest of its kind
spot rate       one interruption per 24 h          the lowest published band's rate
                (``plan/spot.py``)
price date      stale (undated, of unknown age, or    its own figure
                older than the staleness limit:
                named with its date; where the
                winner's is, the plan shows the
                best option among prices known to
                be within the limit beside it); an
                undated spot price below
                the dated one of its region (its
                lowest zone, else its average;
                without either, the lowest of its
                instance type anywhere): that one
GPU link        an SXM node of fewer than eight    NVSwitch (a bridged pair of PCIe cards)
                GPUs: a directly joined NVLink
                board of at least four (no
                NVSwitch); two NVLink-capable
                PCIe cards: PCIe, no bridge
                (``perf.links.gpu_join``)
region          the source names none: no country  —
                (``--countries`` leaves it out),
                its transfer and storage prices
                at the bounds above
reclaim disk    a spot reclaim loses the disks     the disks survive: a restart reads the
                that hold the dataset: each        checkpoint back only
                restart copies it again (its time
                and its transfer in), as a new
                instance's disk starts empty
==============  =================================  ===========================================

Options equal on the objective are ordered by how many relevant facts are unknown, fewest first,
so an unknown never wins a tie either.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import IntFlag

import numpy as np

from gpuplan.i18n import N_, _
from gpuplan.plan.input_types import FloatArray, OfferTable, StrArray

__all__ = [
    "FACT_CODES",
    "RANKED_ONLY_CODES",
    "Fact",
    "HostBounds",
    "UnknownFact",
    "fact_name",
    "fact_names",
    "gpu_link_words",
    "host_bounds",
]


class Fact(IntFlag):
    """A fact an option rests on; a candidate's unknown facts are a bit mask of these."""

    VCPUS = 1
    RAM = 2
    NETWORK = 4
    EGRESS = 8
    STORAGE = 16
    SPOT_RATE = 32
    PRICE_DATE = 64
    GPU_LINK = 128
    REGION = 256
    RECLAIM_DISK = 512


#: How the JSON document names each fact.
FACT_CODES = {
    Fact.VCPUS: "vcpus",
    Fact.RAM: "ram",
    Fact.NETWORK: "network",
    Fact.EGRESS: "egress_price",
    Fact.STORAGE: "storage_price",
    Fact.SPOT_RATE: "spot_rate",
    Fact.PRICE_DATE: "price_date",
    Fact.GPU_LINK: "gpu_link",
    Fact.REGION: "region",
    Fact.RECLAIM_DISK: "reclaim_disk",
}
#: The facts in no figure of an option (its listed price is what is costed; its region is
#: unnamed): they rank it after an option that knows them but have no bound or best case.
RANKED_ONLY_CODES = frozenset({FACT_CODES[Fact.PRICE_DATE], FACT_CODES[Fact.REGION]})
_NAMES = {
    Fact.VCPUS: N_("vCPUs"),
    Fact.RAM: N_("RAM"),
    Fact.NETWORK: N_("network"),
    Fact.EGRESS: N_("egress price"),
    Fact.STORAGE: N_("storage price"),
    Fact.SPOT_RATE: N_("spot rate"),
    Fact.PRICE_DATE: N_("price date"),
    Fact.GPU_LINK: N_("GPU link"),
    Fact.REGION: N_("region"),
    Fact.RECLAIM_DISK: N_("disk after a reclaim"),
}


def fact_names(mask: int) -> list[str]:
    """The facts in ``mask``, in the current language, in the table's order."""
    return [_(_NAMES[f]) for f in Fact if mask & f]


def fact_name(code: str) -> str:
    """The fact of a JSON code (``vcpus``) in the current language."""
    for fact, c in FACT_CODES.items():
        if c == code:
            return _(_NAMES[fact])
    return code


@dataclass(frozen=True, kw_only=True)
class UnknownFact:
    """One unknown fact an option was costed at the conservative bound of."""

    fact: str
    """One of :data:`FACT_CODES`' values."""
    assumed: str
    """The bound taken, in words."""
    costed: bool = True
    """Whether the bound moves the option's figures (its best case differs); False for a fact in no
    figure, that only ranks it after an option that knows it (:data:`RANKED_ONLY_CODES`: a listed
    price's date, an unnamed region) — but a price date is costed where an undated price was held
    to a dated one above it."""


@dataclass(frozen=True, kw_only=True)
class HostBounds:
    """The conservative bounds of an instance's unknown vCPUs, RAM and network, from the catalog."""

    vcpus_per_gpu: dict[str, float]
    """Per GPU id: the fewest vCPUs per GPU among offers with a known count."""
    ram_gib_per_gpu: dict[str, float]
    """Per GPU id: the least RAM per GPU among offers with a known amount."""
    any_vcpus_per_gpu: float | None
    any_ram_gib_per_gpu: float | None
    network_gbps: float | None
    """The slowest inter-node network any offer states, Gbit/s (None: no offer states one)."""

    def vcpus(self, gpu: str, gpus: float) -> float | None:
        per = self.vcpus_per_gpu.get(gpu, self.any_vcpus_per_gpu)
        return None if per is None else per * gpus

    def ram_gib(self, gpu: str, gpus: float) -> float | None:
        per = self.ram_gib_per_gpu.get(gpu, self.any_ram_gib_per_gpu)
        return None if per is None else per * gpus

    def words(self, fact: Fact, gpu: str, gpus: float) -> str:
        """The bound taken for ``fact`` on an instance of ``gpus`` × ``gpu``, in words."""
        if fact is Fact.VCPUS:
            v = self.vcpus(gpu, gpus)
            return _("{n:g} vCPUs (the fewest per GPU of any offer in the catalog)").format(n=v or 0)
        if fact is Fact.RAM:
            r = self.ram_gib(gpu, gpus)
            return _("{n:g} GiB RAM (the least per GPU of any offer in the catalog)").format(n=r or 0)
        if self.network_gbps is None:
            from gpuplan.perf.links import SLOW_NETWORK_GBIT_S

            return _(
                "{n:g} Gbit/s TCP (no offer in this catalog states its network: the slowest GPU instance "
                "network of the embedded catalog)"
            ).format(n=SLOW_NETWORK_GBIT_S)
        return _("{n:g} Gbit/s TCP (the slowest network in the catalog)").format(n=self.network_gbps)


def _min_per_gpu(
    values: FloatArray, gpu_count: FloatArray, gpus: StrArray
) -> tuple[dict[str, float], float | None]:
    known = np.isfinite(values) & (values > 0) & (gpu_count >= 1)
    per = np.where(known, values / np.maximum(gpu_count, 1.0), math.inf)
    out: dict[str, float] = {}
    for g in sorted(set(gpus[known].tolist())):
        out[g] = float(per[known & (gpus == g)].min())
    overall = float(per[known].min()) if known.any() else None
    return out, overall


def host_bounds(offers: OfferTable) -> HostBounds:
    """The conservative bounds over ``offers`` (whole-GPU offers only)."""
    vcpus, any_vcpus = _min_per_gpu(offers.vcpus, offers.gpu_count, offers.gpu)
    ram, any_ram = _min_per_gpu(offers.memory_gib, offers.gpu_count, offers.gpu)
    net = offers.network_gbps[np.isfinite(offers.network_gbps) & (offers.network_gbps > 0)]
    return HostBounds(
        vcpus_per_gpu=vcpus,
        ram_gib_per_gpu=ram,
        any_vcpus_per_gpu=any_vcpus,
        any_ram_gib_per_gpu=any_ram,
        network_gbps=float(net.min()) if net.size else None,
    )


def gpu_link_words(gpu: str, gpus: float, interconnect: str) -> str:
    """The bound taken for an instance's unknown GPU link (``perf.links.gpu_join``), in words."""
    from gpuplan.hardware import get_gpu
    from gpuplan.perf.links import gpu_join, gpu_join_words

    join = gpu_join(get_gpu(gpu), int(gpus), interconnect)
    return gpu_join_words(join.nvlink, join.board)
