"""``simulate autoscale --on-demand-price``/``--spot-price`` in yuan or dollars: a quote of 18.49 yuan
an hour given with ``--currency CNY`` had been read as 18.49 dollars and billed at ¥129.17 a
replica-hour (3.7x the catalog's ¥34.74 for the same instance), silently. A price is written with its
currency (``¥18.49``, ``18.49元``, ``$2.6``); a bare number is dollars, and refused where the user
works in yuan; a price far from the catalog's for the named instance is warned of."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner, Result

from gpuplan.cli import app
from one_line import refused

ROOT = Path(__file__).resolve().parents[2]
TRACE = ROOT / "examples" / "simulate" / "load-bursty-2h-synthetic.csv"
WORKLOAD = ROOT / "examples" / "llm-inference-service.yaml"
REPLICA = "slots=64,tpot_ms=40,prefill_tps=3000"
#: One A100-SXM4-80GB; the shipped catalog's on-demand price of it is 34.74 CNY an hour (cn-beijing).
INSTANCE = "ecs.gn7e-c16g1.4xlarge"


def _autoscale(*extra: str, workload: Path = WORKLOAD) -> Result:
    return CliRunner().invoke(
        app,
        ["simulate", "autoscale", str(workload), "--trace", str(TRACE), "--instance", INSTANCE,
         "--replica", REPLICA, "--policy", "fixed:replicas=1", *extra],
        env={"COLUMNS": "400"},
    )  # fmt: skip


def _refused(capsys: pytest.CaptureFixture[str], *extra: str, workload: Path = WORKLOAD) -> str:
    args = ["simulate", "autoscale", str(workload), "--trace", str(TRACE), "--instance", INSTANCE,
            "--replica", REPLICA, "--policy", "fixed:replicas=1", *extra]  # fmt: skip
    return refused(args, capsys)


def _on_demand_usd(r: Result) -> float:
    assert r.exit_code == 0, r.output
    return float(json.loads(r.stdout)["prices"]["usd_per_hour"]["on_demand"])


def test_a_price_in_yuan_is_converted_at_the_catalogs_rate() -> None:
    # 18.49 CNY at the shipped catalog's 6.9858 CNY per USD = 2.6468 USD; each way of writing it
    for written in ("¥18.49", "18.49元", "18.49 CNY", "￥18.49"):
        usd = _on_demand_usd(_autoscale("--on-demand-price", written, "--currency", "CNY", "--json"))
        assert abs(usd - 18.49 / 6.9858) < 0.001, (written, usd)
    usd = _on_demand_usd(_autoscale("--on-demand-price", "¥18.49", "--json"))  # a USD report too
    assert abs(usd - 2.6468) < 0.001, usd


def test_the_report_in_yuan_shows_the_price_as_given() -> None:
    r = _autoscale("--on-demand-price", "¥18.49", "--currency", "CNY")
    assert r.exit_code == 0, r.output
    assert "on_demand ¥18.49/replica-h" in r.stdout, r.stdout


def test_a_bare_number_is_refused_with_a_report_in_yuan(capsys: pytest.CaptureFixture[str]) -> None:
    assert _refused(capsys, "--on-demand-price", "18.49", "--currency", "CNY") == (
        "error: --on-demand-price 18.49: in which currency? The report is in CNY: write ¥18.49 for yuan "
        "or $18.49 for dollars"
    )


def test_a_bare_number_is_refused_where_the_workloads_budget_is_in_yuan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = yaml.safe_load(WORKLOAD.read_text(encoding="utf-8"))
    doc.setdefault("constraints", {})["budget_cny"] = "8万"
    f = tmp_path / "w.yaml"
    f.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    line = _refused(capsys, "--spot-price", "9", "--policy", "fixed:replicas=1,spot=1", workload=f)
    assert "--spot-price 9: in which currency? The workload's budget is in CNY" in line, line


def test_a_workload_budgeted_in_yuan_is_reported_in_yuan_unless_currency_says_otherwise(
    tmp_path: Path,
) -> None:
    # as plan shows it: a team that counts in yuan reads the simulation's money in yuan
    doc = yaml.safe_load(WORKLOAD.read_text(encoding="utf-8"))
    doc.setdefault("constraints", {})["budget_cny"] = "8万"
    f = tmp_path / "w.yaml"
    f.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    yuan = _autoscale("--on-demand-price", "¥18.49", workload=f)
    assert yuan.exit_code == 0, yuan.output
    assert "on_demand ¥18.49/replica-h" in yuan.stdout, yuan.stdout
    dollars = _autoscale("--on-demand-price", "¥18.49", "--currency", "USD", workload=f)
    assert dollars.exit_code == 0, dollars.output
    assert "on_demand 2.6468 USD/replica-h given" in dollars.stdout, dollars.stdout


def test_a_bare_number_or_dollars_with_a_report_in_dollars_is_dollars() -> None:
    assert _on_demand_usd(_autoscale("--on-demand-price", "4.8", "--json")) == 4.8
    assert _on_demand_usd(_autoscale("--on-demand-price", "$4.8", "--currency", "CNY", "--json")) == 4.8


def test_a_price_far_from_the_catalogs_for_the_instance_is_warned_of() -> None:
    # 18.49 USD = 18.49 × 6.9858 = ¥129.17 against the catalog's ¥34.74: 3.7x, past 2.6x
    r = _autoscale("--on-demand-price", "$18.49", "--currency", "CNY")
    assert r.exit_code == 0, r.output
    assert (
        "warning: --on-demand-price ¥129.17/replica-h is 3.7x the catalog's on_demand price of "
        "ecs.gn7e-c16g1.4xlarge (¥34.74/replica-h), more than 2.6x off: check its currency (¥ or $) and "
        "that it is per replica-hour"
    ) in r.stderr, r.stderr
    near = _autoscale("--on-demand-price", "¥18.49", "--currency", "CNY")  # 0.53x: a discount
    assert near.exit_code == 0 and "warning: --on-demand-price" not in near.stderr, near.stderr


def test_a_price_that_is_no_amount_is_refused_in_one_line() -> None:
    r = _autoscale("--on-demand-price", "cheap")
    assert r.exit_code == 2, r.output
    assert "cheap is not an amount: write it as ¥18.49 or $2.6" in r.stderr, r.stderr
    r = _autoscale("--on-demand-price", "$nan")
    assert r.exit_code == 2 and "nan is not a finite number" in r.stderr, r.stderr


SERVICES = ROOT / "examples" / "simulate" / "services.yaml"


def _share(*extra: str) -> Result:
    return CliRunner().invoke(app, ["simulate", "share", str(SERVICES), *extra], env={"COLUMNS": "400"})


def test_share_takes_a_price_per_gpu_hour_in_yuan() -> None:
    # ¥8.5 / 6.9858 = 1.21675 USD per GPU-hour, shown as given beside the yuan figure
    r = _share("--price", "¥8.5", "--currency", "CNY")
    assert r.exit_code == 0, r.output
    assert "price per GPU-hour ¥8.50 (1.21675 USD), given" in r.stdout, r.stdout
    doc = json.loads(_share("--price", "8.5元", "--json").stdout)
    # 2 GPUs x 8.5 / 6.9858 = 2.433508 USD an hour
    assert abs(doc["cost_usd_per_hour"] - 2 * 8.5 / 6.9858) < 1e-6, doc


def test_share_refuses_a_bare_price_with_a_report_in_yuan(capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(["simulate", "share", str(SERVICES), "--price", "8.5", "--currency", "CNY"], capsys)
    assert line == (
        "error: --price 8.5: in which currency? The report is in CNY: write ¥8.5 for yuan or $8.5 for dollars"
    )
    line = refused(["simulate", "share", str(SERVICES), "--price", "¥99999"], capsys)
    assert line == (
        "error: --price ¥99999 is 14,314.61 USD per GPU-hour: it must be from 0.01 to 1000 USD per GPU-hour"
    )


def test_the_report_says_its_costs_are_the_fleets_instances_only(tmp_path: Path) -> None:
    # set beside the plan's all-in figure, a day's cost had read as the whole bill
    r = _autoscale("--on-demand-price", "$4.8", "--out", str(tmp_path / "r.html"))
    assert r.exit_code == 0, r.output
    said = "Costs are the fleet's instances only: storage and the answers' egress are not in them"
    page = html.unescape((tmp_path / "r.html").read_text(encoding="utf-8"))
    assert said in " ".join(r.stdout.split()) and said in page


def test_a_currency_written_in_chinese_is_read_as_its_code(capsys: pytest.CaptureFixture[str]) -> None:
    # --currency 人民币 is CNY as --currency reads it: a bare number had been taken as dollars unasked
    assert _refused(capsys, "--on-demand-price", "18.49", "--currency", "人民币") == (
        "error: --on-demand-price 18.49: in which currency? The report is in CNY: write ¥18.49 for yuan "
        "or $18.49 for dollars"
    )


def test_dollars_in_chinese_need_no_catalog() -> None:
    # --currency 美元 with no catalog open had been told that CNY needs the catalog's exchange rate
    from gpuplan.cli._simulate_common import display_money_for
    from gpuplan.errors import InputError

    assert display_money_for(None, "美元").currency == "USD"
    for yuan in ("人民币", "元", "RMB"):
        with pytest.raises(InputError, match="--currency CNY needs the catalog's exchange rate"):
            display_money_for(None, yuan)
