"""A fleet bought on a commitment (``commit=N``: 包年包月, a 1- or 3-year reservation) is billed as
bought: its committed replicas at the committed price for the whole span, busy or not, and only the
replicas above them on demand or spot. Priced on demand, ``fixed:replicas=4`` bought by the month
had cost the on-demand rate, and an autoscaling policy beside it looked cheaper than it is."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from gpuplan.errors import InputError, NotFoundError
from gpuplan.simulate import (
    FleetPrices,
    ReplicaModel,
    Shape,
    diurnal_trace,
    load_policies,
    parse_policy,
    simulate_autoscale,
)
from gpuplan.simulate.engine import EngineConfig, run_engine
from gpuplan.simulate.inputs import fleet_prices, policy_fleets

REPLICA = ReplicaModel(
    gpu="A100-SXM4-80GB",
    slots=16,
    prefill_tokens_per_s=8000.0,
    time_per_output_token_s=0.03,
    time_per_output_token_1_s=0.012,
    source="given",
)


def _trace(rate: float = 2.0, hours: float = 6.0):  # type: ignore[no-untyped-def]
    return diurnal_trace(
        Shape(mean_requests_per_s=rate, duration_s=hours * 3600, seed=3, prompt_tokens=512, output_tokens=200)
    )


def _offer(
    pricing: str, per_gpu_hour: float, *, region: str = "r1", gpus: int = 1, monthly: float | None = None
):  # type: ignore[no-untyped-def]
    """An offer as the catalog gives it: a monthly one with its price per month and, as the store
    converts it for plan, that price over 730 h per hour."""
    from gpuplan.catalog import OfferPrice

    return OfferPrice(
        provider="cloud", region=region, zone=None, instance_type=f"a100-{gpus}x", gpu="A100-SXM4-80GB",
        gpu_count=float(gpus), vcpus=16.0 * gpus, memory_gib=200.0 * gpus, network_gbps=None,
        interconnect=None, pricing=pricing, price=monthly if monthly is not None else per_gpu_hour * gpus,
        currency="USD", unit="month" if monthly is not None else "hour",
        price_usd_per_hour=per_gpu_hour * gpus, price_usd_per_gpu_hour=per_gpu_hour, as_of="2026-11-20",
        source="test quote", confidence="high", interruption_band=None, billing_granularity_s=3600,
        min_billing_s=None, term=None, compliance=(), stale=False, price_reason=None, as_of_precision="day",
    )  # fmt: skip


# --- the keys ---------------------------------------------------------------------------------


def test_commit_and_its_pricing_are_read_in_the_compact_form_and_the_yaml(tmp_path: Path) -> None:
    p = parse_policy("fixed:replicas=4,commit=4")
    assert (p.commit_replicas, p.commit_pricing) == (4, "monthly")  # monthly by default
    q = parse_policy("queue:min=2,max=6,commit=2,commit_pricing=reserved_1y,spot=0.5")
    assert (q.commit_replicas, q.commit_pricing, q.spot_fraction) == (2, "reserved_1y", 0.5)
    f = tmp_path / "p.yaml"
    f.write_text("- {kind: target, target: 0.7, min: 3, max: 8, commit: 3, commit_pricing: reserved_3y}\n")
    (y,) = load_policies(f)
    assert (y.commit_replicas, y.commit_pricing) == (3, "reserved_3y")
    assert parse_policy("fixed:replicas=4").commit_replicas == 0


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        # a committed replica is paid whether it runs or not: the fleet never goes below it
        # a fixed fleet is told of its replicas, not of a min it has none of (it had been told "set
        # min ≥ 5", which then ran 5 replicas said to be 4)
        ("fixed:replicas=4,commit=5", "commit=5 is more than the fleet's replicas=4: a committed replica is"),
        ("fixed:replicas=4,min=8,commit=8", "a fixed fleet is replicas=4 throughout: min and max go with"),
        ("target:target=0.7,max=8,commit=2", "set min ≥ 2"),
        ("fixed:replicas=4,commit=-1", "commit must be 0 or more replicas (got commit=-1)"),
        ("fixed:replicas=4,commit=1.5", "commit='1.5' is not a whole number"),
        ("fixed:replicas=4,commit_pricing=monthly", "give commit=N beside it"),
    ],
)
def test_a_commitment_the_fleet_cannot_hold_is_refused_in_one_line(spec: str, said: str) -> None:
    with pytest.raises(InputError) as e:
        parse_policy(spec)
    assert said in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_an_unknown_commitment_is_refused_with_the_nearest_name() -> None:
    with pytest.raises(NotFoundError, match="did you mean 'reserved_1y'"):
        parse_policy("fixed:replicas=4,commit=4,commit_pricing=reserved_1yr")


@pytest.mark.parametrize(
    ("written", "code"),
    [("包年包月", "monthly"), ("1 年预留", "reserved_1y"), ("reserved-3y", "reserved_3y")],
)
def test_a_commitment_answers_to_the_names_pricing_takes(written: str, code: str) -> None:
    # --pricing took 包年包月 where commit_pricing=包年包月 had been "unknown commitment"
    assert parse_policy(f"queue:min=2,max=4,commit=2,commit_pricing={written}").commit_pricing == code


def test_spot_applies_to_the_replicas_above_the_commitment() -> None:
    tr = _trace(hours=1)
    work = REPLICA.work(tr.prompt_tokens, tr.output_tokens)
    cfg = EngineConfig(slots=REPLICA.slots, horizon_s=tr.duration_s, spot_rate_per_hour=0.0)
    # half of the two above the commitment: one spot replica (half of all four would be two)
    run = run_engine(tr.arrival_s, work, parse_policy("fixed:replicas=4,commit=2,spot=0.5"), cfg)
    assert sum(run.replica_spot) == 1
    plain = run_engine(tr.arrival_s, work, parse_policy("fixed:replicas=4,spot=0.5"), cfg)
    assert sum(plain.replica_spot) == 2
    assert policy_fleets([parse_policy("queue:min=2,max=6,commit=2,spot=0.5")]) == {
        "fleet_replicas": 2,  # the burst above the commitment not on spot, on demand
        "spot_fleet_replicas": 2,
        "committed_fleets": {"monthly": 2},
    }


# --- billing ----------------------------------------------------------------------------------


def test_a_fixed_fleet_bought_by_the_month_costs_its_monthly_price_for_the_span() -> None:
    # 2,190 USD a month for one A100 replica = 2190 / 730 = 3.00 USD an hour; on demand 5.00.
    offers = [_offer("on_demand", 5.0), _offer("monthly", 2190 / 730, monthly=2190.0)]
    committed = parse_policy("fixed:replicas=4,commit=4,name=committed")
    plain = parse_policy("fixed:replicas=4,name=plain")
    prices = fleet_prices(offers, "A100-SXM4-80GB", **policy_fleets([committed, plain]))
    assert prices.usd_per_hour["monthly"] == pytest.approx(3.0)
    assert "for the 4 replica(s) committed" in prices.sources["monthly"]
    tr = _trace()
    res = simulate_autoscale(tr, REPLICA, [committed, plain], prices)
    c, p = res.policies
    span_h = c.replica_hours["monthly"] / 4
    assert span_h >= tr.duration_s / 3600 and span_h == pytest.approx(tr.duration_s / 3600, rel=1e-3)
    assert "on_demand" not in c.replica_hours  # no replica ran above the commitment
    # 4 replicas × span × 2,190 / 730
    assert c.cost_usd == pytest.approx(4 * span_h * 2190 / 730)
    assert c.cost_usd_by_pricing == {"monthly": pytest.approx(c.cost_usd)}
    # the same fleet on demand: 4 × span × 5.00
    assert p.cost_usd == pytest.approx(4 * p.replica_hours["on_demand"] / 4 * 5.0)
    assert c.utilisation == pytest.approx(p.utilisation, rel=1e-3)


def test_a_queue_policy_pays_its_commitment_for_the_span_and_on_demand_only_above_it() -> None:
    prices = FleetPrices(usd_per_hour={"on_demand": 3.0, "monthly": 2.0}, source="t")
    tr = _trace(rate=4.0)
    both = [
        parse_policy("queue:per_replica=4,min=2,max=8,commit=2,name=commit"),
        parse_policy("queue:per_replica=4,min=2,max=8,name=plain"),
    ]
    c, p = simulate_autoscale(tr, REPLICA, both, prices).policies
    assert c.max_replicas > 2  # it scaled above its commitment
    span_h = c.replica_hours["monthly"] / 2
    assert span_h == pytest.approx(tr.duration_s / 3600, rel=1e-3)
    # The commitment changes the bill, not the decisions: the same replicas ran, and those above
    # the two committed are the on-demand hours (the fleet held two or more over the whole trace;
    # only its drain, seconds, can hold fewer).
    assert c.max_replicas == p.max_replicas
    assert c.replica_hours["on_demand"] == pytest.approx(p.replica_hours["on_demand"] - 2 * span_h, abs=0.01)
    assert c.replica_hours["on_demand"] > 0
    assert c.cost_usd == pytest.approx(2 * span_h * 2.0 + c.replica_hours["on_demand"] * 3.0)
    assert c.cost_usd_by_pricing["monthly"] == pytest.approx(2 * span_h * 2.0)
    assert c.usd_per_million_output_tokens == pytest.approx(c.cost_usd / (c.tokens_served["output"] / 1e6))


def test_a_commitment_on_instances_of_several_replicas_counts_whole_instances() -> None:
    # 8 one-GPU replicas to an 8-GPU instance: monthly 16 USD an instance-hour (2 a replica), on
    # demand 24 (3 a replica). fixed:replicas=10,commit=9: ceil(9 / 8) = 2 committed instances for
    # the span (32 USD an hour), and the one replica above them 1 on-demand instance (24 an hour).
    prices = FleetPrices(
        usd_per_hour={"on_demand": 3.0, "monthly": 2.0},
        source="t",
        replicas_per_instance={"on_demand": 8, "monthly": 8},
    )
    tr = _trace(rate=1.0, hours=2.0)
    (c,) = simulate_autoscale(tr, REPLICA, [parse_policy("fixed:replicas=10,commit=9")], prices).policies
    span_h = c.replica_hours["monthly"] / 9
    assert c.instance_hours["monthly"] == pytest.approx(2 * span_h)
    assert c.replica_hours["on_demand"] == pytest.approx(span_h, abs=0.01)
    assert c.instance_hours["on_demand"] == pytest.approx(c.replica_hours["on_demand"])
    assert c.cost_usd == pytest.approx(2 * span_h * 16.0 + c.instance_hours["on_demand"] * 24.0)
    assert math.ceil(9 / 8) == 2


def test_a_commitment_without_a_committed_price_is_refused_never_priced_on_demand() -> None:
    with pytest.raises(InputError) as e:
        fleet_prices([_offer("on_demand", 5.0)], "A100-SXM4-80GB", committed_fleets={"monthly": 4})
    assert "no monthly price for A100-SXM4-80GB; give one with --commit-price" in str(e.value)
    with pytest.raises(InputError, match="give one with --commit-price"):
        simulate_autoscale(
            _trace(hours=1),
            REPLICA,
            [parse_policy("fixed:replicas=2,commit=2,commit_pricing=reserved_1y")],
            FleetPrices(usd_per_hour={"on_demand": 3.0}, source="t"),
        )
    given = fleet_prices(
        [_offer("on_demand", 5.0)], "A100-SXM4-80GB", committed_fleets={"monthly": 4}, commit_usd=2.5
    )
    assert given.usd_per_hour["monthly"] == 2.5 and given.basis["monthly"].given


def test_the_committed_offer_is_of_the_fleets_region_where_one_is_offered_there() -> None:
    # r1 is cheaper on demand, but only r2 sells the replica by the month: a fleet runs in one region
    # (4 × 2.0 monthly + 1 × 4.2 on demand in r2 against 4 × 4.0 on demand in r1 without a commitment).
    offers = [
        _offer("on_demand", 4.0, region="r1"),
        _offer("on_demand", 4.2, region="r2"),
        _offer("monthly", 2.0, region="r2", monthly=1460.0),
        _offer("monthly", 1.9, region="r3", monthly=1387.0),  # no on-demand offer there
    ]
    p = fleet_prices(offers, "A100-SXM4-80GB", fleet_replicas=1, committed_fleets={"monthly": 4})
    assert {b.region for b in p.basis.values()} == {"r2"}
    assert "another region" not in p.source
    # Only r3 sells it by the month: it is taken from there, and the note says so.
    apart = [offers[0], offers[3]]
    q = fleet_prices(apart, "A100-SXM4-80GB", fleet_replicas=1, committed_fleets={"monthly": 4})
    assert q.basis["monthly"].region == "r3"
    assert "no region in the catalog offers A100-SXM4-80GB both on demand and monthly" in q.sources["monthly"]


def test_one_given_commit_price_is_refused_for_two_commitments() -> None:
    # a month's price and a reservation's are not one figure
    with pytest.raises(InputError, match="--commit-price prices one commitment, and the policies commit on"):
        fleet_prices(
            [_offer("on_demand", 5.0)],
            "A100-SXM4-80GB",
            committed_fleets={"monthly": 2, "reserved_1y": 2},
            commit_usd=2.5,
        )
