"""A job over its deadline on every count its instance limit allowed, its time still falling with
the count, is told which limit stopped it and the flag that lifts it: more instances may meet it."""

from __future__ import annotations

import pytest
from plan_helpers import aws_costs, offer

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

TRAINING = JobFacts(dataset_gb=0, checkpoint_gb=0, data_location=("aws", "us-east-1"))
#: One-GPU instances: the default limit of 8 instances ends the search at 8 GPUs.
SLOW = offer(instance_type="g.slow", gpu="A100-SXM4-40GB", gpu_count=1, price_usd=3.0)
FAST = offer(instance_type="g.fast", gpu="H100-SXM5-80GB", gpu_count=1, price_usd=6.0)


def _falling(key: EstimateKey) -> EstimateRow:
    """200 GPU-hours of work on the slow GPU, 50 on the fast one, split perfectly over the GPUs."""
    t = (50.0 if key.gpu.startswith("H100") else 200.0) / key.gpu_count
    return EstimateRow(fits=True, job_time_h=t, job_time_h_low=t, job_time_h_high=t, peak_memory_gib=20.0)


def _flat(key: EstimateKey) -> EstimateRow:
    """200 h whatever the count: more instances do not help."""
    return EstimateRow(
        fits=True, job_time_h=200.0, job_time_h_low=200.0, job_time_h_high=200.0, peak_memory_gib=20.0
    )


def _plan(rows, estimate, constraints):  # type: ignore[no-untyped-def]
    return plan_offers(OfferTable.from_rows(rows), CostFacts([aws_costs()]), TRAINING, estimate, constraints)


def _refusal(rows, estimate, constraints) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(PlanInfeasibleError) as caught:
        _plan(rows, estimate, constraints)
    return str(caught.value)


HINT = (
    "over the deadline on up to 8 instances, the instance limit, time still falling with the count: g.slow; "
    "raise --max-nodes (up to 256) to plan more, which may meet it"
)


def test_a_job_over_its_deadline_at_the_instance_limit_and_still_falling_names_the_flag() -> None:
    # 200 GPU-h on 8 one-GPU instances is 25 h, past a 20 h deadline; 7 instances took longer. $600
    # of GPU time and each instance's 256 GB launch disk at $0.08/GB-month: 8 × 256 × 0.08 / 730 × 25
    text = _refusal([SLOW], _falling, Constraints(deadline_h=20.0))
    assert text.startswith(
        "no option finishes within 20.0 h: the fastest option takes 25.0 h ($605.61, aws/us-east-1 8× g.slow"
    )
    assert text.endswith(HINT)
    with use_language("zh"):
        with pytest.raises(PlanInfeasibleError) as caught:
            _plan([SLOW], _falling, Constraints(deadline_h=20.0))
        zh = error_text(caught.value)
    assert "--max-nodes" in zh and "g.slow" in zh and "instance limit" not in zh
    # A plan still comes out on the fast GPU (50/8 h): the note names the slow one.
    plan = _plan([SLOW, FAST], _falling, Constraints(deadline_h=20.0))
    assert plan.recommended.instance_type == "g.fast"
    assert HINT in plan.notes


def test_no_hint_where_more_instances_do_not_help_or_another_limit_stopped_it() -> None:
    # the time does not fall with the count: more instances would not help
    text = _refusal([SLOW], _flat, Constraints(deadline_h=20.0))
    assert "--max-nodes" not in text and "over the deadline on up to" not in text
    # every instance type meets the deadline somewhere: no note
    plan = _plan([SLOW], _falling, Constraints(deadline_h=30.0))
    assert not any("over the deadline on up to" in n for n in plan.notes)
    # 64 instances of one GPU: the default search of 64 GPUs ends it too, and both flags are named
    text = _refusal([SLOW], _falling, Constraints(deadline_h=3.0, max_nodes=64))
    assert "raise --max-nodes and --max-gpus (up to 256 each)" in text
    # 256 of them: the planner's own search ends it, and no flag is named
    text = _refusal([SLOW], _falling, Constraints(deadline_h=0.5, max_nodes=256, max_gpus=256))
    assert "the most the planner looks at for one job: g.slow" in text
    assert "--max-nodes" not in text and "--max-gpus" not in text
    # the GPU limit, not the instance limit
    text = _refusal([SLOW], _falling, Constraints(deadline_h=20.0, max_gpus=4, max_nodes=16))
    assert (
        "on up to 4 GPUs, the GPU limit, time still falling with the count: g.slow; raise --max-gpus" in text
    )
    assert "--max-nodes" not in text


def _saturating(key: EstimateKey) -> EstimateRow:
    """200 GPU-hours of work plus 22 h no count shortens (a network that holds every step back):
    25 h on 8 GPUs, still 22.8 h on the most the planner allows."""
    t = 200.0 / key.gpu_count + 22.0
    return EstimateRow(fits=True, job_time_h=t, job_time_h_low=t, job_time_h_high=t, peak_memory_gib=20.0)


def test_no_flag_is_offered_where_the_most_gpus_allowed_would_still_miss_the_deadline() -> None:
    # was: "raise --max-nodes (up to 256) to plan more, which may meet it" because the time still
    # fell from 7 to 8 instances; on 256 one-GPU instances the estimate is 22.8 h, past 22 h
    text = _refusal([SLOW], _saturating, Constraints(deadline_h=22.0))
    assert "--max-nodes" not in text and "may meet it" not in text
    assert text.endswith(
        "over the deadline on every count the planner allows, time falling with the count but not "
        "enough: g.slow would still take 22.8 h at best on 256 GPUs by gpuplan's estimate"
    )
    # where the most allowed would meet it, the flag is still offered
    assert _refusal([SLOW], _saturating, Constraints(deadline_h=23.0)).endswith(
        "raise --max-nodes (up to 256) to plan more, which may meet it"
    )
