"""A bad workload request is refused the one way whoever refuses it: status 400, ``field`` naming
the value (or misspelt key) as the request names it, ``message`` the problem without it, ``error``
the two in one line, in the caller's language, and nothing queued. The request's schema, the
workload's, the service's own check of a workload (no code, no path on the server's disk) and
the library's checks (a plan option, an inline Hugging Face config) had answered 400 or 422, most
with no field, and a misspelt request key with no "did you mean"."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from serve_helpers import Service, bert_workload, make_tokens

from gpuplan.i18n import _, use_language


def _workload(**sections: Any) -> dict[str, Any]:
    """The stand-in workload with whole sections replaced."""
    return {**copy.deepcopy(bert_workload()), **sections}


def _constraints(**given: Any) -> dict[str, Any]:
    w = bert_workload()
    return {**w.get("constraints", {}), **given}


_INLINE = {"hf_config": "inline"}


def _llama(layers: int, width: int) -> dict[str, Any]:
    """A Llama config of ``layers`` layers of ``width`` (Llama 3.1 405B: 126 x 16,384)."""
    return {
        "model_type": "llama",
        "architectures": ["LlamaForCausalLM"],
        "num_hidden_layers": layers,
        "hidden_size": width,
        "intermediate_size": width * 13 // 4,
        "num_attention_heads": 128,
        "num_key_value_heads": 8,
        "vocab_size": 128_256,
    }


_SERVING = {"requests_per_s": 5, "prompt_tokens": 512, "output_tokens": 256}

#: (request body, field, the problem's English beginning)
CASES: list[tuple[dict[str, Any], str, str]] = [
    (
        {"workload": _workload(), "deadline": "6 fortnights"},
        "deadline",
        "expected a duration like 12h, 2d, 90m, 1h30m or 3 weeks (got '6 fortnights')",
    ),
    (
        {"workload": _workload(), "deadline": "6"},
        "deadline",
        "'6' has no unit: write 6h (hours), 6d (days) or 6m (minutes)",
    ),
    (
        {"workload": _workload(), "pricing": ["reserved"]},
        "pricing",
        "unknown pricing model 'reserved'; did you mean 'reserved_3y' or 'reserved_1y'?",
    ),
    # a currency gpuplan does not take, refused by name as --currency EUR is
    (
        {"workload": _workload(), "currency": "EUR"},
        "currency",
        # the code alone where it was given as the code, as the command line says it
        "EUR is not a currency gpuplan prices in (the catalog has no dated EUR rate): use USD or CNY",
    ),
    ({"workload": _workload(), "currency": "USDD"}, "currency", "must be 'USD' or 'CNY' (got 'USDD')"),
    (
        {"workload": _workload(), "deadlin": "6h"},
        "deadlin",
        "unknown key 'deadlin'; did you mean 'deadline'",
    ),
    (
        {"workload": _workload(constraints=_constraints(deadlin="6h"))},
        "workload.constraints.deadlin",
        "unknown key 'deadlin'; did you mean 'deadline' or 'deadline_hours'?",
    ),
    (
        {"workload": _workload(model={"python": "mypkg.model:build"})},
        "workload.model.python",
        "a model from your own code is not run by the service",
    ),
    (
        {"workload": _workload(model={"hf_config": "/etc/passwd"})},
        "workload.model.hf_config",
        "the service reads no file of its disk",
    ),
    (
        {"workload": _workload(model={"preset": "bert-large", "project_dir": "/root"})},
        "workload.model.project_dir",
        "the service reads no folder of its disk",
    ),
    # the service's workload takes serving.tpot_p95_ms with the workload file's bounds (it had
    # been refused as an unknown key), and points its other spellings to it
    (
        {"workload": _workload(task="infer", serving={**_SERVING, "tpot_p95_ms": 0})},
        "workload.serving.tpot_p95_ms",
        "must be > 0",
    ),
    (
        {"workload": _workload(task="infer", serving={**_SERVING, "itl_p95_ms": 60})},
        "workload.serving.itl_p95_ms",
        "unknown key 'itl_p95_ms': the time-per-output-token target is written tpot_p95_ms",
    ),
    # beside a preset, hf_config_json had been read as a second model: "give exactly one of preset,
    # hf_config or python (got preset, hf_config)", naming an hf_config never sent
    (
        {"workload": _workload(), "hf_config_json": {"model_type": "bert"}},
        "hf_config_json",
        "given, but workload.model.hf_config is not 'inline'",
    ),
    (
        {"workload": _workload(model=_INLINE)},
        "hf_config_json",
        "required where workload.model.hf_config is 'inline'",
    ),
    (
        {
            "workload": _workload(model=_INLINE),
            "hf_config_json": {"model_type": "bert", "auto_map": {"AutoModel": "x.Y"}},
        },
        "hf_config_json",
        "an auto_map (AutoModel) names Python code to run",
    ),
    # a request may not hold the service's job worker with a trace no real model needs: 512 layers
    # (the command line's limit) had held it for 20 minutes
    (
        {"workload": _workload(model=_INLINE), "hf_config_json": _llama(512, 4096)},
        "hf_config_json",
        "describes 512 layers, more than the 160 this service traces for a request",
    ),
    (
        {"workload": _workload(model=_INLINE), "hf_config_json": _llama(100, 65_536)},
        "hf_config_json",
        "describes 100 layers of width 65,536, more tracing than this service does",
    ),
    (
        {"workload": _workload(model=_INLINE), "hf_config_json": {"model_type": "lama"}},
        "hf_config_json",
        "model_type 'lama' is not a model type transformers",
    ),
    (
        {"workload": _workload(model=_INLINE), "hf_config_json": {"model_type": "llama"}},
        "hf_config_json",
        "no 'hidden_size', which llama needs",
    ),
]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("body", "field", "starts"), CASES, ids=[c[1] + ":" + c[2][:20] for c in CASES])
def test_a_refused_workload_request_is_a_400_naming_its_field_in_one_line(
    service: Service, lang: str, body: dict[str, Any], field: str, starts: str
) -> None:
    r = service.client.post(f"/api/v1/plan?lang={lang}", json=body, headers=service.auth("plan"))
    assert r.status_code == 400, r.text
    doc = r.json()
    with use_language(lang):
        where = _("{where}: {problem}{more}").format(where=field, problem="", more="")
    assert doc["field"] == field, doc
    assert doc["error"] == where + doc["message"] and "\n" not in doc["error"], doc
    if lang == "en":
        assert doc["message"].startswith(starts), doc
    else:  # the problem in Chinese, not the English line
        assert not doc["message"].startswith(starts) and "：" in doc["error"], doc
        assert any("\u4e00" <= ch <= "\u9fff" for ch in doc["message"]), doc


@pytest.mark.parametrize(("layers", "width"), [(126, 16_384), (160, 8_192), (96, 12_288), (24, 1_024)])
def test_published_model_sizes_are_within_the_services_tracing_bound(layers: int, width: int) -> None:
    # Llama 3.1 405B, a deeper 8,192-wide model, GPT-3 175B, BERT-large: traced for a request
    from gpuplan.web.service import _refuse_too_costly

    _refuse_too_costly(_llama(layers, width))


def test_a_refused_request_is_not_queued(fresh_db: str, tmp_path: Path) -> None:
    # Without the profile cached, an accepted request is queued (202); a refused one never is.
    from fastapi.testclient import TestClient

    from gpuplan.web.app import create_app
    from gpuplan.web.config import ServeConfig

    tokens = make_tokens(fresh_db)
    h = {"Authorization": f"Bearer {tokens['plan']}"}
    w = {**bert_workload(), "name": "bert-20", "inputs": {"batch_size": 20, "seq_len": 384}}
    with TestClient(create_app(ServeConfig(db=fresh_db, scratch_dir=str(tmp_path)))) as client:
        for body, field in (
            ({"workload": w, "deadlin": "6h"}, "deadlin"),
            ({"workload": w, "deadline": "6 fortnights"}, "deadline"),
            ({"workload": w, "pricing": ["reserved"]}, "pricing"),
            ({"workload": w, "currency": "EUR"}, "currency"),
        ):
            r = client.post("/api/v1/plan", json=body, headers=h)
            assert (r.status_code, r.json()["field"]) == (400, field), r.text
        assert _jobs(fresh_db) == 0
        assert client.post("/api/v1/plan", json={"workload": w}, headers=h).status_code == 202
        assert _jobs(fresh_db) == 1


def _jobs(db: str) -> int:
    import sqlite3

    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM jobs").fetchone()[0])


def test_the_openapi_document_states_the_one_rule(service: Service) -> None:
    # 422 had been "a well-formed request without an answer, or one that does not match the schema",
    # while a value the library refused was a 400
    doc = service.client.get("/api/openapi.json").json()
    for path in ("/api/v1/plan", "/api/v1/estimate", "/api/v1/simulate", "/api/v1/workloads"):
        responses = doc["paths"][path]["post"]["responses"]
        assert "schema" in responses["400"]["description"], responses["400"]
        assert "schema" not in responses["422"]["description"], responses["422"]
        assert "without an answer" in responses["422"]["description"], responses["422"]
