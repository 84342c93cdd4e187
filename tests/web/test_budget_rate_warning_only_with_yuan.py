"""A budget's answer warns that the CNY rate is old only where yuan are involved: a budget in yuan
(or a plan priced from yuan), not a team whose budgets and plans are all in US dollars."""

from __future__ import annotations

from serve_helpers import Service


def test_a_dollar_budget_carries_no_old_yuan_rate_warning_and_a_yuan_one_does(service: Service) -> None:
    c = service.client
    # was: every budget answer said "the CNY rate of 2026-01-27 is 314 days old"
    usd = c.put("/api/v1/budget/2027-03", json={"amount_usd": 1000}, headers=service.auth("admin"))
    assert usd.status_code == 200, usd.text
    rate = usd.json()["exchange_rate"]
    assert rate is not None and rate["stale"] is True  # the catalog's rate is old…
    assert rate["warning"] is None  # …and no news to a team with no yuan
    got = c.get("/api/v1/budget/2027-03", headers=service.auth("read")).json()
    assert got["exchange_rate"]["warning"] is None
    cny = c.put("/api/v1/budget/2027-04", json={"amount_cny": 7000}, headers=service.auth("admin"))
    assert cny.status_code == 200, cny.text
    assert "days old" in cny.json()["exchange_rate"]["warning"]
    got = c.get("/api/v1/budget/2027-04", headers=service.auth("read")).json()
    assert "days old" in got["exchange_rate"]["warning"]
