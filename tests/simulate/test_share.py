"""Service packing is optimal on small cases (checked against brute force) and honest at scale."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuplan.errors import InputError
from gpuplan.simulate import mig
from gpuplan.simulate.share import (
    TIME_SLICE_MEMORY_SHARE,
    ServiceDemand,
    ShareOptions,
    pack_services,
)

GPU = "A100-SXM4-80GB"


def _opts(sharing: str, **kw) -> ShareOptions:
    return ShareOptions(gpu_id=GPU, gpu_memory_gib=80.0, price_usd_per_hour=2.5, sharing=sharing, **kw)


def _svc(name: str, mem: float, rate: float, slo: float | None = None) -> ServiceDemand:
    return ServiceDemand(
        name=name, memory_gib=mem, requests_per_s=rate, capacity_requests_per_s=10.0, latency_s=1.0, slo_s=slo
    )


def _placements_valid(plan) -> None:
    table = mig.mig_gpu(GPU)
    for g in {p.gpu_index for p in plan.placements}:
        on = [(p.slice, p.start) for p in plan.placements if p.gpu_index == g]
        assert mig.layout_is_valid(table, on), on


def _brute_force_mig(instances: list[str]) -> int:
    """Fewest GPUs holding these MIG instances: try every assignment to k GPUs, k = 1, 2, …"""
    table = mig.mig_gpu(GPU)
    for k in range(1, len(instances) + 1):
        for assign in itertools.product(range(k), repeat=len(instances)):
            if assign and assign[0] != 0:
                continue  # symmetry: the first instance goes on GPU 0
            groups = [[n for n, g in zip(instances, assign, strict=True) if g == i] for i in range(k)]
            if all(mig.place(table, grp) is not None for grp in groups if grp):
                return k
    return len(instances)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from([5.0, 9.0, 15.0, 19.0, 30.0, 39.0, 70.0]), min_size=1, max_size=5))
def test_mig_packing_matches_brute_force_on_small_cases(memories: list[float]) -> None:
    # Light load: one instance each, the smallest slice that holds the memory is always best.
    services = [_svc(f"s{i}", m, 0.01) for i, m in enumerate(memories)]
    plan = pack_services(services, _opts("mig"))
    _placements_valid(plan)
    table = mig.mig_gpu(GPU)
    smallest = [
        min(
            (p for p in table.profiles if not p.media_extensions and p.memory_gib >= m),
            key=lambda p: p.memory_slices,
        ).name
        for m in memories
    ]
    assert plan.optimal
    assert plan.gpus_needed == _brute_force_mig(smallest)
    assert {p.service for p in plan.placements} == {s.name for s in services}


def test_mig_load_adds_instances_of_the_chosen_slice() -> None:
    # 3g.40gb serves min(3/7, 4/8) = 0.4286 of a GPU: 10 × 0.4286 × 0.8 = 3.43 req/s per instance.
    plan = pack_services([_svc("chat", 30.0, 6.0)], _opts("mig"))
    chat = plan.services[0]
    assert chat.slice in ("3g.40gb", "4g.40gb", "7g.80gb")
    speed = {"3g.40gb": 3 / 7, "4g.40gb": 0.5, "7g.80gb": 1.0}[chat.slice]
    assert chat.instances == math.ceil(6.0 / (10 * speed * 0.8))
    assert len(plan.placements) == chat.instances
    _placements_valid(plan)


def test_mig_prefers_slices_that_meet_the_slo() -> None:
    # On a 1g slice latency is 1 s / 0.125 = 8 s; an SLO of 4 s forces at least a 2g (4 s) or more.
    plan = pack_services([_svc("tight", 8.0, 0.1, slo=4.5)], _opts("mig"))
    assert plan.services[0].slice != "1g.10gb"
    assert plan.services[0].latency_headroom_s >= 0


def _brute_force_bins(items: list[tuple[float, float]], mem_cap: float, time_cap: float) -> int:
    best = len(items)

    def go(i: int, bins: list[list[float]]) -> None:
        nonlocal best
        if len(bins) >= best:
            return
        if i == len(items):
            best = len(bins)
            return
        m, t = items[i]
        for b in bins:
            if b[0] + m <= mem_cap + 1e-9 and b[1] + t <= time_cap + 1e-9:
                b[0] += m
                b[1] += t
                go(i + 1, bins)
                b[0] -= m
                b[1] -= t
        go(i + 1, [*bins, [m, t]])

    go(0, [])
    return best


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(min_value=2.0, max_value=60.0), st.floats(min_value=0.1, max_value=5.0)),
        min_size=1,
        max_size=7,
    )
)
def test_time_slice_packing_matches_brute_force_on_small_cases(specs: list[tuple[float, float]]) -> None:
    services = [_svc(f"s{i}", m, r) for i, (m, r) in enumerate(specs)]
    opts = _opts("time-slice")
    plan = pack_services(services, opts)
    speed = 1 - opts.time_slice_penalty
    time_cap = opts.target_utilisation  # the shares are wall time on the penalised GPU already
    items = []
    for m, r in specs:
        busy = r / 10.0
        n = max(1, math.ceil(busy / speed / time_cap - 1e-9))
        items += [(m, busy / n / speed)] * n
    assert plan.optimal
    assert plan.gpus_needed == _brute_force_bins(items, 80.0 * TIME_SLICE_MEMORY_SHARE, time_cap)


def test_time_slice_at_scale_reports_a_lower_bound_it_does_not_beat() -> None:
    services = [_svc(f"s{i}", 5.0 + (i * 7) % 30, 0.2 + (i % 5) * 0.3) for i in range(120)]
    plan = pack_services(services, _opts("time-slice"))
    assert plan.lower_bound_gpus <= plan.gpus_needed <= math.ceil(1.25 * plan.lower_bound_gpus) + 1
    per_gpu: dict[int, float] = {}
    for p in plan.placements:
        s = services[int(p.service[1:])]
        per_gpu[p.gpu_index] = per_gpu.get(p.gpu_index, 0.0) + s.memory_gib
    assert max(per_gpu.values()) <= 80.0 * TIME_SLICE_MEMORY_SHARE + 1e-6


def test_mig_at_scale_stays_optimal_and_valid() -> None:
    services = [_svc(f"s{i}", [8.0, 18.0, 35.0][i % 3], 0.3) for i in range(90)]
    plan = pack_services(services, _opts("mig"))
    _placements_valid(plan)
    assert plan.optimal and plan.gpus_needed == plan.lower_bound_gpus
    assert plan.cost_usd_per_hour == pytest.approx(plan.gpus_needed * 2.5)


def test_whole_gpus_and_too_big_services() -> None:
    plan = pack_services([_svc("a", 20.0, 12.0), _svc("huge", 200.0, 1.0)], _opts("whole"))
    assert plan.gpus_needed == math.ceil(12.0 / (10.0 * 0.8))
    assert [u.service for u in plan.unplaced] == ["huge"]
    assert "tensor parallel" in plan.unplaced[0].reason


def test_bad_input_is_one_line() -> None:
    with pytest.raises(InputError, match="named 'a'"):
        pack_services([_svc("a", 1, 1), _svc("a", 1, 1)], _opts("mig"))
    with pytest.raises(InputError, match="positive"):
        _svc("a", 0, 1)


def test_a_name_two_services_share_is_named() -> None:
    # "two services share a name" left the user to find which among a file of services.
    with pytest.raises(InputError) as e:
        pack_services([_svc("chat", 1, 1), _svc("embed", 1, 1), _svc("chat", 2, 1)], _opts("whole"))
    assert str(e.value) == "two services are named 'chat'; give each service its own name"


def test_mps_splits_every_gpu_into_equal_parts_sized_for_the_largest_service() -> None:
    small = [_svc(f"s{i}", 10.0, 0.05) for i in range(5)]
    plan = pack_services(small, _opts("mps"))
    # 76 GiB usable / 10 GiB: up to 7 parts; 5 light services fit one GPU.
    assert plan.gpus_needed == 1 and plan.optimal
    assert plan.services[0].slice.startswith("mps-1/")
    # One 40 GiB service forces parts of 76 GiB (N = 1): every instance then needs its own GPU.
    plan = pack_services([*small, _svc("big", 40.0, 0.05)], _opts("mps"))
    assert plan.gpus_needed == 6
    assert {s.slice for s in plan.services} == {"mps-1/1"}


def test_the_time_slicing_penalty_is_counted_once() -> None:
    # Two services at 0.35 of a whole GPU each: 0.7 / 0.9 = 0.78 of the penalised GPU, under the 0.8
    # target, memory 45 + 25 GiB on 80. They had been put on two GPUs: the penalty was applied to the
    # shares and to the cap both (0.8 × 0.9 × 0.9 = 0.648 of a GPU).
    services = [_svc("a", 45.0, 3.5), _svc("b", 25.0, 3.5)]
    plan = pack_services(services, _opts("time-slice"))
    assert plan.gpus_needed == 1 and plan.optimal
    one = pack_services([_svc("c", 45.0, 7.0)], _opts("time-slice"))
    assert one.gpus_needed == 1  # 0.7 / 0.9 = 78 % busy: one instance


def _p95_mm1(speed: float, rate: float) -> float:
    """The M/M/1 p95 of a `_svc` instance (1 s alone, 10 req/s) at ``rate`` on a share ``speed``."""
    cap = 10.0 * speed
    if rate / cap <= 0.05:
        return 1.0 / speed
    return 1.0 / speed + math.log(rate / cap / 0.05) / (cap - rate)


def test_time_slice_keeps_the_neighbours_off_a_service_they_would_slow_past_its_target() -> None:
    # chat alone on the penalised GPU (speed 0.9): 1/0.9 + ln(3.5/9/0.05)/(9 − 3.5) = 1.48 s ≤ 2 s.
    # Beside batch (0.35/0.9 = 0.389 busy) at 0.9 × (1 − 0.389) = 0.55: 3.09 s, where one GPU was
    # taken and the miss reported. chat meets 2 s while its neighbours keep ≤ 0.199 of the GPU (0.9 ×
    # 0.801 = 0.721: 1/0.721 + ln(3.5/7.21/0.05)/(7.21 − 3.5) = 2.00 s), and batch's 0.389 is more:
    # two GPUs. Two chat instances (0.194 each) would leave room for only 0.31: still two.
    assert _p95_mm1(0.9, 3.5) == pytest.approx(1.484, abs=1e-3)
    assert _p95_mm1(0.9 * (1 - 0.35 / 0.9), 3.5) == pytest.approx(3.090, abs=1e-3)
    plan = pack_services([_svc("chat", 10.0, 3.5, slo=2.0), _svc("batch", 10.0, 3.5)], _opts("time-slice"))
    chat = plan.services[0]
    assert plan.gpus_needed == 2 and plan.optimal
    assert chat.instances == 1 and chat.meets_targets
    assert chat.p95_latency_s == pytest.approx(1.484, abs=1e-3)
    assert {p.gpu_index for p in plan.placements if p.service == "chat"}.isdisjoint(
        {p.gpu_index for p in plan.placements if p.service == "batch"}
    )
    assert any("sized for the neighbours: chat" in n and "added: none" in n for n in plan.notes)


def test_time_slice_adds_an_instance_where_the_halves_fit_beside_the_neighbours() -> None:
    # Two 45 GiB batch services (0.27/0.9 = 0.3 busy each) cannot share a GPU (90 > 76 GiB). chat
    # beside one at 0.9 × 0.7 = 0.63: 1/0.63 + ln(3.5/6.3/0.05)/(6.3 − 3.5) = 2.45 s > 2 s (the miss
    # reported on two GPUs). Kept to neighbours ≤ 0.199 it needs a third GPU; as two instances at
    # 1.75 req/s each beside 0.3: 1/0.63 + ln(1.75/6.3/0.05)/(6.3 − 1.75) = 1.96 s ≤ 2 s, on two GPUs.
    assert _p95_mm1(0.63, 3.5) == pytest.approx(2.447, abs=1e-3)
    assert _p95_mm1(0.63, 1.75) == pytest.approx(1.964, abs=1e-3)
    services = [_svc("chat", 10.0, 3.5, slo=2.0), _svc("batch-a", 45.0, 2.7), _svc("batch-b", 45.0, 2.7)]
    plan = pack_services(services, _opts("time-slice"))
    chat = plan.services[0]
    assert plan.gpus_needed == 2
    assert chat.instances == 2 and chat.meets_targets
    assert chat.p95_latency_s == pytest.approx(1.964, abs=1e-3)
    assert any("instances added: chat +1" in n for n in plan.notes)


def test_time_slice_reports_a_target_no_gpu_of_its_own_meets() -> None:
    # 1 s alone is 1/0.9 = 1.11 s on the penalised GPU: 1 s is out of reach at any instances or
    # neighbours, so the packing stays the fewest GPUs (one) and the miss is reported.
    plan = pack_services([_svc("chat", 10.0, 3.5, slo=1.0), _svc("batch", 10.0, 3.5)], _opts("time-slice"))
    assert plan.gpus_needed == 1
    assert plan.services[0].instances == 1 and not plan.services[0].meets_targets
    assert plan.services[0].p95_latency_s == pytest.approx(3.090, abs=1e-3)
    assert not any("sized for the neighbours" in n for n in plan.notes)


@settings(max_examples=20, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(min_value=5.0, max_value=40.0),
            st.floats(min_value=0.5, max_value=5.0),
            st.sampled_from([None, 1.5, 2.0, 3.0]),
        ),
        min_size=2,
        max_size=5,
    )
)
def test_time_slice_meets_every_target_a_gpu_of_its_own_meets(
    specs: list[tuple[float, float, float | None]],
) -> None:
    services = [_svc(f"s{i}", m, r, slo) for i, (m, r, slo) in enumerate(specs)]
    plan = pack_services(services, _opts("time-slice"))
    # A target the service meets at its instances alone on the penalised GPU (speed 0.9, 9 req/s
    # each) is met beside whatever neighbours the packing gives it.
    for s, out in zip(services, plan.services, strict=True):
        rate = s.requests_per_s / out.instances
        if s.slo_s is not None and rate < 9.0 and _p95_mm1(0.9, rate) <= s.slo_s:
            assert out.meets_targets, (s, out)
    assert plan.lower_bound_gpus <= plan.gpus_needed
