"""``gpuplan simulate`` on the real Azure LLM traces: latency as users measure it, SLOs, losses,
re-timing, and one-line errors for a wrong input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from azure_traces import CONV, azure
from gpuplan.cli import app
from gpuplan.errors import GpuplanError
from gpuplan.simulate import read_trace_csv
from one_line import refused

ROOT = Path(__file__).resolve().parents[2]
WORKLOAD = ROOT / "examples" / "llm-inference-service.yaml"
REPLICA = "slots=48,tpot_ms=60,prefill_tps=4000"
POLICIES = ("--policy", "fixed:replicas=4", "--policy", "target:target=0.7,max=10")
runner = CliRunner()


def _run(*args: str) -> str:
    # Wide enough that Rich wraps no sentence the assertions read.
    res = runner.invoke(app, list(args), catch_exceptions=False, env={"COLUMNS": "400"})
    assert res.exit_code == 0, res.output
    return res.stdout


def _fails(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """The error line as a user sees it (exit 1, one line on stderr, its newline kept), through the
    entry point in this process."""
    return refused(args, capsys) + "\n"


def test_json_has_latency_slos_losses_and_behaviour_per_policy() -> None:
    doc = json.loads(
        _run(
            "simulate", "autoscale", str(WORKLOAD), "--trace", str(azure(CONV)), "--replica", REPLICA,
            "--gpu", "L4", "--on-demand-price", "0.8", *POLICIES,
            "--slo", "ttft_p95=2s,tpot_p95=80ms,e2e_p95=30s", "--json",
        )
    )  # fmt: skip
    assert doc["trace"] == {
        "name": "AzureLLMInferenceTrace_conv",
        "synthetic": False,
        "requests": 19_366,
        "duration_s": pytest.approx(3501.72, abs=0.01),
        "note": "",
        "out_of_order": 0,
        "default_prompt_tokens": None,
        "default_output_tokens": None,
        # a recorded trace: no generated rate; requests seconds apart, no doubt about the unit
        "mean_requests_per_s": None,
        "peak_requests_per_s": None,
        "mean_requests_per_s_asked": None,
        "median_gap_s_doubt": None,
    }
    assert [s["name"] for s in doc["settings"]["slos"]] == ["ttft_p95", "tpot_p95", "e2e_p95"]
    for p in doc["policies"]:
        assert set(p["latency"]) == {"queue", "ttft", "tpot", "e2e"}
        assert p["latency"]["e2e"]["p95_s"] == p["latency_p95_s"]
        assert [s["name"] for s in p["slos"]] == ["ttft_p95", "tpot_p95", "e2e_p95"]
        assert p["losses"]["spot"] == p["killed"] == 0
        assert p["served"] + p["dropped"] + p["queued_at_end"] == 19_366
    target = doc["policies"][1]
    assert target["behaviour"]["start_replicas"] == 1  # the policy's min, said
    # Requests whose prompt and output alone outlast 30 s at 60 ms per token (and prompts at 4,000
    # tokens/s, the longest 14,050 tokens: 3.5 s): no capacity helps them, whatever the policy.
    e2e = target["slos"][2]
    assert e2e["unreachable"] > 0 and e2e["unreachable_min_output_tokens"] >= (30 - 3.6) / 0.06
    assert doc["policies"][0]["slos"][2]["unreachable"] == e2e["unreachable"]


def test_the_report_says_where_requests_were_lost_and_how_policies_move() -> None:
    text = _run(
        "simulate", "autoscale", str(WORKLOAD), "--trace", str(azure(CONV)), "--replica", REPLICA,
        "--gpu", "L4", "--on-demand-price", "0.8", *POLICIES, "--slo", "e2e_p95=30s", "--lang", "en",
    )  # fmt: skip
    assert "Where each policy lost requests" in text
    assert "starts with 1 ready" in text and "starts with 4 ready" in text
    assert "cannot finish within 30.00 s on any number of replicas" in text
    assert "as read, not generated" in text


def test_a_real_trace_is_re_timed_in_place_or_into_a_file(tmp_path: Path) -> None:
    doc = json.loads(
        _run(
            "simulate", "autoscale", str(WORKLOAD), "--trace", str(azure(CONV)), "--replica", REPLICA,
            "--gpu", "L4", "--on-demand-price", "0.8", "--policy", "fixed:replicas=8",
            "--trace-scale", "5", "--trace-tile-hours", "1", "--json",
        )
    )  # fmt: skip
    # Five times the rate, repeated over an hour: the hour's span (3,501.7 s) shrinks to 700 s,
    # so 3,600 s hold 5.14 copies of its 19,366 requests.
    assert doc["trace"]["requests"] == pytest.approx(19_366 * 3600 / (3501.72 / 5), rel=0.01)
    assert doc["trace"]["duration_s"] == 3600
    assert doc["trace"]["note"].startswith("re-timed from AzureLLMInferenceTrace_conv: 5× its rate")
    out = tmp_path / "day.csv"
    _run("simulate", "trace", "--from", str(CONV), "--scale", "2", "--tile-hours", "1.5", "--out", str(out))
    tr = read_trace_csv(out)
    assert tr.note.startswith(
        "re-timed from AzureLLMInferenceTrace_conv: 2× its rate, repeated to fill 1.5 h"
    )
    assert not tr.synthetic
    assert tr.requests == pytest.approx(19_366 * 1.5 * 3600 / (3501.72 / 2), rel=0.01)
    assert out.read_text().splitlines()[1].startswith("# derived from AzureLLMInferenceTrace_conv.csv")


def test_a_wrong_input_is_one_line_on_stderr_and_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    base = ("simulate", "autoscale", str(WORKLOAD), "--trace", str(azure(CONV)), "--replica", REPLICA)
    out = _fails(
        capsys, *base, "--policy", "fixed:replicas=1", "--on-demand-price", "1", "--slo", "ttft_p95=2"
    )
    assert "write the threshold as a number and one of the units" in out and out.count("\n") == 1
    # a unit it does not take is told the units it does (was: "write the threshold with its unit")
    out = _fails(
        capsys, *base, "--policy", "fixed:replicas=1", "--on-demand-price", "1", "--slo", "ttft_p95=1sec"
    )
    assert "one of the units ms, s or min (m)" in out and out.count("\n") == 1


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (("--slo", "e2e_p95=30s", "--slo-ms", "30000"), "not both"),
        (("--trace-scale", "0"), "positive"),
        (("--engine", "max_num_seqs=8"), "--replica gives its figures"),
        (("--storage-gbps", "-1"), "--storage-gbps must be at least 0.001 GB/s, got -1"),
        # A negative notice billed reclaimed spot replicas for less than they ran; a negative
        # timeout dropped every request.
        (("--spot-notice-s=-1000",), "--spot-notice-s must be 0 or more"),
        (("--timeout-s=-5",), "--timeout-s must be a positive number"),
    ],
)
def test_each_wrong_input_is_refused_in_words(extra: tuple[str, ...], words: str) -> None:
    args = [
        "simulate", "autoscale", str(WORKLOAD), "--trace", str(azure(CONV)), "--replica", REPLICA,
        "--gpu", "L4", "--on-demand-price", "0.8", "--policy", "fixed:replicas=1", *extra,
    ]  # fmt: skip
    res = runner.invoke(app, args)
    # The command raises; gpuplan's main turns it into the one line the test above reads.
    assert isinstance(res.exception, GpuplanError), res.output
    assert words in str(res.exception) and "\n" not in str(res.exception)


def test_a_non_finite_trace_scale_is_a_usage_error() -> None:
    args = [
        "simulate", "autoscale", str(WORKLOAD), "--trace", str(azure(CONV)), "--replica", REPLICA,
        "--gpu", "L4", "--on-demand-price", "0.8", "--policy", "fixed:replicas=1", "--trace-scale", "nan",
    ]  # fmt: skip
    res = runner.invoke(app, args)
    assert res.exit_code == 2 and "nan is not a finite number" in res.output, res.output


def test_trace_needs_a_shape_or_a_recorded_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = str(tmp_path / "x.csv")
    res = runner.invoke(app, ["simulate", "trace", "diurnal", "--from", str(CONV), "--out", target])
    assert isinstance(res.exception, GpuplanError) and "one of them" in str(res.exception)
    out = _fails(
        capsys, "simulate", "trace", "--from", str(tmp_path / "none.csv"), "--out", str(tmp_path / "x.csv")
    )
    assert "not found" in out
    assert not (tmp_path / "x.csv").exists()


def test_a_re_timed_trace_of_a_file_whose_name_holds_a_newline_reads_back(tmp_path: Path) -> None:
    # The source's name went raw into the output's comment lines: '999,1,1' became a data row
    # before the header, and the written trace could not be read back.
    source = tmp_path / "x\n999,1,1\n#.csv"
    source.write_text("timestamp,prompt_tokens,output_tokens\n0,10,5\n1,10,5\n2,10,5\n")
    out = tmp_path / "o.csv"
    _run("simulate", "trace", "--from", str(source), "--out", str(out))
    text = out.read_text()
    assert all(line.startswith("#") for line in text.splitlines()[:2]), text
    tr = read_trace_csv(out)
    assert len(tr.arrival_s) == 3 and "\n" not in tr.note and "\\n" in tr.note
