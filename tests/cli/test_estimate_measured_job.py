"""``gpuplan estimate`` says the job's time at a measured throughput beside its own, and why a
sharded job scales past its GPU count.

An outside tester gave ``--measured-throughput 220000`` for 8 × H100-SXM: the gap was explained but
the only job time shown was the estimate's 26.0 h (the measured rate's is some 33 h); and FSDP
shown as "8.29× one H100-SXM (104% efficiency)" said nothing of why it beat linear scaling (each
GPU's optimizer step updates only its shard of the weights)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplan.cli import app, estimate_cmds
from gpuplan.profile.model import Profile
from stand_in_profiles import toy_llm_profile


def _heavy_optimizer() -> Profile:
    """The stand-in step with an optimizer ten times the memory traffic (an AdamW over more state):
    sharded eight ways, it saves more than the collectives expose."""
    p = toy_llm_profile()
    ops = tuple(
        replace(op, bytes_moved=op.bytes_moved * 10) if op.phase == "optimizer" else op for op in p.ops
    )
    return replace(p, ops=ops)


def _job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parallelism: str) -> Path:
    profile = _heavy_optimizer()
    monkeypatch.setattr(estimate_cmds, "load_profile", lambda workload, db, saved=None, **kw: profile)
    p = tmp_path / f"{parallelism}.yaml"
    p.write_text(
        "name: toy\ntask: train\nmodel: {preset: gpt2-xl}\ninputs: {batch_size: 4, seq_len: 1024}\n"
        f"precision: amp-bf16\noptimizer: adamw\nparallelism: {parallelism}\n"
        "data: {samples: 200000, epochs: 1}\n",
        encoding="utf-8",
    )
    return p


def _run(db: Path, *args: str) -> str:
    r = CliRunner().invoke(app, ["--db", str(db), "estimate", *args], env={"COLUMNS": "400"})
    assert r.exit_code == 0, r.output
    return r.output


def test_a_sharded_optimizer_is_named_as_why_it_scales_past_its_gpu_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_catalog: Path
) -> None:
    job = _job(tmp_path, monkeypatch, "fsdp")
    s = json.loads(_run(fresh_catalog, str(job), "--gpu", "H100-SXM", "-n", "8", "--json"))["estimates"][0][
        "scaling"
    ]
    assert s["efficiency"] > 1.0
    assert s["optimizer_s"] * 8 == pytest.approx(s["one_gpu_optimizer_s"], rel=0.01)
    out = _run(fresh_catalog, str(job), "--gpu", "H100-SXM", "-n", "8")
    line = next(x for x in out.splitlines() if x.startswith("Scaling of H100-SXM ×8"))
    assert (
        "More than 8×: the optimizer state is sharded (fsdp), so each GPU's optimizer step updates "
        "only its 1/8" in line
    )


def test_unsharded_data_parallel_stays_below_its_gpu_count_and_says_no_such_thing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_catalog: Path
) -> None:
    job = _job(tmp_path, monkeypatch, "ddp")
    out = _run(fresh_catalog, str(job), "--gpu", "H100-SXM", "-n", "8")
    assert "More than 8×" not in out and "Scaling of H100-SXM ×8" in out


def test_the_job_time_at_the_measured_rate_is_shown_beside_the_estimate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_catalog: Path
) -> None:
    job = _job(tmp_path, monkeypatch, "fsdp")
    row = json.loads(_run(fresh_catalog, str(job), "--gpu", "H100-SXM", "-n", "8", "--json"))["estimates"][0]
    slower = f"{row['throughput'] / 1.5:.0f}"
    args = (str(job), "--gpu", "H100-SXM", "-n", "8", "--measured-throughput", slower)
    gap = json.loads(_run(fresh_catalog, *args, "--json"))["estimates"][0]["scaling_gap"]
    assert gap["measured_compute_time_h"] == pytest.approx(row["compute_time_h"] * 1.5, rel=1e-3)
    # the checkpoint writes on top, as the row's job_time_h counts them
    assert gap["measured_job_time_h"] > gap["measured_compute_time_h"]
    out = _run(fresh_catalog, *args)
    assert "At the measured rate the job takes" in out
    assert f"--measured-throughput {slower} --measured-on H100-SXM:8` plans and prices it" in out.replace(
        "\n", " "
    )
