"""``gpuplan estimate``: table, JSON contract, GPU selection, per-GPU errors (tracing stubbed)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gpuplan.cli import app, estimate_cmds
from gpuplan.profile.model import Profile
from stand_in_profiles import toy_llm_profile as _profile

GIB = 1024.0**3
REQUIRED = {
    "gpu", "gpu_count", "fits", "peak_memory_gib", "step_time_s", "throughput", "throughput_unit",
    "job_time_h", "throughput_low", "throughput_high", "step_time_s_low", "step_time_s_high",
    "peak_memory_gib_low", "peak_memory_gib_high", "advice",
}  # fmt: skip


@pytest.fixture
def workload_file(tmp_path: Path) -> Path:
    p = tmp_path / "job.yaml"
    p.write_text(
        "name: toy-llm\ntask: train\nmodel: {preset: gpt2-xl}\ninputs: {batch_size: 4, seq_len: 1024}\n"
        "precision: amp-bf16\ndata: {samples: 100000, epochs: 1}\n",
        encoding="utf-8",
    )
    return p


@pytest.fixture
def stub_trace(monkeypatch: pytest.MonkeyPatch) -> list[Profile]:
    profiles = [_profile()]
    monkeypatch.setattr(estimate_cmds, "load_profile", lambda workload, db, saved=None, **kw: profiles[0])
    return profiles


def test_json_contract_over_selected_gpus(workload_file: Path, stub_trace: list[Profile]) -> None:
    r = CliRunner().invoke(
        app, ["estimate", str(workload_file), "--gpu", "h100-sxm", "--gpu", "T4", "--json"]
    )
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert {"name", "params", "flops_per_micro_batch"} <= set(doc["workload"])
    assert doc["workload"]["params"] == 1_500_000_000
    by_gpu = {e["gpu"]: e for e in doc["estimates"]}
    assert set(by_gpu) == {"H100-SXM", "T4"}
    h100 = by_gpu["H100-SXM"]
    assert set(h100) >= REQUIRED
    assert h100["fits"] is True and h100["throughput_unit"] == "tokens_per_s"
    assert h100["throughput_low"] < h100["throughput"] < h100["throughput_high"]
    assert h100["job_time_h"] > 0
    # T4 has no BF16: a row with the one-line reason, not a crash
    assert by_gpu["T4"]["error"].startswith("bf16 needs Ampere")
    # Not estimated: unknown, not "does not fit" nor "not input-bound".
    assert (by_gpu["T4"]["fits"], by_gpu["T4"]["input_bound"], by_gpu["T4"]["link"]) == (None, None, None)


def test_an_mfu_derived_from_the_json_counts_every_micro_batch_and_gpu_of_the_step(
    tmp_path: Path, stub_trace: list[Profile]
) -> None:
    job = tmp_path / "accum.yaml"
    job.write_text(
        "name: toy-llm\ntask: train\nmodel: {preset: gpt2-xl}\ninputs: {batch_size: 4, seq_len: 1024}\n"
        "precision: amp-bf16\ngradient_accumulation: 4\ndata: {samples: 100000, epochs: 1}\n",
        encoding="utf-8",
    )
    r = CliRunner().invoke(app, ["estimate", str(job), "--gpu", "H100-SXM", "-n", "8", "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    (row,) = doc["estimates"]
    # one micro-batch traced: 6e13 FLOP; a step is 4 micro-batches on each of 8 GPUs
    assert doc["workload"]["flops_per_micro_batch"] == 6e13
    assert row["samples_per_step"] == 4 * 4 * 8
    assert row["flops_per_step"] == pytest.approx(6e13 * 4 * 8)  # 1.92e15
    # what a reader computes: FLOPs of the step ÷ its time ÷ the GPUs = FLOP/s per GPU
    per_gpu = row["flops_per_step"] / row["step_time_s"] / row["gpu_count"]
    assert per_gpu == pytest.approx(row["achieved_tflops"] * 1e12)
    h100_bf16_dense = 989e12  # NVIDIA H100 SXM datasheet, dense BF16 tensor FLOP/s
    assert 0.05 < per_gpu / h100_bf16_dense < 1.0  # an MFU, not an eighth of one


def test_the_header_says_its_flops_are_one_micro_batchs_of_several_in_a_step(
    tmp_path: Path, stub_trace: list[Profile]
) -> None:
    job = tmp_path / "accum.yaml"
    job.write_text(
        "name: toy-llm\ntask: train\nmodel: {preset: gpt2-xl}\ninputs: {batch_size: 4, seq_len: 1024}\n"
        "precision: amp-bf16\ngradient_accumulation: 4\ndata: {samples: 100000, epochs: 1}\n",
        encoding="utf-8",
    )
    r = CliRunner().invoke(app, ["estimate", str(job), "--gpu", "H100-SXM", "-n", "8"])
    assert r.exit_code == 0, r.output
    head = " ".join(r.stdout.split())
    assert "60 TFLOP per micro-batch, 4 micro-batches per optimizer step" in head
    assert "TFLOP per step" not in head


def test_a_fit_with_little_to_spare_says_what_to_do_on_a_cuda_oom(
    workload_file: Path, stub_trace: list[Profile]
) -> None:
    # 40 GiB of activations: the band's high end needs 73.6 of the H100's 78.8 usable GiB (6.6 %
    # to spare); the stub's 8 GiB leave half of it free and get no such line.
    roomy = CliRunner().invoke(app, ["estimate", str(workload_file), "--gpu", "H100-SXM"])
    assert roomy.exit_code == 0, roomy.output
    assert "CUDA OOM" not in roomy.stdout
    roomy = CliRunner().invoke(app, ["estimate", str(workload_file), "--gpu", "H100-SXM", "--json"])
    assert json.loads(roomy.stdout)["thin_memory_margin"] is None
    p = stub_trace[0]
    # … and a vocabulary head (GPT-2's), which a lighter loss lightens
    shape = replace(p.shape, vocab_size=50_257)
    stub_trace[0] = replace(p, peak=replace(p.peak, activations_bytes=40 * GIB), shape=shape)
    r = CliRunner().invoke(app, ["estimate", str(workload_file), "--gpu", "H100-SXM", "--json"])
    (row,) = json.loads(r.stdout)["estimates"]
    need, usable = row["memory"]["required_gib_high"], row["memory_capacity_gib"]
    assert row["fits"] and 0 < usable - need < 0.1 * usable  # the case: it fits, barely
    r = CliRunner().invoke(app, ["estimate", str(workload_file), "--gpu", "H100-SXM"])
    assert r.exit_code == 0, r.output
    text = " ".join(r.stdout.split())
    assert f"Thin memory margin (H100-SXM needs up to {need:.1f} of {usable:.1f} GiB)" in text
    # the fixes in order, as the workload writes them, and the way to check on the GPU
    order = [
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
        "a smaller micro-batch with gradient_accumulation",
        "loss: fused-linear",
        "gradient_checkpointing: true",
        "optimizer: adamw-8bit",
    ]
    assert all(f in text for f in order), text
    assert [text.index(f) for f in order] == sorted(text.index(f) for f in order)
    assert "`gpuplan measure`" in text
    # --json carries the same line, not the terminal alone
    r = CliRunner().invoke(app, ["estimate", str(workload_file), "--gpu", "H100-SXM", "--json"])
    said = json.loads(r.stdout)["thin_memory_margin"]
    assert said is not None and said.startswith(f"Thin memory margin (H100-SXM needs up to {need:.1f} of")
    assert " ".join(said.split()) in text and all(f in said for f in order), said


def test_not_fitting_gpu_gets_advice(workload_file: Path, stub_trace: list[Profile]) -> None:
    r = CliRunner().invoke(app, ["estimate", str(workload_file), "--gpu", "A10", "--json"])
    assert r.exit_code == 0, r.output
    (row,) = json.loads(r.stdout)["estimates"]
    assert row["fits"] is False
    actions = {a["action"] for a in row["advice"]}
    assert {"fsdp", "bigger_gpu"} <= actions
    assert all({"peak_memory_gib", "fits", "step_time_s", "derivation"} <= set(a) for a in row["advice"])


def test_count_applies_to_every_gpu(workload_file: Path, stub_trace: list[Profile]) -> None:
    r = CliRunner().invoke(
        app, ["estimate", str(workload_file), "--gpu", "A100-SXM4-80GB", "--count", "8", "--json"]
    )
    (row,) = json.loads(r.stdout)["estimates"]
    assert row["gpu_count"] == 8 and row["gpu"] == "A100-SXM4-80GB"


def test_table_names_gpus_and_the_software_level(workload_file: Path, stub_trace: list[Profile]) -> None:
    args = ["estimate", str(workload_file), "--gpu", "A100-SXM4-80GB", "--gpu", "A10"]
    r = CliRunner().invoke(app, args, env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    assert "A100-SXM4-80GB" in r.stdout and "Where it does not or may not fit" in r.stdout
    assert "Assumes stock PyTorch" in " ".join(r.stdout.split())


def test_all_gpus_by_default(workload_file: Path, stub_trace: list[Profile]) -> None:
    from gpuplan.hardware import all_gpus

    r = CliRunner().invoke(app, ["estimate", str(workload_file), "--json"])
    assert [e["gpu"] for e in json.loads(r.stdout)["estimates"]] == [g.id for g in all_gpus()]


def test_unknown_gpu_is_one_line_with_suggestion(workload_file: Path, stub_trace: list[Profile]) -> None:
    from gpuplan.errors import NotFoundError

    r = CliRunner().invoke(app, ["estimate", str(workload_file), "--gpu", "h1000"])
    assert isinstance(r.exception, NotFoundError)
    assert "did you mean" in str(r.exception)


def test_comma_separated_gpus_and_a_typo_among_them_caught_before_the_trace(
    workload_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpuplan.errors import NotFoundError

    traced: list[str] = []

    def trace(workload, db, saved=None, **kw):  # type: ignore[no-untyped-def]
        traced.append(workload.name)
        return _profile()

    monkeypatch.setattr(estimate_cmds, "load_profile", trace)
    r = CliRunner().invoke(app, ["estimate", str(workload_file), "--gpu", "h100-sxm, T4", "--json"])
    assert r.exit_code == 0, r.output
    assert {e["gpu"] for e in json.loads(r.stdout)["estimates"]} == {"H100-SXM", "T4"}
    traced.clear()
    r = CliRunner().invoke(app, ["estimate", str(workload_file), "--gpu", "H100-SXM,L40,h1000"])
    assert isinstance(r.exception, NotFoundError) and "did you mean" in str(r.exception)
    assert "h1000" in str(r.exception) and traced == []


def _llama7b_service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, weights_scale: float = 1.0) -> Path:
    """A Llama-7B chat service (2 requests/s) whose trace is the known bf16 profile, its weights
    ``weights_scale`` times theirs."""
    from dataclasses import replace

    known = Path(__file__).parents[1] / "perf" / "fixtures" / "known" / "llama7b-infer-bf16.json"
    prof = Profile.from_json(known.read_text(encoding="utf-8"))
    prof = replace(prof, peak=replace(prof.peak, parameters_bytes=prof.peak.parameters_bytes * weights_scale))
    monkeypatch.setattr(estimate_cmds, "load_profile", lambda workload, db, saved=None, **kw: prof)
    job = tmp_path / "serve.yaml"
    job.write_text(
        "name: chat\ntask: infer\nmodel: {preset: llama-7b}\ninputs: {batch_size: 1, seq_len: 2048}\n"
        "precision: bf16\nserving: {requests_per_s: 2, prompt_tokens: 512, output_tokens: 128}\n",
        encoding="utf-8",
    )
    return job


def test_llm_inference_reports_decode_and_serving(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    job = _llama7b_service(tmp_path, monkeypatch)
    r = CliRunner().invoke(app, ["estimate", str(job), "--gpu", "A100-SXM4-80GB", "--gpu", "L4", "--json"])
    assert r.exit_code == 0, r.output
    rows = {e["gpu"]: e for e in json.loads(r.stdout)["estimates"]}
    a100, l4 = rows["A100-SXM4-80GB"], rows["L4"]
    assert a100["decode"]["tokens_per_s"] > l4["decode"]["tokens_per_s"]  # 2039 vs 300 GB/s
    assert a100["decode"]["max_concurrent_sequences"] > l4["decode"]["max_concurrent_sequences"]
    assert a100["serving"]["requests_per_s"] == 2
    assert a100["serving"]["gpus_needed"] <= l4["serving"]["gpus_needed"]
    # A service runs in a serving engine; none is named, so its CPU work is counted, not overlapped.
    assert a100["decode"]["engine_cpu_s"] == pytest.approx(2.9e-3)
    assert a100["decode"]["engine_overlapped"] is False and "WukLab" in a100["decode"]["engine_cpu_source"]
    table = CliRunner().invoke(app, ["estimate", str(job), "--gpu", "A100-SXM4-80GB"], env={"COLUMNS": "250"})
    assert "LLM generation" in table.stdout and "req/s/GPU" in table.stdout
    # the workload's batch of 1 decoding together, not the "max sequences" beside it
    assert "tokens/s at batch 1" in table.stdout and "tokens/s (batch)" not in table.stdout
    joined = " ".join(table.stdout.split())
    assert "a serving engine not named (taken not to overlap): each iteration also waits 2.9 ms" in joined


def _tp_service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, traced: list[int]) -> Path:
    job = _llama7b_service(tmp_path, monkeypatch)
    real = estimate_cmds.load_profile
    monkeypatch.setattr(estimate_cmds, "load_profile", lambda *a, **kw: (traced.append(1), real(*a, **kw))[1])
    job.write_text(job.read_text(encoding="utf-8") + "tensor_parallel: 4\n", encoding="utf-8")
    return job


def test_a_tensor_parallel_replica_capacity_is_labelled_per_replica_of_its_gpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Capacity is per replica (the JSON's note says so): the table said "req/s/GPU" for 4 GPUs.
    job = _tp_service(tmp_path, monkeypatch, [])
    r = CliRunner().invoke(app, ["estimate", str(job), "--gpu", "H100-SXM", "-n", "4", "--json"])
    assert r.exit_code == 0, r.output
    cap = json.loads(r.stdout)["estimates"][0]["serving"]["capacity_requests_per_s"]
    table = CliRunner().invoke(
        app, ["estimate", str(job), "--gpu", "H100-SXM", "-n", "4"], env={"COLUMNS": "250"}
    )
    joined = " ".join(table.stdout.split())
    assert "req/s/GPU" not in joined
    assert f"{cap:.3g} req/s per replica of 4 GPUs ({cap / 4:.3g} per GPU)" in joined


def test_a_tensor_parallel_service_takes_its_replica_size_without_a_count_and_a_bad_count_fails_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    traced: list[int] = []
    job = _tp_service(tmp_path, monkeypatch, traced)
    # No -n: one replica of tensor_parallel GPUs (was 1 GPU, refused after the trace).
    r = CliRunner().invoke(app, ["estimate", str(job), "--gpu", "H100-SXM", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["estimates"][0]["gpu_count"] == 4
    # A count the split does not divide: refused before anything is traced.
    traced.clear()
    bad = CliRunner().invoke(app, ["estimate", str(job), "--gpu", "H100-SXM", "-n", "2"])
    assert bad.exit_code == 1
    assert "tensor_parallel 4 × pipeline_parallel 1 = 4 does not divide 2 GPUs" in str(bad.exception)
    assert traced == []


def test_a_replica_with_no_room_for_one_sequence_serves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Weights of 135 GB on one 80 GB GPU: no sequence fits beside them. The estimate gave such a
    # replica a capacity (0.08 req/s), a latency and "needs 79 GPUs" of a size that cannot hold one.
    job = _llama7b_service(tmp_path, monkeypatch, weights_scale=10)
    r = CliRunner().invoke(app, ["estimate", str(job), "--gpu", "H100-SXM", "--json"])
    assert r.exit_code == 0, r.output
    row = json.loads(r.stdout)["estimates"][0]
    assert row["decode"]["max_concurrent_sequences"] == 0 and row["serving"] is None
    assert row["decode"]["tokens_per_s"] is None and row["decode"]["prefill_tokens_per_s"] is None
    table = CliRunner().invoke(app, ["estimate", str(job), "--gpu", "H100-SXM"], env={"COLUMNS": "250"})
    joined = " ".join(table.stdout.split())
    assert "no room for one sequence beside the weights on 1 GPU(s); raise tensor_parallel" in joined
    assert "req/s/GPU" not in joined


def test_profiles_are_cached_in_the_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gpuplan.profile.tracer as tracer
    from gpuplan.workload import load_workload

    calls: list[str] = []

    def fake_trace(workload: object, key: str) -> Profile:
        calls.append(key)
        return _profile()

    monkeypatch.setattr(tracer, "trace_workload", fake_trace)
    spec = {"name": "toy", "model": {"preset": "gpt2"}, "inputs": {"batch_size": 4, "seq_len": 128}}
    db = str(tmp_path / "cache.sqlite")
    first = estimate_cmds.load_profile(load_workload(spec), db)
    second = estimate_cmds.load_profile(load_workload({**spec, "name": "renamed"}), db)
    assert len(calls) == 1  # the second came from the store
    assert first.flops_per_step == second.flops_per_step
    assert second.workload_name == "renamed"


def test_unusable_cache_falls_back_to_tracing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import gpuplan.catalog.open_catalog as store_mod
    import gpuplan.profile.tracer as tracer
    from gpuplan.errors import StoreError
    from gpuplan.workload import load_workload

    def broken(*args: object, **kwargs: object) -> object:
        raise StoreError("cannot open the database")

    monkeypatch.setattr(store_mod, "open_store", broken)
    monkeypatch.setattr(tracer, "trace_workload", lambda workload, key: _profile())
    spec = {"name": "toy", "model": {"preset": "gpt2"}, "inputs": {"batch_size": 4, "seq_len": 128}}
    prof = estimate_cmds.load_profile(load_workload(spec), str(tmp_path / "x.sqlite"))
    assert prof.params == 1_500_000_000
    assert "profile cache unavailable" in capsys.readouterr().err


def test_only_gpus_that_cannot_run_it_is_one_line_and_exit_1(tmp_path: Path) -> None:
    spec = tmp_path / "fp8.yaml"
    spec.write_text(
        "name: fp8\ntask: train\nmodel: {preset: gpt2}\n"
        "inputs: {batch_size: 1, seq_len: 64}\nprecision: fp8\n",
        encoding="utf-8",
    )
    proc = subprocess.run(
        [sys.executable, "-m", "gpuplan.cli", "--db", str(tmp_path / "x.sqlite"), "estimate", str(spec),
         "--gpu", "A100-SXM4-80GB"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        "error: fp8 needs Ada, Hopper or Blackwell; "
        "A100-SXM4-80GB has no FP8 tensor cores (use bf16 or amp-bf16)"
    ]


@pytest.mark.parametrize("width", [80, 100, 120])
def test_piped_table_fits_and_keeps_gpu_names_whole(
    workload_file: Path, stub_trace: list[Profile], width: int
) -> None:
    # The failure: piped, the table dropped to 80 columns and cut two V100 names to the same text.
    stub_trace[0] = _profile("amp-fp16", "float16")  # every GPU here runs it
    gpus = ["V100-SXM2-16GB", "V100-SXM2-32GB", "V100-PCIE-16GB", "A100-SXM4-80GB"]
    args = ["estimate", str(workload_file), *[x for g in gpus for x in ("--gpu", g)]]
    r = CliRunner().invoke(app, args, env={"COLUMNS": str(width)})
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert max(len(line) for line in lines) <= width
    assert "…" not in r.stdout
    table = (
        r.stdout.split("Where it does not or may not fit")[0]
        .split("The memory column is")[0]
        .split("The job time includes the checkpoint writes")[0]  # its lines name each GPU too
    )
    summary = table.splitlines()
    for g in gpus:
        assert sum(line.strip().startswith(g) for line in summary) == 1, g  # one whole row each


def test_estimate_in_chinese(workload_file: Path, stub_trace: list[Profile]) -> None:
    r = CliRunner().invoke(app, ["estimate", str(workload_file), "--gpu", "A100-SXM4-80GB", "--lang", "zh"])
    assert r.exit_code == 0, r.output
    assert "任务用时" in r.stdout and "放得下" in r.stdout


def test_network_from_the_user_and_from_an_instance(workload_file: Path, stub_trace: list[Profile]) -> None:
    base = ["estimate", str(workload_file), "--count", "16", "--json"]
    r = CliRunner().invoke(app, [*base, "--gpu", "A100-SXM4-80GB"])
    (assumed,) = json.loads(r.stdout)["estimates"]
    # Unknown network: the point on a typical instance network (100 Gbit/s TCP), the range from the
    # embedded catalog's slowest (2.5 Gbit/s) to 3,200 Gbit/s RDMA — wider at both ends than the same
    # job on a stated 400 Gbit/s RDMA.
    assert (assumed["network_source"], assumed["network_gbps"]) == ("assumed", 100.0)
    r = CliRunner().invoke(
        app, [*base, "--gpu", "A100-SXM4-80GB", "--network-gbps", "400", "--network-kind", "rdma"]
    )
    (rdma,) = json.loads(r.stdout)["estimates"]
    assert assumed["step_time_s"] > rdma["step_time_s"]
    assert assumed["step_time_s_low"] < rdma["step_time_s_low"]
    assert assumed["step_time_s_high"] > 2 * rdma["step_time_s_high"]
    assert (assumed["network_gbps_slow_end"], assumed["network_gbps_fast_end"]) == (2.5, 3200.0)
    assert (rdma["network_gbps_slow_end"], rdma["network_gbps_fast_end"]) == (None, None)
    assert {"comm_total_s", "comm_exposed_s", "samples_per_s", "tokens_per_s"} <= set(assumed)
    assert assumed["tokens_per_s"] == pytest.approx(assumed["samples_per_s"] * 1024)
    r = CliRunner().invoke(
        app, [*base, "--gpu", "A100-SXM4-80GB", "--network-gbps", "25", "--network-kind", "tcp"]
    )
    (slow,) = json.loads(r.stdout)["estimates"]
    assert (slow["network_source"], slow["network_gbps"]) == ("user", 25.0)
    assert slow["comm_exposed_s"] > assumed["comm_exposed_s"]
    # p4d.24xlarge in the shipped catalog: 8 × A100-SXM4-40GB, 400 Gbit/s.
    r = CliRunner().invoke(app, [*base, "--instance", "p4d.24xlarge"])
    assert r.exit_code == 0, r.output
    (p4d,) = json.loads(r.stdout)["estimates"]
    assert p4d["gpu"] == "A100-SXM4-40GB" and p4d["network_source"] == "catalog"
    assert p4d["network_gbps"] == 400.0


def test_unknown_instance_is_one_line_with_suggestion(workload_file: Path, stub_trace: list[Profile]) -> None:
    from gpuplan.errors import NotFoundError

    r = CliRunner().invoke(app, ["estimate", str(workload_file), "--instance", "p4d.24xlrge"])
    assert isinstance(r.exception, NotFoundError)
    assert "did you mean 'p4d.24xlarge'" in str(r.exception)


def test_the_estimate_states_its_stack_and_shows_the_stock_and_tuned_levels(
    workload_file: Path, stub_trace: list[Profile]
) -> None:
    r = CliRunner().invoke(app, ["estimate", str(workload_file), "--gpu", "h100-sxm", "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["stack"]["level"] == "stock"
    assert doc["stack"]["memory_format"] == "channels-first" and doc["stack"]["fused_kernels"] == []
    assert doc["software_level"].startswith("stock PyTorch")
    (row,) = doc["estimates"]
    assert [lv["level"] for lv in row["stack_levels"]] == ["stock", "tuned"]
    stock, tuned = row["stack_levels"]
    # The stock level is the workload's own stack here: the same figures, the same verdict.
    assert stock["throughput"] == pytest.approx(row["throughput"])
    assert stock["memory_verdict"] == row["memory_verdict"] and tuned["memory_verdict"] is not None
    # Which AdamW: the name alone does not say foreach or fused.
    assert "optimizer adamw (foreach" in doc["software_level"]
    # The tuned level replays the step in CUDA graphs and uses fused AdamW: never slower.
    assert tuned["step_time_s"] <= stock["step_time_s"]
    table = CliRunner().invoke(
        app, ["estimate", str(workload_file), "--gpu", "h100-sxm"], env={"COLUMNS": "140"}
    )
    assert table.exit_code == 0, table.output
    if tuned["step_time_s"] < stock["step_time_s"]:
        assert "by software stack" in table.output and "stock (yours)" in table.output
    else:  # the stub's one trace on both levels: equal columns are one line
        assert "give this workload the same figures" in " ".join(table.output.split())
    assert "Assumes stock PyTorch" in " ".join(table.output.split())
    zh = CliRunner().invoke(app, ["estimate", str(workload_file), "--gpu", "h100-sxm", "--lang", "zh"])
    assert zh.exit_code == 0, zh.output
    assert "软件栈" in zh.output and "原生 PyTorch" in " ".join(zh.output.split())


def test_a_compiled_workload_is_not_labelled_a_level(workload_file: Path, stub_trace: list[Profile]) -> None:
    # The levels run eager; a compiled stock workload showed its eager stock figure as "stock
    # (yours)", below a main row 1.3x faster. Its own figure is a column of its own.
    workload_file.write_text(workload_file.read_text(encoding="utf-8") + "compile: true\n", encoding="utf-8")
    r = CliRunner().invoke(app, ["estimate", str(workload_file), "--gpu", "h100-sxm", "--json"])
    assert r.exit_code == 0, r.output
    (row,) = json.loads(r.stdout)["estimates"]
    stock = row["stack_levels"][0]
    assert stock["level"] == "stock" and stock["throughput"] < row["throughput"]
    table = CliRunner().invoke(
        app, ["estimate", str(workload_file), "--gpu", "h100-sxm"], env={"COLUMNS": "140"}
    )
    assert "stock (yours)" not in table.output and "yours" in table.output


def test_why_a_gpu_cannot_run_it_is_a_line_under_the_table(
    workload_file: Path, stub_trace: list[Profile]
) -> None:
    # The workload is amp-bf16: a T4 has no BF16 tensor cores. Its sentence used to sit in the
    # memory column, widening it until the ranges no longer fitted.
    r = CliRunner().invoke(
        app, ["estimate", str(workload_file), "--gpu", "T4", "--gpu", "H100-SXM"], env={"COLUMNS": "120"}
    )
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    t4 = next(line for line in lines if line.strip().startswith("T4"))
    assert t4.split() == ["T4", "n/a"]
    assert "T4: bf16 needs Ampere or newer; T4 has no BF16 tensor cores (use amp-fp16)" in lines
    # GPUs that cannot run it for the same reason share its line.
    r = CliRunner().invoke(
        app,
        ["estimate", str(workload_file), "--gpu", "T4,V100-SXM2-16GB,H100-SXM"],
        env={"COLUMNS": "200"},
    )
    assert (
        "T4: bf16 needs Ampere or newer; T4 has no BF16 tensor cores (use amp-fp16); "
        "the same for V100-SXM2-16GB" in r.stdout.splitlines()
    ), r.stdout
    assert "point [low–high]" in r.stdout  # the ranges still fit at 120 columns


def test_a_memory_band_past_the_usable_memory_beside_yes_says_what_the_verdict_compares(
    workload_file: Path, stub_trace: list[Profile]
) -> None:
    # "16.4 / 15" beside "yes" reads as a contradiction: the column is nvidia-smi's figure, the
    # verdict what the step needs.
    r = CliRunner().invoke(app, ["estimate", str(workload_file), "--json"])
    rows = json.loads(r.stdout)["estimates"]
    crossing = [
        e
        for e in rows
        if e["error"] is None
        and e["peak_memory_gib_high"] > e["memory_capacity_gib"]
        and e["memory_verdict"] != "does-not-fit"
    ]
    assert crossing, "the stub workload should have a GPU whose band crosses its usable memory"
    text = CliRunner().invoke(app, ["estimate", str(workload_file)], env={"COLUMNS": "2000"}).stdout
    assert "The memory column is what nvidia-smi would show" in text
    for e in crossing:
        need = e["memory"]["required_gib_high"]
        assert f"{e['gpu']} needs at most {need:.1f} GiB" in text
        assert need <= e["memory_capacity_gib"] or e["memory_verdict"] == "may-not-fit"


def test_on_a_fresh_catalog_a_bigger_gpu_of_the_shipped_offers_is_offered(
    workload_file: Path, stub_trace: list[Profile], tmp_path: Path
) -> None:
    # was: estimate opened the catalog without its shipped offers, so on a fresh one every "use a
    # bigger GPU" said "not offered in the catalog" until offers or plan had run once
    db = tmp_path / "fresh.sqlite"
    r = CliRunner().invoke(app, ["--db", str(db), "estimate", str(workload_file), "--gpu", "A10", "--json"])
    assert r.exit_code == 0, r.output
    [a10] = json.loads(r.stdout)["estimates"]
    bigger = [a for a in a10["advice"] if a["action"] == "bigger_gpu"]
    assert bigger and all(a["offered"] for a in bigger), bigger


def _fp16_job(stub_trace: list[Profile], tmp_path: Path) -> Path:
    """An fp16 job whose T4 estimate advises a bigger GPU (FSDP, then another GPU)."""
    stub_trace[0] = _profile("amp-fp16", "float16")
    job = tmp_path / "fp16.yaml"
    job.write_text(
        "name: toy-llm\ntask: train\nmodel: {preset: gpt2-xl}\ninputs: {batch_size: 4, seq_len: 1024}\n"
        "precision: amp-fp16\ndata: {samples: 100000, epochs: 1}\n",
        encoding="utf-8",
    )
    return job


@pytest.mark.parametrize(
    ("as_of", "said"),
    [
        ("2025-01", "stale ("),  # dated, past the 180-day limit
        ("2024-06/2026-11-18", "age unknown (up to "),  # undated: only bounds, straddling the limit
    ],
)
def test_a_bigger_gpus_price_says_where_it_is_from_and_how_old(
    stub_trace: list[Profile], tmp_path: Path, fresh_catalog: Path, as_of: str, said: str
) -> None:
    # was: "use X — $0.28/GPU-h on demand", a bare figure that was in fact a marketplace host's
    # price of unknown age; now it comes with its offer's provider, region, date and age.
    db = str(fresh_catalog)  # the shipped offers, seeded once per worker
    # On a T4 the bigger GPU is among the changes the table shows (FSDP, then another GPU).
    job = _fp16_job(stub_trace, tmp_path)

    def bigger() -> tuple[dict[str, Any], str]:
        args = ["--db", db, "estimate", str(job), "--gpu", "T4"]
        r = CliRunner().invoke(app, [*args, "--json"])
        assert r.exit_code == 0, r.output
        [t4] = json.loads(r.stdout)["estimates"]
        [advice] = [a for a in t4["advice"] if a["action"] == "bigger_gpu"]
        text = CliRunner().invoke(app, args, env={"COLUMNS": "2000"}).stdout
        return advice, " ".join(text.split())

    shipped, _ = bigger()
    gpu, price = shipped["gpu"], shipped["gpu_price"]["price_usd_per_gpu_hour"]
    assert shipped["gpu_price"]["gpu"] == gpu and price is not None
    # A price of that GPU below its cheapest, quoted in an old month (or only within bounds).
    quote = tmp_path / "quote.csv"
    quote.write_text(
        "provider,region,instance_type,gpu,gpu_count,pricing,price,currency,unit,as_of,source\n"
        f"aws,us-east-1,old-quote.xlarge,{gpu},1,on_demand,{price * 0.9:.4f},USD,hour,{as_of},an old quote\n",
        encoding="utf-8",
    )
    r = CliRunner().invoke(app, ["--db", db, "catalog", "import", str(quote), "--format", "gpuplan"])
    assert r.exit_code == 0, r.output
    advice, text = bigger()
    assert advice["gpu"] == gpu  # cheaper still: the same pick
    quoted = advice["gpu_price"]
    assert quoted["price_usd_per_gpu_hour"] == pytest.approx(price * 0.9, abs=1e-4)
    assert (quoted["provider"], quoted["region"], quoted["instance_type"]) == (
        "aws",
        "us-east-1",
        "old-quote.xlarge",
    )
    assert (quoted["pricing"], quoted["as_of"], quoted["stale"]) == ("on_demand", as_of, True)
    assert quoted["staleness"] == ("stale" if "/" not in as_of else "unknown")
    assert isinstance(quoted["age_days"], int) and quoted["age_days"] > 180
    # The text says the same: the figure, where it is from, its date and the age label plan uses.
    at = f"${price * 0.9:.2f}/GPU-h on demand at aws/us-east-1, as of {as_of.replace('/', '–')}: {said}"
    assert at in advice["summary"] and at in text, (advice["summary"], text)


def test_the_advices_price_is_in_the_currency_asked_for_at_the_rate_said(
    stub_trace: list[Profile], tmp_path: Path, fresh_catalog: Path
) -> None:
    # was: estimate had no --currency; the bigger GPU's price was in dollars for a reader in yuan
    db = str(fresh_catalog)  # the shipped offers, seeded once per worker
    job = _fp16_job(stub_trace, tmp_path)
    args = ["--db", db, "estimate", str(job), "--gpu", "T4"]

    def bigger(*extra: str) -> dict[str, Any]:
        r = CliRunner().invoke(app, [*args, "--json", *extra])
        assert r.exit_code == 0, r.output
        [t4] = json.loads(r.stdout)["estimates"]
        [advice] = [a for a in t4["advice"] if a["action"] == "bigger_gpu"]
        return advice

    usd = bigger()["gpu_price"]["price_usd_per_gpu_hour"]
    advice = bigger("--cny-per-usd", "7.1", "--currency", "CNY")
    assert advice["gpu_price"]["price_usd_per_gpu_hour"] == usd  # the document's figures stay in USD
    assert f"¥{usd * 7.1:.2f}/GPU-h on demand at " in advice["summary"], advice["summary"]
    text = (
        CliRunner()
        .invoke(app, [*args, "--cny-per-usd", "7.1", "--currency", "CNY"], env={"COLUMNS": "2000"})
        .stdout
    )
    text = " ".join(text.split())
    assert f"¥{usd * 7.1:.2f}/GPU-h on demand at " in text and "$" not in text.split("Amounts in")[0]
    assert "Amounts in CNY at 1 USD = 7.1000 CNY" in text
    # Where it fits, no amount is shown, and the rate's paragraph is not either (it had been printed
    # under a table of times alone).
    fits = CliRunner().invoke(
        app, [*args[:-1], "H100-SXM", "--cny-per-usd", "7.1", "--currency", "CNY"], env={"COLUMNS": "2000"}
    )
    assert fits.exit_code == 0 and "¥" not in fits.stdout and "Amounts in" not in fits.stdout, fits.stdout
    # A workload budgeted in yuan is shown in yuan, as plan shows it, unless --currency says otherwise.
    job.write_text(job.read_text(encoding="utf-8") + "constraints: {budget_cny: 5000}\n", encoding="utf-8")
    assert f"¥{usd * 7.1:.2f}/GPU-h on demand at " in bigger("--cny-per-usd", "7.1")["summary"]
    assert f"${usd:.2f}/GPU-h on demand at " in bigger("--currency", "USD")["summary"]
    # A misspelt currency is one line, before anything is traced.
    stub_trace.clear()
    r = CliRunner().invoke(app, [*args, "--currency", "CYN"])
    assert r.exit_code != 0 and "did you mean 'CNY'" in str(r.exception)


def test_a_count_given_twice_is_refused_and_an_instance_is_estimated_whole(
    workload_file: Path, stub_trace: list[Profile]
) -> None:
    # was: --gpu A10G:2 -n 4 estimated 2 GPUs without a word; --instance p4d.24xlarge estimated one
    # of its 8 GPUs; -n 12 on it was labelled "2 nodes × 8× GPU" (16)
    r = CliRunner().invoke(app, ["estimate", str(workload_file), "--gpu", "A10G:2", "-n", "4"])
    assert r.exit_code == 1
    assert "--count 4 and --gpu A10G:2 both give a GPU count; give it once" in str(r.exception)
    r = CliRunner().invoke(app, ["estimate", str(workload_file), "--instance", "p4d.24xlarge", "--json"])
    assert r.exit_code == 0, r.output
    [whole] = json.loads(r.stdout)["estimates"]
    assert whole["gpu_count"] == 8
    r = CliRunner().invoke(
        app, ["estimate", str(workload_file), "--instance", "p4d.24xlarge", "-n", "12", "--json"]
    )
    [twelve] = json.loads(r.stdout)["estimates"]
    assert twelve["gpu_count"] == 12 and twelve["link"].startswith("12 GPUs on 2 nodes × 8× GPU")


def test_the_serving_cell_says_on_which_gpus_its_p95_is() -> None:
    # "6.04 req/s/GPU, p95 12.3 s, needs 2" had read as the p95 of the two GPUs needed; it is the
    # whole load's on the one estimated
    import io

    from rich.console import Console

    from gpuplan.api import estimate
    from gpuplan.report.estimate import estimate_view

    root = Path(__file__).parents[2]
    known = root / "tests" / "perf" / "fixtures" / "known" / "llama7b-infer-bf16.json"
    profile = Profile.from_json(known.read_text(encoding="utf-8"))
    report = estimate(
        root / "examples" / "llm-inference-service.yaml", ["RTX-4090", "RTX-4090:2"], profile=profile
    )
    console = Console(width=400, record=True, file=io.StringIO())
    console.print(estimate_view(report.profile, report.outcomes, report.calibration))
    text = console.export_text()
    assert " on 1 GPU(s), needs " in text and " on 2 GPU(s), needs " in text, text[-1500:]


def test_a10_is_said_to_be_nvidias_a10_not_the_a10g_of_aws_g5(
    workload_file: Path, stub_trace: list[Profile]
) -> None:
    # "a10" is a real part (125 bf16 TFLOPS), but an AWS user types it for the g5's A10G (70): the
    # estimate had been 26 % faster than their card, unsaid.
    r = CliRunner().invoke(app, ["estimate", str(workload_file), "--gpu", "a10", "--json"])
    assert r.exit_code == 0, r.output
    assert "note: a10 is NVIDIA's A10; AWS's g5 instances carry the A10G: write --gpu A10G for it" in r.stderr
    assert json.loads(r.stdout)["estimates"][0]["gpu"] == "A10"
    r = CliRunner().invoke(app, ["estimate", str(workload_file), "--gpu", "A10G", "--json"])
    assert "A10G" not in r.stderr


def test_a_point_above_the_usable_memory_is_told_apart_from_a_band_that_only_straddles_it(
    workload_file: Path, stub_trace: list[Profile]
) -> None:
    # The stub needs 32.6 GiB at the point (29.3–37.0) of an RTX 5090's 32 usable: only the low
    # end of its band fits — "does not fit at the estimate", as plan ranks and words it; 1 GiB
    # fewer activations and the point fits, the band's top does not: "may not".
    def run(*args: str) -> str:
        # wide enough that the fits cell is one line (under xdist the width was the worker's)
        r = CliRunner().invoke(
            app, ["estimate", str(workload_file), "--gpu", "RTX-5090", *args], env={"COLUMNS": "250"}
        )
        assert r.exit_code == 0, r.output
        return r.stdout

    (row,) = json.loads(run("--json"))["estimates"]
    assert row["memory_verdict"] == "may-not-fit" and row["memory_over"] is True
    text = " ".join(run().split())
    assert "RTX-5090 not at the estimate " in text
    words = "does not fit at the estimate: needs 32.6 GiB of 32.0 usable (range up to 37.0); it will most"
    assert words in text and "at the point) of" not in text  # not the note of a band that straddles
    assert "按估计放不下：需要 32.6 GiB，可用 32.0 GiB" in run("--lang", "zh")

    p = stub_trace[0]
    stub_trace[0] = replace(p, peak=replace(p.peak, activations_bytes=p.peak.activations_bytes - GIB))
    (row,) = json.loads(run("--json"))["estimates"]
    assert row["memory_verdict"] == "may-not-fit" and row["memory_over"] is False
    text = " ".join(run().split())
    assert "RTX-5090 may not " in text and "at the point) of 32.0 GiB usable" in text
    assert "at the estimate" not in text
