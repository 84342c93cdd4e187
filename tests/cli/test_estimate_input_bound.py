"""``gpuplan estimate --instance``: an image job is bounded by the instance's vCPUs, and says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplan.cli import app, estimate_cmds
from gpuplan.profile.model import MemoryBreakdown, ModelShape, OpRecord, Profile


def _image_profile() -> Profile:
    """256 images, 0.9 TFLOP of fp16 convolutions: ~10 ms on a V100, i.e. far above 800 images/s."""
    ops = tuple(
        OpRecord(
            op="aten.convolution",
            op_class="conv",
            phase=ph,
            dtype="float16",
            count=1,
            flops=f,
            bytes_moved=0.0,
        )
        for ph, f in (("forward", 0.3e12), ("backward", 0.6e12))
    )
    return Profile(
        key="k",
        workload_name="resnet50-imagenet",
        task="train",
        precision="amp-fp16",
        batch_size=256,
        seq_len=None,
        params=25_000_000,
        trainable_params=25_000_000,
        flops_per_step=0.9e12,
        forward_flops=0.3e12,
        ops=ops,
        peak=MemoryBreakdown(
            parameters_bytes=1e8,
            buffers_bytes=0.0,
            gradients_bytes=1e8,
            optimizer_state_bytes=1e8,
            activations_bytes=5e9,
            temporaries_bytes=0.0,
        ),
        shape=ModelShape(family="cnn"),
    )


@pytest.fixture
def image_job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(
        estimate_cmds, "load_profile", lambda workload, db, saved=None, **kw: _image_profile()
    )
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
