"""``estimate --instance`` and ``simulate autoscale --trace`` over the API: the same library calls as
the command line, and a bad simulate request refused when it comes in, before anything is queued."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import pytest
from serve_helpers import EXAMPLES, Service, bert_workload

from gpuplan.documents import EstimateDocument


def _jobs(service: Service) -> int:
    with sqlite3.connect(service.db) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM jobs").fetchone()[0])


def test_estimate_on_a_named_instance_type_is_the_commands(service: Service) -> None:
    from gpuplan.api import estimate, instance_links
    from gpuplan.catalog import open_store
    from gpuplan.profile import profile
    from gpuplan.report.estimate import estimate_json
    from gpuplan.workload import load_workload

    body = {"workload": bert_workload(), "instance": "p4d.24xlarge", "count": 16}
    r = service.client.post("/api/v1/estimate", json=body, headers=service.auth("plan"))
    assert r.status_code == 200, r.text
    doc = EstimateDocument.model_validate(r.json())
    [row] = doc.estimates
    assert (row.gpu, row.gpu_count, row.network_gbps, row.network_source) == (
        "A100-SXM4-40GB",
        16,
        400.0,
        "catalog",
    )
    store = open_store(service.db, seed=False)
    try:
        w = load_workload(bert_workload())
        links = instance_links(store, "p4d.24xlarge")
        report = estimate(
            w,
            links.gpus,
            count=16,
            profile=profile(w, store.local),
            network=links.network,
            host=links.host,
            offered_gpus=frozenset(o.gpu for o in store.offers()),
            levels=True,
            level_profile=lambda wl: profile(wl, store.local),
        )
        want = estimate_json(
            report.profile,
            list(report.outcomes),
            report.calibration,
            stack=report.stack,
            levels=[(lv.level, lv.outcomes) for lv in report.levels],
            checkpoints=report.checkpoints,
        )
    finally:
        store.close()
    assert r.json()["estimates"] == want.model_dump(mode="json")["estimates"]
    # the checkpoint writes its job time includes, as the command's
    assert r.json()["checkpoints"] == want.model_dump(mode="json")["checkpoints"] is not None
    # the stock and tuned stacks' figures too (the service had left them out)
    assert {lv["level"] for lv in r.json()["estimates"][0]["stack_levels"]} == {"stock", "tuned"}


def test_an_instance_of_another_gpu_names_the_requests_gpus_field(service: Service) -> None:
    # the command's flag is --gpu; the request's field is gpus
    body = {"workload": bert_workload(), "instance": "p4d.24xlarge", "gpus": ["L4"]}
    r = service.client.post("/api/v1/estimate", json=body, headers=service.auth("plan"))
    assert r.status_code == 400, r.text
    assert r.json()["error"].endswith("; drop gpus, or name an instance of L4"), r.text


def test_an_unknown_instance_type_is_one_line_with_the_close_names(service: Service) -> None:
    body = {"workload": bert_workload(), "instance": "p4d.24xlarg"}
    r = service.client.post("/api/v1/estimate", json=body, headers=service.auth("plan"))
    assert r.status_code == 400 and "p4d.24xlarge" in r.json()["error"], r.text
    assert "\n" not in r.json()["error"]


_SERVICE = {
    "name": "gpt2-service",
    "task": "infer",
    "model": {"preset": "gpt2"},
    "inputs": {"batch_size": 8, "seq_len": 256},
    "precision": "bf16",
    "serving": {"requests_per_s": 2, "prompt_tokens": 128, "output_tokens": 64},
}


def azure_trace(rows: int = 600) -> str:
    """A trace in the Azure LLM inference trace 2023 layout (Azure/AzurePublicDataset,
    AzureLLMInferenceTrace_*.csv: TIMESTAMP, ContextTokens, GeneratedTokens). The rows are
    INVENTED here, not taken from the trace."""
    lines = ["TIMESTAMP,ContextTokens,GeneratedTokens"]
    for i in range(rows):
        stamp = f"2023-11-16 18:{15 + i // 60:02d}:{i % 60:02d}.{(i * 7919) % 10**7:07d}"
        lines.append(f"{stamp},{200 + i % 900},{20 + i % 300}")
    return "\n".join(lines) + "\n"


def _simulate(service: Service, **fields: Any) -> Any:
    body = {"workload": _SERVICE, "gpu": "L4", "policies": ["fixed:replicas=2"], **fields}
    return service.client.post("/api/v1/simulate", json=body, headers=service.auth("plan"))


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        (
            {"trace_csv": azure_trace(5).replace("18:15:03", "18:15:0x")},
            "trace trace_csv line 5: cannot read ['2023-11-16 18:15:0x.0023757', '203', '23']",
        ),
        ({"trace_csv": "when,tokens\n1,2\n"}, "trace trace_csv: no timestamp column"),
        ({"trace_csv": azure_trace(5), "shape": "bursty"}, "give trace_csv (a trace CSV) or shape"),
        ({"trace_scale": 2.0}, "trace_scale and trace_tile_hours re-time a trace_csv"),
        ({"gpu": "L44"}, "L4"),
        ({"policies": ["fixed:replicas=two"]}, "policy 'fixed:replicas=two'"),
        (
            {"trace_csv": "timestamp\n0\n3000000\n"},
            "trace trace_csv spans 34.72 days, longer than the 31 days a simulation replays",
        ),
    ],
)
def test_a_bad_simulate_request_is_refused_before_it_is_queued(
    service: Service, fields: dict[str, Any], said: str
) -> None:
    r = _simulate(service, **fields)
    assert r.status_code == 400, r.text
    line = r.json()["error"]
    assert said in line and "\n" not in line, line
    assert _jobs(service) == 0


def test_a_trace_over_the_request_limit_is_413(service: Service) -> None:
    big = azure_trace(1) + "x" * (4 * 1024 * 1024)
    r = _simulate(service, trace_csv=big)
    assert r.status_code == 413 and _jobs(service) == 0


def test_the_refusal_is_in_the_callers_language(service: Service) -> None:
    body = {"workload": _SERVICE, "gpu": "L4", "policies": ["fixed:replicas=2"], "trace_csv": "a,b\n"}
    zh = service.client.post("/api/v1/simulate?lang=zh", json=body, headers=service.auth("plan"))
    assert zh.status_code == 400 and any("\u4e00" <= ch <= "\u9fff" for ch in zh.json()["error"]), zh.text


def test_an_uploaded_azure_trace_is_simulated_as_the_command_does(service: Service) -> None:
    """Traces GPT-2 in inference (seconds) and replays ten minutes of an uploaded trace."""
    r = _simulate(service, trace_csv=azure_trace(), policies=["fixed:replicas=1", "target:target=0.7,max=3"])
    assert r.status_code == 202, r.text
    job = service.client.get(r.json()["href"], headers=service.auth("plan")).json()
    assert job["status"] == "done", job
    trace = job["result"]["trace"]
    assert (trace["requests"], trace["synthetic"]) == (600, False)
    assert 599 <= trace["duration_s"] <= 601
    retimed = _simulate(service, trace_csv=azure_trace(), trace_scale=2.0)
    done = service.client.get(retimed.json()["href"], headers=service.auth("plan")).json()
    assert done["status"] == "done" and done["result"]["trace"]["note"], json.dumps(done)[:500]


def _resnet50_cached(service: Service) -> dict[str, Any]:
    """The ResNet-50 example, with a stand-in profile in the service's cache (answered at once)."""
    import yaml

    from gpuplan.catalog import open_store
    from gpuplan.profile import PROFILE_SCHEMA_VERSION, profile_key
    from stand_in_profiles import resnet50_profile

    workload: dict[str, Any] = yaml.safe_load(
        (EXAMPLES / "resnet50-imagenet.yaml").read_text(encoding="utf-8")
    )
    store = open_store(service.db)
    try:
        key = profile_key(workload)
        stand_in = resnet50_profile(key, activations_bytes=5e9)
        store.local.put_profile(key, PROFILE_SCHEMA_VERSION, stand_in.to_json())
    finally:
        store.close()
    return workload


def test_an_image_estimate_without_an_instance_bounds_its_slow_end_on_a_typical_host(
    service: Service,
) -> None:
    workload = _resnet50_cached(service)
    body = {"workload": workload, "gpus": ["A100-SXM4-80GB"]}
    r = service.client.post("/api/v1/estimate", json=body, headers=service.auth("plan"))
    assert r.status_code == 200, r.text
    [row] = r.json()["estimates"]
    host = row["input_host"]
    assert host["source"] == "typical" and host["bounded"] is True and host["instance_types"] >= 1
    # 256 images ÷ (the typical host's vCPUs × 50 images/s per vCPU) at the slow end.
    assert row["step_time_s_high"] == pytest.approx(256 / (host["vcpus_per_gpu"] * 50.0))
    assert row["input_bound"] is False


def test_gpus_that_cannot_run_the_precision_are_refused_before_the_trace(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gpuplan.web.service as web_service

    def no_trace(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("traced a workload no named GPU can run")

    monkeypatch.setattr(web_service, "_profile", no_trace)
    workload = {**bert_workload(), "precision": "fp8"}
    body = {"workload": workload, "gpus": ["A100-SXM4-80GB", "V100-SXM2-16GB"]}
    before = _jobs(service)
    r = service.client.post("/api/v1/estimate", json=body, headers=service.auth("plan"))
    # Refused when it comes in (the service's status for an estimate error), no job queued.
    assert r.status_code == 422 and _jobs(service) == before, r.text
    assert r.json()["error"] == (
        "fp8 needs Ada, Hopper or Blackwell; A100-SXM4-80GB has no FP8 tensor cores (use bf16 or amp-bf16)"
    )


def test_an_estimate_at_a_rate_of_unsaid_kind_is_tcp_at_the_point_as_on_the_command_line(
    service: Service,
) -> None:
    # was: network_gbps 400 without network_kind was costed over RDMA at the point, the best case.
    def row(**network: object) -> dict[str, Any]:
        body = {"workload": bert_workload(), "gpus": ["A100-SXM4-80GB"], "count": 16, **network}
        r = service.client.post("/api/v1/estimate", json=body, headers=service.auth("plan"))
        assert r.status_code == 200, r.text
        [est] = r.json()["estimates"]
        return dict(est)

    unsaid, tcp, rdma = (
        row(network_gbps=400),
        row(network_gbps=400, network_kind="tcp"),
        row(network_gbps=400, network_kind="rdma"),
    )
    assert unsaid["step_time_s"] == tcp["step_time_s"] > rdma["step_time_s"]
    assert unsaid["step_time_s_low"] == pytest.approx(rdma["step_time_s_low"])
    assert any("taken as tcp at the point" in n for n in unsaid["notes"])


def test_an_answers_notes_name_the_requests_fields_not_the_commands_flags(service: Service) -> None:
    workload = _resnet50_cached(service)
    # 16 GPUs: two nodes over a network no one named, a host no one named
    body = {"workload": workload, "gpus": ["A100-SXM4-80GB"], "count": 16}
    for lang in ("en", "zh"):
        r = service.client.post(f"/api/v1/estimate?lang={lang}", json=body, headers=service.auth("plan"))
        assert r.status_code == 200, r.text
        [row] = r.json()["estimates"]
        notes = " ".join(row["notes"])
        assert "network_gbps" in notes and "instance" in notes, notes
        assert "--instance" not in notes and "--network-gbps" not in notes, notes
        if lang == "en":
            assert notes.endswith("give network_gbps or instance"), notes
    # the command still names its own flags
    from gpuplan.i18n import _

    assert _("give --network-gbps or --instance") == "give --network-gbps or --instance"


def test_a_refusal_names_the_request_that_does_what_the_command_would(service: Service) -> None:
    # "`gpuplan offers --all-regions` lists them" told a caller of the service to run a command
    for lang in ("en", "zh"):
        r = service.client.get(
            f"/api/v1/offers?region=mars-north-1&lang={lang}", headers=service.auth("read")
        )
        assert r.status_code in (400, 404), r.text
        line = r.json()["error"]
        assert "`GET /api/v1/offers?all_regions=true`" in line and "gpuplan offers" not in line, line
    body = {"workload": bert_workload(), "gpus": ["Z9000"]}
    r = service.client.post("/api/v1/estimate", json=body, headers=service.auth("plan"))
    assert r.status_code in (400, 404) and "`GET /api/v1/gpus`" in r.json()["error"], r.text


def test_an_image_estimate_on_a_machine_of_ones_own_takes_its_vcpus(service: Service) -> None:
    # `estimate --vcpus` over the API: 16 threads for 4 GPUs, 4 × 100 images/s × 4 = 1,600 images/s
    workload = _resnet50_cached(service)
    body = {"workload": workload, "gpus": ["RTX-A6000:4"], "vcpus": 16}
    r = service.client.post("/api/v1/estimate", json=body, headers=service.auth("plan"))
    assert r.status_code == 200, r.text
    [row] = r.json()["estimates"]
    host = row["input_host"]
    assert host["basis"] == "the vCPUs given (--vcpus)" and host["vcpus_per_gpu"] == 4
    assert row["input_bound"] is True and row["input_samples_per_s"] == pytest.approx(1600.0)
    # one machine's threads for GPUs of two counts: refused when it comes in, naming the field
    body = {"workload": workload, "gpus": ["RTX-A6000:4", "A100-SXM4-80GB:8"], "vcpus": 16}
    before = _jobs(service)
    r = service.client.post("/api/v1/estimate", json=body, headers=service.auth("plan"))
    assert r.status_code == 400 and _jobs(service) == before, r.text
    assert "estimate one GPU count at a time (got 4, 8)" in r.json()["error"], r.text
