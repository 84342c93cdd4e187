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
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from gpuplan.catalog.providers import PROVIDERS, facts
from gpuplan.errors import InputError
from gpuplan.hardware.gpus import MAX_NETWORK_GBIT_S, MIN_NETWORK_GBIT_S
from gpuplan.i18n import N_, _
from gpuplan.i18n.phrases import item_list
from gpuplan.perf.links import (
    SLOW_NETWORK_GBIT_S,
    TYPICAL_NETWORK_GBIT_S,
    catalog_network_kind,
    checked_network_kind,
    network_kind_of,
)
from gpuplan.plan.candidates import EstimateFn
from gpuplan.plan.input_types import EstimateKey, OfferTable
from gpuplan.plan.result import Option
from gpuplan.plan.unknowns import HostBounds
from gpuplan.units import format_hours

__all__ = [
    "FALLBACK_NETWORK_GBIT_S",
    "checked_given_network",
    "given_network_note",
    "network_words",
    "with_given_network",
]

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
    gbps, kind, origin = _taken(option, offers, bounds)
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


def _taken(option: Option, offers: OfferTable, bounds: HostBounds | None) -> tuple[float, str, str]:
    """The rate and kind the option was estimated over, and where they come from, in words."""
    rows = (offers.provider == option.provider) & (offers.instance_type == option.instance_type)
    given = rows & offers.network_given
    if given.any():
        i = int(given.nonzero()[0][0])
        origin = _("as you gave it (--network-gbps): the catalog gives {instance} no network").format(
            instance=option.instance_type
        )
        return float(offers.network_gbps[i]), str(offers.network_kind[i]), origin
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


def with_given_network(offers: OfferTable, gbps: float | None, kind: str | None) -> OfferTable:
    """``offers`` with the user's inter-node network (``plan --network-gbps``, ``--network-kind``
    ``rdma`` or ``tcp``) put in where the catalog gives an instance none; a network the catalog
    states is kept. A rate without a kind is TCP, the conservative bound, as ``gpuplan estimate``
    takes it at its point. Nothing given: ``offers`` unchanged (the unknown network is then ranked
    at its conservative bound, ``plan/unknowns.py``)."""
    if gbps is None:
        return offers
    unknown = np.isnan(offers.network_gbps)
    if not unknown.any():
        return offers
    word = _kind_word(kind)
    return replace(
        offers,
        network_gbps=np.where(unknown, gbps, offers.network_gbps),
        network_kind=np.where(unknown, word, offers.network_kind.astype(str)),
        network_given=offers.network_given | unknown,
    )


def given_network_note(
    options: Sequence[Option], offers: OfferTable, gbps: float | None, kind: str | None
) -> str:
    """What the plan did with the network the user gave (``gbps``, ``kind`` as
    :func:`checked_given_network` returns them), over the multi-node ``options`` it shows: the
    instances it was put in for, and those whose catalog network was kept where it is another (the
    user's figure is for the instances the catalog says nothing of); "" where it touched none."""
    if gbps is None:
        return ""
    word = _kind_word(kind)
    given = offers.network_given
    took: dict[str, None] = {}
    kept: dict[str, str] = {}
    for o in options:
        if o.nodes < 2:
            continue
        rows = (offers.provider == o.provider) & (offers.instance_type == o.instance_type)
        name = f"{o.provider} {o.instance_type}"
        if (rows & given).any():
            took[name] = None
        elif o.network_gbps is not None and (
            o.network_gbps != gbps or catalog_network_kind(o.network_kind) not in (None, word.lower())
        ):
            kept[name] = _("{gbps} Gbit/s {kind}").format(
                gbps=f"{o.network_gbps:,.4g}", kind=o.network_kind or "?"
            )
    parts = []
    if took:
        parts.append(
            _(
                "your network, {gbps} Gbit/s {kind}, taken for {instances}: the catalog gives them none"
            ).format(gbps=f"{gbps:,.4g}", kind=word, instances=item_list(list(took)))
        )
    if kept:
        parts.append(
            _("the catalog's own network kept for {instances} (not your {gbps} Gbit/s {kind})").format(
                instances=item_list([f"{name}: {net}" for name, net in kept.items()]),
                gbps=f"{gbps:,.4g}",
                kind=word,
            )
        )
    return _("; ").join(parts)


def checked_given_network(gbps: float | None, kind: str | None) -> tuple[float | None, str | None]:
    """``network_gbps`` and ``network_kind`` read as ``gpuplan estimate`` reads them; a kind
    without a rate is refused (a plan ranks on a rate: the kind alone leaves the unknown rate at
    its slowest bound, where the kind changes nothing)."""
    checked = checked_network_kind(kind)
    if gbps is None:
        if checked is not None:
            raise InputError.worded(
                N_("--network-kind {kind} needs --network-gbps: the rate of the network between the nodes"),
                kind=checked,
            )
        return None, None
    if not (math.isfinite(gbps) and MIN_NETWORK_GBIT_S <= gbps <= MAX_NETWORK_GBIT_S):
        raise InputError.worded(
            N_("--network-gbps must be between {low:g} and {high:,g} Gbit/s, got {gbps:g}"),
            low=MIN_NETWORK_GBIT_S,
            high=MAX_NETWORK_GBIT_S,
            gbps=gbps,
        )
    return gbps, checked


def _kind_word(kind: str | None) -> str:
    """The network kind column's word for a kind the user gave: ``RDMA``, or ``TCP`` (also where
    none was given: the conservative bound)."""
    return "RDMA" if kind == "rdma" else "TCP"
