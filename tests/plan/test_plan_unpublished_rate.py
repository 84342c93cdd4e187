"""A GPU whose rate for the job's math no source gives (the L20's BF16 tensor cores) has an unknown
speed: the planner leaves it out for that reason, never as "does not fit" and never ranked."""

from __future__ import annotations

import gc
import math
import weakref
from pathlib import Path

from plan_helpers import CAL, aws_costs, ddp_profile, offer

from gpuplan.plan import (
    Constraints,
    CostFacts,
    EstimateKey,
    EstimateRow,
    JobFacts,
    OfferTable,
    plan_offers,
)
from gpuplan.plan.build_inputs import make_estimator
from gpuplan.workload import Workload

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_estimator_answers_an_unrated_gpu_as_unknown_speed_not_as_unfit() -> None:
    est, _ = make_estimator(
        Workload.from_yaml(EXAMPLES / "resnet50-imagenet.yaml"), ddp_profile("bf16 matmuls"), CAL
    )

    def row(gpu: str) -> EstimateRow:
        return est(EstimateKey(gpu=gpu, gpus_per_node=1, nodes=1, interconnect="", network_gbps=None))

    l20, a100 = row("L20"), row("A100-SXM4-40GB")
    assert l20.rate_unknown and not l20.fits and math.isnan(l20.job_time_h)
    assert a100.fits and not a100.rate_unknown and math.isfinite(a100.job_time_h)
    assert row("L20") is l20  # asked again: the cached answer, still unknown


class _Held:
    """A stand-in for a caller's local (the planner's candidate arrays)."""


def test_an_unrated_answer_keeps_none_of_the_callers_locals_alive() -> None:
    # The estimator lives as long as the plan; an error it kept (its traceback and context reach
    # the callers' frames) held each caller's locals, ~11 MB at the plan's peak.
    est, _ = make_estimator(
        Workload.from_yaml(EXAMPLES / "resnet50-imagenet.yaml"), ddp_profile("bf16 matmuls"), CAL
    )

    def ask(interconnect: str) -> weakref.ref[_Held]:
        held = _Held()
        row = est(
            EstimateKey(gpu="L20", gpus_per_node=1, nodes=1, interconnect=interconnect, network_gbps=None)
        )
        assert row.rate_unknown
        return weakref.ref(held)

    # the first ask of the GPU, then another shape of the same stages
    refs = [ask(""), ask("PCIe")]
    gc.collect()
    assert [r() for r in refs] == [None, None]


def test_an_unrated_gpu_is_left_out_for_its_unknown_rate_and_never_ranked() -> None:
    rows = [
        offer(instance_type="l20-cheap", gpu="L20", gpu_memory_gib=48.0, price_usd=0.5),
        offer(instance_type="a100-dear", gpu="A100-SXM4-40GB", gpu_memory_gib=40.0, price_usd=30.0),
    ]

    def est(key: EstimateKey) -> EstimateRow:
        if key.gpu == "L20":
            nan = math.nan
            return EstimateRow(
                fits=False, rate_unknown=True, job_time_h=nan, job_time_h_low=nan, job_time_h_high=nan
            )
        return EstimateRow(
            fits=True, job_time_h=1.0, job_time_h_low=1.0, job_time_h_high=1.0, peak_memory_gib=20.0
        )

    plan = plan_offers(
        OfferTable.from_rows(rows), CostFacts([aws_costs()]), JobFacts(), est, Constraints(max_gpus=8)
    )
    assert plan.options and {o.instance_type for o in plan.options} == {"a100-dear"}
    assert plan.excluded.get("no_published_rate", 0) > 0
    assert "does_not_fit" not in plan.excluded
    # the count alone had not said which GPU was left out, nor why: the notes name it
    said = [n for n in plan.notes if "(no_published_rate)" in n]
    n = plan.excluded["no_published_rate"]
    assert said == [
        f"L20: {n} candidates left out (no_published_rate): no source gives its tensor-core rate at "
        "this job's precision, so its speed is unknown (`gpuplan estimate --gpu L20` names the rate)"
    ]
