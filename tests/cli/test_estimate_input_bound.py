"""``gpuplan estimate --instance``: an image job is bounded by the instance's vCPUs, and says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplan.cli import app, estimate_cmds
from stand_in_profiles import resnet50_profile


@pytest.fixture
def image_job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    profile = resnet50_profile("k", activations_bytes=5e9)
    monkeypatch.setattr(estimate_cmds, "load_profile", lambda workload, db, saved=None, **kw: profile)
    p = tmp_path / "resnet.yaml"
    p.write_text(
        "name: resnet50-imagenet\ntask: train\nmodel: {preset: resnet50}\n"
        "inputs: {batch_size: 256, image_size: 224}\nprecision: amp-fp16\n"
        "data: {samples: 1281167, epochs: 1}\n",
        encoding="utf-8",
    )
    return p


def test_instance_vcpus_bound_an_image_job_and_the_json_says_so(image_job: Path) -> None:
    # p3.2xlarge in the shipped catalog: 1 × V100-SXM2-16GB with 8 vCPUs: 8 × 100 = 800 images/s.
    r = CliRunner().invoke(app, ["estimate", str(image_job), "--instance", "p3.2xlarge", "--json"])
    assert r.exit_code == 0, r.output
    (row,) = json.loads(r.stdout)["estimates"]
    assert row["input_bound"] is True
    assert row["input_samples_per_s"] == pytest.approx(800.0)
    assert row["samples_per_s"] == pytest.approx(800.0)
    assert any(n.startswith("input-bound") for n in row["notes"])
    # Without an instance the vCPUs are unknown: nothing is bounded (unknown is not zero).
    r = CliRunner().invoke(app, ["estimate", str(image_job), "--gpu", "V100-SXM2-16GB", "--json"])
    (free,) = json.loads(r.stdout)["estimates"]
    assert free["input_bound"] is False and free["input_samples_per_s"] is None
    assert free["samples_per_s"] > 800.0


def test_the_input_bound_note_is_in_chinese_under_lang_zh(image_job: Path) -> None:
    args = ["--lang", "zh", "estimate", str(image_job), "--instance", "p3.2xlarge", "--json"]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    (row,) = json.loads(r.stdout)["estimates"]
    assert any(n.startswith("受输入限制：主机每秒供给 800 个样本") for n in row["notes"])
