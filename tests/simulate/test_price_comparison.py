"""Policies compared side by side at different offers, and costs that rest on a price of unknown age:
the report says which offer each policy is priced at and gives every cost at one basis, and beside
a cost at a price not known current, the cost at the best one that is."""

from __future__ import annotations

import io
from dataclasses import replace
from typing import Any

import pytest
from rich.console import Console

from gpuplan.catalog import OfferPrice
from gpuplan.i18n import Money, format_number, use_language
from gpuplan.report.autoscale import autoscale_html, autoscale_json, autoscale_view, price_comparison_note
from gpuplan.simulate import ReplicaModel, Shape, diurnal_trace, parse_policy, simulate_autoscale
from gpuplan.simulate.autoscale import AutoscaleResult
from gpuplan.simulate.inputs import fleet_prices, policy_fleets, prices_by_policy
from gpuplan.simulate.trace import Trace

GPU = "H100-SXM"


def _offer(**kw: Any) -> OfferPrice:
    base: dict[str, Any] = dict(
        provider="cloud", region="r1", zone=None, instance_type="h100_4x", gpu=GPU, gpu_count=4.0,
        vcpus=64.0, memory_gib=800.0, network_gbps=None, interconnect=None, pricing="on_demand",
        price=7.6, currency="USD", unit="hour", price_usd_per_hour=7.6, price_usd_per_gpu_hour=1.9,
        as_of="2026-11-20", source="a list", confidence="high", interruption_band=None,
        billing_granularity_s=60, min_billing_s=60, term=None, compliance=(), stale=False,
        price_reason=None, as_of_precision="day", staleness="fresh", stale_after_days=180,
    )  # fmt: skip
    base.update(kw)
    return OfferPrice(**base)


#: 4-GPU replicas: one to the 4-GPU box at $7.60/h, two to the 8-GPU box at $14/h ($7 each).
FOUR = _offer()
EIGHT = _offer(
    provider="market", region="r2", instance_type="h100_8x", gpu_count=8.0, price=14.0,
    price_usd_per_hour=14.0, price_usd_per_gpu_hour=1.75,
)  # fmt: skip


REPLICA = ReplicaModel(
    gpu=GPU, slots=32, prefill_tokens_per_s=8000.0, time_per_output_token_s=0.03, source="given"
)
TRACE = diurnal_trace(
    Shape(mean_requests_per_s=0.5, duration_s=3600, seed=1, prompt_tokens=100, output_tokens=50)
)


def _run(
    offers: list[OfferPrice],
    specs: list[str],
    gpus: int = 4,
    spot_rate: float | None = None,
    trace: Trace = TRACE,
) -> AutoscaleResult:
    """``specs`` side by side, each priced at its own fleet's offers; ``spot_rate``: the common
    offers' spot instances reclaimed at that rate per hour instead."""
    pols = [parse_policy(s) for s in specs]
    prices = fleet_prices(offers, GPU, gpus_per_replica=gpus, **policy_fleets(pols))
    if spot_rate is not None:
        said = f"{spot_rate:g} reclaims per spot instance-hour (given)"
        prices = replace(prices, spot_rate_per_hour=spot_rate, spot_rate_source=said)
    own = prices_by_policy(offers, GPU, pols, gpus_per_replica=gpus)
    return simulate_autoscale(trace, REPLICA, pols, prices, policy_prices=own)


def _text(res: AutoscaleResult, money: Money | None = None) -> str:
    out = io.StringIO()
    Console(file=out, width=250).print(autoscale_view(res, money or Money.usd()))
    return out.getvalue()


def test_policies_priced_at_different_offers_are_also_costed_at_one() -> None:
    # was: fixed on its own 4-GPU box at $7.60, the other on the 8-GPU box at $7 a replica, side by
    # side with nothing said; the header's "$7/replica-h" did not give the first policy's cost
    res = _run([FOUR, EIGHT], ["fixed:replicas=1,name=one", "fixed:replicas=2,name=two"])
    one, two = res.policies
    assert one.prices is not None and two.prices is None  # two is priced at the run's offer
    hours = one.replica_hours["on_demand"]
    assert one.cost_usd == pytest.approx(7.6 * hours)
    # the same replica billed at the common offer: a whole 8-GPU box for its one replica
    assert one.common_cost_usd == pytest.approx(14.0 * hours)
    assert two.common_cost_usd is None  # its cost is at the common offer already
    text = " ".join(_text(res).split())
    assert (
        "The policies are priced at different offers, each at its own fleet's cheapest: one on cloud r1 "
        "h100_4x, on_demand $7.60/replica-h; two on market r2 h100_8x, on_demand $7.00/replica-h" in text
    )
    assert f"one {Money.usd().format(14.0 * hours)}, two {Money.usd().format(two.cost_usd)}." in text
    # the header's price line names the policy it is the price of
    assert "Prices of two, and the common basis every policy is also costed at: on_demand 7 USD" in text
    assert "Prices of one (its own fleet): on_demand 7.6 USD" in text
    doc = autoscale_json(res)
    assert doc["comparison_note"] is not None and "market r2 h100_8x" in doc["comparison_note"]
    first, second = doc["policies"]
    assert first["common_basis_cost_usd"] == pytest.approx(14.0 * hours)
    assert second["common_basis_cost_usd"] == pytest.approx(second["cost_usd"])
    assert "different offers" in autoscale_html(res, Money.usd())
    with use_language("zh"):
        zh = " ".join(_text(res).split())
    assert "各策略按不同的报价计价" in zh


def test_a_spot_policy_at_the_common_offers_is_reclaimed_there_at_their_rate() -> None:
    # An autoscaler of up to 3 replicas is priced at its own fleet's spot offer (a 4-GPU box each,
    # reclaimed once in 24 instance-hours: none this hour; 3 boxes and a spare, $12, against two
    # 8-GPU boxes and a spare, $13.50), the common basis, 4 replicas, at 8-GPU boxes of two replicas
    # ($13.50 against 4 + 1 boxes, $15) reclaimed 6 times an hour. was: its own run re-billed there,
    # as if those boxes were reclaimed as seldom; replayed on them, the restarts and the replicas it
    # scales up to cover them cost more.
    spot4 = _offer(pricing="spot", price=3.0, price_usd_per_hour=3.0, price_usd_per_gpu_hour=0.75)
    spot8 = replace(
        EIGHT, provider="cloud", region="r1", pricing="spot", price=4.5, price_usd_per_hour=4.5,
        price_usd_per_gpu_hour=4.5 / 8,
    )  # fmt: skip
    trace = diurnal_trace(
        Shape(mean_requests_per_s=40, duration_s=3600, seed=1, prompt_tokens=100, output_tokens=50)
    )
    specs = ["target:target=0.7,min=1,max=3,spot=1,name=one", "fixed:replicas=4,spot=1,name=two"]
    res = _run([FOUR, EIGHT, spot4, spot8], specs, spot_rate=6.0, trace=trace)
    one, two = res.policies
    assert one.prices is not None and one.prices.spot_rate_per_hour == pytest.approx(1 / 24)
    assert (one.prices.per_instance("spot"), res.prices.per_instance("spot")) == (1, 2)
    # the policy alone at the common offers: its reclaims drawn at their rate, on their boxes
    alone = simulate_autoscale(trace, REPLICA, [parse_policy(specs[0])], res.prices).policies[0]
    assert alone.interruptions > one.interruptions
    assert one.common_cost_usd == pytest.approx(alone.cost_usd)
    assert alone.replica_hours["spot"] > one.replica_hours["spot"]
    assert two.prices is None and two.common_cost_usd is None  # at the common offers already
    doc = autoscale_json(res)
    assert doc["policies"][0]["common_basis_cost_usd"] == pytest.approx(alone.cost_usd, abs=0.01)
    note = doc["comparison_note"] or ""
    assert f"one {Money.usd().format(alone.cost_usd)}" in note
    assert (
        "At that basis one ran again on its spot instances (6 reclaims per instance-hour, 2 replica(s)"
        in note
    )
    with use_language("zh"):
        assert "重新运行" in (price_comparison_note(res, Money.usd()) or "")


def test_policies_at_one_offer_say_nothing_more() -> None:
    res = _run([FOUR, EIGHT], ["fixed:replicas=2,name=a", "fixed:replicas=2,name=b,startup=60"])
    assert all(p.prices is None and p.common_cost_usd is None for p in res.policies)
    text = _text(res)
    assert "different offers" not in text and "Prices: on_demand 7 USD" in text
    doc = autoscale_json(res)
    assert doc["comparison_note"] is None
    assert [p["common_basis_cost_usd"] for p in doc["policies"]] == [p.cost_usd for p in res.policies]


#: A marketplace's price of unknown age, below a dated list price.
OLD = _offer(
    provider="market", region="r2", instance_type="h100_4x_old", price=4.0, price_usd_per_hour=4.0,
    price_usd_per_gpu_hour=1.0, as_of="2025-03/2026-12-02", source="a marketplace file",
    confidence="secondary", stale=True, as_of_precision="bounded", staleness="unknown",
)  # fmt: skip


def test_a_cost_at_a_price_of_unknown_age_is_also_given_at_the_best_current_one() -> None:
    # was: the best current price was named ($7.60/replica-h), not what the policy costs at it
    res = _run([OLD, FOUR], ["fixed:replicas=1"])
    (p,) = res.policies
    hours = p.replica_hours["on_demand"]
    assert p.cost_usd == pytest.approx(4.0 * hours)
    assert p.current_cost_usd == pytest.approx(7.6 * hours)
    text = " ".join(_text(res).split())
    usd = Money.usd()
    billed = format_number(p.instance_hours["on_demand"])
    assert (
        f"fixed:replicas=1: its cost of {usd.format(4.0 * hours)} (on_demand: {billed} instance-hours of "
        "market r2 h100_4x_old (4 GPU(s), one replica each) at $4.00/instance-h) rests on prices not known "
        "to hold today; at the best prices known to be within the 180-day limit (on_demand: "
        f"{billed} instance-hours of cloud r1 h100_4x (2026-11-20; 4 GPU(s), one replica each) at "
        f"$7.60/instance-h) the same replicas cost {usd.format(7.6 * hours)}." in text
    )
    doc = autoscale_json(res)["policies"][0]
    assert doc["known_current_cost_usd"] == pytest.approx(7.6 * hours)
    assert "rests on prices not known to hold today" in doc["known_current_note"]


def test_a_current_price_of_a_shared_instance_says_the_whole_instances_it_bills() -> None:
    # A 1-GPU replica, two of them: their own price is a 1-GPU VM's of unknown age ($6.88/h each),
    # the best current one an 8-GPU box's ($55.04/h). was: "on_demand $6.88/replica-h at … h100_8x
    # … the same replicas cost $220.32": 8 replica-hours at $6.88 are $55.04, not what it billed (one
    # whole box, 8 GPUs, for the two replicas, 4 h of $55.04).
    one = replace(
        OLD, instance_type="p5.4xlarge", gpu_count=1.0, price=6.88, price_usd_per_hour=6.88,
        price_usd_per_gpu_hour=6.88,
    )  # fmt: skip
    box = _offer(instance_type="p5.48xlarge", gpu_count=8.0, price=55.04, price_usd_per_hour=55.04,
                 price_usd_per_gpu_hour=6.88)  # fmt: skip
    res = _run([one, box], ["fixed:replicas=2"], gpus=1)
    (p,) = res.policies
    assert p.cost_usd == pytest.approx(6.88 * p.replica_hours["on_demand"])
    # one box for both replicas: it bills from the first one's start to the last one's end (seconds
    # apart), so half the replica-hours and a fraction of a second more
    assert p.current_instance_hours["on_demand"] == pytest.approx(p.replica_hours["on_demand"] / 2, rel=1e-3)
    assert p.current_cost_usd == pytest.approx(55.04 * p.current_instance_hours["on_demand"])
    text = " ".join(_text(res).split())
    usd = Money.usd()
    assert (
        f"its cost of {usd.format(p.cost_usd)} (on_demand: {format_number(p.instance_hours['on_demand'])} "
        "instance-hours of market r2 p5.4xlarge (1 GPU(s), one replica each) at $6.88/instance-h)" in text
    )
    assert (
        f"(on_demand: {format_number(p.current_instance_hours['on_demand'])} instance-hours of cloud r1 "
        "p5.48xlarge (2026-11-20; 8 GPUs, up to 8 replicas each) at $55.04/instance-h, billed whole however "
        "few of its replicas run ($6.88/replica-h = $55.04 ÷ 8, only while all 8 do)) the same replicas cost "
        f"{usd.format(p.current_cost_usd)}." in text
    )
    with use_language("zh"):
        zh = " ".join(_text(res).split())
    assert "按整实例计费" in zh and "每台 8 个 GPU" in zh


def test_a_current_price_billed_in_its_own_whole_instances() -> None:
    # the current offer is an 8-GPU box: one 4-GPU replica pays the whole box, not half of it
    res = _run([OLD, EIGHT], ["fixed:replicas=1"])
    (p,) = res.policies
    assert p.current_cost_usd == pytest.approx(14.0 * p.replica_hours["on_demand"])


def test_without_a_current_price_the_cost_says_it_rests_on_the_old_one_alone() -> None:
    res = _run([OLD], ["fixed:replicas=1"])
    (p,) = res.policies
    assert p.current_cost_usd is None and p.current_cost_missing == ("on_demand",)
    text = " ".join(_text(res).split())
    assert (
        "and the catalog has no on_demand price of H100-SXM known to be within the 180-day limit to cost it "
        "at instead" in text
    )
    doc = autoscale_json(res)["policies"][0]
    assert doc["known_current_cost_usd"] is None and "no on_demand price" in doc["known_current_note"]


def test_a_current_price_says_nothing_more() -> None:
    res = _run([FOUR], ["fixed:replicas=1"])
    (p,) = res.policies
    assert p.current_cost_usd is None and p.current_cost_missing == ()
    assert "rests on prices" not in _text(res)
    assert autoscale_json(res)["policies"][0]["known_current_note"] is None


def test_where_no_policy_is_priced_at_the_common_offers_the_header_says_so() -> None:
    res = _run([FOUR, EIGHT], ["fixed:replicas=1,name=one", "fixed:replicas=2,name=two"])
    one, two = res.policies
    apart = replace(res, policies=(one, replace(two, prices=one.prices, common_cost_usd=two.cost_usd)))
    text = " ".join(_text(apart).split())
    assert (
        "Prices of the common basis every policy is also costed at (the offers picked for the largest fleet "
        "of them; no policy is priced at them alone): on_demand 7 USD" in text
    )
    with use_language("zh"):
        assert "没有策略单独按它计价" in " ".join(_text(apart).split())
