"""``gpuplan simulate`` end to end: the JSON contracts, the HTML report, Kubernetes files, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from typer.testing import CliRunner

from gpuplan.cli import app

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
TRACE = EXAMPLES / "simulate" / "load-bursty-2h-synthetic.csv"
SERVICES = EXAMPLES / "simulate" / "services.yaml"
WORKLOAD = EXAMPLES / "llm-inference-service.yaml"
REPLICA = "slots=64,tpot_ms=40,prefill_tps=3000"

runner = CliRunner()


def validate_k8s(doc: dict) -> None:
    kubernetes_validate.validate(doc, "1.33.0", strict=True)


def _run(*args: str) -> str:
    res = runner.invoke(app, list(args), catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.stdout


def test_autoscale_json_has_the_contract_fields_for_every_policy(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    doc = json.loads(
        _run(
            "simulate", "autoscale", str(WORKLOAD), "--trace", str(TRACE), "--gpu", "L4",
            "--replica", REPLICA,
            "--policy", "fixed:replicas=4", "--policy", "queue:per_replica=24,max=8,spot=0.5",
            "--on-demand-price", "0.7", "--spot-price", "0.3", "--json", "--out", str(out),
        )
    )  # fmt: skip
    assert doc["schema_version"] == 1
    names = [p["name"] for p in doc["policies"]]
    assert names == ["fixed:replicas=4", "queue:per_replica=24,max=8,spot=0.5"]
    for p in doc["policies"]:
        for key in (
            "name", "cost_usd", "replica_hours", "utilisation", "latency_p50_s", "latency_p95_s",
            "latency_p99_s", "slo_miss_pct", "dropped", "max_replicas", "interruptions",
        ):  # fmt: skip
            assert key in p
        prices = {"on_demand": 0.7, "spot": 0.3}
        assert p["cost_usd"] == pytest.approx(sum(h * prices[k] for k, h in p["replica_hours"].items()))
    assert doc["trace"]["synthetic"] is True
    html = out.read_text()
    assert "<svg" in html and "polyline" in html and "synthetic" in html


def _azure_format_trace(path: Path, *, comment: str = "") -> Path:
    """A small file in the Azure LLM inference trace 2023 layout (Azure/AzurePublicDataset,
    AzureLLMInferenceTrace_*.csv: TIMESTAMP with 7 fractional digits, ContextTokens,
    GeneratedTokens). The rows are INVENTED by this test, not taken from the trace."""
    rows = ["TIMESTAMP,ContextTokens,GeneratedTokens"]
    for i in range(600):  # 10 minutes at one request per second, tokens varying
        stamp = f"2023-11-16 18:{15 + i // 60:02d}:{i % 60:02d}.{(i * 7919) % 10**7:07d}"
        rows.append(f"{stamp},{200 + i % 900},{20 + i % 300}")
    path.write_text(comment + "\n".join(rows) + "\n")
    return path


def test_autoscale_reads_a_trace_in_the_azure_llm_inference_layout(tmp_path: Path) -> None:
    # No recorded trace ships (none may be committed here); the reader is checked on the layout.
    trace = _azure_format_trace(tmp_path / "AzureLLMInferenceTrace_conv_sample.csv")
    doc = json.loads(
        _run(
            "simulate", "autoscale", str(WORKLOAD), "--trace", str(trace), "--gpu", "L4",
            "--replica", REPLICA, "--policy", "fixed:replicas=1", "--on-demand-price", "0.7", "--json",
        )
    )  # fmt: skip
    assert doc["trace"]["requests"] == 600
    assert doc["trace"]["synthetic"] is False  # a recorded trace has no SYNTHETIC mark
    assert doc["policies"][0]["dropped"] == 0
    labelled = _azure_format_trace(
        tmp_path / "labelled.csv", comment="# SYNTHETIC rows in the Azure layout\n"
    )
    doc = json.loads(
        _run(
            "simulate", "autoscale", str(WORKLOAD), "--trace", str(labelled), "--gpu", "L4",
            "--replica", REPLICA, "--policy", "fixed:replicas=1", "--on-demand-price", "0.7", "--json",
        )
    )  # fmt: skip
    assert doc["trace"]["synthetic"] is True


def test_autoscale_in_chinese_and_yuan() -> None:
    text = _run(
        "simulate", "autoscale", str(WORKLOAD), "--shape", "step", "--rate", "2", "--hours", "1",
        "--replica", REPLICA, "--policy", "fixed:replicas=2", "--on-demand-price", "1.0", "--lang", "zh",
        "--currency", "CNY",
    )  # fmt: skip
    assert "策略对比" in text and "¥" in text


def test_share_json_placements_and_kubernetes_files(tmp_path: Path) -> None:
    k8s = tmp_path / "k8s"
    doc = json.loads(
        _run(
            "simulate",
            "share",
            str(SERVICES),
            "--sharing",
            "mig",
            "--price",
            "3.0",
            "--json",
            "--k8s-out",
            str(k8s),
        )
    )
    assert doc["schema_version"] == 1
    assert doc["gpus_needed"] >= 1 and doc["cost_usd_per_hour"] == pytest.approx(3.0 * doc["gpus_needed"])
    assert {"gpu_index", "service", "slice"} <= set(doc["placements"][0])
    assert all(p["slice"].split(".")[-1].endswith("gb") for p in doc["placements"])
    assert isinstance(doc["unplaced"], list)
    config = yaml.safe_load((k8s / "k8s" / "sharing-config.yaml").read_text())
    parted = yaml.safe_load(config["data"]["config.yaml"])
    assert parted["version"] == "v1" and "gpuplan-node-0" in parted["mig-configs"]
    services = list(yaml.safe_load_all((k8s / "k8s" / "services.yaml").read_text()))
    limits = {
        d["metadata"]["name"]: d["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]
        for d in services
    }
    assert all(next(iter(lim)).startswith("nvidia.com/mig-") for lim in limits.values())


def test_share_best_picks_the_fewest_gpus() -> None:
    docs = {
        s: json.loads(_run("simulate", "share", str(SERVICES), "--sharing", s, "--price", "3", "--json"))
        for s in ("whole", "mig", "time-slice", "best")
    }
    fewest = min(docs[s]["gpus_needed"] for s in ("whole", "mig", "time-slice"))
    assert docs["best"]["gpus_needed"] == fewest
    assert docs["whole"]["gpus_needed"] >= docs["mig"]["gpus_needed"]


def test_trace_command_writes_a_csv_that_reads_back_as_synthetic(tmp_path: Path) -> None:
    out = tmp_path / "t.csv"
    runner.invoke(app, ["simulate", "trace", "diurnal", "--rate", "1", "--hours", "1", "--out", str(out)])
    from gpuplan.simulate import read_trace_csv

    tr = read_trace_csv(out)
    assert tr.synthetic and tr.requests > 1000


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--policy", "hpa:target=0.7"], "unknown policy kind 'hpa'"),
        (["--policy", "target:target=1.5"], "0 < U ≤ 1"),
        (["--policy", "fixed:replicas=2", "--replica", "slots=0,tpot_ms=1"], "slots ≥ 1"),
    ],
)
def test_bad_input_is_one_line_and_exit_1(args: list[str], message: str) -> None:
    base = [sys.executable, "-m", "gpuplan", "simulate", "autoscale", str(WORKLOAD), "--trace", str(TRACE)]
    extra = [] if "--replica" in args else ["--replica", REPLICA]
    res = subprocess.run([*base, *extra, *args, "--on-demand-price", "1"], capture_output=True, text=True)
    assert res.returncode == 1
    assert message in res.stderr
    assert res.stderr.count("\n") == 1 and "Traceback" not in res.stderr


@pytest.mark.parametrize("sharing", ["time-slice", "mps", "whole"])
def test_share_kubernetes_files_validate_for_every_sharing(tmp_path: Path, sharing: str) -> None:
    k8s = tmp_path / "k8s"
    _run("simulate", "share", str(SERVICES), "--sharing", sharing, "--price", "3", "--k8s-out", str(k8s))
    for f in (k8s / "k8s").glob("*.yaml"):
        for doc in yaml.safe_load_all(f.read_text()):
            validate_k8s(doc)
    services = list(yaml.safe_load_all((k8s / "k8s" / "services.yaml").read_text()))
    assert all(
        d["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": 1}
        for d in services
    )
    if sharing != "whole":
        config = yaml.safe_load((k8s / "k8s" / "sharing-config.yaml").read_text())
        key = "mps" if sharing == "mps" else "timeSlicing"
        assert yaml.safe_load(config["data"]["any"])["sharing"][key]["resources"][0]["replicas"] >= 1


def test_share_refuses_a_service_whose_workload_spans_several_gpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A tensor-parallel replica spans GPUs; sharing packs services onto one GPU each, so it says so
    # in one line instead of sizing the service as if it ran on one.
    from gpuplan.cli import main

    workload = yaml.safe_load(WORKLOAD.read_text(encoding="utf-8")) | {"tensor_parallel": 2}
    (tmp_path / "w.yaml").write_text(yaml.safe_dump(workload), encoding="utf-8")
    (tmp_path / "s.yaml").write_text(
        "gpu: H100-SXM\nservices:\n  - {name: chat, requests_per_s: 1, workload: w.yaml}\n", encoding="utf-8"
    )
    db = tmp_path / "catalog.sqlite"
    monkeypatch.setattr(
        sys, "argv", ["gpuplan", "--db", str(db), "simulate", "share", str(tmp_path / "s.yaml")]
    )
    with pytest.raises(SystemExit) as e:
        main()
    assert e.value.code == 1
    assert capsys.readouterr().err == (
        "error: service 'chat': its workload spans 2 GPUs (tensor_parallel); sharing packs services that "
        "each fit one GPU\n"
    )
