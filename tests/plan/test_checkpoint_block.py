"""The workload's ``checkpoint:`` block: the interval and the retention the launch uses are the ones
the plan prices (the writes' time off spot and on spot, the disk the checkpoints take) and the ones
``gpuplan deploy`` writes into train.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_helpers import aws_costs, offer, toy_estimator

from gpuplan.deploy import GenerateOptions, LaunchSpec
from gpuplan.deploy.checkpoints import checkpoint_disk_gib
from gpuplan.deploy.torchrun import render_train_py
from gpuplan.errors import WorkloadError
from gpuplan.plan import Constraints, CostFacts, JobFacts, OfferTable, plan_offers
from gpuplan.plan.build_inputs import job_facts_from
from gpuplan.report.plan_view import spot_lines
from gpuplan.workload import Workload

TRAIN = {
    "name": "w",
    "model": {"preset": "gpt2"},
    "inputs": {"batch_size": 4, "seq_len": 16},
    "data": {"samples": 64, "size_gb": 10},
}


def _workload(**checkpoint: object) -> Workload:
    return Workload.from_dict({**TRAIN, "checkpoint": checkpoint})


def test_the_block_is_read_and_checked() -> None:
    w = _workload(every_min=45, keep=5)
    assert w.checkpoint is not None and (w.checkpoint.every_min, w.checkpoint.keep) == (45.0, 5)
    # keep 1 would delete the last complete checkpoint before the next write is whole
    with pytest.raises(WorkloadError, match="keep"):
        _workload(keep=1)
    with pytest.raises(WorkloadError, match="every_min"):
        _workload(every_min=0)
    with pytest.raises(WorkloadError, match="an inference job writes no checkpoint"):
        Workload.from_dict({**TRAIN, "task": "infer", "checkpoint": {"keep": 3}})


def test_the_plans_job_facts_take_the_interval_and_the_retention() -> None:
    job, _notes = job_facts_from(_workload(every_min=45, keep=5), None)
    assert job.checkpoint_every_h == pytest.approx(0.75) and job.checkpoint_every_stated
    assert job.checkpoints_kept == 5
    # left out: train.py's 30 min and two checkpoints, not stated
    plain, _ = job_facts_from(Workload.from_dict(TRAIN), None)
    assert plain.checkpoint_every_h == pytest.approx(0.5) and not plain.checkpoint_every_stated
    assert plain.checkpoints_kept == 2


# 5 GB a checkpoint at 0.131 GB/s: 38.168 s a write.
WRITE_H = 5 / 0.131 / 3600
JOB = JobFacts(dataset_gb=200, checkpoint_gb=5, data_location=("aws", "us-east-1"))


def _plan(job: JobFacts, **row: object):  # type: ignore[no-untyped-def]
    return plan_offers(
        OfferTable.from_rows([offer(**row)]),
        CostFacts([aws_costs()]),
        job,
        toy_estimator(),
        Constraints(max_gpus=8),
    ).recommended


def test_on_demand_writes_at_the_workloads_interval_and_stores_what_it_keeps() -> None:
    # 1 h of work at every 15 min: 4 writes × 38.168 s = 0.0424 h (30 min, the default: 2 writes).
    # Storage of one disk: (200 + 5 × 5) = 225 GB instead of (200 + 2 × 5) = 210 GB, each launched
    # (and priced) as deploy sizes it: 225 × 1.15 + 64 = 322.75 GB, up to a whole 64: 384 GB, against
    # 210 × 1.15 + 64 = 305.5 GB: 320 GB (was priced as 225 against 210).
    job = JobFacts(**{**JOB.__dict__, "checkpoint_every_h": 0.25, "checkpoint_every_stated": True})
    kept = JobFacts(**{**job.__dict__, "checkpoints_kept": 5})
    o = _plan(job)
    assert o.checkpoints is not None and o.checkpoints.interval_stated
    assert o.checkpoints.interval_min == pytest.approx(15.0) == o.checkpoint_interval_min
    assert o.checkpoints.writes == pytest.approx(4.0)
    assert o.job_time_h == pytest.approx(1.0 + 4 * WRITE_H)
    assert "every 15 min (the workload's checkpoint.every_min)" in spot_lines(o)[0]
    five = _plan(kept)
    assert five.cost_breakdown.storage_usd == pytest.approx(o.cost_breakdown.storage_usd * 384 / 320)


def test_spot_takes_the_workloads_interval_where_it_is_shorter_than_young_daly() -> None:
    # Young/Daly at 1/24 per h: sqrt(2 × 0.010602 × 24) = 0.7134 h (42.8 min). 15 min is shorter: it
    # is used and said; 60 min is longer: Young/Daly's stands.
    spot = {"pricing": "spot", "price_usd": 8.0, "interruption_band": ""}
    short = JobFacts(**{**JOB.__dict__, "checkpoint_every_h": 0.25, "checkpoint_every_stated": True})
    o = _plan(short, **spot)
    assert o.spot is not None and o.spot.checkpoint_interval_stated
    assert o.spot.checkpoint_interval_min == pytest.approx(15.0)
    assert o.spot.checkpoint_optimum_min == pytest.approx((2 * WRITE_H * 24) ** 0.5 * 60)
    assert (
        "checkpoint every 15 min (the workload's checkpoint.every_min, shorter than Young/Daly's 43 min)"
        in (spot_lines(o)[0])
    )
    long = JobFacts(**{**JOB.__dict__, "checkpoint_every_h": 1.0, "checkpoint_every_stated": True})
    o = _plan(long, **spot)
    assert o.spot is not None and not o.spot.checkpoint_interval_stated
    assert o.spot.checkpoint_interval_min == pytest.approx((2 * WRITE_H * 24) ** 0.5 * 60)


def test_deploy_writes_the_workloads_interval_and_retention(tmp_path: Path) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(
        "name: tiny-lm\nmodel: {preset: gpt2}\ninputs: {batch_size: 4, seq_len: 16}\n"
        "data: {samples: 64}\ncheckpoint: {every_min: 45, keep: 5}\n",
        encoding="utf-8",
    )
    spec = LaunchSpec.from_workload(path, gpu="T4")
    assert spec.checkpoint_interval_min == 45.0 and spec.keep_checkpoints == 5
    text = render_train_py(spec, GenerateOptions())
    assert "\nCHECKPOINT_INTERVAL_MIN = 45.0\n" in text
    assert "\nKEEP_CHECKPOINTS = 5  #" in text
    # the volume holds five 10 GB checkpoints: 5 × 10 × 1.15 / 1.0737 = 53.6 GiB -> 60 GiB
    sized = spec.model_copy(update={"checkpoint_gb": 10.0})
    assert checkpoint_disk_gib(sized) == 60
    # left out: 30 min and two
    plain = LaunchSpec.from_workload(
        Path(__file__).parents[1] / "deploy" / "fixtures" / "train.yaml", gpu="T4"
    )
    assert plain.checkpoint_interval_min == 30.0 and plain.keep_checkpoints == 2
    assert "\nKEEP_CHECKPOINTS = 2  #" in render_train_py(plain, GenerateOptions())
