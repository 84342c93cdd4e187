"""Counted lines agree with their count: "wrote 1 request", not "wrote 1 requests"."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplan.catalog.model import OfferPrice
from gpuplan.catalog.store import Store
from gpuplan.cli import app

ROOT = Path(__file__).resolve().parents[2]
WORKLOAD = ROOT / "examples" / "llm-inference-service.yaml"
REPLICA = "slots=64,tpot_ms=40,prefill_tps=3000"


def _one_request(tmp_path: Path) -> Path:
    trace = tmp_path / "one.csv"
    trace.write_text("timestamp,prompt_tokens,output_tokens\n0.0,100,10\n", encoding="utf-8")
    return trace


def test_a_trace_of_one_request_is_written_as_one_request(tmp_path: Path) -> None:
    out = tmp_path / "out.csv"
    r = CliRunner().invoke(
        app, ["simulate", "trace", "--from", str(_one_request(tmp_path)), "--out", str(out)]
    )
    assert r.exit_code == 0, r.output
    assert f"wrote 1 request to {out}" in r.stderr, r.stderr


def test_a_trace_of_one_request_is_reported_as_one_request(tmp_path: Path) -> None:
    args = ["simulate", "autoscale", str(WORKLOAD), "--trace", str(_one_request(tmp_path)), "--gpu", "L4"]
    args += ["--replica", REPLICA, "--policy", "fixed:replicas=1", "--on-demand-price", "0.7"]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    assert "1 request over" in r.stdout and "1 requests" not in r.stdout, r.stdout


def test_an_export_of_one_row_says_one_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    every = Store.offers

    def first_only(self: Store, **kw: object) -> list[OfferPrice]:
        return every(self, **kw)[:1]  # type: ignore[arg-type]

    monkeypatch.setattr(Store, "offers", first_only)
    out = tmp_path / "one.csv"
    r = CliRunner().invoke(
        app, ["--db", str(tmp_path / "catalog.sqlite"), "catalog", "export", "--out", str(out)]
    )
    assert r.exit_code == 0, r.output
    assert f"wrote 1 row to {out}" in r.stderr, r.stderr
