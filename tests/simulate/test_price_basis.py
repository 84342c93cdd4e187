"""Where a simulation's price comes from: the publisher's text, the date and the confidence, as the
catalog holds them; and a price not known to hold today is chosen and said as plan says its own —
ranked on its figure, after a known-current one of the same figure, with the best known-current
price beside it."""

from __future__ import annotations

from typing import Any

import pytest

from gpuplan.catalog import OfferPrice
from gpuplan.simulate import FleetPrices, ReplicaModel, Shape, diurnal_trace, parse_policy, simulate_autoscale
from gpuplan.simulate.inputs import fleet_prices

GPU = "A100-SXM4-80GB"
MARKET_SOURCE = (
    "SkyPilot catalog github.com/skypilot-org/skypilot-catalog catalogs/v8/shadeform/vms.csv, line 7"
)
LIST_SOURCE = "Azure Retail Prices API prices.azure.com, read 2026-11-20"


def _offer(**kw: Any) -> OfferPrice:
    base: dict[str, Any] = dict(
        provider="azure", region="eastus", zone=None, instance_type="Standard_NC24ads_A100_v4", gpu=GPU,
        gpu_count=1.0, vcpus=24.0, memory_gib=220.0, network_gbps=None, interconnect=None,
        pricing="on_demand", price=3.67, currency="USD", unit="hour", price_usd_per_hour=3.67,
        price_usd_per_gpu_hour=3.67, as_of="2026-11-20", source=LIST_SOURCE, confidence="high",
        interruption_band=None, billing_granularity_s=60, min_billing_s=60, term=None, compliance=(),
        stale=False, price_reason=None, as_of_precision="day", staleness="fresh", stale_after_days=180,
    )  # fmt: skip
    base.update(kw)
    return OfferPrice(**base)


#: A marketplace's price of unknown age: observed at some time in the 21 months to the catalog's day.
MARKET = _offer(
    provider="shadeform", region="beltsville-usa-1", instance_type="massedcompute_A100_sxm4_80G",
    price=1.38, price_usd_per_hour=1.38, price_usd_per_gpu_hour=1.38, as_of="2025-03/2026-12-02",
    source=MARKET_SOURCE, confidence="secondary", stale=True, as_of_precision="bounded", staleness="unknown",
)  # fmt: skip
LIST = _offer()


def test_the_price_names_its_publisher_date_and_confidence_and_the_best_current_one_beside_it() -> None:
    p = fleet_prices([MARKET, LIST], GPU)
    # plan ranks on the figure: the marketplace's $1.38 is the cheapest, not hidden for its age …
    assert p.usd_per_hour == {"on_demand": pytest.approx(1.38)}
    b = p.basis["on_demand"]
    assert (b.source, b.as_of, b.confidence, b.known_current) == (
        MARKET_SOURCE,
        "2025-03/2026-12-02",
        "secondary",
        False,
    )
    # … and the best price known to hold today is named beside it, with its own source
    assert b.current is not None
    assert (b.current.provider, b.current.usd_per_hour, b.current.confidence, b.current.source) == (
        "azure",
        pytest.approx(3.67),
        "high",
        LIST_SOURCE,
    )
    words = p.sources["on_demand"]
    assert f"price source: {MARKET_SOURCE} (confidence secondary)" in words
    assert (
        "observed at some time between 2025-03 and 2026-12-02, possibly older than the 180-day limit: "
        "treated as stale" in words
    )
    assert (
        "best on_demand price known to be within the 180-day limit: azure eastus Standard_NC24ads_A100_v4, "
        f"3.67 USD/replica-h (2026-11-20; {LIST_SOURCE}, confidence high)" in words
    )


def test_the_price_basis_names_the_confidence_in_the_users_language() -> None:
    from gpuplan.i18n import use_language

    with use_language("zh"):
        words = fleet_prices([MARKET, LIST], GPU).sources["on_demand"]
    # the catalog's codes (secondary, high) in Chinese words, not as they are stored
    # (the source's own wording in Chinese too: ", line 7" is "，第 7 行")
    assert MARKET_SOURCE.replace(", line 7", "，第 7 行（可信度转引来源）") in words
    assert "secondary" not in words and "可信度高" in words


def test_a_current_price_wins_a_tie_against_one_of_unknown_age() -> None:
    # plan: an unknown never wins a tie (the price date is one of the facts ties are broken on)
    same = _offer(**{**MARKET.__dict__, "price_usd_per_hour": 3.67, "price_usd_per_gpu_hour": 3.67})
    p = fleet_prices([same, LIST], GPU)
    b = p.basis["on_demand"]
    assert (b.provider, b.known_current, b.current) == ("azure", True, None)
    assert "best on_demand price known" not in p.source


def test_without_a_current_price_it_says_there_is_none() -> None:
    p = fleet_prices([MARKET], GPU)
    assert p.basis["on_demand"].current is None
    assert f"no on_demand price of {GPU} in the catalog is known to be within the 180-day limit" in p.source


def test_the_json_carries_each_prices_source_date_and_confidence() -> None:
    from gpuplan.report.autoscale import autoscale_json

    prices = fleet_prices([MARKET, LIST], GPU, spot_usd=1.0)
    replica = ReplicaModel(
        gpu=GPU, slots=16, prefill_tokens_per_s=8000.0, time_per_output_token_s=0.03, source="given"
    )
    trace = diurnal_trace(
        Shape(mean_requests_per_s=0.5, duration_s=1800, seed=1, prompt_tokens=100, output_tokens=50)
    )
    res = simulate_autoscale(trace, replica, [parse_policy("fixed:replicas=1")], prices)
    doc = autoscale_json(res)["prices"]["basis"]
    od = doc["on_demand"]
    assert od["price_source"] == MARKET_SOURCE
    assert (od["as_of"], od["confidence"], od["known_current"], od["given"]) == (
        "2025-03/2026-12-02",
        "secondary",
        False,
        False,
    )
    assert (od["usd_per_instance_hour"], od["replicas_per_instance"]) == (pytest.approx(1.38), 1)
    assert od["best_known_current"]["price_source"] == LIST_SOURCE
    assert od["best_known_current"]["usd_per_hour"] == pytest.approx(3.67)
    assert doc["spot"]["given"] is True and doc["spot"]["price_source"] is None
    assert doc["spot"]["usd_per_hour"] == 1.0


def test_fleet_prices_made_by_hand_have_no_basis() -> None:
    assert FleetPrices(usd_per_hour={"on_demand": 1.0}, source="t").basis == {}


def test_simulate_share_names_its_prices_source_and_the_current_one() -> None:
    from gpuplan.cli.simulate_share import _priced
    from gpuplan.report.simulate import share_json
    from gpuplan.simulate.share import ServiceDemand, ShareOptions, pack_services

    plan = pack_services(
        [
            ServiceDemand(
                name="chat", memory_gib=20.0, requests_per_s=1.0, capacity_requests_per_s=10.0, latency_s=0.5
            )
        ],
        ShareOptions(gpu_id=GPU, gpu_memory_gib=80.0, price_usd_per_hour=None, sharing="time-slice"),
    )
    priced, per_instance = _priced(plan, None, [MARKET, LIST])
    assert priced.cost_usd_per_hour == pytest.approx(1.38) and per_instance == 1
    notes = " ".join(priced.notes)
    assert f"price source: {MARKET_SOURCE} (confidence secondary)" in notes
    assert "best on_demand price known to be within the 180-day limit: azure eastus" in notes
    doc = share_json(priced)["price"]
    assert (doc["price_source"], doc["confidence"], doc["as_of"]) == (
        MARKET_SOURCE,
        "secondary",
        "2025-03/2026-12-02",
    )
    assert doc["best_known_current"]["provider"] == "azure"


def test_a_current_price_on_a_larger_instance_says_the_instance_price_its_replicas_share() -> None:
    box = _offer(
        provider="aws", region="us-east-1", instance_type="p4de.24xlarge", gpu_count=8.0,
        price=27.45, price_usd_per_hour=27.45, price_usd_per_gpu_hour=27.45 / 8,
    )  # fmt: skip
    p = fleet_prices([MARKET, box], GPU, fleet_replicas=2)
    c = p.basis["on_demand"].current
    assert c is not None and (c.replicas_per_instance, c.usd_per_instance_hour) == (8, pytest.approx(27.45))
    assert "3.431 USD/replica-h of 27.45 USD per instance-h shared by its 8 replicas" in p.source
