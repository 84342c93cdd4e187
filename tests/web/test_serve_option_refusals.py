"""A request option the service reads itself (estimate's GPUs, count and instance type; simulate's
policies, trace, shape, GPU, SLOs, replica, engine and prices; plan's budget and places; an inline
Hugging Face config the library refuses) is refused as a workload's value is: status 400,
``field`` naming the option as the request does (a list's item by its index, ``gpus[0]``), the
command's did-you-mean, one line in the caller's language, nothing queued. They had answered 400
with no field: "unknown GPU 'H10'; did you mean 'H100'…" named no option at all.

A line whose words begin with the option's own name ("slo 'ttft_p95=soon': write …") is not
prefixed with it again; otherwise it is ``field: problem``."""

from __future__ import annotations

import copy
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from serve_helpers import Service, bert_workload

from gpuplan.i18n import _, use_language

_SERVICE = {
    "name": "gpt2-service",
    "task": "infer",
    "model": {"preset": "gpt2"},
    "inputs": {"batch_size": 8, "seq_len": 256},
    "precision": "bf16",
    "serving": {"requests_per_s": 2, "prompt_tokens": 128, "output_tokens": 64},
}
_REPLICA = "slots=64,tpot_ms=40,prefill_tps=3000"
_TRAIN = {**_SERVICE, "task": "train", "serving": None}
_NO_SERVING = {**_SERVICE, "serving": None}
#: an inline config the model type of which transformers knows, with every size it needs
_LLAMA = {
    "model_type": "llama",
    "hidden_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 4,
    "intermediate_size": 128,
    "vocab_size": 100,
    "max_position_embeddings": 128,
}


def _estimate(**options: Any) -> tuple[str, dict[str, Any]]:
    return "/api/v1/estimate", {"workload": bert_workload(), **options}


def _simulate(**options: Any) -> tuple[str, dict[str, Any]]:
    return "/api/v1/simulate", {
        "workload": _SERVICE,
        "gpu": "L4",
        "policies": ["fixed:replicas=2"],
        **options,
    }


def _plan(**options: Any) -> tuple[str, dict[str, Any]]:
    return "/api/v1/plan", {"workload": bert_workload(), **options}


def _inline(config: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    workload = {**copy.deepcopy(bert_workload()), "model": {"hf_config": "inline"}}
    return "/api/v1/plan", {"workload": workload, "hf_config_json": config}


def _misplaced_config(inside: str) -> tuple[str, dict[str, Any]]:
    """An inline config sent inside the workload (or its model) instead of beside it."""
    workload = {**copy.deepcopy(bert_workload()), "model": {"hf_config": "inline"}}
    section = workload if inside == "workload" else workload["model"]
    section["hf_config_json"] = _LLAMA
    return "/api/v1/plan", {"workload": workload}


#: (request, field, the problem's English beginning)
CASES: list[tuple[tuple[str, dict[str, Any]], str, str]] = [
    (_estimate(gpus=["H10"]), "gpus[0]", "unknown GPU 'H10'; did you mean 'H100'"),
    (_estimate(gpus=["L4", "H10"]), "gpus[1]", "unknown GPU 'H10'; did you mean 'H100'"),
    (_estimate(gpus=["H100:0"]), "gpus[0]", "unknown GPU count '0'"),
    (_estimate(gpus=[5]), "gpus[0]", "Input should be a valid string"),  # the schema names it so too
    (_estimate(gpus=["A10G:2"], count=4), "count", "count 4 and gpus A10G:2 both give a GPU count"),
    (_estimate(instance="p4d.24xlarg"), "instance", "unknown instance type 'p4d.24xlarg'; did you mean"),
    (_estimate(instance="p4d.24xlarge", gpus=["L4"]), "gpus", "p4d.24xlarge carries A100-SXM4-40GB GPUs"),
    (_simulate(policies=["fixd:replicas=2"]), "policies[0]", "unknown policy kind 'fixd'; did you mean"),
    (
        _simulate(policies=["fixed:replicas=2", "target:target=7"]),
        "policies[1]",
        "policy 'target:target=7': target needs target=U",
    ),
    (
        _simulate(replica="slots=99999999999,tpot_ms=30"),
        "policies[0]",
        "policy 'fixed:replicas=2': 2 replicas × 99,999,999,999 slots",
    ),
    (
        # the count in three digits, not the 309 of 1e308 written out
        _simulate(policies=["fixed:replicas=1e308"]),
        "policies[0]",
        "policy 'fixed:replicas=1e308': replicas=1e+308 is more than the 1,000 replicas a simulation runs",
    ),
    (_simulate(gpu="L5"), "gpu", "unknown GPU 'L5'; did you mean 'L4'"),
    (_simulate(instance="p4d.24xlarg"), "instance", "unknown instance type 'p4d.24xlarg'"),
    (_simulate(instance="p4d.24xlarge"), "gpu", "gpu L4 is not the GPU of p4d.24xlarge"),
    (
        _simulate(slo="ttft_p95=soon"),
        "slo",
        "slo 'ttft_p95=soon': write the threshold as a number and one of the units",
    ),
    (_simulate(slo="ttft_p95=2s", slo_ms=500), "slo_ms", "give slo or slo_ms, not both"),
    (_simulate(replica="slots=0,tpot_ms=30"), "replica", "slots ≥ 1, tpot_ms > 0"),
    (_simulate(replica=_REPLICA, engine="max_num_seqs=64"), "engine", "engine sets the estimator's replica"),
    (_simulate(engine="max_num_seqz=64"), "engine", "unknown engine setting 'max_num_seqz'; did you mean"),
    (
        _simulate(spot_price=1e300, policies=["fixed:replicas=1,spot=1"]),
        "spot_price",
        "spot_price must be at most 16,000 USD per replica-hour",
    ),
    (_simulate(trace_csv="a,b\n1,2\n"), "trace_csv", "trace trace_csv: no timestamp column"),
    (
        _simulate(trace_csv="timestamp\n1\n2\n", shape="step"),
        "shape",
        "give trace_csv (a trace CSV) or shape",
    ),
    (
        _simulate(trace_tile_hours=2),
        "trace_tile_hours",
        "trace_scale and trace_tile_hours re-time a trace_csv",
    ),
    (_simulate(rate=10_000, hours=744), "rate", "trace shape: 10000 requests/s for 744 hours"),
    (
        _simulate(
            hours=744, workload={**_SERVICE, "serving": {**_SERVICE["serving"], "requests_per_s": 1e6}}
        ),
        "hours",  # the rate is the workload's: the request's own value at fault is its hours
        "trace shape: 1e+06 requests/s for 744 hours",
    ),
    (
        _simulate(workload=_NO_SERVING, shape="step"),
        "workload.serving",
        "simulate needs an inference workload",
    ),
    (_simulate(workload=_TRAIN), "workload.task", "simulate needs an inference workload"),
    (_plan(budget_usd=10, budget_cny=10), "budget_cny", "give the budget once"),
    (_plan(regions=["us-eats-1"]), "regions", "unknown region 'us-eats-1'; did you mean 'us-east-1'"),
    (_plan(countries=["XX"]), "countries", "unknown country 'XX'"),
    # a kind without its rate, refused as `gpuplan plan --network-kind rdma` is
    (_plan(network_kind="rdma"), "network_kind", "network_kind rdma needs network_gbps"),
    # "EUR" had been offered ecuador, peru and niger, not the EU the service reads
    (
        _plan(countries=["EUR"]),
        "countries",
        "unknown country 'EUR'; did you mean 'EU' or 'Europe' or 'ecuador'",
    ),
    (
        # put inside the workload, it had been "hf_config_json: required where …", with no word of where
        _misplaced_config("workload"),
        "workload.hf_config_json",
        "it goes at the request's top level, beside workload, not inside workload",
    ),
    (
        _misplaced_config("workload.model"),
        "workload.model.hf_config_json",
        "it goes at the request's top level, beside workload, not inside workload.model",
    ),
    (_inline({**_LLAMA, "hidden_size": 0}), "hf_config_json", "hidden_size is 0; a model's sizes are whole"),
    (
        _inline({**_LLAMA, "num_hidden_layers": 100_000}),
        "hf_config_json",
        # the service's own bound, before the workload's (512, what gpuplan traces on one's own machine)
        "describes 100,000 layers, more than the 160 this service traces for a request",
    ),
    (
        # 1.2 million list items: under the body's 4 MiB, 6 MB as the config.json it is written as
        _inline({**_LLAMA, "pad": [1] * 1_200_000}),
        "hf_config_json",
        "6,000,218 bytes as a config.json, more than the 4,194,304 accepted",
    ),
]


def _jobs(service: Service) -> int:
    with sqlite3.connect(service.db) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM jobs").fetchone()[0])


def _has_chinese(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(
    ("request_", "field", "starts"), CASES, ids=[f"{c[0][0][8:]}:{c[1]}:{c[2][:16]}" for c in CASES]
)
def test_a_refused_option_is_a_400_naming_its_field_in_one_line(
    service: Service, lang: str, request_: tuple[str, dict[str, Any]], field: str, starts: str
) -> None:
    path, body = request_
    r = service.client.post(f"{path}?lang={lang}", json=body, headers=service.auth("plan"))
    assert r.status_code == 400, r.text
    doc = r.json()
    assert doc["field"] == field, doc
    line, problem = doc["error"], doc["message"]
    assert "\n" not in line, doc
    with use_language(lang):
        where = _("{where}: {problem}{more}").format(where=field, problem="", more="")
    # the field and the problem, or the problem alone where its words name the field first
    assert line in (where + problem, problem) and line.startswith(field), doc
    if lang == "en":
        assert problem.startswith(starts) or line.startswith(starts), doc
    elif starts != "Input should be a valid string" and "bytes as a config.json" not in starts:
        assert _has_chinese(line), doc  # the problem in the caller's language
    assert _jobs(service) == 0  # nothing queued


@pytest.mark.parametrize(
    ("policy", "given"),
    [
        ("fixed:replicas=" + "9" * 400, "replicas=1.00e+400"),
        ("target:target=0.7,max=1e20", "max=1e+20"),
        ("fixed:replicas=4,commit=1e30", "commit=1e+30"),
        # a count Python does not print whole (over 4,300 digits) had been an Internal Server Error
        ("scheduled:at=0h@2/8h@" + "9" * 5000, "at=8h@1.00e+5000"),
    ],
)
def test_a_huge_count_is_refused_in_a_short_line(service: Service, policy: str, given: str) -> None:
    path, body = _simulate(policies=[policy])
    r = service.client.post(path, json=body, headers=service.auth("plan"))
    assert r.status_code == 400, r.text
    doc = r.json()
    assert doc["message"].endswith(f"': {given} is more than the 1,000 replicas a simulation runs"), doc
    assert len(doc["error"]) < 200, doc
    assert _jobs(service) == 0


def test_a_field_named_by_the_line_is_not_named_twice(service: Service) -> None:
    path, body = _simulate(slo="ttft_p95=soon")
    doc = service.client.post(path, json=body, headers=service.auth("plan")).json()
    assert (
        doc["error"]
        == doc["message"]
        == (
            "slo 'ttft_p95=soon': write the threshold as a number and one of the units ms, s or min (m), "
            "e.g. 2s, 80ms or 1min"
        )
    )
    path, body = _inline({**_LLAMA, "hidden_size": 0})
    doc = service.client.post(path, json=body, headers=service.auth("plan")).json()
    # "hf_config_json: hidden_size is 0" is the field and the problem: the problem is the rest
    assert doc["error"] == "hf_config_json: " + doc["message"], doc
    assert doc["message"] == "hidden_size is 0; a model's sizes are whole numbers of at least 1", doc


def test_an_unknown_gpu_has_the_commands_did_you_mean(service: Service, tmp_path: Path) -> None:
    import subprocess
    import sys

    import yaml

    workload = tmp_path / "w.yaml"
    workload.write_text(yaml.safe_dump(bert_workload()), encoding="utf-8")
    cli = subprocess.run(
        [sys.executable, "-m", "gpuplan", "estimate", str(workload), "--gpu", "H10"],
        capture_output=True,
        text=True,
        env={**os.environ, "GPUPLAN_DB": service.db, "GPUPLAN_LANG": "en"},
        timeout=120,
    )
    assert cli.returncode == 1, cli.stderr
    path, body = _estimate(gpus=["H10"])
    doc = service.client.post(path, json=body, headers=service.auth("plan")).json()
    # the same words up to the hint, which names what lists the GPUs: the command or the endpoint
    said = doc["message"].split(" (`")[0]
    assert said == "unknown GPU 'H10'; did you mean 'H100' or 'H20' or 'A10'?", doc
    assert said in cli.stderr, cli.stderr


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_misspelt_provider_to_refresh_is_named_by_its_item(service: Service, lang: str) -> None:
    body = {"providers": ["aws", "awz"]}
    r = service.client.post(f"/api/v1/catalog/refresh?lang={lang}", json=body, headers=service.auth("admin"))
    assert (r.status_code, r.json()["field"]) == (400, "providers[1]"), r.text
    if lang == "en":
        assert r.json()["message"].startswith("unknown provider 'awz'; did you mean 'aws'"), r.text
    else:
        assert _has_chinese(r.json()["error"]), r.text
    assert _jobs(service) == 0  # not a job


#: (deploy's options beside a plan, field, the problem's English beginning)
DEPLOY_CASES: list[tuple[dict[str, Any], str, str]] = [
    ({"target": "torchrn"}, "target", "unknown deploy target 'torchrn'; did you mean 'torchrun'"),
    ({"target": "torchrun", "own_cluster": True}, "own_cluster", "only for target k8s"),
    ({"target": "torchrun", "plan": {}}, "plan", "plan is not a gpuplan plan file"),
    ({"target": "skypilot"}, "workdir", "the skypilot target needs workdir"),
    ({"target": "skypilot", "workdir": "/"}, "workdir", "workdir '/' is the root of the file system"),
    ({"target": "torchrun", "image": "x;rm -rf /"}, "image", "image 'x;rm -rf /' is not a container image"),
    ({"target": "torchrun", "base_image": "x y"}, "base_image", "base_image 'x y' is not a container image"),
]


@pytest.fixture(scope="module")
def aws_plan() -> dict[str, Any]:
    """A holder of the plan document the deploy cases send: planned once by the first case's service
    (every case's catalog is a copy of the same seeded one, so each would plan it alike), a second
    or so a case saved."""
    return {}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("options", "field", "starts"), DEPLOY_CASES, ids=[c[1] for c in DEPLOY_CASES])
def test_a_refused_deploy_option_is_named(
    service: Service, aws_plan: dict[str, Any], lang: str, options: dict[str, Any], field: str, starts: str
) -> None:
    if not aws_plan:
        r = service.client.post(
            "/api/v1/plan",
            json={"workload": bert_workload(), "providers": ["aws"]},
            headers=service.auth("plan"),
        )
        assert r.status_code == 200, r.text
        aws_plan.update(r.json())
    plan = copy.deepcopy(aws_plan)
    r = service.client.post(
        f"/api/v1/deploy?lang={lang}", json={"plan": plan, **options}, headers=service.auth("plan")
    )
    assert (r.status_code, r.json()["field"]) == (400, field), r.text
    line, problem = r.json()["error"], r.json()["message"]
    assert line.startswith(field) and "\n" not in line, r.text
    if lang == "en":
        assert line.startswith(starts) or problem.startswith(starts), r.text
    else:
        assert _has_chinese(line), r.text


@pytest.mark.parametrize(
    ("url", "field", "starts"),
    [
        ("/api/v1/offers?gpu=H10", "gpu", "unknown GPU 'H10'; did you mean 'H100'"),
        ("/api/v1/offers?gpu=H100-SXM:%C2%B2", "gpu", "unknown GPU count '²'"),
        ("/api/v1/offers?provider=awz", "provider", "unknown provider 'awz'; did you mean 'aws'"),
        ("/api/v1/offers?region=us-eats-1", "region", "unknown region 'us-eats-1'; did you mean 'us-east-1'"),
        ("/api/v1/offers?pricing=reservd", "pricing", "unknown pricing model 'reservd'; did you mean"),
        ("/api/v1/offers?hosts=provder", "hosts", "unknown host rule 'provder'; did you mean 'provider'"),
        ("/api/v1/offers/countries?gpu=H10", "gpu", "unknown GPU 'H10'; did you mean 'H100'"),
    ],
)
def test_a_refused_query_parameter_is_named(service: Service, url: str, field: str, starts: str) -> None:
    r = service.client.get(url, headers=service.auth("read"))
    assert (r.status_code, r.json()["field"]) == (400, field), r.text
    # named in the line as a refusal of the query's schema names one ("query.count: …")
    assert r.json()["message"].startswith(starts), r.text
    assert r.json()["error"] == f"query.{field}: {r.json()['message']}", r.text


def test_a_misspelt_provider_of_an_import_or_a_discount_is_named(service: Service) -> None:
    admin = service.auth("admin")
    refused = [
        service.client.post(
            "/api/v1/catalog/import?provider=awz&format=gpuplan",
            content=b"x\n",
            headers={**admin, "Content-Type": "text/csv"},
        ),
        service.client.put(
            "/api/v1/catalog/discounts", json={"provider": "awz", "percent": 10}, headers=admin
        ),
        service.client.delete("/api/v1/catalog/discounts?provider=awz", headers=admin),
    ]
    for r, where in zip(refused, ("query.provider", "provider", "query.provider"), strict=True):
        assert (r.status_code, r.json()["field"]) == (400, "provider"), r.text
        assert r.json()["message"].startswith("unknown provider 'awz'; did you mean 'aws'"), r.text
        assert r.json()["error"] == f"{where}: {r.json()['message']}", r.text
