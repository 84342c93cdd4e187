"""Checks ``gpuplan deploy`` runs on a workload file before it writes anything: how the GPUs the user
asks for lie on nodes, and whether the job fits them."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from gpuplan.i18n import N_, _

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


def node_layout(instances: Instances, gpu: str, count: int, provider: str | None) -> tuple[int, int]:
    """``count`` GPUs as (GPUs per node, nodes), the way ``gpuplan plan`` lays them out: an instance
    shape the catalog lists, times a node count.

    A count up to the largest instance of ``gpu`` (``provider``'s, else any provider's) is one node.
    Past it, no node holds them: they lie on nodes of the largest listed count that divides
    ``count`` (16 × H100-SXM: 2 nodes of 8), with a note on stderr; a count no listed shape divides
    raises DeployError naming the counts that do. A GPU the catalog has no instance of is taken as
    asked (one node)."""
    from gpuplan.errors import DeployError

    counts = (node_counts(instances, gpu, provider) if provider else []) or node_counts(instances, gpu)
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
    sys.stderr.write(
        _(
            "note: {count} x {gpu} laid out as {nodes} nodes of {per_node} (the largest {gpu} instance "
            "in the catalog has {most})"
        ).format(count=count, gpu=gpu, nodes=nodes, per_node=per_node, most=most)
        + "\n"
    )
    return per_node, nodes


def check_fit(
    db: str | None,
    source: Path,
    gpu: str,
    count: int,
    *,
    project: Path | None,
    force: bool,
    offered: frozenset[str] | None,
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
