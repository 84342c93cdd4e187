"""The words simulate/ puts into its results (how a packing was found, its notes, why a service was
not placed, where prices and a replica's speed come from) are in the user's language, and the
same English as before under ``en``."""

from __future__ import annotations

from gpuplan.i18n.messages import use_language
from gpuplan.simulate.inputs import fleet_prices, parse_replica
from gpuplan.simulate.share import ServiceDemand, ShareOptions, SharePlan, pack_services
from i18n.english_left import english_left

_CHAT = ServiceDemand(
    name="chat", memory_gib=20.0, requests_per_s=2.0, capacity_requests_per_s=10.0, latency_s=1.0
)
_HUGE = ServiceDemand(
    name="huge", memory_gib=200.0, requests_per_s=1.0, capacity_requests_per_s=10.0, latency_s=1.0
)


def _pack(sharing: str) -> SharePlan:
    opts = ShareOptions(
        gpu_id="A100-SXM4-80GB", gpu_memory_gib=80.0, price_usd_per_hour=None, sharing=sharing
    )
    return pack_services([_CHAT, _HUGE], opts)


def test_a_time_sliced_packing_says_how_and_what_it_assumes_in_both_languages() -> None:
    plan = _pack("time-slice")
    assert plan.method == "first-fit decreasing"
    assert plan.notes[0] == "time-slicing throughput penalty 10% (assumed; NVIDIA publishes none)"
    assert plan.unplaced[0].reason == (
        "needs 200.0 GiB, more than one A100-SXM4-80GB (80.0 GiB usable); "
        "split it over GPUs (tensor parallel) or pick a bigger GPU"
    )
    with use_language("zh"):
        plan = _pack("time-slice")
    assert plan.method == "降序首次适应算法"
    assert plan.notes[0] == "时间片共享吞吐损失 10%（假设值；NVIDIA 未公布）"
    assert plan.unplaced[0].reason == (
        "需要 200.0 GiB，超过一块 A100-SXM4-80GB（可用 80.0 GiB）；"
        "请把它拆到多块 GPU 上（张量并行），或换更大的 GPU"
    )


def test_every_packing_s_words_read_in_chinese() -> None:
    for sharing in ("whole", "mig", "time-slice", "mps"):
        with use_language("zh"):
            plan = _pack(sharing)
        for line in (plan.method, *plan.notes, *(u.reason for u in plan.unplaced)):
            assert english_left(line) == [], (sharing, line)


def test_price_and_replica_sources_read_in_chinese() -> None:
    prices = fleet_prices([], "A100-SXM4-80GB", on_demand_usd=3.0, spot_usd=1.0, spot_rate_per_hour=0.5)
    assert prices.source == "on_demand 3 USD/replica-h given; spot 1 USD/replica-h given"
    assert prices.spot_rate_source == "0.5 reclaims per spot instance-hour (given)"
    assert parse_replica("slots=4,tpot_ms=30", "L4").source == "given: slots=4,tpot_ms=30"
    with use_language("zh"):
        prices = fleet_prices([], "A100-SXM4-80GB", on_demand_usd=3.0, spot_usd=1.0, spot_rate_per_hour=0.5)
        replica = parse_replica("slots=4,tpot_ms=30", "L4")
    assert prices.source == "按量付费 3 USD/副本小时（给定）；抢占式 1 USD/副本小时（给定）"
    assert prices.spot_rate_source == "每抢占式实例小时 0.5 次回收（给定）"
    assert replica.source == "给定：slots=4,tpot_ms=30"


def test_an_engine_s_defaults_say_where_they_come_from_in_chinese() -> None:
    # was: "vLLM API-server defaults (…); no engine named: vLLM's; version not stated: taken as 0.11"
    # in the Chinese report
    from gpuplan.hardware import get_gpu
    from gpuplan.simulate.engines import engine_defaults

    h100 = get_gpu("H100-SXM")
    cases = [(None, None), ("vllm", (0, 5)), ("vllm", (0, 19)), ("vllm", (0, 8)), ("sglang", None)]
    english = [engine_defaults(h100, e, v).source for e, v in cases]
    assert english[0] == (
        "vLLM API-server defaults (vllm/engine/arg_utils.py get_batch_defaults, v0.9-v0.11, v0.14.0); "
        "no engine named: vLLM's; version not stated: the one `gpuplan deploy` runs, vLLM 0.14.0"
    )
    with use_language("zh"):
        chinese = [engine_defaults(h100, e, v).source for e, v in cases]
    for line in chinese:
        assert english_left(line) == [], line
    assert "0.14.0" in chinese[0] and "vllm/engine/arg_utils.py" in chinese[0]
    assert "gpuplan deploy" in chinese[0] and "0.5.2" in chinese[4]


def test_the_autoscale_report_reads_in_chinese_with_its_own_words() -> None:
    # was: the latency header "queue TTFT TPOT e2e" in English, spot called 竞价实例 beside 抢占式,
    # prices only in USD beside costs in yuan, and an SLO of 50 ms echoed as "0.05 s"
    import io

    import numpy as np
    from rich.console import Console

    from gpuplan.i18n import Money
    from gpuplan.report.autoscale import autoscale_html, autoscale_view
    from gpuplan.simulate import (
        ReplicaModel,
        SimulationSettings,
        Slo,
        Trace,
        parse_policy,
        simulate_autoscale,
    )

    rep = ReplicaModel(
        gpu="L4", slots=8, prefill_tokens_per_s=3000.0, time_per_output_token_s=0.04, source="given"
    )
    tr = Trace(
        arrival_s=np.arange(0.0, 600.0, 2.0), prompt_tokens=None, output_tokens=None, duration_s=600.0,
        name="t", synthetic=True,
    ).with_tokens(100, 20)  # fmt: skip
    slos = (
        Slo(metric="tpot", percentile=95, threshold_s=0.05),
        Slo(metric="e2e", percentile=95, threshold_s=2),
    )
    prices = fleet_prices([], "L4", on_demand_usd=1.0, spot_usd=0.5, spot_rate_per_hour=0.5)
    money = Money.from_rate("CNY", usd_per_unit=0.125, as_of="2026-01-27", source="test")
    with use_language("zh"):
        res = simulate_autoscale(
            tr, rep, [parse_policy("fixed:replicas=2,spot=0.5")], prices, SimulationSettings(slos=slos)
        )
        out = io.StringIO()
        Console(file=out, width=250).print(autoscale_view(res, money))
        text = out.getvalue()
        html = autoscale_html(res, money)
    assert "排队" in text and "queue" not in text
    assert "竞价" not in text
    assert "tpot_p95 50 ms" in text and "e2e_p95 2 s" in text and "0.05 s" not in text
    assert "¥8.00" in text and "¥4.00" in text  # the prices per replica-hour in the chosen currency
    assert "排队" in html and "¥8.00" in html
    with use_language("en"):
        out = io.StringIO()
        Console(file=out, width=250).print(autoscale_view(res, Money(currency="USD")))
    assert "tpot_p95 50 ms" in out.getvalue()
