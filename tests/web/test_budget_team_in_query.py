"""A budget's team in the request body is said to go in the query string (``?team=``): it had been
answered "did you mean 'note'?"."""

from __future__ import annotations

from serve_helpers import Service


def test_a_team_in_the_budget_body_is_pointed_at_the_query_string(service: Service) -> None:
    c = service.client
    r = c.put(
        "/api/v1/budget/2027-05", json={"amount_usd": 1000, "team": "search"}, headers=service.auth("admin")
    )
    assert r.status_code == 400, r.text
    assert "did you mean 'note'" not in r.text, r.text
    assert (
        "unknown key 'team': the team goes in the query string, not the body: "
        "PUT /api/v1/budget/MONTH?team=NAME (without it, the whole service's budget)"
    ) in r.text, r.text
