"""A saved service plan's month cost says what it is on the budget page and in the budget
document: the autoscaled day (the fleet its day needs, the peak fleet beside it as the bound) or
the peak fleet all month — and a plan saved before plan document version 3, which priced every
service as its peak fleet, says so and that planning it again prices the day."""

from __future__ import annotations

import json
import time

import pytest
from serve_helpers import Service

#: A Llama-3.1-8B chat service whose day (a mean below its peak, min_replicas set) takes several
#: instances at its peak: priced by its day (as in tests/plan/test_plan_service_day.py).
CHAT = {
    "name": "chat",
    "task": "infer",
    "model": {"preset": "llama-8b"},
    "inputs": {"batch_size": 16, "seq_len": 1050},
    "precision": "bf16",
    "serving": {
        "requests_per_s": 15,
        "mean_requests_per_s": 6,
        "prompt_tokens": 800,
        "output_tokens": 250,
        "min_replicas": 1,
    },
    "constraints": {"providers": ["aws"], "pricing": ["on_demand"]},
}


def _service_plan(service: Service, workload: dict[str, object], name: str = "chat") -> dict:
    r = service.client.post(
        "/api/v1/workloads", json={"name": name, "workload": workload}, headers=service.auth("plan")
    )
    assert r.status_code == 201, r.text
    r = service.client.post(
        "/api/v1/plans",
        json={"name": name, "month": "2027-01"},
        headers=service.auth("plan"),
    )
    # planned at once, or (a workload to trace, a worker busy) as a job, read back once done
    assert r.status_code in (201, 202), r.text[:500]
    body = r.json()
    for _ in range(600):
        if r.status_code == 201 or body["status"] in ("done", "failed"):
            break
        time.sleep(0.5)
        body = service.client.get(body["href"], headers=service.auth("read")).json()
    if r.status_code == 202:
        assert body["status"] == "done", str(body)[:500]
        body = body["result"]
    return body


def _save_as_written_then(service: Service, document: dict, month: str) -> None:
    """``document`` (a plan as an older gpuplan wrote it) saved straight into the team store, as
    it would stand there from before, for workload ``chat`` in ``month``."""
    from gpuplan.catalog import open_store
    from gpuplan.catalog.team_store import TeamStore

    store = open_store(service.db)
    try:
        records = TeamStore(store.engine)
        records.save_plan(
            records.workload("chat"),
            month=month,
            constraints={},
            document=document,
            catalog_import_id=None,
            actor="plan-user",
        )
    finally:
        store.close()


def test_a_service_plans_month_cost_says_it_is_the_autoscaled_day_beside_its_peak_fleet(
    service: Service,
) -> None:
    # was: the budget counted the plan's figure with nothing to say it was the day-scaled one
    saved = _service_plan(service, CHAT)
    doc = service.client.get("/api/v1/budget/2027-01", headers=service.auth("read")).json()
    (item,) = doc["plans"]
    full = service.client.get(f"/api/v1/plans/{saved['id']}", headers=service.auth("read")).json()
    rec = full["document"]["recommended"]
    assert rec["service_day"] is not None, rec.get("service_day")
    assert item["cost_basis"] == "autoscaled_day"
    assert item["peak_fleet_month_cost_usd"] == pytest.approx(rec["peak_fleet_cost_usd"], abs=0.01)
    assert item["peak_fleet_month_cost_usd"] > item["month_cost_usd"]
    assert "autoscaled day" in item["cost_basis_words"] and "peak fleet all month" in item["cost_basis_words"]
    # in the reader's language
    zh = service.client.get(
        "/api/v1/budget/2027-01", headers={**service.auth("read"), "Accept-Language": "zh-CN"}
    ).json()
    assert "峰值" in zh["plans"][0]["cost_basis_words"]


def test_a_service_plan_saved_before_version_3_says_its_cost_is_the_peak_fleet(service: Service) -> None:
    # was: a plan saved before plan document version 3 kept its peak-fleet cost in the budget, with
    # nothing to tell it from a plan priced by its day
    saved = _service_plan(service, CHAT)
    full = service.client.get(f"/api/v1/plans/{saved['id']}", headers=service.auth("read")).json()
    document = json.loads(json.dumps(full["document"]))
    # the same plan as version 2 wrote it: no day, the peak fleet all month as its cost
    rec = document["recommended"]
    peak = rec["peak_fleet_cost_usd"]
    for key in ("service_day", "peak_fleet_cost_usd"):
        rec.pop(key)
    rec["total_cost_usd"] = peak
    document["schema_version"] = 2
    _save_as_written_then(service, document, "2027-02")
    doc = service.client.get("/api/v1/budget/2027-02", headers=service.auth("read")).json()
    (item,) = doc["plans"]
    assert item["month_cost_usd"] == pytest.approx(peak)
    assert item["cost_basis"] == "peak_fleet" and item["peak_fleet_month_cost_usd"] is None
    words = item["cost_basis_words"]
    assert "peak fleet all month" in words and "version 2" in words and "planning it again" in words
    # the listing says it too (it reads the version out of the stored document)
    listed = service.client.get("/api/v1/plans?month=2027-02", headers=service.auth("read")).json()["plans"]
    assert listed[0]["cost_basis"] == "peak_fleet" and "version 2" in listed[0]["cost_basis_words"]


def test_a_scheduled_services_month_cost_says_it_is_its_hours(service: Service) -> None:
    # a service on a schedule is priced for its hours; the budget had called that "the autoscaled day"
    office = {
        **CHAT,
        "name": "office",
        "serving": {
            "requests_per_s": 15,
            "prompt_tokens": 800,
            "output_tokens": 250,
            "schedule": {"hours": "09:00-19:00", "days": "mon-fri", "time_zone": "Asia/Shanghai"},
        },
    }
    _service_plan(service, office, name="office")
    doc = service.client.get("/api/v1/budget/2027-01", headers=service.auth("read")).json()
    item = next(p for p in doc["plans"] if p["workload"] == "office")
    assert item["cost_basis"] == "autoscaled_day"
    assert item["peak_fleet_month_cost_usd"] > item["month_cost_usd"]
    assert "09:00-19:00 mon,tue,wed,thu,fri (Asia/Shanghai)" in item["cost_basis_words"]


def test_a_plan_saved_before_version_6_says_its_storage_priced_the_bytes_stored(service: Service) -> None:
    # was: a plan saved at version 5 (storage priced at the bytes stored) listed beside one of today's
    # (each instance's launch disk priced) with nothing to say why its storage was lower
    saved = _service_plan(service, CHAT)
    assert saved["storage_basis"] == "launch_disk" and saved["storage_basis_words"] == ""
    full = service.client.get(f"/api/v1/plans/{saved['id']}", headers=service.auth("read")).json()
    document = json.loads(json.dumps(full["document"]))
    document["schema_version"] = 5
    document.pop("launch_disk_gb")
    _save_as_written_then(service, document, "2027-03")
    listed = service.client.get("/api/v1/plans?month=2027-03", headers=service.auth("read")).json()["plans"]
    (item,) = listed
    # it still loads, its figures as they were saved
    assert item["total_cost_usd"] == pytest.approx(saved["total_cost_usd"])
    assert item["storage_basis"] == "stored_bytes"
    assert "bytes it stores (plan document version 5)" in item["storage_basis_words"]
    assert "launch disk" in item["storage_basis_words"]
    zh = service.client.get(
        "/api/v1/plans?month=2027-03", headers={**service.auth("read"), "Accept-Language": "zh-CN"}
    ).json()["plans"]
    assert "版本 5" in zh[0]["storage_basis_words"]
