"""A configuration of several GPUs says how it scales over one GPU of its kind (speed-up,
efficiency, the link, the communication and what of it is exposed), each figure the estimator's
own; a measured speed-up is read against it with the gap's likely causes ranked by the
estimator's figures; and an unknown network between nodes is shown at its conservative bound too.

An outside tester asked why their DDP job scaled 5× on 8 GPUs: the estimate's 6.9× was only found
by dividing two runs by hand, and the link and the communication time were only in ``--json``."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpuplan.api import estimate
from gpuplan.hardware import get_gpu
from gpuplan.perf import load_calibration, request_for
from gpuplan.perf.estimate import run_estimate
from gpuplan.perf.links import Link, NetworkSpec
from gpuplan.perf.scaling import request_link
from gpuplan.perf.scaling_gap import MeasuredScaling
from gpuplan.profile.model import Profile
from gpuplan.workload import Workload
from stand_in_profiles import TOY_LLM_WORKLOAD, toy_llm_profile

_WORKLOAD = TOY_LLM_WORKLOAD
#: An instance of eight PCIe cards whose catalog entry gives no network (Alibaba's gn8is).
_PCIE_NODE = NetworkSpec(gpus_per_node=8, interconnect="")


@pytest.fixture(scope="module")
def profile() -> Profile:
    return toy_llm_profile()


def _one(gpus: str, profile: Profile, network: NetworkSpec | None = _PCIE_NODE, **kw: object):  # type: ignore[no-untyped-def]
    (o,) = estimate(Workload.from_dict(_WORKLOAD), [gpus], network=network, profile=profile, **kw).outcomes  # type: ignore[arg-type]
    return o


def test_the_speed_up_is_the_estimate_over_that_of_one_gpu_of_the_kind(profile: Profile) -> None:
    eight = _one("L20:8", profile)
    one = _one("L20:1", profile)
    f = eight.scaling_figures
    assert f is not None and one.estimate is not None and eight.estimate is not None
    assert f.one_gpu_throughput == pytest.approx(one.estimate.throughput)
    assert f.speedup == pytest.approx(eight.estimate.throughput / one.estimate.throughput)
    assert f.efficiency == pytest.approx(f.speedup / 8)
    assert 1 < f.speedup < 8  # the all-reduce over PCIe is not free
    assert f.intra_node == "pcie" and f.intra_node_gbps > 0 and f.nodes == 1
    assert f.comm_total_s == eight.estimate.comm_total_s > 0
    assert f.comm_exposed_s == eight.estimate.comm_exposed_s
    assert f.exposed_share == pytest.approx(f.comm_exposed_s / f.step_time_s)
    assert f.conservative is None  # one node: no network to bound
    # one GPU has no scaling to show
    assert one.scaling_figures is None


def test_the_link_is_named_as_its_maker_writes_it() -> None:
    pcie = Link.for_gpus(get_gpu("L20"), 16, gpus_per_node=8)
    assert pcie.describe().startswith("2 nodes × 8× GPU over PCIe (")
    assert "Gbit/s TCP, assumed" in pcie.describe()
    nvlink = Link.for_gpus(get_gpu("A100-SXM4-80GB"), 8, network_gbit_s=400, network_kind="rdma")
    assert "over NVLink (" in nvlink.describe()


def test_an_unknown_network_is_shown_at_its_conservative_bound_too(profile: Profile) -> None:
    two_nodes = _one("L20:16", profile)
    f = two_nodes.scaling_figures
    assert f is not None and two_nodes.estimate is not None
    assert f.network_source == "assumed" and f.network_gbps == 100.0
    c = f.conservative
    assert c is not None and c.network_gbps == 2.5 and c.network_kind == "tcp"
    # the same as an estimate told that network
    told = _one("L20:16", profile, NetworkSpec(gbit_s=2.5, kind="tcp", gpus_per_node=8, interconnect=""))
    assert told.estimate is not None
    assert c.throughput == pytest.approx(told.estimate.throughput)
    assert c.throughput_low == pytest.approx(told.estimate.throughput_low)
    assert c.throughput < two_nodes.estimate.throughput
    assert c.speedup is not None and f.speedup is not None and c.speedup < f.speedup
    # a network the user states has no bound to show
    assert told.scaling_figures is not None and told.scaling_figures.conservative is None


def test_a_measured_speed_up_is_read_as_a_step_and_its_gap_ranked_by_the_estimates_figures(
    profile: Profile,
) -> None:
    o = _one("L20:8", profile, measured_scaling=MeasuredScaling(speedup=5.0))
    f, g, e = o.scaling_figures, o.scaling_gap, o.estimate
    assert f is not None and g is not None and e is not None and f.one_gpu_step_s is not None
    assert g.given == "speedup" and g.measured_speedup == 5.0
    assert g.measured_step_s == pytest.approx(f.one_gpu_step_s * 8 / 5.0)
    assert g.gap_s == pytest.approx(g.measured_step_s - e.step_time_s) and g.gap_s > 0
    sized = [c for c in g.causes if c.extra_s is not None]
    assert [c.cause for c in g.causes[len(sized) :]] == ["input_pipeline", "small_batch", "cpu_threads"]
    # nearest the gap first, not most seconds first (pcie_without_p2p's bound is far the larger)
    assert [c.fit for c in sized] == sorted((c.fit for c in sized), reverse=True)
    by = {c.cause: c for c in sized}
    assert set(by) == {"pcie_without_p2p", "exposed_communication"}
    # each the estimator's own figure: every collective exposed; the node re-estimated without P2P
    assert by["exposed_communication"].extra_s == pytest.approx(e.comm_total_s - e.comm_exposed_s)
    w = Workload.from_dict(_WORKLOAD)
    request = request_for(
        w,
        profile,
        get_gpu("L20"),
        count=8,
        link=_PCIE_NODE.link(get_gpu("L20"), 8),
        calibration=load_calibration(),
    )
    no_p2p = run_estimate(request.changed(link=replace(request_link(request), peer_access=False)))
    assert by["pcie_without_p2p"].extra_s == pytest.approx(no_p2p.step_time_s - e.step_time_s)
    for c in sized:
        assert c.share_of_gap == pytest.approx((c.extra_s or 0) / g.gap_s)


def test_a_measurement_at_or_above_the_estimate_has_nothing_to_explain(profile: Profile) -> None:
    o = _one("L20:8", profile, measured_scaling=MeasuredScaling(speedup=8.0))
    assert o.scaling_gap is not None and o.scaling_gap.gap_s <= 0 and o.scaling_gap.causes == ()


def test_a_measured_throughput_is_checked_against_the_range(profile: Profile) -> None:
    base = _one("L20:8", profile)
    assert base.estimate is not None
    near = _one(
        "L20:8", profile, measured_scaling=MeasuredScaling(throughput=base.estimate.throughput * 0.97)
    )
    far = _one(
        "L20:8", profile, measured_scaling=MeasuredScaling(throughput=base.estimate.throughput_low * 0.5)
    )
    assert near.scaling_gap is not None and near.scaling_gap.within_range is True
    assert far.scaling_gap is not None and far.scaling_gap.within_range is False
    assert far.scaling_gap.given == "throughput"
    assert far.scaling_gap.measured_step_s == pytest.approx(
        base.estimate.step_time_s / 0.5 * (base.estimate.throughput / base.estimate.throughput_low)
    )
