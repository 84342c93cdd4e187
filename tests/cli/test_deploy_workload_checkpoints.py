"""``gpuplan deploy WORKLOAD.yaml --gpu X --count N`` (no plan) checkpoints at the interval a plan
would take off spot: 30 min, longer for a checkpoint slow to write (at most 5 % of the job in writes,
``gpuplan.units.default_checkpoint_interval_min``), from the checkpoint of the model deploy traces
for its fit check; it wrote 30 min whatever the write cost, where a plan of the same workload wrote
its lengthened interval."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gpuplan.cli import _profiles, app
from gpuplan.profile.model import Profile
from gpuplan.units import ASSUMED_DISK_GBPS, default_checkpoint_interval_min
from stand_in_profiles import toy_llm_profile

#: The stand-in's checkpoint: 1.5 B trainable weights in fp32 (6 GB) + AdamW's state (12 GB).
CHECKPOINT_GB = 18.0


@pytest.fixture
def stub_trace(monkeypatch: pytest.MonkeyPatch) -> Profile:
    profile = toy_llm_profile()
    monkeypatch.setattr(_profiles, "load_profile", lambda workload, db, saved=None, **kw: profile)
    return profile


def _deploy(tmp_path: Path, extra: str = "") -> dict[str, str]:
    job = tmp_path / "job.yaml"
    job.write_text(
        "name: toy-llm\ntask: train\nmodel: {preset: gpt2-xl}\ninputs: {batch_size: 4, seq_len: 1024}\n"
        f"precision: amp-bf16\ndata: {{samples: 2000000, epochs: 1}}\n{extra}",
        encoding="utf-8",
    )
    out = tmp_path / f"out{len(list(tmp_path.iterdir()))}"
    where = ["--gpu", "A100-SXM4-40GB", "--count", "8", "--target", "torchrun", "--out", str(out)]
    r = CliRunner().invoke(app, ["--db", str(tmp_path / "none.db"), "deploy", str(job), *where])
    assert r.exit_code == 0, r.output
    return {p.name: p.read_text(encoding="utf-8") for p in out.iterdir() if p.is_file()}


def test_a_workload_files_deploy_writes_the_interval_the_plan_takes_for_its_checkpoint(
    tmp_path: Path, stub_trace: Profile
) -> None:
    # 18 GB at 0.131 GB/s: 2.290 min a write; / 0.05 = 45.8 -> 46 min (30 min had been 7.6 % in writes)
    write_min = CHECKPOINT_GB / ASSUMED_DISK_GBPS / 60
    assert default_checkpoint_interval_min(write_min) == 46.0
    files = _deploy(tmp_path)
    assert re.search(r"\nCHECKPOINT_INTERVAL_MIN = 46\.0\n", files["train.py"])
    readme = " ".join(files["README.md"].split())
    assert "every 46.0 min" in readme
    assert (
        "One checkpoint is 18.00 GB (the workload's traced model as plan sizes it, written at the 0.131 GB/s "
        "plan assumes: fp32 trainable weights + optimizer state + buffers)"
    ) in readme
    assert "not known without a plan" not in readme
    # the workload's own interval is kept
    stated = _deploy(tmp_path, "checkpoint: {every_min: 20}\n")
    assert "\nCHECKPOINT_INTERVAL_MIN = 20.0\n" in stated["train.py"]


def _deploy_spot(tmp_path: Path, extra: str = "") -> tuple[dict[str, str], str]:
    job = tmp_path / "job.yaml"
    job.write_text(
        "name: toy-llm\ntask: train\nmodel: {preset: gpt2-xl}\ninputs: {batch_size: 4, seq_len: 1024}\n"
        f"precision: amp-bf16\ndata: {{samples: 2000000, epochs: 1}}\n{extra}",
        encoding="utf-8",
    )
    out = tmp_path / f"spot{len(list(tmp_path.iterdir()))}"
    where = ["--gpu", "A100-SXM4-40GB", "--count", "8", "--provider", "aws", "--spot"]
    where += ["--target", "skypilot", "--out", str(out)]
    r = CliRunner().invoke(app, ["--db", str(tmp_path / "none.db"), "deploy", str(job), *where])
    assert r.exit_code == 0, r.output
    return {p.name: p.read_text(encoding="utf-8") for p in out.iterdir() if p.is_file()}, r.output


def test_a_spot_deploy_of_a_workload_file_checkpoints_at_young_dalys_interval(
    tmp_path: Path, stub_trace: Profile
) -> None:
    # On spot the plan checkpoints at Young/Daly's sqrt(2·C·M): C = 18 GB at 0.131 GB/s = 2.290 min,
    # M = 24 h (the assumed reclaim rate, one instance) -> 81.2 min; the off-spot 46 min had been written
    write_h = CHECKPOINT_GB / ASSUMED_DISK_GBPS / 3600
    young = (2 * write_h * 24.0) ** 0.5 * 60
    assert round(young, 1) == 81.2
    files, output = _deploy_spot(tmp_path)
    assert "\nCHECKPOINT_INTERVAL_MIN = 81.2\n" in files["train.py"]
    said = " ".join(output.split())
    assert "note: train.py checkpoints every 81.2 min on spot: Young/Daly's interval" in said
    assert "18.0 GB checkpoint (2.3 min at the assumed 0.131 GB/s) on one spot instance" in said
    assert "assumed: 1 interruption per 24 instance-hours" in said
    # a shorter interval the workload states is kept, and said to be shorter
    files, output = _deploy_spot(tmp_path, "checkpoint: {every_min: 20}\n")
    assert "\nCHECKPOINT_INTERVAL_MIN = 20.0\n" in files["train.py"]
    said = " ".join(output.split())
    assert "every 20.0 min on spot, the workload's checkpoint.every_min: shorter than 81.2 min" in said


def _plan_and_deploy_spot(
    tmp_path: Path, samples: int, where: tuple[str, int, str, str], extra: str = ""
) -> tuple[dict[str, Any], str, float, str]:
    """gpt2-xl trained on ``samples`` planned on spot on ``where`` (GPU, count, aws region, instance
    type) and deployed there from its workload file with no plan (the model as both trace it: no
    stand-in profile, one checkpoint size): the plan's spot figures of the instance type, what
    deploy said, the interval its train.py writes, its README."""
    gpu, count, region, instance_type = where
    job = tmp_path / "job.yaml"
    job.write_text(
        "name: toy-llm\ntask: train\nmodel: {preset: gpt2-xl}\ninputs: {batch_size: 4, seq_len: 1024}\n"
        f"precision: amp-bf16\n{extra}data: {{samples: {samples}, epochs: 1}}\n"
        f"constraints: {{providers: [aws], regions: [{region}], gpus: [{gpu}], "
        f"pricing: [spot], min_gpus: {count}, max_gpus: {count}}}\n",
        encoding="utf-8",
    )
    db = ["--db", str(tmp_path / "catalog.db")]
    plan = CliRunner().invoke(app, [*db, "plan", str(job), "--json"])
    assert plan.exit_code == 0, plan.output
    (option,) = (o for o in json.loads(plan.stdout)["options"] if o["instance_type"] == instance_type)
    out = tmp_path / "files"
    on = ["--gpu", gpu, "--count", str(count), "--provider", "aws", "--region", region]
    r = CliRunner().invoke(
        app, [*db, "deploy", str(job), *on, "--spot", "--target", "torchrun", "--out", str(out)]
    )
    assert r.exit_code == 0, r.output
    written = re.search(r"\nCHECKPOINT_INTERVAL_MIN = ([\d.]+)\n", (out / "train.py").read_text("utf-8"))
    assert written is not None
    readme = " ".join((out / "README.md").read_text("utf-8").split())
    return option["spot"], " ".join(r.output.split()), float(written[1]), readme


def test_a_spot_deploy_in_a_region_checkpoints_at_the_band_plan_costs_its_offer_at(
    tmp_path: Path,
) -> None:
    # aws ap-southeast-1 p4de.24xlarge: the shipped catalog's band '<5%' a month, which plan costs
    # the offer at; deploy had taken the assumed one reclaim per 24 instance-hours ("none in the
    # catalog for this offer") and checkpointed every 38.2 min where the plan priced its interval
    # 100 B tokens: a run long enough that its interval is Young/Daly's, not the job's length
    where = ("A100-SXM4-80GB", 32, "ap-southeast-1", "p4de.24xlarge")
    priced, said, written, _readme = _plan_and_deploy_spot(
        tmp_path, 100_000_000, where, "parallelism: fsdp\n"
    )
    assert "'<5%'" in priced["rate_source"] and not priced["rate_assumed"]
    assert "'<5%'" in said and "none in the catalog" not in said
    assert "the rate plan costs this offer at (aws ap-southeast-1 p4de.24xlarge)" in said
    # one rate, so one Young/Daly interval: the one the plan priced, written into train.py
    interval = priced["checkpoint_interval_min"]
    assert interval > 600 and not priced["checkpoint_interval_stated"]  # '<5%' a month: rare reclaims
    assert written == pytest.approx(interval, abs=0.05)
    assert f"train.py checkpoints every {interval:.1f} min on spot" in said


def test_a_short_spot_jobs_deploy_caps_its_interval_at_the_jobs_length_as_plan_does(tmp_path: Path) -> None:
    # 20,000 samples on 8 x A100-40GB: minutes of steps and a 10-minute set-up, where Young/Daly's
    # interval at aws us-east-2's band is about 22 h; plan caps the interval at the job's work and
    # set-up (one write, at its end), and deploy had written the uncapped 1337.0 min into train.py
    where = ("A100-SXM4-40GB", 8, "us-east-2", "p4d.24xlarge")
    priced, said, written, readme = _plan_and_deploy_spot(tmp_path, 20_000, where)
    interval = priced["checkpoint_interval_min"]
    assert interval < 60 < priced["mtbi_h"]  # the job's length, far below Young/Daly's
    assert written == pytest.approx(interval, abs=0.05)
    assert f"every {interval:.1f} min" in readme
    assert f"train.py checkpoints every {interval:.1f} min on spot, the job's length (" in said
    assert "of set-up), so once, at its end, as plan counts it: shorter than" in said
