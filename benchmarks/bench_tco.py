"""How long the commitment optimiser takes: 36 months × 3 demands over the whole catalog.

    .venv/bin/python benchmarks/bench_tco.py

Two catalogs:

- the shipped one (every provider, region and pricing model it holds, the articles' low-confidence
  tables included so that every commitment term has rows);
- a synthetic one, fully populated: 7 providers × 10 regions × 12 instance shapes × 5 pricing
  models (on-demand, spot, monthly, reserved 1 and 3 years), with prices varied per region.

Three demands: a steady A100 inference pool growing 3 %/month, bursty interruptible A100 training
(a calendar of busy and quiet months), and an L4/A10 service. Printed: the optimiser's time
(median of 5, CPU and wall; the MILP, the hourly-only comparison and the sensitivity runs), the
MILP's size, and two same-run references: the LP relaxation of the same model (integers
relaxed) and a machine-speed reference (sorting 10⁶ floats with numpy), as ratios.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np

from gpuplan.catalog import open_store
from gpuplan.commit import Demand, PricedOffer, TcoProblem, load_usage, optimise
from gpuplan.commit.adapters import priced_offers
from gpuplan.commit.milp import solve_milp
from gpuplan.commit.recourse import hourly_options
from gpuplan.units import HOURS_PER_MONTH

MONTHS = 36
PROVIDERS = ("aws", "azure", "gcp", "alibaba", "tencent", "huawei", "volcengine")
SHAPES = (  # (GPU id, GPUs per instance, USD per GPU-hour on demand)
    ("T4", 1, 0.5),
    ("T4", 4, 0.5),
    ("L4", 1, 0.8),
    ("L4", 8, 0.8),
    ("A10", 1, 1.0),
    ("A10", 4, 1.0),
    ("A100-SXM4-40GB", 1, 3.0),
    ("A100-SXM4-40GB", 8, 2.7),
    ("A100-SXM4-80GB", 8, 3.4),
    ("H100-SXM", 8, 6.9),
    ("H100-NVL", 2, 8.8),
    ("H200-SXM", 8, 10.4),
)
#: Price of each model relative to on-demand per hour; commitment terms in months.
PRICING = {
    "on_demand": (1.0, 0),
    "spot": (0.35, 0),
    "monthly": (0.7, 1),
    "reserved_1y": (0.6, 12),
    "reserved_3y": (0.4, 36),
}


def demands(gpus: tuple[str, str]) -> tuple[Demand, ...]:
    a100, small = gpus
    grow = tuple(8 * HOURS_PER_MONTH * 1.03**m for m in range(MONTHS))
    calendar = (4000.0, 500.0, 500.0, 6000.0, 0.0, 800.0)
    bursty = tuple(calendar[m % len(calendar)] for m in range(MONTHS))
    service = tuple(3 * HOURS_PER_MONTH + 40.0 * m for m in range(MONTHS))
    return (
        Demand(name="inference", gpu=a100, gpu_hours=grow),
        Demand(
            name="training",
            gpu=a100,
            gpu_hours=bursty,
            interruptible=True,
            run_hours=72,
            checkpoint_write_h=0.05,
        ),
        Demand(name="service", gpu=small, gpu_hours=service),
    )


def synthetic_offers() -> tuple[PricedOffer, ...]:
    rng = np.random.default_rng(0)
    out = []
    for p in PROVIDERS:
        for r in range(10):
            for gpu, n, usd in SHAPES:
                regional = float(rng.uniform(0.85, 1.25))
                for pricing, (factor, term) in PRICING.items():
                    out.append(
                        PricedOffer(
                            provider=p,
                            region=f"{p}-r{r}",
                            instance_type=f"{gpu.lower()}.{n}x",
                            gpu=gpu,
                            gpus_per_unit=float(n),
                            pricing=pricing,
                            usd_per_unit_hour=usd * n * factor * regional * float(rng.uniform(0.95, 1.05)),
                            term_months=term,
                            interruptions_per_hour=1 / 24 if pricing == "spot" else None,
                        )
                    )
    return tuple(out)


def shipped_offers() -> tuple[PricedOffer, ...]:
    usage = load_usage(
        {
            "horizon_months": MONTHS,
            "demands": [{"name": "x", "gpu": "L4", "gpus": 1, "hours_per_month": 1}],
            "constraints": {"allow_low_confidence": True},
        }
    )
    store = open_store()
    try:
        prices = store.offers()
    finally:
        store.close()
    gpus = sorted({p.gpu for p in prices})
    offers, _ = priced_offers(prices, usage, gpus)
    return offers


def median_s(
    fn: Callable[[], object], runs: int = 5, clock: Callable[[], float] = time.process_time
) -> float:
    """Median over ``runs`` calls; CPU time of this process by default (the machine is shared, so
    wall time mostly measures the other processes)."""
    times = []
    for _ in range(runs):
        t = clock()
        fn()
        times.append(clock() - t)
    return statistics.median(times)


def lp_relaxation_s(problem: TcoProblem) -> float:
    """The same model with fractional units allowed: an LP of the same size."""
    options = hourly_options(problem)
    return median_s(lambda: solve_milp(problem, options, integral=False))


def main() -> None:
    optimise(TcoProblem(horizon_months=1, demands=(), offers=()))  # warm the scipy import
    sort_ref = median_s(lambda: np.sort(np.random.default_rng(1).random(1_000_000)))
    for label, offers, gpus in (
        ("shipped catalog", shipped_offers(), ("A100-SXM4-40GB", "A10")),
        ("synthetic full catalog", synthetic_offers(), ("A100-SXM4-40GB", "L4")),
    ):
        problem = TcoProblem(horizon_months=MONTHS, demands=demands(gpus), offers=offers)
        elapsed = median_s(lambda p=problem: optimise(p))
        wall = median_s(lambda p=problem: optimise(p), clock=time.perf_counter)
        s = optimise(problem)
        lp = lp_relaxation_s(problem)
        print(f"{label}: {len(offers)} priced offer rows, {MONTHS} months × 3 demands")
        times = f"{elapsed * 1000:.0f} ms CPU, {wall * 1000:.0f} ms wall"
        print(f"  optimise: {times} (medians of 5; target < 5 s)")
        print(f"  [{s.solver}]")
        saved = f"{s.savings_pct or 0:.1f} % saved"
        print(f"  total ${s.total_usd:,.0f} vs all on demand ${s.all_on_demand_usd or 0:,.0f} ({saved})")
        print(f"  ratio to the LP relaxation of the same model: {elapsed / lp:.1f}×")
        print(f"  ratio to sorting 10⁶ floats: {elapsed / sort_ref:.2g}×")


if __name__ == "__main__":
    main()
