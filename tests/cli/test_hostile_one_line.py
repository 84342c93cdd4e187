"""Hostile inputs that used to end in a traceback or be accepted silently: each is one line (exit 1,
or 2 for the command line) — lone surrogates in plan fields, JSON booleans as numbers, non-finite
numbers on the command line, a growth of 1e300 % a month, a trace that is not UTF-8 — and what is
accepted is written consistently (a 1e-300 checkpoint interval) and validly (Kubernetes names)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer.main
import yaml

from gpuplan.cli import app
from gpuplan.cli._numbers import finite_float
from gpuplan.deploy.grammar import DNS_LABEL
from gpuplan.deploy.k8s.sharing import dns_names
from one_line import refused

ROOT = Path(__file__).resolve().parents[2]
PLAN = ROOT / "tests" / "deploy" / "fixtures" / "plan_spot_aws.json"
EXAMPLES = ROOT / "examples"


def _plan(tmp_path: Path, change: Any) -> Path:
    doc = json.loads(PLAN.read_text())
    change(doc)
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc))  # ensure_ascii: a lone surrogate travels as "\\ud800"
    return path


@pytest.mark.parametrize(
    "field",
    [("workload", "name"), ("workload", "model", "preset"), ("recommended", "region"), ("objective",)],
)
def test_a_lone_surrogate_in_a_plan_field_is_one_line(
    tmp_path: Path, field: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    def put(doc: dict[str, Any]) -> None:
        *parents, key = field
        for k in parents:
            doc = doc[k]
        doc[key] = f"{doc.get(key) or 'x'}\ud800"

    plan = _plan(tmp_path, put)
    for target in ("torchrun", "docker", "k8s", "skypilot"):
        line = refused(["deploy", str(plan), "--target", target, "--out", str(tmp_path / target)], capsys)
        assert "holds a lone UTF-16 surrogate, which is not text" in line, line
        assert not (tmp_path / target).exists()


@pytest.mark.parametrize(
    ("path", "says"),
    [
        (("schema_version",), "plan file has schema version true; this gpuplan reads versions 1 to 6"),
        (("recommended", "gpu_count"), "gpu_count: true is not a number; write the number itself"),
        (("recommended", "job_time_h"), "job_time_h: true is not a number; write the number itself"),
        (("workload", "inputs", "batch_size"), "batch_size: true is not a number; write the number itself"),
    ],
)
def test_a_json_boolean_is_not_a_number_in_a_plan(
    tmp_path: Path, path: tuple[str, ...], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    def put(doc: dict[str, Any]) -> None:
        *parents, key = path
        for k in parents:
            doc = doc[k]
        doc[key] = True

    line = refused(
        ["deploy", str(_plan(tmp_path, put)), "--target", "torchrun", "--out", str(tmp_path / "o")], capsys
    )
    assert says in line, line


def test_a_yaml_boolean_is_not_a_number_in_a_workload(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    w = tmp_path / "job.yaml"
    w.write_text("name: j\nmodel: {preset: gpt2}\ninputs: {batch_size: true, seq_len: 64}\n")
    line = refused(["estimate", str(w), "--gpu", "L4"], capsys)
    assert "inputs.batch_size: true is not a number; write the number itself" in line, line


def _float_options() -> list[tuple[tuple[str, ...], str, object]]:
    found = []

    def walk(cmd: Any, path: tuple[str, ...]) -> None:
        for name, sub in getattr(cmd, "commands", {}).items():
            walk(sub, (*path, name))
        for p in getattr(cmd, "params", []):
            td = getattr(p, "type_descriptor", None)
            if td is not None and td.annotation is float:
                found.append((path, p.opts[0], td.parameter_info.parser))

    walk(typer.main.get_command(app), ())
    return found


def test_every_float_option_of_every_command_refuses_non_finite_numbers() -> None:
    options = _float_options()
    assert len(options) > 20  # the walk sees the commands
    unchecked = [
        (path, opt)
        for path, opt, parser in options
        if parser is not finite_float and not getattr(parser, "finite", False)  # finite_in(…) is marked
    ]
    assert unchecked == []


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["estimate", "{ex}/bert-large-squad.yaml", "--gpu", "L4", "-n", "2", "--network-gbps", "nan"],
         "Invalid value for '--network-gbps': nan is not a finite number"),
        (["offers", "--max-price", "inf"], "Invalid value for '--max-price': inf is not a finite number"),
        (["simulate", "trace", "bursty", "--out", "{tmp}/t.csv", "--hours", "1e999"],
         "Invalid value for '--hours': 1e999 is not a finite number"),
        (["offers", "--max-price", "abc"], "Invalid value for '--max-price': Input should be a valid number"),
        # absurd but finite: was accepted (1e12 Gbit/s taken as a network, a 1e40-yuan budget)
        (["estimate", "{ex}/bert-large-squad.yaml", "--gpu", "L4", "-n", "2", "--network-gbps", "1e12"],
         "Invalid value for '--network-gbps': Input should be less than or equal to 100000.0"),
        (["plan", "{ex}/bert-large-squad.yaml", "--budget-cny", "1e40"],
         "Invalid value for '--budget-cny': Input should be less than or equal to"),
        (["plan", "{ex}/bert-large-squad.yaml", "--budget-usd", "-5"],
         "Invalid value for '--budget-usd': Input should be greater than or equal to 0.01"),
        # integers past any instance or fleet: one past 2^63 overflowed the database's integer
        (["offers", "--count", "9223372036854775808"],
         "Invalid value for '--count': 9223372036854775808 GPUs per instance: give a whole number from 1 "
         "to 16"),
        (["offers", "--stale-days", "99999999999"],
         "Invalid value for '--stale-days': Input should be less than or equal to 36500"),
        (["deploy", "{ex}/bert-large-squad.yaml", "--gpu", "L4", "--count", "99999999999999999999",
          "--out", "{tmp}/o"],
         "Invalid value for '--count' / '-n': Input should be less than or equal to 4096"),
        # a price above any list price was a pydantic traceback, one below zero a negative bill
        (["simulate", "share", "{ex}/simulate/services.yaml", "--price", "1e308", "--json"],
         "Invalid value for '--price': Input should be less than or equal to 1000.0"),
        (["simulate", "share", "{ex}/simulate/services.yaml", "--price", "-1"],
         "Invalid value for '--price': Input should be greater than or equal to 0.01"),
    ],
)  # fmt: skip
def test_a_non_finite_number_on_the_command_line_is_a_usage_error(
    tmp_path: Path, args: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    given = [a.replace("{ex}", str(EXAMPLES)).replace("{tmp}", str(tmp_path)) for a in args]
    capsys.readouterr()
    import sys

    from gpuplan.cli import main

    old = sys.argv
    sys.argv = ["gpuplan", "--db", str(tmp_path / "c.db"), *given]
    try:
        with pytest.raises(SystemExit) as info:
            main()
    finally:
        sys.argv = old
    err = " ".join(capsys.readouterr().err.replace("│", " ").split())
    assert info.value.code == 2 and says in err, err
    assert "Traceback" not in err


def test_an_env_var_that_is_not_finite_reads_in_chinese(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    monkeypatch.setenv("GPUPLAN_USD_PER_CNY", "nan")
    result = CliRunner().invoke(app, ["--db", str(tmp_path / "c.db"), "offers", "--lang", "zh"])
    text = " ".join(result.output.replace("│", " ").split())
    assert result.exit_code == 2
    assert "'--usd-per-cny'（环境变量：'GPUPLAN_USD_PER_CNY'）的值无效：nan 不是有限数" in text, text


def test_a_growth_of_1e300_percent_a_month_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    usage = tmp_path / "usage.yaml"
    usage.write_text(
        "horizon_months: 12\nstart: 2027-01\ndemands:\n"
        "  - {name: serving, gpu: L4, gpus: 4, hours_per_month: 730, growth_pct_per_month: 1e300}\n"
    )
    line = refused(["--db", str(tmp_path / "c.db"), "tco", str(usage)], capsys)
    assert line.endswith(
        "demands[0].growth_pct_per_month: 1e+300 % a month for 11 months multiplies the demand more "
        "than 1,000,000-fold; check the figure"
    ), line


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b"timestamp\n0\n1\xff\xfe\n", "line 3: not UTF-8 text"),
        (b"time\xff,x\n0,1\n", "no timestamp column"),
    ],
)
def test_a_trace_that_is_not_utf8_is_one_line(
    tmp_path: Path, body: bytes, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "t.csv"
    trace.write_bytes(body)
    workload = str(EXAMPLES / "llm-inference-service.yaml")
    args = ["simulate", "autoscale", workload, "--trace", str(trace), "--replica", "slots=8,tpot_ms=30"]
    line = refused(
        ["--db", str(tmp_path / "c.db"), *args, "--on-demand-price", "1", "--policy", "fixed:replicas=2"],
        capsys,
    )
    assert says in line, line


def test_a_1e_300_checkpoint_interval_is_written_as_train_py_uses_it(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    def put(doc: dict[str, Any]) -> None:
        doc["recommended"]["checkpoint_interval_min"] = 1e-300

    out = tmp_path / "o"
    result = CliRunner().invoke(
        app, ["deploy", str(_plan(tmp_path, put)), "--target", "torchrun", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "every 0.1 min" in (out / "README.md").read_text()
    assert "\nCHECKPOINT_INTERVAL_MIN = 0.1" in (out / "train.py").read_text()


def test_k8s_names_of_shared_services_are_unique_valid_labels(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    services = tmp_path / "services.yaml"
    rows = ["chat.8b", "chat_8b", "Chat 8B", "中文服务", "x" * 70 + "-", "x" * 70 + "_", "---"]
    services.write_text(
        "gpu: A100-SXM4-80GB\nservices:\n"
        + "".join(
            f"  - {{name: {json.dumps(n)}, memory_gib: 4, requests_per_s: 1, capacity_requests_per_s: 100, "
            "latency_ms: 20}\n"
            for n in rows
        )
    )
    out = tmp_path / "k8s"
    result = CliRunner().invoke(
        app,
        [
            "--db",
            str(tmp_path / "c.db"),
            "simulate",
            "share",
            str(services),
            "--price",
            "1",
            "--k8s-out",
            str(out),
            "--gpus-per-node",
            "8",
        ],
    )
    assert result.exit_code == 0, result.output
    docs = [d for d in yaml.safe_load_all((out / "k8s" / "services.yaml").read_text()) if d]
    names = [d["metadata"]["name"] for d in docs if d["kind"] == "Deployment"]
    assert names == dns_names(rows)
    assert len(set(names)) == len(rows)
    assert all(DNS_LABEL.fullmatch(n) and len(n) <= 63 and n.isascii() for n in names), names
    assert names[:3] == ["chat-8b", "chat-8b-2", "chat-8b-3"]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--seed", "-1"], "Invalid value for '--seed'"),
        (["--prompt-tokens", "100000000000000000000"], "Invalid value for '--prompt-tokens'"),
        (["--output-tokens", "0"], "Invalid value for '--output-tokens'"),
    ],
)
def test_a_generated_trace_takes_a_seed_and_token_counts_a_trace_can_hold(
    tmp_path: Path, args: list[str], says: str
) -> None:
    from typer.testing import CliRunner

    from gpuplan.cli.simulate_cmds import _MAX_TOKENS
    from gpuplan.simulate.trace import MAX_TOKENS

    assert _MAX_TOKENS == MAX_TOKENS
    result = CliRunner().invoke(app, ["simulate", "trace", "bursty", "--out", str(tmp_path / "t.csv"), *args])
    assert result.exit_code == 2 and says in result.output, result.output
    assert not (tmp_path / "t.csv").exists()


def test_names_that_look_like_console_markup_are_printed_as_written(tmp_path: Path) -> None:
    # A price file's rejected rows are listed with their names: "[/x]" closed no tag and the
    # listing ended in Rich's MarkupError (a traceback); ":smile:" became an emoji.
    from typer.testing import CliRunner

    names = ["[red]evil[/x]", "[/]gpu[bold]:smile:"]
    header = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice"
    csv = tmp_path / "prices.csv"
    csv.write_text("\n".join([header, *(f"{n},V100,8.0,92.0,448.0,6.32,us-east-1,," for n in names)]) + "\n")
    args = ["--db", str(tmp_path / "c.sqlite"), "catalog", "import", "--format", "skypilot", str(csv)]
    args += ["--as-of", "2026-11-30"]
    res = CliRunner().invoke(app, [*args, "--provider", "lambda"])
    # The refusal itself (one line through the entry point, as the other tests here check).
    assert res.exit_code == 1 and "nothing was imported" in str(res.exception), res.output
    # The rejection table, before the refusal: both names whole, no emoji.
    assert all(n in res.stdout for n in names) and "😄" not in res.stdout, res.stdout


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_line_or_paragraph_separator_quoted_in_an_error_stays_on_its_line(
    tmp_path: Path, lang: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # A plan file's schema_version "a\u2028b\u0085c" came back quoted in the refusal: three lines
    # for str.splitlines() and for a terminal that honours them.
    def put(doc: dict[str, Any]) -> None:
        doc["schema_version"] = "a\u2028b\u0085c"

    plan = _plan(tmp_path, put)
    line = refused(
        ["deploy", str(plan), "--target", "torchrun", "--out", str(tmp_path / "o"), "--lang", lang], capsys
    )
    assert len(line.splitlines()) == 1 and "\\u2028" in line and "\\x85" in line


@pytest.mark.parametrize(
    ("args", "says"),
    [
        # a rate of 0 had been read as no rate (the workload's taken without a word)
        (["--rate", "0", "--shape", "diurnal", "--hours", "1"],
         "trace shape: the rate must be a positive number, got 0"),
        # 1e-300 GB/s printed a cold start of a 300-digit number of seconds
        (["--storage-gbps", "1e-300", "--shape", "diurnal", "--hours", "1"],
         "--storage-gbps must be at least 0.001 GB/s, got 1e-300"),
    ],
)  # fmt: skip
def test_a_rate_or_storage_no_service_has_is_one_line(
    tmp_path: Path, args: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["simulate", "autoscale", str(EXAMPLES / "llm-inference-service.yaml"), "--gpu", "A100-SXM4-80GB"]
    line = refused(["--db", str(tmp_path / "c.db"), *base, "--policy", "fixed:replicas=2", *args], capsys)
    assert says in line, line


def test_a_services_file_latency_beyond_an_hour_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    services = yaml.safe_load((EXAMPLES / "simulate" / "services.yaml").read_text(encoding="utf-8"))
    services["services"][0]["latency_ms"] = 1e308  # printed a 300-digit p95
    path = tmp_path / "services.yaml"
    path.write_text(yaml.safe_dump(services), encoding="utf-8")
    line = refused(["--db", str(tmp_path / "c.db"), "simulate", "share", str(path)], capsys)
    assert "services.0.latency_ms: Input should be less than or equal to 3600000" in line, line


def test_a_boolean_for_a_name_is_not_called_a_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    usage = tmp_path / "usage.yaml"
    demand = {"name": "pool", "gpu": "A100-SXM4-40GB", "gpus": 8, "hours_per_month": 730}
    usage.write_text(yaml.safe_dump({"horizon_months": 12, "currency": True, "demands": [demand]}))
    line = refused(["--db", str(tmp_path / "c.db"), "tco", str(usage)], capsys)
    assert "currency: true is not a name or text; write the value itself" in line, line
    demand["gpus"] = True  # a number's field still says so
    usage.write_text(yaml.safe_dump({"horizon_months": 12, "demands": [demand]}))
    line = refused(["--db", str(tmp_path / "c.db"), "tco", str(usage)], capsys)
    assert "gpus: true is not a number; write the number itself" in line, line
