"""Checks ``gpuplan deploy`` runs on a workload file before it writes anything: how the GPUs the user
asks for lie on nodes, and whether the job fits them."""

from __future__ import annotations

import sys
from collections.abc import Mapping

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
