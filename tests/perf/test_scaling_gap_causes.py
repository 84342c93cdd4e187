"""The likely causes of a measured step longer than the estimate are ranked by how near each comes
to the gap, a slower network is the rate between the nodes that gives the measured step, and the
advice on overlapped communication is the workload's parallelism's own.

An outside user measured 9× on two nodes of 8 A100s (FSDP, 1.46 s a step against 1.25 s estimated,
205 ms longer): the first cause was "a network slower than the 100 Gbit/s assumed (at its
conservative bound, 2.5 Gbit/s TCP): +24.8 s a step, 100% of the gap", a bound 120 times the gap
capped to look like an exact fit and ranked first by its seconds; the second told them to check
DDP's find_unused_parameters and no_sync, which an FSDP job does not have."""

from __future__ import annotations

from typing import Any

import pytest

from gpuplan.api import estimate
from gpuplan.perf.links import NetworkSpec
from gpuplan.perf.scaling_gap import GapCause, MeasuredScaling, ScalingGap
from gpuplan.profile.model import Profile
from gpuplan.workload import Workload
from stand_in_profiles import TOY_LLM_WORKLOAD, toy_llm_profile

#: Nodes of eight PCIe cards whose network nothing states (Alibaba's gn8is): assumed 100 Gbit/s TCP.
_NODES = NetworkSpec(gpus_per_node=8, interconnect="")


@pytest.fixture(scope="module")
def profile() -> Profile:
    return toy_llm_profile()


def _gap(
    gpus: str, profile: Profile, speedup: float, network: NetworkSpec = _NODES, **workload: Any
) -> ScalingGap:
    w = Workload.from_dict({**TOY_LLM_WORKLOAD, **workload})
    (o,) = estimate(
        w, [gpus], network=network, profile=profile, measured_scaling=MeasuredScaling(speedup=speedup)
    ).outcomes
    assert o.scaling_gap is not None and o.scaling_gap.gap_s > 0
    return o.scaling_gap


def _cause(g: ScalingGap, name: str) -> GapCause:
    return next(c for c in g.causes if c.cause == name)


def test_a_slower_network_is_the_rate_that_gives_the_measured_step(profile: Profile) -> None:
    g = _gap("L20:16", profile, 5.0)
    net = _cause(g, "slower_network")
    assert net.network_gbps is not None and 2.5 < net.network_gbps < 100.0
    # the estimator told that network gives the step measured
    told = NetworkSpec(gbit_s=net.network_gbps, kind="tcp", gpus_per_node=8, interconnect="")
    (o,) = estimate(Workload.from_dict(TOY_LLM_WORKLOAD), ["L20:16"], network=told, profile=profile).outcomes
    assert o.estimate is not None
    assert o.estimate.step_time_s == pytest.approx(g.measured_step_s, rel=1e-4)
    # the bound overshoots the gap many times over: said as that, not capped to look exact
    assert net.extra_s is not None and net.share_of_gap is not None and net.share_of_gap > 10
    assert net.share_of_gap == pytest.approx(net.extra_s / g.gap_s)
    assert net.fit == 1.0
    rate = f"{net.network_gbps:.2g}"
    assert net.words == (
        f"the gap is what a network of about {rate} Gbit/s TCP between the nodes would give "
        "(100 Gbit/s TCP assumed)"
    )
    # ranked by how near it comes to the gap: the hidden communication reaches a share of it only
    exposed = _cause(g, "exposed_communication")
    assert exposed.share_of_gap is not None and exposed.share_of_gap < 1
    assert exposed.fit == pytest.approx(exposed.share_of_gap)
    assert [c.cause for c in g.causes[:2]] == ["slower_network", "exposed_communication"]


def test_a_rate_just_under_the_one_assumed_is_said_as_a_number(profile: Profile) -> None:
    # 6.68× estimated; 6.67× measured is what a network a little under 100 Gbit/s gives
    g = _gap("L20:16", profile, 6.67)
    net = _cause(g, "slower_network")
    assert net.network_gbps is not None and 99 < net.network_gbps < 100
    assert f"about {net.network_gbps:.3g} Gbit/s TCP" in net.words and "e+" not in net.words


def test_a_gap_the_slowest_network_cannot_reach_is_said_so(profile: Profile) -> None:
    g = _gap("L20:16", profile, 0.1)
    net = _cause(g, "slower_network")
    assert net.network_gbps is None
    assert net.share_of_gap is not None and net.share_of_gap < 1
    assert net.fit == pytest.approx(net.share_of_gap)
    assert "even at the slowest plausible, 2.5 Gbit/s TCP, it adds" in net.words
    assert "of the gap" in net.words


def test_an_all_or_nothing_cause_far_over_the_gap_ranks_below_one_that_reaches_it(profile: Profile) -> None:
    # 8 L20s over PCIe, estimated about 5.03× one: 5× measured leaves a gap of a few ms, which
    # losing P2P would overshoot fifty times over, and losing some overlap would give exactly
    g = _gap("L20:8", profile, 5.0)
    p2p, exposed = _cause(g, "pcie_without_p2p"), _cause(g, "exposed_communication")
    assert p2p.share_of_gap is not None and p2p.share_of_gap > 10
    assert p2p.fit == pytest.approx(1 / p2p.share_of_gap)
    assert "× the gap (a step longer than measured)" in p2p.words
    assert (
        exposed.fit == 1.0
        and "the gap is what" in exposed.words
        and "of it exposed would give" in exposed.words
    )
    assert [c.cause for c in g.causes[:2]] == ["exposed_communication", "pcie_without_p2p"]


@pytest.mark.parametrize(
    ("parallelism", "said", "not_said"),
    [
        ("ddp", ("find_unused_parameters=True", "no_sync"), ("backward_prefetch", "overlap_comm")),
        (
            "fsdp",
            (
                "backward_prefetch=None",
                "reshard_after_forward=False",
                "limit_all_gathers",
                "wrapping too coarse",
            ),
            ("find_unused_parameters", "no_sync", "DDP"),
        ),
        (
            "zero3",
            ("overlap_comm", "stage3_prefetch_bucket_size", "stage3_max_live_parameters"),
            ("find_unused_parameters", "no_sync"),
        ),
        ("zero2", ("overlap_comm", "reduce_bucket_size", "SHARD_GRAD_OP"), ("find_unused_parameters",)),
        (
            "zero1",
            ("overlap_comm", "ZeroRedundancyOptimizer", "find_unused_parameters"),
            ("backward_prefetch",),
        ),
    ],
)
def test_the_overlap_advice_is_the_parallelisms_own(
    profile: Profile, parallelism: str, said: tuple[str, ...], not_said: tuple[str, ...]
) -> None:
    g = _gap("L20:16", profile, 3.0, parallelism=parallelism)
    check = _cause(g, "exposed_communication").check
    for words in said:
        assert words in check, (parallelism, words, check)
    for words in not_said:
        assert words not in check, (parallelism, words, check)


def test_a_measurement_faster_than_the_estimate_names_the_network_that_gives_it(profile: Profile) -> None:
    # 16 L20s on a network nobody stated: the estimate assumes 100 Gbit/s TCP. A team measured
    # 70 % scaling on their previous cloud; the answer was "nothing to explain", not which network
    # that speed-up says they had.
    w = Workload.from_dict(TOY_LLM_WORKLOAD)
    (o,) = estimate(w, ["L20:16"], network=_NODES, profile=profile).outcomes
    assert o.scaling_figures is not None and o.scaling_figures.speedup is not None
    measured = o.scaling_figures.speedup * 1.3
    (o,) = estimate(
        w, ["L20:16"], network=_NODES, profile=profile, measured_scaling=MeasuredScaling(speedup=measured)
    ).outcomes
    g = o.scaling_gap
    assert g is not None and g.gap_s < 0 and not g.causes
    rates = {n.kind: n.gbps for n in g.faster_network}
    assert set(rates) == {"rdma", "tcp"}
    for kind, gbps in rates.items():
        assert gbps is not None and (kind == "rdma" or gbps > 100.0)
        # the estimator told that network gives the step measured
        told = NetworkSpec(gbit_s=gbps, kind=kind, gpus_per_node=8, interconnect="")
        (t,) = estimate(w, ["L20:16"], network=told, profile=profile).outcomes
        assert t.estimate is not None
        assert t.estimate.step_time_s == pytest.approx(g.measured_step_s, rel=1e-4)
    # RDMA reaches the same step at a lower line rate than TCP
    assert rates["rdma"] is not None and rates["tcp"] is not None and rates["rdma"] < rates["tcp"]


def test_a_measurement_faster_than_any_network_gives_names_none(profile: Profile) -> None:
    (o,) = estimate(
        Workload.from_dict(TOY_LLM_WORKLOAD),
        ["L20:16"],
        network=_NODES,
        profile=profile,
        measured_scaling=MeasuredScaling(speedup=15.9),
    ).outcomes
    g = o.scaling_gap
    assert g is not None and g.gap_s < 0
    assert [(n.kind, n.gbps) for n in g.faster_network] == [("rdma", None), ("tcp", None)]


def test_a_stated_network_measured_faster_names_the_rate_of_it_the_run_went_at(profile: Profile) -> None:
    # 16 L20s over a stated 100 Gbit/s TCP, measured faster than estimated: the answer had been
    # "nothing to explain", no word of the rate the estimate would need
    told = NetworkSpec(gbit_s=100.0, kind="tcp", gpus_per_node=8, interconnect="")
    w = Workload.from_dict(TOY_LLM_WORKLOAD)
    (o,) = estimate(w, ["L20:16"], network=told, profile=profile).outcomes
    assert o.scaling_figures is not None and o.scaling_figures.speedup is not None
    measured = o.scaling_figures.speedup * 1.1
    (o,) = estimate(
        w, ["L20:16"], network=told, profile=profile, measured_scaling=MeasuredScaling(speedup=measured)
    ).outcomes
    g = o.scaling_gap
    assert g is not None and g.gap_s < 0
    (rate,) = g.faster_network
    assert rate.kind == "tcp" and rate.gbps is not None and rate.gbps > 100.0
    (t,) = estimate(
        w,
        ["L20:16"],
        network=NetworkSpec(gbit_s=rate.gbps, kind="tcp", gpus_per_node=8, interconnect=""),
        profile=profile,
    ).outcomes
    assert t.estimate is not None and t.estimate.step_time_s == pytest.approx(g.measured_step_s, rel=1e-4)
    # a rate stated without its kind: TCP at the point, RDMA at the fast end; no one kind to solve
    unkinded = NetworkSpec(gbit_s=100.0, kind=None, gpus_per_node=8, interconnect="")
    (o,) = estimate(
        w, ["L20:16"], network=unkinded, profile=profile, measured_scaling=MeasuredScaling(speedup=15.0)
    ).outcomes
    assert o.scaling_gap is not None and o.scaling_gap.gap_s < 0 and o.scaling_gap.faster_network == ()


def test_causes_sized_at_a_small_part_of_the_gap_come_after_those_not_modelled(profile: Profile) -> None:
    # 8 L20s over PCIe measured at 1× one: losing P2P and all of the overlap come to about a tenth of
    # the gap together, while a DataLoader that slow would give all of it by itself
    g = _gap("L20:8", profile, 1.0)
    sized = [c for c in g.causes if c.extra_s is not None]
    assert {c.cause for c in sized} == {"pcie_without_p2p", "exposed_communication"}
    assert g.sized_share_of_gap == pytest.approx(sum(c.share_of_gap or 0.0 for c in sized))
    assert g.sized_share_of_gap < 0.5
    assert [c.cause for c in g.causes] == [
        "input_pipeline",
        "small_batch",
        "cpu_threads",
        *(c.cause for c in sorted(sized, key=lambda c: -(c.fit or 0.0))),
    ]


def test_sized_causes_near_the_gap_stay_first(profile: Profile) -> None:
    # 4.5× measured: losing some of the overlap comes to most of the gap
    g = _gap("L20:8", profile, 4.5)
    assert g.sized_share_of_gap == 1.0
    assert g.causes[0].cause == "exposed_communication"
