"""The day ``simulate autoscale --shape`` generates by default is the one the plan sized the fleet
for: its peak is ``serving.requests_per_s``, its mean ``serving.mean_requests_per_s`` where given.

Was: the workload's ``requests_per_s`` (the peak) taken as the generated day's mean, so the peak
came out 1.6× the planned load and the plan's own fleet missed the plan's first-token target.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplan.cli import app

runner = CliRunner()

CHAT = """\
name: chat
task: infer
model: {{preset: llama-8b}}
inputs: {{batch_size: 16, seq_len: 768}}
precision: bf16
serving: {{requests_per_s: 5,{mean} prompt_tokens: 512, output_tokens: 256, ttft_p95_ms: 1000,
  engine: "vllm==0.8.5"}}
constraints: {{pricing: [on_demand, monthly], objective: cost}}
"""


def _run(*args: str) -> dict:
    res = runner.invoke(app, list(args), catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def _workload(tmp_path: Path, mean: str = "") -> Path:
    path = tmp_path / "chat.yaml"
    path.write_text(CHAT.format(mean=mean))
    return path


def test_the_plans_own_fleet_meets_the_plans_first_token_target_on_the_default_day(tmp_path: Path) -> None:
    db = str(tmp_path / "c.db")
    workload = _workload(tmp_path)
    plan = _run("--db", db, "plan", str(workload), "--countries", "CN", "--json")
    best = plan["options"][0]
    service = best["service"]
    assert service["ttft_p95_s"] <= service["ttft_target_s"] == 1.0  # the plan says the fleet meets it
    # the workload gives no tensor_parallel: the plan chose each option's split, which simulate
    # takes from the workload
    split = tmp_path / "split.yaml"
    split.write_text(f"{workload.read_text()}tensor_parallel: {service['tensor_parallel']}\n")
    doc = _run(
        "--db", db, "simulate", "autoscale", str(split), "--instance", best["instance_type"],
        "--shape", "diurnal", "--policy", f"fixed:replicas={service['replicas']}", "--json",
    )  # fmt: skip
    (policy,) = doc["policies"]
    (ttft,) = [s for s in policy["slos"] if s["name"] == "ttft_p95"]
    assert ttft["threshold_s"] == 1.0
    assert ttft["met"], ttft
    assert ttft["achieved_s"] <= 1.0
    trace = doc["trace"]
    # the busiest minute of the generated day is the planned load, and the day keeps its shape
    # (a peak 4× its trough: a mean of 5 × (1 + 0.25) / 2 = 3.125)
    assert trace["peak_requests_per_s"] == pytest.approx(5.0)
    assert trace["mean_requests_per_s"] == pytest.approx(3.125, rel=1e-3)
    assert trace["requests"] / trace["duration_s"] == pytest.approx(3.125, rel=0.02)


def test_the_workloads_mean_is_the_default_days_mean_under_its_peak(tmp_path: Path) -> None:
    workload = _workload(tmp_path, " mean_requests_per_s: 4,")
    args = (
        "simulate", "autoscale", str(workload), "--shape", "bursty", "--hours", "2",
        "--replica", "slots=64,tpot_ms=40,prefill_tps=3000", "--policy", "fixed:replicas=2",
        "--on-demand-price", "1.0",
    )  # fmt: skip
    trace = _run(*args, "--json")["trace"]
    assert (trace["mean_requests_per_s"], trace["peak_requests_per_s"]) == pytest.approx((4.0, 5.0))
    assert trace["mean_requests_per_s_asked"] is None
    res = runner.invoke(app, list(args))
    assert "Its rate: mean 4 requests/s, peak 5 requests/s" in " ".join(res.stdout.split())


def test_a_mean_the_shape_cannot_hold_under_the_peak_is_said_and_the_peak_kept(tmp_path: Path) -> None:
    # a cosine day between 0 and the peak averages half of it: 2 of 5 is below what it holds
    workload = _workload(tmp_path, " mean_requests_per_s: 2,")
    args = (
        "simulate", "autoscale", str(workload), "--shape", "diurnal",
        "--replica", "slots=64,tpot_ms=40,prefill_tps=3000", "--policy", "fixed:replicas=2",
        "--on-demand-price", "1.0",
    )  # fmt: skip
    trace = _run(*args, "--json")["trace"]
    assert trace["peak_requests_per_s"] == pytest.approx(5.0)
    assert trace["mean_requests_per_s"] == pytest.approx(2.5, rel=1e-3)
    assert trace["mean_requests_per_s_asked"] == 2.0
    said = " ".join(runner.invoke(app, [*args, "--lang", "zh"]).stdout.split())
    assert "无法平均为每秒 2 个请求" in said


def test_an_explicit_rate_is_still_the_mean_in_the_shapes_own_proportions(tmp_path: Path) -> None:
    workload = _workload(tmp_path)
    trace = _run(
        "simulate", "autoscale", str(workload), "--shape", "diurnal", "--rate", "5",
        "--replica", "slots=64,tpot_ms=40,prefill_tps=3000", "--policy", "fixed:replicas=2",
        "--on-demand-price", "1.0", "--json",
    )["trace"]  # fmt: skip
    # peak/trough 4: the peak is 2 × 4 / (4 + 1) = 1.6 × the mean
    assert (trace["mean_requests_per_s"], trace["peak_requests_per_s"]) == pytest.approx((5.0, 8.0), rel=1e-3)


def test_simulate_trace_writes_the_day_of_a_mean_and_a_peak_and_says_both(tmp_path: Path) -> None:
    out = tmp_path / "day.csv"
    res = runner.invoke(
        app,
        ["simulate", "trace", "diurnal", "--rate", "4", "--peak", "5", "--hours", "24", "--out", str(out)],
    )
    assert res.exit_code == 0, res.output
    assert "Its rate: mean 4 requests/s, peak 5 requests/s" in " ".join(res.stderr.split())
    head = out.read_text().splitlines()[:2]
    assert head[0].endswith("gpuplan simulate trace diurnal --rate 4 --peak 5 --hours 24 --seed 0")
    assert head[1] == "# rate: mean 4 requests/s, peak 5 requests/s"
    from gpuplan.simulate import read_trace_csv

    tr = read_trace_csv(out)
    assert tr.synthetic
    assert tr.requests / tr.duration_s == pytest.approx(4.0, rel=0.02)


def test_a_trace_whose_timestamps_look_like_milliseconds_is_said_in_the_report(tmp_path: Path) -> None:
    # was: 10 minutes of traffic in milliseconds read silently as 166 hours
    times = range(0, 600_000, 333)
    trace = tmp_path / "ms.csv"
    trace.write_text("timestamp\n" + "".join(f"{t}\n" for t in times))
    args = [
        "simulate", "autoscale", str(_workload(tmp_path)), "--trace", str(trace),
        "--replica", "slots=64,tpot_ms=40,prefill_tps=3000", "--policy", "fixed:replicas=2",
        "--on-demand-price", "1.0",
    ]  # fmt: skip
    said = " ".join(runner.invoke(app, args).stdout.split())
    assert (
        "a median of 333 s between requests: if they are milliseconds, name the column timestamp_ms" in said
    )
    # said first, above the tables whose every cost and hour rests on it
    assert said.startswith(
        "Check the trace's unit of time first: read as seconds, its requests are a median 333 s apart. If "
        "its timestamps are milliseconds, every cost and hour below is 1,000 times too large"
    )
    assert _run(*args, "--json")["trace"]["median_gap_s_doubt"] == 333.0
    said_zh = " ".join(runner.invoke(app, [*args, "--lang", "zh"]).stdout.split())
    assert "请求间隔的中位数为 333 秒" in said_zh
