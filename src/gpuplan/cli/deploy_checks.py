"""Checks ``gpuplan deploy`` runs on a workload file before it writes anything: how the GPUs the user
asks for lie on nodes, and whether the job fits them."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NamedTuple

from gpuplan.i18n import N_, _, ngettext

#: (provider, instance type) -> (GPU id, GPUs per instance), as ``Store.known_instances`` gives it.
Instances = Mapping[tuple[str, str], tuple[str, float]]


def node_counts(instances: Instances, gpu: str, provider: str | None = None) -> list[int]:
    """The whole GPU counts of the catalog's instances of ``gpu`` (of ``provider`` when given), sorted."""
    return sorted(
        {
            int(c)
            for (p, _instance), (g, c) in instances.items()
            if g == gpu and c >= 1 and c == int(c) and (provider is None or p == provider)
        }
    )


class Network(NamedTuple):
    """An instance type's network to other instances, as the catalog lists it; None: not listed."""

    gbps: float | None
    kind: str | None


#: GPU id -> (provider, instance type) -> its network; read only when a job spans several nodes.
Networks = Callable[[str], Mapping[tuple[str, str], Network]]

#: Instance types named in a note before the rest are counted.
_NAMED = 3


def node_layout(
    instances: Instances,
    gpu: str,
    count: int,
    provider: str | None,
    *,
    networks: Networks | None = None,
) -> tuple[int, int]:
    """``count`` GPUs as (GPUs per node, nodes), the way ``gpuplan plan`` lays them out: an instance
    shape the catalog lists, times a node count.

    A count up to the largest instance of ``gpu`` (``provider``'s, else any provider's) is one node.
    Past it, no node holds them: they lie on nodes of the largest listed count that divides
    ``count`` (16 × H100-SXM: 2 nodes of 8; 13 on a provider with 1-GPU instances only: 13 nodes of
    1), with a note on stderr that says the nodes talk over the network between instances (that
    instance's network, from ``networks``, where the catalog lists it) and the counts that fill
    whole instances of a larger shape where one is listed. A count no listed shape divides raises
    DeployError naming the counts that do. A GPU the catalog has no instance of is taken as asked
    (one node)."""
    from gpuplan.errors import DeployError

    scoped = provider if provider and node_counts(instances, gpu, provider) else None
    counts = node_counts(instances, gpu, scoped)
    if not counts or count <= counts[-1]:
        return count, 1
    most = counts[-1]
    per_node = max((c for c in counts if count % c == 0), default=None)
    if per_node is None:
        lower, upper = (count // most) * most, (count // most + 1) * most
        raise DeployError.worded(
            N_(
                "--count {count}: the largest {gpu} instance in the catalog has {most} GPUs, and {count} "
                "is no whole number of nodes of {counts}: use --count {lower} or {upper}"
            ),
            count=count,
            gpu=gpu,
            most=most,
            counts=", ".join(str(c) for c in counts),
            lower=lower,
            upper=upper,
        )
    nodes = count // per_node
    largest = (
        _("{provider}'s largest {gpu} instance has {most}")
        if scoped
        else _("the largest {gpu} instance in the catalog has {most}")
    ).format(provider=scoped, gpu=gpu, most=most)
    shapes = sorted(
        k for k, (g, c) in instances.items() if g == gpu and c == per_node and scoped in (None, k[0])
    )
    network = _network_words(
        shapes, networks(gpu) if networks is not None else {}, named_with_provider=not scoped
    )
    line = ngettext(
        "note: {count} x {gpu} laid out as {nodes} nodes of {per_node} GPU ({largest}): GPUs on different "
        "nodes exchange data over the network between instances{network}",
        "note: {count} x {gpu} laid out as {nodes} nodes of {per_node} GPUs ({largest}): GPUs on different "
        "nodes exchange data over the network between instances{network}",
        per_node,
    )
    sys.stderr.write(
        line.format(count=count, gpu=gpu, nodes=nodes, per_node=per_node, largest=largest, network=network)
        + "\n"
    )
    hint = _whole_instances_hint(instances, gpu, count, scoped, provider, per_node)
    if hint:
        sys.stderr.write(hint + "\n")
    return per_node, nodes


def _network_words(
    shapes: list[tuple[str, str]], networks: Mapping[tuple[str, str], Network], *, named_with_provider: bool
) -> str:
    """What the catalog says of the network of the instance types ``shapes`` the nodes are, as the
    end of the layout note: each listed speed with the types that have it, and the types it does not
    list (never taken to be as fast as the others)."""
    by_speed: dict[tuple[float, str | None], list[str]] = {}
    unlisted: list[str] = []
    for key in shapes:
        name = f"{key[0]} {key[1]}" if named_with_provider else key[1]
        net = networks.get(key)
        if net is None or net.gbps is None:
            unlisted.append(name)
        else:
            by_speed.setdefault((net.gbps, net.kind), []).append(name)
    if not by_speed:
        return _(", which the catalog does not list for {instances}").format(instances=_named(unlisted))
    parts = [
        (_("{gbps} Gbit/s {kind} ({instances})") if kind else _("{gbps} Gbit/s ({instances})")).format(
            gbps=f"{gbps:,g}", kind=kind, instances=_named(names)
        )
        for (gbps, kind), names in sorted(by_speed.items(), key=lambda item: item[0][0])
    ]
    if unlisted:
        parts.append(_("the catalog does not list it for {instances}").format(instances=_named(unlisted)))
    return _(", ") + _("; ").join(parts)


def _named(names: list[str]) -> str:
    """``names`` joined, the first few named and the rest counted."""
    shown = _(", ").join(names[:_NAMED])
    more = len(names) - _NAMED
    return shown if more <= 0 else _("{names} and {n} more").format(names=shown, n=more)


def _whole_instances_hint(
    instances: Instances, gpu: str, count: int, scoped: str | None, provider: str | None, per_node: int
) -> str | None:
    """A note naming the counts that fill whole instances of a larger shape than ``per_node``: the
    largest in the layout's scope, else (a provider was named) the largest another provider lists;
    None where no larger shape is listed."""
    most = node_counts(instances, gpu, scoped)[-1]
    if most > per_node:
        size, where = most, scoped
    else:
        others = sorted({p for (p, _i), (g, _c) in instances.items() if g == gpu and p != provider})
        largest = {p: node_counts(instances, gpu, p)[-1] for p in others if node_counts(instances, gpu, p)}
        # The largest shape another provider lists; of several alike, the first by name.
        where = max(largest, key=lambda p: largest[p], default=None)
        if provider is None or where is None or largest[where] <= per_node:
            return None
        size = largest[where]
    lower, upper = (count // size) * size, (count // size + 1) * size
    counts = _(" or ").join(str(c) for c in (lower, upper) if c > 0)
    if where is None:
        line = _("note: the catalog lists {gpu} instances of {size} GPUs: --count {counts} fills whole ones")
    elif where == provider:
        line = _("note: {provider} lists {gpu} instances of {size} GPUs: --count {counts} fills whole ones")
    else:
        line = _(
            "note: {provider} lists {gpu} instances of {size} GPUs: --provider {provider} --count {counts} "
            "fills whole ones"
        )
    return line.format(provider=where, gpu=gpu, size=size, counts=counts)


def check_fit(
    db: str | None,
    source: Path,
    gpu: str,
    count: int,
    *,
    project: Path | None,
    force: bool,
    offered: Mapping[str, float | None] | None,
) -> None:
    """The estimator's memory verdict for the workload at ``source`` on ``count`` × ``gpu``, as
    ``gpuplan estimate`` gives it (the profile through the same cache): *does not fit* raises
    DeployError naming the need, the usable memory and the cheapest change that makes it fit
    (``force``: a warning instead); *may not fit* is a warning. Nothing is said when it fits.
    ``offered``: the GPUs the catalog offers (another GPU is suggested among those first, as
    ``estimate`` does); None when the catalog could not be read."""
    from gpuplan.api import estimate
    from gpuplan.cli._profiles import load_profile, open_cache
    from gpuplan.errors import DeployError
    from gpuplan.perf.memory import MemoryVerdict
    from gpuplan.workload import load_workload

    workload = load_workload(source, project=project)
    store = open_cache(db)
    try:
        prof = load_profile(workload, db, store=store)
        report = estimate(workload, [f"{gpu}:{count}"], profile=prof, offered_gpus=offered)
    finally:
        if store is not None:
            store.close()
    outcome = report.outcomes[0]
    e = outcome.estimate
    if e is None:
        # The GPU cannot run the workload at all (fp8 on an A100): the estimator's own line.
        raise DeployError(str(outcome.error))
    if e.memory_verdict is MemoryVerdict.FITS:
        return
    where = f"{count} x {gpu}" if count > 1 else gpu
    need = _("{point} GiB [{low}–{high}] per GPU").format(
        point=f"{e.peak_memory_gib:.1f}",
        low=f"{e.peak_memory_gib_low:.1f}",
        high=f"{e.peak_memory_gib_high:.1f}",
    )
    usable = f"{e.memory.capacity_gib:.1f}".removesuffix(".0")
    fixes = [a for a in outcome.advice if a.fits]
    change = (
        _("it fits with: {change}").format(change=fixes[0].summary)
        if fixes
        else _("no single change makes it fit (`gpuplan estimate` lists the closest)")
    )
    if e.memory_verdict is MemoryVerdict.MAY_NOT_FIT:
        line = _("warning: the job may not fit {where}: it needs {need}, {usable} GiB usable; {change}")
        sys.stderr.write(line.format(where=where, need=need, usable=usable, change=change) + "\n")
        return
    if force:
        line = _(
            "warning: the job does not fit {where}: it needs {need}, {usable} GiB usable; {change}; "
            "written anyway (--force-fit)"
        )
        sys.stderr.write(line.format(where=where, need=need, usable=usable, change=change) + "\n")
        return
    raise DeployError.worded(
        N_(
            "the job does not fit {where}: it needs {need}, {usable} GiB usable; {change} "
            "(--force-fit writes the files anyway)"
        ),
        where=where,
        need=need,
        usable=usable,
        change=change,
    )
