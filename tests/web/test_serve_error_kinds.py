"""Every refusal is one document whose ``kind`` is one of a fixed, documented vocabulary, one HTTP
status each: a client branches on ``kind``. It had been the library's exception class for some
refusals (``NotFoundError``, ``ForbiddenError``, ``AbsentError``, ``InputError``, with ``field``
null where a field was at fault) and snake_case words for others (``invalid_request``,
``unauthorized``)."""

from __future__ import annotations

import re
from typing import Any, get_args

import pytest
from serve_helpers import Service, bert_workload, hold_the_minute

from gpuplan.documents.serve import ErrorKind

#: The status each kind is answered with (422 has two kinds: no answer, and no estimate).
STATUS_OF_KIND = {
    "invalid_request": 400,
    "unauthorized": 401,
    "forbidden": 403,
    "not_found": 404,
    "method_not_allowed": 405,
    "too_large": 413,
    "infeasible": 422,
    "cannot_estimate": 422,
    "rate_limited": 429,
    "internal_error": 500,
    "unavailable": 503,
}


def _refusal(r: Any, kind: str, field: str | None = None) -> dict[str, Any]:
    """The refusal's document, checked to be of ``kind``, with its status and ``field``."""
    doc = r.json()
    assert (r.status_code, doc["kind"], doc["field"]) == (STATUS_OF_KIND[kind], kind, field), r.text
    assert set(doc) == {"schema_version", "error", "kind", "field", "message"}, doc
    assert doc["error"] and "\n" not in doc["error"], doc
    return doc


def _token(service: Service, name: str, team: str | None = None, rate: int = 120) -> dict[str, str]:
    """A new plan-scope token's header."""
    from gpuplan.catalog import open_store
    from gpuplan.catalog.team_store import TeamStore

    store = open_store(service.db)
    try:
        token = TeamStore(store.engine).create_token(name, "plan", team=team, rate_per_minute=rate)[0]
    finally:
        store.close()
    return {"Authorization": f"Bearer {token}"}


def test_the_vocabulary_is_the_documents_and_the_openapi_enum() -> None:
    assert set(get_args(ErrorKind)) == set(STATUS_OF_KIND)


def test_the_openapi_document_lists_the_kinds(service: Service) -> None:
    spec = service.client.get("/api/openapi.json").json()
    kind = spec["components"]["schemas"]["ErrorDocument"]["properties"]["kind"]
    assert set(kind["enum"]) == set(STATUS_OF_KIND), kind
    assert "invalid_request" in kind["description"] and "NotFoundError" not in kind["description"]


def test_what_is_not_there_is_not_found(service: Service) -> None:
    c, read = service.client, service.auth("read")
    # was kind "AbsentError"
    assert (
        _refusal(c.get("/api/v1/plans/424242", headers=read), "not_found")["error"] == "no saved plan 424242"
    )
    gone = c.delete("/api/v1/catalog/discounts?provider=aws", headers=service.auth("admin"))
    _refusal(gone, "not_found")
    _refusal(c.get("/api/v1/jobs/" + "0" * 24, headers=read), "not_found")
    _refusal(c.get("/api/v1/nowhere", headers=read), "not_found")


def test_another_teams_workload_and_a_scope_below_are_forbidden(service: Service) -> None:
    c = service.client
    body = {"name": "chat", "workload": bert_workload()}
    mine = _token(service, "infer", "inference")
    assert c.post("/api/v1/workloads", json=body, headers=mine).status_code == 201
    theirs = c.post("/api/v1/workloads", json=body, headers=_token(service, "train", "training"))
    assert "'inference'" in _refusal(theirs, "forbidden")["error"]  # was kind "ForbiddenError"
    _refusal(
        c.put("/api/v1/budget/2027-01", json={"amount_usd": 1}, headers=service.auth("plan")), "forbidden"
    )


def test_a_refused_value_is_an_invalid_request_naming_its_field(service: Service) -> None:
    c, read = service.client, service.auth("read")
    _refusal(c.get("/api/v1/offers?max_price=nan", headers=read), "invalid_request", "max_price")
    # a check of the value, not the schema: was kind "InputError"
    _refusal(c.get("/api/v1/offers?gpu=H10", headers=read), "invalid_request", "gpu")
    # an unknown team: was kind "NotFoundError" with field null
    _refusal(c.get("/api/v1/budget/2027-01?team=nlpp", headers=read), "invalid_request", "team")
    _refusal(c.get("/api/v1/plans?team=nlpp", headers=read), "invalid_request", "team")
    admin = service.auth("admin")
    _refusal(
        c.put("/api/v1/budget/2027-01?team=x", json={"amount_usd": 1}, headers=admin),
        "invalid_request",
        "team",
    )


def test_a_token_missing_or_too_many_requests(service: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    hold_the_minute(monkeypatch)
    _refusal(service.client.get("/api/v1/offers"), "unauthorized")
    h = _token(service, "slow", rate=1)
    assert service.client.get("/api/v1/gpus", headers=h).status_code == 200
    _refusal(service.client.get("/api/v1/gpus", headers=h), "rate_limited")


def test_a_token_refusal_is_in_the_callers_language_as_every_refusal_is(service: Service) -> None:
    # ``message`` is the refused value's problem alone (a form's field label goes before it): null
    # for a refusal of no value, the token's as a missing page's; ``error`` is the line to show.
    c, zh = service.client, {"Accept-Language": "zh-CN,zh;q=0.9"}
    read = {**zh, **service.auth("read")}
    refusals = [
        (c.get("/api/v1/offers", headers=zh), "unauthorized"),
        (c.get("/api/v1/offers", headers={**zh, "Authorization": "Bearer gpuplan_0_nope"}), "unauthorized"),
        (c.post("/api/v1/catalog/refresh", json={}, headers=read), "forbidden"),
        (c.get("/api/v1/nowhere", headers=read), "not_found"),
    ]
    for r, kind in refusals:
        doc = _refusal(r, kind)
        assert re.search("[\u4e00-\u9fff]", doc["error"]) and doc["message"] is None, doc


def test_a_workload_no_gpu_named_can_run_cannot_be_estimated(service: Service) -> None:
    body = {"workload": {**bert_workload(), "precision": "fp8"}, "gpus": ["A100-SXM4-80GB"]}
    r = service.client.post("/api/v1/estimate", json=body, headers=service.auth("plan"))
    _refusal(r, "cannot_estimate")  # was kind "EstimateError"


def test_a_fault_of_the_service_is_the_same_document(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fastapi.testclient import TestClient

    import gpuplan.web.work as work

    def broken(*_a: object, **_k: object) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(work, "budget_document", broken)
    client = TestClient(service.client.app, raise_server_exceptions=False)
    r = client.get("/api/v1/budget/2027-01", headers=service.auth("read"))
    assert "a bug" not in _refusal(r, "internal_error")["error"]  # was Starlette's plain text


def test_a_plan_nothing_meets_is_infeasible(service: Service) -> None:
    workload = bert_workload()
    workload["constraints"] = {**workload["constraints"], "deadline": "1m"}
    r = service.client.post("/api/v1/plan", json={"workload": workload}, headers=service.auth("plan"))
    _refusal(r, "infeasible")  # was kind "PlanInfeasibleError"
