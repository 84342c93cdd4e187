"""How long the simulators take: a day of LLM requests at 50/s, and packing services onto GPUs.

    .venv/bin/python benchmarks/bench_simulate.py [--rate 50] [--hours 24]

Prints, for a diurnal trace (seeded) of ``rate`` × ``hours`` requests on A100-80GB-like replicas:

- the trace generation time and the simulation time of each policy (target utilisation, KEDA-style
  queue, fixed; the issue's target is < 10 s for 4.3 M requests);
- the engine alone per policy, dispatching in blocks (the default) and through the per-request heap
  loop only (``blocks=False``: the engine before block dispatch, same results bit for bit);
- a same-run reference: one ``heapq.heapreplace`` per request on a heap of the same size in a bare
  Python loop (the least any exact per-request FIFO engine in Python must do), and the ratio;
- MIG and time-slicing packing of 200 services, with the GPUs used against the lower bound.
"""

from __future__ import annotations

import argparse
import heapq
import time

import numpy as np

from gpuplan.simulate import (
    FleetPrices,
    ReplicaModel,
    Shape,
    SimulationSettings,
    Slo,
    diurnal_trace,
    parse_policy,
    simulate_autoscale,
)
from gpuplan.simulate.engine import EngineConfig, run_engine
from gpuplan.simulate.share import ServiceDemand, ShareOptions, pack_services

REPLICA = ReplicaModel(
    gpu="A100-SXM4-80GB",
    slots=64,
    prefill_tokens_per_s=8000.0,
    time_per_output_token_s=0.030,
    time_per_output_token_1_s=0.011,
    source="benchmark figures",
)
PRICES = FleetPrices(usd_per_hour={"on_demand": 3.43, "spot": 1.2}, source="benchmark prices")


def _reference(n: int, slots: int) -> float:
    heap = [(0.0, i) for i in range(slots)]
    arrival = np.sort(np.random.default_rng(0).random(n) * 86_400).tolist()
    t = time.perf_counter()
    for a in arrival:
        tf, s = heap[0]
        heapq.heapreplace(heap, ((a if a > tf else tf) + 5.0, s))
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rate", type=float, default=50.0)
    ap.add_argument("--hours", type=float, default=24.0)
    args = ap.parse_args()
    t = time.perf_counter()
    trace = diurnal_trace(
        Shape(
            mean_requests_per_s=args.rate,
            duration_s=args.hours * 3600,
            seed=1,
            prompt_tokens=512,
            output_tokens=256,
        )
    )
    gen_s = time.perf_counter() - t
    print(f"trace: {trace.requests:,} requests over {args.hours:g} h, generated in {gen_s:.2f} s")
    policies = ["target:target=0.7,max=40", "queue:per_replica=48,max=40", "fixed:replicas=24"]
    ref = _reference(trace.requests, REPLICA.slots * 24)
    print(f"reference (bare heapreplace loop, {REPLICA.slots * 24} slots): {ref:.2f} s")
    for spec in policies:
        t = time.perf_counter()
        res = simulate_autoscale(
            trace,
            REPLICA,
            [parse_policy(spec)],
            PRICES,
            SimulationSettings(slos=(Slo(metric="e2e", percentile=95, threshold_s=20),)),
        )
        took = time.perf_counter() - t
        p = res.policies[0]
        print(
            f"{spec:32s} {took:6.2f} s  ({took / ref:.2f}× reference)  cost ${p.cost_usd:,.0f}  "
            f"max {p.max_replicas} replicas  p95 {p.latency_p95_s:.1f} s  dropped {p.dropped:,}"
        )
    work = REPLICA.work(trace.prompt_tokens, trace.output_tokens)
    cfg = EngineConfig(slots=REPLICA.slots, horizon_s=trace.duration_s)
    for spec in policies:
        took = {}
        for blocks in (True, False):
            t = time.perf_counter()
            run_engine(trace.arrival_s, work, parse_policy(spec), cfg, blocks=blocks)
            took[blocks] = time.perf_counter() - t
        print(
            f"engine {spec:25s} blocks {took[True]:5.2f} s ({took[True] / ref:.2f}× reference), "
            f"heap loop only {took[False]:5.2f} s ({took[False] / ref:.2f}×): "
            f"{took[False] / took[True]:.1f}× faster"
        )
    rng = np.random.default_rng(2)
    services = [
        ServiceDemand(
            name=f"s{i}",
            memory_gib=float(rng.choice([4, 9, 18, 30, 60])),
            requests_per_s=float(rng.uniform(0.1, 3)),
            capacity_requests_per_s=10.0,
            latency_s=1.0,
        )
        for i in range(200)
    ]
    for sharing in ("mig", "time-slice"):
        t = time.perf_counter()
        plan = pack_services(
            services,
            ShareOptions(
                gpu_id="A100-SXM4-80GB", gpu_memory_gib=80, price_usd_per_hour=3.43, sharing=sharing
            ),
        )
        print(
            f"share {sharing:10s} 200 services: {plan.gpus_needed} GPUs "
            f"(lower bound {plan.lower_bound_gpus}, optimal={plan.optimal}) "
            f"in {time.perf_counter() - t:.2f} s — {plan.method}"
        )


if __name__ == "__main__":
    main()
