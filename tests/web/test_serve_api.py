"""The API as a client sees it: the CLI's documents, tokens and scopes, refusals, the plan cache."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from serve_helpers import Service, bert_workload, hold_the_minute, make_tokens

from gpuplan.catalog.providers import provider_runs
from gpuplan.catalog.revisions import HEAD_REVISION
from gpuplan.documents import (
    CatalogInfoDocument,
    GpusDocument,
    HistoryDocument,
    OffersDocument,
    PlanDocument,
    TcoDocument,
)
from gpuplan.documents.serve import ErrorDocument
from gpuplan.plan.region_countries import region_country


def _error(response: Any, status: int) -> str:
    assert response.status_code == status, response.text
    return ErrorDocument.model_validate(response.json()).error


def test_health_needs_no_token_and_names_the_revision(service: Service) -> None:
    r = service.client.get("/api/v1/health")
    assert r.status_code == 200
    assert r.json()["status"] == "ok" and r.json()["schema_revision"] == HEAD_REVISION


def test_health_shows_anyone_the_database_kind_and_only_an_admin_its_address(service: Service) -> None:
    anyone = service.client.get("/api/v1/health").json()
    assert anyone["database"] == "sqlite" and anyone["reachable"] is True
    assert anyone["database_url"] is None and service.db not in json.dumps(anyone)
    reader = service.client.get("/api/v1/health", headers=service.auth("read")).json()
    assert reader["database_url"] is None
    admin = service.client.get("/api/v1/health", headers=service.auth("admin")).json()
    assert admin["database_url"] == f"sqlite:///{service.db}"


def test_health_says_503_unreachable_when_the_database_does_not_answer(service: Service) -> None:
    from gpuplan.errors import StoreError

    def broken() -> Any:
        raise StoreError("the database is down")

    service.client.app.state.stores.get = broken  # type: ignore[attr-defined]
    r = service.client.get("/api/v1/health")
    assert r.status_code == 503
    assert r.json()["status"] == "unavailable" and r.json()["reachable"] is False


def test_no_wrong_revoked_or_expired_token_gets_401(service: Service) -> None:
    from datetime import datetime, timedelta, timezone

    from sqlalchemy import create_engine, update

    from gpuplan.catalog import schema as t
    from gpuplan.catalog.team_store import TeamStore, now_iso

    c = service.client
    assert "Bearer" in _error(c.get("/api/v1/offers"), 401)
    _error(c.get("/api/v1/offers", headers={"Authorization": "Bearer gpuplan_00000000_nope"}), 401)
    forged = service.tokens["read"][:-4] + "AAAA"
    _error(c.get("/api/v1/offers", headers={"Authorization": f"Bearer {forged}"}), 401)
    engine = create_engine(f"sqlite:///{service.db}")
    team = TeamStore(engine)
    token, info = team.create_token("temp", "read")
    assert c.get("/api/v1/offers", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    past = now_iso(datetime.now(timezone.utc) - timedelta(minutes=1))
    with engine.begin() as conn:
        conn.execute(update(t.api_tokens).where(t.api_tokens.c.id == info.id).values(expires_at=past))
    assert "expired" in _error(c.get("/api/v1/offers", headers={"Authorization": f"Bearer {token}"}), 401)
    team.revoke_token("read-user")
    _error(c.get("/api/v1/offers", headers=service.auth("read")), 401)
    engine.dispose()


def test_a_read_only_token_gets_403_on_plan_and_admin_endpoints(service: Service) -> None:
    c, read = service.client, service.auth("read")
    assert "does not allow plan" in _error(
        c.post("/api/v1/plan", json={"workload": bert_workload()}, headers=read), 403
    )
    _error(c.put("/api/v1/catalog/discounts", json={"provider": "aws", "percent": 10}, headers=read), 403)
    _error(c.put("/api/v1/budget/2027-01", json={"amount_usd": 100}, headers=service.auth("plan")), 403)


def test_the_rate_limit_is_per_token_and_says_when_to_retry(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    hold_the_minute(monkeypatch)
    from sqlalchemy import create_engine

    from gpuplan.catalog.team_store import TeamStore

    engine = create_engine(f"sqlite:///{service.db}")
    token, _ = TeamStore(engine).create_token("slow", "read", rate_per_minute=3)
    engine.dispose()
    h = {"Authorization": f"Bearer {token}"}
    codes = [service.client.get("/api/v1/catalog/discounts", headers=h).status_code for _ in range(5)]
    assert codes[:3] == [200, 200, 200] and 429 in codes[3:]
    r = service.client.get("/api/v1/catalog/discounts", headers=h)
    assert r.status_code == 429 and r.headers["retry-after"] == "55"  # the minute's 55 seconds left
    # another token is not slowed by this one
    assert service.client.get("/api/v1/catalog/discounts", headers=service.auth("read")).status_code == 200


def test_a_body_over_the_limit_is_refused_with_413(service: Service) -> None:
    big = {"workload": bert_workload(), "baseline": "x" * (5 * 1024 * 1024)}
    _error(service.client.post("/api/v1/plan", json=big, headers=service.auth("plan")), 413)


@pytest.mark.parametrize(
    ("model", "extra", "words"),
    [
        ({"python": "mypkg.model:build"}, None, "not run by the service"),
        ({"hf_config": "/etc/passwd"}, None, "reads no file of its disk"),
        ({"preset": "gpt2", "project_dir": "/root"}, None, "reads no folder"),
        ({"hf_config": "inline"}, {"model_type": "llama", "auto_map": {"AutoModel": "x.Y"}}, "auto_map"),
        # refused before a job is queued, naming the request's field, not the server's scratch file
        (
            {"hf_config": "inline"},
            {"model_type": "nope"},
            "hf_config_json: model_type 'nope' is not a model type transformers",
        ),
        ({"hf_config": "inline"}, {"model_type": "llama"}, "hf_config_json: no 'hidden_size'"),
        # transformers' validators raise their own types (a 500 once the check ran before the job)
        (
            {"hf_config": "inline"},
            {
                "model_type": "llama",
                "hidden_size": 64,
                "num_hidden_layers": 2,
                "num_attention_heads": 4,
                "intermediate_size": 128,
                "vocab_size": 100,
                "torch_dtype": "nonsense",
            },
            "hf_config_json: cannot be read as a Hugging Face config",
        ),
        # the reader's own refusal named the server's scratch copy
        ({"hf_config": "inline"}, {"model_type": "llama", "hidden_size": "abc"}, "hf_config_json"),
    ],
)
def test_no_code_or_server_path_from_a_request_is_used(
    service: Service, model: dict[str, Any], extra: dict[str, Any] | None, words: str
) -> None:
    w = {"name": "x", "model": model, "inputs": {"batch_size": 1, "seq_len": 8}}
    body = {"workload": w, **({"hf_config_json": extra} if extra else {})}
    error = _error(service.client.post("/api/v1/plan", json=body, headers=service.auth("plan")), 400)
    assert words in error and "/hf/" not in error and "tmp" not in error


def test_errors_speak_the_request_language(service: Service) -> None:
    body = {"workload": {"name": "x", "model": {"python": "a.b:c"}, "inputs": {"batch_size": 1}}}
    zh = service.client.post("/api/v1/plan?lang=zh", json=body, headers=service.auth("plan"))
    en = service.client.post("/api/v1/plan", json=body, headers=service.auth("plan"))
    assert _error(zh, 400) != _error(en, 400)
    assert any("\u4e00" <= ch <= "\u9fff" for ch in zh.json()["error"])


def test_plan_answers_the_cli_document_at_once_on_a_cached_profile_then_from_the_plan_cache(
    service: Service,
) -> None:
    from gpuplan.catalog import open_store
    from gpuplan.plan import plan_workload
    from gpuplan.profile import profile
    from gpuplan.report.plan import plan_json
    from gpuplan.workload import load_workload

    body = {"workload": bert_workload(), "deadline": "6h"}
    first = service.client.post("/api/v1/plan", json=body, headers=service.auth("plan"))
    assert first.status_code == 200, first.text
    doc = PlanDocument.model_validate(first.json())
    store = open_store(service.db)
    try:
        w = load_workload(bert_workload())
        plan = plan_workload(w, profile(w, store.local), store, overrides={"deadline_h": 6.0})
        want = plan_json(plan, w.to_dict(), store.find_exchange_rate("CNY")).model_dump(mode="json")
    finally:
        store.close()
    assert doc.recommended.total_cost_usd == pytest.approx(want["recommended"]["total_cost_usd"])
    assert doc.recommended.instance_type == want["recommended"]["instance_type"]
    again = service.client.post("/api/v1/plan", json=body, headers=service.auth("plan"))
    assert again.json() == first.json()
    from sqlalchemy import create_engine, text

    engine = create_engine(f"sqlite:///{service.db}")
    with engine.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM plan_cache")).scalar() == 1
    engine.dispose()


def test_max_gpus_past_the_planners_search_is_refused_as_the_cli_refuses_it(service: Service) -> None:
    # The planner searches at most 64 GPUs in all: 1000 was accepted and planned as 64, for the
    # request and for a workload whose own constraints say so; neither is queued.
    h = service.auth("plan")
    said = _error(
        service.client.post("/api/v1/plan", json={"workload": bert_workload(), "max_gpus": 1000}, headers=h),
        400,
    )
    assert said.startswith("max_gpus: ") and "64" in said, said
    said = _error(
        service.client.post("/api/v1/plan", json={"workload": bert_workload(), "max_nodes": 65}, headers=h),
        400,
    )
    assert said.startswith("max_nodes: ") and "64" in said, said
    w = {**bert_workload(), "constraints": {"max_gpus": 1000}}
    said = _error(service.client.post("/api/v1/plan", json={"workload": w}, headers=h), 400)
    assert said.endswith("constraints.max_gpus: must be ≤ 256 (got 1000)"), said
    # the service keeps its search at 64 GPUs, whatever the workload asks (`plan --max-gpus` goes to 256)
    w = {**bert_workload(), "constraints": {"max_gpus": 128}}
    said = _error(service.client.post("/api/v1/plan", json={"workload": w}, headers=h), 400)
    assert said.endswith("constraints.max_gpus: must be ≤ 64 (got 128), the most this service plans for"), (
        said
    )
    ok = service.client.post("/api/v1/plan", json={"workload": bert_workload(), "max_gpus": 64}, headers=h)
    assert ok.status_code == 200, ok.text


def test_min_gpus_of_a_request_plans_that_many_and_is_refused_above_max_gpus(service: Service) -> None:
    h = service.auth("plan")

    def plan(**fields: Any) -> Any:
        return service.client.post("/api/v1/plan", json={"workload": bert_workload(), **fields}, headers=h)

    ok = plan(min_gpus=4, max_gpus=4)
    assert ok.status_code == 200, ok.text
    doc = ok.json()
    assert {o["gpu_count"] for o in [doc["recommended"], *doc["options"]]} == {4}
    assert doc["constraints"]["min_gpus"] == 4
    said = _error(plan(min_gpus=8, max_gpus=4), 400)
    assert "min_gpus 8 is more than max_gpus 4" in said, said
    said = _error(plan(min_gpus=65), 400)
    assert said.startswith("min_gpus: ") and "64" in said, said
    # a workload's own floor past the service's search is refused as its max_gpus is
    said = _error(plan(workload={**bert_workload(), "constraints": {"min_gpus": 128}}), 400)
    assert said.endswith("constraints.min_gpus: must be ≤ 64 (got 128), the most this service plans for"), (
        said
    )


def test_a_discount_changes_the_cached_plan_and_is_audited(service: Service) -> None:
    body = {"workload": bert_workload()}
    h = service.auth("plan")
    before = service.client.post("/api/v1/plan", json=body, headers=h).json()["recommended"]
    provider = before["provider"]
    r = service.client.put(
        "/api/v1/catalog/discounts",
        # the pricing model the plan buys named: a discount names the models it is taken off
        json={"provider": provider, "percent": 50, "note": "contract", "pricing": [before["pricing"]]},
        headers=service.auth("admin"),
    )
    assert r.status_code == 200 and r.json()["discounts"][0]["percent"] == 50
    after = service.client.post("/api/v1/plan", json=body, headers=h).json()["recommended"]
    assert after["total_cost_usd"] < before["total_cost_usd"]
    audit = service.client.get("/api/v1/audit", headers=service.auth("admin")).json()["entries"]
    assert any(e["action"] == "discount.set" and e["actor"] == "admin-user" for e in audit)
    assert all(service.tokens["admin"] not in json.dumps(e) for e in audit)


def test_catalog_documents_validate_against_their_models(service: Service) -> None:
    c, h = service.client, service.auth("read")
    OffersDocument.model_validate(c.get("/api/v1/offers?gpu=H100&currency=CNY", headers=h).json())
    GpusDocument.model_validate(c.get("/api/v1/gpus", headers=h).json())
    CatalogInfoDocument.model_validate(c.get("/api/v1/catalog/info", headers=h).json())
    HistoryDocument.model_validate(c.get("/api/v1/catalog/history?instance=p4d.24xlarge", headers=h).json())
    countries = c.get("/api/v1/offers/countries", headers=h).json()["countries"]
    assert {x["country"] for x in countries} >= {"US"}
    assert "did you mean" in _error(c.get("/api/v1/offers?provider=amazn", headers=h), 400)
    # NaN compares false with every bound: it was refused as "less than or equal to 1000000".
    assert "finite number" in _error(c.get("/api/v1/offers?max_price=nan", headers=h), 400)


def test_offers_leave_low_confidence_prices_out_unless_asked_as_the_command_does(service: Service) -> None:
    # was: the service listed the articles' 2024 figures (an "aws/unspecified" A100 at $0.98 spot)
    # among the offers, first on price, where `gpuplan offers` and plans leave them out
    c, h = service.client, service.auth("read")
    path = "/api/v1/offers?gpu=A100&provider=aws&pricing=spot"
    out = c.get(path, headers=h).json()
    assert out["low_confidence_left_out"] >= 1
    assert all(o["confidence"] != "low" for o in out["offers"])
    asked = c.get(path + "&allow_low_confidence=true", headers=h).json()
    assert asked["low_confidence_left_out"] == 0
    assert sum(o["confidence"] == "low" for o in asked["offers"]) == out["low_confidence_left_out"]


def test_yuan_prices_name_their_rate_and_its_warning_in_the_callers_language(service: Service) -> None:
    c, h = service.client, service.auth("read")
    for path in (
        "/api/v1/offers?gpu=H100&currency=CNY",
        "/api/v1/catalog/history?instance=p4d.24xlarge&currency=CNY",
    ):
        en = c.get(path, headers=h).json()["exchange_rate"]
        zh = c.get(path + "&lang=zh", headers=h).json()["exchange_rate"]
        assert en["as_of"] == zh["as_of"] and en["stale"] == zh["stale"]
        if en["stale"]:  # the shipped rate ages with the calendar: both branches are real outcomes
            assert f"the CNY rate of {en['as_of']} is" in en["warning"] and "超过 30 天" in zh["warning"]
        else:
            assert en["warning"] is None and zh["warning"] is None


def test_tco_and_deploy(service: Service) -> None:
    usage = {
        "horizon_months": 12,
        "start": "2027-01",
        "demands": [{"name": "pool", "gpu": "A100-SXM4-40GB", "gpus": 8, "hours_per_month": 730}],
        "constraints": {"providers": ["aws"]},
    }
    r = service.client.post("/api/v1/tco", json={"usage": usage}, headers=service.auth("plan"))
    assert r.status_code == 200, r.text
    TcoDocument.model_validate(r.json())
    # data residency as the CLI's: a usage kept in China buys nothing outside it, a typo is refused
    china = {**usage, "constraints": {"countries": ["China"]}}
    r = service.client.post("/api/v1/tco", json={"usage": china}, headers=service.auth("plan"))
    assert r.status_code == 200, r.text
    bought = [*r.json()["commitments"], *r.json()["hourly_prices"]]
    assert bought and {region_country(o["provider"], o["region"]) for o in bought} == {"CN"}
    typo = {**usage, "constraints": {"countries": ["Chian"]}}
    assert "did you mean 'china'" in _error(
        service.client.post("/api/v1/tco", json={"usage": typo}, headers=service.auth("plan")), 400
    )
    # and the hosts rule: only machines a provider runs bought, recorded; a typo is refused
    h100 = {**usage, "demands": [{"name": "pool", "gpu": "H100-SXM", "gpus": 8, "hours_per_month": 730}]}
    run = {**h100, "constraints": {"hosts": "provider"}}
    r = service.client.post("/api/v1/tco", json={"usage": run}, headers=service.auth("plan"))
    assert r.status_code == 200, r.text
    bought = [*r.json()["commitments"], *r.json()["hourly_prices"]]
    assert r.json()["hosts"] == "provider"
    assert bought and all(provider_runs(o["provider"], o["instance_type"], o["region"]) for o in bought)
    typo = {**h100, "constraints": {"hosts": "providr"}}
    assert "did you mean 'provider'" in _error(
        service.client.post("/api/v1/tco", json={"usage": typo}, headers=service.auth("plan")), 400
    )
    with_file = {**usage, "demands": [{"name": "x", "workload": "../../etc/job.yaml", "runs_per_month": 1}]}
    assert "reads no workload file" in _error(
        service.client.post("/api/v1/tco", json={"usage": with_file}, headers=service.auth("plan")), 400
    )
    plan = service.client.post(
        "/api/v1/plan", json={"workload": bert_workload()}, headers=service.auth("plan")
    ).json()
    r = service.client.post(
        "/api/v1/deploy", json={"plan": plan, "target": "torchrun"}, headers=service.auth("plan")
    )
    assert r.status_code == 200 and r.headers["content-type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(r.content)).namelist()
    assert "torchrun/README.md" in names and "torchrun/train.py" in names
    # The skypilot target names its folder whole (SkyPilot reads a relative workdir from where `sky`
    # runs): the request says where the archive will be unpacked, else it is refused in words (it
    # failed every time, naming an internal parameter).
    aws = service.client.post(
        "/api/v1/plan", json={"workload": bert_workload(), "providers": ["aws"]}, headers=service.auth("plan")
    ).json()
    sky = {"plan": aws, "target": "skypilot"}
    assert "needs workdir" in _error(
        service.client.post("/api/v1/deploy", json=sky, headers=service.auth("plan")), 400
    )
    assert "U+000A" in _error(
        service.client.post(
            "/api/v1/deploy", json={**sky, "workdir": "/srv/a\nb"}, headers=service.auth("plan")
        ),
        400,
    )
    # "/" and "/a/../../etc" were written into the task: SkyPilot would upload the whole file system
    # or /etc to the cloud
    for workdir, said in (
        ("/", "workdir '/' is the root of the file system"),
        (
            "/a/../../etc",
            "workdir '/a/../../etc' must be written without '.', '..' or repeated '/' (as '/etc')",
        ),
        ("srv/launch", "workdir must be an absolute path (got 'srv/launch')"),
    ):
        refused = service.client.post(
            "/api/v1/deploy", json={**sky, "workdir": workdir}, headers=service.auth("plan")
        )
        assert said in _error(refused, 400)
    r = service.client.post(
        "/api/v1/deploy", json={**sky, "workdir": "/srv/launch/skypilot"}, headers=service.auth("plan")
    )
    assert r.status_code == 200, r.text
    task = zipfile.ZipFile(io.BytesIO(r.content)).read("skypilot/task.yaml").decode()
    assert "workdir: /srv/launch/skypilot" in task
    assert "did you mean" in _error(
        service.client.post(
            "/api/v1/deploy", json={"plan": plan, "target": "torchrn"}, headers=service.auth("plan")
        ),
        400,
    )


def test_refusals_name_the_request_field_not_the_cli_flag(service: Service) -> None:
    plan = service.client.post(
        "/api/v1/plan", json={"workload": bert_workload()}, headers=service.auth("plan")
    ).json()

    def deploy(**fields: Any) -> str:
        body = {"plan": plan, "target": "torchrun", **fields}
        return _error(service.client.post("/api/v1/deploy", json=body, headers=service.auth("plan")), 400)

    assert deploy(image="x;rm -rf /").startswith("image 'x;rm -rf /' is not a container image reference")
    assert deploy(base_image="x y").startswith("base_image 'x y' is not a container image reference")
    assert deploy(plan={}).startswith("plan is not a gpuplan plan file")
    url = "/api/v1/catalog/import?provider=aws&as_of=yesterday"
    said = _error(
        service.client.post(
            url, content=b"x\n", headers={"Content-Type": "text/csv", **service.auth("admin")}
        ),
        400,
    )
    assert said.startswith("as_of 'yesterday' is not a date"), said
    assert "--" not in said
    own = (Path(__file__).resolve().parents[2] / "examples" / "prices" / "alibaba-quote.csv").read_bytes()
    said = _error(
        service.client.post(
            "/api/v1/catalog/import?provider=alibaba&as_of=2026-11-30",
            content=own,
            headers={"Content-Type": "text/csv", **service.auth("admin")},
        ),
        400,
    )
    assert said.startswith("this file is a gpuplan price list") and said.endswith(
        "give format gpuplan; nothing was imported"
    ), said
    with_zh = service.client.post(
        "/api/v1/deploy?lang=zh", json={"plan": {}, "target": "torchrun"}, headers=service.auth("plan")
    )
    assert "request" not in _error(with_zh, 400)


def test_cors_is_off_unless_configured(service: Service, tmp_path: Any) -> None:
    from fastapi.testclient import TestClient

    from gpuplan.web.app import create_app
    from gpuplan.web.config import ServeConfig

    pre = {"Origin": "https://evil.example", "Access-Control-Request-Method": "GET"}
    r = service.client.options("/api/v1/offers", headers=pre)
    assert "access-control-allow-origin" not in r.headers
    app = create_app(ServeConfig(db=service.db, cors_origins=("https://team.example",), jobs_inline=True))
    with TestClient(app) as client:
        ok = client.options("/api/v1/offers", headers={**pre, "Origin": "https://team.example"})
        assert ok.headers["access-control-allow-origin"] == "https://team.example"
        assert "access-control-allow-origin" not in client.options("/api/v1/offers", headers=pre).headers


def test_an_inline_hf_config_is_read_by_content_and_one_naming_code_is_refused(tmp_path: Any) -> None:
    import json
    from pathlib import Path

    from gpuplan.errors import GpuplanError
    from gpuplan.profile import profile_key
    from gpuplan.web.service import materialize

    config = json.loads(
        (Path(__file__).resolve().parents[2] / "examples" / "hf-config" / "config.json").read_text()
    )
    w = {"name": "hf", "model": {"hf_config": "inline"}, "inputs": {"batch_size": 1, "seq_len": 64}}
    a = materialize(w, config, tmp_path / "one")
    b = materialize({**w, "name": "other"}, config, tmp_path / "two")
    assert profile_key(a) == profile_key(b)  # the same content traces once, wherever it was written
    nested = {**config, "text_config": {"auto_map": {"AutoModel": "evil.Model"}}}
    with pytest.raises(GpuplanError, match="auto_map"):
        materialize(w, nested, tmp_path / "three")
    # a refused config leaves nothing on the server's disk (it had stayed, 4 MiB a request), and its
    # refusal names the request's field, not the server's file
    huge = {**config, "num_hidden_layers": 10**9}
    with pytest.raises(GpuplanError) as refused:
        materialize(w, huge, tmp_path / "three")
    assert "hf_config_json" in str(refused.value) and str(tmp_path) not in str(refused.value)
    assert [p for p in (tmp_path / "three").rglob("*") if p.is_file()] == []


def test_requests_with_the_same_inline_config_at_once_all_read_it(tmp_path: Any) -> None:
    # They had shared one temporary file name: 4 of 96 such requests were a 500 (FileNotFoundError
    # in its rename), and a reader could find a half-written config.
    import json
    import threading
    from concurrent.futures import ThreadPoolExecutor
    from pathlib import Path

    from gpuplan.web.service import materialize

    pytest.importorskip("transformers")
    config = json.loads(
        (Path(__file__).resolve().parents[2] / "examples" / "hf-config" / "config.json").read_text()
    )
    config["padding"] = "x" * 2_000_000  # a long write, so that the writers overlap
    w = {"name": "hf", "model": {"hf_config": "inline"}, "inputs": {"batch_size": 1, "seq_len": 64}}
    start = threading.Barrier(8)

    def one(_: int) -> str:
        start.wait()
        return str(materialize(w, config, tmp_path).model.hf_config_path)

    with ThreadPoolExecutor(8) as pool:  # an exception in any of them is raised here
        assert len(set(pool.map(one, range(8)))) == 1
    [written] = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written.name == "config.json" and json.loads(written.read_text())["padding"] == config["padding"]


def _zh(response: Any, status: int) -> str:
    said = _error(response, status)
    assert any("\u4e00" <= ch <= "\u9fff" for ch in said), said
    return said


def test_the_service_s_own_refusals_read_in_chinese(service: Service) -> None:
    c = service.client
    # 404 and 405 that Starlette raises itself, and the routes' own 404s
    assert "Not Found" not in _zh(c.get("/api/v1/nowhere?lang=zh"), 404)
    assert "Method Not Allowed" not in _zh(c.delete("/api/v1/offers?lang=zh"), 405)
    assert "no job" not in _zh(
        c.get("/api/v1/jobs/" + "0" * 24 + "?lang=zh", headers=service.auth("read")), 404
    )
    assert "no page" not in _zh(c.get("/ui/nowhere?lang=zh"), 404)
    assert "no file" not in _zh(c.get("/static/x.js?lang=zh"), 404)
    # 413 before the body is read
    big = c.post("/api/v1/plan?lang=zh", content=b"x" * (5 * 1024 * 1024), headers=service.auth("plan"))
    assert "request body over" not in _zh(big, 413)
    # pydantic's reasons
    pattern = c.post(
        "/api/v1/workloads?lang=zh",
        json={"name": "bad name!", "workload": bert_workload()},
        headers=service.auth("plan"),
    )
    assert "should match pattern" not in _zh(pattern, 400)
    assert "Input should be" not in _zh(
        c.post("/api/v1/plan?lang=zh", json=[], headers=service.auth("plan")), 400
    )


def test_a_job_s_message_reads_in_the_reader_s_language() -> None:
    from types import SimpleNamespace

    from gpuplan.web.routes_api import JOB_MESSAGES, job_document

    for message in JOB_MESSAGES:
        job = SimpleNamespace(**dict.fromkeys(("id", "kind", "status", "progress", "created_by")),
                              **dict.fromkeys(("created_at", "started_at", "finished_at", "attempts")),
                              error=None, result=None, message=message)  # fmt: skip
        assert job_document(job)["message"] == message
        assert job_document(job, "zh")["message"] != message, message


def test_a_plan_request_takes_its_budget_in_yuan(service: Service) -> None:
    body = {"workload": bert_workload(), "budget_cny": 1e7}
    r = service.client.post("/api/v1/plan", json=body, headers=service.auth("plan"))
    assert r.status_code == 200, r.text
    doc = r.json()
    [note] = [n for n in doc["notes"] if n.startswith("Budget ¥10,000,000.00 read as yuan (CNY) at ")]
    assert " CNY per USD, " in note and doc["constraints"]["budget_usd"] < 1e7
    both = service.client.post("/api/v1/plan", json={**body, "budget_usd": 5}, headers=service.auth("plan"))
    assert _error(both, 400) == "budget_cny: give the budget once: budget_usd or budget_cny, not both"
    assert both.json()["field"] == "budget_cny"


@pytest.mark.parametrize(
    ("path", "field", "value", "other"),
    [
        ("/api/v1/plan", "budget_usd", "¥60000", "budget_cny"),
        ("/api/v1/plan", "budget_cny", "$60000", "budget_usd"),
        ("/api/v1/budget/2027-01", "amount_usd", "60000元", "amount_cny"),
        ("/api/v1/budget/2027-01", "amount_cny", "US$60,000", "amount_usd"),
    ],
)
def test_an_amount_in_the_other_currency_names_the_field_that_takes_it(
    service: Service, path: str, field: str, value: str, other: str
) -> None:
    """As the command says "¥60000 is an amount in another currency: use --budget-cny": pydantic
    had said "Input should be a valid number", with no word of the currency."""
    body: dict[str, Any] = {field: value}
    if path.endswith("/plan"):
        body["workload"] = bert_workload()
    send = service.client.post if path.endswith("/plan") else service.client.put
    for lang in ("en", "zh"):
        r = send(f"{path}?lang={lang}", json=body, headers=service.auth("admin"))
        assert r.status_code == 400, r.text
        assert r.json()["field"] == field
        if lang == "en":
            assert r.json()["message"] == f"{value} is in another currency: give it with {other}"
        else:
            assert other in r.json()["message"] and "货币" in r.json()["message"], r.json()


def test_a_budget_is_read_as_a_workloads_budget_is(service: Service) -> None:
    """120万 yuan, as the workload's own budget_cny and the command's --budget-cny take it."""
    body = {"workload": bert_workload(), "budget_cny": "120万"}
    r = service.client.post("/api/v1/plan", json=body, headers=service.auth("plan"))
    assert r.status_code == 200, r.text
    assert any(n.startswith("Budget ¥1,200,000.00 read as yuan (CNY) at ") for n in r.json()["notes"]), (
        r.json()["notes"]
    )


def test_a_plan_budgeted_in_yuan_is_shown_in_yuan_unless_the_request_asks_otherwise(service: Service) -> None:
    """As `gpuplan plan` shows it (cli._i18n.currency_shown): a budget in yuan, the request's or
    the workload's own, shows the plan in yuan; it had come back in dollars."""
    workload = bert_workload()
    constraints = {k: v for k, v in workload["constraints"].items() if k != "budget_usd"}
    yuan = {**workload, "constraints": {**constraints, "budget_cny": 1e7}}

    def shown(**body: Any) -> str:
        r = service.client.post("/api/v1/plan", json=body, headers=service.auth("plan"))
        assert r.status_code == 200, r.text
        return str(r.json()["display_currency"])

    assert shown(workload=workload, budget_cny=1e7) == "CNY"
    assert shown(workload=yuan) == "CNY"
    assert shown(workload=yuan, budget_usd=1e6) == "USD"  # the request's dollars replace the yuan
    assert shown(workload=workload, budget_cny=1e7, currency="USD") == "USD"
    assert shown(workload=workload) == "USD"


def test_a_currency_is_taken_as_the_command_takes_it(service: Service) -> None:
    # `plan --currency RMB` showed yuan; the request's "currency": "RMB" was a 400 ("currency: must
    # be 'USD' or 'CNY' (got 'RMB')"). One reader for both: gpuplan.vocab.Currency's.
    c, h = service.client, service.auth("plan")
    for written in ("RMB", "rmb", "yuan", "人民币", "cny"):
        r = c.post("/api/v1/plan", json={"workload": bert_workload(), "currency": written}, headers=h)
        assert r.status_code == 200 and r.json()["display_currency"] == "CNY", (written, r.text)
    offers = c.get("/api/v1/offers?currency=RMB&gpu=A100-SXM4-80GB", headers=h)
    assert offers.status_code == 200 and offers.json()["display_currency"] == "CNY", offers.text
    bad = c.post("/api/v1/plan", json={"workload": bert_workload(), "currency": "EUR"}, headers=h)
    assert bad.status_code == 400 and bad.json()["field"] == "currency", bad.text


def test_a_currency_gpuplan_does_not_price_in_is_refused_by_name(service: Service) -> None:
    # "currency": "yen" had been pydantic's "must be 'USD' or 'CNY' (got 'yen')", and a budget of
    # "60000円" the English "... which gpuplan does not price in" whatever the reader's language
    c, h = service.client, service.auth("plan")
    for body, field, english, chinese in (
        ({"currency": "yen"}, "currency", "'yen' is JPY, not a currency gpuplan prices in", "'yen' 即 JPY"),
        (
            {"budget_usd": "60000円"},
            "budget_usd",
            "60000円 is in JPY, which gpuplan does not price in",
            "60000円的货币是 JPY",
        ),
    ):
        for lang, words in (("en", english), ("zh", chinese)):
            r = c.post(f"/api/v1/plan?lang={lang}", json={"workload": bert_workload(), **body}, headers=h)
            assert r.status_code == 400 and r.json()["field"] == field, r.text
            assert words in r.json()["message"], r.json()


def test_deploy_to_k8s_takes_an_option_with_managed_kubernetes(service: Service) -> None:
    # The k8s archive had been written for the recommended option whatever its provider (Lambda,
    # RunPod and Vast.ai offer no cluster); the service now chooses as `gpuplan deploy` does, and
    # its refusals name the request's fields.
    plan = service.client.post(
        "/api/v1/plan", json={"workload": bert_workload()}, headers=service.auth("plan")
    ).json()
    lam = plan["recommended"] | {"provider": "lambda", "instance_type": "gpu_8x_a100"}

    def deploy(doc: dict[str, Any], **fields: Any) -> Any:
        body = {"plan": doc, "target": "k8s", **fields}
        return service.client.post("/api/v1/deploy", json=body, headers=service.auth("plan"))

    r = deploy(plan | {"recommended": lam, "options": [lam, *plan["options"]]})
    assert r.status_code == 200, r.text
    archive = zipfile.ZipFile(io.BytesIO(r.content))
    note = archive.read("NOTE.txt").decode()
    assert (
        note.startswith("target k8s: the recommended option lambda ") and "deploying the plan's best" in note
    )
    # No ranked option on one: the plan's kubernetes persona (marketplace offers fill the ranking).
    pick = {"persona": "kubernetes", "rule": "managed Kubernetes", "option": plan["recommended"]}
    r = deploy(plan | {"recommended": lam, "options": [lam], "personas": [pick]})
    assert r.status_code == 200, r.text
    note = zipfile.ZipFile(io.BytesIO(r.content)).read("NOTE.txt").decode()
    assert "deploying the plan's kubernetes pick" in note and "--" not in note
    assert f"{plan['recommended']['instance_type']} (EKS); the plan prices it at $" in note, note
    r = deploy(plan | {"recommended": lam, "options": [lam]}, own_cluster=True)
    assert r.status_code == 200 and "NOTE.txt" not in zipfile.ZipFile(io.BytesIO(r.content)).namelist()
    # Neither a ranked option nor a persona on one: refused.
    refused = deploy(plan | {"recommended": lam, "options": [lam], "personas": []})
    said = _error(refused, 400)
    assert said.startswith("target k8s: the plan's option lambda") and "give own_cluster: true" in said
    assert "--" not in said
    assert refused.json()["field"] == "target"  # the target refused for this plan, named once
    r = service.client.post(
        "/api/v1/deploy",
        json={"plan": plan, "target": "torchrun", "own_cluster": True},
        headers=service.auth("plan"),
    )
    assert _error(r, 400) == "own_cluster: only for target k8s"


#: A plan document, the catalog it was planned on and that catalog's tokens by scope.
Planned = tuple[dict[str, Any], Path, dict[str, str]]


@pytest.fixture(scope="module")
def gpt2_svc(seeded_catalog: Path, tmp_path_factory: pytest.TempPathFactory) -> Planned:
    """GPT-2 served at 2 requests/s, planned once through the service (its trace and plan take some
    20 s of CPU): the plan, its catalog with the trace cached, and the catalog's tokens. Each test
    deploys the plan on a service of its own over a copy of that catalog (:func:`gpt2_svc_service`)
    and only reads the plan."""
    import shutil

    from fastapi.testclient import TestClient

    from gpuplan.web.app import create_app
    from gpuplan.web.config import ServeConfig

    folder = tmp_path_factory.mktemp("gpt2-svc")
    db = folder / "catalog.sqlite"
    shutil.copyfile(seeded_catalog, db)
    tokens = make_tokens(str(db))
    app = create_app(ServeConfig(db=str(db), jobs_inline=True, scratch_dir=str(folder / "scratch")))
    workload = {
        "name": "gpt2-svc",
        "task": "infer",
        "model": {"preset": "gpt2"},
        "inputs": {"batch_size": 1, "seq_len": 128},
        "serving": {"requests_per_s": 2, "prompt_tokens": 100, "output_tokens": 20},
    }
    with TestClient(app) as client:
        plan = client.post(
            "/api/v1/plan", json={"workload": workload}, headers={"Authorization": f"Bearer {tokens['plan']}"}
        )
    assert plan.status_code == 202, plan.text[:300]  # a first trace of the model runs as a job
    assert plan.json()["status"] == "done", plan.text[:300]
    return plan.json()["result"], db, tokens


@pytest.fixture
def gpt2_svc_service(gpt2_svc: Planned, tmp_path: Path) -> Iterator[Service]:
    """A service of this test's own over a copy of :func:`gpt2_svc`'s catalog."""
    import shutil

    from fastapi.testclient import TestClient

    from gpuplan.web.app import create_app
    from gpuplan.web.config import ServeConfig

    db = tmp_path / "catalog.sqlite"
    shutil.copyfile(gpt2_svc[1], db)  # with the tokens it was planned with
    tokens = gpt2_svc[2]
    app = create_app(ServeConfig(db=str(db), jobs_inline=True, scratch_dir=str(tmp_path / "scratch")))
    with TestClient(app) as client:
        yield Service(client=client, db=str(db), tokens=tokens)


def test_deploy_scales_an_engine_on_its_requests_in_flight_as_the_cli_does(
    gpt2_svc: Planned,
    gpt2_svc_service: Service,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The archive's autoscaler had scaled a vLLM service on DCGM GPU utilisation, which a decoding
    # engine keeps high at any load; it now holds the engine's requests in flight per replica at the
    # plan's load of one replica, and says in NOTE.txt where that cannot be worked out.
    service = gpt2_svc_service
    doc = gpt2_svc[0]
    body = {"plan": doc, "target": "k8s", "own_cluster": True}
    r = service.client.post("/api/v1/deploy", json=body, headers=service.auth("plan"))
    assert r.status_code == 200, r.text
    archive = zipfile.ZipFile(io.BytesIO(r.content))
    assert "k8s/k8s/podmonitor.yaml" in archive.namelist() and "NOTE.txt" not in archive.namelist()
    hpa = archive.read("k8s/k8s/hpa.yaml").decode()
    assert "name: vllm_requests_in_flight" in hpa and "DCGM" not in hpa
    # where the replica cannot be worked out: GPU utilisation, and why
    import gpuplan.api
    from gpuplan.errors import EstimateError

    def fails(*_args: Any, **_kwargs: Any) -> int:
        raise EstimateError("the trace failed")

    monkeypatch.setattr(gpuplan.api, "engine_batch_slots", fails)
    r = service.client.post("/api/v1/deploy", json=body, headers=service.auth("plan"))
    assert r.status_code == 200, r.text
    archive = zipfile.ZipFile(io.BytesIO(r.content))
    note = archive.read("NOTE.txt").decode()
    # nor is the KV cache known: the engine takes the serving block's 100 + 20 tokens, not GPT-2's
    # 1,024, which a cache too small for it would refuse to start with
    assert note == (
        "the autoscaler scales on GPU utilisation, not on the engine's requests in flight (their target "
        "per replica is not known: the trace failed); it may run near its maximum at a light load\n"
        "the engine takes requests of up to 120 tokens (the serving block's prompt + answer), not the "
        "model's own 1,024: what one replica's KV cache holds is not known (the trace failed), and an "
        "engine whose cache cannot hold its longest request refuses to start\n"
    )
    assert "DCGM_FI_DEV_GPU_UTIL" in archive.read("k8s/k8s/hpa.yaml").decode()
    deployment = archive.read("k8s/k8s/deployment.yaml").decode()
    assert "- --max-model-len\n        - '120'\n" in deployment


def test_deploy_of_a_plan_made_by_the_command_line_sizes_its_engine_as_the_service_plans_it(
    gpt2_svc: Planned, gpt2_svc_service: Service
) -> None:
    # `gpuplan plan` writes the folder it planned in as model.project_dir. The service reads no
    # folder, and a preset needs none: such a plan had deployed with GPU utilisation and the model's
    # whole limit, said only in NOTE.txt ("the service reads no folder of its disk").
    service = gpt2_svc_service
    doc = gpt2_svc[0]
    from_cli = json.loads(json.dumps(doc))
    from_cli["workload"]["model"]["project_dir"] = "/home/someone/chat"
    archives = {}
    for name, sent in (("service", doc), ("cli", from_cli)):
        for target in ("k8s", "docker"):
            body = {"plan": sent, "target": target, "own_cluster": target == "k8s"}
            r = service.client.post("/api/v1/deploy", json=body, headers=service.auth("plan"))
            assert r.status_code == 200, r.text
            z = zipfile.ZipFile(io.BytesIO(r.content))
            archives[name, target] = {n: z.read(n) for n in z.namelist()}
    for target in ("k8s", "docker"):
        assert archives["cli", target] == archives["service", target], target
        assert "NOTE.txt" not in archives["cli", target]
    assert "k8s/k8s/podmonitor.yaml" in archives["cli", "k8s"]


def test_a_deploy_archive_says_in_note_txt_what_the_plans_efa_needs(service: Service) -> None:
    # 2 x p5.48xlarge: the plan's time assumes EFA between the nodes; a torchrun archive cannot turn it on.
    plan = service.client.post(
        "/api/v1/plan", json={"workload": bert_workload()}, headers=service.auth("plan")
    ).json()
    p5 = plan["recommended"] | {
        "provider": "aws",
        "region": "us-east-1",
        "instance_type": "p5.48xlarge",
        "gpu": "H100-SXM",
        "gpu_count": 16,
        "gpus_per_node": 8,
        "nodes": 2,
    }
    body = {"plan": plan | {"recommended": p5}, "target": "torchrun"}
    r = service.client.post("/api/v1/deploy", json=body, headers=service.auth("plan"))
    assert r.status_code == 200, r.text
    note = zipfile.ZipFile(io.BytesIO(r.content)).read("NOTE.txt").decode()
    assert "assumes EFA between the p5.48xlarge nodes" in note


def test_the_k8s_archives_pods_request_their_share_of_the_catalogs_instance(service: Service) -> None:
    # as `gpuplan deploy` writes them: the catalog's p4d.24xlarge, 96 vCPUs and 1,152 GiB for 8 GPUs
    # (96 - 1.06 - 1 = 93.94; 1152 x 0.925 - 29.8 - 0.1 - 2 = 1033.7: tests/deploy/test_deploy_k8s_host.py)
    doc = json.loads((Path(__file__).parents[1] / "deploy" / "fixtures" / "plan_spot_aws.json").read_text())
    r = service.client.post(
        "/api/v1/deploy", json={"plan": doc, "target": "k8s"}, headers=service.auth("plan")
    )
    assert r.status_code == 200, r.text
    job = yaml.safe_load(zipfile.ZipFile(io.BytesIO(r.content)).read("k8s/k8s/job.yaml"))
    resources = job["spec"]["template"]["spec"]["containers"][0]["resources"]
    assert resources["requests"] == {"cpu": "93", "memory": "1033Gi"}
    assert resources["limits"] == {"nvidia.com/gpu": 8, "memory": "1033Gi"}


def test_a_split_no_gpu_count_runs_is_refused_without_asking_for_more_gpus(service: Service) -> None:
    # BERT-Large's 16 attention heads cannot be split 5 ways: no count of GPUs runs it, and the
    # answer had said "lower them, or allow more GPUs (max_gpus)".
    from dataclasses import replace

    from gpuplan.catalog import open_store
    from gpuplan.profile import PROFILE_SCHEMA_VERSION, profile_key
    from gpuplan.profile.model import ModelShape
    from stand_in_profiles import bert_large_profile

    workload = {**bert_workload(), "tensor_parallel": 5}
    store = open_store(service.db)
    try:
        key = profile_key(workload)
        shape = ModelShape(family="encoder", num_layers=24, num_attention_heads=16, hidden_size=1024)
        profile = replace(bert_large_profile(key), shape=shape)
        store.local.put_profile(key, PROFILE_SCHEMA_VERSION, profile.to_json())
    finally:
        store.close()
    response = service.client.post("/api/v1/plan", json={"workload": workload}, headers=service.auth("plan"))
    said = response.json()["error"]
    assert (
        "tensor_parallel 5 does not divide the model's 16 attention heads: use one of 1, 2, 4, 8" in said
    ), said
    assert "max_gpus" not in said and "allow more GPUs" not in said, said


def test_the_archives_autoscaler_holds_the_requests_of_the_replica_the_plan_split(service: Service) -> None:
    # the service's archive had counted a planned split's replica as one GPU (the plan's workload says
    # tensor_parallel 1), as `gpuplan deploy` had: its target is the stated split's
    base = json.loads((Path(__file__).parents[1] / "deploy" / "fixtures" / "plan_spot_aws.json").read_text())
    base["recommended"].update(gpu_count=8, nodes=1, pricing="on_demand")

    def target(split: int, *, stated: bool) -> float:
        doc = json.loads(json.dumps(base))
        doc["workload"] = {
            "name": "s",
            "task": "infer",
            "model": {"preset": "llama-1b"},
            "inputs": {"batch_size": 1, "seq_len": 128},
            "precision": "bf16",
            "tensor_parallel": split if stated else 1,
            "serving": {"requests_per_s": 10, "prompt_tokens": 100, "output_tokens": 20},
        }
        doc["recommended"]["service"] = {
            "requests_per_s": 10,
            "replicas": 8 // split,
            "replica_gpus": split,
            "tensor_parallel": split,
            "tensor_parallel_chosen": not stated,
        }
        r = service.client.post(
            "/api/v1/deploy", json={"plan": doc, "target": "k8s"}, headers=service.auth("plan")
        )
        assert r.status_code == 200, r.text
        hpa = yaml.safe_load(zipfile.ZipFile(io.BytesIO(r.content)).read("k8s/k8s/hpa.yaml"))
        return float(hpa["spec"]["metrics"][0]["pods"]["target"]["averageValue"])

    chosen = target(4, stated=False)
    assert chosen == target(4, stated=True)
    assert chosen != target(1, stated=False)


@pytest.mark.parametrize(
    ("model", "disk"),
    [
        # Meta's checkpoint is bfloat16: 141.1 GB, whatever precision vLLM runs it in, which the
        # default disk holds (the fp32 trace's 282.2 GB had been sized)
        ({"preset": "llama-70b"}, 256),
        # a fine-tune whose stored dtype is not known: at fp32, 282.2 GB, as `gpuplan deploy` sizes
        # it (a plan keeping its data in a bucket had left SkyPilot's default 256 GB)
        ({"preset": "llama-70b", "hub_id": "acme/llama-70b-tuned"}, 448),
    ],
)
def test_a_batch_jobs_skypilot_archive_gets_a_disk_that_holds_its_weights(
    service: Service, model: dict[str, str], disk: int
) -> None:
    doc = json.loads((Path(__file__).parents[1] / "deploy" / "fixtures" / "plan_spot_aws.json").read_text())
    doc["workload"] = {
        "name": "summaries-70b",
        "task": "infer",
        "model": model,
        "inputs": {"batch_size": 8, "seq_len": 1024, "output_tokens": 256},
        "precision": "fp32",
        "data": {"samples": 20000, "size_gb": 1, "results_gb": 1},
    }
    body = {"plan": doc, "target": "skypilot", "workdir": "/srv/launch"}
    r = service.client.post("/api/v1/deploy", json=body, headers=service.auth("plan"))
    assert r.status_code == 200, r.text
    archive = zipfile.ZipFile(io.BytesIO(r.content))
    task = yaml.safe_load(archive.read("skypilot/task.yaml"))
    assert "vllm_batch.py" in task["run"] and task["resources"]["disk_size"] == disk


def test_the_dashboard_serves_plotlys_basic_bundle_the_reports_own_file(service: Service) -> None:
    # It served the plotly package's full bundle, 4.8 MB, for two charts that the 1.2 MB basic bundle
    # draws (tests/web/test_dashboard_browser.py); the file is the report's, its size and checksum
    # those its README gives.
    import hashlib
    import re

    from gpuplan.report.plan_charts import PLOTLY_BUNDLE

    folder = Path(__file__).parents[2] / "src" / "gpuplan" / "report"
    readme = (folder / "static" / "README.md").read_text(encoding="utf-8")
    [size] = re.findall(r"([\d,]+) bytes; the full bundle", readme)
    [sha] = re.findall(r"SHA-256: `([0-9a-f]{64})`", readme)
    r = service.client.get("/static/plotly.js")
    assert r.status_code == 200 and r.content == (folder / PLOTLY_BUNDLE).read_bytes()
    assert r.content.startswith(b"/**\n* plotly.js (basic - minified) v")
    assert len(r.content) == int(size.replace(",", "")) < 1_300_000
    assert hashlib.sha256(r.content).hexdigest() == sha
    assert r.headers["content-type"] == "text/javascript; charset=utf-8"
    assert r.headers["cache-control"] == "max-age=3600"


def test_offers_take_the_countries_filter_as_the_command_does(service: Service) -> None:
    # `gpuplan offers --countries CN` worked; the route answered "unknown query parameter
    # 'countries'; did you mean 'count'?"
    c, h = service.client, service.auth("read")
    r = c.get("/api/v1/offers?gpu=A100-SXM4-80GB&countries=CN&all_regions=true", headers=h)
    assert r.status_code == 200, r.text
    rows = r.json()["offers"]
    assert rows and {o["provider"] for o in rows} <= {
        "alibaba",
        "tencent",
        "huawei",
        "volcengine",
        "aws",
        "azure",
    }
    assert all(not o["region"].startswith(("us-", "ap-northeast", "eu")) for o in rows), rows
    everywhere = c.get("/api/v1/offers?gpu=A100-SXM4-80GB&all_regions=true", headers=h).json()["offers"]
    assert len(everywhere) > len(rows)
    for query, words in (
        ("countries=Chna", "query.countries: unknown country 'Chna'; did you mean"),
        (
            "countries=深圳",
            "query.countries: '深圳' is a city, not a country: it is in CN; write that (`countries=CN`)",
        ),
        ("countries=,", "query.countries: list at least one country"),
    ):
        bad = c.get(f"/api/v1/offers?{query}", headers=h)
        assert bad.status_code == 400 and bad.json()["field"] == "countries", bad.text
        assert bad.json()["error"].startswith(words), bad.json()
