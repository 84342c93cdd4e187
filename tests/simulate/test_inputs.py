"""Simulation inputs: catalog prices and spot rates, hand-given replicas, services files."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplan.errors import InputError, NotFoundError
from gpuplan.perf.inference import DecodeEstimate
from gpuplan.plan.spot import DEFAULT_SPOT_RATE
from gpuplan.simulate.inputs import demand_from_decode, fleet_prices, load_services, parse_replica

DECODE = DecodeEstimate(
    gpu="A100-SXM4-80GB",
    weights_gib=15.0,
    kv_cache_gib_per_sequence=0.1,
    context_tokens=1000,
    max_concurrent_sequences=500,
    prefill_s=0.5,
    prefill_tokens_per_s=10_000.0,
    batch=16,
    time_per_token_s=0.012,
    tokens_per_s=1333.0,
    time_per_token_at_max_s=0.05,
)


def test_given_prices_win_and_an_unknown_on_demand_price_says_how_to_give_one() -> None:
    p = fleet_prices([], "A100-SXM4-80GB", on_demand_usd=3.0, spot_usd=1.0)
    assert p.usd_per_hour == {"on_demand": 3.0, "spot": 1.0}
    assert p.spot_rate_per_hour == DEFAULT_SPOT_RATE.per_hour
    with pytest.raises(InputError, match="--on-demand-price"):
        fleet_prices([], "A100-SXM4-80GB")


def test_replica_given_by_hand() -> None:
    r = parse_replica("slots=32,tpot_ms=25,prefill_tps=5000", "L4")
    assert (r.slots, r.time_per_output_token_s, r.prefill_tokens_per_s) == (32, 0.025, 5000.0)
    with pytest.raises(NotFoundError, match="did you mean 'slots'"):
        parse_replica("slot=32,tpot_ms=25", "L4")
    with pytest.raises(InputError, match="needs slots"):
        parse_replica("prefill_tps=5000", "L4")


def test_demand_from_the_estimator_counts_weights_and_the_running_kv_cache() -> None:
    d = demand_from_decode(
        "chat", DECODE, requests_per_s=2.0, prompt_tokens=500, output_tokens=250, slo_s=None
    )
    # At 2 requests/s a few sequences run (2 × 3.38 = 6.8, below the traced batch of 16), so each token
    # takes the traced batch's 0.012 s, stretched by the prompts, which take 2 × 500/10000 = 10 % of
    # the GPU: 0.05 + 250 × 0.012 / 0.9 = 3.383 s; running = ceil(2 × 3.383 / 0.8) = 9 sequences of
    # 750/1000 × 0.1 GiB: 15 + 9 × 0.075 + 1.0 (context) = 16.675 GiB. Capacity is the full cache's,
    # each prompt on the whole GPU: 1 / (0.05 + 250 × 0.05 s / 500) = 13.3 requests/s.
    assert d.latency_s == pytest.approx(0.05 + 250 * 0.012 / 0.9)
    assert d.memory_gib == pytest.approx(16.675)
    assert d.capacity_requests_per_s == pytest.approx(1 / 0.075)


def test_services_file_errors_name_the_field(tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text("services:\n  - {name: a, requests_per_s: 1, memory_gb: 3}\n")
    with pytest.raises(InputError, match=r"services\.0\.memory_gb"):
        load_services(f)
    f.write_text("services:\n  - {name: a, requests_per_s: 1}\n")
    with pytest.raises(InputError, match="give memory_gib, capacity_requests_per_s, latency_ms"):
        load_services(f).demands()


def test_a_fleet_is_costed_at_the_dated_floor_of_an_undated_spot_price_and_says_so() -> None:
    from gpuplan.catalog import OfferPrice

    def offer(pricing: str, per_hour: float, **kw: object) -> OfferPrice:
        base = dict(
            provider="aws", region="us-east-1", zone=None, instance_type="p4d.24xlarge", gpu="A100-SXM4-40GB",
            gpu_count=8.0, vcpus=96.0, memory_gib=1152.0, network_gbps=400.0, interconnect=None,
            pricing=pricing, price=per_hour, currency="USD", unit="hour", price_usd_per_hour=per_hour,
            price_usd_per_gpu_hour=per_hour / 8, as_of="2026-01-21", source="test", confidence="secondary",
            interruption_band="<5%", billing_granularity_s=1, min_billing_s=60, term=None, compliance=(),
            stale=False, price_reason=None, as_of_precision="day",
        )  # fmt: skip
        return OfferPrice(**{**base, **kw})  # type: ignore[arg-type]

    spread = {"region_spot_usd_per_hour": {"min": 8.0, "avg": 8.5, "max": 9.0, "as_of": "2025-11-30"}}
    undated = offer(
        "spot", 2.4, as_of="2025-06/2026-12-02", as_of_precision="bounded", stale=True, staleness="unknown",
        term=spread,
    )  # fmt: skip
    p = fleet_prices([offer("on_demand", 21.96), undated], "A100-SXM4-40GB")
    # $8.00 for the 8-GPU instance (not its own $2.40), which holds eight one-GPU replicas: $1.00
    # per replica-hour, the fleet billed in whole instances.
    assert p.usd_per_hour["spot"] == pytest.approx(1.0) and p.per_instance("spot") == 8
    assert "below the lowest dated spot price of the region: costed at it (2025-11-30)" in p.source
    assert "8 USD per instance-h, 8 replica(s) of 1 GPU(s) on each 8-GPU instance" in p.sources["spot"]
    # A replica of 4 GPUs (tensor-parallel) on the same 8-GPU instance: two to an instance.
    four = fleet_prices([offer("on_demand", 21.96), undated], "A100-SXM4-40GB", gpus_per_replica=4)
    assert four.usd_per_hour["spot"] == pytest.approx(4.0) and four.usd_per_hour[
        "on_demand"
    ] == pytest.approx(10.98)
    single = offer("on_demand", 3.0, instance_type="p4.1x", gpu_count=1.0, price_usd_per_gpu_hour=3.0)
    # simulate share's two GPUs: two one-GPU instances ($6) rather than the 8-GPU one ($21.96)
    from gpuplan.simulate.inputs import whole_instances

    two = whole_instances([offer("on_demand", 21.96), single], "A100-SXM4-40GB", 2)
    total, cheapest, n = two["on_demand"]
    assert (total, cheapest.instance_type, n) == (6.0, "p4.1x", 2)
    # A one-GPU instance at $3.00 an hour is dearer per GPU ($3 against $2.745) but cheaper per
    # replica than the 8-GPU one at $21.96; a half GPU cannot hold a replica.
    one = offer("on_demand", 3.0, instance_type="p4.1x", gpu_count=1.0, price_usd_per_gpu_hour=3.0)
    half = offer("on_demand", 0.5, instance_type="p4.half", gpu_count=0.5, price_usd_per_gpu_hour=1.0)
    p = fleet_prices([offer("on_demand", 21.96), one, half], "A100-SXM4-40GB")
    assert p.usd_per_hour == {"on_demand": 3.0}
    assert "p4.1x" in p.sources["on_demand"] and "whole" not in p.sources["on_demand"]


def _offer(pricing: str, instance: str, gpus: int, per_gpu: float) -> object:
    from gpuplan.catalog import OfferPrice

    return OfferPrice(
        provider="cloud", region="r1", zone=None, instance_type=instance, gpu="H100-SXM",
        gpu_count=float(gpus), vcpus=16.0 * gpus, memory_gib=200.0 * gpus, network_gbps=None,
        interconnect=None, pricing=pricing, price=per_gpu * gpus, currency="USD", unit="hour",
        price_usd_per_hour=per_gpu * gpus, price_usd_per_gpu_hour=per_gpu, as_of="2026-01-21",
        source="test", confidence="secondary", interruption_band=None, billing_granularity_s=1,
        min_billing_s=60, term=None, compliance=(), stale=False, price_reason=None, as_of_precision="day",
    )  # fmt: skip


def test_a_tensor_parallel_replica_is_priced_on_one_instance_that_holds_all_its_gpus() -> None:
    # Four one-GPU VMs cannot run one tensor-parallel group over NVLink: a 4-GPU replica is priced
    # on the 8-GPU box (two replicas to it: $16/h each), never on 4 × the $1.80 one-GPU VM.
    offers = [
        _offer("on_demand", "h100_1x", 1, 1.8),
        _offer("on_demand", "h100_2x", 2, 1.9),
        _offer("on_demand", "h100_8x", 8, 4.0),
        _offer("spot", "h100_1x_spot", 1, 1.2),
    ]
    p = fleet_prices(offers, "H100-SXM", gpus_per_replica=4)
    assert p.usd_per_hour == {"on_demand": pytest.approx(16.0)}
    assert p.per_instance("on_demand") == 2 and p.gpus_per_replica == 4
    assert "h100_8x" in p.sources["on_demand"]
    assert "2 replica(s) of 4 GPU(s) on each 8-GPU instance" in p.source
    # No instance of 4 or more GPUs: no price, and the error says why.
    with pytest.raises(InputError, match="on one instance of 4 or more GPUs"):
        fleet_prices(offers[:2], "H100-SXM", gpus_per_replica=4)


def test_the_instance_is_the_cheapest_for_the_fleet_in_whole_instances() -> None:
    # A one-GPU fleet of one replica: the $2.50 one-GPU VM, not the 8-GPU box at $2.00 a GPU
    # ($16 for one replica); a fleet of up to 8: one box ($16) beats 8 VMs ($20).
    offers = [_offer("on_demand", "h100_1x", 1, 2.5), _offer("on_demand", "h100_8x", 8, 2.0)]
    assert "h100_1x" in fleet_prices(offers, "H100-SXM").source
    big = fleet_prices(offers, "H100-SXM", fleet_replicas=8)
    assert "h100_8x" in big.source and big.usd_per_hour["on_demand"] == pytest.approx(2.0)


def test_the_spot_offer_is_picked_for_the_replicas_the_policies_run_on_spot() -> None:
    # A fleet of up to 6 with half of it on spot at most: 3 spot replicas. The spot offer had been
    # picked for the whole fleet (an 8-GPU box for one or two spot replicas).
    from gpuplan.simulate import parse_policy
    from gpuplan.simulate.inputs import policy_fleets

    pols = [parse_policy("queue:per_replica=300,max=6,spot=0.5"), parse_policy("fixed:replicas=2")]
    # on demand: the 3 of the 6 not on spot (the fixed 2 run fewer)
    assert policy_fleets(pols) == {"fleet_replicas": 3, "spot_fleet_replicas": 3}
    offers = [
        _offer("on_demand", "h100_8x", 8, 2.0),
        _offer("spot", "h100_1x_spot", 1, 1.0),
        _offer("spot", "h100_8x_spot", 8, 0.3),
    ]
    # ranked as plan prices a spot service, with a spare instance: 6 replicas, one 8-GPU box and its
    # spare ($4.80) beat six VMs and theirs ($7)
    whole = fleet_prices(offers, "H100-SXM", fleet_replicas=6)
    assert "h100_8x_spot" in whole.sources["spot"]
    p = fleet_prices(offers, "H100-SXM", fleet_replicas=6, spot_fleet_replicas=3)
    assert "h100_1x_spot" in p.sources["spot"] and "h100_8x" in p.sources["on_demand"]  # (3 + 1) × $1 < $4.80


def test_the_on_demand_offer_is_picked_for_the_replicas_not_on_spot() -> None:
    # fixed:replicas=8,spot=0.5 runs 4 replicas on spot and 4 on demand. The on-demand offer had been
    # picked for all 8 (one 8-GPU box at $16/h beats eight $2.50 VMs at $20/h), and the 4 on-demand
    # replicas were billed that whole box: $16 + 4 × $1 = $20 an hour. Picked for its 4 (four VMs at
    # $10/h beat the $16 box): $10 + $4 = $14 an hour.
    from gpuplan.simulate import ReplicaModel, Shape, diurnal_trace, parse_policy, simulate_autoscale
    from gpuplan.simulate.inputs import policy_fleets

    policy = parse_policy("fixed:replicas=8,spot=0.5")
    assert policy_fleets([policy]) == {"fleet_replicas": 4, "spot_fleet_replicas": 4}
    offers = [
        _offer("on_demand", "h100_1x", 1, 2.5),
        _offer("on_demand", "h100_8x", 8, 2.0),
        _offer("spot", "h100_1x_spot", 1, 1.0),
    ]
    prices = fleet_prices(offers, "H100-SXM", spot_rate_per_hour=0.0, **policy_fleets([policy]))
    assert "h100_1x" in prices.sources["on_demand"] and "h100_8x" not in prices.sources["on_demand"]
    assert prices.usd_per_hour == {"on_demand": pytest.approx(2.5), "spot": pytest.approx(1.0)}
    replica = ReplicaModel(
        gpu="H100-SXM", slots=16, prefill_tokens_per_s=8000.0, time_per_output_token_s=0.03, source="given"
    )
    shape = Shape(mean_requests_per_s=1.0, duration_s=2 * 3600, seed=3, prompt_tokens=512, output_tokens=200)
    tr = diurnal_trace(shape)
    (res,) = simulate_autoscale(tr, replica, [policy], prices).policies
    # no reclaim (rate 0): the 8 replicas run the 2 hours (and the drain after), 4 of them on spot,
    # each on an instance of its own
    od, spot = res.replica_hours["on_demand"], res.replica_hours["spot"]
    assert od == pytest.approx(4 * 2.0, rel=1e-2) and spot == pytest.approx(4 * 2.0, rel=1e-2)
    assert res.instance_hours == {"on_demand": pytest.approx(od), "spot": pytest.approx(spot)}
    assert res.cost_usd == pytest.approx(od * 2.5 + spot * 1.0)  # ≈ $28 over 2 h ($14 an hour), not $40


def test_each_policy_is_priced_on_its_own_fleet_whatever_runs_beside_it() -> None:
    # was: one fleet picked for every policy (the largest): fixed:replicas=1 of a 4-GPU replica cost
    # $15.34 alone and $28.03 beside fixed:replicas=2, billed a whole 8-GPU box for its one replica
    from gpuplan.simulate import parse_policy
    from gpuplan.simulate.inputs import prices_by_policy

    one, two = parse_policy("fixed:replicas=1,name=one"), parse_policy("fixed:replicas=2,name=two")
    offers = [_offer("on_demand", "h100_4x", 4, 1.9), _offer("on_demand", "h100_8x", 8, 1.75)]
    alone = fleet_prices(offers, "H100-SXM", gpus_per_replica=4, fleet_replicas=1)
    own = prices_by_policy(offers, "H100-SXM", [one, two], gpus_per_replica=4)
    assert own["one"] == alone and "h100_4x" in own["one"].source  # $7.60 for its one replica
    assert "h100_8x" in own["two"].source  # two replicas: one 8-GPU box ($14) beats two 4-GPU ones ($15.20)


def _placed(pricing: str, provider: str, region: str, per_gpu: float) -> object:
    from dataclasses import replace

    return replace(_offer(pricing, f"{provider}-1x", 1, per_gpu), provider=provider, region=region)  # type: ignore[type-var]


def test_a_fleet_is_priced_only_where_the_workload_constraints_allow() -> None:
    # A team on Chinese clouds had its day priced at a marketplace's $0.76 in Germany, a fifth of the
    # ~$3.86 the clouds its workload allows charge.
    from gpuplan.workload.spec import ConstraintsSpec

    offers = [
        _placed("on_demand", "vast", "DE", 0.76),
        _placed("on_demand", "tencent", "ap-nanjing", 3.86),
        _placed("on_demand", "tencent", "ap-singapore", 3.5),
    ]
    ours = ConstraintsSpec(providers=("alibaba", "tencent"))
    p = fleet_prices(offers, "H100-SXM", constraints=ours)
    assert p.usd_per_hour == {"on_demand": pytest.approx(3.5)}
    assert "constraints.providers: alibaba, tencent" in p.sources["on_demand"]
    # countries as plan reads them: ap-singapore is in Singapore, ap-nanjing in China
    in_china = fleet_prices(
        offers, "H100-SXM", constraints=ConstraintsSpec(providers=("tencent",), countries=("CN",))
    )
    assert "ap-nanjing" in in_china.source and "constraints.countries: cn" in in_china.source
    # a constraint that leaves nothing out is not named
    assert "constraints" not in fleet_prices(offers[1:], "H100-SXM", constraints=ours).source
    # nothing left: refused, naming the constraint and the flags that give a price, never priced elsewhere
    with pytest.raises(InputError) as e:
        fleet_prices(offers, "H100-SXM", constraints=ConstraintsSpec(providers=("alibaba",)))
    assert "constraints.providers: alibaba" in str(e.value) and "--on-demand-price" in str(e.value)
    assert "--instance" in str(e.value)
    # the user's own price needs no offer
    given = fleet_prices(
        offers, "H100-SXM", on_demand_usd=4.0, constraints=ConstraintsSpec(providers=("alibaba",))
    )
    assert given.usd_per_hour == {"on_demand": 4.0}


def test_both_prices_of_a_fleet_are_of_the_one_region_it_runs_in() -> None:
    # was: on-demand from the region cheapest on demand (r1) and spot from the one cheapest on spot
    # (r2), a fleet that runs nowhere
    offers = [
        _placed("on_demand", "cloud", "r1", 1.24),
        _placed("spot", "cloud", "r1", 0.39),
        _placed("on_demand", "cloud", "r2", 1.38),
        _placed("spot", "cloud", "r2", 0.19),
    ]
    no_spot = fleet_prices(offers, "H100-SXM", fleet_replicas=5, spot_fleet_replicas=0)
    assert {b.region for b in no_spot.basis.values()} == {"r1"}
    assert no_spot.usd_per_hour == {"on_demand": pytest.approx(1.24), "spot": pytest.approx(0.39)}
    # Ten replicas, all of them on spot at most: r1 costs 10 × 1.24 + 10 × 0.39 = 16.3 an hour at
    # most, r2 10 × 1.38 + 10 × 0.19 = 15.7: both prices are r2's.
    spot = fleet_prices(offers, "H100-SXM", fleet_replicas=10, spot_fleet_replicas=10)
    assert {b.region for b in spot.basis.values()} == {"r2"}
    assert "another region" not in spot.source
    # A region without spot: no spot price there, unless a policy runs spot and no region offers
    # both, which the spot price's note then says.
    apart = [offers[0], _placed("spot", "cloud", "r2", 0.19)]
    assert fleet_prices(apart, "H100-SXM", spot_fleet_replicas=0).usd_per_hour == {
        "on_demand": pytest.approx(1.24)
    }
    mixed = fleet_prices(apart, "H100-SXM", spot_fleet_replicas=1)
    assert mixed.basis["spot"].region == "r2"
    assert (
        "of another region than the on-demand price: no region in the catalog offers H100-SXM both"
        in (mixed.sources["spot"])
    )
    # A price the user gives ties no region: the other is the catalog's cheapest anywhere.
    given = fleet_prices(offers, "H100-SXM", on_demand_usd=2.0, spot_fleet_replicas=1)
    assert given.basis["spot"].region == "r2"


def test_a_fleets_price_notes_are_worded_in_the_display_currency() -> None:
    from gpuplan.i18n import Money

    # 8 CNY to the dollar: a 8-GPU box at 2.00 USD a GPU-hour is 16 USD = ¥128 an instance-hour,
    # shared by its 8 one-GPU replicas: 2 USD = ¥16 a replica-hour.
    money = Money.from_rate("CNY", usd_per_unit=0.125, as_of="2026-01-27", source="test")
    p = fleet_prices([_offer("on_demand", "h100_8x", 8, 2.0)], "H100-SXM", fleet_replicas=8, money=money)
    note = p.sources["on_demand"]
    assert note.startswith("on_demand ¥16.00/replica-h: cloud r1 h100_8x")
    assert "¥128.00 per instance-h" in note
    assert note.count("USD per instance-h") == 1  # only the catalog's own figure, named as such
    # the instance's price as the catalog holds it, and the figure costed, each named for what it is
    # costed in the display currency, the dollars beside it
    assert "which holds 16 USD per instance-hour, costed at ¥16.00/replica-h (2 USD) (confidence" in note
    assert "as the catalog holds it" not in note
    assert p.words_currency == "CNY"
    given = fleet_prices([], "H100-SXM", on_demand_usd=3.0, money=money)
    assert given.sources["on_demand"] == "on_demand ¥24.00/replica-h (3 USD/replica-h) given"


def test_of_two_regions_at_one_price_the_fleet_runs_where_the_price_is_known_current() -> None:
    from dataclasses import replace

    stale = replace(_placed("on_demand", "cloud", "a-region", 2.0), as_of="2020-01-01", stale=True)  # type: ignore[type-var]
    p = fleet_prices(
        [stale, _placed("on_demand", "cloud", "b-region", 2.0)], "H100-SXM", spot_fleet_replicas=0
    )
    assert p.basis["on_demand"].region == "b-region" and p.basis["on_demand"].known_current


def test_the_spot_rate_names_the_offer_and_region_its_band_is_of() -> None:
    # was: "interruption bands '5-10%' per month from the catalog", the region not named, where a
    # given --spot-price took the band of the cheapest spot offer anywhere
    from dataclasses import replace

    offers = [
        _placed("on_demand", "cloud", "r1", 1.24),
        replace(_placed("spot", "cloud", "r1", 0.39), interruption_band="<5%"),  # type: ignore[type-var]
        _placed("on_demand", "cloud", "r2", 1.38),
        replace(_placed("spot", "cloud", "r2", 0.19), interruption_band="15-20%"),  # type: ignore[type-var]
    ]
    given = fleet_prices(offers, "H100-SXM", spot_usd=0.5, spot_fleet_replicas=1)
    assert given.spot_rate_source.startswith(
        "of cloud r2 cloud-1x, the catalog's cheapest spot offer of H100-SXM (the given spot price names "
        "no place; --spot-rate sets the rate): interruption bands '15-20%'"
    ), given.spot_rate_source
    # both prices from the catalog: the band of the spot offer priced, named
    both = fleet_prices(offers, "H100-SXM", fleet_replicas=1, spot_fleet_replicas=1)
    region = both.basis["spot"].region
    assert both.spot_rate_source.startswith(f"of cloud {region} cloud-1x, the spot offer priced: ")


def test_a_yuan_price_is_cited_per_instance_in_yuan_and_the_costed_total_in_dollars() -> None:
    # was: "2.48 USD/h as the catalog holds it" for two ¥8.66 instances: the catalog holds ¥8.66 an
    # instance in yuan; 2 × 8.66 × 0.138 = 2.39 (here 2 × 8 × 0.125 = 2.00) is the dollars costed.
    from dataclasses import replace

    from gpuplan.i18n import Money
    from gpuplan.simulate.inputs import basis_words, price_basis

    yuan = replace(
        _offer("on_demand", "gn7i", 1, 1.0), price=8.0, currency="CNY", exchange_rate_usd_per_unit=0.125
    )
    basis = price_basis(2.0, yuan, None, known_current=True)
    money = Money.from_rate("CNY", usd_per_unit=0.125, as_of="2026-01-27", source="test")
    words = basis_words(basis, "on_demand", "H100-SXM", "USD/h", money, "h", instances=2)
    assert words == (
        "; price source: test, which holds 8 CNY per instance-hour, costed at ¥16.00/h (2 USD) for the 2 "
        "instances (confidence secondary)"
    )
    one = basis_words(basis, "on_demand", "H100-SXM", "USD/h", money, "h", instances=1)
    assert "costed at ¥16.00/h (2 USD) (confidence" in one


def test_spot_replicas_take_one_gpu_instances_where_the_region_has_them_not_one_shared_box() -> None:
    # As plan prices a spot service (a spare instance beside the fleet): six 1-GPU spot replicas on
    # six 1-GPU VMs and a spare ($17.57/h), not one 8-GPU box and its spare ($26.40/h). was: the box
    # ($13.20/h against $15.06/h), all six down at its one reclaim.
    shapes = [("on_demand", "p5.48xlarge", 8, 6.88), ("on_demand", "p5.4xlarge", 1, 6.88)]
    shapes += [("spot", "a3-highgpu-1g", 1, 2.51), ("spot", "p5.48xlarge", 8, 1.65)]
    offers = [_offer(*shape) for shape in shapes]
    p = fleet_prices(offers, "H100-SXM", fleet_replicas=6, spot_fleet_replicas=6)
    assert "a3-highgpu-1g" in p.sources["spot"] and p.per_instance("spot") == 1
    assert "one reclaim takes" not in p.sources["spot"]
    # on demand, a fleet of 8 as dear on eight VMs as on one box: the price known current wins a tie
    # (an unknown never does), else the smaller instance
    assert "p5.4xlarge" in fleet_prices(offers, "H100-SXM", fleet_replicas=8).sources["on_demand"]


def test_equal_costs_to_the_cent_take_the_smaller_instance() -> None:
    # GCP's a3-highgpu-1g and -4g differ by $0.0000025 a GPU-hour: four replicas had been put on the
    # 4-GPU box, billed whole while two of them ran
    offers = [
        _offer("on_demand", "a3-highgpu-4g", 4, 10.9790575),
        _offer("on_demand", "a3-highgpu-1g", 1, 10.97906),
    ]
    p = fleet_prices(offers, "H100-SXM", fleet_replicas=4)
    assert "a3-highgpu-1g" in p.sources["on_demand"] and p.per_instance("on_demand") == 1


def test_spot_replicas_that_must_share_a_box_are_told_one_reclaim_takes_them_all() -> None:
    offers = [_offer("on_demand", "p5.4xlarge", 1, 6.88), _offer("spot", "p5.48xlarge", 8, 1.65)]
    p = fleet_prices(offers, "H100-SXM", fleet_replicas=6, spot_fleet_replicas=6)
    assert p.per_instance("spot") == 8
    assert "8 replica(s) of 1 GPU(s) on each 8-GPU instance" in p.sources["spot"]
    assert "one reclaim takes every replica on the instance, up to 8 at once" in p.sources["spot"]
