"""A batch inference job's weights: each instance holds them on its disk, and a shard started again
after a spot reclaim loads them before it resumes, as a service's replacement replica does; the plan
prices both and says so in a batch job's words (no checkpoint, no frozen base of a fine-tune)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from plan_helpers import aws_costs, offer, toy_estimator

from gpuplan.plan import Constraints, CostFacts, OfferTable, plan_offers
from gpuplan.plan.build_inputs import job_facts_from
from gpuplan.workload import load_workload
from stand_in_profiles import bert_large_profile

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bert-embed-titles.yaml"


def _facts():  # type: ignore[no-untyped-def]
    w = load_workload(EXAMPLE)
    profile = replace(bert_large_profile("infer"), task="infer")
    return job_facts_from(w, profile), profile


def test_a_batch_job_holds_and_reloads_the_models_weights() -> None:
    # was 0: a reclaimed shard was costed the 10-minute replacement only, and no disk held the
    # weights; 340 M fp32 weights = 1.36 GB, read at the 0.131 GB/s a checkpoint is read at.
    (job, _), profile = _facts()
    weights = (profile.peak.parameters_bytes + profile.peak.buffers_bytes) / 1e9
    assert weights == pytest.approx(1.36) and job.weights_gb == pytest.approx(weights)
    assert job.checkpoint_gb == 0 and job.resumes_by_chunks
    assert job.spot_restart_h == pytest.approx(job.restart_h + weights / 0.131 / 3600)
    assert job.stored_gb_per_copy == pytest.approx(5 + weights)  # the titles and the weights


def test_a_spot_batch_jobs_restart_and_storage_are_said_in_its_own_words() -> None:
    (job, _), _profile = _facts()
    plan = plan_offers(
        OfferTable.from_rows([offer(pricing="spot", price_usd=8.0)]),
        CostFacts([aws_costs()]),
        job,
        toy_estimator(),
        Constraints(max_nodes=1),
    )
    o = plan.recommended
    assert o.spot is not None
    assert o.spot.restart_assumed == (
        "assumed: 10 min to get a replacement instance, boot it and pull the image, plus the model's "
        "weights (1.36 GB) read at 0.131 GB/s, and the dataset (5 GB) copied again: +38 s (a reclaim is "
        "taken to lose its disks)"
    )
    assert o.spot.restart_min == pytest.approx(10 + (1.36 + 5) / 0.131 / 60)
    words = " ".join([*o.assumptions, *plan.notes])
    assert "1.4 GB of model weights on each instance's disk" in words
    assert "the model's weights (1.4 GB) and any dataset" in words
    assert "base model" not in words and "checkpoint" not in o.spot.restart_assumed
