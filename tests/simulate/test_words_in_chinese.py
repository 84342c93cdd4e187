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
        "needs 200.0 GiB, more than one A100-SXM4-80GB (80 GiB); "
        "split it over GPUs (tensor parallel) or pick a bigger GPU"
    )
    with use_language("zh"):
        plan = _pack("time-slice")
    assert plan.method == "降序首次适应算法"
    assert plan.notes[0] == "时间片共享吞吐损失 10%（假设值；NVIDIA 未公布）"
    assert plan.unplaced[0].reason == (
        "需要 200.0 GiB，超过一块 A100-SXM4-80GB（80 GiB）；请把它拆到多块 GPU 上（张量并行），或换更大的 GPU"
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
    assert prices.spot_rate_source == "0.5 interruptions per replica-hour (given)"
    assert parse_replica("slots=4,tpot_ms=30", "L4").source == "given: slots=4,tpot_ms=30"
    with use_language("zh"):
        prices = fleet_prices([], "A100-SXM4-80GB", on_demand_usd=3.0, spot_usd=1.0, spot_rate_per_hour=0.5)
        replica = parse_replica("slots=4,tpot_ms=30", "L4")
    assert prices.source == "按量付费 3 USD/副本小时（给定）；抢占式 1 USD/副本小时（给定）"
    assert prices.spot_rate_source == "每副本小时 0.5 次中断（给定）"
    assert replica.source == "给定：slots=4,tpot_ms=30"
