"""``gpuplan estimate --instance``: an image job is bounded by the instance's vCPUs, and says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplan.cli import app, estimate_cmds
from stand_in_profiles import resnet50_profile


def _resnet_job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: str) -> Path:
    """A ResNet-50 job on ``data`` (its YAML mapping), traced as the stand-in profile."""
    profile = resnet50_profile("k", activations_bytes=5e9)
    monkeypatch.setattr(estimate_cmds, "load_profile", lambda workload, db, saved=None, **kw: profile)
    p = tmp_path / "resnet.yaml"
    p.write_text(
        "name: resnet50-imagenet\ntask: train\nmodel: {preset: resnet50}\n"
        f"inputs: {{batch_size: 256, image_size: 224}}\nprecision: amp-fp16\ndata: {data}\n",
        encoding="utf-8",
    )
    return p


@pytest.fixture
def image_job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return _resnet_job(tmp_path, monkeypatch, "{samples: 1281167, epochs: 1}")


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


def _row(args: list[str]) -> dict:
    r = CliRunner().invoke(app, ["estimate", *args, "--json"])
    assert r.exit_code == 0, r.output
    (row,) = json.loads(r.stdout)["estimates"]
    return row


def test_without_an_instance_the_slow_end_is_a_typical_hosts_and_names_it(image_job: Path) -> None:
    from gpuplan.api import estimate
    from gpuplan.perf.input_pipeline import Host

    free = _row([str(image_job), "--gpu", "A100-SXM4-80GB"])
    host = free["input_host"]
    assert host["source"] == "typical" and host["bounded"] is True
    vcpus, n = host["vcpus_per_gpu"], host["instance_types"]
    assert vcpus > 0 and n >= 1
    # The slow end: 256 images ÷ (vCPUs × 50 images/s per vCPU, the slow decode rate), e.g.
    # 15 vCPUs: 256 ÷ 750 = 0.341 s; the point keeps the GPUs' own time (not input-bound).
    assert free["step_time_s_high"] == pytest.approx(256 / (vcpus * 50.0))
    assert free["input_bound"] is False and free["input_samples_per_s"] is None
    # On a generous instance (1,000 vCPUs per GPU) the same GPUs' slow end is far shorter.
    profile = resnet50_profile("k", activations_bytes=5e9)  # the stand-in the CLI was given
    report = estimate(image_job, ["A100-SXM4-80GB"], profile=profile, host=Host(gpus=1, vcpus=1000.0))
    generous = report.outcomes[0].estimate
    assert generous is not None
    assert free["step_time_s_high"] > 1.5 * generous.step_time_s_high
    assert free["step_time_s"] == pytest.approx(generous.step_time_s)
    assert free["step_time_s_low"] == pytest.approx(generous.step_time_s_low)
    assert host["slow_end_slower_pct"] == pytest.approx(
        100 * (free["step_time_s_high"] / generous.step_time_s_high - 1)
    )
    # The figure and its count are named where the row's notes say it.
    said = f"{vcpus:g} vCPUs per GPU, the median of {n} instance types with 1 × A100-SXM4-80GB"
    assert any(said in note and "slower" in note for note in free["notes"])


def test_without_an_instance_the_table_names_the_typical_host(image_job: Path) -> None:
    args = ["estimate", str(image_job), "--gpu", "A100-SXM4-80GB"]
    r = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.split())
    assert "The instance's vCPUs are not known" in text and "% slower" in text
    # The median names its population: which instance types, of what GPU and count, from where.
    host = _row([str(image_job), "--gpu", "A100-SXM4-80GB"])["input_host"]
    vcpus, n = host["vcpus_per_gpu"], host["instance_types"]
    said = (
        f"A100-SXM4-80GB: {vcpus:g} vCPUs per GPU, the median of {n} instance types with 1 × A100-SXM4-80GB"
    )
    assert f"{said} in the catalog, up to " in text
    assert "decode rate not checked" not in text


def test_a_text_job_has_no_host_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from stand_in_profiles import bert_large_profile

    monkeypatch.setattr(
        estimate_cmds, "load_profile", lambda workload, db, saved=None, **kw: bert_large_profile("b")
    )
    p = tmp_path / "bert.yaml"
    p.write_text(
        "name: bert\ntask: train\nmodel: {preset: bert-large}\ninputs: {batch_size: 32, seq_len: 384}\n"
        "precision: amp-fp16\ndata: {samples: 100000, epochs: 1}\n",
        encoding="utf-8",
    )
    free = _row([str(p), "--gpu", "A100-SXM4-80GB"])
    on_instance = _row([str(p), "--instance", "p4de.24xlarge", "--count", "1"])
    assert free["input_host"] is None and on_instance["input_host"] is None
    assert free["step_time_s_high"] == pytest.approx(on_instance["step_time_s_high"])


def test_a_gpu_side_pipeline_has_no_host_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    profile = resnet50_profile("d", activations_bytes=5e9)
    monkeypatch.setattr(estimate_cmds, "load_profile", lambda workload, db, saved=None, **kw: profile)
    p = tmp_path / "dali.yaml"
    p.write_text(
        "name: resnet50-dali\ntask: train\nmodel: {preset: resnet50}\n"
        "inputs: {batch_size: 256, image_size: 224}\nprecision: amp-fp16\n"
        "stack: {input_pipeline: dali}\ndata: {samples: 1281167, epochs: 1}\n",
        encoding="utf-8",
    )
    assert _row([str(p), "--gpu", "A100-SXM4-80GB"])["input_host"] is None


def test_a_named_instance_is_taken_as_before(image_job: Path) -> None:
    # p3.2xlarge: 8 vCPUs for 1 V100: 800 images/s at the point, 400 at the slow end.
    row = _row([str(image_job), "--instance", "p3.2xlarge"])
    assert row["input_host"]["source"] == "catalog" and row["input_host"]["vcpus_per_gpu"] == 8
    assert row["step_time_s"] == pytest.approx(256 / 800)
    assert row["step_time_s_high"] == pytest.approx(256 / 400)
    assert not any("vCPUs not known" in n for n in row["notes"])


def test_an_instance_without_a_vcpu_count_gets_the_typical_host(image_job: Path) -> None:
    # This catalog entry names a GPU but no vCPU count: its host is as unknown as no instance.
    row = _row([str(image_job), "--instance", "A100 40GB (PyTorch GPU guide table)"])
    assert row["gpu"] == "A100-SXM4-40GB" and row["input_host"]["source"] == "typical"
    assert any(n.startswith("the instance's vCPUs not known") for n in row["notes"])


def test_a_dataset_larger_than_the_instances_ram_is_re_read_as_the_planner_takes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpuplan.perf import load_calibration
    from gpuplan.plan import EstimateKey
    from gpuplan.plan.build_inputs import make_estimator
    from gpuplan.workload import load_workload

    # 150 GB of 100,000 images (1.5 MB each) read 10 times.
    job = _resnet_job(tmp_path, monkeypatch, "{samples: 100000, epochs: 10, size_gb: 150}")
    # p3.2xlarge in the shipped catalog: 1 × V100 with 8 vCPUs and 61 GiB. 150 GB = 139.7 GiB >
    # 0.8 × 61: every epoch re-reads the disk, 0.131 GB/s (gp3's baseline) ÷ 1.5 MB = 87 images/s,
    # under the 8 vCPUs' 800.
    row = _row([str(job), "--instance", "p3.2xlarge"])
    assert row["input_bound"] is True
    assert row["input_samples_per_s"] == pytest.approx(0.131e9 / 1.5e6)
    assert row["step_time_s"] == pytest.approx(256 / (0.131e9 / 1.5e6))
    assert any("re-read from disk every epoch" in n and "61 GiB RAM" in n for n in row["notes"])
    # The planner's answer for the same offer (vCPUs, RAM and link as the shipped catalog lists them).
    profile = resnet50_profile("k", activations_bytes=5e9)
    est, _ = make_estimator(load_workload(job), profile, load_calibration())
    key = EstimateKey(
        gpu="V100-SXM2-16GB",
        gpus_per_node=1,
        nodes=1,
        interconnect="PCIe",
        network_gbps=10.0,
        vcpus=8.0,
        memory_gib=61.0,
    )
    planned = est(key)
    assert planned.input_bound is True
    assert planned.step_time_s == pytest.approx(row["step_time_s"])
    # the planner's estimator gives the steps' time (the plan adds set-up and checkpoint writes)
    assert (planned.job_time_h_low, planned.job_time_h, planned.job_time_h_high) == pytest.approx(
        (row["compute_time_h_low"], row["compute_time_h"], row["compute_time_h_high"])
    )
    # p3.16xlarge's 488 GiB hold it: its 8 vCPUs per GPU decode, nothing is re-read.
    roomy = _row([str(job), "--instance", "p3.16xlarge", "--count", "1"])
    assert not any("re-read" in n for n in roomy["notes"])
    assert roomy["input_samples_per_s"] == pytest.approx(800.0)


def test_the_table_says_what_bounds_a_named_instances_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    job = _resnet_job(tmp_path, monkeypatch, "{samples: 100000, epochs: 10, size_gb: 150}")
    args = ["estimate", str(job), "--instance", "p3.2xlarge"]
    r = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.split())
    assert "V100-SXM2-16GB: input-bound: the host feeds 87 samples/s" in text
    assert "re-read from disk every epoch" in text
    # Without an instance no known host bounds the step: the typical host's line alone.
    free = CliRunner().invoke(app, ["estimate", str(job), "--gpu", "V100-SXM2-16GB"], env={"COLUMNS": "200"})
    assert "V100-SXM2-16GB: input-bound" not in " ".join(free.output.split())


def test_the_table_says_every_note_once_and_the_hosts_only_in_their_own_lines(image_job: Path) -> None:
    # Two V100 SXM2 and a P100 without an instance: the GPU link taken for the pair, and Pascal's
    # uncalibrated matmul efficiency, are said under the table (they were in the JSON only); the
    # typical host's note stays in its own line, not repeated among the notes.
    args = ["estimate", str(image_job), "--gpu", "V100-SXM2-16GB:2", "--gpu", "P100-PCIE-16GB"]
    r = CliRunner().invoke(app, [*args, "--json"])
    rows = json.loads(r.stdout)["estimates"]
    notes = {n for row in rows for n in row["notes"]}
    r = CliRunner(env={"COLUMNS": "400"}).invoke(app, args)
    assert r.exit_code == 0, r.output
    text = r.stdout
    tail = text[text.index("Notes:") :]
    host = [n for n in notes if n.startswith("the instance's vCPUs not known")]
    others = notes - set(host)
    assert host and others
    assert all(n not in tail for n in host)
    for note in others:
        assert tail.count(note) == 1, note
    assert "Pascal has no calibration rows: its matmul efficiency is taken" in tail
    assert "how the GPUs are joined is not known" in tail and "(2 × V100-SXM2-16GB)" in tail


def test_without_an_instance_a_dataset_no_typical_ram_holds_is_re_read_at_the_slow_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # DALI decodes on the GPU, so only the disk can bound it: 5,000 GB over 3 epochs does not fit a
    # typical V100 host's page cache (the catalog's median RAM per GPU), and re-read at 0.131 GB/s
    # (3.9 MB a sample) it feeds ~34 images/s: the slow end is the disk's, the point the GPU's (its
    # page cache taken to hold the data: the best case, shown beside the bound). Before, an unknown
    # RAM was taken to hold any dataset, at every end.
    job = _resnet_job(tmp_path, monkeypatch, "{samples: 1281167, epochs: 3, size_gb: 5000}")
    text = job.read_text(encoding="utf-8").replace("precision:", "stack: {input_pipeline: dali}\nprecision:")
    job.write_text(text, encoding="utf-8")
    free = _row([str(job), "--gpu", "V100-SXM2-16GB"])
    host = free["input_host"]
    assert (
        host["source"] == "typical"
        and host["vcpus_per_gpu"] is None
        and "median RAM per GPU" in host["basis"]
    )
    slow_end = free["samples_per_step"] / free["step_time_s_high"]
    assert slow_end == pytest.approx(0.131e9 / (5000e9 / 1281167), rel=0.02)
    assert free["samples_per_s"] > 4 * slow_end
    assert any(n.startswith("the instance's RAM not known:") for n in free["notes"])
    r = CliRunner(env={"COLUMNS": "200"}).invoke(app, ["estimate", str(job), "--gpu", "V100-SXM2-16GB"])
    assert "The instance's RAM is not known" in r.stdout and "Slow end disk-bound: V100-SXM2-16GB" in r.stdout
    # A 30 GB dataset fits the typical page cache (0.8 × 52 GiB): nothing bounds it.
    small = _resnet_job(tmp_path, monkeypatch, "{samples: 1281167, epochs: 3, size_gb: 30}")
    small.write_text(
        small.read_text(encoding="utf-8").replace("precision:", "stack: {input_pipeline: dali}\nprecision:")
    )
    assert _row([str(small), "--gpu", "V100-SXM2-16GB"])["input_host"] is None


def test_a_machine_of_ones_own_is_given_by_its_vcpus(image_job: Path) -> None:
    # A lab box of 4 × RTX A6000 has no instance type: "Give --instance for yours" left the student
    # no way to say its 16 CPU threads. 16 ÷ 4 = 4 vCPUs per GPU × 100 images/s × 4 GPUs = 1,600
    # images/s at the point, 4 × 50 × 4 = 800 at the slow end.
    row = _row([str(image_job), "--gpu", "RTX-A6000:4", "--vcpus", "16"])
    assert row["input_host"]["source"] == "catalog" and row["input_host"]["vcpus_per_gpu"] == 4
    assert row["input_host"]["basis"] == "the vCPUs given (--vcpus)"
    assert row["input_bound"] is True and row["input_samples_per_s"] == pytest.approx(1600.0)
    assert row["step_time_s_high"] == pytest.approx(1024 / 800)
    # --count gives the GPUs too; with --instance, --vcpus replaces the catalog's count (p3.2xlarge: 8)
    by_count = _row([str(image_job), "--gpu", "RTX-A6000", "-n", "4", "--vcpus", "16"])
    assert by_count["input_samples_per_s"] == pytest.approx(1600.0)
    on_instance = _row([str(image_job), "--instance", "p3.2xlarge", "--vcpus", "2"])
    assert on_instance["input_host"]["vcpus_per_gpu"] == 2
    assert on_instance["input_samples_per_s"] == pytest.approx(200.0)
    # One machine's threads are shared by its own GPUs: two counts at once are refused in one line.
    args = ["estimate", str(image_job), "--gpu", "RTX-A6000:4,A100-SXM4-80GB:8", "--vcpus", "16"]
    r = CliRunner().invoke(app, args)
    assert "estimate one GPU count at a time (got 4, 8)" in str(r.exception), r.output


def test_the_hint_under_an_unknown_host_names_vcpus(image_job: Path) -> None:
    r = CliRunner().invoke(app, ["estimate", str(image_job), "--gpu", "RTX-A6000:4"], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.split())
    assert "Give --instance for yours, or --vcpus for a machine of your own." in text
