"""``gpuplan estimate``'s job time includes the checkpoints the launch's train.py writes, as ``plan``
prices them off spot: the same size, interval, assumed bandwidth and formula, so that an estimate
and a plan of the same instance differ only by the set-up an offer adds.

An outside test had ``estimate --instance ecs.gn7e-c16g1.32xlarge`` say 47.5 h of a Qwen2.5-14B
fine-tune while ``plan`` said 3.5 days of the same instance: 35.7 h of 177 GB checkpoints written
every 30 min at 0.131 GB/s, which the estimate neither counted nor mentioned."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplan.api import plan
from gpuplan.catalog import open_store
from gpuplan.cli import app, estimate_cmds
from gpuplan.profile.model import Profile
from gpuplan.units import ASSUMED_DISK_GBPS
from gpuplan.workload import load_workload
from stand_in_profiles import toy_llm_profile

#: The stand-in's checkpoint: 1.5 B trainable weights in fp32 (6 GB) + AdamW's state (12 GB).
CHECKPOINT_GB = 18.0
DATASET_GB = 20.0


def _workload_file(tmp_path: Path, extra: str = "") -> Path:
    p = tmp_path / "job.yaml"
    p.write_text(
        "name: toy-llm\ntask: train\nmodel: {preset: gpt2-xl}\ninputs: {batch_size: 4, seq_len: 1024}\n"
        f"precision: amp-bf16\ndata: {{samples: 2000000, epochs: 1, size_gb: {DATASET_GB:g}, "
        f"location: aws/us-east-1}}\n{extra}",
        encoding="utf-8",
    )
    return p


@pytest.fixture
def stub_trace(monkeypatch: pytest.MonkeyPatch) -> Profile:
    profile = toy_llm_profile()
    monkeypatch.setattr(estimate_cmds, "load_profile", lambda workload, db, saved=None, **kw: profile)
    return profile


def _estimate(path: Path, db: Path, *args: str) -> dict:  # type: ignore[type-arg]
    r = CliRunner().invoke(app, ["--db", str(db), "estimate", str(path), "--instance", "p4d.24xlarge", *args])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout) if "--json" in args else {"text": r.stdout}


def _plan_option(path: Path, db: Path, profile: Profile):  # type: ignore[no-untyped-def]
    store = open_store(str(db))
    try:
        answer = plan(
            load_workload(path),
            store=store,
            profile=profile,
            providers=["aws"],
            regions=["us-east-1"],
            gpus=["A100-SXM4-40GB"],
            pricing=["on_demand"],
            max_nodes=1,
            deadline_h=10_000,
            budget_usd=1e9,
            top=500,
        )
    finally:
        store.close()
    [option] = [o for o in answer.options if o.instance_type == "p4d.24xlarge" and o.nodes == 1]
    return option


def test_the_estimates_job_time_is_the_plans_of_the_same_instance_less_its_set_up(
    tmp_path: Path, fresh_catalog: Path, stub_trace: Profile
) -> None:
    path = _workload_file(tmp_path)
    doc = _estimate(path, fresh_catalog, "--json")
    [row] = doc["estimates"]
    option = _plan_option(path, fresh_catalog, stub_trace)
    assert doc["schema_version"] == 5
    # the checkpoints the plan prices: its size, its assumed bandwidth and the launch's interval: not
    # 30 min, since a 2.29 min write is made at most 5 % of the job: 2.29 / 0.05 = 45.8, 46 min
    assert doc["checkpoints"] == pytest.approx(
        {
            "checkpoint_gb": CHECKPOINT_GB,
            "interval_min": 46.0,
            "interval_stated": False,
            "write_gbps": ASSUMED_DISK_GBPS,
            "write_min": CHECKPOINT_GB / ASSUMED_DISK_GBPS / 60,
        }
    )
    # Same profile, instance and network on both sides, and the same formula: the figures agree to
    # rounding (1e-6), not to a modelling tolerance.
    assert row["compute_time_h"] == pytest.approx(option.compute_time_h, rel=1e-6)
    assert option.checkpoints is not None
    assert row["checkpoint_writes_h"] == pytest.approx(option.checkpoints.overhead_h, rel=1e-6)
    assert row["checkpoint_writes"] == pytest.approx(option.checkpoints.writes, rel=1e-6)
    assert row["checkpoint_writes_h"] > 0.04 * row["compute_time_h"]  # not a rounding: ~5 % here
    assert row["job_time_h"] == pytest.approx(row["compute_time_h"] + row["checkpoint_writes_h"], rel=1e-9)
    # What only an offer gives is the difference: its set-up (10 min to boot and pull the image,
    # assumed, plus the 20 GB dataset copied at the assumed disk bandwidth).
    set_up_h = 10 / 60 + DATASET_GB / ASSUMED_DISK_GBPS / 3600
    assert option.job_time_h - row["job_time_h"] == pytest.approx(set_up_h, rel=1e-6)
    # the band moves with the steps' band: more steps, more writes
    assert row["job_time_h_low"] < row["job_time_h"] < row["job_time_h_high"]
    assert row["job_time_h_high"] > row["compute_time_h_high"]


def test_the_table_says_what_its_job_time_includes_and_a_stated_interval_is_used(
    tmp_path: Path, fresh_catalog: Path, stub_trace: Profile
) -> None:
    path = _workload_file(tmp_path)
    doc = _estimate(path, fresh_catalog, "--json")
    [row] = doc["estimates"]
    text = " ".join(_estimate(path, fresh_catalog)["text"].split())
    assert (
        "The job time includes the checkpoint writes: every 46 min (not every 30 min: a write this slow is "
        "made at most 5% of the job's time, as plan prices it and the train.py of `gpuplan deploy` from "
        "that plan writes it, each write stopping every GPU), 18.00 GB each at 0.131 GB/s, 2.3 min a write"
    ) in text
    assert f"{row['checkpoint_writes']:,.0f} × 2.3 min" in text
    assert "Not included: the set-up (copying the dataset to the instance), which plan adds" in text
    # the figures are off spot's: on spot plan takes Young/Daly's interval from the reclaim rate
    assert (
        "These are the writes off spot: on spot, plan checkpoints at Young/Daly's interval from each "
        "offer's reclaim rate instead (the workload's checkpoint.every_min where that is shorter), so "
        "there the writes, and the work a reclaim loses, differ."
    ) in text
    # the workload's own interval: at 120 min, 46/120 of the writes at 46 min
    slow = _workload_file(tmp_path, "checkpoint: {every_min: 120}\n")
    doc120 = _estimate(slow, fresh_catalog, "--json")
    [row120] = doc120["estimates"]
    assert doc120["checkpoints"]["interval_stated"] and doc120["checkpoints"]["interval_min"] == 120
    assert row120["checkpoint_writes_h"] == pytest.approx(row["checkpoint_writes_h"] * 46 / 120, rel=0.02)
    text120 = " ".join(_estimate(slow, fresh_catalog, "--lang", "zh")["text"].split())
    assert "任务用时已包含检查点写入：每 120 分钟一次（工作负载的 checkpoint.every_min）" in text120


def test_an_inference_job_writes_no_checkpoints(
    tmp_path: Path, fresh_catalog: Path, stub_trace: Profile
) -> None:
    p = tmp_path / "infer.yaml"
    p.write_text(
        "name: toy-llm\ntask: infer\nmodel: {preset: gpt2-xl}\ninputs: {batch_size: 4, seq_len: 1024}\n"
        "precision: bf16\ndata: {samples: 2000000, size_gb: 20}\n",
        encoding="utf-8",
    )
    doc = _estimate(p, fresh_catalog, "--json")
    [row] = doc["estimates"]
    assert doc["checkpoints"] is None
    assert row["checkpoint_writes_h"] == 0.0 and row["job_time_h"] == row["compute_time_h"]


def test_an_estimate_writes_at_the_interval_plan_and_deploy_take_for_a_slow_write() -> None:
    """A checkpoint slow to write is written at the lengthened interval the plan prices and the
    plan's train.py writes (``JobFacts.checkpoint_interval_h``), not every 30 min: the estimate
    and the plan of the same job agree."""
    from gpuplan.plan.input_types import JobFacts
    from gpuplan.plan.launch_checkpoints import launch_checkpoints

    # 177.24 GB at 0.131 GB/s: a 22.5 min write, so every 451 min (writes at most 5 % of the job)
    job = JobFacts(task="train", dataset_gb=20.0, checkpoint_gb=177.24)
    ck = launch_checkpoints(job)
    assert ck is not None and ck.interval_lengthened and not ck.interval_stated
    assert ck.interval_min == pytest.approx(job.checkpoint_interval_h * 60.0) == pytest.approx(451.0)
    # 47.48 h of steps: 7 writes (one each 451 min), not 95 (one each 30 min)
    assert ck.writes(47.48) == pytest.approx(47.48 * 60 / 451, rel=0.1)
    assert ck.hours(47.48) < 0.06 * 47.48
