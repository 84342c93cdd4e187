"""Property tests: the recommendation is the brute-force optimum, never unpriced, never non-fitting."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from plan_helpers import GPU_HOURS, GPU_MEM, aws_costs, offer

from gpuplan.errors import InfeasibleError
from gpuplan.plan import (
    Constraints,
    CostFacts,
    EstimateKey,
    EstimateRow,
    JobFacts,
    Objective,
    OfferTable,
    PlanOffer,
    plan_offers,
)

JOB = JobFacts(dataset_gb=50, checkpoint_gb=2, data_location=("aws", "us-east-1"))
BLOCK_USD_PER_GB_MONTH = 0.08  # aws_costs()


def _estimator(peak: float):  # type: ignore[no-untyped-def]
    def est(key: EstimateKey) -> EstimateRow:
        fits = peak <= GPU_MEM[key.gpu]
        t = GPU_HOURS[key.gpu] / key.gpu_count * (1.0 + 0.05 * (key.nodes - 1))
        return EstimateRow(fits=fits, job_time_h=t, job_time_h_low=t, job_time_h_high=t)

    return est


def _reference_cost(row: PlanOffer, nodes: int, peak: float) -> float | None:
    """Scalar re-statement of the on-demand/monthly/spot arithmetic, written independently of
    billing.py and spot.py (spot: the Young/Daly model of plan/spot.py's docstring)."""
    if row.price_usd is None or peak > GPU_MEM[row.gpu]:
        return None
    work = GPU_HOURS[row.gpu] / (row.gpu_count * nodes) * (1.0 + 0.05 * (nodes - 1))
    c = JOB.checkpoint_gb / JOB.checkpoint_write_gbps / 3600.0
    # off spot: train.py's checkpoint every 30 min (at least one write, at the end)
    t = work + work * c / min(0.5, work)
    if row.pricing == "spot":
        lam = nodes / 24.0  # no band: the labelled default, one interruption per 24 instance-hours
        # the restart reads the checkpoint back and copies the dataset again (a reclaim is taken to
        # lose the disk); its transfer in is free here (the data's own region)
        r = JOB.restart_h + c + JOB.dataset_gb / JOB.checkpoint_write_gbps / 3600.0
        tau = min(math.sqrt(2.0 * c / lam), work)
        stretched = work * (1.0 + c / tau)
        load = lam * (tau / 2.0 + r)
        if load >= 1.0:
            return None
        t = stretched / (1.0 - load)
    if row.pricing == "monthly":
        compute = row.price_usd * math.ceil(t / 730.0 - 1e-9) * nodes
    else:
        g = row.billing_granularity_s or 3600.0
        m = row.min_billing_s or 0.0
        billed_s = max(math.ceil(t * 3600.0 / g - 1e-9) * g, m)
        compute = row.price_usd * billed_s / 3600.0 * nodes
    # each node's disk as deploy launches it: what it holds with 15 % headroom and 64 GB for the OS
    # and the image, up to a whole 64 GB, at least 256 GB (gpuplan.launch_disk)
    held_gb = JOB.dataset_gb + 2 * JOB.checkpoint_gb
    disk_gb = max(256, 64 * math.ceil((held_gb * 1.15 + 64) / 64))
    storage = disk_gb * nodes * BLOCK_USD_PER_GB_MONTH * t / 730.0
    return compute + storage


offers_strategy = st.lists(
    st.builds(
        lambda gpu, count, price, pricing, gran: offer(
            instance_type=f"{gpu}-{count}-{pricing}-{gran}",
            gpu=gpu,
            gpu_count=count,
            gpu_memory_gib=GPU_MEM[gpu],
            price_usd=price,
            pricing=pricing,
            unit_hours=730.0 if pricing == "monthly" else 1.0,
            billing_granularity_s=gran,
            min_billing_s=60.0 if gran == 1.0 else None,
        ),
        gpu=st.sampled_from(sorted(GPU_HOURS)),
        count=st.sampled_from([1, 2, 4, 8]),
        price=st.one_of(st.none(), st.floats(min_value=0.1, max_value=100.0)),
        pricing=st.sampled_from(["on_demand", "monthly", "spot"]),
        gran=st.sampled_from([1.0, 60.0, 3600.0, None]),
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=offers_strategy,
    peak=st.sampled_from([10.0, 20.0, 30.0, 60.0]),
    max_gpus=st.sampled_from([8, 16, 64]),
)
def test_recommended_is_the_cheapest_feasible_by_brute_force(
    rows: list[PlanOffer], peak: float, max_gpus: int
) -> None:
    brute: list[tuple[float, PlanOffer, int]] = []
    for row in rows:
        for nodes in range(1, 65):
            if row.gpu_count * nodes > max_gpus:
                break
            cost = _reference_cost(row, nodes, peak)
            if cost is not None:
                brute.append((cost, row, nodes))
    constraints = Constraints(objective=Objective.COST, max_gpus=max_gpus)
    table = OfferTable.from_rows(rows)
    try:
        plan = plan_offers(table, CostFacts([aws_costs()]), JOB, _estimator(peak), constraints)
    except InfeasibleError:
        assert not brute
        return
    assert brute, "a plan was made where brute force finds nothing feasible"
    best = min(c for c, _, _ in brute)
    rec = plan.recommended
    # the cheapest to the cent: costs a rounding apart are one cost, and the faster of them ranks first
    assert best - 1e-9 <= rec.total_cost_usd < best + 0.01 + 1e-9
    # Never an unpriced or non-fitting candidate.
    for o in (rec, *plan.options, *plan.pareto):
        assert not math.isnan(o.price_usd)
        assert peak <= GPU_MEM[o.gpu]
