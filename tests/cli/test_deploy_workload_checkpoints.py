"""``gpuplan deploy WORKLOAD.yaml --gpu X --count N`` (no plan) checkpoints at the interval a plan
would take off spot: 30 min, longer for a checkpoint slow to write (at most 5 % of the job in writes,
``gpuplan.units.default_checkpoint_interval_min``), from the checkpoint of the model deploy traces
for its fit check; it wrote 30 min whatever the write cost, where a plan of the same workload wrote
its lengthened interval."""

from __future__ import annotations

import re
from pathlib import Path

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
