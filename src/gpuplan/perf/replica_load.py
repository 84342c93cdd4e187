"""The load one replica of a service is to carry, which its autoscaler's target is worked out at: one
figure for ``deploy`` from a plan, ``deploy`` from a workload file and ``simulate autoscale``'s queue
policy, with the two capacities it is chosen from.

gpuplan has two models of a serving replica. The estimate's (:func:`gpuplan.perf.inference.
serving_estimate`, which ``plan`` sizes fleets with) and the serving simulation's
(:mod:`gpuplan.simulate.replica`, which ``simulate`` and the autoscaler's requests in flight run on).
They differ: Qwen2.5-14B on an A100 80GB, 1,500-token prompts and 400-token answers, carries
2.78 requests/s a replica at full load by the estimate and 3.09 by the simulation's replica. Each
command had taken its own, so one service got three targets (43.4, 57.4 and 56.5 requests in
flight a replica), and the simulation's higher one, replayed on a diurnal day, kept three requests
in four over a 50 ms time-per-output-token target where the estimate's kept them within it.

The load is the smaller capacity × :data:`~gpuplan.perf.inference.TARGET_UTILISATION` (the
conservative one: more replicas, targets met), or less where the plan met the service's latency
target only at a lower share of its capacity (``deploy``'s latency share). Each output names both
capacities and the one used (:func:`replica_load_words`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gpuplan.i18n import _
from gpuplan.perf.inference import TARGET_UTILISATION

__all__ = ["ReplicaLoad", "launch_latency_share", "replica_load", "replica_load_words"]

Basis = Literal["estimate", "simulation", "latency"]


@dataclass(frozen=True, kw_only=True)
class ReplicaLoad:
    """The load one replica is to carry and what it was chosen from."""

    requests_per_s: float
    """The load, requests/s a replica."""
    basis: Basis
    """Which figure set it: ``estimate`` (the estimate's capacity × the sizing utilisation),
    ``simulation`` (the simulated replica's, likewise) or ``latency`` (the estimate's capacity × the
    lower share at which the plan met the service's latency target)."""
    estimate_capacity_requests_per_s: float | None
    """One replica's capacity at full load by the estimate (the plan's figure); None: not known."""
    simulation_capacity_requests_per_s: float
    """One replica's capacity with every slot busy, as the serving simulation's replica has it."""
    share: float
    """The load over the capacity it is a share of (:data:`TARGET_UTILISATION`, or the latency share)."""


def replica_load(
    *,
    estimate_capacity_requests_per_s: float | None,
    simulation_capacity_requests_per_s: float,
    latency_share: float | None = None,
) -> ReplicaLoad:
    """The smaller of the two capacities × :data:`TARGET_UTILISATION`; the estimate's capacity ×
    ``latency_share`` where that is less (the plan bought replicas for a latency target at that
    share of the estimate's capacity). Without the estimate's figure, the simulation's."""
    sim = simulation_capacity_requests_per_s
    est = estimate_capacity_requests_per_s
    est = est if est is not None and est > 0 else None
    basis: Basis = "simulation" if est is None or sim <= est else "estimate"
    share = TARGET_UTILISATION
    load = (sim if basis == "simulation" else est or sim) * share
    if est is not None and latency_share is not None and latency_share > 0 and est * latency_share < load:
        basis, share, load = "latency", latency_share, est * latency_share
    return ReplicaLoad(
        requests_per_s=load,
        basis=basis,
        estimate_capacity_requests_per_s=est,
        simulation_capacity_requests_per_s=sim,
        share=share,
    )


def launch_latency_share(
    *,
    utilisation: float | None,
    has_latency_target: bool,
) -> float | None:
    """The lower share of a replica's capacity a service's autoscaler holds each replica at, where
    the plan met a latency target below the sizing headroom (``deploy``'s ``latency_share``, which
    ``tco`` sizes a service's day with too); None: the sizing utilisation holds.

    The plan's utilisation at its load (``utilisation``), where the service has a latency target
    and the option runs below :data:`TARGET_UTILISATION`: the plan checked the target at that
    share, and at the headroom's it is not known to hold. That is so also where the low share is
    only the count's rounding up (30 requests/s over 8 replicas of 5.22: 72 %), which had kept the
    usual headroom: a 70B chat service met its 30 s p95 on three replicas at 62 %, and its
    autoscaler, held at 80 %, gave 43 s at p95 in the conversation trace's replay (11 % of requests
    over), the p95 answer's 451 tokens at the step of 80 %'s load taking 32 s."""
    if not has_latency_target or utilisation is None or not 0 < utilisation < TARGET_UTILISATION:
        return None
    return utilisation


def replica_load_words(load: ReplicaLoad, lengths: str | None = None) -> str:
    """One clause (the caller states the load itself): both capacities at full load, which one the
    load takes, and at what share; ``lengths``: the request lengths the simulation's figure was
    worked out on, in words (the estimate's is always on the serving block's), so that two outputs
    that give it for one replica on different lengths say why their figures differ (deploy's 3.088
    on the serving block's lengths, simulate's 3.053 on a drawn trace's)."""
    words = _replica_load_words(load)
    if lengths is None:
        return words
    return words + _("; the simulation's figure is on {lengths}").format(lengths=lengths)


def _replica_load_words(load: ReplicaLoad) -> str:
    fields = {
        "estimate": f"{load.estimate_capacity_requests_per_s or 0:.4g}",
        "simulation": f"{load.simulation_capacity_requests_per_s:.4g}",
        "pct": f"{load.share * 100:.0f}",
    }
    if load.estimate_capacity_requests_per_s is None:
        return _(
            "the serving simulation's replica carries {simulation} requests/s at full load (gpuplan's "
            "estimate gives no figure for this replica); the target is {pct} % of it"
        ).format(**fields)
    if load.basis == "latency":
        return _(
            "gpuplan's estimate, which plans size fleets with, carries {estimate} requests/s a replica at "
            "full load, the serving simulation's replica {simulation}; by the estimate the service's "
            "latency target holds only up to {pct} % of the estimate's, and the target is that share"
        ).format(**fields)
    used = _("the estimate's") if load.basis == "estimate" else _("the simulation's")
    return _(
        "gpuplan's estimate, which plans size fleets with, carries {estimate} requests/s a replica at "
        "full load, the serving simulation's replica {simulation}; the target takes the smaller, "
        "{used}, at {pct} %"
    ).format(used=used, **fields)
