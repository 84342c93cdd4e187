"""``simulate autoscale``'s key=value lists (--policy, --slo, --replica, --engine) read what a
Chinese input method types, as the command's other options do: the full-width comma ， and the
enumeration comma 、 between items, the full-width ＝ and digits (１２). They had been split on
ASCII's "," and "=" alone, so ``fixed:replicas＝２`` was refused as "not key=value"."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from gpuplan.cli import app

ROOT = Path(__file__).resolve().parents[2]
WORKLOAD = ROOT / "examples" / "llm-inference-service.yaml"

runner = CliRunner()


def _simulated(policy: str, slo: str, replica: str) -> dict:
    args = [
        "simulate", "autoscale", str(WORKLOAD), "--shape", "step", "--rate", "2", "--hours", "1",
        "--replica", replica, "--policy", policy, "--slo", slo, "--on-demand-price", "1.0", "--json",
    ]  # fmt: skip
    res = runner.invoke(app, args, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_full_width_commas_equals_and_digits_read_as_the_ascii_ones() -> None:
    ascii_doc = _simulated(
        "fixed:replicas=2", "e2e_p95=500ms,ttft_p95=200ms", "slots=64,tpot_ms=40,prefill_tps=3000"
    )
    typed = _simulated(
        "fixed:replicas＝２", "e2e_p95＝５００ms，ttft_p95=200ms", "slots＝６４、tpot_ms=40，prefill_tps=3000"
    )
    assert [(s["metric"], s["threshold_s"]) for s in typed["settings"]["slos"]] == [
        ("e2e", 0.5),
        ("ttft", 0.2),
    ]
    # the same policy (named as the ASCII one is), the same replica, the same simulated day
    assert typed["policies"] == ascii_doc["policies"]
    assert typed["settings"] == ascii_doc["settings"]
    same = {k: v for k, v in typed["replica"].items() if k != "source"}
    assert same == {k: v for k, v in ascii_doc["replica"].items() if k != "source"}


def test_a_full_width_engine_setting_reads_as_the_ascii_one() -> None:
    from gpuplan.perf.engines import EngineSettings
    from gpuplan.simulate.batching import parse_engine

    defaults = EngineSettings(source="vLLM")
    typed = parse_engine("max_num_seqs＝１２８，chunked_prefill＝off", defaults)
    assert (typed.max_num_seqs, typed.chunked_prefill) == (128, False)
