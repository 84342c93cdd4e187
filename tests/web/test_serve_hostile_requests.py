"""The service reads a request as the command line reads a file: a JSON body with NaN, Infinity,
1e999, a lone surrogate, bytes that are not UTF-8 or nesting without end is one line (400), and a
JSON boolean is not a number; the simulate endpoint keeps the command's bounds on work (a trace's
rate × duration, replicas of a policy, non-finite policy values) and refuses them before tracing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serve_helpers import Service, bert_workload

_WORKLOAD = {
    "name": "gpt2-service",
    "task": "infer",
    "model": {"preset": "gpt2"},
    "inputs": {"batch_size": 8, "seq_len": 256},
    "precision": "bf16",
    "serving": {"requests_per_s": 2, "prompt_tokens": 128, "output_tokens": 64, "p95_latency_ms": 500},
}
_BASE = json.dumps({"workload": _WORKLOAD, "gpu": "L4", "hours": 2, "policies": ["fixed:replicas=2"]})


def _post(service: Service, raw: bytes) -> tuple[int, dict[str, Any]]:
    r = service.client.post(
        "/api/v1/simulate",
        content=raw,
        headers={**service.auth("plan"), "Content-Type": "application/json"},
    )
    return r.status_code, r.json()


def _jobs(service: Service) -> int:
    import sqlite3

    with sqlite3.connect(service.db) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM jobs").fetchone()[0])


BODIES = {
    # A NaN latency target was queued as null: the job ran with no target and said nothing.
    "NaN in the workload": (
        _BASE.replace('"p95_latency_ms": 500', '"p95_latency_ms": NaN').encode(),
        "the request body: NaN is not a number gpuplan accepts",
    ),
    "Infinity": (
        _BASE.replace('"hours": 2', '"hours": Infinity').encode(),
        "the request body: Infinity is not a number gpuplan accepts",
    ),
    "1e999": (
        _BASE.replace('"hours": 2', '"hours": 1e999').encode(),
        "the request body: number 1e999 is out of range",
    ),
    # Was an Internal Server Error (500) with a traceback in the server's log.
    "a lone surrogate": (
        _BASE.replace('"gpt2-service"', '"\\ud800x"').encode(),
        "the request body: the string '\\ud800x' holds a lone UTF-16 surrogate, which is not text",
    ),
    "not UTF-8": (
        _BASE.encode().replace(b"gpt2-service", b"gpt2-\xff"),
        "the request body is not UTF-8 text (byte 28)",
    ),
    # The last "gpu" stood and nothing was said (a YAML workload giving a key twice is refused).
    "a key given twice": (
        _BASE.replace('"gpu": "L4"', '"gpu": "H100", "gpu": "L4"').encode(),
        "the request body: 'gpu' is given twice in one object (JSON would keep only the last); keep one",
    ),
    "deep nesting": (
        b'{"workload": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        "the request body: nested too deeply (more than 64 levels)",
    ),
}


@pytest.mark.parametrize("case", list(BODIES))
def test_a_hostile_json_body_is_one_line_400(service: Service, case: str) -> None:
    raw, said = BODIES[case]
    status, answer = _post(service, raw)
    assert (status, answer["error"], answer["kind"]) == (400, said, "invalid_request")


def test_a_hostile_body_is_worded_in_chinese(service: Service) -> None:
    raw = BODIES["not UTF-8"][0]
    r = service.client.post(
        "/api/v1/simulate",
        content=raw,
        headers={**service.auth("plan"), "Content-Type": "application/json", "Accept-Language": "zh-CN"},
    )
    assert r.status_code == 400 and r.json()["error"] == "请求体不是 UTF-8 文本（第 28 字节）", r.text


def test_a_body_that_is_no_json_is_said_in_chinese_with_its_line_and_column(service: Service) -> None:
    # was "请求体 不是有效的 JSON（第 1 行：Expecting value）": a space a path is set apart by, and
    # Python's English words for where it stopped
    zh = {**service.auth("plan"), "Content-Type": "application/json", "Accept-Language": "zh-CN"}
    for raw, said in (
        (b"{", "请求体不是有效的 JSON（第 1 行第 2 列：此处应为用双引号括起的键名）"),
        (b'{"gpu": "L4",\n "hours": }', "请求体不是有效的 JSON（第 2 行第 11 列：此处应为一个值）"),
        (b'{"gpu": "L4"} x', "请求体不是有效的 JSON（第 1 行第 15 列：JSON 值之后还有多余的内容）"),
    ):
        r = service.client.post("/api/v1/simulate", content=raw, headers=zh)
        assert (r.status_code, r.json()["error"], r.json()["kind"]) == (400, said, "invalid_request"), r.text
        assert r.json()["message"] == said  # a client reading `message` gets the line too, not null
    status, answer = _post(service, b"{")
    said = (
        "the request body is not valid JSON (Expecting property name enclosed in double quotes at line 1, "
        "column 2)"
    )
    assert (status, answer["error"], answer["message"], answer["field"]) == (400, said, said, None)


@pytest.mark.parametrize("field", ["seed", "hours", "rate", "slo_ms"])
def test_a_json_boolean_is_not_a_number(service: Service, field: str) -> None:
    body = {**json.loads(_BASE), field: True}
    status, answer = _post(service, json.dumps(body).encode())
    assert status == 400 and answer["error"] == f"{field}: true is not a number; write the number itself"


@pytest.mark.parametrize(
    ("change", "field", "said"),
    [
        (
            {"rate": 10_000, "hours": 744},
            "rate",
            "trace shape: 10000 requests/s for 744 hours is 26,784,000,000 requests, "
            "more than the 10,000,000 a trace may hold",
        ),
        (
            {
                "hours": 744,
                "workload": {**_WORKLOAD, "serving": {**_WORKLOAD["serving"], "requests_per_s": 1e6}},
            },
            "hours",  # the rate is the workload's
            "trace shape: 1e+06 requests/s for 744 hours is 2,678,400,000,000 requests, "
            "more than the 10,000,000 a trace may hold",
        ),
        (
            {"policies": ["fixed:replicas=1e6"]},
            "policies[0]",
            "policy 'fixed:replicas=1e6': 1,000,000 replicas is more than the 1,000 a simulation runs",
        ),
        (
            {"policies": ["target:target=.inf,max=4"]},
            "policies[0]",
            "policy 'target:target=.inf,max=4': target='.inf' is not a number",
        ),
        (  # a given replica's slots: it was queued, and the job failed on it
            {"replica": "slots=99999999999,tpot_ms=30"},
            "policies[0]",
            "policy 'fixed:replicas=2': 2 replicas × 99,999,999,999 slots is more than the 1,000,000 "
            "batch slots a simulation keeps",
        ),
    ],
)
def test_simulate_refuses_work_beyond_the_bounds_at_submission(
    service: Service, change: dict[str, Any], field: str, said: str
) -> None:
    status, answer = _post(service, json.dumps({**json.loads(_BASE), **change}).encode())
    assert (status, answer["field"], answer["error"]) == (400, field, f"{field}: {said}")
    assert _jobs(service) == 0  # nothing queued


_NUMBERS = st.one_of(
    st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "true", "false"]),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    field=st.sampled_from(["hours", "rate", "slo_ms", "seed"]),
    value=_NUMBERS,
)
def test_any_number_in_a_request_is_refused_in_one_line_or_read_finite(
    service: Service, field: str, value: str
) -> None:
    # A training workload: a request whose numbers pass the edge is refused at submission.
    base = _BASE.replace('"task": "infer"', '"task": "train"')
    raw = base.replace('"hours": 2', f'"hours": 2, "{field}": {value}').replace(
        '"hours": 2, "hours"', '"hours"'
    )
    r = service.client.post(
        "/api/v1/simulate",
        content=raw.encode(),
        headers={**service.auth("plan"), "Content-Type": "application/json"},
    )
    # a bad request, whoever refuses it: the body's parser (no field: the body as a whole), the
    # schema (the number's field) or the workload's own check (a serving: block on a training task)
    assert r.status_code == 400, r.text
    line, named = r.json()["error"], r.json()["field"]
    assert line and "\n" not in line and "Value error" not in line, line
    assert named in (None, field, "workload"), r.text
    if "task: infer" in line:  # the number was read, finite and in range: the workload is refused
        assert value not in ("NaN", "Infinity", "-Infinity", "1e999", "-1e999", "true", "false")
        assert named == "workload", r.text


@pytest.mark.parametrize("path", ["/api/v1/offers", "/api/v1/offers/countries"])
def test_a_gpu_count_in_superscript_digits_is_a_400(service: Service, path: str) -> None:
    # "²".isdigit() is True and int("²") a ValueError: it was an Internal Server Error
    r = service.client.get(path, params={"gpu": "H100-SXM:\u00b2"}, headers=service.auth("read"))
    assert (r.status_code, r.json()["field"]) == (400, "gpu"), r.text
    said = "unknown GPU count '\u00b2' (write NAME:COUNT with a count of 1 or more)"
    assert (r.json()["error"], r.json()["message"]) == (f"query.gpu: {said}", said)


def test_a_refusal_of_the_request_schema_is_worded_in_chinese(service: Service) -> None:
    # our own validator's words and pydantic's known reasons stayed English under Accept-Language: zh
    zh = {**service.auth("plan"), "Accept-Language": "zh-CN"}
    body = {**json.loads(_BASE), "seed": True}
    r = service.client.post("/api/v1/simulate", json=body, headers=zh)
    assert (r.status_code, r.json()["error"]) == (400, "seed：true 不是数字；请直接写出数字")
    r = service.client.get("/api/v1/offers", params={"count": "0"}, headers=zh)
    assert (r.status_code, r.json()["error"]) == (400, "query.count：应不小于 1")
    r = service.client.get("/api/v1/offers", params={"count": "0"}, headers=service.auth("plan"))
    assert r.json()["error"] == "query.count: Input should be greater than or equal to 1"


def test_a_refused_value_names_its_field_apart_from_the_problem_and_the_line_stays(service: Service) -> None:
    # Only "query.count: …" was sent: a page had to show the path of the field, or cut it off itself.
    zh = {**service.auth("plan"), "Accept-Language": "zh-CN"}
    r = service.client.get("/api/v1/offers", params={"count": "0"}, headers=zh)
    assert r.json() == {
        "schema_version": 1,
        "error": "query.count：应不小于 1",
        "kind": "invalid_request",
        "field": "count",
        "message": "应不小于 1",
    }
    r = service.client.get("/api/v1/jobs/xyz", headers=service.auth("read"))
    said = "a job id is 24 characters of 0-9 and a-f, as the job's address gives it"
    assert r.json()["error"] == f"path.job_id: {said}"
    assert (r.json()["field"], r.json()["message"]) == ("job_id", said)
    body = {**json.loads(_BASE), "seed": True}
    r = service.client.post("/api/v1/simulate", json=body, headers=service.auth("plan"))
    said = "true is not a number; write the number itself"
    assert (r.json()["field"], r.json()["message"]) == ("seed", said)
    # a refusal that is not of one value names no field, and its message is the line itself (a body
    # that does not parse: its message had been null)
    status, answer = _post(service, BODIES["1e999"][0])
    assert (status, answer["field"], answer["message"]) == (400, None, answer["error"])
    assert answer["error"]


#: Routes that take a JSON body, with the scope each needs.
_BODY_ROUTES = [
    ("POST", "/api/v1/simulate", "plan"),
    ("POST", "/api/v1/plan", "plan"),
    ("POST", "/api/v1/workloads", "plan"),
    ("PUT", "/api/v1/catalog/discounts", "admin"),
    ("PUT", "/api/v1/budget/2026-11", "admin"),
    ("POST", "/api/v1/catalog/import?format=gpuplan", "admin"),
]


_NO_TOKENS = {
    "no token": None,
    "unknown token": "Bearer gpuplan_not-a-token",
    "not a bearer token": "Basic dXNlcjpwYXNz",
}


def _unauthorised(service: Service, method: str, path: str, raw: bytes, authorization: str | None) -> None:
    headers = {"Content-Type": "application/json"}
    if authorization is not None:
        headers["Authorization"] = authorization
    r = service.client.request(method, path, content=raw, headers=headers)
    assert r.status_code == 401, r.text
    assert r.json()["kind"] == "unauthorized" and "body" not in r.json()["error"], r.text
    assert r.headers["WWW-Authenticate"] == "Bearer"


# The body was read first: a caller without a token was told what was wrong with it (400).
@pytest.mark.parametrize(("method", "path", "scope"), _BODY_ROUTES)
@pytest.mark.parametrize("token", list(_NO_TOKENS))
def test_a_bad_body_without_a_valid_token_is_401_and_says_nothing_of_the_body(
    service: Service, method: str, path: str, scope: str, token: str
) -> None:
    _unauthorised(service, method, path, BODIES["1e999"][0], _NO_TOKENS[token])


@pytest.mark.parametrize("case", list(BODIES))
def test_no_refusal_of_a_body_reaches_a_caller_without_a_token(service: Service, case: str) -> None:
    _unauthorised(service, "POST", "/api/v1/simulate", BODIES[case][0], None)


@pytest.mark.parametrize(("method", "path", "scope"), _BODY_ROUTES)
def test_a_bad_body_from_a_token_below_the_scope_is_403_and_from_one_of_it_400(
    service: Service, method: str, path: str, scope: str
) -> None:
    raw, said = BODIES["1e999"]
    json_type = {"Content-Type": "application/json"}
    r = service.client.request(method, path, content=raw, headers={**json_type, **service.auth("read")})
    assert (r.status_code, r.json()["kind"]) == (403, "forbidden"), r.text
    r = service.client.request(method, path, content=raw, headers={**json_type, **service.auth(scope)})
    assert (r.status_code, r.json()["error"]) == (400, said), r.text


@pytest.mark.parametrize("gbps", [1e-308, 0.0, 2e5])
def test_a_network_beyond_its_bounds_is_refused_in_one_line(service: Service, gbps: float) -> None:
    # 1e-308 Gbit/s had made the step time infinite and the answer a 500
    body = {"workload": bert_workload(), "gpus": ["L4"], "count": 16, "network_gbps": gbps}
    r = service.client.post("/api/v1/estimate", json=body, headers=service.auth("plan"))
    assert (r.status_code, r.json()["field"]) == (400, "network_gbps"), r.text  # a bad value, not no answer
    line = r.json()["error"]
    assert "network_gbps" in line and "\n" not in line, line


def test_a_json_body_sent_without_a_content_type_is_told_to_send_json(service: Service) -> None:
    # requests.post(url, data=text) sends no Content-Type: FastAPI had answered "Input should be a
    # valid dictionary or object to extract fields from", where text/plain is told to send JSON
    body = json.dumps({"name": "bert", "month": "2027-03"}).encode()
    r = service.client.post("/api/v1/plans", content=body, headers=service.auth("plan"))
    assert "content-type" not in r.request.headers
    assert r.status_code == 400, r.text
    assert r.json()["error"] == (
        "the request body is sent without a Content-Type header; send it as application/json "
        "(Content-Type: application/json)"
    )
    typed = {**service.auth("plan"), "Content-Type": "text/plain"}
    as_text = service.client.post("/api/v1/plans", content=body, headers=typed)
    assert r.json()["kind"] == as_text.json()["kind"] == "invalid_request", (r.text, as_text.text)
    zh = {**service.auth("plan"), "Accept-Language": "zh-CN"}
    r = service.client.post("/api/v1/plans", content=body, headers=zh)
    assert r.status_code == 400 and "Content-Type: application/json" in r.json()["error"], r.text
    assert "请" in r.json()["error"], r.text


def test_a_json_body_sent_as_text_is_refused_naming_the_header(service: Service) -> None:
    # FastAPI had answered 422 "Input should be a valid dictionary or object"
    headers = {**service.auth("plan"), "Content-Type": "text/plain"}
    r = service.client.post("/api/v1/simulate", content=_BASE.encode(), headers=headers)
    assert r.status_code == 400, r.text
    assert r.json()["error"] == "the request body is sent as text/plain; send it as application/json"
    # without a token the body is not judged
    r = service.client.post(
        "/api/v1/simulate", content=_BASE.encode(), headers={"Content-Type": "text/plain"}
    )
    assert r.status_code == 401, r.text
