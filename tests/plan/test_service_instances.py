"""A service's replicas are independent servers: the instance limit meant for one job whose nodes
work as one (a training job's all-reduce) does not leave out a service of many small instances; a
count limit that still leaves a service short of its load is named, with the flag that lifts it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from plan_helpers import aws_costs, llama7b_profile, offer, service_workload

from gpuplan.i18n import use_language
from gpuplan.i18n.error_text import error_text
from gpuplan.plan import (
    Constraints,
    CostFacts,
    EstimateKey,
    EstimateRow,
    JobFacts,
    OfferTable,
    PlanInfeasibleError,
    plan_offers,
)
from gpuplan.plan.constraints import DEFAULT_MAX_NODES, MAX_TOTAL_GPUS, SERVICE_MAX_NODES
from gpuplan.report.plan_view import price_words

#: The month a service is planned for, h.
MONTH_H = 730.0
#: A load 25 one-GPU replicas carry and 24 do not (the toy estimator's rule below).
NEEDED_GPUS = 25

SERVICE = JobFacts(calendar_months=1.0, requests_per_s=104.0, task="infer")
TRAINING = JobFacts(dataset_gb=0, checkpoint_gb=0, data_location=("aws", "us-east-1"))

#: A one-GPU instance at $3/h per GPU and an eight-GPU one at $4/h per GPU: a service of 25 GPUs is
#: cheapest as 25 small instances (25 × $3 = $75/h), then as 4 big ones (32 × $4 = $128/h).
SMALL = offer(instance_type="g.small", gpu="A100-SXM4-40GB", gpu_count=1, price_usd=3.0)
BIG = offer(instance_type="g.big", gpu="A100-SXM4-40GB", gpu_count=8, price_usd=32.0)


def _service_estimate(key: EstimateKey) -> EstimateRow:
    """A month of serving: carried on at least NEEDED_GPUS replicas of one GPU, short of it below."""
    carried = key.gpu_count >= NEEDED_GPUS
    return EstimateRow(
        fits=carried,
        short_of_load=not carried,
        replica_requests_per_s=SERVICE.requests_per_s / NEEDED_GPUS,  # type: ignore[operator]
        job_time_h=MONTH_H,
        job_time_h_low=MONTH_H,
        job_time_h_high=MONTH_H,
        peak_memory_gib=20.0,
    )


def _training_estimate(key: EstimateKey) -> EstimateRow:
    """200 GPU-hours of work, split perfectly over the GPUs."""
    t = 200.0 / key.gpu_count
    return EstimateRow(fits=True, job_time_h=t, job_time_h_low=t, job_time_h_high=t, peak_memory_gib=20.0)


def _plan(rows, job, estimate, constraints=None):  # type: ignore[no-untyped-def]
    return plan_offers(
        OfferTable.from_rows(rows), CostFacts([aws_costs()]), job, estimate, constraints or Constraints()
    )


def test_a_service_needing_more_instances_than_a_jobs_limit_gets_its_many_small_instances() -> None:
    # was: the limit of 8 instances per job left the one-GPU instance short of the load at every
    # count (8 replicas), and the plan recommended 4 × 8 GPUs at $128/h over 25 × 1 GPU at $75/h
    plan = _plan([SMALL, BIG], SERVICE, _service_estimate)
    rec = plan.recommended
    assert (rec.instance_type, rec.nodes, rec.gpus_per_node) == ("g.small", NEEDED_GPUS, 1)
    # 25 instances × $3/h × 730 h
    assert rec.cost_breakdown.compute_usd == pytest.approx(NEEDED_GPUS * 3.0 * MONTH_H)
    big = next(o for o in plan.options if o.instance_type == "g.big")
    assert big.nodes == 4
    assert rec.total_cost_usd < big.total_cost_usd
    assert f"scale-out: at most {SERVICE_MAX_NODES} instances and 64 GPUs per service" in plan.notes[0]
    # no limit left it short: nothing to say about one
    assert not any("raise --max-nodes" in n for n in plan.notes)


def test_a_training_job_stays_at_the_jobs_instance_limit_where_a_service_does_not() -> None:
    # The same offers: a training job's nodes work as one (its all-reduce spans them), so its
    # counts stop at DEFAULT_MAX_NODES; the service's run to the planner's search.
    job = _plan([SMALL, BIG], TRAINING, _training_estimate)
    assert max(o.nodes for o in job.options) == DEFAULT_MAX_NODES
    # 8 counts of each offer: 1…8 small instances, 1…8 big ones
    assert job.candidates == 2 * DEFAULT_MAX_NODES
    assert job.notes[0].startswith(f"scale-out: at most {DEFAULT_MAX_NODES} instances and 64 GPUs per job")
    service = _plan([SMALL, BIG], SERVICE, _service_estimate)
    # 1…64 small instances, 1…8 big ones (64 GPUs at most)
    assert service.candidates == SERVICE_MAX_NODES + 8
    # and a limit the user sets holds for a service too
    held = _plan([SMALL, BIG], SERVICE, _service_estimate, Constraints(max_nodes=DEFAULT_MAX_NODES))
    assert max(o.nodes for o in held.options) <= DEFAULT_MAX_NODES


def test_an_instance_limit_that_leaves_a_service_short_names_the_flag_that_lifts_it() -> None:
    # Options left: the note names the limit, the instance type it stopped and --max-nodes.
    plan = _plan([SMALL, BIG], SERVICE, _service_estimate, Constraints(max_nodes=8))
    assert plan.recommended.instance_type == "g.big"
    # 1…8 small instances, and 1…3 big ones (8, 16, 24 GPUs)
    assert plan.excluded["short_of_load"] == 8 + 3
    assert (
        "short of the load on up to 8 instances, the instance limit: g.small; raise --max-nodes (up to 256) "
        "to plan more replicas"
    ) in plan.notes
    # Nothing left: the refusal says the same.
    with pytest.raises(PlanInfeasibleError) as caught:
        _plan([SMALL], SERVICE, _service_estimate, Constraints(max_nodes=8))
    assert str(caught.value) == (
        "no option is left: candidates excluded: short of the load 8; short of the load on up to 8 "
        "instances, the instance limit: g.small; raise --max-nodes (up to 256) to plan more replicas"
    )
    with use_language("zh"):
        zh = error_text(caught.value)
    assert "--max-nodes" in zh and "g.small" in zh and "instance limit" not in zh


def test_the_gpu_limit_and_the_planners_search_are_named_when_they_leave_a_service_short() -> None:
    # --max-gpus 16: 16 one-GPU instances, then 17 is past it
    with pytest.raises(
        PlanInfeasibleError, match=r"on up to 16 GPUs, the GPU limit: g\.small; raise --max-gpus"
    ):
        _plan([SMALL], SERVICE, _service_estimate, Constraints(max_gpus=16))
    # both limits at once: 8 instances of one GPU, and 9 GPUs would be past --max-gpus 8
    with pytest.raises(PlanInfeasibleError, match=r"raise --max-nodes and --max-gpus \(up to 256 each\)"):
        _plan([SMALL], SERVICE, _service_estimate, Constraints(max_nodes=8, max_gpus=8))

    # A load 64 GPUs do not carry: the default search, which --max-gpus raises (it was refused past
    # 64, and the line said no flag lifts it: a 72B service at 40 requests/s had no plan at all).
    def heavy(key: EstimateKey) -> EstimateRow:
        return replace(_service_estimate(key), fits=False, short_of_load=True)

    with pytest.raises(PlanInfeasibleError) as caught:
        _plan([SMALL, BIG], SERVICE, heavy)
    text = str(caught.value)
    assert (
        # g.small at $3/h per 4.16 requests/s before g.big at $32/h per 8 × 4.16 requests/s
        "short of the load on up to 64 GPUs, the GPU limit: g.small, g.big; raise --max-gpus (up to 256) to "
        "plan more replicas"
    ) in text
    assert "--max-nodes" not in text
    # past the most --max-gpus takes, no flag lifts the planner's own search, and the line says so
    with pytest.raises(PlanInfeasibleError) as caught:
        _plan([SMALL, BIG], SERVICE, heavy, Constraints(max_gpus=MAX_TOTAL_GPUS))
    text = str(caught.value)
    assert (
        "short of the load on up to 256 GPUs, the most the planner looks at for one service: g.small, g.big"
    ) in text
    assert "--max-nodes" not in text and "--max-gpus" not in text


def test_a_traced_service_on_the_shipped_catalog_is_laid_on_more_instances_than_a_jobs_limit(
    fresh_catalog: Path,
) -> None:
    # A 7B chat service at 30 requests/s on AWS: its cheapest layout is some ten one-GPU instances
    # (g6e.xlarge); under the limit of 8 instances meant for a training job it was 3 × p5.4xlarge,
    # about 10 % dearer.
    from gpuplan.api import plan
    from gpuplan.catalog import open_store

    store = open_store(str(fresh_catalog))
    try:
        workload, profile = service_workload(requests_per_s=30), llama7b_profile()
        free = plan(workload, store=store, profile=profile, providers=["aws"])
        capped = plan(workload, store=store, profile=profile, providers=["aws"], max_nodes=DEFAULT_MAX_NODES)
    finally:
        store.close()
    assert free.recommended.nodes > DEFAULT_MAX_NODES
    assert free.recommended.total_cost_usd < capped.recommended.total_cost_usd
    assert capped.recommended.nodes <= DEFAULT_MAX_NODES
    said = [
        n for n in capped.notes if n.startswith("short of the load on up to 8 instances, the instance limit:")
    ]
    assert len(said) == 1 and said[0].endswith("raise --max-nodes (up to 256) to plan more replicas")
    # the instance types are named cheapest per GPU-hour first: the one the higher limit picks is there
    assert free.recommended.instance_type in said[0]


def test_a_reserved_service_is_priced_by_the_month_and_says_what_its_term_commits_to() -> None:
    # A 1-year reservation at $13.92/h against on-demand at $21.96/h per 8-GPU instance: a month of
    # the service on 4 instances costs 4 × 13.92 × 730 = $40,646 reserved against 4 × 21.96 × 730 =
    # $64,123 on demand; it was priced as the whole term ($487,757) and never recommended.
    reserved = replace(BIG, pricing="reserved_1y", price_usd=13.92, term_hours=8760.0)
    rows = [replace(BIG, price_usd=21.96), reserved]
    plan = _plan(rows, SERVICE, _service_estimate, Constraints(commitment="1y"))
    rec = plan.recommended
    assert (rec.pricing, rec.nodes) == ("reserved_1y", 4)
    assert rec.cost_breakdown.compute_usd == pytest.approx(4 * 13.92 * MONTH_H)
    assert rec.billed_hours == pytest.approx(MONTH_H)
    assert (rec.commitment_usd, rec.commitment_months) == (pytest.approx(4 * 13.92 * 8760), 12)
    on_demand = next(o for o in plan.options if o.pricing == "on_demand")
    assert on_demand.commitment_usd is None
    with use_language("en"):
        assert "the reservation commits to $487,757 over 12 months" in price_words(rec)
        assert "commits" not in price_words(on_demand)


def test_a_services_min_gpus_counts_its_whole_fleet() -> None:
    # min_gpus is the GPUs of every replica together: 30 one-GPU replicas, not 30 GPUs a replica
    plan = _plan([SMALL, BIG], SERVICE, _service_estimate, Constraints(min_gpus=30))
    rec = plan.recommended
    assert (rec.instance_type, rec.nodes, rec.gpu_count) == ("g.small", 30, 30)
    assert all(o.gpu_count >= 30 for o in plan.options)
