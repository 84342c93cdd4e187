"""Off spot, the interval a job checkpoints at where the workload does not set one: 30 min, longer
for a checkpoint slow to write, so that the writes take at most 5 % of the job (a 177 GB checkpoint
written every 30 min at 0.131 GB/s had taken 43 % of a 14.8 B fine-tune's time and cost); the plan
says so, says when the workload's own interval makes the writes a fifth of the job or more, and
``gpuplan deploy`` writes the interval the plan priced."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from plan_helpers import aws_costs, offer, toy_estimator

from gpuplan.deploy import GenerateOptions, LaunchSpec
from gpuplan.deploy.torchrun import render_train_py
from gpuplan.plan import Constraints, CostFacts, JobFacts, OfferTable, plan_offers
from gpuplan.plan.build_inputs import job_facts_from
from gpuplan.report.plan import option_json
from gpuplan.report.plan_view import spot_lines
from gpuplan.units import default_checkpoint_interval_min
from gpuplan.workload import Workload
from stand_in_profiles import bert_large_profile

#: A plan file of the deploy tests, whose recommended option is replaced.
PLAN_FIXTURE = Path(__file__).parents[1] / "deploy" / "fixtures" / "plan_spot_aws.json"
#: A 14.77 B-parameter full fine-tune's checkpoint: fp32 weights + AdamW's two moments, 12 B each.
BIG_GB = 14.77e9 * 12 / 1e9
#: Its write at the assumed 0.131 GB/s: 177.24 / 0.131 / 60 = 22.549 min.
BIG_WRITE_MIN = BIG_GB / 0.131 / 60
#: One T4 of the toy estimator: 40 h of work.
T4 = {"gpu": "T4", "gpu_count": 1, "gpu_memory_gib": 16.0, "instance_type": "g4dn.xlarge", "price_usd": 0.526}


def _plan(job: JobFacts):  # type: ignore[no-untyped-def]
    return plan_offers(
        OfferTable.from_rows([offer(**T4)]),
        CostFacts([aws_costs()]),
        job,
        toy_estimator(peak_gib=10.0),
        Constraints(max_gpus=8),
    ).recommended


def test_the_rule_lengthens_a_slow_write_and_leaves_a_fast_one_at_30_min() -> None:
    # 22.549 min / 0.05 = 450.98 -> 451 min (a whole minute, up); a ResNet-50's 0.03 min write and
    # one of 1.5 min (30 min is exactly 20 of them) keep the default.
    assert default_checkpoint_interval_min(BIG_WRITE_MIN) == 451.0
    assert default_checkpoint_interval_min(0.026) == 30.0
    assert default_checkpoint_interval_min(1.5) == 30.0
    assert default_checkpoint_interval_min(1.6) == 32.0
    assert default_checkpoint_interval_min(0.0) == 30.0


def test_a_big_checkpoint_off_spot_is_written_at_most_5_percent_of_the_job_and_said() -> None:
    # 40 h of work, every 451 min: 40 / 7.5167 = 5.3215 writes × 22.549 min = 1.99993 h, 4.76 % of
    # the 41.99993 h job (every 30 min it was 80 writes, 30.07 h: 42.9 %).
    o = _plan(JobFacts(checkpoint_gb=BIG_GB))
    w = o.checkpoints
    assert w is not None and not w.interval_stated
    assert w.interval_min == pytest.approx(451.0) == o.checkpoint_interval_min
    assert w.overhead_h == pytest.approx(40 * BIG_WRITE_MIN / 451)
    assert o.job_time_h == pytest.approx(40 + 40 * BIG_WRITE_MIN / 451)
    assert w.overhead_h / o.job_time_h == pytest.approx(0.0476, abs=1e-4)
    (line,) = spot_lines(o)
    assert line.startswith("checkpoints: every 451 min (not the default 30 min: a write takes 22.5 min, ")
    assert "at most 5% of the job; `checkpoint: {every_min: N}` in the workload sets another" in line
    assert "5 × 22.5 min = 2.0 h" in line and line.endswith("(4.8% of the job's time)")


def test_a_small_checkpoint_keeps_30_min_and_its_words() -> None:
    # 5 GB: a 0.636 min (38 s) write, 30 min as before: 80 writes, 0.848 h; nothing more said.
    o = _plan(JobFacts(checkpoint_gb=5.0))
    assert o.checkpoints is not None and o.checkpoints.interval_min == pytest.approx(30.0)
    assert o.checkpoint_interval_min == pytest.approx(30.0)
    assert spot_lines(o) == [
        "checkpoints: every 30 min (as the train.py of `gpuplan deploy` writes them, each write stopping "
        f"every GPU): 80 × 38 s = 51 min, ${o.checkpoints.usd:.2f}"
    ]


def test_the_workloads_own_interval_is_kept_and_flagged_where_its_writes_take_a_fifth_of_the_job() -> None:
    stated = replace(JobFacts(checkpoint_gb=BIG_GB), checkpoint_every_h=0.5, checkpoint_every_stated=True)
    o = _plan(stated)
    assert o.checkpoints is not None and o.checkpoints.interval_min == pytest.approx(30.0)
    # 80 writes × 22.549 min = 30.07 h of a 70.07 h job: 43 %, at $0.526/h: $15.81
    line, heavy = spot_lines(o)
    assert "every 30 min (the workload's checkpoint.every_min)" in line
    assert heavy == (
        "the checkpoint writes take 43% of the job's time (30.1 h, $15.81) at the workload's "
        "checkpoint.every_min of 30 min; without it gpuplan would write every 451 min (the writes at "
        "most 5% of the job)"
    )
    # every 240 min: 10 writes, 3.76 h of 43.76 h (8.6 %): not flagged
    longer = replace(stated, checkpoint_every_h=4.0)
    assert len(spot_lines(_plan(longer))) == 1


def test_the_plans_note_says_the_interval_why_and_how_to_set_another() -> None:
    base = bert_large_profile("big")
    params = 14_770_000_000
    big = replace(base, trainable_params=params, peak=replace(base.peak, optimizer_state_bytes=8.0 * params))
    inputs = {"batch_size": 2, "seq_len": 64}
    workload = Workload.from_dict(
        {"name": "w", "task": "finetune", "model": {"preset": "gpt2"}, "inputs": inputs}
    )
    job, notes = job_facts_from(workload, big)
    assert job.checkpoint_gb == pytest.approx(BIG_GB) and job.checkpoint_interval_h == pytest.approx(451 / 60)
    (note,) = [n for n in notes if "not the default 30" in n]
    assert note.startswith(
        "off spot, a checkpoint every 451 min, not the default 30: one write of the 177.2 GB"
    )
    assert "takes 22.5 min at 0.131 GB/s (assumed)" in note and "at most 5% of the job's time" in note
    assert "`checkpoint: {every_min: N}` in the workload sets another" in note
    # the workload's own interval: kept, and no such note
    stated = Workload.from_dict({**workload.to_dict(), "checkpoint": {"every_min": 30}})
    job, notes = job_facts_from(stated, big)
    assert job.checkpoint_interval_h == pytest.approx(0.5)
    assert not [n for n in notes if "not the default 30" in n]


def test_deploy_writes_the_interval_the_plan_document_carries() -> None:
    o = _plan(JobFacts(checkpoint_gb=BIG_GB))
    doc = json.loads(PLAN_FIXTURE.read_text())
    recommended = option_json(o).model_dump(mode="json")
    assert recommended["checkpoint_interval_min"] == pytest.approx(451.0)
    assert recommended["checkpoints"]["interval_min"] == pytest.approx(451.0)
    doc["recommended"] = recommended
    spec = LaunchSpec.from_plan(doc)
    assert spec.checkpoint_interval_min == pytest.approx(451.0)
    assert "\nCHECKPOINT_INTERVAL_MIN = 451.0\n" in render_train_py(spec, GenerateOptions())


def _spot_plan(job: JobFacts, band: str):  # type: ignore[no-untyped-def]
    spot = offer(**{**T4, "price_usd": 0.2}, pricing="spot", interruption_band=band)
    return plan_offers(
        OfferTable.from_rows([spot]),
        CostFacts([aws_costs()]),
        job,
        toy_estimator(peak_gib=10.0),
        Constraints(),
    ).recommended


def test_on_spot_the_workloads_interval_is_flagged_where_its_writes_are_a_fifth_or_far_from_young_daly() -> (
    None
):
    stated = replace(JobFacts(checkpoint_gb=BIG_GB), checkpoint_every_h=0.5, checkpoint_every_stated=True)
    # no band: 1 interruption per 24 h, C = 22.549 min: Young/Daly sqrt(2 × 0.37582 × 24) = 4.2473 h
    # = 255 min; every 30 min instead: 80 writes, 30.07 h of a 72.46 h job (41 %), at $0.20/h: $6.01;
    # at 255 min the same 40 h of work writes 40 × 0.37582 / 4.2473 = 3.54 h
    o = _spot_plan(stated, "")
    assert o.spot is not None and o.spot.checkpoint_interval_stated
    line, heavy = spot_lines(o)
    assert (
        "checkpoint every 30 min (the workload's checkpoint.every_min, shorter than Young/Daly's 255 min)"
        in line
    )
    assert heavy == (
        "on spot, the checkpoint writes take 41% of the job's time (30.1 h, $6.01) at the workload's "
        "checkpoint.every_min of 30 min; without it gpuplan would write every 255 min (Young/Daly's "
        "interval from the reclaim rate; the writes 3.5 h there)"
    )
    # every 240 min, near Young/Daly's 255: 3.76 h of 48.9 h (7.7 %), not flagged
    assert len(spot_lines(_spot_plan(replace(stated, checkpoint_every_h=4.0), ""))) == 1
    # a '<5%' band: Young/Daly's 6206 min is longer than the 40 h job (one write at its end, 23 min);
    # every 240 min is 10 times shorter: flagged though its writes are 9 % of the job
    far = _spot_plan(replace(stated, checkpoint_every_h=4.0), "<5%")
    _line, heavy = spot_lines(far)
    assert heavy == (
        "on spot, the checkpoint writes take 9% of the job's time (3.8 h, $0.75) at the workload's "
        "checkpoint.every_min of 240 min; without it gpuplan would write once, at the end (Young/Daly's "
        "interval from the reclaim rate, 6206 min, is longer than the job; the writes 23 min there)"
    )
    # no interval of the workload's: Young/Daly's, nothing flagged
    assert len(spot_lines(_spot_plan(JobFacts(checkpoint_gb=BIG_GB), ""))) == 1
