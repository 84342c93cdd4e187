"""``simulate autoscale`` takes the workload's ``serving.ttft_p95_ms`` as its default
time-to-first-token SLO, as it takes ``p95_latency_ms`` as its default end-to-end one."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from gpuplan.cli import app

ROOT = Path(__file__).resolve().parents[2]
WORKLOAD = ROOT / "examples" / "llm-inference-service.yaml"
REPLICA = "slots=64,tpot_ms=40,prefill_tps=3000"

runner = CliRunner()


def _slos(workload: Path, *extra: str) -> list[dict]:
    args = [
        "simulate", "autoscale", str(workload), "--shape", "step", "--rate", "2", "--hours", "1",
        "--replica", REPLICA, "--policy", "fixed:replicas=2", "--on-demand-price", "1.0", "--json", *extra,
    ]  # fmt: skip
    res = runner.invoke(app, args, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    return [(s["metric"], s["percentile"], s["threshold_s"]) for s in doc["settings"]["slos"]]


def test_the_workloads_time_to_first_token_target_is_the_default_slo(tmp_path: Path) -> None:
    workload = tmp_path / "svc.yaml"
    text = WORKLOAD.read_text().replace(
        "serving: {requests_per_s: 5,",
        "serving: {ttft_p95_ms: 1500, p95_latency_ms: 30000, requests_per_s: 5,",
    )
    assert "ttft_p95_ms: 1500" in text
    workload.write_text(text)
    assert _slos(workload) == [("e2e", 95.0, 30.0), ("ttft", 95.0, 1.5)]
    # --slo-ms replaces the end-to-end target only; --slo gives the whole list
    assert _slos(workload, "--slo-ms", "20000") == [("e2e", 95.0, 20.0), ("ttft", 95.0, 1.5)]
    assert _slos(workload, "--slo", "tpot_p95=80ms") == [("tpot", 95.0, 0.08)]


def test_the_workloads_time_per_output_token_target_is_a_default_slo_too(tmp_path: Path) -> None:
    # the plan sizes replicas for the typical decode step at the load; the trace checks the p95
    workload = tmp_path / "svc.yaml"
    text = WORKLOAD.read_text().replace(
        "serving: {requests_per_s: 5,", "serving: {ttft_p95_ms: 1500, tpot_p95_ms: 60, requests_per_s: 5,"
    )
    assert "tpot_p95_ms: 60" in text
    workload.write_text(text)
    assert _slos(workload) == [("ttft", 95.0, 1.5), ("tpot", 95.0, 0.06)]
    assert _slos(workload, "--slo", "e2e_p95=30s") == [("e2e", 95.0, 30.0)]
