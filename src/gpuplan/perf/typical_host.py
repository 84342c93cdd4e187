"""The host an estimate without an instance takes for an image job's input pipeline.

An image job's DataLoader decodes on the instance's vCPUs (:mod:`gpuplan.perf.input_pipeline`).
``gpuplan estimate`` without ``--instance`` does not know them. Taking the pipeline to keep up would
be the best case for an unknown host; taking the fewest vCPUs per GPU in the catalog would be
absurd (some cloud shapes list 0.125 vCPU per GPU). So the slow end of the time range is taken on a
*typical* instance of that GPU and count: the median vCPUs per GPU over the priced instance types
of the catalog shipped with gpuplan (``catalog/data/offers.csv``) that carry that GPU, at the
instance size the job would run on. The point and the fast end stay the GPUs' own (the pipeline
keeps up): the range shows both. Its RAM — the median RAM per GPU of the same instance types, of
those that give it — stands in the same way for an instance whose RAM is not known: where its page
cache cannot hold a dataset read more than once, the slow end re-reads it from disk each epoch
(:func:`gpuplan.perf.input_pipeline.typical_reads`); taking an unknown RAM to hold any dataset would
be the best case.

Why the median and not the lower quartile: the slow end already takes the slow end of the decode
rate per vCPU (:data:`~gpuplan.perf.input_pipeline.IMAGES_PER_S_PER_VCPU_LOW`, half the point);
a lower-quartile host on top would put two pessimistic tails in one end of an 80 % range. An
instance type counts once however many regions and zones list it (the same host shape), so that
one provider's regional spread does not outvote the others.

Nor may one provider's menu of hosts outvote them. GCP attaches T4, V100, P100 and P4 GPUs to an
N1 VM of whatever size the user picks, and the catalog lists every pairing GCP allows as its own
offer (``n1-standard-1 + 4x nvidia-tesla-t4`` … ``n1-highmem-96 + 4x nvidia-tesla-t4``: 17 hosts for
4 × T4, where AWS has one g4dn.12xlarge): counted one by one, its 1- to 4-vCPU hosts pulled the
median down. Such a family counts once per GPU count, at the host a user gets when they name no
vCPUs: SkyPilot's own pairing (:func:`gpuplan.catalog.providers.gcp.n1_default_host`: the
cheapest N1 host of at least ``_NUM_ACC_TO_NUM_CPU`` vCPUs and 4 GiB each, sky/catalog/gcp_catalog.py
@b9dd08e7), e.g. n1-highmem-4 (4 vCPUs) for 1 × T4, n1-standard-64 for 4 × T4, n1-highmem-8 for
1 × V100. The other pairings stay offers that ``gpuplan plan`` ranks with their own vCPUs.

The instance size: the smallest number of GPUs per instance the catalog offers that GPU in that
holds the job's GPUs (1 GPU: the 1-GPU shapes), or the largest offered when the job spans nodes.
A GPU with no priced offer in the catalog has no typical host of its own: its rate is unknown, and
the slow end takes the median over every GPU's instance types of that size instead, said so.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from functools import cache

from gpuplan.i18n import _

__all__ = ["TypicalHost", "typical_host"]

#: Where the vCPU counts come from, in the output.
SOURCE = "the catalog shipped with gpuplan (catalog/data/offers.csv)"
#: How GCP's attachable GPUs are counted, in the output.
ATTACHABLE = "GCP's N1 hosts of attachable GPUs counted once, at SkyPilot's default host for the GPUs"


@dataclass(frozen=True, kw_only=True)
class TypicalHost:
    """A typical instance's vCPUs per GPU for a GPU and count, from the shipped catalog."""

    vcpus_per_gpu: float
    """The median vCPUs per GPU of :attr:`instance_types` instance types."""
    ram_gib_per_gpu: float | None = None
    """The median RAM per GPU, GiB, of those of the same instance types whose RAM the catalog
    gives (None: none does): where the instance's RAM is not known, whether a typical one's page
    cache holds a dataset read more than once bounds the slow end."""
    instance_types: int
    """How many priced instance types the median is over."""
    gpu: str
    """The GPU asked about."""
    gpus_per_instance: int
    """The instance size the types were taken at (GPUs per instance)."""
    own_offers: bool
    """False: the catalog has no priced offer of :attr:`gpu`; the median is over every GPU's types."""

    @property
    def _types(self) -> str:
        """``priced instance types with 1 × T4`` (English: the JSON document's fields)."""
        of = self.gpu if self.own_offers else f"any GPU (no priced offer of {self.gpu})"
        return f"priced instance types with {self.gpus_per_instance} × {of} in {SOURCE}"

    @property
    def source(self) -> str:
        """Where the figure comes from, in words (English: the JSON document's field)."""
        return f"median vCPUs per GPU of the {self.instance_types} {self._types} ({ATTACHABLE})"

    @property
    def ram_source(self) -> str:
        """Where the RAM figure comes from, in words (English: the JSON document's field)."""
        return f"median RAM per GPU of the {self._types} that give it"

    def describe(self) -> str:
        """``12 vCPUs per GPU, the median of 18 instance types with 1 × A100-SXM4-80GB``."""
        figures = {"vcpus": self.vcpus_per_gpu, "n": self.instance_types, "gpu": self.gpu}
        figures["size"] = self.gpus_per_instance
        if self.own_offers:
            return _(
                "{vcpus:g} vCPUs per GPU, the median of {n} instance types with {size} × {gpu} in the catalog"
            ).format(**figures)
        return _(
            "{gpu}'s decode rate unknown (no priced offer of it in the catalog): {vcpus:g} vCPUs per GPU, "
            "the median of {n} instance types with {size} GPUs of any kind"
        ).format(**figures)


#: Per GPU id, per GPUs per instance: (vCPUs, RAM GiB — NaN where not given) per GPU of each priced
#: (provider, instance type).
_Hosts = dict[str, dict[int, dict[tuple[str, str], tuple[float, float]]]]


@cache
def _catalog_hosts() -> _Hosts:
    """The shipped catalog's priced instance types with a vCPU count (read once per process); GCP's
    N1 pairings of one attachable GPU and count as one type, at SkyPilot's default host."""
    from gpuplan.catalog.providers.gcp import n1_default_host, n1_offer
    from gpuplan.catalog.snapshot import read_columns

    hosts: _Hosts = {}
    # (GPU id, GPUs, SkyPilot model) -> (vCPUs, GiB) of each N1 host listed with them -> its offer.
    attachable: dict[tuple[str, int, str], dict[tuple[float, float], str]] = {}
    columns = ("provider", "instance_type", "gpu", "gpu_count", "vcpus", "memory_gib", "price_reason")
    rows = read_columns("offers.csv", *columns)
    for provider, instance_type, gpu, gpu_count, vcpus_text, memory_text, price_reason in rows:
        # The snapshot gives a reason exactly where an offer has no price (tools/build_snapshot.py
        # writes ``price_reason=None if prices else …``; catalog/gates.py refuses an offer with neither).
        if price_reason.strip():
            continue
        try:
            vcpus, gpus = float(vcpus_text or "nan"), float(gpu_count or "nan")
        except ValueError:
            continue
        if not (vcpus > 0 and gpus >= 1 and gpus == int(gpus)):  # NaN fails both; fractional GPUs left out
            continue
        try:
            memory = float(memory_text or "nan")
        except ValueError:
            memory = math.nan
        pairing = n1_offer(instance_type) if provider == "gcp" else None
        if pairing is not None:
            if memory > 0:
                attachable.setdefault((gpu, int(gpus), pairing[0]), {})[(vcpus, memory)] = instance_type
            continue
        size = hosts.setdefault(gpu, {}).setdefault(int(gpus), {})
        size[(provider, instance_type)] = (vcpus / gpus, memory / gpus if memory > 0 else math.nan)
    for (gpu, gpus, model), shapes in attachable.items():
        chosen = n1_default_host(model, gpus, shapes)
        if chosen is not None:
            per = (chosen[0] / gpus, chosen[1] / gpus)
            hosts.setdefault(gpu, {}).setdefault(gpus, {})[("gcp", shapes[chosen])] = per
    return hosts


def _size(sizes: set[int], count: int) -> int:
    """The instance size a job of ``count`` GPUs runs on among ``sizes``: the smallest that holds
    it, else the largest (the job spans nodes)."""
    holding = [s for s in sizes if s >= count]
    return min(holding) if holding else max(sizes)


def typical_host(gpu: str, count: int) -> TypicalHost | None:
    """The typical host of ``count`` × ``gpu`` (canonical id) in the shipped catalog; None only
    when the catalog has no priced instance type with a vCPU count at all."""
    hosts = _catalog_hosts()
    own = hosts.get(gpu)
    if own:
        size = _size(set(own), count)
        per = list(own[size].values())
    else:
        every: dict[int, list[tuple[float, float]]] = {}
        for by_size in hosts.values():
            for s, types in by_size.items():
                every.setdefault(s, []).extend(types.values())
        if not every:
            return None
        size = _size(set(every), count)
        per = every[size]
    ram = [r for _, r in per if not math.isnan(r)]
    return TypicalHost(
        vcpus_per_gpu=float(statistics.median(v for v, _ in per)),
        ram_gib_per_gpu=float(statistics.median(ram)) if ram else None,
        instance_types=len(per),
        gpu=gpu,
        gpus_per_instance=size,
        own_offers=bool(own),
    )
