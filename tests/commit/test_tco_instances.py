"""A planner-sized demand is priced only on instances its hours hold on (``HostNeed``): a run over
several nodes on the instance type it was sized on, a run in one node on any that holds it as well.
A cheaper instance of the same GPU whose network (or host) is not known never prices it."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest

from gpuplan.commit import Demand, PricedOffer, TcoProblem, optimise
from gpuplan.commit.adapters import _host_need
from gpuplan.commit.model import HostNeed

#: A 24-GPU job sized by the plan on three 8-GPU "sized8" instances: NVLink inside, 32 Gbit/s TCP
#: between them, 96 vCPUs and 736 GiB of RAM each.
MULTI = HostNeed(
    provider="p",
    instance_type="sized8",
    one_node=False,
    gpus_per_node=8,
    interconnect="NVLink",
    network_gbps=32,
    network_kind="TCP",
    vcpus=96,
    memory_gib=736,
    host_bound=True,
)
#: What the catalog says of an instance as able as sized8.
AS_ABLE = {
    "interconnect": "NVLink",
    "network_gbps": 32.0,
    "network_kind": "TCP",
    "vcpus": 96.0,
    "memory_gib": 736.0,
}


def _offer(
    instance: str, gpus: float, usd_per_gpu_hour: float, pricing: str = "on_demand", **kw: object
) -> PricedOffer:
    """``instance`` of ``gpus`` G at ``usd_per_gpu_hour`` (a commitment: its month / 730)."""
    return PricedOffer(
        provider="p",
        region="far",
        instance_type=instance,
        gpu="G",
        gpus_per_unit=gpus,
        pricing=pricing,
        usd_per_unit_hour=usd_per_gpu_hour * gpus,
        term_months={"monthly": 1, "reserved_1y": 12}.get(pricing, 0),
        **kw,  # type: ignore[arg-type]
    )


def _run(host: HostNeed | None, gpus: float = 24.0, months: int = 12, **kw: object) -> Demand:
    """One 40-h run a month of ``gpus`` GPUs."""
    return Demand(
        name="run",
        gpu="G",
        gpu_hours=(gpus * 40.0,) * months,
        run_hours=40.0,
        gpus_per_run=gpus,
        gpu_step=gpus,
        host=host,
        **kw,  # type: ignore[arg-type]
    )


def test_a_multi_node_run_is_priced_on_its_sized_instance_not_a_cheaper_one_of_unknown_network() -> None:
    # was: 24 GPUs × 40 h × 12 = 11,520 GPU-hours at the 1-GPU "cheap1"'s $1.35 = $15,552; its
    # network is not known, so the run's 40 h do not hold there. On "sized8" at $1.75: $20,160.
    offers = (_offer("sized8", 8, 1.75), _offer("cheap1", 1, 1.35))
    s = optimise(TcoProblem(horizon_months=12, demands=(_run(MULTI),), offers=offers))
    assert s.hourly_used["G/on_demand/run"].instance_type == "sized8"
    assert s.total_usd == pytest.approx(11_520 * 1.75)
    # the baseline and the sensitivity (30 % fewer or more runs at once) on the same instance
    assert s.all_on_demand_usd == pytest.approx(11_520 * 1.75)
    assert s.savings_pct == 0.0
    low, mid, high = (total for _pct, total in s.sensitivity)
    assert mid == pytest.approx(11_520 * 1.75)
    assert low == pytest.approx(0.7 * 11_520 * 1.75) and high == pytest.approx(1.3 * 11_520 * 1.75)


def test_a_cheap_commitment_on_another_instance_never_serves_a_multi_node_run() -> None:
    # A run all month: 24 GPUs × 730 h × $1.75 = $30,660 a month on demand; a monthly 1-GPU
    # "cheap1" at $500 a GPU-month would cover it for $12,000, but the run's hours do not hold there.
    run = Demand(
        name="run", gpu="G", gpu_hours=(24 * 730.0,) * 3, gpus_per_run=24.0, gpu_step=24.0, host=MULTI
    )
    offers = (_offer("sized8", 8, 1.75), _offer("cheap1", 1, 500 / 730, "monthly"))
    s = optimise(TcoProblem(horizon_months=3, demands=(run,), offers=offers))
    assert s.commitments == ()
    assert s.total_usd == pytest.approx(3 * 24 * 730 * 1.75)
    # and no break-even is said for a commitment the run cannot use
    assert s.break_even_utilisation == {}
    # the sized instance's own subscription is used where it pays: 8 GPUs at $4,000 a month
    # ($500 a GPU-month again) against $1.75 × 730 = $1,277.50 a GPU-month on demand
    offers += (_offer("sized8", 8, 500 / 730, "monthly"),)
    s = optimise(TcoProblem(horizon_months=3, demands=(run,), offers=offers))
    assert {c.offer.instance_type for c in s.commitments} == {"sized8"}
    assert sum(c.units for c in s.commitments) == 3 * 3  # 3 units of 8 GPUs, each month
    assert s.total_usd == pytest.approx(3 * 24 * 500)
    # break-even: $500 / $1,277.50 = 39.1 % of the hours
    assert s.break_even_utilisation == {"monthly": pytest.approx(500 / (1.75 * 730))}


def test_a_one_node_run_uses_any_instance_that_holds_it() -> None:
    # A 4-GPU run in one node (no host bound: a service's replica): "other8" (8 GPUs, $1 a GPU-h;
    # the run pays for the whole instance, 2 × $1 = $2 a GPU-h used) and "other4" ($1.20) hold it;
    # "small2" (2 GPUs, $0.50) splits it over two nodes and is not used.
    host = HostNeed(provider="p", instance_type="sized4", one_node=True, gpus_per_node=4, interconnect="PCIe")
    offers = (
        _offer("sized4", 4, 1.50, interconnect="PCIe"),
        _offer("other4", 4, 1.20, interconnect="pcie"),
        _offer("other8", 8, 1.00, interconnect="PCIe"),
        _offer("small2", 2, 0.50, interconnect="PCIe"),
    )
    s = optimise(TcoProblem(horizon_months=1, demands=(_run(host, gpus=4, months=1),), offers=offers))
    assert s.hourly_used["G/on_demand/run"].instance_type == "other4"
    assert s.total_usd == pytest.approx(4 * 40 * 1.20)


def test_a_direct_demand_names_a_gpu_and_any_instance_of_it_prices_it() -> None:
    offers = (_offer("sized8", 8, 1.75), _offer("cheap1", 1, 1.35))
    s = optimise(TcoProblem(horizon_months=1, demands=(_run(None, months=1),), offers=offers))
    assert s.hourly_used["G/on_demand/run"].instance_type == "cheap1"


def test_a_commitment_for_one_pool_does_not_serve_another() -> None:
    # A direct demand of 8 G all month and the multi-node run (sized8 only) all month: the direct
    # demand's cheap subscription (1-GPU cheap1) serves it alone; the run buys sized8's.
    direct = Demand(name="direct", gpu="G", gpu_hours=(8 * 730.0,), gpus_per_run=8.0, busy_hours=(730.0,))
    run = Demand(name="run", gpu="G", gpu_hours=(8 * 730.0,), gpus_per_run=8.0, gpu_step=8.0, host=MULTI)
    offers = (
        _offer("sized8", 8, 2.0),
        _offer("cheap1", 1, 2.0),
        _offer("cheap1", 1, 400 / 730, "monthly"),
        _offer("sized8", 8, 600 / 730, "monthly"),
    )
    s = optimise(TcoProblem(horizon_months=1, demands=(direct, run), offers=offers))
    bought = sorted((c.offer.instance_type, c.units * c.offer.gpus_per_unit, c.host) for c in s.commitments)
    assert bought == [("cheap1", 8, None), ("sized8", 8, MULTI)]
    # 8 × $400 + 8 × $600
    assert s.total_usd == pytest.approx(8 * 400 + 8 * 600)


@pytest.mark.parametrize(
    ("offer_kw", "allowed"),
    [
        ({"vcpus": 32.0, "memory_gib": 188.0, "interconnect": "PCIe"}, True),
        ({"vcpus": 64.0, "memory_gib": 376.0, "interconnect": "PCIe"}, True),
        ({"vcpus": 16.0, "memory_gib": 188.0, "interconnect": "PCIe"}, False),  # fewer vCPUs
        ({"vcpus": 32.0, "memory_gib": 60.0, "interconnect": "PCIe"}, False),  # less RAM
        ({"vcpus": None, "memory_gib": 188.0, "interconnect": "PCIe"}, False),  # vCPUs not known
        ({"vcpus": 32.0, "memory_gib": 188.0, "interconnect": None}, False),  # link not known
        ({"vcpus": 32.0, "memory_gib": 188.0, "interconnect": "NVLink"}, False),  # another link
    ],
)
def test_a_one_node_job_needs_a_host_known_to_be_as_able(offer_kw: dict[str, object], allowed: bool) -> None:
    host = HostNeed(
        provider="p",
        instance_type="sized4",
        one_node=True,
        gpus_per_node=4,
        interconnect="PCIe",
        vcpus=32,
        memory_gib=188,
        host_bound=True,
    )
    assert host.allows(_offer("other4", 4, 1.0, **offer_kw)) is allowed
    # its own type always: the hours were sized on it, whatever the catalog knows of it
    assert host.allows(_offer("sized4", 4, 1.0))
    # never an instance that splits the run
    assert not host.allows(_offer("other2", 2, 1.0, **offer_kw))


def test_where_the_sized_instances_host_is_not_known_no_other_is_known_to_match_it() -> None:
    host = HostNeed(
        provider="p",
        instance_type="sized1",
        one_node=True,
        gpus_per_node=1,
        vcpus=None,
        memory_gib=8,
        host_bound=True,
    )
    assert not host.allows(_offer("other1", 1, 1.0, vcpus=64.0, memory_gib=512.0))
    assert host.said == "priced on sized1, the instance its hours were sized on"


def _option(**kw: object) -> SimpleNamespace:
    base = {
        "provider": "p",
        "instance_type": "sized4",
        "nodes": 1,
        "gpus_per_node": 4,
        "gpu_count": 4,
        "service": None,
    }
    return SimpleNamespace(**{**base, **kw})


class _Store:
    """The planner's store as ``_host_need`` reads it: the sized instance's rows in two regions."""

    def __init__(self, *rows: dict[str, object]) -> None:
        self.rows = [SimpleNamespace(provider="p", instance_type="sized4", **r) for r in rows]

    def offers(self, include_unpriced: bool = True) -> list[SimpleNamespace]:
        return self.rows


def test_the_host_need_follows_the_plans_option() -> None:
    rows = (
        {
            "vcpus": 32.0,
            "memory_gib": 188.0,
            "interconnect": "PCIe",
            "network_gbps": 25.0,
            "network_kind": "TCP",
        },
        {
            "vcpus": 32.0,
            "memory_gib": 180.0,
            "interconnect": "PCIe",
            "network_gbps": 20.0,
            "network_kind": "TCP",
        },
    )
    store = _Store(*rows)
    # a job over three nodes: its GPUs per node, link, the slowest network its rows list, and its host
    multi = _host_need(store, _option(nodes=3, gpu_count=12), serving=False)  # type: ignore[arg-type]
    assert multi == HostNeed(
        provider="p",
        instance_type="sized4",
        one_node=False,
        gpus_per_node=4,
        interconnect="PCIe",
        network_gbps=20,
        network_kind="TCP",
        vcpus=32,
        memory_gib=180,
        host_bound=True,
    )
    # a job in one node: its GPUs, link, and the lowest vCPUs and RAM its rows list
    one = _host_need(store, _option(), serving=False)  # type: ignore[arg-type]
    assert one == replace(multi, one_node=True)
    # rows that differ in their link: not known which the run would get
    mixed = _Store(rows[0], {**rows[1], "interconnect": "NVLink"})
    assert _host_need(mixed, _option(), serving=False).interconnect is None  # type: ignore[arg-type]
    # a service of three 1-GPU replicas on three nodes: any instance holding a replica
    service = SimpleNamespace(replica_gpus=1)
    served = _host_need(store, _option(nodes=3, gpus_per_node=1, gpu_count=3, service=service), serving=True)  # type: ignore[arg-type]
    assert served.one_node and served.gpus_per_node == 1 and not served.host_bound
    # … but a replica over two nodes: the rule of a run over several nodes
    wide = _host_need(store, _option(nodes=2, service=SimpleNamespace(replica_gpus=8)), serving=True)  # type: ignore[arg-type]
    assert not wide.one_node and wide.gpus_per_node == 4 and wide.network_gbps == 20
    # a batch-inference job of one-GPU shards over three nodes: its shards share no traffic, so any
    # instance holding a shard's GPU holds its hours, its link and network not asked (a 4-GPU batch
    # job had been refused any other instance: "its GPU link … is not known"); its host still bounds it
    shards = _host_need(store, _option(nodes=3, gpu_count=12), serving=False, shard_gpus=1)  # type: ignore[arg-type]
    assert shards.one_node and shards.gpus_per_node == 1 and not shards.linked and shards.host_bound
    assert shards.others and shards.allows(_offer("cheap1", 1, 0.5, vcpus=32, memory_gib=192))
    # a shard over two GPUs (tensor_parallel: 2) keeps its link's rule
    assert _host_need(store, _option(), serving=False, shard_gpus=2).linked  # type: ignore[arg-type]


def test_a_commitment_price_on_another_instance_leaves_the_runs_saving_unknown() -> None:
    # was: cheap1's monthly price counted as "a monthly price for G", so the report said monthly
    # does not pay off for a run it cannot serve; its own instance has none: unknown.
    from gpuplan.commit.adapters import missing_prices
    from gpuplan.commit.usage import Usage

    usage = Usage.from_dict(
        {
            "horizon_months": 1,
            "demands": [{"name": "run", "gpu": "G", "gpus": 1, "hours_per_month": 1}],
            "constraints": {"pricing": ["on_demand", "monthly"]},
        }
    )
    offers = (_offer("sized8", 8, 1.75), _offer("cheap1", 1, 500 / 730, "monthly"))
    missing = missing_prices((), usage, (_run(MULTI, months=1),), offers)
    assert [(m.pricing, m.gpu) for m in missing] == [("monthly", "G")]
    assert missing_prices((), usage, (_run(None, months=1),), offers) == ()


def test_the_sized_instance_is_its_providers_in_any_of_its_regions() -> None:
    sized = _offer("sized8", 8, 1.0)
    assert MULTI.allows(replace(sized, region="near"))
    # a name of another provider's is another machine (a marketplace's "8x-gpu" is not a cloud's)
    assert not MULTI.allows(replace(sized, provider="q"))


def test_a_multi_node_run_may_use_a_type_of_as_many_gpus_per_node_and_a_network_known_and_no_slower() -> None:
    assert MULTI.allows(_offer("twin8", 8, 1.0, **AS_ABLE))
    assert MULTI.allows(_offer("twin8", 8, 1.0, **{**AS_ABLE, "network_gbps": 100.0}))


@pytest.mark.parametrize(
    "differs",
    [
        {"network_gbps": None},  # network not known: the planner's slow end
        {"network_gbps": 10.0},  # slower
        {"network_kind": "EFA"},  # another kind
        {"network_kind": None},
        {"interconnect": "PCIe"},  # another link between its GPUs
        {"vcpus": 48.0},  # fewer vCPUs to feed them
        {"memory_gib": None},
    ],
)
def test_a_multi_node_run_is_not_priced_on_a_type_not_known_to_be_as_able(differs: dict[str, object]) -> None:
    assert not MULTI.allows(_offer("twin8", 8, 1.0, **{**AS_ABLE, **differs}))


def test_a_multi_node_run_keeps_its_gpus_per_node() -> None:
    # 24 GPUs over three 8-GPU nodes are not the same run over six 4-GPU or two 16-GPU ones
    assert not MULTI.allows(_offer("half4", 4, 1.0, **AS_ABLE))
    assert not MULTI.allows(_offer("double16", 16, 1.0, **AS_ABLE))


def test_a_multi_node_run_is_priced_on_a_cheaper_type_known_to_be_as_able() -> None:
    # twin8 at $1.50 a GPU-hour beside sized8 at $1.75 and cheap1 at $1.35 (1 GPU, network not
    # known): 11,520 GPU-hours × $1.50 = $17,280.
    offers = (_offer("sized8", 8, 1.75), _offer("twin8", 8, 1.50, **AS_ABLE), _offer("cheap1", 1, 1.35))
    s = optimise(TcoProblem(horizon_months=12, demands=(_run(MULTI),), offers=offers))
    assert s.hourly_used["G/on_demand/run"].instance_type == "twin8"
    assert s.total_usd == pytest.approx(11_520 * 1.50)


def test_where_the_sized_instances_network_is_not_known_no_other_type_matches_it() -> None:
    unknown = replace(MULTI, network_gbps=None)
    assert not unknown.allows(_offer("twin8", 8, 1.0, **AS_ABLE))
    assert unknown.said == "priced on sized8, the instance its hours were sized on"
    assert MULTI.said == (
        "priced on sized8, the instance its hours were sized on, or another instance with 8 GPU(s) per "
        "node, a TCP network known and no slower than 32 Gbit/s, its GPUs linked by NVLink, vCPUs and "
        "RAM known and no fewer"
    )
