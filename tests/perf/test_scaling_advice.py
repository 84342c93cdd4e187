"""Where a step mostly waits on its collectives, estimate offers the changes that make it faster —
fewer GPUs, more gradient accumulation — each the estimator's own figure for the changed setup."""

from __future__ import annotations

import pytest

from gpuplan.api import estimate
from gpuplan.perf.links import NetworkSpec
from gpuplan.workload import Workload

#: GPT-2 trained in bf16 on 16 A100s, two nodes of 8 joined by 10 Gbit/s TCP: the gradient
#: all-reduce of 124 M parameters dwarfs a micro-batch of 4 × 512 tokens.
_WORKLOAD = {
    "name": "slow-net",
    "task": "train",
    "model": {"preset": "gpt2"},
    "inputs": {"batch_size": 4, "seq_len": 512},
    "precision": "amp-bf16",
    "optimizer": "adamw",
    "parallelism": "ddp",
    "data": {"samples": 200_000, "epochs": 1},
}
_SLOW = NetworkSpec(gbit_s=10.0, kind="tcp", gpus_per_node=8, nvlink=True)


@pytest.fixture(scope="module")
def slow():  # type: ignore[no-untyped-def]
    w = Workload.from_dict(_WORKLOAD)
    report = estimate(w, ["A100-SXM4-80GB:16"], network=_SLOW)
    return w, report


def test_a_communication_bound_step_is_offered_fewer_gpus_and_more_accumulation(slow) -> None:  # type: ignore[no-untyped-def]
    _w, report = slow
    (o,) = report.outcomes
    e = o.estimate
    assert e is not None and e.comm_exposed_s > 0.5 * e.step_time_s  # the case at hand
    by = {a.action: a for a in o.scaling}
    assert set(by) == {"fewer_gpus", "gradient_accumulation"}
    fewer, accum = by["fewer_gpus"], by["gradient_accumulation"]
    # one node of 8: the all-reduce stays on NVLink
    assert fewer.gpu_count == 8 and fewer.throughput_factor > 1.1 and fewer.comm_share < 0.5
    assert fewer.gpu_hours_factor == pytest.approx(8 / 16 / fewer.throughput_factor)
    assert accum.gpu_count == 16 and accum.grad_accum_steps in (2, 4, 8) and accum.throughput_factor > 1.1
    assert "global batch is" in accum.summary
    # fastest first
    assert [a.throughput_factor for a in o.scaling] == sorted(
        (a.throughput_factor for a in o.scaling), reverse=True
    )


def test_each_figure_is_the_estimate_of_the_changed_setup(slow) -> None:  # type: ignore[no-untyped-def]
    w, report = slow
    (o,) = report.outcomes
    fewer = next(a for a in o.scaling if a.action == "fewer_gpus")
    (alone,) = estimate(w, ["A100-SXM4-80GB:8"], network=_SLOW, profile=report.profile).outcomes
    assert alone.estimate is not None
    assert fewer.job_time_h == pytest.approx(alone.estimate.job_time_h)
    accum = next(a for a in o.scaling if a.action == "gradient_accumulation")
    more = Workload.from_dict({**_WORKLOAD, "gradient_accumulation": accum.grad_accum_steps})
    (acc,) = estimate(more, ["A100-SXM4-80GB:16"], network=_SLOW, profile=report.profile).outcomes
    assert acc.estimate is not None
    assert accum.job_time_h == pytest.approx(acc.estimate.job_time_h)


def test_a_step_that_computes_gets_no_such_advice() -> None:
    fast = NetworkSpec(gbit_s=3200.0, kind="rdma", gpus_per_node=8, nvlink=True)
    (o,) = estimate(Workload.from_dict(_WORKLOAD), ["A100-SXM4-80GB:8"], network=fast).outcomes
    assert o.estimate is not None and o.scaling == ()
