"""A GPU whose rate for the job's math no source gives (the H20's FP8 tensor cores) has an unknown
speed: the planner leaves it out for that reason, never as "does not fit" and never ranked."""

from __future__ import annotations

import dataclasses
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
from gpuplan.plan.estimator import EstimateFn
from gpuplan.profile import Profile
from gpuplan.workload import Workload

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _fp8_estimator() -> EstimateFn:
    """The estimator of a job whose matmuls run in FP8: the H20 has FP8 tensor cores, and no source
    read gives their rate."""
    base = ddp_profile("fp8 matmuls")
    profile: Profile = dataclasses.replace(
        base,
        precision="fp8",
        ops=tuple(dataclasses.replace(op, dtype="float8_e4m3fn") for op in base.ops),
    )
    workload = Workload.from_yaml(EXAMPLES / "resnet50-imagenet.yaml").model_copy(update={"precision": "fp8"})
    est, _ = make_estimator(workload, profile, CAL)
    return est


def _one_gpu(gpu: str) -> EstimateKey:
    return EstimateKey(gpu=gpu, gpus_per_node=1, nodes=1, interconnect="", network_gbps=None)


def test_the_estimator_answers_an_unrated_gpu_as_unknown_speed_not_as_unfit() -> None:
    est = _fp8_estimator()
    h20, h100 = est(_one_gpu("H20")), est(_one_gpu("H100-SXM"))
    assert h20.rate_unknown and not h20.fits and math.isnan(h20.job_time_h)
    assert h100.fits and not h100.rate_unknown and math.isfinite(h100.job_time_h)
    assert est(_one_gpu("H20")) is h20  # asked again: the cached answer, still unknown


def test_the_l20_runs_bf16_at_the_matmul_rate_measured_on_one() -> None:
    # The L20 was left out of every BF16 plan: no source gave its tensor-core peak. Its peak is now
    # derived from the L40's per-SM rate and its SM count, and its achievable rate is a measurement
    # on a rented L20 (114.14 TFLOPS BF16): the estimate runs at that, whatever the derived peak.
    from gpuplan.hardware.gpus import achievable_matmul_fraction, get_gpu

    l20 = get_gpu("L20")
    peak = l20.peak_tflops("bf16")
    assert peak is not None
    assert math.isclose(peak * achievable_matmul_fraction(l20), 114.14, rel_tol=0.002)
    est, _ = make_estimator(
        Workload.from_yaml(EXAMPLES / "resnet50-imagenet.yaml"), ddp_profile("bf16 matmuls"), CAL
    )
    row = est(_one_gpu("L20"))
    assert row.fits and not row.rate_unknown and math.isfinite(row.job_time_h)
    # and the estimate says so: the peak derived, the time at the measured rate
    from gpuplan.api import estimate

    report = estimate(
        Workload.from_yaml(EXAMPLES / "resnet50-imagenet.yaml"), ["L20"], profile=ddp_profile("bf16 matmuls")
    )
    (outcome,) = report.outcomes
    assert outcome.estimate is not None
    notes = outcome.estimate.notes
    said = [n for n in notes if n.startswith("L20: its BF16 peak 118.7 TFLOPS is derived, not published")]
    assert said and "114.2 TFLOPS" in said[0]


class _Held:
    """A stand-in for a caller's local (the planner's candidate arrays)."""


def test_an_unrated_answer_keeps_none_of_the_callers_locals_alive() -> None:
    # The estimator lives as long as the plan; an error it kept (its traceback and context reach
    # the callers' frames) held each caller's locals, ~11 MB at the plan's peak.
    est = _fp8_estimator()

    def ask(interconnect: str) -> weakref.ref[_Held]:
        held = _Held()
        row = est(
            EstimateKey(gpu="H20", gpus_per_node=1, nodes=1, interconnect=interconnect, network_gbps=None)
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
