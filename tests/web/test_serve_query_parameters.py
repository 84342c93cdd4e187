"""A query parameter a route does not take is refused as a body's unknown key is: 400, the
parameter as ``field``, the nearest known one ("did you mean 'provider'?") and the route's own
parameters listed, in the caller's language. ``?provder=alibaba`` had been dropped without a word,
and the listing of every provider answered as if it were alibaba's."""

from __future__ import annotations

import re

import pytest
from serve_helpers import Service


def test_a_misspelt_filter_is_refused_with_the_nearest_parameter(service: Service) -> None:
    r = service.client.get("/api/v1/offers?provder=alibaba&gpu=A10", headers=service.auth("read"))
    assert r.status_code == 400, r.text
    doc = r.json()
    assert doc["kind"] == "invalid_request"  # as an unknown key of a body is
    assert doc["field"] == "provder"
    assert doc["message"].startswith("unknown query parameter 'provder'; did you mean 'provider'?"), doc
    assert doc["error"] == "query.provder: " + doc["message"]
    # the route's parameters listed, the language's as every route's
    assert "gpu, count, min_gpu_memory, provider, region" in doc["message"] and "lang" in doc["message"]
    ok = service.client.get("/api/v1/offers?provider=alibaba&gpu=A10", headers=service.auth("read"))
    assert ok.status_code == 200
    assert {o["provider"] for o in ok.json()["offers"]} == {"alibaba"}


def test_an_unlike_parameter_is_refused_with_the_known_ones(service: Service) -> None:
    r = service.client.get("/api/v1/audit?zzz=1", headers=service.auth("admin"))
    assert r.status_code == 400, r.text
    assert r.json()["message"] == "unknown query parameter 'zzz'; it takes limit, lang"


def test_the_refusal_is_in_the_callers_language(service: Service) -> None:
    r = service.client.get("/api/v1/offers?lang=zh&countrys=CN", headers=service.auth("read"))
    assert r.status_code == 400, r.text
    assert r.json()["field"] == "countrys"
    assert re.search("[\u4e00-\u9fff]", r.json()["message"]), r.json()


def test_a_caller_without_a_token_learns_nothing_of_its_parameters(service: Service) -> None:
    assert service.client.get("/api/v1/offers?provder=alibaba").status_code == 401


def test_a_long_name_is_cut(service: Service) -> None:
    r = service.client.get("/api/v1/gpus?" + "x" * 5000 + "=1", headers=service.auth("read"))
    assert r.status_code == 400
    assert len(r.json()["error"]) < 300


def _get_routes() -> list[str]:
    from gpuplan.web.routes_api import router as api
    from gpuplan.web.routes_team import router as team

    return sorted({r.path for r in [*api.routes, *team.routes] if "GET" in getattr(r, "methods", ())})


@pytest.mark.parametrize("path", _get_routes())
def test_every_api_get_route_refuses_an_unknown_parameter(service: Service, path: str) -> None:
    address = re.sub(r"\{[^}]+\}", "x", path)  # the check comes before the address's own
    r = service.client.get(f"{address}?limt=5", headers=service.auth("admin"))
    assert r.status_code == 400, (path, r.text)
    assert r.json()["field"] == "limt", (path, r.json())


def test_a_post_route_refuses_one_too(service: Service) -> None:
    r = service.client.post("/api/v1/tco?currncy=CNY", json={"usage": {}}, headers=service.auth("plan"))
    assert r.status_code == 400, r.text
    assert r.json()["field"] == "currncy"


def test_hosts_provider_keeps_provider_run_machines_as_the_command_does(service: Service) -> None:
    # the answer said host_kind and hosts_left_out, but ?hosts= was refused as unknown
    url = "/api/v1/offers?gpu=RTX-4090&all_regions=true"
    every = service.client.get(url, headers=service.auth("read"))
    assert every.status_code == 200, every.text
    assert "community_host" in {o["host_kind"] for o in every.json()["offers"]}
    kept = service.client.get(url + "&hosts=provider", headers=service.auth("read"))
    assert kept.status_code == 200, kept.text
    run = kept.json()
    assert {o["host_kind"] for o in run["offers"]} <= {"cloud_vm", "bare_metal", "secure_cloud", "resold"}
    assert run["hosts_left_out"] == len(every.json()["offers"]) - len(run["offers"]) > 0
