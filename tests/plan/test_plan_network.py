"""A multi-node plan says the network between nodes its time assumes, where that comes from, and
the time over TCP where the fabric is not set up; the JSON document carries the fabric's kind."""

from __future__ import annotations

from dataclasses import replace

import pytest
from plan_helpers import GPU_HOURS, aws_costs, offer

from gpuplan.plan import Constraints, CostFacts, EstimateKey, EstimateRow, JobFacts, OfferTable, plan_offers
from gpuplan.plan.network import FALLBACK_NETWORK_GBIT_S
from gpuplan.plan.result import Plan
from gpuplan.units import format_hours

JOB = JobFacts(dataset_gb=0, checkpoint_gb=0, data_location=("aws", "us-east-1"))


def _estimate(key: EstimateKey) -> EstimateRow:
    """GPU-hours over the GPUs, a tenth longer for each node past the first; 1.5 times as long over
    TCP at 100 Gbit/s or less across nodes."""
    t = GPU_HOURS[key.gpu] / (key.gpus_per_node * key.nodes) * (1.0 + 0.1 * (key.nodes - 1))
    slow = key.nodes > 1 and key.network_kind == "TCP" and (key.network_gbps or 0) <= 100
    t *= 1.5 if slow else 1.0
    return EstimateRow(fits=True, job_time_h=t, job_time_h_low=0.9 * t, job_time_h_high=1.1 * t)


def _plan(deadline_h: float | None, **kw: object) -> Plan:
    facts: dict[str, object] = {
        "instance_type": "p5en.48xlarge",
        "network_gbps": 3200.0,
        "network_kind": "EFA",
        **kw,
    }
    row = offer(**facts)
    return plan_offers(
        OfferTable.from_rows([row]),
        CostFacts([aws_costs()]),
        JOB,
        _estimate,
        Constraints(deadline_h=deadline_h, max_nodes=4),
    )


def test_a_multi_node_plan_names_the_fabric_its_source_and_the_time_over_tcp() -> None:
    # 8 GPU-hours: 1 h on one node of 8, 0.55 h on two, 0.4 h on three, 0.325 h on four: a 0.35 h
    # deadline takes four.
    plan = _plan(0.35)
    rec = plan.recommended
    assert rec.nodes == 4
    words = plan.network
    assert "EFA at 3,200 Gbit/s" in words and "the catalog's instance row for p5en.48xlarge" in words
    # over TCP at 100 Gbit/s the toy estimator takes 1.5 times as long: 0.4875 h against 0.325 h
    slow, fast = format_hours(0.4875), format_hours(0.325)
    assert f"at {FALLBACK_NETWORK_GBIT_S:g} Gbit/s the compute takes {slow} instead of {fast}" in words
    assert "--instance p5en.48xlarge -n 32 --network-kind tcp --network-gbps 100" in words


def test_the_json_document_carries_the_network_kind_and_words() -> None:
    from gpuplan.report.plan import plan_json

    plan = _plan(0.35)
    doc = plan_json(plan, workload={"name": "w", "task": "train"})
    assert doc.recommended.network_kind == "EFA" and doc.recommended.network_gbps == 3200.0
    assert doc.network == plan.network and "EFA" in doc.network


def test_one_node_says_no_network() -> None:
    plan = _plan(None)
    assert plan.recommended.nodes == 1 and plan.network == ""


def test_an_unknown_network_is_said_to_be_an_assumption() -> None:
    plan = _plan(0.9, network_gbps=None, network_kind="")
    assert plan.recommended.nodes > 1
    assert "an assumption" in plan.network and "TCP" in plan.network


def test_the_text_and_the_report_show_it() -> None:
    from gpuplan.report.plan_html import plan_markdown

    plan = _plan(0.35)
    assert plan.network in plan_markdown(plan, "t", "c.svg").replace("\\`", "`")
    plain = replace(plan, network="")
    assert "network between" not in plan_markdown(plain, "t", "c.svg")


def test_a_gcp_a3_mega_plan_names_gpudirect_tcpxo() -> None:
    # The catalog's row of a3-megagpu-8g says TCP at 1,800 Gbit/s: Google's GPUDirect-TCPXO.
    plan = _plan(
        0.35,
        provider="gcp",
        region="us-central1",
        instance_type="a3-megagpu-8g",
        network_gbps=1800.0,
        network_kind="TCP",
    )
    assert plan.recommended.nodes == 4
    assert "GPUDirect-TCPXO over TCP at 1,800 Gbit/s" in plan.network


def test_a_service_says_no_network() -> None:
    # A service's replicas are independent servers and its time is its calendar period.
    from gpuplan.plan.network import network_words

    plan = _plan(0.35)
    table = OfferTable.from_rows(
        [offer(instance_type="p5en.48xlarge", network_gbps=3200.0, network_kind="EFA")]
    )
    assert network_words(plan.recommended, table, _estimate) != ""
    assert network_words(plan.recommended, table, _estimate, service=True) == ""


def _unstated(
    deadline_h: float, gbps: float | None = None, kind: str | None = None
) -> tuple[Plan, OfferTable]:
    """A plan over p5en.48xlarge with no network in the catalog, and the user's network if given."""
    from gpuplan.plan.network import with_given_network

    row = offer(instance_type="p5en.48xlarge", network_gbps=None, network_kind="")
    table = with_given_network(OfferTable.from_rows([row]), gbps, kind)
    plan = plan_offers(
        table, CostFacts([aws_costs()]), JOB, _estimate, Constraints(deadline_h=deadline_h, max_nodes=4)
    )
    return plan, table


def test_a_network_the_user_gives_is_taken_where_the_catalog_gives_none() -> None:
    from gpuplan.plan.network import given_network_note

    # over 3,200 Gbit/s RDMA the toy estimator takes four nodes 0.325 h: within 0.35 h (at the
    # slowest network, 2.5 Gbit/s TCP, they take 0.4875 h: the test below)
    plan, table = _unstated(0.35, 3200.0, "rdma")
    rec = plan.recommended
    assert rec.nodes == 4
    assert "RDMA at 3,200 Gbit/s" in plan.network and "as you gave it (--network-gbps)" in plan.network
    # the option keeps the catalog's statement (none): the user's figure is said, not passed off as it
    assert rec.network_gbps is None and rec.network_kind == ""
    assert not any(u.fact == "network" for u in rec.unknown_facts)
    note = given_network_note([rec], table, 3200.0, "rdma")
    assert note == (
        "your network, 3,200 Gbit/s RDMA, taken for aws p5en.48xlarge: the catalog gives them none"
    )


def test_a_network_the_catalog_states_is_kept_and_the_difference_said() -> None:
    from gpuplan.plan.network import given_network_note, with_given_network

    table = OfferTable.from_rows(
        [offer(instance_type="p5en.48xlarge", network_gbps=3200.0, network_kind="EFA")]
    )
    assert with_given_network(table, 100.0, None) is table
    plan = _plan(0.35)
    assert plan.recommended.nodes == 4
    note = given_network_note([plan.recommended], table, 100.0, None)
    assert note == (
        "the catalog's own network kept for aws p5en.48xlarge: 3,200 Gbit/s EFA (not your 100 Gbit/s TCP)"
    )


def test_a_plan_refused_for_time_says_the_unknown_network_held_options_back() -> None:
    import pytest

    from gpuplan.plan import PlanInfeasibleError

    with pytest.raises(PlanInfeasibleError) as e:
        _unstated(0.35)
    text = str(e.value)
    assert (
        "options on several nodes of aws p5en.48xlarge were timed at the slowest network, 2.5 Gbit/s TCP"
        in text
    )
    assert "over a 3,200 Gbit/s RDMA fabric the fastest would take" in text
    # the network the user can give leads: it decides more than the count (was said last, after
    # the fastest option's time and the limits to raise)
    assert text.startswith(
        "no option finishes within 21 min: 3 options on several nodes of aws p5en.48xlarge"
    )
    assert text.index("--network-gbps N --network-kind rdma or tcp") < text.index("the fastest option takes")


def test_plan_reads_the_network_flags_as_estimate_does() -> None:
    import pytest

    from gpuplan.errors import InputError
    from gpuplan.plan.network import checked_given_network

    assert checked_given_network(3200.0, "RDMA") == (3200.0, "rdma")
    assert checked_given_network(None, None) == (None, None)
    with pytest.raises(InputError, match="use rdma or tcp"):
        checked_given_network(100.0, "fast")
    with pytest.raises(InputError, match="--network-kind rdma needs --network-gbps"):
        checked_given_network(None, "rdma")


@pytest.mark.parametrize("fabric", ["infiniband", "InfiniBand", "ib", "efa", "RoCE"])
def test_a_fabric_the_help_names_is_read_as_rdma(fabric: str) -> None:
    # --help says "rdma (EFA, InfiniBand, RoCE)"; --network-kind infiniband was refused
    from gpuplan.plan.network import checked_given_network

    assert checked_given_network(400.0, fabric) == (400.0, "rdma")


@pytest.mark.parametrize(
    ("typed", "words"),
    [
        ("infiniban", "--network-kind: use rdma or tcp (got 'infiniban'); did you mean rdma?"),
        ("tpc", "--network-kind: use rdma or tcp (got 'tpc'); did you mean tcp?"),
        (
            "ethernet",
            "--network-kind: Ethernet may be either: rdma for RoCE (RDMA over Ethernet), tcp for plain "
            "Ethernet",
        ),
    ],
)
def test_a_kind_near_one_names_it(typed: str, words: str) -> None:
    from gpuplan.errors import InputError
    from gpuplan.plan.network import checked_given_network

    with pytest.raises(InputError) as e:
        checked_given_network(400.0, typed)
    assert str(e.value) == words


def test_the_document_says_what_network_each_option_was_timed_at_and_whose_it_is() -> None:
    from gpuplan.report.plan import option_json

    # the user's network: the catalog's statement stays empty, the timed one is the user's
    given, _ = _unstated(0.35, 3200.0, "rdma")
    doc = option_json(given.recommended)
    assert doc.network_gbps is None and doc.network_kind is None
    assert (doc.network_timed_gbps, doc.network_timed_kind, doc.network_source) == (3200.0, "RDMA", "given")
    # the catalog's network
    doc = option_json(_plan(0.35).recommended)
    assert (doc.network_timed_gbps, doc.network_timed_kind, doc.network_source) == (3200.0, "EFA", "catalog")
    # none known, none given: the slowest network a GPU instance is known to have (2.5 Gbit/s TCP)
    slow = _plan(0.9, network_gbps=None, network_kind="").recommended
    assert slow.nodes > 1
    doc = option_json(slow)
    assert (doc.network_timed_gbps, doc.network_timed_kind, doc.network_source) == (
        2.5,
        "TCP",
        "slowest-assumed",
    )
    # one node: no network between nodes in its time
    doc = option_json(_plan(None).recommended)
    assert (doc.network_timed_gbps, doc.network_timed_kind, doc.network_source) == (None, None, None)
