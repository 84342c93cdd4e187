"""``simulate autoscale`` with ``commit=N``: a fleet bought by the month is billed at the catalog's
monthly price for the whole span, as bought (it had been billed on demand), from the same instance's
offer; without a monthly price it is refused, never costed on demand; ``--commit-price`` gives one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from gpuplan.cli import app
from one_line import refused

ROOT = Path(__file__).resolve().parents[2]
TRACE = ROOT / "examples" / "simulate" / "load-bursty-2h-synthetic.csv"
WORKLOAD = ROOT / "examples" / "llm-inference-service.yaml"
REPLICA = "slots=64,tpot_ms=40,prefill_tps=3000"
#: One A100-SXM4-80GB. The shipped catalog sells it in cn-shanghai by the month at ¥16,676 (the
#: arthurchiao.github.io GPU prices post, "AlibabaCloud (as of 2023.06)") and on demand there too.
INSTANCE = "ecs.gn7e-c16g1.4xlarge"
#: The shipped catalog's CNY rate, USD per yuan: the CFETS central parity of 6.9858 yuan a dollar.
USD_PER_CNY = 1 / 6.9858


def _args(*extra: str, instance: str = INSTANCE) -> list[str]:
    return ["simulate", "autoscale", str(WORKLOAD), "--trace", str(TRACE), "--instance", instance,
            "--replica", REPLICA, *extra]  # fmt: skip


def _run(*extra: str) -> Result:
    return CliRunner().invoke(app, _args(*extra), env={"COLUMNS": "400"})


def _doc(*extra: str) -> dict[str, Any]:
    r = _run(*extra, "--json")
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)  # type: ignore[no-any-return]


def test_a_fleet_bought_by_the_month_costs_the_monthly_price_for_the_span() -> None:
    doc = _doc(
        "--policy", "fixed:replicas=4,name=on-demand", "--policy", "fixed:replicas=4,commit=4,name=monthly"
    )
    on_demand, monthly = doc["policies"]
    # ¥16,676 a month / 6.9858 ¥/USD / 730 h = 3.2700 USD a replica-hour
    per_hour = 16_676 * USD_PER_CNY / 730
    assert doc["prices"]["usd_per_hour"]["monthly"] == pytest.approx(per_hour, rel=1e-5)
    assert doc["prices"]["basis"]["monthly"]["region"] == "cn-shanghai"
    span_h = monthly["replica_hours"]["monthly"] / 4
    assert span_h >= doc["trace"]["duration_s"] / 3600  # the trace and its drain
    assert monthly["cost_usd"] == pytest.approx(4 * span_h * per_hour, rel=1e-6)
    assert monthly["cost_usd_by_pricing"] == {"monthly": pytest.approx(monthly["cost_usd"])}
    assert (
        monthly["behaviour"]["commit_replicas"] == 4 and monthly["behaviour"]["commit_pricing"] == "monthly"
    )
    assert "pro-rata share" in monthly["commitment_note"] and on_demand["commitment_note"] is None
    assert monthly["cost_usd"] < on_demand["cost_usd"]  # the same fleet, billed as bought
    assert "on_demand" not in monthly["replica_hours"]


def test_the_report_shows_the_committed_part_and_what_it_averages_to(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    r = _run("--policy", "queue:min=2,max=6,commit=2,name=q", "--out", str(out))
    assert r.exit_code == 0, r.output
    text = " ".join(r.stdout.split())
    assert "q: 2 committed replicas (monthly subscription) paid for all" in text, text
    assert "A commitment bills whole months or years: the committed replicas of q are charged" in text
    assert (
        "monthly 3.27 USD/replica-h: alibaba cn-shanghai ecs.gn7e-c16g1.4xlarge (2023-06) for the 2" in text
    )
    html = out.read_text(encoding="utf-8")
    assert "2 committed replicas (monthly subscription)" in html and "pro-rata share" in html


def test_a_commitment_without_a_committed_price_is_refused_with_the_fix(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The catalog sells this instance on demand only.
    line = refused(
        _args("--policy", "fixed:replicas=2,commit=2", instance="massedcompute_A100-sxm4-80G-DGX"), capsys
    )
    assert line == (
        "error: the catalog has no monthly price for A100-SXM4-80GB; give one with --commit-price PRICE "
        "(per replica-hour: a month's price ÷ 730 h)"
    )
    line = refused(_args("--policy", "fixed:replicas=2", "--commit-price", "$2"), capsys)
    assert line.startswith("error: --commit-price prices committed replicas: give a policy commit=N")


def test_a_given_commit_price_is_used_in_the_currency_it_is_written_in() -> None:
    doc = _doc("--policy", "fixed:replicas=2,commit=2,commit_pricing=reserved_1y", "--commit-price", "¥14")
    assert doc["prices"]["usd_per_hour"]["reserved_1y"] == pytest.approx(14 * USD_PER_CNY, rel=1e-6)
    assert doc["prices"]["basis"]["reserved_1y"]["given"] is True
    (p,) = doc["policies"]
    assert p["cost_usd"] == pytest.approx(p["replica_hours"]["reserved_1y"] * 14 * USD_PER_CNY, rel=1e-6)


def test_a_given_commit_price_far_from_the_instances_catalog_price_is_warned_of() -> None:
    # $0.5 a replica-hour is 0.15x the catalog's monthly 3.27 USD (¥16,676 ÷ 730 h); $3 is near it
    r = _run("--policy", "fixed:replicas=2,commit=2", "--commit-price", "$0.5")
    assert r.exit_code == 0, r.output
    assert (
        "warning: --commit-price $0.50/replica-h is 0.15x the catalog's monthly price of "
        "ecs.gn7e-c16g1.4xlarge ($3.27/replica-h), more than 2.6x off"
    ) in r.stderr, r.stderr
    near = _run("--policy", "fixed:replicas=2,commit=2", "--commit-price", "$3")
    assert near.exit_code == 0 and "warning: --commit-price" not in near.stderr, near.stderr
