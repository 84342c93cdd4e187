"""Error lines of simulate/ in Chinese: raised through the real code, English unchanged.

Each case raises a real error the way `gpuplan simulate` does (a trace, a policy, a services file,
a replica given by hand); the test pins a piece of the English line as it was before the messages
went through the catalog, and that under ``zh`` the line is Chinese with no run of English words
left outside the data it quotes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from error_lines import check_line, raised, write, zh

from gpuplan.i18n.error_text import error_text
from gpuplan.simulate.autoscale import FleetPrices, ReplicaModel, simulate_autoscale
from gpuplan.simulate.inputs import ServicesFile, fleet_prices, load_services, parse_replica
from gpuplan.simulate.mig import mig_gpu
from gpuplan.simulate.policy import load_policies, parse_policy
from gpuplan.simulate.share import ServiceDemand, ShareOptions, pack_services
from gpuplan.simulate.trace import Shape, Trace, bursty_trace, diurnal_trace, read_trace_csv

_SERVICE = {"name": "a", "memory_gib": 1.0, "requests_per_s": 1.0, "capacity_requests_per_s": 1.0}
_ON_A100 = {"gpu_id": "A100-SXM4-80GB", "gpu_memory_gib": 80.0, "price_usd_per_hour": None}
_REPLICA = ReplicaModel(
    gpu="H100", slots=4, prefill_tokens_per_s=8000.0, time_per_output_token_s=0.03, source="t"
)


def _trace(**tokens: Any) -> Trace:
    return Trace(
        arrival_s=np.zeros(2), duration_s=1.0, name="t", synthetic=True, **{"output_tokens": None, **tokens}
    )


#: (what is wrong, how to raise it in a tmp folder, a piece of the English line as it always was).
CASES: list[tuple[str, Callable[[Path], object], str]] = [
    # simulate/policy.py
    (
        "min above max",
        lambda t: parse_policy("target:target=0.5,min=3,max=2"),
        "need 1 ≤ min ≤ max (got min=3, max=2)",
    ),
    ("fixed below one", lambda t: parse_policy("fixed:replicas=0"), "fixed needs replicas=N (N ≥ 1)"),
    ("target out of range", lambda t: parse_policy("target:target=2"), "target needs target=U with 0 < U"),
    (
        "queue at zero per replica",
        lambda t: parse_policy("queue:per_replica=0"),
        "queue needs per_replica=N > 0",
    ),
    ("scheduled without at", lambda t: parse_policy("scheduled"), "scheduled needs at=HOURh@N"),
    ("schedule hour 25", lambda t: parse_policy("scheduled:at=25h@3"), "write HOURh@REPLICAS, e.g. 8h@6"),
    (
        "a key's value not a number",
        lambda t: parse_policy("target:target=x"),
        "target='x' is not a number",
    ),
    (
        "a count not a whole number",
        lambda t: parse_policy("fixed:replicas=2.5"),
        "replicas='2.5' is not a whole number",
    ),
    (
        "more replicas than a simulation runs",
        lambda t: parse_policy("fixed:replicas=1e6"),
        "1,000,000 replicas is more than the 1,000 a simulation runs",
    ),
    ("an item without =", lambda t: parse_policy("fixed:replicas"), "'replicas' is not key=value"),
    ("unknown policy kind", lambda t: parse_policy("fixd:replicas=2"), "(in 'fixd:replicas=2')"),
    ("unknown policy key", lambda t: parse_policy("fixed:replica=2"), "(in 'fixed:replica=2')"),
    ("spot share above 1", lambda t: parse_policy("target:target=0.5,spot=2"), "spot must be a share"),
    ("period 0", lambda t: parse_policy("target:target=0.5,period=0"), "period must be > 0 seconds"),
    ("negative startup", lambda t: parse_policy("target:target=0.5,startup=-1"), "startup must be ≥ 0"),
    ("infinite startup", lambda t: parse_policy("target:target=0.5,startup=inf"), "must be a finite number"),
    (
        "policies entry without kind",
        lambda t: load_policies(write(t, "p.yaml", "- {replicas: 2}\n")),
        "needs a kind",
    ),
    (
        "policies not a list",
        lambda t: load_policies(write(t, "p.yaml", "a: 1\n")),
        "expected a list of policies",
    ),
    (
        "policies unknown kind",
        lambda t: load_policies(write(t, "p.yaml", "- {kind: fixd}\n")),
        "(entry 1 of p.yaml)",
    ),
    # simulate/trace.py
    (
        "trace missing",
        lambda t: read_trace_csv(t / "nope.csv"),
        "not found; give a CSV with a 'timestamp' column",
    ),
    ("trace is a folder", lambda t: read_trace_csv(t), "is not a regular file; give a CSV"),
    ("trace empty", lambda t: read_trace_csv(write(t, "e.csv", "")), "empty file; expected a header line"),
    ("trace without time", lambda t: read_trace_csv(write(t, "n.csv", "a,b\n1,2\n")), "no timestamp column"),
    (
        "token count 1.5",
        lambda t: read_trace_csv(write(t, "b.csv", "timestamp,prompt_tokens\n1,1.5\n")),
        "is not a token count",
    ),
    (
        "numbers and dates",
        lambda t: read_trace_csv(write(t, "m.csv", "timestamp\n1\n2023-01-01 00:00\n")),
        "mixes numbers",
    ),
    (
        "infinite time",
        lambda t: read_trace_csv(write(t, "i.csv", "timestamp\ninf\n")),
        "timestamp is not a finite number",
    ),
    (
        "header only",
        lambda t: read_trace_csv(write(t, "z.csv", "timestamp\n")),
        "no requests after the header",
    ),
    (
        "output tokens 0",
        lambda t: read_trace_csv(write(t, "g.csv", "timestamp,output_tokens\n1,0\n")),
        "output_tokens must be ≥ 1",
    ),
    (
        "too many rows",
        lambda t: read_trace_csv(write(t, "r.csv", "timestamp\n1\n2\n3\n"), max_rows=2),
        "more than 2 requests",
    ),
    (
        "token column short",
        lambda t: _trace(prompt_tokens=np.zeros(1)),
        "token columns must have one value per request",
    ),
    (
        "rate 0",
        lambda t: diurnal_trace(Shape(mean_requests_per_s=0)),
        "the rate must be a positive number, got 0",
    ),
    ("duration -1", lambda t: bursty_trace(Shape(mean_requests_per_s=1, duration_s=-1)), "got -1 s"),
    (
        "peak below trough",
        lambda t: diurnal_trace(Shape(mean_requests_per_s=1), peak_to_trough=0.5),
        "peak_to_trough",
    ),
    # simulate/inputs.py
    (
        "unknown replica key",
        lambda t: parse_replica("slot=3", "H100"),
        "(write slots=N,tpot_ms=T,prefill_tps=R)",
    ),
    ("replica slots x", lambda t: parse_replica("slots=x", "H100"), "--replica: slots='x' is not a number"),
    (
        "replica tpot inf",
        lambda t: parse_replica("tpot_ms=inf", "H100"),
        "tpot_ms=inf is not a finite number",
    ),
    (
        "replica without tpot",
        lambda t: parse_replica("slots=4", "H100"),
        "--replica needs slots=N and tpot_ms=T",
    ),
    ("replica slots 0", lambda t: parse_replica("slots=0,tpot_ms=3", "H100"), "--replica: slots ≥ 1"),
    ("price -1", lambda t: fleet_prices([], "H100", on_demand_usd=-1), "must be a positive number of USD"),
    (
        "spot rate -1",
        lambda t: fleet_prices([], "H100", spot_rate_per_hour=-1),
        "--spot-rate must be 0 or more",
    ),
    ("no on-demand price", lambda t: fleet_prices([], "H100"), "the catalog has no on-demand price for H100"),
    (
        "service below 0",
        lambda t: load_services(write(t, "s.yaml", "services: [{name: a, requests_per_s: -1}]\n")),
        "Input should be greater than or equal to 0",
    ),
    (
        "service extra key",
        lambda t: load_services(write(t, "s.yaml", "services: [{name: a, requests_per_s: 1, x: 1}]\n")),
        "Extra inputs are not permitted",
    ),
    (
        "service field missing",
        # a service's name (its load may come from its workload's serving block)
        lambda t: load_services(write(t, "s.yaml", "services: [{requests_per_s: 1}]\n")),
        "Field required",
    ),
    (
        "service figures missing",
        lambda t: ServicesFile.model_validate({"services": [{"name": "a", "requests_per_s": 1}]}).demands(),
        "(or workload: a YAML to estimate)",
    ),
    (
        "service not estimated",
        lambda t: ServicesFile.model_validate(
            {"services": [{"name": "a", "requests_per_s": 1, "workload": "w.yaml"}]}
        ).demands(),
        "has not been estimated",
    ),
    # simulate/share.py, mig.py, autoscale.py
    (
        "service memory 0",
        lambda t: ServiceDemand(**{**_SERVICE, "memory_gib": 0.0}, latency_s=0.1),
        "must be positive",
    ),
    (
        "service rate -1",
        lambda t: ServiceDemand(**{**_SERVICE, "requests_per_s": -1.0}, latency_s=0.1),
        "requests_per_s must be ≥ 0",
    ),
    (
        "no services",
        lambda t: pack_services([], ShareOptions(**_ON_A100)),
        "no services or notebook groups to place",
    ),
    (
        "two services one name",
        lambda t: pack_services([ServiceDemand(**_SERVICE, latency_s=0.1)] * 2, ShareOptions(**_ON_A100)),
        "give each service its own name",
    ),
    (
        "utilisation 2",
        lambda t: pack_services(
            [ServiceDemand(**_SERVICE, latency_s=0.1)], ShareOptions(**_ON_A100, target_utilisation=2)
        ),
        "target utilisation",
    ),
    (
        "penalty 2",
        lambda t: pack_services(
            [ServiceDemand(**_SERVICE, latency_s=0.1)], ShareOptions(**_ON_A100, mps_penalty=2)
        ),
        "penalties must be in [0, 1)",
    ),
    ("no MIG table", lambda t: mig_gpu("T4"), "T4 has no MIG profile table here"),
    ("unknown MIG profile", lambda t: mig_gpu("A100-SXM4-80GB").profile("9g.1gb"), "(on A100-SXM4-80GB)"),
    (
        "no token counts",
        lambda t: simulate_autoscale(
            _trace(prompt_tokens=None), _REPLICA, [], FleetPrices(usd_per_hour={}, source="t")
        ),
        "the trace has no token counts",
    ),
    (
        "no policy",
        lambda t: simulate_autoscale(
            _trace(prompt_tokens=np.ones(2, int), output_tokens=np.ones(2, int)),
            _REPLICA,
            [],
            FleetPrices(usd_per_hour={}, source="t"),
        ),
        "no policy to simulate",
    ),
    (
        "two policies one name",
        lambda t: simulate_autoscale(
            _trace(prompt_tokens=np.ones(2, int), output_tokens=np.ones(2, int)),
            _REPLICA,
            [parse_policy("fixed:replicas=1")] * 2,
            FleetPrices(usd_per_hour={}, source="t"),
        ),
        "two policies share a name",
    ),
    (
        "no spot price",
        lambda t: simulate_autoscale(
            _trace(prompt_tokens=np.ones(2, int), output_tokens=np.ones(2, int)),
            _REPLICA,
            [parse_policy("fixed:replicas=2,spot=1")],
            FleetPrices(usd_per_hour={"on_demand": 1.0}, source="t"),
        ),
        "no spot price for H100; give one with --spot-price",
    ),
]


@pytest.mark.parametrize(("raise_it", "english"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_error_keeps_its_english_and_reads_in_chinese(
    tmp_path: Path, raise_it: Callable[[Path], object], english: str
) -> None:
    check_line(raised(lambda: raise_it(tmp_path)), english)


def test_a_hint_with_data_in_it_is_translated_around_the_data() -> None:
    error = raised(lambda: parse_policy("fixd:replicas=2"))
    assert str(error) == "unknown policy kind 'fixd'; did you mean 'fixed'? (in 'fixd:replicas=2')"
    assert zh(error) == "策略类型 'fixd' 无法识别；您是不是指 'fixed'？（位于 'fixd:replicas=2'）"


def test_a_bad_trace_row_names_the_line_and_says_why_in_chinese(tmp_path: Path) -> None:
    trace = write(tmp_path, "b.csv", "timestamp,prompt_tokens\n1,1.5\n")
    error = raised(lambda: read_trace_csv(trace))
    assert str(error) == (
        "trace b.csv line 2: cannot read ['1', '1.5'] "
        "('1.5' is not a token count (a whole number up to 10,000,000))"
    )
    assert (
        zh(error)
        == "轨迹 b.csv 第 2 行：无法读取 ['1', '1.5']（'1.5' 不是 token 数（应为不超过 10,000,000 的整数））"
    )


def test_a_services_file_problem_names_the_field_in_chinese(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", "services: [{name: a, requests_per_s: -1}]\n")
    error = raised(lambda: load_services(path))
    assert (
        str(error)
        == "services file s.yaml: services.0.requests_per_s: Input should be greater than or equal to 0"
    )
    assert zh(error) == "服务文件 s.yaml：services.0.requests_per_s：应不小于 0"


def test_a_missing_price_names_the_pricing_model_in_chinese() -> None:
    trace = _trace(prompt_tokens=np.ones(2, int), output_tokens=np.ones(2, int))
    prices = FleetPrices(usd_per_hour={"on_demand": 1.0}, source="t")
    error = raised(
        lambda: simulate_autoscale(trace, _REPLICA, [parse_policy("fixed:replicas=2,spot=1")], prices)
    )
    assert str(error) == "no spot price for H100; give one with --spot-price"
    assert zh(error) == "没有 H100 的抢占式价格；请用 --spot-price 给出"


def test_english_lines_stay_the_same_after_a_chinese_one() -> None:
    error = raised(lambda: parse_policy("target:target=2"))
    zh(error)
    assert (
        error_text(error)
        == str(error)
        == ("policy 'target:target=2': target needs target=U with 0 < U ≤ 1, e.g. target:target=0.7")
    )
