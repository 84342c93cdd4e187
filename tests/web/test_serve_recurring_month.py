"""A saved plan's month shares what its runs share, as ``gpuplan tco`` counts them: a monthly
subscription once for the instances the runs need, and a dataset moved into another region once,
kept in the region's object storage, where that costs less than moving it in for every run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from serve_helpers import MONTHLY_QUOTE, Service, nightly_workload


def _save_nightly(service: Service, lang: str = "en") -> dict[str, Any]:
    c = service.client
    r = c.post("/api/v1/catalog/import?format=gpuplan", json=MONTHLY_QUOTE, headers=service.auth("admin"))
    assert r.status_code == 200, r.text
    r = c.post(
        "/api/v1/workloads",
        json={"name": "nightly", "workload": nightly_workload()},
        headers=service.auth("plan"),
    )
    assert r.status_code == 201, r.text
    r = c.post(
        f"/api/v1/plans?lang={lang}",
        json={
            "name": "nightly",
            "month": "2027-02",
            "runs_per_month": 30,
            "providers": ["volcengine"],
            "pricing": ["monthly"],
        },
        headers=service.auth("plan"),
    )
    assert r.status_code == 201, r.text
    return r.json()


def test_a_monthly_plan_of_30_runs_pays_its_subscription_once_and_keeps_one_data_copy(
    service: Service,
) -> None:
    # the month was 30 × one run's plan, each holding the whole month's subscription and a 2 TB copy:
    # 30 subscriptions and 30 copies for one subscription's month
    saved = _save_nightly(service)
    option = saved["document"]["recommended"]
    assert option["pricing"] == "monthly" and option["region"] == "cn-beijing"
    items = {i["component"]: i for i in option["cost_breakdown"]["items"]}
    compute, moved_in = option["cost_breakdown"]["compute_usd"], items["egress_in"]["cost_usd"]
    assert moved_in > 0  # the data is in Alibaba's region, the instance at Volcano Engine's
    copy = option["data_copy"]
    assert copy["copy_in_usd"] == pytest.approx(moved_in / items["egress_in"]["multiplier"])
    assert copy["storage_usd_per_month"] > 0
    month = saved["month_breakdown"]
    # 30 runs of a few hours fit one month of the run's instances: one subscription each
    nodes = option["nodes"]
    assert 30 * option["job_time_h"] < 730 and month["commitment_units"] == nodes
    assert month["commitment_usd"] == pytest.approx(nodes * option["price_usd_per_month"])
    per_run = saved["total_cost_usd"] - compute - moved_in
    assert month["runs_usd"] == pytest.approx(30 * per_run, abs=0.01)
    kept = copy["copy_in_usd"] + copy["storage_usd_per_month"]
    assert month["data_kept"] and month["data_kept_usd"] == pytest.approx(kept, abs=0.01)
    assert month["data_each_run_usd"] == pytest.approx(30 * moved_in, abs=0.01)
    want = 30 * per_run + nodes * option["price_usd_per_month"] + kept
    assert saved["month_cost_usd"] == pytest.approx(want)
    assert saved["month_cost_usd"] < saved["total_cost_usd"] * 30 / 20  # not 30 subscriptions
    assert (
        saved["month_note"].startswith("30 runs: ")
        and f"commitment once ({nodes} × monthly" in saved["month_note"]
    )
    # the budget counts the month so, and says it in the budget's currency
    c = service.client
    c.put("/api/v1/budget/2027-02", json={"amount_cny": 400000}, headers=service.auth("admin"))
    doc = c.get("/api/v1/budget/2027-02?lang=zh", headers=service.auth("read")).json()
    [line] = doc["plans"]
    assert doc["planned_cny"] == pytest.approx(line["month_cost_cny"], abs=0.01)
    assert line["month_cost_cny"] == pytest.approx(saved["month_cost_usd"] / saved["usd_per_cny"], abs=0.01)
    assert line["month_note"].startswith("30 次运行：") and f"¥{nodes * 160000:,}" in line["month_note"]
    assert "只计一次" in line["month_note"] and "对象存储" in line["month_note"]
    assert doc["used_pct"] < 100


def test_the_saved_month_agrees_with_tco_on_the_same_runs(service: Service, tmp_path: Path) -> None:
    # tco counts the subscription once and keeps one copy in the region: the budget said 4.5× to
    # 114× more for the same job
    from gpuplan.catalog import open_store
    from gpuplan.commit import tco

    saved = _save_nightly(service)
    (tmp_path / "nightly.yaml").write_text(yaml.safe_dump(nightly_workload()), encoding="utf-8")
    usage = {
        "horizon_months": 1,
        "start": "2027-02",
        "demands": [{"name": "nightly", "workload": "nightly.yaml", "runs_per_month": 30}],
        "constraints": {"providers": ["volcengine"], "pricing": ["monthly"]},
    }
    (tmp_path / "usage.yaml").write_text(yaml.safe_dump(usage), encoding="utf-8")
    store = open_store(service.db, seed=False)
    try:
        report = tco(tmp_path / "usage.yaml", store=store)
    finally:
        store.close()
    assert report.schedule.total_usd == pytest.approx(saved["month_cost_usd"], rel=1e-6)
