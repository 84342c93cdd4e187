"""``gpuplan tco`` end to end on the shipped catalog: the JSON contract, the HTML report, errors."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from one_line import ran

ROOT = Path(__file__).resolve().parents[2]
TCO = ROOT / "examples" / "tco"


def _run(db: Path, capsys: pytest.CaptureFixture[str], *args: str) -> subprocess.CompletedProcess[str]:
    """``gpuplan --db DB tco ARGS``, through its entry point in this process."""
    return ran(["--db", str(db), "tco", *args], capsys)


@pytest.fixture(scope="module")
def db(seeded_copy: Callable[[str], Path]) -> Path:
    return seeded_copy("tco_cli")


def test_json_follows_the_contract_and_is_never_dearer_than_on_demand(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    r = _run(db, capsys, str(TCO / "alibaba-3y-subscription.yaml"), "--json", "--currency", "USD")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    for key in ("schema_version", "horizon_months", "display_currency", "total_cost_usd",
                "all_on_demand_cost_usd", "savings_pct", "monthly", "commitments",
                "break_even_utilisation", "sensitivity", "notes"):  # fmt: skip
        assert key in doc, key
    assert doc["display_currency"] == "USD" and doc["horizon_months"] == 36 and len(doc["monthly"]) == 36
    assert doc["total_cost_usd"] <= doc["all_on_demand_cost_usd"]
    monthly_sum = sum(m["cost_usd"] for m in doc["monthly"])
    assert monthly_sum + doc["past_horizon_cost_usd"] == pytest.approx(doc["total_cost_usd"])
    # The catalog has no Alibaba 3-year price from a sourced list: the report says so.
    assert any(n.startswith("reserved_3y: no usable price for A100-SXM4-40GB") for n in doc["notes"])


def test_html_report_in_chinese(db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.html"
    r = _run(db, capsys, str(TCO / "reserved-plus-spot.yaml"), "--out", str(out), "--lang", "zh")
    assert r.returncode == 0, r.stderr
    page = out.read_text(encoding="utf-8")
    assert "<svg" in page and "每月费用" in page
    assert "总计" in r.stdout
    # The notes and demand lines follow the language too, not only the headline and the tables.
    assert "每月按 730 小时计" in page and "直接给定" in page and "求解器" in page
    assert "a month is 730 h" not in page and "given:" not in page


def test_bad_usage_is_one_line_and_exit_1(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "u.yaml"
    bad.write_text("horizon_months: 12\ndemands: [{name: a, gpu: a100-40gb, gpus: 1, hour_per_month: 5}]\n")
    r = _run(db, capsys, str(bad))
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "did you mean 'hours_per_month'" in lines[0], r.stderr
    r = _run(db, capsys, str(TCO / "alibaba-3y-subscription.yaml"), "--out", str(tmp_path / "r.pdf"))
    assert r.returncode == 1 and r.stderr.strip() == f"error: --out {tmp_path / 'r.pdf'}: write a .html file"


def test_no_saving_reads_zero_not_minus_zero(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two L4s on demand all year and nothing committable cheaper: the schedule is all on demand, and
    # a total a hair above the baseline must not print as "-0.0" in the JSON.
    usage = tmp_path / "u.yaml"
    usage.write_text(
        "horizon_months: 12\nstart: 2027-01\n"
        "demands:\n  - {name: s, gpu: L4, gpus: 2, hours_per_month: 730}\n"
        "constraints: {pricing: [on_demand]}\n"
    )
    r = _run(db, capsys, str(usage), "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["total_cost_usd"] == doc["all_on_demand_cost_usd"]
    assert '"savings_pct": -0.0' not in r.stdout and doc["savings_pct"] == 0.0


def test_countries_keep_every_offer_bought_in_them_and_a_typo_is_one_line(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from gpuplan.plan.region_countries import region_country

    usage = tmp_path / "u.yaml"
    usage.write_text(
        "horizon_months: 12\nstart: 2027-01\n"
        "demands:\n  - {name: pool, gpu: A100-SXM4-40GB, gpus: 8, hours_per_month: 730}\n"
    )
    r = _run(db, capsys, str(usage), "--json", "--countries", "CN")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    bought = [*doc["commitments"], *doc["hourly_prices"]]
    assert bought and {region_country(o["provider"], o["region"]) for o in bought} == {"CN"}
    r = _run(db, capsys, str(usage), "--countries", "Chian")
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1, r.stderr
    assert "unknown country 'Chian'; did you mean 'china'" in lines[0]
    # an empty list is not "anywhere": data residency is never dropped by a blank flag
    r = _run(db, capsys, str(usage), "--countries", " , ")
    assert r.returncode == 1 and "list at least one country" in r.stderr, r.stderr


def test_a_firm_demand_is_said_not_to_run_on_the_spot_the_usage_allows(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A plan of the same service recommended spot and tco priced on demand, without a word on why
    usage = tmp_path / "u.yaml"
    usage.write_text(
        "horizon_months: 12\nstart: 2027-01\n"
        "demands:\n  - {name: svc, gpu: L4, gpus: 2, hours_per_month: 730}\n"
        "  - {name: batch, gpu: L4, gpus: 2, hours_per_month: 100, interruptible: true, checkpoint_gb: 0}\n"
        "constraints: {pricing: [on_demand, spot]}\n"
    )
    r = _run(db, capsys, str(usage), "--json")
    assert r.returncode == 0, r.stderr
    notes = json.loads(r.stdout)["notes"]
    # a direct demand is a job unless it says interruptible: true (a service from a workload file may
    # run on spot with its spare, as plan prices it)
    assert (
        "svc: not run on spot although the usage allows it: given in GPU-hours, not said to checkpoint "
        "and resume; interruptible: true lets a demand run there" in notes
    )
    assert not any(n.startswith("batch: not run on spot") for n in notes)
