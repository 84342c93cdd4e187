"""The network between nodes a multi-node option's time assumes, and its time without it, in words.

A job on several instances spends part of each step in NCCL's collectives between them, so the
network is often the biggest lever on its time: the same 4 × 8 H200 run takes a few hours over
EFA and several times that over plain TCP sockets. The catalog gives each instance a rate and a
kind (EFA, InfiniBand, RoCE: RDMA; TCP), which the estimator takes; an RDMA fabric (or Google
Cloud's GPUDirect-TCPX/TCPXO on the TCP rows of A3) must be set up at launch, and where it is not
NCCL falls back to TCP over the instance's ordinary network. The recommended option's explanation
says the network taken, where it comes from, and the estimator's time over that fallback, so that
a reader knows what to check before renting.
"""

from __future__ import annotations

import math

from gpuplan.catalog.providers import PROVIDERS, facts
from gpuplan.i18n import _
from gpuplan.perf.links import (
    SLOW_NETWORK_GBIT_S,
    TYPICAL_NETWORK_GBIT_S,
    catalog_network_kind,
    network_kind_of,
)
from gpuplan.plan.candidates import EstimateFn
from gpuplan.plan.input_types import EstimateKey, OfferTable
from gpuplan.plan.result import Option
from gpuplan.plan.unknowns import HostBounds
from gpuplan.units import format_hours

__all__ = ["FALLBACK_NETWORK_GBIT_S", "network_words"]

#: The network a multi-node job falls back to where its fabric is not set up: TCP sockets over an
#: instance's ordinary virtual NIC, at the typical rate of one (``perf.links.TYPICAL_NETWORK_GBIT_S``:
#: Google Cloud gives A2 and G2 instances "up to 100 Gbps" over their virtual NICs). The figure
#: ``gpuplan deploy`` names in its warning (``--network-kind tcp --network-gbps 100``).
FALLBACK_NETWORK_GBIT_S = TYPICAL_NETWORK_GBIT_S


def network_words(
    option: Option,
    offers: OfferTable,
    estimate: EstimateFn,
    bounds: HostBounds | None = None,
    *,
    service: bool = False,
) -> str:
    """The network between ``option``'s nodes its time assumes (fabric, rate, where each comes
    from) and its compute time over TCP at :data:`FALLBACK_NETWORK_GBIT_S`, in words; "" for one
    node, or a service (its replicas are independent servers, and its time is its calendar period)."""
    if option.nodes < 2 or service:
        return ""
    gbps, kind, origin = _taken(option, bounds)
    head = _("network between the {nodes} nodes: {kind} at {gbps} Gbit/s per instance ({origin})").format(
        nodes=option.nodes, kind=kind, gbps=f"{gbps:,.4g}", origin=origin
    )
    fallback = _fallback_h(option, offers, estimate, bounds)
    if fallback is None or (kind == "TCP" and gbps <= FALLBACK_NETWORK_GBIT_S):
        return head  # already at or below the fallback: nothing slower to warn of
    if fallback <= option.compute_time_h * 1.005:
        return _(
            "{head}; over TCP at {fallback} Gbit/s it would take about as long ({time}): the network "
            "does not decide this job's time"
        ).format(head=head, fallback=f"{FALLBACK_NETWORK_GBIT_S:g}", time=format_hours(fallback))
    return _(
        "{head}; not set up, NCCL falls back to TCP over the ordinary network, and at {fallback} "
        "Gbit/s the compute takes {slow} instead of {fast} by gpuplan's estimate "
        "(`gpuplan estimate WORKLOAD --instance {instance} -n {gpus} --network-kind tcp --network-gbps "
        "{fallback}`): check the network before you rent (`gpuplan deploy` says what it needs)"
    ).format(
        head=head,
        instance=option.instance_type,
        gpus=option.gpu_count,
        fallback=f"{FALLBACK_NETWORK_GBIT_S:g}",
        slow=format_hours(fallback),
        fast=format_hours(option.compute_time_h),
    )


def _taken(option: Option, bounds: HostBounds | None) -> tuple[float, str, str]:
    """The rate and kind the option was estimated over, and where they come from, in words."""
    unknown = any(u.fact == "network" for u in option.unknown_facts)
    if option.network_gbps is None or unknown:
        # as plan.candidates takes it: the slowest any offer states, else the slowest GPU network
        slowest = bounds.network_gbps if bounds and bounds.network_gbps is not None else SLOW_NETWORK_GBIT_S
        origin = _(
            "an assumption: the catalog gives {instance} no network, so it is taken at the slowest a GPU "
            "instance is known to have"
        ).format(instance=option.instance_type)
        return slowest, "TCP", origin
    stated = option.network_kind
    if catalog_network_kind(stated) is not None:
        origin = _("the catalog's instance row for {instance}").format(instance=option.instance_type)
        return option.network_gbps, _named(option, stated), origin
    # The catalog gives the rate but not the kind: the estimator read it from the GPU link's words,
    # else took TCP (the conservative bound).
    kind = "RDMA" if network_kind_of(option.interconnect) == "rdma" else "TCP"
    origin = _(
        "the rate from the catalog's instance row for {instance}; its kind not stated, taken as {kind}"
    ).format(instance=option.instance_type, kind=kind)
    return option.network_gbps, kind, origin


def _fallback_h(
    option: Option, offers: OfferTable, estimate: EstimateFn, bounds: HostBounds | None
) -> float | None:
    """The estimator's failure-free time of ``option`` over TCP at the fallback rate; None where it
    gives none (the same instance's host facts as the plan took them)."""
    rows = (offers.provider == option.provider) & (offers.instance_type == option.instance_type)
    if not rows.any():
        return None
    i = int(rows.nonzero()[0][0])
    vcpus, ram = float(offers.vcpus[i]), float(offers.memory_gib[i])
    gpus = option.gpus_per_node
    row = estimate(
        EstimateKey(
            gpu=option.gpu,
            gpus_per_node=gpus,
            nodes=option.nodes,
            interconnect=option.interconnect,
            network_gbps=FALLBACK_NETWORK_GBIT_S,
            network_kind="TCP",
            vcpus=vcpus if math.isfinite(vcpus) else (bounds.vcpus(option.gpu, gpus) if bounds else None),
            memory_gib=ram if math.isfinite(ram) else (bounds.ram_gib(option.gpu, gpus) if bounds else None),
        )
    )
    if not row.fits or not math.isfinite(row.job_time_h):
        return None
    return float(row.job_time_h)


def _named(option: Option, kind: str) -> str:
    """The catalog's kind, with the provider's name for the GPU network it needs set up where that
    is another (``GPUDirect-TCPXO over TCP`` on a3-megagpu-8g, whose catalog kind is TCP)."""
    if option.provider not in PROVIDERS:
        return kind
    for setup in facts(option.provider).network_setups:
        if option.instance_type in setup.instances and setup.name != kind:
            return _("{name} over {kind}").format(name=setup.name, kind=kind)
    return kind
