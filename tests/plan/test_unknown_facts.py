"""No option ranks first because a fact about it is missing.

For each fact an option's time or cost rests on (vCPUs and RAM for the input pipeline, the network
of a multi-node job, the egress price, the storage price, the spot rate, the price's date), two
offers identical but for that one fact being unknown in one of them: whatever the known value,
the known one never ranks below the unknown one, and the unknown one says which fact it was
costed at the conservative bound of.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from plan_helpers import AWS_TIERS, offer

from gpuplan.plan import (
    Constraints,
    CostFacts,
    EstimateKey,
    EstimateRow,
    JobFacts,
    OfferTable,
    Plan,
    PlanOffer,
    RegionCosts,
    UsdTransferTier,
    plan_offers,
)

#: 1 h of GPU work on one 8-GPU instance, if nothing else bounds it.
GPU_H = 1.0
IMAGES = 1_000_000.0


def _estimator(key: EstimateKey) -> EstimateRow:
    """A toy estimator that reads the instance facts as the real one does: vCPUs feed images
    (100 images/s each), a host of under 200 GiB re-reads the dataset from a 0.5 GB/s disk (2 h),
    nodes share the work over a network of ``network_gbps``: 0.4 h × 100 / (100 + Gbit/s) of
    communication, so two nodes stay faster than one on any network. Unknown (None) is the best
    case: not bounded, cached, 400 Gbit/s."""
    t = GPU_H / key.nodes
    if key.vcpus is not None:
        t = max(t, IMAGES / (key.vcpus * key.nodes * 100.0) / 3600.0)
    if key.memory_gib is not None and key.memory_gib < 200:
        t = max(t, 2.0 / key.nodes)
    if key.nodes > 1:
        t += 0.4 * 100.0 / (100.0 + (key.network_gbps or 400.0))
    return EstimateRow(fits=True, job_time_h=t, job_time_h_low=t, job_time_h_high=t, peak_memory_gib=10.0)


def _plan(rows: list[PlanOffer], job: JobFacts, regions: list[RegionCosts], **constraints: object) -> Plan:
    return plan_offers(
        OfferTable.from_rows(rows),
        CostFacts(regions),
        job,
        _estimator,
        Constraints(max_gpus=16, **constraints),  # type: ignore[arg-type]
    )


def _costs(region: str, **kw: object) -> RegionCosts:
    base = RegionCosts(
        provider="aws",
        region=region,
        internet_egress=AWS_TIERS,
        inter_region_usd_per_gb=0.02,
        object_storage_usd_per_gb_month=0.023,
        block_storage_usd_per_gb_month=0.08,
    )
    return replace(base, **kw)  # type: ignore[arg-type]


def _rank(plan: Plan, instance_type: str) -> int:
    names = [o.instance_type for o in plan.options]
    return names.index(instance_type)


def _facts_of(plan: Plan, instance_type: str) -> list[str]:
    return next([u.fact for u in o.unknown_facts] for o in plan.options if o.instance_type == instance_type)


def _check(plan: Plan, fact: str) -> None:
    assert _rank(plan, "known") < _rank(plan, "unknown")
    assert fact in _facts_of(plan, "unknown")
    assert fact not in _facts_of(plan, "known")


KNOWN = st.floats(min_value=1.0, max_value=2000.0, allow_nan=False)


@settings(max_examples=25, deadline=None)
@given(vcpus=KNOWN, other=st.one_of(st.none(), KNOWN))
def test_unknown_vcpus(vcpus: float, other: float | None) -> None:
    rows = [
        offer(instance_type="known", vcpus=vcpus),
        offer(instance_type="unknown", vcpus=None),
    ]
    if other is not None:  # another A100 offer in the catalog (it may set the bound lower)
        rows.append(offer(instance_type="other", region="us-west-2", vcpus=other, price_usd=1e6))
    _check(_plan(rows, JobFacts(image_job=True), [_costs("us-east-1"), _costs("us-west-2")]), "vcpus")


@settings(max_examples=25, deadline=None)
@given(ram=KNOWN)
def test_unknown_ram(ram: float) -> None:
    rows = [offer(instance_type="known", memory_gib=ram), offer(instance_type="unknown", memory_gib=None)]
    _check(_plan(rows, JobFacts(rereads_dataset=True), [_costs("us-east-1")]), "ram")


@settings(max_examples=25, deadline=None)
@given(gbps=KNOWN)
def test_unknown_network_of_a_multi_node_job(gbps: float) -> None:
    # A 57-min deadline: one node takes 1 h, so both run on two nodes, where the network counts.
    rows = [
        offer(instance_type="known", network_gbps=gbps),
        offer(instance_type="unknown", network_gbps=None),
    ]
    plan = _plan(rows, JobFacts(), [_costs("us-east-1")], deadline_h=0.95)
    assert all(o.nodes == 2 for o in plan.options)
    _check(plan, "network")


def test_the_best_case_of_an_unknown_network_is_the_fastest_plausible_fabric() -> None:
    # Ranked at the catalog's slowest network (10 Gbit/s); its best case beside it is the fast end of
    # the plausible fabrics, 3,200 Gbit/s RDMA, not the estimator's own unknown-network default.
    from gpuplan.perf.links import FAST_NETWORK_GBIT_S

    rows = [
        offer(instance_type="known", network_gbps=10.0),
        offer(instance_type="unknown", network_gbps=None),
    ]
    plan = _plan(rows, JobFacts(), [_costs("us-east-1")], deadline_h=0.95)
    unknown = next(o for o in plan.options if o.instance_type == "unknown")
    assert unknown.job_time_h == pytest.approx(0.5 + 0.4 * 100.0 / (100.0 + 10.0))
    assert unknown.best_case_job_time_h == pytest.approx(0.5 + 0.4 * 100.0 / (100.0 + FAST_NETWORK_GBIT_S))


def test_a_catalog_stating_no_network_ranks_an_unknown_one_at_the_embedded_catalogs_slowest() -> None:
    # No offer states its network: the bound is the slowest GPU instance network of the embedded
    # catalog (2.5 Gbit/s), not the estimator's typical point for an unknown network, and says so.
    from gpuplan.perf.links import SLOW_NETWORK_GBIT_S

    rows = [offer(instance_type="unknown", network_gbps=None)]
    plan = _plan(rows, JobFacts(), [_costs("us-east-1")], deadline_h=0.95)
    (unknown,) = plan.options
    assert unknown.nodes == 2
    assert unknown.job_time_h == pytest.approx(0.5 + 0.4 * 100.0 / (100.0 + SLOW_NETWORK_GBIT_S))
    (net,) = [u for u in unknown.unknown_facts if u.fact == "network"]
    assert net.assumed.startswith("2.5 Gbit/s TCP (no offer in this catalog states its network")


@settings(max_examples=25, deadline=None)
@given(usd_per_gb=st.floats(min_value=0.0, max_value=0.5, allow_nan=False))
def test_unknown_egress_price(usd_per_gb: float) -> None:
    # The same instance in two AWS regions; the results go back to the user's site over the
    # internet: one region states its egress price, the other does not (it is taken at the
    # dearest price of AWS's other regions).
    tiers = (UsdTransferTier(upto_gb=math.inf, usd_per_gb=usd_per_gb),)
    rows = [
        offer(instance_type="known", region="us-west-2"),
        offer(instance_type="unknown", region="eu-west-1"),
    ]
    regions = [
        _costs("us-east-1"),
        _costs("us-west-2", internet_egress=tiers, inter_region_usd_per_gb=None),
        _costs("eu-west-1", internet_egress=None, inter_region_usd_per_gb=None),
    ]
    _check(_plan(rows, JobFacts(dataset_gb=100, checkpoint_gb=50), regions), "egress_price")


@settings(max_examples=25, deadline=None)
@given(usd=st.floats(min_value=0.0, max_value=1.0, allow_nan=False))
def test_unknown_storage_price(usd: float) -> None:
    rows = [
        offer(instance_type="known", region="us-west-2"),
        offer(instance_type="unknown", region="eu-west-1"),
    ]
    regions = [
        _costs("us-west-2", block_storage_usd_per_gb_month=usd),
        _costs("eu-west-1", block_storage_usd_per_gb_month=None),
    ]
    _check(_plan(rows, JobFacts(dataset_gb=500, checkpoint_gb=10), regions), "storage_price")


@pytest.mark.parametrize("band", ["<5%", "5-10%", "15-20%"])
def test_unknown_spot_rate(band: str) -> None:
    rows = [
        offer(instance_type="known", pricing="spot", price_usd=7.0, interruption_band=band),
        offer(instance_type="unknown", pricing="spot", price_usd=7.0, interruption_band=""),
    ]
    _check(_plan(rows, JobFacts(checkpoint_gb=20), [_costs("us-east-1")], pricing=("spot",)), "spot_rate")


def test_an_open_spot_band_is_an_unknown_rate_with_its_lower_edge_as_the_best_case() -> None:
    # ">20%" bounds the rate from below only: costed as no band is, named, with a best case
    rows = [
        offer(instance_type="known", pricing="spot", price_usd=7.0, interruption_band="15-20%"),
        offer(instance_type="unknown", pricing="spot", price_usd=7.0, interruption_band=">20%"),
    ]
    plan = _plan(rows, JobFacts(checkpoint_gb=20), [_costs("us-east-1")], pricing=("spot",))
    _check(plan, "spot_rate")
    [open_] = [o for o in plan.options if o.instance_type == "unknown"]
    assert (
        open_.best_case_total_cost_usd is not None and open_.best_case_total_cost_usd < open_.total_cost_usd
    )
    [fact] = [u for u in open_.unknown_facts if u.fact == "spot_rate"]
    assert "'>20%'" in fact.assumed or ">20%" in fact.assumed


@pytest.mark.parametrize("as_of", ["2026-11-09", "2025-01", "2019"])
def test_unknown_price_date(as_of: str) -> None:
    rows = [offer(instance_type="known", as_of=as_of), offer(instance_type="unknown", as_of="")]
    _check(_plan(rows, JobFacts(), [_costs("us-east-1")]), "price_date")


@pytest.mark.parametrize("as_of", ["2026-11-09", "2026-10", "2026"])
def test_a_date_whose_bounds_straddle_the_limit_is_an_unknown_price_date(as_of: str) -> None:
    # A source without a date of its own ("observed between June 2025 and today"): the store says
    # its staleness is unknown, and the plan counts its date as an unknown fact (it never wins a tie).
    rows = [
        offer(instance_type="known", as_of=as_of, staleness="fresh", stale=False),
        offer(instance_type="unknown", as_of="2025-06/2026-12-01", staleness="unknown", stale=True),
    ]
    _check(_plan(rows, JobFacts(), [_costs("us-east-1")]), "price_date")


@pytest.mark.parametrize("as_of", ["2025-01", "2019", "2023-06"])
def test_a_date_past_the_limit_is_an_unknown_price_date(as_of: str) -> None:
    # A dated price older than the staleness limit is not known to hold today either: its date is
    # an unknown fact of the option (named with the date), and it never wins a tie against a fresh one.
    rows = [
        offer(instance_type="unknown", as_of=as_of, staleness="stale", stale=True),
        offer(instance_type="known", as_of="2026-11-09", staleness="fresh", stale=False),
    ]
    plan = _plan(rows, JobFacts(), [_costs("us-east-1")])
    _check(plan, "price_date")
    [old] = [o for o in plan.options if o.instance_type == "unknown"]
    assert any(as_of in u.assumed for u in old.unknown_facts if u.fact == "price_date")


def test_a_source_that_names_no_region_is_an_unknown_region() -> None:
    # Equal in price, the option whose source names no region (a marketplace's or an article's
    # "unspecified") ranked first with only its transfer and storage prices named as unknown.
    rows = [
        offer(instance_type="known", region="us-east-1"),
        offer(instance_type="unknown", region="unspecified"),
    ]
    plan = _plan(rows, JobFacts(), [_costs("us-east-1"), _costs("unspecified")])
    _check(plan, "region")
    (fact,) = [
        u for o in plan.options if o.instance_type == "unknown" for u in o.unknown_facts if u.fact == "region"
    ]
    assert "names no region" in fact.assumed and "--countries" in fact.assumed


def test_the_plan_says_when_an_unknown_decided_the_winner() -> None:
    # The unknown offer is cheaper per hour: with its vCPUs at the best case (not bounded: the GPUs'
    # 1 h) it would win. The catalog's fewest vCPUs per A100 are 1 / 8 (the "tiny" offer), so it is
    # timed at 1 vCPU: 1e6 images / 100 per s = 10,000 s = 2.78 h, dearer than the known 1-h option.
    rows = [
        offer(instance_type="known", vcpus=96.0, price_usd=10.0),
        offer(instance_type="unknown", vcpus=None, price_usd=8.0),
        offer(instance_type="tiny", region="us-west-2", vcpus=1.0, price_usd=1e6),
    ]
    plan = _plan(rows, JobFacts(image_job=True), [_costs("us-east-1"), _costs("us-west-2")])
    assert plan.recommended.instance_type == "known"
    assert "unknown facts decide the ranking" in plan.decided_by_unknowns
    assert "vCPUs" in plan.decided_by_unknowns and "unknown" in plan.decided_by_unknowns
    unknown = next(o for o in plan.options if o.instance_type == "unknown")
    assert unknown.best_case_total_cost_usd is not None
    assert unknown.best_case_total_cost_usd < plan.recommended.total_cost_usd < unknown.total_cost_usd


def test_the_deciding_unknowns_are_only_those_with_a_best_case() -> None:
    # The same, with the unknown offer's price of unknown age: the line said "with its vCPUs, price
    # date at their best case", though a price date moves no figure (it has no best case).
    rows = [
        offer(instance_type="known", vcpus=96.0, price_usd=10.0),
        offer(
            instance_type="unknown",
            vcpus=None,
            price_usd=8.0,
            as_of="2025-06/2026-12-01",
            staleness="unknown",
            stale=True,
        ),
        offer(instance_type="tiny", region="us-west-2", vcpus=1.0, price_usd=1e6),
    ]
    plan = _plan(rows, JobFacts(image_job=True), [_costs("us-east-1"), _costs("us-west-2")])
    unknown = next(o for o in plan.options if o.instance_type == "unknown")
    assert {"vcpus", "price_date"} <= {u.fact for u in unknown.unknown_facts}
    assert "with its vCPUs at their best case" in plan.decided_by_unknowns, plan.decided_by_unknowns


def test_of_zones_alike_at_the_dated_floor_the_one_whose_own_price_is_lowest_is_shown() -> None:
    # Three zones of one instance, each undated spot price below the region's dated one: all costed
    # at that one, so they tied, and the list showed the first zone ($0.17/h own) while the line
    # "unknown facts decide the ranking" quoted the best case of another ($0.091/h): one option, two
    # best cases. A tie at the bound now breaks on the best case.
    undated = {"as_of": "2025-06/2026-12-01", "staleness": "unknown", "stale": True, "pricing": "spot"}
    rows = [
        offer(instance_type="g6", zone=zone, price_usd=9.0, price_usd_best=own, floor_as_of="2025-11-30",
              floor_basis="region-low", **undated)  # type: ignore[arg-type]
        for zone, own in (("az1", 5.0), ("az2", 2.8), ("az3", 2.7))
    ]  # fmt: skip
    plan = _plan(rows, JobFacts(), [_costs("us-east-1")])
    g6 = next(o for o in plan.options if o.instance_type == "g6")
    assert g6.zone == "az3", [(o.zone, o.best_case_total_cost_usd) for o in plan.options]
    facts = {u.fact: u for u in g6.unknown_facts}
    assert facts["price_date"].costed and "undated $2.70/h" in facts["price_date"].assumed


def test_a_stale_spot_price_held_to_a_fresh_one_is_said_stale_with_its_date_not_undated() -> None:
    # A dated spot price older than the limit, below a fresh dated one of its GPU, is costed at the
    # fresh one (OfferPrice.spot_age_held); the notes name its own date and why it is not used.
    fresh = {"as_of": "2026-11-20", "staleness": "fresh", "stale": False, "pricing": "spot"}
    row = offer(instance_type="a2", price_usd=11.0, price_usd_best=4.0, floor_as_of="2026-11-20",
                floor_basis="gpu-catalog", floor_region="aws/us-east-1", floor_source="test rows",
                own_stale_as_of="2025-01-10", **fresh)  # type: ignore[arg-type]  # fmt: skip
    plan = _plan([row], JobFacts(), [_costs("us-east-1")])
    [option] = [o for o in plan.options if o.instance_type == "a2"]
    facts = {u.fact: u for u in option.unknown_facts}
    said = facts["price_date"].assumed
    assert facts["price_date"].costed and said.startswith("$4.00/h of 2025-01-10, older than 180 days, below")
    assert "undated" not in said and "$11.00/h of 2026-11-20" in said
    assert option.price_source.endswith(
        "the offer's own $4.00/h is of 2025-01-10, older than the limit (test)"
    )


def test_an_option_likely_to_miss_the_deadline_ranks_after_those_that_meet_it() -> None:
    # The README's own plan had ranked first a spot V100 of 40.7 h with a 38 % chance to miss its
    # 2-day deadline, $0.71 below a 10.4-h option with none. Here: a T4 at 40 h (its range to 48 h)
    # under a 45-h deadline, cheaper than an A100 at 8 h.
    from plan_helpers import aws_costs, toy_estimator

    from gpuplan.plan.options import MAY_MISS_DEADLINE_FLAG

    rows = [
        offer(instance_type="t4", gpu="T4", gpu_count=1, gpu_memory_gib=16.0, price_usd=0.5),
        offer(instance_type="a100", gpu="A100-SXM4-40GB", gpu_count=1, price_usd=4.0),
    ]
    table = OfferTable.from_rows(rows)

    def plan(deadline: float | None) -> Plan:
        c = Constraints(max_gpus=1, deadline_h=deadline)
        return plan_offers(table, CostFacts([aws_costs()]), JobFacts(), toy_estimator(peak_gib=10.0), c)  # type: ignore[arg-type]

    free = plan(None)
    assert [o.instance_type for o in free.options] == ["t4", "a100"]
    bound = plan(45.0)
    t4 = next(o for o in bound.options if o.instance_type == "t4")
    assert [o.instance_type for o in bound.options] == ["a100", "t4"]
    assert t4.job_time_h <= 45.0 < t4.job_time_h_high and MAY_MISS_DEADLINE_FLAG in t4.flags
    assert any(n.startswith("deadline: 1 option may miss 45.0 h") for n in bound.notes), bound.notes
    assert bound.personas[0].option.instance_type == "a100"  # the budget pick meets the deadline too


def test_every_fact_is_counted_among_an_options_unknowns() -> None:
    # was: bits 0-7 only: an unknown region (256) was never counted, even as a tie-breaker
    import numpy as np

    from gpuplan.plan.rank import unknown_count
    from gpuplan.plan.unknowns import Fact

    every = 0
    for fact in Fact:
        every |= fact.value
        assert unknown_count(np.array([fact.value]))[0] == 1, fact
    assert unknown_count(np.array([every]))[0] == len(Fact)


@pytest.mark.parametrize(("as_of", "said"), [("2026-06", "dated 2026-06"), ("2025-06/2026-12-01", "no date")])
def test_the_headline_says_how_a_price_of_unknown_age_is_dated(as_of: str, said: str) -> None:
    # A price dated by a month that straddles the limit is of unknown age, as an undated one is, and
    # warned of alike; but its source does date it: the warning had said "its source carries no date".
    from gpuplan.report.plan_view import stale_warning

    rows = [offer(instance_type="unknown", as_of=as_of, staleness="unknown", stale=True)]
    plan = _plan(rows, JobFacts(), [])
    warning = stale_warning(plan)
    assert warning.startswith("price of unknown age") and said in warning
    assert ("carries no date" in warning) == ("/" in as_of)
