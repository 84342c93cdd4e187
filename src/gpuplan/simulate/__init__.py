"""A year of serving before it is paid for: autoscaling policies on a load trace, GPU sharing.

- :func:`simulate_autoscale` replays a trace under scaling policies (cost, latency, SLO misses);
- :func:`gpuplan.simulate.batching.run_replica` runs one continuous-batching replica iteration by
  iteration (the reference the fleet's per-request model is checked against);
- :func:`pack_services` packs inference services onto GPUs (whole, MIG slices, time-slicing).
"""

from __future__ import annotations

from gpuplan.simulate.autoscale import (
    AutoscaleResult,
    FleetPrices,
    PolicyResult,
    ReplicaModel,
    SimulationSettings,
    check_slots,
    check_window,
    replica_from_step,
    simulate_autoscale,
)
from gpuplan.simulate.latency import Slo, parse_slos
from gpuplan.simulate.policy import Policy, load_policies, parse_policy
from gpuplan.simulate.trace import (
    Shape,
    ShapeRate,
    Trace,
    bursty_trace,
    check_shape,
    diurnal_trace,
    read_trace_csv,
    retime,
    step_trace,
)

__all__ = [
    "AutoscaleResult",
    "FleetPrices",
    "Policy",
    "PolicyResult",
    "ReplicaModel",
    "Shape",
    "ShapeRate",
    "SimulationSettings",
    "Slo",
    "Trace",
    "bursty_trace",
    "check_shape",
    "check_slots",
    "check_window",
    "diurnal_trace",
    "load_policies",
    "parse_policy",
    "parse_slos",
    "read_trace_csv",
    "replica_from_step",
    "retime",
    "simulate_autoscale",
    "step_trace",
]
