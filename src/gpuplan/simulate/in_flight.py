"""Requests in flight on one replica at a steady load: what an autoscaler on the engine's own count
(running + waiting) holds, worked out from the load it is meant to scale at.

Little's law (J. D. C. Little, "A Proof for the Queuing Formula: L = λW", Operations Research 9(3),
1961, https://doi.org/10.1287/opre.9.3.383): in a steady state the requests in a system are its
arrival rate times the time each spends in it. On a replica that time is the request's whole life,
its first token (the rest of the iteration under way and its prompt) then each further output token
at the step time of the batch the load keeps running — which itself grows with the requests running,
so the count is the fixed point ``n = λ · W(n)`` (:meth:`ReplicaModel.service_s` is ``W``), at most
the replica's slots: past them requests wait, and the count grows without bound.

An autoscaler holding the replica's slots × 0.8 in flight instead scales at the load that fills 80 %
of the slots, which with continuous batching is far past 80 % of the replica's capacity: the step time
grows with the batch, so the last slots add little throughput and much latency (Llama-3.1-70B, tensor
parallel over 8 × A100 40GB, 1,155-token prompts and 211-token answers, vLLM 0.8.5: by this module's
arithmetic 204.8 of its 256 slots fill at 6.2 requests/s, 92 % of what the replica completes with
every slot busy, where 4.3 requests/s, 80 % of the plan's capacity of one replica, keeps 65 running).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from gpuplan.perf.replica_load import ReplicaLoad, replica_load

if TYPE_CHECKING:
    from gpuplan.simulate.replica import ReplicaModel

__all__ = ["InFlight", "in_flight", "replica_capacity", "service_in_flight"]

#: Bisection steps of the fixed point: the interval [0, slots] halved 50 times is far below a request.
_STEPS = 50


@dataclass(frozen=True, kw_only=True)
class InFlight:
    """The requests in flight on one replica at ``requests_per_s``, and the figures they come from."""

    requests_per_s: float
    """The load on the replica, requests/s."""
    in_flight: float
    """Requests in flight, running + waiting, on average: ``requests_per_s × time_in_replica_s``, at
    most :attr:`slots`."""
    slots: int
    """The requests the replica runs at once."""
    time_in_replica_s: float
    """Mean time a request spends on the replica at this load: :attr:`first_token_s` + (output − 1)
    × :attr:`time_per_output_token_s`."""
    first_token_s: float
    """Mean time to its first token once it runs (no queueing), s."""
    time_per_output_token_s: float
    """Step time per output token with :attr:`in_flight` requests running, s."""
    output_tokens: float
    """Mean output tokens of a request."""
    full: bool
    """The load keeps every slot busy (or more): the count is capped at the slots."""


class _Lengths:
    """A request mix: its distinct prompt lengths, how many of each, and its mean output tokens."""

    def __init__(self, prompt_tokens: np.ndarray, output_tokens: np.ndarray) -> None:
        prompts = np.asarray(prompt_tokens, dtype=np.float64)
        if len(prompts) == 0:
            raise ValueError("in_flight needs at least one request")
        self.prompts, counts = np.unique(prompts, return_counts=True)
        self.weights = counts / counts.sum()
        self.output = float(np.mean(np.asarray(output_tokens, dtype=np.float64)))
        # the first token comes with the prompt: the steps after it are output − 1
        self.steps = float(np.mean(np.maximum(np.asarray(output_tokens, dtype=np.float64) - 1.0, 0.0)))

    def first_token_s(self, replica: ReplicaModel, running: float) -> float:
        return float(np.asarray(replica.prefill_s(self.prompts, running)) @ self.weights)

    def time_s(self, replica: ReplicaModel, running: float) -> float:
        """:meth:`ReplicaModel.service_s` averaged over the mix."""
        return self.first_token_s(replica, running) + self.steps * replica.tpot_s(running)


def replica_capacity(replica: ReplicaModel, prompt_tokens: np.ndarray, output_tokens: np.ndarray) -> float:
    """Requests/s the replica completes with every slot busy: ``slots / W(slots)``."""
    mix = _Lengths(prompt_tokens, output_tokens)
    return replica.slots / mix.time_s(replica, float(replica.slots))


def in_flight(
    replica: ReplicaModel, requests_per_s: float, prompt_tokens: np.ndarray, output_tokens: np.ndarray
) -> InFlight:
    """The requests in flight on ``replica`` at ``requests_per_s`` of requests of these lengths
    (module docstring): the fixed point of ``n = λ · W(n)`` by bisection, ``W`` rising with ``n``."""
    if not requests_per_s > 0:
        raise ValueError("in_flight needs a load above 0")
    mix = _Lengths(prompt_tokens, output_tokens)
    slots = float(replica.slots)
    full = requests_per_s * mix.time_s(replica, slots) >= slots
    if full:
        n = slots
    else:
        lo, hi = 0.0, slots
        for _ in range(_STEPS):
            mid = (lo + hi) / 2.0
            if requests_per_s * mix.time_s(replica, mid) > mid:
                lo = mid
            else:
                hi = mid
        n = hi
    first, step = mix.first_token_s(replica, n), replica.tpot_s(n)
    return InFlight(
        requests_per_s=requests_per_s,
        in_flight=n,
        slots=replica.slots,
        time_in_replica_s=first + mix.steps * step,
        first_token_s=first,
        time_per_output_token_s=step,
        output_tokens=mix.output,
        full=full,
    )


def service_in_flight(
    replica: ReplicaModel,
    prompt_tokens: np.ndarray,
    output_tokens: np.ndarray,
    *,
    estimate_capacity_requests_per_s: float | None,
    latency_share: float | None = None,
) -> tuple[ReplicaLoad, InFlight]:
    """The requests in flight a service's autoscaler holds on one replica, the one figure ``deploy``
    (from a plan or a workload file) and ``simulate autoscale``'s queue policy all write: those on
    ``replica`` at the load :func:`gpuplan.perf.replica_load.replica_load` chooses from the
    estimate's capacity of one replica (``estimate_capacity_requests_per_s``, the plan's; None: not
    known) and ``replica``'s own on these lengths, and that load."""
    load = replica_load(
        estimate_capacity_requests_per_s=estimate_capacity_requests_per_s,
        simulation_capacity_requests_per_s=replica_capacity(replica, prompt_tokens, output_tokens),
        latency_share=latency_share,
    )
    return load, in_flight(replica, load.requests_per_s, prompt_tokens, output_tokens)
