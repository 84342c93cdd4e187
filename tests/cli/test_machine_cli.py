"""`gpuplan doctor` and `gpuplan bench` end to end on this CPU-only machine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import gpuplan.machine
from gpuplan.catalog import open_store
from gpuplan.cli import app
from gpuplan.machine import MachineFacts

FIXTURES = Path(__file__).parents[1] / "machine" / "fixtures"


def _fixture(name: str) -> MachineFacts:
    return MachineFacts.from_dict(
        json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))["facts"]
    )


def test_doctor_on_a_machine_without_gpu_reports_it_and_exits_0() -> None:
    r = CliRunner().invoke(app, ["doctor", "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["schema_version"] == 1
    driver = [f for f in doc["findings"] if f["check"] == "driver"]
    assert driver and "No NVIDIA GPU" in driver[0]["message"]
    assert doc["facts"]["torch"]["installed"] is True and doc["facts"]["torch"]["version"]
    assert doc["facts"]["driver"] is None
    assert sum(doc["summary"].values()) == len(doc["findings"])


def test_doctor_table_output() -> None:
    r = CliRunner().invoke(app, ["doctor"])
    assert r.exit_code == 0, r.output
    assert "driver" in r.stdout and "torch" in r.stdout


def test_doctor_strict_exits_1_on_error_findings_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gpuplan.machine, "probe_machine", lambda env: _fixture("a100_old_driver"))
    assert CliRunner().invoke(app, ["doctor"]).exit_code == 0
    assert CliRunner().invoke(app, ["doctor", "--strict"]).exit_code == 1
    monkeypatch.setattr(gpuplan.machine, "probe_machine", lambda env: _fixture("healthy_h100"))
    assert CliRunner().invoke(app, ["doctor", "--strict"]).exit_code == 0


def test_doctor_passes_the_environment_in(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NCCL_P2P_DISABLE", "1")
    r = CliRunner().invoke(app, ["doctor", "--json"])
    doc = json.loads(r.stdout)
    assert doc["facts"]["env"]["NCCL_P2P_DISABLE"] == "1"
    assert any(f["check"] == "nccl_env" and f["severity"] == "warning" for f in doc["findings"])


def test_doctor_works_without_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` now raises ImportError
    r = CliRunner().invoke(app, ["doctor", "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    (torch_finding,) = [f for f in doc["findings"] if f["check"] == "torch"]
    assert torch_finding["severity"] == "error" and "not installed" in torch_finding["message"]


def test_bench_quick_on_cpu_json_without_store() -> None:
    r = CliRunner().invoke(app, ["bench", "--quick", "--device", "cpu", "--json", "--no-store"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["device"] == "cpu" and doc["stored"] is False and doc["gpu_id"] is None
    assert {x["metric"] for x in doc["results"]} == {"matmul_tflops", "memory_bandwidth_gbps", "train_step_s"}
    for x in doc["results"]:
        assert x["value"] > 0 and x["unit"]
        assert x["datasheet_value"] is None and x["efficiency"] is None
    assert not [x for x in doc["results"] if x["metric"] in ("h2d_gbps", "d2h_gbps", "allreduce_busbw_gbps")]
    assert {s["metric"] for s in doc["skipped"]} >= {"h2d_gbps", "d2h_gbps", "allreduce_busbw_gbps"}


def test_bench_table_when_piped_has_no_progress_bar() -> None:
    r = CliRunner().invoke(app, ["bench", "--quick", "--device", "cpu", "--no-store"])
    assert r.exit_code == 0, r.output
    assert "matmul" in r.stdout and "skipped copy host → GPU" in r.stdout and "matmul_tflops" not in r.stdout


def test_bench_rejects_an_unknown_device() -> None:
    r = CliRunner().invoke(app, ["bench", "--device", "tpu", "--no-store"])
    assert r.exit_code == 2


def test_bench_stores_results_in_the_given_database(tmp_path: Path) -> None:
    db = tmp_path / "x.sqlite"
    r = CliRunner().invoke(app, ["--db", str(db), "bench", "--quick", "--device", "cpu", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["stored"] is True
    store = open_store(str(db))
    try:
        stored = store.local.bench_results()
    finally:
        store.close()
    assert {(s.metric, s.dtype) for s in stored} == {
        ("matmul_tflops", "fp32"),
        ("matmul_tflops", "bf16"),
        ("memory_bandwidth_gbps", None),
        ("train_step_s", "fp32"),
    }
    step = next(s for s in stored if s.metric == "train_step_s")
    assert step.details["batch"] == 8 and step.details["model"]


@pytest.mark.parametrize("command", ["doctor", "bench"])
def test_help_does_not_import_torch_or_pynvml(command: str) -> None:
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from gpuplan.cli import app\n"
        f"r = CliRunner().invoke(app, [{command!r}, '--help'])\n"
        "assert r.exit_code == 0, r.output\n"
        "print(sorted(m for m in ('torch', 'pynvml') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "[]"


def test_doctor_in_chinese_on_a_machine_without_gpu() -> None:
    english = CliRunner().invoke(app, ["doctor", "--json", "--lang", "en"])
    chinese = CliRunner().invoke(app, ["doctor", "--json", "--lang", "zh"])
    assert english.exit_code == chinese.exit_code == 0, chinese.output
    en, zh = json.loads(english.stdout)["findings"], json.loads(chinese.stdout)["findings"]
    assert [f["check"] for f in zh] == [f["check"] for f in en]
    driver = next(f for f in zh if f["check"] == "driver")
    assert driver["message"].startswith("本机没有可用的 NVIDIA GPU") and "驱动" in driver["fix"]
    for e, z in zip(en, zh, strict=True):
        assert z["message"] != e["message"], z  # every finding of this machine has its Chinese
    table = CliRunner().invoke(app, ["doctor", "--lang", "zh"], env={"COLUMNS": "200"})
    assert "本机没有可用的 NVIDIA GPU" in table.stdout and "No NVIDIA GPU" not in table.stdout
