"""``simulate autoscale``'s options over the API: SLOs on any metric, a replica's own figures, the
engine's settings, an instance type, spot prices and reclaims, the timeout and the weights' read
rate; read by the command's own parsers, so a bad value is the command's one line or a bound, a 400
either way, and nothing is queued."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from serve_helpers import Service
from typer.testing import CliRunner

from gpuplan.cli import app

_SERVICE = {
    "name": "gpt2-service",
    "task": "infer",
    "model": {"preset": "gpt2"},
    "inputs": {"batch_size": 8, "seq_len": 256},
    "precision": "bf16",
    "serving": {"requests_per_s": 2, "prompt_tokens": 128, "output_tokens": 64},
}
REPLICA = "slots=64,tpot_ms=40,prefill_tps=3000"


def _jobs(service: Service) -> int:
    with sqlite3.connect(service.db) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM jobs").fetchone()[0])


def _simulate(service: Service, **fields: Any) -> Any:
    body = {"workload": _SERVICE, "gpu": "L4", "policies": ["fixed:replicas=2"], **fields}
    return service.client.post("/api/v1/simulate", json=body, headers=service.auth("plan"))


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"slo": "ttft_p95=soon"}, "ttft_p95=soon"),
        ({"slo": "ttft_p95=2s", "slo_ms": 500}, "give slo or slo_ms, not both (slo e2e_p95=30s says"),
        ({"replica": "slots=0,tpot_ms=30"}, "slots ≥ 1"),
        ({"replica": "slotz=4,tpot_ms=30"}, "slots"),
        ({"replica": REPLICA, "engine": "max_num_seqs=64"}, "engine sets the estimator's replica"),
        ({"engine": "max_num_seqz=64"}, "max_num_seqs"),
        ({"instance": "p4d.24xlarg"}, "p4d.24xlarge"),
        ({"instance": "p4d.24xlarge", "gpu": "L4"}, "gpu L4 is not the GPU of p4d.24xlarge"),
        ({"spot_price": 1e300, "policies": ["fixed:replicas=1,spot=1"]}, "spot_price must be at most"),
        (
            {"slo": "ttft_p95=2"},
            "slo 'ttft_p95=2': write the threshold as a number and one of the units ms, s or min",
        ),
        ({"engine": "chunked_prefill=maybe"}, "engine chunked_prefill: write on or off"),
        ({"replica": "slots=4"}, "replica needs slots=N and tpot_ms=T"),
        ({"commit_price": 2.0}, "commit_price prices committed replicas: give a policy commit=N"),
        ({"commit_price": 1e300, "policies": ["fixed:replicas=2,commit=2"]}, "commit_price must be at most"),
    ],
)
def test_a_bad_option_is_the_commands_line_and_nothing_is_queued(
    service: Service, fields: dict[str, Any], said: str
) -> None:
    r = _simulate(service, **fields)
    assert r.status_code == 400, r.text
    line = r.json()["error"]
    assert said in line and "\n" not in line, line
    # the request's field names, not the command's flags (a caller sent "slo", not "--slo")
    assert "--" not in line, line
    assert _jobs(service) == 0


def test_a_refusal_names_the_field_in_chinese_too(service: Service) -> None:
    r = service.client.post(
        "/api/v1/simulate",
        json={
            "workload": _SERVICE,
            "gpu": "L4",
            "policies": ["fixed:replicas=2"],
            "slo": "ttft_p95=2s",
            "slo_ms": 9,
        },
        headers={**service.auth("plan"), "Accept-Language": "zh-CN"},
    )
    assert (r.status_code, r.json()["field"], r.json()["error"]) == (
        400,
        "slo_ms",
        "slo_ms：请给出 slo 或 slo_ms，不要同时给出（slo e2e_p95=30s 含义相同）",
    )


@pytest.mark.parametrize(
    "fields",
    [
        {"timeout_s": 0},
        {"spot_notice_s": -1},
        {"storage_gbps": 0},
        {"spot_rate": -0.5},
        {"on_demand_price": -2},
        {"slo": "x" * 1000},
        {"timeout_s": 1e300},
        {"spot_notice_s": 1e300},
        {"storage_gbps": 1e300},
        {"spot_rate": 1e300},
    ],
)
def test_an_option_out_of_its_bounds_is_400(service: Service, fields: dict[str, Any]) -> None:
    r = _simulate(service, **fields)
    assert r.status_code == 400, r.text
    assert _jobs(service) == 0


def test_the_answer_is_the_commands_document_for_the_same_options(service: Service, tmp_path: Path) -> None:
    """A replica's own figures (no tracing), SLOs on TTFT and TPOT, spot replicas with their price,
    reclaim rate and notice, and a timeout: the service's document is the command's ``--json``."""
    options = {
        "replica": REPLICA,
        "slo": "ttft_p95=2s,tpot_p95=80ms",
        "on_demand_price": 0.7,
        "spot_price": 0.3,
        "spot_rate": 0.5,
        "spot_notice_s": 60,
        "timeout_s": 30,
        "shape": "bursty",
        "rate": 3,
        "hours": 2,
        "seed": 7,
        "policies": ["fixed:replicas=2", "queue:per_replica=24,max=4,spot=0.5"],
    }
    r = _simulate(service, **options)
    assert r.status_code == 202, r.text
    job = service.client.get(r.json()["href"], headers=service.auth("plan")).json()
    assert job["status"] == "done", job
    served = job["result"]
    workload = tmp_path / "service.yaml"
    workload.write_text(json.dumps(_SERVICE), encoding="utf-8")
    args = ["simulate", "autoscale", str(workload), "--gpu", "L4", "--json"]
    for key in ("replica", "slo", "on_demand_price", "spot_price", "spot_rate", "spot_notice_s"):
        args += [f"--{key.replace('_', '-')}", str(options[key])]
    args += ["--timeout-s", "30", "--shape", "bursty", "--rate", "3", "--hours", "2", "--seed", "7"]
    for p in options["policies"]:
        args += ["--policy", p]
    res = CliRunner().invoke(app, args, env={"GPUPLAN_DB": service.db}, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "with --replica" in res.stdout and "with --replica" not in json.dumps(served)
    assert _apart(served) == _apart(_as_served(res.stdout))
    assert {s["metric"] for s in served["settings"]["slos"]} == {"ttft", "tpot"}
    assert (served["settings"]["timeout_s"], served["settings"]["spot_notice_s"]) == (30, 60)
    assert served["prices"]["usd_per_hour"]["spot"] == 0.3
    assert served["prices"]["spot_interruptions_per_hour"] == 0.5


#: The service without its serving: block: a replica's own figures say what is simulated.
_NO_SERVING = {k: v for k, v in _SERVICE.items() if k != "serving"}


def _done(service: Service, r: Any) -> dict[str, Any]:
    assert r.status_code == 202, r.text
    job = service.client.get(r.json()["href"], headers=service.auth("plan")).json()
    assert job["status"] == "done", job
    return dict(job["result"])


def _command(service: Service, tmp_path: Path, *args: str) -> dict[str, Any]:
    workload = tmp_path / "service.yaml"
    workload.write_text(json.dumps(_NO_SERVING), encoding="utf-8")
    argv = ["simulate", "autoscale", str(workload), "--gpu", "L4", "--json", "--replica", REPLICA, *args]
    res = CliRunner().invoke(app, argv, env={"GPUPLAN_DB": service.db}, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return _as_served(res.stdout)


def _as_served(document: str) -> dict[str, Any]:
    """The command's ``--json`` document as the service answers it: its notes name the request's
    fields where the command names its flags ("not known with replica", not "with --replica")."""
    from gpuplan.i18n import options_named
    from gpuplan.web.requests import SimulateRequest

    return dict(json.loads(options_named(document, SimulateRequest.OPTION_FIELDS)))


def _apart(document: dict[str, Any]) -> dict[str, Any]:
    """The document without its old rate's advice, each face's own: the command's names its
    --cny-per-usd, the service's the catalog refresh request it takes."""
    rate = document.get("exchange_rate")
    if not rate:
        return document
    return {**document, "exchange_rate": {k: v for k, v in rate.items() if k != "warning"}}


def test_a_replicas_figures_need_no_serving_block_as_in_the_command(service: Service, tmp_path: Path) -> None:
    """Refused with "needs a serving: block" where the command simulates it: the same document."""
    fields = {"replica": REPLICA, "shape": "step", "rate": 2, "hours": 1, "seed": 3}
    served = _done(service, _simulate(service, workload=_NO_SERVING, **fields))
    said = _command(
        service,
        tmp_path,
        "--shape",
        "step",
        "--rate",
        "2",
        "--hours",
        "1",
        "--seed",
        "3",
        "--policy",
        "fixed:replicas=2",
    )
    assert _apart(served) == _apart(said)


def test_an_uploaded_trace_without_token_counts_needs_no_serving_block(
    service: Service, tmp_path: Path
) -> None:
    csv = "timestamp\n" + "".join(f"{t * 0.5}\n" for t in range(600))
    served = _done(service, _simulate(service, workload=_NO_SERVING, replica=REPLICA, trace_csv=csv))
    trace = tmp_path / "trace_csv"  # the service names an uploaded trace by its field
    trace.write_text(csv, encoding="utf-8")
    assert _apart(served) == _apart(
        _command(service, tmp_path, "--trace", str(trace), "--policy", "fixed:replicas=2")
    )
    said = served["trace"]
    assert (said["default_prompt_tokens"], said["default_output_tokens"]) == (512, 256)


def test_a_catalog_price_names_its_publisher_date_and_confidence_as_the_command_does(
    service: Service, tmp_path: Path
) -> None:
    """The answer's price basis is the command's: the offer's source as the catalog holds it, its
    date and confidence, and whether it is known to hold today."""
    fields = {"replica": REPLICA, "shape": "step", "rate": 1, "hours": 0.5, "seed": 1}
    served = _done(service, _simulate(service, workload=_NO_SERVING, **fields))
    argv = ["--shape", "step", "--rate", "1", "--hours", "0.5", "--seed", "1", "--policy", "fixed:replicas=2"]
    assert _apart(served) == _apart(_command(service, tmp_path, *argv))
    basis = served["prices"]["basis"]["on_demand"]
    assert basis["given"] is False and basis["price_source"] and basis["confidence"] in ("high", "secondary")
    assert basis["as_of"] and basis["known_current"] in (True, False)
    assert basis["price_source"] in served["prices"]["source"]


@pytest.mark.parametrize(
    ("fields", "field", "said"),
    [
        # no replica: the estimator needs the serving: block, as the command does
        (
            {},
            "workload.serving",
            "simulate needs an inference workload: task: infer with a serving: block (or give replica)",
        ),
        # a generated trace needs a rate where the workload gives none
        (
            {"replica": REPLICA, "shape": "diurnal"},
            "rate",
            "give rate or peak (or serving.requests_per_s in the workload)",
        ),
    ],
)
def test_without_a_serving_block_what_is_missing_is_said(
    service: Service, fields: dict[str, Any], field: str, said: str
) -> None:
    r = _simulate(service, workload=_NO_SERVING, **fields)
    assert (r.status_code, r.json()["field"], r.json()["error"]) == (400, field, f"{field}: {said}"), r.text
    assert _jobs(service) == 0


def test_an_instance_type_and_engine_settings_reach_the_estimators_replica(service: Service) -> None:
    """Traces GPT-2 in inference (seconds): a p4d.24xlarge's A100 replica with max_num_seqs=8."""
    r = _simulate(service, gpu=None, instance="p4d.24xlarge", engine="max_num_seqs=8", hours=0.5)
    assert r.status_code == 202, r.text
    job = service.client.get(r.json()["href"], headers=service.auth("plan")).json()
    assert job["status"] == "done", job
    replica = job["result"]["replica"]
    assert replica["gpu"].startswith("A100") and replica["slots"] == 8, replica


def test_every_option_of_the_command_has_its_field_in_the_request() -> None:
    """What the command reads from the user's disk or prints comes as data over the API (trace_csv,
    policies as a list) or is not the service's (--out, --json, the language, the project); the
    document is in US dollars, as the command's --json, so the display currency is the page's."""
    import typer.main

    from gpuplan.cli.simulate_cmds import app as simulate_app
    from gpuplan.web.requests import SimulateRequest

    command = typer.main.get_command(simulate_app).commands["autoscale"]  # type: ignore[attr-defined]
    options = {p.name for p in command.params if p.name}
    not_fields = {"workload_file", "trace", "policy", "out", "as_json", "lang", "project"}
    # --tensor-parallel sets what a workload file on disk leaves out; a request's workload states it
    not_fields.add("tensor_parallel")
    display = {"currency", "usd_per_cny", "cny_per_usd", "force_rate"}
    missing = options - not_fields - display - set(SimulateRequest.model_fields)
    assert not missing, missing
    assert {"trace_csv", "policies"} <= set(SimulateRequest.model_fields)


def test_each_option_is_named_as_a_field_the_api_takes(service: Service) -> None:
    """The table that names the command's options in the API's refusals maps flags the command
    line has to fields or query parameters the API has (a renamed field would be named wrongly)."""
    import click
    import typer.main

    from gpuplan.web.requests import OPTION_FIELDS, EstimateRequest

    def flags(command: click.Command) -> set[str]:
        found = {o for p in command.params for o in getattr(p, "opts", ()) if o.startswith("--")}
        for sub in getattr(command, "commands", {}).values():
            found |= flags(sub)
        return found

    api = service.client.get("/api/openapi.json").json()
    schemas = api["components"]["schemas"]
    taken = {
        p["name"] for path in api["paths"].values() for op in path.values() for p in op.get("parameters", [])
    }
    taken |= {
        name for kind, schema in schemas.items() if kind.endswith("Request") for name in schema["properties"]
    }
    for table in (OPTION_FIELDS, EstimateRequest.OPTION_FIELDS):
        options = {k: v for k, v in table.items() if k.startswith("--")}
        assert set(options) <= flags(typer.main.get_command(app)), set(options) - flags(
            typer.main.get_command(app)
        )
        assert set(options.values()) <= taken, set(options.values()) - taken
        # a command is named by a route of the service
        routes = {
            f"{m.upper()} /api/v1{p.removeprefix('/api/v1')}" for p, ops in api["paths"].items() for m in ops
        }
        for command, request in table.items():
            if not command.startswith("--"):
                route = request.split("?")[0].split(" (")[0]
                assert command.startswith("gpuplan ") and route in routes, (command, request)
                assert "{" not in request and "}" not in request  # the template is formatted after
    assert EstimateRequest.OPTION_FIELDS["--gpu"] in EstimateRequest.model_fields


def test_a_gpu_util_policy_takes_the_workloads_serving_block_as_the_command_does(service: Service) -> None:
    # The command filled a gpu-util policy's target and replica range from the serving block (the
    # HPA deploy writes); the service had left them at the policy's defaults (80 %, 1 to 8).
    workload = {**_SERVICE, "serving": {**_SERVICE["serving"], "min_replicas": 2, "max_replicas": 3}}
    body = {
        "workload": workload,
        "gpu": "L4",
        "replica": REPLICA,
        "shape": "step",
        "hours": 1,
        "policies": ["gpu-util:70", "gpu-util:70,max=5"],
    }
    served = _done(service, service.client.post("/api/v1/simulate", json=body, headers=service.auth("plan")))
    ranges = [(p["behaviour"]["min_replicas"], p["behaviour"]["max_replicas"]) for p in served["policies"]]
    assert ranges == [(2, 3), (2, 5)]


def test_replicas_sharing_a_gpu_run_and_are_billed_so_as_in_the_command(service: Service) -> None:
    """Traces GPT-2 (seconds): serving.share_gpu reaches the job's replica and its prices."""
    workload = {**_SERVICE, "serving": {**_SERVICE["serving"], "share_gpu": 2}}
    body = {
        "workload": workload,
        "gpu": "L4",
        "shape": "step",
        "hours": 0.5,
        "policies": ["fixed:replicas=2"],
    }
    served = _done(service, service.client.post("/api/v1/simulate", json=body, headers=service.auth("plan")))
    assert served["prices"]["replicas_per_gpu"] == 2
    assert served["prices"]["replicas_per_instance"]["on_demand"] % 2 == 0
    assert "2 replicas time-share each GPU" in served["replica"]["source"]


def test_a_generated_traces_peak_is_a_request_field_as_the_commands_peak() -> None:
    # the command's --peak came with no field of its own: a request could not ask for the day's peak
    from gpuplan.web.requests import SimulateRequest
    from gpuplan.web.simulating import _shape

    request = SimulateRequest(workload={}, policies=["fixed:replicas=1"], shape="diurnal", peak=5.0)
    shape = _shape(request, None)
    assert (shape.peak_requests_per_s, shape.mean_requests_per_s) == (5.0, None)


def test_a_committed_price_reaches_the_fleet_it_prices(service: Service) -> None:
    """Two replicas bought by the month at the caller's 0.5 USD a replica-hour: billed so for the
    whole span, as the command's --commit-price bills them."""
    r = _simulate(service, replica=REPLICA, hours=1, policies=["fixed:replicas=2,commit=2"], commit_price=0.5)
    assert r.status_code == 202, r.text
    job = service.client.get(r.json()["href"], headers=service.auth("plan")).json()
    assert job["status"] == "done", job
    doc = job["result"]
    assert doc["prices"]["usd_per_hour"]["monthly"] == 0.5
    (p,) = doc["policies"]
    assert p["cost_usd"] == pytest.approx(p["replica_hours"]["monthly"] * 0.5)
    assert p["replica_hours"]["monthly"] >= 2.0  # two replicas for the hour and its drain


def test_a_precision_the_gpu_cannot_run_is_refused_at_once_as_estimate_refuses_it(service: Service) -> None:
    """bf16 on a T4 had been queued (202) and failed minutes later, after the trace; /estimate
    refuses it at once: the same 422 and line, nothing queued."""
    workload = {**_SERVICE, "precision": "amp-bf16"}
    estimated = service.client.post(
        "/api/v1/estimate", json={"workload": workload, "gpus": ["T4"]}, headers=service.auth("plan")
    )
    simulated = _simulate(service, workload=workload, gpu="T4")
    assert estimated.status_code == simulated.status_code == 422, simulated.text
    assert simulated.json()["error"] == estimated.json()["error"]
    assert simulated.json()["error"].startswith("bf16 needs Ampere or newer; T4 has no BF16 tensor cores")
    assert _jobs(service) == 0


def test_a_replicas_own_figures_need_no_precision_of_the_gpu(service: Service) -> None:
    """With replica, the estimator is not run: the GPU only prices the replica, and is not refused."""
    workload = {**_SERVICE, "precision": "amp-bf16"}
    r = _simulate(service, workload=workload, gpu="T4", replica=REPLICA, shape="step", rate=2, hours=1)
    assert r.status_code == 202, r.text


def test_prices_in_yuan_are_the_commands_yuan_prices(service: Service, tmp_path: Path) -> None:
    """currency CNY: on_demand_price 18.49 is ¥18.49 a replica-hour, converted at the catalog's
    dated rate as the command's --on-demand-price ¥18.49 is (it had been read as $18.49, seven
    times the price); the notes word the figures in yuan, as the command's do."""
    fields = {"replica": REPLICA, "shape": "step", "rate": 2, "hours": 1, "seed": 3, "on_demand_price": 18.49}
    served = _done(service, _simulate(service, workload=_NO_SERVING, currency="CNY", **fields))
    said = _command(
        service,
        tmp_path,
        *("--shape", "step", "--rate", "2", "--hours", "1", "--seed", "3"),
        *("--policy", "fixed:replicas=2", "--on-demand-price", "¥18.49", "--currency", "CNY"),
    )
    assert _apart(served) == _apart(said)
    assert served["prices"]["usd_per_hour"]["on_demand"] < 18.49 / 6  # 6.99-7.19 CNY per USD


def test_a_workload_budgeted_in_yuan_asks_the_prices_currency(service: Service) -> None:
    """As the command refuses a bare --on-demand-price where the budget is in yuan: a guess would be
    seven-fold wrong one way or the other. With currency given, it is taken in it."""
    yuan = {**_SERVICE, "constraints": {"budget_cny": 50_000}}
    r = _simulate(service, workload=yuan, replica=REPLICA, on_demand_price=18.49)
    assert r.status_code == 400, r.text
    assert r.json()["field"] == "on_demand_price"
    assert r.json()["message"] == (
        "18.49: in which currency? The workload's budget is in CNY: give currency CNY for yuan or USD "
        "for dollars"
    )
    assert _jobs(service) == 0
    dollars = _done(
        service,
        _simulate(service, workload=yuan, replica=REPLICA, hours=1, on_demand_price=2.5, currency="USD"),
    )
    assert dollars["prices"]["usd_per_hour"]["on_demand"] == 2.5


def test_the_answer_says_the_currency_its_money_is_shown_in_and_the_rate(service: Service) -> None:
    """A workload budgeted in yuan is answered in yuan unless currency says otherwise, as the
    command shows it: the document says so (display_currency) with the catalog's rate, so that the
    dashboard shows its costs in yuan; they had been shown in dollars, the document saying nothing."""
    yuan = {**_SERVICE, "constraints": {"budget_cny": 50_000}}
    served = _done(service, _simulate(service, workload=yuan, replica=REPLICA, hours=1))
    assert served["display_currency"] == "CNY"
    rate = served["exchange_rate"]
    assert rate["currency"] == "CNY" and 6.5 < rate["units_per_usd"] < 7.5 and rate["as_of"]
    assert "--cny-per-usd" not in (rate["warning"] or "")  # an old rate's advice is the service's
    dollars = _done(service, _simulate(service, workload=yuan, replica=REPLICA, hours=1, currency="USD"))
    assert dollars["display_currency"] == "USD"
    # the amounts stay in USD, whichever currency is shown
    assert served["policies"][0]["cost_usd"] == dollars["policies"][0]["cost_usd"]
    plain = _done(service, _simulate(service, replica=REPLICA, hours=1))
    assert plain["display_currency"] == "USD"


def test_a_yuan_price_over_the_bound_says_it_in_yuan_and_dollars(service: Service) -> None:
    r = _simulate(service, currency="CNY", on_demand_price=1e9, replica=REPLICA)
    assert r.status_code == 400, r.text
    assert r.json()["message"].startswith("¥1,000,000,000.00 is "), r.json()
    assert " USD at the catalog's rate: " in r.json()["message"]


def test_an_encoder_preset_is_refused_at_once_for_the_estimators_replica(service: Service) -> None:
    """bert-large has no decode steps: the job had been queued and failed after tracing it; the
    preset's family is known without a trace."""
    bert = {**_SERVICE, "name": "bert-service", "model": {"preset": "bert-large"}}
    r = _simulate(service, workload=bert)
    assert r.status_code == 422, r.text
    assert r.json()["error"] == "bert-service: the replica model needs a decoder LLM (KV cache, decode steps)"
    assert _jobs(service) == 0


def test_the_workloads_latency_targets_are_the_default_slos_as_in_the_command(service: Service) -> None:
    # the service's simulation had left serving.tpot_p95_ms out of its default SLOs
    workload = {**_SERVICE, "serving": {**_SERVICE["serving"], "ttft_p95_ms": 1500, "tpot_p95_ms": 60}}
    body = {
        "workload": workload,
        "gpu": "L4",
        "replica": REPLICA,
        "shape": "step",
        "rate": 2,
        "hours": 1,
        "policies": ["fixed:replicas=2"],
    }
    served = _done(service, service.client.post("/api/v1/simulate", json=body, headers=service.auth("plan")))
    slos = [(s["metric"], s["percentile"], s["threshold_s"]) for s in served["settings"]["slos"]]
    assert slos == [("ttft", 95.0, 1.5), ("tpot", 95.0, 0.06)]


def test_a_policys_default_max_follows_the_load_as_in_the_command(service: Service, tmp_path: Path) -> None:
    # The command sets a max that neither the policy nor the serving block gives from the load (as
    # deploy writes maxReplicas); the service had kept the policy's own 8, below what the peak needs.
    body = {
        "workload": _SERVICE,
        "gpu": "L4",
        "replica": REPLICA,
        "shape": "step",
        "rate": 150,
        "hours": 0.25,
        "on_demand_price": 1.0,
        "policies": ["gpu-util:80", "queue"],
    }
    served = _done(service, service.client.post("/api/v1/simulate", json=body, headers=service.auth("plan")))
    most = [p["behaviour"]["max_replicas"] for p in served["policies"]]
    assert all(m > 8 for m in most), most
    workload = tmp_path / "service.yaml"
    workload.write_text(json.dumps(_SERVICE), encoding="utf-8")
    argv = ["simulate", "autoscale", str(workload), "--gpu", "L4", "--json", "--replica", REPLICA]
    argv += ["--shape", "step", "--rate", "150", "--hours", "0.25", "--on-demand-price", "1"]
    argv += ["--policy", "gpu-util:80", "--policy", "queue"]
    res = CliRunner().invoke(app, argv, env={"GPUPLAN_DB": service.db}, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert most == [p["behaviour"]["max_replicas"] for p in _as_served(res.stdout)["policies"]]


def test_policies_priced_at_different_offers_are_said_so_and_costed_at_one_as_in_the_command(
    service: Service, tmp_path: Path
) -> None:
    """One 4-GPU replica is priced on a 4-GPU box, two on an 8-GPU one: the answer names each
    policy's offer, gives every policy's cost at the common one and, where a price is of unknown
    age, the cost at the best known-current one, as the command's ``--json`` does."""
    split = {**_NO_SERVING, "tensor_parallel": 4}
    fields = {"replica": REPLICA, "shape": "step", "rate": 1, "hours": 0.5, "seed": 1}
    policies = ["fixed:replicas=1", "fixed:replicas=2"]
    served = _done(service, _simulate(service, workload=split, gpu="H100-SXM", policies=policies, **fields))
    workload = tmp_path / "split.yaml"
    workload.write_text(json.dumps(split), encoding="utf-8")
    argv = ["simulate", "autoscale", str(workload), "--gpu", "H100-SXM", "--json", "--replica", REPLICA]
    argv += ["--shape", "step", "--rate", "1", "--hours", "0.5", "--seed", "1"]
    argv += ["--policy", policies[0], "--policy", policies[1]]
    res = CliRunner().invoke(app, argv, env={"GPUPLAN_DB": service.db}, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert _apart(served) == _apart(_as_served(res.stdout))
    one, two = served["policies"]
    assert one["prices"] is not None and two["prices"] is None
    assert "priced at different offers" in served["comparison_note"]
    # one replica alone on the 8-GPU box the pair shares: dearer than on its own 4-GPU one
    assert one["common_basis_cost_usd"] > one["cost_usd"]
    assert two["common_basis_cost_usd"] == two["cost_usd"]
    for p in served["policies"]:
        stale = any(not b["known_current"] for b in (p["prices"] or served["prices"])["basis"].values())
        assert (p["known_current_note"] is not None) == stale
